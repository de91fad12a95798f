"""How three independent URL readers understand each URL: the differential URL test's oracle.

Reads a JSON array of URL strings on stdin and writes a JSON array on stdout, one object per
input URL, in order:

    {"url": <input>, "curl": R, "whatwg": R, "urllib3": R}

where R is what that reader would connect to and send,

    {"scheme": "https", "host": "127.0.0.1", "port": 443, "path": "/portal/sharing/rest"}

(scheme lower-case; host lower-case (ASCII), IDN hosts in their A-label (punycode) form, IPv6
hosts without brackets and with a zone as `%zone`; port an integer, the scheme's default when
the URL has none; path the request target's path as it goes on the wire: percent-encoded as
that reader encodes it, dot segments resolved as that reader resolves them (or not), no query)
or {"error": "<short reason>"} where that reader refuses the URL. A reader never stops the
script: every exception is caught per URL and reported as an error.

    venv/bin/python url_readers.py < urls.json > readers.json

The readers, each as a real client sends a request:
  curl     libcurl's URL API (libcurl.so.4 through ctypes) with the flags libcurl itself uses
           for CURLOPT_URL, which is what the curl tool hands it (lib/url.c,
           parseurlandfillconn): curl_url_set(URL, CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME);
           curl_url_get(URL, 0) (a request fails if that fails); the scheme (0), the host
           (CURLU_PUNYCODE: the IDN conversion libcurl does before connecting), the zone id,
           the path (CURLU_URLENCODE, as libcurl asks for the path it sends) and the port
           (CURLU_DEFAULT_PORT). Not modelled: the curl tool's own globbing of {} and [] (curl
           -g turns it off), --path-as-is, proxies.
  whatwg   ada (`ada-url` on PyPI), the WHATWG URL Standard, as browsers and Node's fetch parse:
           protocol, hostname, port (the special scheme's default when empty), pathname.
  urllib3  what python-requests (the ArcGIS API for Python's transport) sends, with urllib3
           doing the sending: requests.Request('GET', url).prepare() (urllib3's parse_url,
           IDNA, requote_uri); the adapter requests.Session would pick for it; the connection
           pool requests' HTTPAdapter asks urllib3 for (its scheme, host and port are what
           the socket connects to); the request target requests hands urllib3 (path_url),
           encoded by urllib3's urlopen and checked by http.client as putrequest does. No
           proxies, no network: a pool and a connection object are made, nothing connects.

Only `ada-url`, `requests` and `urllib3` (pinned in requirements.txt) and libcurl 4 are used.
"""

import ctypes
import ctypes.util
import http.client
import json
import sys

# ---------------------------------------------------------------------------------------------
# curl: libcurl's URL API through ctypes.

# include/curl/urlapi.h. The URL API is in libcurl 7.62.0 and later, CURLUPART_ZONEID in 7.65.0,
# CURLU_PUNYCODE in 7.88.0 (an older libcurl ignores it and gives an IDN host as UTF-8).
CURLUPART_URL = 0
CURLUPART_SCHEME = 1
CURLUPART_USER = 2
CURLUPART_PASSWORD = 3
CURLUPART_OPTIONS = 4
CURLUPART_HOST = 5
CURLUPART_PORT = 6
CURLUPART_PATH = 7
CURLUPART_QUERY = 8
CURLUPART_FRAGMENT = 9
CURLUPART_ZONEID = 10

CURLU_DEFAULT_PORT = 1 << 0
CURLU_NO_DEFAULT_PORT = 1 << 1
CURLU_DEFAULT_SCHEME = 1 << 2
CURLU_NON_SUPPORT_SCHEME = 1 << 3
CURLU_PATH_AS_IS = 1 << 4
CURLU_DISALLOW_USER = 1 << 5
CURLU_URLDECODE = 1 << 6
CURLU_URLENCODE = 1 << 7
CURLU_APPENDQUERY = 1 << 8
CURLU_GUESS_SCHEME = 1 << 9
CURLU_NO_AUTHORITY = 1 << 10
CURLU_ALLOW_SPACE = 1 << 11
CURLU_PUNYCODE = 1 << 12  # 7.88.0 and later

CURLUE_OK = 0
CURLUE_NO_ZONEID = 18

# What libcurl passes to curl_url_set for CURLOPT_URL (lib/url.c, parseurlandfillconn), with
# the curl tool's defaults (no --path-as-is, user names in URLs allowed).
CURL_SET_FLAGS = CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME


