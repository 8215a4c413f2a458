//! Point 2 (every stats document is validated before it is trusted), point 4 (merged counts
//! never wrap) and point 9 (no "segments -1"): one test per rejected shape of document. Each
//! rejection is an error naming the file, the document and the field, exit status 2, and
//! nothing on stdout; what the program writes itself still merges (tests/merge.rs).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::util::{assert_refused, Cmd, Output, BIN};

const INPUT: &str = "{\"hyp\":\"the cat sat on the mat\",\"refs\":[\"the cat is on the mat\",\"a cat sat\"],\"sys\":\"a\"}\n\
                     {\"hyp\":\"0 1 0 2\",\"refs\":[\"0 1 2 0\",\"0 0\"],\"sys\":\"b\"}\n";

/// `--emit stats` of INPUT with `args`, parsed.
fn emit(args: &[&str]) -> Value {
    let out = Cmd::new()
        .args(["--input", "jsonl", "--emit", "stats"])
        .args(args)
        .stdin(INPUT)
        .run();
    out.assert_success();
    serde_json::from_str(&out.stdout_str()).unwrap()
}

struct Files(tempfile::TempDir);

impl Files {
    fn new() -> Files {
        Files(tempfile::tempdir().unwrap())
    }

    fn write(&self, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

fn merge_text(text: &str) -> Output {
    let files = Files::new();
    let path = files.write("shard.json", text);
    Cmd::new().arg("merge").arg(path).run()
}

/// `text` (one or more documents) is refused: status 2, nothing on stdout, and the message
/// names the file, the document (and its line) and says each of `says`.
fn refused(text: &str, document: &str, says: &[&str]) -> String {
    let out = merge_text(text);
    assert_refused(&out, 2, &["shard.json: ", document]);
    let err = out.stderr_str();
    for s in says {
        assert!(err.contains(s), "want {s:?} in {err}");
    }
    err
}

fn doc_text(doc: &Value) -> String {
    format!("{doc}\n")
}

/// The stats of metric `key` in `doc`.
fn stats<'a>(doc: &'a mut Value, key: &str) -> &'a mut Value {
    let parts = doc["metrics"].as_array_mut().unwrap();
    &mut parts.iter_mut().find(|p| p["key"] == key).unwrap()["stats"]
}

#[test]
fn what_the_program_writes_merges_with_every_metric_and_option() {
    for args in [
        &[
            "-m",
            "bleu,chrf,ter,nltk-bleu,multi-bleu,gleu,nist,mteval-bleu",
        ][..],
        &["-m", "nist", "--nist-compat", "nltk"],
        &["-m", "nltk-bleu", "--compat", "matlab"],
        &[
            "-m",
            "bleu,chrf,gleu",
            "--confidence",
            "--confidence-n",
            "30",
        ],
        &[
            "-m",
            "bleu,chrf,gleu",
            "--confidence=streaming",
            "--confidence-n",
            "5",
        ],
        &["-m", "bleu,ter,nist", "--group-by", "sys"],
        &[
            "-m",
            "chrf",
            "--group-by",
            "sys",
            "--confidence",
            "--confidence-n",
            "5",
        ],
    ] {
        let doc = emit(args);
        let out = merge_text(
            &(doc_text(&doc) + &doc_text(&doc).replace("\"lines\":[1,2]", "\"lines\":[3,4]")),
        );
        out.assert_success();
    }
}

#[test]
fn duplicate_keys_are_refused_anywhere_in_a_document() {
    let doc = doc_text(&emit(&[]));
    // serde_json's Value keeps the last of duplicate keys: 9 segments would pass for 2.
    let top = doc.replacen("\"segments\":2,", "\"segments\":2,\"segments\":9,", 1);
    refused(
        &top,
        "document 1: ",
        &["duplicate key \"segments\"", "begins on line 1)"],
    );
    let nested = doc.replacen("\"counts\":[", "\"nrefs\":[2,2],\"counts\":[", 1);
    refused(&nested, "document 1: ", &["duplicate key \"nrefs\""]);
    // In a later document of a stream, with its line.
    let second = format!("{doc}\n{top}");
    refused(
        &second,
        "document 2: ",
        &["duplicate key", "(the document begins on line 3)"],
    );
}

