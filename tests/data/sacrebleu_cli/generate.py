#!/usr/bin/env python3
"""Regenerates cases.jsonl: what the real `sacrebleu` 2.6.0 prints for the command lines below,
run in this folder with NO_COLOR=1 (the inputs are the first 40 lines of WMT22 en-de references
A/B and systems Online-A/Online-B/JDExploreAcademy, 30 lines of en-zh). tests/sacrebleu_cli.rs
replays them against `bleu-stream sacrebleu`. Usage: python3 generate.py > cases.jsonl
"""
import json
import os
import subprocess

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
    ("errors", ["refA.txt", "-i", "sysA.txt", "sysB.txt", "--confidence"], None, {}),
    ("errors", ["refA.txt", "-i", "sysA.txt", "--paired-bs"], None, {}),
    ("errors", ["refA.txt", "-i", "sysA.txt", "sysA.txt"], None, {}),
    ("errors", ["refA.txt", "refB.txt", "-nr", "2"], "sysA.txt", {}),
    ("errors", ["refA.txt", "-i", "-f", "text"], None, {}),
    ("errors", ["refA.txt", "-i"], None, {}),
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
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
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


if __name__ == "__main__":
    main()
