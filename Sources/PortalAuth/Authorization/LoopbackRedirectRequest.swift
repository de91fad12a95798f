import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What the OAuth redirect's listener does with a request the local server read: its verdict,
/// and the query and pages around it. Pure functions, so that the fuzz target
/// (Fuzz/FuzzLoopbackRequest) exercises the verdict the listener runs, on the server's reading.
package enum LoopbackRedirectRequest {
    /// The largest request head read (request line and headers).
    package static let maximumRequestSize = 16_384

    /// What a complete request comes to.
    package enum Verdict: Equatable, Sendable {
        /// Not `GET` with a target: a 400 page; the sign-in goes on.
        case badRequest
        /// Another path: a 404 page; the sign-in goes on.
        case notFound
        /// The redirect path with a state that is not this sign-in's: an error page; the sign-in goes on.
        case turnedAway
        /// The redirect of this sign-in: its query parameters (the first of each name).
        case redirect([String: String])
    }

    /// What to do with a complete request for `target` with `method` (the local server's reading of
    /// its request line), when the redirect comes to `path` with `expectedState` (when not nil): the
    /// state is checked before anything else is read from the query.
    package static func verdict(method: String, target: String, path: String, expectedState: String?) -> Verdict {
        guard method == "GET", !target.isEmpty else { return .badRequest }
        let (requestPath, query) = split(target)
        guard requestPath == path else { return .notFound }
        let parameters = parseQuery(query)
        if let expectedState, parameters["state"] != expectedState { return .turnedAway }
        return .redirect(parameters)
    }

    /// A request target's path and query (without the `?`).
    package static func split(_ target: String) -> (path: String, query: String) {
        // (Looked for in the bytes: `?` is never part of another character.)
        var text = target
        return text.withUTF8 { bytes in
            guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return (target, "") }
            return (
                String(decoding: UnsafeBufferPointer(rebasing: bytes[..<mark]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: bytes[(mark + 1)...]), as: UTF8.self)
            )
        }
    }

    /// A query's parameters, the first of each name.
    package static func parseQuery(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in FormEncoding.decode(query) where result[name] == nil { result[name] = value }
        return result
    }

    /// `text` with `<`, `>`, `&` and `"` escaped, for an HTML page.
    package static func escapeHTML(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
