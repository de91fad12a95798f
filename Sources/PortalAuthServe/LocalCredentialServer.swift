public import PortalAuth

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `portal-auth serve` for a Swift program: a loopback HTTP server under a secret base URL
/// (`http://127.0.0.1:PORT/SECRET/`) with an authenticating proxy (`BASE/https/HOST/PATH`) and a
/// token endpoint (`BASE/token?url=URL`), answering with the credential ``ServeManagers`` chooses
/// for each URL, and only where a credential covers it.
///
/// Every request must carry the secret and nothing only a web page sends (an `Origin`, a
/// `Sec-Fetch-Site` other than `none`, a `Referer` holding the secret), and a `Host` it names must
/// be loopback;
/// every answer carries a policy under which a browser runs nothing in the server's origin.
public final class LocalCredentialServer: Sendable {
    private let server: LoopbackHTTPServer
    private let router: ServeRouter
    /// Where the answers' tasks run (nil: Swift's global executor).
    private let taskExecutor: (any TaskExecutor)?

    /// The address it listens on (for a Unix socket, `localhost` port 80: the authority its clients name).
    public var address: LoopbackAddress { server.address }

    /// A server on `socket` (which it keeps) for the base URL's `secret`, answering with
    /// `managers`' credentials. At most `maximumConnections` clients at once; an answer whose client
    /// takes nothing, or whose server sends nothing, for `stallTimeout` seconds ends.
    /// `describe` words an error for the client (its message and remedy, by default). A secret that
    /// is not at least 128 bits of base64url text (``ServeSecret/current(in:renew:)`` makes 256) is
    /// an `invalidArgument` error: it is all that keeps other local programs out.
    public init(
        socket: ListeningSocket, secret: String, managers: ServeManagers, maximumConnections: Int,
        stallTimeout: Int, taskExecutor: (any TaskExecutor)? = nil,
        describe: @escaping @Sendable (PortalAuthError) -> String = { $0.description }
    ) throws {
        self.taskExecutor = taskExecutor
        guard ServeSecret.isWellFormed(secret) else {
            throw PortalAuthError(
                .invalidArgument, "the secret of a local server must be 22 to 128 base64url characters")
        }
        server = try LoopbackHTTPServer(
            socket: socket, maximumConnections: maximumConnections, writeTimeout: stallTimeout,
            limits: ServeProxy.requestLimits)
        router = ServeRouter(secret: secret, managers: managers, describe: describe)
    }

    /// Serves until ``stop()``.
    public func run() async {
        let router = router
        await server.run(headFilter: router.headFilter, taskExecutor: taskExecutor) {
            await router.answer($0)
        }
    }

    /// Stops ``run()`` (from any thread, a signal handler's queue included).
    public func stop() { server.stop() }

    /// `http://HOST:PORT/SECRET/`.
    public static func baseURL(_ address: LoopbackAddress, port: Int, secret: String) -> String {
        "http://\(address.authority(port: port))/\(secret)/"
    }

    /// The local URL of `remote` under `base` (`BASE/https/HOST[:PORT]/PATH?QUERY`); only https URLs.
    public static func localURL(for remote: URL, base: String) throws -> String {
        try ServeProxy.localURL(for: remote, base: base)
    }
}
