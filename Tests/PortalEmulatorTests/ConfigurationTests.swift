import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    @Test("defaults")
    func defaults() {
        let configuration = EmulatorConfiguration.default
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 0)
        #expect(configuration.httpPort == nil)
        #expect(configuration.extraHostnames.isEmpty)
        #expect(configuration.caCertificatePath == nil)
        #expect(configuration.portalName == "Emulated Portal")
        #expect(configuration.tokenLifetimeMinutes == 60)
        #expect(configuration.maxTokenLifetimeMinutes == 20160)
        #expect(configuration.serverAcceptsPortalTokens == true)
        #expect(configuration.maxRecordCount == 1000)
        #expect(configuration.latencyMilliseconds == 0)
        #expect(configuration.users.map(\.username) == ["alice", "bob"])
        let alice = configuration.users[0]
        #expect(alice.password == "alice-pass-123")
        #expect(alice.fullName == "Alice Anderson")
        #expect(alice.email == "alice@example.com")
        #expect(alice.role == "org_admin")
        #expect(alice.thumbnail == "alice.png")
        let bob = configuration.users[1]
        #expect(bob.password == "bob-pass-456")
        #expect(bob.fullName == "Bob Brown")
        #expect(bob.role == "org_user")
        #expect(bob.thumbnail == nil)
    }

    @Test("config/emulator.json is the default configuration written out")
    func shippedFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = root.appendingPathComponent("config/emulator.json").path
        let loaded = try EmulatorConfiguration.load(contentsOf: path)
        #expect(loaded == .default)
    }

    @Test("configured users can sign in")
    func configuredUsers() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.users = [EmulatorUser(username: "carol", password: "carol-pw", fullName: "Carol Chen")]
        try await withEmulator(configuration) { emulator in
            let token = try await emulator.portalToken("carol", "carol-pw")
            let user = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(token)"]
            ).json()
            #expect(user["firstName"] as? String == "Carol")
            #expect(user["lastName"] as? String == "Chen")
            let alice = try await emulator.signIn()
            #expect((alice["error"] as? [String: Any])?["code"] as? Int == 400)
        }
    }
}
