import Foundation
import PortalEmulator

/// The JSON a `--state-file` holds, for scripts that wait for the emulator.
struct StateFile: Codable, Equatable {
    var pid: Int32
    var port: Int
    var httpPort: Int?
    var baseURL: String
    var portalURL: String
    var serverURL: String
    var standaloneServerURL: String
    var caCertificatePath: String
    var proxyPort: Int?
    var proxyBaseURL: String?
    var entraBaseURL: String
    var locationServicesPort: Int?
    var locationServicesBaseURL: String?

    init(emulator: PortalEmulator) {
        pid = ProcessInfo.processInfo.processIdentifier
        port = emulator.port
        httpPort = emulator.httpPort
        baseURL = emulator.baseURL
        portalURL = emulator.portalURL
        serverURL = emulator.serverURL
        standaloneServerURL = emulator.standaloneServerURL
        caCertificatePath = emulator.caCertificatePath
        proxyPort = emulator.proxyPort
        proxyBaseURL = emulator.proxyBaseURL
        entraBaseURL = emulator.entraBaseURL
        locationServicesPort = emulator.locationServicesPort
        locationServicesBaseURL = emulator.locationServicesBaseURL
    }

    /// Writes the file atomically (a temporary file renamed into place).
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
