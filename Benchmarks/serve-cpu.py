#!/usr/bin/env python3
"""portal-auth serve's cost per request (Benchmarks/run.sh, section 5): N sequential feature queries
through serve, and what serve spent on them, read from /proc: CPU time (user and system) and context
switches (voluntary and not, over all its threads) per request, beside the median latency.

usage: serve-cpu.py SERVE_BASE LAYER_URL SERVE_PID [N]"""
import os
import statistics
import sys
import time

import requests

base, layer, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
params = {"where": "1=1", "outFields": "*", "f": "json"}
local = base + "https/" + layer.removeprefix("https://") + "/query"


def cpu_seconds():
    """serve's user and system CPU time so far, in seconds."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def context_switches():
    total = 0
    for thread in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{thread}/status") as status:
                total += sum(int(line.split()[1]) for line in status if "ctxt_switches" in line)
        except FileNotFoundError:  # (a thread that ended meanwhile)
            pass
    return total


session = requests.Session()
for _ in range(20):  # warm the connections and the server token
    session.get(local, params=params, timeout=60).raise_for_status()
cpu, switches, latencies = cpu_seconds(), context_switches(), []
for _ in range(n):
    start = time.perf_counter()
    answer = session.get(local, params=params, timeout=60)
    latencies.append(time.perf_counter() - start)
    if answer.status_code != 200:
        sys.exit(f"unexpected answer {answer.status_code}: {answer.text[:200]}")
(user, system), switches = [now - then for now, then in zip(cpu_seconds(), cpu)], context_switches() - switches
print(f"  serve's cost: {(user + system) / n * 1000:.3f} ms of CPU (user {user / n * 1000:.3f}, system "
      f"{system / n * 1000:.3f}) and {switches / n:.1f} context switches a request "
      f"({n} sequential queries, median {statistics.median(latencies) * 1000:.2f} ms)")
