#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The storage backends a user can choose (by name: `keyring`, `file`, `memory`).
public enum CredentialStorageKind: String, CaseIterable, Sendable {
    /// The desktop keyring (default).
    case keyring
    /// A 0600 JSON file (opt-in).
    case file
    /// Memory (nothing persists).
    case memory

    /// A new backend of this kind.
    public func makeBackend() -> any CredentialStorageBackend {
        switch self {
        case .keyring: return KeyringCredentialBackend()
        case .file: return FileCredentialBackend()
        case .memory: return MemoryCredentialBackend()
        }
    }
}
