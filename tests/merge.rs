//! Mergeable statistics (issue 7, SPEC §7): `--emit stats` on shards of an input and
//! `bleu-stream merge` of their documents must give exactly the report of one run over the whole
//! input — the `-f jsonl --corpus-only` record byte for byte (every score, count, signature, the
//! segment and bad-line counts) — for every mergeable metric and option variant, for any split
//! (empty shards included), for tree-shaped merges (`merge --emit stats` of merges) and for
//! documents read from standard input. Metrics whose reference tool depends on the order of the
//! segments are refused, and so are documents that do not belong together.
//!
//! * fixed cases on the project's own data (no `../shared` needed): generated TSV corpora (two
//!   references; 1, 2 or 4 references) and the segments of `tests/data/sacrebleu_sample.jsonl`
//!   as JSON Lines, all with bad lines mixed in;
//! * refusals and errors: exit statuses and messages;
//! * property tests: random messy input and clean segments, random splits into k shards,
//!   random mergeable metric settings;
//! * WMT22 (every language pair, when `../shared` exists);
//! * the README's recipes: GNU parallel (`parallel --pipe -k … --emit stats | bleu-stream
//!   merge`) and Spark (`scripts/spark_bleu.py`), each skipped with a message when the tool is
//!   missing — except under CI (`CI` set) for GNU parallel, which `.ci/run` installs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Value};

use bleu_stream::metric::registry;

mod invariants;

use crate::properties::{as_jsonl, as_tsv, config, input, segments};
use crate::util::{
    assert_refused, eprint_whole, par_map, shared_dir, wmt22_dir, Cmd, Mismatches, Output, TempDir,
    BIN,
};

// ---------------------------------------------------------------------------------------------
// Corpora
// ---------------------------------------------------------------------------------------------

/// An input as lines (each with its own line end; the last one may have none) and the framing
/// options every run over it (whole or shard) uses. Framing is explicit on purpose: with the
/// defaults, `--input auto` and the inferred `--refs` are decided by each shard's first lines.
#[derive(Clone, Debug)]
struct Corpus {
    name: String,
    lines: Vec<Vec<u8>>,
    framing: Vec<String>,
}

impl Corpus {
    fn new(name: &str, lines: Vec<Vec<u8>>, framing: &[&str]) -> Corpus {
        Corpus {
            name: name.to_owned(),
            lines,
            framing: strings(framing),
        }
    }

    fn bytes(&self, range: std::ops::Range<usize>) -> Vec<u8> {
        self.lines[range].concat()
    }

    fn whole(&self) -> Vec<u8> {
        self.bytes(0..self.lines.len())
    }
}

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| (*s).to_owned()).collect()
}

/// Splits `text` into lines that keep their `\n`.
fn split_keeping_ends(text: &[u8]) -> Vec<Vec<u8>> {
    text.split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// xorshift64, for reproducible corpora.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A generated TSV corpus: each line a perturbed copy of a random base sentence as hypothesis
/// and references (so that n-grams of every order match), with punctuation, numbers, CJK,
/// entities, mixed case, empty fields, CRLF line ends, no final newline — and bad lines: no TAB,
/// invalid UTF-8, and (with a fixed number of references) a field too many. `refs` lists the
/// reference counts to draw from; a single count is fixed with `--refs N`, several mean
/// `--refs any`.
fn generated(name: &str, lines: usize, seed: u64, refs: &[usize]) -> Corpus {
    const WORDS: &[&str] = &[
        "the",
        "the",
        "a",
        "cat",
        "Cat",
        "sat",
        "on",
        "mat",
        "dog",
        "barked",
        ",",
        ".",
        "!",
        "don't",
        "It's",
        "5-6",
        "1,000.5",
        "2019.",
        "&amp;",
        "<skipped>",
        "“quoted”",
        "(a)",
        "猫",
        "が",
        "座った",
        "Σ",
        "état",
        "über",
        "STRASSE",
        "straße",
        "x",
        "y",
        "z",
        "of",
        "and",
        "in",
        "to",
        "is",
        "was",
        "it",
        "for",
        "with",
    ];
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(lines);
    for i in 0..lines {
        let mut line: Vec<u8> = Vec::new();
        if i % 23 == 11 {
            line.extend_from_slice(b"a bad line without a tab");
        } else if i % 31 == 17 {
            line.extend_from_slice(b"invalid \xff\xfe UTF-8\tref");
        } else {
            let len = rng.below(25);
            let base: Vec<&str> = (0..len).map(|_| WORDS[rng.below(WORDS.len())]).collect();
            let nrefs = refs[rng.below(refs.len())];
            let extra = usize::from(refs.len() == 1 && i % 41 == 29);
            for f in 0..1 + nrefs + extra {
                if f > 0 {
                    line.push(b'\t');
                }
                if rng.below(40) == 0 {
                    continue; // an empty hypothesis or reference
                }
                let mut words = base.clone();
                for w in words.iter_mut() {
                    if rng.below(5) == 0 {
                        *w = WORDS[rng.below(WORDS.len())];
                    }
                }
                if rng.below(4) == 0 && !words.is_empty() {
                    words.remove(rng.below(words.len()));
                }
                line.extend_from_slice(words.join(" ").as_bytes());
            }
        }
        if i + 1 < lines {
            line.extend_from_slice(if i % 29 == 3 { b"\r\n" } else { b"\n" });
        }
        out.push(line);
    }
    let refs_opt = if refs.len() == 1 {
        refs[0].to_string()
    } else {
        "any".to_owned()
    };
    Corpus::new(name, out, &["--input", "tsv", "--refs", &refs_opt])
}

/// The segments of `tests/data/sacrebleu_sample.jsonl` (sacreBLEU's own edge cases) as JSON
/// Lines input, with broken lines mixed in. `one_ref`: the first reference of each segment only
/// (segments without one are left out), else every reference as given (1 to 3, some `null`).
fn fixture(one_ref: bool) -> Corpus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sacrebleu_sample.jsonl");
    let text = std::fs::read_to_string(&path).expect("tests/data/sacrebleu_sample.jsonl");
    let mut lines = Vec::new();
    for record in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(record).expect("fixture JSON");
        let hyps = v["hyps"].as_array().expect("hyps");
        let streams = v["refs"].as_array().expect("refs");
        for (i, hyp) in hyps.iter().enumerate() {
            let refs: Vec<Value> = streams.iter().map(|s| s[i].clone()).collect();
            let seg = if one_ref {
                match refs.first() {
                    Some(r) if !r.is_null() => json!({"hyp": hyp, "ref": r}),
                    _ => continue,
                }
            } else {
                json!({"hyp": hyp, "refs": refs})
            };
            let n = lines.len();
            if n % 13 == 5 {
                lines.push(b"{\"hyp\": \"truncated".to_vec());
            } else if n % 17 == 9 {
                lines.push(b"[1, 2]".to_vec());
            }
            lines.push(seg.to_string().into_bytes());
        }
    }
    let mut out: Vec<Vec<u8>> = lines
        .into_iter()
        .map(|mut l| {
            l.push(b'\n');
            l
        })
        .collect();
    // Enough segments for several shards of several lines each.
    let copy = out.clone();
    out.extend(copy);
    let name = if one_ref {
        "sacrebleu_sample (1 ref)"
    } else {
        "sacrebleu_sample (1-3 refs)"
    };
    Corpus::new(name, out, &["--input", "jsonl", "--refs", "any"])
}

/// The corpora of the fixed cases.
fn corpora() -> Vec<Corpus> {
    vec![
        generated("generated (2 refs)", 240, 0x5eed_0001, &[2]),
        generated("generated (1, 2 or 4 refs)", 200, 0x5eed_0002, &[1, 2, 4]),
        fixture(true),
        fixture(false),
    ]
}

// ---------------------------------------------------------------------------------------------
// Metric settings
// ---------------------------------------------------------------------------------------------

/// Every metric whose statistics can be merged (all but nltk-chrf).
fn mergeable() -> Vec<&'static str> {
    registry::names().filter(|m| *m != "nltk-chrf").collect()
}

