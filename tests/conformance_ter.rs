//! Conformance of `--metrics ter` with sacreBLEU 2.6.0 `TER` on
//! `../shared/vectors/sacrebleu/ter` (954 sentence records, every option combination and
//! several references; 21 WMT22 corpus records), through the binary. Scores are compared by
//! their f64 bits, `num_edits` and `ref_length` exactly.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::util::{parse_float_hex, read_jsonl, sacrebleu_vectors, shared_or_skip, wmt22_dir, Cmd};

/// CLI flags for sacreBLEU `TER(**params)`.
fn ter_args(params: &Value) -> Vec<String> {
    let mut args = vec!["--metrics".to_owned(), "ter".to_owned()];
    for (key, flag) in [
        ("normalized", "--ter-normalized"),
        ("no_punct", "--ter-no-punct"),
        ("asian_support", "--ter-asian-support"),
        ("case_sensitive", "--ter-case-sensitive"),
    ] {
        if params[key].as_bool().unwrap() {
            args.push(flag.to_owned());
        }
    }
    args
}

/// Compares a TER object (a segment's or the corpus's) with a vector's `expected`.
fn check(id: &str, got: &Value, want: &Value, failures: &mut Vec<String>) {
    let bits = parse_float_hex(want["score_hex"].as_str().unwrap()).unwrap();
    let score = got["score"].as_f64();
    if score.map(f64::to_bits) != Some(bits.to_bits())
        || got["num_edits"] != want["num_edits"]
        || got["ref_length"].as_f64() != want["ref_length"].as_f64()
    {
        failures.push(format!("{id}: got {got}, want {want}"));
    }
    // The breakdown adds up to the edits.
    let sum: u64 = ["insertions", "deletions", "substitutions", "shifts"]
        .iter()
        .map(|k| got[k].as_u64().unwrap_or(u64::MAX / 8))
        .sum();
    if Some(sum) != got["num_edits"].as_u64() {
        failures.push(format!("{id}: breakdown does not add up: {got}"));
    }
}

#[test]
fn ter_sentence_vectors() {
    let Some(shared) = shared_or_skip("conformance ter sentence") else {
        return;
    };
    let records = read_jsonl(&sacrebleu_vectors(&shared).join("ter/ter_sentence.jsonl"));
    let mut groups: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for r in &records {
        groups.entry(r["params"].to_string()).or_default().push(r);
    }
    let mut failures = Vec::new();
    for recs in groups.values() {
        let mut input = String::new();
        for r in recs {
            let refs: Vec<&Value> = r["refs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|stream| &stream[0])
                .filter(|v| !v.is_null())
                .collect();
            input.push_str(&json!({"hyp": r["hyps"][0], "refs": refs}).to_string());
            input.push('\n');
        }
        let mut args = ter_args(&recs[0]["params"]);
        args.extend(["--input", "jsonl", "-f", "jsonl"].map(str::to_owned));
        let out = Cmd::new().args(&args).stdin(input).run();
        let rows = out.jsonl().unwrap();
        for (r, row) in recs.iter().zip(&rows) {
            check(
                r["id"].as_str().unwrap(),
                &row["ter"],
                &r["expected"],
                &mut failures,
            );
        }
    }
    eprintln!(
        "conformance ter sentence: {} records in {} option sets, {} mismatches",
        records.len(),
        groups.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(10)].join("\n")
    );
}

#[test]
fn ter_corpus_vectors() {
    let Some(shared) = shared_or_skip("conformance ter corpus") else {
        return;
    };
    let records = read_jsonl(&sacrebleu_vectors(&shared).join("ter/ter_corpus_wmt22.jsonl"));
    let data = wmt22_dir(&shared);
    let mut failures = Vec::new();
    for r in &records {
        let mut args = ter_args(&r["params"]);
        for f in r["refs_files"].as_array().unwrap() {
            args.push("-r".to_owned());
            args.push(data.join(f.as_str().unwrap()).display().to_string());
        }
        args.push(
            data.join(r["hyps_file"].as_str().unwrap())
                .display()
                .to_string(),
        );
        args.extend(["-f", "jsonl", "--corpus-only"].map(str::to_owned));
        let out = Cmd::new().args(&args).run();
        let rows = out.jsonl().unwrap();
        let corpus = rows.last().expect("a corpus record");
        check(
            r["id"].as_str().unwrap(),
            &corpus["ter"],
            &r["expected"],
            &mut failures,
        );
        if corpus["ter"]["signature"] != r["expected"]["signature"] {
            failures.push(format!(
                "{}: signature {}",
                r["id"], corpus["ter"]["signature"]
            ));
        }
        if corpus["ter"]["text"].as_str() != r["expected"]["formatted"].as_str() {
            failures.push(format!("{}: text {}", r["id"], corpus["ter"]["text"]));
        }
    }
    eprintln!(
        "conformance ter corpus: {} WMT22 systems, {} mismatches",
        records.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
