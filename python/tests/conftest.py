"""The adapter against a real portal-emulator (with its Entra Application Proxy) and a real keyring.

Run by scripts/checks/python-adapter-test.sh, which starts the keyring (scripts/with-keyring.sh) and
sets PORTAL_AUTH_BIN_DIR to the folder of the built portal-auth and portal-emulator.
"""

import http.server
import json
import os
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python", "src"))

import portal_auth  # noqa: E402

BIN_DIR = os.environ.get("PORTAL_AUTH_BIN_DIR", "")
ALICE_PASSWORD = "alice-pass-123"
APP_SECRET = "app-secret-456"
#: An API key the emulator knows (added to its configuration below).
API_KEY = "AAPTpythonAdapterScopeKey00000000000000001xxxxxxxxx"


def wait_for(condition, what, timeout=60.0):
    """Polls condition until it is true, or fails after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("timed out waiting for " + what)
        time.sleep(0.05)


class Emulator:
    def __init__(self, folder):
        self.folder = folder
        self.state_file = os.path.join(folder, "emulator.json")
        self.log = open(os.path.join(folder, "emulator.log"), "w")
        self.process = subprocess.Popen(
            [
                os.path.join(BIN_DIR, "portal-emulator"),
                "--config", self.configuration(folder),
                "--state-file", self.state_file,
                "--ca-out", os.path.join(folder, "ca.pem"),
                "--proxy-port", "0",
            ],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
        )

        def started():
            if self.process.poll() is not None:
                pytest.fail("portal-emulator exited: " + open(self.log.name).read()[-2000:])
            return os.path.exists(self.state_file) and os.path.getsize(self.state_file) > 0

        wait_for(started, "portal-emulator's state file")
        with open(self.state_file) as f:
            state = json.load(f)
        self.base = state["baseURL"]
        self.portal = state["portalURL"]
        self.server = state["serverURL"]
        self.ca = state["caCertificatePath"]
        self.proxy_base = state["proxyBaseURL"]
        self.entra = state["entraBaseURL"]
        self.proxy_port = state["proxyPort"]
        self.layer = self.server + "/rest/services/Parcels/FeatureServer/0"

    @staticmethod
    def configuration(folder):
        """config/emulator.json with one API key (API_KEY, every privilege)."""
        with open(os.path.join(ROOT, "config", "emulator.json")) as f:
            config = json.load(f)
        config["apiKeys"] = [{
            "key": API_KEY, "name": "python", "privileges": [
                "premium:user:geocode", "premium:user:networkanalysis", "premium:user:basemaps",
                "portal:user:viewOrgItems",
            ],
        }]
        path = os.path.join(folder, "emulator-config.json")
        with open(path, "w") as f:
            json.dump(config, f)
        return path

    def admin(self, path, **form):
        response = requests.post(self.base + "/emulator/" + path, data=form, verify=self.ca, timeout=30)
        response.raise_for_status()
        return response.json()

    def counters(self):
        return requests.get(self.base + "/emulator/counters", verify=self.ca, timeout=30).json()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


@pytest.fixture(scope="session")
def folder():
    with tempfile.TemporaryDirectory(prefix="portal-auth-python-") as path:
        os.chmod(path, 0o700)
        yield path


@pytest.fixture(scope="session")
def emulator(folder):
    if not os.path.exists(os.path.join(BIN_DIR, "portal-emulator")):
        pytest.fail("PORTAL_AUTH_BIN_DIR must name the folder of the built portal-auth and portal-emulator")
    running = Emulator(folder)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def calls_log(folder):
    """PORTAL_AUTH_BIN: a wrapper that records each command line portal_auth runs, then runs portal-auth."""
    log = os.path.join(folder, "calls.log")
    wrapper = os.path.join(folder, "portal-auth")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nprintf "%%s\\n" "$*" >> "%s"\nexec "%s" "$@"\n' % (log, os.path.join(BIN_DIR, "portal-auth")))
    os.chmod(wrapper, 0o755)
    return log, wrapper


def cli(*arguments, stdin=None, env=None):
    """The real portal-auth (not the wrapper), for signing in and out."""
    done = subprocess.run(
        [os.path.join(BIN_DIR, "portal-auth"), *arguments],
        input=stdin, capture_output=True, text=True, timeout=120, env=env,
    )
    assert done.returncode == 0, "portal-auth %s: %s" % (arguments[0], done.stderr)
    return done.stdout


class Session:
    """What a test gets: the emulator, the wrapper's log, and the helpers."""

    def __init__(self, emulator, calls_log):
        self.emulator = emulator
        self.log_path, self.wrapper = calls_log

    def calls(self):
        if not os.path.exists(self.log_path):
            return []
        with open(self.log_path) as f:
            return [line.rstrip("\n") for line in f]

    def sign_in_alice(self, portal=None):
        cli("login", "--portal", portal or self.emulator.portal, "--username", "alice", "--password-stdin",
            stdin=ALICE_PASSWORD)


