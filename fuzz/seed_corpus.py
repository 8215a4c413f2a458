#!/usr/bin/env python3
"""Writes the committed seed corpus fuzz/corpus/<target>/ from ../shared/vectors.

The seeds are the texts of the conformance vectors (sacreBLEU tokenizer, BLEU and chrF edge
cases, NLTK GLEU cases, mteval crafted cases), wrapped in each target's input layout (see the
doc comment at the top of each fuzz_targets/*.rs). Deterministic: the same vectors give the
same files (named by SHA-1, as libFuzzer names its own). Run once; rerun only to refresh.

usage: fuzz/seed_corpus.py [SHARED_DIR]   (default: ../shared next to the repository)
"""

import hashlib
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared")
VECTORS = os.path.join(SHARED, "vectors")
PER_TARGET = 80
MAX_SEED = 4096

rng = random.Random(6)


def records(rel):
    path = os.path.join(VECTORS, rel)
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def texts():
    """Distinct short texts from the vectors, handcrafted ones first."""
    seen, out = set(), []

    def add(t):
        if isinstance(t, str) and t not in seen and len(t.encode()) < 1500:
            seen.add(t)
            out.append(t)

    for name in ("13a", "intl", "zh", "char", "none"):
        for r in records(f"sacrebleu/tokenizers/tok_{name}.jsonl"):
            if r.get("source") == "handcrafted":
                add(r["input"])
    for r in records("mteval/tokenizer_mteval13a.jsonl"):
        for k, v in r.items():
            if not k.endswith("_tokens") and k not in ("file", "id"):
                add(v)
    return out


def segments():
    """(hyp, [refs]) pairs from the BLEU, chrF, NLTK and mteval vectors."""
    out = []
    for rel in ("sacrebleu/bleu/sentence_bleu_edge.jsonl", "sacrebleu/chrf/chrf_edge.jsonl"):
        for r in records(rel):
            for i, h in enumerate(r["hyps"]):
                out.append((h, [stream[i] for stream in r["refs"] if stream[i] is not None]))
    for r in records("nltk/corpus_gleu.jsonl"):
        hyps, refs = r.get("hypotheses"), r.get("references")
        if isinstance(hyps, list) and isinstance(refs, list):
            for h, rs in zip(hyps, refs):
                if isinstance(h, list) and all(isinstance(x, list) for x in rs):
                    out.append((" ".join(map(str, h)), [" ".join(map(str, x)) for x in rs]))
    for r in records("mteval/mteval_crafted.jsonl"):
        hyp_sets = list(r.get("hyp", {}).values())
        ref_sets = list(r.get("refs", {}).values())
        if hyp_sets and ref_sets:
            for i, h in enumerate(hyp_sets[0]):
                rs = [s[i] for s in ref_sets if i < len(s)]
                if rs:
                    out.append((h, rs))
    return [s for s in out if all(isinstance(x, str) for x in [s[0], *s[1]]) and s[1]]


def write(target, seeds):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for old in os.listdir(d):
        # Hand-added regression inputs (regression-*) stay.
        if not old.startswith("regression-"):
            os.remove(os.path.join(d, old))
    kept = 0
    for s in seeds:
        s = s[:MAX_SEED]
        with open(os.path.join(d, hashlib.sha1(s).hexdigest()), "wb") as f:
            f.write(s)
        kept += 1
    print(f"{target}: {kept} seeds")


def main():
    ts = texts()
    segs = segments()
    rng.shuffle(segs)
    segs = segs[:400]

    # tokenize: flag byte (bit 0: lowercase), then the text.
    tok = [bytes([i % 2]) + t.encode() for i, t in enumerate(ts[: PER_TARGET * 2])]
    write("tokenize", rng.sample(tok, min(PER_TARGET, len(tok))))

    # frame: selector byte (bit 0: lossy; bits 1-2: N-1; bits 3+: framing), then the line.
    frame = []
    for i, (h, rs) in enumerate(segs[:PER_TARGET]):
        n = min(len(rs), 4)
        kind = i % 7
        sel = (kind << 3) | ((n - 1) << 1) | (i // 7 % 2)
        if kind <= 3:
            line = "\t".join([h, *rs[:n]])
        elif kind <= 5:
            line = json.dumps({"hyp": h, "refs": rs[:n], "id": i}, ensure_ascii=i % 2 == 0)
        else:
            line = "\n".join([h, *rs[:n]])
        frame.append(bytes([sel]) + line.encode())
    write("frame", frame)

    # reader: line limit, two chunk sizes, then a stream of TSV lines (LF or CRLF).
    reader = []
    for i in range(PER_TARGET // 2):
        chunk = segs[i * 5 : i * 5 + 5]
        end = "\r\n" if i % 3 == 0 else "\n"
        stream = end.join("\t".join([h, *rs]) for h, rs in chunk) + (end if i % 2 else "")
        reader.append(bytes([rng.randrange(256) for _ in range(3)]) + stream.encode())
    write("reader", reader)

    # metrics: eight option bytes, then segments (fields by TAB, lines by LF).
    metrics = []
    for i in range(PER_TARGET):
        chunk = segs[100 + i * 3 : 100 + i * 3 + 3]
        body = "\n".join("\t".join([h, *rs]) for h, rs in chunk)
        metrics.append(bytes([rng.randrange(256) for _ in range(8)]) + body.encode())
    write("metrics", metrics)

    # ter: flag byte (bits: normalized, no_punct, asian_support, case_sensitive), then the
    # hypothesis and its references by TAB, from the TER sentence vectors.
    ter = []
    for r in records("sacrebleu/ter/ter_sentence.jsonl"):
        p = r["params"]
        flags = sum(bit for key, bit in (("normalized", 1), ("no_punct", 2),
                                         ("asian_support", 4), ("case_sensitive", 8)) if p.get(key))
        for i, h in enumerate(r["hyps"]):
            refs = [stream[i] for stream in r["refs"] if stream[i] is not None]
            ter.append(bytes([flags]) + "\t".join([h, *refs]).encode())
    write("ter", rng.sample(ter, min(PER_TARGET, len(ter))))


if __name__ == "__main__":
    main()
