#!/usr/bin/env python3
"""Compares builds of portal-auth serve (Benchmarks/serve-compare.sh): N rounds, each sending the
same feature query directly with a token and then through each serve in turn, so that a change in
the machine's load affects every build alike; prints each build's median and what it adds to the
direct median.

usage: serve-compare.py LAYER_URL TOKEN CA_FILE N SERVE_BASE..."""
import statistics
import sys

import requests
from serve_queries import timed

layer, token, ca = sys.argv[1:4]
n = int(sys.argv[4])
bases = sys.argv[5:]
direct_session = requests.Session()
direct_session.headers["X-Esri-Authorization"] = "Bearer " + token
served = [(requests.Session(), base + "https/" + layer.removeprefix("https://") + "/query") for base in bases]




for _ in range(5):
    timed(direct_session, layer + "/query", verify=ca)
    for session, url in served:
        timed(session, url)
direct, through = [], [[] for _ in bases]
for _ in range(n):
    direct.append(timed(direct_session, layer + "/query", verify=ca))
    for index, (session, url) in enumerate(served):
        through[index].append(timed(session, url))
d = statistics.median(direct) * 1000
print(f"  directly: {d:.3f} ms median of {n}")
for index, times in enumerate(through):
    s = statistics.median(times) * 1000
    print(f"  build {index + 1}: {s:.3f} ms ({s / d:.3f}x, adds {s - d:.3f} ms)")
