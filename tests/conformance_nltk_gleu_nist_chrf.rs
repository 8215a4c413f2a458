//! Conformance of `gleu`, `nist` (NLTK rows and `--nist-compat nltk`) and `nltk-chrf` with NLTK
//! 3.10.4 on `../shared/vectors/nltk` (CPython 3.11 semantics), through the binary: sentence
//! vectors grouped by parameters (one run per group, one JSONL line per case), corpus vectors one
//! run each (`--corpus-only`). Every score is compared by its f64 bits; where NLTK raises, the
//! row or report must be an error naming the same Python exception. The two helper functions the
//! metrics are built from (`nist_length_penalty`, `chrf_precision_recall_fscore_support`) are
//! checked through the library.
//!
//! Not expressible as input lines (counted and printed, not checked): a sentence without any
//! reference (every input line carries at least one) and `corpus_*` calls whose two lists differ
//! in length (NLTK's `AssertionError`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use bleu_stream::metric::nist::nltk_length_penalty;
use bleu_stream::metric::nltk_chrf::{Beta, NltkChrf, NltkChrfConfig};

use crate::util::{par_map, read_jsonl, shared_or_skip, Cmd};

fn nltk_dir(shared: &Path) -> PathBuf {
    shared.join("vectors").join("nltk")
}

/// What a vector expects: the bits of a float, or a Python exception type.
#[derive(Debug, PartialEq, Eq)]
enum Expect {
    Bits(u64),
    Raises(String),
}

fn expectation(case: &Value) -> Expect {
    if case["expected_type"] == "error" {
        return Expect::Raises(case["error"]["type"].as_str().unwrap().to_owned());
    }
    let bits = case["expected_bits"]
        .as_str()
        .unwrap_or_else(|| panic!("{}: no expected_bits", case["id"]));
    Expect::Bits(u64::from_str_radix(bits, 16).unwrap())
}

/// A metric object of a JSONL record as an expectation-like value: `{"score": x}` or
/// `{"error": "NLTK raises ZeroDivisionError: …"}` (report: `"score": null, "error": …`).
fn outcome(metric: &Value) -> Expect {
    if let Some(e) = metric.get("error").and_then(Value::as_str) {
        let kind = e
            .strip_prefix("NLTK raises ")
            .unwrap_or(e)
            .split(':')
            .next()
            .unwrap_or("");
        return Expect::Raises(kind.to_owned());
    }
    match metric.get("score").and_then(Value::as_f64) {
        Some(x) => Expect::Bits(x.to_bits()),
        None => Expect::Raises(format!("no score in {metric}")),
    }
}

fn show(e: &Expect) -> String {
    match e {
        Expect::Bits(b) => format!("{:e} ({b:016x})", f64::from_bits(*b)),
        Expect::Raises(k) => format!("raises {k}"),
    }
}

/// Text for a token list (joined by spaces, which `str.split()` undoes: vector tokens contain no
/// white space), a `space_joined` string, or a chrF string as given.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(tokens) => tokens
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(" "),
        other => panic!("not a text: {other}"),
    }
}

fn line(hyp: &Value, refs: &[&Value]) -> String {
    let refs: Vec<String> = refs.iter().map(|r| text_of(r)).collect();
    let mut s = json!({"hyp": text_of(hyp), "refs": refs}).to_string();
    s.push('\n');
    s
}

/// CLI arguments for a vector's function and parameters.
fn args(func: &str, params: &Value) -> Vec<String> {
    let get = |k: &str, default: &str| params.get(k).map_or(default.to_owned(), |v| v.to_string());
    let mut a: Vec<String> = vec![
        "--input".into(),
        "jsonl".into(),
        "-f".into(),
        "jsonl".into(),
    ];
    match func {
        "gleu" => a.extend([
            "-m".into(),
            "gleu".into(),
            "--gleu-min-len".into(),
            get("min_len", "1"),
            "--gleu-max-len".into(),
            get("max_len", "4"),
        ]),
        "nist" => a.extend([
            "-m".into(),
            "nist".into(),
            "--nist-tokenize".into(),
            "none".into(),
            "--nist-order".into(),
            get("n", "5"),
            "--nist-compat".into(),
            "nltk".into(),
        ]),
        "chrf" => {
            a.extend([
                "-m".into(),
                "nltk-chrf".into(),
                "--nltk-chrf-min-len".into(),
                get("min_len", "1"),
                "--nltk-chrf-max-len".into(),
                get("max_len", "6"),
                // serde_json keeps Python's int/float distinction: `3` vs `3.0`.
                "--nltk-chrf-beta".into(),
                get("beta", "3.0"),
            ]);
            if params.get("ignore_whitespace") == Some(&Value::Bool(false)) {
                a.push("--nltk-chrf-whitespace".into());
            }
        }
        other => panic!("unknown function {other}"),
    }
    a
}