#[test]
fn negative_fractional_and_huge_counts_are_refused() {
    let doc = emit(&[]);
    for (value, says) in [
        (json!(-1), "\"segments\" is -1, not a count"),
        (json!(1.5), "\"segments\" is 1.5, not a count"),
        // 2^64 - 1: a reader of signed integers would print "segments -1".
        (
            json!(u64::MAX),
            "\"segments\" is 18446744073709551615, not a count",
        ),
        (json!("2"), "\"segments\" is \"2\", not a count"),
    ] {
        let mut bad = doc.clone();
        bad["segments"] = value;
        refused(&doc_text(&bad), "document 1", &[says]);
    }
    let mut bad = doc.clone();
    bad["bad_lines"] = json!(-3);
    refused(&doc_text(&bad), "document 1", &["\"bad_lines\" is -3"]);
    for counts in [
        json!([8, 8, -1, 0, 0, 0, 8, 7, 6, 5]),
        json!([8, 8, 1.5, 0, 0, 0, 8, 7, 6, 5]),
    ] {
        let mut bad = doc.clone();
        stats(&mut bad, "bleu")["counts"] = counts;
        refused(
            &doc_text(&bad),
            "document 1",
            &["statistics field \"counts\""],
        );
    }
}

/// Point 9 and point 4: counts that add up past 2^53 are an error, never a wrapped
/// "0 segments" or a "segments -1".
#[test]
fn merged_segment_counts_never_wrap() {
    let doc = emit(&[]);
    let mut big = doc.clone();
    big["segments"] = json!(1u64 << 53);
    let text = doc_text(&big) + &doc_text(&doc);
    refused(
        &text,
        "document 2: ",
        &[
            "segments: the sum exceeds 9007199254740992",
            "begins on line 2)",
        ],
    );
    let out = merge_text(&doc_text(&big));
    out.assert_success();
    assert!(
        out.stdout_str().contains("9007199254740992 segments"),
        "{}",
        out.describe()
    );
}

#[test]
fn metric_sums_that_overflow_are_refused() {
    let half = 1u64 << 63;
    // Counts that large need at least 2^30 segments (the next test).
    for (metric, stats_value) in [
        (
            "bleu",
            json!({"counts": [half + 3, 0, 0, 0, 0, 0, half + 3, half + 2, half + 1, half],
                   "nrefs": [1, 1]}),
        ),
        (
            "multi-bleu",
            json!({"correct": [0, 0, 0, 0], "total": [half + 3, half + 2, half + 1, half],
                   "hyp_len": half + 3, "ref_len": 0, "nrefs": [1, 1]}),
        ),
        (
            "mteval-bleu",
            json!({"matches": [0, 0, 0, 0], "totals": [half + 3, half + 2, half + 1, half],
                   "ref_len": 0, "nrefs": [1, 1]}),
        ),
        (
            "gleu",
            json!({"matches": 0, "total": half, "nrefs": [1, 1]}),
        ),
    ] {
        let mut doc = emit(&["-m", metric]);
        *stats(&mut doc, metric) = stats_value;
        doc["segments"] = json!(1u64 << 30);
        let one = doc_text(&doc);
        merge_text(&one).assert_success();
        refused(&(one.clone() + &one), "document 2", &["overflows 64 bits"]);
    }
}

/// Regression (source-level audit, 2026-11-27): a count no run of the document's segments
/// could write (a line has fewer than 2^30 tokens, counted in at most 9 orders) was merged: a
/// GLEU document of one segment with `matches` and `total` of 2^64 − 1 printed `GLEU = 1.00`.
#[test]
fn counts_past_what_the_segments_can_hold_are_refused() {
    let most = 1u64 << 34;
    for (metric, field, value) in [
        ("gleu", "matches", json!(u64::MAX)),
        ("gleu", "total", json!(most * 2 + 1)),
        (
            "bleu",
            "counts",
            json!([0, most * 2 + 1, 0, 0, 0, 0, 0, 0, 0, 0]),
        ),
        ("chrf", "counts", json!(vec![most * 3; 18])),
        ("ter", "num_edits", json!(most * 2 + 1)),
    ] {
        let mut doc = emit(&["-m", metric]);
        assert_eq!(doc["segments"], 2, "{doc}");
        stats(&mut doc, metric)[field] = value;
        refused(
            &doc_text(&doc),
            "document 1",
            &[
                &format!("{metric}: inconsistent statistics: a count of "),
                "over 2 segments",
            ],
        );
    }
    // At the bound: not this check's business.
    let mut doc = emit(&["-m", "ter"]);
    stats(&mut doc, "ter")["shifts"] = json!(most * 2);
    let out = merge_text(&doc_text(&doc));
    assert!(
        !out.stderr_str().contains("a count of"),
        "{}",
        out.describe()
    );
}

