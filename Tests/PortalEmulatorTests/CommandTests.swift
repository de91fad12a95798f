import Foundation
import TestSupport
import Testing

/// The `portal-emulator` executable, run as a child process.
@Suite("portal-emulator command")
struct CommandTests {
    /// The built executable, next to the test bundle (or `PORTAL_EMULATOR_BIN`).
    static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["PORTAL_EMULATOR_BIN"] {
            return URL(fileURLWithPath: path)
        }
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            Bundle.main.bundleURL,
            URL(fileURLWithPath: CommandLine.arguments[0]),
        ]
        for candidate in candidates {
            var directory = candidate.deletingLastPathComponent()
            for _ in 0..<4 {
                let binary = directory.appendingPathComponent("portal-emulator")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: binary.path, isDirectory: &isDirectory),
                    !isDirectory.boolValue
                {
                    return binary
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw CurlError.missing("portal-emulator executable (build it, or set PORTAL_EMULATOR_BIN)")
    }

    /// Waits until `condition` holds, polling every 50 ms, for at most `seconds`.
    static func waitUntil(seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    @Test("prints one line, writes the state file once listening, serves, and exits 0 on SIGTERM")
    func startsAndStops() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("emu-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stateFile = directory.appendingPathComponent("state/emulator.json")
        let caFile = directory.appendingPathComponent("ca.pem")
        try await withChildProcess(
            try Self.executable().path,
            [
                "--state-file", stateFile.path, "--ca-out", caFile.path, "--http-port", "0",
                "--token-lifetime", "7", "--server-accepts-portal-tokens",
            ]
        ) { process in

            let started = try await Self.waitUntil(seconds: 120) {
                FileManager.default.fileExists(atPath: stateFile.path)
            }
            #expect(started)
            let state = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: stateFile)) as? [String: Any])
            let port = try #require(state["port"] as? Int)
            #expect(state["pid"] as? Int == Int(process.pid))
            #expect(state["httpPort"] is Int)
            #expect(state["baseURL"] as? String == "https://127.0.0.1:\(port)")
            #expect(state["portalURL"] as? String == "https://127.0.0.1:\(port)/portal")
            #expect(state["serverURL"] as? String == "https://127.0.0.1:\(port)/server")
            #expect(state["standaloneServerURL"] as? String == "https://127.0.0.1:\(port)/standalone")
            #expect(state["caCertificatePath"] as? String == caFile.path)
            let locationPort = try #require(state["locationServicesPort"] as? Int)
            #expect(locationPort != port)
            #expect(state["locationServicesBaseURL"] as? String == "https://127.0.0.1:\(locationPort)")

            let line = await process.nextLine(timeout: 120)
            #expect(
                line
                    == "portal-emulator: portal https://127.0.0.1:\(port)/portal, server https://127.0.0.1:\(port)/server, CA \(caFile.path)"
            )

            // The server really listens, with the options applied.
            let before = nowMilliseconds()
            let signIn = try await Curl.post(
                "https://127.0.0.1:\(port)/portal/sharing/rest/generateToken",
                form: [("username", "alice"), ("password", "alice-pass-123"), ("f", "json")], ca: caFile.path
            ).json()
            let expires = try #require((signIn["expires"] as? NSNumber)?.int64Value)
            let after = nowMilliseconds()
            #expect(expires > before + 7 * 60_000 - 1_000 && expires <= after + 7 * 60_000 + 1_000)
            let token = try #require(signIn["token"] as? String)
            let query = try await Curl.get(
                "https://127.0.0.1:\(port)/server/rest/services/Parcels/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json",
                ca: caFile.path, headers: ["X-Esri-Authorization": "Bearer \(token)"])
            #expect(try query.json()["count"] as? Int == 24)

            process.signal(SIGTERM)
            let status = await process.wait()
            #expect(status == 0)
        }
    }

    /// The variables `portal-emulator env` prints, which the children below must not inherit.
    static let sessionVariables = [
        "PORTAL_URL", "SERVER_URL", "LAYER", "PORTAL_AUTH_CA_BUNDLE", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE",
        "SSL_CERT_FILE",
    ]

    @Test("env prints export lines that make curl trust a running emulator")
    func envTrustsTheRunningEmulator() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("emu-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stateFile = directory.appendingPathComponent("emulator.json")
        let caFile = directory.appendingPathComponent("ca.pem")
        let executable = try Self.executable().path
        try await withChildProcess(
            executable, ["--state-file", stateFile.path, "--ca-out", caFile.path, "--port", "0"]
        ) {
            process in
            // The line comes once listening, after the state file is written.
            let line = try #require(await process.nextLine(timeout: 120))
            #expect(line.hasPrefix("portal-emulator: portal https://127.0.0.1:"))
            let state = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: stateFile)) as? [String: Any])
            let portal = try #require(state["portalURL"] as? String)
            let server = try #require(state["serverURL"] as? String)

            let env = try await Subprocess.run(executable, ["env", stateFile.path])
            #expect(env.status == 0, "\(env.stderr)")
            #expect(
                env.stdout == """
                    export PORTAL_URL='\(portal)'
                    export SERVER_URL='\(server)'
                    export LAYER='\(server)/rest/services/Parcels/FeatureServer/0'
                    export PORTAL_AUTH_CA_BUNDLE='\(caFile.path)'
                    export CURL_CA_BUNDLE='\(caFile.path)'
                    export REQUESTS_CA_BUNDLE='\(caFile.path)'
                    export SSL_CERT_FILE='\(caFile.path)'

                    """)

            // curl without --cacert: the CA comes from the exported variables alone.
            let script = """
                eval "$("$0" env "$1")"
                curl -sS --fail "$LAYER?f=json" -o /dev/null -w '%{http_code}\\n'
                curl -sS --fail "$PORTAL_URL/sharing/rest/info?f=json"
                """
            let session = try await Subprocess.run(
                "/bin/bash", ["-c", script, executable, stateFile.path],
                environment: Subprocess.environment([:], removing: Self.sessionVariables))
            #expect(session.status == 0, "\(session.stderr)")
            #expect(session.stdout.hasPrefix("200\n"), "\(session.stdout)")
            #expect(session.stdout.contains("owningSystemUrl"), "\(session.stdout)")

            process.signal(SIGTERM)
            #expect(await process.wait() == 0)
        }
    }

    @Test("env quotes values for the shell, and fails on a missing or foreign state file")
    func envQuotesAndFails() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("emu-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let executable = try Self.executable().path
        let odd = directory.path + "/it's a $HOME `x` \\ \"ca\".pem"
        let state: [String: Any] = [
            "portalURL": "https://127.0.0.1:1/portal", "serverURL": "https://127.0.0.1:1/server",
            "caCertificatePath": odd,
        ]
        let stateFile = directory.path + "/state.json"
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: stateFile))
        let session = try await Subprocess.run(
            "/bin/bash",
            ["-c", "eval \"$(\"$0\" env \"$1\")\" && printf '%s' \"$SSL_CERT_FILE\"", executable, stateFile],
            environment: Subprocess.environment([:], removing: Self.sessionVariables))
        #expect(session.status == 0, "\(session.stderr)")
        #expect(session.stdout == odd)

        let missing = try await Subprocess.run(executable, ["env", directory.path + "/none.json"])
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("--state-file"), "\(missing.stderr)")

        try Data("{}".utf8).write(to: URL(fileURLWithPath: stateFile))
        let foreign = try await Subprocess.run(executable, ["env", stateFile])
        #expect(foreign.status == 1)
        #expect(foreign.stdout.isEmpty)
        #expect(foreign.stderr.contains("not a portal-emulator state file"), "\(foreign.stderr)")
    }

    @Test("--help describes the options")
    func help() async throws {
        let result = try await Subprocess.run(try Self.executable().path, ["--help"])
        #expect(result.status == 0)
        let text = result.stdout
        for option in [
            "--config", "--host", "--port", "--http-port", "--ca-out", "--state-file", "--token-lifetime",
            "--latency-ms", "--server-accepts-portal-tokens",
        ] {
            #expect(text.contains(option), "\(option) missing from help")
        }
    }
}
