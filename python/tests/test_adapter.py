"""portal_auth against portal-emulator and a real keyring: what docs/python.md shows, as it runs."""

import json
import os

import pytest
import requests

from conftest import ALICE_PASSWORD, APP_SECRET, ROOT, cli

import portal_auth


def test_federated_layer_query_through_auth(session):
    em = session.emulator
    session.sign_in_alice()

    layer = em.layer
    response = requests.get(layer + "/query", params={"where": "1=1", "returnCountOnly": "true", "f": "json"},
                            auth=portal_auth.Auth())
    assert response.status_code == 200
    assert response.json() == {"count": 24}
    # The federated server's own token (from the portal), in the header the json names.
    assert portal_auth.credential(layer).server == em.server
    assert portal_auth.credential(layer).source == "stored"
    assert response.request.headers["Authorization"] == "Bearer " + portal_auth.token(layer)
    assert portal_auth.token(layer) != portal_auth.token(em.portal)


def test_renewable_until_is_portal_auths_answer(session):
    em = session.emulator
    session.sign_in_alice()
    signed_in = portal_auth.credential(em.portal)
    # A password sign-in: until its token expires; with the password remembered, without end.
    assert signed_in.renewable_until is not None and signed_in.renewable_until == signed_in.expires
    cli("login", "--portal", em.portal, "--username", "alice", "--password-stdin", "--remember-password",
        stdin=ALICE_PASSWORD)
    portal_auth.clear_cache()
    assert portal_auth.credential(em.portal).renewable_until is None


def test_token_and_headers_are_cached_per_server_and_never_in_argv(session):
    em = session.emulator
    session.sign_in_alice()

    token = portal_auth.token(em.portal)
    me = requests.get(em.portal + "/sharing/rest/community/self", params={"f": "json"},
                      headers=portal_auth.headers(em.portal))
    assert me.json()["username"] == "alice"
    # Another URL: portal-auth says which context it is in (once), then the context's answer is shared.
    portals_self = em.portal + "/sharing/rest/portals/self"
    assert portal_auth.token(portals_self) == token
    assert portal_auth.token(portals_self + "?f=json") == token
    assert portal_auth.token(em.portal) == token
    for where in ("1=1", "APN IS NOT NULL"):
        requests.get(em.layer + "/query", params={"where": where, "f": "json"}, auth=portal_auth.Auth())
    assert session.calls() == [
        "token %s --format json" % em.portal,
        "token %s --format json" % portals_self,
        "token %s/query --format json" % em.layer,
    ]
    # A query string never reaches portal-auth's command line (it may hold a secret).
    portal_auth.clear_cache()
    portal_auth.headers(em.portal + "/sharing/rest/portals/self?f=json&token=secret-in-query")
    assert all("secret-in-query" not in line and token not in line for line in session.calls())


def test_no_credential_is_sent_outside_the_context(session, outside_server):
    em = session.emulator
    session.sign_in_alice()
    base, seen = outside_server

    auth = portal_auth.Auth()
    # Signed in, and the portal's request carries its token...
    assert requests.get(em.portal + "/sharing/rest/community/self", params={"f": "json"},
                        auth=auth).json()["username"] == "alice"
    # ...but a host nothing signed in covers gets the request with nothing added.
    response = requests.get(base + "/rest/services", params={"f": "json"}, auth=auth)
    assert response.json() == {"ok": True}
    # (portal-auth itself may read the host's /rest/info to learn whose server it is: with nothing either.)
    ours = [r for r in seen if r["headers"].get("User-Agent", "").startswith("python-requests")]
    assert [r["path"] for r in ours] == ["/rest/services?f=json"]
    for request in seen:
        names = {name.lower() for name in request["headers"]}
        assert not names & {"x-esri-authorization", "authorization", "referer", "cookie"}, request
    # token() says why there is none: portal-auth's exit code and message, and no token.
    with pytest.raises(portal_auth.PortalAuthError) as raised:
        portal_auth.token(base + "/rest/services")
    assert raised.value.exit_code == 3
    assert raised.value.code == "noCredential"
    assert "no credential" in raised.value.message and not raised.value.message.startswith("{")
    assert portal_auth.token(em.portal) not in str(raised.value)


