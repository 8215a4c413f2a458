#!/usr/bin/env python3
"""Differential check against the real mteval-v13a.pl: NIST (`-m nist`) and BLEU
(`-m mteval-bleu`) of one system per WMT22 language pair, with all of the pair's references, must
print the script's 4-decimal numbers.

    MTEVAL_PERL=/path/to/mteval-v13a.pl python3 bench/mteval_diff.py [BLEU_STREAM] [WMT22_DIR]

No package registry ships mteval-v13a.pl: it is scripts/generic/mteval-v13a.pl of Moses
(github.com/moses-smt/mosesdecoder) and needs Perl's XML::Twig (Debian: libxml-twig-perl).
BLEU_STREAM defaults to target/release/bleu-stream, WMT22_DIR to ../shared/data/wmt22. The
middle system of each pair (in name order) is scored; the SGML holds documents of 100
segments (see bench.py sgm). A tab inside a line becomes a space for both tools, as in the
bench corpus (mteval's tokenizer treats it as a space; bleu-stream's TSV input cannot carry it).
Exits 1 on any mismatch.
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import write_sgm  # noqa: E402  (bench.py's SGML writer: documents of 100 segments)


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.replace("\t", " ") for line in f.read().split("\n")[:-1]]


def bleu_stream(binary, metric, tsv):
    out = subprocess.run(
        [binary, "-m", metric, "-f", "jsonl", "--corpus-only"],
        input=tsv, capture_output=True, text=True, check=True,
    ).stdout
    return json.loads(out.strip().split("\n")[-1])[metric]["score"]


def main():
    mteval = os.environ.get("MTEVAL_PERL")
    if not mteval:
        sys.exit("mteval_diff.py: set MTEVAL_PERL=/path/to/mteval-v13a.pl")
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/bleu-stream"
    data = sys.argv[2] if len(sys.argv) > 2 else "../shared/data/wmt22"
    pairs = sorted({os.path.basename(p).split(".")[1] for p in glob.glob(f"{data}/references/*")})
    mismatches = 0
    with tempfile.TemporaryDirectory() as work:
        for pair in pairs:
            target = pair.split("-")[1]
            refids = sorted(
                p.split(".ref.")[1].split(".")[0]
                for p in glob.glob(f"{data}/references/generaltest2022.{pair}.ref.*")
            )
            systems = sorted(
                p.split(".hyp.")[1].rsplit(".", 1)[0]
                for p in glob.glob(f"{data}/system-outputs/generaltest2022.{pair}.hyp.*")
            )
            if not systems:
                continue
            system = systems[len(systems) // 2]
            hyp = read_lines(f"{data}/system-outputs/generaltest2022.{pair}.hyp.{system}.{target}")
            refs = [read_lines(f"{data}/references/generaltest2022.{pair}.ref.{r}.{target}") for r in refids]
            if any(len(r) != len(hyp) for r in refs):
                sys.exit(f"{pair}: references and system output differ in length")
            write_sgm(f"{work}/src.sgm", "src", target, [("", "src", hyp)], "t")
            write_sgm(f"{work}/ref.sgm", "ref", target,
                      [(f' refid="{r}"', r, refs[k]) for k, r in enumerate(refids)], "t")
            write_sgm(f"{work}/tst.sgm", "tst", target, [(' sysid="sys"', "sys", hyp)], "t")
            out = subprocess.run(
                ["perl", mteval, "-r", "ref.sgm", "-s", "src.sgm", "-t", "tst.sgm"],
                cwd=work, capture_output=True, text=True,
            ).stdout
            found = re.search(r"NIST score = ([0-9.]+)\s+BLEU score = ([0-9.]+)", out)
            if not found:
                sys.exit(f"{pair}: no score in mteval's output:\n{out}")
            tsv = "".join("\t".join([h] + [r[i] for r in refs]) + "\n" for i, h in enumerate(hyp))
            ours = (
                f"{bleu_stream(binary, 'nist', tsv):.4f}",
                f"{bleu_stream(binary, 'mteval-bleu', tsv):.4f}",
            )
            theirs = found.groups()
            same = ours == theirs
            mismatches += not same
            print(
                f"{pair} {system} refs {'+'.join(refids)}, {len(hyp)} segments: "
                f"mteval NIST {theirs[0]} BLEU {theirs[1]}, bleu-stream {ours[0]} {ours[1]} "
                f"{'OK' if same else 'MISMATCH'}",
                flush=True,
            )
    print(f"{mismatches} mismatching pair(s)")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
