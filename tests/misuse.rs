//! Mistakes a user is likely to make, each with its own test (issue 18, part B): they must not
//! score silently.

use crate::util::{assert_refused, Cmd, Output};

fn run(args: &[&str], stdin: &str) -> Output {
    Cmd::new().args(args).stdin(stdin).run()
}

/// `paste hyp ref` of files of different length pads the shorter one: a trailing run of empty
/// hypotheses (or references) is reported once, naming the line where it starts.
#[test]
fn paste_of_files_of_different_length_is_reported() {
    let mut input = String::new();
    for i in 0..5 {
        input.push_str(&format!("a b c {i}\ta b c {i}\n"));
    }
    // The hypothesis file had 5 lines, the reference file 8.
    for i in 5..8 {
        input.push_str(&format!("\ta b c {i}\n"));
    }
    let out = run(&[], &input);
    out.assert_success();
    let err = out.stderr_str();
    assert_eq!(err.matches("probably differ in length").count(), 1, "{err}");
    assert!(
        err.contains("the last 3 lines, from line 6 on, have an empty hypothesis"),
        "{err}"
    );
    // The reference file was the shorter one.
    let input = "a\ta\nb\tb\nc\t\nd\t\n";
    let err = run(&[], input).stderr_str();
    assert!(
        err.contains("from line 3 on, have an empty reference"),
        "{err}"
    );
    // One empty hypothesis at the end, or empty ones in the middle, are not reported.
    for input in ["a\ta\nb\tb\n\tc\n", "a\ta\n\tb\n\tc\nd\td\n"] {
        let err = run(&[], input).stderr_str();
        assert!(!err.contains("differ in length"), "{input:?}: {err}");
    }
}

/// Regression (input audit): the padding warning fired for parallel files (which report a
/// length mismatch as an error) and for JSONL, where no `paste` pads anything.
#[test]
fn trailing_empty_hypotheses_blame_paste_only_for_tsv() {
    let dir = crate::util::TempDir::new("padding");
    let r = dir.file_str("r", "a b\na b\na b\n");
    let h = dir.file_str("h", "a b\n\n\n");
    let out = Cmd::new().args(["-r", &r, &h]).run();
    out.assert_success();
    assert!(!out.stderr_str().contains("paste"), "{}", out.describe());
    let jsonl = "{\"hyp\":\"a b\",\"ref\":\"a b\"}\n{\"hyp\":\"\",\"ref\":\"a b\"}\n\
                 {\"hyp\":\"\",\"ref\":\"a b\"}\n";
    let out = run(&[], jsonl);
    out.assert_success();
    assert!(!out.stderr_str().contains("paste"), "{}", out.describe());
    // TSV still gets it, and its advice no longer says -r stops at a mismatch.
    let err = run(&[], "a b\ta b\n\ta b\n\ta b\n").stderr_str();
    assert!(err.contains("paste pads the shorter file"), "{err}");
    assert!(
        err.contains("reports a length mismatch as an error"),
        "{err}"
    );
}

/// Regression (input audit): a TSV file whose first hypothesis starts with `{` is taken for
/// JSONL by `--input auto`; the first diagnostic says so and names `--input tsv`.
#[test]
fn tsv_taken_for_jsonl_gets_a_hint() {
    let input = "{x} is a placeholder\t{x} is a placeholder\nthe cat\tthe cat\nthe dog\tthe dog\n";
    let out = run(&[], input);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    let err = out.stderr_str();
    assert!(
        err.contains("line 1: invalid JSON: key must be a string"),
        "{err}"
    );
    assert_eq!(err.matches("give --input tsv").count(), 1, "{err}");
    assert!(
        err.contains("line 2: invalid JSON: expected ident"),
        "{err}"
    );
    // Given as TSV it scores; a JSONL file that names its format gets no hint, nor does a bad
    // line after good ones.
    run(&["--input", "tsv"], input).assert_success();
    let err = run(&["--input", "jsonl"], input).stderr_str();
    assert!(!err.contains("--input tsv"), "{err}");
    let err = run(&[], "{\"hyp\":\"a\",\"ref\":\"a\"}\nnot json\n").stderr_str();
    assert!(!err.contains("--input tsv"), "{err}");
}

