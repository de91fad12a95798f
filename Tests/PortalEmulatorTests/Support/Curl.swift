import Foundation
import TestSupport

/// What one `/usr/bin/curl` run produced.
struct CurlResult: Sendable {
    /// curl's exit code (0 = a complete HTTP exchange; 35/60 TLS trouble; 52/56 no answer).
    var exitCode: Int32
    /// HTTP status, 0 when there was no answer.
    var status: Int
    /// The Content-Type header, "" when absent.
    var contentType: String
    /// The Location header for redirects, "" otherwise.
    var location: String
    /// The body.
    var body: Data
    /// curl's error output.
    var stderr: String

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object; throws when it is not one (saying why, when curl had no answer).
    func json() throws -> [String: Any] {
        guard exitCode == 0 else { throw CurlError.noAnswer(exitCode, stderr) }
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw CurlError.notAnObject(text)
        }
        return object
    }

    /// The ArcGIS error code in the body, nil when the body is not an error.
    var errorCode: Int? {
        guard let object = try? json(), let error = object["error"] as? [String: Any] else { return nil }
        return (error["code"] as? NSNumber)?.intValue
    }
}

/// Errors of the curl helper.
enum CurlError: Error, CustomStringConvertible {
    case notAnObject(String)
    case missing(String)
    case noAnswer(Int32, String)

    var description: String {
        switch self {
        case .notAnObject(let text): return "not a JSON object: \(text)"
        case .missing(let what): return "missing \(what)"
        case .noAnswer(let code, let stderr): return "curl exited \(code): \(stderr)"
        }
    }
}

/// Runs `/usr/bin/curl` without blocking Swift's cooperative threads (the emulator's handlers
/// run on them too), through `Subprocess`, whose children inherit no stray descriptors.
///
/// Its bounds are a hang's, not a pace: a debug emulator on a loaded machine took longer than
/// the 30 s a request once had (curl gave up, the body was empty, and the test failed on "Unexpected
/// end of file during JSON parse").
enum Curl {
    /// How long one request may take before curl gives up (a hung server, not a slow one).
    static let maximumSeconds = 300
    /// Runs curl with `arguments` (the URL among them) and collects status, headers and body.
    static func run(_ arguments: [String]) async throws -> CurlResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bodyFile = directory.appendingPathComponent("body")
        let result = try await Subprocess.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "\(maximumSeconds)", "-o", bodyFile.path,
                "-w", "%{http_code}\n%{content_type}\n%{redirect_url}\n",
            ] + arguments, timeout: TimeInterval(maximumSeconds + 60))
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return CurlResult(
            exitCode: result.status,
            status: Int(lines.first ?? "") ?? 0,
            contentType: lines.count > 1 ? lines[1] : "",
            location: lines.count > 2 ? lines[2] : "",
            body: (try? Data(contentsOf: bodyFile)) ?? Data(),
            stderr: result.stderr)
    }

    /// GET with optional CA file and headers.
    static func get(
        _ url: String, ca: String?, headers: [String: String] = [:], extra: [String] = []
    ) async throws
        -> CurlResult
    {
        try await run(caArguments(ca) + headerArguments(headers) + extra + [url])
    }

    /// POST `application/x-www-form-urlencoded` (each pair URL-encoded by curl).
    static func post(
        _ url: String, form: [(String, String)], ca: String?, headers: [String: String] = [:], extra: [String] = []
    ) async throws -> CurlResult {
        var arguments = caArguments(ca) + headerArguments(headers) + extra
        for (name, value) in form { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        if form.isEmpty { arguments += ["-X", "POST"] }
        return try await run(arguments + [url])
    }

    private static func caArguments(_ ca: String?) -> [String] {
        ca.map { ["--cacert", $0] } ?? []
    }

    private static func headerArguments(_ headers: [String: String]) -> [String] {
        headers.sorted { $0.key < $1.key }.flatMap { ["-H", "\($0.key): \($0.value)"] }
    }
}
