import PortalAuth
import Testing

@testable import portal_auth

/// The fast path reads the stores without a manager: it must know every kind the manager's plugins make.
@Suite struct FastPathStoresTests {
    @Test func theFastPathRegistersEveryArcGISKindTheManagersPluginsMake() throws {
        let manager = try GlobalOptions.makeManager(
            store: "memory", verbose: 0, transport: GlobalOptions.makeTransport(cacert: nil))
        let made = Set(manager.handlers.flatMap(\.arcGISCredentialTypes).map { $0.kind })
        #expect(!made.isEmpty)
        #expect(Set(GlobalOptions.storedArcGISCredentialTypes.map { $0.kind }) == made)
    }
}
