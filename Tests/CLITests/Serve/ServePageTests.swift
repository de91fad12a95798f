import Foundation
import PortalEmulator
import TestSupport
import Testing

/// A page from an in-scope server, opened through `portal-auth serve` in a real browser, runs
/// nothing as serve: serve's answers sandbox it (an opaque origin with no scripts), and serve
/// refuses what only a page sends (`Origin`, `Sec-Fetch-Site` other than `none`, a `Referer` that
/// holds the secret), so the page gets neither the portal's token nor serve's secret.
@Suite(.serialized) struct ServePageTests {
    /// The hostile page (Tests/Fixtures/hostile-page.html) in headless chromium
    /// (Tests/Clients/serve_page_attack.py), once from its own collector's origin (the control:
    /// its script runs and reports there) and once through serve.
    @Test func aHostilePageOpenedThroughServeGetsNeitherTheTokenNorTheSecret() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let token = try await serve.use.token(serve.emulator.portalURL)
            let python = try await RealClients.python()
            let result = try await serve.bash(
                #"""
                start_serve
                echo "BASE=$BASE"
                page=$(portal-auth serve url --state-file serve.json "$PORTAL/sharing/rest/hostile")
                "$PYTHON" "$CLIENTS/serve_page_attack.py" "$page" "$FIXTURES/hostile-page.html" "$ORIGIN" "$CA"
                stop_serve
                """#,
                extra: [
                    "PYTHON": python, "CLIENTS": RealClients.scripts,
                    "FIXTURES": RealClients.repositoryRoot + "/Tests/Fixtures",
                ], timeout: 300)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let base = try #require(lines.first { $0.hasPrefix("BASE=") }).dropFirst("BASE=".count)
            let secret = try #require(base.split(separator: "/").last.map(String.init))
            let report = try #require(lines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) })
            let object = try #require(report as? [String: Any])
            let control = try #require(object["control"] as? [String: Any])
            let served = try #require(object["served"] as? [String: Any])

            // The control: this chromium runs the page's script, which reports to its collector.
            #expect(control["ran"] as? Bool == true, "the control page's script did not report: \(control)")
            // Through serve: the script never ran, and nothing reached the collector.
            #expect(served["ran"] as? Bool == false, "\(served)")
            #expect(served["title"] as? String == "hostile", "\(served)")
            let reports = "\(served["reports"] ?? [])"
            #expect(!reports.contains(secret) && !reports.contains(token), "\(reports)")
            // chromium received the page, and every other answer from serve was a refusal.
            let responses = try #require(served["responses"] as? [[String: Any]])
            let fromServe = responses.filter { ($0["url"] as? String)?.contains(secret) == true }
            #expect(
                fromServe.contains {
                    ($0["url"] as? String)?.hasSuffix("/hostile") == true && $0["status"] as? Int == 200
                })
            let others = fromServe.filter { ($0["url"] as? String)?.hasSuffix("/hostile") != true }
            #expect(others.allSatisfy { $0["status"] as? Int == 403 }, "\(others)")
            #expect(!result.stdout.contains(token))
        }
    }

    /// Serve's policy on every answer, the upstream's active headers dropped, and the refusals of
    /// what only a page sends, each against the same proxied page.
    @Test func everyAnswerCarriesServesPolicyAndWhatOnlyAPageSendsIsRefused() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                curl -sS --cacert "$CA" -H 'Content-Type: application/json' \
                  -d '{"kind":"page","pathContains":"/hostile","body":"<script>alert(1)</script>"}' "$ORIGIN/emulator/faults" >/dev/null
                start_serve
                page=$(portal-auth serve url --state-file serve.json "$PORTAL/sharing/rest/hostile")
                token="${BASE}token?url=$PORTAL"
                curl -sS -D page.headers -o /dev/null "$page"
                curl -sS -D refused.headers -o /dev/null -H 'Origin: null' "$token"
                code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
                for site in same-origin same-site cross-site; do
                  echo "site $site: $(code -H "Sec-Fetch-Site: $site" "$token") $(code -H "Sec-Fetch-Site: $site" "$page")"
                done
                echo "site none: $(code -H 'Sec-Fetch-Site: none' "$token")"
                echo "referer: $(code -H "Referer: $page" "$token") $(code -H "Referer: $page" "$page")"
                echo "other referer: $(code -H 'Referer: https://example.com/' "$token")"
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            for site in ["same-origin", "same-site", "cross-site"] {
                #expect(result.stdout.contains("site \(site): 403 403"), "\(result.stdout)")
            }
            #expect(result.stdout.contains("site none: 200"), "\(result.stdout)")
            #expect(result.stdout.contains("referer: 403 403"), "\(result.stdout)")
            #expect(result.stdout.contains("other referer: 200"), "\(result.stdout)")
            for file in ["page.headers", "refused.headers"] {
                let headers = try String(contentsOfFile: serve.use.directory + "/" + file, encoding: .utf8).lowercased()
                #expect(
                    headers.contains("content-security-policy: sandbox; frame-ancestors 'none'"), "\(file): \(headers)")
                #expect(headers.contains("x-content-type-options: nosniff"), "\(file): \(headers)")
                #expect(headers.contains("referrer-policy: no-referrer"), "\(file): \(headers)")
                for dropped in ["refresh:", "set-cookie:", "access-control-", "link:", "unsafe-url", "script-src"] {
                    #expect(!headers.contains(dropped), "\(file) passed on \(dropped): \(headers)")
                }
            }
        }
    }
}
