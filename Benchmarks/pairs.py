#!/usr/bin/env python3
"""Times commands against a reference, in alternating pairs, so that a busy machine's drift
affects both sides alike. For each command: the median wall time and CPU time (user + system)
per call, the peak resident memory (the maximum of 5 runs under /usr/bin/time), and each as a ratio to the
reference's; the wall ratio is the median of the per-pair ratios (the issue's measure), the figure each target is
held to. Each figure is printed beside its reference and its target. Output goes to /dev/null; a command that fails
stops the run (--any-status: a non-zero exit is its answer, as for a usage error).

  pairs.py --runs 60 --label NAME --reference 'CMD' --command LABEL 'CMD' [--command LABEL 'CMD' ...]
  [--target-time 0.5] [--target-memory 1.5] [--target-ms 3] [--any-status] [--json FILE]
"""
import argparse, json, os, shlex, statistics, subprocess, sys, time


ANY_STATUS = False


def run_once(argv, environment=None):
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0 and not ANY_STATUS:
        sys.exit(f"pairs.py: {shlex.join(argv)} failed ({os.waitstatus_to_exitcode(status)}): {stderr.strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def save(path, results):
    """Writes the results as JSON, for a later comparison."""
    with open(path, "w") as f:
        json.dump(results, f, indent=2)


def peak_memory(argv):
    """Peak resident memory in KiB, measured by /usr/bin/time: a child of this Python process
    would inherit Python's own high-water mark through fork, a child of time(1) inherits its few."""
    result = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, check=not ANY_STATUS)
    return int(result.stderr.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--reference-label", default="reference")
    parser.add_argument("--command", nargs=2, action="append", metavar=("LABEL", "CMD"), required=True)
    parser.add_argument("--target-time", type=float)
    parser.add_argument("--target-memory", type=float)
    parser.add_argument("--target-ms", type=float, help="a wall time per call, in ms, each command must stay within")
    parser.add_argument("--any-status", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    global ANY_STATUS
    ANY_STATUS = args.any_status
    commands = [(args.reference_label, shlex.split(args.reference))] + [(l, shlex.split(c)) for l, c in args.command]
    samples = {label: [] for label, _ in commands}
    for _ in range(args.warmup):
        for _, argv in commands:
            run_once(argv)
    for i in range(args.runs):
        # Alternate the order so neither side always runs right after the other.
        order = commands if i % 2 == 0 else list(reversed(commands))
        for label, argv in order:
            samples[label].append(run_once(argv))
    ref = samples[args.reference_label]
    ref_wall = statistics.median(s[0] for s in ref)
    ref_cpu = statistics.median(s[1] for s in ref)
    memory = {label: max(peak_memory(argv) for _ in range(5)) for label, argv in commands}
    ref_rss = memory[args.reference_label]
    results = {}
    print(f"  {'command':<28} {'wall ms':>8} {'ref ms':>7} {'ratio':>6} {'target':>7} {'cpu ms':>7} {'ratio':>6}"
          f" {'peak KiB':>9} {'ref KiB':>8} {'ratio':>6} {'target':>7}")
    ok = True
    for label, _ in commands:
        s = samples[label]
        wall = statistics.median(x[0] for x in s)
        cpu = statistics.median(x[1] for x in s)
        rss = memory[label]
        # The median of the per-pair ratios: pair i is this command's run i and the reference's run i.
        r_wall = statistics.median(x[0] / r[0] for x, r in zip(s, ref))
        r_cpu, r_rss = cpu / ref_cpu if ref_cpu else 0, rss / ref_rss
        marks = ""
        if label != args.reference_label:
            if args.target_time and r_wall > args.target_time:
                marks += f"  MISSED: wall over {args.target_time}x"
                ok = False
            if args.target_ms and wall * 1000 > args.target_ms:
                marks += f"  MISSED: wall over {args.target_ms} ms"
                ok = False
            if args.target_memory and r_rss > args.target_memory:
                marks += f"  MISSED: memory over {args.target_memory}x"
                ok = False
        is_ref = label == args.reference_label
        time_target = "" if is_ref else (f"<={args.target_time}x" if args.target_time else "") + (
            f"<={args.target_ms:g}ms" if args.target_ms else "")
        memory_target = "" if is_ref or not args.target_memory else f"<={args.target_memory}x"
        print(f"  {label:<28} {wall*1000:8.2f} {ref_wall*1000:7.2f} {r_wall:6.2f} {time_target:>7} {cpu*1000:7.2f}"
              f" {r_cpu:6.2f} {rss:9d} {ref_rss:8d} {r_rss:6.2f} {memory_target:>7}{marks}")
        results[label] = {"wall_ms": wall * 1000, "cpu_ms": cpu * 1000, "peak_kib": rss,
                          "wall_ratio": r_wall, "cpu_ratio": r_cpu, "memory_ratio": r_rss}
    print(f"  ({args.runs} alternating pairs; wall ratio: median of the per-pair ratios): "
          + ("every target met" if ok else "a target MISSED"))
    if args.json:
        save(args.json, results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
