import Foundation
import Testing

@testable import PortalAuth

/// The one strict reading of a URL (unit tier: no servers).
@Suite struct StrictURLTests {
    @Test(arguments: [
        ("https://127.0.0.2:8443\\@127.0.0.1:8443/portal", "backslash"),
        ("https://127.0.0.1:8443\\portal", "backslash"),
        ("https://user@127.0.0.1/portal", "user information"),
        ("https://:@127.0.0.1/portal", "user information"),
        ("https://@127.0.0.1/portal", "user information"),
        ("https://u:p@127.0.0.1/portal", "user information"),
        ("https://127.0.0.1/por tal", "space"),
        ("https://127.0.0.1/por\ttal", "control character"),
        ("https://127.0.0.1\n/portal", "control character"),
        ("https://127.0.0.1/portal/%2e%2e/echo", "encoded '.'"),
        ("https://127.0.0.1/portal/.%2e/echo", "encoded '.'"),
        ("https://127.0.0.1/portal/..%2fecho", "encoded '/'"),
        ("https://127.0.0.1/portal/..%5Cecho", "encoded '\\'"),
        ("https://127.0.0.1/portal/..;/echo", "dot segment"),
        ("https://127.0.0.1/portal/.;x/echo", "dot segment"),
        ("https://127.0.0.1/portal/%00", "control character"),
        ("https://127.0.0.1/%70ortal", "write the character itself"),
        ("https://127.0.0.1/portal/%zz", "two hexadecimal digits"),
        ("https://127.1/portal", "IPv4"),
        ("https://2130706433/portal", "IPv4"),
        ("https://0x7f.0.0.1/portal", "IPv4"),
        ("https://0177.0.0.1/portal", "IPv4"),
        ("https://127.000.000.001/portal", "IPv4"),
        ("https://256.0.0.1/portal", "IPv4"),
        ("https://127.0.0.1./portal", "empty label"),
        ("https://a..b/portal", "empty label"),
        ("https://%31%32%37.0.0.1/portal", "percent"),
        ("https://[fe80::1%25eth0]/portal", "percent"),
        ("https://[0:0::1]/portal", "canonical"),
        ("https://[::FFFF:7F00:1]/portal", "canonical"),
        ("https://[::ffff:127.0.0.1]/portal", "dotted IPv4"),
        ("https://[::1/portal", "closing"),
        ("https://127.0.0.1:08443/portal", "port"),
        ("https://127.0.0.1:/portal", "no port"),
        ("https://127.0.0.1:+8443/portal", "port"),
        ("https://127.0.0.1:65536/portal", "port"),
        ("https://127.0.0.1:0/portal", "port"),
        ("https:///portal", "no host"),
        ("https:/127.0.0.1/portal", "'//'"),
        ("https:127.0.0.1/portal", "'//'"),
        (" https://127.0.0.1/portal", "space"),
        ("ftp://127.0.0.1/portal", "scheme"),
        ("https://bücher.example/portal", "non-ASCII"),
        ("https://host!/portal", "contains '!'"),
        ("https://a:1:2/portal", "more than one ':'"),
        ("", "empty"),
    ])
    func refused(url: String, reason: String) {
        do {
            let read = try StrictURL.parse(url)
            Issue.record("'\(url)' was read as \(read.string)")
        } catch let error as PortalAuthError {
            #expect(error.code == .invalidURL)
            #expect(error.message.contains(reason), "\(error.message)")
            #expect(!error.message.contains("\n") && !error.message.contains("\t"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aRefusedURLsSecretsAreNotInTheMessage() {
        for url in [
            "https://alice:s3cret-pw@127.0.0.1/portal", "https://s3cret-pw@127.0.0.1/portal",
            "https://127.0.0.1/por tal?token=s3cret-pw", "https://a:s3cret-pw@b:c@127.0.0.1/",
            "alice:s3cret-pw@127.0.0.1/portal",
        ] {
            let error = #expect(throws: PortalAuthError.self) { try StrictURL.parse(url) }
            #expect(error?.message.contains("s3cret-pw") == false, "\(error?.message ?? "")")
            #expect(error?.message.contains("127.0.0.1") == true)
        }
    }

    @Test(arguments: [
        ("HTTPS://Portal.Example.COM:443/portal/", "https://portal.example.com/portal/"),
        ("https://127.0.0.1:8443/portal/../echo", "https://127.0.0.1:8443/echo"),
        ("https://h/portal/sharing/rest/../../../server/rest/services/x", "https://h/server/rest/services/x"),
        ("https://h/a/./b/../../../../c", "https://h/c"),
        ("https://h/portal/sharing/rest/..", "https://h/portal/sharing/"),
        ("https://h/portal/x;/../../echo", "https://h/echo"),
        ("http://h:80/x?where=1%3D1&a=..%2F#frag", "http://h/x?where=1%3D1&a=..%2F"),
        ("https://[::1]:8443/portal", "https://[::1]:8443/portal"),
        ("https://h?x=@evil/", "https://h?x=@evil/"),
        ("https://h#@evil/", "https://h"),
        ("https://h/a%20b/%C3%BC", "https://h/a%20b/%C3%BC"),
        ("https://host-1_a.example/x", "https://host-1_a.example/x"),
        ("https://1.2.3.example/x", "https://1.2.3.example/x"),
    ])
    func normalised(url: String, expected: String) throws {
        #expect(try StrictURL.parse(url).string == expected)
    }

    @Test func theContextIsChosenOnTheNormalisedPath() throws {
        let portal = try ServerContext("https://h/portal")
        #expect(!portal.contains(URL(string: "https://h/portal/../echo")!))
        #expect(portal.contains(URL(string: "https://h/echo/../portal/sharing/rest")!))
        #expect(
            try ServerContext("https://h/portal/sharing/rest/../../../server/rest/services/x").url == "https://h/server"
        )
        #expect(throws: PortalAuthError.self) { try ServerContext("https://h/portal/..;/sharing") }
    }

