import Foundation
import PortalEmulator
import TestSupport
import Testing

/// A token goes only where it belongs: one strict reading of the URL, and federation on the
/// portal's word only, as `token`, `request` and `exec` see them.
@Suite struct TokenContextCLITests {
    /// Signs alice in to the emulator's portal in a private keyring and runs `body`.
    func signedIn(_ body: (PortalEmulator, [String: String]) async throws -> Void) async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let signIn = try await login(emulator, environment: env)
                #expect(signIn.status == 0, "\(signIn.stderr)")
                try await body(emulator, env)
            }
        }
    }

    @Test func aBackslashInTheUserinfoIsRefusedWithNothingPrinted() async throws {
        try await signedIn { emulator, env in
            let port = try #require(URL(string: emulator.portalURL)?.port)
            // python requests and WHATWG parsers send this to 127.0.0.2; a lax reading says 127.0.0.1.
            let url = "https://127.0.0.2:\(port)\\@127.0.0.1:\(port)/portal"
            for format in ["plain", "json"] {
                let r = try await CLI.portalAuth(
                    ["token", url, "--format", format], emulator: emulator, environment: env)
                #expect(r.status == 2, "\(r.stderr)")
                #expect(r.stdout.isEmpty)
                #expect(r.oneLineError)
                #expect(r.stderr.contains("backslash"))
            }
        }
    }

    @Test(arguments: [
        "/portal/%2e%2e/echo", "/portal/.%2e/echo", "/portal/..%2fecho", "/portal/..;/echo",
        "/portal/sharing/rest/%2E%2E/x", "/portal%2Fsharing/rest",
    ])
    func encodedAndTomcatDotSegmentsAreRefused(path: String) async throws {
        try await signedIn { emulator, env in
            let base = try #require(URL(string: emulator.portalURL).map { "https://\($0.host()!):\($0.port!)" })
            let r = try await CLI.portalAuth(["token", base + path], emulator: emulator, environment: env)
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stdout.isEmpty)
            #expect(r.oneLineError)
        }
    }

    @Test func dotSegmentsAreResolvedBeforeTheContextIsChosen() async throws {
        try await signedIn { emulator, env in
            // Out of the portal: no portal token for /echo.
            let out = try await CLI.portalAuth(
                ["token", emulator.portalURL + "/../echo", "--format", "json"], emulator: emulator, environment: env)
            #expect(out.status == 3, "\(out.stderr)")
            #expect(out.stdout.isEmpty)
            // Through the portal into the federated server: the server's token, named as its server.
            let through = try await CLI.portalAuth(
                [
                    "token", emulator.portalURL + "/sharing/rest/../../../server/rest/services/Parcels/FeatureServer/0",
                    "--format", "json",
                ], emulator: emulator, environment: env)
            #expect(through.status == 0, "\(through.stderr)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(through.stdout.utf8)) as? [String: Any])
            #expect(json["server"] as? String == emulator.serverURL)
            let portalToken = try await CLI.portalAuth(
                ["token", emulator.portalURL], emulator: emulator, environment: env)
            #expect(json["token"] as? String != portalToken.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            // request sends the normalised URL.
            let request = try await CLI.portalAuth(
                ["request", emulator.portalURL + "/sharing/rest/portals/../community/./self"], emulator: emulator,
                environment: env)
            #expect(request.status == 0, "\(request.stderr)")
            #expect(request.stdout.contains("\"username\""))
            #expect(emulator.counters().requestsByPath["/portal/sharing/rest/community/self"] ?? 0 >= 1)
        }
    }

    @Test func aServerThatOnlyClaimsFederationGetsNoToken() async throws {
        try await signedIn { emulator, env in
            let layer = emulator.claimantServerURL + "/rest/services/Parcels/FeatureServer/0"
            for command in [["token", layer], ["token", layer, "--format", "json"], ["request", layer + "/query"]] {
                let r = try await CLI.portalAuth(command, emulator: emulator, environment: env)
                #expect(r.status == 3, "\(command): \(r.stderr)")
                #expect(r.stdout.isEmpty)
                #expect(r.oneLineError)
                #expect(r.stderr.contains("not") && r.stderr.contains("federated"), "\(r.stderr)")
            }
            let counters = emulator.counters()
            #expect(counters.tokensSentToClaimant == 0)
            #expect(counters.serverTokenRequests >= 1)
            #expect(counters.federatedServerListReads >= 1)
            #expect(
                !(try await CLI.keyringItems(server: emulator.claimantServerURL, environment: env)).contains("label"))
        }
    }
}
