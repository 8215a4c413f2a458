#!/usr/bin/env python3
"""Row latency of bleu-stream on live input (issue 5: p99 under 50 ms at any --threads).

A writer feeds hyp<TAB>ref lines into bleu-stream's stdin through a pipe and a reader takes the
rows from its stdout pipe; the latency of a line is the time from writing it to reading its row.
Two patterns: a slow writer (one line every 20 ms) and bursts (50 lines at once every 200 ms).

usage: bench/latency.py [--binary PATH] [--lines N]
"""
import argparse
import os
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(binary, threads, pattern, lines):
    proc = subprocess.Popen([binary, "-j", str(threads)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    sent = [0.0] * lines
    got = [0.0] * lines

    def read_rows():
        for i in range(lines):
            proc.stdout.readline()
            got[i] = time.monotonic()

    reader = threading.Thread(target=read_rows)
    reader.start()
    burst = 50 if pattern == "bursts" else 1
    pause = 0.2 if pattern == "bursts" else 0.02
    i = 0
    while i < lines:
        chunk = b""
        now = time.monotonic()
        for _ in range(min(burst, lines - i)):
            chunk += b"the cat sat on the mat %d\tthe cat sat on a mat %d\n" % (i, i)
            sent[i] = now
            i += 1
        proc.stdin.write(chunk)
        time.sleep(pause)
    reader.join()
    proc.stdin.close()
    proc.wait()
    delays = sorted((g - s) * 1000 for s, g in zip(sent, got))
    pick = lambda q: delays[min(len(delays) - 1, int(q * len(delays)))]
    return pick(0.5), pick(0.99), delays[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.environ.get(
        "BLEU_STREAM", os.path.join(HERE, "..", "target", "release", "bleu-stream")))
    ap.add_argument("--lines", type=int, default=200)
    args = ap.parse_args()
    print(f"{'pattern':<8} {'threads':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    worst = 0.0
    for pattern in ("slow", "bursts"):
        for threads in (1, 2, 4):
            p50, p99, top = measure(args.binary, threads, pattern, args.lines)
            worst = max(worst, p99)
            print(f"{pattern:<8} {threads:>7} {p50:>8.2f} {p99:>8.2f} {top:>8.2f}")
    print(f"worst p99: {worst:.2f} ms (target: under 50 ms)")


if __name__ == "__main__":
    main()
