import Foundation
import PortalEmulator
import TestSupport
import Testing

/// The hand-offs the docs print (`token --format header/gdal/json`, `exec`'s header file) given to
/// the real clients that follow redirects — curl `-L`, wget, GDAL's `ogrinfo`/`ogr2ogr`, python
/// requests — when an in-scope URL answers 302 to another host (item data kept in blob storage):
/// that host must receive no token. The emulator's `redirect` fault sends the client from the
/// portal (or the federated server) at `127.0.0.1` to `localhost`, another host to every client,
/// and counts what arrives there.
@Suite struct HandOffRedirectTests {
    /// What arrived at the landing host while `body` ran: requests, and those carrying any token
    /// (`Authorization`, `X-Esri-Authorization`, `token=`).
    struct Landing: Equatable {
        var requests = 0
        var withToken = 0
    }

    static let landingPath = "/emulator/echo/landing"

    static func landing(_ use: TokenUse, during body: () async throws -> Void) async throws -> Landing {
        let origin = "https://localhost:\(use.emulator.port)"
        let before = use.emulator.counters()
        try await body()
        let after = use.emulator.counters()
        return Landing(
            requests: (after.requestsByPath[landingPath] ?? 0) - (before.requestsByPath[landingPath] ?? 0),
            withToken: (after.tokenBearingRequestsByOrigin[origin] ?? 0)
                - (before.tokenBearingRequestsByOrigin[origin] ?? 0))
    }

    /// Signs alice in and arms the redirects: the portal's `items/moved/data` and the federated
    /// layer's `moved` go to the landing host.
    static func arm(_ use: TokenUse) async throws -> (item: String, layer: String) {
        try await use.signIn()
        let target = "https://localhost:\(use.emulator.port)\(landingPath)"
        use.emulator.inject(Fault(kind: .redirect, pathContains: "/items/moved/data", location: target))
        use.emulator.inject(Fault(kind: .redirect, pathContains: "/FeatureServer/0/moved", location: target))
        return (use.emulator.portalURL + "/sharing/rest/content/items/moved/data", use.layer + "/moved")
    }

    @Test func curlFollowingARedirectCarriesNoTokenToAnotherHost() async throws {
        try await TokenUse.with { use in
            let (item, layer) = try await Self.arm(use)
            for url in [item, layer] {
                let seen = try await Self.landing(use) {
                    let result = try await use.bash(
                        """
                        headers=$(mktemp)
                        portal-auth token "$URL" --format header > "$headers" && curl -sSL -H @"$headers" "$URL"
                        rm -f "$headers"
                        """, extra: ["URL": url])
                    #expect(result.stdout.contains("\"hadToken\":false"), "\(result.stdout) \(result.stderr)")
                }
                #expect(seen == Landing(requests: 1, withToken: 0), "\(url)")
            }
        }
    }

    @Test func pythonRequestsWithTheJSONHeadersCarriesNoTokenToAnotherHost() async throws {
        try await TokenUse.with { use in
            let (item, _) = try await Self.arm(use)
            let seen = try await Self.landing(use) {
                let result = try await use.bash(
                    """
                    portal-auth token "$URL" --format json | python3 -c '
                    import json, os, sys, requests
                    headers = json.load(sys.stdin)["headers"]
                    print(requests.get(os.environ["URL"], headers=headers).text)
                    '
                    """, extra: ["URL": item])
                #expect(result.stdout.contains("\"hadToken\":false"), "\(result.stdout) \(result.stderr)")
            }
            #expect(seen == Landing(requests: 1, withToken: 0))
        }
    }

    @Test func gdalWithTheGDALHeadersAndExecCarriesNoTokenToAnotherHost() async throws {
        try await TokenUse.with { use in
            let (item, layer) = try await Self.arm(use)
            // The landing answer is no ESRIJSON, so GDAL fails there: what counts is what it sent.
            let scripts = [
                #"h=$(portal-auth token "$URL" --format gdal) && GDAL_HTTP_HEADERS=$h ogrinfo -ro -so "ESRIJSON:$URL" || true"#,
                #"portal-auth exec "$URL" -- ogrinfo -ro -so "ESRIJSON:$URL" || true"#,
                #"portal-auth exec "$URL" -- ogr2ogr -f GeoJSON out.geojson "ESRIJSON:$URL" || true"#,
                #"portal-auth exec "$URL" -- sh -c 'curl -sSL -H @"$GDAL_HTTP_HEADER_FILE" "$0"' "$URL""#,
            ]
            for script in scripts {
                for url in [item, layer] {
                    var output = ""
                    let seen = try await Self.landing(use) {
                        let result = try await use.bash(script, extra: ["URL": url])
                        output = result.stdout + result.stderr
                    }
                    #expect(seen.requests >= 1, "the client did not follow the redirect: \(script) \(url): \(output)")
                    #expect(seen.withToken == 0, "\(script) \(url)")
                }
            }
        }
    }

    /// wget 1.21 sends every header it was given to whatever host a redirect names
    /// (CVE-2021-31879): the docs' recipe does not follow redirects (`max_redirect = 0`).
    @Test func wgetWithTheDocsRecipeDoesNotFollowTheRedirect() async throws {
        try await TokenUse.with { use in
            let (item, _) = try await Self.arm(use)
            let seen = try await Self.landing(use) {
                let result = try await use.bash(
                    """
                    wgetrc=$(mktemp)
                    hdr=$(portal-auth token "$URL" --format header) &&
                      { printf '%s\\n' "$hdr" | sed 's/^/header = /'; echo 'max_redirect = 0'; } > "$wgetrc" &&
                      WGETRC=$wgetrc wget -qO- "$URL" || echo "wget exited $?"
                    rm -f "$wgetrc"
                    """, extra: ["URL": item])
                #expect(result.stdout.contains("wget exited"), "\(result.stdout) \(result.stderr)")
            }
            #expect(seen == Landing(requests: 0, withToken: 0))
            // Without it, wget carries the token there: the reason for the recipe.
            let unsafe = try await Self.landing(use) {
                _ = try await use.bash(
                    """
                    wgetrc=$(mktemp)
                    portal-auth token "$URL" --format header | sed 's/^/header = /' > "$wgetrc" &&
                      WGETRC=$wgetrc wget -qO- "$URL" >/dev/null || true
                    rm -f "$wgetrc"
                    """, extra: ["URL": item])
            }
            #expect(unsafe == Landing(requests: 1, withToken: 1))
        }
    }
}
