import ArgumentParser
import PortalAuth
import PortalAuthServe

/// `portal-auth serve url URL`: the local URL of a remote one, to give a program instead.
struct ServeURL: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Print the local URL (through portal-auth serve) of a remote https URL.",
        discussion: """
            The base URL is read from --state-file when given (the running server's), else made from --listen \
            and the secret in the credential store (made now if there is none). When nothing listens there, the URL \
            is still printed (for a saved project) and a note on stderr says how to start serve.

            Examples:
              portal-auth serve url https://host/server/rest/services/Parcels/FeatureServer
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The remote https URL.")
    var url: String

    @Option(help: ArgumentHelp("The address the server listens on.", valueName: "host:port"))
    var listen: String = Serve.defaultListen

    @Option(help: ArgumentHelp("The state file of a running server (its base URL).", valueName: "file"))
    var stateFile: String?

    func run() async throws {
        try await runReportingErrors {
            let remote = try parseURL(url)
            let base: String
            if let stateFile {
                base = try ServeStateFile.baseURL(at: stateFile)
            } else {
                let address = try LoopbackAddress.parse(listen, defaultPort: Serve.defaultPort)
                let backend = try global.makeManager().arcGISCredentialStore.backend
                base = LocalCredentialServer.baseURL(
                    address, port: address.port, secret: try ServeSecret.current(in: backend))
            }
            output(try LocalCredentialServer.localURL(for: remote, base: base))
            if let note = ServeProbe.notRunningNote(base: base) { printError(note) }
        }
    }
}
