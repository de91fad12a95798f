import Foundation
import Logging
import PortalEmulator
import TestSupport
import Testing

/// One test of `portal-auth serve`: an emulator whose request log is collected (method, path, the
/// credential each request presented: never a value), a file store and a folder of its own, and
/// shell functions that start the server in the background and stop it.
struct ServeUse {
    let use: TokenUse
    let log: LogCollector

    var emulator: PortalEmulator { use.emulator }

    /// `https://127.0.0.1:PORT`, where the emulator's admin endpoints are (`/emulator/...`).
    var origin: String { String(emulator.portalURL.dropLast("/portal".count)) }

    /// Runs `body` with a fresh emulator (request log at info) and folder.
    static func with(_ body: (ServeUse) async throws -> Void) async throws {
        let log = LogCollector()
        try await withEmulator(.default, logger: log.logger(level: .info)) { emulator in
            try await withTemporaryDirectory("serve") { directory in
                try await body(ServeUse(use: TokenUse(emulator: emulator, directory: directory), log: log))
            }
        }
    }

    /// `start_serve [ARGS]`: starts `portal-auth serve --listen 127.0.0.1:0 --state-file serve.json
    /// ARGS` in the background and waits for its state file (written once it listens); sets
    /// `BASE` and `SERVE_PID`; fails when the file has not appeared within 30 seconds. `stop_serve` sends SIGTERM and returns its exit status. The server
    /// is killed when the script ends, whatever happens. `counters` prints the emulator's counters;
    /// `sign_ins_since FILE` prints `password sign-ins: N`, counted since FILE (`counters` saved).
    static let functions = #"""
        start_serve() {
          portal-auth serve --listen 127.0.0.1:0 --state-file serve.json "$@" </dev/null >serve.out 2>serve.err &
          SERVE_PID=$!
          local deadline=$((SECONDS + 30))
          until [ -s serve.json ]; do
            kill -0 "$SERVE_PID" 2>/dev/null || { cat serve.err >&2; return 1; }
            [ "$SECONDS" -lt "$deadline" ] || { echo "serve did not start within 30 s" >&2; cat serve.err >&2; return 1; }
            sleep 0.02
          done
          BASE=$(python3 -c 'import json; print(json.load(open("serve.json"))["url"])')
        }
        stop_serve() {
          kill -TERM "$SERVE_PID"
          local status=0
          wait "$SERVE_PID" || status=$?
          SERVE_PID=
          return "$status"
        }
        trap '[ -z "${SERVE_PID:-}" ] || kill "$SERVE_PID" 2>/dev/null; true' EXIT
        counters() { curl -sS --cacert "$CA" "$ORIGIN/emulator/counters"; }
        sign_ins_since() {
          counters | python3 -c 'import json, sys
        b, a = json.load(open(sys.argv[1])), json.load(sys.stdin)
        print("password sign-ins:", a["generateTokenRequests"] - b["generateTokenRequests"])' "$1"
        }

        """#

    /// A bash script with the serve functions, in the test's folder, with its variables
    /// (`ORIGIN`: the emulator's admin origin; `CA`: its CA).
    func bash(_ script: String, extra: [String: String] = [:], timeout: TimeInterval = 90) async throws -> CLIResult {
        try await use.bash(
            Self.functions + script,
            extra: ["ORIGIN": origin, "CA": emulator.caCertificatePath].merging(extra) { $1 }, timeout: timeout)
    }

    /// The request log's lines for paths containing `path`.
    func logLines(containing path: String) -> [String] { log.all.filter { $0.contains(path) } }
}