/// Every mergeable metric with its default settings and the option variants that change what
/// is counted or how it is scored.
fn variants() -> Vec<Vec<String>> {
    let all = mergeable().join(",");
    let mut v: Vec<Vec<&str>> = vec![
        vec!["-m", "bleu"],
        vec!["-m", "bleu", "-t", "13a"],
        vec![
            "-m",
            "bleu",
            "-t",
            "intl",
            "-l",
            "-s",
            "floor",
            "--max-ngram-order",
            "6",
        ],
        vec![
            "-m",
            "bleu",
            "-t",
            "zh",
            "-s",
            "add-k",
            "--smooth-value",
            "2",
        ],
        vec![
            "-m",
            "bleu",
            "-t",
            "char",
            "-s",
            "none",
            "--effective-order",
            "yes",
        ],
        vec![
            "-m",
            "bleu",
            "-t",
            "none",
            "--max-ngram-order",
            "2",
            "--effective-order",
            "no",
        ],
        vec!["-m", "chrf"],
        vec!["-m", "chrf", "--chrf-word-order", "2"],
        vec![
            "-m",
            "chrf",
            "-l",
            "--chrf-whitespace",
            "--chrf-eps-smoothing",
            "--chrf-beta",
            "1",
            "--chrf-char-order",
            "4",
        ],
        vec!["-m", "gleu"],
        vec![
            "-m",
            "gleu",
            "-t",
            "13a",
            "-l",
            "--gleu-min-len",
            "0",
            "--gleu-max-len",
            "3",
        ],
        vec!["-m", "nist"],
        vec![
            "-m",
            "nist",
            "--nist-order",
            "3",
            "--mteval-international",
            "--case-sensitive",
        ],
        vec!["-m", "nist", "--nist-compat", "nltk"],
        vec![
            "-m",
            "nist",
            "--nist-compat",
            "nltk",
            "--nist-tokenize",
            "none",
            "--nist-order",
            "4",
        ],
        vec!["-m", "nltk-bleu"],
        vec!["-m", "nltk-bleu", "--nltk-smoothing", "0"],
        vec![
            "-m",
            "nltk-bleu",
            "--nltk-smoothing",
            "1",
            "--epsilon",
            "0.2",
        ],
        vec![
            "-m",
            "nltk-bleu",
            "--nltk-smoothing",
            "2",
            "-t",
            "13a",
            "-l",
        ],
        vec!["-m", "nltk-bleu", "--nltk-smoothing", "3"],
        vec!["-m", "nltk-bleu", "--nltk-smoothing", "4", "--k", "3"],
        vec!["-m", "nltk-bleu", "--auto-reweigh", "--nltk-smoothing", "4"],
        vec![
            "-m",
            "nltk-bleu",
            "--weights",
            "0.5,0.5",
            "--weights",
            "0.25,0.25,0.25,0.25",
            "--nltk-smoothing",
            "1",
        ],
        vec!["-m", "nltk-bleu", "--compat", "matlab"],
        vec![
            "-m",
            "nltk-bleu",
            "--compat",
            "matlab",
            "--weights",
            "1,1,1",
        ],
        vec!["-m", "multi-bleu"],
        vec!["-m", "multi-bleu", "--multi-bleu-detok", "-l"],
        vec!["-m", "mteval-bleu"],
        vec![
            "-m",
            "mteval-bleu",
            "--brevity-penalty",
            "shortest",
            "--mteval-no-smoothing",
            "--mteval-international",
        ],
        vec![
            "-m",
            "nist,bleu,nltk-bleu,gleu",
            "-t",
            "intl",
            "-l",
            "--nist-compat",
            "nltk",
        ],
    ];
    v.push(vec!["-m", &all]);
    v.into_iter().map(|a| strings(&a)).collect()
}

// ---------------------------------------------------------------------------------------------
// Splitting, emitting, merging
// ---------------------------------------------------------------------------------------------

/// What `--emit stats` or `merge` says when NIST's float sum of average reference lengths
/// cannot be split (a varying number of references, not all powers of two).
const NIST_REFUSAL: &str = "nist: with a varying number of references";

/// What `--emit stats` says when TER's float sum of average reference lengths was rounded
/// (numbers of references that are not powers of two, e.g. thirds).
const TER_REFUSAL: &str = "ter: sacreBLEU sums the average reference lengths";

/// How a split turned out.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Every form of merge gave one run's bytes.
    Same,
    /// A metric refused (legitimately): NIST when the whole input has a varying number of
    /// references, TER when its sum of average reference lengths is rounded.
    Refused(&'static str),
}

fn run(args: &[String], stdin: Vec<u8>) -> Output {
    Cmd::new().args(args).stdin(stdin).run()
}

fn merge<P: AsRef<std::ffi::OsStr>>(args: &[&str], files: &[P]) -> Output {
    Cmd::new().arg("merge").args(args).args(files).run()
}

/// Shard boundaries: `cuts` (sorted, clamped to the corpus) turned into ranges; equal cuts make
/// empty shards.
fn shards(n: usize, cuts: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(n)).collect();
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut start = 0;
    for c in cuts {
        out.push(start..c);
        start = c;
    }
    out.push(start..n);
    out
}

/// A NIST refusal is legitimate only if one run over the whole input saw a varying number of
/// references.
fn nist_refusal_ok(one: &Output, refused: &Output) -> Result<Outcome, String> {
    let record = one.jsonl()?.pop().ok_or("no record")?;
    let signature = record["nist"]["signature"].as_str().unwrap_or("");
    if signature.contains("nrefs:var") {
        Ok(Outcome::Refused("nist"))
    } else {
        Err(format!(
            "NIST refused although the whole input has {signature:?}: {}",
            refused.describe()
        ))
    }
}

/// A TER refusal is legitimate only if one of the whole input's segments has an average
/// reference length that is not a multiple of 1/1024, or the running sum reaches 2^40 (then
/// shard sums can round differently from one run's).
fn ter_refusal_ok(corpus: &Corpus, refused: &Output) -> Result<Outcome, String> {
    let mut args = corpus.framing.clone();
    args.extend(strings(&["-m", "ter", "-f", "jsonl", "--on-error", "skip"]));
    let rows = run(&args, corpus.whole()).jsonl()?;
    let mut sum = 0.0;
    for row in rows.iter().filter(|r| r["type"] == "segment") {
        let Some(len) = row["ter"]["ref_length"].as_f64() else {
            continue;
        };
        sum += len;
        if (len * 1024.0).fract() != 0.0 || sum >= 1_099_511_627_776.0 {
            return Ok(Outcome::Refused("ter"));
        }
    }
    Err(format!(
        "TER refused although every average reference length adds up exactly: {}",
        refused.describe()
    ))
}

/// Whether `out` is a refusal of a metric that cannot merge these statistics exactly, and if
/// so whether it is legitimate.
fn refusal(corpus: &Corpus, one: &Output, out: &Output) -> Option<Result<Outcome, String>> {
    if out.code != Some(2) {
        return None;
    }
    let err = out.stderr_str();
    if err.contains(NIST_REFUSAL) {
        Some(nist_refusal_ok(one, out))
    } else if err.contains(TER_REFUSAL) {
        Some(ter_refusal_ok(corpus, out))
    } else {
        None
    }
}

/// Scores `corpus` once and as shards cut at `cuts`, and checks that `merge` of the shards'
/// documents gives one run's `-f jsonl --corpus-only` record byte for byte: files in order,
/// the same documents on standard input, and a tree (each half merged with `--emit stats`, then
/// the two merged). With `forms`, also the text report (`--corpus-only`, `-w 5`) and `-b`.
fn check_split(
    corpus: &Corpus,
    metric_args: &[String],
    cuts: &[usize],
    forms: bool,
) -> Result<Outcome, String> {
    let mut base = corpus.framing.clone();
    base.extend(metric_args.iter().cloned());
    base.extend(strings(&["--on-error", "skip"]));
    let with = |extra: &[&str]| {
        let mut a = base.clone();
        a.extend(strings(extra));
        a
    };
    let one = run(&with(&["-f", "jsonl", "--corpus-only"]), corpus.whole());
    if !one.success() {
        return Err(format!("one run failed: {}", one.describe()));
    }
    let dir = TempDir::new("split");
    let mut files = Vec::new();
    let mut all_docs = Vec::new();
    for (i, range) in shards(corpus.lines.len(), cuts).into_iter().enumerate() {
        let emit = run(&with(&["--emit", "stats"]), corpus.bytes(range.clone()));
        if let Some(outcome) = refusal(corpus, &one, &emit) {
            return outcome;
        }
        if !emit.success() {
            return Err(format!("shard {i} ({range:?}): {}", emit.describe()));
        }
        if emit.stdout.iter().filter(|&&b| b == b'\n').count() != 1 || !emit.stdout.ends_with(b"\n")
        {
            return Err(format!(
                "shard {i}: --emit stats did not write one line: {:?}",
                emit.stdout_str()
            ));
        }
        all_docs.extend_from_slice(&emit.stdout);
        files.push(dir.file(&format!("shard-{i:03}.json"), &emit.stdout));
    }
    // The same bytes and the same exit status (`-b` of an undefined score fails in both).
    let compare = |what: &str, merged: &Output, want: &Output| -> Result<(), String> {
        if merged.code == want.code && merged.stdout == want.stdout {
            return Ok(());
        }
        Err(format!(
            "{what} differs from one run (cuts {cuts:?}):\n  one:    {}\n  merged: {}\n  {}",
            want.stdout_str().trim_end(),
            merged.stdout_str().trim_end(),
            merged.describe()
        ))
    };
    let merged = merge(&["-f", "jsonl"], &files);
    if let Some(outcome) = refusal(corpus, &one, &merged) {
        return outcome;
    }
    compare("merge -f jsonl FILE…", &merged, &one)?;

    let stdin = Cmd::new()
        .args(["merge", "-f", "jsonl"])
        .stdin(all_docs)
        .run();
    compare("merge -f jsonl < documents", &stdin, &one)?;

    if files.len() >= 2 {
        let (left, right) = files.split_at(files.len() / 2);
        let mut halves = Vec::new();
        for (name, part) in [("left", left), ("right", right)] {
            let doc = merge(&["--emit", "stats"], part);
            if !doc.success() {
                return Err(format!("merge --emit stats ({name}): {}", doc.describe()));
            }
            halves.push(dir.file(&format!("{name}.json"), &doc.stdout));
        }
        compare("merge of merges", &merge(&["-f", "jsonl"], &halves), &one)?;
    }

    if forms {
        let one_text = run(&with(&["--corpus-only", "-w", "5"]), corpus.whole());
        compare("text report", &merge(&["-w", "5"], &files), &one_text)?;
        let one_b = run(&with(&["-b"]), corpus.whole());
        compare("-b", &merge(&["-b"], &files), &one_b)?;
    }
    Ok(Outcome::Same)
}

