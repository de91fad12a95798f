import Logging
import PortalAuth

/// What `-v` makes: swift-log's handlers, on stderr, once per process.
extension GlobalOptions {
    /// Whether ``bootstrapLogging(verbose:)`` ran: swift-log allows one bootstrap per process,
    /// and a command that the `token` fast path hands on makes its manager a second time.
    private static let loggingBootstrapped = Locked(false)

    /// Logs to stderr at the level `-v` asks for; once per process. Without `-v` nothing is logged:
    /// no raw log line comes between the user and the answer (what a user must know, the command
    /// says in a sentence of its own; the library's warnings, such as a token service on another
    /// host being ignored, show with `-v`).
    static func bootstrapLogging(verbose: Int) {
        guard
            loggingBootstrapped.withLock({ done in
                defer { done = true }; return !done
            })
        else { return }
        let level: Logger.Level = verbose >= 2 ? .trace : (verbose == 1 ? .debug : .critical)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
