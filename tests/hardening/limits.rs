//! Point 4 (no integer wraps: huge option values are usage errors) and point 9 (diagnostics say
//! what is true).

use crate::util::Cmd;

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
            "not a size",
        ),
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

#[test]
fn empty_weights_are_a_usage_error() {
    let out = Cmd::new()
        .args(["-m", "nltk-bleu", "--weights="])
        .stdin(LINE)
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str().contains("--weights: empty"),
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
