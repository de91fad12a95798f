import Foundation
import PortalEmulator
import TestSupport
import Testing

@Suite("Counters and admin endpoints")
struct CounterTests {
    @Test("requests are counted by path, info requests and token-bearing requests by host")
    func counting() async throws {
        try await withEmulator { emulator in
            _ = try await Curl.get(emulator.portalURL + "/sharing/rest/info?f=json", ca: emulator.caCertificatePath)
            _ = try await Curl.get(emulator.serverURL + "/rest/info?f=json", ca: emulator.caCertificatePath)
            _ = try await Curl.get(
                "https://localhost:\(emulator.port)/emulator/echo?token=abc", ca: emulator.caCertificatePath)
            _ = try await Curl.get(
                emulator.baseURL + "/emulator/echo", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer abc"])
            _ = try await Curl.get(
                emulator.baseURL + "/emulator/echo/deeper", ca: emulator.caCertificatePath,
                headers: ["Authorization": "Bearer entra"])
            _ = try await Curl.post(
                emulator.baseURL + "/emulator/echo", form: [("token", "form-token")], ca: emulator.caCertificatePath)
            let counters = emulator.counters()
            #expect(counters.requests == 6)
            #expect(counters.infoRequests == 2)
            #expect(counters.tokenBearingRequestsByHost == ["localhost": 1, "127.0.0.1": 3])
            #expect(counters.requestsByPath["/emulator/echo"] == 3)
            #expect(counters.requestsByPath["/emulator/echo/deeper"] == 1)
            #expect(counters.requestsByPath["/portal/sharing/rest/info"] == 1)

            emulator.resetCounters()
            #expect(emulator.counters() == EmulatorCounters())
        }
    }

    @Test("echo reports host, path and whether a token came along")
    func echo() async throws {
        try await withEmulator { emulator in
            let plain = try await Curl.get(emulator.baseURL + "/emulator/echo/a/b", ca: emulator.caCertificatePath)
                .json()
            #expect(plain["host"] as? String == "127.0.0.1")
            #expect(plain["path"] as? String == "/emulator/echo/a/b")
            #expect(plain["hadToken"] as? Bool == false)
            let withToken = try await Curl.get(
                "https://localhost:\(emulator.port)/emulator/echo", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer t"]
            ).json()
            #expect(withToken["host"] as? String == "localhost")
            #expect(withToken["hadToken"] as? Bool == true)
        }
    }

    @Test("redirect answers 302 with Location")
    func redirect() async throws {
        try await withEmulator { emulator in
            let target = "https://localhost:\(emulator.port)/emulator/echo"
            let result = try await Curl.get(
                emulator.baseURL + "/emulator/redirect?to=" + target.addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics)!,
                ca: emulator.caCertificatePath)
            #expect(result.status == 302)
            #expect(result.location == target)
            let followed = try await Curl.get(
                emulator.baseURL + "/emulator/redirect?to=" + target, ca: emulator.caCertificatePath, extra: ["-L"])
            #expect(try followed.json()["host"] as? String == "localhost")
        }
    }

    @Test("GET /emulator/counters decodes as EmulatorCounters; reset and expire-tokens work over HTTP")
    func adminOverHTTP() async throws {
        try await withEmulator { emulator in
            let token = try await emulator.portalToken()
            let fetched = try await Curl.get(emulator.baseURL + "/emulator/counters", ca: emulator.caCertificatePath)
            let decoded = try JSONDecoder().decode(EmulatorCounters.self, from: fetched.body)
            #expect(decoded == emulator.counters())
            #expect(decoded.requests == 1)
            #expect(decoded.tokensIssued == 1)

            let expired = try await Curl.post(
                emulator.baseURL + "/emulator/expire-tokens", form: [], ca: emulator.caCertificatePath)
            #expect(expired.status == 200)
            let stale = try await Curl.get(
                emulator.portalURL + "/sharing/rest/community/self?f=json", ca: emulator.caCertificatePath,
                headers: ["X-Esri-Authorization": "Bearer \(token)"])
            #expect(stale.errorCode == 498)

            let reset = try await Curl.post(
                emulator.baseURL + "/emulator/reset", form: [], ca: emulator.caCertificatePath)
            #expect(reset.status == 200)
            #expect(emulator.counters() == EmulatorCounters())
            let wrongMethod = try await Curl.get(emulator.baseURL + "/emulator/reset", ca: emulator.caCertificatePath)
            #expect(wrongMethod.status == 405)
        }
    }

    @Test("1,000 concurrent requests over a few keep-alive connections all succeed and are counted")
    func concurrency() async throws {
        try await withEmulator { emulator in
            let token = emulator.issueToken(username: "alice", lifetimeSeconds: 600, kind: .server)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "emu-load-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            var config = ""
            for index in 0..<1000 {
                let url =
                    index % 2 == 0
                    ? emulator.serverURL + "/rest/info?f=json&i=\(index)"
                    : emulator.serverQueryURL + "?where=1%3D1&returnCountOnly=true&f=json&token=\(token)"
                config += "url = \"\(url)\"\noutput = \"/dev/null\"\n"
            }
            let configFile = directory.appendingPathComponent("urls.cfg")
            try config.write(to: configFile, atomically: true, encoding: .utf8)
            let load = try await Subprocess.run(
                "/usr/bin/curl",
                [
                    "-sS", "--cacert", emulator.caCertificatePath, "--parallel", "--parallel-max", "16",
                    "--no-progress-meter",
                    "-K", configFile.path, "-w", "%{http_code}\n",
                ],
                // A hang's bound, not a pace: 1,000 TLS requests to a debug emulator on a loaded machine
                // outlived the default 120 s (the load generator was killed, status 137).
                timeout: 900)
            #expect(load.status == 0 && !load.timedOut, "\(load.stderr)")
            let codes = load.stdout.split(separator: "\n")
            #expect(codes.count == 1000)
            #expect(codes.allSatisfy { $0 == "200" })
            let counters = emulator.counters()
            #expect(counters.requests == 1000)
            #expect(counters.infoRequests == 500)
            #expect(counters.queriesByTokenKind == ["server": 500])
            #expect(counters.tokenBearingRequestsByHost == ["127.0.0.1": 500])
        }
    }
}