    @Test func lifetimesAreNumbersOrDecimalStrings() throws {
        let json = try JSONValue.parse(
            Array(
                #"{"n":1732300000000,"s":"1732300000000","f":"1.5","soon":"soon","nan":"nan","e":"1e3","b":true,"z":null}"#
                    .utf8), source: "test")
        #expect(try json.lifetime("n", from: "x") == 1_732_300_000_000)
        #expect(try json.lifetime("s", from: "x") == 1_732_300_000_000)
        #expect(try json.lifetime("f", from: "x") == 1.5)
        #expect(try json.lifetime("z", from: "x") == nil)
        #expect(try json.lifetime("absent", from: "x") == nil)
        for key in ["soon", "nan", "e", "b"] {
            #expect(throws: PortalAuthError.self) { try json.lifetime(key, from: "x") }
        }
    }

    /// Numbers a server sends are read in range: never negative, never past the year 9999 in any
    /// unit (1e308 seconds became an infinite date that could not be stored).
    @Test(arguments: [
        (#"1e308"#, JSONValue.LifetimeUnit.secondsFromNow, false),
        (#"-5"#, .secondsFromNow, false), (#"-0.5"#, .millisecondsSince1970, false),
        (#"3155760000"#, .secondsFromNow, true), (#"3155760001"#, .secondsFromNow, false),
        (#""99999999999999999999""#, .secondsFromNow, false), (#"0"#, .secondsFromNow, true),
        (#"253402300799999"#, .millisecondsSince1970, true), (#"253402300800000"#, .millisecondsSince1970, false),
        (#"253402300799"#, .secondsSince1970, true), (#"253402300800"#, .secondsSince1970, false),
        (#"1e308"#, .millisecondsSince1970, false),
    ])
    func lifetimesAreReadInRange(text: String, unit: JSONValue.LifetimeUnit, accepted: Bool) throws {
        let json = try JSONValue.parse(Array(#"{"v":\#(text)}"#.utf8), source: "test")
        if accepted {
            #expect(try json.lifetime("v", from: "x", unit: unit) != nil)
        } else {
            let error = #expect(throws: PortalAuthError.self) { try json.lifetime("v", from: "x", unit: unit) }
            #expect(error?.code == .invalidResponse)
            #expect(error?.message.contains("'v'") == true)
        }
    }

    /// `normalized` gives a normal form it gave before without reading it again (the fuzz target
    /// URLContext holds that reading a normal form again gives itself); any other text is read.
    @Test func aNormalFormIsGivenBackAndOtherTextIsRead() throws {
        let texts = [
            "https://HOST.example:443/a/./b/../c?x=1", "https://host.example/a/c?x=1",
            "https://127.0.0.1:8443/server/rest/services/a%20b/MapServer", "https://[::1]:8443/portal/",
        ]
        for text in texts {
            let normal = try StrictURL.read(text)
            #expect(normal.absoluteString == (try StrictURL.parse(text)).string)
            #expect(try StrictURL.normalized(normal) == normal)
            #expect(try StrictURL.normalized(try #require(URL(string: text))) == normal)
            #expect(try StrictURL.normalized(try #require(URL(string: normal.absoluteString))) == normal)
            // `read` gives a kept normal form back, and reads the text it was read from again.
            #expect(try StrictURL.read(normal.absoluteString) == normal)
            #expect(try StrictURL.read(text) == normal)
        }
        let read = try StrictURL.read("HTTPS://Host.Example:443/a/./c?x=1")
        #expect(read.absoluteString == "https://host.example/a/c?x=1")
        // A kept normal form never answers for another text: a refused one is refused after it.
        _ = try StrictURL.read("https://host.example/portal/x")
        #expect(throws: PortalAuthError.self) {
            try StrictURL.normalized(URL(string: "https://host.example/portal/..;/x")!)
        }
        #expect(throws: PortalAuthError.self) { try StrictURL.read("https://host.example/portal/..;/x") }
    }
}
