import Foundation

/// Tests/Fixtures/hostile-https-server.py as a child process: an HTTPS server on 127.0.0.1 whose
/// answers never end or never fit (a 512 MiB body, an endless body, a gzip bomb, endless headers,
/// a trickle), for the transport's limit tests. Its certificate comes from a ``TestPKI``.
public final class HostileServer: Sendable {
    /// The base URL, `https://127.0.0.1:PORT`.
    public let baseURL: String
    /// The CA bundle that trusts the server's certificate.
    public let caCertificatePath: String
    private let child: ChildProcess

    private init(baseURL: String, caCertificatePath: String, child: ChildProcess) {
        self.baseURL = baseURL
        self.caCertificatePath = caCertificatePath
        self.child = child
    }

    /// Starts a server with a fresh PKI in `directory`, runs `body`, and stops the server
    /// (awaited) whether `body` returns or throws.
    public static func with<T>(
        in directory: String, _ body: (HostileServer) async throws -> T
    ) async throws -> T {
        let pki = try TestPKI.create(in: directory)
        let child = try ChildProcess(
            "/usr/bin/python3", [script, pki.serverCertificatePath, pki.serverKeyPath],
            stderrPath: directory + "/hostile-server.log")
        guard let line = await child.nextLine(timeout: 120), let port = Int(line) else {
            _ = await child.stop()
            let log = (try? String(contentsOfFile: directory + "/hostile-server.log", encoding: .utf8)) ?? ""
            throw SubprocessError("the hostile HTTPS server did not start: \(log.suffix(2000))")
        }
        let server = HostileServer(
            baseURL: "https://127.0.0.1:\(port)", caCertificatePath: pki.caCertificatePath, child: child)
        do {
            let result = try await body(server)
            _ = await child.stop()
            return result
        } catch {
            _ = await child.stop()
            throw error
        }
    }

    /// The repository's Tests/Fixtures/hostile-https-server.py.
    static let script = RealClients.repositoryRoot + "/Tests/Fixtures/hostile-https-server.py"
}
