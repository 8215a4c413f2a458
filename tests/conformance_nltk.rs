//! Conformance of `--metrics nltk-bleu` with NLTK 3.10.4 on `../shared/vectors/nltk` (every BLEU
//! vector: `sentence_bleu`, `corpus_bleu`, the BLEU helpers and the whole-system WMT22 files),
//! plus the seeds' worked examples and MATLAB `bleuEvaluationScore` semantics.
//!
//! Sentence and corpus vectors go through the binary (JSONL input, `--format jsonl` records):
//! sentence cases are grouped by parameters and each group is one run, each corpus is one run.
//! The few cases the command line cannot express (a sentence without references, a flat weight
//! *list* for `auto_reweigh`, the nested `[()]`) and the helper functions use the library.
//! Every float is compared by its bits; ints must stay ints (NLTK's early `return 0`), errors
//! must name the exception NLTK raises, and method 0's warnings must match.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use bleu_stream::metric::nltk_bleu::{
    brevity_penalty, closest_ref_length, modified_precision, NltkBleu, NltkBleuConfig,
    NltkWorkspace, PyValue,
};
use bleu_stream::metric::pymath::PyError;
use bleu_stream::tokenize::Tokens;

use crate::util::{eprint_whole, par_map, read_jsonl, shared_or_skip, Cmd, Mismatches};

/// A token list (or a `space_joined` string) as one line of text for `str.split()`.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(tokens) => tokens
            .iter()
            .map(|t| t.as_str().expect("token"))
            .collect::<Vec<_>>()
            .join(" "),
        other => panic!("not a token list: {other}"),
    }
}

fn tokens_of(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) if s.is_empty() => Vec::new(),
        Value::String(s) => s.split(' ').map(str::to_owned).collect(),
        Value::Array(tokens) => tokens
            .iter()
            .map(|t| t.as_str().expect("token").to_owned())
            .collect(),
        other => panic!("not a token list: {other}"),
    }
}

/// A JSON number as the Python literal NLTK received (`5` int, `5.0` float).
fn literal(v: &Value) -> String {
    v.to_string()
}

/// The `--weights` value of a tuple: `()` for the empty one (an empty value is a usage error).
fn weight_list(v: &Value) -> String {
    if v.as_array().is_some_and(Vec::is_empty) {
        return "()".to_owned();
    }
    v.as_array()
        .expect("weights")
        .iter()
        .map(literal)
        .collect::<Vec<_>>()
        .join(",")
}

/// Command-line flags for the vector's keyword arguments, or `None` when the command line cannot
/// express them (they then go through the library).
fn cli_args(params: &Value) -> Option<Vec<String>> {
    let mut args = vec!["--metrics".to_owned(), "nltk-bleu".to_owned()];
    if params.get("weights_as_list").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    if let Some(w) = params.get("weights") {
        let list = w.as_array().expect("weights");
        let nested = list.first().is_some_and(Value::is_array);
        if nested {
            if list.len() == 1 && list[0].as_array().is_some_and(Vec::is_empty) {
                return None; // [()]: one *nested* empty tuple
            }
            for vector in list {
                args.push(format!("--weights={}", weight_list(vector)));
            }
        } else {
            args.push(format!("--weights={}", weight_list(w)));
        }
    }
    if let Some(m) = params.get("smoothing") {
        args.push(format!("--nltk-smoothing={m}"));
        for key in ["epsilon", "alpha", "k"] {
            if let Some(v) = params.get(key) {
                args.push(format!("--{key}={}", literal(v)));
            }
        }
    }
    if params.get("auto_reweigh").and_then(Value::as_bool) == Some(true) {
        args.push("--auto-reweigh".to_owned());
    }
    Some(args)
}

