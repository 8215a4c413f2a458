//! Point 4 (no integer wraps: huge option values are usage errors) and point 9 (diagnostics say
//! what is true).

use crate::util::{assert_refused, Cmd};

const LINE: &str = "a b c d\ta b c d\n";

#[test]
fn huge_option_values_are_usage_errors() {
    for (args, says) in [
        (&["--first-line", "18446744073709551615"][..], "not in 1..="),
        (&["--every", "18446744073709551615"][..], "not in 1..="),
        (&["--refs", "18446744073709551615"][..], "more than 4096"),
        (&["--refs", "99999999999999999999999"][..], "more than 4096"),
        (
            &["--max-line-bytes", "18446744073709551615"][..],
            "more than 1G",
        ),
        (
            &["--max-line-bytes", "99999999999999999999G"][..],
            "more than 1G",
        ),
        (&["--max-line-bytes", "0"][..], "at least 1 byte"),
        (&["--max-line-bytes", "12X"][..], "not a size"),
        (&["--max-line-bytes", "K"][..], "not a size"),
    ] {
        let out = Cmd::new().args(args).stdin(LINE).run();
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.describe());
        let err = out.stderr_str();
        assert!(
            err.starts_with("bleu-stream: error: ") && err.contains(says),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    // The largest accepted values still work.
    let out = Cmd::new()
        .args([
            "--first-line",
            "9007199254740992",
            "--every",
            "9007199254740992",
        ])
        .args(["--max-line-bytes", "1G", "--refs", "1", "-f", "jsonl"])
        .stdin(LINE)
        .run();
    out.assert_success();
    assert!(
        out.stdout_str().contains("\"line\":9007199254740992"),
        "{}",
        out.describe()
    );
}

/// `--max-line-bytes` counts the line without its `\r\n`.
#[test]
fn the_line_limit_does_not_count_crlf() {
    let out = Cmd::new()
        .args(["--max-line-bytes", "15"])
        .stdin("a b c d\ta b c d\r\na b c d\ta b c de\r\n")
        .run();
    assert_eq!(out.stdout_str(), "100.00\n\n", "{}", out.describe());
    assert!(
        out.stderr_str().contains("line 2: line of 16 bytes"),
        "{}",
        out.describe()
    );
}

/// Point 2 (part): a stats document asking for 2^63 resamples (an abort before) or 0 (NaN)
/// is refused by `merge`: status 2, no score.
#[test]
fn merge_refuses_absurd_sample_counts() {
    let doc = Cmd::new()
        .args(["--emit", "stats", "--confidence"])
        .stdin(LINE)
        .run();
    doc.assert_success();
    let doc = doc.stdout_str();
    assert!(doc.contains("\"samples\":1000"), "{doc}");
    let dir = tempfile::tempdir().unwrap();
    for samples in ["9223372036854775807", "0"] {
        let path = dir.path().join(format!("{samples}.json"));
        let bad = doc.replace("\"samples\":1000", &format!("\"samples\":{samples}"));
        std::fs::write(&path, bad).unwrap();
        let out = Cmd::new().arg("merge").arg(&path).run();
        assert_refused(&out, 2, &["\"samples\" is"]);
    }
}

/// Point 9: `--weights=` (an empty value, typically an unset shell variable) was silently NLTK's
/// empty weight tuple, whose score is int 0 whatever the input. It is a usage error now; the
/// empty tuple is asked for as `()` (the NLTK vectors that score it go through that spelling).
#[test]
fn an_empty_weights_value_is_a_usage_error() {
    for args in [
        &["-m", "nltk-bleu", "--weights="][..],
        &["-m", "nltk-bleu", "--weights", " "][..],
        &["-m", "nltk-bleu", "--weights", "0.5,0.5", "--weights="][..],
    ] {
        let out = Cmd::new().args(args).stdin(LINE).run();
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.describe());
        let err = out.stderr_str();
        assert!(
            err.starts_with("bleu-stream: error: ") && err.contains("--weights '()'"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = Cmd::new()
        .args(["-m", "nltk-bleu", "--weights", "()", "-b"])
        .stdin(LINE)
        .run();
    assert_eq!(out.code, Some(0), "{}", out.describe());
    assert_eq!(
        out.stdout_str(),
        "0.00\n",
        "NLTK scores the empty tuple int 0"
    );
}

/// Regression (input audit): a file name with control characters reached the terminal raw in
/// the scoring command's diagnostics (`merge` escaped it): every diagnostic escapes them now.
#[test]
fn file_names_in_diagnostics_cannot_drive_the_terminal() {
    let dir = crate::util::TempDir::new("escape");
    let reference = dir.file_str("r\u{1b}[31mx", "a b\n");
    let hyp = dir.file_str("h", "a b\na b\n");
    for args in [
        vec!["no\u{1b}[31mfile".to_owned()],
        vec!["-r".to_owned(), reference, hyp],
    ] {
        let out = Cmd::new().args(&args).run();
        assert_eq!(out.code, Some(1), "{args:?}: {}", out.describe());
        let err = out.stderr_str();
        assert!(!err.contains('\u{1b}'), "{args:?}: {err}");
        assert!(err.contains("\\u{1b}[31m"), "{args:?}: {err}");
    }
    // Nor start a line of their own with a line feed (regression, output audit: `BLEU =
    // 99.99` on a line of its own, where a log scraper looks for scores).
    let out = Cmd::new().arg("missing\nBLEU = 99.99").run();
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert_eq!(
        out.stderr_str(),
        "bleu-stream: error: missing\\u{a}BLEU = 99.99: No such file or directory\n"
    );
    // A usage error that quotes such a value keeps it on the error's line (review).
    let out = Cmd::new()
        .args(["--tokenize", "13a\nBLEU = 99.99", "f"])
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    let err = out.stderr_str();
    assert!(!err.lines().any(|l| l.starts_with("BLEU")), "{err}");
    assert!(err.contains("13a\\u{a}BLEU = 99.99"), "{err}");
}

/// Regression (input audit): a negative number after an option that takes one was "unexpected
/// argument '-1'" with clap's tip to pass it as `-- -1` (a FILE); it is the option's value now,
/// accepted or refused by the option's own check. Regressions (numeric-extremes audit,
/// 2026-11-27): `-inf` and other hyphen words were still "unexpected argument '-i'", `merge`
/// took no negative number at all, and count options said "invalid digit found in string"
/// (`--seed -1`) or "number too large to fit in target type" instead of their range.
#[test]
fn negative_numbers_are_option_values() {
    for (args, says) in [
        (&["-w", "-1"][..], "-1 is not in 0..=17"),
        (&["--threads", "-2"], "-2 is not in 1..=1024"),
        (
            &["--smooth-value", "-1"],
            "--smooth-value must be a non-negative number, not -1",
        ),
        (
            &["-s", "floor", "--smooth-value", "-inf"],
            "--smooth-value must be a non-negative number, not -inf",
        ),
        (&["--max-line-bytes", "-5"], "'-5' is not a size"),
        (&["-w", "-b"], "invalid value '-b' for '--width <N>'"),
        (&["--seed", "-1"], "-1 is not in 0..=18446744073709551615"),
        (
            &["--seed", "18446744073709551616"],
            "18446744073709551616 is not in 0..=18446744073709551615",
        ),
        (&["--every", "-1"], "-1 is not in 1..=9007199254740992"),
        (&["--first-line", "-0"], "-0 is not in 1..=9007199254740992"),
        (&["--confidence-n", "-1"], "-1 is not in 1..=1000000"),
        (&["--every", "1.5"], "'1.5' is not a whole number"),
    ] {
        let out = Cmd::new().args(args).stdin(LINE).run();
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.describe());
        let err = out.stderr_str();
        assert!(
            err.contains(says) && !err.contains("tip:"),
            "{args:?}: {err}"
        );
    }
    // A negative threshold is a threshold.
    for threshold in ["-1", "-inf"] {
        let out = Cmd::new()
            .args(["--fail-under", threshold, "-b"])
            .stdin(LINE)
            .run();
        out.assert_success();
    }
    // An option with an optional value leaves the next option alone.
    let out = Cmd::new()
        .args(["-b", "--confidence", "-w", "2"])
        .stdin(LINE)
        .run();
    out.assert_success();
    assert!(out.stdout_str().contains(" (μ = "), "{}", out.describe());
    // merge and compare as the scoring command.
    let dir = crate::util::TempDir::new("negative-values");
    let stats = Cmd::new().args(["--emit", "stats"]).stdin(LINE).run();
    stats.assert_success();
    let doc = dir.file_str("s.json", &stats.stdout_str());
    let merge = |args: &[&str]| Cmd::new().arg("merge").args(args).arg(&doc).run();
    let out = merge(&["-b", "--fail-under", "-5"]);
    out.assert_success();
    assert_eq!(out.stdout_str(), "100.00\n");
    assert_refused(&merge(&["-w", "-1"]), 2, &["-1 is not in 0..=17"]);
    let sys = dir.file_str("sys.txt", "a b c d\n");
    let out = Cmd::new()
        .args([
            "compare",
            "-r",
            &sys,
            "-i",
            &sys,
            &sys,
            "--paired-bs-n",
            "-5",
        ])
        .run();
    assert_refused(&out, 2, &["-5 is not in 1..=10000000"]);
}

/// Regression (docs audit): `-m nist --nist-order 0` in mteval mode printed a report with
/// `hyp_len = 0` and BP 0: mteval-v13a.pl has no order 0. It is a usage error there; NLTK mode
/// keeps it (NLTK raises, and each row says so).
#[test]
fn nist_order_zero_is_nltks_only() {
    let out = Cmd::new()
        .args(["-m", "nist", "--nist-order", "0"])
        .stdin(LINE)
        .run();
    assert_refused(&out, 2, &["--nist-order 0 is NLTK's", "--nist-compat nltk"]);
    let out = Cmd::new()
        .args(["-m", "nist", "--nist-order", "0", "--nist-compat", "nltk"])
        .stdin(LINE)
        .run();
    assert!(
        out.stderr_str().contains("NLTK raises"),
        "{}",
        out.describe()
    );
}