/// sacreBLEU's layout, `bleu-stream ref.txt < hyp.txt`: no line has a TAB. One hint (at -r), not
/// a flood of warnings, and a failing exit status, since nothing could be scored.
#[test]
fn sacrebleu_layout_without_tabs_gets_one_hint_and_fails() {
    let input: String = (0..200).map(|i| format!("sentence {i}\n")).collect();
    let out = run(&[], &input);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    let err = out.stderr_str();
    assert_eq!(err.matches("-r ref.txt hyp.txt").count(), 1, "{err}");
    assert_eq!(
        err.matches("bleu-stream sacrebleu ref.txt < hyp.txt")
            .count(),
        1,
        "{err}"
    );
    // One message while no line has a TAB, then one summary line with the count.
    assert_eq!(err.matches("warning: line").count(), 1, "{err}");
    assert!(err.contains("199 more lines like \"no TAB"), "{err}");
    assert!(
        err.contains("200 bad lines"),
        "the report counts every bad line: {err}"
    );
    assert!(
        err.contains("error: no line could be scored: all 200 lines were bad"),
        "{err}"
    );
    // Rows stay aligned: one (empty) row per line.
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 200);
}

/// Regression (input audit): more bad lines than scored ones gave a score of the few good lines
/// with status 0 — a stray TAB in line 1 (which sets the field count) made every later line
/// bad and `-b` print 0.00; a reference file given as the TSV input (sacreBLEU's layout) with
/// one TAB line in it scored that line alone. Now an error with status 1 and nothing on
/// stdout for `-b`, unless `--on-error skip` says bad lines are expected.
#[test]
fn mostly_bad_input_fails_instead_of_scoring_the_few_good_lines() {
    let good = "a b c d e\ta b c d e\n".repeat(200);
    let stray = format!("x\tstray\ty\n{good}");
    let out = run(&["-b"], &stray);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(out.stdout.is_empty(), "{}", out.describe());
    let err = out.stderr_str();
    assert!(
        err.contains("error: most lines were bad: 200 of 201 (see the warnings), so a score would describe only 1 line"),
        "{err}"
    );
    assert!(
        err.contains("a stray TAB in line 1 sets the number of fields"),
        "{err}"
    );
    // Rows mode: every row still written, the report too, then the error.
    let out = run(&[], &stray);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 201);
    assert!(
        out.stderr_str().contains("1 segment, 200 bad lines"),
        "{}",
        out.describe()
    );
    // Bad lines expected: the good ones are scored.
    let out = run(&["-b", "--on-error", "skip"], &stray);
    out.assert_success();
    assert_eq!(out.stdout_str(), "0.00\n");
    // The field count fixed by hand: line 1 is the bad one, the score is the input's.
    let out = run(&["-b", "--refs", "1"], &stray);
    out.assert_success();
    assert_eq!(out.stdout_str(), "100.00\n");
    // sacreBLEU's layout with a reference file that has one TAB line (WMT22 uk-en ref A).
    let mut layout: String = (0..200).map(|i| format!("sentence {i}\n")).collect();
    layout.push_str("a stray\tTAB\n");
    let out = run(&["-b"], &layout);
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(out.stdout.is_empty(), "{}", out.describe());
    let err = out.stderr_str();
    assert!(err.contains("-r ref.txt hyp.txt"), "{err}");
    assert!(err.contains("most lines were bad: 200 of 201"), "{err}");
    // As many bad lines as good ones is not "most".
    let out = run(&["-b"], "a\ta\nb\tb\nc\nd\n");
    out.assert_success();
    // A shard's document counts its bad lines for `merge` to judge.
    let out = run(&["--emit", "stats"], &stray);
    out.assert_success();
}

/// Regression (input audit): with `--on-error skip` nothing was shown, but the error said "see
/// the warnings".
#[test]
fn all_bad_under_skip_does_not_point_at_warnings() {
    let out = run(&["-b", "--on-error", "skip"], "a\nb\n");
    assert_refused(
        &out,
        1,
        &["no line could be scored: all 2 lines were bad (--on-error skip showed no warning)"],
    );
}

