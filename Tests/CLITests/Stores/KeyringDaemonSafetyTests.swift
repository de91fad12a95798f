import Foundation
import TestSupport
import Testing

/// gnome-keyring-daemon (42.1 here, still in 50.0) aborts when a client's first call needs the
/// record the daemon makes for each client and that record is not made yet: under load its
/// message filter's callback runs after the method (`scripts/checks/repro-keyring-first-call-crash.py`).
/// portal-auth's own D-Bus reads therefore start every connection with a call that needs no
/// record and wait for its answer. The crash itself depends on timing, so this test holds the
/// order, which does not: it watches every call made to the Secret Service with `dbus-monitor`.
@Suite struct KeyringDaemonSafetyTests {
    /// One method call to the Secret Service, as `dbus-monitor --profile` prints it.
    struct Call: Equatable {
        var sender: String
        var path: String
        var interface: String
        var member: String
    }

    /// Parses `dbus-monitor --profile` method-call lines (`mc`, time, serial, sender, destination,
    /// path, interface, member).
    static func call(_ line: String) -> Call? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 8, fields[0] == "mc" else { return nil }
        return Call(sender: fields[3], path: fields[5], interface: fields[6], member: fields[7])
    }

    /// Whether `call` is one the daemon answers without a client record: the Service object's
    /// properties (`Get` of Collections, or `GetAll` as libsecret's proxy starts).
    static func needsNoClientRecord(_ call: Call) -> Bool {
        call.path == "/org/freedesktop/secrets" && call.interface == "org.freedesktop.DBus.Properties"
            && (call.member == "Get" || call.member == "GetAll")
    }

    @Test func everyConnectionStartsWithACallThatNeedsNoClientRecord() async throws {
        try await withPrivateKeyring { keyring in
            let env = keyring.environment
            let url = "https://portal.example.com/first-call"
            let stored = try await CLI.portalAuth(
                ["login", "--url", url, "--token-stdin", "--unchecked", "--expires-in", "3600"], emulator: nil,
                stdin: "first-call-token", environment: env)
            try #require(stored.status == 0, "\(stored.stderr)")
            let calls = try await watchingSecretServiceCalls(env) {
                // The search read (the index was forgotten by the login), the read at the recorded
                // path (which records the answer), the small portal-auth's own D-Bus connection
                // reading the recorded answer's item, a URL with nothing stored (searches only), and
                // the libsecret write path.
                #expect(try await CLI.portalAuth(["token", url], emulator: nil, environment: env).status == 0)
                #expect(try await CLI.portalAuth(["token", url], emulator: nil, environment: env).status == 0)
                #expect(try await CLI.portalAuth(["token", url], emulator: nil, environment: env).status == 0)
                let none = try await CLI.portalAuth(
                    ["token", "https://portal.example.com/nothing"], emulator: nil, environment: env)
                #expect(none.status == 3, "\(none.stderr)")
                #expect(
                    try await CLI.portalAuth(["logout", "--portal", url], emulator: nil, environment: env).status == 0)
            }
            let senders = calls.reduce(into: [String]()) { if !$0.contains($1.sender) { $0.append($1.sender) } }
            // Five commands; the fast path's connection is closed before the full command's opens.
            #expect(senders.count >= 5, "\(calls)")
            for sender in senders {
                let own = calls.filter { $0.sender == sender }
                #expect(Self.needsNoClientRecord(own[0]), "\(sender) began with \(own[0]); its calls: \(own)")
                #expect(own.contains { $0.member == "SearchItems" || $0.member == "GetSecrets" }, "\(own)")
            }
        }
    }

    /// Runs `body` while `dbus-monitor` watches the method calls to the Secret Service, and returns
    /// them all. The monitor is ready once it reports its own name lost (it became a monitor); every
    /// call `body` made is in its output once a marker call, made after `body`, is (the bus passes
    /// messages to the monitor in the order it routed them, and each command waited for its answers).
    func watchingSecretServiceCalls(
        _ environment: [String: String], _ body: () async throws -> Void
    ) async throws -> [Call] {
        let monitor = try ChildProcess(
            "/usr/bin/dbus-monitor",
            ["--session", "--profile", "type='method_call',destination='org.freedesktop.secrets'"],
            environment: Subprocess.environment(environment))
        return try await withResource(monitor, release: { _ = await $0.stop() }) { monitor in
            var ready = false
            while !ready, let line = await monitor.nextLine(timeout: 30) { ready = line.hasSuffix("\tNameLost") }
            try #require(ready, "dbus-monitor did not start")
            try await body()
            let marker = "/org/freedesktop/secrets/portal_auth_test_marker"
            _ = try await CLI.run(
                "/usr/bin/dbus-send",
                [
                    "--session", "--print-reply", "--dest=org.freedesktop.secrets", marker,
                    "org.freedesktop.DBus.Peer.Ping",
                ],
                environment: environment)
            var calls: [Call] = []
            while let line = await monitor.nextLine(timeout: 30) {
                guard let call = Self.call(line) else { continue }
                if call.path == marker { return calls }
                calls.append(call)
            }
            Issue.record("dbus-monitor never showed the marker call; calls so far: \(calls)")
            return calls
        }
    }
}
