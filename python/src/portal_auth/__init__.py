"""Credentials for ArcGIS portals in Python scripts, from the ``portal-auth`` command-line tool.

Sign in once with the CLI (``portal-auth login ...``); then::

    import requests, portal_auth

    portal_auth.token(url)                  # the token for url (str)
    portal_auth.headers(url)                # every header to send to url (dict)
    requests.get(url, params={"f": "json"}, auth=portal_auth.Auth())
    portal_auth.gis(portal_url)             # an arcgis.gis.GIS signed in (pip install 'portal-auth[arcgis]')

Every answer comes from ``portal-auth token URL --format json`` (the ``portal-auth`` on ``PATH``,
or the program ``PORTAL_AUTH_BIN`` names), which renews tokens, gets a federated server's token
from its portal and adds an identity-aware proxy's token. Answers are cached per server context
(the ``server`` the CLI names) until shortly before they expire: 5 minutes before, or half the
remaining lifetime when that is shorter. Errors are :class:`PortalAuthError`, with the CLI's
exit code and its one-line message; no token is ever part of an error's text, and no secret is
ever passed in a command line.
"""

import json
import os
import shutil
import subprocess
import threading
import time
from typing import Dict, Optional
from urllib.parse import urljoin, urlsplit

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
    ``message`` its one-line message on stderr. Never holds a token."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code

    def __str__(self) -> str:
        return "%s (exit %d)" % (self.message, self.exit_code)


class Credential:
    """One answer of ``portal-auth token URL --format json`` (version 1)."""

    def __init__(self, answer: dict, fetched_at: float):
        self.token: Optional[str] = answer.get("token")
        self.expires: Optional[float] = answer.get("expires_epoch")
        self.ssl: bool = bool(answer.get("ssl", False))
        self.server: Optional[str] = answer.get("server")
        self.referer: Optional[str] = answer.get("referer")
        self.headers: Dict[str, str] = dict(answer.get("headers") or {})
        proxy = answer.get("proxy") or {}
        self.proxy_token: Optional[str] = proxy.get("token")
        self.proxy_expires: Optional[float] = proxy.get("expires_epoch")
        ends = [e for e in (self.expires, self.proxy_expires) if e is not None]
        #: When this answer stops being used from the cache (epoch seconds), or None: until a 498.
        self.use_until: Optional[float] = None
        if ends:
            end = min(ends)
            remaining = max(0.0, end - fetched_at)
            self.use_until = end - min(_RENEW_BEFORE, remaining / 2)

    def __repr__(self) -> str:  # never the tokens
        return "Credential(server=%r, expires=%r, referer=%r, headers=%r)" % (
            self.server,
            self.expires,
            self.referer,
            sorted(self.headers),
        )


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
        )
    except subprocess.TimeoutExpired:
        raise PortalAuthError("portal-auth did not answer within %d s" % _TIMEOUT, 1) from None
    except OSError as error:
        raise PortalAuthError("portal-auth could not be run: %s" % error.strerror, 127) from None
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        message = lines[-1] if lines else "portal-auth failed with no message"
        raise PortalAuthError(message, done.returncode)
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        raise PortalAuthError("portal-auth printed something that is not JSON", 1) from None
    if not isinstance(answer, dict) or answer.get("version") != 1:
        raise PortalAuthError("portal-auth printed a --format json answer of an unknown version", 1)
    return answer


def _origin(parts) -> tuple:
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    return (parts.scheme.lower(), (parts.hostname or "").lower(), port)


def _plain_path(path: str) -> bool:
    """A path with nothing a server or client could read two ways (dot segments, encoded separators)."""
    lowered = path.lower()
    if "\\" in path or "%2e" in lowered or "%2f" in lowered or "%5c" in lowered or "%00" in lowered:
        return False
    return all(segment not in (".", "..") for segment in path.split("/"))


def _within(url: str, context: str) -> bool:
    """Whether url is under context (same scheme, host and port; the context's path, then "/" or
    nothing), read strictly: a URL with userinfo, dot segments or encoded separators is never."""
    try:
        u, c = urlsplit(url), urlsplit(context)
        if u.username is not None or u.password is not None or not _plain_path(u.path):
            return False
        if _origin(u) != _origin(c):
            return False
    except ValueError:
        return False
    base = c.path.rstrip("/")
    return u.path == base or u.path.startswith(base + "/") or base == ""


def _bare(url: str) -> str:
    """url without its query and fragment: what chooses the credential."""
    return urlsplit(url)._replace(query="", fragment="").geturl()


