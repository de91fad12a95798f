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

/// The HTTP transport of portal-auth: libcurl's multi interface on one event-loop thread, with
/// connection reuse and many concurrent requests, behind an async/await API.
///
/// libcurl is loaded (dlopen) on the first request, not when the transport is created, so a
/// program that never sends a request never pays for it. Redirects are not followed here: the
/// ``AuthenticationManager`` follows them itself so that a credential never crosses to another
/// host. Proxies come from the `http_proxy`, `https_proxy` and `no_proxy` environment variables,
/// which libcurl reads by itself.
public final class CurlTransport: HTTPTransport, Sendable {
    /// The configuration.
    public let configuration: TransportConfiguration
    private let loop = Locked<CurlEventLoop?>(nil)

    /// Creates a transport; nothing is loaded until the first request.
    public init(configuration: TransportConfiguration = TransportConfiguration()) {
        self.configuration = configuration
    }

    deinit {
        loop.withLock { $0 }?.shutdown()
    }

    /// Ends this transport's event-loop thread and waits for it: requests still in flight fail
    /// with ``PortalAuthError/Code/cancelled``, connections are closed, and the thread is joined
    /// before this returns. A later request starts a new loop. Call it from outside a request.
    public func shutdown() {
        loop.withLock { current in
            defer { current = nil }
            return current
        }?.shutdown()
    }

    /// Ends every transport of the process (``shutdown()``) and then libcurl itself
    /// (`curl_global_cleanup`), for the end of a program: after it no thread of the transport
    /// runs, so `exit` can run the TLS library's clean-up without racing one, and requests fail.
    ///
    /// A program that sends requests on other threads until it exits should call this before
    /// `exit`; the `portal-auth` command does on every way out.
    public static func shutdownAll() {
        CurlEventLoop.shutdownAll()
        pa_curl_unload()
    }

    /// The libcurl version line (loads libcurl), for diagnostics.
    public static func libraryVersion() throws -> String {
        try loadLibcurl()
        return String(cString: pa_curl_version())
    }

    static func loadLibcurl() throws {
        var buffer = [CChar](repeating: 0, count: 512)
        if pa_curl_load(&buffer, buffer.count) != 0 {
            let reason = CString.text(buffer)
            throw PortalAuthError(
                .libraryUnavailable,
                "libcurl could not be loaded (\(reason))", remedy: .installLibrary(package: "libcurl4"),
                cause: .other(reason))
        }
    }

    private func eventLoop() throws -> CurlEventLoop {
        try Self.loadLibcurl()
        return try loop.withLock { existing in
            if let existing { return existing }
            let created = try CurlEventLoop(maxConnectionsPerHost: configuration.maxConnectionsPerHost)
            existing = created
            return created
        }
    }

    /// The thread of this transport's event loop as a task executor (starting it, and loading
    /// libcurl, when it has not started). A task given it as its preference
    /// (`Task(executorPreference:)`) runs between the loop's turns: a task that mostly sends
    /// requests through this transport is then not handed from thread to thread around each of
    /// them (a local proxy's answers). Its work holds up every transfer while it runs, so it must not
    /// block or compute for long: the library's sign-ins, renewals and Kerberos checks, which may wait
    /// (a keyring, a prompt), run on the global executor whatever the caller's. Once the transport shuts
    /// down, its jobs run on the global executor; a later request starts a new loop, with a new executor.
    public func taskExecutor() throws -> any TaskExecutor {
        try eventLoop().executor
    }

