#!/usr/bin/env python3
"""Regenerates cases.jsonl: what the real `sacrebleu` 2.6.0 prints for the command lines below,
run in this folder with NO_COLOR=1 (the inputs are the first 40 lines of WMT22 en-de references
A/B and systems Online-A/Online-B/JDExploreAcademy, 30 lines of en-zh). tests/sacrebleu_cli.rs
replays them against `bleu-stream sacrebleu`. Usage: python3 generate.py > cases.jsonl

The `-t` cases read test sets from `cache/` (SACREBLEU=cache), which this script builds first the
way sacreBLEU fills its cache, without a download: wmt22 en-de and cs-en as WMT XML files (the
40 lines above as references A, B and C) that sacreBLEU itself processes into its text files
(a placeholder tarball stands for the download), and wmt20/tworefs en-de as the text files
sacreBLEU keeps for it.
"""
import json
import os
import shutil
import subprocess

import lxml.etree as ET

CASES = [
    # feature, argv (after `sacrebleu`), stdin file or None, extra env
    ("output", ["refA.txt", "-i", "sysA.txt"], None, {}),
    ("output", ["refA.txt", "-i", "sysA.txt", "-f", "text", "-w", "3"], None, {}),
    ("output", ["refA.txt", "-m", "bleu", "chrf", "ter", "-b"], "sysA.txt", {}),
    ("output", ["refA.txt", "-m", "ter", "chrf", "bleu", "-f", "text", "-sh"], "sysA.txt", {}),
    ("output", ["refA.txt", "-m", "chrf", "bleu", "-w", "0"], "sysA.txt", {}),
    ("output", ["refA.txt", "-i", "sysA.txt", "-f", "text"], None, {"SACREBLEU_FORMAT": "json"}),
    ("output", ["refA.txt", "-lc", "-m", "bleu", "chrf", "-f", "text"], "sysA.txt", {}),
    ("output", ["refA.txt", "-m", "chrf", "--chrf-lowercase", "-cc", "4", "-cw", "1", "--chrf-beta", "1", "-f", "text"], "sysA.txt", {}),
    ("output", ["refA.txt", "-m", "ter", "--ter-no-punct", "--ter-asian-support", "-f", "text"], "sysA.txt", {}),
    ("output", ["refA.txt", "-s", "floor", "-f", "text", "-d"], "sysA.txt", {}),
    ("references", ["refA.txt", "refB.txt", "-m", "bleu", "chrf", "ter", "-f", "text"], "sysA.txt", {}),
    ("references", ["refAB.tsv", "-nr", "2", "-f", "text"], "sysA.txt", {}),
    ("references", ["refAB.tsv", "-nr", "3"], "sysA.txt", {}),
    ("references", ["refZH.txt", "-l", "en-zh", "-f", "text"], "sysZH.txt", {}),
    ("references", ["refZH.txt", "-l", "en-zh", "-tok", "13a", "-f", "text"], "sysZH.txt", {}),
    ("parsing", ["-b", "refA.txt"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "-w2", "-bq"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "--wid=3", "--score", "--met", "chrf"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "--conf"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "-b", "refB.txt"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "-tok", "foo"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "-w", "1.5"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "--paired-bs", "--paired-ar"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "-bx"], "sysA.txt", {}),
    ("parsing", ["--version"], None, {}),
    ("parsing", ["-h"], None, {}),
    ("errors", ["refA.txt", "-i", "missing.txt"], None, {}),
    ("errors", ["refA.txt", "-i", "sysZH.txt"], None, {}),
    ("errors", ["-i", "sysA.txt"], None, {}),
    ("errors", ["refA.txt", "-sl", "-m", "bleu", "chrf"], "sysA.txt", {}),
    # No chrF order at all: the corpus statistics are empty lists (IndexError); rows are 0.0.
    ("errors", ["refA.txt", "-m", "chrf", "-cc", "0", "-f", "text"], "sysA.txt", {}),
    ("sentence", ["refA.txt", "-sl", "-m", "chrf", "-cc", "0", "-cw", "0"], "sysA.txt", {}),
    # A negative beta is squared; the name keeps its sign.
    ("output", ["refA.txt", "-m", "chrf", "--chrf-beta", "-1", "-cw", "2", "-f", "text"], "sysA.txt", {}),
    ("errors", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "--confidence"], None, {}),
    ("errors", ["refA.txt", "-i", "sysA.txt", "--paired-bs"], None, {}),
    ("errors", ["refA.txt", "-i", "sysA.txt", "sysA.txt"], None, {}),
    ("errors", ["refA.txt", "refB.txt", "-nr", "2"], "sysA.txt", {}),
    ("errors", ["refA.txt", "-i", "-f", "text"], None, {}),
    ("errors", ["refA.txt", "-i"], None, {}),
    # add-k with a negative value: log of a negative precision (ValueError), at corpus level and
    # at the fourth sentence (the three before it are printed).
    ("errors", ["refA.txt", "-s", "add-k", "-sv", "-300", "-b"], "sysA.txt", {}),
    ("errors", ["refA.txt", "-sl", "-s", "add-k", "-sv", "-3", "-b"], "sysA.txt", {}),
    # The paired tests' process pool refuses a negative -j (ValueError).
    ("errors", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "sysC.txt", "-j", "-1", "--paired-ar", "-parn", "20", "-f", "text"], None, {}),
    # NaN smoothing: Python spells it nan in the signature and the precisions.
    ("output", ["refA.txt", "-s", "add-k", "-sv", "nan"], "sysA.txt", {}),
    ("output", ["refA.txt", "-s", "floor", "-sv", "nan", "-f", "text"], "sysA.txt", {}),
    ("sentence", ["refA.txt", "refB.txt", "-sl", "-s", "add-k", "-w", "2"], "sysA.txt", {}),
    ("sentence", ["refA.txt", "-sl", "-m", "ter", "-b"], "sysA.txt", {}),
    ("sentence", ["refA.txt", "-sl", "-m", "chrf", "-sh", "--chrf-eps-smoothing"], "sysA.txt", {}),
    ("systems", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "sysC.txt", "-m", "bleu", "chrf", "ter", "-f", "text"], None, {}),
    ("systems", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "-f", "latex", "-w", "2"], None, {}),
    ("systems", ["refA.txt", "refB.txt", "-m", "ter", "chrf"], "sysAB.tsv", {}),
    ("confidence", ["refA.txt", "-i", "sysA.txt", "--confidence", "-cin", "200"], None, {}),
    ("confidence", ["refA.txt", "-i", "sysA.txt", "-ci", "-m", "bleu", "chrf", "ter", "-f", "text", "-w", "3"], None, {"SACREBLEU_SEED": "7"}),
    ("confidence", ["refA.txt", "-i", "sysA.txt", "-ci", "-b"], None, {"SACREBLEU_SEED": "2024"}),
    ("paired", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "sysC.txt", "--paired-bs", "-pbsn", "300", "-f", "text", "-m", "bleu", "chrf", "ter", "-w", "3"], None, {}),
    ("paired", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "sysC.txt", "--paired-bs"], None, {"SACREBLEU_SEED": "99"}),
    ("paired", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "sysC.txt", "--paired-ar", "-parn", "500", "-m", "bleu", "chrf", "-f", "latex"], None, {}),
    ("paired", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "--paired-ar", "-m", "chrf", "ter", "bleu"], None, {}),
    ("paired", ["refA.txt", "--paired-ar", "-f", "text"], "sysAB.tsv", {}),
    # Seeds as Python's int() reads them: past 128 bits, and in other scripts' digits.
    ("confidence", ["refA.txt", "-i", "sysA.txt", "-ci", "-cin", "50", "-f", "text"], None, {"SACREBLEU_SEED": "340282366920938463463374607431768211457"}),
    ("confidence", ["refA.txt", "-i", "sysA.txt", "-ci", "-cin", "50"], None, {"SACREBLEU_SEED": "٣٤"}),
    ("paired", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "--paired-ar", "-parn", "50", "-f", "text"], None, {"SACREBLEU_SEED": "１２"}),
    ("parsing", ["refA.txt", "-w", "٣", "-s", "add-k", "-sv", "٠.٥", "-f", "text"], "sysA.txt", {}),
    ("testset", ["-t", "wmt22", "-l", "en-de", "-i", "sysA.txt"], None, {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22", "-l", "cs-en", "-i", "sysA.txt", "sysB.txt", "-f", "text"], None, {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt20/tworefs", "-l", "en-de", "-m", "bleu", "chrf", "ter", "-f", "text"], "sysA.txt", {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22,wmt22", "-l", "en-de", "-f", "text"], "sysAA.txt", {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22", "-l", "en-de", "-tok", "none", "-f", "text"], "sysA.txt", {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22", "-l", "en-de", "-sl", "-m", "chrf"], "sysA.txt", {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22", "-l", "en-de"], "sysZH.txt", {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22", "-l", "en-de", "-q"], "sysZH.txt", {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22", "-l", "xx-yy"], "sysA.txt", {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22,wmt99", "-l", "en-de"], "sysA.txt", {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22"], "sysA.txt", {"SACREBLEU": "cache"}),
    ("testset", ["-t", "wmt22", "-l", "en-de", "refA.txt"], "sysA.txt", {"SACREBLEU": "cache"}),
    ("testset", ["refA.txt", "--origlang", "en"], "sysA.txt", {}),
    # The significance audit's cases (files in audit/). TER with 3 references: the trials sum
    # `pos_sel @ bl_stats + neg_sel @ sys_stats`, two products added, not one interleaved sum.
    ("paired", ["audit/ter_r0.txt", "audit/ter_r1.txt", "audit/ter_r2.txt", "-i", "audit/ter_base.txt", "audit/ter_sys.txt", "--paired-ar", "-m", "ter", "-f", "text"], None, {}),
    # chrF --confidence with a resample of empty hypotheses only: its Python 0.0 among float32
    # scores stops statistics.mean (TypeError).
    ("errors", ["audit/chrf_ref.txt", "-i", "audit/chrf_hyp.txt", "--confidence", "-m", "chrf", "-b"], None, {}),
    # Resample arrays NumPy cannot allocate: MemoryError, ValueError.
    ("errors", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "audit/sm_h1.txt", "--paired-ar", "--paired-ar-n", "1000000000000"], None, {}),
    ("errors", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "audit/sm_h1.txt", "--paired-bs", "--paired-bs-n", "9223372036854775807"], None, {}),
    ("errors", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "--confidence", "--confidence-n", "9223372036854775808"], None, {}),
    # Non-finite and negative smoothing values in the resamples.
    ("confidence", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "--confidence", "-s", "floor", "-sv", "inf", "-b", "-w", "4"], None, {}),
    ("confidence", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "--confidence", "-s", "floor", "-sv", "nan", "-b", "-w", "4"], None, {}),
    ("errors", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "--confidence", "-s", "floor", "-sv", "-0.5", "-b"], None, {}),
    ("errors", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "audit/sm_h1.txt", "--paired-bs", "-s", "floor", "-sv", "-0.5", "-f", "text"], None, {}),
    ("errors", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "audit/sm_h1.txt", "--paired-ar", "-s", "add-k", "-sv", "inf"], None, {}),
    ("errors", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "audit/sm_h1.txt", "--paired-ar", "-s", "add-k", "-sv", "nan"], None, {}),
    ("paired", ["audit/sm_ref.txt", "-i", "audit/sm_h0.txt", "audit/sm_h1.txt", "--paired-ar", "-s", "add-k", "-sv", "-0.25"], None, {}),
    # A JSON number on an exact 17-digit tie (ci 10.5555572509765625): repr rounds to even.
    ("paired", ["audit/tie_ref.txt", "-i", "audit/tie_base.txt", "audit/tie_sys.txt", "--paired-bs", "--paired-bs-n", "100", "-m", "ter", "-f", "json"], None, {}),
    # chrF without any order on one segment: sacreBLEU's sum_of_lists returns the one list as it
    # is (score 0.0), where two or more segments raise IndexError (the case above).
    ("sentence", ["audit/one_ref.txt", "-i", "audit/one_hyp.txt", "-m", "chrf", "-cc", "0", "-cw", "0"], None, {}),
    # The drop-in audit of 2026-11-27: chrF's factor beta ** 2 is a Python int (a u32 square
    # wrapped past 65,535; 1 + factor rounds once past 2^53), in the scores and the resamples.
    ("output", ["refA.txt", "-m", "chrf", "--chrf-beta", "65536", "-f", "text", "-w", "17"], "sysA.txt", {}),
    ("output", ["refA.txt", "-m", "chrf", "--chrf-beta", "94906267", "-w", "17"], "sysA.txt", {}),
    ("output", ["refA.txt", "-m", "chrf", "--chrf-beta", "-18446744073709551615", "-cw", "2", "-w", "17", "-f", "text"], "sysA.txt", {}),
    ("sentence", ["refA.txt", "-sl", "-m", "chrf", "--chrf-beta", "4294967296", "-w", "17", "-b"], "sysA.txt", {}),
    ("confidence", ["refA.txt", "-i", "sysA.txt", "-ci", "-cin", "50", "-m", "chrf", "--chrf-beta", "100000", "-b", "-w", "17"], None, {}),
    # Any -w up to INT_MAX: zeros past a double's 1,074 decimals (Rust's formatter panicked
    # past 65,535); Python's two errors past it.
    ("output", ["refA.txt", "-w", "65536", "-b"], "sysA.txt", {}),
    ("output", ["refA.txt", "-m", "ter", "-w", "1075", "-f", "text"], "sysA.txt", {}),
    ("errors", ["refA.txt", "-w", "2147483648", "-b"], "sysA.txt", {}),
    ("errors", ["refA.txt", "-w", "9223372036854775808", "-b"], "sysA.txt", {}),
    # float() takes an underscore only between digits (PEP 515).
    ("parsing", ["refA.txt", "-s", "add-k", "-sv", "1__0", "-b"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "-s", "add-k", "-sv", "1e_5", "-b"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "-s", "add-k", "-sv", "_1", "-b"], "sysA.txt", {}),
    ("parsing", ["refA.txt", "-s", "add-k", "-sv", "1_0.0_5", "-b", "-w", "6"], "sysA.txt", {}),
    # The review of 2026-11-27: the JSON table of paired tests never formats with -w, so any
    # width works there (text still fails); a non-ASCII character in an -e name separates, as
    # CPython's C-level normalisation of the bytes makes it.
    ("paired", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "--paired-bs", "--paired-bs-n", "20", "-w", "1000001", "-f", "json"], None, {}),
    ("paired", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "--paired-ar", "--paired-ar-n", "20", "-w", "-1", "-f", "json"], None, {}),
    ("errors", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "--paired-bs", "--paired-bs-n", "20", "-w", "-1", "-f", "text"], None, {}),
    ("parsing", ["refA.txt", "-e", "utf8\u00e9ucs2", "-b"], "sysA.txt", {}),
    ("errors", ["refA.txt", "-e", "u\u00e9tf8", "-b"], "sysA.txt", {}),
]


