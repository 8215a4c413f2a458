#!/usr/bin/env python3
"""Reference side of the model-tokenizer differential tests (tests/tokenizer_models.rs).

Makes seeded random lines — real lines from the WMT22 en-ja data when a data directory is given,
plus generated mixed-script strings (Japanese, Latin, Cyrillic, Arabic, Devanagari, CJK, digits,
full-width forms, emoji, combining marks, odd spaces) — and prints, one JSON object per line:

    {"line": s, "tokens": BLEU's tokens of s, "tokens_lc": the same with lowercase=True}

then one final object {"corpus": {"hyps": [...], "refs": [...], "score_hex": ..., "signature": ...}}
with sacreBLEU's corpus BLEU of the lines paired (hyp = line 2i, ref = line 2i+1).

Tokens are what sacreBLEU 2.6.0's BLEU uses: `tokenizer(line.rstrip()).split()` (after `lower()`
for tokens_lc). For the SentencePiece tokenizers the model comes from $SACREBLEU/models, as in
sacreBLEU; `--spm-direct FILE` instead writes {"line": s, "joined": " ".join(EncodeAsPieces(s))}
from `sentencepiece` itself on the raw line (no rstrip, no split), and no corpus record.

usage: tokenizers.py --tokenizer NAME --seed N --cases N [--wmt22 DIR] [--spm-direct FILE]
       tokenizers.py --check NAME   (exit 0 iff the packages that NAME needs are importable)
"""

import argparse
import json
import os
import random
import sys

SCRIPTS = [
    "日本語の文章を形態素解析します。東京都に住んでいる山田さんは、１２月３日に来ました",
    "カタカナﾊﾝｶｸｶﾀｶﾅひらがな漢字〜－‖£¢¬・「」『』（）【】、。！？",
    "The quick brown fox jumps over the lazy dog 1,234.56 e-mail U.S.A. don't",
    "Привет мир ёжик Ёлка", "مرحبا بالعالم", "नमस्ते दुनिया", "你好世界，我爱北京天安门",
    "안녕하세요 세계", "ΑΒΓ αβγ", "０１２３４５６７８９ＡＢＣａｂｃ", "①②③ⅠⅡⅢ㍻㌔",
    "😀👍🏽🇯🇵‍❤️", "e\u0301 n\u0303", " ", "  ", "\t", "\u3000", "\u00a0", "\u200b",
    "\u2028", "\ufeff", "x", "1", "2024", ".", ",", "!", "-", "'", "\"",
]


def random_line(rng):
    n = rng.randint(0, 12)
    parts = []
    for _ in range(n):
        s = rng.choice(SCRIPTS)
        if len(s) > 2 and rng.random() < 0.7:
            a = rng.randrange(len(s))
            b = rng.randint(a + 1, min(len(s), a + 12))
            s = s[a:b]
        parts.append(s)
    return "".join(parts)


def wmt22_lines(directory, rng, count):
    names = sorted(
        n for n in os.listdir(directory) if ".en-ja." in n or ".ja-en." in n
    )
    lines = []
    for n in names:
        with open(os.path.join(directory, n), encoding="utf-8") as f:
            lines.extend(f.read().split("\n"))
    lines = [l for l in lines if l]
    return rng.sample(lines, min(count, len(lines)))


def make_tokenizer(name):
    if name == "ja-mecab":
        from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab

        return TokenizerJaMecab()
    from sacrebleu.tokenizers.tokenizer_spm import TokenizerSPM

    return TokenizerSPM(name)


def check(name):
    try:
        import sacrebleu

        if sacrebleu.__version__ != "2.6.0":
            print(f"need sacrebleu 2.6.0, found {sacrebleu.__version__}", file=sys.stderr)
            return 1
        if name == "ja-mecab":
            import MeCab  # noqa: F401
            import ipadic  # noqa: F401
        else:
            import sentencepiece  # noqa: F401
    except ImportError as e:
        print(f"missing Python package: {e.name}", file=sys.stderr)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check")
    ap.add_argument("--tokenizer")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--wmt22")
    ap.add_argument("--spm-direct")
    args = ap.parse_args()
    if args.check:
        return check(args.check)
    rng = random.Random(args.seed)
    lines = []
    if args.wmt22:
        lines += wmt22_lines(args.wmt22, rng, args.cases // 2)
    while len(lines) < args.cases:
        lines.append(random_line(rng))
    if args.spm_direct:
        import sentencepiece

        sp = sentencepiece.SentencePieceProcessor()
        sp.Load(args.spm_direct)
        tok = lambda s: " ".join(sp.EncodeAsPieces(s))  # noqa: E731
    else:
        tok = make_tokenizer(args.tokenizer)
    out = sys.stdout
    if args.spm_direct:
        for line in lines:
            rec = {"line": line, "joined": tok(line)}
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        return 0
    for line in lines:
        rec = {
            "line": line,
            "tokens": tok(line.rstrip()).split(),
            "tokens_lc": tok(line.lower().rstrip()).split(),
        }
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    if True:
        from sacrebleu.metrics import BLEU

        # Lines without a tab or newline make a TSV for the binary.
        clean = [l for l in lines if "\t" not in l and "\n" not in l and "\r" not in l]
        hyps, refs = clean[0::2], clean[1::2]
        hyps = hyps[: len(refs)]
        bleu = BLEU(tokenize=args.tokenizer)
        score = bleu.corpus_score(hyps, [refs])
        corpus = {
            "hyps": hyps,
            "refs": refs,
            "score_hex": float.hex(score.score),
            "signature": str(bleu.get_signature()),
        }
        out.write(json.dumps({"corpus": corpus}, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