    /// Sends one request and returns the final response (redirects are returned, not followed).
    public func send(_ request: TransportRequest, options: TransportOptions) async throws -> TransportResponse {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = request.url.host(percentEncoded: false)
        else {
            throw PortalAuthError(
                .invalidURL, "'\(URLRedaction.redact(request.url.absoluteString))' is not an absolute http(s) URL",
                remedy: .checkURL)
        }
        let port = request.url.port ?? (scheme == "https" ? 443 : 80)
        // (Kerberos is checked on the global executor: it blocks, and the transport's own thread
        // holds the ticket cache of a password sign-in, not the user's.)
        let options =
            options.httpAuthentication?.schemes.contains(.negotiate) == true
            ? try await withTaskExecutorPreference(globalConcurrentExecutor) {
                try await Self.withKerberosTicket(options, for: "\(host):\(port)")
            } : options
        let loop = try eventLoop()
        let limits = TransferLimits(request, configuration)
        let transfer = loop.takeTransfer()
        guard let transfer else {
            throw PortalAuthError(.internalError, "libcurl could not create a transfer (out of memory?)")
        }
        do {
            try configure(transfer, request, options, limits)
        } catch {
            loop.returnTransfer(transfer)
            throw error
        }
        let job = CurlJob(
            transfer: transfer, url: request.url, host: host, port: port, limits: limits,
            stream: request.responseStream, upload: request.bodyStream)
        try Self.attachStreams(of: request, to: job, in: loop)
        let outcome = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CurlOutcome, any Error>) in
                job.continuation = continuation
                loop.submit(job)
            }
        } onCancel: {
            loop.cancel(job)
        }
        return try outcome.response(for: request, job: job)
    }

    /// `options` ready for libcurl's Negotiate, which uses only a Kerberos ticket: the user's own
    /// one checked, or one obtained with the password (without Negotiate when that fails and the
    /// server offers other schemes).
    private static func withKerberosTicket(
        _ options: TransportOptions, for place: String
    ) async throws -> TransportOptions {
        var options = options
        if let auth = options.httpAuthentication, auth.schemes.contains(.negotiate), auth.password.isEmpty {
            // The user's own ticket: not while the HTTP thread uses another user's, obtained with a password.
            try KerberosTicket.checkUserTicket(principal: auth.username, for: place)
        } else if var auth = options.httpAuthentication, auth.schemes.contains(.negotiate), !auth.username.isEmpty {
            // libcurl's Negotiate uses only a Kerberos ticket: get one with the password when the user has none.
            do {
                try await KerberosTicket.ensure(principal: auth.username, password: auth.password, for: place)
            } catch is PortalAuthError where auth.schemes != [.negotiate] {
                // The server offers other schemes too: use them instead.
                auth.schemes.remove(.negotiate)
                options.httpAuthentication = auth
            }
        }
        return options
    }

    /// Hands the request's body stream (claimed for this one transfer) and response stream to
    /// `job`'s transfer; gives the transfer back when the body was sent before.
    private static func attachStreams(of request: TransportRequest, to job: CurlJob, in loop: CurlEventLoop) throws {
        let transfer = job.transfer
        if let upload = request.bodyStream {
            guard
                upload.claim(resume: { [weak loop] in loop?.resume(job) }, cancel: { [weak loop] in loop?.cancel(job) })
            else {
                loop.returnTransfer(transfer)
                throw RequestBodyStream.notResent(ServerContext.describe(request.url))
            }
            pa_transfer_set_upload(transfer, CurlEventLoop.uploadPiece, Unmanaged.passUnretained(job).toOpaque())
        }
        if let stream = request.responseStream {
            let limits = job.limits
            let after =
                limits.maxResponseSize > 0 ? min(stream.streamAfter, limits.maxResponseSize) : stream.streamAfter
            pa_transfer_set_stream(transfer, after, CurlEventLoop.streamPiece, Unmanaged.passUnretained(job).toOpaque())
        }
    }

    /// Connects to `host:port`, completes the TLS handshake without sending a request, and reports
    /// the server's certificate and whether it verifies against the trusted CAs (the CA bundle of
    /// ``configuration`` or the system's). Nothing is sent to the server.
    public func serverCertificate(host: String, port: Int) async throws -> ServerCertificateReport {
        try Self.loadLibcurl()
        let authority = host.contains(":") ? "[\(host)]" : host
        let url = "https://\(authority):\(port)/"
        let caBundle = configuration.caBundlePath
        if let caBundle { try CABundleCheck.check(caBundle) }
        let timeout = Int(configuration.connectTimeout * 1000)
        // Blocking handshakes: on a thread of their own, off the concurrency pool.
        let (verified, inspected) = await withCheckedContinuation {
            (continuation: CheckedContinuation<((CURLcode, String), (CURLcode, String, String?)), Never>) in
            BlockingIO.detached {
                func probe(verify: Bool) -> (CURLcode, String, String?) {
                    var pem: UnsafeMutablePointer<CChar>?
                    var error = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
                    let code = pa_curl_peer_certificate(url, caBundle, verify ? 1 : 0, timeout, &pem, &error)
                    let text = pem.map { String(cString: $0) }
                    free(pem)
                    return (code, CString.text(error), text)
                }
                let checked = probe(verify: true)
                continuation.resume(
                    returning: (
                        (checked.0, checked.1),
                        checked.0 == CURLE_OK && checked.2 != nil ? checked : probe(verify: false)
                    ))
            }
        }
        guard inspected.0 == CURLE_OK, let pem = inspected.2 else {
            if inspected.0 == CURLE_OK {
                throw PortalAuthError(
                    .tlsFailure, "\(host):\(port) presented no certificate: it may not speak HTTPS on this port",
                    remedy: .checkURL)
            }
            throw CurlErrors.error(code: inspected.0.number, text: inspected.1, host: host, port: port)
        }
        let certificate = try CertificateSummary(pem: pem)
        let failure: ServerTrustFailure? =
            verified.0 == CURLE_OK
            ? nil
            : (CurlErrors.untrusted.contains(verified.0) ? CurlErrors.trustFailure(verified.1) : .other)
        return ServerCertificateReport(
            host: host, port: port, certificate: certificate, failure: failure,
            failureText: verified.0 == CURLE_OK ? "" : verified.1)
    }

    private func configure(
        _ transfer: OpaquePointer, _ request: TransportRequest, _ options: TransportOptions, _ limits: TransferLimits
    ) throws {
        let easy = pa_transfer_easy(transfer)
        let check = Self.check
        try check(pa_easy_setopt_str(easy, CURLOPT_URL, request.url.absoluteString), "URL")
        try check(pa_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        try check(pa_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0), "FOLLOWLOCATION")
        try check(pa_easy_setopt_str(easy, CURLOPT_ACCEPT_ENCODING, ""), "ACCEPT_ENCODING")
        try check(pa_easy_setopt_str(easy, CURLOPT_USERAGENT, configuration.userAgent), "USERAGENT")
        try limits.apply(to: transfer, check: check)
        try check(
            pa_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000)),
            "CONNECTTIMEOUT_MS")
        if let bundle = configuration.caBundlePath {
            try CABundleCheck.check(bundle)
            try check(pa_easy_setopt_str(easy, CURLOPT_CAINFO, bundle), "CAINFO")
        }
        try Self.configureMethodAndBody(transfer, request)
        try Self.configureHeaders(transfer, request)
        try Self.configureCredentials(transfer, options)
    }

    /// Throws when libcurl refused the option `what`.
    private static func check(_ code: CURLcode, _ what: String) throws {
        guard code == CURLE_OK else {
            throw PortalAuthError(
                .internalError, "libcurl refused the option \(what): \(String(cString: pa_easy_strerror(code)))",
                cause: .curl(code: code.number, message: String(cString: pa_easy_strerror(code))))
        }
    }

    /// The method, and the body's length and bytes (a streamed body's length only).
    private static func configureMethodAndBody(_ transfer: OpaquePointer, _ request: TransportRequest) throws {
        let easy = pa_transfer_easy(transfer)
        switch request.method {
        case .get: break
        case .head: try check(pa_easy_setopt_long(easy, CURLOPT_NOBODY, 1), "NOBODY")
        case .post:
            try check(pa_easy_setopt_long(easy, CURLOPT_POST, 1), "POST")
        case .put, .delete:
            try check(pa_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue), "CUSTOMREQUEST")
        }
        if let upload = request.bodyStream {
            // Sent as the client sends it, with its length (not chunked: libcurl 7.88 adds bytes to a
            // chunked upload that its read callback pauses).
            try check(
                pa_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(upload.length)), "POSTFIELDSIZE")
        } else if let body = request.body ?? (request.method == .post ? [] : nil) {
            try check(pa_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)), "POSTFIELDSIZE")
            // COPYPOSTFIELDS copies POSTFIELDSIZE bytes, so the body need not end in NUL.
            let bytes = body.isEmpty ? [0] : body
            try bytes.withUnsafeBytes { buffer in
                try check(pa_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, buffer.baseAddress), "COPYPOSTFIELDS")
            }
        }
    }

    /// The request's headers (refused with a line break or a colon in a name), and no `Expect`.
    /// Bytes are checked, not characters: `\r\n` together is one character, equal to neither.
    private static func configureHeaders(_ transfer: OpaquePointer, _ request: TransportRequest) throws {
        for header in request.headers {
            guard !header.name.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x3A }),
                !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A })
            else {
                throw PortalAuthError(.invalidArgument, "the header '\(header.name)' contains a line break or colon")
            }
            _ = pa_transfer_add_header(transfer, "\(header.name): \(header.value)")
        }
        _ = pa_transfer_add_header(transfer, "Expect:")
        try check(pa_transfer_apply_headers(transfer), "HTTPHEADER")
    }

    /// The HTTP password, the client certificate and the pinned key of `options`.
    private static func configureCredentials(_ transfer: OpaquePointer, _ options: TransportOptions) throws {
        let easy = pa_transfer_easy(transfer)
        if let auth = options.httpAuthentication {
            var mask = 0
            if auth.schemes.contains(.basic) { mask |= PA_CURLAUTH_BASIC }
            if auth.schemes.contains(.digest) { mask |= PA_CURLAUTH_DIGEST }
            if auth.schemes.contains(.ntlm) { mask |= PA_CURLAUTH_NTLM }
            if auth.schemes.contains(.negotiate) { mask |= PA_CURLAUTH_NEGOTIATE }
            try check(pa_easy_setopt_long(easy, CURLOPT_HTTPAUTH, mask), "HTTPAUTH")
            try check(pa_easy_setopt_str(easy, CURLOPT_USERNAME, auth.username), "USERNAME")
            try check(pa_easy_setopt_str(easy, CURLOPT_PASSWORD, auth.password), "PASSWORD")
        }
        if let certificate = options.clientCertificate {
            // libcurl's OpenSSL reads the PKCS#12 itself: files with older ciphers need the legacy provider.
            PKCS12Bundle.enableLegacyCiphers()
            try certificate.pkcs12.withUnsafeBytes { bytes in
                try check(
                    pa_easy_setopt_blob(easy, CURLOPT_SSLCERT_BLOB, bytes.baseAddress, bytes.count), "SSLCERT_BLOB")
            }
            try check(pa_easy_setopt_str(easy, CURLOPT_SSLCERTTYPE, "P12"), "SSLCERTTYPE")
            try check(pa_easy_setopt_str(easy, CURLOPT_KEYPASSWD, certificate.password), "KEYPASSWD")
        }
        if let pin = options.pinnedPublicKey {
            // The pin replaces CA verification for this one request's host only.
            try check(pa_easy_setopt_str(easy, CURLOPT_PINNEDPUBLICKEY, pin), "PINNEDPUBLICKEY")
            try check(pa_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0), "SSL_VERIFYPEER")
            try check(pa_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0), "SSL_VERIFYHOST")
        }
    }
}

extension CURLcode {
    /// The code as the number libcurl documents (``PortalAuthError/Cause/curl(code:message:)`` carries it).
    var number: Int32 { Int32(bitPattern: rawValue) }
}
