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
        var options = options
        if let auth = options.httpAuthentication, auth.schemes.contains(.negotiate), auth.password.isEmpty {
            // The user's own ticket: not while the HTTP thread uses another user's, obtained with a password.
            try KerberosTicket.checkUserTicket(principal: auth.username, for: "\(host):\(port)")
        } else if var auth = options.httpAuthentication, auth.schemes.contains(.negotiate), !auth.username.isEmpty {
            // libcurl's Negotiate uses only a Kerberos ticket: get one with the password when the user has none.
            do {
                try await KerberosTicket.ensure(
                    principal: auth.username, password: auth.password, for: "\(host):\(port)")
            } catch is PortalAuthError where auth.schemes != [.negotiate] {
                // The server offers other schemes too: use them instead.
                auth.schemes.remove(.negotiate)
                options.httpAuthentication = auth
            }
        }
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
        let job = CurlJob(transfer: transfer, url: request.url, host: host, port: port, limits: limits)
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
        func check(_ code: CURLcode, _ what: String) throws {
            guard code == CURLE_OK else {
                throw PortalAuthError(
                    .internalError, "libcurl refused the option \(what): \(String(cString: pa_easy_strerror(code)))",
                    cause: .curl(code: code.number, message: String(cString: pa_easy_strerror(code))))
            }
        }
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
        switch request.method {
        case .get: break
        case .head: try check(pa_easy_setopt_long(easy, CURLOPT_NOBODY, 1), "NOBODY")
        case .post:
            try check(pa_easy_setopt_long(easy, CURLOPT_POST, 1), "POST")
        case .put, .delete:
            try check(pa_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue), "CUSTOMREQUEST")
        }
        if let body = request.body ?? (request.method == .post ? [] : nil) {
            try check(pa_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)), "POSTFIELDSIZE")
            // COPYPOSTFIELDS copies POSTFIELDSIZE bytes, so the body need not end in NUL.
            let bytes = body.isEmpty ? [0] : body
            try bytes.withUnsafeBytes { buffer in
                try check(pa_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, buffer.baseAddress), "COPYPOSTFIELDS")
            }
        }
        for header in request.headers {
            guard !header.name.contains(where: { $0 == "\r" || $0 == "\n" || $0 == ":" }),
                !header.value.contains(where: { $0 == "\r" || $0 == "\n" })
            else {
                throw PortalAuthError(.invalidArgument, "the header '\(header.name)' contains a line break or colon")
            }
            _ = pa_transfer_add_header(transfer, "\(header.name): \(header.value)")
        }
        _ = pa_transfer_add_header(transfer, "Expect:")
        try check(pa_transfer_apply_headers(transfer), "HTTPHEADER")

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

/// One request in flight.
final class CurlJob: @unchecked Sendable {
    let transfer: OpaquePointer
    let url: URL
    let host: String
    let port: Int
    let limits: TransferLimits
    // Touched by the submitting task before submission, then only by the loop thread.
    var continuation: CheckedContinuation<CurlOutcome, any Error>?
    let cancelled = Atomic<Bool>(false)

    init(transfer: OpaquePointer, url: URL, host: String, port: Int, limits: TransferLimits) {
        self.transfer = transfer
        self.url = url
        self.host = host
        self.port = port
        self.limits = limits
    }
}

/// What the loop hands back to the waiting task.
struct CurlOutcome: Sendable {
    var code: Int32
    var status: Int
    var headerBlock: String
    var body: [UInt8]
    var errorText: String
    /// The errno libcurl saw on a failed connect (`CURLINFO_OS_ERRNO`), 0 otherwise.
    var osErrno: Int = 0
    var effectiveURL: String?
    /// The size bound the transfer was stopped at, if any.
    var exceeded: TransferLimits.Exceeded? = nil

    func response(for request: TransportRequest, job: CurlJob) throws -> TransportResponse {
        if exceeded != nil || code == CURLE_FILESIZE_EXCEEDED.number {
            throw job.limits.tooLarge(
                exceeded, place: "\(job.host):\(job.port)", cause: .curl(code: code, message: errorText))
        }
        guard code == 0 else {
            throw CurlErrors.error(
                code: code, text: errorText, host: job.host, port: job.port, limits: job.limits, osErrno: osErrno)
        }
        var headers: [(name: String, value: String)] = []
        for line in headerBlock.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix("HTTP/") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmedWhitespace))
        }
        return TransportResponse(status: status, headers: headers, body: body, url: request.url)
    }
}