/// The library configuration for the same keyword arguments.
fn library_config(params: &Value) -> NltkBleuConfig {
    let mut weights = Vec::new();
    let mut nested = false;
    if let Some(w) = params.get("weights") {
        let list = w.as_array().unwrap();
        nested = list.first().is_some_and(Value::is_array);
        if nested {
            weights.extend(list.iter().map(weight_list));
        } else {
            weights.push(weight_list(w));
        }
    }
    let num = |k: &str, d: &str| params.get(k).map_or(d.to_owned(), literal);
    let mut config = NltkBleuConfig::from_cli(
        None,
        false,
        &weights,
        params.get("smoothing").map(|m| m.as_u64().unwrap() as u8),
        &num("epsilon", "0.1"),
        &num("alpha", "5"),
        &num("k", "5"),
        params.get("auto_reweigh").and_then(Value::as_bool) == Some(true),
        bleu_stream::metric::nltk_bleu::Compat::Nltk,
    )
    .unwrap();
    config.weights_as_list = params.get("weights_as_list").and_then(Value::as_bool) == Some(true);
    config.weights_nested = nested;
    config
}

/// `bits` of the expected float at `i` (or of the scalar when `i` is `None`).
fn expected_bits(case: &Value, i: Option<usize>) -> u64 {
    let bits = match i {
        None => &case["expected_bits"],
        Some(i) => &case["expected_bits"][i],
    };
    u64::from_str_radix(bits.as_str().expect("expected_bits"), 16).unwrap()
}

/// Compares one expected value (int or float) with a JSON value from the binary.
fn same_value(case: &Value, i: Option<usize>, got: &Value) -> bool {
    let want = match i {
        None => &case["expected"],
        Some(i) => &case["expected"][i],
    };
    if want.is_i64() || want.is_u64() {
        // NLTK's `return 0` is an int: the binary writes `0`, never `0.0`.
        return (got.is_i64() || got.is_u64()) && got == want;
    }
    got.is_f64() && got.as_f64().map(f64::to_bits) == Some(expected_bits(case, i))
}

