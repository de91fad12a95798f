import Foundation

/// How much more memory a process may use when the suite runs under a sanitizer
/// (`scripts/sanitize.sh` sets `PORTAL_AUTH_SANITIZER` to `address` or `thread`).
///
/// ThreadSanitizer's shadow counts in a process's resident set: a test that bounds a peak widens
/// its bound threefold, which still fails a process that holds a whole streamed body (hundreds of
/// megabytes) where it should hold a few pieces of it. Under AddressSanitizer the peak is its
/// allocator's: freed blocks wait in a quarantine (64 MB in sanitize.sh) and its shadow and
/// redzones grow with the traffic, so a 100 MB form through serve peaked at 189 MB although the
/// plain build holds it under 50 MB. There the bound is not checked (``widened(_:)`` is
/// `Int.max`); the plain runs, CI's, check it.
public enum SanitizerBounds {
    /// The sanitizer the suite runs under, or `nil` for a plain build.
    public static var sanitizer: String? {
        ProcessInfo.processInfo.environment["PORTAL_AUTH_SANITIZER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `kilobytes` in a plain build, three times it under ThreadSanitizer, unbounded under
    /// AddressSanitizer.
    public static func widened(_ kilobytes: Int) -> Int {
        switch sanitizer {
        case nil: kilobytes
        case "address": .max
        default: 3 * kilobytes
        }
    }
}
