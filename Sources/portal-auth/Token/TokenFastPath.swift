import PortalAuth
import PortalAuthEnvironment
import PortalAuthIAP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `portal-auth token URL` when the credential is stored and needs nothing done to it, answered
/// before the argument parser and the command tree are set up (most of the start-up time of the
/// command that scripts call most often).
///
/// It takes only `token URL` with `--format` and `--store` (any other command, option, `-v`, or no
/// URL goes to the full command untouched; a `--store` given before `token` has been moved after
/// it by ``GlobalOptionsAnywhere``, which leaves `token URL` as it is), and then does what ``Token`` does, in the same order
/// and through the same calls, up to reading the store: the manager, the URL, for every format
/// but plain the identity-aware proxy credentials (first whether there is any), the ArcGIS
/// credential of the URL's server context through the core's scope decision (for a federated
/// server token, also its portal's credential: whose token it is). In the keyring both answers come from its item index
/// once a lookup has made them: no search (gnome-keyring's looks at every item), one read of the
/// item where it was found, whatever the format; json of a password sign-in also asks whether its
/// password is remembered (``CredentialDecision/renewableUntil``), which the index answers too.
/// - A credential that is not within its renewal leeway of expiry, and no proxy credential for
///   the URL: it prints it as ``Token`` would.
/// - An error on the way (a bad URL or store name, a locked keyring, an unreadable item): it reports
///   it as ``Token`` would, so that a keyring prompt is not shown twice.
/// - Anything else — nothing stored, a token to renew or to federate, a federated server token of
///   a principal no longer active on its portal, an API key, a proxy credential — is the full command's: it prints nothing, changes nothing, and hands over.
///
/// `PORTAL_AUTH_NO_FAST_PATH` (any value but empty) turns it off, so the two can be compared;
/// `PORTAL_AUTH_FAST_PATH_MARK=FILE` (for tests) has it append a line to FILE when it answered.
enum TokenFastPath {
    /// A `token` command line the fast path takes.
    struct Request: Equatable {
        /// The URL argument.
        var url: String
        /// `--format` (plain when not given).
        var format: Token.Format
        /// `--store`, when given.
        var store: String?
    }