def lines(here, name):
    with open(os.path.join(here, name), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f]


def wmt_xml(path, src, refs):
    """A WMT21+ test-set XML file: one document, the source and one <ref> per translator."""
    dataset = ET.Element("dataset", id="wmttest2022")
    collection = ET.SubElement(dataset, "collection", id="general")
    doc = ET.SubElement(collection, "doc", id="doc1", origlang="en")
    for tag, attrs, sents in [("src", {"lang": "en"}, src)] + [
        ("ref", {"lang": "de", "translator": t}, r) for t, r in refs
    ]:
        p = ET.SubElement(ET.SubElement(doc, tag, **attrs), "p")
        for i, s in enumerate(sents, 1):
            ET.SubElement(p, "seg", id=str(i)).text = s
    os.makedirs(os.path.dirname(path), exist_ok=True)
    ET.ElementTree(dataset).write(path, encoding="utf-8", xml_declaration=True)


def remove_locks(cache):
    """sacreBLEU's portalocker leaves `*.lock` files beside the tarball."""
    for dirpath, _, files in os.walk(cache):
        for f in files:
            if f.endswith(".lock"):
                os.remove(os.path.join(dirpath, f))


def make_cache(here):
    cache = os.path.join(here, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    src, ref_a, ref_b, sys_c = (lines(here, f) for f in ["sysC.txt", "refA.txt", "refB.txt", "sysC.txt"])
    raw = os.path.join(cache, "wmt22", "raw")
    os.makedirs(raw)
    with open(os.path.join(raw, "wmt22.v1.1.tar.gz"), "w") as f:
        f.write("placeholder: sacreBLEU downloads only when this file is missing or empty\n")
    xml = os.path.join(raw, "wmt22-news-systems-1.1", "xml")
    wmt_xml(os.path.join(xml, "wmttest2022.en-de.all.xml"), src, [("A", ref_a), ("B", ref_b)])
    wmt_xml(os.path.join(xml, "wmttest2022.cs-en.all.xml"), src, [("B", ref_b), ("C", ref_a)])
    env = dict(os.environ, SACREBLEU="cache")
    for lp in ["en-de", "cs-en"]:
        subprocess.run(["sacrebleu", "-t", "wmt22", "-l", lp, "--echo", "src"], cwd=here, env=env,
                       check=True, stdout=subprocess.DEVNULL)
    remove_locks(cache)
    tworefs = os.path.join(cache, "wmt20", "tworefs")
    os.makedirs(tworefs)
    for field, content in [("src", src), ("ref-0", ref_a), ("ref-1", ref_b), ("docid", ["doc1"] * 40),
                           ("genre", ["news"] * 40), ("origlang", ["en"] * 40)]:
        with open(os.path.join(tworefs, f"wmt20_tworefs.en-de.{field}"), "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in content))
    with open(os.path.join(here, "sysAA.txt"), "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in lines(here, "sysA.txt") * 2))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    make_cache(here)
    for feature, argv, stdin, env in CASES:
        e = dict(os.environ, NO_COLOR="1", COLUMNS="80")
        e.pop("SACREBLEU_SEED", None)
        e.pop("SACREBLEU_FORMAT", None)
        e.update(env)
        with open(os.path.join(here, stdin), "rb") if stdin else open(os.devnull, "rb") as f:
            r = subprocess.run(["sacrebleu"] + argv, cwd=here, stdin=f, capture_output=True, env=e)
        out = r.stdout.decode()
        err = r.stderr.decode()
        rec = {"feature": feature, "argv": argv, "stdin": stdin, "env": env,
               "status": r.returncode, "stdout": out,
               # Python tracebacks are not reproduced; usage errors and log lines are.
               "stderr": err if "Traceback" not in err else None}
        print(json.dumps(rec, ensure_ascii=False))
    remove_locks(os.path.join(here, "cache"))


if __name__ == "__main__":
    main()
