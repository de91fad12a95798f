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
    public static func urlContext(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
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
    }
}
