"""A real browser for portal-auth's browser sign-in and sign-out: headless Debian chromium driven
by Selenium through chromium-driver. portal-auth starts it as `$BROWSER URL`; it does what a
person does on the page it opens and reports what it saw.

    BROWSER="<venv>/bin/python Tests/Clients/headless_browser.py" portal-auth login ...

On a sign-in page (a form with a password field) it types the username and password and presses
the approve button (the sign-in page is also the consent: "Sign in" approves, "Cancel"
declines); on a consent page (an approve button, no password) it approves; it follows the
redirects to portal-auth's loopback page and reads it. Any other page (a sign-out page) is read
and ends the visit. Every wait is an explicit wait on the page (an element, a new document),
bounded by HEADLESS_BROWSER_TIMEOUT seconds; nothing sleeps.

TLS: chromium trusts, besides the system's CAs, exactly the certificates the emulator's CA has
signed for the page's own host and port (and HEADLESS_BROWSER_HOSTS): their public keys go to
--ignore-certificate-errors-spki-list after Python has verified them against the CA. No other
host's certificate errors are ignored.

Environment:
  HEADLESS_BROWSER_CA        the emulator's CA bundle (PEM)
  HEADLESS_BROWSER_HOSTS     more host:port pairs to trust that way, comma-separated
  HEADLESS_BROWSER_USERNAME  default alice
  HEADLESS_BROWSER_PASSWORD  default alice-pass-123
  HEADLESS_BROWSER_REPORT    a FIFO or file to write the JSON report to when done (after chromium
                             has quit): {"opened": {"url", "parameters"}, "pages": [{"url",
                             "parameters", "title", "heading",
                             "text"}...], "error": ...}: URLs without their query strings, whose
                             parameters are listed by name only.
  HEADLESS_BROWSER_TIMEOUT   seconds for each wait, default 90
"""

import base64
import hashlib
import json
import os
import signal
import socket
import ssl
import sys
import tempfile
import urllib.parse

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

env = os.environ.get
CHROMIUM = env("HEADLESS_BROWSER_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = env("HEADLESS_BROWSER_CHROMEDRIVER", "/usr/bin/chromedriver")
TIMEOUT = float(env("HEADLESS_BROWSER_TIMEOUT", "90"))


def spki_hash(host, port, ca):
    """The base64 SHA-256 of the public key of the certificate host:port serves, once Python has
    verified that certificate (chain and name) against `ca`."""
    context = ssl.create_default_context(cafile=ca)
    with socket.create_connection((host, port), timeout=TIMEOUT) as raw:
        with context.wrap_socket(raw, server_hostname=host) as tls:
            der = tls.getpeercert(binary_form=True)
    key = x509.load_der_x509_certificate(der).public_key()
    spki = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


def trusted_keys(url):
    ca = env("HEADLESS_BROWSER_CA")
    if not ca:
        return []
    parsed = urllib.parse.urlsplit(url)
    hosts = []
    if parsed.scheme == "https":
        hosts.append((parsed.hostname, parsed.port or 443))
    for entry in filter(None, (env("HEADLESS_BROWSER_HOSTS") or "").split(",")):
        host, _, port = entry.strip().rpartition(":")
        hosts.append((host.strip("[]"), int(port)))
    return sorted({spki_hash(host, port, ca) for host, port in hosts})


def start_browser(url, profile):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",  # root in a container: chromium's sandbox needs user namespaces it may not have
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--no-proxy-server",  # the pages are on loopback
        "--user-data-dir=" + profile,
    ):
        options.add_argument(argument)
    keys = trusted_keys(url)
    if keys:
        options.add_argument("--ignore-certificate-errors-spki-list=" + ",".join(keys))
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(TIMEOUT)
    return driver


def without_query(url):
    parsed = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parsed._replace(query="", fragment=""))


def parameter_names(url):
    return sorted({name for name, _ in urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query)})


def describe(driver):
    def text(selector):
        found = driver.find_elements(By.CSS_SELECTOR, selector)
        return found[0].text.strip() if found else ""

    return {
        "url": without_query(driver.current_url),
        "parameters": parameter_names(driver.current_url),
        "title": driver.title,
        "heading": text("h1"),
        "text": text("body")[:1000],
    }


def is_loopback(url):
    parsed = urllib.parse.urlsplit(url)
    return parsed.scheme == "http" and parsed.hostname in ("127.0.0.1", "localhost", "::1")


def submit_and_wait(driver, button):
    """Presses `button` and waits for the next document to replace this one and finish loading."""
    button.click()
    wait = WebDriverWait(driver, TIMEOUT)
    wait.until(lambda d: _is_stale(button))
    wait.until(lambda d: d.execute_script("return document.readyState") == "complete")


def _is_stale(element):
    try:
        element.is_enabled()
        return False
    except WebDriverException:
        return True


def approve_button(driver):
    for button in driver.find_elements(By.CSS_SELECTOR, "button[value=approve], input[type=submit][value=approve]"):
        return button
    return None


def visit(driver, url, report):
    driver.get(url)
    for _ in range(8):
        WebDriverWait(driver, TIMEOUT).until(lambda d: d.execute_script("return document.readyState") == "complete")
        page = describe(driver)
        if is_loopback(driver.current_url):
            page["loopback"] = True
            report["pages"].append(page)
            return
        passwords = driver.find_elements(By.CSS_SELECTOR, "input[type=password]")
        button = approve_button(driver)
        if passwords and button:
            page["action"] = "signed in"
            report["pages"].append(page)
            username = driver.find_element(By.CSS_SELECTOR, "input[name=username]")
            username.clear()
            username.send_keys(env("HEADLESS_BROWSER_USERNAME") or "alice")
            passwords[0].clear()
            passwords[0].send_keys(env("HEADLESS_BROWSER_PASSWORD") or "alice-pass-123")
            submit_and_wait(driver, button)
        elif button:
            page["action"] = "approved"
            report["pages"].append(page)
            submit_and_wait(driver, button)
        else:
            report["pages"].append(page)  # a page with nothing to do: a sign-out or error page
            return
    report["error"] = "more than 8 pages without reaching the loopback page or a final page"


def write_report(report):
    path = env("HEADLESS_BROWSER_REPORT")
    text = json.dumps(report)
    if not path:
        print(text)
        return
    # A FIFO blocks until the test reads it; a test that gave up must not leave this process behind.
    signal.alarm(int(TIMEOUT))
    with open(path, "w") as out:
        out.write(text + "\n")
    signal.alarm(0)


def main():
    report = {"opened": {"url": without_query(sys.argv[1]), "parameters": parameter_names(sys.argv[1])}, "pages": []}
    driver = None
    with tempfile.TemporaryDirectory(prefix="pa-chromium-") as profile:
        try:
            driver = start_browser(sys.argv[1], profile)
            visit(driver, sys.argv[1], report)
        except Exception as error:
            report["error"] = "%s: %s" % (type(error).__name__, str(error).split("\n")[0])
            if driver is not None:
                try:
                    report["pages"].append(describe(driver))
                except Exception:
                    pass
        finally:
            if driver is not None:
                driver.quit()  # chromium and chromedriver end before the report says "done"
    write_report(report)


if __name__ == "__main__":
    main()
