#!/usr/bin/env python3
"""Writes the committed seed corpus fuzz/corpus/merge/ (the `merge` target, issue 19).

The seeds are real stats documents: `bleu-stream --emit stats` of every mergeable metric (and
NIST's NLTK variant), with both resampling methods and with --group-by, over a few small
segments, alone and as streams of two shards (named by SHA-1, as libFuzzer names its own).
Deterministic for a given binary. Rerun when the document layout changes.

usage: fuzz/seed_merge.py [BLEU_STREAM]   (default: target/fast/bleu-stream, then release)
"""

import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MAX_SEED = 8192

SEGMENTS = [
    {"hyp": "the cat sat on the mat", "refs": ["the cat is on the mat", "a cat sat on a mat"], "sys": "a"},
    {"hyp": "0 1 0 2 .", "refs": ["0 1 2 0 .", "0 0"], "sys": "b"},
    {"hyp": "hello", "refs": ["hello world", "hi"], "sys": "a"},
    {"hyp": "", "refs": ["", "x"], "sys": 7},
]

RUNS = [
    ["-m", "bleu"],
    ["-m", "bleu", "--max-ngram-order", "2", "-s", "floor"],
    ["-m", "chrf"],
    ["-m", "chrf", "--chrf-word-order", "2"],
    ["-m", "ter"],
    ["-m", "nltk-bleu"],
    ["-m", "nltk-bleu", "--compat", "matlab"],
    ["-m", "multi-bleu"],
    ["-m", "gleu"],
    ["-m", "nist"],
    ["-m", "nist", "--nist-compat", "nltk"],
    ["-m", "mteval-bleu"],
    ["-m", "bleu,chrf,gleu", "--confidence", "--confidence-n", "20"],
    ["-m", "bleu,chrf,gleu", "--confidence=streaming", "--confidence-n", "5"],
    ["-m", "bleu,ter", "--group-by", "sys"],
    ["-m", "chrf,gleu", "--group-by", "sys", "--confidence", "--confidence-n", "10"],
]


def binary():
    if len(sys.argv) > 1:
        return sys.argv[1]
    for profile in ("fast", "release"):
        path = os.path.join(ROOT, "target", profile, "bleu-stream")
        if os.path.exists(path):
            return path
    sys.exit("build bleu-stream first (cargo build --profile fast)")


def emit(exe, args, segments, first_line):
    text = "".join(json.dumps(s) + "\n" for s in segments)
    out = subprocess.run(
        [exe, "--input", "jsonl", "--emit", "stats", "--first-line", str(first_line), *args],
        input=text.encode(), capture_output=True, check=False)
    if out.returncode != 0:
        sys.exit(f"{args}: {out.stderr.decode()}")
    return out.stdout


def main():
    exe = binary()
    d = os.path.join(HERE, "corpus", "merge")
    os.makedirs(d, exist_ok=True)
    for old in os.listdir(d):
        if not old.startswith("regression-"):
            os.remove(os.path.join(d, old))
    seeds = []
    for args in RUNS:
        seeds.append(emit(exe, args, SEGMENTS, 1))
        seeds.append(emit(exe, args, SEGMENTS[:2], 1) + emit(exe, args, SEGMENTS[2:], 3))
    kept = 0
    for s in seeds:
        if len(s) <= MAX_SEED:
            with open(os.path.join(d, hashlib.sha1(s).hexdigest()), "wb") as f:
                f.write(s)
            kept += 1
    print(f"merge: {kept} seeds")


if __name__ == "__main__":
    main()
