import Foundation
import PortalEmulator
import TestSupport
import Testing

/// Where a credential changes hands: a token refused before its expiry renews through the one
/// renewal path (or names the portal's sign-in), and a new principal on a portal never finds the
/// former one's server tokens. Each test keeps its credentials in a file store of its own.
@Suite struct LifecycleCLITests {
    /// A file store in a fresh folder, the folder, and the environment that selects the store.
    static func fileStore() -> (folder: String, environment: [String: String]) {
        let folder = temporaryPath("pa-lifecycle")
        return (folder, ["PORTAL_AUTH_STORE": "file", "PORTAL_AUTH_FILE_STORE": folder + "/credentials.json"])
    }

    static func layer(_ emulator: PortalEmulator) -> String {
        emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query?where=1%3D1&f=json"
    }

    /// The portal refused every token before its expiry (an administrator's "expire all"): with a
    /// remembered password, the layer's next request renews the portal's sign-in unattended and
    /// exchanges again; before, it answered "not federated" and exited 3.
    @Test func aRefusedServerTokenRenewsThePortalsSignInWithTheRememberedPassword() async throws {
        try await withEmulator { emulator in
            let (folder, env) = Self.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let signIn = try await login(emulator, extra: ["--remember-password"], environment: env)
            #expect(signIn.status == 0, "\(signIn.stderr)")
            let first = try await CLI.portalAuth(
                ["request", Self.layer(emulator)], emulator: emulator, environment: env)
            #expect(first.status == 0, "\(first.stderr)")
            emulator.expireAllTokens()
            let again = try await CLI.portalAuth(
                ["request", Self.layer(emulator)], emulator: emulator, environment: env)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(emulator.counters().generateTokenRequests == 2)
            #expect(emulator.counters().serverTokenRequests == 3, "refused once, then exchanged again")
            #expect(!again.stderr.contains(alicePassword))
        }
    }

    /// Nothing can renew it: the error says the portal's sign-in expired or was revoked and names
    /// the portal's sign-in, never the server and never "not federated".
    @Test func aRefusedServerTokenWithoutRenewalNamesThePortalsSignIn() async throws {
        try await withEmulator { emulator in
            let (folder, env) = Self.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            #expect(try await login(emulator, environment: env).status == 0)
            let first = try await CLI.portalAuth(
                ["request", Self.layer(emulator)], emulator: emulator, environment: env)
            #expect(first.status == 0, "\(first.stderr)")
            emulator.expireAllTokens()
            let refused = try await CLI.portalAuth(
                ["request", Self.layer(emulator)], emulator: emulator, environment: env)
            #expect(refused.status == 3, "\(refused.stderr)")
            #expect(refused.oneLineError, "\(refused.stderr)")
            #expect(refused.stderr.contains("expired or was revoked"), "\(refused.stderr)")
            #expect(refused.stderr.contains("login --portal \(emulator.portalURL)"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("not federated"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("--portal \(emulator.serverURL)"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("--url \(emulator.serverURL)"), "\(refused.stderr)")
        }
    }

    /// The portal's own token refused before its expiry renews with the remembered password too.
    @Test func aRefusedPortalTokenRenewsWithTheRememberedPassword() async throws {
        try await withEmulator { emulator in
            let (folder, env) = Self.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            #expect(try await login(emulator, extra: ["--remember-password"], environment: env).status == 0)
            emulator.expireAllTokens()
            let me = try await CLI.portalAuth(
                ["request", emulator.portalURL + "/sharing/rest/community/self"], emulator: emulator, environment: env)
            #expect(me.status == 0 && me.stdout.contains("\"alice\""), "\(me.stderr)")
            #expect(emulator.counters().generateTokenRequests == 2)
        }
    }

    /// An app signs in where alice was: her server token is gone at once, from `token` (which reads
    /// the store directly) and from `status`.
    @Test func anAppSignInLeavesNoFormerUsersServerToken() async throws {
        try await withEmulator { emulator in
            let (folder, env) = Self.fileStore()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            #expect(try await login(emulator, environment: env).status == 0)
            let alices = try await CLI.portalAuth(
                ["token", Self.layer(emulator)], emulator: emulator, environment: env)
            #expect(alices.status == 0, "\(alices.stderr)")
            let before = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
            #expect(before.stdout.contains("federated-token"), "\(before.stdout)")
            let app = try await CLI.portalAuth(
                ["login", "--portal", emulator.portalURL, "--client-id", "portal-auth-app", "--client-secret-stdin"],
                emulator: emulator, stdin: "app-secret-456", environment: env)
            #expect(app.status == 0, "\(app.stderr)")
            let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
            #expect(!status.stdout.contains("federated-token"), "\(status.stdout)")
            let token = try await CLI.portalAuth(["token", Self.layer(emulator)], emulator: emulator, environment: env)
            #expect(token.stdout != alices.stdout, "\(token.stderr)")
        }
    }
}
