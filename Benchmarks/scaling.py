#!/usr/bin/env python3
"""Times each command in two environments at once (two keyrings, say: one item, and 10,000 more),
alternating between them call by call, so that the machine's drift affects both alike; prints for
each command the median wall time per call in each and their ratio (second / first).

  scaling.py --runs 60 --second-environment FILE --labels ONE MANY --reference LABEL 'CMD'
             --command LABEL 'CMD' [--command ...] [--target-time 1.2] [--json FILE]

FILE holds NAME=VALUE lines that the second environment sets over the inherited one. The
reference's ratio is printed for comparison; the target applies to the other commands.
"""
import argparse, os, shlex, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pairs import run_once, save  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--second-environment", required=True)
    parser.add_argument("--labels", nargs=2, default=["first", "second"])
    parser.add_argument("--reference", nargs=2, metavar=("LABEL", "CMD"), required=True)
    parser.add_argument("--command", nargs=2, action="append", metavar=("LABEL", "CMD"), required=True)
    parser.add_argument("--target-time", type=float)
    parser.add_argument("--json")
    args = parser.parse_args()
    second = dict(os.environ)
    with open(args.second_environment) as f:
        for line in f.read().splitlines():
            if line:
                name, value = line.split("=", 1)
                second[name] = value
    environments = [dict(os.environ), second]
    commands = [(label, shlex.split(c)) for label, c in [args.reference] + args.command]
    samples = {(label, side): [] for label, _ in commands for side in (0, 1)}
    for _ in range(args.warmup):
        for _, argv in commands:
            for environment in environments:
                run_once(argv, environment)
    for i in range(args.runs):
        # Alternate which environment goes first, so neither always runs right after the other.
        sides = (0, 1) if i % 2 == 0 else (1, 0)
        for label, argv in commands:
            for side in sides:
                samples[(label, side)].append(run_once(argv, environments[side])[0])
    one, many = args.labels
    print(f"  {'command':<28} {one + ' ms':>14} {many + ' ms':>14} {'ratio':>6}")
    ok = True
    results = {}
    for index, (label, _) in enumerate(commands):
        first = statistics.median(samples[(label, 0)])
        other = statistics.median(samples[(label, 1)])
        ratio = other / first
        mark = ""
        if index > 0 and args.target_time and ratio > args.target_time:
            mark = f"  over {args.target_time}x"
            ok = False
        kind = " (reference)" if index == 0 else ""
        print(f"  {label + kind:<28} {first * 1000:14.2f} {other * 1000:14.2f} {ratio:6.2f}{mark}")
        results[label] = {"first_ms": first * 1000, "second_ms": other * 1000, "ratio": ratio}
    if args.target_time:
        print(f"  ({args.runs} alternating pairs per command, medians; target: {many} within "
              f"{args.target_time}x of {one}): " + ("met" if ok else "NOT met"))
    if args.json:
        save(args.json, results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
