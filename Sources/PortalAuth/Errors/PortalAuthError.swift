#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The one error type of portal-auth.
///
/// Every error carries a stable ``Code`` (for programs), a one-line ``message`` that says what
/// happened and why (for people), a structured ``Remedy`` that says what to do in the library's
/// terms (a program or a command-line tool turns it into its own advice: the `portal-auth` CLI
/// names the command to run), the ``Cause`` underneath it (a libcurl code, a GLib `GError`, an
/// ArcGIS error body, an HTTP status), and the source location that raised it. No message ever
/// contains a secret, a command or a command-line option.
///
/// Two errors are equal when their code and remedy are: the prose, the cause and the location
/// may change without changing what a program should do about the error.
public struct PortalAuthError: Error, Sendable, CustomStringConvertible, Hashable {
    /// A stable, machine-readable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case invalidArgument, invalidURL, invalidConfiguration
            case hostNotFound, connectionFailed, timedOut, tlsFailure, untrustedServer
            case httpError, invalidResponse, responseTooLarge, arcGISError
            case authenticationRequired, authenticationFailed, invalidToken, noCredential
            case credentialExpired, cancelled, insecureTransport, notFederated
            case keyringUnavailable, keyringLocked, storeFailure, secretMissing
            case libraryUnavailable, internalError
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A bad argument or input given by the caller (for example an empty password on stdin).
        public static let invalidArgument = Code(.invalidArgument)
        /// A URL that cannot be used (no scheme, no host, or not http/https).
        public static let invalidURL = Code(.invalidURL)
        /// A configuration file or value that does not validate.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The host name does not resolve.
        public static let hostNotFound = Code(.hostNotFound)
        /// The TCP connection was refused, reset or could not be made.
        public static let connectionFailed = Code(.connectionFailed)
        /// The request did not finish in time.
        public static let timedOut = Code(.timedOut)
        /// The server sent more than a limit allows (the body's maximum response size, or its
        /// header lines and bytes); the transfer was stopped there.
        public static let responseTooLarge = Code(.responseTooLarge)
        /// The TLS handshake failed for a reason other than trust.
        public static let tlsFailure = Code(.tlsFailure)
        /// The server's certificate does not verify against the trusted CAs.
        public static let untrustedServer = Code(.untrustedServer)
        /// The server answered with an HTTP error status (for example 500).
        public static let httpError = Code(.httpError)
        /// The body was not what the protocol promises (HTML or garbage instead of JSON).
        public static let invalidResponse = Code(.invalidResponse)
        /// ArcGIS answered with an error body that is not an authentication challenge.
        public static let arcGISError = Code(.arcGISError)
        /// The resource needs a credential and none could be obtained without asking.
        public static let authenticationRequired = Code(.authenticationRequired)
        /// The server refused the username and password (or other secret) given.
        public static let authenticationFailed = Code(.authenticationFailed)
        /// A token was rejected right after it was issued (no second attempt is made).
        public static let invalidToken = Code(.invalidToken)
        /// No stored credential matches the request.
        public static let noCredential = Code(.noCredential)
        /// The credential expired and cannot be renewed without the user.
        public static let credentialExpired = Code(.credentialExpired)
        /// A challenge handler or the user cancelled.
        public static let cancelled = Code(.cancelled)
        /// A token that requires HTTPS would have been sent over plain HTTP.
        public static let insecureTransport = Code(.insecureTransport)
        /// An ArcGIS Server is not federated with the portal the user signed in to.
        public static let notFederated = Code(.notFederated)
        /// The Secret Service (desktop keyring) cannot be reached.
        public static let keyringUnavailable = Code(.keyringUnavailable)
        /// The keyring collection is locked.
        public static let keyringLocked = Code(.keyringLocked)
        /// A credential store could not be read or written.
        public static let storeFailure = Code(.storeFailure)
        /// A required secret (password, token) was not supplied.
        public static let secretMissing = Code(.secretMissing)
        /// A shared library (libcurl, libcrypto) could not be loaded.
        public static let libraryUnavailable = Code(.libraryUnavailable)
        /// A bug in portal-auth.
        public static let internalError = Code(.internalError)

