import Foundation
import PortalEmulator
import TestSupport
import Testing

/// One test's emulator and a file store of its own, for the tests that hand tokens to other
/// programs (curl, wget, GDAL, python): both are removed, awaited, whatever the test does.
struct TokenUse {
    let emulator: PortalEmulator
    /// A private folder: the store, header files, and the working folder of shell scripts.
    let directory: String

    /// The federated server's Parcels layer (24 features).
    var layer: String { emulator.serverURL + "/rest/services/Parcels/FeatureServer/0" }
    /// An ESRIJSON query of every parcel, as GDAL's ESRIJSON driver reads it.
    var layerQuery: String { layer + "/query?where=1%3D1&outFields=*&f=json" }

    /// The variables every child gets: the store, and the emulator's CA for portal-auth and for
    /// curl, python requests and wget (through a system wgetrc of the test's own).
    var environment: [String: String] {
        [
            "PORTAL_AUTH_STORE": "file", "PORTAL_AUTH_FILE_STORE": directory + "/store/credentials.json",
            "PORTAL_AUTH_CA_BUNDLE": emulator.caCertificatePath, "CURL_CA_BUNDLE": emulator.caCertificatePath,
            "REQUESTS_CA_BUNDLE": emulator.caCertificatePath, "SYSTEM_WGETRC": directory + "/system-wgetrc",
            "PORTAL": emulator.portalURL, "LAYER": layer,
            "PATH": CLI.binDirectory.path + ":/usr/bin:/bin",
        ]
    }

    /// Runs `body` with a fresh emulator and folder, then shuts the emulator down and removes the folder.
    static func with(
        _ configure: (inout EmulatorConfiguration) -> Void = { _ in }, _ body: (TokenUse) async throws -> Void
    ) async throws {
        try await withEmulator(configuring: configure) { emulator in
            try await withTemporaryDirectory("token-use") { directory in
                try "ca_certificate = \(emulator.caCertificatePath)\n".write(
                    toFile: directory + "/system-wgetrc", atomically: true, encoding: .utf8)
                try await body(TokenUse(emulator: emulator, directory: directory))
            }
        }
    }

    /// portal-auth with this test's store and CA.
    func portalAuth(
        _ arguments: [String], stdin: String? = nil, extra: [String: String] = [:]
    ) async throws
        -> CLIResult
    {
        try await CLI.run(CLI.portalAuth, arguments, stdin: stdin, environment: environment.merging(extra) { $1 })
    }

    /// A bash script run in the test's folder with this test's variables.
    func bash(
        _ script: String, stdin: String? = nil, extra: [String: String] = [:], timeout: TimeInterval = 90
    ) async throws -> CLIResult {
        try await CLI.run(
            "/bin/bash", ["-c", "set -euo pipefail; cd \"$0\"\n" + script, directory], stdin: stdin,
            environment: environment.merging(extra) { $1 }, timeout: timeout)
    }

    /// Signs alice in with a password (and the extra options).
    @discardableResult
    func signIn(_ extra: [String] = []) async throws -> CLIResult {
        let result = try await portalAuth(
            ["login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin"] + extra,
            stdin: alicePassword)
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    /// The token `portal-auth token URL` prints.
    func token(_ url: String) async throws -> String {
        let result = try await portalAuth(["token", url])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
