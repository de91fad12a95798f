import Foundation
import TestSupport
import Testing

/// `portal-auth serve --listen unix:PATH`: a Unix socket (0600) in a folder only the user may
/// enter, reached with `curl --unix-socket`; a folder others may enter or write, or another user's,
/// is refused; a socket left by a serve that ended is replaced, a live one is in use.
@Suite struct ServeUnixSocketTests {
    @Test func aUnixSocketInAPrivateFolderServesCurl() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                mkdir -m 700 sock
                # A socket left behind (its listener gone) is replaced.
                /usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock/serve.sock
                portal-auth serve --listen "unix:$PWD/sock/serve.sock" --state-file serve.json </dev/null >serve.out 2>serve.err &
                SERVE_PID=$!
                deadline=$((SECONDS + 30))
                until [ -s serve.json ]; do
                  kill -0 "$SERVE_PID" 2>/dev/null || { cat serve.err >&2; exit 1; }
                  [ "$SECONDS" -lt "$deadline" ] || { echo "serve did not start" >&2; exit 1; }
                  sleep 0.02
                done
                BASE=$(python3 -c 'import json; print(json.load(open("serve.json"))["url"])')
                case "$BASE" in http://localhost/*/) echo "base: http://localhost/SECRET/" ;; esac
                echo "mode: $(stat -c %a sock/serve.sock)"
                echo "token: $(curl -s -o /dev/null -w '%{http_code}' --unix-socket sock/serve.sock "${BASE}token?url=$LAYER")"
                echo "no secret: $(curl -s -o /dev/null -w '%{http_code}' --unix-socket sock/serve.sock "http://localhost/token?url=$LAYER")"
                # A second serve on the same path: in use, and the first goes on.
                status=0
                portal-auth serve --listen "unix:$PWD/sock/serve.sock" 2>second.err || status=$?
                echo "second: exit $status: $(cat second.err)"
                echo "still: $(curl -s -o /dev/null -w '%{http_code}' --unix-socket sock/serve.sock "${BASE}token?url=$LAYER")"
                stop_serve && echo "stopped"
                [ -e sock/serve.sock ] || echo "the socket is removed"
                """#)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let path = serve.use.directory + "/sock/serve.sock"
            #expect(
                result.stdout == """
                    base: http://localhost/SECRET/
                    mode: 600
                    token: 200
                    no secret: 403
                    second: exit 2: portal-auth: \(path) is already in use by a process of your own (another \
                    portal-auth serve?): stop it, or choose another (--listen unix:PATH)
                    still: 200
                    stopped
                    the socket is removed

                    """, "\(result.stdout)")
        }
    }

    @Test func aFolderOthersMayEnterOrWriteOrAnotherUsersIsRefused() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                mkdir -m 755 readable; mkdir -m 711 enterable; mkdir -m 770 group; mkdir -m 700 theirs
                if [ "$(id -u)" = 0 ]; then chown 65534 theirs; else rmdir theirs; ln -s / theirs; fi
                for folder in readable enterable group theirs; do
                  status=0
                  portal-auth serve --listen "unix:$PWD/$folder/serve.sock" 2>refused.err || status=$?
                  echo "$folder: exit $status, $(grep -c 'only they may enter' refused.err), $(ls -A "$folder" | wc -l)"
                done
                """#)
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            #expect(
                result.stdout
                    == "readable: exit 2, 1, 0\nenterable: exit 2, 1, 0\ngroup: exit 2, 1, 0\ntheirs: exit 2, 1, 0\n",
                "\(result.stdout)")
        }
    }
}
