//! Behaviour of the binary on the project's own small inputs: framing, output formats, bad
//! lines, exit statuses, thread independence, live input and broken pipes. Runs on a fresh clone
//! (no `../shared` needed).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::util::{parse_float_hex, BleuParams, Cmd, BIN};

fn run(args: &[&str], stdin: &str) -> crate::util::Output {
    Cmd::new().args(args).stdin(stdin.as_bytes().to_vec()).run()
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bleu-stream-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The final corpus record of a JSONL run.
fn final_record(out: &crate::util::Output) -> Value {
    let records = out.jsonl().expect("JSONL output");
    let last = records.last().expect("a record").clone();
    assert_eq!(last["type"], "corpus", "{last}");
    assert_eq!(last["final"], true, "{last}");
    last
}

const TSV: &str = "The cat sat on the mat.\tThe cat sat on the mat.\n\
                   A dog barked loudly.\tThe dog barked.\n\
                   It rains.\tIt is raining today.\n";

#[test]
fn one_row_per_line_and_final_report_on_stderr() {
    let out = run(&[], TSV);
    out.assert_success();
    assert_eq!(out.stdout_str(), "100.00\n23.64\n17.80\n");
    let err = out.stderr_str();
    assert!(
        err.contains("\nBLEU = 60.32 80.0/58.3/55.6/66.7 (BP = 0.936 ratio = 0.938 hyp_len = 15 ref_len = 16)\n"),
        "{err}"
    );
    assert!(
        err.contains(
            "# BLEU signature: nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
        ),
        "{err}"
    );
    assert!(err.starts_with("# bleu-stream "), "{err}");
}

#[test]
fn sacrebleu_sample_vectors_are_exact() {
    // A sample of sacreBLEU 2.6.0's own outputs, kept in the repository (the full suite lives in
    // conformance_sacrebleu and needs ../shared).
    let text = std::fs::read_to_string("tests/data/sacrebleu_sample.jsonl").unwrap();
    let mut checked = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let params = BleuParams::from_json(&v["params"]);
        let hyps = v["hyps"].as_array().unwrap();
        let refs = v["refs"].as_array().unwrap();
        let mut input = String::new();
        for (i, h) in hyps.iter().enumerate() {
            let seg_refs: Vec<Value> = refs.iter().map(|stream| stream[i].clone()).collect();
            input.push_str(&json!({"hyp": h, "refs": seg_refs}).to_string());
            input.push('\n');
        }
        let mut args = params.cli_args();
        args.extend(["--input", "jsonl", "-f", "jsonl", "--corpus-only"].map(String::from));
        let sentence = v["level"] == "sentence";
        if sentence {
            args.retain(|a| a != "--corpus-only");
        }
        let out = Cmd::new().args(&args).stdin(input).run();
        out.assert_success();
        let records = out.jsonl().unwrap();
        let got = if sentence {
            records[0]["bleu"].clone()
        } else {
            final_record(&out)["bleu"].clone()
        };
        let expected = &v["expected"];
        let want = parse_float_hex(expected["score_hex"].as_str().unwrap()).unwrap();
        let score = got["score"].as_f64().unwrap();
        assert_eq!(
            score.to_bits(),
            want.to_bits(),
            "{}: {score} != {want}",
            v["id"]
        );
        for key in ["sys_len", "ref_len"] {
            assert_eq!(got[key], expected[key], "{} {key}", v["id"]);
        }
        for key in ["counts", "totals"] {
            let g: Vec<f64> = got[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            let e: Vec<f64> = expected[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            assert_eq!(g, e, "{} {key}", v["id"]);
        }
        if !sentence {
            assert_eq!(got["text"], expected["formatted"], "{}", v["id"]);
            assert_eq!(got["signature"], expected["signature"], "{}", v["id"]);
        }
        checked += 1;
    }
    assert_eq!(checked, 60);
}

#[test]
fn several_references_and_empty_reference_fields() {
    let out = run(&["-f", "jsonl"], "a b c d\t\ta b c d\n");
    out.assert_success();
    let recs = out.jsonl().unwrap();
    assert_eq!(recs[0]["bleu"]["ref_len"], 4);
    assert_eq!(
        final_record(&out)["bleu"]["signature"],
        "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    );
    // An empty field is an empty reference: the closest length to an empty hypothesis.
    let out = run(&["-f", "jsonl"], "\t\tx y\n");
    assert_eq!(out.jsonl().unwrap()[0]["bleu"]["ref_len"], 0);
}

#[test]
fn jsonl_input_ids_refs_and_null_references() {
    let input = concat!(
        "{\"id\": \"s1\", \"hyp\": \"a b c d\", \"refs\": [\"a b c d\", null]}\n",
        "{\"hyp\": \"a b\", \"ref\": \"a b\", \"id\": [1, {\"x\": 2}]}\n",
        "{\"hyp\": \"x\", \"refs\": [\"y\", \"z\"]}\n",
    );
    let out = run(&["-f", "jsonl"], input);
    out.assert_success();
    let recs = out.jsonl().unwrap();
    assert_eq!(recs[0]["id"], "s1");
    assert_eq!(recs[1]["id"], json!([1, {"x": 2}]));
    assert!(recs[2].get("id").is_none());
    assert_eq!(recs[0]["line"], 1);
    assert_eq!(recs[2]["line"], 3);
    // One segment had one reference, another two: sacreBLEU says nrefs:var.
    let sig = final_record(&out)["bleu"]["signature"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(sig.starts_with("nrefs:var|"), "{sig}");
}

#[test]
fn input_format_auto_detection_and_override() {
    let jsonl = "\n{\"hyp\": \"a b\", \"ref\": \"a b\"}\n";
    let out = run(&["-f", "jsonl"], jsonl);
    let recs = out.jsonl().unwrap();
    assert_eq!(recs[0]["type"], "error"); // the empty first line
    assert_eq!(recs[1]["type"], "segment");
    // Forced TSV: the JSON line has no TAB.
    let out = run(&["-f", "jsonl", "--input", "tsv"], jsonl);
    assert_eq!(out.jsonl().unwrap()[1]["type"], "error");
}

#[test]
fn line_ends_cr_and_missing_final_newline() {
    let out = run(&[], "a b c d\ta b c d\r\na b c d\ta b c x");
    out.assert_success();
    assert_eq!(out.stdout_str(), "100.00\n59.46\n");
}

#[test]
fn parallel_reference_files() {
    let dir = tempdir("parallel");
    let (hyp, r1, r2) = (dir.join("hyp"), dir.join("r1"), dir.join("r2"));
    std::fs::write(&hyp, "a b c d\ne f g h\n").unwrap();
    std::fs::write(&r1, "a b c d\nx\n").unwrap();
    std::fs::write(&r2, "z\ne f g h\n").unwrap();
    let (h, a, b) = (
        hyp.to_str().unwrap(),
        r1.to_str().unwrap(),
        r2.to_str().unwrap(),
    );
    let out = Cmd::new().args(["-r", a, "-r", b, h]).run();
    out.assert_success();
    assert_eq!(out.stdout_str(), "100.00\n100.00\n");
    // Hypotheses on stdin; the same as TSV input.
    let out2 = Cmd::new()
        .args(["-r", a, "-r", b])
        .stdin("a b c d\ne f g h\n")
        .run();
    assert_eq!(out2.stdout, out.stdout);
    let tsv = run(&[], "a b c d\ta b c d\tz\ne f g h\tx\te f g h\n");
    assert_eq!(tsv.stdout, out.stdout);
    assert_eq!(tsv.stderr, out.stderr);
    // Streams of different length: a row for every line (empty past the shorter stream's end,
    // a bad line naming it), then an error naming every stream's length.
    std::fs::write(&r2, "z\n").unwrap();
    let out = Cmd::new().args(["-r", a, "-r", b, h]).run();
    assert_eq!(out.code, Some(1));
    assert_eq!(out.stdout_str(), "100.00\n\n");
    let err = out.stderr_str();
    assert!(
        err.starts_with(&format!(
            "bleu-stream: warning: line 2: no reference 2: {b} ended after line 1\n"
        )),
        "{err}"
    );
    assert!(
        err.ends_with(&format!(
            "bleu-stream: error: {h}, {a} and {b} have different lengths (2, 2 and 1 lines)\n"
        )),
        "{err}"
    );
}

#[test]
fn score_only_corpus_only_width() {
    let out = run(&["-b"], TSV);
    assert_eq!(out.stdout_str(), "60.32\n");
    assert!(out.stderr.is_empty());
    let out = run(&["-b", "-w", "4"], TSV);
    assert_eq!(out.stdout_str(), "60.3195\n");
    let out = run(&["--corpus-only", "-w", "1"], TSV);
    let text = out.stdout_str();
    assert!(
        text.contains("\nBLEU = 60.3 80.0/58.3/55.6/66.7 (BP = 0.936"),
        "{text}"
    );
    assert!(out.stderr.is_empty());
    let out = run(&["--corpus-only", "-f", "jsonl"], TSV);
    let recs = out.jsonl().unwrap();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["segments"], 3);
    assert_eq!(recs[0]["bleu"]["counts"], json!([12, 7, 5, 4]));
    // Regression: several NLTK `--weights` sets printed only the first set's score with `-b`
    // (and in the group table), silently; now one per set, as the rows and the report give.
    let weights = [
        "-m",
        "nltk-bleu,bleu",
        "--weights",
        "1",
        "--weights",
        "0.5,0.5",
    ];
    let out = run(&[&weights[..], &["-b"]].concat(), "a b c\ta b d\n");
    assert_eq!(out.stdout_str(), "0.67\t0.58\n0.00\n", "{}", out.describe());
    let out = run(
        &[&weights[..], &["-b", "-f", "jsonl"]].concat(),
        "a b c\ta b d\n",
    );
    assert_eq!(
        out.stdout_str(),
        "{\"nltk-bleu\":[0.6666666666666666,0.5773502691896257],\"bleu\":0.0}\n"
    );
    let grouped = [
        &weights[..],
        &["--group-by", "col:1", "--refs", "1", "--corpus-only"],
    ];
    let out = run(&grouped.concat(), "g\ta b c\ta b d\n");
    assert!(
        out.stdout_str().contains("NLTK-BLEU  0.67/0.58"),
        "{}",
        out.describe()
    );
    // Bad combinations are usage errors with the tool's prefix.
    let out = run(&["-b", "--corpus-only"], TSV);
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr_str().starts_with("bleu-stream: error: "),
        "{}",
        out.stderr_str()
    );
}

#[test]
fn periodic_reports_every_n_lines() {
    let input: String = (0..10).map(|i| format!("a b c {i}\ta b c {i}\n")).collect();
    let out = run(&["-f", "jsonl", "--every", "4"], &input);
    let recs = out.jsonl().unwrap();
    let kinds: Vec<String> = recs
        .iter()
        .map(|r| match r["type"].as_str().unwrap() {
            "corpus" => format!("c{}", r["segments"]),
            t => t[..1].to_owned(),
        })
        .collect();
    assert_eq!(
        kinds,
        ["s", "s", "s", "s", "c4", "s", "s", "s", "s", "c8", "s", "s", "c10"]
    );
    assert_eq!(recs[4]["final"], false);
    // Text mode: running reports go to stderr, rows stay clean.
    let out = run(&["--every", "4"], &input);
    assert_eq!(out.stdout_str().lines().count(), 10);
    assert_eq!(out.stderr_str().matches("running report").count(), 2);
    assert_eq!(out.stderr_str().matches("final report").count(), 1);
}

#[test]
fn bad_lines_keep_rows_aligned_and_are_counted() {
    let input = b"a b\ta b\nno tab\n\xff\tx\n{\"hyp\": 1}\nc d\tc d\n".to_vec();
    let out = Cmd::new().stdin(input.clone()).run();
    // More bad lines than good ones: the rows and the report, then an error (status 1).
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(
        out.stderr_str()
            .contains("error: most lines were bad: 3 of 5 (see the warnings)"),
        "{}",
        out.describe()
    );
    let rows: Vec<&str> = std::str::from_utf8(&out.stdout)
        .unwrap()
        .split('\n')
        .collect();
    assert_eq!(rows, ["100.00", "", "", "", "100.00", ""]);
    let err = out.stderr_str();
    assert!(
        err.contains("bleu-stream: warning: line 2: no TAB"),
        "{err}"
    );
    assert!(
        err.contains("bleu-stream: warning: line 3: hypothesis: invalid UTF-8 at byte 1"),
        "{err}"
    );
    assert!(
        err.contains("bleu-stream: warning: line 4: no TAB"),
        "{err}"
    );
    assert!(
        err.contains("final report: 2 segments, 3 bad lines"),
        "{err}"
    );
    // JSONL: error records in place of the rows.
    let out = Cmd::new().args(["-f", "jsonl"]).stdin(input.clone()).run();
    let recs = out.jsonl().unwrap();
    let types: Vec<&str> = recs.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["segment", "error", "error", "error", "segment", "corpus"]
    );
    assert_eq!(recs[2]["line"], 3);
    assert_eq!(recs[5]["bad_lines"], 3);
    // skip: same rows, no diagnostics.
    let out = Cmd::new()
        .args(["--on-error", "skip", "-b"])
        .stdin(input.clone())
        .run();
    assert!(out.stderr.is_empty(), "{}", out.stderr_str());
    // fail: stop at the first bad line with status 2, final report over the lines before.
    let out = Cmd::new()
        .args(["--on-error", "fail"])
        .stdin(input.clone())
        .run();
    assert_eq!(out.code, Some(2));
    assert_eq!(out.stdout_str(), "100.00\n");
    let err = out.stderr_str();
    assert!(err.contains("bleu-stream: error: line 2: no TAB"), "{err}");
    assert!(err.contains("final report: 1 segment, 1 bad line"), "{err}");
    // lossy UTF-8 scores the line.
    let out = Cmd::new()
        .args(["--invalid-utf8", "lossy"])
        .stdin(input)
        .run();
    assert!(
        out.stdout_str().starts_with("100.00\n\n0.00\n"),
        "{}",
        out.stdout_str()
    );
}

#[test]
fn fixed_number_of_references() {
    let out = run(&["--refs", "2"], "a\ta\ta\na\ta\n");
    let err = out.stderr_str();
    assert_eq!(out.stdout_str().lines().count(), 2);
    assert!(
        err.contains("line 2: 2 fields where --refs 2 expects 3"),
        "{err}"
    );
}

#[test]
fn fail_under_sets_exit_status_3() {
    assert_eq!(run(&["-b", "--fail-under", "60.3"], TSV).code, Some(0));
    let out = run(&["-b", "--fail-under", "60.4"], TSV);
    assert_eq!(out.code, Some(3));
    assert!(
        out.stderr_str()
            .contains("BLEU 60.319507752048615 is below --fail-under 60.4"),
        "{}",
        out.stderr_str()
    );
}

/// TER is better when lower: `--fail-over` gates it, and a gate that points the wrong way for
/// the first metric is a usage error, not a silently inverted check.
#[test]
fn fail_over_gates_ter_and_wrong_direction_is_a_usage_error() {
    // sacreBLEU 2.6.0: TER().corpus_score(...) of TSV = 46.15384615384615.
    let out = run(&["-m", "ter", "-b", "--fail-over", "46.2"], TSV);
    assert_eq!(out.code, Some(0), "{}", out.stderr_str());
    assert_eq!(out.stdout_str(), "46.15\n");
    let out = run(&["-m", "ter", "-b", "--fail-over", "46.1"], TSV);
    assert_eq!(out.code, Some(3));
    assert!(
        out.stderr_str()
            .contains("TER 46.15384615384615 is above --fail-over 46.1"),
        "{}",
        out.stderr_str()
    );
    let out = run(&["-m", "ter", "-b", "--fail-under", "50"], TSV);
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr_str().contains("ter is better when lower")
            && out.stderr_str().contains("use --fail-over 50"),
        "{}",
        out.stderr_str()
    );
    assert_eq!(out.stdout_str(), "");
    let out = run(&["-b", "--fail-over", "50"], TSV);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr_str().contains("use --fail-under 50"));
    // The first metric decides: BLEU first, TER second.
    let out = run(&["-m", "bleu,ter", "-b", "--fail-under", "60.4"], TSV);
    assert_eq!(out.code, Some(3));
}

