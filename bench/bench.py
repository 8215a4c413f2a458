#!/usr/bin/env python3
"""Helper for bench/run.sh (standard library only; run with any python3 >= 3.8).

Subcommands:
  measure -o FILE -- CMD...     fallback for GNU time: run CMD (stdin/stdout/stderr
                                inherited), write "WALL_SECONDS MAXRSS_KB USER_S SYS_S" to FILE,
                                exit with CMD's status.  Peak RSS and CPU times come from
                                getrusage(RUSAGE_CHILDREN).
  compare-corpus REF OUT        the corpus score strings must be identical.
  compare-sentence REF OUT      row-by-row, after rounding both to 1 decimal.
  compare-chrf REF OUT          like compare-corpus (corpus chrF score strings).
  compare-ter REF OUT           like compare-corpus (corpus TER score strings).
  sgm HYP REF DIR               mteval-v13a.pl input: DIR/{src,ref,tst}.sgm wrapping the lines
                                verbatim, one document (the source set is a copy of HYP).
  table RUNS_TSV BASELINE [T1 FLOOR]
                                aggregate the per-run measurements (best wall, best CPU, max
                                RSS) and print the results table with ratios against tool
                                BASELINE, then the per-case summary: reference tool / BASELINE
                                (wall and CPU), 1 -> 2 thread scaling (wall of tool T1 / wall
                                of BASELINE, and CPU of T1 / wall of BASELINE) and CPU of T1 /
                                CPU of tool FLOOR (wc -w).

compare-* print one line "OK ..." / "MISMATCH ..." and exit 1 on a mismatch.
"""

import argparse
import os
import resource
import subprocess
import sys
import time


def cmd_measure(args):
    cmd = args.cmd[1:] if args.cmd and args.cmd[0] == "--" else args.cmd
    if not cmd:
        sys.exit("bench.py measure: no command given")
    t0 = time.perf_counter()
    try:
        status = subprocess.call(cmd)
    except OSError as e:
        sys.exit(f"bench.py measure: cannot run {cmd[0]}: {e}")
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_kb = usage.ru_maxrss  # KiB on Linux
    with open(args.o, "w") as f:
        f.write(f"{wall:.6f} {peak_kb} {usage.ru_utime:.3f} {usage.ru_stime:.3f}\n")
    sys.exit(status if status >= 0 else 128 - status)


