//! Conformance of bleu-stream with sacreBLEU 2.6.0 on every BLEU vector of
//! `../shared/vectors/sacrebleu` (see its README for the formats), through the binary except for
//! the tokenizer vectors, which use the library API.
//!
//! Each test prints a skip message and passes when `../shared` is absent (set
//! `BLEU_STREAM_SHARED` to point elsewhere). When present, every vector must match exactly
//! (f64 bits); all mismatches are collected, the first ones printed, and the test fails with the
//! total.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};

use crate::util::{
    brief, float_hex, json_num_eq, json_nums_eq, json_or_py_repr, mecab_ipadic_or_skip, par_map,
    parse_float_hex, read_jsonl, read_lines_sacrebleu, sacrebleu_vectors, same_bits,
    shared_or_skip, show_f64, str_field, wmt22_dir, BleuParams, Cmd, Mismatches, Output, Tally,
};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// `expected.score_hex` parsed exactly; panics (vector-reading problem) if it does not agree
/// with the decimal `expected.score`.
fn expected_score(id: &str, expected: &Value) -> f64 {
    let hex = str_field(expected, "score_hex");
    let x = parse_float_hex(hex).unwrap_or_else(|| panic!("{id}: bad score_hex {hex:?}"));
    let dec = expected["score"]
        .as_f64()
        .unwrap_or_else(|| panic!("{id}: expected.score is not a number"));
    assert!(
        same_bits(x, dec),
        "{id}: vector reading problem: score {dec:?} != score_hex {hex}"
    );
    x
}

/// Which optional fields `compare_bleu` checks.
#[derive(Clone, Copy, Debug)]
struct Fields {
    /// `ratio` (corpus records only).
    ratio: bool,
    /// `signature` (corpus records only).
    signature: bool,
    /// Compare the actual `text` with this field of `expected`.
    text: Option<&'static str>,
}

const SENTENCE_FIELDS: Fields = Fields {
    ratio: false,
    signature: false,
    text: None,
};

const CORPUS_FIELDS: Fields = Fields {
    ratio: true,
    signature: true,
    text: Some("formatted"),
};

/// Compares a `bleu` object of bleu-stream's JSONL output with a vector's `expected`.
fn compare_bleu(id: &str, actual: &Value, expected: &Value, fields: Fields, out: &mut Vec<String>) {
    let want = expected_score(id, expected);
    match actual.get("score").and_then(Value::as_f64) {
        Some(got) if same_bits(got, want) => {}
        Some(got) => out.push(format!(
            "{id}: score: expected {} got {}",
            show_f64(want),
            show_f64(got)
        )),
        None => out.push(format!("{id}: score missing in {}", brief(actual))),
    }
    let null = Value::Null;
    let mut field = |name: &str, list: bool| {
        let a = actual.get(name).unwrap_or(&null);
        let e = &expected[name];
        let ok = if list {
            json_nums_eq(a, e)
        } else {
            json_num_eq(a, e)
        };
        if !ok {
            out.push(format!("{id}: {name}: expected {e} got {a}"));
        }
    };
    field("counts", true);
    field("totals", true);
    field("sys_len", false);
    field("ref_len", false);
    field("bp", false);
    field("precisions", true);
    if fields.ratio {
        field("ratio", false);
    }
    if fields.signature {
        let e = str_field(expected, "signature");
        if actual.get("signature").and_then(Value::as_str) != Some(e) {
            out.push(format!(
                "{id}: signature: expected {e:?} got {}",
                actual.get("signature").unwrap_or(&null)
            ));
        }
    }
    if let Some(key) = fields.text {
        let e = str_field(expected, key);
        if actual.get("text").and_then(Value::as_str) != Some(e) {
            out.push(format!(
                "{id}: text: expected {e:?} got {}",
                actual.get("text").unwrap_or(&null)
            ));
        }
    }
}

/// The records of type `segment` or `error` (one per input line, in order).
fn row_records(records: &[Value]) -> Vec<&Value> {
    records
        .iter()
        .filter(|r| matches!(r["type"].as_str(), Some("segment" | "error")))
        .collect()
}

/// The single final corpus record, or a description of what is wrong.
fn final_corpus(records: &[Value]) -> Result<&Value, String> {
    let finals: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "corpus" && r["final"] == true)
        .collect();
    match finals.as_slice() {
        [one] => Ok(one),
        _ => Err(format!(
            "{} final corpus records in {} output records",
            finals.len(),
            records.len()
        )),
    }
}

/// Runs the command and parses its JSONL stdout; errors describe the failed run.
fn run_jsonl(cmd: &Cmd) -> Result<Vec<Value>, String> {
    let out: Output = cmd.run();
    if !out.success() {
        return Err(out.describe());
    }
    out.jsonl().map_err(|e| format!("{e}; {}", out.describe()))
}

