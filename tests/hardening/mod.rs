//! Hardening (issue 19): each point found by the attack-and-fault review has its regression
//! test here, in one module per point.

mod documents;
mod limits;
mod memory;
mod report_files;

use std::fs::File;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::{Cmd, BIN};

/// Point 6: a report that cannot be written to stderr (a full disk behind it) is not lost in
/// silence: the scoring goes on, and the exit status is 1.
#[test]
fn a_report_that_cannot_be_written_fails_the_run() {
    let run = |args: &[&str]| {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(File::options().write(true).open("/dev/full").unwrap())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"a b\ta b\n")
            .unwrap();
        child.wait_with_output().unwrap()
    };
    // Rows on stdout, the final report on stderr.
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"100.00\n", "rows are still written");
    // -b keeps the report on stdout: nothing is lost, status 0.
    let out = run(&["-b"]);
    assert_eq!(out.status.code(), Some(0));
}

/// Point 7: JSONL output is valid JSON whatever the input: an id with a lone surrogate is
/// refused (strict parsers reject it), control characters are escaped.
#[test]
fn jsonl_output_is_always_valid_json() {
    let input = concat!(
        "{\"hyp\":\"a\",\"refs\":[\"a\"],\"id\":\"\\ud800\"}\n",
        "{\"hyp\":\"a\\ud800b\",\"refs\":[\"a\"]}\n",
        "{\"hyp\":\"a\",\"refs\":[\"a\"],\"id\":[1,{\"k\":\"\\u0000\\u001b\"}]}\n",
        "{\"hyp\":\"a\\u001b[2J\",\"refs\":[\"a\"],\"id\":\"\\udbff\\udfff\"}\n",
    );
    let out = Cmd::new().args(["-f", "jsonl"]).stdin(input).run();
    let text = out.stdout_str();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(v.is_object());
    }
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records[0]["type"], "error", "{}", records[0]);
    assert!(
        records[0]["message"]
            .as_str()
            .unwrap()
            .contains("surrogate"),
        "{}",
        records[0]
    );
    assert_eq!(records[1]["type"], "error");
    assert!(
        records[1]["message"]
            .as_str()
            .unwrap()
            .contains("surrogate"),
        "{}",
        records[1]
    );
    assert_eq!(
        records[2]["id"],
        serde_json::json!([1, {"k": "\u{0}\u{1b}"}])
    );
    // A surrogate pair is a real character.
    assert_eq!(records[3]["id"], "\u{10ffff}");
    // No raw control character reaches the terminal through a diagnostic either.
    assert!(!out.stderr_str().contains('\u{1b}'), "{}", out.describe());
}
