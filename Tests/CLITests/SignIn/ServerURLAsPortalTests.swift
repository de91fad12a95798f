import Foundation
import PortalEmulator
import TestSupport
import Testing

/// An ArcGIS Server's URL given where a portal's is expected, and a URL that leads to nothing
/// (issue #38, item 1): each answer names the URL with its scheme and the next step.
@Suite struct ServerURLAsPortalTests {
    /// `login --portal` and `--url` with a federated server's URL (its root, or its `rest`): refused
    /// before anything is stored, in one line that names the owning portal and the sign-in there.
    @Test func aFederatedServersURLNamesItsPortalAndTheSignInThere() async throws {
        try await withEmulator { emulator in
            for (option, url) in [
                ("--portal", emulator.serverURL), ("--portal", emulator.serverURL + "/rest"),
                ("--url", emulator.serverURL),
            ] {
                let r = try await CLI.portalAuth(
                    ["login", "--store", "memory", option, url, "--username", "alice", "--password-stdin"],
                    emulator: emulator, stdin: alicePassword)
                #expect(r.status == 2, "\(option) \(url): \(r.stderr)")
                #expect(
                    r.stderr
                        == "portal-auth: \(Self.withPort(emulator.serverURL)) is an ArcGIS Server, not a portal: its "
                        + "rest/info names \(emulator.portalURL) as the portal that issues its tokens, and a sign-in "
                        + "to that portal covers the server: run portal-auth login --portal \(emulator.portalURL) "
                        + "--username alice\n",
                    "\(option) \(url)")
                #expect(r.stdout.isEmpty, "\(r.stdout)")
            }
        }
    }

    /// A standalone server's URL as `--portal`: signed in to as the server (its own token
    /// service), with a note saying so; its token is then at hand for its services.
    @Test func aStandaloneServersURLSignsInToTheServer() async throws {
        try await withEmulator { emulator in
            try await withTemporaryDirectory("pa-standalone") { directory in
                let environment = ["PORTAL_AUTH_STORE": "file", "PORTAL_AUTH_FILE_STORE": directory + "/store.json"]
                let server = emulator.standaloneServerURL
                let r = try await CLI.portalAuth(
                    ["login", "--portal", server, "--username", "alice", "--password-stdin"], emulator: emulator,
                    stdin: alicePassword, environment: environment)
                #expect(r.status == 0, "\(r.stderr)")
                #expect(
                    r.stderr
                        == "portal-auth: note: \(Self.withPort(server)) is an ArcGIS Server with its own token "
                        + "service; signing in to the server\n")
                #expect(r.stdout.hasPrefix("Signed in to \(server) as alice"), "\(r.stdout)")
                let token = try await CLI.portalAuth(
                    ["token", server + "/rest/services/Parcels/FeatureServer/0", "--format", "json"],
                    emulator: emulator, environment: environment)
                #expect(token.status == 0, "\(token.stderr)")
                let json = try JSONSerialization.jsonObject(with: Data(token.stdout.utf8)) as? [String: Any]
                #expect(json?["server"] as? String == server, "\(token.stdout)")
                #expect(json?["kind"] as? String == "token", "\(token.stdout)")
            }
        }
    }

    /// A typo in a layer's operation: the ArcGIS 404 names the URL with its scheme, says it is
    /// not found, and says to check the URL.
    @Test func anArcGIS404NamesTheURLWithItsSchemeAndWhatToCheck() async throws {
        try await withEmulator { emulator in
            let typo = emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/qery"
            let r = try await CLI.portalAuth(["request", typo, "--store", "memory"], emulator: emulator)
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.oneLineError, "\(r.stderr)")
            #expect(
                r.stderr.hasPrefix(
                    "portal-auth: \(Self.withPort(typo)) answered ArcGIS error 404 (not found: no such service, layer "
                        + "or operation there): "),
                "\(r.stderr)")
            #expect(r.stderr.hasSuffix(": check the URL\n"), "\(r.stderr)")
        }
    }

    /// `url` with its port written, as error messages write a URL (`https://host:port/path`).
    static func withPort(_ url: String) -> String {
        guard let parsed = URL(string: url), parsed.port == nil, let host = parsed.host else { return url }
        return url.replacingOccurrences(of: "://\(host)", with: "://\(host):443")
    }
}
