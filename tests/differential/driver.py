#!/usr/bin/env python3
"""Reference side of the differential test (tests/differential.rs).

Generates random cases from a seed and scores them with the real tools — sacreBLEU 2.6.0 (BLEU,
chrF, chrF++, TER with random options) and NLTK 3.10.4 (sentence_bleu/corpus_bleu; sentence_chrf/corpus_chrf,
sentence_gleu/corpus_gleu and sentence_nist/corpus_nist) — and prints one JSON object per case on
stdout:

    {"id": "...", "args": [bleu-stream options], "segments": [{"hyp": s, "refs": [s|null, ...]}],
     "sentence": [{metric key: {field: value}}, ...], "corpus": {metric key: {field: value}}}

Field names are bleu-stream's JSONL names, so the Rust side compares field by field, bit for bit
(Python's json writes floats as repr(), which round-trips exactly). A non-finite float is written
as the string "nan"/"inf"/"-inf"; a tool that raises gives {"error": "<exception type>"}.

(pip install sacrebleu==2.6.0 nltk==3.10.4 regex==2026.11.15)

Case kinds, in turn: two sacreBLEU cases (`sacrebleu-…`), one NLTK BLEU case (`nltk-bleu-…`) and
one NLTK chrF + GLEU + NIST case (`nltk-cgn-…`, metrics `nltk-chrf`, `gleu` and `nist` with
`--nist-compat nltk --nist-tokenize none`). NLTK's chrF and NIST sum floats with the built-in
`sum()`, which CPython 3.12 made compensated; bleu-stream follows CPython 3.11 (what the NLTK
vectors were made with), so on 3.12 or later the chrF and NIST fields are left out (GLEU is a
ratio of two integers and compared on any version).

usage: driver.py --seed N --cases N [--nltk] [--budget SECONDS]
       driver.py --check     (exit 0 iff the pinned versions are importable)
"""

import argparse
import json
import math
import random
import sys
import time
import warnings

SACREBLEU_VERSION = "2.6.0"
NLTK_VERSION = "3.10.4"
# sacreBLEU's intl tokenizer takes its Unicode classes from the `regex` module, whose Unicode
# data changes between releases: this is the version the conformance vectors (and bleu-stream's
# tables) were made with. An older one splits newly assigned symbols differently.
REGEX_VERSION = "2026.11.15"


def check():
    try:
        import nltk
        import regex
        import sacrebleu
    except ImportError as e:
        print(f"missing Python package: {e.name}", file=sys.stderr)
        return 1
    found = (sacrebleu.__version__, nltk.__version__, regex.__version__)
    if found != (SACREBLEU_VERSION, NLTK_VERSION, REGEX_VERSION):
        print(
            f"need sacrebleu {SACREBLEU_VERSION}, nltk {NLTK_VERSION} and regex {REGEX_VERSION}, "
            f"found {', '.join(found)}",
            file=sys.stderr,
        )
        return 1
    return 0


# --------------------------------------------------------------------------------------------
# Random text
# --------------------------------------------------------------------------------------------

WORDS = ["the", "cat", "sat", "on", "a", "mat", "dog", "barked", "It", "is", "was", "not",
         "Hello", "world", "don't", "it's", "state-of-the-art", "U.S.", "e.g.", "Mr.", "New",
         "York", "THE", "Cat", "über", "Straße", "naïve", "café", "İstanbul", "ΣΟΦΙΑ", "σοφία",
         "Москва", "привет", "مرحبا", "שלום", "नमस्ते", "ไทย"]
PUNCT = [".", ",", "!", "?", ";", ":", "-", "--", "—", "–", "(", ")", "[", "]", "\"", "'",
         "“", "”", "‘", "’", "«", "»", "…", "/", "\\", "%", "$", "€", "£", "@", "#", "&", "*",
         "+", "=", "<", ">", "|", "~", "^", "_", "`", "¿", "¡", "§", "°", "·", "•"]