fn metric_key(func: &str) -> &'static str {
    match func {
        "gleu" => "gleu",
        "nist" => "nist",
        "chrf" => "nltk-chrf",
        _ => unreachable!(),
    }
}

/// Sentence vectors of `files` (function `sentence_<func>`), grouped by parameters.
fn sentence_vectors(func: &str, files: &[&str]) {
    let name = format!("sentence_{func}");
    let Some(shared) = shared_or_skip(&format!("conformance nltk {name}")) else {
        return;
    };
    let mut groups: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut not_expressible = 0;
    for file in files {
        for case in read_jsonl(&nltk_dir(&shared).join(file)) {
            let refs: Vec<&Value> = if func == "chrf" {
                vec![&case["references"]]
            } else {
                case["references"].as_array().unwrap().iter().collect()
            };
            if refs.is_empty() {
                not_expressible += 1;
                continue;
            }
            let key = case.get("params").cloned().unwrap_or(json!({})).to_string();
            groups.entry(key).or_default().push(case);
        }
    }
    let groups: Vec<(String, Vec<Value>)> = groups.into_iter().collect();
    let key = metric_key(func);
    let results = par_map(&groups, |(params, cases)| {
        let params: Value = serde_json::from_str(params).unwrap();
        let input: String = cases
            .iter()
            .map(|c| {
                let refs: Vec<&Value> = if func == "chrf" {
                    vec![&c["references"]]
                } else {
                    c["references"].as_array().unwrap().iter().collect()
                };
                line(&c["hypothesis"], &refs)
            })
            .collect();
        let out = Cmd::new().args(args(func, &params)).stdin(input).run();
        let records = out
            .jsonl()
            .unwrap_or_else(|e| panic!("{e}: {}", out.describe()));
        let rows: Vec<&Value> = records.iter().filter(|r| r["type"] == "segment").collect();
        let mut bad = Vec::new();
        if rows.len() != cases.len() {
            bad.push(format!(
                "params {params}: {} rows for {} cases: {}",
                rows.len(),
                cases.len(),
                out.describe()
            ));
            return (cases.len(), bad);
        }
        for (case, row) in cases.iter().zip(rows) {
            let (want, got) = (expectation(case), outcome(&row[key]));
            if want != got {
                bad.push(format!(
                    "{}: want {}, got {}",
                    case["id"],
                    show(&want),
                    show(&got)
                ));
            }
        }
        (cases.len(), bad)
    });
    report(&name, results, not_expressible);
}

fn report(name: &str, results: Vec<(usize, Vec<String>)>, not_expressible: usize) {
    let checked: usize = results.iter().map(|r| r.0).sum();
    let bad: Vec<String> = results.into_iter().flat_map(|r| r.1).collect();
    crate::util::eprint_whole(&format!(
        "conformance nltk {name}: {checked} checked, {not_expressible} not expressible as input \
         lines, {} mismatches\n",
        bad.len()
    ));
    for m in bad.iter().take(20) {
        crate::util::eprint_whole(&format!("  MISMATCH {m}\n"));
    }
    assert!(bad.is_empty(), "{name}: {} mismatches", bad.len());
}

/// Corpus vectors of `files`: one `--corpus-only` run per case.
fn corpus_vectors(func: &str, files: &[&str]) {
    let name = format!("corpus_{func}");
    let Some(shared) = shared_or_skip(&format!("conformance nltk {name}")) else {
        return;
    };
    let mut cases = Vec::new();
    let mut not_expressible = 0;
    for file in files {
        for case in read_jsonl(&nltk_dir(&shared).join(file)) {
            let (refs, hyps) = (&case["references"], &case["hypotheses"]);
            let (refs, hyps) = (refs.as_array().unwrap(), hyps.as_array().unwrap());
            let no_ref = func != "chrf" && refs.iter().any(|r| r.as_array().unwrap().is_empty());
            if refs.len() != hyps.len() || no_ref {
                not_expressible += 1;
                continue;
            }
            cases.push(case);
        }
    }
    let key = metric_key(func);
    let results = par_map(&cases, |case| {
        let params = case.get("params").cloned().unwrap_or(json!({}));
        let refs = case["references"].as_array().unwrap();
        let hyps = case["hypotheses"].as_array().unwrap();
        let mut input = String::new();
        for (h, r) in hyps.iter().zip(refs) {
            let r: Vec<&Value> = if func == "chrf" {
                vec![r]
            } else {
                r.as_array().unwrap().iter().collect()
            };
            input.push_str(&line(h, &r));
        }
        let out = Cmd::new()
            .args(args(func, &params))
            .arg("--corpus-only")
            .stdin(input)
            .run();
        let records = out
            .jsonl()
            .unwrap_or_else(|e| panic!("{e}: {}", out.describe()));
        let mut bad = Vec::new();
        match records
            .iter()
            .find(|r| r["type"] == "corpus" && r["final"] == true)
        {
            None => bad.push(format!(
                "{}: no final report: {}",
                case["id"],
                out.describe()
            )),
            Some(rec) => {
                let (want, got) = (expectation(case), outcome(&rec[key]));
                if want != got {
                    bad.push(format!(
                        "{}: want {}, got {}",
                        case["id"],
                        show(&want),
                        show(&got)
                    ));
                }
            }
        }
        (1, bad)
    });
    report(&name, results, not_expressible);
}

