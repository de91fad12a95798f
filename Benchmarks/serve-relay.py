#!/usr/bin/env python3
"""A reference for portal-auth serve's figure (Benchmarks/run.sh, section 5): the same feature
queries through a bare relay (socat: plain HTTP in, TLS out, no policy, no credential handling),
the client sending its own token, against the same queries sent directly. What a local hop costs
without any of serve's work: the floor under serve's ratio.

usage: serve-relay.py RELAY_BASE LAYER_URL TOKEN CA_FILE [N]"""
import statistics
import sys
import time

import requests

relay, layer, token, ca = sys.argv[1:5]
n = int(sys.argv[5]) if len(sys.argv) > 5 else 200
params = {"where": "1=1", "outFields": "*", "f": "json"}
path = layer.split("/", 3)[3]


def session():
    made = requests.Session()
    made.headers["X-Esri-Authorization"] = "Bearer " + token
    return made


def timed(client, url, **kwargs):
    start = time.perf_counter()
    answer = client.get(url, params=params, timeout=60, **kwargs)
    elapsed = time.perf_counter() - start
    if answer.status_code != 200 or len(answer.json().get("features", [])) != 24:
        raise RuntimeError(f"unexpected answer {answer.status_code}: {answer.text[:200]}")
    return elapsed


direct_session, relayed_session = session(), session()
for _ in range(5):
    timed(direct_session, layer + "/query", verify=ca)
    timed(relayed_session, relay + "/" + path + "/query")
direct, relayed = [], []
for _ in range(n):  # alternating, as serve-latency.py does
    direct.append(timed(direct_session, layer + "/query", verify=ca))
    relayed.append(timed(relayed_session, relay + "/" + path + "/query"))
d, r = statistics.median(direct) * 1000, statistics.median(relayed) * 1000
print(f"  reference: {n} sequential queries through a bare relay (socat) {r:.2f} ms median, directly {d:.2f} ms "
      f"median: {r / d:.2f}x (what the hop alone costs)")
