// The context decision: which credential a URL selects, from its one strict reading.
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzTargets {
    /// The portal context the decision is checked against.
    static let fuzzPortal = try! ServerContext("https://127.0.0.1:8443/portal")

    /// Any bytes as a URL. Whatever the strict reading accepts must have one meaning: no userinfo,
    /// backslash or control character; no dot segment, encoded `/`, `\` or `.` left in the path;
    /// reading the normalised URL again gives the same URL (and Foundation's reader the same host,
    /// port and path); and the portal's context contains it only when scheme-aside host, port and
    /// path prefix are the portal's.
    ///
    /// An input that starts with `*` is a long URL: what follows up to the first `|` is its start,
    /// and the rest is repeated after it up to ``StrictURL/maximumLength`` (once more after `*+`,
    /// which makes it too long; the fuzzer rarely grows inputs that long on its own). A URL longer
    /// than that is refused. The candidate
    /// contexts of a URL (what a store lookup asks for) are few and each contains it.
    public static func urlContext(_ bytes: [UInt8]) {
        let text = String(decoding: expanded(bytes), as: UTF8.self)
        if text.utf8.count > StrictURL.maximumLength {
            precondition((try? StrictURL.parse(text)) == nil, "a URL over the length limit is read")
            return
        }
        guard let read = try? StrictURL.parse(text) else {
            // A URL that is not read strictly selects no credential, however Foundation reads it.
            if let url = URL(string: text), (try? StrictURL.parse(url.absoluteString)) == nil {
                precondition(!fuzzPortal.contains(url), "\(url) is in the portal's context without a strict reading")
            }
            return
        }
        let normalised = read.string
        precondition(
            !normalised.contains("\\") && !normalised.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F })
        let authority = normalised.dropFirst(read.scheme.count + 3).prefix { $0 != "/" && $0 != "?" }
        precondition(!authority.contains("@") && !authority.contains("%"), "userinfo or an escape in \(normalised)")
        let segments = read.path.split(separator: "/", omittingEmptySubsequences: false)
        precondition(!segments.contains { $0 == "." || $0 == ".." }, "a dot segment left in \(normalised)")
        let lower = read.path.lowercased()
        precondition(!lower.contains("%2e") && !lower.contains("%2f") && !lower.contains("%5c"))
        guard let again = try? StrictURL.parse(normalised) else {
            preconditionFailure("\(normalised) is not read again")
        }
        precondition(again == read, "reading \(normalised) again gives \(again.string)")
        let url = read.url
        let host = url.host(percentEncoded: true).map { $0.hasPrefix("[") ? String($0.dropFirst().dropLast()) : $0 }
        precondition(host?.lowercased() == read.host, "Foundation reads host \(host ?? "none") in \(normalised)")
        precondition((url.port ?? (read.scheme == "https" ? 443 : 80)) == read.port, "Foundation reads another port")
        precondition(url.path(percentEncoded: true) == read.path, "Foundation reads another path in \(normalised)")
        precondition(url.absoluteString == normalised, "Foundation writes \(normalised) as \(url.absoluteString)")
        if fuzzPortal.contains(url) {
            precondition(read.host == fuzzPortal.host && read.port == fuzzPortal.port)
            precondition(read.path == fuzzPortal.path || read.path.hasPrefix(fuzzPortal.path + "/"))
        }
        checkCandidates(of: url)
    }

    /// The contexts a store looks `url` up in: its own first, then shorter ones down to the host
    /// root, each containing it, at most ``ServerContext/maximumCandidateDepth`` and two.
    static func checkCandidates(of url: URL) {
        guard let candidates = try? ServerContext.candidates(for: url), let own = try? ServerContext(url: url) else {
            preconditionFailure("\(url) is read strictly but has no context")
        }
        precondition(candidates.first == own, "the first candidate of \(url) is not its context")
        precondition(candidates.last?.path == "", "the last candidate of \(url) is not the host root")
        precondition(candidates.count <= ServerContext.maximumCandidateDepth + 2, "\(candidates.count) candidates")
        precondition(Set(candidates).count == candidates.count, "a candidate of \(url) is repeated")
        for (candidate, next) in zip(candidates, candidates.dropFirst()) {
            precondition(candidate.contains(url) && next.contains(url), "a candidate does not contain \(url)")
            precondition(next.path.count < candidate.path.count, "the candidates of \(url) are not most specific first")
        }
    }

    /// `bytes`, or the long URL it stands for when it starts with `*` (see ``urlContext(_:)``).
    static func expanded(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.first == UInt8(ascii: "*") else { return bytes }
        var rest = bytes.dropFirst()
        let over = rest.first == UInt8(ascii: "+")
        if over { rest = rest.dropFirst() }
        let bar = rest.firstIndex(of: UInt8(ascii: "|")) ?? rest.endIndex
        let unit = rest[bar...].dropFirst()
        var result = Array(rest[..<bar])
        guard !unit.isEmpty else { return result }
        while result.count + unit.count <= StrictURL.maximumLength { result += unit }
        if over { result += unit }
        return result
    }
}