@pytest.fixture
def session(emulator, calls_log, monkeypatch):
    """A clean start for each test: nothing stored, nothing cached, counters and faults reset."""
    monkeypatch.setenv("PORTAL_AUTH_CA_BUNDLE", emulator.ca)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", emulator.ca)
    monkeypatch.setenv("PORTAL_AUTH_BIN", calls_log[1])
    monkeypatch.delenv("PORTAL_AUTH_STORE", raising=False)  # the keyring
    cli("logout", "--all", "--no-browser")
    portal_auth.clear_cache()
    requests.delete(emulator.base + "/emulator/faults", verify=emulator.ca, timeout=30).raise_for_status()
    emulator.admin("reset")
    if os.path.exists(calls_log[0]):
        os.remove(calls_log[0])
    yield Session(emulator, calls_log)
    portal_auth.clear_cache()


def recording_server():
    """A plain HTTP server on loopback that records the path and headers of each request it gets
    and answers {"ok": true}, or, for a query `to=URL`, a 302 to URL. Returns (base URL, the
    records, the server)."""
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append({"path": self.path, "headers": dict(self.headers)})
            target = parse_qs(urlsplit(self.path).query).get("to")
            if target:
                self.send_response(302)
                self.send_header("Location", target[0])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = b'{"ok": true}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return "http://127.0.0.1:%d" % server.server_address[1], seen, server


@pytest.fixture
def outside_server():
    """A recording server (see recording_server) that nothing signed in covers."""
    base, seen, server = recording_server()
    yield base, seen
    server.shutdown()
    server.server_close()


@pytest.fixture
def two_servers():
    """Two recording servers: the first gets a pregenerated token in the test, the second nothing."""
    started = [recording_server() for _ in range(2)]
    yield [(base, seen) for base, seen, _ in started]
    for _, _, server in started:
        server.shutdown()
        server.server_close()


class HostileServer:
    """An HTTPS server on loopback that records every request (method, path, headers, body) and,
    for a query ``to=URL``, redirects there with the status ``code`` (302 by default). A path
    containing ``reject-once`` answers its first request that carries a token header with
    ArcGIS's 498 (in a 200 JSON answer), as a server that no longer takes a token does."""

    def __init__(self, cert, key):
        self.seen = []
        self.rejected = set()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                owner.seen.append({"method": self.command, "path": self.path, "headers": dict(self.headers),
                                   "body": body})
                query = parse_qs(urlsplit(self.path).query)
                path = urlsplit(self.path).path
                if "reject-once" in path and path not in owner.rejected and ("Authorization" in self.headers or "X-Esri-Authorization" in self.headers):
                    owner.rejected.add(path)
                    return self.reply(200, b'{"error": {"code": 498, "message": "Invalid token."}}')
                if query.get("to"):
                    self.send_response(int(query.get("code", ["302"])[0]))
                    self.send_header("Location", query["to"][0])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.reply(200, b'{"ok": true}')

            def reply(self, status, body):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = answer

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.base = "https://127.0.0.1:%d" % self.server.server_address[1]
        self.host = "127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def requests_seen(self):
        """What requests (the adapter's caller) sent here, not portal-auth's own reads."""
        return [r for r in self.seen if r["headers"].get("User-Agent", "").startswith("python-requests")]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def loopback_certificate(folder):
    """A self-signed certificate for 127.0.0.1 (cert, key)."""
    cert, key = os.path.join(folder, "loopback.pem"), os.path.join(folder, "loopback.key")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.fixture
def hostile(session, loopback_certificate, folder, monkeypatch):
    """Three hostile HTTPS servers on loopback (see HostileServer), trusted by requests and
    portal-auth alike (a CA bundle of the emulator's CA and their certificate)."""
    cert, key = loopback_certificate
    bundle = os.path.join(folder, "bundle.pem")
    with open(bundle, "w") as out:
        for path in (session.emulator.ca, cert):
            with open(path) as f:
                out.write(f.read().strip() + "\n")
    monkeypatch.setenv("PORTAL_AUTH_CA_BUNDLE", bundle)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", bundle)
    servers = [HostileServer(cert, key) for _ in range(3)]
    yield servers
    for server in servers:
        server.stop()
