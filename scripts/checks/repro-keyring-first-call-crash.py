#!/usr/bin/env python3
"""Reproduces a gnome-keyring-daemon crash (42.1 here; 50.0 too, upstream issues 190, 194, 196 and
199): clients whose first call to the Secret Service needs the daemon's record of the client, 8 at a
time, each on a new connection, make the daemon abort within seconds (`gkd_secret_service_get_pkcs11_
session: assertion 'client' failed`, then `GLib-ERROR: g_variant_new: expected GVariant of type 'v'
but received value has type '(null)'`; dmesg: `trap int3 ... in libglib-2.0.so`). The daemon makes
that record in an idle callback its message filter queues for every incoming message; under load the
callback runs after the method. Starting each connection with a call that needs no record (the
Service's Collections property) and waiting for its answer avoids it: the callback, queued earlier at
higher priority, then runs before anything sent next. portal-auth's reads do that (secret.c,
greet_service); before, they began with OpenSession or SearchItems and crashed the daemon.

  scripts/with-keyring.sh sh -c 'printf x | secret-tool store --label=h application h;
    python3 scripts/checks/repro-keyring-first-call-crash.py 400 MODE'; dmesg | grep gnome-keyring

(or start gnome-keyring-daemon --foreground to see its messages: scripts/checks/keyring-daemon-stress.sh).
MODE: secrets-asyncclose (OpenSession `plain`, Service.GetSecrets, Close not awaited), item-asyncclose
(Item.GetSecret), secrets-syncclose, secrets-noclose, noread-syncclose (a session opened and closed),
noread-noclose; dh-... opens a Diffie-Hellman session instead of `plain` (slower, so it loads the
daemon less, but it is the same race); warm-... first reads the Service's Collections property, as
portal-auth now does. WORKERS=N sets the number of clients (8). Each worker prints -1 when all its
rounds succeeded, else the round at which a call failed (the daemon gone). Measured here: 6 runs of
8 x 500 secrets-asyncclose crashed the daemon 6 times; 8 runs of 8 x 1,000 and 4 of 16 x 600 (with
stress-ng beside) of warm-secrets-asyncclose crashed it 0 times.
"""
import ctypes, os, re, sys, time, multiprocessing

gio = ctypes.CDLL("libgio-2.0.so.0"); glib = ctypes.CDLL("libglib-2.0.so.0")
gio.g_dbus_connection_new_for_address_sync.restype = ctypes.c_void_p
gio.g_dbus_connection_new_for_address_sync.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
glib.g_variant_parse.restype = ctypes.c_void_p
glib.g_variant_parse.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
glib.g_variant_print.restype = ctypes.c_void_p; glib.g_variant_print.argtypes = [ctypes.c_void_p, ctypes.c_int]
gio.g_dbus_connection_call_sync.restype = ctypes.c_void_p
gio.g_dbus_connection_call_sync.argtypes = [ctypes.c_void_p]*6 + [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
gio.g_dbus_connection_call.argtypes = [ctypes.c_void_p]*6 + [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
gio.g_dbus_connection_close_sync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
gio.g_dbus_connection_flush_sync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
glib.g_variant_unref.argtypes = [ctypes.c_void_p]; glib.g_free.argtypes = [ctypes.c_void_p]
gio.g_object_unref = gio.g_object_unref; gio.g_object_unref.argtypes = [ctypes.c_void_p]
ADDR = os.environ["DBUS_SESSION_BUS_ADDRESS"].encode()
S = b"/org/freedesktop/secrets"
def call(bus, path, iface, method, params):
    v = glib.g_variant_parse(None, params.encode(), None, None, None)
    r = gio.g_dbus_connection_call_sync(bus, b"org.freedesktop.secrets", path, iface, method, v, None, 0, -1, None, None)
    if not r: return None
    t = glib.g_variant_print(r, 0); out = ctypes.string_at(t).decode(); glib.g_free(t); glib.g_variant_unref(r); return out
def worker(item, n, q):
    for i in range(n):
        bus = gio.g_dbus_connection_new_for_address_sync(ADDR, 1 | 8, None, None, None)  # AUTH_CLIENT | MESSAGE_BUS
        mode = sys.argv[2]
        if mode.startswith("warm-"):
            call(bus, S, b"org.freedesktop.DBus.Properties", b"Get", "('org.freedesktop.Secret.Service', 'Collections')")
        if "dh" in mode:
            o = call(bus, S, b"org.freedesktop.Secret.Service", b"OpenSession", "('dh-ietf1024-sha256-aes128-cbc-pkcs7', <@ay [" + ",".join(["byte 0x02"] * 128) + "]>)")
        else:
            o = call(bus, S, b"org.freedesktop.Secret.Service", b"OpenSession", "('plain', <''>)")
        if o is None: q.put(i); return
        sess = re.search(r"'(/org/freedesktop/secrets/session/[^']+)'", o).group(1)
        if "noread" in mode:
            r = "x"
        elif "item" in mode:
            r = call(bus, item.encode(), b"org.freedesktop.Secret.Item", b"GetSecret", f"(objectpath '{sess}',)")
        else:
            r = call(bus, S, b"org.freedesktop.Secret.Service", b"GetSecrets", f"([objectpath '{item}'], objectpath '{sess}')")
        if r is None: q.put(i); return
        if "asyncclose" in mode:
            gio.g_dbus_connection_call(bus, b"org.freedesktop.secrets", sess.encode(), b"org.freedesktop.Secret.Session", b"Close", None, None, 0, -1, None, None, None)
        elif "syncclose" in mode:
            call(bus, sess.encode(), b"org.freedesktop.Secret.Session", b"Close", "()")
        gio.g_dbus_connection_flush_sync(bus, None, None)
        gio.g_dbus_connection_close_sync(bus, None, None); gio.g_object_unref(bus)
    q.put(-1)
if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")
    bus = gio.g_dbus_connection_new_for_address_sync(ADDR, 1 | 8, None, None, None)
    item = re.search(r"'(/org/freedesktop/secrets/collection/login/[^']+)'", call(bus, S, b"org.freedesktop.Secret.Service", b"SearchItems", "({'application': 'h'},)")).group(1)
    q = multiprocessing.Queue(); ps = [multiprocessing.Process(target=worker, args=(item, int(sys.argv[1]), q)) for _ in range(int(os.environ.get("WORKERS", "8")))]
    t = time.time(); [p.start() for p in ps]; res = [q.get() for _ in ps]; [p.join() for p in ps]
    print("results", res, "in", round(time.time() - t, 1), "s")
