//! Hardening (issue 19): each point found by the attack-and-fault review has its regression
//! test here, in one module per point.

mod allocations;
mod documents;
mod feedback;
mod limits;
mod memory;
mod report_files;
mod report_requests;

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

/// Point 7, raw bytes: invalid UTF-8 anywhere in a JSONL or TSV line (an id, a key, a
/// hypothesis, a `--group-by` key), with or without `--invalid-utf8 lossy`, in rows, reports
/// and `--emit stats` documents: every stdout line is still valid JSON (serde_json is strict:
/// it rejects invalid UTF-8 and lone surrogates), and no raw escape reaches stderr.
#[test]
fn jsonl_output_stays_valid_json_with_raw_bytes_anywhere() {
    let lines: [&[u8]; 6] = [
        b"{\"hyp\":\"a\",\"ref\":\"a\",\"id\":\"\xff\xfe\x1b\"}\n",
        b"{\"hyp\":\"a\xff b\",\"ref\":\"a b\"}\n",
        b"{\"hyp\":\"a\",\"ref\":\"a\",\"\xc0\x80\":1}\n",
        b"{\"hyp\":\"\xed\xa0\x80\",\"ref\":\"a\",\"id\":\"\\ud800\"}\n",
        b"{\"hyp\":\"a\",\"ref\":\"a\",\"id\":\"\\u2028\\u0000\"}\n",
        b"{\"hyp\":\"a b\",\"ref\":\"a b\",\"id\":\"x\"}\n",
    ];
    let input: Vec<u8> = lines.concat();
    let tsv = b"a\xff b\ta b\n\x1b[2J\xfe\tx\na b\ta b\n".to_vec();
    for (data, args) in [
        (&input, &["-f", "jsonl"][..]),
        (&input, &["-f", "jsonl", "--invalid-utf8", "lossy"]),
        (&input, &["-f", "jsonl", "--group-by", "id"]),
        (
            &input,
            &["-f", "jsonl", "--group-by", "id", "--invalid-utf8", "lossy"],
        ),
        (&input, &["--emit", "stats", "--group-by", "id"]),
        (&tsv, &["-f", "jsonl"]),
        (&tsv, &["-f", "jsonl", "--invalid-utf8", "lossy"]),
    ] {
        let out = Cmd::new().args(args).stdin(data.clone()).run();
        assert!(!out.stdout.is_empty(), "{args:?}: {}", out.describe());
        for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let v: Result<Value, _> = serde_json::from_slice(line);
            assert!(
                v.is_ok_and(|v| v.is_object()),
                "{args:?}: {}",
                String::from_utf8_lossy(line)
            );
        }
        assert!(!out.stderr.contains(&0x1b), "{args:?}: {}", out.describe());
    }
}