/// The multi handle and the thread that drives it.
final class CurlEventLoop: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private struct State {
        var pending: [CurlJob] = []
        var cancelled: [CurlJob] = []
        var active: [UnsafeMutableRawPointer: CurlJob] = [:]  // easy handle → job
        var pool: [OpaquePointer] = []  // idle transfers
        var running = true
    }
    private let state = Locked(State())
    private var thread = pthread_t()
    /// Set by the first ``shutdown()``; the thread is joined once.
    private let ended = Atomic<Bool>(false)
    /// Every loop whose thread has not been joined, for ``shutdownAll()``.
    private static let live = Locked<[ObjectIdentifier: CurlEventLoop]>([:])

    init(maxConnectionsPerHost: Int) throws {
        guard let multi = pa_multi_init() else {
            throw PortalAuthError(.internalError, "libcurl could not create a multi handle")
        }
        self.multi = multi
        _ = pa_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
        _ = pa_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(16, maxConnectionsPerHost * 4))
        let unmanaged = Unmanaged.passRetained(self)
        let result = pthread_create(
            &thread, nil,
            { context in
                let loop = Unmanaged<CurlEventLoop>.fromOpaque(context!).takeRetainedValue()
                loop.run()
                return nil
            }, unmanaged.toOpaque())
        guard result == 0 else {
            unmanaged.release()
            throw PortalAuthError(.internalError, "cannot start the HTTP event-loop thread (\(result))")
        }
        // Joinable, not detached: a detached thread could still be closing TLS connections
        // (curl_multi_cleanup) while the process exits and OpenSSL frees what it uses.
        Self.live.withLock { $0[ObjectIdentifier(self)] = self }
    }

    /// Stops the thread and joins it (once): when this returns, the multi handle is cleaned up
    /// and no libcurl call of this loop is running.
    func shutdown() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        stop()
        if pthread_equal(pthread_self(), thread) != 0 {
            pthread_detach(thread)  // (never expected: the loop thread runs no code that ends a transport)
        } else {
            pthread_join(thread, nil)
        }
        _ = Self.live.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
    }

    /// ``shutdown()`` for every loop of the process.
    static func shutdownAll() {
        for loop in live.withLock({ Array($0.values) }) { loop.shutdown() }
    }

    func takeTransfer() -> OpaquePointer? {
        if let pooled = state.withLock({ $0.pool.popLast() }) {
            pa_transfer_reset(pooled)
            return pooled
        }
        return pa_transfer_new()
    }

    func returnTransfer(_ transfer: OpaquePointer) {
        pa_transfer_wipe(transfer)
        let keep = state.withLock { state -> Bool in
            guard state.running, state.pool.count < 64 else { return false }
            state.pool.append(transfer)
            return true
        }
        if !keep { pa_transfer_free(transfer) }
    }

    // Wake-ups happen under the lock and only while the loop runs: once it has seen `running`
    // false it frees the multi handle, and a wake-up after that would use freed memory.

    func submit(_ job: CurlJob) {
        let accepted = state.withLock { state -> Bool in
            guard state.running else { return false }
            state.pending.append(job)
            _ = pa_multi_wakeup(multi)
            return true
        }
        // A loop that has stopped would never answer: the request fails at once instead.
        guard accepted else { return finish(job, cancelled: true) }
    }

    func cancel(_ job: CurlJob) {
        job.cancelled.store(true, ordering: .relaxed)
        state.withLock { state in
            state.cancelled.append(job)
            if state.running { _ = pa_multi_wakeup(multi) }
        }
    }

    func stop() {
        state.withLock { state in
            guard state.running else { return }
            state.running = false
            _ = pa_multi_wakeup(multi)
        }
    }

    private func run() {
        var running: Int32 = 0
        while true {
            let (pending, cancelled, keepRunning) = state.withLock { state -> ([CurlJob], [CurlJob], Bool) in
                defer { state.pending.removeAll(); state.cancelled.removeAll() }
                return (state.pending, state.cancelled, state.running)
            }
            if !keepRunning { break }
            for job in pending {
                if job.cancelled.load(ordering: .relaxed) { finish(job, cancelled: true); continue }
                let easy = pa_transfer_easy(job.transfer)!
                state.withLock { $0.active[easy] = job }
                if pa_multi_add(multi, easy) != CURLM_OK {
                    state.withLock { _ = $0.active.removeValue(forKey: easy) }
                    finish(
                        job,
                        outcome: CurlOutcome(
                            code: CURLE_FAILED_INIT.number, status: 0, headerBlock: "", body: [],
                            errorText: "could not add the transfer", effectiveURL: nil))
                }
            }
            for job in cancelled {
                let easy = pa_transfer_easy(job.transfer)!
                if state.withLock({ $0.active.removeValue(forKey: easy) }) != nil {
                    _ = pa_multi_remove(multi, easy)
                    finish(job, cancelled: true)
                }
            }
            // libcurl's Negotiate runs GSS-API on this thread: give it a ticket obtained with a password.
            KerberosTicket.applyToCurrentThread()
            _ = pa_multi_perform(multi, &running)
            var easy: UnsafeMutableRawPointer?
            var result = CURLE_OK
            while pa_multi_next_done(multi, &easy, &result) == 1, let done = easy {
                guard let job = state.withLock({ $0.active.removeValue(forKey: done) }) else { continue }
                _ = pa_multi_remove(multi, done)
                finish(job, outcome: collect(job, code: result))
            }
            _ = pa_multi_poll(multi, 1000)
        }
        // Stopped: fail whatever is left.
        let leftovers = state.withLock { state -> [CurlJob] in
            defer { state.active.removeAll(); state.pending.removeAll() }
            return Array(state.active.values) + state.pending
        }
        for job in leftovers {
            _ = pa_multi_remove(multi, pa_transfer_easy(job.transfer))
            finish(job, cancelled: true)
        }
        for transfer in state.withLock({ $0.pool }) { pa_transfer_free(transfer) }
        _ = pa_multi_cleanup(multi)
    }

    private func collect(_ job: CurlJob, code: CURLcode) -> CurlOutcome {
        let easy = pa_transfer_easy(job.transfer)
        var status = 0
        _ = pa_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        let exceeded = TransferLimits.Exceeded(pa_transfer_limit_hit(job.transfer))
        var length = 0
        let bodyPointer = exceeded == nil ? pa_transfer_body(job.transfer, &length) : nil
        let body = bodyPointer.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
        var headLength = 0
        let headPointer = pa_transfer_headers(job.transfer, &headLength)
        let head =
            headPointer.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: headLength), as: UTF8.self) }
            ?? ""
        var text = String(cString: pa_transfer_error(job.transfer))
        if text.isEmpty, code != CURLE_OK { text = String(cString: pa_easy_strerror(code)) }
        var osErrno = 0
        if code != CURLE_OK { _ = pa_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno) }
        return CurlOutcome(
            code: code.number, status: status, headerBlock: head, body: body, errorText: text, osErrno: osErrno,
            effectiveURL: nil, exceeded: exceeded)
    }

    private func finish(_ job: CurlJob, outcome: CurlOutcome) {
        let continuation = job.continuation
        job.continuation = nil
        returnTransfer(job.transfer)
        continuation?.resume(returning: outcome)
    }

    private func finish(_ job: CurlJob, cancelled: Bool) {
        let continuation = job.continuation
        job.continuation = nil
        returnTransfer(job.transfer)
        continuation?.resume(
            throwing: PortalAuthError(.cancelled, "the request to \(job.host):\(job.port) was cancelled"))
    }
}

