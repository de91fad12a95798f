import Foundation
import TestSupport
import Testing

/// A squatted port (docs/security.md, "A squatted port"): another local user listens on serve's
/// port first, so every saved URL (with the secret) goes to them. Serve finds the listener's uid
/// in /proc/net/tcp, replaces the secret and exits with one line; a listener of the user's own
/// replaces nothing. Run with a real second user (made and removed here), so the tests need root.
@Suite(.enabled(if: getuid() == 0, "needs root: it makes a throwaway user to listen on the port"))
struct ServeSquatTests {
    /// `squat PORT [USER]`: a python listener on 127.0.0.1:PORT, as USER (setpriv) when given; sets
    /// `SQUAT_PID` once it listens. `squatter_user`: a throwaway system user, `SQUATTER` (uid
    /// `SQUATTER_UID`), removed when the script ends.
    static let functions = #"""
        squat() {
          local run=()
          [ -z "${2:-}" ] || run=(setpriv --reuid="$2" --regid="$2" --clear-groups)
          "${run[@]}" /usr/bin/python3 -c '
        import socket, sys, time
        s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
        print("listening", flush=True)
        time.sleep(600)' "$1" >squat.out 2>squat.err &
          SQUAT_PID=$!
          local deadline=$((SECONDS + 30))
          until [ -s squat.out ]; do
            kill -0 "$SQUAT_PID" 2>/dev/null || { cat squat.err >&2; return 1; }
            [ "$SECONDS" -lt "$deadline" ] || { echo "the listener did not start" >&2; return 1; }
            sleep 0.02
          done
        }
        unsquat() { kill "$SQUAT_PID"; wait "$SQUAT_PID" || true; SQUAT_PID=; rm -f squat.out; }
        squatter_user() {
          SQUATTER=pa-squat-$$
          /usr/sbin/useradd --system --no-create-home --shell /usr/sbin/nologin "$SQUATTER"
          SQUATTER_UID=$(id -u "$SQUATTER")
        }
        free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
        code() { curl -s -o /dev/null -w '%{http_code}' "$@"; echo; }
        trap '[ -z "${SQUAT_PID:-}" ] || kill "$SQUAT_PID" 2>/dev/null; [ -z "${SERVE_PID:-}" ] || kill "$SERVE_PID" 2>/dev/null; [ -z "${SQUATTER:-}" ] || /usr/sbin/userdel "$SQUATTER"; true' EXIT

        """#

    @Test func anotherUsersListenerOnThePortReplacesTheSecretAndTheOldURLsAreRefused() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.functions + #"""
                    squatter_user
                    port=$(free_port)
                    old=$(portal-auth serve url --listen "127.0.0.1:$port" "$LAYER")
                    squat "$port" "$SQUATTER_UID"
                    status=0
                    portal-auth serve --listen "127.0.0.1:$port" 2>squatted.err || status=$?
                    echo "squatted: exit $status"
                    cat squatted.err
                    # The listener there runs as the other user, and the line names that user.
                    [ "$(stat -c %u /proc/$SQUAT_PID)" = "$SQUATTER_UID" ] && echo "the squatter is the other user"
                    grep -q "held by another user (uid $SQUATTER_UID)" squatted.err && echo "the line names the squatter"
                    unsquat
                    # The squatter left; serve starts again, on the port or any other: the old secret is refused.
                    start_serve
                    fresh_port=$(python3 -c 'import json,urllib.parse; print(urllib.parse.urlsplit(json.load(open("serve.json"))["url"]).port)')
                    old_path=${old#http://127.0.0.1:$port/}
                    echo "old secret: $(code "http://127.0.0.1:$fresh_port/$old_path")"
                    echo "old token: $(code "http://127.0.0.1:$fresh_port/${old_path%%/*}/token?url=$LAYER")"
                    echo "new secret: $(code "${BASE}token?url=$LAYER")"
                    [ "${BASE#http://127.0.0.1:$fresh_port/}" != "${old_path%%/*}/" ] && echo "the secret changed"
                    stop_serve
                    """#)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "squatted: exit 2", "\(result.stdout)")
            // One line: what happened and what to do.
            let line = try #require(lines.dropFirst().first)
            #expect(
                line.hasPrefix("portal-auth: port ") && line.contains(" on 127.0.0.1 is held by another user (uid ")
                    && line.hasSuffix(
                        "every URL with the old secret may have gone to them, so the secret was replaced; free the "
                            + "port or choose another (--listen 127.0.0.1:PORT), then paste the new URLs (portal-auth "
                            + "serve url URL)"),
                "\(result.stdout)")
            for expected in [
                "the squatter is the other user", "the line names the squatter", "old secret: 403", "old token: 403",
                "new secret: 200", "the secret changed",
            ] {
                #expect(lines.contains(expected), "\(expected) in \(result.stdout)")
            }
        }
    }

    @Test func aListenerOfTheUsersOwnReplacesNothing() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.functions + #"""
                    port=$(free_port)
                    old=$(portal-auth serve url --listen "127.0.0.1:$port" "$LAYER")
                    squat "$port"
                    status=0
                    portal-auth serve --listen "127.0.0.1:$port" 2>own.err || status=$?
                    echo "own: exit $status"
                    cat own.err
                    unsquat
                    [ "$(portal-auth serve url --listen "127.0.0.1:$port" "$LAYER")" = "$old" ] && echo "the secret stayed"
                    """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("own: exit 2\nportal-auth: port "), "\(result.stdout)")
            #expect(
                result.stdout.contains(
                    " on 127.0.0.1 is already in use by a process of your own (another portal-auth serve?): stop it "),
                "\(result.stdout)")
            #expect(result.stdout.hasSuffix("the secret stayed\n"), "\(result.stdout)")
            #expect(!result.stdout.contains("replaced"), "\(result.stdout)")
        }
    }
}