/// Checks the final corpus record of a `--corpus-only --format jsonl` run.
fn check_corpus_run(
    id: &str,
    cmd: &Cmd,
    expected: &Value,
    segments: usize,
    out: &mut Vec<String>,
) -> Option<f64> {
    let records = match run_jsonl(cmd) {
        Ok(r) => r,
        Err(e) => {
            out.push(format!("{id}: {e}"));
            return None;
        }
    };
    let fin = match final_corpus(&records) {
        Ok(f) => f,
        Err(e) => {
            out.push(format!("{id}: {e}"));
            return None;
        }
    };
    if fin["segments"].as_u64() != Some(segments as u64) {
        out.push(format!(
            "{id}: segments: expected {segments} got {}",
            fin["segments"]
        ));
    }
    if fin["bad_lines"].as_u64() != Some(0) {
        out.push(format!(
            "{id}: bad_lines: expected 0 got {}",
            fin["bad_lines"]
        ));
    }
    compare_bleu(id, &fin["bleu"], expected, CORPUS_FIELDS, out);
    fin["bleu"]["score"].as_f64()
}

fn elapsed(start: Instant) -> String {
    format!("{:.1}s", start.elapsed().as_secs_f64())
}

/// Loads (once) every file named in `rel_paths`, relative to `base`.
fn load_files<'a>(
    base: &Path,
    rel_paths: impl IntoIterator<Item = &'a str>,
) -> HashMap<String, Vec<String>> {
    let mut files = HashMap::new();
    for p in rel_paths {
        if !files.contains_key(p) {
            files.insert(p.to_string(), read_lines_sacrebleu(&base.join(p)));
        }
    }
    files
}

/// `hyp<TAB>ref1<TAB>ref2…` lines, or `None` if some line contains a tab (not representable).
fn build_tsv(hyps: &[String], refs: &[&Vec<String>]) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    for (i, h) in hyps.iter().enumerate() {
        if h.contains('\t') || refs.iter().any(|r| r[i].contains('\t')) {
            return None;
        }
        buf.extend_from_slice(h.as_bytes());
        for r in refs {
            buf.push(b'\t');
            buf.extend_from_slice(r[i].as_bytes());
        }
        buf.push(b'\n');
    }
    Some(buf)
}

// ---------------------------------------------------------------------------------------------
// 1. Tokenizers (library API)
// ---------------------------------------------------------------------------------------------

#[test]
fn tokenizers() {
    use bleu_stream::tokenize::Tokenizer;

    let name = "conformance sacrebleu tokenizers";
    let Some(shared) = shared_or_skip(name) else {
        return;
    };
    let start = Instant::now();
    let dir = sacrebleu_vectors(&shared).join("tokenizers");
    let mut bad = Mismatches::new();
    let mut checked = Tally::default();
    let mut toks = vec!["13a", "intl", "zh", "char", "none"];
    if mecab_ipadic_or_skip("conformance sacrebleu tokenizers: ja-mecab") {
        toks.push("ja-mecab");
    }
    for &tok in &toks {
        let tokenizer = Tokenizer::from_name(tok)
            .unwrap_or_else(|| panic!("Tokenizer::from_name({tok:?}) returned None"));
        for rec in read_jsonl(&dir.join(format!("tok_{tok}.jsonl"))) {
            let id = str_field(&rec, "id");
            assert_eq!(str_field(&rec, "tokenizer"), tok, "{id}: tokenizer field");
            let input = str_field(&rec, "input");
            for (lc, key) in [(false, "bleu_tokens"), (true, "bleu_tokens_lc")] {
                let want: Vec<String> = serde_json::from_value(rec[key].clone())
                    .unwrap_or_else(|e| panic!("{id}: {key}: {e}"));
                let got = tokenizer.bleu_tokens(input, lc);
                if got != want {
                    bad.push(
                        id,
                        format!("{key} of {input:?}: expected {want:?} got {got:?}"),
                    );
                }
                checked.add(tok, 1);
            }
        }
    }
    // ko-mecab's records are checked by conformance_ko_mecab (which needs its dictionary).
    let skipped_toks: Vec<&str> = ["ja-mecab"]
        .into_iter()
        .filter(|t| !toks.contains(t))
        .collect();
    let skipped: usize = skipped_toks
        .iter()
        .map(|t| read_jsonl(&dir.join(format!("tok_{t}.jsonl"))).len() * 2)
        .sum();
    let total: usize = checked.0.values().sum();
    println!(
        "{name}: {total} checked {:?}, {skipped} skipped ({}; ko-mecab: see conformance_ko_mecab) in {}",
        checked.0,
        skipped_toks.join(", "),
        elapsed(start)
    );
    bad.finish(name);
}

// ---------------------------------------------------------------------------------------------
// 2. Sentence BLEU
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct SentenceResult {
    checked: usize,
    zero_ref: usize,
    mismatches: Vec<String>,
}

