#!/usr/bin/env python3
"""A scripted browser for sign-in tests and CI: set BROWSER to this script and portal-auth's
browser sign-in (OAuth, IAP) runs without a person.

It opens the authorization URL given as its argument, fills in the sign-in form it finds there
(every hidden input kept, plus username and password), presses the approve or deny button, and
follows the answer the way a browser would: to the loopback redirect (which portal-auth is
listening on) or to the out-of-band approval page, whose code it writes to a file or FIFO.

Environment:
  SCRIPTED_BROWSER_CA        CA bundle to trust (the emulator's CA)
  SCRIPTED_BROWSER_USERNAME  default alice
  SCRIPTED_BROWSER_PASSWORD  default alice-pass-123
  SCRIPTED_BROWSER_ACTION    approve (default), deny, or ignore (never answer: a timeout test)
  SCRIPTED_BROWSER_STATE     "tamper" replaces the state in the redirect (a forged answer)
  SCRIPTED_BROWSER_OOB_OUT   where to write the out-of-band code (a file or a FIFO)
  SCRIPTED_BROWSER_LOG       a file to append what it did (URLs without query strings)
"""
import html, os, re, ssl, sys, urllib.error, urllib.parse, urllib.request

env = os.environ.get


def log(message):
    path = env("SCRIPTED_BROWSER_LOG")
    if path:
        with open(path, "a") as f:
            f.write(message + "\n")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


context = ssl.create_default_context(cafile=env("SCRIPTED_BROWSER_CA") or None)
opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=context))


def fetch(url, data=None):
    log(("POST " if data else "GET ") + url.split("?")[0])
    request = urllib.request.Request(url, data=data)
    try:
        response = opener.open(request, timeout=30)
        return response.status, response.headers, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode("utf-8", "replace")


def attributes(tag):
    return {name.lower(): html.unescape(value) for name, value in re.findall(r'([\w-]+)\s*=\s*"([^"]*)"', tag)}


def follow(url, depth=0):
    if depth > 8:
        log("too many redirects")
        return
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme == "http" and parsed.hostname in ("127.0.0.1", "localhost"):
        if env("SCRIPTED_BROWSER_STATE") == "tamper":
            query = urllib.parse.parse_qsl(parsed.query, keep_blank_values=True)
            query = [(k, "forged-state" if k == "state" else v) for k, v in query]
            url = urllib.parse.urlunsplit(parsed._replace(query=urllib.parse.urlencode(query)))
        status, _, body = fetch(url)
        log("loopback answered %d" % status)
        return
    status, headers, body = fetch(url)
    if status in (301, 302, 303, 307, 308):
        return follow(urllib.parse.urljoin(url, headers["Location"]), depth + 1)
    title = re.search(r"<title>(.*?)</title>", body, re.S)
    title = html.unescape(title.group(1).strip()) if title else ""
    if title.startswith("SUCCESS code=") or title.startswith("DENIED"):
        out = env("SCRIPTED_BROWSER_OOB_OUT")
        answer = title[len("SUCCESS code="):] if title.startswith("SUCCESS") else ""
        log("approval page: " + ("code" if answer else title))
        if out:
            with open(out, "w") as f:
                f.write(answer + "\n")
        return
    form = re.search(r"<form\b([^>]*)>(.*?)</form>", body, re.S | re.I)
    if not form:
        log("no form on the page (HTTP %d): %s" % (status, re.sub(r"<[^>]+>", " ", body)[:200].strip()))
        return
    action = env("SCRIPTED_BROWSER_ACTION", "approve")
    if action == "ignore":
        log("ignoring the sign-in page")
        return
    form_attributes = attributes(form.group(1))
    fields = []
    for tag in re.findall(r"<input\b[^>]*>", form.group(2), re.I):
        a = attributes(tag)
        name = a.get("name")
        if not name:
            continue
        if name == "username":
            fields.append((name, env("SCRIPTED_BROWSER_USERNAME", "alice")))
        elif name == "password":
            fields.append((name, env("SCRIPTED_BROWSER_PASSWORD", "alice-pass-123")))
        elif a.get("type", "text").lower() in ("hidden", "text"):
            fields.append((name, a.get("value", "")))
    button = None
    for tag in re.findall(r"<button\b[^>]*>", form.group(2), re.I):
        a = attributes(tag)
        if a.get("value") == action:
            button = (a.get("name", "action"), action)
    fields.append(button or ("action", action))
    target = urllib.parse.urljoin(url, form_attributes.get("action", url))
    status, headers, body = fetch(target, urllib.parse.urlencode(fields).encode())
    if status in (301, 302, 303, 307, 308):
        return follow(urllib.parse.urljoin(target, headers["Location"]), depth + 1)
    log("the form answered %d: %s" % (status, re.sub(r"<[^>]+>", " ", body)[:200].strip()))


if __name__ == "__main__":
    try:
        follow(sys.argv[1])
    except Exception as error:  # a test reads the log to see why
        log("error: %r" % (error,))
        sys.exit(1)