/// Regression (input audit): `paste hyp ref | bleu-stream -r ref` (or a JSONL file given with
/// -r) scored the reference's words as part of each hypothesis, silently; sacreBLEU would score
/// such a file the same way, so it is scored, with one warning.
#[test]
fn parallel_hypothesis_that_looks_like_a_record_is_warned_about_once() {
    let dir = crate::util::TempDir::new("record-hyp");
    let r = dir.file_str("r", &"a b c d e\n".repeat(3));
    for stdin in [
        "a b c d e\ta b c d e\n".repeat(3),
        "{\"hyp\":\"a b c d e\",\"ref\":\"a b c d e\"}\n".repeat(3),
        "\u{feff} { \"hyp\": \"a b c d e\", \"ref\": \"a b c d e\"}\n".repeat(3),
    ] {
        let out = Cmd::new()
            .args(["-b", "-r", &r])
            .stdin(stdin.as_str())
            .run();
        out.assert_success();
        let err = out.stderr_str();
        assert_eq!(err.matches("with -r").count(), 1, "{err}");
        assert!(
            err.contains("warning: line 1: the hypothesis has a TAB or starts with '{\"': with -r"),
            "{err}"
        );
        assert!(err.contains("leave out -r"), "{err}");
    }
    let out = Cmd::new()
        .args(["-b", "-r", &r])
        .stdin("a b c d e\n".repeat(3))
        .run();
    out.assert_success();
    assert_eq!(out.stderr_str(), "");
    // TSV and JSONL hypotheses are not parallel files: no such warning.
    let out = run(
        &["-b", "--input", "jsonl"],
        "{\"hyp\":\"a\\tb\",\"ref\":\"a b\"}\n",
    );
    out.assert_success();
    assert!(!out.stderr_str().contains("with -r"), "{}", out.describe());
}

/// Regression (input audit): parallel files of different lengths ended with an error and status
/// 1, but `-b` had already printed the score of the lines before on stdout (where a Makefile's
/// `$(shell …)` takes it).
#[test]
fn score_only_prints_nothing_when_the_input_fails() {
    let dir = crate::util::TempDir::new("failed-b");
    let r = dir.file_str("r", &"a b c d e\n".repeat(3));
    let h = dir.file_str("h", &"a b c d e\n".repeat(5));
    for args in [&["-b"][..], &["-b", "-f", "jsonl"]] {
        let out = Cmd::new().args(args).args(["-r", &r, &h]).run();
        assert_eq!(out.code, Some(1), "{}", out.describe());
        assert!(out.stdout.is_empty(), "{}", out.describe());
        assert!(
            out.stderr_str().contains("have different lengths"),
            "{}",
            out.describe()
        );
    }
    // --on-error fail: status 2 and no score either.
    let out = run(&["-b", "--on-error", "fail"], "a\ta\nb\n");
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(out.stdout.is_empty(), "{}", out.describe());
    // A gate keeps the final report of what was read (only -b's bare number is withheld).
    let out = run(
        &["--on-error", "fail", "--fail-under", "5"],
        "a b c d\ta b c d\nx\n",
    );
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str()
            .contains("final report: 1 segment, 1 bad line"),
        "{}",
        out.describe()
    );
}

/// `-b` and `--fail-under` with nothing to score (empty input) or an undefined score: an error
/// and a failing status, never a bare `0.00` or `nan` with status 0.
#[test]
fn score_only_without_a_score_fails() {
    for args in [&["-b"][..], &["--fail-under", "10"], &["-b", "-f", "jsonl"]] {
        let out = run(args, "");
        assert_eq!(out.code, Some(1), "{args:?}: {}", out.describe());
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout_str());
        assert!(out
            .stderr_str()
            .contains("error: the input has no segments"));
    }
    // MATLAB semantics: all-empty candidate and references give NaN.
    let out = run(&["-b", "-m", "nltk-bleu", "--compat", "matlab"], "\t\n");
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(out.stdout.is_empty(), "{}", out.stdout_str());
    assert!(
        out.stderr_str()
            .contains("MATLAB-BLEU score is undefined (NaN)"),
        "{}",
        out.describe()
    );
    // A reference tool that dies says why (regression: "undefined (NaN)").
    let out = run(&["-b", "-m", "mteval-bleu"], "\ta b\n");
    assert_refused(
        &out,
        1,
        &[
            "the mteval-BLEU score is undefined: mteval-v13a.pl dies here: Can't take log of 0 \
           (all hypotheses empty)",
        ],
    );
    // A defined score still prints, and `-f jsonl -b` prints JSON.
    let out = run(&["-b", "-f", "jsonl", "-m", "bleu,chrf"], "a b\ta b\n");
    out.assert_success();
    assert_eq!(out.stdout_str(), "{\"bleu\":0.0,\"chrf\":100.0}\n");
}

