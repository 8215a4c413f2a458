//! `--confidence`: bootstrap and streaming (Poisson) intervals, their output forms, thread and
//! shard independence. Runs on a fresh clone (generated input).

use serde_json::Value;

use crate::util::{Cmd, Output};

/// `n` generated TSV lines (hyp, ref) of varying overlap, deterministic.
fn corpus(n: usize) -> String {
    let words = [
        "the", "a", "cat", "dog", "sat", "ran", "on", "under", "mat", "tree", "today", "quickly",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = String::new();
    for _ in 0..n {
        let len = 3 + (next() % 8) as usize;
        let reference: Vec<&str> = (0..len)
            .map(|_| words[(next() % words.len() as u64) as usize])
            .collect();
        let hyp: Vec<&str> = reference
            .iter()
            .map(|&w| {
                if next() % 4 == 0 {
                    words[(next() % words.len() as u64) as usize]
                } else {
                    w
                }
            })
            .collect();
        out.push_str(&hyp.join(" "));
        out.push('\t');
        out.push_str(&reference.join(" "));
        out.push('\n');
    }
    out
}

fn run(args: &[&str], stdin: &str) -> Output {
    Cmd::new().args(args).stdin(stdin.as_bytes().to_vec()).run()
}

/// The metric objects of the final JSONL corpus record.
fn final_metric(out: &Output, key: &str) -> Value {
    let records = out.jsonl().expect("JSONL output");
    let last = records.last().expect("a record");
    assert_eq!(last["type"], "corpus", "{last}");
    last[key].clone()
}

#[test]
fn bootstrap_interval_in_every_output_form() {
    let input = corpus(300);
    let out = run(&["--confidence", "--corpus-only"], &input);
    out.assert_success();
    let text = out.stdout_str();
    let line = text.lines().find(|l| l.starts_with("BLEU = ")).unwrap();
    // sacreBLEU's form: `BLEU = 34.82 (μ = 34.79 ± 1.21) 67.4/…`.
    let rest = line.strip_prefix("BLEU = ").unwrap();
    let (score, rest) = rest.split_once(' ').unwrap();
    assert!(score.parse::<f64>().is_ok(), "{line}");
    assert!(rest.starts_with("(\u{3bc} = "), "{line}");
    assert!(rest.contains(" \u{b1} "), "{line}");
    assert!(
        text.contains("# BLEU signature: nrefs:1|bs:1000|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"),
        "{text}"
    );

    let out = run(&["--confidence", "-b", "-m", "bleu,chrf"], &input);
    out.assert_success();
    for line in out.stdout_str().lines() {
        let (score, ci) = line.split_once(' ').unwrap();
        assert!(score.parse::<f64>().is_ok(), "{line}");
        assert!(ci.starts_with("(\u{3bc} = ") && ci.ends_with(')'), "{line}");
    }

    let out = run(&["--confidence", "--corpus-only", "-f", "jsonl"], &input);
    out.assert_success();
    let bleu = final_metric(&out, "bleu");
    let c = &bleu["confidence"];
    assert_eq!(c["method"], "bootstrap");
    assert_eq!(c["samples"], 1000);
    assert_eq!(c["seed"], 12345);
    let (mean, ci, lower, upper) = (
        c["mean"].as_f64().unwrap(),
        c["ci"].as_f64().unwrap(),
        c["lower"].as_f64().unwrap(),
        c["upper"].as_f64().unwrap(),
    );
    assert!(lower <= mean && mean <= upper, "{c}");
    assert_eq!(ci, 0.5 * (upper - lower));
    assert!(ci > 0.0, "{c}");
    let score = bleu["score"].as_f64().unwrap();
    assert!((mean - score).abs() < 4.0 * ci, "{bleu}");
}

#[test]
fn identical_segments_have_no_spread() {
    let input = "a b c d e\ta b c d x\n".repeat(50);
    let out = run(&["--confidence", "--corpus-only", "-f", "jsonl"], &input);
    out.assert_success();
    let bleu = final_metric(&out, "bleu");
    let c = &bleu["confidence"];
    // Every resample sums the same statistics: the corpus score, exactly, every time.
    assert_eq!(c["ci"].as_f64(), Some(0.0), "{c}");
    assert_eq!(c["lower"], bleu["score"], "{bleu}");
    assert_eq!(c["upper"], bleu["score"], "{bleu}");
}

#[test]
fn intervals_do_not_depend_on_threads_and_follow_the_seed() {
    let input = corpus(400);
    for method in ["--confidence", "--confidence=streaming"] {
        let base = [
            "-m",
            "bleu,chrf,gleu",
            "--every",
            "150",
            "-f",
            "jsonl",
            method,
        ];
        let one = run(&[&base[..], &["--threads", "1"]].concat(), &input);
        let four = run(&[&base[..], &["--threads", "4"]].concat(), &input);
        one.assert_success();
        four.assert_success();
        assert_eq!(one.stdout, four.stdout, "{method}");
        let other_seed = run(&[&base[..], &["--seed", "7"]].concat(), &input);
        other_seed.assert_success();
        assert_ne!(
            one.stdout, other_seed.stdout,
            "{method}: the seed changes nothing"
        );
    }
}

#[test]
fn streaming_intervals_in_running_reports_bootstrap_only_at_the_end() {
    let input = corpus(300);
    for (method, running) in [("--confidence=streaming", true), ("--confidence", false)] {
        let out = run(
            &[method, "--every", "100", "-f", "jsonl", "--corpus-only"],
            &input,
        );
        out.assert_success();
        let reports: Vec<Value> = out
            .jsonl()
            .unwrap()
            .into_iter()
            .filter(|r| r["type"] == "corpus")
            .collect();
        assert_eq!(reports.len(), 4, "{method}");
        for r in &reports[..3] {
            assert_eq!(r["final"], false);
            assert_eq!(
                r["bleu"]["confidence"].is_object(),
                running,
                "{method}: {r}"
            );
        }
        let last = &reports[3]["bleu"];
        assert!(last["confidence"].is_object(), "{method}: {last}");
        let expected = if running { "poisson" } else { "bootstrap" };
        assert_eq!(last["confidence"]["method"], expected);
        if running {
            assert!(last["signature"]
                .as_str()
                .unwrap()
                .starts_with("nrefs:1|bs:1000|seed:12345|resample:poisson|"));
        }
    }
}

#[test]
fn metrics_without_a_vector_form_are_refused() {
    for metric in [
        "nist",
        "nltk-bleu",
        "nltk-chrf",
        "multi-bleu",
        "mteval-bleu",
    ] {
        let out = run(&["--confidence", "-m", metric], "a b\ta b\n");
        assert_eq!(out.code, Some(2), "{metric}: {}", out.describe());
        assert!(
            out.stderr_str()
                .contains(&format!("--confidence: {metric} cannot be resampled")),
            "{}",
            out.stderr_str()
        );
    }
    // `--confidence FILE` would be ambiguous: the method must be attached.
    let out = run(&["--confidence", "streaming"], "");
    assert_ne!(out.code, Some(0));
}

fn shards(input: &str, sizes: &[usize]) -> Vec<String> {
    let lines: Vec<&str> = input.lines().collect();
    let mut out = Vec::new();
    let mut start = 0;
    for &n in sizes {
        let end = (start + n).min(lines.len());
        out.push(lines[start..end].iter().map(|l| format!("{l}\n")).collect());
        start = end;
    }
    out.push(lines[start..].iter().map(|l| format!("{l}\n")).collect());
    out
}

#[test]
fn resampled_shards_merge_into_the_one_run_interval() {
    let input = corpus(500);
    let metrics = ["-m", "bleu,chrf,gleu"];
    for method in ["--confidence", "--confidence=streaming"] {
        let one = run(
            &[&metrics[..], &[method, "--corpus-only", "-f", "jsonl"]].concat(),
            &input,
        );
        one.assert_success();
        let mut docs = String::new();
        let mut first = 1;
        for shard in shards(&input, &[120, 1, 200]) {
            let n = shard.lines().count();
            let first_line = first.to_string();
            let out = run(
                &[
                    &metrics[..],
                    &[method, "--emit", "stats", "--first-line", &first_line],
                ]
                .concat(),
                &shard,
            );
            out.assert_success();
            docs.push_str(&out.stdout_str());
            first += n;
        }
        let merged = Cmd::new()
            .args(["merge", "-f", "jsonl"])
            .stdin(docs.as_bytes().to_vec())
            .run();
        merged.assert_success();
        assert_eq!(
            merged.stdout_str(),
            one.stdout_str(),
            "{method}: merged shards differ from one run"
        );
    }
}

#[test]
fn overlapping_streaming_shards_and_mixed_documents_are_refused() {
    let input = corpus(100);
    let stats = |args: &[&str]| {
        let out = run(&[args, &["--emit", "stats"]].concat(), &input);
        out.assert_success();
        out.stdout_str()
    };
    let merge = |docs: String| {
        Cmd::new()
            .arg("merge")
            .stdin(docs.as_bytes().to_vec())
            .run()
    };
    let a = stats(&["--confidence=streaming"]);
    let out = merge(format!("{a}{a}"));
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(out.stderr_str().contains("overlap"), "{}", out.stderr_str());

    let b = stats(&["--confidence=streaming", "--first-line", "101"]);
    merge(format!("{a}{b}")).assert_success();

    let plain = stats(&[]);
    let out = merge(format!("{a}{plain}"));
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr_str().contains("without --confidence"),
        "{}",
        out.stderr_str()
    );
    let other_seed = stats(&[
        "--confidence=streaming",
        "--first-line",
        "101",
        "--seed",
        "1",
    ]);
    let out = merge(format!("{a}{other_seed}"));
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr_str().contains("--seed=1"),
        "{}",
        out.stderr_str()
    );
}

