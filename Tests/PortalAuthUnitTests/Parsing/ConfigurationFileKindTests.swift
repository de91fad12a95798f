import Foundation
import PortalAuth
import PortalAuthIAP
import PortalAuthOAuthUser
import Testing

@Suite struct ConfigurationFileKindTests {
    static let kinds = [OAuthUserConfiguration.fileKind, IAPConfiguration.fileKind]

    func file(_ json: String) throws -> ConfigurationFile {
        try ConfigurationFile(data: Array(json.utf8), source: "config.json")
    }

    @Test func anIAPFileWithoutAuthorizeURLIsReadAsIAPAndNamesTheMissingKey() throws {
        var object = iapFile(nil)
        object["authorize_url"] = nil
        var file = try ConfigurationFile(
            data: Array(try JSONSerialization.data(withJSONObject: object)), source: "iap.json")
        #expect(try file.readingKind(among: Self.kinds).type == "iap")
        let error = #expect(throws: PortalAuthError.self) { try IAPConfiguration(file: file) }
        #expect(error?.remedy == .fixConfiguration(file: "iap.json", key: "authorize_url"), "\(error?.message ?? "")")
        // The message says which kind the file was read as (what happened, not what to do).
        #expect(error?.message.contains("read as an identity-aware proxy (IAP) sign-in") == true)
        #expect(error?.message.contains("authorization_prompt_type") == false)
    }

    @Test func theKindComesFromTypeOrFromTheKeys() throws {
        var typed = try file(#"{"type": "iap", "client_id": "c"}"#)
        #expect(try typed.readingKind(among: Self.kinds).type == "iap")
        var user = try file(#"{"portal_url": "https://p.example.com/portal", "client_id": "c"}"#)
        #expect(try user.readingKind(among: Self.kinds).type == "oauth-user")
        // Keys of both kinds only (client_id): the preferred kind, the first.
        var either = try file(#"{"client_id": "c"}"#)
        #expect(try either.readingKind(among: Self.kinds).type == "oauth-user")
        // A misspelt key: the kind it shares most keys with, whose reader names the key.
        var misspelt = try file(#"{"token_url": "https://l.example.com/t", "scopes": ["openid"], "client_id": "c"}"#)
        #expect(try misspelt.readingKind(among: Self.kinds).type == "iap")
        let error = #expect(throws: PortalAuthError.self) { try IAPConfiguration(file: misspelt) }
        #expect(error?.remedy == .fixConfiguration(file: "config.json", key: "scopes"))
        var unknownType = try file(#"{"type": "saml"}"#)
        let refused = #expect(throws: PortalAuthError.self) { try unknownType.readingKind(among: Self.kinds) }
        #expect(refused?.remedy == .fixConfiguration(file: "config.json", key: "type"))
        #expect(refused?.message.contains("\"oauth-user\", \"iap\"") == true)
    }

    @Test(arguments: [
        (#"{"client_id": "a", "client_id": "b"}"#, "client_id"),
        (#"{"scope": ["x"], "nested": {"a": 1, "b": {"c": 2}, "a": 3}}"#, "a"),
        (#"{"client_id": "a", "client\u005fid": "b"}"#, "client_id"),
    ])
    func aDuplicateKeyIsRefused(_ json: String, _ key: String) throws {
        let error = #expect(throws: PortalAuthError.self) { try file(json) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.remedy == .fixConfiguration(file: "config.json", key: key), "\(error?.message ?? "")")
    }

    @Test func theSameKeyInTwoObjectsOrAsAValueIsNotADuplicate() throws {
        let parsed = try file(
            #"{"a": {"x": "a", "y": ["a", {"x": 1}]}, "b": {"x": 2}, "c": "a", "d": "say \"a\"", "\ud83d\ude00": 1, "\ud83d\ude01": 2}"#
        )
        #expect(parsed.members.count == 6)
    }
}