#[test]
fn usage_and_file_errors() {
    let out = run(&["--tokenize", "nope"], "");
    assert_eq!(out.code, Some(2));
    assert!(out
        .stderr_str()
        .starts_with("bleu-stream: error: invalid value 'nope'"));
    let out = run(&["--metrics", "bleu,nope"], "");
    assert_eq!(out.code, Some(2));
    assert!(out.stderr_str().contains("unknown metric 'nope'"));
    let out = run(&["/nonexistent/file"], "");
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stderr_str(),
        "bleu-stream: error: /nonexistent/file: No such file or directory\n"
    );
    let out = run(&["-", "-"], "");
    assert_eq!(out.code, Some(2));
    // A directory among the files is refused before any row, as a missing file is (it used to
    // fail at its first read, after the rows of the files before it). Regression test.
    let dir = crate::util::TempDir::new("dir-input");
    let f = dir.file_str("a.tsv", "a b\ta b\n");
    let d = dir.path().to_str().unwrap();
    let out = run(&[&f, d, &f], "");
    assert_eq!(out.code, Some(1), "{}", out.describe());
    assert!(out.stdout.is_empty(), "{}", out.describe());
    assert_eq!(
        out.stderr_str(),
        format!("bleu-stream: error: {d}: Is a directory\n")
    );
    assert!(run(&["--help"], "").stdout_str().contains("--every <N>"));
    assert!(run(&["-V"], "").stdout_str().starts_with("bleu-stream "));
}

