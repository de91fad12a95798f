import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite("Configuration")
struct ConfigurationTests {

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