/// Cut points for `n` lines: halves; uneven with empty shards (first, middle and last); many
/// small shards.
fn plans(n: usize) -> Vec<Vec<usize>> {
    vec![
        vec![n / 2],
        vec![0, 1, n / 3, n / 3, n - 1, n],
        (1..n).step_by(9).collect(),
    ]
}

// ---------------------------------------------------------------------------------------------
// Fixed cases
// ---------------------------------------------------------------------------------------------

/// Every mergeable metric and option variant, on every corpus, split in three ways: merge
/// equals one run, bit for bit, including segment and bad-line counts.
#[test]
fn merge_of_shards_equals_one_run_for_every_metric_and_variant() {
    let corpora = corpora();
    let mut jobs = Vec::new();
    for c in &corpora {
        for (vi, v) in variants().into_iter().enumerate() {
            for (pi, plan) in plans(c.lines.len()).into_iter().enumerate() {
                jobs.push((c, v.clone(), plan, vi == 0 || pi == 0));
            }
        }
    }
    let results = par_map(&jobs, |(c, v, plan, forms)| {
        (
            format!("{} `{}` cuts {:?}", c.name, v.join(" "), plan),
            check_split(c, v, plan, *forms),
        )
    });
    let mut mismatches = Mismatches::new();
    let (mut same, mut refused) = (0, 0);
    for (what, r) in results {
        match r {
            Ok(Outcome::Same) => same += 1,
            Ok(Outcome::Refused(_)) => refused += 1,
            Err(e) => mismatches.push(&what, e),
        }
    }
    eprint_whole(&format!(
        "merge: {same} splits equal one run, {refused} refusals (NIST: varying references; TER: \
         rounded sums), \
         {} mismatches ({} variants x {} corpora x 3 splits)\n",
        mismatches.len(),
        variants().len(),
        corpora.len()
    ));
    mismatches.finish("merge_of_shards_equals_one_run_for_every_metric_and_variant");
    assert!(same > refused, "most splits must merge");
}

/// The corpora really have what the checks rely on: bad lines and several segments per shard.
#[test]
fn the_corpora_have_bad_lines_and_segments() {
    for c in corpora() {
        let mut args = c.framing.clone();
        args.extend(strings(&[
            "--on-error",
            "skip",
            "-f",
            "jsonl",
            "--corpus-only",
        ]));
        let out = run(&args, c.whole());
        out.assert_success();
        let record = out.jsonl().unwrap().pop().unwrap();
        let bad = record["bad_lines"].as_u64().unwrap();
        let segs = record["segments"].as_u64().unwrap();
        assert!(
            bad >= 5 && segs >= 100,
            "{}: {bad} bad lines, {segs} segments",
            c.name
        );
    }
}

/// The bad lines and segments of the shards add up (checked on the counts themselves, not only
/// through the record bytes), also when a shard holds nothing but bad lines.
#[test]
fn bad_lines_and_segments_of_shards_add_up() {
    let parts: [&[u8]; 3] = [
        b"a b\ta b\nno tab here\n",
        b"\xff\tbad\n",
        b"c d\tc d e\nalso bad\n",
    ];
    let dir = TempDir::new("bad");
    let mut files = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let out = run(
            &strings(&["--refs", "1", "--on-error", "skip", "--emit", "stats"]),
            part.to_vec(),
        );
        out.assert_success();
        files.push(dir.file(&format!("{i}.json"), &out.stdout));
    }
    let bad_only: Value = serde_json::from_slice(&std::fs::read(&files[1]).unwrap()).unwrap();
    assert_eq!(bad_only["segments"], 0);
    assert_eq!(bad_only["bad_lines"], 1);
    let merged = merge(&["-f", "jsonl"], &files);
    merged.assert_success();
    let record = merged.jsonl().unwrap().pop().unwrap();
    assert_eq!(record["segments"], 2, "{record}");
    assert_eq!(record["bad_lines"], 3, "{record}");
    let one = run(
        &strings(&[
            "--refs",
            "1",
            "--on-error",
            "skip",
            "-f",
            "jsonl",
            "--corpus-only",
        ]),
        parts.concat(),
    );
    assert_eq!(merged.stdout_str(), one.stdout_str());
    let text = merge(&[], &files);
    assert!(
        text.stdout_str()
            .starts_with("# bleu-stream 0.1.0 final report: 2 segments, 3 bad lines\n"),
        "{}",
        text.stdout_str()
    );
}

/// The order of documents does not matter for sums: every metric but NIST (whose table ids
/// follow the order, see `merge --help`) gives the same record from shards in reverse order.
#[test]
fn integer_sums_do_not_depend_on_document_order() {
    let c = generated("generated", 120, 7, &[2]);
    let mut base = c.framing.clone();
    base.extend(strings(&[
        "-m",
        "bleu,chrf,gleu,mteval-bleu,multi-bleu,nltk-bleu",
        "--on-error",
        "skip",
    ]));
    let dir = TempDir::new("order");
    let mut files = Vec::new();
    for (i, range) in shards(c.lines.len(), &[30, 70, 71]).into_iter().enumerate() {
        let mut a = base.clone();
        a.extend(strings(&["--emit", "stats"]));
        let out = run(&a, c.bytes(range));
        out.assert_success();
        files.push(dir.file(&format!("{i}.json"), &out.stdout));
    }
    let forward = merge(&["-f", "jsonl"], &files);
    files.reverse();
    let backward = merge(&["-f", "jsonl"], &files);
    forward.assert_success();
    assert_eq!(forward.stdout_str(), backward.stdout_str());
}

/// Documents on standard input are read as they arrive, in blocks: documents cut by a block
/// boundary, pretty-printed documents, documents separated by any white space or by nothing,
/// and a single document larger than a block all merge as from files.
#[test]
fn merge_reads_streams_of_documents_across_read_blocks() {
    // NIST documents hold the shard's n-gram table: large ones.
    let c = generated("generated", 12_000, 0x5eed_0004, &[2]);
    let mut args = c.framing.clone();
    args.extend(strings(&["-m", "nist,bleu", "--on-error", "skip"]));
    let mut one_args = args.clone();
    one_args.extend(strings(&["-f", "jsonl", "--corpus-only"]));
    let one = run(&one_args, c.whole());
    one.assert_success();
    let n = c.lines.len();
    let mut docs: Vec<Vec<u8>> = Vec::new();
    // One huge shard, then many small ones.
    let mut cuts = vec![n / 2];
    cuts.extend((n / 2..n).step_by(97));
    for range in shards(n, &cuts) {
        let mut a = args.clone();
        a.extend(strings(&["--emit", "stats"]));
        let out = run(&a, c.bytes(range));
        out.assert_success();
        docs.push(out.stdout);
    }
    assert!(
        docs[0].len() > 2 << 20,
        "the first document has {} bytes",
        docs[0].len()
    );
    let total: usize = docs.iter().map(Vec::len).sum();
    assert!(total > 4 << 20, "{total} bytes of documents");
    let merge_stdin = |stream: Vec<u8>| {
        Cmd::new()
            .args(["merge", "-f", "jsonl"])
            .stdin(stream)
            .run()
    };
    // JSON Lines, as written.
    let out = merge_stdin(docs.concat());
    assert_eq!(out.stdout_str(), one.stdout_str(), "{}", out.describe());
    // Pretty-printed, and separated by varied white space or nothing at all.
    let mut stream = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let v: Value = serde_json::from_slice(d).unwrap();
        match i % 3 {
            0 => stream.extend(serde_json::to_vec_pretty(&v).unwrap()),
            1 => stream.extend(serde_json::to_vec(&v).unwrap()),
            _ => stream.extend(d.iter().filter(|&&b| b != b'\n')),
        }
        stream.extend_from_slice([&b"\n"[..], b" \t\r\n\n", b""][i % 3]);
    }
    let out = merge_stdin(stream);
    assert_eq!(out.stdout_str(), one.stdout_str(), "{}", out.describe());
    // A stream cut inside its last document: invalid JSON, naming the document.
    let mut cut = docs.concat();
    cut.truncate(cut.len() - 10);
    assert_refused(
        &merge_stdin(cut),
        2,
        &[
            &format!("<stdin>: document {}: invalid JSON", docs.len()),
            "EOF",
        ],
    );
}

/// Regression: with the default framing, each shard infers `--refs` from its own first line
/// with a TAB and `--input auto` from its own first line. A shard that starts at a bad line with
/// a TAB too many (a TAB inside a sentence, as in WMT22 uk-en reference A), or at a TSV line
/// starting with `{`, frames its lines differently from one run, and the merged score used to
/// differ silently. Documents now record the framing used and merge refuses a mismatch; with
/// explicit `--input` and `--refs` the same splits merge exactly.
#[test]
fn shards_framed_differently_are_refused() {
    for input in [
        // One run: --refs 1 from line 1, line 2 is bad (a TAB inside the reference). A shard
        // starting at line 2 infers --refs 2 and would make line 3 bad instead.
        &b"a b\ta b\na\tb\tc\nx y\tx y\n"[..],
        // One run: TSV. A shard starting at line 2 would read JSON Lines: every line bad.
        b"a b\ta b\n{x} y\t{x} y\nc d\tc d\n",
    ] {
        let lines = split_keeping_ends(input);
        let mut docs = Vec::new();
        for part in [&lines[..1], &lines[1..]] {
            let emit = run(&strings(&["--emit", "stats"]), part.concat());
            assert_eq!(emit.code, Some(0), "{}", emit.describe());
            docs.extend_from_slice(&emit.stdout);
        }
        let merged = Cmd::new().arg("merge").stdin(docs).run();
        assert_refused(
            &merged,
            2,
            &["document 2", "framed as", "--input and --refs"],
        );

        let c = Corpus::new(
            "explicit framing",
            lines,
            &["--input", "tsv", "--refs", "1"],
        );
        assert_eq!(
            check_split(&c, &strings(&["-m", "bleu"]), &[1], false),
            Ok(Outcome::Same)
        );
    }
}

