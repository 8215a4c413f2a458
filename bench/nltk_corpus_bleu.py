#!/usr/bin/env python3
"""bench driver: NLTK 3.10.4 corpus_bleu on hyp.txt / ref.txt (one segment per line).

Tokens are Python str.split() of each line, which is what `bleu-stream -m nltk-bleu` does by
default; the score is printed like `bleu-stream -m nltk-bleu -b -w 17` prints it.

Usage: nltk_corpus_bleu.py HYP REF [REF...]
"""
import sys

from nltk.translate.bleu_score import corpus_bleu


def read(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    hyps = [line.split() for line in read(sys.argv[1])]
    refs = [read(p) for p in sys.argv[2:]]
    list_of_references = [[r[i].split() for r in refs] for i in range(len(hyps))]
    print(f"{corpus_bleu(list_of_references, hyps):.17f}")


if __name__ == "__main__":
    main()