/// A CA bundle is checked before libcurl gets it: libcurl says only that it had trouble with
/// "the CA cert" for a file that is missing, unreadable or not PEM at all (a DER certificate, a
/// PKCS#12 file, a key). Once per path, size and modification time.
package enum CABundleCheck {
    private static let checked = Locked<Set<String>>([])

    /// Throws when `path` cannot be read or holds no PEM certificate.
    package static func check(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0, access(path, R_OK) == 0 else {
            throw PortalAuthError(
                .invalidArgument, "the CA bundle \(path) cannot be read", remedy: .provideCABundle(path: path))
        }
        let key = "\(path)\u{0}\(info.st_size)\u{0}\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        if checked.withLock({ $0.contains(key) }) { return }
        guard (info.st_mode & S_IFMT) == S_IFREG, let data = FileManager.default.contents(atPath: path) else {
            throw PortalAuthError(
                .invalidArgument, "the CA bundle \(path) cannot be read (it is not a regular file)",
                remedy: .provideCABundle(path: path))
        }
        let bytes = Array(data)
        guard let problem = problem(bytes) else {
            checked.withLock { _ = $0.insert(key) }
            return
        }
        throw PortalAuthError(
            .invalidArgument, "the CA bundle \(path) is not a PEM file of CA certificates (\(problem))",
            remedy: .provideCABundle(path: path))
    }

    /// What is wrong with the contents of a CA bundle, or nil when it holds a PEM certificate.
    static func problem(_ bytes: [UInt8]) -> String? {
        let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
        let trusted = Array("-----BEGIN TRUSTED CERTIFICATE-----".utf8)
        if contains(bytes, marker) || contains(bytes, trusted) { return nil }
        if bytes.isEmpty { return "it is empty" }
        if bytes.first == 0x30 {
            return "it looks like a binary DER file: convert it with openssl x509 -inform der -in FILE -out FILE.pem"
        }
        if contains(bytes, Array("-----BEGIN ".utf8)) {
            return "it holds PEM blocks but no -----BEGIN CERTIFICATE----- (a key or a request?)"
        }
        return "no -----BEGIN CERTIFICATE----- line in it"
    }

    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}

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
            return PortalAuthError(
                .connectionFailed, "the request to \(place) failed (\(text.isEmpty ? "CURLcode \(number)" : text))",
                cause: cause)
        }
    }
}

extension CURLcode {
    /// The code as the number libcurl documents (``PortalAuthError/Cause/curl(code:message:)`` carries it).
    var number: Int32 { Int32(bitPattern: rawValue) }
}
