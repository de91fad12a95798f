import Foundation
public import Logging
import NIOConcurrencyHelpers
public import PortalEmulator

// Scoped helpers in hummingbird's style: each starts something, runs `body`, and stops it,
// awaited, whether `body` returns or throws. Nothing a test starts outlives it.

/// Runs `body` with `resource`, then awaits `release(resource)` whether `body` returns or throws.
@discardableResult
public func withResource<R, T>(
    _ resource: R, release: (R) async -> Void, _ body: (R) async throws -> T
) async throws -> T {
    let result: T
    do {
        result = try await body(resource)
    } catch {
        await release(resource)
        throw error
    }
    await release(resource)
    return result
}

/// Starts an emulator with `configuration`, runs `body`, and shuts the emulator down, awaited.
/// A failed shutdown fails the test unless `body` already threw.
@discardableResult
public func withEmulator<T>(
    _ configuration: EmulatorConfiguration = .default, logger: Logger? = nil,
    _ body: (PortalEmulator) async throws -> T
) async throws -> T {
    let emulator = try await PortalEmulator.start(configuration, logger: logger)
    let result: T
    do {
        result = try await body(emulator)
    } catch {
        try? await emulator.shutdown()
        throw error
    }
    try await emulator.shutdown()
    return result
}

/// ``withEmulator(_:logger:_:)`` with the default configuration changed by `configure`.
@discardableResult
public func withEmulator<T>(
    configuring configure: (inout EmulatorConfiguration) -> Void, _ body: (PortalEmulator) async throws -> T
) async throws -> T {
    var configuration = EmulatorConfiguration.default
    configure(&configuration)
    return try await withEmulator(configuration, body)
}

/// Creates a private (0700) folder under the temporary directory, runs `body` with its path,
/// and removes the folder and everything in it.
@discardableResult
public func withTemporaryDirectory<T>(
    _ prefix: String = "pa-test", _ body: (String) async throws -> T
) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return try await withResource(path, release: { try? FileManager.default.removeItem(atPath: $0) }, body)
}

/// Starts `executable` as a ``ChildProcess``, runs `body`, and stops and reaps the child.
@discardableResult
public func withChildProcess<T>(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, stderrPath: String? = nil,
    _ body: (ChildProcess) async throws -> T
) async throws -> T {
    let child = try ChildProcess(executable, arguments, environment: environment, stderrPath: stderrPath)
    return try await withResource(child, release: { _ = await $0.stop() }, body)
}

/// Collects log lines ("message key=value ...", keys sorted) in memory.
public final class LogCollector: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    /// Creates an empty collector.
    public init() {}

    /// Every line so far.
    public var all: [String] { lines.withLockedValue { $0 } }

    /// Every line so far, one a line.
    public var text: String { all.joined(separator: "\n") }

    /// A logger writing here at `level`.
    public func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test") { _ in CollectingHandler(collector: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: String) { lines.withLockedValue { $0.append(line) } }
}

private struct CollectingHandler: LogHandler {
    let collector: LogCollector
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let pairs = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        collector.append("\(event.message) \(pairs)")
    }
}
