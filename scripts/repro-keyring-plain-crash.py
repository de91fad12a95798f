#!/usr/bin/env python3
"""Reproduces a gnome-keyring-daemon crash seen 2026-11-24 (issue #12's notes): clients that open
Secret Service sessions with the `plain` algorithm, read a secret and go, 8 at a time, make the
daemon die within seconds (dmesg: `gnome-keyring-d ... trap int3 ... in libglib-2.0.so`, a fatal
GLib message). portal-auth's fast read (pa_secret_lookup_plain, pa_secret_read_plain) uses such
sessions. libsecret's Diffie-Hellman sessions, 8 processes at once, did not crash it in 6,400 reads.

  scripts/with-keyring.sh sh -c 'printf x | secret-tool store --label=h application h;
    python3 scripts/repro-keyring-plain-crash.py 400 MODE'; dmesg | grep gnome-keyring

MODE: secrets-asyncclose (what portal-auth does: Service.GetSecrets, Close not awaited),
item-asyncclose (Item.GetSecret), secrets-syncclose, secrets-noclose, noread-syncclose (a plain
session opened and closed, nothing read), noread-noclose. Each of the 8 workers prints -1 when all
its rounds succeeded, else the round at which a call failed (the daemon gone). Every mode but
noread-noclose crashed the daemon at least once here (gnome-keyring 42.1, GLib 2.74).
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
        o = call(bus, S, b"org.freedesktop.Secret.Service", b"OpenSession", "('plain', <''>)")
        if o is None: q.put(i); return
        sess = re.search(r"'(/org/freedesktop/secrets/session/[^']+)'", o).group(1)
        mode = sys.argv[2]
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
    q = multiprocessing.Queue(); ps = [multiprocessing.Process(target=worker, args=(item, int(sys.argv[1]), q)) for _ in range(8)]
    t = time.time(); [p.start() for p in ps]; res = [q.get() for _ in ps]; [p.join() for p in ps]
    print("results", res, "in", round(time.time() - t, 1), "s")
