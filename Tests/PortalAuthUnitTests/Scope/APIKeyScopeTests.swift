import Foundation
import Testing

@testable import PortalAuth

/// Where an API key goes, decided from the URL alone: the portal, the services its `helperServices`
/// lists, the hosts given; https only.
@Suite struct APIKeyScopeTests {
    static let geocode = "https://geocode.example.com:8443/arcgis/rest/services/World/GeocodeServer"
    static let route = "https://route.example.com/arcgis/rest/services/World/Route/NAServer/Route_World"

    static func key(hosts: [String] = ["services9.example.com", "tiles.example.com:9443"]) throws -> APIKeyCredential {
        try APIKeyCredential(
            apiKey: " AAPTkey123\n", portalURL: URL(string: "https://host.example.com/portal/")!,
            hosts: hosts, serviceURLs: [URL(string: geocode)!, URL(string: route)!])
    }

    @Test(arguments: [
        "https://host.example.com/portal/sharing/rest/search?q=x",
        "https://HOST.example.com:443/portal",
        geocode + "/findAddressCandidates?SingleLine=x",
        route + "/solve?stops=1,2;3,4",
        "https://services9.example.com/abc/arcgis/rest/services/Parcels/FeatureServer/0/query",
        "https://tiles.example.com:9443/anything",
    ])
    func theKeyGoesInsideItsScope(url: String) throws {
        #expect(try Self.key().applies(to: URL(string: url)!))
    }

    @Test(arguments: [
        "http://host.example.com/portal/sharing/rest/search",  // plain http, even to the portal
        "http://geocode.example.com:8443/arcgis/rest/services/World/GeocodeServer",
        "https://host.example.com/server/rest/services/Parcels/FeatureServer/0",  // another path on the portal's host
        "https://host.example.com/portal2/sharing/rest",
        "https://host.example.com:8443/portal/sharing/rest",  // another port
        "https://geocode.example.com:8443/arcgis/rest/services/World/GeocodeServer2/findAddressCandidates",
        "https://geocode.example.com:8443/arcgis/rest/services/Other/MapServer",
        "https://geocode.example.com/arcgis/rest/services/World/GeocodeServer",  // the service on another port
        "https://route.example.com/arcgis/rest/services/World/Route/NAServer/Route_World2",
        "https://services9.example.com:8443/x",  // a given host, another port
        "http://services9.example.com/x",
        "https://tiles.example.com/x",
        "https://evilhost.example.com/portal/sharing/rest",
        "https://host.example.com.evil.com/portal/sharing/rest",
    ])
    func theKeyNeverGoesOutsideItsScope(url: String) throws {
        #expect(try !Self.key().applies(to: URL(string: url)!))
    }

    @Test func theKeyIsTrimmedAndBelongsToThePortalWithoutAUser() throws {
        let key = try Self.key()
        #expect(key.tokenInfo.accessToken == "AAPTkey123")
        #expect(key.tokenInfo.isSSLRequired)
        #expect(key.portal.url == "https://host.example.com/portal")
        #expect(key.username == nil)
        #expect(key.scope == .apiKey(portal: key.portal))
        #expect(key.scope.storeKey == "api-key https://host.example.com/portal")
        #expect(!key.scope.contains(URL(string: "https://host.example.com/portal")!))
    }

    @Test func aKeyWithNoExpiryNeverExpiresAndOneWithAnExpiryDoes() throws {
        let portal = URL(string: "https://host.example.com/portal")!
        #expect(try !APIKeyCredential(apiKey: "AAPTk", portalURL: portal).tokenInfo.isExpired())
        let past = Date(timeIntervalSinceNow: -1)
        #expect(try APIKeyCredential(apiKey: "AAPTk", portalURL: portal, expirationDate: past).tokenInfo.isExpired())
    }

    @Test(arguments: [
        ("", PortalAuthError.Code.secretMissing), (" \n", .secretMissing), ("AAPT\u{0}x", .invalidArgument),
        ("AAPT\rx", .invalidArgument), ("AAPT x", .invalidArgument),
    ])
    func emptyKeysAndKeysWithControlCharactersAreRefused(key: String, code: PortalAuthError.Code) {
        #expect {
            try APIKeyCredential(apiKey: key, portalURL: URL(string: "https://host.example.com/portal")!)
        } throws: { ($0 as? PortalAuthError)?.code == code && !($0 as! PortalAuthError).message.contains(key) }
    }

    @Test func anHTTPPortalOrServiceAndABadHostAreRefused() {
        #expect(throws: PortalAuthError.self) {
            try APIKeyCredential(apiKey: "AAPTk", portalURL: URL(string: "http://host.example.com/portal")!)
        }
        #expect(throws: PortalAuthError.self) {
            try APIKeyCredential(
                apiKey: "AAPTk", portalURL: URL(string: "https://host.example.com/portal")!,
                serviceURLs: [URL(string: "http://geocode.example.com/GeocodeServer")!])
        }
        for host in ["", "a/b", "user@host", "host:notaport"] {
            #expect(throws: PortalAuthError.self, "\(host)") {
                try APIKeyCredential(apiKey: "AAPTk", portalURL: URL(string: "https://h/portal")!, hosts: [host])
            }
        }
    }

    @Test func helperServicesGiveTheirHTTPSURLs() throws {
        let json = try JSONValue.parse(
            Array(
                """
                {"geocode":[{"url":"\(Self.geocode)","batch":true},{"url":"http://insecure.example.com/GeocodeServer"}],
                 "route":{"url":"\(Self.route)"},"printTask":{"url":"\(Self.route)"},"elevation":{},"defaultMap":"x"}
                """.utf8), source: "test")
        let urls = APIKeyCredential.helperServiceURLs(json).map(\.absoluteString)
        #expect(urls == [Self.geocode, Self.route])
        #expect(APIKeyCredential.helperServiceURLs(nil).isEmpty)
    }

    @Test func aRefusalSaysTheKeyExpiredOrWasInvalidatedAndTheRemedyStoresANewOne() throws {
        let key = try Self.key()
        let url = URL(string: Self.geocode + "/findAddressCandidates?token=AAPTkey123")!
        let error = key.refusal(ArcGISError(code: 498, message: "Invalid token.", messageCode: nil), at: url)
        #expect(error.code == .credentialExpired)
        #expect(error.message.contains("expired or was invalidated"))
        #expect(!error.message.contains("AAPTkey123"))
        #expect(error.remedy == .storeAPIKey(portal: key.portal))
        #expect(error.remedy.description == "store a new API key for https://host.example.com/portal")
    }

    @Test func theStoredFormReadsBack() throws {
        let key = try Self.key()
        let data = try JSONEncoder().encode(key)
        #expect(try JSONDecoder().decode(APIKeyCredential.self, from: data) == key)
    }
}
