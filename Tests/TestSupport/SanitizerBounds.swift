import Foundation

/// How much more memory a process may use when the suite runs under a sanitizer
/// (`scripts/sanitize.sh` sets `PORTAL_AUTH_SANITIZER` to `address` or `thread`).
///
/// AddressSanitizer's shadow memory and its quarantine of freed blocks, and ThreadSanitizer's
/// shadow, count in a process's resident set. A test that bounds a peak widens its bound with
/// ``widened(_:)``: three times the plain bound, which still fails a process that holds a whole
/// streamed body (hundreds of megabytes) where it should hold a few pieces of it.
public enum SanitizerBounds {
    /// The sanitizer the suite runs under, or `nil` for a plain build.
    public static var sanitizer: String? {
        ProcessInfo.processInfo.environment["PORTAL_AUTH_SANITIZER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `kilobytes` in a plain build, three times it under a sanitizer.
    public static func widened(_ kilobytes: Int) -> Int {
        sanitizer == nil ? kilobytes : 3 * kilobytes
    }
}
