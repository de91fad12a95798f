import ArgumentParser
import Dispatch
import Foundation
import Logging
import PortalEmulator

/// `portal-emulator`: runs the emulated portal and servers until SIGINT or SIGTERM.
@main
struct PortalEmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "portal-emulator",
        abstract: "Run a local HTTPS emulation of an ArcGIS Enterprise portal and its servers.",
        discussion: """
            Serves the portal at /portal, a federated ArcGIS Server at /server and a standalone \
            ArcGIS Server at /standalone, all on one HTTPS port with a throwaway CA. Prints one line \
            with the URLs once listening; runs until SIGINT or SIGTERM. \
            `portal-emulator env STATE-FILE` prints the shell export lines that make clients trust it.
            """,
        subcommands: [EnvCommand.self])

    @Option(name: .long, help: "JSON configuration file (see config/README.md).")
    var config: String?

    @Option(name: .long, help: "Address to bind (default 127.0.0.1).")
    var host: String?

    @Option(name: .long, help: "HTTPS port; 0 picks a free port.")
    var port: Int?

    @Option(name: .customLong("http-port"), help: "Also listen for plain HTTP on this port (0 = a free port).")
    var httpPort: Int?

    @Option(name: .customLong("ca-out"), help: "Where to write the CA certificate (PEM).")
    var caOut: String?

    @Option(name: .customLong("state-file"), help: "Write a JSON state file here once listening.")
    var stateFile: String?

    @Option(name: .customLong("token-lifetime"), help: "Default token lifetime in minutes.")
    var tokenLifetime: Int?

    @Option(
        name: .customLong("proxy-port"),
        help:
            "Also run the emulated Entra Application Proxy in front of the portal on this HTTPS port (0 = a free port)."
    )
    var proxyPort: Int?

    @Option(
        name: .customLong("location-services-port"),
        help: "HTTPS port of the location services (geocode, route, basemap styles); 0 = a free port (the default)."
    )
    var locationServicesPort: Int?

    @Option(name: .customLong("oauth-access-token-lifetime"), help: "Lifetime of OAuth access tokens, in seconds.")
    var oauthAccessTokenLifetime: Int?

    @Option(name: .customLong("refresh-token-lifetime"), help: "Lifetime of OAuth refresh tokens, in seconds.")
    var refreshTokenLifetime: Int?

    @Option(name: .customLong("latency-ms"), help: "Delay added to every request, in milliseconds.")
    var latencyMs: Int?

    @Flag(
        name: .customLong("server-accepts-portal-tokens"), inversion: .prefixedNo,
        help: "Whether the federated server accepts portal tokens (default yes; no = exchange-only).")
    var serverAcceptsPortalTokens: Bool?

    @Option(
        name: .customLong("max-record-count"),
        help: "The most features one query page holds (default 1000); smaller makes clients page.")
    var maxRecordCount: Int?

    @Flag(name: .customLong("print-config"), help: "Print the effective configuration as JSON and exit.")
    var printConfig = false

    @Option(
        name: .customLong("log-level"),
        help: "Log level on stderr: trace, debug, info, warning, error (default warning).")
    var logLevel: String = "warning"

    mutating func run() async throws {
        var configuration = try config.map { try EmulatorConfiguration.load(contentsOf: $0) } ?? .default
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let httpPort { configuration.httpPort = httpPort }
        if let proxyPort { configuration.proxyPort = proxyPort }
        if let locationServicesPort { configuration.locationServicesPort = locationServicesPort }
        if let caOut { configuration.caCertificatePath = caOut }
        if let tokenLifetime { configuration.tokenLifetimeMinutes = tokenLifetime }
        if let oauthAccessTokenLifetime { configuration.oauthAccessTokenLifetimeSeconds = oauthAccessTokenLifetime }
        if let refreshTokenLifetime { configuration.refreshTokenLifetimeSeconds = refreshTokenLifetime }
        if let latencyMs { configuration.latencyMilliseconds = latencyMs }
        if let serverAcceptsPortalTokens { configuration.serverAcceptsPortalTokens = serverAcceptsPortalTokens }
        if let maxRecordCount { configuration.maxRecordCount = maxRecordCount }

        if printConfig {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            FileHandle.standardOutput.write(try encoder.encode(configuration) + Data("\n".utf8))
            return
        }

        guard let level = Logger.Level(rawValue: logLevel.lowercased()) else {
            throw ValidationError("Unknown log level '\(logLevel)'.")
        }
        var logger = Logger(label: "portal-emulator", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = level

        let signals = SignalWaiter(signals: [SIGINT, SIGTERM])
        let emulator = try await PortalEmulator.start(configuration, logger: logger)
        if let stateFile {
            try StateFile(emulator: emulator).write(to: stateFile)
        }
        let proxied = emulator.proxyBaseURL.map { ", proxy \($0)/portal" } ?? ""
        let line =
            "portal-emulator: portal \(emulator.portalURL), server \(emulator.serverURL)\(proxied), CA \(emulator.caCertificatePath)\n"
        FileHandle.standardOutput.write(Data(line.utf8))

        let received = await signals.wait()
        logger.info("stopping", metadata: ["signal": "\(received)"])
        try await emulator.shutdown()
        if let stateFile { try? FileManager.default.removeItem(atPath: stateFile) }
    }
}
