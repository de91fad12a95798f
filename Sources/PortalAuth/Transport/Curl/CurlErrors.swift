internal import CPortalAuth
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// CURLcode → PortalAuthError, with the host and port and what to do.
enum CurlErrors {
    /// The codes of a server certificate that does not verify (51 is what libcurl before 7.62 used).
    static let untrusted: [CURLcode] = [CURLE_PEER_FAILED_VERIFICATION, CURLE_OBSOLETE51]
    /// The connection ended early: nothing, or not all, of the answer came.
    static let closedEarly: [CURLcode] = [CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR]
    /// The codes a failed TLS handshake ends with, a client certificate demand among them.
    static let handshakeFailures: [CURLcode] = [
        CURLE_SSL_CONNECT_ERROR, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
        CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS,
        CURLE_SSL_CLIENTCERT,
    ]

    /// Why a certificate did not verify, from libcurl's (OpenSSL's) words.
    static func trustFailure(_ text: String) -> ServerTrustFailure {
        let lower = text.lowercased()
        // A self-signed root in the chain is a CA nobody here trusts, not a self-signed server.
        if lower.contains("in certificate chain") { return .unknownCA }
        if lower.contains("self-signed") || lower.contains("self signed") { return .selfSigned }
        if lower.contains("expired") || lower.contains("not yet valid") { return .expired }
        if lower.contains("subject name") || lower.contains("does not match") || lower.contains("no alternative") {
            return .wrongHost
        }
        if lower.contains("issuer") || lower.contains("unknown ca") { return .unknownCA }
        return .other
    }

    /// Why a connection could not be made, from the errno libcurl saw (`CURLINFO_OS_ERRNO`; 0
    /// when unknown, then from libcurl's words): a refusal (nothing listens), an unreachable host
    /// or network, or no answer at all; with the remedy that fits.
    static func connectFailure(osErrno: Int, text: String, place: String) -> (String, PortalAuthError.Remedy) {
        let lower = text.lowercased()
        if osErrno == Int(ECONNREFUSED) || (osErrno == 0 && lower.contains("refused")) {
            return (
                "could not connect to \(place) (connection refused): no server listens there, or it is not running",
                .checkURL
            )
        }
        if osErrno == Int(EHOSTUNREACH) || (osErrno == 0 && lower.contains("no route to host")) {
            return (
                "could not connect to \(place) (host unreachable): the host is down, or a firewall turns the "
                    + "connection away",
                .checkNetwork
            )
        }
        if osErrno == Int(ENETUNREACH) || (osErrno == 0 && lower.contains("network is unreachable")) {
            return (
                "could not connect to \(place) (network unreachable): this machine has no route to that network",
                .checkNetwork
            )
        }
        if osErrno == Int(ETIMEDOUT) || (osErrno == 0 && lower.contains("timed out")) {
            return (
                "could not connect to \(place) (no answer: the connection attempt timed out): the host may be down, or "
                    + "a firewall drops the connection",
                .checkNetwork
            )
        }
        let why = osErrno != 0 ? String(cString: strerror(Int32(truncatingIfNeeded: osErrno))) : text
        return ("could not connect to \(place)\(why.isEmpty ? "" : " (\(why))")", .checkNetwork)
    }

