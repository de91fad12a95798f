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
    func storeChoice() throws -> StoreChoice { try Self.storeChoice(store: store) }

    /// The store in effect, why it was chosen, and the headless store when it is that.
    typealias StoreChoice = (kind: CredentialStorageKind, reason: String, headless: HeadlessStore?)

    /// The store kind in effect with `--store` given or not, and why it was chosen: the keyring by
    /// default, or where no session bus is reachable, the headless store (a file under the state
    /// folder, or memory). A store the user chose is never replaced.
    static func storeChoice(store: String?) throws -> StoreChoice {
        if let store {
            guard let kind = CredentialStorageKind(rawValue: store) else {
                throw PortalAuthError(.invalidArgument, "unknown store '\(store)': choose keyring, file or memory")
            }
            return (kind, "--store \(store)", nil)
        }
        if let env = environmentVariable("PORTAL_AUTH_STORE"), !env.isEmpty {
            guard let kind = CredentialStorageKind(rawValue: env) else {
                throw PortalAuthError(
                    .invalidArgument, "unknown store '\(env)' in PORTAL_AUTH_STORE: choose keyring, file or memory")
            }
            return (kind, "PORTAL_AUTH_STORE=\(env)", nil)
        }
        guard HeadlessStore.sessionBusReachable else {
            let headless = HeadlessStore.choose()
            let kind: CredentialStorageKind = headless.path == nil ? .memory : .file
            return (kind, "the default where there is \(headless.reason)", headless)
        }
        return (.keyring, defaultReason, nil)
    }

    /// Why the keyring is in use when nobody chose a store.
    static let defaultReason = "the default"

    /// The backend of `choice`; the headless store says once on stderr which store it is and why.
    /// The keyring nobody chose gives way to the headless store when no Secret Service is on the
    /// bus (``DefaultStoreBackend``: decided by the keyring's own answers, nothing asked before).
    static func makeBackend(_ choice: StoreChoice) -> any CredentialStorageBackend {
        guard let headless = choice.headless else {
            guard choice.kind == .keyring, choice.reason == defaultReason else { return choice.kind.makeBackend() }
            return DefaultStoreBackend(fallingBack: announce)
        }
        announce(headless)
        return headless.makeBackend()
    }

    /// Says once on stderr (the first time here) which headless store is used and why.
    @Sendable static func announce(_ headless: HeadlessStore) {
        guard headless.isFirstUse() else { return }
        let store = headless.path.map { "the file store \($0)" } ?? "memory (nothing is kept)"
        printInfo(
            "portal-auth: using \(store) (\(headless.reason) for a keyring); choose a store with --store or "
                + "PORTAL_AUTH_STORE")
    }

    /// ``storeChoice()`` as it turns out: the keyring nobody chose is tried (one availability
    /// check) and, when no Secret Service is on the bus, the headless store is the answer. For
    /// `doctor`, which may spend the round trip that a command's choice never does.
    func probedStoreChoice() throws -> StoreChoice {
        let choice = try storeChoice()
        guard choice.kind == .keyring, choice.reason == Self.defaultReason else { return choice }
        let probe = DefaultStoreBackend(fallingBack: { _ in })
        try? probe.checkAvailable()
        guard let headless = probe.headlessStore else { return choice }
        return (headless.path == nil ? .memory : .file, "the default where there is \(headless.reason)", headless)
    }

    /// The transport configuration these options make (a command may raise its limits).
    var transportConfiguration: TransportConfiguration {
        TransportConfiguration(caBundlePath: caBundlePath)
    }
}
