/// Runs scopes one at a time, in the order they asked: an async lock for tests that share
/// something one of them changes (the web tier's rotating certificate, say).
public actor AsyncExclusive {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// An unheld lock.
    public init() {}

    /// Runs `body` once no other scope of this lock runs, and lets the next one in when it ends.
    public func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if held {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            held = true
        }
        defer {
            if waiting.isEmpty { held = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
