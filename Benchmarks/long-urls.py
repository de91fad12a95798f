#!/usr/bin/env python3
"""`portal-auth token` for long URLs, beside the same command for a short one (the reference):
median wall time and peak memory per store, for a URL just under the 16 KiB limit made of
8,000 path segments (inside the stored portal's context, and outside any marker so that its own
context is the whole path), and for 64 KiB of path (refused). Targets: under 50 ms and 20 MB.

  Benchmarks/long-urls.py PORTAL_AUTH URL [--runs N]

URL is a portal with a credential in the keyring and in the file store (run.sh signs it in)."""
import argparse
import os
import statistics
import subprocess
import sys
import time

LIMIT = 16 * 1024


def run(command, runs):
    """Median wall time (ms), largest peak RSS (MB) and the exit statuses of `runs` runs."""
    walls, peaks, statuses = [], [], set()
    for _ in range(runs):
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        walls.append((time.perf_counter() - start) * 1000)
        peaks.append(usage.ru_maxrss / 1024)
        statuses.add(os.waitstatus_to_exitcode(status))
    return statistics.median(walls), max(peaks), sorted(statuses)


def padded(start, unit, length):
    """`start` and `unit` repeated, up to `length` bytes."""
    return start + unit * ((length - len(start)) // len(unit))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("portal_auth")
    parser.add_argument("url")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    urls = [
        ("short (reference)", args.url + "/sharing/rest/community/self"),
        ("16 KiB, 8,000 segments in the portal", padded(args.url + "/sharing/rest/", "a/", LIMIT)),
        ("16 KiB, 8,000 segments, no marker", padded(args.url + "/x/", "a/", LIMIT)),
        ("64 KiB of path (refused)", padded(args.url + "/x/", "a/", 64 * LIMIT // 16)),
    ]
    failed = False
    print(f"  {'store':8} {'URL':40} {'bytes':>6} {'median ms':>10} {'peak MB':>8} {'exit':>5}")
    for store in ["memory", "file", "keyring"]:
        reference = None
        for label, url in urls:
            wall, peak, statuses = run([args.portal_auth, "token", url, "--store", store], args.runs)
            reference = reference or (wall, peak)
            mark = ""
            if label != urls[0][0]:
                mark = f"  ({wall / reference[0]:.1f}x, {peak / reference[1]:.2f}x the short URL's)"
                if wall >= 50 or peak >= 20:
                    mark += "  OVER TARGET (50 ms, 20 MB)"
                    failed = True
            exits = ",".join(map(str, statuses))
            print(f"  {store:8} {label:40} {len(url):6d} {wall:10.1f} {peak:8.1f} {exits:>5}{mark}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
