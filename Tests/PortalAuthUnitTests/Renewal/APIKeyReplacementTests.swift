import Foundation
import Testing

@testable import PortalAuth

/// A key the server refused while another process had stored its replacement: every request that
/// was refused goes again with the replacement, not only the first (they are refused at the same
/// moment when they were sent together); a key that is still the stored one stays refused.
@Suite struct APIKeyReplacementTests {
    static let portal = URL(string: "https://portal.example.com/portal")!

    /// A manager holding `old`, with `stored` in its store (the other process's rotation).
    static func manager(holding old: APIKeyCredential, stored: APIKeyCredential) async throws -> AuthenticationManager {
        let manager = AuthenticationManager(backend: MemoryCredentialBackend(), transport: NoNetworkTransport())
        try await manager.arcGISCredentialStore.add(stored)
        manager.apiKey = old
        return manager
    }

    @Test func everyRequestRefusedWithTheOldKeyGoesAgainWithTheStoredOne() async throws {
        let old = try APIKeyCredential(apiKey: "AAPToldKey", portalURL: Self.portal)
        let new = try APIKeyCredential(apiKey: "AAPTnewKey", portalURL: Self.portal)
        let manager = try await Self.manager(holding: old, stored: new)
        // Three requests carried the old key and were refused; each asks in turn.
        for _ in 0..<3 { #expect(try await manager.adoptStoredReplacement(of: old)) }
        #expect(manager.apiKey?.tokenInfo.accessToken == "AAPTnewKey")
    }

    @Test func theStoredKeyRefusedIsRefusedForGood() async throws {
        let key = try APIKeyCredential(apiKey: "AAPTonlyKey", portalURL: Self.portal)
        let manager = try await Self.manager(holding: key, stored: key)
        #expect(try await manager.adoptStoredReplacement(of: key) == false)
        #expect(try await manager.adoptStoredReplacement(of: key) == false)
    }

    @Test func anotherPortalsKeyIsNoReplacement() async throws {
        let old = try APIKeyCredential(apiKey: "AAPToldKey", portalURL: Self.portal)
        let other = try APIKeyCredential(
            apiKey: "AAPTotherKey", portalURL: URL(string: "https://other.example.com/portal")!)
        let manager = try await Self.manager(holding: other, stored: other)
        // The manager's key is another portal's now: the refused key's request is not sent with it.
        #expect(try await manager.adoptStoredReplacement(of: old) == false)
        #expect(manager.apiKey?.tokenInfo.accessToken == "AAPTotherKey")
    }
}
