#!/usr/bin/env python3
"""Regenerates the small SentencePiece models the spm tests use (tests/tokenizer_models.rs) and
their expected pieces, with the `sentencepiece` PyPI package (pip install sentencepiece):

    python3 tests/data/spm/gen.py

Training text is generated here (seeded mixed-script sentences), so nothing outside the
repository is needed. Models (kept small: a tiny vocabulary; only the nmt_nfkc one carries the
~240 KB precompiled charsmap):

  unigram_nfkc_bf.model  unigram, nmt_nfkc, byte fallback, digits split
  unigram_plain.model    unigram, identity normalisation, no byte fallback, whitespace as suffix,
                         extra whitespace kept, a user-defined symbol
  bpe_plain.model        BPE, identity normalisation, no byte fallback, a user-defined symbol
  bpe_bf.model           BPE, identity normalisation, byte fallback, no dummy prefix

expected.jsonl: {"model", "line", "pieces"} for seeded random lines (EncodeAsPieces), so that the
tests check the Rust encoder even where Python is absent.
"""
import json
import os
import random
import sys

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "differential"))
from tokenizers import random_line  # noqa: E402

WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which "
    "but have an they you were her she there been one all we their has would when if so no will "
    "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an "
    "日本 語 東京 大阪 学校 先生 学生 今日 明日 昨日 天気 時間 会社 仕事 電車 新聞 銀行 病院 "
    "это как так и в над к до не на но за то с ли а во от со для о же ну вы бы что кто он она "
    "١٢٣ مرحبا كتاب नमस्ते किताब 你好 世界 北京 天安门 안녕 세계 ÀÉÎÕÜ ﬁ ｱｲｳ ＡＢＣ ①② ㍻ 2024 3.14 1,000"
).split()


def corpus(rng, n):
    out = []
    for _ in range(n):
        k = rng.randint(3, 15)
        out.append(" ".join(rng.choice(WORDS) for _ in range(k)) + rng.choice([".", "!", "?", ""]))
    return out


MODELS = {
    "unigram_nfkc_bf": dict(model_type="unigram", vocab_size=400, byte_fallback=True,
                            normalization_rule_name="nmt_nfkc", split_digits=True),
    "unigram_plain": dict(model_type="unigram", vocab_size=300, normalization_rule_name="identity",
                          treat_whitespace_as_suffix=True, remove_extra_whitespaces=False,
                          user_defined_symbols=["<sep>"]),
    "bpe_plain": dict(model_type="bpe", vocab_size=300, normalization_rule_name="identity",
                      user_defined_symbols=["@@"]),
    "bpe_bf": dict(model_type="bpe", vocab_size=500, byte_fallback=True,
                   normalization_rule_name="identity", add_dummy_prefix=False),
}


def main():
    rng = random.Random(17)
    train = os.path.join(HERE, "train.tmp")
    with open(train, "w", encoding="utf-8") as f:
        f.write("\n".join(corpus(rng, 3000)) + "\n")
    try:
        for name, opts in MODELS.items():
            spm.SentencePieceTrainer.train(
                input=train, model_prefix=os.path.join(HERE, name), character_coverage=0.995,
                num_threads=1, minloglevel=2, **opts)
            os.remove(os.path.join(HERE, name + ".vocab"))
    finally:
        os.remove(train)
    lines = [random_line(rng) for _ in range(60)] + corpus(rng, 30)
    lines += ["", " ", "  a  b  ", "<sep>x<sep>", "a@@b", "\u00a0x\u3000y", "ＡＢＣ①"]
    with open(os.path.join(HERE, "expected.jsonl"), "w", encoding="utf-8") as out:
        for name in MODELS:
            sp = spm.SentencePieceProcessor()
            sp.Load(os.path.join(HERE, name + ".model"))
            for line in lines:
                rec = {"model": name, "line": line, "pieces": sp.EncodeAsPieces(line)}
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
