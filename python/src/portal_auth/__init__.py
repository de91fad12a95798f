"""Credentials for ArcGIS portals in Python scripts, from the ``portal-auth`` command-line tool.

Sign in once with the CLI (``portal-auth login ...``); then::

    import requests, portal_auth

    portal_auth.token(url)                  # the token for url (str)
    portal_auth.headers(url)                # every header to send to url (dict)
    requests.get(url, params={"f": "json"}, auth=portal_auth.Auth())
    portal_auth.gis(portal_url)             # an arcgis.gis.GIS signed in (pip install 'portal-auth[arcgis]')

Every answer comes from ``portal-auth token URL --format json`` (the ``portal-auth`` on ``PATH``,
or the program ``PORTAL_AUTH_BIN`` names), which renews tokens, gets a federated server's token
from its portal and adds an identity-aware proxy's token. Where a token may go is the CLI's to
say, never the adapter's: the adapter caches an answer under the credential it names (its kind
and ``scope``, docs/security.md) until shortly before it expires (5 minutes before, or half the
remaining lifetime when that is shorter), and attaches a token to a request, a redirect hop or a
retry only when the CLI's answer for that URL names the same credential (what "its scope covers
the URL" means below). Errors are :class:`PortalAuthError`,
with the CLI's exit code and its one-line message; no token is ever part of an error's text, and
no secret is ever passed in a command line.
"""

import json
import os
import shutil
import subprocess
import threading
import time
from datetime import datetime, timezone
from typing import Dict, List, Optional, Tuple
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import requests

__all__ = ["PortalAuthError", "Credential", "credential", "token", "headers", "Auth", "gis", "clear_cache"]
__version__ = "0.1.0"

#: Exit codes of portal-auth (README, "The CLI").
EXIT_USAGE = 2
EXIT_SIGN_IN = 3

# How long before expiry a cached answer is asked for again, at most.
_RENEW_BEFORE = 300.0
# How long the CLI may take (a federated server's token is fetched from the portal over the network).
_TIMEOUT = 120.0