NUMBERS = ["1", "42", "2019", "3.14", "1,000", "1,000.5", "10 000", "1.000,5", "5-6", "10%",
           "$5", "½", "²", "٣", "١٢٣", "1e6", "0.5", "-7", "+3", "12:30", "2019-05-01"]
ENTITIES = ["&amp;", "&quot;", "&lt;", "&gt;", "&apos;", "&#39;", "&amp;lt;", "&amp;quot;",
            "&nbsp;", "<skipped>", "&QUOT;", "&AMP;"]
CJK = ["中", "文", "字", "符", "日本", "語", "東京", "漢字", "한국어", "서울", "ひらがな", "カタカナ",
       "、", "。", "「", "」", "（", "）", "！", "？", "．", "，", "〜", "㈱", "①", "ｱ", "ＡＢＣ", "１２３"]
COMBINING = ["e\u0301", "a\u0308", "n\u0303", "o\u0302\u0323", "\u0301", "i\u0307", "ﬁ", "ß",
             "Ǆ", "ǅ", "ᾼ", "\u0345"]
EMOJI = ["🙂", "👍", "👍🏽", "👩\u200d👩\u200d👧", "🇩🇪", "❤️", "🎉", "\u200b", "\u2060", "\ufeff",
         "\u00ad"]
SPACES = [" ", " ", " ", "  ", "\u00a0", "\u2009", "\u3000", "\t", "\u2028", "\x1c", "\x1f",
          "\x85", "\x0b", "\x0c", "\r"]
POOLS = [(WORDS, 10), (PUNCT, 4), (NUMBERS, 3), (ENTITIES, 1), (CJK, 3), (COMBINING, 1),
         (EMOJI, 1)]


def random_char(rng):
    """Any code point (no surrogates, no newline: JSON carries it but keep lines readable)."""
    while True:
        cp = rng.choice([rng.randrange(0x20, 0x80), rng.randrange(0xA0, 0x3000),
                         rng.randrange(0x3000, 0xFFFF), rng.randrange(0x10000, 0x1FAFF)])
        if not 0xD800 <= cp < 0xE000:
            return chr(cp)


def token(rng):
    if rng.random() < 0.05:
        return "".join(random_char(rng) for _ in range(rng.randint(1, 4)))
    pool = rng.choices([p for p, _ in POOLS], weights=[w for _, w in POOLS])[0]
    t = rng.choice(pool)
    if pool is WORDS and rng.random() < 0.25:
        t += rng.choice(PUNCT)  # glued punctuation
    return t


ASCII_SPACES = [s for s in SPACES if s.isascii()]


def ascii_token(rng):
    while True:
        t = token(rng)
        if t.isascii():
            return t


def sentence(rng, vocab):
    r = rng.random()
    if r < 0.06:
        return ""
    if r < 0.09:
        return rng.choice(SPACES) * rng.randint(1, 3)
    # A third of the lines are all ASCII (with ASCII white space and separators only): chrF
    # numbers the characters of such a side another way (src/ngram/chars.rs,
    # Alphabet::ascii_ids), and mixed lines are rarely all ASCII.
    ascii = rng.random() < 0.33
    pick, spaces = (ascii_token, ASCII_SPACES) if ascii else (token, SPACES)
    words = [w for w in vocab if w.isascii()] if ascii else vocab
    n = rng.randint(1, 25)
    out = []
    for i in range(n):
        out.append(rng.choice(words) if words and rng.random() < 0.5 else pick(rng))
        out.append(rng.choice(spaces) if rng.random() < 0.1 else " ")
    if rng.random() < 0.7:
        out.pop()  # no trailing space, mostly
    return "".join(out)