/// sacreBLEU's spellings given to the main command: a usage error that shows the bleu-stream
/// spelling, before anything is read.
#[test]
fn sacrebleu_spellings_are_usage_errors() {
    for (args, hint) in [
        (&["-tok", "intl"][..], "-t/--tokenize"),
        (&["-lc"], "-l/--lowercase"),
        (&["-sl"], "sentence score per input line"),
        (&["-l", "en-de"], "no language-pair option"),
        (&["-i", "hyp.txt"], "-r/--ref FILE"),
        (&["-m", "bleu", "chrf"], "-m bleu,chrf"),
        (&["--chrf-lowercase"], "-l/--lowercase"),
    ] {
        let out = run(args, "a\ta\n");
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.describe());
        let err = out.stderr_str();
        assert!(
            err.starts_with("bleu-stream: error: '")
                && err.contains("sacreBLEU's spelling")
                && err.contains(hint),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}

/// sacreBLEU's warning for tokenized-looking output: 100 hypotheses ending in ` .`, once.
#[test]
fn tokenized_output_is_warned_about_once() {
    let input: String = (0..150)
        .map(|i| format!("word {i} .\tword {i}.\n"))
        .collect();
    let out = run(&["-b"], &input);
    out.assert_success();
    let err = out.stderr_str();
    assert_eq!(err.matches("tokenized period").count(), 1, "{err}");
    assert!(err.contains("line 100:"), "{err}");
    // NLTK users feed tokenized text on purpose: no warning for the NLTK family; nor for chrF
    // and TER, which sacreBLEU does not warn about (regression: the TER audit of 2026-11-27).
    for m in ["nltk-bleu", "chrf", "ter", "chrf,ter"] {
        let out = run(&["-b", "-m", m], &input);
        assert!(
            !out.stderr_str().contains("tokenized"),
            "{m}: {}",
            out.describe()
        );
    }
    let out = run(&["-b", "-m", "ter,bleu"], &input);
    assert_eq!(out.stderr_str().matches("tokenized period").count(), 1);
    // 99 such lines are not enough (sacreBLEU's threshold).
    let input: String = (0..99)
        .map(|i| format!("word {i} .\tword {i}.\n"))
        .collect();
    assert!(!run(&["-b"], &input).stderr_str().contains("tokenized"));
}

/// Repeated diagnostics of one kind are capped; the reports and `--on-error fail` still count
/// every bad line.
#[test]
fn repeated_diagnostics_are_capped_but_counted() {
    let mut input = String::from("a\ta\n");
    for _ in 0..60 {
        input.push_str("a\tb\tc\n");
    }
    // Fewer bad lines than good ones: the run succeeds (see `mostly_bad_input_fails…`).
    input.push_str(&"a\ta\n".repeat(60));
    let out = run(&["--refs", "1"], &input);
    out.assert_success();
    let err = out.stderr_str();
    assert_eq!(
        err.matches("fields where --refs 1 expects 2").count(),
        26,
        "{err}"
    );
    assert!(err.contains("35 more lines like"), "{err}");
    assert!(err.contains("61 segments, 60 bad lines"), "{err}");
    let out = run(&["--refs", "1", "--on-error", "fail"], &input);
    assert_eq!(out.code, Some(2));
}

/// `--interval` takes compound durations.
#[test]
fn compound_intervals_are_accepted() {
    run(&["--interval", "1m30s", "-b"], "a\ta\n").assert_success();
    let out = run(&["--interval", "1m30", "-b"], "a\ta\n");
    assert_eq!(out.code, Some(2));
}

/// `bleu-stream … | head -1`: the rows' reader goes away, but the final report of the lines
/// merged so far still reaches stderr, and the exit is quiet (status 0).
#[test]
fn final_report_survives_a_closed_stdout() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::util::BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for i in 0..200_000 {
            if writeln!(stdin, "a b c {i}\ta b c {i}").is_err() {
                break;
            }
        }
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "100.00\n");
    // The stdout pipe is closed here (its reader dropped).
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    writer.join().unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(
        err.contains("final report:") && err.contains("output closed after line"),
        "{err}"
    );
    assert!(err.contains("BLEU = 100.00"), "{err}");
    assert!(!err.contains("error"), "{err}");
}

