#!/usr/bin/env python3
"""bench driver: an NLTK 3.10.4 corpus metric on hyp.txt / ref.txt (one segment per line).

Metrics and the bleu-stream command printing the same string:
  bleu   corpus_bleu on str.split() tokens    bleu-stream -m nltk-bleu -w 17 -b
  gleu   corpus_gleu on str.split() tokens    bleu-stream -m gleu -w 17 -b
  chrf   corpus_chrf on the raw lines         bleu-stream -m nltk-chrf -w 17 -b
  nist   corpus_nist on str.split() tokens    bleu-stream -m nist --nist-compat nltk
                                                --nist-tokenize none -w 17 -b
The score is printed with 17 decimals.

Usage: nltk_corpus.py METRIC HYP REF
"""
import sys


def read(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    metric, hyp_path, ref_path = sys.argv[1:]
    hyps, refs = read(hyp_path), read(ref_path)
    if metric == "bleu":
        from nltk.translate.bleu_score import corpus_bleu

        score = corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps])
    elif metric == "gleu":
        from nltk.translate.gleu_score import corpus_gleu

        score = corpus_gleu([[r.split()] for r in refs], [h.split() for h in hyps])
    elif metric == "chrf":
        from nltk.translate.chrf_score import corpus_chrf

        score = corpus_chrf(refs, hyps)
    elif metric == "nist":
        from nltk.translate.nist_score import corpus_nist

        score = corpus_nist([[r.split()] for r in refs], [h.split() for h in hyps])
    else:
        sys.exit(f"nltk_corpus.py: unknown metric {metric!r}\n{__doc__}")
    print(f"{score:.17f}")


if __name__ == "__main__":
    main()