/// `-t 13a` is bleu's default: shards with and without it have the same settings.
#[test]
fn default_tokenizer_given_or_not_merges() {
    let input = b"a b c d\ta b c d\n".to_vec();
    let mut docs = Vec::new();
    for args in [&["-t", "13a", "--emit", "stats"][..], &["--emit", "stats"]] {
        let emit = run(&strings(args), input.clone());
        assert_eq!(emit.code, Some(0), "{}", emit.describe());
        docs.extend_from_slice(&emit.stdout);
    }
    let merged = Cmd::new().args(["merge", "-b"]).stdin(docs).run();
    assert_eq!(merged.code, Some(0), "{}", merged.describe());
    assert_eq!(merged.stdout_str(), "100.00\n");
}

/// A shard that failed (`--on-error fail`, a read error) writes no document, so that merging
/// its output fails instead of silently leaving its lines out.
#[test]
fn a_failed_shard_writes_no_document() {
    let out = run(
        &strings(&["--emit", "stats", "--on-error", "fail"]),
        b"a b\ta b\nno tab\nc d\tc d\n".to_vec(),
    );
    assert_eq!(out.code, Some(2), "{}", out.describe());
    assert!(out.stdout.is_empty(), "{}", out.stdout_str());
    let merged = Cmd::new().arg("merge").stdin(out.stdout).run();
    assert_refused(&merged, 2, &["no stats documents"]);
}

/// A stats document is one line of JSON with the documented header fields.
#[test]
fn a_stats_document_has_the_documented_layout() {
    let out = run(
        &strings(&["-m", "bleu,chrf", "--emit", "stats"]),
        b"a b c\ta b c\nbad\n".to_vec(),
    );
    assert_eq!(out.code, Some(0), "{}", out.describe());
    let text = out.stdout_str();
    assert_eq!(text.matches('\n').count(), 1, "{text}");
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["format"], "bleu-stream-stats");
    assert_eq!(doc["version"], 2);
    assert!(doc["tool"].as_str().unwrap().starts_with("bleu-stream "));
    assert_eq!(doc["segments"], 1);
    assert_eq!(doc["bad_lines"], 1);
    assert_eq!(doc["expected_bad_lines"], 0);
    let metrics = doc["metrics"].as_array().unwrap();
    assert_eq!(metrics.len(), 2);
    assert_eq!(metrics[0]["key"], "bleu");
    assert_eq!(metrics[1]["key"], "chrf");
    // Settings are typed, every one explicit (defaults included).
    assert_eq!(metrics[0]["config"]["tokenizer"], "13a");
    assert_eq!(metrics[0]["config"]["smooth_method"], "exp");
    assert_eq!(metrics[0]["config"]["max_ngram_order"], 4);
    assert_eq!(metrics[1]["config"]["char_order"], 6);
    assert_eq!(metrics[1]["config"]["word_order"], 0);
    for m in metrics {
        assert!(m["config"].is_object());
        assert!(m["signature"].as_str().unwrap().contains("nrefs:1"));
        assert!(m["stats"].is_object());
    }
    // Nothing else on stdout: no rows, no report (the diagnostic goes to stderr).
    assert!(out.stderr_str().contains("line 2"), "{}", out.describe());
}

// ---------------------------------------------------------------------------------------------
// Refusals and errors
// ---------------------------------------------------------------------------------------------

/// NLTK smoothing methods 5–7 read the last sentence, and NLTK's corpus_chrf is a sequential
/// float sum: `--emit stats` refuses them (exit 2, why), also next to other metrics.
#[test]
fn order_dependent_reference_tools_are_refused_at_emit() {
    let input = b"a b c d\ta b c d\n".to_vec();
    for m in 5..=7 {
        let s = m.to_string();
        let out = run(
            &strings(&["-m", "nltk-bleu", "--nltk-smoothing", &s, "--emit", "stats"]),
            input.clone(),
        );
        assert_refused(
            &out,
            2,
            &[
                "--emit stats",
                &format!("--nltk-smoothing {m}"),
                "last sentence",
            ],
        );
    }
    for metrics in ["nltk-chrf", "bleu,nltk-chrf"] {
        let out = run(&strings(&["-m", metrics, "--emit", "stats"]), input.clone());
        assert_refused(&out, 2, &["--emit stats", "nltk-chrf", "corpus_chrf"]);
    }
    // Methods 0–4 are mergeable.
    for m in 0..=4 {
        let s = m.to_string();
        let out = run(
            &strings(&["-m", "nltk-bleu", "--nltk-smoothing", &s, "--emit", "stats"]),
            input.clone(),
        );
        out.assert_success();
    }
}

/// Shards written with different settings, metrics or format versions, garbage, empty input,
/// documents that are not stats documents or are damaged: exit 2, and the message names the
/// file and the document.
#[test]
fn merge_refuses_documents_that_do_not_belong_together() {
    let dir = TempDir::new("refuse");
    let emit = |args: &[&str], input: &str| {
        let mut a = strings(args);
        a.extend(strings(&["--emit", "stats"]));
        let out = run(&a, input.as_bytes().to_vec());
        out.assert_success();
        out.stdout
    };
    let input = "the cat sat\tthe cat sat on the mat\n";
    let good = emit(&["-m", "bleu,chrf"], input);
    let a = dir.file("a.json", &good);

    // Different settings.
    let intl = dir.file("intl.json", emit(&["-m", "bleu,chrf", "-t", "intl"], input));
    assert_refused(
        &merge(&[], &[a.clone(), intl.clone()]),
        2,
        &[
            "intl.json: document 1",
            "bleu settings differ",
            "tokenizer: \"intl\" against \"13a\"",
        ],
    );
    let words = dir.file(
        "words.json",
        emit(&["-m", "bleu,chrf", "--chrf-word-order", "2"], input),
    );
    assert_refused(
        &merge(&[], &[a.clone(), words]),
        2,
        &[
            "words.json: document 1",
            "chrf settings differ",
            "word_order: 2 against 0",
        ],
    );
    // Different metrics (or order of metrics).
    let chrf_bleu = dir.file("cb.json", emit(&["-m", "chrf,bleu"], input));
    assert_refused(
        &merge(&[], &[a.clone(), chrf_bleu]),
        2,
        &[
            "cb.json: document 1",
            "metrics chrf,bleu differ",
            "bleu,chrf",
        ],
    );
    // The second document of a JSON Lines file differs: its number is named.
    let mut two = good.clone();
    two.extend_from_slice(&std::fs::read(&intl).unwrap());
    let two = dir.file("two.jsonl", &two);
    assert_refused(
        &merge(&[], &[two]),
        2,
        &["two.jsonl: document 2", "settings differ"],
    );
    // Another format version.
    let doc: Value = serde_json::from_slice(&good).unwrap();
    let mut v1 = doc.clone();
    v1["version"] = json!(1);
    let v1 = dir.file("v1.json", v1.to_string().as_bytes());
    assert_refused(
        &merge(&[], &[a.clone(), v1.clone()]),
        2,
        &["v1.json: document 1", "version 1", "reads versions 2 and 3"],
    );
    assert_refused(&merge(&[], &[v1]), 2, &["v1.json: document 1", "version 1"]);
    // Garbage, truncated JSON, other JSON.
    let garbage = dir.file("garbage.txt", b"BLEU = 34.2 not a document\n");
    assert_refused(
        &merge(&[], &[a.clone(), garbage]),
        2,
        &["garbage.txt: document 1", "invalid JSON"],
    );
    let truncated = dir.file("cut.json", &good[..good.len() / 2]);
    assert_refused(
        &merge(&[], &[a.clone(), truncated]),
        2,
        &["cut.json: document 1", "invalid JSON"],
    );
    let other = dir.file("other.json", b"{\"type\": \"corpus\", \"bleu\": {}}\n");
    assert_refused(
        &merge(&[], &[a.clone(), other]),
        2,
        &[
            "other.json: document 1",
            "not a stats document",
            "--emit stats",
        ],
    );
    let array = dir.file("array.json", b"[1, 2, 3]\n");
    assert_refused(
        &merge(&[], &[array]),
        2,
        &["array.json: document 1", "not a stats document"],
    );
    // A JSONL *report* of a run (not --emit stats) is not a stats document either.
    let report = run(
        &strings(&["-f", "jsonl", "--corpus-only"]),
        input.as_bytes().to_vec(),
    );
    let report = dir.file("report.jsonl", &report.stdout);
    assert_refused(
        &merge(&[], &[report]),
        2,
        &["report.jsonl: document 1", "not a stats document"],
    );
    // Damaged statistics or options.
    let mut bad = doc.clone();
    bad["metrics"][0]["stats"]["counts"] = json!([1, 2, 3]);
    let f = dir.file("counts.json", bad.to_string().as_bytes());
    assert_refused(
        &merge(&[], &[a.clone(), f]),
        2,
        &["counts.json: document 1", "BLEU counts"],
    );
    let mut bad = doc.clone();
    bad["metrics"][0]["stats"]["counts"][0] = json!(-1);
    let f = dir.file("negative.json", bad.to_string().as_bytes());
    assert_refused(&merge(&[], &[f]), 2, &["negative.json: document 1"]);
    let mut bad = doc.clone();
    bad["metrics"][0]["config"]["tokenizer"] = json!("klingon");
    let f = dir.file("options.json", bad.to_string().as_bytes());
    assert_refused(
        &merge(&[], &[f]),
        2,
        &[
            "options.json: document 1",
            "bleu settings",
            "unknown tokenizer 'klingon'",
        ],
    );
    let mut bad = doc.clone();
    bad["metrics"][0]["config"]["max_ngram_order"] = json!(0);
    let f = dir.file("order.json", bad.to_string().as_bytes());
    assert_refused(
        &merge(&[], &[f]),
        2,
        &["order.json: document 1", "max_ngram_order 0"],
    );
    let mut bad = doc.clone();
    bad["metrics"][0].as_object_mut().unwrap().remove("config");
    let f = dir.file("noconfig.json", bad.to_string().as_bytes());
    assert_refused(
        &merge(&[], &[f]),
        2,
        &["noconfig.json: document 1", "without settings"],
    );
    let mut bad = doc.clone();
    bad["segments"] = json!("many");
    let f = dir.file("segments.json", bad.to_string().as_bytes());
    assert_refused(
        &merge(&[], &[f]),
        2,
        &["segments.json: document 1", "\"segments\""],
    );
    let mut bad = doc.clone();
    bad["metrics"] = json!([]);
    let f = dir.file("nometrics.json", bad.to_string().as_bytes());
    assert_refused(
        &merge(&[], &[f]),
        2,
        &["nometrics.json: document 1", "without metrics"],
    );

    // Empty input: an empty file (a shard that failed to write) or empty standard input.
    let empty = dir.file("empty.json", b"");
    assert_refused(
        &merge(&[], &[&empty]),
        2,
        &["empty.json", "no stats documents"],
    );
    assert_refused(
        &merge(&[], &[a.clone(), empty]),
        2,
        &["empty.json", "no stats documents"],
    );
    let blank = dir.file("blank.json", b"\n  \n");
    assert_refused(
        &merge(&[], &[a.clone(), blank]),
        2,
        &["blank.json", "no stats documents"],
    );
    let out = Cmd::new().arg("merge").stdin(Vec::new()).run();
    assert_refused(&out, 2, &["<stdin>: no stats documents"]);

    // Options of merge itself.
    assert_refused(
        &Cmd::new()
            .args(["merge", "-", "-"])
            .stdin(good.clone())
            .run(),
        2,
        &["standard input"],
    );
    let out = merge(&["--emit", "stats", "-b"], &[&a]);
    assert_eq!(out.code, Some(2), "{}", out.describe());
    let out = merge(&["--emit", "json"], &[&a]);
    assert_eq!(out.code, Some(2), "{}", out.describe());
}

