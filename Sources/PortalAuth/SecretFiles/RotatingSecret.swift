import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A secret the environment supplies, kept as last read and read again from its file when the
/// file has changed: a Kubernetes `..data` swap, a rename by Vault Agent, an edit in place.
///
/// Asking whether it changed costs one `stat` of the file; the file is read only when its
/// ``SecretFileStamp`` differs from the last reading's. An edit in place (the same file, written
/// again) is read once it has been left alone for ``settleTime``, so a writer caught between two
/// writes is not read half-way; a new file swapped or renamed in was whole before it appeared and
/// is read at once. A secret from a variable never changes.
public final class RotatingSecret: Sendable {
    /// How long an edit in place must have been left alone before it is read, in nanoseconds.
    public static let settleTime: Int64 = 500_000_000

    /// Where the secret comes from.
    public let origin: EnvironmentSecretOrigin
    private let resolver: EnvironmentSecretResolver
    private let state: Mutex<(secret: String, stamp: SecretFileStamp?)>
    /// The stamp of a rotated file that was refused, and why: not read again until it changes.
    private let refused = Mutex<(stamp: SecretFileStamp, error: PortalAuthError)?>(nil)

    /// Reads the secret `origin` supplies now (refused as ``SecretFile`` refuses a file).
    public init(origin: EnvironmentSecretOrigin, resolver: EnvironmentSecretResolver = .process) throws {
        self.origin = origin
        self.resolver = resolver
        if let file = origin.secretFile {
            let reading = try file.read()
            state = Mutex((reading.secret, reading.stamp))
        } else {
            state = Mutex((try resolver.secret(from: origin), nil))
        }
    }

    /// The secret as last read.
    public var secret: String { state.withLock { $0.secret } }

    /// Reads the file again if it changed since the last reading, and says whether the secret
    /// did. `now` is the wall clock in nanoseconds since the epoch (a test gives its own). A file
    /// that is gone for a moment (between a rename and the next) keeps the last secret; a new file
    /// that breaks a rule throws, and the last secret stays (the same file is not read again until
    /// it changes: asked again, it throws the same refusal).
    @discardableResult
    public func refresh(now: Int64 = RotatingSecret.wallClock()) throws -> Bool {
        guard let file = origin.secretFile else { return false }
        let last = state.withLock { $0.stamp }
        guard let stamp = SecretFileStamp.of(file.path), stamp != last else { return false }
        // (Subtracted with overflow reported: a file time before 1970 against `.max` is settled.)
        let age = now.subtractingReportingOverflow(max(stamp.modified, stamp.changed))
        if let last, stamp.isSameFile(as: last), !age.overflow, age.partialValue < Self.settleTime {
            return false
        }
        if let known = refused.withLock({ $0 }), known.stamp == stamp { throw known.error }
        let reading: SecretFile.Reading
        do { reading = try file.read() } catch let error as PortalAuthError {
            refused.withLock { $0 = (stamp, error) }
            throw error
        }
        return state.withLock { state in
            let changed = state.secret != reading.secret
            state = (reading.secret, reading.stamp)
            return changed
        }
    }

    /// The wall clock, in nanoseconds since the epoch (what file times are measured in).
    public static func wallClock() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
