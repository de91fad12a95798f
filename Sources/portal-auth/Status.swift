import ArgumentParser
import PortalAuth

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
            Examples:
              portal-auth status
              portal-auth status --json
              portal-auth status --store file
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        try await runReportingErrors {
            let manager = try global.makeManager()
            let all =
                try await manager.arcGISCredentialStore.summaries() + manager.networkCredentialStore.summaries()
                + manager.iapCredentialStore.summaries()
            let sorted = all.sorted { ($0.server, $0.kind) < ($1.server, $1.kind) }
            let now = Date()
            let keys = try await APIKeyLogin.keysByStoreKey(in: manager.arcGISCredentialStore)  // API key (#22)
            if json {
                let items = sorted.map { s -> JSONValue in
                    APIKeyLogin.statusJSON(s, key: keys[s.server])
                        ?? .object([
                            "store": .string(s.store), "kind": .string(s.kind), "server": .string(s.server),
                            "username": s.username.map(JSONValue.string) ?? .null,
                            "expires": s.expirationDate.map { .string($0.iso8601) } ?? .null,
                            "expired": s.expirationDate.map { .bool($0 < now) } ?? .bool(false),
                            "backend": .string(s.backend),
                        ])
                }
                output(try JSONValue.array(items).jsonText(pretty: true))
                return
            }
            guard !sorted.isEmpty else {
                output(
                    "No stored credentials (\(manager.arcGISCredentialStore.backend.name) store). Sign in with: portal-auth login --portal URL --username USER"
                )
                return
            }
            var rows = [["KIND", "SERVER", "USER", "EXPIRES", "STORE"]]
            for s in sorted {
                let expiry = s.expirationDate.map { $0 < now ? "expired \($0.iso8601)" : $0.iso8601 } ?? "-"
                let server = keys[s.server].map(APIKeyLogin.describeScope) ?? s.server
                rows.append([s.kind, server, s.username ?? "-", expiry, s.backend])
            }
            let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                output(
                    row.enumerated().map {
                        $0.offset == 4 ? $0.element : $0.element.padding(toLength: widths[$0.offset])
                    }.joined(separator: "  "))
            }
        }
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
