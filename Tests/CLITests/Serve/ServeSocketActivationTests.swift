import Foundation
import TestSupport
import Testing

/// `portal-auth serve` started the way systemd starts it from `portal-auth-serve.socket`: a
/// listening socket as fd 3, `LISTEN_FDS=1`, `LISTEN_PID` its own pid. It serves on that socket
/// (its port, not `--listen`'s), and refuses one that is not a listening TCP socket on loopback.
@Suite struct ServeSocketActivationTests {
    /// `activate KIND ARGS...`: what systemd does, in python: makes a socket of KIND (`tcp`: bound to
    /// 127.0.0.1:0 and listening; `any`: bound to 0.0.0.0:0 and listening; `udp`: a datagram socket
    /// on 127.0.0.1:0; `unlistened`: TCP on 127.0.0.1:0, not listening), writes its port to
    /// `activated.port`, puts it on fd 3, sets `LISTEN_FDS=1` and `LISTEN_PID` to its own pid
    /// (`LISTEN_PID=other`: pid 1's), then becomes `portal-auth serve ARGS...`. It replaces the shell
    /// it runs in: run it in the background or in a subshell.
    static let activate = #"""
        activate() {
          exec /usr/bin/python3 -c '
        import os, shutil, socket, sys
        kind, pid = sys.argv[1], sys.argv[2]
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM if kind == "udp" else socket.SOCK_STREAM)
        s.bind(("0.0.0.0" if kind == "any" else "127.0.0.1", 0))
        if kind in ("tcp", "any"):
            s.listen(16)
        open("activated.port", "w").write(str(s.getsockname()[1]))
        os.dup2(s.fileno(), 3)
        os.set_inheritable(3, True)
        os.environ["LISTEN_FDS"] = "1"
        os.environ["LISTEN_PID"] = "1" if pid == "other" else str(os.getpid())
        portal_auth = shutil.which("portal-auth")
        os.execv(portal_auth, [portal_auth, "serve"] + sys.argv[3:])' "$@"
        }

        """#

    @Test func aSocketSystemdPassesIsServedAndItsPortIsTheBaseURLs() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.activate + #"""
                    activate tcp self --listen 127.0.0.1:1 --state-file serve.json </dev/null >serve.out 2>serve.err &
                    SERVE_PID=$!
                    deadline=$((SECONDS + 30))
                    until [ -s serve.json ]; do
                      kill -0 "$SERVE_PID" 2>/dev/null || { cat serve.err >&2; exit 1; }
                      [ "$SECONDS" -lt "$deadline" ] || { echo "serve did not start" >&2; exit 1; }
                      sleep 0.02
                    done
                    BASE=$(python3 -c 'import json; print(json.load(open("serve.json"))["url"])')
                    case "$BASE" in "http://127.0.0.1:$(cat activated.port)/"*) echo "the passed socket's port" ;; esac
                    echo "token: $(curl -s -o /dev/null -w '%{http_code}' "${BASE}token?url=$LAYER")"
                    stop_serve && echo "stopped: 0"
                    """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout == "the passed socket's port\ntoken: 200\nstopped: 0\n",
                "\(result.stdout) \(result.stderr)")
        }
    }

    @Test func aPassedSocketThatIsNotListeningTCPOnLoopbackIsRefused() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.activate + #"""
                    for kind in any udp unlistened; do
                      status=0
                      (activate "$kind" self --listen 127.0.0.1:0) </dev/null >/dev/null 2>refused.err || status=$?
                      echo "$kind: exit $status: $(cat refused.err)"
                    done
                    # LISTEN_PID another process's: nothing was passed to serve, which binds --listen.
                    activate tcp other --listen 127.0.0.1:0 --state-file serve.json </dev/null >serve.out 2>serve.err &
                    SERVE_PID=$!
                    deadline=$((SECONDS + 30))
                    until [ -s serve.json ]; do
                      kill -0 "$SERVE_PID" 2>/dev/null || { cat serve.err >&2; exit 1; }
                      [ "$SECONDS" -lt "$deadline" ] || { echo "serve did not start" >&2; exit 1; }
                      sleep 0.02
                    done
                    BASE=$(python3 -c 'import json; print(json.load(open("serve.json"))["url"])')
                    case "$BASE" in "http://127.0.0.1:$(cat activated.port)/"*) echo "other: the passed socket" ;; *) echo "other: its own" ;; esac
                    stop_serve
                    """#)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let refusal =
                "portal-auth: the socket systemd passed is not a listening TCP socket on a loopback address "
                + "(ListenStream=127.0.0.1:PORT, or [::1]:PORT), so nothing is served on it"
            for kind in ["any", "udp", "unlistened"] {
                #expect(result.stdout.contains("\(kind): exit 2: \(refusal)\n"), "\(kind) in \(result.stdout)")
            }
            #expect(result.stdout.hasSuffix("other: its own\n"), "\(result.stdout)")
        }
    }
}
