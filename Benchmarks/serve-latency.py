#!/usr/bin/env python3
"""portal-auth serve's figures (Benchmarks/run.sh, section 5): the median latency of N sequential
feature queries through serve against the same queries sent directly with a token (a keep-alive
HTTPS session, as a client that holds a token would), and C concurrent clients through serve, each
sending a few queries, counted for errors.

usage: serve-latency.py SERVE_BASE LAYER_URL TOKEN CA_FILE [N] [C]"""
import statistics
import sys
import threading
import time

import requests
from serve_queries import timed

base, layer, token, ca = sys.argv[1:5]
n = int(sys.argv[5]) if len(sys.argv) > 5 else 200
clients = int(sys.argv[6]) if len(sys.argv) > 6 else 50
local = base + "https/" + layer.removeprefix("https://") + "/query"
remote = layer + "/query"




direct_session = requests.Session()
direct_session.headers["X-Esri-Authorization"] = "Bearer " + token
served_session = requests.Session()
for _ in range(5):  # warm both paths (connections, the server token)
    timed(direct_session, remote, verify=ca)
    timed(served_session, local)
direct, served = [], []
for _ in range(n):  # alternating, so that a change in the machine's load affects both alike
    direct.append(timed(direct_session, remote, verify=ca))
    served.append(timed(served_session, local))
d, s = statistics.median(direct) * 1000, statistics.median(served) * 1000
print(f"  {n} sequential queries: through serve {s:.2f} ms median, directly with a token {d:.2f} ms median: "
      f"{s / d:.2f}x (target <= 1.2x)")

errors, done = [], []
lock = threading.Lock()


def client():
    session = requests.Session()
    for _ in range(4):
        try:
            timed(session, local)
            with lock:
                done.append(1)
        except Exception as error:  # noqa: BLE001 (counted and shown)
            with lock:
                errors.append(str(error)[:120])


threads = [threading.Thread(target=client) for _ in range(clients)]
start = time.perf_counter()
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
wall = time.perf_counter() - start
print(f"  {clients} concurrent clients through serve: {len(done)} queries answered, {len(errors)} error(s) "
      f"(target 0) in {wall * 1000:.0f} ms" + (f"; first: {errors[0]}" if errors else ""))
sys.exit(1 if errors or s / d > 1.2 else 0)