fn run_sentence_group(params: &BleuParams, records: &[&Value]) -> SentenceResult {
    let mut res = SentenceResult::default();
    let mut stdin = Vec::new();
    for rec in records {
        let id = str_field(rec, "id");
        let hyps = rec["hyps"].as_array().expect("hyps");
        assert_eq!(
            hyps.len(),
            1,
            "{id}: sentence record with {} hyps",
            hyps.len()
        );
        let refs: Vec<Value> = rec["refs"]
            .as_array()
            .expect("refs")
            .iter()
            .map(|stream| {
                let s = stream.as_array().expect("ref stream");
                assert_eq!(
                    s.len(),
                    1,
                    "{id}: sentence ref stream of length {}",
                    s.len()
                );
                s[0].clone()
            })
            .collect();
        let line = json!({"id": id, "hyp": hyps[0], "refs": refs});
        serde_json::to_writer(&mut stdin, &line).unwrap();
        stdin.push(b'\n');
    }
    let mut cmd = Cmd::new();
    cmd.args(["--input", "jsonl", "--format", "jsonl"])
        .args(params.cli_args())
        .stdin(stdin);
    let output = match run_jsonl(&cmd) {
        Ok(o) => o,
        Err(e) => {
            res.mismatches.push(format!("group {params:?}: {e}"));
            return res;
        }
    };
    let rows = row_records(&output);
    if rows.len() != records.len() {
        res.mismatches.push(format!(
            "group {params:?}: {} input lines but {} segment/error records",
            records.len(),
            rows.len()
        ));
    }
    for (k, (rec, row)) in records.iter().zip(&rows).enumerate() {
        let id = str_field(rec, "id");
        if row["line"].as_u64() != Some(k as u64 + 1) {
            res.mismatches.push(format!(
                "{id}: line: expected {} got {}",
                k + 1,
                row["line"]
            ));
        }
        let zero_refs = rec["refs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s[0].is_null());
        if zero_refs {
            if row["type"] == "error" {
                res.zero_ref += 1;
            } else {
                res.mismatches.push(format!(
                    "{id}: no non-null reference: expected an error record, got {}",
                    brief(row)
                ));
            }
            continue;
        }
        if row["type"] != "segment" {
            res.mismatches.push(format!(
                "{id}: expected a segment record, got {}",
                brief(row)
            ));
            continue;
        }
        if row.get("id") != Some(&Value::String(id.to_string())) {
            res.mismatches.push(format!(
                "{id}: id not echoed: {}",
                row.get("id").unwrap_or(&Value::Null)
            ));
        }
        compare_bleu(
            id,
            &row["bleu"],
            &rec["expected"],
            SENTENCE_FIELDS,
            &mut res.mismatches,
        );
        res.checked += 1;
    }
    res
}

fn sentence_bleu(stem: &str) {
    let name = format!("conformance sacrebleu {stem}");
    let Some(shared) = shared_or_skip(&name) else {
        return;
    };
    let start = Instant::now();
    let path = sacrebleu_vectors(&shared)
        .join("bleu")
        .join(format!("{stem}.jsonl"));
    let records = read_jsonl(&path);
    let mut groups: Vec<(BleuParams, Vec<&Value>)> = Vec::new();
    let mut skipped = Tally::default();
    let have_ipadic = !records
        .iter()
        .any(|r| r["params"]["tokenize"] == "ja-mecab")
        || mecab_ipadic_or_skip(&format!("{name}: ja-mecab records"));
    for rec in &records {
        let params = BleuParams::from_json(&rec["params"]);
        if params.skip_mecab(have_ipadic) {
            skipped.add(params.tokenize.clone(), 1);
            continue;
        }
        match groups.iter_mut().find(|(p, _)| *p == params) {
            Some((_, recs)) => recs.push(rec),
            None => groups.push((params, vec![rec])),
        }
    }
    let results = par_map(&groups, |(p, recs)| run_sentence_group(p, recs));
    let mut bad = Mismatches::new();
    let (mut checked, mut zero_ref) = (0, 0);
    for r in results {
        checked += r.checked;
        zero_ref += r.zero_ref;
        bad.extend(r.mismatches);
    }
    let skipped_total: usize = skipped.0.values().sum();
    let skipped_what: Vec<&str> = skipped.0.keys().map(String::as_str).collect();
    println!(
        "{name}: {checked} checked, {skipped_total} skipped ({}), {zero_ref} zero-reference \
         segments rejected with an error record; {} records in {} groups, {}",
        if skipped_what.is_empty() {
            "none".to_string()
        } else {
            skipped_what.join(", ")
        },
        records.len(),
        groups.len(),
        elapsed(start)
    );
    bad.finish(&name);
}

#[test]
fn sentence_bleu_exp_eff() {
    sentence_bleu("sentence_bleu_exp_eff");
}

#[test]
fn sentence_bleu_exp_noeff() {
    sentence_bleu("sentence_bleu_exp_noeff");
}

#[test]
fn sentence_bleu_floor_eff() {
    sentence_bleu("sentence_bleu_floor_eff");
}

#[test]
fn sentence_bleu_none_eff() {
    sentence_bleu("sentence_bleu_none_eff");
}

#[test]
fn sentence_bleu_addk_eff() {
    sentence_bleu("sentence_bleu_addk_eff");
}

#[test]
fn sentence_bleu_variants() {
    sentence_bleu("sentence_bleu_variants");
}

#[test]
fn sentence_bleu_edge() {
    sentence_bleu("sentence_bleu_edge");
}

// ---------------------------------------------------------------------------------------------
// 3. Corpus BLEU on inline corpora
// ---------------------------------------------------------------------------------------------

/// Every `W1_SAMPLE`-th corpus edge record is also checked in text mode with `-w 1`.
const W1_SAMPLE: usize = 7;

#[test]
fn corpus_bleu_edge() {
    let name = "conformance sacrebleu corpus_bleu_edge";
    let Some(shared) = shared_or_skip(name) else {
        return;
    };
    let start = Instant::now();
    let records = read_jsonl(&sacrebleu_vectors(&shared).join("bleu/corpus_bleu_edge.jsonl"));
    let indexed: Vec<(usize, &Value)> = records.iter().enumerate().collect();
    let results = par_map(&indexed, |&(idx, rec)| {
        let mut out = Vec::new();
        let id = str_field(rec, "id");
        let params = BleuParams::from_json(&rec["params"]);
        assert!(!params.needs_mecab(), "{id}: unexpected MeCab tokenizer");
        let hyps = rec["hyps"].as_array().expect("hyps");
        let streams: Vec<&Vec<Value>> = rec["refs"]
            .as_array()
            .expect("refs")
            .iter()
            .map(|s| s.as_array().expect("ref stream"))
            .collect();
        let mut stdin = Vec::new();
        for (i, h) in hyps.iter().enumerate() {
            let refs: Vec<&Value> = streams.iter().map(|s| &s[i]).collect();
            assert!(
                refs.iter().any(|r| !r.is_null()),
                "{id}: segment {i} has no reference (sacreBLEU would crash)"
            );
            serde_json::to_writer(&mut stdin, &json!({"hyp": h, "refs": refs})).unwrap();
            stdin.push(b'\n');
        }
        let mut cmd = Cmd::new();
        cmd.args(["--input", "jsonl", "--corpus-only", "--format", "jsonl"])
            .args(params.cli_args())
            .stdin(stdin.clone());
        check_corpus_run(id, &cmd, &rec["expected"], hyps.len(), &mut out);

        let mut w1_checked = false;
        if idx % W1_SAMPLE == 0 {
            let mut cmd = Cmd::new();
            cmd.args(["--input", "jsonl", "--corpus-only", "-w", "1"])
                .args(params.cli_args())
                .stdin(stdin);
            let o = cmd.run();
            if !o.success() {
                out.push(format!("{id} (-w 1): {}", o.describe()));
            } else {
                let text = o.stdout_str();
                let want = str_field(&rec["expected"], "formatted_w1");
                if !text.lines().any(|l| l == want) {
                    out.push(format!("{id} (-w 1): no stdout line {want:?} in {text:?}"));
                }
                let sig = str_field(&rec["expected"], "signature");
                if !text.contains(sig) {
                    out.push(format!("{id} (-w 1): signature {sig:?} not in {text:?}"));
                }
                w1_checked = true;
            }
        }
        (out, w1_checked)
    });
    let mut bad = Mismatches::new();
    let mut w1 = 0;
    for (m, w) in results {
        bad.extend(m);
        w1 += usize::from(w);
    }
    println!(
        "{name}: {} checked, 0 skipped (none); {w1} also checked in text mode with -w 1 \
         (every {W1_SAMPLE}th); {}",
        records.len(),
        elapsed(start)
    );
    bad.finish(name);
}

// ---------------------------------------------------------------------------------------------
// 4. Corpus BLEU on the WMT22 files
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Wmt22Result {
    checked_files: usize,
    checked_tsv: usize,
    tsv_skipped_tab: usize,
    official: usize,
    official_matched: usize,
    mismatches: Vec<String>,
}

fn wmt22_corpus(stem: &str) {
    let name = format!("conformance sacrebleu {stem}");
    let Some(shared) = shared_or_skip(&name) else {
        return;
    };
    let start = Instant::now();
    let base = wmt22_dir(&shared);
    let all = read_jsonl(
        &sacrebleu_vectors(&shared)
            .join("bleu")
            .join(format!("{stem}.jsonl")),
    );
    let mut skipped = Tally::default();
    let mut records = Vec::new();
    let have_ipadic = !all.iter().any(|r| r["params"]["tokenize"] == "ja-mecab")
        || mecab_ipadic_or_skip(&format!("{name}: ja-mecab records"));
    for rec in &all {
        let params = BleuParams::from_json(&rec["params"]);
        if params.skip_mecab(have_ipadic) {
            skipped.add(params.tokenize.clone(), 1);
        } else {
            records.push((rec, params));
        }
    }
    let files = load_files(
        &base,
        records.iter().flat_map(|(rec, _)| {
            std::iter::once(str_field(rec, "hyps_file")).chain(
                rec["refs_files"]
                    .as_array()
                    .expect("refs_files")
                    .iter()
                    .map(|v| v.as_str().expect("refs_files entry")),
            )
        }),
    );
    let results = par_map(&records, |(rec, params)| {
        let mut res = Wmt22Result::default();
        let id = str_field(rec, "id");
        let hyp_rel = str_field(rec, "hyps_file");
        let ref_rels: Vec<&str> = rec["refs_files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let hyps = &files[hyp_rel];
        let refs: Vec<&Vec<String>> = ref_rels.iter().map(|r| &files[*r]).collect();
        let n = rec["n_lines"].as_u64().expect("n_lines") as usize;
        assert_eq!(hyps.len(), n, "{id}: {hyp_rel} has {} lines", hyps.len());
        for (r, rel) in refs.iter().zip(&ref_rels) {
            assert_eq!(r.len(), n, "{id}: {rel} has {} lines", r.len());
        }
        let expected = &rec["expected"];

        // (a) parallel files
        let mut cmd = Cmd::new();
        cmd.args(["--corpus-only", "--format", "jsonl"])
            .args(params.cli_args());
        for rel in &ref_rels {
            cmd.arg("-r").arg(base.join(rel));
        }
        cmd.arg(base.join(hyp_rel));
        let before = res.mismatches.len();
        let score = check_corpus_run(
            &format!("{id} (-r)"),
            &cmd,
            expected,
            n,
            &mut res.mismatches,
        );
        if res.mismatches.len() == before {
            res.checked_files += 1;
        }
        if rec.get("official_match") == Some(&Value::Bool(true)) {
            res.official += 1;
            let official = rec["official_wmt22"].as_f64().expect("official_wmt22");
            match score {
                Some(s) if same_bits(s, official) => res.official_matched += 1,
                s => res.mismatches.push(format!(
                    "{id}: official WMT22 {} ({}): got {s:?}",
                    show_f64(official),
                    str_field(rec, "official_wmt22_metric")
                )),
            }
        }

        // (b) TSV on stdin
        match build_tsv(hyps, &refs) {
            None => res.tsv_skipped_tab += 1,
            Some(tsv) => {
                let mut cmd = Cmd::new();
                cmd.args(["--input", "tsv", "--refs"])
                    .arg(refs.len().to_string())
                    .args(["--corpus-only", "--format", "jsonl"])
                    .args(params.cli_args())
                    .stdin(tsv);
                let before = res.mismatches.len();
                check_corpus_run(
                    &format!("{id} (tsv)"),
                    &cmd,
                    expected,
                    n,
                    &mut res.mismatches,
                );
                if res.mismatches.len() == before {
                    res.checked_tsv += 1;
                }
            }
        }
        res
    });
    let mut bad = Mismatches::new();
    let mut total = Wmt22Result::default();
    for r in results {
        total.checked_files += r.checked_files;
        total.checked_tsv += r.checked_tsv;
        total.tsv_skipped_tab += r.tsv_skipped_tab;
        total.official += r.official;
        total.official_matched += r.official_matched;
        bad.extend(r.mismatches);
    }
    let skipped_total: usize = skipped.0.values().sum();
    let skipped_what: Vec<&str> = skipped.0.keys().map(String::as_str).collect();
    println!(
        "{name}: {} checked, {skipped_total} skipped ({}); matched via -r files: {}, via TSV \
         stdin: {} ({} not representable as TSV: a line contains a tab); official_match: {} of \
         {} reproduced; {}",
        records.len(),
        if skipped_what.is_empty() {
            "none".to_string()
        } else {
            skipped_what.join(", ")
        },
        total.checked_files,
        total.checked_tsv,
        total.tsv_skipped_tab,
        total.official_matched,
        total.official,
        elapsed(start)
    );
    bad.finish(&name);
}

#[test]
fn corpus_bleu_wmt22() {
    wmt22_corpus("corpus_bleu_wmt22");
}

#[test]
fn corpus_bleu_wmt22_variants() {
    wmt22_corpus("corpus_bleu_wmt22_variants");
}

// ---------------------------------------------------------------------------------------------
// 5. The official WMT22 BLEU table
// ---------------------------------------------------------------------------------------------

/// Reference files of `pair` for `ref_config` (`all` = every reference, in name order).
fn official_refs(base: &Path, pair: &str, ref_config: &str) -> Vec<String> {
    let tgt = pair.split('-').nth(1).expect("pair src-tgt");
    if ref_config != "all" {
        let rel = format!("references/generaltest2022.{pair}.ref.{ref_config}.{tgt}");
        assert!(base.join(&rel).is_file(), "{rel} missing");
        return vec![rel];
    }
    let prefix = format!("generaltest2022.{pair}.ref.");
    let mut names: Vec<String> = std::fs::read_dir(base.join("references"))
        .expect("references dir")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no references for {pair}");
    names
        .into_iter()
        .map(|n| format!("references/{n}"))
        .collect()
}

#[test]
fn wmt22_official() {
    let name = "conformance sacrebleu wmt22_official";
    let Some(shared) = shared_or_skip(name) else {
        return;
    };
    let start = Instant::now();
    let base = wmt22_dir(&shared);
    let rows: Vec<Value> = read_jsonl(&sacrebleu_vectors(&shared).join("wmt22_official.jsonl"))
        .into_iter()
        .filter(|r| str_field(r, "metric").starts_with("bleu-"))
        .collect();

    struct Job {
        id: String,
        /// `Some(tokenizer)` for reproducible rows; `None` = not reproducible by sacreBLEU.
        tokenize: Option<String>,
        want: f64,
        hyp: String,
        refs: Vec<String>,
    }
    let mut jobs = Vec::new();
    for r in &rows {
        let pair = str_field(r, "pair");
        let system = str_field(r, "system");
        let metric = str_field(r, "metric");
        let tgt = pair.split('-').nth(1).expect("pair src-tgt");
        let id = format!("{pair} {system} {metric}");
        let official = r["official"].as_f64().expect("official");
        let (tokenize, want) = if r["exact_match"] == true {
            let settings: Vec<&str> = r["exact_match_settings"]
                .as_array()
                .expect("exact_match_settings")
                .iter()
                .filter_map(|s| s.as_str()?.strip_prefix("tokenize="))
                .collect();
            let tok = settings
                .first()
                .unwrap_or_else(|| panic!("{id}: no tokenize= in exact_match_settings"));
            (Some(tok.to_string()), official)
        } else {
            // sacreBLEU itself does not reproduce the official number: expect its 13a value.
            let v = r["sacrebleu_2_6_0"]["13a"]
                .as_f64()
                .unwrap_or_else(|| panic!("{id}: no sacrebleu_2_6_0.13a"));
            (None, v)
        };
        jobs.push(Job {
            id,
            tokenize,
            want,
            hyp: format!("system-outputs/generaltest2022.{pair}.hyp.{system}.{tgt}"),
            refs: official_refs(&base, pair, str_field(r, "ref_config")),
        });
    }
    let files = load_files(
        &base,
        jobs.iter()
            .flat_map(|j| std::iter::once(j.hyp.as_str()).chain(j.refs.iter().map(String::as_str))),
    );
    let results = par_map(&jobs, |job| {
        let mut out = Vec::new();
        let (mut via_tsv, mut tab) = (false, false);
        let tok = job.tokenize.as_deref().unwrap_or("13a");
        let check = |what: &str, cmd: &Cmd, out: &mut Vec<String>| -> bool {
            let records = match run_jsonl(cmd) {
                Ok(r) => r,
                Err(e) => {
                    out.push(format!("{} ({what}): {e}", job.id));
                    return false;
                }
            };
            let got = final_corpus(&records).map(|f| f["bleu"]["score"].as_f64());
            match got {
                Ok(Some(s)) if same_bits(s, job.want) => true,
                got => {
                    out.push(format!(
                        "{} ({what}, tok {tok}): expected {} got {got:?}",
                        job.id,
                        show_f64(job.want)
                    ));
                    false
                }
            }
        };
        let mut cmd = Cmd::new();
        cmd.args(["--corpus-only", "--format", "jsonl", "--tokenize", tok]);
        for r in &job.refs {
            cmd.arg("-r").arg(base.join(r));
        }
        cmd.arg(base.join(&job.hyp));
        let via_files = check("-r", &cmd, &mut out);

        let refs: Vec<&Vec<String>> = job.refs.iter().map(|r| &files[r]).collect();
        match build_tsv(&files[&job.hyp], &refs) {
            None => tab = true,
            Some(tsv) => {
                let mut cmd = Cmd::new();
                cmd.args(["--input", "tsv", "--refs"])
                    .arg(refs.len().to_string())
                    .args(["--corpus-only", "--format", "jsonl", "--tokenize", tok])
                    .stdin(tsv);
                via_tsv = check("tsv", &cmd, &mut out);
            }
        }
        (out, via_files, via_tsv, tab)
    });
    let mut bad = Mismatches::new();
    let (mut exact, mut not_repro, mut files_ok, mut tsv_ok, mut tabs) = (0, 0, 0, 0, 0);
    let mut per_tok: BTreeMap<String, usize> = BTreeMap::new();
    for (job, (out, f, t, tab)) in jobs.iter().zip(results) {
        match &job.tokenize {
            Some(tok) => {
                exact += 1;
                *per_tok.entry(tok.clone()).or_default() += 1;
            }
            None => not_repro += 1,
        }
        files_ok += usize::from(f);
        tsv_ok += usize::from(t);
        tabs += usize::from(tab);
        bad.extend(out);
    }
    println!(
        "{name}: {} checked ({} BLEU rows: {exact} official scores reproducible by sacreBLEU \
         {per_tok:?}; {not_repro} not reproducible by sacreBLEU either (ru-sah Lan-Bridge), \
         checked against sacreBLEU's own 13a value), 0 skipped; matched via -r files: \
         {files_ok}, via TSV stdin: {tsv_ok} ({tabs} not representable as TSV: a line contains \
         a tab); {}",
        jobs.len(),
        rows.len(),
        elapsed(start)
    );
    bad.finish(name);
}

// ---------------------------------------------------------------------------------------------
// 6. Streaming: per-line scores, periodic reports, thread-count independence
// ---------------------------------------------------------------------------------------------

const PREFIX_KEYS: &[&str] = &[
    "n",
    "score",
    "score_hex",
    "formatted",
    "sys_len",
    "ref_len",
    "counts",
    "totals",
];

/// `prefix_scores` as JSON, verifying the assumptions of the repr conversion.
fn prefix_scores(id: &str, v: &Value) -> Vec<Value> {
    let v = json_or_py_repr(v).unwrap_or_else(|e| panic!("{id}: prefix_scores: {e}"));
    let entries = v
        .as_array()
        .unwrap_or_else(|| panic!("{id}: prefix_scores is not a list"))
        .clone();
    for e in &entries {
        let obj = e
            .as_object()
            .unwrap_or_else(|| panic!("{id}: prefix entry {e} is not a dict"));
        for (k, x) in obj {
            assert!(
                PREFIX_KEYS.contains(&k.as_str()),
                "{id}: unexpected prefix_scores key {k:?}"
            );
            assert!(
                !x.is_string() || k == "formatted" || k == "score_hex",
                "{id}: unexpected string value in prefix_scores[{k:?}]"
            );
        }
    }
    entries
}

fn check_streaming(shared: &Path, rec: &Value) -> (Vec<String>, usize, usize) {
    let base = wmt22_dir(shared);
    let id = str_field(rec, "id");
    let mut out = Vec::new();
    let params = BleuParams::from_json(&rec["params"]);
    let sparams = BleuParams::from_json(&rec["sentence_params"]);
    // The run below relies on the defaults: corpus = exp, no effective order; sentence rows = exp
    // with effective order.
    let defaults = |p: &BleuParams, eff: bool| {
        p.smooth_method == "exp"
            && p.smooth_value.is_none()
            && p.max_ngram_order == 4
            && p.effective_order == eff
    };
    assert!(
        defaults(&params, false) && defaults(&sparams, true),
        "{id}: non-default params {params:?} / {sparams:?}"
    );
    assert_eq!(params.tokenize, sparams.tokenize);
    assert_eq!(params.lowercase, sparams.lowercase);
    let n = rec["n_lines"].as_u64().expect("n_lines") as usize;
    let every = rec["prefix_every"].as_u64().expect("prefix_every");
    assert_eq!(every, 100, "{id}: prefix_every");

    let stats = json_or_py_repr(&rec["segment_stats"])
        .unwrap_or_else(|e| panic!("{id}: segment_stats: {e}"));
    let stats = stats.as_array().expect("segment_stats list");
    let hexes = json_or_py_repr(&rec["sentence_scores_hex"])
        .unwrap_or_else(|e| panic!("{id}: sentence_scores_hex: {e}"));
    let hexes: Vec<f64> = hexes
        .as_array()
        .expect("sentence_scores_hex list")
        .iter()
        .map(|h| {
            let h = h.as_str().expect("hex string");
            parse_float_hex(h).unwrap_or_else(|| panic!("{id}: bad hex {h:?}"))
        })
        .collect();
    if let Ok(dec) = json_or_py_repr(&rec["sentence_scores"]) {
        // Sanity check of the reading: decimal and hex forms agree.
        for (i, (d, h)) in dec.as_array().unwrap().iter().zip(&hexes).enumerate() {
            assert!(
                same_bits(d.as_f64().unwrap(), *h),
                "{id}: sentence_scores[{i}] {d} != {}",
                float_hex(*h)
            );
        }
    }
    let prefixes = prefix_scores(id, &rec["prefix_scores"]);
    assert_eq!(stats.len(), n, "{id}: segment_stats length");
    assert_eq!(hexes.len(), n, "{id}: sentence_scores_hex length");
    let last = prefixes.last().expect("prefix_scores not empty");
    assert_eq!(
        last["n"].as_u64(),
        Some(n as u64),
        "{id}: last prefix is not n_lines"
    );

    let mut cmd = Cmd::new();
    cmd.args(["--every", "100", "--format", "jsonl", "--tokenize"])
        .arg(&params.tokenize);
    if params.lowercase {
        cmd.arg("--lowercase");
    }
    for r in rec["refs_files"].as_array().expect("refs_files") {
        cmd.arg("-r").arg(base.join(r.as_str().unwrap()));
    }
    cmd.arg(base.join(str_field(rec, "hyps_file")));
    let first = cmd.run();
    if !first.success() {
        out.push(format!("{id}: {}", first.describe()));
        return (out, 0, 0);
    }
    let records = match first.jsonl() {
        Ok(r) => r,
        Err(e) => {
            out.push(format!("{id}: {e}"));
            return (out, 0, 0);
        }
    };

    // Per-line rows.
    let rows = row_records(&records);
    if rows.len() != n {
        out.push(format!("{id}: {n} lines but {} row records", rows.len()));
    }
    let mut rows_checked = 0;
    for (i, row) in rows.iter().enumerate().take(n) {
        let rid = format!("{id} line {}", i + 1);
        if row["type"] != "segment" {
            out.push(format!(
                "{rid}: expected a segment record, got {}",
                brief(row)
            ));
            continue;
        }
        let b = &row["bleu"];
        match b["score"].as_f64() {
            Some(s) if same_bits(s, hexes[i]) => {}
            s => out.push(format!(
                "{rid}: score: expected {} got {s:?}",
                show_f64(hexes[i])
            )),
        }
        let st = stats[i].as_array().expect("stats row");
        assert_eq!(st.len(), 10, "{rid}: stats layout");
        let checks = [
            ("sys_len", json!(st[0])),
            ("ref_len", json!(st[1])),
            ("counts", json!(st[2..6])),
            ("totals", json!(st[6..10])),
        ];
        for (k, want) in checks {
            let ok = if want.is_array() {
                json_nums_eq(&b[k], &want)
            } else {
                json_num_eq(&b[k], &want)
            };
            if !ok {
                out.push(format!("{rid}: {k}: expected {want} got {}", b[k]));
            }
        }
        rows_checked += 1;
    }

    // Corpus reports.
    let by_n: HashMap<u64, &Value> = prefixes
        .iter()
        .map(|p| (p["n"].as_u64().expect("prefix n"), p))
        .collect();
    let mut seen = Vec::new();
    let mut reports_checked = 0;
    let check_report = |rid: &str, report: &Value, want: &Value, out: &mut Vec<String>| {
        let b = &report["bleu"];
        let score = parse_float_hex(str_field(want, "score_hex")).expect("prefix score_hex");
        assert!(
            same_bits(score, want["score"].as_f64().unwrap()),
            "{rid}: prefix score/score_hex disagree"
        );
        match b["score"].as_f64() {
            Some(s) if same_bits(s, score) => {}
            s => out.push(format!(
                "{rid}: score: expected {} got {s:?}",
                show_f64(score)
            )),
        }
        for k in ["counts", "totals"] {
            if !json_nums_eq(&b[k], &want[k]) {
                out.push(format!("{rid}: {k}: expected {} got {}", want[k], b[k]));
            }
        }
        for k in ["sys_len", "ref_len"] {
            if !json_num_eq(&b[k], &want[k]) {
                out.push(format!("{rid}: {k}: expected {} got {}", want[k], b[k]));
            }
        }
        if b["text"] != want["formatted"] {
            out.push(format!(
                "{rid}: text: expected {} got {}",
                want["formatted"], b["text"]
            ));
        }
    };
    let mut finals = 0;
    for r in records.iter().filter(|r| r["type"] == "corpus") {
        let segs = r["segments"].as_u64().unwrap_or(u64::MAX);
        if r["final"] == true {
            finals += 1;
            let rid = format!("{id} final report");
            if segs != n as u64 {
                out.push(format!(
                    "{rid}: segments: expected {n} got {}",
                    r["segments"]
                ));
            }
            check_report(&rid, r, last, &mut out);
            reports_checked += 1;
        } else {
            let rid = format!("{id} report at {segs}");
            match by_n.get(&segs) {
                Some(want) => {
                    check_report(&rid, r, want, &mut out);
                    seen.push(segs);
                    reports_checked += 1;
                }
                None => out.push(format!("{rid}: unexpected periodic report: {}", brief(r))),
            }
        }
    }
    if finals != 1 {
        out.push(format!("{id}: {finals} final corpus records"));
    }
    for p in &prefixes {
        let pn = p["n"].as_u64().unwrap();
        if pn < n as u64 && !seen.contains(&pn) {
            out.push(format!("{id}: no periodic report at {pn} segments"));
        }
    }

    // Same bytes with one worker thread.
    let mut one = cmd.clone();
    one.args(["--threads", "1"]);
    let single = one.run();
    if !single.success() {
        out.push(format!("{id} (--threads 1): {}", single.describe()));
    } else if single.stdout != first.stdout {
        let a = first.stdout_str();
        let b = single.stdout_str();
        let line = a
            .lines()
            .zip(b.lines())
            .position(|(x, y)| x != y)
            .map_or_else(|| "length".to_string(), |i| format!("line {}", i + 1));
        out.push(format!(
            "{id}: stdout with --threads 1 differs from the default run (first difference: \
             {line})"
        ));
    }
    (out, rows_checked, reports_checked)
}

#[test]
fn streaming_bleu() {
    let name = "conformance sacrebleu streaming_bleu";
    let Some(shared) = shared_or_skip(name) else {
        return;
    };
    let start = Instant::now();
    let shared: PathBuf = shared;
    let records = read_jsonl(&sacrebleu_vectors(&shared).join("streaming/streaming_bleu.jsonl"));
    let results = par_map(&records, |rec| check_streaming(&shared, rec));
    let mut bad = Mismatches::new();
    let (mut rows, mut reports) = (0, 0);
    for (m, r, p) in results {
        bad.extend(m);
        rows += r;
        reports += p;
    }
    println!(
        "{name}: {} checked, 0 skipped (none); {rows} per-line scores + stats, {reports} \
         periodic/final corpus reports, --threads 1 output compared byte for byte; {}",
        records.len(),
        elapsed(start)
    );
    bad.finish(name);
}