    /// Reads `arguments` (without the program name) as `token URL [--format F] [--store S]`, the
    /// options in any order, `--name value` or `--name=value`, each at most once; nil for any
    /// other command line, including every one the argument parser would refuse.
    static func parse(_ arguments: [String]) -> Request? {
        guard arguments.first == "token" else { return nil }
        var url: String?
        var format: Token.Format?
        var store: String?
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-") else {
                guard url == nil else { return nil }
                url = argument
                continue
            }
            let name: Substring
            let value: String
            if let equals = argument.firstIndex(of: "=") {
                name = argument[..<equals]
                value = String(argument[argument.index(after: equals)...])
            } else {
                guard let next = rest.popFirst() else { return nil }
                name = argument[...]
                value = next
            }
            switch name {
            case "--format":
                guard format == nil, let given = Token.Format(rawValue: value) else { return nil }
                format = given
            case "--store":
                guard store == nil, CredentialStorageKind(rawValue: value) != nil else { return nil }
                store = value
            default:
                return nil
            }
        }
        guard let url else { return nil }
        return Request(url: url, format: format ?? .plain, store: store)
    }

    /// Prints the token and returns true when `arguments` ask for one the fast path can give;
    /// reports the error and exits when it fails as ``Token`` would; returns false, having printed
    /// nothing, otherwise.
    static func answer(_ arguments: [String]) -> Bool {
        if let off = environmentVariable("PORTAL_AUTH_NO_FAST_PATH"), !off.isEmpty { return false }
        guard let request = parse(arguments) else { return false }
        // (A credential from the environment is the full command's: it signs in in memory.)
        if EnvironmentCredentials.anyVariableSet() { return false }
        // (So is a named account: the active one's is the single lookup here.)
        if AccountOption.fromEnvironment != nil { return false }
        do {
            // The two stores it reads, and nothing else of what a manager has (resolvers,
            // plugins, a transport): every page of code a start touches costs memory.
            let backend = GlobalOptions.makeBackend(try GlobalOptions.storeChoice(store: request.store))
            // (What the answer is read from is noted, so that the small program can give it again.)
            let book = KeyringAnswerBook.begin(backend)
            defer { book?.close() }
            let arcGIS = ArcGISCredentialStore(backend: backend)
            for type in GlobalOptions.storedArcGISCredentialTypes { arcGIS.register(type) }
            let iap = IAPCredentialStore(backend: backend)
            iap.register(IAPCredential.self)
            let url = try parseURL(request.url)
            // (Plain prints no IAP part. Where no IAP credential is stored at all, as for most
            // users, the keyring's item index says so, or one search without a session.)
            if request.format != .plain, try hasProxyCredential(for: url, in: iap) {
                return false
            }
            guard let credential = try readyStoredCredential(for: url, in: arcGIS) else {
                return false
            }
            // (json says until when it can be renewed: the decision's answer, with the unattended
            // renewal the full command registers; for a password sign-in only, whether its password
            // is kept, which the item index answers.)
            let renewableUntil =
                request.format == .json
                ? credential.lapse(renewingUnattendedWith: GlobalOptions.unattendedRenewal(backend: backend)) : nil
            // (Only stored credentials are answered here: with an environment variable set, the full command answers.)
            let source = StoredCredentialSource.sourceName
            Token.print(
                credential, proxy: nil, format: request.format, url: url, renewableUntil: renewableUntil, source: source
            )
            markAnswered()
            // (Plain with a referer says more on a terminal's stderr: kept for when it is not one.)
            book?.record(
                key: answerKey(url: request.url, format: request.format),
                output: Token.standardOutput(
                    credential, proxy: nil, format: request.format, url: url, renewableUntil: renewableUntil,
                    source: source),
                token: credential.tokenInfo.accessToken,
                validUntil: credential.tokenInfo.expirationDate?.addingTimeInterval(-credential.renewalLeeway),
                onlyWithoutTerminal: request.format == .plain && credential.referer != nil)
            return true
        } catch let error as PortalAuthError where error.code != .noCredential && error.code != .authenticationRequired
        {
            // (Those two ``Token`` answers with a proxy credential, when there is one.)
            exitProcess(report(error))
        } catch {
            return false
        }
    }

    /// What the small program (Sources/portal-auth-front, `TokenRequest.answerKey`) looks an answer
    /// up by: the URL argument and the format, exactly as given, in the keyring.
    static func answerKey(url: String, format: Token.Format) -> String {
        "token\u{0}\(url)\u{0}\(format.rawValue)\u{0}keyring"
    }

    /// Appends a line to the file `PORTAL_AUTH_FAST_PATH_MARK` names, when it names one, so that a
    /// test can tell that the fast path answered (one `getenv` after the answer, nothing else).
    static func markAnswered() {
        guard let path = getenv("PORTAL_AUTH_FAST_PATH_MARK"), path.pointee != 0 else { return }
        let file = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard file >= 0 else { return }
        _ = write(file, "answered\n", 9)
        close(file)
    }

    /// Whether a proxy credential applies to `url`. Where no proxy credential is stored at all, as
    /// for most users, one search without a session says so (the keyring answers it from its item
    /// index) instead of a read of every proxy credential.
    static func hasProxyCredential(for url: URL, in store: IAPCredentialStore) throws -> Bool {
        guard try store.backend.contains(CredentialQuery(store: IAPCredentialStore.storeName)) else { return false }
        return try store.storedCredential(for: url) != nil
    }

    /// The stored credential for `url` when ``Token`` would print it as it is: the core's scope
    /// decision from the store alone (``ArcGISCredentialStore/storedScopedCredential(for:)``: found,
    /// and for a federated server token, the token of the principal active on its portal) and not
    /// within its renewal leeway of expiry. `nil` otherwise (none stored, another principal's server
    /// token, or it needs renewal, federation or a sign-in: the full command's business). Blocks the
    /// calling thread.
    static func readyStoredCredential(
        for url: URL, in store: ArcGISCredentialStore
    ) throws -> (any ArcGISCredential)? {
        guard let stored = try store.storedScopedCredential(for: url)?.credential,
            !stored.tokenInfo.expires(within: stored.renewalLeeway)
        else { return nil }
        return stored
    }
}
