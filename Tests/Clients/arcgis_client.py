"""What an ArcGIS API for Python user's script does against a portal, as a report.

Run by Tests/CLITests/ArcGISPythonTests.swift with the virtual environment's python (see
scripts/support/setup-python.sh):

    python arcgis_client.py password   # GIS(url, username, password): the built-in pythonapi sign-in
    python arcgis_client.py token      # GIS(url, token=...): a token printed by `portal-auth token`

Everything secret or long comes from the environment, never argv:
  ARCGIS_PORTAL_URL  the portal (https://host:port/portal)
  ARCGIS_LAYER_URL   a secured feature layer on a server federated with the portal
  ARCGIS_CA          the CA bundle to trust, the emulator's (GIS(ca_bundles=...): arcgis 2.4's
                     verify_cert takes only a boolean and says so)
  ARCGIS_USERNAME, ARCGIS_PASSWORD   for "password"
  ARCGIS_TOKEN       for "token"

It prints one JSON object on stdout: each step's result under its name, or {"error": "..."}
for a step that raised (so one failing call does not hide the others). The test checks the
values: the user's name, the features read.
"""

import json
import os
import re
import sys
import traceback

from arcgis.features import FeatureLayer
from arcgis.gis import GIS

env = os.environ


def redacted(text):
    """Error text without tokens or passwords (some exceptions quote the request)."""
    text = re.sub(r"(token|password|access_token|refresh_token|code)=[^&\s'\"]+", r"\1=…", text)
    for name in ("ARCGIS_TOKEN", "ARCGIS_PASSWORD"):
        if env.get(name):
            text = text.replace(env[name], "…")
    return text


def step(report, name, function):
    try:
        report[name] = function()
    except Exception as error:  # the test prints the report; a traceback tail says where
        tail = traceback.format_exc().strip().splitlines()[-6:]
        report[name] = {"error": redacted("%s: %s" % (type(error).__name__, error)), "where": redacted("\n".join(tail))}


def sign_in(mode):
    if mode == "password":
        return GIS(env["ARCGIS_PORTAL_URL"], env["ARCGIS_USERNAME"], env["ARCGIS_PASSWORD"], ca_bundles=env["ARCGIS_CA"])
    if mode == "token":
        return GIS(env["ARCGIS_PORTAL_URL"], token=env["ARCGIS_TOKEN"], ca_bundles=env["ARCGIS_CA"])
    raise SystemExit("usage: arcgis_client.py password|token")


def me(gis):
    user = gis.users.me
    return None if user is None else {"username": user.username, "fullName": getattr(user, "fullName", None)}


def helper_services(gis):
    return sorted(dict(gis.properties.get("helperServices") or {}).keys())


def user(gis, name):
    found = gis.users.get(name)
    return None if found is None else {"username": found.username, "fullName": getattr(found, "fullName", None)}


def users_search(gis):
    return sorted(u.username for u in gis.users.search())


def content_search(gis):
    items = gis.content.search(query="", max_items=100)
    return [{"title": i.title, "type": i.type, "owner": i.owner, "url": getattr(i, "url", None)} for i in items]


def features(layer):
    result = layer.query(where="UseType = 'Commercial'", out_fields="*", order_by_fields="OBJECTID")
    return [dict(f.attributes) for f in result.features]


def extent(layer):
    answer = layer.query(where="UseType = 'Commercial'", return_extent_only=True)
    return dict(answer.get("extent", answer)) if isinstance(answer, dict) else {"unexpected": repr(answer)}


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    report = {}
    try:
        gis = sign_in(mode)
    except Exception as error:
        report["signIn"] = {"error": redacted("%s: %s" % (type(error).__name__, error))}
        print(json.dumps(report))
        return
    report["signIn"] = "ok"
    step(report, "me", lambda: me(gis))
    layer = FeatureLayer(env["ARCGIS_LAYER_URL"], gis)
    step(report, "features", lambda: features(layer))
    step(report, "count", lambda: layer.query(where="UseType = 'Residential'", return_count_only=True))
    step(report, "ids", lambda: sorted(layer.query(where="UseType = 'Government'", return_ids_only=True)["objectIds"]))
    step(report, "extent", lambda: extent(layer))
    if mode == "password":
        step(report, "helperServices", lambda: helper_services(gis))
        step(report, "user", lambda: user(gis, env["ARCGIS_USERNAME"]))
        step(report, "usersSearch", lambda: users_search(gis))
        step(report, "contentSearch", lambda: content_search(gis))
    print(json.dumps(report, default=str))


if __name__ == "__main__":
    main()
