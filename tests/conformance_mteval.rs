//! Conformance of `nist` and `mteval-bleu` with `mteval-v13a.pl` on `../shared/vectors/mteval`:
//!
//! * the tokenizer vectors (552 lines × 5 variants), through the library;
//! * every WMT22 system record (845) through the binary — one `--corpus-only` run per system,
//!   the files given as parallel streams (`-r`), or as JSONL on stdin for the `escape` wrapper —
//!   NIST and BLEU within the vector README's relative tolerance (1e-12), the BLEU counts
//!   exactly, the per-order information sums to the printed 4 decimals;
//! * the WMT22 segment records (76): BLEU rows through the binary; mteval's segment- and
//!   document-level NIST (corpus-wide weights, not a CLI output) through the library;
//! * the crafted records (47), including the runs where mteval dies;
//! * `cross_impl_wmt22.jsonl`: NLTK `corpus_nist` on mteval's tokens (`--nist-compat nltk`), bit
//!   for bit, and the quirk-free mteval NIST it matches (one reference); and on all 619 records
//!   every other field bleu-stream reproduces: mteval NIST/BLEU, sacreBLEU 13a / 13a lowercase /
//!   intl BLEU, multi-bleu-detok.perl's BLEU and line.

use std::borrow::Cow;
use std::path::Path;

use serde_json::{json, Value};

use bleu_stream::input::Segment;
use bleu_stream::metric::mteval_bleu::{BrevityPenalty, MtevalBleu, MtevalBleuConfig};
use bleu_stream::metric::nist::{Nist, NistConfig, NistStats, NistTokenize};
use bleu_stream::metric::Metric;
use bleu_stream::tokenize::mteval::MtevalTokenizer;

use crate::util::{par_map, read_jsonl, read_lines_sacrebleu, shared_or_skip, wmt22_dir, Cmd};

/// The vectors' tolerance: mteval itself varies in the 15th digit between runs.
const TOLERANCE: f64 = 1e-12;

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1.0)
}

fn mteval_dir(shared: &Path) -> std::path::PathBuf {
    shared.join("vectors").join("mteval")
}

/// mteval options of a run.
#[derive(Clone, Copy, Debug)]
struct Options {
    international: bool,
    case_sensitive: bool,
    shortest: bool,
    smoothing: bool,
}

impl Options {
    fn from_flags(options: &[Value]) -> Options {
        let has = |f: &str| options.iter().any(|o| o == f);
        let bp = options
            .iter()
            .position(|o| o == "--brevity-penalty")
            .map(|i| options[i + 1].as_str().unwrap());
        Options {
            international: has("--international-tokenization"),
            case_sensitive: has("-c"),
            shortest: bp == Some("shortest"),
            smoothing: !has("--no-smoothing"),
        }
    }

    fn from_record(r: &Value) -> Options {
        Options {
            international: r["tokenization"] == "international",
            case_sensitive: r["case_sensitive"] == true,
            shortest: r["brevity_penalty"] == "shortest",
            smoothing: r["smoothing"] == true,
        }
    }

    fn args(&self) -> Vec<&'static str> {
        let mut a = Vec::new();
        if self.international {
            a.push("--mteval-international");
        }
        if self.case_sensitive {
            a.push("--case-sensitive");
        }
        if self.shortest {
            a.extend(["--brevity-penalty", "shortest"]);
        }
        if !self.smoothing {
            a.push("--mteval-no-smoothing");
        }
        a
    }

    fn tokenizer(&self) -> MtevalTokenizer {
        MtevalTokenizer {
            international: self.international,
            case_sensitive: self.case_sensitive,
            split_non_ascii: false,
        }
    }

    fn nist(&self) -> Nist {
        Nist::new(NistConfig {
            tokenize: NistTokenize::Mteval(self.tokenizer()),
            ..NistConfig::default()
        })
    }

    fn bleu(&self) -> MtevalBleu {
        MtevalBleu::new(MtevalBleuConfig {
            tokenizer: self.tokenizer(),
            brevity_penalty: if self.shortest {
                BrevityPenalty::Shortest
            } else {
                BrevityPenalty::Closest
            },
            smoothing: self.smoothing,
        })
    }
}

