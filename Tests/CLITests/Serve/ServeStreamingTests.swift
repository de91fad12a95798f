import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth serve` passes long answers on as they arrive: a body far larger than the
/// transport's whole-body limit goes through with the server's memory bounded, the first bytes of
/// a slow body reach the client before the rest is sent, a client that stops reading pauses the
/// upstream transfer and, once it goes away, ends it, and a refused token is still renewed and a
/// short form sent again. A form over 1 MiB streams up with the server's memory bounded and the
/// client's tokens blanked, and is sent once (after a refusal the client gets the 498). The
/// emulator's `Stream` resources send and take bodies in pieces; a test holds a body part-way and
/// releases it through the emulator's admin API (no clock involved).
@Suite struct ServeStreamingTests {
    /// The bound of each script: hundreds of megabytes go through a debug build of serve and the
    /// emulator, which takes minutes on a loaded machine (90 s, the default, was too short there).
    static let timeout: TimeInterval = 600

    /// Shell helpers: `stream_url ARGS` (the local URL of the emulator's streamed resource),
    /// `hwm_kb` (the serve process's peak resident memory), `progress NAME` and `release NAME`.
    static let helpers = #"""
        stream_url() { echo "$(portal-auth serve url --state-file serve.json "${PORTAL%/portal}/server/rest/services/Stream/MapServer/$1")"; }
        hwm_kb() { awk '/^VmHWM:/ {print $2}' "/proc/$SERVE_PID/status"; }
        progress() { curl -sS --cacert "$CA" "$ORIGIN/emulator/stream?name=$1"; }
        release() { curl -sS --cacert "$CA" -d "name=$1" "$ORIGIN/emulator/stream-release" >/dev/null; }
        # Reads a body from stdin: its length, and whether byte i is i % 256 throughout.
        check_body() {
          python3 -c '
        import sys
        pattern = bytes(range(256)) * 4200
        total, good = 0, True
        while True:
            piece = sys.stdin.buffer.read(1 << 20)
            if not piece: break
            start = total % 256
            good = good and piece == pattern[start:start + len(piece)]
            total += len(piece)
        print(total, "pattern ok" if good else "pattern WRONG")
        '
        }

        """#

    @Test func aBodyLargerThanTheWholeBodyLimitPassesWithTheServersMemoryBounded() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.helpers + #"""
                    start_serve
                    echo "before: $(hwm_kb)" >&2
                    # 200 MB, chunked (the emulator announces no length), three times the 64 MiB limit.
                    curl -sS -D headers.txt "$(stream_url bytes)?size=200000000" | check_body
                    grep -i '^transfer-encoding:' headers.txt | tr -d '\r' | tr 'A-Z' 'a-z'
                    echo "peak: $(hwm_kb)" >&2
                    # With Content-Length from upstream: passed on as it was announced.
                    curl -sS -D headers.txt "$(stream_url bytes)?size=3000000&length=1" | check_body
                    grep -i '^content-length:' headers.txt | tr -d '\r' | tr 'A-Z' 'a-z'
                    # To an HTTP/1.0 client, a body of unknown length ends with the connection.
                    curl -sS -0 -D headers.txt "$(stream_url bytes)?size=3000000" | check_body
                    grep -ci '^transfer-encoding:' headers.txt || true
                    echo "peak kB: $(hwm_kb)"
                    stop_serve
                    """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(
                Array(lines.prefix(6)) == [
                    "200000000 pattern ok", "transfer-encoding: chunked", "3000000 pattern ok",
                    "content-length: 3000000", "3000000 pattern ok", "0",
                ], "\(result.stdout)")
            // The whole body read at once would take 200 MB; streamed, the server stays near its 27 MB at rest.
            let peak = lines.last.flatMap { Int($0.dropFirst("peak kB: ".count)) } ?? .max
            #expect(
                peak < SanitizerBounds.widened(60_000), "serve's peak resident memory: \(peak) kB; \(result.stderr)")
        }
    }

    @Test func theFirstBytesOfASlowBodyReachTheClientBeforeTheRestIsSent() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.helpers + #"""
                    start_serve
                    export URL="$(stream_url bytes)?size=3000000&hold=slow&holdAt=1000000"
                    python3 -c '
                    import os, requests
                    admin = os.environ["ORIGIN"] + "/emulator/"
                    def progress():
                        return requests.get(admin + "stream", params={"name": "slow"}, verify=os.environ["CA"]).json()
                    # A read timeout only turns a hang into a failure: the bytes must come while the rest is held.
                    try:
                        r = requests.get(os.environ["URL"], stream=True, timeout=(10, 60))
                        first = r.raw.read(1000000)
                        p = progress()
                        print(len(first), "held" if p["held"] and not p["done"] else "not held: %s" % p)
                    finally:
                        requests.post(admin + "stream-release", data={"name": "slow"}, verify=os.environ["CA"])
                    rest = r.raw.read()
                    print(len(first) + len(rest), progress()["done"])
                    '
                    stop_serve
                    """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "1000000 held\n3000000 True\n", "\(result.stdout)")
        }
    }

    @Test func aClientThatStopsReadingPausesTheUpstreamTransferAndEndsItByLeaving() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.helpers + #"""
                    start_serve
                    URL="$(stream_url bytes)?size=200000000&hold=stalled&holdAt=100000000" SERVE_PID=$SERVE_PID python3 -c '
                    import os, socket, struct, sys, time, urllib.parse, requests
                    admin = os.environ["ORIGIN"] + "/emulator/"
                    def progress():
                        return requests.get(admin + "stream", params={"name": "stalled"}, verify=os.environ["CA"]).json()
                    def hwm_kb():
                        status = open("/proc/%s/status" % os.environ["SERVE_PID"]).read()
                        return int(status.split("VmHWM:")[1].split()[0])
                    url = urllib.parse.urlsplit(os.environ["URL"])
                    client = socket.socket()
                    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
                    client.connect((url.hostname, url.port))
                    client.sendall(("GET %s?%s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url.path, url.query, url.netloc)).encode())
                    # The client reads nothing. The emulator sends as fast as it is let, up to 100 MB (then it
                    # holds the rest): watch it until it stops or holds.
                    last, still, deadline = -1, 0, time.monotonic() + 60
                    while still < 15 and time.monotonic() < deadline:
                        p = progress()
                        if p["held"]: break
                        still, last = (still + 1 if p["sent"] == last else 0), p["sent"]
                        time.sleep(0.1)
                    print("upstream stopped at %d bytes" % progress()["sent"], file=sys.stderr)
                    print("serve peak kB:", hwm_kb())
                    # The client goes away: the upstream transfer ends (the rest of the body, released, has
                    # nowhere to go).
                    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    client.close()
                    requests.post(admin + "stream-release", data={"name": "stalled"}, verify=os.environ["CA"])
                    deadline = time.monotonic() + 60
                    while not progress()["aborted"] and time.monotonic() < deadline: time.sleep(0.02)
                    p = progress()
                    print("upstream aborted:", p["aborted"] and not p["done"])
                    '
                    # Still serving.
                    curl -sS "$(stream_url bytes)?size=300000" | check_body
                    stop_serve
                    """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(result.stdout)")
            // Paused: serve holds at most its buffer while the upstream offers up to 100 MB.
            let peak = lines.first.flatMap { Int($0.dropFirst("serve peak kB: ".count)) } ?? .max
            #expect(
                peak < SanitizerBounds.widened(60_000), "serve's peak resident memory: \(peak) kB; \(result.stderr)")
            #expect(Array(lines.suffix(2)) == ["upstream aborted: True", "300000 pattern ok"], "\(result.stdout)")
        }
    }

    @Test func aRefusedTokenIsStillRenewedAndTheFormSentAgain() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn(["--remember-password"])
            let result = try await serve.bash(
                #"""
                start_serve
                query=$(portal-auth serve url --state-file serve.json "$LAYER/query")
                curl -sS -d 'where=1=1' -d returnCountOnly=true -d f=json "$query"; echo
                counters >before.json
                # Every token the emulator issued is refused from now on (498 in a 200 JSON answer).
                curl -sS --cacert "$CA" -X POST "$ORIGIN/emulator/expire-tokens" >/dev/null
                curl -sS -d 'where=1=1' -d returnCountOnly=true -d f=json "$query"; echo
                sign_ins_since before.json
                stop_serve
                """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout == "{\"count\":24}\n{\"count\":24}\npassword sign-ins: 1\n", "\(result.stdout)")
            let queries = serve.logLines(containing: "FeatureServer/0/query")
            #expect(queries.count == 3, "\(queries)")
        }
    }

    @Test func aLargeFormStreamsUpWithItsTokensDroppedAndTheServersMemoryBounded() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                Self.helpers + #"""
                    start_serve
                    python3 -c '
                    import hashlib
                    data = b"data=" + b"a" * 100000000
                    # Tokens of the client, however spelled, are dropped on the way.
                    open("form.bin", "wb").write(b"token=stolen&where=1%3D1&" + data + b"&t%6Fken=x&f=json&TOKEN")
                    # Each byte of theirs becomes "&" (empty parameters): the length holds.
                    expected = b"&&&&&&&&&&&&&where=1%3D1&" + data + b"&&&&&&&&&&&f=json&&&&&&"
                    open("expected.txt", "w").write("%d %s\n" % (len(expected), hashlib.sha256(expected).hexdigest()))
                    '
                    curl -sS -H 'Content-Type: application/x-www-form-urlencoded' -T form.bin -X POST "$(stream_url echo)" \
                      | python3 -c 'import json, sys; raw = sys.stdin.buffer.read(); a = json.loads(raw or b"{}")
                    if "bytes" not in a: sys.exit("not the echo: %r" % raw[:600])
                    print(a["bytes"], a["sha256"]); print(a["contentType"], a["head"], a["tail"], file=sys.stderr)' >got.txt
                    cmp -s got.txt expected.txt && echo "the form arrived without its tokens" || { cat got.txt expected.txt >&2; }
                    echo "peak kB: $(hwm_kb)"
                    # Longer than 1 GiB: refused on its head, before any of it is read.
                    URL="$(stream_url echo)" python3 -c '
                    import os, socket, urllib.parse
                    url = urllib.parse.urlsplit(os.environ["URL"])
                    client = socket.create_connection((url.hostname, url.port))
                    client.sendall(("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                                    "Content-Length: 1073741825\r\n\r\n" % (url.path, url.netloc)).encode())
                    print(client.makefile("rb").readline().decode().strip())
                    '
                    stop_serve
                    """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(result.stdout)")
            #expect(lines.first == "the form arrived without its tokens", "\(result.stdout) \(result.stderr)")
            let peak = lines.dropFirst().first.flatMap { Int($0.dropFirst("peak kB: ".count)) } ?? .max
            #expect(peak < SanitizerBounds.widened(50_000), "serve's peak resident memory: \(peak) kB")
            #expect(lines.last == "HTTP/1.1 413 Content Too Large", "\(result.stdout)")
        }
    }

    @Test func aStreamedFormIsSentOnceAfterARefusalTheClientGets498WithTheTokenRenewed() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn(["--remember-password"])
            let result = try await serve.bash(
                Self.helpers + #"""
                    start_serve
                    python3 -c 'open("form.bin", "wb").write(b"data=" + b"a" * 2000000)'
                    post() {
                      curl -sS -H 'Content-Type: application/x-www-form-urlencoded' -T form.bin -X POST "$(stream_url echo)" \
                        | python3 -c 'import json, sys; a = json.load(sys.stdin); print(a.get("bytes") or a["error"]["code"])'
                    }
                    post
                    counters >before.json
                    curl -sS --cacert "$CA" -X POST "$ORIGIN/emulator/expire-tokens" >/dev/null
                    post
                    post
                    sign_ins_since before.json
                    stop_serve
                    """#, timeout: Self.timeout)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "2000005\n498\n2000005\npassword sign-ins: 1\n", "\(result.stdout)")
        }
    }
}