#[test]
fn inconsistent_bleu_statistics_are_refused() {
    let doc = emit(&[]);
    // [hyp_len, ref_len, matches 1-4, totals 1-4]
    for (counts, says) in [
        (
            json!([10, 9, 11, 0, 0, 0, 10, 9, 8, 7]),
            "order-1 matches above the order-1 total",
        ),
        (
            json!([10, 9, 5, 4, 3, 2, 10, 11, 10, 9]),
            "order 2 counts 11 n-grams, order 1 10 (a segment with an n-gram of order 2 has one \
             more of order 1)",
        ),
        // Regression (source-level audit, 2026-11-27): equal totals of two orders were
        // merged; a segment with a bigram has one more unigram.
        (
            json!([10, 9, 5, 4, 3, 2, 10, 9, 9, 8]),
            "order 3 counts 9 n-grams, order 2 9",
        ),
        (
            json!([10, 9, 5, 4, 3, 2, 12, 11, 10, 9]),
            "unigram total 12 is not the hypothesis length 10",
        ),
        // Regression (documents audit): a hypothesis of L words has L - n + 1 n-grams of order
        // n, so each order has at most one n-gram per segment less than the one below; an
        // order-1 total of 12,721 for 2 segments with 100 bigrams was merged (BLEU 1.08 -> 1.32).
        (
            json!([12721, 9, 5, 4, 3, 2, 12721, 100, 50, 10]),
            "BLEU n-gram totals: order 1 counts 12621 n-grams more than order 2 over 2 segments \
             (at most one per segment)",
        ),
        (
            json!([10, 9, 5, 4, 3]),
            "BLEU counts: 5 numbers where 10 were expected",
        ),
    ] {
        let mut bad = doc.clone();
        stats(&mut bad, "bleu")["counts"] = counts;
        refused(&doc_text(&bad), "document 1", &[says]);
    }
    // Reference counts that no run of this framing records (regression, documents audit: they
    // were taken into the signature, `nrefs:0`).
    for (nrefs, framing, says) in [
        (json!([3, 2]), None, "\"nrefs\" [3, 2] for 2 segments"),
        (json!([0, 0]), None, "\"nrefs\" [0, 0] for 2 segments"),
        (Value::Null, None, "\"nrefs\" null for 2 segments"),
        (json!("2"), None, "\"nrefs\" is \"2\", not a range"),
        (
            json!([1, 3]),
            Some(json!({"input": "jsonl", "refs": 2})),
            "\"nrefs\" [1, 3] for 2 segments framed as {\"input\":\"jsonl\",\"refs\":2}",
        ),
        (
            json!([1, 2]),
            Some(json!({"input": "tsv", "refs": 2})),
            "\"nrefs\" [1, 2] for 2 segments framed as {\"input\":\"tsv\",\"refs\":2}",
        ),
    ] {
        let mut bad = doc.clone();
        stats(&mut bad, "bleu")["nrefs"] = nrefs;
        if let Some(framing) = framing {
            bad["framing"] = framing;
        }
        refused(&doc_text(&bad), "document 1", &["bleu: ", says]);
    }
    // A JSONL line may miss references (`null`): fewer than --refs is what one run records.
    let mut fewer = doc.clone();
    fewer["framing"] = json!({"input": "jsonl", "refs": 3});
    merge_text(&doc_text(&fewer)).assert_success();
    // `null` framing means no line was framed: no segment either.
    let mut bad = doc.clone();
    bad["framing"] = Value::Null;
    refused(
        &doc_text(&bad),
        "document 1",
        &["\"framing\" is null (no line was framed) but the document counts 2 segments"],
    );
}