#[test]
fn sentence_gleu() {
    sentence_vectors(
        "gleu",
        &["sentence_gleu.jsonl", "sentence_gleu.wmt22.jsonl"],
    );
}

#[test]
fn corpus_gleu() {
    corpus_vectors(
        "gleu",
        &[
            "corpus_gleu.jsonl",
            "corpus_gleu.wmt22.cs-en.jsonl",
            "corpus_gleu.wmt22.de-en.jsonl",
            "corpus_gleu.wmt22.en-de.jsonl",
        ],
    );
}

#[test]
fn sentence_nist() {
    sentence_vectors(
        "nist",
        &["sentence_nist.jsonl", "sentence_nist.wmt22.jsonl"],
    );
}

#[test]
fn corpus_nist() {
    corpus_vectors(
        "nist",
        &[
            "corpus_nist.jsonl",
            "corpus_nist.wmt22.cs-en.jsonl",
            "corpus_nist.wmt22.de-en.jsonl",
            "corpus_nist.wmt22.en-de.jsonl",
        ],
    );
}

#[test]
fn sentence_chrf() {
    sentence_vectors(
        "chrf",
        &["sentence_chrf.jsonl", "sentence_chrf.wmt22.jsonl"],
    );
}

#[test]
fn corpus_chrf() {
    corpus_vectors(
        "chrf",
        &[
            "corpus_chrf.jsonl",
            "corpus_chrf.wmt22.cs-en.jsonl",
            "corpus_chrf.wmt22.de-en.jsonl",
            "corpus_chrf.wmt22.en-de.jsonl",
        ],
    );
}

/// `nist_length_penalty` and `chrf_precision_recall_fscore_support` from `helpers.jsonl`.
#[test]
fn nist_and_chrf_helpers() {
    let Some(shared) = shared_or_skip("conformance nltk helpers (NIST, chrF)") else {
        return;
    };
    let mut checked = 0;
    let mut bad = Vec::new();
    for case in read_jsonl(&nltk_dir(&shared).join("helpers.jsonl")) {
        let p = &case["params"];
        match case["fn"].as_str().unwrap() {
            "nist_length_penalty" => {
                checked += 1;
                let got = match nltk_length_penalty(
                    p["ref_len"].as_u64().unwrap(),
                    p["hyp_len"].as_u64().unwrap(),
                ) {
                    Ok(x) => Expect::Bits(x.to_bits()),
                    Err(e) => Expect::Raises(e.kind.to_owned()),
                };
                let want = expectation(&case);
                if want != got {
                    bad.push(format!(
                        "{}: want {}, got {}",
                        case["id"],
                        show(&want),
                        show(&got)
                    ));
                }
            }
            "chrf_precision_recall_fscore_support" => {
                checked += 1;
                let beta = p
                    .get("beta")
                    .map_or(Beta::Float(3.0), |b| Beta::parse(&b.to_string()).unwrap());
                let chrf = NltkChrf::new(NltkChrfConfig {
                    beta,
                    ..NltkChrfConfig::default()
                });
                let n = p["n"].as_u64().unwrap() as usize;
                let got = chrf.prfs(
                    case["references"].as_str().unwrap(),
                    case["hypothesis"].as_str().unwrap(),
                    n,
                );
                let bits = case["expected_bits"].as_array().unwrap();
                let ok = match got {
                    Ok((pr, rc, f, tp)) => {
                        let b =
                            |i: usize| u64::from_str_radix(bits[i].as_str().unwrap(), 16).unwrap();
                        pr.to_bits() == b(0)
                            && rc.to_bits() == b(1)
                            && f.to_bits() == b(2)
                            && Some(tp) == case["expected"][3].as_u64()
                    }
                    Err(_) => false,
                };
                if !ok {
                    bad.push(format!(
                        "{}: want {}, got {got:?}",
                        case["id"], case["expected"]
                    ));
                }
            }
            _ => {}
        }
    }
    crate::util::eprint_whole(&format!(
        "conformance nltk helpers (nist_length_penalty, chrf_prfs): {checked} checked, {} \
         mismatches\n",
        bad.len()
    ));
    for m in bad.iter().take(20) {
        crate::util::eprint_whole(&format!("  MISMATCH {m}\n"));
    }
    assert!(bad.is_empty(), "{} mismatches", bad.len());
}
