import ArgumentParser
import Dispatch
import PortalAuth
import PortalAuthServe

#if canImport(Glibc)
import Glibc
#endif

/// `portal-auth serve [run]`: the server itself, in the foreground until SIGTERM or SIGINT.
struct ServeRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the server in the foreground (the default); SIGTERM or SIGINT stops it (exit 0)."
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        help: ArgumentHelp(
            "The loopback address to listen on (127.0.0.0/8, ::1 or localhost; port 0 picks a free one), or "
                + "unix:PATH (a Unix socket, in a folder only you may enter).",
            valueName: "host:port"))
    var listen: String = Serve.defaultListen

    @Flag(help: "Replace the secret of the base URL (every URL given out before stops working).")
    var newSecret = false

    @Option(
        help: ArgumentHelp(
            "Write {\"url\": BASE, \"pid\": N} to this file (mode 0600) while running; removed when stopped.",
            valueName: "file"))
    var stateFile: String?

    @Option(
        help: ArgumentHelp(
            "End an answer whose client takes nothing, or whose server sends nothing, for this long (default 60).",
            valueName: "seconds"))
    var stallTimeout: Int = 60

    func run() async throws {
        try await runReportingErrors {
            let listenOn = try ServeListener.Listen.parse(listen)
            let backend = try global.makeManager().arcGISCredentialStore.backend
            let secret = try ServeSecret.current(in: backend, renew: newSecret)
            let transport = ServeManagers.transport(global)
            let managers = try await ServeManagers.make(global, transport: transport)
            let socket = try ServeListener.socket(listen: listenOn) {
                _ = try ServeSecret.current(in: backend, renew: true)
            }
            let server = try LocalCredentialServer(
                socket: socket, secret: secret, managers: managers, maximumConnections: Serve.maximumConnections,
                stallTimeout: stallTimeout, taskExecutor: try transport.taskExecutor(), describe: { $0.cliMessage })
            // (Over a Unix socket, clients name localhost: curl --unix-socket PATH http://localhost/SECRET/...)
            let base =
                socket.path == nil
                ? LocalCredentialServer.baseURL(server.address, port: server.address.port, secret: secret)
                : "http://localhost/\(secret)/"
            let state = stateFile.map(ServeStateFile.init(path:))
            try state?.write(baseURL: base)
            let signals = Self.stopping(server)
            printInfo(
                "portal-auth: serving on \(socket.path ?? "http://\(server.address)/") (the base URL, with its secret: "
                    + "portal-auth serve url URL\(stateFile.map { ", or the state file \($0)" } ?? ""))")
            await server.run()
            state?.remove()
            if let path = socket.path { unlink(path) }
            signals.forEach { $0.cancel() }
            exitProcess(0)
        }
    }

    /// SIGTERM and SIGINT stop the server (then the state file is removed and it exits 0).
    static func stopping(_ server: LocalCredentialServer) -> [any DispatchSourceSignal] {
        [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { server.stop() }
            source.resume()
            return source
        }
    }
}