#[test]
fn inconsistent_chrf_gleu_and_ter_statistics_are_refused() {
    let mut doc = emit(&["-m", "chrf"]);
    let counts = stats(&mut doc, "chrf")["counts"].as_array_mut().unwrap();
    counts[2] = json!(counts[0].as_u64().unwrap() + 1);
    refused(
        &doc_text(&doc),
        "document 1",
        &["chrF character order-1 matches above its n-gram counts"],
    );
    let mut doc = emit(&["-m", "chrf"]);
    let counts = stats(&mut doc, "chrf")["counts"].as_array_mut().unwrap();
    counts[3] = json!(counts[0].as_u64().unwrap() + 1);
    refused(
        &doc_text(&doc),
        "document 1",
        &["order-2 hypothesis count above the order-1 one"],
    );
    let mut doc = emit(&["-m", "gleu"]);
    *stats(&mut doc, "gleu") = json!({"matches": 5, "total": 4, "nrefs": [2, 2]});
    refused(
        &doc_text(&doc),
        "document 1",
        &["GLEU matches above the total"],
    );
    let mut doc = emit(&["-m", "ter"]);
    stats(&mut doc, "ter")["num_edits"] = json!(1000);
    refused(
        &doc_text(&doc),
        "document 1",
        &["does not add up to num_edits"],
    );
}

#[test]
fn inconsistent_nltk_multi_bleu_and_mteval_statistics_are_refused() {
    let mut doc = emit(&["-m", "nltk-bleu"]);
    stats(&mut doc, "nltk-bleu")["counts"] = json!([11, 0, 0, 0, 10, 8, 6, 4]);
    refused(
        &doc_text(&doc),
        "document 1",
        &["order-1 numerator above its denominator"],
    );
    let mut doc = emit(&["-m", "nltk-bleu"]);
    stats(&mut doc, "nltk-bleu")["raised"] = json!(["SystemExit", "\u{1b}[2J"]);
    let err = refused(
        &doc_text(&doc),
        "document 1",
        &["not an error NLTK BLEU records"],
    );
    assert!(!err.contains('\u{1b}'), "{err}");
    let mut doc = emit(&["-m", "multi-bleu"]);
    stats(&mut doc, "multi-bleu")["hyp_len"] = json!(3);
    refused(
        &doc_text(&doc),
        "document 1",
        &["unigram total 10 is not the translation length 3"],
    );
    let mut doc = emit(&["-m", "mteval-bleu"]);
    stats(&mut doc, "mteval-bleu")["matches"] = json!([0, 0, 0, 100]);
    refused(
        &doc_text(&doc),
        "document 1",
        &["order-4 matches above the total"],
    );
}

#[test]
fn inconsistent_nist_statistics_are_refused() {
    let doc = emit(&["-m", "nist"]);
    let mut bad = doc.clone();
    stats(&mut bad, "nist")["freq"][0] = json!(0);
    refused(&doc_text(&bad), "document 1", &["frequency 0"]);
    // An n-gram of order 6 in an order-5 table (a matched one would index past the per-order
    // sums of the report).
    let mut bad = doc.clone();
    let s = stats(&mut bad, "nist");
    let n = s["freq"].as_array().unwrap().len() as u64;
    let (mut prefix, mut ngrams, freq) = (0u64, Vec::new(), vec![1u64; 6]);
    for _ in 0..6 {
        ngrams.extend([prefix, 0]);
        prefix = n + ngrams.len() as u64 / 2;
    }
    s["ngrams"]
        .as_array_mut()
        .unwrap()
        .extend(ngrams.into_iter().map(Value::from));
    s["freq"]
        .as_array_mut()
        .unwrap()
        .extend(freq.into_iter().map(Value::from));
    refused(
        &doc_text(&bad),
        "document 1",
        &["an n-gram of order 6, above 5"],
    );
    let mut bad = doc.clone();
    let s = stats(&mut bad, "nist");
    let m = s["matched"].as_array_mut().unwrap();
    m[1] = json!(1000);
    refused(
        &doc_text(&bad),
        "document 1",
        &["matched more often than it occurs"],
    );
    let mut bad = doc.clone();
    stats(&mut bad, "nist")["hyp_ngrams"] = json!([1, 2, 0, 0, 0]);
    refused(
        &doc_text(&bad),
        "document 1",
        &["order-2 hypothesis n-grams above order 1's"],
    );
    // Regression (documents audit): counts that one run cannot write for 2 segments were
    // merged into plausible scores (NIST 2.61 -> 0.00 with 10^15 reference words). 10^15 is
    // now past what 2 segments can count at all (the next test); 2^33 is not, and is refused
    // by NIST's own checks.
    for (field, value, says) in [
        (
            "words",
            json!(1u64 << 33),
            "NIST unigram frequencies sum to",
        ),
        (
            "hyp_ngrams",
            json!([1u64 << 33, 7, 5, 3, 1]),
            "NIST hypothesis n-grams: order 1 counts 8589934585 n-grams more than order 2 over 2 \
             segments",
        ),
    ] {
        let mut bad = doc.clone();
        stats(&mut bad, "nist")[field] = value;
        refused(
            &doc_text(&bad),
            "document 1",
            &["inconsistent statistics: ", says],
        );
    }
    let mut bad = emit(&["-m", "nist", "--nist-compat", "nltk"]);
    stats(&mut bad, "nist")["nltk"]["block_starts"] = json!([0, 1, 2]);
    refused(
        &doc_text(&bad),
        "document 1",
        &["NLTK corpus arrays of inconsistent lengths"],
    );
}

