"""A hostile page in a real browser, opened through portal-auth serve: headless Debian chromium
driven by Selenium through chromium-driver. It answers whether the page's script ran, whether
anything reached the page's collector (the secret in its URL, a token), and every answer chromium
received from serve, by URL and status.

    serve_page_attack.py PAGE_URL HTML_FILE EMULATOR_ORIGIN CA_FILE

PAGE_URL is serve's URL of a path on the emulator's portal that this script arms (the emulator's
`page` fault, through its admin endpoint at EMULATOR_ORIGIN, trusting CA_FILE) to answer with
HTML_FILE's page, COLLECTOR in it replaced by the collector's URL, PORTAL_URL by the portal's
(read from PAGE_URL), and <!--REFRESH--> by a meta refresh to serve's token endpoint.

The collector is a plain HTTP server of this script's on 127.0.0.2 (another host): the page
reports to it what it got (the exfiltration an attacker's page makes). Before the page through
serve, the same HTML is opened from the collector's own origin, with no protection: its script
must run and report there, or the test proves nothing (this chromium, this page, this collector
work). The page's HTML names the collector as COLLECTOR, replaced here.

Prints one JSON object: {"control": {"ran", "reports"}, "served": {"title", "ran", "reports",
"responses": [{"url", "status"}], "refreshRefused"}}. Every wait is an explicit wait on the
page or on chromium's log, bounded by SERVE_PAGE_TIMEOUT seconds (default 60); nothing sleeps.
"""

import http.server
import json
import os
import ssl
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

TIMEOUT = float(os.environ.get("SERVE_PAGE_TIMEOUT", "60"))


class Collector:
    """What the page reports: every request's path, query and body, and the control page."""

    def __init__(self):
        self.page = ""
        self.reports = []
        self.arrived = threading.Condition()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def record(self, body):
                with owner.arrived:
                    owner.reports.append({"path": self.path, "body": body})
                    owner.arrived.notify_all()

            def do_GET(self):
                if self.path == "/control":
                    data = owner.page.encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                else:
                    self.record("")
                    data = b"ok"
                    self.send_response(200)
                    self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                length = min(int(self.headers.get("Content-Length") or 0), 1 << 20)
                self.record(self.rfile.read(length).decode("utf-8", "replace"))
                self.send_response(204)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Handler)
        self.url = "http://127.0.0.2:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, predicate):
        deadline = time.monotonic() + TIMEOUT
        with self.arrived:
            while not predicate(self.reports):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.arrived.wait(left)
        return True


def browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--no-proxy-server",
        "--user-data-dir=" + profile,
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(TIMEOUT)
    return driver


def responses(entries):
    found = []
    for entry in entries:
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.responseReceived":
            response = message["params"]["response"]
            found.append({"url": response["url"], "status": response["status"]})
    return found


def arm(origin, ca, last_segment, page):
    """Has the emulator answer paths containing `/last_segment` with `page` (the `page` fault)."""
    fault = json.dumps({"kind": "page", "pathContains": "/" + last_segment, "body": page}).encode()
    request = urllib.request.Request(
        origin + "/emulator/faults", data=fault, headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=ca), timeout=TIMEOUT) as answer:
        answer.read()


def main():
    page_url = sys.argv[1]
    with open(sys.argv[2]) as handle:
        template = handle.read()
    result = {}
    with tempfile.TemporaryDirectory() as profile:
        collector = Collector()
        portal = "https://" + page_url.split("/https/", 1)[1].split("/sharing/", 1)[0]
        page = template.replace("COLLECTOR", collector.url).replace("PORTAL_URL", portal)
        # (The control page has no meta refresh: it would leave before its script reported.)
        collector.page = page.replace("<!--REFRESH-->", "")
        refresh = '<meta http-equiv="refresh" content="0; url=../../../../../token?url=%s">' % portal
        served = page.replace("<!--REFRESH-->", refresh)
        arm(sys.argv[3], sys.argv[4], urllib.parse.urlsplit(page_url).path.rsplit("/", 1)[-1], served)
        driver = browser(profile)
        try:
            driver.get(collector.url + "/control")
            ran = collector.wait_for(lambda reports: any("/done" in r["path"] for r in reports))
            result["control"] = {"ran": ran, "reports": list(collector.reports)}
            del collector.reports[:]
            driver.get_log("performance")  # (drops the control's entries)

            driver.get(page_url)
            # The page's last act, when its script runs, is to report /done; the load event has
            # passed once get() returns. A sandboxed page's meta refresh is refused with a console
            # message: wait for that message, or for the page's report, or for a new document.
            refused = {"seen": False}

            def settled(driver):
                for entry in driver.get_log("browser"):
                    if "refresh" in entry.get("message", "").lower() and "sandbox" in entry.get("message", "").lower():
                        refused["seen"] = True
                if refused["seen"] or driver.current_url != page_url:
                    return True
                return any("/done" in r["path"] for r in collector.reports)

            try:
                WebDriverWait(driver, TIMEOUT).until(settled)
            except Exception:
                pass
            result["served"] = {
                "title": driver.title,
                "url": driver.current_url,
                "ran": any("/done" in r["path"] for r in collector.reports),
                "reports": list(collector.reports),
                "responses": responses(driver.get_log("performance")),
                "refreshRefused": refused["seen"],
            }
        finally:
            driver.quit()
            collector.server.shutdown()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
