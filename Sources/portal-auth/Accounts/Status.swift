import ArgumentParser
import PortalAuth
import PortalAuthEnvironment

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `portal-auth status`: every stored credential, never a secret.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every stored credential (kind, server, user, expiry, store); never a secret.",
        discussion: """
            With --check, exit 6 when a credential that cannot renew itself (an API key, a pregenerated \
            token, an OAuth refresh token, a client certificate) expires within --within (default 7d) \
            or has expired, and name each on stderr.

            Examples:
              portal-auth status
              portal-auth status --json
              portal-auth status --store file
              portal-auth status --check --within 14d > /dev/null
              portal-auth status --check --json
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(
        help: ArgumentHelp(
            "Exit 6 when a credential that cannot renew itself (API key, pregenerated token, refresh token, "
                + "certificate) expires within --within, or has expired."))
    var check = false

    @Option(
        help: ArgumentHelp(
            "With --check: how far ahead to look (a number and s, m, h, d or w; default 7d).", valueName: "duration"),
        transform: { try DurationArgument.parse($0, option: "--within") })
    var within: DurationArgument?

    func validate() throws {
        if within != nil, !check { throw ValidationError("--within goes with --check") }
    }

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            let all =
                try await manager.arcGISCredentialStore.summaries() + manager.networkCredentialStore.summaries()
                + manager.iapCredentialStore.summaries()
            let sorted = all.sorted { ($0.server, $0.kind) < ($1.server, $1.kind) }
            let now = Date()
            let inactive = try await Self.inactiveSummaries(manager)
            let keys = try await APIKeyLogin.keysByStoreKey(of: manager)  // API key (#22)
            if check {
                try await checkExpiry(sorted + inactive, manager: manager, now: now, keys: keys)
                return
            }
            let marked = Self.marked(all, inactive: inactive)
            if json {
                let lapses = await Self.lapses(of: marked.map(\.summary), manager: manager)
                output(try Self.json(marked, now: now, keys: keys, lapses: lapses).jsonText(pretty: true))
            } else {
                if let environment = EnvironmentCredentials.report() {
                    Self.printWrapped("Environment: \(environment).")
                }
                if sorted.isEmpty {
                    Self.printWrapped(
                        "No stored credentials (\(manager.arcGISCredentialStore.backend.name) store). Sign in with: "
                            + "portal-auth login --portal URL --username USER"
                    )
                } else {
                    Self.printTable(marked, now: now, keys: keys)
                }
                try RememberedPassword.statusLines(in: manager.arcGISCredentialStore.backend).forEach {
                    Self.printWrapped($0)
                }
            }
        }
    }

    /// `--check`: the table (or the JSON report), each credential that lapses on stderr, and exit 6 if any does.
    func checkExpiry(
        _ summaries: [CredentialSummary], manager: AuthenticationManager, now: Date, keys: [String: APIKeyCredential]
    ) async throws {
        let window = within ?? DurationArgument(argument: "7d")!
        let deadline = now.addingTimeInterval(TimeInterval(window.seconds))
        let lapses = try await ExpiryCheck.lapses(in: summaries, before: deadline, manager: manager)
        if json {
            output(try ExpiryCheck.json(lapses, within: window, now: now).jsonText(pretty: true))
        } else if summaries.isEmpty {
            output(
                "Nothing to check: no stored credentials (\(manager.arcGISCredentialStore.backend.name) store).")
        } else {
            Self.printTable(summaries.map { ($0, nil) }, now: now, keys: keys)
        }
        for lapse in lapses { printError(ExpiryCheck.line(lapse, now: now)) }
        if !lapses.isEmpty { throw ExitCode(credentialsExpiringExitCode) }
    }

    /// The JSON of `status --json`: one object a credential (`active` for the accounts of a portal
    /// with several; `renewableUntil`, the library's answer that `--check` uses, from `lapses`, one a
    /// summary: when it stops working unless someone signs in again, null when it renews without end;
    /// left out where the answer is not known: an unreadable item, a store that could not be read).
    static func json(
        _ summaries: [(summary: CredentialSummary, active: Bool?)], now: Date, keys: [String: APIKeyCredential],
        lapses: [Date??] = []
    ) -> JSONValue {
        .array(
            summaries.enumerated().map { index, row -> JSONValue in
                let (s, active) = row
                var renewable: [String: JSONValue] = [:]
                if s.renewal != nil, lapses.indices.contains(index), let lapse = lapses[index] {
                    renewable["renewableUntil"] = lapse.map { .string($0.iso8601) } ?? .null
                }
                if case .object(let key)? = APIKeyLogin.statusJSON(s, key: keys[s.server]) {
                    return .object(key.merging(renewable) { $1 })
                }
                var object: [String: JSONValue] = [
                    "store": .string(s.store), "kind": .string(s.kind), "server": .string(s.server),
                    "username": s.username.map(JSONValue.string) ?? .null,
                    "expires": s.expirationDate.map { .string($0.iso8601) } ?? .null,
                    "expired": s.expirationDate.map { .bool($0 < now) } ?? .bool(false),
                    "backend": .string(s.backend),
                ]
                if let active { object["active"] = .bool(active) }
                return .object(object.merging(renewable) { $1 })
            })
    }

    /// Each sign-in's ``ExpiryCheck/lapse(of:manager:)``; nil where it could not be told (a store that
    /// failed to read: the listing goes on without that answer).
    static func lapses(of summaries: [CredentialSummary], manager: AuthenticationManager) async -> [Date??] {
        var lapses: [Date??] = []
        for summary in summaries { lapses.append(try? await ExpiryCheck.lapse(of: summary, manager: manager)) }
        return lapses
    }

    /// The table of `status`: kind, server, user, expiry, store.
    static func printTable(
        _ summaries: [(summary: CredentialSummary, active: Bool?)], now: Date, keys: [String: APIKeyCredential]
    ) {
        var rows = [["KIND", "SERVER", "USER", "EXPIRES", "STORE"]]
        for (s, active) in summaries {
            let expiry = s.expirationDate.map { $0 < now ? "expired \($0.iso8601)" : $0.iso8601 } ?? "-"
            let server = keys[s.server].map(APIKeyLogin.describeScope) ?? s.server
            rows.append([s.kind, server, userColumn(s, active: active), expiry, s.backend])
        }
        let widths = fittedWidths(rows, within: TerminalWidth.current())
        for row in rows {
            outputLine(
                row.enumerated().map {
                    let cell = TerminalWidth.shorten($0.element, to: widths[$0.offset])
                    return $0.offset == 4 ? cell : cell.padding(toLength: widths[$0.offset])
                }.joined(separator: "  "))
        }
    }

    /// The columns' widths, the SERVER and USER columns (a scope list, a URL, a long name) narrowed
    /// so that a row keeps within `limit` columns; `--json` carries them in full.
    static func fittedWidths(_ rows: [[String]], within limit: Int) -> [Int] {
        var widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        let room = limit - (widths[0] + widths[3] + widths[4] + 4 * 2)
        if widths[1] + widths[2] > room {
            let user = min(widths[2], max(8, room / 3))
            widths[1] = min(widths[1], max(12, room - user))
            widths[2] = user
        }
        return widths
    }

    /// A line of prose, wrapped to the terminal's width.
    static func printWrapped(_ text: String) {
        TerminalWidth.wrap(text, width: TerminalWidth.current()).forEach { outputLine($0) }
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