/// A segment whose references are all empty makes mteval die, so the NIST report is an error.
/// It counts scored segments (a stats document has no global line numbers, and merge must
/// print what one run prints), so it says so, and the row's warning names the line: "segment
/// 2" must not read as line 2. (Regression: the message for line 102 said "segment 2".)
#[test]
fn nist_error_for_empty_references_is_not_mistaken_for_a_line() {
    let input = "no tab here\na b c d e f\ta b c d e f\nx y\t\n";
    let out = run(
        &["-m", "nist", "--first-line", "100", "--corpus-only"],
        input,
    );
    let text = out.stdout_str();
    assert!(
        text.contains(
            "Illegal division by zero (scored segment 2 has only empty references; bad lines \
             are not counted, a warning names its line)"
        ),
        "{}",
        out.describe()
    );
    // Regression: the warning came only with a row, which `--corpus-only` and `-b` do not
    // write; the report pointed to a warning that was never printed.
    let warning = "line 102: nist: every reference is empty: mteval-v13a.pl dies on such a \
                   segment (Illegal division by zero), so the corpus NIST is an error";
    assert!(out.stderr_str().contains(warning), "{}", out.describe());
    let score = run(&["-m", "nist", "--first-line", "100", "-b"], input);
    assert_eq!(score.code, Some(1), "{}", score.describe());
    assert!(score.stderr_str().contains(warning), "{}", score.describe());
    // Regression: `-b` said "undefined (NaN)" where the report says why mteval gives no score.
    assert!(
        score.stderr_str().contains(
            "error: the NIST score is undefined: mteval-v13a.pl dies: Illegal division by zero"
        ),
        "{}",
        score.describe()
    );
    let rows = run(&["-m", "nist", "--first-line", "100"], input);
    assert!(
        rows.stderr_str()
            .contains("line 102: nist: NLTK raises ZeroDivisionError"),
        "{}",
        rows.describe()
    );
    let doc = run(&["-m", "nist", "--refs", "1", "--emit", "stats"], input);
    let merged = Cmd::new().arg("merge").stdin(doc.stdout).run();
    assert_eq!(merged.stdout_str(), text, "{}", merged.describe());
}

/// An option of a metric that `--metrics` does not select does nothing: it is warned about,
/// naming its metric (`-m bleu --weights …` meant nltk-bleu; `--chrf-word-order 2` with
/// `-m bleu` meant chrF++), and the run goes on.
#[test]
fn options_of_unselected_metrics_are_warned_about() {
    let out = run(
        &[
            "-m",
            "bleu",
            "--weights",
            "0.5,0.5",
            "--chrf-word-order",
            "2",
            "-b",
        ],
        "a b c\ta b c\n",
    );
    out.assert_success();
    let err = out.stderr_str();
    for (flag, metric) in [("--weights", "nltk-bleu"), ("--chrf-word-order", "chrf")] {
        assert!(
            err.contains(&format!(
                "warning: {flag} is an option of {metric}, which --metrics does not select (bleu)"
            )),
            "{err}"
        );
    }
    // Not when the metric is selected, nor for defaults.
    let out = run(
        &["-m", "bleu,chrf", "--chrf-word-order", "2", "-b"],
        "a b c\ta b c\n",
    );
    out.assert_success();
    assert!(!out.stderr_str().contains("warning"), "{}", out.describe());
}