#[test]
fn bad_resampling_parts_are_refused() {
    let doc = emit(&["--confidence", "--confidence-n", "10"]);
    let mut bad = doc.clone();
    // The first segment's vector: matches above totals.
    bad["resampling"]["metrics"][0]["vectors"][2] = json!(1000);
    refused(
        &doc_text(&bad),
        "document 1",
        &["resampling statistics of bleu", "order-1 matches above"],
    );
    let mut bad = doc.clone();
    bad["resampling"]["metrics"][0]["vectors"] = json!([1, 2, 3]);
    refused(
        &doc_text(&bad),
        "document 1",
        &["not a whole number of statistics vectors"],
    );
    let mut bad = doc.clone();
    bad["resampling"]["lines"] = json!([5, 1]);
    refused(
        &doc_text(&bad),
        "document 1",
        &["\"lines\" [5, 1] is not a range"],
    );
    let doc = emit(&["--confidence=streaming", "--confidence-n", "3"]);
    let mut bad = doc.clone();
    bad["resampling"]["metrics"][0]["replicates"][0] = json!(0);
    refused(
        &doc_text(&bad),
        "document 1",
        &["resampling statistics of bleu"],
    );
    // Replicate sums that overflow (they wrapped before).
    let mut big = doc.clone();
    let width = 10;
    let huge: Vec<Value> = (0..3 * width)
        .map(|i| {
            json!(if i % width == 0 || i % width == 6 {
                1u64 << 63
            } else {
                0
            })
        })
        .collect();
    big["resampling"]["metrics"][0]["replicates"] = Value::from(huge);
    let mut later = big.clone();
    later["resampling"]["lines"] = json!([3, 4]);
    refused(
        &(doc_text(&big) + &doc_text(&later)),
        "document 2",
        &["replicate sums overflow"],
    );
}

#[test]
fn wrong_framing_version_and_metric_lists_are_refused() {
    let doc = emit(&[]);
    for (framing, says) in [
        (
            json!({"input": "csv", "refs": 1}),
            "\"framing\" is {\"input\":\"csv\"",
        ),
        (
            json!({"input": "tsv", "refs": 0}),
            "not a framing bleu-stream records",
        ),
        (json!({"input": "tsv", "refs": 5000}), "not a framing"),
        (json!({"input": "parallel", "refs": 2}), "not a framing"),
        (json!("tsv"), "\"framing\" is \"tsv\", not an object"),
    ] {
        let mut bad = doc.clone();
        bad["framing"] = framing;
        refused(&doc_text(&bad), "document 1", &[says]);
    }
    let mut bad = doc.clone();
    bad["version"] = json!(3);
    refused(
        &doc_text(&bad),
        "document 1",
        &["version 3 without \"group_by\""],
    );
    let mut bad = doc.clone();
    let part = bad["metrics"][0].clone();
    bad["metrics"].as_array_mut().unwrap().push(part);
    refused(&doc_text(&bad), "document 1", &["metric bleu listed twice"]);
}

