import Foundation
import PortalEmulator
import TestSupport
import Testing

/// A password file rotated under a running `serve` and `exec` (#39 item 2): the portal changes
/// alice's password, the kubelet swaps the Secret's `..data`, the portal's tokens expire; a loop of
/// requests runs throughout and not one fails. Every wait is for an event, each bounded.
@Suite struct FleetsRotationTests {
    /// Shell functions: `project FOLDER PASSWORD` lays out or updates a Secret volume as the
    /// kubelet's AtomicWriter does (a timestamped folder, `..data_tmp` renamed over `..data`, the
    /// key's link through `..data`, the old folder removed); `change_password PASSWORD` changes
    /// alice's at the portal; `expire_tokens` expires every token it issued.
    static let functions = #"""
        VERSION=0
        project() {
          local volume=$1 old new
          VERSION=$((VERSION + 1))
          mkdir -p -m 700 "$volume"
          old=$(readlink "$volume/..data" || true)
          new="..2026_11_28_10_0${VERSION}_00.12345678${VERSION}"
          mkdir -m 755 "$volume/$new"
          (umask 077 && printf '%s\n' "$2" > "$volume/$new/password")
          chmod 400 "$volume/$new/password"
          ln -s "$new" "$volume/..data_tmp"
          mv -T "$volume/..data_tmp" "$volume/..data"
          [ -L "$volume/password" ] || ln -s ..data/password "$volume/password"
          [ -z "$old" ] || rm -rf "${volume:?}/$old"
        }
        change_password() { curl -sS -f --cacert "$CA" -d username=alice -d "password=$1" "$ORIGIN/emulator/password" >/dev/null; }
        expire_tokens() { curl -sS -f --cacert "$CA" -X POST "$ORIGIN/emulator/expire-tokens" >/dev/null; }

        """#

    /// The variables of a sign-in from the Secret volume `secret`.
    static func variables(_ emulator: PortalEmulator) -> [String: String] {
        ["ARCGIS_HOST": emulator.portalURL, "ARCGIS_USER": "alice", "ARCGIS_PASSWORD_FILE": "secret/password"]
    }

    @Test func serveLosesNoRequestWhileTheSecretRotates() async throws {
        try await ServeUse.with { serve in
            let result = try await serve.bash(
                Self.functions + #"""
                    project secret "$ALICE_PASSWORD"
                    ARCGIS_PASSWORD_FILE="$PWD/secret/password" start_serve
                    URL=$(portal-auth serve url --state-file serve.json "$LAYER/query?where=1%3D1&returnCountOnly=true&f=json")
                    # The loop: one request after another until told to stop, each result a line.
                    ( while [ ! -e stop ]; do
                        out=$(curl -sS "$URL" 2>&1 || true)
                        case "$out" in *'"count":24'*) echo ok ;; *) echo "FAILED $(printf %s "$out" | head -c 300)" ;; esac
                      done >results ) &
                    LOOP=$!
                    wait_for() { for i in $(seq 3000); do [ "$(wc -l <results)" -ge "$1" ] && return; sleep 0.01; done; return 1; }
                    wait_for 5
                    change_password alice-rotated-789
                    project secret alice-rotated-789
                    expire_tokens
                    after=$(($(wc -l <results) + 10))
                    wait_for "$after"
                    : >stop; wait "$LOOP"
                    echo "requests $(wc -l <results), failed $(grep -c FAILED results || true)"; grep -m3 FAILED results >&2 || true; cat serve.err >&2
                    stop_serve
                    """#,
                extra: Self.variables(serve.emulator).merging(["ALICE_PASSWORD": alicePassword]) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains(", failed 0"), "\(result.stdout) \(result.stderr)")
            #expect(serve.emulator.counters().generateTokenRequests >= 2)
        }
    }

    @Test func execSignsInAgainAtOnceWhenTheSecretRotatesAndItsCommandLosesNoRequest() async throws {
        try await ServeUse.with { serve in
            let result = try await serve.bash(
                Self.functions + #"""
                    project secret "$ALICE_PASSWORD"
                    export -f project change_password; export VERSION
                    portal-auth exec "$LAYER" -- bash -c '
                      set -u
                      first=$(cat "$GDAL_HTTP_HEADER_FILE"); failed=0; n=0
                      request() {
                        n=$((n + 1))
                        out=$(curl -sS -H @"$GDAL_HTTP_HEADER_FILE" "$LAYER/query?where=1%3D1&returnCountOnly=true&f=json" 2>&1 || true)
                        case "$out" in *count\":24*) ;; *) failed=$((failed + 1)); echo "failed: $out" ;; esac
                      }
                      request; request
                      change_password alice-rotated-789
                      VERSION=1 project secret alice-rotated-789
                      for i in $(seq 3000); do
                        request
                        now=$(cat "$GDAL_HTTP_HEADER_FILE")
                        [ "$now" != "$first" ] && break
                        sleep 0.01
                      done
                      request
                      [ "$now" != "$first" ] && echo "header file renewed"
                      echo "requests $n, failed $failed"'
                    """#,
                extra: Self.variables(serve.emulator).merging(["ALICE_PASSWORD": alicePassword]) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("header file renewed"), "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains(", failed 0"), "\(result.stdout) \(result.stderr)")
            #expect(serve.emulator.counters().generateTokenRequests >= 2)
        }
    }
}