        /// The code's stable name, for example `authenticationFailed`.
        public var description: String { base.rawValue }
    }

    /// What lies underneath an error, for library users who want the raw cause.
    public enum Cause: Sendable, Equatable, CustomStringConvertible {
        /// A libcurl `CURLcode` and its text.
        case curl(code: Int32, message: String)
        /// A GLib `GError` (libsecret, D-Bus).
        case gError(domain: String, code: Int32, message: String)
        /// An ArcGIS JSON error body.
        case arcGIS(code: Int, messageCode: String?, message: String, details: [String])
        /// An HTTP status with no ArcGIS body.
        case httpStatus(Int)
        /// An OAuth or OpenID error (`error`, `error_description`).
        case oauth(error: String, description: String?)
        /// A POSIX `errno`.
        case posix(code: Int32, message: String)
        /// An OpenSSL error string.
        case openSSL(message: String)
        /// Anything else, described in words.
        case other(String)

        /// A short human-readable form of the cause.
        public var description: String {
            switch self {
            case .curl(let code, let message): return "CURLcode \(code): \(message)"
            case .gError(let domain, let code, let message): return "GError \(domain) \(code): \(message)"
            case .arcGIS(let code, let messageCode, let message, let details):
                var s = "ArcGIS error \(code)"
                if let messageCode { s += " (\(messageCode))" }
                s += ": \(message)"
                if !details.isEmpty { s += " [" + details.joined(separator: "; ") + "]" }
                return s
            case .httpStatus(let status): return "HTTP \(status)"
            case .oauth(let error, let description): return description.map { "\(error): \($0)" } ?? error
            case .posix(let code, let message): return "errno \(code): \(message)"
            case .openSSL(let message): return "OpenSSL: \(message)"
            case .other(let text): return text
            }
        }
    }

    /// The stable code.
    public var code: Code
    /// One line: what happened and why (what to do is in ``remedy``).
    public var message: String
    /// What to do about the error.
    public var remedy: Remedy
    /// The underlying cause, when there is one.
    public var cause: Cause?
    /// The source file that raised the error.
    public var file: String
    /// The source line that raised the error.
    public var line: UInt

    /// Creates an error with a remedy.
    public init(
        _ code: Code, _ message: String, remedy: Remedy, cause: Cause? = nil, file: String = #fileID,
        line: UInt = #line
    ) {
        self.code = code
        self.message = message
        self.remedy = remedy
        self.cause = cause
        self.file = file
        self.line = line
    }

    /// Creates an error whose message says what to do in prose, with no structured remedy
    /// (``Remedy/none``).
    ///
    /// Kept for the error sites not converted yet (the transport, certificates, stores, the
    /// browser sign-in and some plugins; the manager's sites all give one); to be removed once
    /// every site gives a remedy.
    public init(_ code: Code, _ message: String, cause: Cause? = nil, file: String = #fileID, line: UInt = #line) {
        self.init(code, message, remedy: .none, cause: cause, file: file, line: line)
    }

    /// The message followed by the remedy in the library's words.
    public var description: String {
        remedy == .none ? message : "\(message): \(remedy)"
    }

    /// The description followed by the code, the cause and the location, for verbose output and logs.
    public var detailedDescription: String {
        var s = "\(description) [\(code)]"
        if let cause { s += " (\(cause))" }
        return s + " at \(file):\(line)"
    }

    /// Two errors are equal when their code and remedy are (the message, cause and location are ignored).
    public static func == (lhs: PortalAuthError, rhs: PortalAuthError) -> Bool {
        lhs.code == rhs.code && lhs.remedy == rhs.remedy
    }

    /// Hashes the code and the remedy, as ``==`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(remedy)
    }
}

