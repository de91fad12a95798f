import Foundation
import Logging
import PortalAuth
import PortalAuthPregeneratedToken
import PortalAuthToken
import PortalEmulator
import TestSupport
import Testing

/// A username/password provider that counts its calls.
final class CountingProvider: UsernamePasswordProvider {
    let username: String
    let password: String
    private let count = Locked(0)
    init(username: String = "alice", password: String = "alice-pass-123") {
        self.username = username
        self.password = password
    }
    var calls: Int { count.withLock { $0 } }
    func usernameAndPassword(
        for challenge: ArcGISAuthenticationChallenge
    ) async throws -> (username: String, password: String)? {
        count.withLock { $0 += 1 }
        return (username, password)
    }
}

/// A transport that records every request it passes on to the real one (an observer, not a mock).
final class RecordingTransport: HTTPTransport {
    let inner: any HTTPTransport
    private let log = Locked<[TransportRequest]>([])
    init(_ inner: any HTTPTransport) { self.inner = inner }
    var requests: [TransportRequest] { log.withLock { $0 } }
    func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        log.withLock { $0.append(request) }
        return try await inner.send(request, options: options)
    }
}

/// An in-process emulator and a manager wired to it.
struct Fixture {
    let emulator: PortalEmulator
    let manager: AuthenticationManager
    let provider: CountingProvider
    let transport: RecordingTransport

    /// Starts an emulator, wires a manager to it, runs `body`, and shuts the emulator down, awaited.
    @discardableResult
    static func with<T>(
        _ configuration: EmulatorConfiguration = .default, backend: (any CredentialStorageBackend)? = nil,
        provider: CountingProvider = CountingProvider(), trustEmulator: Bool = true,
        _ body: (Fixture) async throws -> T
    ) async throws -> T {
        try await withEmulator(configuration) { emulator in
            let transport = RecordingTransport(
                CurlTransport(
                    configuration: TransportConfiguration(
                        caBundlePath: trustEmulator ? emulator.caCertificatePath : nil, timeout: 30)))
            let manager = AuthenticationManager(backend: backend ?? MemoryCredentialBackend(), transport: transport)
            manager.register(PregeneratedTokenHandler())
            manager.register(TokenAuthenticationHandler(provider: provider))
            return try await body(
                Fixture(emulator: emulator, manager: manager, provider: provider, transport: transport))
        }
    }

    var portal: URL { URL(string: emulator.portalURL)! }
    var portalContext: ServerContext { try! ServerContext(emulator.portalURL) }
    var layer: URL { URL(string: emulator.serverURL + "/rest/services/Parcels/FeatureServer/0")! }
    var query: URL { URL(string: emulator.serverURL + "/rest/services/Parcels/FeatureServer/0/query")! }
    var communitySelf: URL { URL(string: emulator.portalURL + "/sharing/rest/community/self")! }

}

/// Expects an async call to throw a PortalAuthError with this code; returns it.
@discardableResult
func expectPortalAuthError<T>(
    _ code: PortalAuthError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> PortalAuthError? {
    do {
        _ = try await body()
        Issue.record("expected PortalAuthError \(code), got success", sourceLocation: sourceLocation)
    } catch let error as PortalAuthError {
        #expect(error.code == code, "message: \(error.message)", sourceLocation: sourceLocation)
        #expect(!error.message.contains("\n"), sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected PortalAuthError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// The web tier's rotating self-signed server is one test's at a time: one test changes its
/// certificate, and the others read which one it serves.
private let rotatingServerTurn = AsyncGate(limit: 1)

/// Runs `body` while no other test uses the web tier's rotating self-signed server.
func withRotatingServer<T>(_ body: () async throws -> T) async throws -> T {
    await rotatingServerTurn.acquire()
    return try await withResource(rotatingServerTurn, release: { $0.release() }) { _ in try await body() }
}

/// Expects the first ```swift block of the document at `document` (a path from the repository's
/// root) to be, character for character, the file `example` of this target from its
/// `import PortalAuth` line on: a program a page prints is the program this target compiles.
func expectDocumentPrints(
    _ example: String, document: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let root = tests.deletingLastPathComponent().deletingLastPathComponent()
    let page = try String(contentsOf: root.appending(path: document), encoding: .utf8)
    let program = try String(contentsOf: tests.appending(path: example), encoding: .utf8)
    let block = try #require(page.firstRange(of: "```swift\n").map { page[$0.upperBound...] })
    let code = try #require(block.firstRange(of: "```").map { String(block[..<$0.lowerBound]) })
    let compiled = try #require(program.firstRange(of: "import PortalAuth\n").map { String(program[$0.lowerBound...]) })
    #expect(code == compiled, sourceLocation: sourceLocation)
}
