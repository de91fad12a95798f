// API keys (issue #22): `login --api-key-stdin`, its option group and checks, and what the other
// commands (token, exec, request, whoami, status) need to find and show a stored key.
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

/// An ArcGIS API key, read from standard input (never from the command line).
struct LoginAPIKeyOptions: ParsableArguments {
    @Flag(
        help:
            "Read an ArcGIS API key from stdin, for --portal, its services (geocode, route, ...) and each --host."
    )
    var apiKeyStdin = false

    @Option(help: ArgumentHelp("When the API key expires (2027-01-31 or 2027-01-31T12:00:00Z).", valueName: "date"))
    var expires: String?

    @Option(
        name: .customLong("host"),
        help: ArgumentHelp(
            "Another host the API key may be sent to (host or host:port; https only).", valueName: "host"))
    var hosts: [String] = []

}

extension Login {
    /// The values of an API key sign-in (the combinations are ``LoginRule/apiKey``'s).
    func validateAPIKeyOptions() throws {
        guard apiKeyOptions.apiKeyStdin else { return }
        if let expiresIn = pregenerated.expiresIn, expiresIn <= 0 {
            throw ValidationError("--expires-in must be a positive number of seconds")
        }
        if let expires = apiKeyOptions.expires, APIKeyLogin.date(expires) == nil {
            throw ValidationError("--expires \(expires) is not a date (2027-01-31 or 2027-01-31T12:00:00Z)")
        }
    }

    /// Reads the key from stdin, reads the portal's services with it and stores it (replacing the
    /// portal's previous key in one change).
    func loginWithAPIKey() async throws {
        let portalURL = try Self.portalRoot(place.portal!)
        // Refused before the key is read: an API key never goes over http.
        guard portalURL.scheme?.lowercased() == "https" else {
            throw PortalAuthError(
                .insecureTransport,
                "\(ServerContext.describeWithScheme(portalURL)) is not https: an API key is never sent over http",
                remedy: .useHTTPS(url: portalURL))
        }
        let expiry = try APIKeyLogin.expiry(date: apiKeyOptions.expires, seconds: pregenerated.expiresIn)
        let manager = try global.makeManager()
        try manager.arcGISCredentialStore.backend.checkAvailable()
        let key = try readSecretFromStdin(what: "API key", flag: "--api-key-stdin")
        let credential = try await APIKeyCredential.credential(
            apiKey: key, portalURL: portalURL, expirationDate: expiry, hosts: apiKeyOptions.hosts,
            services: manager.services)
        try await manager.arcGISCredentialStore.commit(credential, origin: .signIn)
        let expires = credential.tokenInfo.expirationDate.map { "; it expires \($0.iso8601)" } ?? " with no expiry"
        let store = manager.arcGISCredentialStore.backend.name
        output("Stored an API key for \(APIKeyLogin.describeScope(credential))\(expires) (in \(store)).")
    }
}

/// What the commands need to find, use and show stored API keys.
enum APIKeyLogin {
    /// How long before its expiry `token` warns that an API key expires.
    static let warningWindow: TimeInterval = 30 * 86_400

    /// The command that stores a new key for `portal`.
    static func storeAdvice(portal: String) -> String {
        "store a new key with printf '%s' \"$KEY\" | portal-auth login --api-key-stdin --portal \(portal)"
    }

    /// `--expires` (a date, or a date and time) or `--expires-in` (seconds from now) as a date;
    /// an expiry already past is refused.
    static func expiry(date: String?, seconds: Int?, now: Date = Date()) throws -> Date? {
        let expiry = date.flatMap { self.date($0) } ?? seconds.map { now.addingTimeInterval(TimeInterval($0)) }
        if let expiry, expiry <= now {
            throw PortalAuthError(
                .invalidArgument, "the API key's expiry \(expiry.iso8601) has passed", remedy: .provide(.apiKey))
        }
        return expiry
    }

    /// `2027-01-31` (the end of that day, UTC) or an ISO 8601 date and time.
    static func date(_ text: String) -> Date? {
        if let moment = try? Date(text, strategy: .iso8601) { return moment }
        guard let day = try? Date(text, strategy: Date.ISO8601FormatStyle().year().month().day()) else { return nil }
        return day.addingTimeInterval(86_399)
    }

