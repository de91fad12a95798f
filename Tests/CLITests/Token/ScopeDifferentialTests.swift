import Foundation
import PortalEmulator
import TestSupport
import Testing

/// The fast path and the full path of `token` ask one scope decision: over a matrix of store states
/// (named accounts and switches, an application's sign-in and another user's pregenerated token
/// taking a portal over, an API key beside a user, federated and standalone servers), for several
/// URLs and formats, the fast path prints exactly what the full path (`PORTAL_AUTH_NO_FAST_PATH=1`)
/// prints, in a private keyring against portal-emulator.
@Suite struct ScopeDifferentialTests {
    static let key = EmulatorAPIKey(
        key: "AAPTscopeDifferentialKey0000000000000000001xxxxxxxxx", name: "scope", lifetimeSeconds: 86_400,
        privileges: EmulatorAPIKey.allPrivileges)
    static let formats = ["plain", "json", "header", "env"]

    /// The file the fast path appends to when it answered (`PORTAL_AUTH_FAST_PATH_MARK`).
    let mark = FileManager.default.temporaryDirectory.appendingPathComponent("fast-path-mark-\(UUID().uuidString)").path

    /// One run of `token URL --format F` each way, against the full path (`portal-auth-full` with
    /// `PORTAL_AUTH_NO_FAST_PATH=1`); all must agree (status, stdout, stderr): the full program's
    /// fast path (`portal-auth-full`), then the small `portal-auth` three times (it answers from
    /// what the full program recorded, which takes it two runs in a keyring it has not read yet;
    /// before that, and for anything else, it hands over). Returns the stdout, whether the full
    /// program's fast path answered, and whether the small program answered the last run.
    @discardableResult
    func compare(
        _ url: String, _ format: String, _ emulator: PortalEmulator, _ env: [String: String], step: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (stdout: String, answeredFast: Bool, answeredSmall: Bool) {
        let arguments = ["token", url, "--format", format]
        let full = try await CLI.portalAuth(
            arguments, emulator: emulator, environment: env.merging(["PORTAL_AUTH_NO_FAST_PATH": "1"]) { $1 },
            full: true)
        let what = "\(step): token \(url) --format \(format)"
        var marks: [String] = []
        for run in 0..<4 {
            try? FileManager.default.removeItem(atPath: mark)
            let fast = try await CLI.portalAuth(
                arguments, emulator: emulator, environment: env.merging(["PORTAL_AUTH_FAST_PATH_MARK": mark]) { $1 },
                full: run == 0)
            marks.append((try? String(contentsOfFile: mark, encoding: .utf8)) ?? "")
            let which = "\(what) (\(run == 0 ? "portal-auth-full" : "portal-auth, run \(run)"))"
            #expect(
                fast.status == full.status, "\(which): \(fast.stderr) | \(full.stderr)", sourceLocation: sourceLocation)
            #expect(
                fast.stdout == full.stdout, "\(which):\n\(fast.stdout)\nvs\n\(full.stdout)",
                sourceLocation: sourceLocation)
            #expect(
                fast.stderr == full.stderr, "\(which):\n\(fast.stderr)\nvs\n\(full.stderr)",
                sourceLocation: sourceLocation)
        }
        try? FileManager.default.removeItem(atPath: mark)
        return (full.stdout, marks[0] == "answered\n", marks[3] == "answered by portal-auth\n")
    }

    /// Every URL in every format; then the json answer of each URL. The fast path must have
    /// answered every format of each URL in `fast` (a credential ready in the store): the
    /// comparison is not vacuous.
    @discardableResult
    func compareAll(
        _ urls: [String], _ emulator: PortalEmulator, _ env: [String: String], step: String, fast: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: [String: Any]] {
        var answers: [String: [String: Any]] = [:]
        for url in urls {
            for format in Self.formats {
                let (out, answeredFast, answeredSmall) = try await compare(
                    url, format, emulator, env, step: step, sourceLocation: sourceLocation)
                if format == "json", let object = try? JSONSerialization.jsonObject(with: Data(out.utf8)) {
                    answers[url] = object as? [String: Any]
                }
                if fast.contains(url) {
                    #expect(answeredFast, "\(step): the fast path did not answer token \(url) --format \(format)")
                    #expect(
                        answeredSmall || env["PORTAL_AUTH_STORE"] == "file",
                        "\(step): the small portal-auth did not answer token \(url) --format \(format)")
                }
            }
        }
        return answers
    }

    func run(
        _ arguments: [String], _ emulator: PortalEmulator, _ env: [String: String], stdin: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let r = try await CLI.portalAuth(arguments, emulator: emulator, stdin: stdin, environment: env)
        #expect(r.status == 0, "\(arguments): \(r.stderr)", sourceLocation: sourceLocation)
    }

    /// `scheme://host:port/path/` of `url` (as the scope prints prefixes).
    static func prefix(_ url: String) -> String {
        let parts = URLComponents(string: url)!
        return "\(parts.scheme!)://\(parts.host!):\(parts.port ?? 443)\(parts.path)/"
    }

    @Test func theFastPathAnswersWhatTheFullPathAnswersOverAMatrixOfStoreStates() async throws {
        try await withEmulator(configuring: { $0.apiKeys = [Self.key] }) { emulator in
            try await withPrivateKeyring { keyring in
                let env = keyring.environment
                let portal = emulator.portalURL
                let layer = emulator.serverURL + "/rest/services/Parcels/FeatureServer/0"
                let standalone = emulator.standaloneServerURL + "/rest/services"
                let geocode = try #require(emulator.geocodeServiceURL)
                let urls = [portal, portal + "/sharing/rest/portals/self", layer, layer + "/query", standalone]
                // The portal's credential is ready in the store at every step: the fast path answers it.
                let ready = [portal, portal + "/sharing/rest/portals/self"]

                // alice signs in; the layer's server token is obtained (the fast path hands over once).
                #expect(try await login(emulator, environment: env).status == 0)
                var answers = try await compareAll(urls, emulator, env, step: "alice", fast: ready)
                let alicesServerToken = try #require(answers[layer]?["token"] as? String)
                #expect(answers[portal]?["kind"] as? String == "token")
                #expect(answers[portal]?["scope"] as? [String] == [Self.prefix(portal)])
                #expect(answers[layer]?["kind"] as? String == "federated-token")
                #expect(answers[layer]?["scope"] as? [String] == [Self.prefix(emulator.serverURL)])
                #expect(answers[standalone] == nil)

                // An application's sign-in takes the portal over: alice's server token is not its own.
                try await run(
                    ["login", "--portal", portal, "--client-id", "portal-auth-app", "--client-secret-stdin"], emulator,
                    env, stdin: "app-secret-456")
                answers = try await compareAll(urls, emulator, env, step: "app", fast: ready)
                let appsServerToken = try #require(answers[layer]?["token"] as? String)
                #expect(appsServerToken != alicesServerToken)

                // bob's pregenerated token takes it over from the application.
                let bobs = emulator.issueToken(username: "bob", lifetimeSeconds: 3600)
                try await run(
                    ["login", "--url", portal, "--token-stdin", "--username", "bob", "--expires-in", "3600"], emulator,
                    env, stdin: bobs)
                answers = try await compareAll(urls, emulator, env, step: "bob's pregenerated token", fast: ready)
                let bobsServerToken = try #require(answers[layer]?["token"] as? String)
                #expect(![alicesServerToken, appsServerToken].contains(bobsServerToken))
                #expect(answers[portal]?["token"] as? String == bobs)

                // Named accounts: alice, then bob beside her; switches back and forth.
                try await run(["logout", "--all", "--no-browser"], emulator, env)
                #expect(try await login(emulator, environment: env).status == 0)
                try await compareAll(urls, emulator, env, step: "alice again", fast: ready)
                try await run(
                    ["login", "--portal", portal, "--username", "bob", "--password-stdin"], emulator, env,
                    stdin: "bob-pass-456")
                try await compareAll(urls, emulator, env, step: "bob beside alice", fast: ready)
                try await run(["switch", portal, "bob"], emulator, env)
                answers = try await compareAll(urls, emulator, env, step: "switched to bob", fast: ready)
                let bobsOwn = try #require(answers[layer]?["token"] as? String)
                try await run(["switch", portal, "alice"], emulator, env)
                answers = try await compareAll(urls, emulator, env, step: "switched back to alice", fast: ready)
                #expect(answers[layer]?["token"] as? String != bobsOwn)

                // An API key beside the user: the key for its services, the user's token for the portal.
                try await run(
                    ["login", "--api-key-stdin", "--portal", portal, "--host", "127.0.0.1:9"], emulator, env,
                    stdin: Self.key.key + "\n")
                answers = try await compareAll(
                    urls + [geocode, geocode + "/findAddressCandidates", "https://127.0.0.1:9/anything"], emulator, env,
                    step: "API key beside alice", fast: ready + [layer])
                #expect(answers[geocode]?["kind"] as? String == "api-key")
                #expect(answers[geocode]?["token"] as? String == Self.key.key)
                let keyScope = try #require(answers[geocode]?["scope"] as? [String])
                #expect(keyScope.contains(Self.prefix(portal)) && keyScope.contains("https://127.0.0.1:9/"))
                #expect(keyScope.contains { Self.prefix(geocode).hasPrefix($0) })
                #expect(answers[portal]?["kind"] as? String == "token")
                #expect(answers[portal]?["scope"] as? [String] == [Self.prefix(portal)])
                #expect(answers["https://127.0.0.1:9/anything"]?["kind"] as? String == "api-key")

                // A standalone server (its own token service) beside the federated one.
                try await run(
                    ["login", "--url", standalone, "--username", "alice", "--password-stdin"], emulator, env,
                    stdin: alicePassword)
                answers = try await compareAll(
                    urls, emulator, env, step: "standalone server", fast: ready + [standalone, layer])
                #expect(answers[standalone]?["kind"] as? String == "token")
                #expect(answers[standalone]?["scope"] as? [String] == [Self.prefix(emulator.standaloneServerURL)])
            }
        }
    }
}