def test_nothing_stored_is_told_by_the_error_code_not_its_words(session, monkeypatch, tmp_path):
    """Auth passes a request on bare when portal-auth says noCredential, whatever its message says,
    and raises any other sign-in error (here a refused one, whose message reads much the same)."""
    messages = {
        "noCredential": "a wording that names nothing the adapter knows",
        "credentialExpired": "no credential could be renewed: no stored password",
    }
    for code, message in messages.items():
        fake = tmp_path / ("portal-auth-" + code)
        line = json.dumps({"error": {"code": code, "exit": 3, "message": message}})
        fake.write_text("#!/bin/sh\necho '%s' >&2\nexit 3\n" % line)
        fake.chmod(0o755)
        monkeypatch.setenv("PORTAL_AUTH_BIN", str(fake))
        portal_auth.clear_cache()
        auth = portal_auth.Auth()
        request = requests.Request("GET", "https://127.0.0.1:9/arcgis/rest/services").prepare()
        if code == "noCredential":
            assert auth(request) is request and "Authorization" not in request.headers
        else:
            with pytest.raises(portal_auth.PortalAuthError) as raised:
                auth(request)
            assert (raised.value.code, raised.value.message) == (code, message)


def test_a_redirect_out_of_the_context_loses_the_credential(session, two_servers):
    (inside, inside_seen), (outside, outside_seen) = two_servers
    # A pregenerated token for a plain-http server's /arcgis context (ssl false: it may go over http).
    cli("login", "--url", inside + "/arcgis/rest/services", "--token-stdin", "--unchecked", stdin="pregenerated-123")
    auth = portal_auth.Auth()

    # Within the context, the redirect keeps it.
    here = inside + "/arcgis/rest/services/here"
    response = requests.get(inside + "/arcgis/rest/services/stay", params={"to": here}, auth=auth)
    assert response.json() == {"ok": True}
    assert [r["headers"].get("Authorization") for r in inside_seen] == ["Bearer pregenerated-123"] * 2

    # Out of it, to another host and port: the token goes nowhere there (requests drops Authorization
    # itself; Auth() checks every hop, so a same-host hop out of the context loses it too).
    response = requests.get(inside + "/arcgis/rest/services/go", params={"to": outside + "/landing"}, auth=auth)
    assert response.json() == {"ok": True}
    assert inside_seen[-1]["headers"].get("Authorization") == "Bearer pregenerated-123"
    assert [r["path"] for r in outside_seen] == ["/landing"]
    assert not any("pregenerated-123" in value for value in outside_seen[0]["headers"].values())


def test_a_url_portal_auth_refuses_raises(session):
    em = session.emulator
    session.sign_in_alice()
    with pytest.raises(portal_auth.PortalAuthError) as raised:
        requests.get(em.portal + "/sharing/rest/a%2Fb", auth=portal_auth.Auth())  # an encoded "/"
    assert raised.value.exit_code == 2
    with pytest.raises(portal_auth.PortalAuthError) as raised:
        requests.get(em.portal.replace("https://", "https://alice:pw@") + "/sharing/rest", auth=portal_auth.Auth())
    assert raised.value.exit_code == 2
    assert "pw" not in raised.value.message


def test_a_498_asks_portal_auth_once_more_and_resends_once(session):
    em = session.emulator
    session.sign_in_alice()
    query = em.layer + "/query"
    params = {"where": "1=1", "returnCountOnly": "true", "f": "json"}
    auth = portal_auth.Auth()
    assert requests.get(query, params=params, auth=auth).json() == {"count": 24}
    before = len(session.calls())

    # The server refuses the next token it gets (ArcGIS's 498 in a 200 JSON answer).
    requests.post(em.base + "/emulator/faults", json={"kind": "rejectAllTokens", "pathContains": "/query", "count": 1},
                  verify=em.ca, timeout=30).raise_for_status()
    response = requests.get(query, params=params, auth=auth)
    assert response.json() == {"count": 24}
    assert [r.json()["error"]["code"] for r in response.history] == [498]
    assert len(session.calls()) == before + 1  # the cached answer was dropped, portal-auth asked again

    # Refused twice: one resend only, and the 498 is the caller's to see.
    requests.post(em.base + "/emulator/faults", json={"kind": "rejectAllTokens", "pathContains": "/query", "count": 2},
                  verify=em.ca, timeout=30).raise_for_status()
    response = requests.get(query, params=params, auth=auth)
    assert response.json()["error"]["code"] == 498
    assert len(response.history) == 1