/// A deterministic pseudo-random corpus with punctuation, numbers, CJK, empty fields and a
/// varying number of references (so it needs `--refs any`).
fn generated_corpus(lines: usize) -> String {
    let words = [
        "the",
        "cat",
        "sat",
        "on",
        "mat",
        ",",
        ".",
        "1,000.5",
        "don't",
        "5-6",
        "“quoted”",
        "猫",
        "が",
        "Σ",
        "état",
        "&amp;",
        "<skipped>",
        "x",
        "(a)",
        "!",
        "2019.",
        "",
        "über",
    ];
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut out = String::new();
    for _ in 0..lines {
        let fields = 2 + next(3);
        for f in 0..fields {
            if f > 0 {
                out.push('\t');
            }
            let len = next(30);
            let sentence: Vec<&str> = (0..len).map(|_| words[next(words.len())]).collect();
            out.push_str(&sentence.join(" "));
        }
        out.push('\n');
    }
    out
}

#[test]
fn output_is_identical_for_every_thread_count() {
    let input = generated_corpus(20_000);
    let reference = run(
        &["--refs", "any", "-f", "jsonl", "--every", "997", "-j", "1"],
        &input,
    );
    reference.assert_success();
    assert_eq!(reference.jsonl().unwrap().len(), 20_000 + 20 + 1);
    for threads in ["2", "3", "8"] {
        let out = run(
            &[
                "--refs", "any", "-f", "jsonl", "--every", "997", "-j", threads,
            ],
            &input,
        );
        assert!(
            out.stdout == reference.stdout,
            "stdout differs with -j {threads}"
        );
    }
    let text1 = run(&["--refs", "any", "-j", "1"], &input);
    let text4 = run(&["--refs", "any", "-j", "4"], &input);
    assert_eq!(text1.stdout, text4.stdout);
    assert_eq!(text1.stderr, text4.stderr);
}

#[test]
fn corpus_score_equals_sum_of_segment_statistics() {
    let input = generated_corpus(3_000);
    let out = run(
        &["--refs", "any", "-f", "jsonl", "--effective-order", "no"],
        &input,
    );
    let recs = out.jsonl().unwrap();
    let mut sums = [0u64; 10];
    for r in &recs[..recs.len() - 1] {
        let b = &r["bleu"];
        sums[0] += b["sys_len"].as_u64().unwrap();
        sums[1] += b["ref_len"].as_u64().unwrap();
        for k in 0..4 {
            sums[2 + k] += b["counts"][k].as_u64().unwrap();
            sums[6 + k] += b["totals"][k].as_u64().unwrap();
        }
    }
    let fin = &recs.last().unwrap()["bleu"];
    assert_eq!(fin["sys_len"], sums[0]);
    assert_eq!(fin["ref_len"], sums[1]);
    assert_eq!(fin["counts"], json!(sums[2..6]));
    assert_eq!(fin["totals"], json!(sums[6..10]));
}

#[test]
fn live_input_gets_each_row_before_more_input_arrives() {
    // A slow writer that never closes stdin until the end: every row must come back while the
    // writer waits (not when a batch fills or stdin closes), at any thread count, for single
    // lines and for bursts. Latencies are printed, not asserted (bench/latency.py measures them).
    for threads in ["1", "2", "8"] {
        let mut child = Command::new(BIN)
            .args(["-j", threads])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send((Instant::now(), line.unwrap())).is_err() {
                    break;
                }
            }
        });
        let mut delays = Vec::new();
        let mut line = 0;
        // Twenty single lines 20 ms apart, then five bursts of 50 lines written at once.
        let sizes = std::iter::repeat_n(1, 20).chain(std::iter::repeat_n(50, 5));
        for size in sizes {
            let sent = Instant::now();
            let burst: String = (line..line + size)
                .map(|i| format!("a b c {i}\ta b c {i}\n"))
                .collect();
            stdin.write_all(burst.as_bytes()).unwrap();
            stdin.flush().unwrap();
            for _ in 0..size {
                line += 1;
                let (at, row) = rx
                    .recv_timeout(Duration::from_secs(20))
                    .unwrap_or_else(|_| {
                        panic!("-j {threads}: no row for line {line} while the input stays open")
                    });
                assert_eq!(row, "100.00", "-j {threads}, line {line}");
                delays.push(at - sent);
            }
            thread::sleep(Duration::from_millis(20));
        }
        drop(stdin);
        assert!(child.wait().unwrap().success());
        delays.sort();
        eprintln!(
            "live rows (-j {threads}, {} rows): median {:?}, max {:?}",
            delays.len(),
            delays[delays.len() / 2],
            delays.last().unwrap()
        );
    }
}