/// txt2sgm.py `--escape`.
fn escape(line: &str) -> String {
    line.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn jsonl_input(hyps: &[String], refs: &[Vec<String>]) -> String {
    let mut s = String::new();
    for (i, h) in hyps.iter().enumerate() {
        let r: Vec<&str> = refs.iter().map(|r| r[i].as_str()).collect();
        s.push_str(&json!({"hyp": h, "refs": r}).to_string());
        s.push('\n');
    }
    s
}

/// The final corpus record of a run.
fn final_report(out: &crate::util::Output) -> Value {
    let records = out
        .jsonl()
        .unwrap_or_else(|e| panic!("{e}: {}", out.describe()));
    records
        .into_iter()
        .find(|r| r["type"] == "corpus" && r["final"] == true)
        .unwrap_or_else(|| panic!("no final report: {}", out.describe()))
}

fn score(metric: &Value) -> Option<f64> {
    metric["score"].as_f64()
}

fn print_counts(name: &str, counts: &str, bad: &[String]) {
    let mut text = format!(
        "conformance mteval {name}: {counts}, {} mismatches\n",
        bad.len()
    );
    for m in bad.iter().take(20) {
        text.push_str(&format!("  MISMATCH {m}\n"));
    }
    crate::util::eprint_whole(&text);
    assert!(bad.is_empty(), "{name}: {} mismatches", bad.len());
}

#[test]
fn tokenizer() {
    let Some(shared) = shared_or_skip("conformance mteval tokenizer") else {
        return;
    };
    let mut checked = 0;
    let mut bad = Vec::new();
    for r in read_jsonl(&mteval_dir(&shared).join("tokenizer_mteval13a.jsonl")) {
        let text = r["text"].as_str().unwrap();
        for (key, international, case_sensitive, split_non_ascii) in [
            ("norm_lc", false, false, false),
            ("norm_cs", false, true, false),
            ("intl_lc", true, false, false),
            ("intl_cs", true, true, false),
            ("intl_e_cs", true, true, true),
        ] {
            let Some(want) = r.get(format!("{key}_tokens")) else {
                continue;
            };
            checked += 1;
            let tok = MtevalTokenizer {
                international,
                case_sensitive,
                split_non_ascii,
            };
            let got = tok.tokens(text);
            let want: Vec<&str> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            if got != want {
                bad.push(format!("{} {key}: {got:?} != {want:?}", r["id"]));
            }
        }
    }
    print_counts(
        "tokenizer",
        &format!("{checked} token sequences checked"),
        &bad,
    );
}

/// Scores every segment and document of one system with the library, the way mteval prints
/// them: returns (segment NIST, segment BLEU, document NIST, document BLEU).
#[allow(clippy::type_complexity)]
fn library_levels(
    o: Options,
    hyps: &[String],
    refs: &[Vec<String>],
    docsize: usize,
) -> (
    Vec<Result<f64, String>>,
    Vec<f64>,
    Vec<Result<f64, String>>,
    Vec<f64>,
) {
    let (nist, bleu) = (o.nist(), o.bleu());
    let mut ws = Default::default();
    let mut bws = Default::default();
    let mut totals = nist.new_totals();
    let mut stats: Vec<NistStats> = Vec::new();
    let mut bstats = Vec::new();
    for (i, h) in hyps.iter().enumerate() {
        let segment = Segment {
            hyp: Cow::Borrowed(h.as_str()),
            refs: refs.iter().map(|r| Cow::Borrowed(r[i].as_str())).collect(),
            id: None,
            exact: false,
        };
        let s = nist.segment_stats(&segment, &mut ws);
        nist.add(&mut totals, &s);
        stats.push(s);
        bstats.push(bleu.segment_stats(&segment, &mut bws));
    }
    let seg_nist = stats
        .iter()
        .map(|s| nist.mteval_group_score(&mut totals, &[s]))
        .collect();
    let seg_bleu = bstats.iter().map(|s| bleu.stats_score(s)).collect();
    let (mut doc_nist, mut doc_bleu) = (Vec::new(), Vec::new());
    if docsize > 0 {
        for (chunk, bchunk) in stats.chunks(docsize).zip(bstats.chunks(docsize)) {
            let group: Vec<&NistStats> = chunk.iter().collect();
            doc_nist.push(nist.mteval_group_score(&mut totals, &group));
            let mut sum = bleu.new_totals();
            for s in bchunk {
                bleu.add(&mut sum, s);
            }
            doc_bleu.push(bleu.stats_score(&sum));
        }
    }
    (seg_nist, seg_bleu, doc_nist, doc_bleu)
}

#[allow(clippy::too_many_arguments)]
fn check_levels(
    id: &str,
    o: Options,
    hyps: &[String],
    refs: &[Vec<String>],
    docsize: usize,
    segments: Option<&Value>,
    docs: Option<&Value>,
    bad: &mut Vec<String>,
) -> usize {
    // mteval's documents; without a docsize wrapper, the whole file is one document.
    let docsize = if docsize == 0 {
        hyps.len().max(1)
    } else {
        docsize
    };
    let (seg_nist, seg_bleu, doc_nist, doc_bleu) = library_levels(o, hyps, refs, docsize);
    let mut checked = 0;
    let mut cmp = |what: String, got: Result<f64, String>, want: &Value| {
        let Some(want) = want.as_f64() else {
            return;
        };
        checked += 1;
        match got {
            Ok(x) if rel(x, want) <= TOLERANCE => {}
            other => bad.push(format!("{id} {what}: {other:?} != {want}")),
        }
    };
    if let Some(seg) = segments {
        if let Some(want) = seg["nist"].as_array() {
            for (k, (got, want)) in seg_nist.into_iter().zip(want).enumerate() {
                cmp(format!("segment {} NIST", k + 1), got, want);
            }
        }
        if let Some(want) = seg["bleu"].as_array() {
            for (k, (got, want)) in seg_bleu.into_iter().zip(want).enumerate() {
                cmp(format!("segment {} BLEU", k + 1), Ok(got), want);
            }
        }
    }
    if let Some(docs) = docs.and_then(Value::as_array) {
        for (k, d) in docs.iter().enumerate() {
            cmp(
                format!("doc {} NIST", k + 1),
                doc_nist[k].clone(),
                &d["nist"],
            );
            cmp(format!("doc {} BLEU", k + 1), Ok(doc_bleu[k]), &d["bleu"]);
        }
    }
    checked
}

/// Compares a final report with an mteval system result.
fn check_system(id: &str, report: &Value, want: &Value, bad: &mut Vec<String>) {
    for (key, metric) in [("nist", "nist"), ("bleu", "mteval-bleu")] {
        let Some(w) = want[key].as_f64() else {
            continue;
        };
        match score(&report[metric]) {
            Some(g) if rel(g, w) <= TOLERANCE => {}
            g => bad.push(format!(
                "{id} {key}: {g:?} != {w} ({})",
                report[metric]["text"]
            )),
        }
    }
    let stats = &want["stats"];
    if want.get("bleu").is_some() {
        let b = &report["mteval-bleu"];
        let n4 = |v: &Value| -> Vec<u64> {
            v.as_array().unwrap()[..4]
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect()
        };
        if n4(&stats["match"]) != n4(&b["matches"]) || n4(&stats["tst"]) != n4(&b["totals"]) {
            bad.push(format!(
                "{id}: BLEU counts {} {}",
                b["matches"], b["totals"]
            ));
        }
        if want.get("ref_len").is_some() && want["ref_len"] != b["ref_len"] {
            bad.push(format!(
                "{id}: ref_len {} != {}",
                b["ref_len"], want["ref_len"]
            ));
        }
    }
    if want.get("nist").is_some() {
        // `-x "document info"` prints 4 decimals per document; the vectors sum those.
        let docs = want
            .get("docs")
            .and_then(Value::as_array)
            .map_or(1, Vec::len);
        let tolerance = 5.0001e-5 * docs.max(1) as f64;
        if let Some(info) = report["nist"]["info"].as_array() {
            let printed = stats["tst_info"].as_array().unwrap();
            for (n, (got, printed)) in info.iter().zip(printed).enumerate() {
                let (got, printed) = (got.as_f64().unwrap(), printed.as_f64().unwrap());
                if (got - printed).abs() > tolerance {
                    bad.push(format!(
                        "{id}: info sum of order {} {got} != {printed}",
                        n + 1
                    ));
                }
            }
        }
    }
}

#[test]
fn crafted() {
    let Some(shared) = shared_or_skip("conformance mteval crafted") else {
        return;
    };
    let (mut systems, mut dies, mut levels) = (0, 0, 0);
    let mut bad = Vec::new();
    for r in read_jsonl(&mteval_dir(&shared).join("mteval_crafted.jsonl")) {
        let id = r["id"].as_str().unwrap();
        let o = Options::from_flags(r["options"].as_array().unwrap());
        let names: Vec<&String> = {
            let mut v: Vec<&String> = r["refs"].as_object().unwrap().keys().collect();
            v.sort();
            v
        };
        let refs: Vec<Vec<String>> = names
            .iter()
            .map(|n| {
                r["refs"][n.as_str()]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l.as_str().unwrap().to_owned())
                    .collect()
            })
            .collect();
        for (system, lines) in r["hyp"].as_object().unwrap() {
            let hyps: Vec<String> = lines
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().to_owned())
                .collect();
            let out = Cmd::new()
                .args(["-m", "nist,mteval-bleu", "--input", "jsonl", "-f", "jsonl"])
                .args(o.args())
                .stdin(jsonl_input(&hyps, &refs))
                .run();
            let records = out
                .jsonl()
                .unwrap_or_else(|e| panic!("{e}: {}", out.describe()));
            let report = records.last().unwrap();
            if r["exit_code"] != 0 {
                // mteval died: the metric whose computation kills it reports an error.
                dies += 1;
                let stderr = r["stderr"].as_str().unwrap();
                let metric = if stderr.contains("log of 0") {
                    "mteval-bleu"
                } else {
                    "nist"
                };
                if report[metric]["error"].as_str().is_none() {
                    bad.push(format!(
                        "{id}: mteval dies ({stderr:?}) but {metric} scored"
                    ));
                }
                continue;
            }
            systems += 1;
            let want = &r["results"][system.as_str()];
            check_system(&format!("{id}/{system}"), report, want, &mut bad);
            // BLEU rows are mteval's segment BLEU.
            if let Some(seg_bleu) = want["segments"]["bleu"].as_array() {
                let rows: Vec<&Value> = records.iter().filter(|x| x["type"] == "segment").collect();
                for (k, (row, w)) in rows.iter().zip(seg_bleu).enumerate() {
                    let (g, w) = (score(&row["mteval-bleu"]), w.as_f64());
                    if let (Some(g), Some(w)) = (g, w) {
                        levels += 1;
                        if rel(g, w) > TOLERANCE {
                            bad.push(format!("{id}/{system} row {} BLEU {g} != {w}", k + 1));
                        }
                    }
                }
            }
            levels += check_levels(
                &format!("{id}/{system}"),
                o,
                &hyps,
                &refs,
                r["wrapper"]["docsize"].as_u64().unwrap_or(0) as usize,
                want.get("segments"),
                want.get("docs"),
                &mut bad,
            );
        }
    }
    print_counts(
        "crafted",
        &format!(
            "{systems} system results checked, {dies} runs where mteval dies checked, {levels} \
             segment/document scores checked"
        ),
        &bad,
    );
}

