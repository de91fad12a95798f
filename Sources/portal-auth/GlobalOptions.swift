import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Options every subcommand takes, and what they mean: the CA bundle and the store in effect.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("A PEM file of CA certificates to trust (env PORTAL_AUTH_CA_BUNDLE).", valueName: "file"))
    var cacert: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where credentials are kept: keyring (default), file or memory (env PORTAL_AUTH_STORE).", valueName: "store"
        ))
    var store: String?

    @Flag(name: .shortAndLong, help: "Log what happens to stderr (repeat for more). Secrets are never logged.")
    var verbose: Int

    /// The CA bundle in effect.
    var caBundlePath: String? { Self.caBundlePath(cacert: cacert) }

    /// The CA bundle in effect with `--cacert` given or not.
    static func caBundlePath(cacert: String?) -> String? {
        cacert ?? environmentVariable("PORTAL_AUTH_CA_BUNDLE").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The store kind in effect and why it was chosen.
    func storeChoice() throws -> (kind: CredentialStorageKind, reason: String) { try Self.storeChoice(store: store) }

    /// The store kind in effect with `--store` given or not, and why it was chosen.
    static func storeChoice(store: String?) throws -> (kind: CredentialStorageKind, reason: String) {
        if let store {
            guard let kind = CredentialStorageKind(rawValue: store) else {
                throw PortalAuthError(.invalidArgument, "unknown store '\(store)': choose keyring, file or memory")
            }
            return (kind, "--store \(store)")
        }
        if let env = environmentVariable("PORTAL_AUTH_STORE"), !env.isEmpty {
            guard let kind = CredentialStorageKind(rawValue: env) else {
                throw PortalAuthError(
                    .invalidArgument, "unknown store '\(env)' in PORTAL_AUTH_STORE: choose keyring, file or memory")
            }
            return (kind, "PORTAL_AUTH_STORE=\(env)")
        }
        return (.keyring, "the default")
    }

    /// The transport configuration these options make (a command may raise its limits).
    var transportConfiguration: TransportConfiguration {
        TransportConfiguration(caBundlePath: caBundlePath)
    }
}
