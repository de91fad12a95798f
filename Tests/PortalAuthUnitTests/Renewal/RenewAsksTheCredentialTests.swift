import Foundation
import Testing

/// `renew` and `status --check` (Sources/portal-auth/Renew) decide from each credential's own answer
/// (``CredentialRenewal``, ``StoredCredential/remedyWhenLapsed``), never from its kind: none of their
/// files names a credential type's `kind`, so a plugin written outside the package is treated as the
/// bundled ones are (issue #35, item 3).
@Suite struct RenewAsksTheCredentialTests {
    @Test func renewAndStatusCheckNameNoCredentialKind() throws {
        let renew = try CLIWriteRoutesTests.sources().filter { $0.path.hasPrefix("Renew/") }
        #expect(renew.count >= 5)
        let kindNamed = /[A-Z][A-Za-z]*Credential\.kind/
        for file in renew {
            #expect(file.text.firstMatch(of: kindNamed) == nil, "\(file.path) names a credential kind")
        }
    }
}
