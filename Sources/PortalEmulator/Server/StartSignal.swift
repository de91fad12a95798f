import NIOConcurrencyHelpers

/// A one-shot rendezvous between a listener's task and `start`: the bound port, or the
/// error that kept the listener from binding.
final class StartSignal: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<Int, any Error>)
        case done(Result<Int, any Error>)
    }

    private let state = NIOLockedValueBox<State>(.pending)

    /// Reports the bound port (the first report wins).
    func succeed(_ port: Int) { finish(.success(port)) }

    /// Reports a failure (ignored after the first report).
    func fail(_ error: any Error) { finish(.failure(error)) }

    /// Waits for the first report.
    func wait() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int, any Error>? = state.withLockedValue { state in
                switch state {
                case .done(let result): return result
                case .pending:
                    state = .waiting(continuation)
                    return nil
                case .waiting:
                    preconditionFailure("StartSignal.wait called twice")
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    private func finish(_ result: Result<Int, any Error>) {
        let continuation: CheckedContinuation<Int, any Error>? = state.withLockedValue { state in
            switch state {
            case .pending:
                state = .done(result)
                return nil
            case .waiting(let continuation):
                state = .done(result)
                return continuation
            case .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}
