import Foundation
import PortalAuthPregeneratedToken
import Testing

@testable import PortalAuth

/// The one scope answer (``ScopedCredential``): each kind's prefixes, the matching rule, and its
/// agreement with where the credentials themselves say they apply.
@Suite struct ScopedCredentialTests {
    static let portal = try! ServerContext("https://Host.example.com/portal/sharing/rest")
    static let server = try! ServerContext("https://host.example.com:6443/arcgis/rest/services")

    static func token(_ context: ServerContext, ssl: Bool = true) -> PregeneratedTokenCredential {
        PregeneratedTokenCredential(
            serverContext: context, tokenInfo: TokenInfo(accessToken: "t", expirationDate: nil, isSSLRequired: ssl))
    }

    static func key() throws -> APIKeyCredential {
        try APIKeyCredential(
            apiKey: "AAPTkey", portalURL: URL(string: "https://host.example.com/portal")!,
            hosts: ["tiles.example.com:9443", "[::1]:8443"],
            serviceURLs: [URL(string: "https://geocode.example.com/arcgis/rest/services/World/GeocodeServer")!])
    }

    /// URLs near every scope below: inside, beside, other ports and schemes, and ones the strict
    /// reading refuses.
    static let urls = [
        "https://host.example.com/portal", "https://host.example.com/portal/", "https://HOST.example.com:443/portal/x",
        "https://host.example.com/portal/sharing/rest/community/self?f=json", "https://host.example.com/portalx",
        "https://host.example.com/portal/../server/rest", "https://host.example.com/portal/a/../b",
        "https://host.example.com/portal%2F..%2Fserver", "https://host.example.com\\@evil.example.com/portal",
        "https://user@host.example.com/portal", "http://host.example.com/portal/sharing",
        "https://host.example.com:8443/portal", "https://host.example.com:6443/arcgis/rest/services/A/MapServer",
        "https://host.example.com:6443/arcgis2/rest", "https://host.example.com:6443/", "https://host.example.com/",
        "https://geocode.example.com/arcgis/rest/services/World/GeocodeServer/findAddressCandidates",
        "https://geocode.example.com/arcgis/rest/services/World/GeocodeServer2",
        "https://tiles.example.com:9443/anything", "https://tiles.example.com/anything",
        "http://tiles.example.com:9443/anything", "https://[::1]:8443/x", "https://[0:0::1]:8443/x",
        "https://127.1/portal", "https://host.example.com./portal",
    ]

    @Test func aTokensScopeIsItsServerContextOverHTTPSOnly() throws {
        let portal = ScopedCredential(Self.token(Self.portal))
        #expect(portal.kind == .token)
        #expect(portal.prefixes == ["https://host.example.com:443/portal/"])
        let server = ScopedCredential(Self.token(Self.server))
        #expect(server.prefixes == ["https://host.example.com:6443/arcgis/"])
        let federated = ScopedCredential(
            FederatedTokenCredential(
                serverContext: Self.server, portal: Self.portal,
                tokenInfo: TokenInfo(accessToken: "s", expirationDate: nil, isSSLRequired: true), username: "alice",
                referer: nil))
        #expect(federated.kind == .federatedToken && federated.prefixes == server.prefixes)
        let plain = ScopedCredential(Self.token(try ServerContext("http://127.0.0.1:8080/arcgis/rest"), ssl: false))
        #expect(plain.prefixes == ["http://127.0.0.1:8080/arcgis/"])
        #expect(plain.covers(URL(string: "http://127.0.0.1:8080/arcgis/rest/services")!))
        #expect(!plain.covers(URL(string: "https://127.0.0.1:8080/arcgis/rest/services")!))
    }

    @Test func anAPIKeysScopeIsItsPortalServicesAndHosts() throws {
        let scoped = ScopedCredential(try Self.key())
        #expect(scoped.kind == .apiKey)
        #expect(
            scoped.prefixes == [
                "https://host.example.com:443/portal/",
                "https://geocode.example.com:443/arcgis/rest/services/World/GeocodeServer/",
                "https://tiles.example.com:9443/", "https://[::1]:8443/",
            ])
    }

    /// The scope says exactly what the credentials say: an API key's ``APIKeyCredential/applies(to:)``;
    /// a token's server context, with the token's scheme.
    @Test(arguments: urls)
    func theScopeAgreesWithTheCredentials(url: String) throws {
        let target = try #require(URL(string: url))
        let key = try Self.key()
        #expect(ScopedCredential(key).covers(target) == key.applies(to: target), "\(url)")
        for context in [Self.portal, Self.server] {
            let token = Self.token(context)
            let expected = token.applies(to: target) && target.scheme == "https"
            #expect(ScopedCredential(token).covers(target) == expected, "\(url) in \(context)")
        }
    }

    @Test func aURLIsWrittenAsThePrefixesAre() {
        #expect(
            ScopedCredential.normalized(URL(string: "HTTPS://Host.Example.com/a/./b/../c/")!)
                == "https://host.example.com:443/a/c")
        #expect(ScopedCredential.normalized(URL(string: "http://h:80")!) == "http://h:80")
        #expect(ScopedCredential.normalized(URL(string: "https://u:p@h/")!) == nil)
        #expect(
            ScopedCredential.proxyPrefixes(for: URL(string: "https://proxy.example.com/portal/x")!) == [
                "https://proxy.example.com:443/"
            ])
    }

    /// The one rule for resending a request to where a 307/308 points (the request loop's, and
    /// serve's before it passes one back): with its credential only where that credential
    /// applies; without one, only to the same host and port.
    @Test func aRequestIsResentOnlyWhereItsCredentialGoes() throws {
        let portalToken = Self.token(Self.portal)
        let inPortal = URL(string: "https://host.example.com/portal/sharing/rest/search")!
        let otherPortalPath = URL(string: "https://host.example.com/other/sharing/rest/search")!
        let server = URL(string: "https://host.example.com:6443/arcgis/rest/services/A/MapServer")!
        #expect(ScopedCredential.resendKeepsCredential(portalToken, from: inPortal, to: inPortal))
        #expect(!ScopedCredential.resendKeepsCredential(portalToken, from: inPortal, to: otherPortalPath))
        #expect(!ScopedCredential.resendKeepsCredential(portalToken, from: inPortal, to: server))
        // Without an ArcGIS credential: the same host and port only (a host's network credential).
        #expect(ScopedCredential.resendKeepsCredential(nil, from: inPortal, to: otherPortalPath))
        #expect(!ScopedCredential.resendKeepsCredential(nil, from: inPortal, to: server))
        #expect(
            !ScopedCredential.resendKeepsCredential(
                nil, from: inPortal, to: URL(string: "https://elsewhere.example.com/portal")!))
        // A URL that is not read strictly is never a place to resend to.
        #expect(
            !ScopedCredential.resendKeepsCredential(
                nil, from: inPortal, to: URL(string: "https://host.example.com/portal/..;/x")!))
    }
}
