//! Conformance of `--metrics multi-bleu` with Moses `multi-bleu.perl` and
//! `multi-bleu-detok.perl` on `../shared/vectors/mteval/multibleu_*.jsonl`: the printed line
//! (byte for byte), the per-order counts, the lengths and the unrounded BLEU (by its bits).
//!
//! The WMT22 records run the binary on the very files the scripts read (`-r REF… HYP`). The
//! crafted records carry whole-file texts: the harness cuts them into lines the way each script
//! reads a file (`chomp`, or `chop` for the detok script, whose last line loses its last
//! character when the file lacks a final newline) and feeds those lines as JSONL. Hypothesis
//! lines that no reference file has (the script's 9999 rule) cannot be framed as bleu-stream
//! input, which always pairs a hypothesis with its references; those records use the library.

use serde_json::{json, Value};

use bleu_stream::metric::multi_bleu::{MultiBleu, MultiBleuConfig, MultiBleuWorkspace, Script};
use bleu_stream::metric::Metric;

use crate::util::{eprint_whole, par_map, read_jsonl, shared_or_skip, wmt22_dir, Cmd, Mismatches};

fn config(rec: &Value) -> MultiBleuConfig {
    MultiBleuConfig {
        script: if rec["script"] == "multi-bleu-detok.perl" {
            Script::Detok
        } else {
            Script::MultiBleu
        },
        lowercase: rec["options"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o == "-lc"),
    }
}

fn args(rec: &Value) -> Vec<String> {
    let c = config(rec);
    let mut args = vec!["-m".to_owned(), "multi-bleu".to_owned()];
    if c.script == Script::Detok {
        args.push("--multi-bleu-detok".to_owned());
    }
    if c.lowercase {
        args.push("--lowercase".to_owned());
    }
    args.extend(["--corpus-only", "-f", "jsonl"].map(str::to_owned));
    args
}

/// Compares a `multi-bleu` report object with a record.
fn check(rec: &Value, got: &Value) -> Result<(), String> {
    let exit = rec["exit_code"].as_i64().unwrap();
    if exit == 255 {
        // Perl died with "Illegal division by zero": bleu-stream reports an error instead.
        return match got.get("error").and_then(Value::as_str) {
            Some(m) if m.contains("division by zero") => Ok(()),
            _ => Err(format!("want the division-by-zero error, got {got}")),
        };
    }
    if got["text"] != rec["stdout"] {
        return Err(format!("line: want {} got {}", rec["stdout"], got["text"]));
    }
    if let Some(full) = rec.get("full") {
        let zero_null = |v: &Value| -> Value {
            Value::from(
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap_or(0))
                    .collect::<Vec<_>>(),
            )
        };
        if got["counts"] != zero_null(&full["correct"])
            || got["totals"] != zero_null(&full["total"])
        {
            return Err(format!(
                "counts: want {}/{} got {}/{}",
                full["correct"], full["total"], got["counts"], got["totals"]
            ));
        }
        if got["hyp_len"] != full["hyp_len"] || got["ref_len"] != full["ref_len"] {
            return Err("lengths differ".to_owned());
        }
        let bits = |v: &Value| v.as_f64().map(f64::to_bits);
        if bits(&got["bleu"]) != bits(&full["bleu"]) || bits(&got["bp"]) != bits(&full["bp"]) {
            return Err(format!(
                "bleu/bp: want {} {} got {} {}",
                full["bleu"], full["bp"], got["bleu"], got["bp"]
            ));
        }
    }
    Ok(())
}

fn final_report(out: &crate::util::Output) -> Result<Value, String> {
    if !out.success() {
        return Err(out.describe());
    }
    out.jsonl()?
        .into_iter()
        .find(|r| r["type"] == "corpus" && r["final"] == true)
        .map(|r| r["multi-bleu"].clone())
        .ok_or_else(|| "no final corpus record".to_owned())
}

