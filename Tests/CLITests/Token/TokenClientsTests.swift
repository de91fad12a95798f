import Foundation
import PortalEmulator
import TestSupport
import Testing

/// A printed token in the programs scripts hand it to — curl, GDAL (Debian gdal-bin), python
/// requests (Debian python3-requests) — checked by what they read, not by exit codes alone.
@Suite struct TokenClientsTests {
    @Test func aDefaultSignInTokenWorksAsItIsInCurlPythonAndGDAL() async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            let token = try await use.token(use.emulator.portalURL)
            let me = use.emulator.portalURL + "/sharing/rest/community/self?f=json"
            // curl: ?token= and X-Esri-Authorization, no other header (curl sends no Referer).
            let curl = try await use.bash(
                """
                curl -sS "$ME&token=$TOKEN"; echo
                printf 'X-Esri-Authorization: Bearer %s\\n' "$TOKEN" | curl -sS -H @- "$ME"
                """, extra: ["TOKEN": token, "ME": me])
            #expect(curl.stdout.components(separatedBy: "\"username\":\"alice\"").count == 3, "\(curl.stdout)")
            // python requests, both ways.
            let python = try await use.bash(
                """
                python3 -c '
                import os, requests
                me = os.environ["ME"]
                print(requests.get(me, params={"token": os.environ["TOKEN"]}).json()["username"])
                print(requests.get(me, headers={"X-Esri-Authorization": "Bearer " + os.environ["TOKEN"]}).json()["username"])
                '
                """, extra: ["TOKEN": token, "ME": me])
            #expect(python.stdout == "alice\nalice\n", "\(python.stdout) \(python.stderr)")
            // GDAL with the federated server's token in the query URL.
            let serverToken = try await use.token(use.layer)
            let gdal = try await use.bash(
                #"ogrinfo -ro -al -so "ESRIJSON:$LAYER/query?where=1%3D1&outFields=*&f=json&token=$TOKEN""#,
                extra: ["TOKEN": serverToken])
            #expect(gdal.stdout.contains("Feature Count: 24"), "\(gdal.stdout) \(gdal.stderr)")
        }
    }

    @Test func aTokenBoundToARefererCarriesItInEveryFormat() async throws {
        try await TokenUse.with { use in
            let referer = "https://app.example.com"
            try await use.signIn(["--referer", referer])
            let portal = use.emulator.portalURL
            let json = try await use.portalAuth(["token", portal, "--format", "json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["version"] as? Int == 1)
            #expect(object["referer"] as? String == referer)
            let headers = try #require(object["headers"] as? [String: String])
            #expect(headers["Referer"] == referer)
            #expect(headers["Authorization"] == "Bearer \(object["token"] as? String ?? "-")")
            let expires = try #require(object["expires_epoch"] as? Int)
            #expect(
                (object["expires"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }?.timeIntervalSince1970
                    == TimeInterval(expires))
            let header = try await use.portalAuth(["token", portal, "--format", "header"])
            #expect(header.stdout.contains("\nReferer: \(referer)\n"))
            let env = try await use.portalAuth(["token", portal, "--format", "env"])
            #expect(env.stdout.contains("export PORTAL_AUTH_REFERER='\(referer)'"))
            let gdal = try await use.portalAuth(["token", use.layer, "--format", "gdal"])
            #expect(gdal.stdout.contains("\r\nReferer: \(referer)\n"))

            // The plain token alone is refused; with the headers it prints, it works (curl, GDAL).
            let clients = try await use.bash(
                """
                curl -sS "$PORTAL/sharing/rest/community/self?f=json&token=$(portal-auth token "$PORTAL")"; echo
                portal-auth token "$PORTAL" --format header | curl -sS -H @- "$PORTAL/sharing/rest/community/self?f=json"; echo
                GDAL_HTTP_HEADERS=$(portal-auth token "$LAYER" --format gdal) \\
                  ogrinfo -ro -al -so "ESRIJSON:$LAYER/query?where=1%3D1&outFields=*&f=json"
                """)
            let lines = clients.stdout.split(separator: "\n")
            #expect(lines.first?.contains("\"code\":498") == true, "\(clients.stdout)")
            #expect(lines.dropFirst().first?.contains("\"username\":\"alice\"") == true, "\(clients.stdout)")
            #expect(clients.stdout.contains("Feature Count: 24"), "\(clients.stderr)")
        }
    }

    @Test func aCredentialBoundToTheOldDefaultRefererKeepsWorkingThroughTheLibrary() async throws {
        try await TokenUse.with { use in
            // What earlier versions stored by default: a token bound to the referer portal-auth.
            try await use.signIn(["--referer", "portal-auth"])
            let me = try await use.portalAuth(["request", use.emulator.portalURL + "/sharing/rest/community/self"])
            #expect(me.stdout.contains("\"username\" : \"alice\""), "\(me.stdout) \(me.stderr)")
            let count = try await use.portalAuth(
                ["request", use.layer + "/query", "-f", "where=1=1", "-f", "returnCountOnly=true"])
            #expect(count.stdout.contains("\"count\" : 24"), "\(count.stdout) \(count.stderr)")
            let header = try await use.portalAuth(["token", use.emulator.portalURL, "--format", "header"])
            #expect(header.stdout.hasSuffix("\nReferer: portal-auth\n"))
        }
    }

    @Test func thePlainFormatSaysOnATerminalThatTheRefererMustBeSent() async throws {
        try await TokenUse.with { use in
            try await use.signIn(["--referer", "https://app.example.com"])
            // script(1) gives the command a terminal for its standard streams.
            let onTerminal = try await use.bash(#"script -qec "portal-auth token $PORTAL" /dev/null"#)
            #expect(onTerminal.stdout.contains("send the header 'Referer: https://app.example.com'"))
            let piped = try await use.portalAuth(["token", use.emulator.portalURL])
            #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped.stderr)")
            // Both paths (the fast one and the full command) say it.
            let full = try await use.bash(
                #"script -qec "portal-auth token $PORTAL" /dev/null"#, extra: ["PORTAL_AUTH_NO_FAST_PATH": "1"])
            #expect(full.stdout.contains("send the header 'Referer: https://app.example.com'"))
        }
    }

    @Test func anEmptyRefererIsRefusedBeforeAnyRequest() async throws {
        try await TokenUse.with { use in
            let result = try await use.portalAuth(
                [
                    "login", "--portal", use.emulator.portalURL, "--username", "alice", "--password-stdin", "--referer",
                    "",
                ],
                stdin: alicePassword)
            #expect(result.status == 2)
            #expect(result.stderr.contains("--referer \"\"") && result.stderr.contains("refuses"), "\(result.stderr)")
            #expect(use.emulator.counters().requests == 0)
        }
    }

    @Test func usageErrorsExitWith2() async throws {
        try await TokenUse.with { use in
            let portal = use.emulator.portalURL
            let cases: [[String]] = [
                ["token", portal, "--format", "yaml"],  // an unknown value
                ["login", "--portal", portal, "--username", "alice", "--expiration", "0"],  // a validation error
                ["login", "--portal", portal],  // a missing option
                ["exec", portal],  // no command
                ["no-such-command"],
            ]
            for arguments in cases {
                let result = try await use.portalAuth(arguments)
                #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
                #expect(!result.stderr.isEmpty)
            }
            #expect(use.emulator.counters().requests == 0)
        }
    }

    @Test(arguments: ["abc\0def", "abc\rdef", "abc\u{7}def"])
    func aPregeneratedTokenWithControlCharactersIsRefusedAndNotStored(_ token: String) async throws {
        try await TokenUse.with { use in
            let result = try await use.portalAuth(
                ["login", "--url", use.emulator.portalURL, "--token-stdin"], stdin: token)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("control characters"))
            #expect(!result.stderr.contains("def"))
            let status = try await use.portalAuth(["status", "--json"])
            #expect(!status.stdout.contains(use.emulator.portalURL), "\(status.stdout)")
        }
    }
}