extension PortalAuthError {
    /// What to do about an error, in the library's terms: each case carries what a program needs
    /// to act on it, or a command-line tool to name the command to run.
    public enum Remedy: Hashable, Sendable, CustomStringConvertible {
        /// Nothing to do beyond what the message says.
        case none
        /// Sign in (again): to a server context, or to an identity-aware proxy.
        case signIn(SignIn)
        /// Give a user name and password for the HTTP authentication (Basic, Digest, NTLM,
        /// Negotiate) of the host that serves `url`.
        case provideHTTPPassword(url: URL)
        /// Give a client certificate (PKCS#12) for `host:port`.
        case provideClientCertificate(host: String, port: Int)
        /// Trust the server's certificate: give the CA that issued it, or trust the certificate itself.
        case trustServer(host: String, port: Int)
        /// The certificate (or pinned key) of a trusted server changed: if that is expected,
        /// remove the old trust and trust the server again.
        case trustServerAgain(host: String, port: Int)
        /// Give a readable CA bundle in place of the one at `path`.
        case provideCABundle(path: String)
        /// Give a missing or empty piece of input.
        case provide(Input)
        /// Send the request to the server's https URL (`url` is the plain http one).
        case useHTTPS(url: URL)
        /// Use the host's https URL, or allow HTTP Basic over plain http explicitly
        /// (``TransportOptions`` and ``NetworkCredential`` callers decide).
        case allowBasicOverHTTP(host: ServerContext)
        /// Fix a configuration file or value (`key` names the key, when one is at fault).
        case fixConfiguration(file: String?, key: String?)
        /// Store a new API key for `portal` (the one presented expired or was invalidated).
        case storeAPIKey(portal: ServerContext)
        /// Fix the environment variables a program read a credential or setting from (`variables`
        /// names them, as the program reads them), or unset them.
        case fixEnvironment(variables: [String])
        /// Remove a stored credential that cannot be read (`server` is its `server` attribute).
        case removeStoredCredential(server: String)
        /// Open the sign-in page in a browser yourself (no browser could be started).
        case openSignInPageYourself
        /// A limit was reached: raise it above `value` if the server is trusted to send more.
        case raiseLimit(Limit, value: Int)
        /// Start a D-Bus session bus (or choose another credential store).
        case startSessionBus
        /// Start a Secret Service on the session bus (or choose another credential store).
        case startSecretService
        /// Unlock the keyring's default collection (or choose another credential store).
        case unlockKeyring
        /// Check the credential store's health.
        case checkCredentialStore
        /// Check the URL (the server does not serve it).
        case checkURL
        /// The server is failing: try again later.
        case retryLater
        /// A shared library could not be loaded: install the system package that has it
        /// (`package` is its Debian and Ubuntu name, for example `libcurl4`).
        case installLibrary(package: String)
        /// The network cannot reach the server: check the connection, the DNS and the proxy
        /// settings (`https_proxy`, `http_proxy`, `no_proxy`).
        case checkNetwork
        /// The folder at `path`, where portal-auth keeps private files (lock files, the credentials
        /// file), belongs to another user: remove it if it is not yours, or use a folder of your own
        /// (for lock files, a private `XDG_RUNTIME_DIR`, or `XDG_CACHE_HOME`).
        case useOwnFolder(path: String)
        /// The file or folder at `path` is this user's but others may read or change it: take
        /// their access away.
        case makePrivate(path: String)
        /// The file at `path` cannot be read as what it should be: move it aside (keep it if it
        /// matters) so a new one is made.
        case moveAside(path: String)
        /// Another process has held the lock file at `path` for long: if no portal-auth process is
        /// running (one was killed while holding it), remove the file.
        case removeStaleLock(path: String)
        /// The server (or identity provider) `server` sent something no correct server sends:
        /// nothing on this side fixes it; report it to that server's administrator.
        case reportToAdministrator(server: String)
        /// A token from `server` had expired when it arrived: check this machine's clock and the
        /// server's, then sign in again.
        case checkClock(server: String)
        /// The OAuth sign-in at `server` failed for a reason of the app's registration: check the
        /// client ID, the redirect URLs registered for the app, and that it allows user sign-in.
        case checkAppRegistration(server: String)
        /// The sign-in cannot go on (its answer was lost or did not belong to it): start it over.
        case startOver
        /// The loopback redirect `port` on 127.0.0.1 is in use: stop what listens there, or
        /// register and use another redirect port.
        case freePort(Int)
        /// No Kerberos ticket could be obtained for `principal`: check the user name and the
        /// Kerberos configuration (krb5.conf), or get a ticket first.
        case checkKerberos(principal: String)
        /// A file could not be made in the folder at `path`: check that it exists and that this
        /// user may write in it.
        case checkPermissions(path: String)
        /// The secret file at `path` breaks one of the rules a file holding a secret follows
        /// (``SecretFile``): `problem` says which.
        case fixSecretFile(path: String, problem: SecretFileProblem)

