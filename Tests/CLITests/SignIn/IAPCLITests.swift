import Foundation
import PortalEmulator
import TestSupport
import Testing

/// An IAP configuration file for an emulator with its proxy; returns its path.
func writeIAPConfig(_ emulator: PortalEmulator, _ change: (inout [String: Any]) -> Void = { _ in }) throws -> String {
    let proxyHost = String(emulator.proxyBaseURL!.dropFirst("https://".count))
    var object: [String: Any] = [
        "authorize_url": emulator.entraBaseURL + "/authorize", "token_url": emulator.entraBaseURL + "/token",
        "logout_url": emulator.entraBaseURL + "/logout", "client_id": "iap-client",
        "redirect_url": "http://127.0.0.1/iap/callback",
        "scope": ["iap-client/.default", "offline_access", "openid", "profile"], "hosts_behind_proxy": [proxyHost],
        "authorization_prompt_type": "login",
    ]
    change(&object)
    let path = temporaryPath("iap") + ".json"
    try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]).write(
        to: URL(fileURLWithPath: path))
    return path
}

/// Writes an IAP configuration file for `emulator`, runs `body` with its path, and removes the file.
@discardableResult
func withIAPConfig<T>(
    _ emulator: PortalEmulator, _ change: (inout [String: Any]) -> Void = { _ in }, _ body: (String) async throws -> T
) async throws -> T {
    try await withResource(
        try writeIAPConfig(emulator, change), release: { try? FileManager.default.removeItem(atPath: $0) }, body)
}

