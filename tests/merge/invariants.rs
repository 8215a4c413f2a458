//! The length invariants of NLTK BLEU and TER statistics (safety audit): documents whose
//! lengths contradict their counts are refused, and every document bleu-stream writes — of
//! empty hypotheses and references, several and varying references, every NLTK smoothing
//! method that can be split, cut down to one segment a shard — is still accepted and merges to
//! one run's report.

use super::{check_split, merge, run, strings, Corpus, Outcome};
use crate::util::{assert_refused, TempDir};

/// The document `text` with its first `from` (which must be there) turned into `to`.
fn forge(dir: &TempDir, name: &str, text: &str, from: &str, to: &str) -> std::path::PathBuf {
    assert!(
        text.contains(from),
        "the saved layout changed, no {from}: {text}"
    );
    dir.file(name, text.replacen(from, to, 1).as_bytes())
}

/// The audit's reproductions, on a small input: an NLTK BLEU `hyp_len` or order-1 denominator
/// doubled and a one-reference TER `ref_length` of 1.5 printed plausible scores with status 0.
#[test]
fn lengths_that_contradict_the_counts_are_refused() {
    let dir = TempDir::new("lengths");
    let input = b"a b c d e f\ta b c d e f\nx y z\tx y\n\tq\n".to_vec();
    let emit = |metric: &str| {
        let out = run(
            &strings(&["--refs", "1", "-m", metric, "--emit", "stats"]),
            input.clone(),
        );
        out.assert_success();
        out.stdout_str()
    };
    let nltk = emit("nltk-bleu");
    // hyp_len 9; counts [8, 6, 4, 3, 10, 8, 6, 5] over 3 segments (the empty hypothesis counts
    // one n-gram of every order).
    let stats = "\"counts\":[8,6,4,3,10,8,6,5],\"hyp_len\":9,";
    merge(&[], &[forge(&dir, "good.json", &nltk, stats, stats)]).assert_success();
    for (name, to, says) in [
        (
            "hyp_len.json",
            "\"counts\":[8,6,4,3,10,8,6,5],\"hyp_len\":18,",
            "NLTK BLEU order-1 denominator 10 for hyp_len 18 over 3 segments",
        ),
        (
            "den1.json",
            "\"counts\":[8,6,4,3,20,8,6,5],\"hyp_len\":9,",
            "NLTK BLEU order-1 denominator 20 for hyp_len 9 over 3 segments",
        ),
        (
            "den4.json",
            "\"counts\":[0,0,0,0,2,2,2,2],\"hyp_len\":1,",
            "NLTK BLEU order-4 denominator 2 below the 3 segments",
        ),
    ] {
        assert_refused(
            &merge(&[], &[forge(&dir, name, &nltk, stats, to)]),
            2,
            &[name, says],
        );
    }
    assert_refused(
        &merge(
            &[],
            &[forge(
                &dir,
                "max_ref_len.json",
                &nltk,
                "\"max_ref_len\":6,",
                "\"max_ref_len\":0,",
            )],
        ),
        2,
        &["NLTK BLEU ref_len 9 above segments × max_ref_len"],
    );
    let ter = emit("ter");
    for (to, says) in [
        (
            "\"ref_length\":1.5,",
            "TER statistics: ref_length 1.5 is not a whole number of words",
        ),
        (
            "\"ref_length\":0.0,",
            "TER statistics: ref_length 0 (every reference empty) with insertions",
        ),
    ] {
        assert_refused(
            &merge(
                &[],
                &[forge(&dir, "ter.json", &ter, "\"ref_length\":9.0,", to)],
            ),
            2,
            &["ter.json: document 1", says],
        );
    }
}

/// Lines of `fields` TSV rows: empty hypotheses, empty references, hypotheses shorter than the
/// orders, references longer and shorter than the closest one.
fn tsv(rows: &[&[&str]]) -> Vec<Vec<u8>> {
    rows.iter()
        .map(|r| format!("{}\n", r.join("\t")).into_bytes())
        .collect()
}

/// Documents of the edge cases, written by bleu-stream itself for every NLTK smoothing method
/// that merges (0–4, none; 5–7 are refused at `--emit stats`), several weight vectors,
/// re-weighting, MATLAB and TER, one segment a shard and in halves, are all accepted and
/// merge to one run's record byte for byte.
#[test]
fn documents_of_edge_cases_are_accepted_and_merge_to_one_run() {
    let one_ref = tsv(&[
        &["", "a b c"],
        &["a b c d e", ""],
        &["", ""],
        &["a", "a"],
        &["a b", "a b c d e f"],
        &["x y z w", "x y z w"],
        &["a b c d e f g h", "a b c"],
    ]);
    let varying = tsv(&[
        &["", "a b c", ""],
        &["a b c d e", "a b c d e f g h i", "a", "", "a b c"],
        &["", "", "", "", ""],
        &["a", "a b c d e f", "a"],
        &["a b c", "b c d"],
        &["x y", "", "x y z w v"],
        &["a b c d e f g h", "a b c d e f g h"],
    ]);
    let tiny = tsv(&[&["a", "a b"], &["", "a"], &["b", "b"]]);
    let corpora = [
        Corpus::new("one reference", one_ref, &["--input", "tsv", "--refs", "1"]),
        Corpus::new(
            "1, 2 or 4 references",
            varying,
            &["--input", "tsv", "--refs", "any"],
        ),
        Corpus::new("2 words in all", tiny, &["--input", "tsv", "--refs", "1"]),
    ];
    let variants: Vec<Vec<String>> = [
        &["-m", "nltk-bleu,ter"][..],
        &["-m", "nltk-bleu", "--nltk-smoothing", "0"],
        &["-m", "nltk-bleu", "--nltk-smoothing", "1"],
        &["-m", "nltk-bleu", "--nltk-smoothing", "2"],
        &["-m", "nltk-bleu", "--nltk-smoothing", "3"],
        &["-m", "nltk-bleu", "--nltk-smoothing", "4"],
        &["-m", "nltk-bleu", "--auto-reweigh", "--nltk-smoothing", "1"],
        &[
            "-m",
            "nltk-bleu",
            "--weights",
            "1",
            "--weights",
            "0.2,0.2,0.2,0.2,0.2,0.2",
        ],
        &["-m", "nltk-bleu", "--compat", "matlab"],
        &[
            "-m",
            "nltk-bleu",
            "--compat",
            "matlab",
            "--weights",
            "1,1,1",
        ],
        &["-m", "ter", "--ter-normalized", "--ter-no-punct"],
    ]
    .iter()
    .map(|a| strings(a))
    .collect();
    for corpus in &corpora {
        let n = corpus.lines.len();
        for v in &variants {
            for cuts in [(1..n).collect::<Vec<_>>(), vec![n / 2]] {
                match check_split(corpus, v, &cuts, false) {
                    Ok(Outcome::Same) => {}
                    other => panic!("{} `{}` cuts {cuts:?}: {other:?}", corpus.name, v.join(" ")),
                }
            }
        }
    }
}
