#if canImport(Glibc)
import Glibc
#endif

/// A `token URL [--format F] [--store keyring]` command line, read as the full program's fast path
/// reads it (`TokenFastPath.parse`: the options in any order, `--name value` or `--name=value`,
/// each at most once), and only in the keyring, the one store whose answers are recorded.
struct TokenRequest: Equatable {
    /// The formats `token --format` takes.
    static let formats: Set<String> = ["plain", "json", "header", "gdal", "env"]

    /// The URL argument, as given.
    var url: String
    /// `--format`, as given (plain when not).
    var format: String

    /// Nil for any other command line (the full program's).
    init?(_ arguments: [String]) {
        guard arguments.first == "token" else { return nil }
        var url: String?
        var format: String?
        var store: String?
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-") else {
                guard url == nil else { return nil }
                url = argument
                continue
            }
            let name: Substring
            let value: String
            if let equals = argument.firstIndex(of: "=") {
                name = argument[..<equals]
                value = String(argument[argument.index(after: equals)...])
            } else {
                guard let next = rest.popFirst() else { return nil }
                name = argument[...]
                value = next
            }
            switch name {
            case "--format":
                guard format == nil, Self.formats.contains(value) else { return nil }
                format = value
            case "--store":
                guard store == nil, value == "keyring" else { return nil }
                store = value
            default:
                return nil
            }
        }
        guard let url else { return nil }
        if store == nil, let chosen = Self.variable("PORTAL_AUTH_STORE"), chosen != "keyring" { return nil }
        self.url = url
        self.format = format ?? "plain"
    }

    /// The key the full program records the answer under (`TokenFastPath.answerKey`).
    var answerKey: String { "token\u{0}\(url)\u{0}\(format)\u{0}keyring" }

    /// Whether the environment leaves the answer to the recorded one: no variable that the full
    /// program reads and this one does not know (a credential from the environment signs in in
    /// memory, `PORTAL_AUTH_ACCOUNT` names another account, `PORTAL_AUTH_NO_FAST_PATH` turns the
    /// fast paths off). Every `ARCGIS_` and `PORTAL_AUTH_` variable but those below, and systemd's
    /// `CREDENTIALS_DIRECTORY`, sends the command line to the full program: a variable added there
    /// later is handed over until it is named here.
    func mayAnswer() -> Bool {
        var entry = environ
        while let pointer = entry.pointee {
            entry += 1
            let text = String(cString: pointer)
            guard let equals = text.firstIndex(of: "="), text.index(after: equals) != text.endIndex else { continue }
            let name = text[..<equals]
            if name == "CREDENTIALS_DIRECTORY" || name.hasPrefix("ARCGIS_") { return false }
            if name.hasPrefix("PORTAL_AUTH_"), !Self.knownVariables.contains(String(name)),
                !Self.knownPrefixes.contains(where: { name.hasPrefix($0) })
            {
                return false
            }
        }
        return true
    }

    /// `PORTAL_AUTH_` variables that do not change what a cached `token` prints: the store (read
    /// above), the tests' mark, TLS and response limits (no request is made), how errors are
    /// printed (none is), and what `exec` sets for its command.
    static let knownVariables: Set<String> = [
        "PORTAL_AUTH_STORE", "PORTAL_AUTH_FAST_PATH_MARK", "PORTAL_AUTH_CA_BUNDLE", "PORTAL_AUTH_MAX_RESPONSE_SIZE",
        "PORTAL_AUTH_ERROR_FORMAT", "PORTAL_AUTH_DEBUG_ERRORS", "PORTAL_AUTH_SERVER", "PORTAL_AUTH_REFERER",
    ]
    /// Prefixes of such variables: `exec`'s tokens, and scripts/with-keyring.sh's, the benchmarks',
    /// the demo's progress lines' and the build's own (`PORTAL_AUTH_WARNINGS_AS_ERRORS`, which
    /// scripts/test.sh exports; `PORTAL_AUTH_SANITIZER`, scripts/sanitize.sh's).
    static let knownPrefixes = [
        "PORTAL_AUTH_TOKEN", "PORTAL_AUTH_IAP_TOKEN", "PORTAL_AUTH_PROXY_TOKEN", "PORTAL_AUTH_KEYRING_",
        "PORTAL_AUTH_BENCH_", "PORTAL_AUTH_PROGRESS_", "PORTAL_AUTH_WARNINGS_AS_ERRORS", "PORTAL_AUTH_SANITIZER",
    ]

    /// An environment variable's value; nil when it is not set or empty.
    static func variable(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }
}