#[test]
fn first_line_numbers_rows_and_diagnostics() {
    let out = run(
        &["--first-line", "1001", "-f", "jsonl", "--on-error", "warn"],
        "a b\ta b\nno tab here\n",
    );
    out.assert_success();
    let records = out.jsonl().unwrap();
    assert_eq!(records[0]["line"], 1001);
    assert_eq!(records[1]["line"], 1002);
    assert!(
        out.stderr_str().contains("warning: line 1002:"),
        "{}",
        out.stderr_str()
    );
}

/// The bootstrap resamples the segments in the order the documents are given, so shards merged
/// out of order gave another interval, silently (safety audit: `merge part-*.json` takes
/// part-10 before part-2). Shards with their own numbering (`--first-line`) that come out of
/// order are refused; in order they equal one run; shards numbered from 1 each cannot tell and
/// merge in the order given.
#[test]
fn bootstrap_shards_out_of_order_are_refused() {
    let input = corpus(80);
    let (first, second): (Vec<&str>, Vec<&str>) = {
        let lines: Vec<&str> = input.split_inclusive('\n').collect();
        (lines[..40].to_vec(), lines[40..].to_vec())
    };
    let stats = |text: String, args: &[&str]| {
        let out = run(
            &[args, &["--confidence", "--emit", "stats"]].concat(),
            &text,
        );
        out.assert_success();
        out.stdout_str()
    };
    let a = stats(first.concat(), &[]);
    let b = stats(second.concat(), &["--first-line", "41"]);
    let merge = |docs: String| {
        Cmd::new()
            .args(["merge", "-b"])
            .stdin(docs.as_bytes().to_vec())
            .run()
    };
    let whole = run(&["--confidence", "-b"], &input);
    let in_order = merge(format!("{a}{b}"));
    in_order.assert_success();
    assert!(whole.stdout_str().contains('±'), "{}", whole.stdout_str());
    assert_eq!(in_order.stdout_str(), whole.stdout_str());
    let out = merge(format!("{b}{a}"));
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str()
            .contains("lines 1-40 come before lines 41-80 of the document before"),
        "{}",
        out.stderr_str()
    );
    // Both numbered from 1: merged in the order given, as before.
    let b1 = stats(second.concat(), &[]);
    merge(format!("{b1}{a}")).assert_success();
}