/// Shared options that nothing selected uses are warned about too, and the run goes on
/// (regression, compare audit: `-m ter --case-sensitive` — TER's own is
/// `--ter-case-sensitive` —, `--mecab-dic` or `--spm-model` without their tokenizer, and
/// `--confidence-n` or `--seed` without `--confidence` did nothing in silence; `--tokenize`
/// without bleu, nltk-bleu or gleu, and `--lowercase` with only ter, nist or mteval-bleu, too).
#[test]
fn shared_options_without_effect_are_warned_about() {
    let line = "a b c\ta b c\n";
    for (args, says) in [
        (
            &["-m", "ter", "--case-sensitive"][..],
            "warning: --case-sensitive is an option of nist and mteval-bleu, which --metrics \
             does not select (ter): it has no effect (TER keeps case with --ter-case-sensitive)",
        ),
        (
            &["--mteval-international"][..],
            "warning: --mteval-international is an option of nist and mteval-bleu",
        ),
        (
            &["-m", "nist", "--nist-tokenize", "none", "--case-sensitive"][..],
            "warning: --case-sensitive has no effect on nist with --nist-tokenize none",
        ),
        (
            &["--mecab-dic", "/x"][..],
            "warning: --mecab-dic has no effect without --tokenize ja-mecab or ko-mecab",
        ),
        (
            &["-t", "13a", "--spm-model", "/x"][..],
            "warning: --spm-model has no effect without --tokenize flores101, flores200, spm or \
             spBLEU-1K",
        ),
        (
            &["--confidence-n", "50", "--seed", "3"][..],
            "warning: --seed has no effect without --confidence",
        ),
        (
            &["--confidence-n", "50"][..],
            "warning: --confidence-n has no effect without --confidence",
        ),
        (
            &["-m", "chrf", "-t", "intl"][..],
            "warning: --tokenize has no effect on the metrics selected (chrf): only bleu, \
             nltk-bleu and gleu read it",
        ),
        (
            &["-m", "ter,nist", "-t", "13a"][..],
            "warning: --tokenize has no effect on the metrics selected (ter,nist)",
        ),
        (
            &["-m", "ter", "-l"][..],
            "warning: --lowercase has no effect on the metrics selected (ter): ter folds case \
             unless --ter-case-sensitive",
        ),
        (
            &["-m", "nist,mteval-bleu", "--lc"][..],
            "warning: --lowercase has no effect on the metrics selected (nist,mteval-bleu)",
        ),
    ] {
        let out = run(&[args, &["-b"]].concat(), line);
        out.assert_success();
        assert!(
            out.stderr_str().contains(says),
            "{args:?}: {}",
            out.describe()
        );
    }
    // Not where they act.
    for args in [
        &["-m", "nist", "--case-sensitive", "--mteval-international"][..],
        &["--confidence", "--confidence-n", "50", "--seed", "3"][..],
        &["-m", "chrf,bleu", "-t", "intl", "-l"][..],
        &["-m", "ter,gleu", "-t", "13a"][..],
        &["-m", "nist", "--nist-tokenize", "none", "-l"][..],
        &["-m", "ter,multi-bleu", "-l"][..],
    ] {
        let out = run(&[args, &["-b"]].concat(), line);
        out.assert_success();
        assert!(
            !out.stderr_str().contains("warning"),
            "{args:?}: {}",
            out.describe()
        );
    }
}

/// MATLAB's `bleuEvaluationScore` takes a non-empty row vector of non-negative weights and no
/// smoothing: what it refuses is a usage error here, saying which rule (regression: the empty
/// set `()` was told its weights were negative or all zero).
#[test]
fn weights_matlab_refuses_are_usage_errors() {
    for (extra, message) in [
        (&["--weights", "()"][..], "needs at least one weight"),
        (
            &["--weights", "-1,2"],
            "needs non-negative weights that are not all zero",
        ),
        (
            &["--weights", "0,0"],
            "needs non-negative weights that are not all zero",
        ),
        (
            &["--nltk-smoothing", "1"],
            "has no smoothing and no re-weighting",
        ),
    ] {
        let args = [&["-m", "nltk-bleu", "--compat", "matlab"][..], extra].concat();
        assert_refused(&run(&args, "a\ta\n"), 2, &["--compat matlab ", message]);
    }
}

/// Regression (audit 2026-11-27): a metric's n-gram ids take 4 bytes per token and order, so
/// many orders on a long line (`--gleu-max-len 1024`, 256 KiB of one-byte tokens: 3.5 GiB; a
/// 4 MB line: an allocation failure that aborted the process, every row lost) broke the memory
/// bound. With more than 5 orders the longest line scored shrinks in proportion; a longer line
/// is a bad line that says why, and the others are scored.
#[test]
fn many_ngram_orders_lower_the_line_limit() {
    let long = "+ ".repeat(50_000);
    let input = format!("a b\ta b\n{long}\t{long}\nc\tc\n");
    let out = run(
        &[
            "-m",
            "gleu",
            "-t",
            "13a",
            "--gleu-max-len",
            "1024",
            "--max-line-bytes",
            "16M",
        ],
        &input,
    );
    out.assert_success();
    assert_eq!(out.stdout_str(), "1.00\n\n1.00\n", "{}", out.describe());
    let err = out.stderr_str();
    assert!(
        err.contains(
            "warning: lines longer than 81920 bytes will be skipped (--gleu-max-len 1024: every \
             n-gram order takes memory or time per token, so lines are limited to \
             --max-line-bytes × 5 / 1024)"
        ),
        "{err}"
    );
    assert!(
        err.contains("line 2: line of 200001 bytes is longer than 81920 bytes (--gleu-max-len"),
        "{err}"
    );
    // Up to 5 orders the whole --max-line-bytes stays: the same line is scored.
    let out = run(&["-m", "gleu,bleu,nist", "-t", "13a"], &input);
    out.assert_success();
    assert!(
        !out.stderr_str().contains("longer than"),
        "{}",
        out.describe()
    );
    assert_eq!(out.stdout_str().lines().count(), 3);
    assert!(!out.stdout_str().lines().nth(1).unwrap().is_empty());
}