    static func error(
        code number: Int32, text: String, host: String, port: Int, limits: TransferLimits? = nil, osErrno: Int = 0
    ) -> any Error {
        let cause = PortalAuthError.Cause.curl(code: number, message: text)
        let place = "\(host):\(port)"
        let lower = text.lowercased()
        let code = CURLcode(rawValue: UInt32(bitPattern: number))
        switch code {
        case CURLE_URL_MALFORMAT:
            return PortalAuthError(
                .invalidURL, "libcurl cannot parse the URL for \(place)", remedy: .checkURL, cause: cause)
        case CURLE_COULDNT_RESOLVE_PROXY:
            return PortalAuthError(
                .hostNotFound, "cannot resolve the proxy (https_proxy or http_proxy) for \(place)",
                remedy: .checkNetwork, cause: cause)
        case CURLE_COULDNT_RESOLVE_HOST:
            return PortalAuthError(
                .hostNotFound, "cannot resolve host '\(host)': no such name, or the DNS cannot be reached",
                remedy: .checkURL, cause: cause)
        case CURLE_COULDNT_CONNECT:
            let (message, remedy) = connectFailure(osErrno: osErrno, text: text, place: place)
            return PortalAuthError(.connectionFailed, message, remedy: remedy, cause: cause)
        case CURLE_OUT_OF_MEMORY, CURLcode(rawValue: 100):
            // libcurl stops a header line over CURL_MAX_HTTP_HEADER with CURLE_OUT_OF_MEMORY (7.x)
            // or CURLE_TOO_LARGE (8.6 and later), and says no more.
            return PortalAuthError(
                .responseTooLarge,
                "the answer from \(place) was stopped by libcurl's limits: a response header line over its limit of "
                    + "100 KiB a line (or no memory left)",
                remedy: .none, cause: cause)
        case CURLE_OPERATION_TIMEDOUT:
            guard let limits else {
                return PortalAuthError(
                    .timedOut, "\(place) did not answer in time", remedy: .retryLater, cause: cause)
            }
            return limits.timedOut(text: text, place: place, cause: cause)
        case _
        where closedEarly.contains(code) && !(lower.contains("certificate required") || lower.contains("alert")):
            return PortalAuthError(
                .connectionFailed,
                "the connection to \(place) was closed or reset before a full answer (the server or the network is "
                    + "failing)",
                remedy: .retryLater, cause: cause)
        default:
            return tlsError(code, text: text, host: host, port: port, cause: cause)
                ?? PortalAuthError(
                    .connectionFailed,
                    "the request to \(place) failed (\(text.isEmpty ? "CURLcode \(number)" : text))", cause: cause)
        }
    }

    /// The error of a TLS failure (an untrusted or changed server certificate, a client
    /// certificate asked for or refused, a failed handshake), or nil for any other code.
    private static func tlsError(
        _ code: CURLcode, text: String, host: String, port: Int, cause: PortalAuthError.Cause
    ) -> (any Error)? {
        let place = "\(host):\(port)"
        let lower = text.lowercased()
        switch code {
        case _ where untrusted.contains(code):
            let reason = trustFailure(text)
            let error = PortalAuthError(
                .untrustedServer,
                "the certificate of \(place) is not trusted (\(reason.rawValue))",
                remedy: .trustServer(host: host, port: port), cause: cause)
            return TransportChallengeError(
                challenge: .serverTrust(host: host, port: port, reason: reason, message: text), error: error)
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            let error = PortalAuthError(
                .untrustedServer,
                "the public key of \(place) does not match the pinned key: the server's certificate changed",
                remedy: .trustServerAgain(host: host, port: port), cause: cause)
            return TransportChallengeError(
                challenge: .serverTrust(host: host, port: port, reason: .pinMismatch, message: text), error: error)
        case _ where handshakeFailures.contains(code):
            if lower.contains("certificate required") || lower.contains("alert handshake failure")
                || lower.contains("alert bad certificate")
            {
                let error = PortalAuthError(
                    .tlsFailure,
                    "\(place) requires a client certificate",
                    remedy: .provideClientCertificate(host: host, port: port), cause: cause)
                return TransportChallengeError(
                    challenge: .clientCertificate(host: host, port: port, message: text), error: error)
            }
            if code == CURLE_SSL_CERTPROBLEM {
                return PortalAuthError(
                    .tlsFailure,
                    "the client certificate for \(place) could not be used (\(text))",
                    remedy: .provideClientCertificate(host: host, port: port), cause: cause)
            }
            return PortalAuthError(
                .tlsFailure,
                "the TLS handshake with \(place) failed (\(text)): it may not speak HTTPS on this port",
                remedy: .checkURL, cause: cause)
        default:
            return nil
        }
    }
}