        /// The remedy in the library's words, for programs that show errors to people as they are.
        public var description: String {
            switch self {
            case .none: return "no remedy"
            case .signIn(let signIn): return "sign in \(signIn)"
            case .provideHTTPPassword(let url):
                return "give a user name and password for \(ServerContext.describe(url))"
            case .provideClientCertificate(let host, let port): return "give a client certificate for \(host):\(port)"
            case .trustServer(let host, let port): return "trust the CA of \(host):\(port), or its certificate"
            case .trustServerAgain(let host, let port):
                return "if the change is expected, remove the trust in \(host):\(port) and trust it again"
            case .provideCABundle(let path): return "give a readable CA bundle in place of \(path)"
            case .provide(let input): return "give \(input)"
            case .useHTTPS(let url): return "use the https URL of \(ServerContext.describe(url))"
            case .allowBasicOverHTTP(let host):
                return "use the https URL of \(host.host):\(host.port), or allow Basic over http explicitly"
            case .fixConfiguration(let file, let key):
                return "fix " + [key.map { "\"\($0)\"" }, file].compactMap { $0 }.joined(separator: " in ")
            case .storeAPIKey(let portal): return "store a new API key for \(portal)"
            case .fixEnvironment(let variables):
                return "fix the environment variables " + variables.joined(separator: " and ")
            case .removeStoredCredential(let server): return "remove the stored credential for \(server)"
            case .openSignInPageYourself: return "open the sign-in page in a browser yourself"
            case .raiseLimit(let limit, let value): return "raise the \(limit) above \(value)"
            case .startSessionBus: return "start a D-Bus session bus, or use another credential store"
            case .startSecretService: return "start a Secret Service, or use another credential store"
            case .unlockKeyring: return "unlock the keyring, or use another credential store"
            case .checkCredentialStore: return "check the credential store"
            case .checkURL: return "check the URL"
            case .retryLater: return "try again later"
            case .installLibrary(let package): return "install the \(package) package"
            case .checkNetwork: return "check the network, the DNS and the proxy settings"
            case .useOwnFolder(let path): return "remove \(path) if it is not yours, or use a folder of your own"
            case .makePrivate(let path): return "take other users' access to \(path) away"
            case .moveAside(let path): return "move \(path) aside"
            case .removeStaleLock(let path): return "if no portal-auth process is running, remove \(path)"
            case .reportToAdministrator(let server): return "report it to the administrator of \(server)"
            case .checkClock(let server): return "check the clocks of this machine and of \(server), then sign in again"
            case .checkAppRegistration(let server):
                return "check the app's client ID and redirect URLs registered at \(server), and that it allows sign-in"
            case .startOver: return "start the sign-in over"
            case .freePort(let port): return "stop what listens on 127.0.0.1:\(port), or register another redirect port"
            case .checkKerberos(let principal):
                return "check the user name \(principal) and the Kerberos configuration, or get a ticket first"
            case .checkPermissions(let path): return "check that \(path) exists and this user may write in it"
            case .fixSecretFile(let path, let problem): return problem.remedy(path: path)
            }
        }
    }

    /// What signing in again takes: the kind of credential to make and what it is for, so a
    /// program (or the CLI) can start the right sign-in. A credential gives its own through
    /// ``ArcGISCredential/howToSignIn`` or ``IAPAuthorizationCredential/howToSignIn``.
    public struct SignIn: Hashable, Sendable, CustomStringConvertible {
        /// The credential kind to sign in with (``StorableCredential/kind``, for example `token` or `iap`).
        public var kind: String
        /// The server context to sign in to (nil for an identity-aware proxy, which spans hosts).
        public var serverContext: ServerContext?
        /// The user name, when known.
        public var username: String?
        /// The OAuth client ID, for OAuth kinds.
        public var clientID: String?
        /// The configuration file the credential was made from, when known.
        public var configurationFile: String?

        /// Creates a sign-in description.
        public init(
            kind: String, serverContext: ServerContext? = nil, username: String? = nil, clientID: String? = nil,
            configurationFile: String? = nil
        ) {
            self.kind = kind
            self.serverContext = serverContext
            self.username = username
            self.clientID = clientID
            self.configurationFile = configurationFile
        }

        /// A username/password (`token`) sign-in to `serverContext`, the default.
        public static func token(_ serverContext: ServerContext, username: String? = nil) -> SignIn {
            SignIn(kind: "token", serverContext: serverContext, username: username)
        }

        /// A sign-in to the identity-aware proxy described by `configurationFile` (when known).
        public static func identityAwareProxy(configurationFile: String? = nil) -> SignIn {
            SignIn(kind: "iap", configurationFile: configurationFile)
        }

        /// For example `to https://host/portal as alice (token)`.
        public var description: String {
            var s = serverContext.map { "to \($0)" } ?? "to the identity-aware proxy"
            if let username { s += " as \(username)" }
            if let clientID { s += " with client ID \(clientID)" }
            if let configurationFile { s += " from \(configurationFile)" }
            return s + " (\(kind))"
        }
    }

    /// A piece of input the caller must give.
    public enum Input: String, Hashable, Sendable, CustomStringConvertible {
        /// A user name.
        case username
        /// A password.
        case password
        /// A token (a pregenerated ArcGIS token).
        case token
        /// A token's lifetime in seconds (a positive number).
        case tokenLifetime = "token lifetime"
        /// An ArcGIS API key.
        case apiKey = "API key"
        /// An OAuth client ID.
        case clientID = "client ID"
        /// An OAuth client secret.
        case clientSecret = "client secret"
        /// The referer a token is bound to (one line, not empty; none binds the token to this
        /// machine's IP address).
        case referer

        /// The input's name, for example `client ID`.
        public var description: String { rawValue }
    }

    /// A limit the library keeps on what it waits for or accepts.
    public enum Limit: String, Hashable, Sendable, CustomStringConvertible {
        /// How long a browser sign-in may take, in seconds.
        case signInTimeout = "sign-in time-out"
        /// How long one request may take, in seconds.
        case requestTimeout = "request time-out"
        /// The size of a response body, in bytes (after decompression).
        case responseSize = "maximum response size"

        /// The limit's name, for example `maximum response size`.
        public var description: String { rawValue }
    }
}
