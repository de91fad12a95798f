import Foundation
import PortalAuth
import PortalAuthServe
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth serve` as a library (`PortalAuthServe`): docs/serve.md's program, compiled
/// (ServeLibraryExample.swift) and run, with curl as the local client.
@Suite struct ServeLibraryTests {
    @Test("docs/serve.md prints the program this target compiles, character for character")
    func theGuideShowsTheCompiledProgram() throws {
        try expectDocumentPrints("ServeLibraryExample.swift", document: "docs/serve.md")
    }

    @Test("the program serves the layer to curl, and nothing without its secret")
    func theProgramServesTheLayer() async throws {
        try await withEmulator { emulator in
            let (bases, continuation) = AsyncStream.makeStream(of: String.self)
            let serving = Task {
                try await serveSignedIn(
                    portal: URL(string: emulator.portalURL)!, username: "alice", password: "alice-pass-123",
                    caBundlePath: emulator.caCertificatePath, started: { continuation.yield($0) })
            }
            defer { serving.cancel() }
            var iterator = bases.makeAsyncIterator()
            let base = try #require(await iterator.next())
            let layer = emulator.serverURL.dropFirst("https://".count) + "/rest/services/Parcels/FeatureServer/0"
            let query = "\(base)https/\(layer)/query?where=1%3D1&returnCountOnly=true&f=json"
            // (The URL on curl's standard input, as docs/serve.md has users give it: never in arguments.)
            let counted = try await Subprocess.run("/usr/bin/curl", ["-sS", "-K", "-"], stdin: "url = \"\(query)\"\n")
            #expect(counted.status == 0, "\(counted.stderr)")
            #expect(counted.stdout.contains("\"count\""), "\(counted.stdout)")
            let secret = base.split(separator: "/").last.map(String.init) ?? ""
            let refused = try await Subprocess.run(
                "/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-K", "-"],
                stdin: "url = \"\(query.replacingOccurrences(of: secret, with: "x"))\"\n")
            #expect(refused.stdout == "403")
            serving.cancel()
            _ = await serving.result
        }
    }

    @Test func aGuessableSecretOrAnAddressOffLoopbackIsRefused() async throws {
        let manager = AuthenticationManager(
            backend: MemoryCredentialBackend(), transport: CurlTransport(configuration: TransportConfiguration()))
        let managers = ServeManagers(
            stored: StoredCredentialSource(manager: manager, followingChanges: false), environment: nil)
        for secret in ["", "a", String(repeating: "x", count: 21), "not base64url: but 22+ characters long"] {
            let socket = try ListeningSocket.bind(LoopbackAddress.parse("127.0.0.1:0", defaultPort: 0))
            #expect(throws: PortalAuthError.self) {
                try LocalCredentialServer(
                    socket: socket, secret: secret, managers: managers, maximumConnections: 1, stallTimeout: 1)
            }
            // (The socket is closed when the refused server's copy and this one go.)
        }
        for host in ["0.0.0.0", "localhost", "192.0.2.1", "::", "not an address"] {
            #expect(throws: PortalAuthError.self) { try ListeningSocket.bind(LoopbackAddress(host: host, port: 0)) }
        }
    }

    /// A listening socket is closed when its last copy goes, and only then: never by whoever serves
    /// on it (a copy given to a refused server, or to two, is not closed twice), and never left
    /// open. A Unix socket in a private folder shows it without racing other tests for a port: its
    /// path answers while the socket is open, and is taken again once it is closed.
    @Test func aListeningSocketIsClosedWhenItsLastCopyGoes() throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/listening-XXXXXX").utf8CString)
        let folder = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/s"
        func inUse() -> Bool {
            do {
                _ = try ListeningSocket.unix(path: path)
                return false
            } catch let error as PortalAuthError {
                return ListeningSocket.isAddressInUse(error)
            } catch {
                return false
            }
        }
        func twoCopies() throws -> [ListeningSocket] {
            let socket = try ListeningSocket.unix(path: path)
            return [socket, socket]
        }
        var copies = try twoCopies()
        copies.removeFirst()
        #expect(inUse())
        copies.removeAll()
        #expect(!inUse())
    }
}
