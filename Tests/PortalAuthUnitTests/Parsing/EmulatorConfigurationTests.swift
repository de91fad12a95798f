import Foundation
import Testing

@testable import PortalEmulator

/// The emulator's configuration and fault table, read and run without a server.
@Suite struct EmulatorConfigurationTests {
    @Test("apiKeys and locationServicesPort decode, default and round-trip")
    func decoding() throws {
        let json = #"""
            {"locationServicesPort":null,"apiKeys":[
              {"key":"AAPTabc","expires":"2027-01-01T00:00:00Z","privileges":["premium:user:geocode"],
               "referer":"https://app.example.com","clientId":"portal-auth-app","slot":2},
              {"key":"AAPKlegacy","lifetimeSeconds":86400}]}
            """#
        let configuration = try JSONDecoder().decode(EmulatorConfiguration.self, from: Data(json.utf8))
        #expect(configuration.locationServicesPort == nil)
        #expect(configuration.apiKeys.count == 2)
        #expect(configuration.apiKeys[0].expires == Date(timeIntervalSince1970: 1_798_761_600))
        #expect(configuration.apiKeys[0].slot == 2)
        #expect(configuration.apiKeys[1].lifetimeSeconds == 86400)
        #expect(configuration.apiKeys[1].privileges.isEmpty)
        let again = try JSONDecoder().decode(
            EmulatorConfiguration.self, from: try JSONEncoder().encode(configuration))
        #expect(again == configuration)
        #expect(EmulatorConfiguration.default.locationServicesPort == 0)
        #expect(EmulatorConfiguration.default.apiKeys.isEmpty)
    }

    @Test(
        "malformed keys are refused",
        arguments: [
            #"{"key":"sk-not-esri"}"#, #"{"key":"AAPT with space"}"#, #"{"key":"AAPTx","slot":3}"#,
            #"{"key":"AAPTx","expires":"tomorrow"}"#, #"{"key":"AAPTx","expires":"2027-01-01","lifetimeSeconds":5}"#,
        ])
    func malformed(_ json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(EmulatorAPIKey.self, from: Data(json.utf8)) }
    }

    @Test("every key is optional in JSON")
    func partialJSON() throws {
        let json = #"{"portalName":"P","httpPort":0,"users":[{"username":"carol","password":"pw"}]}"#
        let configuration = try JSONDecoder().decode(EmulatorConfiguration.self, from: Data(json.utf8))
        #expect(configuration.portalName == "P")
        #expect(configuration.httpPort == 0)
        #expect(configuration.port == 0)
        #expect(configuration.tokenLifetimeMinutes == 60)
        #expect(configuration.users.count == 1)
        #expect(configuration.users[0].fullName == "carol")
        #expect(configuration.users[0].role == "org_user")
        let empty = try JSONDecoder().decode(EmulatorConfiguration.self, from: Data("{}".utf8))
        #expect(empty == .default)
    }

    @Test("the fault table fires in order and uses up counts")
    func faultTable() {
        let table = FaultTable()
        table.add([
            Fault(kind: .latency, count: 1, milliseconds: 50),
            Fault(kind: .rejectAllTokens, count: 1),
            Fault(kind: .http500, pathContains: "/a", count: 2),
        ])
        #expect(table.fire(path: "/b", carriesToken: false) == FiredFaults(latencyMilliseconds: 50, fault: nil))
        #expect(table.fire(path: "/a", carriesToken: true).fault?.kind == .rejectAllTokens)
        #expect(table.fire(path: "/a", carriesToken: true).fault?.kind == .http500)
        #expect(table.fire(path: "/a", carriesToken: false).fault?.kind == .http500)
        #expect(table.fire(path: "/a", carriesToken: false) == FiredFaults())
        let redirect = FaultTable()
        redirect.add([Fault(kind: .redirect, pathContains: "/data", count: 1, location: "https://localhost:1/x")])
        #expect(redirect.fire(path: "/data", carriesToken: true).fault?.location == "https://localhost:1/x")
        #expect(table.armed.isEmpty)
    }

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
}