def case_segments(rng):
    nrefs = rng.choice([1, 1, 1, 2, 2, 3, 4])
    nulls = nrefs > 1 and rng.random() < 0.2
    segs = []
    for _ in range(rng.randint(1, 20)):
        # Shared vocabulary, so that hypotheses and references overlap (higher orders match).
        vocab = [token(rng) for _ in range(rng.randint(2, 12))]
        hyp = sentence(rng, vocab)
        refs = [sentence(rng, vocab) for _ in range(nrefs)]
        if rng.random() < 0.15:
            refs[0] = hyp  # an exact match now and then
        if nulls:
            for i in range(nrefs):
                if rng.random() < 0.3:
                    refs[i] = None
            if all(r is None for r in refs):
                refs[rng.randrange(nrefs)] = sentence(rng, vocab)
        if segs and rng.random() < 0.25:
            # An earlier segment's references again, as when several systems are scored
            # against one reference set (NIST counts a line seen twice from its stored ids).
            refs = list(rng.choice(segs)["refs"])
        segs.append({"hyp": hyp, "refs": refs})
    return segs


# --------------------------------------------------------------------------------------------
# Reference scores
# --------------------------------------------------------------------------------------------

def num(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def bleu_fields(s):
    return {
        "score": num(s.score),
        "counts": [num(c) for c in s.counts],
        "totals": [num(t) for t in s.totals],
        "precisions": [num(p) for p in s.precisions],
        "bp": num(s.bp),
        "sys_len": s.sys_len,
        "ref_len": s.ref_len,
    }


def guarded(f):
    try:
        return f()
    except Exception as e:  # the reference tool raising is a result too
        return {"error": type(e).__name__}


def ter_fields(s):
    return {"score": num(s.score), "num_edits": s.num_edits, "ref_length": num(s.ref_length)}


def sacrebleu_case(rng, cid):
    from sacrebleu.metrics import BLEU, CHRF, TER

    segs = case_segments(rng)
    tok = rng.choice(["13a", "13a", "intl", "zh", "char", "none"])
    lc = rng.random() < 0.3
    smooth = rng.choice(["exp", "exp", "floor", "add-k", "none"])
    smooth_value = None
    if smooth in ("floor", "add-k") and rng.random() < 0.5:
        smooth_value = rng.choice([0.01, 0.1, 0.5, 1.0, 2.0])
    order = rng.choice([4, 4, 4, 1, 2, 3, 5, 6])
    char_order = rng.choice([6, 6, 6, 1, 2, 3, 4, 5, 7])
    word_order = rng.choice([0, 0, 2, 1])
    if word_order > 0 and rng.random() < 0.15:
        char_order = 0  # word n-grams only
    beta = rng.choice([2, 2, 1, 3, 0])
    whitespace = rng.random() < 0.2
    eps = rng.random() < 0.2

    ter_kw = dict(normalized=rng.random() < 0.3, no_punct=rng.random() < 0.3,
                  asian_support=rng.random() < 0.3, case_sensitive=rng.random() < 0.3)
    args = ["-m", "bleu,chrf,ter", "--tokenize", tok, "-s", smooth, "--max-ngram-order", str(order),
            "--chrf-char-order", str(char_order), "--chrf-word-order", str(word_order),
            "--chrf-beta", str(beta)]
    if smooth_value is not None:
        args += ["--smooth-value", repr(smooth_value)]
    if lc:
        args.append("-l")
    if whitespace:
        args.append("--chrf-whitespace")
    if eps:
        args.append("--chrf-eps-smoothing")
    for key, flag in [("normalized", "--ter-normalized"), ("no_punct", "--ter-no-punct"),
                      ("asian_support", "--ter-asian-support"),
                      ("case_sensitive", "--ter-case-sensitive")]:
        if ter_kw[key]:
            args.append(flag)

    bleu_kw = dict(tokenize=tok, lowercase=lc, smooth_method=smooth, smooth_value=smooth_value,
                   max_ngram_order=order)
    chrf_kw = dict(char_order=char_order, word_order=word_order, beta=beta, lowercase=lc,
                   whitespace=whitespace, eps_smoothing=eps)
    # The cases go to bleu-stream as JSONL, whose strings it scores as given, as the API does
    # (lines of TSV files are rstrip()ped as the sacreBLEU command line reads them; only chrF
    # with whitespace kept can tell).
    segs_ref = segs
    sent_bleu = BLEU(effective_order=True, **bleu_kw)
    sent_chrf = CHRF(**chrf_kw)
    sent_ter = TER(**ter_kw)
    sentence_rows = []
    for s in segs_ref:
        refs = [r for r in s["refs"] if r is not None]
        sentence_rows.append({
            "bleu": guarded(lambda: bleu_fields(sent_bleu.sentence_score(s["hyp"], refs))),
            "chrf": guarded(lambda: {"score": num(sent_chrf.sentence_score(s["hyp"], refs).score)}),
            "ter": guarded(lambda: ter_fields(sent_ter.sentence_score(s["hyp"], refs))),
        })
    hyps = [s["hyp"] for s in segs_ref]
    streams = [[s["refs"][i] for s in segs_ref] for i in range(len(segs_ref[0]["refs"]))]
    bleu = BLEU(effective_order=False, **bleu_kw)
    chrf = CHRF(**chrf_kw)
    ter = TER(**ter_kw)

    def corpus_ter():
        out = ter_fields(ter.corpus_score(hyps, streams))
        out["signature"] = ter.get_signature().format()
        return out

    def corpus_bleu():
        out = bleu_fields(bleu.corpus_score(hyps, streams))
        out["signature"] = bleu.get_signature().format()
        return out

    def corpus_chrf():
        score = chrf.corpus_score(hyps, streams)
        return {"score": num(score.score), "signature": chrf.get_signature().format()}

    return {"id": cid, "args": args, "segments": segs, "sentence": sentence_rows,
            "corpus": {"bleu": guarded(corpus_bleu), "chrf": guarded(corpus_chrf),
                       "ter": guarded(corpus_ter)}}


def nltk_case(rng, cid):
    from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, sentence_bleu

    segs = case_segments(rng)
    weights = rng.choice([None, None, "0.5,0.5", "1", "0.3333333333333333,0.3333333333333333,"
                          "0.3333333333333333", "0.1,0.2,0.3,0.4", "0.25,0.25,0.25,0.25,0.25"])
    method = rng.choice([None, 0, 1, 2, 3, 4, 5, 6, 7])
    reweigh = rng.random() < 0.2
    args = ["-m", "nltk-bleu"]
    w = (0.25, 0.25, 0.25, 0.25)
    if weights is not None:
        args += ["--weights", weights]
        w = tuple(float(x) for x in weights.split(","))
    fn = None
    if method is not None:
        args += ["--nltk-smoothing", str(method)]
        fn = getattr(SmoothingFunction(), f"method{method}")
    if reweigh:
        args.append("--auto-reweigh")

    def refs_of(s):
        return [r.split() for r in s["refs"] if r is not None]

    def fields(x):
        return {"score": num(x)}

    sentence_rows = []
    for s in segs:
        sentence_rows.append({"nltk-bleu": guarded(lambda: fields(sentence_bleu(
            refs_of(s), s["hyp"].split(), w, smoothing_function=fn, auto_reweigh=reweigh)))})
    corpus = guarded(lambda: fields(corpus_bleu(
        [refs_of(s) for s in segs], [s["hyp"].split() for s in segs], w,
        smoothing_function=fn, auto_reweigh=reweigh)))
    return {"id": cid, "args": args, "segments": segs, "sentence": sentence_rows,
            "corpus": {"nltk-bleu": corpus}}


def python_number(text):
    """A command-line number as Python reads the literal: `2` is an int, `2.0` a float."""
    return float(text) if any(c in text for c in ".eE") else int(text)


def nltk_cgn_case(rng, cid):
    """NLTK chrF, GLEU and NIST on the same segments (one bleu-stream run, three metrics)."""
    from nltk.translate.chrf_score import corpus_chrf, sentence_chrf
    from nltk.translate.gleu_score import corpus_gleu, sentence_gleu
    from nltk.translate.nist_score import corpus_nist, sentence_nist

    segs = case_segments(rng)
    gleu_min = rng.choice([1, 1, 1, 2, 0])
    gleu_max = max(gleu_min, rng.choice([4, 4, 4, 1, 2, 3, 5]))
    chrf_min = rng.choice([1, 1, 1, 2, 3])
    chrf_max = max(chrf_min, rng.choice([6, 6, 6, 2, 4, 5, 8]))
    beta = rng.choice(["3.0", "3.0", "3", "2", "1.0", "0.5", "2.5"])
    keep_ws = rng.random() < 0.25
    nist_n = rng.choice([5, 5, 5, 1, 2, 3, 4, 6])
    exact_floats = sys.version_info < (3, 12)
    args = ["-m", "gleu,nltk-chrf,nist", "--nist-compat", "nltk", "--nist-tokenize", "none",
            "--nist-order", str(nist_n), "--gleu-min-len", str(gleu_min), "--gleu-max-len",
            str(gleu_max), "--nltk-chrf-min-len", str(chrf_min), "--nltk-chrf-max-len",
            str(chrf_max), "--nltk-chrf-beta", beta]
    if keep_ws:
        args.append("--nltk-chrf-whitespace")
    # --lowercase: NLTK has no case option; it is str.lower() of both sides first.
    lower = rng.random() < 0.25
    if lower:
        args.append("--lowercase")
    chrf_kw = dict(min_len=chrf_min, max_len=chrf_max, beta=python_number(beta),
                   ignore_whitespace=not keep_ws)

    def lc(text):
        return text.lower() if lower else text

    # bleu-stream drops null references; NLTK's chrF takes one reference: the first present one.
    present = [[lc(r) for r in s["refs"] if r is not None] for s in segs]
    hyps = [lc(s["hyp"]) for s in segs]
    ref_tokens = [[r.split() for r in refs] for refs in present]
    hyp_tokens = [h.split() for h in hyps]

    def fields(x):
        return {"score": num(x)}

    def row(i):
        out = {"gleu": guarded(lambda: fields(sentence_gleu(
            ref_tokens[i], hyp_tokens[i], min_len=gleu_min, max_len=gleu_max)))}
        if exact_floats:
            out["nltk-chrf"] = guarded(lambda: fields(sentence_chrf(
                present[i][0], hyps[i], **chrf_kw)))
            out["nist"] = guarded(lambda: fields(sentence_nist(
                ref_tokens[i], hyp_tokens[i], n=nist_n)))
        return out

    corpus = {"gleu": guarded(lambda: fields(corpus_gleu(
        ref_tokens, hyp_tokens, min_len=gleu_min, max_len=gleu_max)))}
    if exact_floats:
        corpus["nltk-chrf"] = guarded(lambda: fields(corpus_chrf(
            [refs[0] for refs in present], hyps, **chrf_kw)))
        corpus["nist"] = guarded(lambda: fields(corpus_nist(ref_tokens, hyp_tokens, n=nist_n)))
    return {"id": cid, "args": args, "segments": segs,
            "sentence": [row(i) for i in range(len(segs))], "corpus": corpus}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--nltk", action="store_true")
    ap.add_argument("--budget", type=float, default=60.0, help="stop generating after this")
    a = ap.parse_args()
    if a.check:
        return check()
    warnings.simplefilter("ignore")
    rng = random.Random(a.seed)
    start = time.monotonic()
    for i in range(a.cases):
        if time.monotonic() - start > a.budget:
            break
        kind = {2: "nltk-bleu", 3: "nltk-cgn"}.get(i % 4, "sacrebleu") if a.nltk else "sacrebleu"
        make = {"sacrebleu": sacrebleu_case, "nltk-bleu": nltk_case, "nltk-cgn": nltk_cgn_case}
        case = make[kind](rng, f"{kind}-{a.seed}-{i}")
        sys.stdout.write(json.dumps(case, ensure_ascii=False, allow_nan=False) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
