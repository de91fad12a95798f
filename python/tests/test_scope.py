"""Auth() on every hop: a token goes only to URLs inside the scope portal-auth printed for it, on
the first send, on every redirect hop, on a retry after a 498 and its redirects; against hostile
HTTPS servers on loopback (conftest.HostileServer) and a real keyring."""

import json
from urllib.parse import urlencode

import pytest
import requests

from conftest import API_KEY, cli

import portal_auth

PREGENERATED = "pregenerated-scope-123"


def sign_in_to(server):
    """A pregenerated token for the /arcgis server of `server` (https: it may only go over https);
    returns that server's services URL."""
    services = server.base + "/arcgis/rest/services"
    cli("login", "--url", services, "--token-stdin", "--unchecked", "--expires-in", "3600", stdin=PREGENERATED)
    return services


def chain(hops, code=302):
    """The URL whose answer redirects through `hops` (each URL gets a redirect to the next with
    `code`); the last URL is where it lands."""
    url = hops[-1]
    for hop in reversed(hops[:-1]):
        url = hop + "?" + urlencode({"to": url, "code": code})
    return url


def esri_headers(records):
    return [r["headers"].get("Authorization") for r in records]


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_every_redirect_hop_is_checked(session, hostile, hops):
    inside, outside, _ = hostile
    services = sign_in_to(inside)
    auth = portal_auth.Auth()

    # GET: hops - 1 redirects inside the server, then one to another host.
    path = [services + "/get%d" % i for i in range(hops)] + [outside.base + "/landing"]
    response = requests.get(chain(path), auth=auth)
    assert response.json() == {"ok": True}
    assert esri_headers(inside.requests_seen()) == ["Bearer " + PREGENERATED] * hops
    assert [r["path"] for r in outside.requests_seen()] == ["/landing"]
    assert esri_headers(outside.requests_seen()) == [None]

    # POST with the token in the form body too: 307s keep the body inside, and lose it (and the
    # header) on the way out.
    token = portal_auth.token(services)
    path = [services + "/post%d" % i for i in range(hops)] + [outside.base + "/collect"]
    response = requests.post(chain(path, code=307), data={"f": "json", "token": token}, auth=auth)
    assert response.json() == {"ok": True}
    posted = [r for r in inside.requests_seen() if r["method"] == "POST"]
    assert len(posted) == hops and all(token in r["body"] for r in posted)
    assert esri_headers(posted) == ["Bearer " + PREGENERATED] * hops
    collected = [r for r in outside.requests_seen() if r["path"] == "/collect"]
    assert len(collected) == 1
    assert collected[0]["headers"].get("Authorization") is None
    assert token not in collected[0]["body"] and token not in str(collected[0]["headers"])
    # The scope portal-auth printed: the /arcgis server, https only.
    assert portal_auth.credential(services).scope == (inside.base + "/arcgis/",)
    assert portal_auth.credential(services).kind == "token"


def test_redirects_after_a_498_retry_are_checked(session, hostile):
    inside, outside, third = hostile
    services = sign_in_to(inside)
    calls = len(session.calls())
    url = chain([services + "/reject-once", services + "/inside", third.base + "/away", outside.base + "/landing"])
    response = requests.get(url, auth=portal_auth.Auth())
    assert response.json() == {"ok": True}
    # Refused once, asked portal-auth again, sent again: then the redirects, each one checked.
    assert [r["path"].split("?")[0] for r in inside.requests_seen()] == [
        "/arcgis/rest/services/reject-once", "/arcgis/rest/services/reject-once", "/arcgis/rest/services/inside",
    ]
    assert esri_headers(inside.requests_seen()) == ["Bearer " + PREGENERATED] * 3
    # The first answer, once more after the 498, then where the token may go next, asked of
    # portal-auth for each hop that still carries it: inside (yes), the third host (no, so the hop
    # after it carries nothing to ask about).
    assert session.calls()[calls:] == [
        "token %s/reject-once --format json" % services,
        "token %s/reject-once --format json" % services,
        "token %s/inside --format json" % services,
        "token %s/away --format json" % third.base,
    ]
    assert esri_headers(third.requests_seen()) == [None]
    assert esri_headers(outside.requests_seen()) == [None]


