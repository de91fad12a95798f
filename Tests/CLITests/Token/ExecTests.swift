import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth exec URL -- COMMAND`: what COMMAND gets, what it leaves behind, signals, exit
/// status, and the header file's renewal. Every wait is for an event (a line COMMAND prints, its
/// exit, a file's content), each bounded; none waits out a token's lifetime.
@Suite struct ExecTests {
    @Test func theCommandGetsTheTokenAHeaderFileAndTheCABundleAndTheFolderGoesAtTheEnd() async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            let serverToken = try await use.token(use.layer)
            let result = try await use.bash(
                #"""
                portal-auth exec "$LAYER" -- sh -c '
                  echo "file=$GDAL_HTTP_HEADER_FILE"
                  stat -c "mode=%a" "$GDAL_HTTP_HEADER_FILE"; stat -c "folder=%a" "$(dirname "$GDAL_HTTP_HEADER_FILE")"
                  echo "token=$PORTAL_AUTH_TOKEN"; echo "expires=$PORTAL_AUTH_TOKEN_EXPIRES"
                  echo "ca=$CURL_CA_BUNDLE|$REQUESTS_CA_BUNDLE|$SSL_CERT_FILE"
                  echo "referer=${PORTAL_AUTH_REFERER-none}"
                  curl -sS -H @"$GDAL_HTTP_HEADER_FILE" "$LAYER/query?where=1%3D1&returnCountOnly=true&f=json"; echo
                  ogrinfo -ro -al -so "ESRIJSON:$LAYER/query?where=1%3D1&outFields=*&f=json" | grep "Feature Count"
                  exit 3'
                """#, extra: ["PORTAL_AUTH_REFERER": "stale", "XDG_RUNTIME_DIR": use.directory])
            #expect(result.status == 3, "\(result.stderr)")
            let values = Dictionary(
                result.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
                    guard let equals = line.firstIndex(of: "=") else { return nil }
                    return (String(line[..<equals]), String(line[line.index(after: equals)...]))
                }, uniquingKeysWith: { first, _ in first })
            #expect(values["mode"] == "600" && values["folder"] == "700")
            #expect(values["token"] == serverToken, "the federated server's token")
            #expect(values["expires"].flatMap { ISO8601DateFormatter().date(from: $0) }.map { $0 > Date() } == true)
            let ca = use.emulator.caCertificatePath
            #expect(values["ca"] == "\(ca)|\(ca)|\(ca)")
            #expect(values["referer"] == "none", "a stale PORTAL_AUTH_REFERER is not passed on")
            #expect(result.stdout.contains("{\"count\":24}"))
            #expect(result.stdout.contains("Feature Count: 24"))
            let file = try #require(values["file"])
            #expect(file.hasPrefix(use.directory + "/portal-auth-exec."), "under XDG_RUNTIME_DIR")
            #expect(!FileManager.default.fileExists(atPath: (file as NSString).deletingLastPathComponent))
        }
    }

    @Test func theCommandsExitStatusIsReturnedAndADeathBySignalIs128PlusIt() async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            let portal = use.emulator.portalURL
            #expect(try await use.portalAuth(["exec", portal, "--", "sh", "-c", "exit 0"]).status == 0)
            #expect(try await use.portalAuth(["exec", portal, "--", "sh", "-c", "exit 64"]).status == 64)
            #expect(try await use.portalAuth(["exec", portal, "--", "sh", "-c", "kill -TERM $$"]).status == 143)
            let missing = try await use.portalAuth(["exec", portal, "--", "no-such-command-here"])
            #expect(missing.status == 127 && missing.stderr.contains("no-such-command-here"))
        }
    }

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP, SIGUSR1])
    func aSignalSentToExecReachesTheCommandAndTheFolderIsRemoved(_ signal: Int32) async throws {
        // (A trap by name.)
        try await expectPassedOn(
            signal, trap: [SIGTERM: "TERM", SIGINT: "INT", SIGHUP: "HUP", SIGUSR1: "USR1"][signal]!)
    }

    /// Signals whose default action ends a process, besides those above: each sent to exec is
    /// passed on to COMMAND (a trap by number: dash knows no name for some), and exec waits for it.
    /// 34 and 64 are glibc's SIGRTMIN and SIGRTMAX.
    @Test(arguments: [
        SIGALRM, SIGVTALRM, SIGPWR, SIGXCPU, SIGUSR1, SIGUSR2, SIGQUIT, SIGPROF, SIGXFSZ, SIGPIPE, SIGSTKFLT, SIGIO,
        SIGSYS, SIGTRAP, SIGABRT, 34, 64,
    ])
    func everySignalThatWouldEndExecReachesTheCommandAndTheFolderIsRemoved(_ signal: Int32) async throws {
        try await expectPassedOn(signal, trap: String(signal))
    }

    /// Sends `signal` to exec once COMMAND runs: COMMAND's trap for `trap` reports it and exits 7,
    /// exec exits with that status, and the header file's folder is gone.
    func expectPassedOn(_ signal: Int32, trap: String) async throws {
        // A signal the test runner ignores is ignored by exec and COMMAND too, as Unix passes an
        // ignored signal on (a background job of a shell without job control ignores SIGINT and
        // SIGQUIT): then nothing can arrive, and the test says so rather than wait for it.
        // (SIGPIPE, SIGINT and SIGTERM are set back to their defaults for every child the tests start,
        // and the test process itself may ignore SIGPIPE: only the others are inherited as they are.)
        var current = sigaction()
        sigaction(signal, nil, &current)
        let reset: Set<Int32> = [SIGPIPE, SIGINT, SIGTERM]
        let ignored = !reset.contains(signal) && unsafeBitCast(current.__sigaction_handler, to: Int.self) == 1
        guard !ignored else {
            Issue.record(
                "the test runner ignores signal \(signal), so exec and COMMAND do too: run it in the foreground")
            return
        }
        try await TokenUse.with { use in
            try await use.signIn()
            // COMMAND prints its header file's path once its trap is set, then waits; the trap
            // prints what arrived and exits 7.
            let script =
                #"trap 'echo "got $0"; exit 7' "$0"; echo "ready $GDAL_HTTP_HEADER_FILE"; while :; do sleep 0.05; done"#
            try await withChildProcess(
                CLI.portalAuth, ["exec", use.emulator.portalURL, "--", "sh", "-c", script, trap],
                environment: ProcessInfo.processInfo.environment.merging(use.environment) { $1 }
            ) { child in
                let ready = await child.nextLine(timeout: 60)
                let file = try #require(ready?.split(separator: " ").last.map(String.init), "COMMAND did not start")
                #expect(FileManager.default.fileExists(atPath: file))
                child.signal(signal)
                let got = await child.nextLine(timeout: 60)
                if got == nil { child.signal(SIGKILL) }  // (exec did not pass it on: never wait forever)
                let status = await child.wait()
                #expect(got == "got \(trap)", "COMMAND did not get signal \(signal)")
                #expect(status == 7, "exec's status is COMMAND's")
                #expect(!FileManager.default.fileExists(atPath: (file as NSString).deletingLastPathComponent))
            }
        }
    }

    @Test(arguments: [SIGALRM, SIGXCPU])
    func aCommandEndedByAPassedOnSignalMakesExecExitWith128PlusIt(_ signal: Int32) async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            // No trap: the signal's default action ends COMMAND.
            let script = #"echo "ready $GDAL_HTTP_HEADER_FILE"; while :; do sleep 0.05; done"#
            try await withChildProcess(
                CLI.portalAuth, ["exec", use.emulator.portalURL, "--", "sh", "-c", script],
                environment: ProcessInfo.processInfo.environment.merging(use.environment) { $1 }
            ) { child in
                let ready = await child.nextLine(timeout: 60)
                let file = try #require(ready?.split(separator: " ").last.map(String.init), "COMMAND did not start")
                child.signal(signal)
                #expect(await child.wait() == 128 + signal)
                #expect(!FileManager.default.fileExists(atPath: (file as NSString).deletingLastPathComponent))
            }
        }
    }

    /// A signal about exec itself (one it raises: its own timer, a failed check, a fault) cannot be
    /// passed on: exec removes the folder, stops COMMAND with TERM, and ends with the signal. gdb
    /// makes exec raise it (root may attach to it, though exec is not dumpable).
    @Test(
        .enabled(
            if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb"), "needs gdb, as root"),
        arguments: [SIGALRM, SIGABRT, SIGSEGV])
    func aSignalAboutExecItselfRemovesTheFolderAndStopsTheCommand(_ signal: Int32) async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            let script =
                #"trap 'echo "got TERM"; exit 9' TERM; echo "ready $GDAL_HTTP_HEADER_FILE"; while :; do sleep 0.05; done"#
            try await withChildProcess(
                CLI.portalAuth, ["exec", use.emulator.portalURL, "--", "sh", "-c", script],
                environment: ProcessInfo.processInfo.environment.merging(use.environment) { $1 }
            ) { child in
                let ready = await child.nextLine(timeout: 60)
                let file = try #require(ready?.split(separator: " ").last.map(String.init), "COMMAND did not start")
                let gdb = try await CLI.run(
                    "/usr/bin/gdb",
                    [
                        "-p", String(child.pid), "-batch", "-ex", "handle all nostop noprint pass",
                        "-ex", "call (int)raise(\(signal))",
                    ])
                let got = await child.nextLine(timeout: 60)
                if got == nil { child.signal(SIGKILL) }  // (exec did not pass it on: never wait forever)
                let status = await child.wait()
                #expect(
                    got == "got TERM",
                    "COMMAND was not stopped; gdb: \(gdb.stdout.suffix(300)) \(gdb.stderr.suffix(300))")
                #expect(
                    status == 128 + signal,
                    "exec went on after the signal; gdb: \(gdb.stdout.suffix(300)) \(gdb.stderr.suffix(300))")
                #expect(!FileManager.default.fileExists(atPath: (file as NSString).deletingLastPathComponent))
            }
        }
    }

    /// The same as the first process of a PID namespace (a container's entrypoint, run here with
    /// `unshare --pid --fork`), where a signal a process raises itself with the default action is
    /// discarded: exec still removes the folder and ends with 128 + the signal, neither waiting
    /// forever nor taking COMMAND's status. (COMMAND, sent TERM, is then killed by the kernel with
    /// the namespace's first process.)
    @Test(
        .enabled(
            if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), "needs gdb and unshare, as root"))
    func aSignalAboutExecItselfEndsItAsTheFirstProcessOfANamespace() async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            let script =
                #"trap 'echo "got TERM"; exit 9' TERM; echo "ready $GDAL_HTTP_HEADER_FILE"; while :; do sleep 0.05; done"#
            try await withChildProcess(
                "/usr/bin/unshare",
                ["--pid", "--fork", CLI.portalAuth, "exec", use.emulator.portalURL, "--", "sh", "-c", script],
                environment: ProcessInfo.processInfo.environment.merging(use.environment) { $1 }
            ) { child in
                let ready = await child.nextLine(timeout: 60)
                let file = try #require(ready?.split(separator: " ").last.map(String.init), "COMMAND did not start")
                let children = try String(
                    contentsOfFile: "/proc/\(child.pid)/task/\(child.pid)/children", encoding: .utf8)
                let exec = try #require(children.split(separator: " ").first.flatMap { Int32($0) }, "\(children)")
                let gdb = try await CLI.run(
                    "/usr/bin/gdb",
                    [
                        "-p", String(exec), "-batch", "-ex", "handle all nostop noprint pass",
                        "-ex", "call (int)raise(\(SIGALRM))",
                    ])
                // (Its output ends when exec and COMMAND have ended; never wait forever.)
                while let line = await child.nextLine(timeout: 60) { _ = line }
                // (A zombie not yet reaped by unshare has ended.)
                let stat = (try? String(contentsOfFile: "/proc/\(exec)/stat", encoding: .utf8)) ?? ""
                if let state = stat.split(separator: ")").last?.split(separator: " ").first, state != "Z" {
                    Issue.record("exec did not end; gdb: \(gdb.stdout.suffix(300)) \(gdb.stderr.suffix(300))")
                    kill(exec, SIGKILL)
                }
                #expect(await child.wait() == 128 + SIGALRM)
                #expect(!FileManager.default.fileExists(atPath: (file as NSString).deletingLastPathComponent))
            }
        }
    }

    @Test func aFolderLeftByAnExecKilledWithSIGKILLIsRemovedByTheNextExecAndALiveOneIsKept() async throws {
        try await TokenUse.with { use in
            try await use.signIn()
            let environment = ProcessInfo.processInfo.environment.merging(use.environment) { $1 }
                .merging(["XDG_RUNTIME_DIR": use.directory]) { $1 }
            let script = #"echo "ready $$ $GDAL_HTTP_HEADER_FILE"; while :; do sleep 0.05; done"#
            let arguments = ["exec", use.emulator.portalURL, "--", "sh", "-c", script]
            func start(_ child: ChildProcess) async throws -> (command: Int32, folder: String) {
                let ready = try #require(await child.nextLine(timeout: 60), "COMMAND did not start")
                let parts = ready.split(separator: " ").map(String.init)
                try #require(parts.count == 3 && parts[0] == "ready", "\(ready)")
                return (try #require(Int32(parts[1])), (parts[2] as NSString).deletingLastPathComponent)
            }
            // One exec is killed (its COMMAND goes on running), another keeps running.
            let (orphan, killedFolder) = try await withChildProcess(CLI.portalAuth, arguments, environment: environment)
            { killed in
                let started = try await start(killed)
                killed.signal(SIGKILL)
                #expect(await killed.wait() == 128 + SIGKILL)
                return started
            }
            defer { kill(orphan, SIGKILL) }
            #expect(
                FileManager.default.fileExists(atPath: killedFolder + "/headers"),
                "SIGKILL, which no process can catch, leaves the folder")
            try await withChildProcess(CLI.portalAuth, arguments, environment: environment) { running in
                let (command, liveFolder) = try await start(running)
                let next = try await use.portalAuth(
                    ["exec", use.emulator.portalURL, "--", "sh", "-c", "exit 0"],
                    extra: ["XDG_RUNTIME_DIR": use.directory])
                #expect(next.status == 0, "\(next.stderr)")
                #expect(!FileManager.default.fileExists(atPath: killedFolder), "the next exec removed it")
                #expect(
                    FileManager.default.fileExists(atPath: liveFolder + "/headers"), "a running exec's folder is kept")
                kill(command, SIGTERM)
                #expect(await running.wait() == 128 + SIGTERM)
                #expect(!FileManager.default.fileExists(atPath: liveFolder))
            }
        }
    }

    @Test func theHeaderFileIsRewrittenWithARenewedTokenWhileTheCommandRuns() async throws {
        try await TokenUse.with { use in
            // An app credential renews itself; its token lives a minute, and --renew-before 59
            // renews it a second after it was issued: no waiting out a lifetime.
            let app = try await use.portalAuth(
                [
                    "login", "--portal", use.emulator.portalURL, "--client-id", "portal-auth-app",
                    "--client-secret-stdin", "--expiration", "1",
                ], stdin: "app-secret-456")
            #expect(app.status == 0, "\(app.stderr)")
            // COMMAND notes the first token, waits (bounded) until the file holds another, and
            // uses that one.
            let result = try await use.bash(
                #"""
                portal-auth exec "$PORTAL" --renew-before 59 -- sh -c '
                  first=$(cat "$GDAL_HTTP_HEADER_FILE"); echo "first $first"
                  for i in $(seq 1200); do
                    now=$(cat "$GDAL_HTTP_HEADER_FILE")
                    [ "$now" != "$first" ] && break
                    sleep 0.05
                  done
                  echo "then $now"
                  curl -sS -H @"$GDAL_HTTP_HEADER_FILE" "$PORTAL/sharing/rest/portals/self?f=json" | head -c 300; echo'
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let first = try #require(lines.first { $0.hasPrefix("first Authorization: Bearer ") })
            let then = try #require(lines.first { $0.hasPrefix("then Authorization: Bearer ") })
            #expect(first.dropFirst(6) != then.dropFirst(5), "the header file was not renewed")
            #expect(result.stdout.contains("\"name\"") && !result.stdout.contains("\"error\""), "\(result.stdout)")
            #expect(use.emulator.counters().clientCredentialsGrants >= 2)
        }
    }
}
