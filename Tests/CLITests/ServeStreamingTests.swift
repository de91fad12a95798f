import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth serve` passes long answers on as they arrive: a body far larger than the
/// transport's whole-body limit goes through with the server's memory bounded, the first bytes of
/// a slow body reach the client before the rest is sent, a client that stops reading pauses the
/// upstream transfer and, once it goes away, ends it, and a refused token is still renewed and the
/// form sent again. The emulator's `Stream` resources send and take bodies in pieces; the test
/// holds a body part-way and releases it through the emulator's admin API (no clock involved).
@Suite struct ServeStreamingTests {
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
                    echo "peak kB: $(hwm_kb)"
                    stop_serve
                    """#)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(
                Array(lines.prefix(4)) == [
                    "200000000 pattern ok", "transfer-encoding: chunked", "3000000 pattern ok",
                    "content-length: 3000000",
                ], "\(result.stdout)")
            // The whole body read at once would take 200 MB; streamed, the server stays far below.
            let peak = lines.last.flatMap { Int($0.dropFirst("peak kB: ".count)) } ?? .max
            #expect(peak < 80_000, "serve's peak resident memory: \(peak) kB; \(result.stderr)")
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
                    r = requests.get(os.environ["URL"], stream=True, timeout=(10, 60))
                    first = r.raw.read(1000000)
                    p = progress()
                    print(len(first), "held" if p["held"] and not p["done"] else "not held: %s" % p)
                    requests.post(admin + "stream-release", data={"name": "slow"}, verify=os.environ["CA"])
                    rest = r.raw.read()
                    print(len(first) + len(rest), progress()["done"])
                    '
                    stop_serve
                    """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "1000000 held\n3000000 True\n", "\(result.stdout)")
        }
    }
}