class _Curl:
    def __init__(self):
        self.error = None
        try:
            lib = ctypes.CDLL("libcurl.so.4")
        except OSError as error:
            name = ctypes.util.find_library("curl")
            try:
                lib = ctypes.CDLL(name) if name else None
            except OSError:
                lib = None
            if lib is None:
                self.error = "libcurl.so.4 not loadable: %s" % error
                return
        lib.curl_url.argtypes = []
        lib.curl_url.restype = ctypes.c_void_p
        lib.curl_url_cleanup.argtypes = [ctypes.c_void_p]
        lib.curl_url_cleanup.restype = None
        lib.curl_url_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        lib.curl_url_set.restype = ctypes.c_int
        # char ** out: a void* we read with string_at and hand back to curl_free.
        lib.curl_url_get.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        lib.curl_url_get.restype = ctypes.c_int
        lib.curl_free.argtypes = [ctypes.c_void_p]
        lib.curl_free.restype = None
        lib.curl_version.argtypes = []
        lib.curl_version.restype = ctypes.c_char_p
        try:
            lib.curl_url_strerror.argtypes = [ctypes.c_int]
            lib.curl_url_strerror.restype = ctypes.c_char_p
            self.strerror = lib.curl_url_strerror
        except AttributeError:  # before 7.80.0
            self.strerror = None
        self.lib = lib

    def reason(self, what, code):
        text = ""
        if self.strerror is not None:
            raw = self.strerror(code)
            text = raw.decode("ascii", "replace") if raw else ""
        return "%s: CURLUE %d %s" % (what, code, text) if text else "%s: CURLUE %d" % (what, code)

    def get(self, handle, part, flags):
        out = ctypes.c_void_p()
        code = self.lib.curl_url_get(handle, part, ctypes.byref(out), flags)
        try:
            value = ctypes.string_at(out.value) if out.value else None
        finally:
            if out.value:
                self.lib.curl_free(out)
        return code, value

    def read(self, url):
        if self.error:
            return {"error": self.error}
        data = url.encode("utf-8")  # libcurl takes the bytes a command line would carry
        if b"\0" in data:
            return {"error": "NUL byte: a C string (argv, CURLOPT_URL) cannot carry it"}
        handle = self.lib.curl_url()
        if not handle:
            return {"error": "curl_url() returned NULL"}
        try:
            code = self.lib.curl_url_set(handle, CURLUPART_URL, data, CURL_SET_FLAGS)
            if code != CURLUE_OK:
                return {"error": self.reason("set url", code)}
            code, _ = self.get(handle, CURLUPART_URL, 0)
            if code != CURLUE_OK:
                return {"error": self.reason("get url", code)}
            code, scheme = self.get(handle, CURLUPART_SCHEME, 0)
            if code != CURLUE_OK:
                return {"error": self.reason("scheme", code)}
            code, host = self.get(handle, CURLUPART_HOST, CURLU_PUNYCODE)
            if code != CURLUE_OK:
                return {"error": self.reason("host (IDN conversion)", code)}
            code, zone = self.get(handle, CURLUPART_ZONEID, 0)
            if code not in (CURLUE_OK, CURLUE_NO_ZONEID):
                return {"error": self.reason("zone id", code)}
            code, path = self.get(handle, CURLUPART_PATH, CURLU_URLENCODE)
            if code != CURLUE_OK:
                return {"error": self.reason("path", code)}
            code, port = self.get(handle, CURLUPART_PORT, CURLU_DEFAULT_PORT)
            if code != CURLUE_OK:
                return {"error": self.reason("port (no default port: protocol unsupported?)", code)}
        finally:
            self.lib.curl_url_cleanup(handle)
        host = host.decode("utf-8", "surrogateescape")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        if zone is not None:
            host += "%" + zone.decode("utf-8", "surrogateescape")
        return {
            "scheme": scheme.decode("ascii", "surrogateescape").lower(),
            "host": _ascii_lower(host),
            "port": int(port),
            "path": path.decode("utf-8", "surrogateescape"),
        }


def _ascii_lower(text):
    return "".join(c.lower() if "A" <= c <= "Z" else c for c in text)


_curl = None


def read_curl(url):
    global _curl
    if _curl is None:
        _curl = _Curl()
    return _curl.read(url)


# ---------------------------------------------------------------------------------------------
# whatwg: ada.

_SPECIAL_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}


def read_whatwg(url):
    import ada_url

    parsed = ada_url.URL(url)
    scheme = parsed.protocol[:-1] if parsed.protocol.endswith(":") else parsed.protocol
    host = parsed.hostname
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if parsed.port:
        port = int(parsed.port)
    elif scheme in _SPECIAL_PORTS:
        port = _SPECIAL_PORTS[scheme]
    else:
        return {"error": "no port and no default port for scheme %r" % scheme}
    if not host:
        return {"error": "no host (scheme %r)" % scheme}
    return {"scheme": scheme, "host": host, "port": port, "path": parsed.pathname}


# ---------------------------------------------------------------------------------------------
# urllib3: what requests sends through urllib3.

_session = None


def read_urllib3(url):
    global _session
    import requests
    from urllib3.util.url import _encode_target, parse_url

    if _session is None:
        _session = requests.Session()
        _session.trust_env = False
    prepared = requests.Request("GET", url).prepare()
    # Session.send picks the adapter by the prepared URL's prefix (http://, https://).
    adapter = _session.get_adapter(prepared.url)
    pool = adapter.get_connection_with_tls_context(prepared, verify=True, proxies={})
    target = adapter.request_url(prepared, {})
    # HTTPConnectionPool.urlopen
    if target.startswith("/"):
        target = _encode_target(target)
    else:
        target = parse_url(target)._replace(fragment=None).url
    # The connection urlopen would use (http.client checks the host here), and putrequest's
    # checks of the target; nothing connects.
    connection = pool._new_conn()
    try:
        connection._validate_path(target)
        connection._encode_request("GET %s HTTP/1.1" % target)
    finally:
        connection.close()
    path = target.split("?", 1)[0]
    host = pool.host
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return {"scheme": pool.scheme, "host": _ascii_lower(host), "port": int(pool.port), "path": path}


# ---------------------------------------------------------------------------------------------

READERS = (("curl", read_curl), ("whatwg", read_whatwg), ("urllib3", read_urllib3))


def _short(error):
    text = "%s: %s" % (type(error).__name__, error)
    return text if len(text) <= 200 else text[:197] + "..."


def read_all(urls):
    results = []
    for url in urls:
        result = {"url": url}
        for name, reader in READERS:
            try:
                if not isinstance(url, str):
                    raise TypeError("not a string: %r" % (url,))
                result[name] = reader(url)
            except BaseException as error:  # noqa: BLE001 - a reader never stops the script
                if isinstance(error, KeyboardInterrupt):
                    raise
                result[name] = {"error": _short(error)}
        results.append(result)
    return results


def main():
    urls = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    if not isinstance(urls, list):
        raise SystemExit("url_readers.py: stdin must be a JSON array of strings")
    json.dump(read_all(urls), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
