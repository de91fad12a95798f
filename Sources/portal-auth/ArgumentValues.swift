// Reading option and argument values: URLs (in their one strict reading), sizes, durations.
import ArgumentParser
import PortalAuth

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A size in bytes: digits, optionally followed by K, M or G (binary units; `KiB`, `KB` and
/// lower case too). Nil when it is not one or does not fit.
func parseByteSize(_ text: String) -> Int? {
    let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
    guard !digits.isEmpty, let value = Int(digits) else { return nil }
    let shift: Int
    switch trimmed.dropFirst(digits.count).lowercased() {
    case "", "b": shift = 0
    case "k", "kb", "kib": shift = 10
    case "m", "mb", "mib": shift = 20
    case "g", "gb", "gib": shift = 30
    default: return nil
    }
    let (bytes, overflow) = value.multipliedReportingOverflow(by: 1 << shift)
    return overflow ? nil : bytes
}

/// Parses a URL argument in its one strict reading (an http(s) scheme, a host, nothing that URL
/// readers could read differently), normalised: dot segments removed, no fragment.
func parseURL(_ string: String) throws -> URL {
    if !string.contains("://"), !string.hasPrefix("http:"), !string.hasPrefix("https:") {
        let shown = StrictURL.printable(string.hasPrefix("//") ? String(string.dropFirst(2)) : string)
        throw PortalAuthError(
            .invalidURL,
            "'\(StrictURL.printable(string))' is not an absolute http(s) URL (written with its scheme, for example https://\(shown))",
            remedy: .checkURL)
    }
    return try StrictURL.parse(string).url
}

/// A length of time typed as a whole number and a unit: `90s`, `30m`, `12h`, `7d`, `2w`.
struct DurationArgument: ExpressibleByArgument, Sendable, Equatable {
    /// The seconds each unit stands for.
    static let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]

    /// The duration as typed (`7d`).
    let text: String
    /// The duration in seconds.
    let seconds: Int

    /// Nil when `argument` is not a positive whole number followed by one of s, m, h, d, w.
    init?(argument: String) {
        guard let unit = argument.last, let scale = Self.units[unit],
            argument.dropLast().allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(argument.dropLast()),
            count > 0
        else { return nil }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        self.text = argument
        self.seconds = seconds
    }
}