@Suite struct IAPCLITests {
    @Test func loginRequestTokenChainStatusAndLogoutBehindTheProxy() async throws {
        try await withEmulator(configuring: { $0.proxyPort = 0 }) { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                try await withIAPConfig(emulator) { config in
                    let proxied = emulator.proxyBaseURL! + "/portal"

                    let signIn = try await CLI.portalAuth(
                        ["login", "--config", config], emulator: emulator,
                        environment: scriptedBrowser(emulator).merging(env) { $1 })
                    #expect(signIn.status == 0, "\(signIn.stderr)")
                    #expect(
                        signIn.stdout.contains(
                            "Signed in to the identity-aware proxy for \(String(emulator.proxyBaseURL!.dropFirst(8))) as alice@example.com"
                        ))
                    #expect(signIn.stderr.contains("Ctrl-C to cancel"))
                    #expect(emulator.counters().entraLastPrompt == "login")

                    let items = try await CLI.keyringItems(
                        server: emulator.entraBaseURL + "/token#client_id=iap-client", environment: env)
                    #expect(items.contains("attribute.kind = iap"))
                    #expect(items.contains("attribute.store = proxy"))

                    let request = try await CLI.portalAuth(
                        ["request", proxied + "/sharing/rest/portals/self"], emulator: emulator, environment: env)
                    #expect(request.status == 0, "\(request.stderr)")
                    #expect(request.stdout.contains("Emulated Portal"))

                    // Only the proxy is signed in: the header is the proxy's.
                    let proxyOnly = try await CLI.portalAuth(
                        ["token", proxied, "--format", "header"], emulator: emulator, environment: env)
                    #expect(proxyOnly.status == 0, "\(proxyOnly.stderr)")
                    #expect(proxyOnly.stdout.hasPrefix("Authorization: Bearer ey"))
                    #expect(!proxyOnly.stdout.contains("X-Esri-Authorization"))
                    let described = items.split(separator: "\n").filter {
                        $0.hasPrefix("attribute.") || $0.hasPrefix("label")
                    }
                    .joined(separator: "\n")
                    #expect(
                        !described.contains(String(proxyOnly.trimmedStdout.dropFirst("Authorization: Bearer ".count))))

                    // A portal sign-in behind the proxy: generateToken goes through the proxy, and both headers come out.
                    let portalSignIn = try await CLI.portalAuth(
                        ["login", "--portal", proxied, "--username", "alice", "--password-stdin"],
                        emulator: emulator, stdin: alicePassword, environment: env)
                    #expect(portalSignIn.status == 0, "\(portalSignIn.stderr)")
                    let both = try await CLI.portalAuth(
                        ["token", proxied, "--format", "header"], emulator: emulator, environment: env)
                    #expect(both.stdout.contains("X-Esri-Authorization: Bearer "))
                    #expect(both.stdout.contains("Authorization: Bearer ey"))
                    let json = try await CLI.portalAuth(
                        ["token", proxied, "--format", "json"], emulator: emulator, environment: env)
                    let object = try #require(
                        try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                    #expect(object["proxyToken"] is String && object["token"] is String)
                    // Over plain http neither token is handed on (the transport never sends the proxy's there).
                    let plain = proxied.replacingOccurrences(of: "https://", with: "http://")
                    let overHTTP = try await CLI.portalAuth(
                        ["token", plain, "--format", "json"], emulator: emulator, environment: env)
                    #expect(overHTTP.status != 0 && !overHTTP.stdout.contains("Bearer"), "\(overHTTP.stdout)")
                    // exec behind the proxy: COMMAND gets both tokens, and its header file carries both headers
                    // (curl reads it as it is, through the proxy).
                    let script = """
                        [ -n "$PORTAL_AUTH_IAP_TOKEN" ] && [ -n "$PORTAL_AUTH_TOKEN" ] || exit 9
                        [ "$PORTAL_AUTH_PROXY_TOKEN" = "$PORTAL_AUTH_IAP_TOKEN" ] || exit 10
                        curl -sS --cacert "$CURL_CA_BUNDLE" -H @"$GDAL_HTTP_HEADER_FILE" "$1/sharing/rest/community/self?f=json"
                        """
                    let exec = try await CLI.portalAuth(
                        ["exec", proxied, "--", "sh", "-c", script, "exec-behind-proxy", proxied], emulator: emulator,
                        environment: env)
                    #expect(exec.status == 0, "\(exec.stderr)")
                    #expect(exec.stdout.contains("\"username\":\"alice\""), "\(exec.stdout)")
                    // `token`'s fast path leaves a host behind a proxy to the full command (plain, which has no
                    // proxy part, it answers): the same output either way.
                    for format in ["plain", "json", "header", "env"] {
                        let fast = try await CLI.portalAuth(
                            ["token", proxied, "--format", format], emulator: emulator, environment: env)
                        let full = try await CLI.portalAuth(
                            ["token", proxied, "--format", format], emulator: emulator,
                            environment: env.merging(["PORTAL_AUTH_NO_FAST_PATH": "1"]) { $1 })
                        #expect(
                            fast.status == 0 && fast.stdout == full.stdout && fast.stderr == full.stderr
                                && fast.status == full.status, "\(format): \(fast.stdout) | \(full.stdout)")
                    }
                    // A proxy credential for other hosts than the URL's: the fast path reads the proxy
                    // credentials (there are some), finds none for this host, and answers every format itself.
                    let direct = try await CLI.portalAuth(
                        ["login", "--portal", emulator.portalURL, "--username", "alice", "--password-stdin"],
                        emulator: emulator, stdin: alicePassword, environment: env)
                    #expect(direct.status == 0, "\(direct.stderr)")
                    for format in ["plain", "json", "header", "gdal", "env"] {
                        let fast = try await CLI.portalAuth(
                            ["token", emulator.portalURL, "--format", format], emulator: emulator, environment: env)
                        let full = try await CLI.portalAuth(
                            ["token", emulator.portalURL, "--format", format], emulator: emulator,
                            environment: env.merging(["PORTAL_AUTH_NO_FAST_PATH": "1"]) { $1 })
                        #expect(
                            fast.status == 0 && fast.stdout == full.stdout && fast.stderr == full.stderr
                                && !fast.stdout.lowercased().contains("proxy")
                                // (The proxy's Entra token, a JWT, is in none: Authorization holds the ArcGIS one.)
                                && !fast.stdout.contains("Bearer ey"),
                            "\(format): \(fast.stdout) | \(full.stdout)")
                    }
                    let me = try await CLI.portalAuth(
                        ["whoami", "--portal", proxied], emulator: emulator, environment: env)
                    #expect(me.stdout.contains("alice (Alice Anderson)"), "\(me.stderr)")
                    #expect(emulator.counters().entraTokensOutsideProxy == 0)

                    let status = try await CLI.portalAuth(["status"], emulator: emulator, environment: env)
                    #expect(status.stdout.contains("iap "))
                    #expect(status.stdout.contains("token "))

                    let logout = try await CLI.portalAuth(
                        ["logout", "--all", "--no-browser"], emulator: emulator, environment: env)
                    #expect(logout.status == 0, "\(logout.stderr)")
                    #expect(logout.stderr.contains(emulator.entraBaseURL + "/logout"))
                    #expect(logout.stdout.contains("Signed out of the identity-aware proxy (alice@example.com)"))
                    let after = try await CLI.portalAuth(["status", "--json"], emulator: emulator, environment: env)
                    #expect(after.trimmedStdout == "[\n\n]" || after.trimmedStdout == "[]")

                    // Signed out of the proxy: a request says how to sign in again.
                    let refused = try await CLI.portalAuth(
                        ["request", proxied + "/sharing/rest/portals/self"], emulator: emulator, environment: env)
                    #expect(refused.status != 0)
                    #expect(refused.oneLineError, "\(refused.stderr)")
                    #expect(
                        refused.stderr.contains("identity-aware proxy")
                            && refused.stderr.contains("portal-auth login --config"))
                }
            }
        }
    }

    /// 50 `portal-auth token --format header` processes with an IAP token inside the refresh
    /// window: one refresh at Entra ID, one token printed by all.
    @Test func concurrentProcessesRefreshTheProxyTokenOnce() async throws {
        try await withEmulator(configuring: {
            $0.proxyPort = 0; $0.entraTokenLifetimeSeconds = 120
        }) { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                try await withIAPConfig(emulator) { config in
                    let proxied = emulator.proxyBaseURL! + "/portal"
                    #expect(
                        try await CLI.portalAuth(
                            ["login", "--config", config], emulator: emulator,
                            environment: scriptedBrowser(emulator).merging(env) { $1 }
                        ).status == 0)
                    emulator.setEntraTokenLifetime(seconds: 3600)
                    let results = try await withThrowingTaskGroup(of: CLIResult.self) { group in
                        for _ in 0..<50 {
                            group.addTask {
                                try await CLI.portalAuth(
                                    ["token", proxied, "--format", "header"], emulator: emulator, environment: env)
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(results.allSatisfy { $0.status == 0 }, "\(results.first { $0.status != 0 }?.stderr ?? "")")
                    #expect(Set(results.map(\.trimmedStdout)).count == 1)
                    #expect(emulator.counters().entraRefreshTokenGrants == 1)
                    let request = try await CLI.portalAuth(
                        ["request", proxied + "/sharing/rest/portals/self"], emulator: emulator, environment: env)
                    #expect(request.status == 0)
                    #expect(emulator.counters().entraRefreshTokenGrants == 1)
                }
            }
        }
    }

    @Test func aBadIAPConfigNamesTheKeyAndStoresNothing() async throws {
        try await withEmulator(configuring: { $0.proxyPort = 0 }) { emulator in
            for (change, expected) in [
                ({ (o: inout [String: Any]) in o["hosts_behind_proxy"] = nil }, "missing key \"hosts_behind_proxy\""),
                // Without authorize_url the other keys still make it an IAP file, and the message says so.
                ({ (o: inout [String: Any]) in o["authorize_url"] = nil }, "missing key \"authorize_url\""),
                (
                    { (o: inout [String: Any]) in o["authorize_url"] = nil },
                    "read as an identity-aware proxy (IAP) sign-in"
                ),
                (
                    { (o: inout [String: Any]) in o["hosts_behind_proxy"] = [String]() },
                    "\"hosts_behind_proxy\" must be a non-empty array"
                ),
                (
                    { (o: inout [String: Any]) in o["authorization_prompt_type"] = "sometimes" },
                    "\"authorization_prompt_type\" must be one of"
                ),
                (
                    { (o: inout [String: Any]) in o["token_url"] = "http://login.example.com/token" },
                    "\"token_url\" must be an https URL"
                ),
                ({ (o: inout [String: Any]) in o["scopes"] = ["openid"] }, "unknown key \"scopes\""),
            ] as [((inout [String: Any]) -> Void, String)] {
                let config = try writeIAPConfig(emulator, change)
                defer { try? FileManager.default.removeItem(atPath: config) }
                let r = try await CLI.portalAuth(
                    ["login", "--config", config], emulator: emulator, environment: scriptedBrowser(emulator))
                #expect(r.status != 0)
                #expect(r.oneLineError, "\(r.stderr)")
                #expect(r.stderr.contains(expected), "\(r.stderr)")
                #expect(r.stderr.contains(config))
            }
            #expect(emulator.counters().entraAuthorizeRequests == 0)
            #expect(
                !(try await CLI.keyringItems(server: emulator.entraBaseURL + "/token#client_id=iap-client")).contains(
                    "label"))
        }
    }

    @Test func aPortalSignInBehindTheProxyBeforeTheProxySignInSaysWhatToDo() async throws {
        try await withEmulator(configuring: { $0.proxyPort = 0 }) { emulator in
            let r = try await CLI.portalAuth(
                ["login", "--portal", emulator.proxyBaseURL! + "/portal", "--username", "alice", "--password-stdin"],
                emulator: emulator, stdin: alicePassword)
            #expect(r.status != 0)
            #expect(r.oneLineError, "\(r.stderr)")
            #expect(
                r.stderr.contains("is behind an identity-aware proxy")
                    && r.stderr.contains("portal-auth login --config"),
                "\(r.stderr)")
            #expect(emulator.counters().generateTokenRequests == 0)
        }
    }

    @Test func aDeniedProxySignInStoresNothing() async throws {
        try await withEmulator(configuring: { $0.proxyPort = 0 }) { emulator in
            try await withIAPConfig(emulator) { config in
                let r = try await CLI.portalAuth(
                    ["login", "--config", config], emulator: emulator,
                    environment: scriptedBrowser(emulator, action: "deny"))
                #expect(r.status != 0)
                #expect(r.stderr.contains("declined (access_denied"), "\(r.stderr)")
                #expect(
                    !(try await CLI.keyringItems(server: emulator.entraBaseURL + "/token#client_id=iap-client"))
                        .contains(
                            "label"))
            }
        }
    }
}