/// A file that cannot be read: exit 1, naming it. Output that cannot be written: exit 1.
#[test]
fn unreadable_files_exit_1() {
    let dir = TempDir::new("unreadable");
    let missing = dir.path().join("missing.json");
    assert_refused(&merge(&[], &[missing]), 1, &["missing.json"]);
    assert_refused(
        &merge(&[], &[dir.path()]),
        1,
        &[&dir.path().display().to_string()],
    );
    let good = run(&strings(&["--emit", "stats"]), b"a\ta\n".to_vec());
    let a = dir.file("a.json", &good.stdout);
    if Path::new("/dev/full").exists() {
        let out = Cmd::program("sh")
            .args(["-c", "exec \"$0\" merge \"$1\" > /dev/full", BIN])
            .arg(&a)
            .run();
        assert_eq!(out.code, Some(1), "{}", out.describe());
        assert!(
            out.stderr_str().contains("error: writing output"),
            "{}",
            out.describe()
        );
    }
}

/// NIST's mteval average reference length is a float sum of words/references per segment:
/// with a varying number of references that are not all powers of two it may have been
/// rounded, and shards would round differently — refused at `--emit stats` and at `merge`. With
/// 1, 2 and 4 references (exact quotients) the shards merge bit for bit.
#[test]
fn nist_with_a_varying_number_of_references_is_refused_when_inexact() {
    let dir = TempDir::new("nist");
    // 2 words / 1 ref, then 7 words / 3 refs (7/3 is not a binary fraction).
    let one_ref = "a b c d\ta b\n";
    let three_refs = "a b\ta\tb c\td e f g\n";
    let whole = format!("{one_ref}{three_refs}");
    let emit_whole = run(
        &strings(&["-m", "nist", "--refs", "any", "--emit", "stats"]),
        whole.clone().into_bytes(),
    );
    assert_refused(
        &emit_whole,
        2,
        &[
            "cannot emit mergeable statistics",
            "nist",
            "varying number of references",
        ],
    );
    let mut files = Vec::new();
    for (i, part) in [one_ref, three_refs].iter().enumerate() {
        let out = run(
            &strings(&["-m", "nist", "--refs", "any", "--emit", "stats"]),
            part.as_bytes().to_vec(),
        );
        out.assert_success();
        files.push(dir.file(&format!("{i}.json"), &out.stdout));
    }
    assert_refused(
        &merge(&[], &files),
        2,
        &[
            "cannot merge exactly",
            "nist",
            "varying number of references",
        ],
    );
    assert_refused(
        &merge(&["--emit", "stats"], &files),
        2,
        &["nist", "varying"],
    );
    // The same NIST settings are fine with the other metrics: only NIST refuses.
    let out = run(
        &strings(&["-m", "bleu,chrf,nist", "--refs", "any", "--emit", "stats"]),
        whole.into_bytes(),
    );
    assert_refused(&out, 2, &["nist"]);

    // Powers of two: exact, accepted, equal to one run.
    let c = Corpus::new(
        "nist 1/2/4 refs",
        split_keeping_ends(b"a b c d\ta b\nx y z\tx y\tz\nq r s\tq\tr\ts\tq r s t\n"),
        &["--input", "tsv", "--refs", "any"],
    );
    for nist in [
        &["-m", "nist"][..],
        &["-m", "nist", "--nist-compat", "nltk"],
    ] {
        assert_eq!(
            check_split(&c, &strings(nist), &[1, 2], true),
            Ok(Outcome::Same),
            "{nist:?}"
        );
    }
    // NLTK's corpus_nist does not read mteval's average reference length: 1 and 3 references
    // split and merge bit for bit (regression, NLTK audit: refused with mteval's reason).
    let c = Corpus::new(
        "nist 1/3 refs",
        split_keeping_ends(format!("{one_ref}{three_refs}{one_ref}").as_bytes()),
        &["--input", "tsv", "--refs", "any"],
    );
    let nltk = strings(&[
        "-m",
        "nist",
        "--nist-compat",
        "nltk",
        "--nist-tokenize",
        "none",
    ]);
    for cuts in [&[1][..], &[2], &[1, 2]] {
        assert_eq!(
            check_split(&c, &nltk, cuts, true),
            Ok(Outcome::Same),
            "{cuts:?}"
        );
    }
}

/// `--fail-under` applies to the merged score (exit 3), and `-b` prints one score per metric.
#[test]
fn merge_fail_under_and_score_only() {
    let dir = TempDir::new("failunder");
    let out = run(
        &strings(&["-m", "bleu,chrf", "--emit", "stats"]),
        b"the cat sat on the mat\tthe cat sat on a mat\n".to_vec(),
    );
    let a = dir.file("a.json", &out.stdout);
    let b = merge(&["-b", "-w", "1"], &[&a]);
    b.assert_success();
    let lines: Vec<String> = b.stdout_str().lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    let score: f64 = lines[0].parse().unwrap();
    let above = format!("{}", score + 1.0);
    let below = format!("{}", score - 1.0);
    let out = merge(&["--fail-under", &above], &[&a]);
    assert_eq!(out.code, Some(3), "{}", out.describe());
    assert!(
        out.stderr_str().contains("below --fail-under"),
        "{}",
        out.describe()
    );
    assert!(!out.stdout.is_empty(), "the report is still written");
    merge(&["--fail-under", &below], &[a]).assert_success();
}