def read_lines(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def cmd_compare_corpus(args):
    ref = [line.strip() for line in read_lines(args.ref) if line.strip()]
    out = [line.strip() for line in read_lines(args.out) if line.strip()]
    if ref == out:
        print(f"OK corpus score {' '.join(out)} (identical)")
        return
    print(f"MISMATCH corpus score: {args.ref} says {ref!r}, {args.out} says {out!r}")
    sys.exit(1)


def round1(field):
    """Parse a printed score and round it to 1 decimal; None if it is not a number."""
    try:
        return round(float(field), 1)
    except ValueError:
        return None


def cmd_compare_sentence(args):
    ref = read_lines(args.ref)
    out = read_lines(args.out)
    bad = []
    for i, (a, b) in enumerate(zip(ref, out), start=1):
        ra, rb = round1(a.strip()), round1(b.split("\t")[0].strip())
        if ra is None or rb is None or ra != rb:
            bad.append((i, a, b))
    extra = abs(len(ref) - len(out))
    if not bad and not extra:
        print(f"OK sentence scores: {len(ref)} rows, 0 mismatching")
        return
    print(
        f"MISMATCH sentence scores: {len(bad)} of {min(len(ref), len(out))} rows differ"
        + (f"; row counts differ ({len(ref)} vs {len(out)})" if extra else "")
    )
    for i, a, b in bad[:5]:
        print(f"    line {i}: {os.path.basename(args.ref)} {a!r} vs {os.path.basename(args.out)} {b!r}")
    sys.exit(1)


# Segments per <doc> of the SGML: WMT test sets have documents of tens of segments. mteval-v13a
# reads a document by matching `<seg …>(.*?)</seg>(.*)` and keeping the rest, a copy of the
# rest of the document per segment: quadratic in a document's size. The bench corpus as one
# document of 126,836 segments kept it busy for over 40 minutes before it scored anything,
# which measures that quirk, not NIST. The system NIST does not depend on the split.
SGM_DOC_SEGMENTS = 100


def write_sgm(path, tag, trglang, sets, setid="bench"):
    """Writes an mteval SGML file: one `<TAGset>` per (attributes, sysid, lines) of `sets` (a
    reference file has one per reference), its lines verbatim, in documents of
    SGM_DOC_SEGMENTS segments. Also used by mteval_diff.py."""
    with open(path, "w", encoding="utf-8") as f:
        for attrs, sysid, lines in sets:
            f.write(f'<{tag}set setid="{setid}" srclang="any" trglang="{trglang}"{attrs}>\n')
            for start in range(0, len(lines), SGM_DOC_SEGMENTS):
                f.write(f'<doc docid="d{start // SGM_DOC_SEGMENTS + 1}" sysid="{sysid}">\n')
                for i, line in enumerate(lines[start : start + SGM_DOC_SEGMENTS], start=1):
                    f.write(f'<seg id="{i}">{line}</seg>\n')
                f.write("</doc>\n")
            f.write(f"</{tag}set>\n")


def cmd_sgm(args):
    """SGML for mteval-v13a.pl: one <seg> per line, verbatim (as the vectors' txt2sgm.py), in
    documents of SGM_DOC_SEGMENTS segments."""
    hyp = read_lines(args.hyp)
    ref = read_lines(args.ref)
    if len(hyp) != len(ref):
        sys.exit(f"bench.py sgm: {len(hyp)} hypothesis lines but {len(ref)} reference lines")
    for tag, sets in (
        ("src", [("", "src", hyp)]),
        ("ref", [(' refid="ref"', "ref", ref)]),
        ("tst", [(' sysid="sys"', "sys", hyp)]),
    ):
        write_sgm(os.path.join(args.dir, f"{tag}.sgm"), tag, "en", sets)


def cmd_table(args):
    # runs.tsv: case, tool, run, wall_s, rss_kb, cpu_s
    best = {}  # (case, tool) -> [min wall, max rss, runs, min cpu]
    order = []
    with open(args.runs) as f:
        for line in f:
            case, tool, _run, wall, rss, cpu = line.rstrip("\n").split("\t")
            key = (case, tool)
            if key not in best:
                best[key] = [float(wall), int(rss), 0, float(cpu)]
                order.append(key)
            b = best[key]
            b[0] = min(b[0], float(wall))
            b[1] = max(b[1], int(rss))
            b[2] += 1
            b[3] = min(b[3], float(cpu))
    header = ("case", "tool", "runs", "wall s", "cpu s", "peak MiB", "wall / bl-s", "cpu / bl-s", "RSS / bl-s")
    rows = []
    for case, tool in order:
        wall, rss, n, cpu = best[(case, tool)]
        base = best.get((case, args.baseline))
        if base and base[0] > 0:
            speed = f"{wall / base[0]:.2f}x"
            cspeed = f"{cpu / base[3]:.2f}x" if base[3] > 0 else "-"
            mem = f"{rss / base[1]:.2f}x"
        else:
            speed = cspeed = mem = "-"
        rows.append((case, tool, str(n), f"{wall:.3f}", f"{cpu:.2f}", f"{rss / 1024:.1f}", speed, cspeed, mem))
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    left = {0, 1}

    def fmt(r):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))

    print(fmt(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(fmt(r))
    print(
        f"(wall = best of the runs, cpu = user + sys, best of the runs, peak = max RSS of the runs; "
        f"the ratio columns divide each row by '{args.baseline}' in the same case, so a reference "
        f"tool's ratio is how many times faster bleu-stream is)"
    )
    # Summary per case.
    print()
    print("== summary per case (x = times faster than the reference tool)")
    cases = []
    for case, _tool in order:
        if case not in cases:
            cases.append(case)
    for case in cases:
        base = best.get((case, args.baseline))
        if not base:
            continue
        parts = [f"bleu-stream {base[0]:.3f} s wall, {base[3]:.2f} s cpu, {base[1] / 1024:.1f} MiB"]
        for (c, tool), b in best.items():
            if c != case or tool in (args.baseline, args.t1, args.floor):
                continue
            w = f"{b[0] / base[0]:.0f}x wall" if base[0] > 0 else "- wall"
            cp = f"{b[3] / base[3]:.0f}x cpu" if base[3] > 0 else "- cpu"
            parts.append(f"vs {tool}: {w}, {cp}")
        t1 = best.get((case, args.t1)) if args.t1 else None
        if t1 and base[0] > 0:
            # Two readings of "1 -> 2 thread scaling": wall of --threads 1 / wall of the default
            # (stricter: --threads 1 still overlaps reading and merging with its one worker), and
            # CPU of --threads 1 / wall of the default, issue 21's own measure ("0.20 s of CPU on
            # one thread and 0.113 s wall on two (1.77x scaling)").
            parts.append(
                f"1->2 threads {t1[0] / base[0]:.2f}x wall/wall, {t1[3] / base[0]:.2f}x t1 cpu/wall "
                f"(t1 {t1[0]:.3f} s wall, {t1[3]:.3f} s cpu)"
            )
        floor = best.get((case, args.floor)) if args.floor else None
        if t1 and floor and floor[3] > 0:
            parts.append(f"t1 cpu / {args.floor} cpu {t1[3] / floor[3]:.2f}x ({floor[3]:.2f} s)")
        print(f"{case:9s} " + "; ".join(parts))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="sub", required=True)
    m = sub.add_parser("measure")
    m.add_argument("-o", required=True)
    m.add_argument("cmd", nargs=argparse.REMAINDER)
    for name in ("compare-corpus", "compare-sentence", "compare-chrf", "compare-ter", "compare-chrfpp", "compare-chrfrows"):
        c = sub.add_parser(name)
        c.add_argument("ref")
        c.add_argument("out")
    g = sub.add_parser("sgm")
    g.add_argument("hyp")
    g.add_argument("ref")
    g.add_argument("dir")
    t = sub.add_parser("table")
    t.add_argument("runs")
    t.add_argument("baseline")
    t.add_argument("t1", nargs="?", default="")
    t.add_argument("floor", nargs="?", default="")
    args = p.parse_args()
    {
        "measure": cmd_measure,
        "compare-corpus": cmd_compare_corpus,
        "compare-sentence": cmd_compare_sentence,
        "compare-chrf": cmd_compare_corpus,
        "compare-ter": cmd_compare_corpus,
        "compare-chrfpp": cmd_compare_corpus,
        "compare-chrfrows": cmd_compare_sentence,
        "sgm": cmd_sgm,
        "table": cmd_table,
    }[args.sub](args)


if __name__ == "__main__":
    main()