fn expected_warnings(case: &Value) -> Vec<u64> {
    case.get("warnings")
        .and_then(Value::as_array)
        .map(|w| w.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

/// Checks the binary's `nltk-bleu` object against a case; `Err` describes the difference.
fn check(case: &Value, got: &Value) -> Result<(), String> {
    let kind = case["expected_type"].as_str().unwrap();
    if kind == "error" {
        let want = case["error"]["type"].as_str().unwrap();
        return match got.get("error").and_then(Value::as_str) {
            Some(message) if message.contains(want) => Ok(()),
            _ => Err(format!("want {want}, got {got}")),
        };
    }
    let score = got.get("score").ok_or_else(|| format!("no score: {got}"))?;
    let ok = if kind.starts_with("list") {
        let want = case["expected"].as_array().unwrap();
        score.as_array().is_some_and(|a| {
            a.len() == want.len() && (0..a.len()).all(|i| same_value(case, Some(i), &a[i]))
        })
    } else {
        same_value(case, None, score)
    };
    if !ok {
        return Err(format!("want {} got {score}", case["expected"]));
    }
    let warnings: Vec<u64> = got
        .get("warnings")
        .and_then(Value::as_array)
        .map(|w| w.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    if warnings != expected_warnings(case) {
        return Err(format!(
            "warnings: want {:?} got {warnings:?}",
            expected_warnings(case)
        ));
    }
    Ok(())
}

/// A library result as the binary's JSON object would carry it.
fn library_json(result: Result<bleu_stream::metric::nltk_bleu::NltkScore, PyError>) -> Value {
    let one = |v: PyValue| match v {
        PyValue::Int(i) => json!(i),
        PyValue::Float(x) => json!(x),
    };
    match result {
        Err(e) => json!({ "error": e.to_string() }),
        Ok(s) => {
            let score = if s.list {
                Value::from(s.values.iter().map(|&v| one(v)).collect::<Vec<_>>())
            } else {
                one(s.values[0])
            };
            json!({ "score": score, "warnings": s.warnings })
        }
    }
}

/// Scores a corpus (list of (references, hypothesis)) with the library.
fn library_corpus(params: &Value, pairs: &[(Vec<Vec<String>>, Vec<String>)]) -> Value {
    let metric = match NltkBleu::new(library_config(params)) {
        Ok(m) => m,
        Err(e) => return json!({ "error": e }),
    };
    let mut ws = NltkWorkspace::default();
    let mut totals = bleu_stream::metric::Metric::new_totals(&metric);
    let toks = |words: &[String]| {
        let mut t = Tokens::default();
        for w in words {
            t.push(w);
        }
        t
    };
    for (refs, hyp) in pairs {
        let refs: Vec<Tokens> = refs.iter().map(|r| toks(r)).collect();
        let st = metric.token_stats(&toks(hyp), &refs, &mut ws);
        metric.merge(&mut totals, &st);
    }
    library_json(metric.compute(&totals))
}

fn jsonl_line(hyp: &Value, refs: &[Value]) -> String {
    let refs: Vec<String> = refs.iter().map(text_of).collect();
    let mut line = json!({ "hyp": text_of(hyp), "refs": refs }).to_string();
    line.push('\n');
    line
}

fn vectors(name: &str) -> Option<Vec<Value>> {
    let shared = shared_or_skip(&format!("conformance nltk {name}"))?;
    Some(read_jsonl(&shared.join("vectors").join("nltk").join(name)))
}

/// Runs the binary on JSONL `input` with `args`; returns its JSONL records.
fn run(args: &[String], input: String) -> Result<Vec<Value>, String> {
    let out = Cmd::new()
        .args(args)
        .args([
            "--input",
            "jsonl",
            "--format",
            "jsonl",
            "--on-error",
            "skip",
        ])
        .stdin(input)
        .run();
    if !out.success() {
        return Err(out.describe());
    }
    out.jsonl()
}

fn sentence_vectors(files: &[&str], label: &str) {
    let mut cases = Vec::new();
    for f in files {
        let Some(v) = vectors(f) else { return };
        cases.extend(v.into_iter().filter(|c| c["fn"] == "sentence_bleu"));
    }
    // Group by command line: one run per group, one segment record per case.
    let mut groups: BTreeMap<Vec<String>, Vec<&Value>> = BTreeMap::new();
    let mut library = Vec::new();
    for case in &cases {
        let refs = case["references"].as_array().unwrap();
        match cli_args(&case["params"]) {
            Some(args) if !refs.is_empty() => groups.entry(args).or_default().push(case),
            _ => library.push(case),
        }
    }
    let groups: Vec<(Vec<String>, Vec<&Value>)> = groups.into_iter().collect();
    let results = par_map(&groups, |(args, cases)| {
        let input: String = cases
            .iter()
            .map(|c| jsonl_line(&c["hypothesis"], c["references"].as_array().unwrap()))
            .collect();
        let mut bad = Vec::new();
        match run(args, input) {
            Err(e) => bad.push(format!("{}: {e}", cases[0]["id"])),
            Ok(records) => {
                let segs: Vec<&Value> = records.iter().filter(|r| r["type"] == "segment").collect();
                if segs.len() != cases.len() {
                    bad.push(format!(
                        "{} segment records for {} cases",
                        segs.len(),
                        cases.len()
                    ));
                }
                for (case, seg) in cases.iter().zip(segs) {
                    if let Err(e) = check(case, &seg["nltk-bleu"]) {
                        bad.push(format!("{} ({}): {e}", case["id"], args.join(" ")));
                    }
                }
            }
        }
        bad
    });
    let mut mismatches = Mismatches::new();
    for r in results {
        mismatches.extend(r);
    }
    for case in &library {
        let refs: Vec<Vec<String>> = case["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(tokens_of)
            .collect();
        let got = library_corpus(&case["params"], &[(refs, tokens_of(&case["hypothesis"]))]);
        if let Err(e) = check(case, &got) {
            mismatches.push(case["id"].as_str().unwrap(), e);
        }
    }
    eprint_whole(&format!(
        "conformance nltk {label}: {} checked ({} through the binary in {} runs, {} through the library)\n",
        cases.len(),
        cases.len() - library.len(),
        groups.len(),
        library.len()
    ));
    mismatches.finish(&format!("conformance nltk {label}"));
}

#[test]
fn nltk_sentence_bleu() {
    sentence_vectors(&["sentence_bleu.jsonl"], "sentence_bleu");
}

#[test]
fn nltk_sentence_bleu_wmt22() {
    sentence_vectors(&["sentence_bleu.wmt22.jsonl"], "sentence_bleu.wmt22");
}

fn corpus_vectors(files: &[&str], label: &str) {
    let mut cases = Vec::new();
    for f in files {
        let Some(v) = vectors(f) else { return };
        cases.extend(v.into_iter().filter(|c| c["fn"] == "corpus_bleu"));
    }
    let results = par_map(&cases, |case| -> Result<&'static str, String> {
        let hyps = case["hypotheses"].as_array().unwrap();
        let refs = case["references"].as_array().unwrap();
        let id = case["id"].as_str().unwrap();
        if hyps.len() != refs.len() {
            // NLTK asserts equal lengths. bleu-stream frames each hypothesis with its
            // references, so the closest thing is parallel files of different lengths: an
            // input error naming the shorter stream, exit status 1.
            let temp = crate::util::TempDir::new(&format!("nltk-{id}"));
            let dir = temp.path();
            let (h, r) = (dir.join("hyp"), dir.join("ref"));
            std::fs::write(
                &h,
                hyps.iter().map(|x| text_of(x) + "\n").collect::<String>(),
            )
            .unwrap();
            std::fs::write(
                &r,
                refs.iter()
                    .map(|x| text_of(&x[0]) + "\n")
                    .collect::<String>(),
            )
            .unwrap();
            let out = Cmd::new()
                .args(["-m", "nltk-bleu", "-b", "-r"])
                .arg(&r)
                .arg(&h)
                .run();
            return if out.code == Some(1) && out.stderr_str().contains("error") {
                Ok("input error")
            } else {
                Err(format!("{id}: arity mismatch: {}", out.describe()))
            };
        }
        let Some(args) = cli_args(&case["params"]) else {
            let pairs: Vec<_> = refs
                .iter()
                .zip(hyps)
                .map(|(r, h)| {
                    (
                        r.as_array().unwrap().iter().map(tokens_of).collect(),
                        tokens_of(h),
                    )
                })
                .collect();
            let got = library_corpus(&case["params"], &pairs);
            return check(case, &got)
                .map(|()| "library")
                .map_err(|e| format!("{id}: {e}"));
        };
        let input: String = hyps
            .iter()
            .zip(refs)
            .map(|(h, r)| jsonl_line(h, r.as_array().unwrap()))
            .collect();
        let mut args = args;
        args.push("--corpus-only".to_owned());
        let records = run(&args, input).map_err(|e| format!("{id}: {e}"))?;
        let corpus = records
            .iter()
            .find(|r| r["type"] == "corpus" && r["final"] == true)
            .ok_or_else(|| format!("{id}: no final corpus record"))?;
        check(case, &corpus["nltk-bleu"])
            .map(|()| "binary")
            .map_err(|e| format!("{id} ({}): {e}", args.join(" ")))
    });
    let mut mismatches = Mismatches::new();
    let mut how: BTreeMap<&str, usize> = BTreeMap::new();
    for r in results {
        match r {
            Ok(h) => *how.entry(h).or_default() += 1,
            Err(e) => mismatches.extend(vec![e]),
        }
    }
    eprint_whole(&format!(
        "conformance nltk {label}: {} checked ({how:?}), {} mismatches\n",
        cases.len(),
        mismatches.len()
    ));
    mismatches.finish(&format!("conformance nltk {label}"));
}

#[test]
fn nltk_corpus_bleu() {
    corpus_vectors(&["corpus_bleu.jsonl"], "corpus_bleu");
}

#[test]
fn nltk_corpus_bleu_wmt22() {
    corpus_vectors(
        &[
            "corpus_bleu.wmt22.cs-en.jsonl",
            "corpus_bleu.wmt22.de-en.jsonl",
            "corpus_bleu.wmt22.en-de.jsonl",
            "corpus_bleu.wmt22.smoothing.jsonl",
        ],
        "corpus_bleu.wmt22",
    );
}

#[test]
fn nltk_helpers() {
    let Some(cases) = vectors("helpers.jsonl") else {
        return;
    };
    let mut mismatches = Mismatches::new();
    let mut checked = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let p = &case["params"];
        let refs: Vec<Vec<String>> = case["references"]
            .as_array()
            .map(|r| r.iter().map(tokens_of).collect())
            .unwrap_or_default();
        let refs: Vec<Vec<&str>> = refs
            .iter()
            .map(|r| r.iter().map(String::as_str).collect())
            .collect();
        let hyp_owned = case.get("hypothesis").map(tokens_of).unwrap_or_default();
        let hyp: Vec<&str> = hyp_owned.iter().map(String::as_str).collect();
        let got: Value = match case["fn"].as_str().unwrap() {
            "modified_precision" => {
                match modified_precision(&refs, &hyp, p["n"].as_u64().unwrap() as usize) {
                    Ok((a, b)) => json!([a, b]),
                    Err(e) => json!({ "error": e.to_string() }),
                }
            }
            "closest_ref_length" => {
                let lens: Vec<usize> = refs.iter().map(Vec::len).collect();
                match closest_ref_length(&lens, p["hyp_len"].as_u64().unwrap() as usize) {
                    Ok(n) => json!(n),
                    Err(e) => json!({ "error": e.to_string() }),
                }
            }
            "brevity_penalty" => {
                match brevity_penalty(
                    p["closest_ref_len"].as_u64().unwrap(),
                    p["hyp_len"].as_u64().unwrap(),
                ) {
                    Ok(PyValue::Int(i)) => json!(i),
                    Ok(PyValue::Float(x)) => json!(x),
                    Err(e) => json!({ "error": e.to_string() }),
                }
            }
            // NIST and chrF helpers belong to other metrics.
            _ => continue,
        };
        checked += 1;
        let ok = match case["expected_type"].as_str().unwrap() {
            "float" => {
                got.as_f64().map(f64::to_bits) == Some(expected_bits(case, None)) && got.is_f64()
            }
            _ => got == case["expected"],
        };
        if !ok {
            mismatches.push(id, format!("want {} got {got}", case["expected"]));
        }
    }
    eprint_whole(&format!(
        "conformance nltk helpers (modified_precision, closest_ref_length, brevity_penalty): {checked} checked\n"
    ));
    mismatches.finish("conformance nltk helpers");
}

// ---------------------------------------------------------------------------------------------
// Seeds: worked examples (no ../shared needed)
// ---------------------------------------------------------------------------------------------

const CA_1: &str = "It is a guide to action which ensures that the military always obeys the commands of the party";
const REFS: [&str; 3] = [
    "It is a guide to action that ensures that the military will forever heed Party commands",
    "It is the guiding principle which guarantees the military forces always being under the command of the Party",
    "It is the practical guide for the army always to heed the directions of the party",
];

/// One TSV line `hyp\tref…`.
fn tsv(hyp: &str, refs: &[&str]) -> String {
    format!("{hyp}\t{}\n", refs.join("\t"))
}

/// The binary's JSONL segment records for `input` (TSV) with `args`.
fn segments(args: &[&str], input: String) -> Vec<Value> {
    let out = Cmd::new()
        .args(args)
        .args(["-f", "jsonl"])
        .stdin(input)
        .run();
    assert!(out.success(), "{}", out.describe());
    out.jsonl()
        .unwrap()
        .into_iter()
        .filter(|r| r["type"] == "segment")
        .collect()
}

#[test]
fn seed_blog_bleu_from_scratch() {
    // `nltk_bleu(ca_1, refs)` with `lower_n_split = lambda x: x.lower().split()`.
    let seg = segments(&["-m", "nltk-bleu", "--lowercase"], tsv(CA_1, &REFS));
    let s = &seg[0]["nltk-bleu"];
    assert_eq!(
        s["score"].as_f64().unwrap().to_bits(),
        0.5045666840058485f64.to_bits()
    );
    // Its modified precisions (clipped counts over 18, 17, 16, 15 n-grams).
    assert_eq!(s["counts"], json!([17, 10, 7, 4]));
    assert_eq!(s["totals"], json!([18, 17, 16, 15]));
    assert_eq!((17.0 / 18.0f64).to_bits(), 0.9444444444444444f64.to_bits());
    // bad_ca: "it" clipped to once in 13.
    let bad = "It it it it it it it it it it it it it";
    let seg = segments(&["-m", "nltk-bleu", "--lowercase"], tsv(bad, &REFS));
    assert_eq!(seg[0]["nltk-bleu"]["counts"][0], 1);
    assert_eq!((1.0 / 13.0f64).to_bits(), 0.07692307692307693f64.to_bits());
    // The blog's brevity penalty 0.11080315836233387 for "it is": its `brevity_penalty` takes
    // `len(ca)` of the *string*, 5 characters, against the closest reference length 16;
    // NLTK's brevity_penalty(16, 5) gives the same bits.
    assert_eq!(
        brevity_penalty(16, 5).unwrap(),
        PyValue::Float(0.11080315836233387)
    );
    // On tokens ("it is" = 2 words) the closest reference is also 16 words long.
    let seg = segments(&["-m", "nltk-bleu", "--lowercase"], tsv("it is", &REFS));
    assert_eq!(seg[0]["nltk-bleu"]["ref_len"], 16);
    assert_eq!(seg[0]["nltk-bleu"]["hyp_len"], 2);
    assert_eq!(
        brevity_penalty(16, 2).unwrap(),
        PyValue::Float(0.0009118819655545162)
    );
    // ca_1's brevity penalty is the int 1 (hypothesis longer than the closest reference).
    assert_eq!(brevity_penalty(16, 18).unwrap(), PyValue::Int(1));
}

#[test]
fn seed_scaler_clipped_precision_and_bleu2() {
    // Clipped precision: "It It It is raining heavily" against two references = 3/6.
    let pred = "It It It is raining heavily";
    let refs = ["It was a rainy day", "It was raining heavily today"];
    assert_eq!(
        modified_precision(
            &refs.map(|r| r.split(' ').collect()),
            &pred.split(' ').collect::<Vec<_>>(),
            1
        )
        .unwrap(),
        (3, 6)
    );
    // BLEU-2 against "It was raining heavily today": p1 = 3/6, p2 = 1/5, BP = 1 -> 0.316.
    let seg = segments(
        &["-m", "nltk-bleu", "--weights", "0.5,0.5"],
        tsv(pred, &refs[1..]),
    );
    let s = &seg[0]["nltk-bleu"];
    assert_eq!(s["counts"], json!([3, 1]));
    assert_eq!(s["totals"], json!([6, 5]));
    let x = s["score"].as_f64().unwrap();
    assert_eq!(format!("{x:.3}"), "0.316");
    assert_eq!(x.to_bits(), 0.316227766016838f64.to_bits());
}

#[test]
fn seed_nltk_doctests() {
    let hyp1 = "It is a guide to action which ensures that the military always obeys the commands of the party";
    let hyp2 =
        "It is to insure the troops forever hearing the activity guidebook that party direct";
    let r1 =
        "It is a guide to action that ensures that the military will forever heed Party commands";
    let r2 = "It is the guiding principle which guarantees the military forces always being under the command of the Party";
    let r3 = "It is the practical guide for the army always to heed the directions of the party";
    // sentence_bleu([reference1, reference2, reference3], hypothesis1) -> 0.5045...
    let seg = segments(&["-m", "nltk-bleu"], tsv(hyp1, &[r1, r2, r3]));
    assert_eq!(
        seg[0]["nltk-bleu"]["score"].as_f64().unwrap(),
        0.5045666840058485
    );
    // Several weights at once: [0.7453…, 0.6240…, 0.5045…].
    let seg = segments(
        &[
            "-m",
            "nltk-bleu",
            "--weights=0.5,0.5",
            "--weights=0.3333333333333333,0.3333333333333333,0.3333333333333333",
            "--weights=0.25,0.25,0.25,0.25",
        ],
        tsv(hyp1, &[r1, r2, r3]),
    );
    // Doctests show truncated digits with an ellipsis: compare prefixes.
    let got: Vec<String> = seg[0]["nltk-bleu"]["score"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| format!("{:.17}", x.as_f64().unwrap()))
        .collect();
    for (g, shown) in got.iter().zip(["0.7453", "0.6240", "0.5045"]) {
        assert!(g.starts_with(shown), "{g} vs {shown}…");
    }
    // corpus_bleu doctest: two sentences, 0.5920… with uniform weights.
    let r2a = "he was interested in world history because he read the book";
    let h2 = "he read the book because he was interested in world history";
    // JSONL: the two lines have different numbers of references.
    let corpus = format!(
        "{}\n{}\n",
        json!({ "hyp": hyp1, "refs": [r1, r2, r3] }),
        json!({ "hyp": h2, "refs": [r2a] })
    );
    let out = Cmd::new()
        .args(["-m", "nltk-bleu", "-b", "-w", "17"])
        .stdin(corpus.clone())
        .run();
    assert!(out.stdout_str().starts_with("0.5920"), "{}", out.describe());
    let out = Cmd::new()
        .args([
            "-m",
            "nltk-bleu",
            "-b",
            "-w",
            "17",
            "--weights",
            "0.1,0.3,0.5,0.1",
        ])
        .stdin(corpus.clone())
        .run();
    assert!(out.stdout_str().starts_with("0.5818"), "{}", out.describe());
    // corpus_bleu with four weight vectors: [0.8242…, 0.7067…, 0.5920…, 0.4719…].
    let out = Cmd::new()
        .args(["-m", "nltk-bleu", "--corpus-only", "-f", "jsonl"])
        .args(["--weights=0.5,0.5", "--weights=0.333,0.333,0.334"])
        .args([
            "--weights=0.25,0.25,0.25,0.25",
            "--weights=0.2,0.2,0.2,0.2,0.2",
        ])
        .stdin(corpus)
        .run();
    let scores = out.jsonl().unwrap()[0]["nltk-bleu"]["score"].clone();
    for (x, shown) in scores
        .as_array()
        .unwrap()
        .iter()
        .zip(["0.8242", "0.7067", "0.5920", "0.4719"])
    {
        assert!(
            format!("{:.17}", x.as_f64().unwrap()).starts_with(shown),
            "{x} vs {shown}…"
        );
    }
    // hypothesis2 has no 3- or 4-gram match: NLTK's doctest rounds it to 0.0, the value is tiny
    // but not zero (Q1), with warnings for orders 3 and 4.
    let seg = segments(&["-m", "nltk-bleu"], tsv(hyp2, &[r1]));
    let s = &seg[0]["nltk-bleu"];
    assert!(s["score"].as_f64().unwrap() > 0.0 && s["score"].as_f64().unwrap() < 1e-100);
    assert_eq!(s["warnings"], json!([3, 4]));
}

// ---------------------------------------------------------------------------------------------
// MATLAB bleuEvaluationScore semantics (the seed's statements)
// ---------------------------------------------------------------------------------------------

fn matlab(args: &[&str], input: &str) -> Vec<Value> {
    let mut all = vec!["-m", "nltk-bleu", "--compat", "matlab"];
    all.extend_from_slice(args);
    segments(&all, input.to_owned())
        .into_iter()
        .map(|s| s["nltk-bleu"]["score"].clone())
        .collect()
}

#[test]
fn matlab_semantics() {
    // "If candidate is identical to one of the reference documents, then score is 1."
    assert_eq!(matlab(&[], "a b c d e\tx y\ta b c d e\n"), [json!(1.0)]);
    // "If the number of words in candidate is smaller than the number of elements in
    // ngramWeights, then the resulting BLEU score is zero" — even for an identical candidate.
    assert_eq!(matlab(&[], "a b c\ta b c\n"), [json!(0.0)]);
    // ...and fewer weights give it a nonzero score: [0.5 0.5] on a three-word candidate.
    assert_eq!(
        matlab(&["--weights", "0.5,0.5"], "a b c\ta b c\n"),
        [json!(1.0)]
    );
    // "If candidate and references are both empty documents, then score is NaN" (JSON null,
    // `nan` in text rows).
    assert_eq!(matlab(&[], "\t\n"), [Value::Null]);
    let out = Cmd::new()
        .args(["-m", "nltk-bleu", "--compat", "matlab", "--input", "jsonl"])
        .stdin("{\"hyp\":\"\",\"refs\":[\"\"]}\n")
        .run();
    assert_eq!(out.stdout_str(), "nan\n");
    // The weights are normalised to sum one: [1 1] is [0.5 0.5].
    let input = "a b c x\ta b c d\n";
    assert_eq!(
        matlab(&["--weights", "1,1"], input),
        matlab(&["--weights", "0.5,0.5"], input)
    );
    // Their count sets the maximum order: a zero 3-gram precision does not matter for BLEU-2.
    assert!(matlab(&["--weights", "2,2"], input)[0].as_f64().unwrap() > 0.0);
    // IgnoreCase is --lowercase.
    assert_eq!(matlab(&["--lowercase"], "A B C D\ta b c d\n"), [json!(1.0)]);
    assert_eq!(matlab(&[], "A B C D\ta b c d\n"), [json!(0.0)]);
    // No NLTK float_info.min: a zero precision is a zero score.
    assert_eq!(matlab(&[], "a b c d x\ta b c y d\n"), [json!(0.0)]);
    // Options MATLAB does not have are usage errors.
    let out = Cmd::new()
        .args([
            "-m",
            "nltk-bleu",
            "--compat",
            "matlab",
            "--nltk-smoothing",
            "1",
        ])
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
}

#[test]
fn rows_keep_one_field_per_weight_vector() {
    // A bad line (empty) and a line where NLTK raises keep as many fields as a scored line.
    let out = Cmd::new()
        .args([
            "-m",
            "nltk-bleu,multi-bleu",
            "--weights=1",
            "--weights=0.5,0.5",
        ])
        .args(["--nltk-smoothing", "6", "--on-error", "skip", "-w", "3"])
        .stdin("a b c\ta b c\n\nx\ty\n")
        .run();
    assert!(out.success(), "{}", out.describe());
    // Method 6 needs three orders: NLTK raises IndexError whenever a unigram matches.
    // (multi-bleu.perl gives a 3-token line 0: it has no 4-gram.)
    assert_eq!(out.stdout_str(), "\t\t0.000\n\t\t\n0.000\t0.000\t0.000\n");
}