/// `merge --help` and the man page document what these tests check.
#[test]
fn merge_help_documents_the_exit_statuses() {
    let out = Cmd::new().args(["merge", "--help"]).run();
    out.assert_success();
    let help = out.stdout_str();
    for part in [
        "--emit <WHAT>",
        "--fail-under",
        "-f, --format",
        "Exit status: 0",
        "parallel",
    ] {
        assert!(help.contains(part), "merge --help lacks {part:?}");
    }
    let man =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("man/bleu-stream.1"))
            .expect("man page");
    for part in ["MERGE", "\\-\\-emit", "bleu\\-stream\\-stats"] {
        assert!(man.contains(part), "man page lacks {part:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/// Random settings of the mergeable metrics: a non-empty subset in random order and the options
/// that change their statistics or scores.
fn mergeable_options() -> impl Strategy<Value = Vec<String>> {
    let metrics = prop::sample::subsequence(mergeable(), 1..=mergeable().len())
        .prop_shuffle()
        .prop_map(|m| m.join(","));
    (
        metrics,
        prop::sample::select(&["", "13a", "intl", "zh", "char", "none"][..]),
        any::<bool>(),
        prop::sample::select(&["exp", "floor", "add-k", "none"][..]),
        1u32..6,
        prop::sample::select(&[0u32, 2][..]),
        prop::sample::select(&["", "0", "1", "2", "3", "4", "matlab"][..]),
        prop::sample::select(&["mteval", "nltk"][..]),
        prop::sample::select(&["mteval", "none"][..]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(metrics, tok, lc, smooth, order, words, nltk, nist, nist_tok, detok, flag)| {
                let mut a = vec!["-m".to_owned(), metrics];
                if !tok.is_empty() {
                    a.extend(["--tokenize".into(), tok.into()]);
                }
                if lc {
                    a.push("-l".into());
                }
                a.extend(["-s".into(), smooth.into()]);
                a.extend(["--max-ngram-order".into(), order.to_string()]);
                a.extend(["--chrf-word-order".into(), words.to_string()]);
                match nltk {
                    "" => {}
                    "matlab" => a.extend(["--compat".into(), "matlab".into()]),
                    m => a.extend(["--nltk-smoothing".into(), m.into()]),
                }
                a.extend(["--nist-compat".into(), nist.into()]);
                a.extend(["--nist-tokenize".into(), nist_tok.into()]);
                if detok {
                    a.push("--multi-bleu-detok".into());
                }
                if flag {
                    a.extend(strings(&[
                        "--chrf-whitespace",
                        "--case-sensitive",
                        "--mteval-no-smoothing",
                        "--gleu-min-len",
                        "2",
                    ]));
                }
                a
            },
        )
}

/// Framing of messy input: explicit (see [`Corpus`]).
fn framing() -> impl Strategy<Value = Vec<String>> {
    (
        prop::sample::select(&["tsv", "jsonl"][..]),
        prop::sample::select(&["any", "1", "2"][..]),
        any::<bool>(),
    )
        .prop_map(|(input, refs, lossy)| {
            let mut a = strings(&["--input", input, "--refs", refs]);
            if lossy {
                a.extend(strings(&["--invalid-utf8", "lossy"]));
            }
            a
        })
}

/// Runs [`check_split`]; after a (legitimate) refusal, checks the other metrics without the
/// one that refused.
fn check_property(corpus: &Corpus, args: &[String], cuts: &[usize]) -> Result<(), TestCaseError> {
    let mut args = args.to_vec();
    loop {
        match check_split(corpus, &args, cuts, false) {
            Ok(Outcome::Same) => return Ok(()),
            Ok(Outcome::Refused(metric)) => {
                let i = args.iter().position(|a| a == "-m").unwrap() + 1;
                let rest: Vec<&str> = args[i].split(',').filter(|m| *m != metric).collect();
                if rest.is_empty() {
                    return Ok(());
                }
                args[i] = rest.join(",");
            }
            Err(e) => return Err(TestCaseError::fail(e)),
        }
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// Messy input (invalid UTF-8, broken JSON, stray TABs and CRs, blank lines…), split into
    /// up to 7 shards anywhere (empty shards too): merge equals one run, bad lines included.
    #[test]
    fn merge_of_any_split_of_messy_input_equals_one_run(
        input in input(),
        framing in framing(),
        args in mergeable_options(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..7),
    ) {
        let lines = split_keeping_ends(&input);
        let cuts: Vec<usize> = cuts.iter().map(|c| c.index(lines.len() + 1)).collect();
        let corpus = Corpus { name: "messy".into(), lines, framing };
        check_property(&corpus, &args, &cuts)?;
    }
}

proptest! {
    #![proptest_config(config(24))]

    /// Clean segments with a fixed number of references (TSV or JSONL), split into up to 7
    /// shards: merge equals one run for every mergeable metric (NIST never refuses here; TER
    /// does, legitimately, with three references, and is then left out).
    #[test]
    fn merge_of_any_split_of_clean_segments_equals_one_run(
        (nrefs, segs) in segments(),
        jsonl in any::<bool>(),
        args in mergeable_options(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..7),
    ) {
        let text = if jsonl { as_jsonl(&segs) } else { as_tsv(&segs) };
        let lines = split_keeping_ends(&text);
        let cuts: Vec<usize> = cuts.iter().map(|c| c.index(lines.len() + 1)).collect();
        let n = nrefs.to_string();
        let framing = strings(&["--input", if jsonl { "jsonl" } else { "tsv" }, "--refs", &n]);
        let corpus = Corpus { name: "clean".into(), lines, framing };
        check_property(&corpus, &args, &cuts)?;
    }
}

// ---------------------------------------------------------------------------------------------
// WMT22 (../shared)
// ---------------------------------------------------------------------------------------------

/// Per language pair: the hypotheses of its first system (in name order) and its reference
/// files, pasted as TSV lines (a TAB inside a sentence makes a bad line, as in uk-en).
fn wmt22_pairs(shared: &Path) -> Vec<Corpus> {
    let dir = wmt22_dir(shared);
    let list = |sub: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir.join(sub))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(sub).display()))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let refs = list("references");
    let hyps = list("system-outputs");
    let pairs: BTreeSet<String> = refs
        .iter()
        .filter_map(|f| f.split('.').nth(1).map(str::to_owned))
        .collect();
    let read = |sub: &str, f: &str| -> Vec<Vec<u8>> {
        let text = std::fs::read(dir.join(sub).join(f)).expect("WMT22 file");
        let mut lines = split_keeping_ends(&text);
        for l in &mut lines {
            while l.last() == Some(&b'\n') {
                l.pop();
            }
        }
        lines
    };
    let mut out = Vec::new();
    for pair in pairs {
        let prefix = format!("generaltest2022.{pair}.");
        let ref_files: Vec<&String> = refs.iter().filter(|f| f.starts_with(&prefix)).collect();
        let Some(hyp) = hyps.iter().find(|f| f.starts_with(&prefix)) else {
            continue;
        };
        let columns: Vec<Vec<Vec<u8>>> = std::iter::once(read("system-outputs", hyp))
            .chain(ref_files.iter().map(|f| read("references", f)))
            .collect();
        let n = columns[0].len();
        assert!(
            columns.iter().all(|c| c.len() == n),
            "{pair}: streams of different length"
        );
        let lines = (0..n)
            .map(|i| {
                let mut l = columns
                    .iter()
                    .map(|c| c[i].clone())
                    .collect::<Vec<_>>()
                    .join(&b'\t');
                l.push(b'\n');
                l
            })
            .collect();
        let nrefs = ref_files.len().to_string();
        out.push(Corpus::new(
            &format!("wmt22 {pair} ({hyp})"),
            lines,
            &["--input", "tsv", "--refs", &nrefs],
        ));
    }
    out
}

/// WMT22, every language pair: all mergeable metrics at their defaults, split into 5 uneven
/// shards; on cs-en (two references) every option variant. Merge equals one run bit for bit.
#[test]
fn wmt22_shards_merge_to_one_run() {
    let Some(shared) = shared_dir() else {
        crate::util::skip("merge: WMT22 shards");
        return;
    };
    let corpora = wmt22_pairs(&shared);
    assert!(corpora.len() >= 20, "{} language pairs", corpora.len());
    let all = strings(&["-m", &mergeable().join(",")]);
    let mut jobs: Vec<(&Corpus, Vec<String>, Vec<usize>)> = Vec::new();
    for c in &corpora {
        let n = c.lines.len();
        jobs.push((c, all.clone(), vec![n / 7, n / 3, n / 3 + 1, 4 * n / 5]));
        if c.name.starts_with("wmt22 cs-en") {
            for v in variants() {
                jobs.push((c, v, vec![n / 5, n / 2, n - 3]));
            }
        }
    }
    let results = par_map(&jobs, |(c, v, cuts)| {
        (
            format!("{} `{}`", c.name, v.join(" ")),
            check_split(c, v, cuts, false),
        )
    });
    let mut mismatches = Mismatches::new();
    let mut same = 0;
    for (what, r) in results {
        match r {
            Ok(Outcome::Same) => same += 1,
            Ok(Outcome::Refused(metric)) => mismatches.push(&what, format!("{metric} refused")),
            Err(e) => mismatches.push(&what, e),
        }
    }
    eprint_whole(&format!(
        "merge wmt22: {same} of {} splits equal one run ({} language pairs, cs-en with {} \
         variants)\n",
        jobs.len(),
        corpora.len(),
        variants().len()
    ));
    mismatches.finish("wmt22_shards_merge_to_one_run");
}

// ---------------------------------------------------------------------------------------------
// Recipes
// ---------------------------------------------------------------------------------------------

/// Whether `program` runs (`program ARGS` exits 0).
fn runs(program: &str, args: &[&str]) -> bool {
    std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The input of the recipe tests: WMT22 cs-en, all systems (about 16k lines, 5 MB), or a
/// generated corpus of the same order of size without `../shared`.
fn recipe_input(dir: &TempDir) -> (PathBuf, Vec<String>, String) {
    if let Some(shared) = shared_dir() {
        let wmt = wmt22_dir(&shared);
        let refs: Vec<Vec<u8>> = ["B", "C"]
            .iter()
            .map(|r| {
                std::fs::read(wmt.join(format!("references/generaltest2022.cs-en.ref.{r}.en")))
                    .expect("cs-en reference")
            })
            .collect();
        let refs: Vec<Vec<&[u8]>> = refs
            .iter()
            .map(|r| {
                r.strip_suffix(b"\n")
                    .unwrap_or(r)
                    .split(|&b| b == b'\n')
                    .collect()
            })
            .collect();
        let mut systems: Vec<PathBuf> = std::fs::read_dir(wmt.join("system-outputs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("generaltest2022.cs-en.")
            })
            .collect();
        systems.sort();
        let mut tsv = Vec::new();
        for s in &systems {
            let hyp = std::fs::read(s).unwrap();
            let hyp = hyp.strip_suffix(b"\n").unwrap_or(&hyp);
            for (i, h) in hyp.split(|&b| b == b'\n').enumerate() {
                tsv.extend_from_slice(h);
                for r in &refs {
                    tsv.push(b'\t');
                    tsv.extend_from_slice(r[i]);
                }
                tsv.push(b'\n');
            }
        }
        let what = format!("WMT22 cs-en, {} systems", systems.len());
        (dir.file("input.tsv", &tsv), strings(&["--refs", "2"]), what)
    } else {
        let c = generated("generated", 40_000, 0x5eed_0003, &[2]);
        let what = "a generated corpus (../shared not found)".to_owned();
        (dir.file("input.tsv", c.whole()), c.framing, what)
    }
}

/// The metrics of the recipe tests.
fn recipe_metrics() -> Vec<String> {
    strings(&["-m", &mergeable().join(","), "--on-error", "skip"])
}

/// The README's GNU parallel recipe, with blocks small enough for many jobs:
/// `parallel --pipe -k --block 50k bleu-stream --emit stats < input | bleu-stream merge`
/// gives one run's report.
#[test]
fn gnu_parallel_recipe_equals_one_run() {
    if !runs("parallel", &["--version"]) {
        let why = "GNU parallel is not installed (apt-get install parallel)";
        assert!(
            std::env::var_os("CI").is_none(),
            "merge recipe: {why}; .ci/run installs it under CI"
        );
        eprint_whole(&format!("SKIPPED: merge recipe: {why}\n"));
        return;
    }
    let dir = TempDir::new("parallel");
    let (input, framing, what) = recipe_input(&dir);
    let mut args = framing.clone();
    args.extend(recipe_metrics());
    let mut one_args = args.clone();
    one_args.extend(strings(&["-f", "jsonl", "--corpus-only"]));
    let one = Cmd::new().args(&one_args).arg(&input).run();
    one.assert_success();

    let script = "set -o pipefail; in=$1; bin=$2; shift 2; \
                  parallel --will-cite --pipe -k --block 50k \"$bin\" --emit stats \"$@\" < \"$in\" \
                  | tee \"$in.docs\" | \"$bin\" merge -f jsonl";
    let out = Cmd::program("bash")
        .args(["-c", script, "recipe"])
        .arg(&input)
        .arg(BIN)
        .args(&args)
        .timeout(std::time::Duration::from_secs(300))
        .run();
    out.assert_success();
    let docs = std::fs::read_to_string(input.with_extension("tsv.docs")).unwrap();
    let jobs = docs.lines().count();
    assert!(jobs >= 10, "only {jobs} parallel jobs ran");
    assert_eq!(
        out.stdout_str(),
        one.stdout_str(),
        "GNU parallel recipe differs from one run on {what}"
    );
    eprint_whole(&format!(
        "merge recipe: GNU parallel, {jobs} jobs over {what}: merged report equals one run\n"
    ));
}

/// The README's Spark recipe (`scripts/spark_bleu.py`: `rdd.pipe` of `bleu-stream --emit
/// stats` per partition, `bleu-stream merge` of the documents in partition order) on a local
/// Spark, when pyspark and Java are available.
#[test]
fn spark_recipe_equals_one_run() {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    if !runs(&python, &["-c", "import pyspark"]) || !runs("java", &["-version"]) {
        eprint_whole("SKIPPED: merge recipe: Spark needs pyspark (pip install pyspark) and Java\n");
        return;
    }
    let dir = TempDir::new("spark");
    let (input, framing, what) = recipe_input(&dir);
    let mut args = framing.clone();
    args.extend(recipe_metrics());
    let mut one_args = args.clone();
    one_args.extend(strings(&["-f", "jsonl", "--corpus-only"]));
    let one = Cmd::new().args(&one_args).arg(&input).run();
    one.assert_success();

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/spark_bleu.py");
    // The binary by name, found on PATH, as the README's recipe runs it (regression, docs
    // audit: rdd.pipe runs its command without PATH, and a bare name was not found).
    let bin_dir = Path::new(BIN).parent().expect("the binary's directory");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Cmd::program(&python)
        .env("PATH", &path)
        .arg(&script)
        .args(["--master", "local[2]", "--split-size", "256k"])
        .args(["--merge-options", "-f jsonl"])
        .arg(&input)
        .arg("--")
        .args(&args)
        .timeout(std::time::Duration::from_secs(600))
        .run();
    out.assert_success();
    // The script says how many partitions (shards) it merged, on stderr among Spark's logs.
    let partitions: usize = out
        .stderr_str()
        .lines()
        .find_map(|l| l.strip_prefix("spark_bleu.py: merged "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no partition count: {}", out.describe()));
    assert!(partitions >= 4, "only {partitions} Spark partitions");
    assert_eq!(
        out.stdout_str(),
        one.stdout_str(),
        "Spark recipe differs from one run on {what}"
    );
    eprint_whole(&format!(
        "merge recipe: Spark, {partitions} partitions over {what}: merged report equals one run\n"
    ));
}

/// `merge -b` and `merge --fail-under` end as one run over the shards' lines would: no score
/// (no segment, bad lines only, a NaN score) is `error: …` with status 1 and nothing on stdout,
/// not an empty line with status 0 or a NaN "below" the gate with status 3. (Regression: merge
/// printed nothing and exited 0.)
#[test]
fn merge_without_a_score_fails_as_one_run_does() {
    let dir = TempDir::new("noscore");
    let cases: [(&str, &[&str], &[u8]); 4] = [
        ("empty", &["--refs", "1"], b""),
        ("bad", &["--refs", "1"], b"a\tb\tc\nx\n"),
        (
            "nist-nan",
            &["--refs", "1", "-m", "nist"],
            b"a b c d e f\t\n",
        ),
        (
            "matlab-nan",
            &["--refs", "1", "-m", "nltk-bleu", "--compat", "matlab"],
            b"\t\n",
        ),
    ];
    for (name, args, input) in cases {
        let one_args: Vec<String> = args.iter().chain(&["-b"]).map(|s| s.to_string()).collect();
        let one = run(&one_args, input.to_vec());
        assert_eq!(one.code, Some(1), "{name}: {}", one.describe());
        let mut emit = strings(args);
        emit.extend(strings(&["--emit", "stats"]));
        let doc = run(&emit, input.to_vec());
        doc.assert_success();
        let file = dir.file(&format!("{name}.json"), &doc.stdout);
        let why = one.stderr_str();
        let why = why
            .lines()
            .find(|l| l.contains("error: "))
            .expect("a reason");
        let why = why.split_once("error: ").expect("a reason").1;
        // The same reason; where one run says "see the warnings", merge says whose they were.
        let merge_why = why.replace("(see the warnings)", "(see the shards' warnings)");
        for merge_args in [&["-b"][..], &["--fail-under", "1"][..]] {
            assert_refused(&merge(merge_args, &[&file]), 1, &[&merge_why]);
        }
        // One run with a gate prints no report without a score either, whatever the mode
        // (regression, audit 2026-11-26: `--corpus-only --fail-under` printed `BLEU = 0.00`
        // on stdout before the error, where merge prints nothing).
        for mode in [&["--corpus-only"][..], &["-f", "jsonl"][..], &[][..]] {
            let mut gated = strings(args);
            gated.extend(strings(mode));
            gated.extend(strings(&["--fail-under", "1"]));
            let one = run(&gated, input.to_vec());
            assert_eq!(one.code, Some(1), "{name} {mode:?}: {}", one.describe());
            assert!(
                !one.stdout_str().contains("\"type\":\"corpus\"")
                    && !one.stdout_str().contains(" = "),
                "{name} {mode:?}: {}",
                one.describe()
            );
            assert!(one.stderr_str().contains(why), "{}", one.describe());
        }
    }
}

/// A field bleu-stream does not write, anywhere in a document (a typo, an edit, another
/// version's field), is refused rather than ignored. (Regression, output audit: a document whose
/// `"resampling"` was misspelt merged with status 0 and no interval; unknown keys in a metric's
/// statistics were ignored too; a number key passed in a `--group-by col:N` document, whose TSV
/// keys are text.) Every field bleu-stream writes still merges, optional ones included.
#[test]
fn documents_with_fields_bleu_stream_does_not_write_are_refused() {
    let dir = TempDir::new("unknown");
    let emit = |args: &[&str], input: &str| -> Value {
        let mut a = strings(args);
        a.extend(strings(&["--emit", "stats"]));
        let out = run(&a, input.as_bytes().to_vec());
        out.assert_success();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let input = "the cat sat\tthe cat sat on the mat\nx y z w\tx y z\n";
    let plain = emit(&["-m", "bleu,nltk-bleu", "--refs", "1"], input);
    let confident = emit(
        &["--refs", "1", "--confidence", "--confidence-n", "5"],
        input,
    );
    let grouped = emit(
        &["--group-by", "col:1", "--refs", "1"],
        "a\tthe cat sat\tthe cat\nb\tx y\tx y\n",
    );
    let file = |name: &str, doc: &Value| dir.file(name, doc.to_string() + "\n");
    for doc in [&plain, &confident, &grouped] {
        merge(&["-b"], &[file("ok.json", doc)]).assert_success();
    }
    /// A document, how it is forged, and what the refusal says.
    type Forgery<'a> = (&'a Value, fn(&mut Value), &'a str);
    let cases: [Forgery; 7] = [
        (
            &plain,
            |d| d["extra"] = json!(1),
            "stats document: unknown field \"extra\"",
        ),
        (
            &confident,
            |d| {
                let r = d.as_object_mut().unwrap().remove("resampling").unwrap();
                d["resamplinG"] = r;
            },
            "unknown field \"resamplinG\"",
        ),
        (
            &plain,
            |d| d["metrics"][0]["note"] = json!("x"),
            "metric bleu: unknown field \"note\"",
        ),
        (
            &plain,
            |d| d["metrics"][0]["stats"]["countz"] = json!([1]),
            "bleu statistics: unknown field \"countz\"",
        ),
        (
            &plain,
            |d| d["metrics"][1]["stats"]["extra"] = json!(0),
            "nltk-bleu statistics: unknown field \"extra\"",
        ),
        (
            &confident,
            |d| d["resampling"]["metrics"][0]["weights"] = json!([]),
            "resampling statistics of bleu: unknown field \"weights\"",
        ),
        (
            &grouped,
            |d| d["groups"][0]["group"] = json!(7),
            "group 7: a number, but --group-by col:1 reads TSV columns",
        ),
    ];
    for (doc, edit, says) in cases {
        let mut forged = doc.clone();
        edit(&mut forged);
        assert_refused(&merge(&["-b"], &[file("forged.json", &forged)]), 2, &[says]);
    }
    let mut forged = grouped.clone();
    forged["groups"][0]["extra"] = json!(1);
    assert_refused(
        &merge(&["-b"], &[file("forged.json", &forged)]),
        2,
        &["group \"a\": unknown field \"extra\""],
    );
}

/// More bad lines than scored ones fail `merge` as they fail one run over the shards' input,
/// unless the shards' runs expected them (`--on-error skip`, recorded as
/// `expected_bad_lines`). (Regression: a shard whose line 1 had a stray TAB, so that all its
/// other lines were bad, merged with status 0 into a score of the few lines that fitted,
/// where one run fails: documents did not say whether their runs expected bad lines.)
#[test]
fn mostly_bad_shards_fail_merge_as_one_run_fails() {
    let dir = TempDir::new("mostly-bad");
    let good = "a b c d e\ta b c d e\n".repeat(3);
    let stray = format!("x\tstray\ty\n{good}");
    let emit = |extra: &[&str], input: &str| {
        let mut args = strings(&["--emit", "stats"]);
        args.extend(strings(extra));
        let out = run(&args, input.as_bytes().to_vec());
        out.assert_success();
        out.stdout
    };
    let bad = dir.file("bad.json", emit(&[], &stray));
    let skip_doc = emit(&["--on-error", "skip"], &stray);
    let text = String::from_utf8(skip_doc.clone()).unwrap();
    assert!(
        text.contains("\"bad_lines\":3,\"expected_bad_lines\":3,"),
        "{text}"
    );
    let bad_text = String::from_utf8(std::fs::read(&bad).unwrap()).unwrap();
    assert!(
        bad_text.contains("\"bad_lines\":3,\"expected_bad_lines\":0,"),
        "{bad_text}"
    );
    // A document of an earlier version has no "expected_bad_lines": it did not say whether its
    // run expected its bad lines, which are not judged, as before (review).
    let old = dir.file(
        "old.json",
        bad_text
            .replacen("\"expected_bad_lines\":0,", "", 1)
            .as_bytes(),
    );
    merge(&["-b"], &[&old]).assert_success();
    let skip = dir.file("skip.json", &skip_doc);
    let one = run(&strings(&["-b"]), stray.as_bytes().to_vec());
    assert_eq!(one.code, Some(1), "{}", one.describe());
    let why = "most lines were bad: 3 of 4 (see the shards' warnings), so a score \
               would describe only 1 line";
    for args in [&["-b"][..], &[][..], &["-f", "jsonl"][..]] {
        assert_refused(
            &merge(args, &[&bad]),
            1,
            &[why, "run the shards with --on-error skip"],
        );
    }
    // Expected: scored as one run with --on-error skip scores them.
    let one_skip = run(
        &strings(&["-b", "--on-error", "skip"]),
        stray.as_bytes().to_vec(),
    );
    one_skip.assert_success();
    let merged = merge(&["-b"], &[&skip]);
    merged.assert_success();
    assert_eq!(merged.stdout, one_skip.stdout);
    // Mixed: the 3 unexpected bad lines outnumber the 2 segments; a merge of merges agrees.
    assert_refused(
        &merge(&["-b"], &[&skip, &bad]),
        1,
        &["most lines were bad: 6 of 8"],
    );
    let tree = merge(&["--emit", "stats"], &[&skip, &bad]);
    tree.assert_success();
    assert!(tree
        .stdout_str()
        .contains("\"bad_lines\":6,\"expected_bad_lines\":3,"));
    let tree = dir.file("tree.json", &tree.stdout);
    assert_refused(
        &merge(&["-b"], &[&tree]),
        1,
        &["most lines were bad: 6 of 8"],
    );
    // As many unexpected bad lines as scored ones is not "most".
    let fine = dir.file("fine.json", emit(&[], &format!("{good}x\ny\nz\n")));
    merge(&["-b"], &[&fine]).assert_success();
    // The new count is validated like the others.
    for (from, to, says) in [
        (
            "\"expected_bad_lines\":3",
            "\"expected_bad_lines\":4",
            "4 expected bad lines of 3",
        ),
        (
            "\"expected_bad_lines\":3",
            "\"expected_bad_lines\":-1",
            "not a count",
        ),
        (
            "\"expected_bad_lines\":3",
            "\"expected_bad_lines\":\"3\"",
            "not a count",
        ),
    ] {
        let forged = dir.file("forged.json", text.replacen(from, to, 1).as_bytes());
        assert_refused(&merge(&["-b"], &[&forged]), 2, &[says]);
    }
}

/// A metric that counts its own segments (TER, NIST, NLTK BLEU) must count the document's:
/// a document whose header says otherwise is forged or corrupt, and its report would show a
/// segment count that its statistics contradict. (Regression: "1000 segments" was reported.)
#[test]
fn segment_counts_that_contradict_the_statistics_are_refused() {
    let dir = TempDir::new("segments");
    // The document `text` with its first `from` (which must be there) turned into `to`.
    let forge = |name: &str, text: &str, from: &str, to: &str| {
        assert!(
            text.contains(from),
            "the saved layout changed, no {from}: {text}"
        );
        dir.file(name, text.replacen(from, to, 1).as_bytes())
    };
    let input = b"a b c d e f\ta b c d e f\nx y z\tx y\n".to_vec();
    let doc = run(
        &strings(&[
            "--refs",
            "1",
            "-m",
            "bleu,ter,nist,nltk-bleu",
            "--emit",
            "stats",
        ]),
        input.clone(),
    );
    doc.assert_success();
    let text = doc.stdout_str();
    assert_refused(
        &merge(
            &[],
            &[forge(
                "forged.json",
                &text,
                "\"segments\":2,\"bad_lines\"",
                "\"segments\":1000,\"bad_lines\"",
            )],
        ),
        2,
        &["ter counts 2 segments where the document counts 1000"],
    );
    // Per group too.
    let grouped = run(
        &strings(&[
            "--refs",
            "1",
            "-m",
            "ter",
            "--group-by",
            "col:1",
            "--emit",
            "stats",
        ]),
        b"g\ta b\ta b\ng\tc d\tc d\n".to_vec(),
    );
    grouped.assert_success();
    assert_refused(
        &merge(
            &[],
            &[forge(
                "forged-group.json",
                &grouped.stdout_str(),
                "\"group\":\"g\",\"segments\":2",
                "\"group\":\"g\",\"segments\":3",
            )],
        ),
        2,
        &["group \"g\": inconsistent statistics: ter counts 2 segments"],
    );
    let good = dir.file("good.json", doc.stdout.as_slice());
    merge(&[], &[good]).assert_success();
    // BLEU, chrF and GLEU keep no count of their own: a document of no segments must hold the
    // statistics of none.
    let counted = run(
        &strings(&["-m", "bleu,chrf,gleu", "--emit", "stats"]),
        input.clone(),
    );
    counted.assert_success();
    assert_refused(
        &merge(
            &[],
            &[forge(
                "zeroed.json",
                &counted.stdout_str(),
                "\"segments\":2,",
                "\"segments\":0,",
            )],
        ),
        2,
        &["bleu statistics of scored segments where the document counts none"],
    );
    // …while a real document of no segments (no line, or only bad lines) is trusted: the
    // latter's report fails as one run's does (status 1, not a refused document's 2).
    for (input, code) in [(&b""[..], 0), (b"only one field\n", 1)] {
        let empty = run(
            &strings(&["-m", "bleu,chrf,gleu,ter,nist", "--emit", "stats"]),
            input.to_vec(),
        );
        empty.assert_success();
        let merged = merge(&[], &[dir.file("empty.json", empty.stdout.as_slice())]);
        assert_eq!(merged.code, Some(code), "{}", merged.describe());
    }
    // TER's `exact` promises a ref_length in steps of 1/1024 (what merges add without rounding).
    let ter = run(
        &strings(&["--refs", "1", "-m", "ter", "--emit", "stats"]),
        input,
    );
    assert_refused(
        &merge(
            &[],
            &[forge(
                "inexact.json",
                &ter.stdout_str(),
                "\"ref_length\":8.0,",
                "\"ref_length\":8.3,",
            )],
        ),
        2,
        &["ref_length 8.3 is marked exact"],
    );
}
