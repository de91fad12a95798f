import Foundation
import PortalEmulator
import TestSupport
import Testing

/// `portal-auth serve` against hostile local clients: it listens on loopback only, answers only
/// requests that carry its secret and no `Origin`, forwards only inside a credential's scope
/// (counted at the emulator), drops the client's own authorization, and keeps its state file for
/// exactly as long as it runs.
@Suite struct ServeTests {
    @Test func aNonLoopbackAddressIsRefusedBeforeAnythingListens() async throws {
        try await ServeUse.with { serve in
            for address in ["0.0.0.0:0", "192.168.1.10:8080", "[::]:0", "example.com:80", "127.0.0.1:99999"] {
                let result = try await serve.use.portalAuth(["serve", "--listen", address])
                #expect(result.status == 2 || result.status == 1, "\(address): \(result.stderr)")
                #expect(result.oneLineError, "\(address): \(result.stderr)")
            }
            let refused = try await serve.use.portalAuth(["serve", "--listen", "0.0.0.0:0"])
            #expect(refused.stderr.contains("not a loopback address"), "\(refused.stderr)")
        }
    }

    @Test func aRequestWithoutTheSecretOrWithAnOriginIsRefusedAndContactsNothing() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let before = serve.emulator.counters().requests
            let result = try await serve.bash(
                #"""
                start_serve
                port=$(python3 -c 'import json,urllib.parse; print(urllib.parse.urlsplit(json.load(open("serve.json"))["url"]).port)')
                code() { curl -s -o /dev/null -w '%{http_code}' "$@"; echo; }
                echo "no secret: $(code "http://127.0.0.1:$port/token?url=$LAYER")"
                echo "no secret proxy: $(code "http://127.0.0.1:$port/https/${LAYER#https://}?f=json")"
                echo "wrong secret: $(code "http://127.0.0.1:$port/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/token?url=$LAYER")"
                echo "secret as a query: $(code "http://127.0.0.1:$port/token?url=$LAYER&secret=${BASE#http://127.0.0.1:$port/}")"
                echo "origin: $(code -H 'Origin: https://evil.example' "${BASE}token?url=$LAYER")"
                echo "origin proxy: $(code -H 'Origin: null' "${BASE}https/${LAYER#https://}?f=json")"
                echo "rebinding: $(code -H 'Host: evil.example:'"$port" "${BASE}token?url=$LAYER")"
                curl -s -D headers.txt -o /dev/null -H 'Origin: https://evil.example' "${BASE}token?url=$LAYER"
                echo "cors: $(grep -ci '^access-control' headers.txt || true)"
                echo "garbage: $(printf 'GARBAGE\r\n\r\n' | python3 -c '
                import socket, sys
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                s.sendall(sys.stdin.buffer.read()); print(s.recv(100).split(b"\r\n")[0].decode())' "$port")"
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            for line in [
                "no secret: 403", "no secret proxy: 403", "wrong secret: 403", "secret as a query: 403",
                "origin: 403", "origin proxy: 403", "rebinding: 403", "cors: 0", "garbage: HTTP/1.1 400 Bad Request",
            ] {
                #expect(result.stdout.contains(line + "\n"), "\(line) in \(result.stdout)")
            }
            // Not one request reached the emulator: no token was read, nothing was forwarded.
            #expect(serve.emulator.counters().requests == before)
        }
    }