/// Strings of a document reach the terminal escaped: no control character of a file drives it.
#[test]
fn strings_echoed_from_a_document_are_escaped() {
    let doc = emit(&[]);
    let mut bad = doc.clone();
    bad["metrics"][0]["key"] = json!("\u{1b}[2J\u{202e}bleu");
    let err = refused(
        &doc_text(&bad),
        "document 1",
        &["unknown metric '\\u{1b}[2J\\u{202e}bleu'"],
    );
    assert!(
        !err.contains('\u{1b}') && !err.contains('\u{202e}'),
        "{err}"
    );
    // A second document whose metric list differs, and a setting of an unknown value.
    let mut other = doc.clone();
    other["metrics"][0]["key"] = json!("\u{7}bleu");
    let err = refused(
        &(doc_text(&doc) + &doc_text(&other)),
        "document 2",
        &["\\u{7}bleu"],
    );
    assert!(!err.contains('\u{7}'), "{err}");
    let mut bad = doc.clone();
    bad["metrics"][0]["config"]["tokenizer"] = json!("\u{1b}]0;owned\u{7}");
    let err = refused(&doc_text(&bad), "document 1", &["bleu settings"]);
    assert!(!err.chars().any(|c| c.is_control() && c != '\n'), "{err}");
    // A group key with control characters.
    let mut grouped = emit(&["--group-by", "sys"]);
    grouped["groups"][0]["group"] = json!("\u{1b}[31m");
    grouped["groups"][0]["segments"] = json!(-1);
    let err = refused(
        &doc_text(&grouped),
        "document 1",
        &["group \"\\u001b[31m\""],
    );
    assert!(!err.contains('\u{1b}'), "{err}");
}

/// Regression (documents audit): the groups of a document were summed without looking at the
/// document's own counts, so a group counting 5 more segments, a key listed twice (two groups
/// summed into one) or `"groups": []` merged with status 0 into per-group numbers no run gives.
#[test]
fn groups_must_add_up_to_their_document() {
    let doc = emit(&["--group-by", "sys"]);
    merge_text(&doc_text(&doc)).assert_success();
    let mut more = doc.clone();
    more["groups"][0]["segments"] = json!(2);
    more["groups"][0]["metrics"][0]["stats"] = doc["metrics"][0]["stats"].clone();
    let mut twice = doc.clone();
    twice["groups"][1]["group"] = json!("a");
    let mut none = doc.clone();
    none["groups"] = json!([]);
    let mut long = doc.clone();
    long["groups"][0]["group"] = json!("k".repeat(4095));
    for (bad, says) in [
        (
            more,
            "the groups count 3 segments and 0 bad lines, the document 2 and 0",
        ),
        (
            twice,
            "group \"a\" appears twice in the document (one run keeps one group per key)",
        ),
        (
            none,
            "the groups count 0 segments and 0 bad lines, the document 2 and 0",
        ),
        (
            long,
            "group 1: a key of 4097 bytes (as JSON text; at most 4096)",
        ),
    ] {
        refused(&doc_text(&bad), "document 1", &[says]);
    }
}

/// Regression (documents audit): serde passes over keys a settings struct does not name, so a
/// misspelt or unknown settings key merged as long as every document had it. Settings must be
/// what the metric writes.
#[test]
fn settings_with_unknown_keys_are_refused() {
    let doc = emit(&["-m", "bleu,nist"]);
    let mut extra = doc.clone();
    extra["metrics"][0]["config"]["lowercase "] = json!(true);
    let mut nested = doc.clone();
    nested["metrics"][1]["config"]["tokenize"]["mteval"]["strict"] = json!(false);
    let two = |d: &Value| doc_text(d) + &doc_text(d);
    refused(
        &two(&extra),
        "document 1",
        &["bleu settings are not what bleu-stream writes: unknown key \"lowercase \""],
    );
    refused(
        &two(&nested),
        "document 1",
        &["nist settings are not what bleu-stream writes: \"tokenize\" is {\"mteval\""],
    );
}

