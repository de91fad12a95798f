import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth serve` under clients that misbehave (issue 34, item 4; docs/security.md, "Streams
/// and connections under abuse"): answers of any size arrive whole (SHA-256 at the client); a
/// client that stalls is cut, and its upstream transfer ended, within `--stall-timeout`; clients
/// that leave mid-download free their threads (serve answers at once after 70 of them, its token
/// endpoint included, and keeps no socket in CLOSE-WAIT); 150 clients at once queue for the 64
/// places instead of being reset. Every wait is on an event (a socket's end, the emulator's
/// progress, a socket's TCP state, /proc), bounded only by the script's timeout. One at a time:
/// each loads the machine on its own.
@Suite(.serialized) struct ServeAbuseTests {
    /// The bound of each script: 300 MB go through debug builds of serve and the emulator on a
    /// shared 2-core machine, which takes minutes when the machine is loaded (a bound, not a pace).
    static let timeout: TimeInterval = 900

    /// `stream_url ARGS`, `progress NAME`, `close_wait` (serve's sockets in CLOSE-WAIT)
    /// and `sha_of SIZE` (the SHA-256 of the emulator's SIZE-byte body).
    static let helpers = #"""
        stream_url() { echo "$(portal-auth serve url --state-file serve.json "${PORTAL%/portal}/server/rest/services/Stream/MapServer/$1")"; }
        progress() { curl -sS --cacert "$CA" "$ORIGIN/emulator/stream?name=$1"; }
        serve_port() { python3 -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).port)' "$BASE"; }
        close_wait() {
          awk -v port="$(printf '%04X' "$(serve_port)")" \
            'NR > 1 { split($2, local, ":"); if (local[2] == port && $4 == "08") n++ } END { print n + 0 }' \
            /proc/net/tcp /proc/net/tcp6
        }
        sha_of() {
          python3 -c '
        import hashlib, sys
        size, block, digest = int(sys.argv[1]), bytes(range(256)) * 4096, hashlib.sha256()
        while size > 0:
            digest.update(block[:min(size, len(block))])
            size -= len(block)
        print(digest.hexdigest())
        ' "$1"
        }
        # Waits (on /proc, up to the script's bound) until serve keeps no socket in CLOSE-WAIT.
        until_no_close_wait() { while [ "$(close_wait)" != 0 ]; do sleep 0.1; done; }

        """#

    @Test func answersOfAnySizeArriveWhole() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.helpers + #"""
                    start_serve
                    for size in 5000000 300000000; do
                      got=$(curl -sS "$(stream_url bytes)?size=$size" | sha256sum | cut -d' ' -f1)
                      [ "$got" = "$(sha_of $size)" ] && echo "$size chunked: whole" || echo "$size chunked: $got"
                    done
                    got=$(curl -sS "$(stream_url bytes)?size=5000000&length=1" | sha256sum | cut -d' ' -f1)
                    [ "$got" = "$(sha_of 5000000)" ] && echo "5000000 with length: whole" || echo "with length: $got"
                    # A client that reads slowly (pausing the upstream transfer again and again).
                    got=$(curl -sS --limit-rate 2M "$(stream_url bytes)?size=5000000" | sha256sum | cut -d' ' -f1)
                    [ "$got" = "$(sha_of 5000000)" ] && echo "5000000 read slowly: whole" || echo "slowly: $got"
                    stop_serve
                    """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout.split(separator: "\n").map(String.init) == [
                    "5000000 chunked: whole", "300000000 chunked: whole", "5000000 with length: whole",
                    "5000000 read slowly: whole",
                ], "\(result.stderr)")
        }
    }

    @Test func aStalledClientIsCutAndItsUpstreamTransferEndedWithinTheStallTimeout() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.helpers + #"""
                    start_serve --stall-timeout 2
                    URL="$(stream_url bytes)?size=40000000&hold=stalled&holdAt=20000000" python3 -c '
                    import os, socket, sys, time, urllib.parse, requests
                    admin = os.environ["ORIGIN"] + "/emulator/"
                    def progress():
                        return requests.get(admin + "stream", params={"name": "stalled"}, verify=os.environ["CA"]).json()
                    url = urllib.parse.urlsplit(os.environ["URL"])
                    client = socket.socket()
                    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
                    client.connect((url.hostname, url.port))
                    client.sendall(("GET %s?%s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url.path, url.query, url.netloc)).encode())
                    def serve_closed():
                        serve, mine = ":%04X" % url.port, ":%04X" % client.getsockname()[1]
                        for line in open("/proc/net/tcp").read().splitlines()[1:]:
                            local, remote, state = line.split()[1:4]
                            if local.endswith(serve) and remote.endswith(mine): return state != "01"
                        return True
                    # The client reads nothing. Serve has to cut it: its end of the connection leaves ESTABLISHED.
                    while not serve_closed(): time.sleep(0.05)
                    # The emulator, holding the rest of the body, sends it now: serve ended the transfer, so it
                    # cannot (a transfer only paused would take it).
                    while not (progress()["held"] or progress()["aborted"]): time.sleep(0.05)
                    requests.post(admin + "stream-release", data={"name": "stalled"}, verify=os.environ["CA"])
                    while not (progress()["aborted"] or progress()["done"]): time.sleep(0.05)
                    total = 0
                    while True:
                        piece = client.recv(1 << 20)
                        if not piece: break
                        total += len(piece)
                    print("cut:", total < 40000000, "upstream aborted:", progress()["aborted"])
                    client.close()
                    '
                    until_no_close_wait
                    curl -sS "$(stream_url bytes)?size=300000" | sha256sum | cut -d' ' -f1 >got.txt
                    [ "$(cat got.txt)" = "$(sha_of 300000)" ] && echo "still serving"
                    stop_serve
                    """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout.split(separator: "\n").map(String.init) == [
                    "cut: True upstream aborted: True", "still serving",
                ], "\(result.stderr)")
        }
    }

    @Test func seventyClientsThatLeaveMidDownloadLeaveServeAnsweringAtOnce() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.helpers + #"""
                    start_serve
                    URL="$(stream_url bytes)?size=50000000" python3 -c '
                    import os, socket, struct, urllib.parse
                    url = urllib.parse.urlsplit(os.environ["URL"])
                    clients = []
                    for _ in range(70):
                        client = socket.socket()
                        client.connect((url.hostname, url.port))
                        client.sendall(("GET %s?%s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url.path, url.query, url.netloc)).encode())
                        clients.append(client)
                    # Each reads the start of its body and goes away (the last 6 wait in the queue until the
                    # first leave: their place comes free at once, not after a stall timeout).
                    for client in clients:
                        got = 0
                        while got < 400000:
                            piece = client.recv(65536)
                            if not piece: break
                            got += len(piece)
                        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                        client.close()
                    print("70 left")
                    '
                    # Answered at once: the token endpoint, and a new download (a bound, not a pace).
                    curl -sS --max-time 60 "${BASE}token?url=$PORTAL" | python3 -c 'import json, sys; print("token:", bool(json.load(sys.stdin)["token"]))'
                    got=$(curl -sS --max-time 120 "$(stream_url bytes)?size=5000000" | sha256sum | cut -d' ' -f1)
                    [ "$got" = "$(sha_of 5000000)" ] && echo "new download whole"
                    until_no_close_wait
                    echo "no socket in CLOSE-WAIT"
                    stop_serve
                    """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout.split(separator: "\n").map(String.init) == [
                    "70 left", "token: True", "new download whole", "no socket in CLOSE-WAIT",
                ], "\(result.stderr)")
        }
    }

    @Test func aHundredAndFiftyClientsAtOnceQueueInsteadOfBeingReset() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.helpers + #"""
                    start_serve
                    URL="$(stream_url bytes)?size=100000" python3 -c '
                    import os, threading, urllib.request
                    url, failures, lock = os.environ["URL"], [], threading.Lock()
                    start = threading.Barrier(150)
                    def get():
                        start.wait()
                        try:
                            with urllib.request.urlopen(url, timeout=300) as answer:
                                if len(answer.read()) != 100000: raise ValueError("short body")
                        except Exception as error:
                            with lock: failures.append(repr(error))
                    workers = [threading.Thread(target=get) for _ in range(150)]
                    for worker in workers: worker.start()
                    for worker in workers: worker.join()
                    print("failures:", len(failures), failures[:3])
                    '
                    stop_serve
                    """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "failures: 0 []\n", "\(result.stderr)")
        }
    }
}