#[test]
fn multibleu_wmt22() {
    let Some(shared) = shared_or_skip("conformance multi-bleu wmt22") else {
        return;
    };
    let recs = read_jsonl(&shared.join("vectors/mteval/multibleu_wmt22.jsonl"));
    let data = wmt22_dir(&shared);
    let results = par_map(&recs, |rec| {
        let mut cmd = Cmd::new();
        cmd.args(args(rec));
        for r in rec["refs"].as_array().unwrap() {
            cmd.arg("-r").arg(data.join(r.as_str().unwrap()));
        }
        cmd.arg(data.join(rec["hyp"].as_str().unwrap()));
        final_report(&cmd.run())
            .and_then(|got| check(rec, &got))
            .map_err(|e| format!("{}: {e}", rec["id"]))
    });
    let mut mismatches = Mismatches::new();
    mismatches.extend(results.into_iter().filter_map(Result::err).collect());
    eprint_whole(&format!(
        "conformance multi-bleu wmt22: {} checked (binary, -r files)\n",
        recs.len()
    ));
    mismatches.finish("conformance multi-bleu wmt22");
}

/// The lines a script reads from a file: `chomp` (multi-bleu.perl) drops the `\n`; `chop`
/// (multi-bleu-detok.perl) drops the last character of every line, whatever it is.
fn perl_lines(text: &str, chop: bool) -> Vec<String> {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    for line in &mut lines {
        // chop: always one character; chomp: only a newline.
        if chop || line.ends_with('\n') {
            line.pop();
        }
    }
    lines
}

#[test]
fn multibleu_crafted() {
    let Some(shared) = shared_or_skip("conformance multi-bleu crafted") else {
        return;
    };
    let recs = read_jsonl(&shared.join("vectors/mteval/multibleu_crafted.jsonl"));
    let mut library = 0;
    let mut mismatches = Mismatches::new();
    let results = par_map(&recs, |rec| {
        let chop = config(rec).script == Script::Detok;
        let hyps = perl_lines(rec["hyp_text"].as_str().unwrap(), chop);
        let refs: Vec<Vec<String>> = rec["ref_texts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| perl_lines(t.as_str().unwrap(), chop))
            .collect();
        let segments: Vec<(String, Vec<String>)> = hyps
            .iter()
            .enumerate()
            .map(|(s, h)| {
                let r = refs.iter().filter_map(|r| r.get(s).cloned()).collect();
                (h.clone(), r)
            })
            .collect();
        let id = rec["id"].as_str().unwrap();
        if segments.iter().any(|(_, r)| r.is_empty()) {
            // The 9999 rule: library statistics, then the same report.
            let m = MultiBleu::new(config(rec));
            let mut ws = MultiBleuWorkspace::default();
            let mut totals = m.new_totals();
            for (h, r) in &segments {
                let r: Vec<&str> = r.iter().map(String::as_str).collect();
                m.add(&mut totals, &m.stats(h, &r, &mut ws));
            }
            let report = bleu_stream::output::jsonl::score_object(&m.score(&totals), 2);
            return (
                true,
                check(rec, &Value::Object(report)).map_err(|e| format!("{id}: {e}")),
            );
        }
        let input: String = segments
            .iter()
            .map(|(h, r)| json!({ "hyp": h, "refs": r }).to_string() + "\n")
            .collect();
        let out = Cmd::new()
            .args(args(rec))
            .args(["--input", "jsonl"])
            .stdin(input)
            .run();
        (
            false,
            final_report(&out)
                .and_then(|got| check(rec, &got))
                .map_err(|e| format!("{id}: {e}")),
        )
    });
    for (lib, r) in results {
        library += usize::from(lib);
        if let Err(e) = r {
            mismatches.extend(vec![e]);
        }
    }
    eprint_whole(&format!(
        "conformance multi-bleu crafted: {} checked ({} through the binary, {library} through the library)\n",
        recs.len(),
        recs.len() - library
    ));
    mismatches.finish("conformance multi-bleu crafted");
}