def test_a_retried_post_does_not_take_its_body_out_of_scope(session, hostile):
    inside, outside, _ = hostile
    services = sign_in_to(inside)
    token = portal_auth.token(services)
    url = chain([services + "/reject-once", outside.base + "/collect"], code=308)
    response = requests.post(url, data={"token": token, "where": "1=1"}, auth=portal_auth.Auth())
    assert response.json() == {"ok": True}
    assert [r["method"] for r in inside.requests_seen()] == ["POST", "POST"]
    collected = outside.requests_seen()
    assert len(collected) == 1 and collected[0]["body"] == ""
    assert collected[0]["headers"].get("Authorization") is None


def test_an_api_key_host_never_gets_the_users_token(session, hostile):
    em = session.emulator
    keyed, _, _ = hostile
    session.sign_in_alice()
    cli("login", "--api-key-stdin", "--portal", em.portal, "--host", keyed.host, stdin=API_KEY + "\n")
    alices = portal_auth.token(em.portal)
    portal_auth.clear_cache()
    me = em.portal + "/sharing/rest/community/self"
    auth = portal_auth.Auth()

    # The key's host first, then the portal, then each again: each gets its own credential.
    for _ in range(2):
        assert requests.get(keyed.base + "/geocode", params={"f": "json"}, auth=auth).json() == {"ok": True}
        answer = requests.get(me, params={"f": "json"}, auth=auth)
        assert answer.json()["username"] == "alice"
        assert answer.request.headers["Authorization"] == "Bearer " + alices
    assert esri_headers(keyed.requests_seen()) == ["Bearer " + API_KEY] * 2

    # The answers say so: the key names the portal as its server, and its scope is what it covers.
    key = portal_auth.credential(keyed.base + "/geocode")
    assert key.kind == "api-key" and key.server == em.portal
    assert "https://%s/" % keyed.host in key.scope and em.portal + "/" in key.scope
    user = portal_auth.credential(me)
    assert user.kind == "token" and user.scope == (em.portal + "/",)


def test_a_token_in_a_query_or_form_goes_nowhere_out_of_its_scope(session, hostile):
    inside, outside, _ = hostile
    services = sign_in_to(inside)
    token = portal_auth.token(services)
    auth = portal_auth.Auth()
    # Put in the query or the form by the caller, for a host its scope does not cover: taken off.
    requests.get(outside.base + "/direct", params={"f": "json", "token": token}, auth=auth)
    requests.post(outside.base + "/form", data={"f": "json", "token": token}, auth=auth)
    # Named by a redirect's Location, out of its scope: taken off the next URL.
    landing = outside.base + "/landing?" + urlencode({"token": token, "f": "json"})
    requests.get(chain([services + "/go", landing]), auth=auth)
    seen = outside.requests_seen()
    assert [r["path"].split("?")[0] for r in seen] == ["/direct", "/form", "/landing"]
    for record in seen:
        assert token not in record["path"] and token not in record["body"], record
        assert "f=json" in record["path"] + record["body"]
    # Inside its scope, the caller's token= stays where it was put.
    requests.get(services + "/query", params={"token": token}, auth=auth)
    assert "token=" + token in inside.requests_seen()[-1]["path"]


def test_a_url_read_two_ways_gets_nothing(session, hostile):
    inside, _, _ = hostile
    services = sign_in_to(inside)
    # Tomcat (and so ArcGIS Enterprise) reads "..;" as "..": out of the /arcgis server it is for.
    url = chain([services + "/go", inside.base + "/arcgis/..;/elsewhere"])
    requests.get(url, auth=portal_auth.Auth())
    assert esri_headers(inside.requests_seen()) == ["Bearer " + PREGENERATED, None]
    answer = portal_auth.credential(services)
    assert not answer.covers(inside.base + "/arcgis/..;/portal/sharing/rest")
    assert not answer.covers(inside.base + "/arcgis/rest/%2e%2e/x")
    assert answer.covers(inside.base + "/arcgis/rest/services;jsessionid=1")


