#!/usr/bin/env python3
"""Stores N filler items in the Secret Service's default collection from ONE process.

    Benchmarks/fill-keyring.py N [ATTRIBUTE=VALUE ...]

Each item gets the given attributes plus `server=https://filler-I.invalid/portal`, the label
"portal-auth bench filler" and the secret "x". One D-Bus connection and one `plain` session
(Collection.CreateItem, as `secret-tool store` calls it, without a key exchange and a process per
item): 10,000 `secret-tool store` processes took over 25 minutes. GDBus through ctypes (libgio is
on every machine with libsecret; no Python package needed). Prints the items stored and the time.
"""
import ctypes
import re
import sys
import time

gio = ctypes.CDLL("libgio-2.0.so.0")
glib = ctypes.CDLL("libglib-2.0.so.0")
gio.g_bus_get_sync.restype = ctypes.c_void_p
gio.g_bus_get_sync.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
glib.g_variant_parse.restype = ctypes.c_void_p
glib.g_variant_parse.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
glib.g_variant_print.restype = ctypes.c_void_p
glib.g_variant_print.argtypes = [ctypes.c_void_p, ctypes.c_int]
glib.g_variant_unref.argtypes = [ctypes.c_void_p]
glib.g_free.argtypes = [ctypes.c_void_p]
gio.g_dbus_connection_call_sync.restype = ctypes.c_void_p
gio.g_dbus_connection_call_sync.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                            ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                            ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]


class GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


G_BUS_TYPE_SESSION = 2
bus = gio.g_bus_get_sync(G_BUS_TYPE_SESSION, None, None) or sys.exit("no D-Bus session bus")


def call(path, interface, method, parameters):
    """Calls a Secret Service method with parameters in GVariant text form; the reply as text."""
    value = glib.g_variant_parse(None, parameters.encode(), None, None, None)
    if not value:
        sys.exit(f"bad GVariant text: {parameters}")
    error = ctypes.POINTER(GError)()
    reply = gio.g_dbus_connection_call_sync(bus, b"org.freedesktop.secrets", path.encode(), interface.encode(),
                                            method.encode(), value, None, 0, -1, None, ctypes.byref(error))
    if not reply:
        sys.exit(f"{method}: {error.contents.message.decode()}")
    text = glib.g_variant_print(reply, 0)
    result = ctypes.string_at(text).decode()
    glib.g_free(text)
    glib.g_variant_unref(reply)
    return result


def quote(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


count = int(sys.argv[1])
extra = dict(pair.split("=", 1) for pair in sys.argv[2:])
service = "/org/freedesktop/secrets"
session = re.search(r"'(/org/freedesktop/secrets/[^']+)'", call(service, "org.freedesktop.Secret.Service", "OpenSession",
                                                  "('plain', <''>)")).group(1)
collection = re.search(r"'(/org/freedesktop/secrets/[^']+)'", call(service, "org.freedesktop.Secret.Service", "ReadAlias",
                                                     "('default',)")).group(1)
start = time.monotonic()
for i in range(1, count + 1):
    attributes = dict(extra, server=f"https://filler-{i}.invalid/portal")
    pairs = ", ".join(f"{quote(k)}: {quote(v)}" for k, v in attributes.items())
    call(collection, "org.freedesktop.Secret.Collection", "CreateItem",
         f"({{'org.freedesktop.Secret.Item.Label': <'portal-auth bench filler'>, "
         f"'org.freedesktop.Secret.Item.Attributes': <{{{pairs}}}>}}, "
         f"(objectpath {quote(session)}, @ay [], b'x', 'text/plain'), false)")
call(session, "org.freedesktop.Secret.Session", "Close", "()")
print(f"  stored {count} items in {collection} from one process in {time.monotonic() - start:.1f} s")