/// Regression (numeric-extremes audit, 2026-11-27): character n-grams are counted order by
/// order, and `--nltk-chrf-max-len 1024` scored a 1.75 MB line for 331 s (a stop waiting for
/// it); chrF and NLTK chrF past their default orders now lower the line limit as the word
/// metrics do, and the defaults (chrF, chrF++, NLTK's 1..6) keep all of `--max-line-bytes`. The
/// limit is `--max-line-bytes × base / orders` rounded down once (it was divided first: 80
/// instead of 83 below).
#[test]
fn many_character_orders_lower_the_line_limit() {
    let long = "ab ".repeat(40_000);
    let input = format!("a b\ta b\n{long}\t{long}\nc\tc\n");
    for (args, limit, option) in [
        (
            &["-m", "nltk-chrf", "--nltk-chrf-max-len", "1024"][..],
            6_144,
            "--nltk-chrf-min-len 1 --nltk-chrf-max-len 1024",
        ),
        (
            &[
                "-m",
                "chrf",
                "--chrf-char-order",
                "64",
                "--chrf-word-order",
                "64",
            ],
            65_536,
            "--chrf-char-order 64 --chrf-word-order 64",
        ),
    ] {
        let out = run(&[args, &["--max-line-bytes", "1M"]].concat(), &input);
        out.assert_success();
        let err = out.stderr_str();
        assert!(
            err.contains(&format!(
                "lines longer than {limit} bytes will be skipped ({option}:"
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "line 2: line of 240001 bytes is longer than {limit} bytes"
            )),
            "{err}"
        );
        let stdout = out.stdout_str();
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 3, "{}", out.describe());
        assert_eq!(lines[1], "", "{args:?}");
    }
    for args in [
        &["-m", "chrf"][..],
        &["-m", "chrf", "--chrf-word-order", "2"],
        &["-m", "nltk-chrf"],
        &[
            "-m",
            "nltk-chrf",
            "--nltk-chrf-min-len",
            "2",
            "--nltk-chrf-max-len",
            "7",
        ],
    ] {
        let out = run(args, &input);
        out.assert_success();
        assert!(
            !out.stderr_str().contains("longer than"),
            "{}",
            out.describe()
        );
    }
    let l = format!("{}b\t{}bb\n", "a ".repeat(20), "a ".repeat(19));
    assert_eq!(l.len(), 83);
    let out = run(
        &["--max-line-bytes", "100", "--max-ngram-order", "6", "-b"],
        &l,
    );
    out.assert_success();
    assert!(
        out.stderr_str().contains("lines longer than 83 bytes"),
        "{}",
        out.describe()
    );
}

/// `--invalid-utf8 lossy` makes every invalid sequence U+FFFD, so different bytes match each
/// other; multi-bleu.perl compares the bytes (Perl audit: `x\xe9 y\xe8` against `x\xe8 y\xe9`,
/// unigram precision 100.0 here, 0.0 in the script). The run says so and goes on; other metrics,
/// whose reference tools decode or refuse such input, do not get the warning.
#[test]
fn lossy_utf8_with_multi_bleu_is_warned_about() {
    let line = &b"x\xe9 y\xe8\tx\xe8 y\xe9\n"[..];
    let out = Cmd::new()
        .args([
            "-m",
            "multi-bleu",
            "--invalid-utf8",
            "lossy",
            "--corpus-only",
        ])
        .stdin(line)
        .run();
    out.assert_success();
    assert!(
        out.stderr_str()
            .starts_with("bleu-stream: warning: --invalid-utf8 lossy: multi-bleu scores a line"),
        "{}",
        out.stderr_str()
    );
    let out = Cmd::new()
        .args(["-m", "bleu", "--invalid-utf8", "lossy", "--corpus-only"])
        .stdin(line)
        .run();
    assert!(
        !out.stderr_str().contains("multi-bleu"),
        "{}",
        out.stderr_str()
    );
}