#[test]
fn a_document_over_the_size_limit_is_refused() {
    let doc = doc_text(&emit(&["-m", "nist"]));
    let files = Files::new();
    let path = files.write("shard.json", doc.repeat(3));
    let out = Cmd::new()
        .args(["merge", "--max-document-bytes", "512"])
        .arg(&path)
        .run();
    assert!(doc.len() > 512, "{}", doc.len());
    assert_refused(&out, 2, &["shard.json: document 1: longer than 512 bytes"]);
    Cmd::new()
        .args(["merge", "--max-document-bytes", "64K"])
        .arg(&path)
        .run()
        .assert_success();
    let out = Cmd::new()
        .args(["merge", "--max-document-bytes", "2G"])
        .arg(&path)
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(
        out.stderr_str().contains("more than 1G"),
        "{}",
        out.describe()
    );
}

/// An unfinished document on standard input is refused once it passes the limit, having held
/// little more than its text: its end is looked for without parsing it (regression: what had
/// been read of an unfinished array was parsed at each doubling of the buffer, 32 bytes per
/// number, so 1.2 GB of `1,` on a pipe grew to 21.8 GB before the limit was checked). Under a
/// 1 GB address-space limit the old code ran out of memory on 64 MiB of it.
#[test]
fn an_unfinished_document_is_refused_at_the_limit_without_being_parsed() {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1000000 && exec '{BIN}' merge --max-document-bytes 64M"
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feed = std::thread::spawn(move || {
        let _ = stdin.write_all(br#"{"format":"bleu-stream-stats","version":2,"x":["#);
        let block = b"1,".repeat(1 << 19);
        // 96 MiB, then the pipe stays open: only the limit can end the run.
        for _ in 0..96 {
            if stdin.write_all(&block).is_err() {
                return;
            }
        }
        std::thread::sleep(std::time::Duration::from_secs(30));
    });
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("<stdin>: document 1: longer than 67108864 bytes"),
        "{err}"
    );
    drop(feed);
}

