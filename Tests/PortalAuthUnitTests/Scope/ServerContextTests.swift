import Foundation
import PortalAuth
import Testing

@Suite struct ServerContextTests {
    @Test(arguments: [
        ("https://Host.Example.com/portal/sharing/rest/community/self", "https://host.example.com/portal"),
        ("https://host/portal", "https://host/portal"),
        ("https://host/portal/", "https://host/portal"),
        ("https://host:443/arcgis/sharing/rest/info?f=json", "https://host/arcgis"),
        ("https://host:7443/server/rest/services/A/FeatureServer/0/query", "https://host:7443/server"),
        ("https://host/server/rest", "https://host/server"),
        ("https://host/standalone/tokens/generateToken", "https://host/standalone"),
        ("http://host:80/x/rest/info", "http://host/x"),
        ("https://[::1]:8443/portal/sharing/rest", "https://[::1]:8443/portal"),
    ])
    func contextOfURL(url: String, expected: String) throws {
        #expect(try ServerContext(url).url == expected)
    }

    @Test func containsChecksHostPortAndPathPrefix() throws {
        let context = try ServerContext("https://host/portal")
        #expect(context.contains(URL(string: "https://host/portal/sharing/rest/info")!))
        #expect(context.contains(URL(string: "https://HOST:443/portal")!))
        #expect(!context.contains(URL(string: "https://host/portal2/sharing")!))
        #expect(!context.contains(URL(string: "https://host/server/rest/services")!))
        #expect(!context.contains(URL(string: "https://other/portal/sharing")!))
        #expect(!context.contains(URL(string: "https://host:8443/portal/sharing")!))
        #expect(!context.contains(URL(string: "https://host.evil.com/portal")!))
    }

    @Test func serverRoot() throws {
        #expect(
            ServerContext.arcGISServerRoot(of: URL(string: "https://h/server/rest/services/X/MapServer")!)?.url
                == "https://h/server")
        #expect(ServerContext.arcGISServerRoot(of: URL(string: "https://h/portal/sharing/rest/info")!) == nil)
        #expect(ServerContext.arcGISServerRoot(of: URL(string: "https://h/portal")!) == nil)
    }

    @Test func urlsWithoutSchemeOrHostAreRefused() {
        for bad in ["host/portal", "ftp://host/portal", "https://"] {
            let error = #expect(throws: PortalAuthError.self) { try ServerContext(bad) }
            #expect(error?.code == .invalidURL)
            #expect(error?.message.contains("http") == true)
        }
    }

    @Test func redactionHidesSecretParameters() {
        let redacted = URLRedaction.redact("https://h/x?f=json&token=abc&password=p%40ss&where=1%3D1")
        #expect(!redacted.contains("abc") && !redacted.contains("p%40ss"))
        #expect(redacted.contains("where=1%3D1") && redacted.contains("token=***"))
    }

    @Test func candidatesGoFromSpecificToHost() throws {
        let candidates = try ServerContext.candidates(for: URL(string: "https://h/a/b/sharing/rest/x")!).map(\.url)
        #expect(candidates == ["https://h/a/b", "https://h/a", "https://h"])
    }

    @Test func arcGISErrorsAreRecognised() {
        let body = Array(
            #"{"error":{"code":499,"message":"Token Required","messageCode":"GWM_0003","details":[]}}"#.utf8)
        #expect(ArcGISError.parse(body) == ArcGISError(code: 499, message: "Token Required", messageCode: "GWM_0003"))
        #expect(ArcGISError.parse(Array(#"{"features":[]}"#.utf8)) == nil)
        #expect(ArcGISError.parse(Array("<html>error</html>".utf8)) == nil)
    }

    /// An ArcGIS error names the URL with its scheme (never its query); a 404 says it found nothing
    /// there and that the URL is what to check (issue #38, item 1).
    @Test func anArcGISErrorNamesTheURLWithItsScheme() throws {
        let url = try #require(
            URL(string: "https://gis.example.com/server/rest/services/A/FeatureServer/0/qery?token=t"))
        let notFound = PortalAuthError.arcGIS(
            ArcGISError(code: 404, message: "Not found", details: ["No such resource"]), from: url)
        #expect(
            notFound.message
                == "https://gis.example.com:443/server/rest/services/A/FeatureServer/0/qery answered ArcGIS error 404 "
                + "(not found: no such service, layer or operation there): Not found (No such resource)")
        #expect(notFound.remedy == .checkURL)
        let refused = PortalAuthError.arcGIS(
            ArcGISError(code: 400, message: "Unable to complete operation."), from: url)
        #expect(
            refused.message
                == "https://gis.example.com:443/server/rest/services/A/FeatureServer/0/qery answered ArcGIS error 400: "
                + "Unable to complete operation.")
        #expect(refused.remedy == .none)
        // A portal's answer to a path it does not have.
        let invalid = PortalAuthError.arcGIS(ArcGISError(code: 400, message: "Invalid URL"), from: url)
        #expect(invalid.remedy == .checkURL)
    }

    @Test func formEncoding() {
        let encoded = FormEncoding.encode([("where", "UseType = 'Government'"), ("f", "json")])
        #expect(encoded == "where=UseType%20%3D%20%27Government%27&f=json")
        #expect(FormEncoding.decode(encoded).map { "\($0.0)=\($0.1)" } == ["where=UseType = 'Government'", "f=json"])
        // Only two hexadecimal digits make an escape (UInt8(_:radix:) took "+F" as 15).
        #expect(FormEncoding.decode("a=%+F%2b%4A%zz%4").map { "\($0.0)=\($0.1)" } == ["a=% F+J%zz%4"])
    }
}