#[test]
fn broken_pipe_exits_quietly() {
    let input = generated_corpus(50_000);
    let mut child = Command::new(BIN)
        .args(["--refs", "any"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 4];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout); // like `| head -c 4`
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    let _ = writer.join();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(
        !stderr.contains("error") && !stderr.contains("panic"),
        "{stderr}"
    );
}

#[test]
fn regression_score_only_keeps_stdout_for_the_number() {
    // -b with --every: running reports must not reach stdout (Makefile `$(shell …)` use).
    let input: String = (0..6).map(|i| format!("a b c {i}\ta b c {i}\n")).collect();
    for (format, want) in [
        ("text", "100.00\n"),
        ("jsonl", "{\"bleu\":100.00000000000004}\n"),
    ] {
        let out = run(&["-b", "--every", "2", "-f", format], &input);
        assert_eq!(out.stdout_str(), want, "format {format}");
        assert_eq!(out.stderr_str().matches("running report").count(), 3);
    }
}

#[test]
fn regression_stdin_only_once_across_all_streams() {
    let out = run(&["-r", "-", "-r", "-", "hyp.txt"], "");
    assert_eq!(out.code, Some(2));
    assert!(out
        .stderr_str()
        .contains("standard input ('-') can be read only once"));
    let out = run(&["-r", "ref.txt", "--input", "tsv"], "");
    assert_eq!(out.code, Some(2));
}

#[test]
fn regression_fail_under_rejects_nan_and_reports_full_precision() {
    assert_eq!(run(&["-b", "--fail-under", "nan"], TSV).code, Some(2));
    let out = run(&["-b", "--fail-under", "60.3196"], TSV);
    assert_eq!(out.code, Some(3));
    assert!(out
        .stderr_str()
        .contains("BLEU 60.319507752048615 is below --fail-under 60.3196"));
}

