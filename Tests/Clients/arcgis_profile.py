"""Saves an ArcGIS API for Python profile as a user's script does, for `portal-auth import
arcgis-profile` to import.

Run by Tests/CLITests/ArcGISProfileImportTests.swift with the virtual environment's python (see
scripts/support/setup-python.sh):

    python arcgis_profile.py NAME   # GIS(url, username, password, profile=NAME)
                                    # (with client_id=ARCGIS_CLIENT_ID when set: an OAuth profile,
                                    # whose refresh token the API keeps in the password's place)
                                    # (with ARCGIS_KEY_FILE and ARCGIS_CERT_FILE set and no
                                    # ARCGIS_USERNAME: GIS(url, key_file=..., cert_file=...,
                                    # profile=NAME), a PKI profile)

The API writes the profile to $HOME/.arcgisprofile and its password to the keyring (the `keyring`
module's Secret Service backend, on $DBUS_SESSION_BUS_ADDRESS) before it signs in, so a profile
with a wrong password is saved too (its sign-in fails). Everything secret comes from the
environment, never argv:
  ARCGIS_PORTAL_URL  the portal (https://host:port/portal)
  ARCGIS_CA          the CA bundle to trust, the emulator's
  ARCGIS_USERNAME, ARCGIS_PASSWORD
  ARCGIS_CLIENT_ID   (optional) the OAuth app
  ARCGIS_KEY_FILE, ARCGIS_CERT_FILE (optional) a PKI profile's PEM files (paths, not secrets)

It prints one JSON object on stdout: the keyring backend, the profiles the API lists, and the
sign-in's result ("ok", or {"error": "..."}).
"""

import json
import os
import sys

import keyring
from arcgis.gis import GIS
from arcgis.gis._impl._profile import ProfileManager

env = os.environ


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: arcgis_profile.py NAME")
    report = {"keyring": type(keyring.get_keyring()).__module__ + "." + type(keyring.get_keyring()).__name__}
    try:
        extra = {"client_id": env["ARCGIS_CLIENT_ID"]} if env.get("ARCGIS_CLIENT_ID") else {}
        if env.get("ARCGIS_CERT_FILE"):
            extra = {"key_file": env["ARCGIS_KEY_FILE"], "cert_file": env["ARCGIS_CERT_FILE"]}
        gis = GIS(
            env["ARCGIS_PORTAL_URL"], env.get("ARCGIS_USERNAME"), env.get("ARCGIS_PASSWORD"), profile=sys.argv[1],
            ca_bundles=env["ARCGIS_CA"], **extra)
        report["signIn"] = "ok" if gis.users.me is not None else {"error": "anonymous"}
    except Exception as error:  # the password is never in the message (the API does not quote it)
        text = str(error).replace(env["ARCGIS_PASSWORD"], "…") if env.get("ARCGIS_PASSWORD") else str(error)
        report["signIn"] = {"error": "%s: %s" % (type(error).__name__, text[:300])}
    report["profiles"] = ProfileManager().list()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
