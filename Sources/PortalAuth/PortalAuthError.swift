#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The one error type of portal-auth.
///
/// Every error carries a stable ``Code`` (for programs), a one-line ``message`` that says what
/// happened, why, and what to do (for people), the ``Cause`` underneath it (a libcurl code, a
/// GLib `GError`, an ArcGIS error body, an HTTP status), and the source location that raised it.
/// No message ever contains a secret.
public struct PortalAuthError: Error, Sendable, CustomStringConvertible, Equatable {
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
    /// One line: what happened, why, and what to do.
    public var message: String
    /// The underlying cause, when there is one.
    public var cause: Cause?
    /// The source file that raised the error.
    public var file: String
    /// The source line that raised the error.
    public var line: UInt

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: Cause? = nil, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.message = message
        self.cause = cause
        self.file = file
        self.line = line
    }

    /// The message, as a CLI prints it.
    public var description: String { message }

    /// The message followed by the cause, for verbose output and logs.
    public var detailedDescription: String {
        var s = "\(message) [\(code)]"
        if let cause { s += " (\(cause))" }
        return s + " at \(file):\(line)"
    }

    /// Two errors are equal when their code, message and cause are (the location is ignored).
    public static func == (lhs: PortalAuthError, rhs: PortalAuthError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.cause == rhs.cause
    }
}