/// `merge FILE` streams: 200,000 documents in one file are read one at a time, so the peak
/// resident size stays far below the file's size (the whole file was read first before).
#[test]
fn merge_memory_does_not_grow_with_the_number_of_documents() {
    let doc = doc_text(&emit(&[]));
    let count = 200_000;
    let files = Files::new();
    let path = files.0.path().join("many.json");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for _ in 0..count {
            f.write_all(doc.as_bytes()).unwrap();
        }
        f.flush().unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    // FILE then standard input: once FILE is read (its bytes counted in /proc/PID/io), the
    // process waits for stdin, and its peak resident size can be read.
    let mut child = Command::new(BIN)
        .args(["merge", "-f", "jsonl"])
        .arg(&path)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let proc_field = |file: &str, field: &str| -> Option<u64> {
        let text = std::fs::read_to_string(format!("/proc/{}/{file}", child.id())).ok()?;
        text.lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    };
    while proc_field("io", "rchar:").unwrap_or(0) < size {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let peak = proc_field("status", "VmHWM:").unwrap() * 1024;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(doc.as_bytes()).unwrap();
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(child.wait().unwrap().success());
    assert!(
        out.contains(&format!("\"segments\":{}", 2 * (count + 1))),
        "{out}"
    );
    eprintln!(
        "merge of {} documents ({} MiB): peak {} MiB",
        count + 1,
        size >> 20,
        peak >> 20
    );
    assert!(
        peak < 48 << 20 && peak < size / 2,
        "peak {} MiB for a file of {} MiB",
        peak >> 20,
        size >> 20
    );
}

/// Regression (source-level audit, 2026-11-27): bootstrap vectors were merged without a look
/// at the document's segments or totals, so a document of 2 segments carrying 100 vectors, or
/// none, gave a plausible and wrong interval. A run writes one vector per segment, and they
/// add up to its totals (by group too).
#[test]
fn resampling_vectors_are_the_segments_of_their_document() {
    for group_by in [&[][..], &["--group-by", "sys"]] {
        let doc = emit(&[&["-m", "bleu,gleu,ter", "--confidence"][..], group_by].concat());
        merge_text(&doc_text(&doc)).assert_success();
        let vectors = |doc: &mut Value, k: usize| -> Value {
            let resampling = if group_by.is_empty() {
                &mut doc["resampling"]
            } else {
                &mut doc["groups"][0]["resampling"]
            };
            std::mem::take(&mut resampling["metrics"][k]["vectors"])
        };
        let segments = if group_by.is_empty() { 2 } else { 1 };
        for (k, key) in [(0, "bleu"), (1, "gleu"), (2, "ter")] {
            let mut bad = doc.clone();
            let v = vectors(&mut bad, k);
            let width = v.as_array().unwrap().len() / segments;
            // Three times the vectors; none.
            let thrice: Vec<Value> = (0..3).flat_map(|_| v.as_array().unwrap().clone()).collect();
            for (replace, count) in [(thrice, 3 * segments), (vec![], 0)] {
                let mut bad = bad.clone();
                let slot = if group_by.is_empty() {
                    &mut bad["resampling"]["metrics"][k]["vectors"]
                } else {
                    &mut bad["groups"][0]["resampling"]["metrics"][k]["vectors"]
                };
                *slot = Value::from(replace);
                refused(
                    &doc_text(&bad),
                    "document 1",
                    &[&format!(
                        "resampling statistics of {key}: {count} vectors for {segments} segments"
                    )],
                );
            }
            // The right number of vectors, one changed: they no longer add up to the totals
            // (TER's vectors hold its reference lengths in 1/2520ths, not a sum it keeps).
            let mut changed = v.clone();
            changed[width - 1] = json!(changed[width - 1].as_u64().unwrap() + 1);
            let mut bad = bad.clone();
            let slot = if group_by.is_empty() {
                &mut bad["resampling"]["metrics"][k]["vectors"]
            } else {
                &mut bad["groups"][0]["resampling"]["metrics"][k]["vectors"]
            };
            *slot = changed;
            let out = merge_text(&doc_text(&bad));
            if key == "ter" {
                out.assert_success();
            } else {
                assert_refused(
                    &out,
                    2,
                    &[&format!(
                        "resampling statistics of {key}: the vectors add up to"
                    )],
                );
            }
        }
    }
}

/// Regression (source-level audit, 2026-11-27): a group's statistics were merged whatever the
/// document's said, so a forged group scored `BLEU 100.00` while the groups' hypothesis
/// lengths summed to 7 and the document's was 6. Every scored line is in one group, so the
/// groups' sums are the document's, for every metric that keeps sums.
#[test]
fn group_statistics_add_up_to_their_document() {
    let metrics = "bleu,chrf,ter,nltk-bleu,multi-bleu,gleu,nist,mteval-bleu";
    let doc = emit(&["-m", metrics, "--group-by", "sys"]);
    merge_text(&doc_text(&doc)).assert_success();
    for (k, key) in metrics.split(',').enumerate() {
        let mut bad = doc.clone();
        let group = &mut bad["groups"][0]["metrics"][k]["stats"];
        // One more of something each keeps as a sum, within what the checks of one group's
        // statistics allow.
        match key {
            "bleu" => group["counts"][1] = json!(group["counts"][1].as_u64().unwrap() + 1),
            "chrf" => group["counts"][1] = json!(group["counts"][1].as_u64().unwrap() + 1),
            "ter" => {
                for field in ["insertions", "num_edits"] {
                    group[field] = json!(group[field].as_u64().unwrap() + 1);
                }
            }
            // (And a longer longest reference, which the checks of one group's statistics
            // want at least as long as a segment's closest.)
            "nltk-bleu" => {
                for field in ["ref_len", "max_ref_len"] {
                    group[field] = json!(group[field].as_u64().unwrap() + 1);
                }
            }
            "multi-bleu" => group["ref_len"] = json!(group["ref_len"].as_u64().unwrap() + 1),
            "gleu" => group["total"] = json!(group["total"].as_u64().unwrap() + 1),
            // (One more n-gram of every order: each order still one fewer than the one below.)
            "nist" => {
                for n in 0..5 {
                    let x = group["hyp_ngrams"][n].as_u64().unwrap();
                    group["hyp_ngrams"][n] = json!(x + 1);
                }
            }
            "mteval-bleu" => group["ref_len"] = json!(group["ref_len"].as_u64().unwrap() + 1),
            _ => unreachable!(),
        }
        refused(
            &doc_text(&bad),
            "document 1",
            &[&format!(
                "inconsistent statistics: the groups' {key} statistics add up to"
            )],
        );
    }
}
