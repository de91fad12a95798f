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

    // MARK: - An API key from a file (#39 item 2)

    /// Shell functions for an API key file rotated one of three ways (`MODE`): `kubelet` (the
    /// Secret volume `secret/`, its `..data` swapped), `rename` (Vault Agent: a temporary file
    /// renamed over `key`), `in-place` (`key` rewritten, the same inode). `KEY_FILE` is the path
    /// for `ARCGIS_API_KEY_FILE`; `rotate KEY` puts KEY there; `add_key KEY` makes the emulator
    /// accept it for geocoding and `invalidate_key KEY` makes it refuse it (498).
    static let keyFunctions = #"""
        KEY_VERSION=0
        rotate() {
          case "$MODE" in
            kubelet)
              local old new
              KEY_VERSION=$((KEY_VERSION + 1))
              mkdir -p -m 700 secret
              old=$(readlink secret/..data || true)
              new="..2026_11_28_11_0${KEY_VERSION}_00.87654321${KEY_VERSION}"
              mkdir -m 755 "secret/$new"
              (umask 077 && printf '%s\n' "$1" > "secret/$new/api-key")
              chmod 400 "secret/$new/api-key"
              ln -s "$new" secret/..data_tmp
              mv -T secret/..data_tmp secret/..data
              [ -L secret/api-key ] || ln -s ..data/api-key secret/api-key
              [ -z "$old" ] || rm -rf "secret/$old" ;;
            rename) (umask 077 && printf '%s\n' "$1" > .key.tmp) && mv .key.tmp key ;;
            in-place) (umask 077 && printf '%s\n' "$1" > key) ;;
          esac
        }
        if [ "$MODE" = kubelet ]; then KEY_FILE="$PWD/secret/api-key"; else KEY_FILE="$PWD/key"; fi
        add_key() {
          curl -sS -f --cacert "$CA" -H 'Content-Type: application/json' \
            -d "{\"key\":\"$1\",\"lifetimeSeconds\":86400,\"privileges\":[\"premium:user:geocode\"]}" \
            "$ORIGIN/emulator/api-keys" >/dev/null
        }
        invalidate_key() { curl -sS -f --cacert "$CA" -d "key=$1" "$ORIGIN/emulator/invalidate-api-key" >/dev/null; }

        """#

    /// The keys, one per rotation: the first, then two rotations.
    static let keys = ["AAPTfleetsRotationKeyOne0001", "AAPTfleetsRotationKeyTwo0002", "AAPTfleetsRotationKeyThree03"]

    /// The variables of a sign-in with an API key file.
    static func keyVariables(_ serve: ServeUse, mode: String) throws -> [String: String] {
        [
            "ARCGIS_HOST": serve.emulator.portalURL, "MODE": mode, "K1": keys[0], "K2": keys[1], "K3": keys[2],
            "GEOCODE": try #require(serve.emulator.geocodeServiceURL)
                + "/findAddressCandidates?SingleLine=380%20New%20York%20St&f=json",
        ]
    }

    /// How many requests the location services saw with `key`.
    static func uses(of key: String, _ serve: ServeUse) -> Int {
        serve.emulator.counters().apiKeyRequestsByOrigin.values.reduce(0) { $0 + ($1[key] ?? 0) }
    }

    @Test(arguments: ["kubelet", "rename", "in-place"])
    func serveLosesNoRequestWhileTheAPIKeyFileRotates(mode: String) async throws {
        try await ServeUse.with { serve in
            let result = try await serve.bash(
                Self.keyFunctions + #"""
                    add_key "$K1"; rotate "$K1"
                    ARCGIS_API_KEY_FILE="$KEY_FILE" start_serve
                    URL=$(portal-auth serve url --state-file serve.json "$GEOCODE")
                    ( while [ ! -e stop ]; do
                        out=$(curl -sS "$URL" 2>&1 || true)
                        case "$out" in *'"score":100'*) echo ok ;; *) echo "FAILED $(printf %s "$out" | head -c 300)" ;; esac
                      done >results ) &
                    LOOP=$!
                    wait_for() { for i in $(seq 3000); do [ "$(wc -l <results)" -ge "$1" ] && return; sleep 0.01; done; return 1; }
                    wait_for 5
                    # Each rotation: the new key made, put in the file, and the old one refused at once
                    # (an edit in place is not read until settled: the refusal reads it).
                    previous=$K1
                    for key in "$K2" "$K3"; do
                      add_key "$key"; rotate "$key"; invalidate_key "$previous"; previous=$key
                      wait_for $(($(wc -l <results) + 10))
                    done
                    : >stop; wait "$LOOP"
                    echo "requests $(wc -l <results), failed $(grep -c FAILED results || true)"; grep -m3 FAILED results >&2 || true; cat serve.err >&2
                    stop_serve
                    """#,
                extra: try Self.keyVariables(serve, mode: mode))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains(", failed 0"), "\(mode): \(result.stdout) \(result.stderr)")
            #expect(Self.uses(of: Self.keys[2], serve) >= 10, "\(serve.emulator.counters().apiKeyRequestsByOrigin)")
        }
    }

    @Test(arguments: ["kubelet", "rename", "in-place"])
    func execsHeaderFileGetsTheRotatedAPIKeyAndItsCommandLosesNoRequest(mode: String) async throws {
        try await ServeUse.with { serve in
            let result = try await serve.bash(
                Self.keyFunctions + #"""
                    add_key "$K1"; rotate "$K1"
                    export -f rotate add_key invalidate_key; export KEY_VERSION MODE
                    ARCGIS_API_KEY_FILE="$KEY_FILE" portal-auth exec "$GEOCODE" -- bash -c '
                      set -u
                      failed=0; n=0
                      request() {
                        n=$((n + 1))
                        out=$(curl -sS -H @"$GDAL_HTTP_HEADER_FILE" "$GEOCODE" 2>&1 || true)
                        case "$out" in *score\":100*) ;; *) failed=$((failed + 1)); echo "failed: $out" ;; esac
                      }
                      request; request
                      previous=$K1; renewed=0
                      for key in "$K2" "$K3"; do
                        add_key "$key"; rotate "$key"
                        # The header file holds the new key within seconds; the old one works until then.
                        for i in $(seq 3000); do
                          request
                          grep -q "$key" "$GDAL_HTTP_HEADER_FILE" && { renewed=$((renewed + 1)); break; }
                          sleep 0.01
                        done
                        invalidate_key "$previous"; previous=$key
                        request; request
                      done
                      echo "header file renewed $renewed times"
                      echo "requests $n, failed $failed"'
                    """#,
                extra: try Self.keyVariables(serve, mode: mode))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("header file renewed 2 times"), "\(mode): \(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains(", failed 0"), "\(mode): \(result.stdout) \(result.stderr)")
            #expect(Self.uses(of: Self.keys[2], serve) >= 2)
        }
    }

    // MARK: - serve and a password refused after a rotation (#39 item 2)

    @Test func serveSignsInAgainWithAPasswordFileRewrittenAMomentBeforeItsTokenIsRefused() async throws {
        try await ServeUse.with { serve in
            let result = try await serve.bash(
                Self.functions + #"""
                    (umask 077 && printf '%s\n' "$ALICE_PASSWORD" > password)
                    ARCGIS_PASSWORD_FILE="$PWD/password" start_serve
                    URL=$(portal-auth serve url --state-file serve.json "$LAYER/query?where=1%3D1&returnCountOnly=true&f=json")
                    ( while [ ! -e stop ]; do
                        out=$(curl -sS "$URL" 2>&1 || true)
                        case "$out" in *'"count":24'*) echo ok ;; *) echo "FAILED $(printf %s "$out" | head -c 300)" ;; esac
                      done >results ) &
                    LOOP=$!
                    wait_for() { for i in $(seq 3000); do [ "$(wc -l <results)" -ge "$1" ] && return; sleep 0.01; done; return 1; }
                    wait_for 5
                    counters >before.json
                    # The portal's password changes, the file is rewritten in place (too recently to be
                    # read unasked), and every token is refused at once: the refusal reads the file.
                    change_password alice-rotated-789
                    printf '%s\n' alice-rotated-789 > password
                    expire_tokens
                    wait_for $(($(wc -l <results) + 10))
                    : >stop; wait "$LOOP"
                    echo "requests $(wc -l <results), failed $(grep -c FAILED results || true)"; grep -m3 FAILED results >&2 || true; cat serve.err >&2
                    sign_ins_since before.json
                    stop_serve
                    """#,
                extra: Self.variables(serve.emulator).merging([
                    "ALICE_PASSWORD": alicePassword, "ARCGIS_PASSWORD_FILE": "password",
                ]) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains(", failed 0"), "\(result.stdout) \(result.stderr)")
            #expect(!result.stdout.contains("password sign-ins: 0"), "\(result.stdout)")
        }
    }
}