    @Test func aRequestWithoutTheSecretIsRefusedOnItsHeadAndSlowConnectionsLockNobodyOut() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                start_serve
                port=$(python3 -c 'import json,urllib.parse; print(urllib.parse.urlsplit(json.load(open("serve.json"))["url"]).port)')
                # A head announcing 8 MB without the secret: refused at once, before any body is sent.
                python3 -c '
                import socket, sys
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.settimeout(10)
                s.sendall(b"POST /nosecret/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 8000000\r\n\r\n")
                print("big head:", s.recv(100).split(b"\r\n")[0].decode())' "$port"
                # 64 connections that sent one byte each: a real client is still answered, by
                # evicting one of them (not by waiting out their 30 s read deadline: the others
                # are still open when the answer arrives).
                python3 -c '
                import socket, subprocess, sys
                held = []
                for _ in range(64):
                    c = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); c.sendall(b"G"); held.append(c)
                code = subprocess.run(["curl", "-s", "--max-time", "300", "-o", "/dev/null", "-w", "%{http_code}",
                                       sys.argv[2] + "token?url=" + sys.argv[3]], capture_output=True, text=True).stdout
                def is_open(c):
                    c.setblocking(False)
                    try: return c.recv(1) != b""
                    except BlockingIOError: return True
                    except OSError: return False
                print("after 64 slow connections:", code)
                print("slow connections still open:", "most" if sum(map(is_open, held)) >= 60 else "few")' \
                  "$port" "$BASE" "$PORTAL"
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            let expected =
                "big head: HTTP/1.1 403 Forbidden\nafter 64 slow connections: 200\nslow connections still open: most\n"
            #expect(result.stdout == expected, "\(result.stdout)")
        }
    }

    @Test func aURLOutsideEveryCredentialsScopeIs403AndNeverContacted() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let location = try #require(serve.emulator.locationServicesBaseURL)
            let result = try await serve.bash(
                #"""
                start_serve
                code() { curl -s -o body.txt -w '%{http_code}' "$@"; echo; }
                # The claimant names the portal as its owner but is not in its list of servers.
                echo "claimant: $(code "${BASE}https/${ORIGIN#https://}/claimant/rest/services/Parcels/FeatureServer/0/query?where=1%3D1&f=json")"
                echo "claimant token: $(code "${BASE}token?url=$ORIGIN/claimant/rest/services/Parcels/FeatureServer/0")"
                echo "location services: $(code "${BASE}https/${LOCATION#https://}/arcgis/rest/services/World/GeocodeServer?f=json")"
                echo "another path: $(code "${BASE}https/${ORIGIN#https://}/elsewhere/page")"
                echo "another host: $(code "${BASE}https/example.invalid/arcgis/rest/services?f=json")"
                echo "userinfo: $(code "${BASE}https/alice@${ORIGIN#https://}/portal/sharing/rest/portals/self?f=json")"
                echo "http: $(portal-auth serve url --state-file serve.json "http://${ORIGIN#https://}/portal" 2>&1 || true)"
                cat body.txt
                stop_serve
                """#, extra: ["LOCATION": location])
            #expect(result.status == 0, "\(result.stderr)")
            for line in [
                "claimant: 403", "claimant token: 403", "location services: 403", "another path: 403",
                "another host: 403", "userinfo: 400",
            ] {
                #expect(result.stdout.contains(line + "\n"), "\(line) in \(result.stdout)")
            }
            #expect(result.stdout.contains("http: portal-auth: serve forwards to https"), "\(result.stdout)")
            // Counted at the emulator: nothing reached the claimant, the location services or the other path.
            let counters = serve.emulator.counters()
            #expect(
                counters.requestsByPath.keys.filter { $0.hasPrefix("/claimant") || $0.hasPrefix("/elsewhere") } == [])
            #expect(counters.tokensSentToClaimant == 0)
            #expect(serve.log.all.filter { $0.contains("/claimant") || $0.contains("/arcgis/rest") } == [])
        }
    }

    @Test func aSignOutInAnotherProcessCountsAtTheNextRequest() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                start_serve
                layer="$(portal-auth serve url --state-file serve.json "$LAYER")?f=json"
                code() { curl -s -o /dev/null -w '%{http_code}' "$@"; echo; }
                echo "before: $(code "$layer")"
                echo "token before: $(code "${BASE}token?url=$LAYER")"
                portal-auth logout >/dev/null
                echo "after: $(code "$layer")"
                echo "token after: $(code "${BASE}token?url=$LAYER")"
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout == "before: 200\ntoken before: 200\nafter: 403\ntoken after: 403\n", "\(result.stdout)")
            // Counted at the emulator: the layer was asked once, before the sign-out, never after.
            let layerPath = "/rest/services/Parcels/FeatureServer/0"
            let asked = serve.log.all.filter { $0.contains(layerPath) }
            #expect(asked.count == 1, "\(asked)")
        }
    }

    @Test func withEnvironmentCredentialsAHostThePortalDoesNotListIsNeverContacted() async throws {
        try await ServeUse.with { serve in
            let result = try await serve.bash(
                #"""
                # A listener of our own that counts the connections it gets.
                python3 -c '
                import os, signal, socket, sys
                s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
                open("other.tmp", "w").write(str(s.getsockname()[1])); os.rename("other.tmp", "other.port")
                count = 0
                def stop(*_):
                    global count
                    s.setblocking(False)
                    try:
                        while True: s.accept(); count += 1
                    except BlockingIOError: pass
                    open("other.count", "w").write(str(count)); sys.exit(0)
                signal.signal(signal.SIGTERM, stop)
                while True: s.accept()[0].close(); count += 1
                ' & OTHER=$!
                deadline=$((SECONDS + 30))
                until [ -s other.port ]; do
                  kill -0 "$OTHER" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ] || { echo "no listener" >&2; exit 1; }
                  sleep 0.02
                done
                other=$(cat other.port)
                export ARCGIS_HOST=$PORTAL ARCGIS_USER=alice ARCGIS_PASSWORD=alice-pass-123
                start_serve
                code() { curl -s -o /dev/null -w '%{http_code}' "$@"; echo; }
                echo "layer: $(code "$(portal-auth serve url --state-file serve.json "$LAYER")?f=json")"
                echo "other: $(code "${BASE}https/127.0.0.1:$other/arcgis/rest/services/x?f=json")"
                echo "other token: $(code "${BASE}token?url=https://127.0.0.1:$other/arcgis/rest/services/x")"
                echo "claimant: $(code "${BASE}https/${ORIGIN#https://}/claimant/rest/services/Parcels/FeatureServer/0?f=json")"
                stop_serve
                kill -TERM "$OTHER"; wait "$OTHER" || true
                echo "connections: $(cat other.count)"
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout == "layer: 200\nother: 403\nother token: 403\nclaimant: 403\nconnections: 0\n",
                "\(result.stdout)")
            let counters = serve.emulator.counters()
            #expect(counters.requestsByPath.keys.filter { $0.hasPrefix("/claimant") } == [])
        }
    }

    /// A pregenerated token speaks for no portal: what its context lists in `portals/self/servers`
    /// is never a reason for serve to contact a server (#34, item 5). The emulator's portal lists
    /// its federated server; stored as a pregenerated token, its token reaches the portal only.
    @Test func whatAPregeneratedTokensServerListsIsNeverContacted() async throws {
        try await ServeUse.with { serve in
            let result = try await serve.bash(
                #"""
                token=$(curl -sS --cacert "$CA" -d username=alice -d password=alice-pass-123 -d client=requestip \
                  -d f=json "$PORTAL/sharing/rest/generateToken" | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
                printf '%s' "$token" | portal-auth login --url "$PORTAL" --token-stdin >/dev/null
                start_serve
                code() { curl -s -o /dev/null -w '%{http_code}' "$@"; echo; }
                echo "portal: $(code "$(portal-auth serve url --state-file serve.json "$PORTAL/sharing/rest/portals/self")?f=json")"
                echo "listed server: $(code "$(portal-auth serve url --state-file serve.json "$LAYER")?f=json")"
                echo "listed server token: $(code "${BASE}token?url=$LAYER")"
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout == "portal: 200\nlisted server: 403\nlisted server token: 403\n", "\(result.stdout)")
            let counters = serve.emulator.counters()
            #expect(counters.requestsByPath.keys.filter { $0.hasPrefix("/server") } == [])
            #expect(counters.federatedServerListReads == 0)
        }
    }

    /// A pregenerated token for the emulator's own path (`ORIGIN/emulator`: its redirect and echo).
    static func signInToTheEmulatorsOwnPath(_ serve: ServeUse) async throws {
        let login = try await serve.use.portalAuth(
            ["login", "--url", serve.origin + "/emulator", "--token-stdin", "--unchecked", "--expires-in", "3600"],
            stdin: "emulator-token")
        #expect(login.status == 0, "\(login.stderr)")
    }

    @Test func aRedirectComesBackAsItsLocalURLOrIs502AndNoAccessControlHeaderPasses() async throws {
        try await ServeUse.with { serve in
            try await Self.signInToTheEmulatorsOwnPath(serve)
            let result = try await serve.bash(
                #"""
                start_serve
                redirect="${BASE}https/${ORIGIN#https://}/emulator/redirect"
                secret=${BASE#http://*/}; secret=${secret%/}
                curl -s -D headers.txt -o /dev/null -w '%{http_code}\n' --get --data-urlencode "to=$ORIGIN/emulator/echo/x" "$redirect"
                grep -i '^location:' headers.txt | tr -d '\r' | sed "s#$secret#SECRET#; s#${ORIGIN#https://}#ORIGIN#"
                curl -s -D echo.txt -o /dev/null "${BASE}https/${ORIGIN#https://}/emulator/echo/x?cors=1"
                echo "cors: $(grep -ci '^access-control-' echo.txt || true)"
                curl -sL --get --data-urlencode "to=$ORIGIN/emulator/echo/x" "$redirect" | python3 -c '
                import json, sys; a = json.load(sys.stdin); print(a["path"], a["hadToken"])'
                code() { curl -s -o /dev/null -w '%{http_code}' --get "$@"; echo; }
                echo "claimant: $(code --data-urlencode "to=$ORIGIN/claimant/rest/info?f=json" "$redirect")"
                echo "another host: $(code --data-urlencode "to=https://example.invalid/x" "$redirect")"
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout == """
                    302
                    Location: /SECRET/https/ORIGIN/emulator/echo/x
                    cors: 0
                    /emulator/echo/x True
                    claimant: 502
                    another host: 502

                    """, "\(result.stdout)")
            let counters = serve.emulator.counters()
            #expect(counters.requestsByPath.keys.filter { $0.hasPrefix("/claimant") } == [])
        }
    }

    /// A 307 or 308 has the client send its request, body included, again: serve passes one back
    /// only within the reach of the credential the request went with (the request loop's rule);
    /// to a URL another credential covers it is 502, and nothing is resent there.
    @Test func a307Or308ToAnotherCredentialsReachIs502AndWithinItsOwnComesBack() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            try await Self.signInToTheEmulatorsOwnPath(serve)
            let result = try await serve.bash(
                #"""
                start_serve
                redirect="${BASE}https/${ORIGIN#https://}/emulator/redirect"
                q() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
                code() { curl -s -o /dev/null -w '%{http_code}' -d a=1 "$redirect?$1"; echo; }
                portal=$(q "$PORTAL/sharing/rest/portals/self?f=json")
                for status in 307 308; do
                  echo "$status to the portal: $(code "status=$status&to=$portal")"
                  echo "$status within: $(code "status=$status&to=$(q "$ORIGIN/emulator/echo/x")")"
                done
                echo "302 to the portal: $(code "status=302&to=$portal")"
                curl -sL -d a=1 "$redirect?status=307&to=$(q "$ORIGIN/emulator/echo/y")" | python3 -c '
                import json, sys; a = json.load(sys.stdin); print(a["path"], a["method"], a["hadToken"])'
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout == """
                    307 to the portal: 502
                    307 within: 307
                    308 to the portal: 502
                    308 within: 308
                    302 to the portal: 302
                    /emulator/echo/y POST True

                    """, "\(result.stdout)")
        }
    }

    @Test func theTokenEndpointAnswersWhatTokenFormatJSONPrints() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                start_serve
                for url in "$PORTAL" "$LAYER"; do
                  portal-auth token "$url" --format json >cli.json
                  curl -sS --fail "${BASE}token?url=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$url")" >served.json
                  cmp cli.json served.json && echo "same for $url"
                done
                BASE=$BASE python3 -c '
                import os, requests
                answer = requests.get(os.environ["BASE"] + "token", params={"url": os.environ["LAYER"]})
                print(answer.status_code, answer.headers["Content-Type"], answer.json()["server"].endswith("/server"),
                      answer.json()["source"])
                print(requests.get(os.environ["LAYER"], params={"f": "json", "token": answer.json()["token"]}).json()["name"])
                ' 
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("same for \(serve.emulator.portalURL)\n"), "\(result.stdout)")
            #expect(result.stdout.contains("same for \(serve.use.layer)\n"), "\(result.stdout)")
            #expect(result.stdout.contains("200 application/json True stored\nParcels\n"), "\(result.stdout)")
        }
    }

    @Test func theProxyForwardsWithTheCoresCredentialAndDropsTheClientsOwn() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                start_serve
                query=$(portal-auth serve url --state-file serve.json "$LAYER/query")
                # A hostile client: its own authorization in every place, none of which may go on.
                curl -sS -H 'Authorization: Basic YWxpY2U6c3RvbGVu' -H 'X-Esri-Authorization: Bearer stolen' \
                  -H 'Cookie: agstoken=stolen' "$query?where=1%3D1&returnCountOnly=true&f=json&token=stolen"; echo
                curl -sS -H 'Authorization: Bearer stolen' -d 'where=1=1' -d returnCountOnly=true -d f=json \
                  -d token=stolen "$query"; echo
                Q=$query python3 -c '
                import os, requests
                r = requests.post(os.environ["Q"], data={"where": "1=1", "outFields": "*", "f": "json", "token": "x"},
                                  auth=("alice", "stolen"), cookies={"agstoken": "x"})
                print(r.status_code, len(r.json()["features"]))
                ' 
                curl -sS -o /dev/null -w '%{http_code}\n' -X DELETE "$query"
                stop_serve
                """#, extra: ["Q": ""])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("{\"count\":24}\n{\"count\":24}\n200 24\n405\n"), "\(result.stdout)")
            let queries = serve.logLines(containing: "FeatureServer/0/query")
            #expect(queries.count == 3, "\(queries)")
            for line in queries {
                #expect(line.contains("credential=x-esri-authorization:server "), "\(line)")
                #expect(!line.contains("basic") && !line.contains("unknown") && !line.contains("bearer"), "\(line)")
            }
        }
    }

    @Test func theStateFileLivesExactlyAsLongAsTheServerAndTheSecretStaysAcrossRestarts() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn()
            let result = try await serve.bash(
                #"""
                start_serve
                stat -c '%a' serve.json
                python3 -c 'import json, sys; s = json.load(open("serve.json")); print(sorted(s), s["pid"] == int(sys.argv[1]))' "$SERVE_PID"
                first=$BASE
                stop_serve && echo "exit 0 on SIGTERM"
                [ ! -e serve.json ] && echo "removed"
                start_serve
                # (Port 0: the kernel may give the same port again; only the secret is compared.)
                [ "${BASE#*/*/*/}" = "${first#*/*/*/}" ] && echo "same secret"
                kill -INT "$SERVE_PID"; wait "$SERVE_PID" && echo "exit 0 on SIGINT"; SERVE_PID=
                [ ! -e serve.json ] && echo "removed again"
                start_serve --new-secret
                [ "${BASE#*/*/*/}" != "${first#*/*/*/}" ] && echo "new secret"
                echo "old: $(curl -s -o /dev/null -w '%{http_code}' "${BASE%/*/}/${first#*/*/*/}token?url=$PORTAL")"
                stop_serve
                secret=${BASE#*/*/*/}; secret=${secret%/}
                ! grep -rqF "$secret" serve.out serve.err && echo "secret not printed"
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout
                    == """
                    600
                    ['pid', 'url'] True
                    exit 0 on SIGTERM
                    removed
                    same secret
                    exit 0 on SIGINT
                    removed again
                    new secret
                    old: 403
                    secret not printed

                    """, "\(result.stdout)")
        }
    }

    @Test func renewalWhileRunningIsSharedByManyClients() async throws {
        try await ServeUse.with { serve in
            try await serve.use.signIn(["--remember-password"])
            let result = try await serve.bash(
                #"""
                start_serve
                query="$(portal-auth serve url --state-file serve.json "$PORTAL/sharing/rest/community/self")?f=json"
                curl -sS "$query" | python3 -c 'import json, sys; print(json.load(sys.stdin)["username"])'
                counters >before.json
                # Every token the emulator issued expires now (its clock moves; nobody sleeps).
                curl -sS --cacert "$CA" -d advance=86400 "$ORIGIN/emulator/clock" >/dev/null
                clients=()
                for i in $(seq 1 20); do
                  curl -sS "$query" | python3 -c 'import json, sys; print(json.load(sys.stdin)["username"])' >"answer-$i" &
                  clients+=($!)
                done
                wait "${clients[@]}"
                cat answer-* | sort | uniq -c | sed 's/^ *//'
                sign_ins_since before.json
                stop_serve
                """#)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout == "alice\n20 alice\npassword sign-ins: 1\n",
                "\(result.stdout)")
        }
    }

    @Test func theSecretIsOneItemOfTheRealKeyringAndStaysTheSame() async throws {
        let result = try await CLI.inPrivateKeyring(
            #"""
            set -e
            first=$("$PA" serve url https://gis.example.com/server/rest/services/A/FeatureServer/0)
            again=$("$PA" serve url --listen 127.0.0.1:47080 https://gis.example.com/server/rest/services/A/FeatureServer/0)
            [ "$first" = "$again" ] && echo "stable"
            echo "$first" | sed 's#/[A-Za-z0-9_-]\{43\}/#/SECRET/#'
            secret=$(secret-tool lookup application portal-auth store serve kind serve-secret)
            case "$first" in *"/$secret/"*) echo "in the keyring" ;; esac
            secret-tool search --all application portal-auth store serve 2>&1 | grep -c '^label = ' | sed 's/^/items: /'
            secret-tool search --all application portal-auth store serve 2>&1 | grep -F "$secret" | grep -v '^secret = ' || echo "not in attributes"
            """#)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                stable
                http://127.0.0.1:47080/SECRET/https/gis.example.com/server/rest/services/A/FeatureServer/0
                in the keyring
                items: 1
                not in attributes

                """, "\(result.stdout) \(result.stderr)")
    }
}