/// Reads the hypothesis and reference lines of a WMT22 record (escaped if its wrapper says so).
fn wmt_lines(shared: &Path, r: &Value) -> (Vec<String>, Vec<Vec<String>>) {
    let dir = wmt22_dir(shared);
    let esc = r["wrapper"]["escape"] == true;
    let read = |f: &Value| -> Vec<String> {
        let lines = read_lines_sacrebleu(&dir.join(f.as_str().unwrap()));
        if esc {
            lines.iter().map(|l| escape(l)).collect()
        } else {
            lines
        }
    };
    let refs = r["refs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| read(x.get("file").unwrap_or(x)))
        .collect();
    (read(&r["hyp"]), refs)
}

/// One binary run over a WMT22 record's files: parallel streams, or JSONL for escaped text.
fn run_wmt(shared: &Path, r: &Value, args: &[&str]) -> crate::util::Output {
    let dir = wmt22_dir(shared);
    let mut cmd = Cmd::new();
    cmd.args(args);
    if r["wrapper"]["escape"] == true {
        let (hyps, refs) = wmt_lines(shared, r);
        cmd.args(["--input", "jsonl"])
            .stdin(jsonl_input(&hyps, &refs));
    } else {
        for x in r["refs"].as_array().unwrap() {
            cmd.arg("-r")
                .arg(dir.join(x.get("file").unwrap_or(x).as_str().unwrap()));
        }
        cmd.arg(dir.join(r["hyp"].as_str().unwrap()));
    }
    cmd.run()
}

#[test]
fn wmt22_system() {
    let Some(shared) = shared_or_skip("conformance mteval wmt22 system") else {
        return;
    };
    let records = read_jsonl(&mteval_dir(&shared).join("mteval_wmt22_system.jsonl"));
    let results = par_map(&records, |r| {
        let o = Options::from_record(r);
        let mut args = vec![
            "-m",
            "nist,mteval-bleu",
            "--corpus-only",
            "-f",
            "jsonl",
            "-j",
            "1",
        ];
        args.extend(o.args());
        let out = run_wmt(&shared, r, &args);
        let mut bad = Vec::new();
        check_system(r["id"].as_str().unwrap(), &final_report(&out), r, &mut bad);
        bad
    });
    let bad: Vec<String> = results.into_iter().flatten().collect();
    print_counts(
        "wmt22 system",
        &format!(
            "{} system records checked (NIST, BLEU, counts)",
            records.len()
        ),
        &bad,
    );
}

#[test]
fn wmt22_segments() {
    let Some(shared) = shared_or_skip("conformance mteval wmt22 segments") else {
        return;
    };
    let records = read_jsonl(&mteval_dir(&shared).join("mteval_wmt22_segments.jsonl"));
    let systems = read_jsonl(&mteval_dir(&shared).join("mteval_wmt22_system.jsonl"));
    let results = par_map(&records, |r| {
        let id = r["id"].as_str().unwrap();
        let o = Options::from_record(r);
        let mut bad = Vec::new();
        // BLEU rows through the binary.
        let mut args = vec!["-m", "mteval-bleu", "-f", "jsonl"];
        args.extend(o.args());
        let out = run_wmt(&shared, r, &args);
        let rows: Vec<Value> = out
            .jsonl()
            .unwrap_or_else(|e| panic!("{e}: {}", out.describe()))
            .into_iter()
            .filter(|x| x["type"] == "segment")
            .collect();
        let want = r["segments"]["bleu"].as_array().unwrap();
        let mut checked = 0;
        if rows.len() != want.len() {
            bad.push(format!(
                "{id}: {} rows for {} segments",
                rows.len(),
                want.len()
            ));
        }
        for (k, (row, w)) in rows.iter().zip(want).enumerate() {
            checked += 1;
            match (score(&row["mteval-bleu"]), w.as_f64()) {
                (Some(g), Some(w)) if rel(g, w) <= TOLERANCE => {}
                (g, w) => bad.push(format!("{id} row {} BLEU {g:?} != {w:?}", k + 1)),
            }
        }
        // Segment NIST (and document scores of the docsize runs) through the library.
        let (hyps, refs) = wmt_lines(&shared, r);
        let docsize = r["wrapper"]["docsize"].as_u64().unwrap_or(0) as usize;
        let docs = systems
            .iter()
            .find(|s| s["id"] == r["id"])
            .and_then(|s| s.get("docs"));
        let segments = json!({"nist": r["segments"]["nist"]});
        checked += check_levels(
            id,
            o,
            &hyps,
            &refs,
            docsize,
            Some(&segments),
            docs,
            &mut bad,
        );
        (checked, bad)
    });
    let checked: usize = results.iter().map(|x| x.0).sum();
    let bad: Vec<String> = results.into_iter().flat_map(|x| x.1).collect();
    print_counts(
        "wmt22 segments",
        &format!(
            "{} records, {checked} segment/document scores checked (BLEU rows via the binary, \
             NIST via the library)",
            records.len()
        ),
        &bad,
    );
}

#[test]
fn cross_impl_nltk_nist() {
    let Some(shared) = shared_or_skip("conformance mteval cross_impl (NLTK NIST)") else {
        return;
    };
    let records: Vec<Value> = read_jsonl(&mteval_dir(&shared).join("cross_impl_wmt22.jsonl"))
        .into_iter()
        .filter(|r| r.get("nltk_corpus_nist_n5").is_some())
        .collect();
    let results = par_map(&records, |r| {
        let o = Options::from_flags(r["mteval_options"].as_array().unwrap());
        let mut args = vec![
            "-m",
            "nist",
            "--nist-compat",
            "nltk",
            "--corpus-only",
            "-f",
            "jsonl",
        ];
        args.extend(o.args());
        let rec = json!({"refs": r["refs"], "hyp": r["hyp"], "wrapper": {"escape": false}});
        let report = final_report(&run_wmt(&shared, &rec, &args));
        let want = r["nltk_corpus_nist_n5"].as_f64().unwrap();
        let mut bad = Vec::new();
        let got = score(&report["nist"]);
        if got.map(f64::to_bits) != Some(want.to_bits()) {
            bad.push(format!("{}: NLTK NIST {got:?} != {want}", r["id"]));
        }
        // mteval NIST without its "0" quirk: bleu-stream has no such mode, but with one
        // reference NLTK corpus_nist on mteval's tokens is that number (vector README: to
        // 1.8e-15). With two, NLTK picks one reference per sentence and order: not comparable.
        let single = r["refs"].as_array().unwrap().len() == 1;
        if let (true, Some(quirk_free)) =
            (single, r["mteval_nist_without_zero_prefix_quirk"].as_f64())
        {
            match got {
                Some(g) if rel(g, quirk_free) <= TOLERANCE => {}
                g => bad.push(format!(
                    "{}: quirk-free mteval NIST {g:?} != {quirk_free}",
                    r["id"]
                )),
            }
        }
        (single, bad)
    });
    let single = results.iter().filter(|x| x.0).count();
    let bad: Vec<String> = results.into_iter().flat_map(|x| x.1).collect();
    print_counts(
        "cross_impl NLTK corpus_nist on mteval tokens",
        &format!(
            "{} records checked bit for bit; quirk-free mteval NIST (= NLTK with one reference, \
             1e-12) {single} checked, {} two-reference records not comparable",
            records.len(),
            records.len() - single
        ),
        &bad,
    );
}

/// Streaming: every running report (`--every`) of `nist` (both compat modes), `mteval-bleu`,
/// `gleu` and `nltk-chrf` equals, bit for bit, a one-shot run over the lines read so far; and
/// the output does not depend on the number of threads.
#[test]
fn streaming_prefixes() {
    let Some(shared) = shared_or_skip("conformance mteval streaming") else {
        return;
    };
    let r = json!({
        "hyp": "system-outputs/generaltest2022.de-en.hyp.Online-B.en",
        "refs": ["references/generaltest2022.de-en.ref.A.en", "references/generaltest2022.de-en.ref.B.en"],
        "wrapper": {"escape": false},
    });
    let (hyps, refs) = wmt_lines(&shared, &r);
    let every = 400;
    let mut checked = 0;
    let mut bad = Vec::new();
    for compat in ["mteval", "nltk"] {
        let metrics = ["nist", "mteval-bleu", "gleu", "nltk-chrf"];
        let base = [
            "-m",
            "nist,mteval-bleu,gleu,nltk-chrf",
            "--nist-compat",
            compat,
            "--input",
            "jsonl",
            "--corpus-only",
            "-f",
            "jsonl",
        ];
        let input = jsonl_input(&hyps, &refs);
        let every_text = every.to_string();
        let run = |threads: &str| {
            Cmd::new()
                .args(base)
                .args(["--every", &every_text, "-j", threads])
                .stdin(input.clone())
                .run()
        };
        let (one, many) = (run("1"), run("3"));
        if one.stdout != many.stdout {
            bad.push(format!("{compat}: output differs between 1 and 3 threads"));
        }
        let reports = many
            .jsonl()
            .unwrap_or_else(|e| panic!("{e}: {}", many.describe()));
        let prefixes: Vec<usize> = (1..=hyps.len() / every)
            .map(|k| k * every)
            .chain([hyps.len()])
            .collect();
        let cases: Vec<(usize, &Value)> = prefixes.iter().copied().zip(&reports).collect();
        let results = par_map(&cases, |&(k, report)| {
            let out = Cmd::new()
                .args(base)
                .stdin(jsonl_input(
                    &hyps[..k],
                    &refs.iter().map(|r| r[..k].to_vec()).collect::<Vec<_>>(),
                ))
                .run();
            let whole = final_report(&out);
            let mut bad = Vec::new();
            if report["segments"] != k {
                bad.push(format!(
                    "{compat}: report after {} segments, expected {k}",
                    report["segments"]
                ));
            }
            for m in metrics {
                let (a, b) = (score(&report[m]), score(&whole[m]));
                if a.map(f64::to_bits) != b.map(f64::to_bits) {
                    bad.push(format!(
                        "{compat} {m} after {k} lines: running {a:?} != one-shot {b:?}"
                    ));
                }
            }
            bad
        });
        checked += cases.len();
        bad.extend(results.into_iter().flatten());
    }
    print_counts(
        "streaming prefixes",
        &format!("{checked} running reports × 4 metrics compared with one-shot runs"),
        &bad,
    );
}

/// Every field of `cross_impl_wmt22.jsonl` that bleu-stream can reproduce, on all 619 records:
/// one binary run per record (`-r` files, as mteval's verbatim SGML wrapping) with
/// `-m nist,mteval-bleu,bleu` (+ `multi-bleu --multi-bleu-detok` where the record has it), the
/// record's mteval options (which only the mteval metrics read) and the sacreBLEU tokenization
/// (which only `bleu` reads; `--lowercase` is used only for norm_lc records, which have no
/// multi-bleu field):
///
/// * `mteval` (all 619): `nist` and `mteval-bleu` within the vectors' relative tolerance (1e-12),
///   `hyp_len` and `ref_len` exactly;
/// * `sacrebleu_13a` (norm_cs), `sacrebleu_13a_lc` (norm_lc: `--lowercase`), `sacrebleu_intl`
///   (intl_cs: `-t intl`): `bleu` bit for bit, counts, totals and lengths exactly;
/// * `multi_bleu_detok` / `multi_bleu_detok_stdout` (norm_cs): the unrounded BLEU bit for bit
///   and the printed line byte for byte.
///
/// `nltk_corpus_nist_n5` and `mteval_nist_without_zero_prefix_quirk` are checked by
/// [`cross_impl_nltk_nist`].
#[test]
fn cross_impl_every_field() {
    let Some(shared) = shared_or_skip("conformance mteval cross_impl (every field)") else {
        return;
    };
    let records = read_jsonl(&mteval_dir(&shared).join("cross_impl_wmt22.jsonl"));
    let results = par_map(&records, |r| {
        let id = r["id"].as_str().unwrap();
        let rec = json!({"refs": r["refs"], "hyp": r["hyp"], "wrapper": {"escape": false}});
        let mut bad = Vec::new();
        let mut counts: Vec<&'static str> = vec!["mteval"];
        let sacrebleu: Vec<(&str, &[&str])> = [
            ("sacrebleu_13a", &["-t", "13a"][..]),
            ("sacrebleu_13a_lc", &["-t", "13a", "--lowercase"][..]),
            ("sacrebleu_intl", &["-t", "intl"][..]),
        ]
        .into_iter()
        .filter(|(field, _)| r.get(*field).is_some())
        .collect();
        assert!(sacrebleu.len() <= 1, "{id}: several sacreBLEU fields");
        let multi_bleu = r.get("multi_bleu_detok").is_some();
        assert!(
            !(multi_bleu && sacrebleu.iter().any(|(f, _)| *f == "sacrebleu_13a_lc")),
            "{id}: --lowercase would change multi-bleu"
        );
        let o = Options::from_flags(r["mteval_options"].as_array().unwrap());
        let metrics = if multi_bleu {
            "nist,mteval-bleu,bleu,multi-bleu"
        } else {
            "nist,mteval-bleu,bleu"
        };
        let mut args = vec!["-m", metrics, "--corpus-only", "-f", "jsonl", "-j", "1"];
        args.extend(o.args());
        if multi_bleu {
            args.push("--multi-bleu-detok");
        }
        if let Some((_, extra)) = sacrebleu.first() {
            args.extend(*extra);
        }
        let report = final_report(&run_wmt(&shared, &rec, &args));
        // mteval NIST and BLEU.
        let want = &r["mteval"];
        for (key, metric) in [("nist", "nist"), ("bleu", "mteval-bleu")] {
            let w = want[key].as_f64().unwrap();
            match score(&report[metric]) {
                Some(g) if rel(g, w) <= TOLERANCE => {}
                g => bad.push(format!("{id}: mteval {key} {g:?} != {w}")),
            }
        }
        for len in ["hyp_len", "ref_len"] {
            if report["mteval-bleu"][len] != want[len] {
                bad.push(format!(
                    "{id}: mteval {len} {} != {}",
                    report["mteval-bleu"][len], want[len]
                ));
            }
        }
        // sacreBLEU BLEU with the tokenization of the record's configuration.
        for (field, _) in sacrebleu {
            let (got, want) = (&report["bleu"], &r[field]);
            let (g, w) = (got["score"].as_f64(), want["score"].as_f64().unwrap());
            if g.map(f64::to_bits) != Some(w.to_bits()) {
                bad.push(format!("{id}: {field} score {g:?} != {w}"));
            }
            for key in ["sys_len", "ref_len", "counts", "totals"] {
                if got[key] != want[key] {
                    bad.push(format!("{id}: {field} {key} {} != {}", got[key], want[key]));
                }
            }
            counts.push(field);
        }
        // multi-bleu-detok.perl.
        if multi_bleu {
            let got = &report["multi-bleu"];
            let w = r["multi_bleu_detok"].as_f64().unwrap();
            if got["bleu"].as_f64().map(f64::to_bits) != Some(w.to_bits()) {
                bad.push(format!("{id}: multi_bleu_detok {} != {w}", got["bleu"]));
            }
            if got["text"] != r["multi_bleu_detok_stdout"] {
                bad.push(format!(
                    "{id}: multi-bleu-detok line {} != {}",
                    got["text"], r["multi_bleu_detok_stdout"]
                ));
            }
            counts.push("multi_bleu_detok");
        }
        (counts, bad)
    });
    let mut tally: std::collections::BTreeMap<&str, usize> = Default::default();
    for (c, _) in &results {
        for k in c {
            *tally.entry(k).or_default() += 1;
        }
    }
    let n = |k: &str| tally.get(k).copied().unwrap_or(0);
    let bad: Vec<String> = results.into_iter().flat_map(|x| x.1).collect();
    print_counts(
        "cross_impl every field",
        &format!(
            "{} records: mteval NIST/BLEU {} (1e-12, lengths exact), sacreBLEU 13a {} + 13a \
             lowercase {} + intl {} (bit for bit, counts exact), multi-bleu-detok {} (BLEU bits, \
             line exact)",
            records.len(),
            n("mteval"),
            n("sacrebleu_13a"),
            n("sacrebleu_13a_lc"),
            n("sacrebleu_intl"),
            n("multi_bleu_detok"),
        ),
        &bad,
    );
}