class PortalAuthError(Exception):
    """portal-auth failed: ``exit_code`` is its exit status (2 usage or a URL it refuses, 3 sign-in
    needed or refused, 4 network or TLS, 5 credential store; 127 when portal-auth is not found),
    ``message`` its one-line message on stderr, ``code`` the library's error code when portal-auth
    gave one (``"noCredential"``, ``"credentialExpired"``...: docs/reference/exit-codes.md). Never holds a
    token."""

    def __init__(self, message: str, exit_code: int, code: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.code = code

    def __str__(self) -> str:
        return "%s (exit %d)" % (self.message, self.exit_code)


def _epoch(text) -> Optional[int]:
    """Seconds since 1970 of an ISO 8601 time in UTC as portal-auth prints it, None for null; raises
    PortalAuthError for anything else (an answer that cannot be read is not taken as "renews without end")."""
    if text is None:
        return None
    try:
        return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp())
    except (TypeError, ValueError):
        pass
    try:  # (another ISO 8601 spelling: fractions of a second, an offset)
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return int((when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp())
    except (AttributeError, TypeError, ValueError):
        raise PortalAuthError("portal-auth printed an unreadable renewableUntil: %r" % (text,), 1)


class Credential:
    """One answer of ``portal-auth token URL --format json`` (version 1)."""

    def __init__(self, answer: dict, fetched_at: float):
        self.token: Optional[str] = answer.get("token")
        #: "token", "federated-token" or "api-key" (docs/security.md), or None without an ArcGIS token.
        self.kind: Optional[str] = answer.get("kind")
        #: The URL prefixes the ArcGIS token may go to ("scheme://host:port/path/"); empty: nowhere.
        self.scope: Tuple[str, ...] = _prefixes(answer.get("scope"))
        self.expires: Optional[float] = answer.get("expires_epoch")
        #: Until when (epoch seconds) the credential works unless someone signs in again; None when it
        #: renews itself without end (a remembered password, an app's secret), follows its portal (a
        #: federated server's token), never expires, or there is no ArcGIS token. portal-auth's answer.
        self.renewable_until: Optional[int] = _epoch(answer.get("renewableUntil"))
        #: Where the credentials came from: "stored" (signed in with login), "environment" (the
        #: ARCGIS_* variables), or None (an older portal-auth).
        self.source: Optional[str] = answer.get("source")
        self.ssl: bool = bool(answer.get("ssl", False))
        self.server: Optional[str] = answer.get("server")
        self.referer: Optional[str] = answer.get("referer")
        self.headers: Dict[str, str] = dict(answer.get("headers") or {})
        proxy = answer.get("proxy") or {}
        self.proxy_token: Optional[str] = proxy.get("token")
        self.proxy_expires: Optional[float] = proxy.get("expires_epoch")
        #: The URL prefixes the proxy's token may go to (the origin found behind the proxy).
        self.proxy_scope: Tuple[str, ...] = _prefixes(proxy.get("scope"))
        ends = [e for e in (self.expires, self.proxy_expires) if e is not None]
        #: When this answer stops being used from the cache (epoch seconds), or None: until a 498.
        self.use_until: Optional[float] = None
        if ends:
            end = min(ends)
            remaining = max(0.0, end - fetched_at)
            self.use_until = end - min(_RENEW_BEFORE, remaining / 2)

    @property
    def key(self) -> tuple:
        """What the answer is cached under: the credential's kind and scope, and the proxy's scope."""
        return (self.kind, self.scope, self.proxy_scope)

    def covers(self, url: str) -> bool:
        """Whether the ArcGIS token may go to url: portal-auth's own answer for url names this
        credential (the same kind and scope). The adapter never reads a URL against the scope
        itself: portal-auth decides, once per URL without its query."""
        if not self.token:
            return False
        other = _answer_for(url)
        return other is not None and bool(other.token) and (other.kind, other.scope) == (self.kind, self.scope)

    def proxy_covers(self, url: str) -> bool:
        """Whether the proxy's token may go to url: portal-auth's answer for url carries the
        proxy's token with the same scope."""
        if not self.proxy_token:
            return False
        other = _answer_for(url)
        return other is not None and bool(other.proxy_token) and other.proxy_scope == self.proxy_scope

    def is_proxy_header(self, value: str) -> bool:
        """Whether a header's value is the proxy's token (the ArcGIS token goes in ``Authorization``
        too when there is no proxy, so the name does not tell)."""
        return bool(self.proxy_token) and value == "Bearer " + self.proxy_token

    def headers_for(self, url: str) -> Dict[str, str]:
        """The headers a request to url carries: the ArcGIS token's (and its Referer) where its
        scope covers url, the proxy's where the proxy's scope does; nothing elsewhere."""
        found: Dict[str, str] = {}
        for name, value in self.headers.items():
            if self.is_proxy_header(value):
                if self.proxy_covers(url):
                    found[name] = value
            elif self.covers(url):
                found[name] = value
        return found

    def __repr__(self) -> str:  # never the tokens
        return "Credential(kind=%r, scope=%r, server=%r, expires=%r, referer=%r, headers=%r)" % (
            self.kind,
            list(self.scope),
            self.server,
            self.expires,
            self.referer,
            sorted(self.headers),
        )


def _prefixes(value) -> Tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(p for p in value if isinstance(p, str) and p.endswith("/") and "://" in p)


def _binary() -> str:
    named = os.environ.get("PORTAL_AUTH_BIN")
    if named:
        return named
    found = shutil.which("portal-auth")
    if not found:
        raise PortalAuthError(
            "portal-auth is not installed (no portal-auth on PATH, and PORTAL_AUTH_BIN is not set)", 127
        )
    return found


def _ask(url: str) -> dict:
    """``portal-auth token URL --format json``, parsed. portal-auth is given the URL without its
    query and fragment (they do not choose the credential, and may hold a secret, which must not
    be in a command line); a URL with user information is refused here, without echoing it."""
    try:
        parts = urlsplit(url)
        userinfo = parts.username is not None or parts.password is not None
    except ValueError:
        raise PortalAuthError("the URL cannot be read", EXIT_USAGE) from None
    if userinfo:
        raise PortalAuthError(
            "the URL is refused: it has user information before the host (user@ or user:password@)", EXIT_USAGE
        )
    bare = parts._replace(query="", fragment="").geturl()
    try:
        done = subprocess.run(
            [_binary(), "token", bare, "--format", "json"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_TIMEOUT,
            # The error, if any, as one JSON object with its code (docs/reference/exit-codes.md).
            env=dict(os.environ, PORTAL_AUTH_ERROR_FORMAT="json"),
        )
    except subprocess.TimeoutExpired:
        raise PortalAuthError("portal-auth did not answer within %d s" % _TIMEOUT, 1) from None
    except OSError as error:
        raise PortalAuthError("portal-auth could not be run: %s" % error.strerror, 127) from None
    if done.returncode != 0:
        raise _failure(done.stderr, done.returncode)
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        raise PortalAuthError("portal-auth printed something that is not JSON", 1) from None
    if not isinstance(answer, dict) or answer.get("version") != 1:
        raise PortalAuthError("portal-auth printed a --format json answer of an unknown version", 1)
    return answer


def _bare(url: str) -> str:
    """url without its query and fragment: what chooses the credential."""
    return urlsplit(url)._replace(query="", fragment="").geturl()


class _Cache:
    """Answers kept under the credential they name and its scope (:attr:`Credential.key`); which
    credential a URL gets is portal-auth's to say, so each URL (without its query) is asked once,
    and then shares that credential's answer while the answer's scope covers it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._answers: Dict[tuple, Credential] = {}  # kind and scope -> answer
        self._keys: Dict[str, tuple] = {}  # URL without query -> kind and scope
        self._tokens: Dict[str, Credential] = {}  # every token handed out -> its answer

    def get(self, url: str, fresh: bool = False) -> Credential:
        now = time.time()
        bare = _bare(url)
        if not fresh:
            with self._lock:
                entry = self._answers.get(self._keys.get(bare, ()))
                if entry is not None and (entry.use_until is None or now < entry.use_until):
                    return entry
        answer = Credential(_ask(url), now)
        with _refusals_lock:
            _refusals.pop(bare, None)  # (a "no" kept by the scope checks: portal-auth says yes now)
        with self._lock:
            self._answers[answer.key] = answer
            self._keys[bare] = answer.key
            for token in (answer.token, answer.proxy_token):
                if token:
                    self._tokens[token] = answer
        return answer

    def given(self, token: str) -> Optional[Credential]:
        """The answer a token was handed out in (dropped answers included), or None."""
        with self._lock:
            return self._tokens.get(token)

    def drop(self, answer: Credential) -> None:
        with self._lock:
            for key in [k for k, e in self._answers.items() if e is answer]:
                del self._answers[key]

    def clear(self) -> None:
        # (The tokens handed out are kept: a request may still carry one, and it is taken off
        # wherever its scope ends.)
        with self._lock:
            self._answers.clear()
            self._keys.clear()


_cache = _Cache()


# How long portal-auth's "nothing may go there" for a URL is kept by the scope checks (seconds).
_REFUSAL_KEPT = 30.0
_refusals: Dict[str, float] = {}  # URL without query -> when its refusal lapses
_refusals_lock = threading.Lock()


def _answer_for(url: str) -> Optional[Credential]:
    """portal-auth's answer for url (cached like any other), or None where it says no credential
    may go there: nothing covers url, the token there would go over plain http, or it refuses to
    read url. Where a token may go is asked this way, so that None takes a token off rather than
    letting it go on. A no is kept for a while (a hop asked about per header and per ``token=``
    runs portal-auth once); any other failure (a locked keyring, the network) raises."""
    try:
        bare = _bare(url)
    except ValueError:
        return None
    now = time.monotonic()
    with _refusals_lock:
        if _refusals.get(bare, 0.0) > now:
            return None
    try:
        return _cache.get(url)
    except PortalAuthError as error:
        if not _nothing_may_go(error, url):
            raise
        with _refusals_lock:
            if len(_refusals) > 1000:
                _refusals.clear()
            # (From now, not from before portal-auth ran: a slow "no" is still kept its time.)
            _refusals[bare] = time.monotonic() + _REFUSAL_KEPT
        return None


def credential(url: str) -> Credential:
    """The credential for url (cached under its kind and scope): raises :class:`PortalAuthError` when
    there is none (exit code 3) or portal-auth refuses the URL (exit code 2)."""
    return _cache.get(url)


def token(url: str) -> str:
    """The ArcGIS token for url, as ``portal-auth token URL`` prints it (for a host behind an
    identity-aware proxy with no ArcGIS sign-in, the proxy's token)."""
    answer = credential(url)
    found = answer.token or answer.proxy_token
    if not found:
        raise PortalAuthError("portal-auth gave no token for this URL", 1)
    return found


def headers(url: str) -> Dict[str, str]:
    """Every header a request to url must carry: ``Authorization`` with the ArcGIS token
    (``X-Esri-Authorization`` behind an identity-aware proxy, whose token is then ``Authorization``),
    ``Referer`` for a token bound to one; each only where the token's
    scope covers url (so none for plain http when the token requires https)."""
    return credential(url).headers_for(url)


def clear_cache() -> None:
    """Forgets every cached answer (the next call asks portal-auth again)."""
    _cache.clear()
    with _refusals_lock:
        _refusals.clear()


class Auth(requests.auth.AuthBase):
    """Gives each ``requests`` request the credential portal-auth has for its URL, and only where
    portal-auth says that credential may go.

    - The headers of ``portal-auth token URL --format json`` for that very URL: a service on a
      federated server gets the server's token, an API key's service the key, a host behind an
      identity-aware proxy the proxy's token. Each token goes only to URLs for which portal-auth
      names its credential (so https only for a token that requires it).
    - A URL with no credential (portal-auth's ``noCredential``: nothing signed in covers it; or
      ``insecureTransport``: plain http, where the token requires https) is sent
      as it is, with nothing added. A URL portal-auth refuses to read (exit code 2: userinfo,
      encoded separators, ...) raises :class:`PortalAuthError`, as do a locked or missing
      keyring (5) and a failed renewal (3 or 4 when a credential exists but cannot be used).
    - Every redirect hop is checked, however many there are: a token that portal-auth does not
      name for the next URL is taken off (its headers, and ``token=`` with a token portal-auth gave in the
      next URL's query); a 307 or 308 out of scope goes on without its body. Nothing is added on
      a redirect.
    - An ArcGIS 498 (invalid token; HTTP status or JSON error) drops the cached answer, asks
      portal-auth once more, and sends the request again, once, with the same checks (and its
      redirects are checked too).
    - ``token=`` with a token portal-auth gave, in a request's query or form body, is taken off
      a request whose URL that token's scope does not cover.
    """

    _RETRIED = "_portal_auth_retried"
    #: The headers the adapter adds (and takes off again).
    _NAMES = ("X-Esri-Authorization", "Referer", "Authorization")

    def __init__(self, retry_on_498: bool = True):
        self.retry_on_498 = retry_on_498

    def _credential_for(self, url: str, fresh: bool = False) -> Optional[Credential]:
        try:
            return _cache.get(url, fresh=fresh)
        except PortalAuthError as error:
            if _no_credential(error, url):
                return None
            raise

    def _apply(self, request, answer: Optional[Credential]) -> None:
        """Takes off what the adapter put on request, then gives it what answer's scopes allow."""
        self._strip(request, request.url)
        if answer is None:
            return
        request.headers.update(answer.headers_for(request.url))

    def __call__(self, request):
        self._apply(request, self._credential_for(request.url))
        request.register_hook("response", self._on_response)
        return request

    @staticmethod
    def _carried(request) -> List[Tuple[str, Credential, bool]]:
        """The adapter's headers on request: (name, the answer its token came in, whether it is
        the proxy's token)."""
        found = []
        for name in ("X-Esri-Authorization", "Authorization"):
            value = request.headers.get(name) or ""
            if value.startswith("Bearer "):
                answer = _cache.given(value[len("Bearer ") :])
                if answer is not None:
                    found.append((name, answer, answer.is_proxy_header(value)))
        return found

    def _strip(self, request, url: str) -> bool:
        """Takes off request every token the adapter gave whose scope does not cover url (with
        the Referer that went with it); returns whether any was taken off."""
        stripped = False
        for name, answer, is_proxy in self._carried(request):
            if (answer.proxy_covers(url) if is_proxy else answer.covers(url)):
                continue
            request.headers.pop(name, None)
            stripped = True
            if not is_proxy and answer.referer is not None and request.headers.get("Referer") == answer.referer:
                request.headers.pop("Referer", None)
        if _strip_token_parameter(request, url):
            stripped = True
        return stripped

    def _check_redirect(self, response, request) -> None:
        """Before requests follows response's redirect with a copy of request: takes off the tokens
        whose scope does not cover the next URL; a 307/308 out of scope loses its body."""
        location = response.headers.get("location")
        if location is None:
            return
        target = urljoin(response.url, location)
        stripped = self._strip(request, target)
        cleaned = _without_given_tokens(location, target)
        if cleaned is not None:
            response.headers["location"] = cleaned
            stripped = True
        if stripped and response.status_code in (307, 308) and request.body is not None:
            # (requests sends a 307/308's body on; out of scope, it may hold what the token guarded.)
            request.body = None
            for name in ("Content-Length", "Content-Type", "Transfer-Encoding"):
                request.headers.pop(name, None)

    def _on_response(self, response, **kwargs):
        request = response.request
        if response.is_redirect:
            # requests follows it with a copy of this request (which keeps no mark of ours): every
            # hop comes here, with the copy's response.
            try:
                self._check_redirect(response, request)
            except PortalAuthError:
                response.close()  # (the hop is not followed: its connection goes back to the pool)
                raise
            return response
        carried = [a for _, a, is_proxy in self._carried(request) if not is_proxy]
        if not carried or not self.retry_on_498 or getattr(request, self._RETRIED, False):
            return response
        if not _is_invalid_token(response, streaming=bool(kwargs.get("stream"))):
            return response
        if request.body is not None and not isinstance(request.body, (bytes, str)):
            return response  # a stream or file already read: it cannot be sent again
        _cache.drop(carried[0])
        fresh = self._credential_for(request.url, fresh=True)
        response.content  # read it, so the connection goes back to the pool
        response.close()
        retry = request.copy()
        self._apply(retry, fresh)
        setattr(retry, self._RETRIED, True)
        second = response.connection.send(retry, **kwargs)
        second.history.append(response)
        second.request = retry
        if second.is_redirect:
            # requests follows this redirect from the first request: it goes as the retry went,
            # and its hop is checked like any other.
            for name in self._NAMES:
                request.headers.pop(name, None)
                if name in retry.headers:
                    request.headers[name] = retry.headers[name]
            request.url = retry.url
            setattr(request, self._RETRIED, True)
            try:
                self._check_redirect(second, request)
            except PortalAuthError:
                second.close()
                raise
        return second


def _without_token(query: str, url: str) -> Optional[str]:
    """query without its ``token=`` pairs whose token portal-auth gave and whose scope does not
    cover url; None when there is none to take off."""
    pairs = parse_qsl(query, keep_blank_values=True)
    kept = []
    for name, value in pairs:
        answer = _cache.given(value) if name.lower() == "token" else None
        if answer is not None and not (answer.covers(url) or answer.proxy_covers(url)):
            continue
        kept.append((name, value))
    if len(kept) == len(pairs):
        return None
    return urlencode(kept)


def _without_given_tokens(location: str, target: str) -> Optional[str]:
    """location without the given tokens its query carries out of their scope, or None."""
    parts = urlsplit(location)
    query = _without_token(parts.query, target) if parts.query else None
    return None if query is None else parts._replace(query=query).geturl()


def _strip_token_parameter(request, url: str) -> bool:
    """Takes ``token=`` with a token portal-auth gave off request's query and form body where its
    scope does not cover url; returns whether it did."""
    stripped = False
    parts = urlsplit(request.url)
    if parts.query:
        query = _without_token(parts.query, url)
        if query is not None:
            request.url = parts._replace(query=query).geturl()
            stripped = True
    body = request.body
    if isinstance(body, (bytes, str)) and "form-urlencoded" in request.headers.get("Content-Type", ""):
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        cleaned = _without_token(text, url)
        if cleaned is not None:
            request.body = cleaned.encode() if isinstance(body, bytes) else cleaned
            size = len(request.body.encode()) if isinstance(request.body, str) else len(request.body)
            request.headers["Content-Length"] = str(size)
            stripped = True
    return stripped


def _failure(stderr: str, exit_code: int) -> PortalAuthError:
    """The error portal-auth reported: its last line on stderr, a JSON object with the error's
    code and message (PORTAL_AUTH_ERROR_FORMAT=json), or, from a usage error, plain text."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return PortalAuthError("portal-auth failed with no message", exit_code)
    try:
        error = json.loads(lines[-1])["error"]
        code, message = error["code"], error["message"]
        if isinstance(code, str) and isinstance(message, str):
            return PortalAuthError(message, exit_code, code)
    except (ValueError, KeyError, TypeError):
        pass
    return PortalAuthError(lines[-1], exit_code)


def _no_credential(error: PortalAuthError, url: str) -> bool:
    """Whether portal-auth said that no credential goes to url (rather than that a stored
    credential could not be used, which is an error to report): nothing stored covers it, or,
    for a plain http url, the token would go over http (elsewhere ``insecureTransport`` is a
    failure: a token service at an http address, say). Its error code, not its words."""
    if error.code == "noCredential":
        return True
    return error.code == "insecureTransport" and url.lower().startswith("http:")


def _nothing_may_go(error: PortalAuthError, url: str) -> bool:
    """Whether the error says that no token may go to url: :func:`_no_credential`, or a URL
    portal-auth refuses to read (exit code 2)."""
    return _no_credential(error, url) or error.exit_code == EXIT_USAGE


def _is_invalid_token(response, streaming: bool) -> bool:
    if response.status_code == 498:
        return True
    if streaming or response.status_code != 200:
        return False
    if "json" not in response.headers.get("content-type", "") and "text/plain" not in response.headers.get(
        "content-type", ""
    ):
        return False
    if len(response.content) > 65536:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and error.get("code") == 498


def gis(url: str, **kwargs):
    """An ``arcgis.gis.GIS`` for the portal at url, signed in with the stored credential
    (``GIS(url, token=...)``). ``PORTAL_AUTH_CA_BUNDLE``, when set, becomes ``ca_bundles`` unless
    given. The ArcGIS API for Python sends ``Referer: http``: a token bound to another referer
    cannot work there and raises :class:`PortalAuthError` (exit code 2)."""
    from arcgis.gis import GIS  # pip install 'portal-auth[arcgis]'

    answer = credential(url)
    if not answer.token:
        raise PortalAuthError("there is no ArcGIS token for this URL (only an identity-aware proxy's)", EXIT_SIGN_IN)
    if answer.referer not in (None, "http"):
        raise PortalAuthError(
            "the token is bound to the referer %r, and the ArcGIS API for Python sends Referer: http; "
            "sign in again without --referer (or with --referer http)" % answer.referer,
            EXIT_USAGE,
        )
    if "ca_bundles" not in kwargs and os.environ.get("PORTAL_AUTH_CA_BUNDLE"):
        kwargs["ca_bundles"] = os.environ["PORTAL_AUTH_CA_BUNDLE"]
    return GIS(url, token=answer.token, **kwargs)
