import Foundation
import PortalAuth
import Testing

@testable import PortalAuthIAP

/// A full IAP configuration file (authorize/token/logout at an Entra ID tenant, `*.example.com`
/// behind the proxy), as a dictionary to vary key by key; PortalAuthTests has the same for an
/// emulator (here there is none, so `emulator` is always nil).
func iapFile(_ emulator: Never?, _ change: (inout [String: Any]) -> Void = { _ in }) -> [String: Any] {
    let entra = "https://login.microsoftonline.com/tenant/oauth2/v2.0"
    let proxyHost = "*.example.com"
    var object: [String: Any] = [
        "authorize_url": entra + "/authorize", "token_url": entra + "/token", "logout_url": entra + "/logout",
        "client_id": "iap-client", "redirect_url": "http://127.0.0.1/iap/callback",
        "scope": ["iap-client/.default", "offline_access", "openid", "profile"],
        "hosts_behind_proxy": [proxyHost], "authorization_prompt_type": "",
    ]
    change(&object)
    return object
}

func parseIAP(_ object: [String: Any]) throws -> IAPConfiguration {
    let data = try JSONSerialization.data(withJSONObject: object)
    return try IAPConfiguration(file: try ConfigurationFile(data: Array(data), source: "iap.json"))
}

@Suite struct IAPConfigurationTests {
    @Test func everyKeyIsRead() throws {
        let configuration = try parseIAP(
            iapFile(nil) {
                $0["authorization_prompt_type"] = "select_account"
                $0["bearer_token"] = "id_token"
                $0["timeout_seconds"] = 42
                $0["type"] = "iap"
            })
        #expect(
            configuration.authorizeURL.absoluteString
                == "https://login.microsoftonline.com/tenant/oauth2/v2.0/authorize")
        #expect(configuration.tokenURL.absoluteString.hasSuffix("/token"))
        #expect(configuration.logoutURL.absoluteString.hasSuffix("/logout"))
        #expect(configuration.clientID == "iap-client")
        #expect(configuration.redirectURL == URL(string: "http://127.0.0.1/iap/callback")!)
        #expect(configuration.scopes == ["iap-client/.default", "offline_access", "openid", "profile"])
        #expect(configuration.hostsBehindProxy == ["*.example.com"])
        #expect(configuration.authorizationPromptType == "select_account")
        #expect(configuration.bearerToken == .idToken)
        #expect(configuration.timeout == 42)
    }

    @Test(arguments: [
        "authorize_url", "token_url", "logout_url", "client_id", "redirect_url", "scope", "hosts_behind_proxy",
    ])
    func aMissingRequiredKeyIsNamed(_ key: String) throws {
        let error = #expect(throws: PortalAuthError.self) { try parseIAP(iapFile(nil) { $0[key] = nil }) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.remedy == .fixConfiguration(file: "iap.json", key: key), "\(error?.message ?? "")")
    }

    /// (key, the key's new value as JSON text)
    static let invalidValues: [(String, String)] = [
        ("scope", #""openid""#),
        ("scope", "[]"),
        ("redirect_url", #""urn:ietf:wg:oauth:2.0:oob""#),
        ("hosts_behind_proxy", #""*.example.com""#),
        ("hosts_behind_proxy", "[]"),
        ("hosts_behind_proxy", #"["https://x.example.com"]"#),
        ("hosts_behind_proxy", #"["a*b.example.com"]"#),
        ("hosts_behind_proxy", #"[":443"]"#),
        ("hosts_behind_proxy", #"["[::1"]"#),
        ("hosts_behind_proxy", #"["*."]"#),
        ("hosts_behind_proxy", #"["[host]"]"#),
        ("client_id", "7"),
        ("authorize_url", #""http://login.example.com/authorize""#),
        ("token_url", #""ftp://login.example.com/token""#),
        ("authorization_prompt_type", #""always""#),
        ("bearer_token", #""refresh_token""#),
        ("redirect_url", #""not a url""#),
        ("timeout_seconds", "-3"),
        ("hosts", #"["x"]"#),
        ("type", #""oauth-user""#),
    ]

    @Test(arguments: invalidValues)
    func anInvalidValueIsNamed(_ key: String, _ json: String) throws {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        let error = #expect(throws: PortalAuthError.self) { try parseIAP(iapFile(nil) { $0[key] = value }) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.remedy == .fixConfiguration(file: "iap.json", key: key), "\(key): \(error?.message ?? "")")
        #expect(error?.message.contains("\n") == false)
    }

    @Test func httpIsAllowedForLoopbackIdentityProviders() throws {
        let configuration = try parseIAP(iapFile(nil) { $0["token_url"] = "http://127.0.0.1:9/token" })
        #expect(configuration.tokenURL.scheme == "http")
    }

    @Test func hostMatching() throws {
        let configuration = try IAPConfiguration(
            authorizeURL: URL(string: "https://login.example.net/t/oauth2/v2.0/authorize")!,
            tokenURL: URL(string: "https://login.example.net/t/oauth2/v2.0/token")!,
            logoutURL: URL(string: "https://login.example.net/t/oauth2/v2.0/logout")!, clientID: "c",
            scopes: ["openid"],
            hostsBehindProxy: ["*.Domain.com", "gis.example.org", "maps.example.org:8443", "[::1]:9443", "fd00::5"])
        func matches(_ url: String) -> Bool { configuration.canBeUsed(for: URL(string: url)!) }
        #expect(matches("https://portal.domain.com/portal"))
        #expect(matches("https://a.b.DOMAIN.com:7443/portal"))
        #expect(!matches("https://domain.com/portal"))  // subdomains only
        #expect(!matches("https://evildomain.com/portal"))
        #expect(!matches("https://portal.domain.com.evil.net/portal"))
        #expect(matches("https://GIS.example.org/portal"))
        #expect(matches("https://gis.example.org:6443/arcgis"))  // any port
        #expect(matches("https://maps.example.org:8443/portal"))
        #expect(!matches("https://maps.example.org/portal"))  // 443 is not 8443
        #expect(!matches("https://other.example.org/portal"))
        #expect(matches("https://[::1]:9443/portal"))
        #expect(!matches("https://[::1]:9444/portal"))
        #expect(matches("https://[fd00::5]:7443/portal"))  // a bare IPv6 entry: any port

        let everything = try IAPConfiguration(
            authorizeURL: URL(string: "https://login.example.net/t/authorize")!,
            tokenURL: URL(string: "https://login.example.net/t/token")!,
            logoutURL: URL(string: "https://login.example.net/t/logout")!, clientID: "c", scopes: [],
            hostsBehindProxy: ["*"])
        #expect(everything.canBeUsed(for: URL(string: "https://anything.example.com/x")!))
        // The identity provider never gets the proxy's token.
        #expect(!everything.canBeUsed(for: URL(string: "https://login.example.net/t/token")!))
    }
}