def test_an_expired_token_is_renewed(session):
    """An application sign-in (client credentials) whose token lives 4 minutes: portal-auth renews
    a token that expires within 5 minutes each time it is asked. The emulator expires every token;
    the next request gets a 498, and Auth() asks portal-auth again, gets the renewed token, resends."""
    em = session.emulator
    cli("login", "--portal", em.portal, "--client-id", "portal-auth-app", "--client-secret-stdin",
        "--expiration", "4", stdin=APP_SECRET)
    servers = em.portal + "/sharing/rest/portals/self/servers"
    auth = portal_auth.Auth()
    first = requests.get(servers, params={"f": "json"}, auth=auth)
    assert first.json()["servers"][0]["url"] == em.server
    old = first.request.headers["Authorization"]

    em.admin("expire-tokens")
    second = requests.get(servers, params={"f": "json"}, auth=auth)
    assert second.json()["servers"][0]["url"] == em.server
    assert [r.json()["error"]["code"] for r in second.history] == [498]
    assert second.request.headers["Authorization"] != old
    # Cached: half the 4 minutes left, so the next request asks portal-auth nothing.
    calls = len(session.calls())
    requests.get(servers, params={"f": "json"}, auth=auth).raise_for_status()
    assert len(session.calls()) == calls


def test_a_host_behind_the_identity_aware_proxy(session, folder, monkeypatch):
    em = session.emulator
    with open(os.path.join(ROOT, "config", "iap.example.json")) as f:
        config = json.load(f)
    for key in ("authorize_url", "token_url", "logout_url"):
        config[key] = config[key].replace("https://127.0.0.1:8443", em.base)
    config["hosts_behind_proxy"] = ["127.0.0.1:%d" % em.proxy_port]
    path = os.path.join(folder, "iap.json")
    with open(path, "w") as f:
        json.dump(config, f)
    monkeypatch.setenv("BROWSER", os.path.join(ROOT, "Tests", "Clients", "scripted-browser.py"))
    monkeypatch.setenv("SCRIPTED_BROWSER_CA", em.ca)
    cli("login", "--config", path)  # Entra ID's sign-in, in the scripted browser

    proxied = em.proxy_base + "/portal"
    auth = portal_auth.Auth()
    # The proxy's token alone gets through the proxy (the portal answers anonymously).
    info = requests.get(proxied + "/sharing/rest/info", params={"f": "json"}, auth=auth)
    assert info.status_code == 200 and "authInfo" in info.json()
    assert set(portal_auth.headers(proxied)) == {"Authorization"}

    # Then the portal behind it: both tokens, each in its own header.
    portal_auth.clear_cache()
    session.sign_in_alice(proxied)
    me = requests.get(proxied + "/sharing/rest/community/self", params={"f": "json"}, auth=auth)
    assert me.json()["username"] == "alice"
    assert {"Authorization", "X-Esri-Authorization"} <= set(me.request.headers)
    counters = em.counters()
    assert counters["entraTokensOutsideProxy"] == 0
    assert counters["proxyRequestsByToken"].get("access", 0) >= 2


def test_gis_is_signed_in(session):
    pytest.importorskip("arcgis")
    em = session.emulator
    session.sign_in_alice()
    gis = portal_auth.gis(em.portal)
    assert gis.users.me.username == "alice"


def test_errors_carry_the_exit_code_and_never_a_token(session, monkeypatch):
    em = session.emulator
    session.sign_in_alice()
    token = portal_auth.token(em.portal)
    monkeypatch.setenv("PORTAL_AUTH_BIN", "/nonexistent/portal-auth")
    portal_auth.clear_cache()
    with pytest.raises(portal_auth.PortalAuthError) as raised:
        portal_auth.token(em.portal)
    assert raised.value.exit_code == 127
    assert token not in str(raised.value) and token not in repr(raised.value)
    monkeypatch.setenv("PORTAL_AUTH_BIN", session.wrapper)
    assert token not in repr(portal_auth.credential(em.portal))