    /// The server a status row is for: an API key's portal (its store key is `api-key URL`), or the row's server.
    static func portalServer(_ summary: CredentialSummary) -> String {
        let prefix = "api-key "  // (CredentialScope.apiKey's store key)
        guard summary.kind == APIKeyCredential.kind, summary.server.hasPrefix(prefix) else { return summary.server }
        return String(summary.server.dropFirst(prefix.count))
    }

    /// The warning `token` prints on stderr for `credential`: an API key that expires within
    /// ``warningWindow`` of `now`, and only when stderr is a terminal (scripts read stdout alone).
    static func expiryWarning(
        for credential: (any ArcGISCredential)?, now: Date = Date(), stderrIsTerminal: Bool
    ) -> String? {
        guard stderrIsTerminal, let key = credential as? APIKeyCredential,
            let expiry = key.tokenInfo.expirationDate, key.tokenInfo.expires(within: warningWindow, of: now)
        else { return nil }
        let days = Int((expiry.timeIntervalSince(now) / 86_400).rounded(.down))
        let when = "\(expiry.iso8601) (in \(days) day\(days == 1 ? "" : "s"))"
        return "the API key for \(key.portal) expires \(when): \(storeAdvice(portal: key.portal.url))"
    }

    /// Prints ``expiryWarning(for:now:stderrIsTerminal:)`` when there is one.
    static func warnIfExpiring(_ credential: (any ArcGISCredential)?) {
        if let warning = expiryWarning(for: credential, stderrIsTerminal: isatty(2) == 1) { printWarning(warning) }
    }

    /// The portal and what else the key goes to, for messages: `https://host/portal (and
    /// https://geo:8443/.../GeocodeServer, host.example.com:443)`.
    static func describeScope(_ key: APIKeyCredential) -> String {
        let more = scopeList(key).dropFirst()
        return key.portal.url + (more.isEmpty ? "" : " (and \(more.joined(separator: ", ")))")
    }

    /// Every place the key goes to: the portal, its services, the hosts.
    static func scopeList(_ key: APIKeyCredential) -> [String] {
        [key.portal.url] + key.serviceContexts.map(\.url) + key.hosts.map { "\($0.host):\($0.port)" }
    }
}

extension APIKeyLogin {
    /// `whoami` for a portal where no user is signed in but an API key is stored: says so (there
    /// is no user) and returns true; false when a user credential applies or no key does.
    static func whoAmI(_ target: URL, manager: AuthenticationManager, json: Bool) async throws -> Bool {
        try await manager.adoptStoredAPIKey(for: target)
        guard let key = manager.apiKey, ScopedCredential(key).covers(target) else { return false }
        let expires = key.tokenInfo.expirationDate
        if json {
            let object: [String: JSONValue] = [
                "username": .null, "credential": .string(APIKeyCredential.kind), "portal": .string(key.portal.url),
                "expires": expires.map { .string($0.iso8601) } ?? .null,
                "scope": .array(scopeList(key).map(JSONValue.string)),
            ]
            output(try JSONValue.object(object).jsonText(pretty: true))
        } else {
            output("an API key (no user)")
            output("portal:       \(key.portal.url)")
            output("expires:      \(expires?.iso8601 ?? "never")")
            output("scope:        \(scopeList(key).joined(separator: ", "))")
        }
        return true
    }
}

extension APIKeyLogin {
    /// The stored API keys by their store key (the `server` of their status rows).
    static func keysByStoreKey(of manager: AuthenticationManager) async throws -> [String: APIKeyCredential] {
        let keys = try await manager.storedAPIKeys()
        return Dictionary(keys.map { ($0.scope.storeKey, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The `status --json` entry of an API key's row (`server`: the portal; `scope`: where it goes);
    /// nil for other rows.
    static func statusJSON(_ summary: CredentialSummary, key: APIKeyCredential?) -> JSONValue? {
        guard let key else { return nil }
        return .object([
            "store": .string(summary.store), "kind": .string(summary.kind), "server": .string(key.portal.url),
            "username": .null, "expires": summary.expirationDate.map { .string($0.iso8601) } ?? .null,
            "expired": .bool(key.tokenInfo.isExpired()), "backend": .string(summary.backend),
            "scope": .array(scopeList(key).map(JSONValue.string)),
        ])
    }
}
