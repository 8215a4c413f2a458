#!/usr/bin/env python3
"""bench/ab.py: A/B timing of bleu-stream builds on one input, runs alternating.

Usage: bench/ab.py RUNS INPUT "ARGS" BINARY [BINARY ...]

Runs every BINARY with ARGS (one shell-like string) and INPUT on standard input, RUNS rounds,
the binaries taking turns in each round so that the host's drifts (load, frequency) fall on all
of them alike. Prints per binary the best and median wall time and CPU time (user + sys of the
child). Output goes to /dev/null, standard error too. Used for the before/after figures of
README "Performance" (e.g. `bench/ab.py 12 bench/work/corpus.tsv "-m chrf -b" old/bleu-stream
target/release/bleu-stream`).
"""
import resource
import shlex
import statistics
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) < 5:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    runs, path, args, binaries = int(sys.argv[1]), sys.argv[2], shlex.split(sys.argv[3]), sys.argv[4:]
    times = {b: ([], []) for b in binaries}
    for _ in range(runs):
        for binary in binaries:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            with open(path, "rb") as stdin:
                subprocess.run([binary, *args], stdin=stdin, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=False)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            times[binary][0].append(wall)
            times[binary][1].append(cpu)
    for binary, (walls, cpus) in times.items():
        print(f"{binary}: wall best {min(walls) * 1e3:.1f} median {statistics.median(walls) * 1e3:.1f} ms"
              f" | cpu best {min(cpus) * 1e3:.1f} median {statistics.median(cpus) * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