#[test]
fn regression_closed_stderr_does_not_panic() {
    let mut child = Command::new(BIN)
        .args(["--on-error", "fail"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"a\ta\nbad\n")
        .unwrap();
    // No panic (101). The bad line alone would be status 2, but the final report could not be
    // written to the closed stderr, and a lost report is status 1 like any write failure
    // (issue 19, point 6): nothing else could tell the caller.
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

/// Regression (output audit): a stdout or stderr closed when the program starts (`>&-`,
/// `2>&-`) was reopened on /dev/null by Rust's runtime, and `-b`'s score, a shard's stats
/// document, `merge`'s and `compare`'s output or the reports went nowhere with status 0. Now
/// such a write fails as on a closed descriptor (as GNU tools fail): status 1, and the reason
/// when stderr is open.
#[test]
fn output_to_a_descriptor_closed_at_start_fails() {
    let dir = tempfile::tempdir().unwrap();
    let tsv = dir.path().join("one.tsv");
    std::fs::write(&tsv, "the cat sat\tthe cat sat\n").unwrap();
    let doc = run(&["--emit", "stats"], "the cat sat\tthe cat sat\n").stdout;
    let stats = dir.path().join("doc.json");
    std::fs::write(&stats, doc).unwrap();
    let sh = |script: &str, args: &[&std::ffi::OsStr]| {
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(BIN)
            .args(args)
            .output()
            .unwrap()
    };
    let tsv = tsv.as_os_str();
    for args in [
        &[std::ffi::OsStr::new("-b"), tsv][..],
        &[std::ffi::OsStr::new("--emit"), "stats".as_ref(), tsv],
        &[tsv],
        &["merge".as_ref(), stats.as_os_str()],
        &[
            "compare".as_ref(),
            "-r".as_ref(),
            tsv,
            "-i".as_ref(),
            tsv,
            tsv,
        ],
        &["--help".as_ref()],
        &["--generate".as_ref(), "man".as_ref()],
    ] {
        let out = sh("exec \"$0\" \"$@\" >&-", args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("output: Bad file descriptor"),
            "{args:?}: {err}"
        );
    }
    // A report to a closed stderr is lost: status 1 (as for a full disk), the rows written.
    let out = sh("exec \"$0\" \"$@\" 2>&-", &[tsv]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(out.stdout, b"100.00\n");
    // Redirected to /dev/null is not closed.
    let out = sh("exec \"$0\" \"$@\" >/dev/null 2>/dev/null", &[tsv]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn regression_smoothing_value_shown_only_where_sacrebleu_shows_it() {
    let sig = |args: &[&str]| -> String {
        let out = run(&[args, &["--corpus-only", "-f", "jsonl"]].concat(), TSV);
        final_record(&out)["bleu"]["signature"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(sig(&["--smooth-value", "0.5"]).contains("|smooth:exp|"));
    assert!(sig(&["-s", "floor", "--smooth-value", "0.5"]).contains("|smooth:floor[0.50]|"));
    assert!(sig(&["-s", "add-k"]).contains("|smooth:add-k[1.00]|"));
}

#[test]
fn jsonl_refs_count_is_checked_with_refs_option() {
    let input = "{\"hyp\":\"a\",\"refs\":[\"a\",\"b\"]}\n{\"hyp\":\"a\",\"ref\":\"a\"}\n";
    let out = run(&["--refs", "2"], input);
    assert_eq!(out.stdout_str(), "100.00\n\n");
    assert!(out
        .stderr_str()
        .contains("line 2: 1 reference where --refs 2 expects 2"));
}

#[test]
fn a_tab_inside_a_sentence_is_a_bad_line_by_default() {
    // Like WMT22 uk-en reference A: one line has a TAB inside the sentence.
    let input = "a b\ta b\nc d\tc\td\ne f\te f\n";
    let out = run(&[], input);
    assert_eq!(out.stdout_str(), "100.00\n\n100.00\n");
    let err = out.stderr_str();
    assert!(
        err.contains("line 2: 3 fields but line 1 has 2: a TAB inside a sentence?"),
        "{err}"
    );
    // --refs any: the number of references may vary (the extra field is a reference).
    let out = run(&["--refs", "any", "-f", "jsonl"], input);
    let recs = out.jsonl().unwrap();
    assert_eq!(recs[1]["type"], "segment");
    assert!(final_record(&out)["bleu"]["signature"]
        .as_str()
        .unwrap()
        .starts_with("nrefs:var|"));
    // The first line with a TAB sets the count; earlier lines without one are bad on their own.
    let out = run(&[], "no tab\na\tb\tc\nd\te\tf\n");
    assert_eq!(out.stdout_str(), "\n0.00\n0.00\n");
    assert!(run(&["--refs", "0"], "")
        .stderr_str()
        .contains("neither a positive number"));
}

#[test]
fn over_long_lines_are_skipped_without_losing_alignment() {
    let long = format!("{}\tref\n", "x ".repeat(400_000));
    let input = format!("a b\ta b\n{long}c d\tc d\n");
    let out = run(&["--max-line-bytes", "64K"], &input);
    assert!(out.success(), "{}", out.describe());
    assert_eq!(out.stdout_str(), "100.00\n\n100.00\n");
    assert!(out.stderr_str().contains(&format!(
        "line 2: line of {} bytes is longer than --max-line-bytes: skipped",
        long.len() - 1
    )));
    // The same in parallel files: the record is bad, the streams stay in step.
    let dir = tempdir("long");
    let (hyp, reference) = (dir.join("hyp"), dir.join("ref"));
    std::fs::write(&hyp, format!("a b\n{}\nc d\n", "y".repeat(100_000))).unwrap();
    std::fs::write(&reference, "a b\nz\nc d\n").unwrap();
    let out = Cmd::new()
        .args(["--max-line-bytes", "1K", "-r", reference.to_str().unwrap()])
        .arg(&hyp)
        .run();
    assert_eq!(out.stdout_str(), "100.00\n\n100.00\n");
    assert!(
        out.stderr_str().contains("line 2: "),
        "{}",
        out.stderr_str()
    );
}

#[test]
fn byte_order_mark_does_not_hide_jsonl() {
    let out = run(&[], "\u{feff}{\"hyp\": \"a b\", \"ref\": \"a b\"}\n");
    assert_eq!(out.stdout_str(), "100.00\n");
}

// --- notes under --on-error fail ---

/// A sentence score NLTK cannot give ("NLTK raises …") is not a bad line: `--on-error fail`
/// warns about it as `warn` does, and goes on (exit 0, every row, the final report); `skip`
/// stays silent.
#[test]
fn regression_nltk_raises_warns_under_on_error_fail() {
    // nist rows follow NLTK sentence_nist, which divides by zero for a 2-token hypothesis.
    let input = "a b\ta b\na b c d e f\ta b c d e f\n";
    let warning = "bleu-stream: warning: line 1: nist: NLTK raises ZeroDivisionError";
    let mut stdout = Vec::new();
    for policy in ["warn", "fail", "skip"] {
        let out = run(&["-m", "nist,bleu", "--on-error", policy], input);
        assert!(out.success(), "{policy}: {}", out.describe());
        let err = out.stderr_str();
        assert_eq!(err.contains(warning), policy != "skip", "{policy}: {err}");
        assert!(!err.contains("error: line"), "{policy}: {err}");
        assert!(
            err.contains("final report: 2 segments, 0 bad lines"),
            "{policy}: {err}"
        );
        stdout.push(out.stdout_str());
    }
    assert_eq!(stdout[0], "\t100.00\n2.58\t100.00\n");
    assert!(stdout.iter().all(|s| *s == stdout[0]), "{stdout:?}");
    // The JSONL row carries the error under every policy.
    let out = run(&["-m", "nist", "--on-error", "fail", "-f", "jsonl"], input);
    assert!(out.success(), "{}", out.describe());
    let records = out.jsonl().expect("JSONL output");
    assert!(
        records[0]["nist"]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("NLTK raises ZeroDivisionError")),
        "{}",
        records[0]
    );
    assert!(out.stderr_str().contains(warning), "{}", out.stderr_str());
}

/// Regression (sacreBLEU audit): with `--chrf-whitespace`, JSONL strings were `rstrip`ped as
/// the sacreBLEU CLI strips lines of files, so `"a b "` against `"a b"` scored 100 where
/// `CHRF(whitespace=True).sentence_score("a b ", ["a b"])` gives 89.84375. JSONL strings are
/// scored as given; a TSV line is still a line of a file.
#[test]
fn chrf_whitespace_scores_jsonl_strings_as_given_and_tsv_lines_stripped() {
    let jsonl = run(
        &["-m", "chrf", "--chrf-whitespace", "-f", "jsonl"],
        "{\"hyp\": \"a b \", \"ref\": \"a b\"}\n",
    );
    let records = jsonl.jsonl().expect("JSONL output");
    assert_eq!(records[0]["chrf"]["score"].as_f64(), Some(89.84375));
    let tsv = run(&["-m", "chrf", "--chrf-whitespace", "-b"], "a b \ta b\n");
    assert_eq!(tsv.stdout_str(), "100.00\n", "{}", tsv.describe());
}

/// Regression (sacreBLEU audit): `--chrf-char-order 0` was refused ("not in 1..=64") where
/// sacreBLEU's `CHRF(char_order=0, word_order=2)` scores word n-grams only (numbers from
/// sacreBLEU 2.6.0); with no word order either it is a usage error.
#[test]
fn chrf_of_word_ngrams_only() {
    let input = "the cat sat\tthe cat sat on\na b c\ta b d\n";
    let out = run(
        &[
            "-m",
            "chrf",
            "--chrf-char-order",
            "0",
            "--chrf-word-order",
            "2",
            "-f",
            "jsonl",
        ],
        input,
    );
    let records = out.jsonl().expect("JSONL output");
    let scores: Vec<f64> = records
        .iter()
        .map(|r| r["chrf"]["score"].as_f64().unwrap())
        .collect();
    assert_eq!(
        scores,
        [75.22123893805309, 58.33333333333333, 68.02615193026152]
    );
    let out = run(&["-m", "chrf", "--chrf-char-order", "0"], input);
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str()
            .contains("--chrf-char-order 0 needs a word order (--chrf-word-order 1 or more)"),
        "{}",
        out.describe()
    );
}

/// Regression (NLTK audit): smoothing method 4 computes `2**κ * k / math.log(T)`, an int
/// divided by a float, so an int `k` beyond the double range raises `int.__float__`'s
/// message; bleu-stream gave the int-by-int division's. `--epsilon` under method 1 is an int
/// division in NLTK too, and keeps its message.
#[test]
fn an_int_too_large_for_a_float_raises_pythons_message() {
    let k = format!("{}", num_bigint::BigUint::from(1u8) << 1030usize);
    let input = "a b c d e f\ta b c x y z\n";
    for (args, says) in [
        (
            ["--nltk-smoothing", "4", "--k"],
            "NLTK raises OverflowError: int too large to convert to float",
        ),
        (
            ["--nltk-smoothing", "1", "--epsilon"],
            "NLTK raises OverflowError: integer division result too large for a float",
        ),
    ] {
        let out = run(
            &[
                "-m",
                "nltk-bleu",
                "-f",
                "jsonl",
                args[0],
                args[1],
                args[2],
                &k,
            ],
            input,
        );
        let records = out.jsonl().expect("JSONL output");
        assert_eq!(
            records[0]["nltk-bleu"]["error"].as_str(),
            Some(says),
            "{args:?}: {}",
            out.describe()
        );
    }
}

#[test]
fn parallel_files_of_different_lengths_follow_on_error() {
    let dir = tempdir("parallel-lengths");
    let (long, short) = (dir.join("long.txt"), dir.join("short.txt"));
    std::fs::write(&long, "a b c d\ne f g h\ni j\nk l\n").unwrap();
    std::fs::write(&short, "a b c d\ne f g h\n").unwrap();
    let (long, short) = (long.to_str().unwrap(), short.to_str().unwrap());
    // (hypothesis file, reference file, what is missing past line 2)
    let cases = [
        (
            long,
            short,
            format!("no reference: {short} ended after line 2"),
        ),
        (
            short,
            long,
            format!("no hypothesis: {short} ended after line 2"),
        ),
    ];
    for (hyp, reference, missing) in &cases {
        let lengths = if *hyp == long { "4 and 2" } else { "2 and 4" };
        let error = format!(
            "bleu-stream: error: {hyp} and {reference} have different lengths ({lengths} lines)\n"
        );
        let run = |policy: &str, format: &str| {
            Cmd::new()
                .args(["-r", reference, hyp, "--on-error", policy, "-f", format])
                .run()
        };
        let case = format!("hyp {hyp}, ref {reference}");

        // warn: a row for every line, a diagnostic per missing line, then the lengths error.
        let out = run("warn", "text");
        assert_eq!(out.code, Some(1), "{case}: {}", out.describe());
        assert_eq!(out.stdout_str(), "100.00\n100.00\n\n\n", "{case}");
        let err = out.stderr_str();
        let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
        assert_eq!(
            warnings,
            [
                format!("bleu-stream: warning: line 3: {missing}"),
                format!("bleu-stream: warning: line 4: {missing}")
            ],
            "{case}"
        );
        assert!(
            err.contains("final report: 2 segments, 2 bad lines\n"),
            "{case}: {err}"
        );
        assert!(err.ends_with(&error), "{case}: {err}");

        // skip: the same rows, no diagnostic per line, the same error and status.
        let out = run("skip", "text");
        assert_eq!(out.code, Some(1), "{case}: {}", out.describe());
        assert_eq!(out.stdout_str(), "100.00\n100.00\n\n\n", "{case}");
        let err = out.stderr_str();
        assert!(!err.contains("warning"), "{case}: {err}");
        assert!(
            err.contains("final report: 2 segments, 2 bad lines\n"),
            "{case}: {err}"
        );
        assert!(err.ends_with(&error), "{case}: {err}");

        // fail: stops at the first missing line, status 2, like any bad line.
        let out = run("fail", "text");
        assert_eq!(out.code, Some(2), "{case}: {}", out.describe());
        assert_eq!(out.stdout_str(), "100.00\n100.00\n", "{case}");
        let err = out.stderr_str();
        assert!(
            err.starts_with(&format!("bleu-stream: error: line 3: {missing}\n")),
            "{case}: {err}"
        );
        assert!(
            err.contains("final report: 2 segments, 1 bad line\n"),
            "{case}: {err}"
        );
        assert!(!err.contains("different lengths"), "{case}: {err}");

        // JSON Lines: an error record per missing line; the final report counts them.
        for (policy, code, bad) in [("warn", 1, 2), ("skip", 1, 2), ("fail", 2, 1)] {
            let out = run(policy, "jsonl");
            assert_eq!(out.code, Some(code), "{case} {policy}: {}", out.describe());
            let records = out.jsonl().unwrap();
            let types: Vec<&str> = records
                .iter()
                .map(|r| r["type"].as_str().unwrap())
                .collect();
            let mut want = vec!["segment", "segment"];
            want.extend(std::iter::repeat_n("error", bad));
            want.push("corpus");
            assert_eq!(types, want, "{case} {policy}");
            for (i, record) in records[2..2 + bad].iter().enumerate() {
                assert_eq!(
                    record,
                    &json!({"type": "error", "line": 3 + i, "message": missing}),
                    "{case} {policy}"
                );
            }
            let last = final_record(&out);
            assert_eq!(
                (last["segments"].as_u64(), last["bad_lines"].as_u64()),
                (Some(2), Some(bad as u64)),
                "{case} {policy}"
            );
            let err = out.stderr_str();
            assert_eq!(
                err.ends_with(&error),
                policy != "fail",
                "{case} {policy}: {err}"
            );
        }
    }
}

#[test]
fn parallel_hypotheses_on_stdin_longer_than_the_references() {
    let dir = tempdir("parallel-stdin");
    let reference = dir.join("ref.txt");
    std::fs::write(&reference, "a b c d\n").unwrap();
    let reference = reference.to_str().unwrap();
    let out = Cmd::new()
        .args(["-r", reference, "-f", "jsonl"])
        .stdin("a b c d\ne f g h")
        .run();
    assert_eq!(out.code, Some(1), "{}", out.describe());
    let records = out.jsonl().unwrap();
    assert_eq!(
        records[1],
        json!({"type": "error", "line": 2,
               "message": format!("no reference: {reference} ended after line 1")})
    );
    assert!(
        out.stderr_str().ends_with(&format!(
            "bleu-stream: error: <stdin> and {reference} have different lengths (2 and 1 lines)\n"
        )),
        "{}",
        out.stderr_str()
    );
}

// --- bad input (issue 6) ---

/// A JSON line of the wrong shape is valid JSON: the diagnostic names the key and the type it
/// holds instead of calling the line "invalid JSON"; a line that is not JSON at all says so, with
/// the column. Either way the line is a bad line with an error record.
#[test]
fn json_of_the_wrong_type_is_a_schema_error_not_invalid_json() {
    let input = "{\"hyp\": \"a b\", \"ref\": \"a b\"}\n\
                 {\"hyp\": 5, \"refs\": [\"a\"]}\n\
                 {\"hyp\": \"a\", \"refs\": \"a\"}\n\
                 {\"hyp\": \"a\", \"refs\": [\"a\", 7]}\n\
                 {\"hyp\": \"a\", \"ref\": [\"a\"]}\n\
                 {\"hyp\": \"a\", \"ref\": \"a\", \"hyp\": \"b\"}\n\
                 {\"hyp\": 5, \"refs\": [\"a\"\n\
                 [\"a\", [\"a\"]]\n";
    let out = run(&["-f", "jsonl"], input);
    // Seven bad lines of eight: every record, then an error (status 1).
    assert_eq!(out.code, Some(1), "{}", out.describe());
    let messages = [
        "\"hyp\" must be a string, not a number",
        "\"refs\" must be an array of strings, not a string (\"ref\" takes one reference as a \
         string)",
        "\"refs\" must be an array of strings (or nulls), but reference 2 is a number",
        "\"ref\" must be a string, not an array (\"refs\" takes an array of references)",
        "\"hyp\" given twice",
        "invalid JSON: EOF while parsing a list (column 23)",
        "not a JSON object: an array (a record is {\"hyp\": ..., \"refs\": [...]})",
    ];
    let records = out.jsonl().expect("JSONL output");
    assert_eq!(records.len(), 9, "{}", out.stdout_str());
    for (i, message) in messages.iter().enumerate() {
        let line = i + 2;
        assert_eq!(
            records[i + 1],
            json!({"type": "error", "line": line, "message": message})
        );
        assert!(
            out.stderr_str()
                .contains(&format!("bleu-stream: warning: line {line}: {message}\n")),
            "{}",
            out.stderr_str()
        );
    }
    assert!(!out.stderr_str().contains("invalid type"));
    assert_eq!(final_record(&out)["bad_lines"], 7);
}

/// The warning for a byte order mark kept in the text.
fn bom_warning(line: u64, subject: &str) -> String {
    format!(
        "bleu-stream: warning: line {line}: {subject} with a byte order mark (U+FEFF); it is \
         scored as part of the first word, as sacreBLEU does\n"
    )
}

/// A UTF-8 byte order mark at the start of a TSV line stays part of the first word, as in
/// sacreBLEU (Python's `utf-8` codec keeps U+FEFF), so the line scores lower: one warning says
/// why. It is not a bad line: scored and counted under every `--on-error` policy, and only
/// `skip` silences the warning.
#[test]
fn byte_order_mark_in_tsv_is_scored_like_sacrebleu_with_a_warning() {
    // sacrebleu.sentence_bleu("\ufeffthe cat sat", ["the cat sat"]).score = 55.03212081491043
    let input = "\u{feff}the cat sat\tthe cat sat\r\nhello world\thello world\r\n";
    for policy in ["warn", "skip", "fail"] {
        let out = run(&["--on-error", policy], input);
        assert!(out.success(), "{policy}: {}", out.describe());
        assert_eq!(out.stdout_str(), "55.03\n100.00\n", "{policy}");
        let err = out.stderr_str();
        assert_eq!(
            err.contains(&bom_warning(1, "starts")),
            policy != "skip",
            "{policy}: {err}"
        );
        assert_eq!(
            err.matches("warning").count(),
            usize::from(policy != "skip")
        );
        assert!(
            err.contains("final report: 2 segments, 0 bad lines"),
            "{err}"
        );
    }
    let out = run(&["-f", "jsonl"], input);
    let records = out.jsonl().expect("JSONL output");
    assert_eq!(records[0]["type"], "segment");
    assert_eq!(records[0]["bleu"]["score"], json!(55.03212081491043));
    // The same data as JSONL: the mark before the JSON text is skipped (not text), but one
    // inside the "hyp" string is text and warned about the same way.
    let out = run(
        &[],
        "\u{feff}{\"hyp\": \"the cat sat\", \"ref\": \"the cat sat\"}\n",
    );
    assert_eq!(out.stdout_str(), "100.00\n");
    assert!(
        !out.stderr_str().contains("warning"),
        "{}",
        out.stderr_str()
    );
    let out = run(
        &[],
        "{\"hyp\": \"\\ufeffthe cat sat\", \"ref\": \"the cat sat\"}\n",
    );
    assert_eq!(out.stdout_str(), "55.03\n");
    assert!(out.stderr_str().starts_with(&bom_warning(1, "starts")));
    // `paste hyp ref` of a reference file with a mark: field 2; `cat a.tsv b.tsv`: the first
    // line of the second file.
    let out = run(&[], "a b\t\u{feff}a b\nc d\tc d\n\u{feff}e f\te f\n");
    let err = out.stderr_str();
    assert!(
        err.starts_with(&bom_warning(1, "reference 1 starts")),
        "{err}"
    );
    assert!(err.contains(&bom_warning(3, "starts")), "{err}");
    // A line of nothing but the mark is an empty line (a bad line), not a warning about it.
    let out = run(&[], "\u{feff}\na\ta\n");
    assert!(out
        .stderr_str()
        .starts_with("bleu-stream: warning: line 1: empty line\n"));
}

/// Reference files (`-r`) and the hypothesis file: the warning names the stream that has the
/// mark; scores are sacreBLEU's (`sacrebleu ref -i hyp` keeps the mark too).
#[test]
fn byte_order_mark_in_parallel_files_names_the_stream() {
    let dir = tempdir("bom-parallel");
    let (hyp, r1, r2) = (dir.join("hyp"), dir.join("r1"), dir.join("r2"));
    std::fs::write(&hyp, "the cat sat\nhello world\n").unwrap();
    std::fs::write(&r1, "\u{feff}the cat sat\r\nhello world\r\n").unwrap();
    std::fs::write(&r2, "a dog\nhello world\n").unwrap();
    let (h, a, b) = (
        hyp.to_str().unwrap(),
        r1.to_str().unwrap(),
        r2.to_str().unwrap(),
    );
    let out = Cmd::new().args(["-r", a, h]).run();
    out.assert_success();
    // sacrebleu.sentence_bleu("the cat sat", ["\ufeffthe cat sat"]).score
    assert_eq!(out.stdout_str(), "55.03\n100.00\n");
    assert!(
        out.stderr_str()
            .starts_with(&bom_warning(1, "reference 1 starts")),
        "{}",
        out.stderr_str()
    );
    let out = Cmd::new().args(["-r", b, "-r", a, a]).run();
    out.assert_success();
    assert!(
        out.stderr_str()
            .starts_with(&bom_warning(1, "hypothesis and reference 2 start")),
        "{}",
        out.stderr_str()
    );
    assert_eq!(out.stderr_str().matches("warning").count(), 1);
    let out = Cmd::new().args(["-r", a, h, "--on-error", "skip"]).run();
    out.assert_success();
    assert!(
        !out.stderr_str().contains("warning"),
        "{}",
        out.stderr_str()
    );
}

/// Output that cannot be written (a full disk, `/dev/full`) is exit status 1 with one error
/// line, for rows, `-b` and JSONL alike, also when it fails while workers are still busy.
#[test]
fn a_failed_write_to_stdout_is_exit_status_1_with_one_error_line() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full");
        return;
    }
    let many = "the cat sat on the mat\tthe cat sat on a mat\n".repeat(200_000);
    let cases: [(&[&str], &str); 5] = [
        (&[], TSV),
        (&["-b"], TSV),
        (&["-f", "jsonl"], TSV),
        (&["--corpus-only"], TSV),
        (&["--threads", "2"], &many),
    ];
    for (args, input) in cases {
        assert_full_disk_fails(args, input);
    }
}

/// Runs bleu-stream with `args` and `stdin` with its standard output on `/dev/full`, and asserts
/// the one outcome any output that cannot be written has: status 1, one error line.
fn assert_full_disk_fails(args: &[&str], stdin: &str) {
    let out = Cmd::program("sh")
        .args(["-c", "exec \"$0\" \"$@\" > /dev/full", BIN])
        .args(args)
        .stdin(stdin.as_bytes().to_vec())
        .run();
    assert_eq!(out.code, Some(1), "{args:?}: {}", out.describe());
    assert_eq!(
        out.stderr_str(),
        "bleu-stream: error: writing output: No space left on device\n",
        "{args:?}"
    );
}

/// `--help` and `--version` that cannot be written are the same error as any other output
/// (they exited 0 with the text lost), for every command; the sacreBLEU drop-in's own help and
/// its results too (sacreBLEU exits 0 on a lost `--help`, 120 on lost results). A closed pipe
/// stays a quiet success.
#[test]
fn help_that_cannot_be_written_is_exit_status_1() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full");
        return;
    }
    let dir = crate::util::TempDir::new("help-full");
    let refs = dir.file_str("ref.txt", "the cat sat on the mat\n");
    let cases: [&[&str]; 8] = [
        &["--help"],
        &["-h"],
        &["--version"],
        &["merge", "--help"],
        &["compare", "--help"],
        &["sacrebleu", "--help"],
        &["sacrebleu", "--version"],
        &["sacrebleu", &refs, "-i", &refs],
    ];
    for args in cases {
        assert_full_disk_fails(args, "");
        // The controls: written to a pipe, the same command succeeds, and a reader that went
        // away (`| head -1`; here gone before the first write) is no error, as for rows; the
        // drop-in ends by SIGPIPE there, as sacreBLEU does (141 under pipefail, as sacreBLEU's
        // `--help`, `--version` and scores measured).
        run(args, "").assert_success();
        let out = Cmd::program("bash")
            .args([
                "-c",
                "set -o pipefail; { sleep 0.2; \"$0\" \"$@\"; } | true",
                BIN,
            ])
            .args(args)
            .run();
        let status = if args[0] == "sacrebleu" { 141 } else { 0 };
        assert_eq!(
            out.code,
            Some(status),
            "{args:?} | true: {}",
            out.describe()
        );
        assert_eq!(out.stderr_str(), "", "{args:?} | true");
    }
}

/// `--lowercase` reaches every metric (audit 2026-11-26: nltk-chrf and nist with split tokens
/// accepted it and scored the original case). Expected values are NLTK 3.10.4 on the
/// `str.lower()` strings: `sentence_chrf('abc def', 'abc def')` = 1.0 (0.0888… without
/// lowercasing) and `sentence_nist([['a', …, 'f']], ['a', …, 'f'])` = 2.584962500721156 (the
/// upper-case hypothesis matches nothing otherwise).
#[test]
fn lowercase_applies_to_nltk_chrf_and_split_nist() {
    let cases: [(&[&str], &str, &str, &str); 2] = [
        (
            &["-m", "nltk-chrf"],
            "ABC Def\tabc def\n",
            "1.00000000000000000",
            "NLTK-chrF signature: nrefs:1|case:lc|",
        ),
        (
            &[
                "-m",
                "nist",
                "--nist-compat",
                "nltk",
                "--nist-tokenize",
                "none",
            ],
            "A B C D E F\ta b c d e f\n",
            "2.58496250072115608",
            "NLTK-NIST signature: nrefs:1|case:lc|tok:split|",
        ),
    ];
    for (args, input, lowered, signature) in cases {
        let plain = run(&[args, &["-w", "17"]].concat(), input);
        plain.assert_success();
        assert_ne!(
            plain.stdout_str().trim(),
            lowered,
            "{args:?} ignores case already?"
        );
        assert!(
            plain
                .stderr_str()
                .contains(&signature.replace("case:lc", "case:mixed")),
            "{}",
            plain.stderr_str()
        );
        let out = run(&[args, &["-w", "17", "--lowercase"]].concat(), input);
        out.assert_success();
        assert_eq!(out.stdout_str().trim(), lowered, "{args:?}");
        assert!(out.stderr_str().contains(signature), "{}", out.stderr_str());
    }
    // mteval's own tokenization folds case itself; its -c keeps case whatever -l says, and
    // the signature says so.
    let kept = run(
        &["-m", "mteval-bleu", "--case-sensitive", "--lowercase"],
        "A B C D\ta b c d\n",
    );
    kept.assert_success();
    assert!(
        kept.stderr_str().contains("case:mixed"),
        "{}",
        kept.stderr_str()
    );
}

/// Regression (audit 2026-11-27): NLTK chrF's report said "(1 sentences)".
#[test]
fn nltk_chrf_report_counts_sentences_in_english() {
    let one = run(&["-m", "nltk-chrf", "--corpus-only"], "a b\ta b\n");
    assert!(
        one.stdout_str().contains(" (1 sentence)"),
        "{}",
        one.describe()
    );
    let two = run(&["-m", "nltk-chrf", "--corpus-only"], "a b\ta b\nc\tc\n");
    assert!(
        two.stdout_str().contains(" (2 sentences)"),
        "{}",
        two.describe()
    );
}

/// Regression (numeric-extremes audit, 2026-11-27): an interval of an infinite score printed
/// Rust's `NaN`; Python spells it `nan`, as the scores are.
#[test]
fn a_nan_interval_is_spelled_as_python_spells_it() {
    let input = "a b c d\ta b c e\nx y z\tx y z w\n";
    let args = ["-s", "add-k", "--smooth-value", "1e308", "--confidence"];
    let out = run(&[&args[..], &["-b"]].concat(), input);
    out.assert_success();
    assert_eq!(out.stdout_str(), "inf (μ = inf ± nan)\n");
    let out = run(&args, input);
    out.assert_success();
    assert!(
        out.stderr_str()
            .contains("BLEU = inf (μ = inf ± nan) 85.7/inf"),
        "{}",
        out.describe()
    );
}

/// Lines are numbered across all input files (rows and JSONL error records follow that
/// numbering), so with several files a diagnostic also names the file and the line's own number
/// there: `line 3` alone sent a user of `bleu-stream a.tsv b.tsv` to a two-line b.tsv's
/// nonexistent line 3. One file, or `-r`, keeps `line N`; `--first-line` shifts the numbers
/// across all files, not the file's own.
#[test]
fn diagnostics_with_several_files_name_the_file_and_its_line() {
    let dir = tempdir("several-files");
    let (a, b) = (dir.join("a.tsv"), dir.join("b.tsv"));
    std::fs::write(&a, "a b\ta b\n").unwrap();
    std::fs::write(&b, "x y\tx y\nbad\n").unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = Cmd::new().args([a, b]).run();
    out.assert_success();
    assert_eq!(out.stdout_str(), "100.00\n100.00\n\n", "{}", out.describe());
    assert!(
        out.stderr_str()
            .starts_with(&format!("bleu-stream: warning: line 3 ({b}:2): no TAB")),
        "{}",
        out.stderr_str()
    );
    let out = Cmd::new()
        .args([
            "--on-error",
            "fail",
            "--first-line",
            "101",
            "-f",
            "jsonl",
            a,
            b,
        ])
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str()
            .starts_with(&format!("bleu-stream: error: line 103 ({b}:2): no TAB")),
        "{}",
        out.stderr_str()
    );
    assert!(
        out.stdout_str().contains("\"line\":103"),
        "{}",
        out.stdout_str()
    );
    // Standard input among the files is named as such.
    let out = Cmd::new().args(["-", b]).stdin("c\tc\nd\td\n").run();
    assert!(
        out.stderr_str()
            .starts_with(&format!("bleu-stream: warning: line 4 ({b}:2): no TAB")),
        "{}",
        out.stderr_str()
    );
    let out = Cmd::new().args(["-", a]).stdin("c\nd\td\n").run();
    assert!(
        out.stderr_str()
            .starts_with("bleu-stream: warning: line 1 (<stdin>:1): no TAB"),
        "{}",
        out.stderr_str()
    );
    // One file: the number alone.
    let out = Cmd::new().args([b]).run();
    assert!(
        out.stderr_str()
            .starts_with("bleu-stream: warning: line 2: no TAB"),
        "{}",
        out.stderr_str()
    );
}

/// "N fields but line L has K" names the line that set the number of fields in the numbering
/// the diagnostic itself uses, `--first-line` included (review: it said `line 1` of a run
/// numbered from 100).
#[test]
fn field_count_message_names_the_line_with_first_line() {
    let out = run(&["--first-line", "100"], "a\ta\nb\tb\tc\n");
    assert!(
        out.stderr_str().starts_with(
            "bleu-stream: warning: line 101: 3 fields but line 100 has 2: a TAB inside a sentence?"
        ),
        "{}",
        out.stderr_str()
    );
}