def test_where_a_token_goes_is_portal_auths_answer_not_the_adapters_reading(session, hostile, tmp_path, monkeypatch):
    """The adapter never matches a URL against the printed scope itself: a token goes to a hop only
    when portal-auth's answer for that hop names the same credential. A stand-in portal-auth whose
    printed scope covers the hop by any prefix reading, but which names no credential for it, has the
    token taken off there."""
    inside, _, _ = hostile
    answer = {
        "version": 1, "token": "stand-in-token", "kind": "token", "scope": [inside.base + "/"],
        "expires_epoch": None, "ssl": True, "server": inside.base, "referer": None,
        "headers": {"Authorization": "Bearer stand-in-token"},
    }
    refusal = json.dumps({"error": {"code": "noCredential", "exit": 3, "message": "no credential"}})
    fake = tmp_path / "portal-auth"
    fake.write_text(
        "#!/bin/sh\n"
        'case "$2" in *denied*) echo \'%s\' >&2; exit 3;; esac\n'
        "cat <<'EOF'\n%s\nEOF\n" % (refusal, json.dumps(answer))
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PORTAL_AUTH_BIN", str(fake))
    portal_auth.clear_cache()
    auth = portal_auth.Auth()

    url = chain([inside.base + "/start", inside.base + "/denied/here", inside.base + "/allowed"])
    assert requests.get(url, auth=auth).json() == {"ok": True}
    # Same host, inside the printed prefix: the stand-in names no credential for /denied, so the
    # token is taken off there, and nothing is added on the hop after it.
    assert esri_headers(inside.requests_seen()) == ["Bearer stand-in-token", None, None]
    answer = portal_auth.credential(inside.base + "/start")
    assert answer.covers(inside.base + "/elsewhere")
    assert not answer.covers(inside.base + "/denied/there")


def stand_in(tmp_path, monkeypatch, base):
    """A stand-in portal-auth that names one token for every https URL, answers insecureTransport
    for plain http, noCredential for a path with "denied" (until a file "allow" is made in tmp_path)
    and a locked keyring for one with "locked"; it logs each URL it is asked about. Returns the
    log's path."""
    answer = {
        "version": 1, "token": "stand-in-token", "kind": "token", "scope": [base + "/"],
        "expires_epoch": None, "ssl": True, "server": base, "referer": None,
        "headers": {"Authorization": "Bearer stand-in-token"},
    }

    def error(code, exit_code):
        return json.dumps({"error": {"code": code, "exit": exit_code, "message": code}})

    log = tmp_path / "asked.log"
    fake = tmp_path / "portal-auth"
    fake.write_text(
        "#!/bin/sh\n"
        'echo "$2" >> %s\n' % log
        + 'case "$2" in\n'
        + "  http://*) echo '%s' >&2; exit 4;;\n" % error("insecureTransport", 4)
        + "  *locked*) echo '%s' >&2; exit 5;;\n" % error("keyringLocked", 5)
        + "  *denied*) [ -e %s ] || { echo '%s' >&2; exit 3; };;\n" % (tmp_path / "allow", error("noCredential", 3))
        + "esac\n"
        + "cat <<'EOF'\n%s\nEOF\n" % json.dumps(answer)
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PORTAL_AUTH_BIN", str(fake))
    portal_auth.clear_cache()
    return log


def test_plain_http_gets_nothing_and_a_failure_on_a_hop_raises(session, hostile, outside_server, tmp_path,
                                                                monkeypatch):
    """portal-auth's insecureTransport (a token that requires https, for an http URL) means nothing
    goes there, on a first send or a hop, and the request goes on; a hop portal-auth cannot answer
    for (a locked keyring) raises instead of being followed; a "no" is asked once per hop however
    many tokens the hop carries."""
    inside, _, _ = hostile
    plain, seen = outside_server
    log = stand_in(tmp_path, monkeypatch, inside.base)
    auth = portal_auth.Auth()

    assert requests.get(plain + "/direct", auth=auth).json() == {"ok": True}
    requests.get(chain([inside.base + "/start", plain + "/landing"]), auth=auth)
    assert [r["path"] for r in seen] == ["/direct", "/landing"]
    assert all(r["headers"].get("Authorization") is None for r in seen)
    assert esri_headers(inside.requests_seen()) == ["Bearer stand-in-token"]

    # The header and a token= in the query: one question about the hop.
    denied = inside.base + "/denied/a?" + urlencode({"token": "stand-in-token"})
    requests.get(chain([inside.base + "/start", denied]), auth=auth)
    assert log.read_text().splitlines().count(inside.base + "/denied/a") == 1
    assert esri_headers(inside.requests_seen())[-1] is None
    assert "stand-in-token" not in inside.requests_seen()[-1]["path"]

    # Signed in meanwhile (the stand-in answers now): portal-auth's yes wins over the "no" kept.
    (tmp_path / "allow").touch()
    assert portal_auth.headers(inside.base + "/denied/a") == {"Authorization": "Bearer stand-in-token"}

    with pytest.raises(portal_auth.PortalAuthError) as raised:
        requests.get(chain([inside.base + "/start", inside.base + "/locked/b"]), auth=auth)
    assert raised.value.exit_code == 5
    assert not any(r["path"].startswith("/locked") for r in inside.requests_seen())