class _Cache:
    """Answers kept per server context; which context a URL belongs to is portal-auth's to say, so
    each URL (without its query) is asked once, and then shares its context's answer."""

    def __init__(self):
        self._lock = threading.Lock()
        self._answers: Dict[str, Credential] = {}  # context -> answer
        self._contexts: Dict[str, str] = {}  # URL without query -> context

    @staticmethod
    def _context(bare: str, answer: Credential) -> str:
        # A proxy's token alone: kept for that URL only (another URL on the host may have an
        # ArcGIS credential as well).
        return answer.server or "proxy " + bare

    def get(self, url: str, fresh: bool = False) -> Credential:
        now = time.time()
        bare = _bare(url)
        if not fresh:
            with self._lock:
                entry = self._answers.get(self._contexts.get(bare, ""))
                if entry is not None and (entry.use_until is None or now < entry.use_until):
                    return entry
        answer = Credential(_ask(url), now)
        context = self._context(bare, answer)
        with self._lock:
            self._answers[context] = answer
            self._contexts[bare] = context
        return answer

    def drop(self, answer: Credential) -> None:
        with self._lock:
            for context in [c for c, e in self._answers.items() if e is answer]:
                del self._answers[context]

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()
            self._contexts.clear()


_cache = _Cache()


def credential(url: str) -> Credential:
    """The credential for url (cached per server context): raises :class:`PortalAuthError` when
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
    """Every header a request to url must carry: ``X-Esri-Authorization``, ``Referer`` for a token
    bound to one, ``Authorization`` behind an identity-aware proxy."""
    return dict(credential(url).headers)


def clear_cache() -> None:
    """Forgets every cached answer (the next call asks portal-auth again)."""
    _cache.clear()


class Auth(requests.auth.AuthBase):
    """Gives each ``requests`` request the credential portal-auth has for its URL.

    - The headers of ``portal-auth token URL --format json`` for that very URL: a service on a
      federated server gets the server's token, a host behind an identity-aware proxy the proxy's.
    - A URL with no credential (portal-auth's exit code 3: nothing signed in covers it) is sent
      as it is, with nothing added. A URL portal-auth refuses to read (exit code 2: userinfo,
      encoded separators, ...) raises :class:`PortalAuthError`, as do a locked or missing
      keyring (5) and a failed renewal (3 or 4 when a credential exists but cannot be used).
    - Nothing is added to a plain ``http`` request when the token may only travel over HTTPS, and
      the headers are taken off a redirect that leaves the credential's server context.
    - An ArcGIS 498 (invalid token; HTTP status or JSON error) drops the cached answer, asks
      portal-auth once more, and sends the request again, once.
    """

    _ADDED = "_portal_auth_credential"
    _RETRIED = "_portal_auth_retried"

    def __init__(self, retry_on_498: bool = True):
        self.retry_on_498 = retry_on_498

    def _credential_for(self, url: str, fresh: bool = False) -> Optional[Credential]:
        try:
            return _cache.get(url, fresh=fresh)
        except PortalAuthError as error:
            if error.exit_code == EXIT_SIGN_IN and _no_credential(error.message):
                return None
            raise

    def _apply(self, request, answer: Optional[Credential]) -> None:
        if answer is None:
            return
        if answer.ssl and urlsplit(request.url).scheme.lower() != "https":
            return
        request.headers.update(answer.headers)
        setattr(request, self._ADDED, answer)

    def __call__(self, request):
        self._apply(request, self._credential_for(request.url))
        request.register_hook("response", self._on_response)
        return request

    def _strip(self, request) -> None:
        answer = getattr(request, self._ADDED, None)
        if answer is None:
            return
        for name in answer.headers:
            request.headers.pop(name, None)
        setattr(request, self._ADDED, None)

    def _on_response(self, response, **kwargs):
        request = response.request
        answer = getattr(request, self._ADDED, None)
        if answer is None:
            return response
        if response.is_redirect:
            # requests sends the redirect with this request's headers: not outside the context.
            target = urljoin(response.url, response.headers.get("location", ""))
            if answer.server:
                stays = _within(target, answer.server)
            else:  # a proxy's token alone: the same host
                stays = _within(target, "%s://%s" % urlsplit(request.url)[:2])
            if not stays:
                self._strip(request)
            return response
        if not self.retry_on_498 or getattr(request, self._RETRIED, False):
            return response
        if not _is_invalid_token(response, streaming=bool(kwargs.get("stream"))):
            return response
        if request.body is not None and not isinstance(request.body, (bytes, str)):
            return response  # a stream or file already read: it cannot be sent again
        _cache.drop(answer)
        fresh = self._credential_for(request.url, fresh=True)
        response.content  # read it, so the connection goes back to the pool
        response.close()
        retry = request.copy()
        self._strip(retry)
        self._apply(retry, fresh)
        setattr(retry, self._RETRIED, True)
        second = response.connection.send(retry, **kwargs)
        second.history.append(response)
        second.request = retry
        return second


def _no_credential(message: str) -> bool:
    """Whether portal-auth's exit-3 message says nothing is stored for the URL (rather than that a
    stored credential could not be used, which is an error to report)."""
    lowered = message.lower()
    return "no credential" in lowered or "not signed in" in lowered or "no stored" in lowered


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
