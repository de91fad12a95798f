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
            "'\(StrictURL.printable(string))' is not an absolute http(s) URL (written with its scheme, for example "
                + "https://\(shown))",
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

    /// `argument` as a duration, or the usage error every duration option gives: it names the
    /// option, the value and the forms a duration takes.
    static func parse(_ argument: String, option: String) throws -> DurationArgument {
        guard let duration = DurationArgument(argument: argument) else {
            throw ValidationError(
                "\(option) \(terminalText(argument)) is not a duration: give a whole number with a unit "
                    + "(90s, 30m, 12h, 30d, 2w)")
        }
        return duration
    }
}

/// A duration option's value in seconds: a whole number with a unit (`90s`, `30m`, `12h`, `30d`,
/// `2w`), or a plain number in the option's documented unit (`plainUnit` seconds: 1 for seconds,
/// 60 for minutes). `fractions` lets a plain number have decimals (`--timeout 2.5`).
/// Throws a usage error that names the option and the forms it takes.
func parseDuration(_ text: String, option: String, plainUnit: Int, fractions: Bool = false) throws -> Double {
    let unitName = plainUnit == 60 ? "minutes" : "seconds"
    let wrong = ValidationError(
        "\(option) \(terminalText(text)) is not a duration: give a positive number of \(unitName), or a whole number "
            + "with a unit (90s, 30m, 12h, 30d, 2w)")
    if let duration = DurationArgument(argument: text) { return Double(duration.seconds) }
    let plain = fractions ? Double(text) : Int(text).map(Double.init)
    guard text.allSatisfy({ $0.isASCII && ($0.isNumber || (fractions && $0 == ".")) }), let plain, plain > 0,
        plain.isFinite, plain * Double(plainUnit) < 1e12
    else { throw wrong }
    return plain * Double(plainUnit)
}

/// ``parseDuration(_:option:plainUnit:fractions:)`` as whole seconds.
func parseSeconds(_ text: String, option: String) throws -> Int {
    Int(try parseDuration(text, option: option, plainUnit: 1))
}

/// ``parseDuration(_:option:plainUnit:fractions:)`` as whole minutes (plain numbers are minutes);
/// a duration that is not whole minutes is refused rather than rounded.
func parseMinutes(_ text: String, option: String) throws -> Int {
    let seconds = Int(try parseDuration(text, option: option, plainUnit: 60))
    guard seconds % 60 == 0 else {
        throw ValidationError("\(option) counts whole minutes: \(terminalText(text)) is not (try \(seconds / 60 + 1)m)")
    }
    return seconds / 60
}
