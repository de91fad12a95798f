import Foundation
import PortalEmulator
import TestSupport
import Testing

extension ScopeDifferentialTests {
    /// `token --format json` says until when the credential can be renewed (`renewableUntil`, the
    /// library's ``CredentialDecision/renewableUntil``), the same on the fast path, from the small
    /// program's record and on the full path, and the same as `status --json`: a password sign-in's
    /// token expiry, `null` once the password is remembered (the record made before is not used
    /// again), and an OAuth sign-in's refresh token end.
    @Test func renewableUntilIsTheLibrarysAnswerOnEveryPath() async throws {
        try await withEmulator { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                // (Answered by the full program's fast path, then by the small program from its record.)
                func answer(_ step: String) async throws -> [String: Any] {
                    let (out, fast, small) = try await compare(emulator.portalURL, "json", emulator, env, step: step)
                    #expect(fast && small, "\(step): fast path \(fast), small program \(small)")
                    return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
                }
                // (The active sign-in's row.)
                func statusRenewableUntil() async throws -> Any? {
                    let rows = try await RememberedPasswordCLITests.statusRows(emulator, environment: env)
                    let active = rows.filter { $0["active"] as? Bool ?? true }
                    #expect(active.count == 1, "\(rows)")
                    return active.first?["renewableUntil"]
                }

                #expect(try await login(emulator, environment: env).status == 0)
                let signedIn = try await answer("password")
                let expires = try #require(signedIn["expires"] as? String)
                #expect(signedIn["renewableUntil"] as? String == expires, "\(signedIn)")
                #expect(try await statusRenewableUntil() as? String == expires)

                #expect(try await login(emulator, extra: ["--remember-password"], environment: env).status == 0)
                let remembered = try await answer("remembered password")
                #expect(remembered["renewableUntil"] is NSNull, "\(remembered)")
                #expect(try await statusRenewableUntil() is NSNull)

                #expect(try await oauthLogin(emulator, environment: env).status == 0)
                let oauth = try await answer("OAuth")
                let until = try #require(oauth["renewableUntil"] as? String, "\(oauth)")
                #expect(until != oauth["expires"] as? String, "\(oauth)")
                #expect(try await statusRenewableUntil() as? String == until)
            }
        }
    }
}
