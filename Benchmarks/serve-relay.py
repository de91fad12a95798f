#!/usr/bin/env python3
"""A reference for portal-auth serve's figure (Benchmarks/run.sh, section 5): the same feature
queries through a bare relay (socat: plain HTTP in, TLS out, no policy, no credential handling),
the client sending its own token, against the same queries sent directly. What a local hop costs
without any of serve's work: the floor under serve's ratio.

usage: serve-relay.py RELAY_BASE LAYER_URL TOKEN CA_FILE [N]"""
import statistics
import sys

import requests
from serve_queries import timed

relay, layer, token, ca = sys.argv[1:5]
n = int(sys.argv[5]) if len(sys.argv) > 5 else 200
path = layer.split("/", 3)[3]


def session():
    made = requests.Session()
    made.headers["X-Esri-Authorization"] = "Bearer " + token
    return made




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
