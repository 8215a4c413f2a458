//! Conformance of the bleu-stream command line with the `sacrebleu` 2.6.0 command line, on the
//! 37 recorded invocations of `../shared/vectors/sacrebleu/cli/cli_outputs.jsonl` (argv, stdin,
//! exit status and exact stdout of each, run in `cli/inputs/` with `NO_COLOR=1`).
//!
//! Each sacreBLEU argv is mapped to the bleu-stream options that express it — reference files
//! become `-r FILE`, the one `-i` system the input file (or standard input when sacreBLEU read
//! it), `--num-refs N` with a TSV reference file becomes TSV input `hyp<TAB>ref1<TAB>…`
//! (`paste sys refs.tsv`), `-w` keeps sacreBLEU's default of 1, `-tok`/`-lc`/`-s`/`-sv`/`--chrf-*`
//! map one to one, `-l xx-zh` is sacreBLEU's default tokenizer for Chinese (`-t zh`),
//! `--confidence` is `--confidence`, and `--paired-bs`/`--paired-ar` with several `-i` systems is
//! `bleu-stream compare` — and bleu-stream's output is compared with sacreBLEU's:
//!
//! * `-b`: stdout byte for byte; with `-sl`, the rows (one score per line) byte for byte;
//! * text (`-f text`): per metric, the name, the signature, the score string and the verbose part
//!   (`67.5/41.7/… (BP = … ratio = … hyp_len = … ref_len = …)`) of sacreBLEU's
//!   `NAME|SIGNATURE = SCORE VERBOSE` line against bleu-stream's `--corpus-only` text report
//!   (`NAME = SCORE VERBOSE` and `# NAME signature: SIGNATURE`), exactly; sacreBLEU's alignment
//!   of several metrics' lines on ` = ` (leading spaces) is presentation and is not compared;
//! * JSON (sacreBLEU's default): `name`, `score`, `signature`, `verbose_score` and the signature
//!   fields (`nrefs`, `case`, …) against bleu-stream's `-f jsonl --corpus-only` record (the
//!   name, score string and verbose part of its `text`, its `signature`), exactly;
//! * `-sl` text rows: each line's score string exactly, and for BLEU its verbose part against
//!   the JSONL row's precisions, brevity penalty and lengths printed the way sacreBLEU prints
//!   them; bleu-stream's rows carry no per-line signature, so sacreBLEU's is not compared;
//! * bootstrap means and half-widths (`--confidence`, `--paired-bs`) and p-values: the random
//!   numbers differ (NumPy's against ours), so they are compared within the resampling error of
//!   two independent runs — the tolerances of `tests/compare.rs` — plus the rounding of the
//!   printed digits; corpus scores exactly (bit for bit where sacreBLEU prints full precision).
//!
//! Records bleu-stream cannot express are counted as skipped with the reason (several systems
//! in one run without a paired test; --short signatures are compared without the signature).
//! TER (`-m ter`, `--ter-*`) is compared like the others. Prints
//! `conformance sacrebleu cli: N checked, M skipped (reasons), K mismatches`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{
    eprint_whole, read_jsonl, sacrebleu_vectors, same_bits, shared_or_skip, split_lines_sacrebleu,
    Cmd, Output,
};

// ---------------------------------------------------------------------------------------------
// sacreBLEU's command line
// ---------------------------------------------------------------------------------------------

/// A parsed `sacrebleu` argv (the options the vectors use).
#[derive(Debug, Default)]
struct SacreArgs {
    refs: Vec<String>,
    inputs: Vec<String>,
    format: Option<String>,
    score_only: bool,
    width: Option<String>,
    short: bool,
    lowercase: bool,
    tokenize: Option<String>,
    smooth_method: Option<String>,
    smooth_value: Option<String>,
    num_refs: Option<usize>,
    metrics: Vec<String>,
    chrf: Vec<String>,
    chrf_lowercase: bool,
    /// The `--ter-*` options, in the main command's spelling.
    ter: Vec<String>,
    sentence: bool,
    confidence: bool,
    confidence_n: Option<String>,
    paired: Option<&'static str>,
    paired_n: Option<String>,
    langpair: Option<String>,
}

impl SacreArgs {
    /// Parses argv (without `sacrebleu`); an option the mapping does not know is an error.
    fn parse(argv: &[String]) -> Result<SacreArgs, String> {
        let mut a = SacreArgs::default();
        let mut i = 0;
        let value = |i: &mut usize| -> Result<String, String> {
            *i += 1;
            argv.get(*i)
                .cloned()
                .ok_or_else(|| format!("{} needs a value", argv[*i - 1]))
        };
        // nargs='+' / '*': every following argument that is not an option.
        let values = |i: &mut usize| -> Vec<String> {
            let mut v = Vec::new();
            while argv.get(*i + 1).is_some_and(|x| !x.starts_with('-')) {
                *i += 1;
                v.push(argv[*i].clone());
            }
            v
        };
        while i < argv.len() {
            let arg = argv[i].as_str();
            match arg {
                "-i" | "--input" => a.inputs = values(&mut i),
                "-m" | "--metrics" => a.metrics = values(&mut i),
                "-f" | "--format" => a.format = Some(value(&mut i)?),
                "-b" | "--score-only" => a.score_only = true,
                "-w" | "--width" => a.width = Some(value(&mut i)?),
                "--short" => a.short = true,
                "-lc" | "--lowercase" => a.lowercase = true,
                "-tok" | "--tokenize" => a.tokenize = Some(value(&mut i)?),
                "-s" | "--smooth-method" => a.smooth_method = Some(value(&mut i)?),
                "-sv" | "--smooth-value" => a.smooth_value = Some(value(&mut i)?),
                "--num-refs" | "-nr" => {
                    let n = value(&mut i)?;
                    a.num_refs = Some(n.parse().map_err(|_| format!("--num-refs {n}"))?);
                }
                "--chrf-word-order" | "--chrf-char-order" | "--chrf-beta" => {
                    let v = value(&mut i)?;
                    a.chrf.extend([arg.to_owned(), v]);
                }
                "--chrf-whitespace" | "--chrf-eps-smoothing" => a.chrf.push(arg.to_owned()),
                "--chrf-lowercase" => a.chrf_lowercase = true,
                "--ter-case-sensitive" | "--ter-normalized" | "--ter-no-punct" => {
                    a.ter.push(arg.to_owned())
                }
                "--ter-support-asian-characters" => a.ter.push("--ter-asian-support".into()),
                "-sl" | "--sentence-level" => a.sentence = true,
                "--confidence" => a.confidence = true,
                "--confidence-n" => a.confidence_n = Some(value(&mut i)?),
                "--paired-bs" => a.paired = Some("--paired-bs"),
                "--paired-ar" => a.paired = Some("--paired-ar"),
                "--paired-bs-n" | "--paired-ar-n" => a.paired_n = Some(value(&mut i)?),
                "-l" | "--language-pair" => a.langpair = Some(value(&mut i)?),
                _ if !arg.starts_with('-') => a.refs.push(arg.to_owned()),
                _ => return Err(format!("option {arg} not mapped")),
            }
            i += 1;
        }
        if a.metrics.is_empty() {
            a.metrics.push("bleu".into());
        }
        Ok(a)
    }

    fn width(&self) -> usize {
        self.width.as_deref().map_or(1, |w| w.parse().unwrap())
    }
}

// ---------------------------------------------------------------------------------------------
// Score lines
// ---------------------------------------------------------------------------------------------

/// One metric's corpus score as printed: `NAME|SIGNATURE = SCORE (μ = M ± C) VERBOSE`.
#[derive(Debug, Default, Clone, PartialEq)]
struct Entry {
    name: String,
    signature: String,
    score: String,
    /// `(μ, ±)` as printed.
    confidence: Option<(String, String)>,
    verbose: Option<String>,
}

/// Splits `SCORE (μ = M ± C) VERBOSE` (the part after ` = `).
fn split_rest(rest: &str) -> (String, Option<(String, String)>, Option<String>) {
    let (score, mut tail) = rest.split_once(' ').unwrap_or((rest, ""));
    let mut confidence = None;
    if let Some(t) = tail.strip_prefix("(\u{3bc} = ") {
        let (inside, after) = t.split_once(')').unwrap_or((t, ""));
        let (m, c) = inside.split_once(" \u{b1} ").unwrap_or((inside, ""));
        confidence = Some((m.to_owned(), c.to_owned()));
        tail = after.trim_start();
    }
    let verbose = (!tail.is_empty()).then(|| tail.to_owned());
    (score.to_owned(), confidence, verbose)
}

/// sacreBLEU's text line `NAME|SIGNATURE = …` (leading alignment removed).
fn parse_sacre_line(line: &str) -> Option<Entry> {
    let (left, rest) = line.trim_start().split_once(" = ")?;
    let (name, signature) = left.split_once('|').unwrap_or((left, ""));
    Some(entry(name, signature, rest))
}

/// bleu-stream's `NAME = …` text (a report line or a JSON `text`).
fn parse_ours(text: &str, signature: &str) -> Option<Entry> {
    let (name, rest) = text.split_once(" = ")?;
    Some(entry(name, signature, rest))
}

/// An entry from its name, signature and the text after ` = `.
fn entry(name: &str, signature: &str, rest: &str) -> Entry {
    let (score, confidence, verbose) = split_rest(rest);
    Entry {
        name: name.to_owned(),
        signature: signature.to_owned(),
        score,
        confidence,
        verbose,
    }
}

/// The metrics of bleu-stream's `--corpus-only` text report: `NAME = …` lines, each followed by
/// `# NAME signature: …`.
fn parse_text_report(stdout: &str) -> Result<Vec<Entry>, String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with('#') {
            i += 1;
            continue;
        }
        let (name, _) = line
            .split_once(" = ")
            .ok_or_else(|| format!("not a score line: {line:?}"))?;
        let signature = lines
            .get(i + 1)
            .and_then(|l| l.strip_prefix(&format!("# {name} signature: ")))
            .ok_or_else(|| format!("no signature line after {line:?}"))?;
        out.push(parse_ours(line, signature).unwrap());
        i += 2;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Tolerances of resampled numbers (the derivation is in tests/compare.rs, `Tolerance`)
// ---------------------------------------------------------------------------------------------

/// p-values of two independent runs of `n` draws each.
fn tolerance_p(p1: f64, p2: f64, n: usize) -> f64 {
    let p = 0.5 * (p1 + p2);
    4.0 * (p * (1.0 - p) / n as f64).sqrt() + 2.0 / (n + 1) as f64
}

/// Bootstrap means of two independent runs of `n` resamples.
fn tolerance_mean(ci: f64, n: usize) -> f64 {
    4.0 * std::f64::consts::SQRT_2 * (ci / 1.96) / (n as f64).sqrt()
}

/// Bootstrap half-widths: relative to the half-width.
fn tolerance_ci_relative(n: usize) -> f64 {
    let (q, z) = (0.025f64, 1.959_963_984_540_054f64);
    let density = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let quantile_se = (q * (1.0 - q) / n as f64).sqrt() / density;
    let ci_se = std::f64::consts::FRAC_1_SQRT_2 * quantile_se;
    4.0 * std::f64::consts::SQRT_2 * ci_se / z
}

/// Half a unit of the last printed digit, for each side that was rounded.
fn rounding(width: usize, sides: usize) -> f64 {
    sides as f64 * 0.5 * 10f64.powi(-(width as i32))
}

// ---------------------------------------------------------------------------------------------
// One record
// ---------------------------------------------------------------------------------------------

/// What happened to one record.
enum Outcome {
    /// Compared; `notes` name the parts that were not (e.g. a `--short` signature).
    Checked {
        notes: Vec<String>,
        tolerant: usize,
        mismatches: Vec<String>,
    },
    Skipped(String),
}

struct Ctx<'a> {
    dir: &'a Path,
    record: &'a Value,
    args: SacreArgs,
    width: usize,
    notes: Vec<String>,
    tolerant: usize,
    mismatches: Vec<String>,
}

impl Ctx<'_> {
    fn bad(&mut self, what: String) {
        self.mismatches.push(what);
    }

    /// True (and a mismatch) when the numbers of `what` (metrics, systems) differ.
    fn counts_differ(&mut self, what: &str, ours: usize, theirs: usize) -> bool {
        if ours != theirs {
            self.bad(format!("{ours} {what}, sacreBLEU {theirs}"));
        }
        ours != theirs
    }

    fn eq(&mut self, what: &str, ours: &str, theirs: &str) {
        if ours != theirs {
            self.bad(format!("{what}: ours {ours:?}, sacreBLEU {theirs:?}"));
        }
    }

    fn within(&mut self, what: &str, ours: f64, theirs: f64, tol: f64) {
        self.tolerant += 1;
        let ok = (ours - theirs).abs() <= tol;
        if !ok {
            self.bad(format!(
                "{what}: ours {ours}, sacreBLEU {theirs}, |Δ| {} > {tol}",
                (ours - theirs).abs()
            ));
        }
    }

    /// A bootstrap estimate (mean, 95 % half-width) of `n` resamples against sacreBLEU's, within
    /// the sampling tolerances plus `r` for printed rounding.
    fn bootstrap_within(
        &mut self,
        what: &str,
        (ours_mean, ours_ci): (f64, f64),
        (their_mean, their_ci): (f64, f64),
        n: usize,
        r: f64,
    ) {
        self.within(
            &format!("{what} bootstrap mean"),
            ours_mean,
            their_mean,
            tolerance_mean(their_ci, n) + r,
        );
        self.within(
            &format!("{what} bootstrap half-width"),
            ours_ci,
            their_ci,
            tolerance_ci_relative(n) * their_ci + r,
        );
    }

    fn stdout(&self) -> &str {
        self.record["stdout"].as_str().unwrap()
    }

    /// The bleu-stream metric list (`bleu,chrf,ter`) of the sacreBLEU metrics.
    fn metric_list(&self) -> String {
        self.args.metrics.join(",")
    }

    /// Metric options shared by the main command and `compare`.
    fn metric_options(&self) -> Vec<String> {
        let a = &self.args;
        let mut o = vec![
            "-m".to_owned(),
            self.metric_list(),
            "-w".into(),
            self.width.to_string(),
        ];
        if let Some(t) = &a.tokenize {
            o.extend(["-t".into(), t.clone()]);
        } else if let Some(pair) = &a.langpair {
            // sacreBLEU's default tokenizer for the target language (13a unless zh/ja/ko).
            if pair.ends_with("-zh") {
                o.extend(["-t".into(), "zh".into()]);
            }
        }
        if a.lowercase || a.chrf_lowercase {
            o.push("--lowercase".into());
        }
        if let Some(s) = &a.smooth_method {
            o.extend(["-s".into(), s.clone()]);
        }
        if let Some(v) = &a.smooth_value {
            o.extend(["--smooth-value".into(), v.clone()]);
        }
        o.extend(a.chrf.iter().cloned());
        o.extend(a.ter.iter().cloned());
        o
    }

    /// The main command with the inputs mapped: reference files or TSV on stdin.
    fn command(&self) -> Cmd {
        let a = &self.args;
        let mut cmd = Cmd::new();
        cmd.current_dir(self.dir).args(self.metric_options());
        if a.confidence {
            cmd.arg("--confidence");
            if let Some(n) = &a.confidence_n {
                cmd.args(["--confidence-n", n]);
            }
        }
        let hyp_lines = || -> Vec<String> {
            match (
                a.inputs.first().map(String::as_str),
                self.record["stdin_file"].as_str(),
            ) {
                (Some(f), _) | (None, Some(f)) => {
                    let text = std::fs::read_to_string(self.dir.join(f)).unwrap();
                    split_lines_sacrebleu(&text)
                }
                (None, None) => Vec::new(),
            }
        };
        if a.num_refs.is_some() {
            // `paste sys refs.tsv`: TSV framing, one field per reference.
            let refs =
                split_lines_sacrebleu(&std::fs::read_to_string(self.dir.join(&a.refs[0])).unwrap());
            let tsv: String = hyp_lines()
                .iter()
                .zip(&refs)
                .map(|(h, r)| format!("{h}\t{r}\n"))
                .collect();
            cmd.stdin(tsv);
            return cmd;
        }
        for r in &a.refs {
            cmd.args(["-r", r]);
        }
        match (a.inputs.first(), self.record["stdin_file"].as_str()) {
            (Some(f), _) => {
                cmd.arg(f);
            }
            (None, Some(f)) => {
                cmd.stdin(std::fs::read(self.dir.join(f)).unwrap());
            }
            (None, None) => {}
        }
        cmd
    }

    fn run(&mut self, cmd: &Cmd) -> Option<Output> {
        let out = cmd.run();
        if out.success() {
            Some(out)
        } else {
            self.bad(format!("bleu-stream failed: {}", out.describe()));
            None
        }
    }

    /// Compares two corpus entries: exact fields, and confidence numbers within tolerance.
    fn compare_entry(&mut self, ours: &Entry, theirs: &Entry, rounded_sides: usize) {
        let name = theirs.name.clone();
        self.eq(&format!("{name} name"), &ours.name, &theirs.name);
        if self.args.short {
            if !self.notes.iter().any(|n| n.contains("--short")) {
                self.notes
                    .push("signature not compared (--short abbreviations)".into());
            }
        } else {
            self.eq(
                &format!("{name} signature"),
                &ours.signature,
                &theirs.signature,
            );
        }
        self.eq(&format!("{name} score"), &ours.score, &theirs.score);
        self.eq(
            &format!("{name} verbose"),
            ours.verbose.as_deref().unwrap_or(""),
            theirs.verbose.as_deref().unwrap_or(""),
        );
        match (&ours.confidence, &theirs.confidence) {
            (None, None) => {}
            (Some((om, oc)), Some((tm, tc))) => {
                let n: usize = self
                    .args
                    .confidence_n
                    .as_deref()
                    .map_or(1000, |n| n.parse().unwrap());
                let (om, oc): (f64, f64) = (om.parse().unwrap(), oc.parse().unwrap());
                let (tm, tc): (f64, f64) = (tm.parse().unwrap(), tc.parse().unwrap());
                let r = rounding(self.width, rounded_sides);
                self.bootstrap_within(&name, (om, oc), (tm, tc), n, r);
            }
            (o, t) => self.bad(format!("{name} confidence: ours {o:?}, sacreBLEU {t:?}")),
        }
    }

    fn corpus_text(&mut self) {
        let theirs: Vec<Entry> = self
            .stdout()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| parse_sacre_line(l).unwrap_or_else(|| panic!("sacreBLEU line {l:?}")))
            .collect();
        let mut cmd = self.command();
        cmd.arg("--corpus-only");
        let Some(out) = self.run(&cmd) else { return };
        let ours = match parse_text_report(&out.stdout_str()) {
            Ok(e) => e,
            Err(e) => return self.bad(format!("bleu-stream's report: {e}")),
        };
        if self.counts_differ("metrics", ours.len(), theirs.len()) {
            return;
        }
        for (o, t) in ours.iter().zip(&theirs) {
            self.compare_entry(o, t, 2);
        }
    }

    fn corpus_json(&mut self) {
        let parsed: Value = serde_json::from_str(self.stdout()).expect("sacreBLEU's JSON");
        let objects = match parsed {
            Value::Array(list) => list,
            v => vec![v],
        };
        let objects: Vec<&Value> = objects.iter().collect();
        let mut cmd = self.command();
        cmd.args(["--corpus-only", "-f", "jsonl"]);
        let Some(out) = self.run(&cmd) else { return };
        let record = match out.jsonl() {
            Ok(mut r) => r.pop().unwrap(),
            Err(e) => return self.bad(e),
        };
        let keys: Vec<String> = self.metric_list().split(',').map(str::to_owned).collect();
        if self.counts_differ("metrics", keys.len(), objects.len()) {
            return;
        }
        for (key, t) in keys.iter().zip(objects) {
            let m = &record[key.as_str()];
            let Some(ours) = parse_ours(
                m["text"].as_str().unwrap_or(""),
                m["signature"].as_str().unwrap_or(""),
            ) else {
                self.bad(format!("{key}: no text in {m}"));
                continue;
            };
            let name = t["name"].as_str().unwrap().to_owned();
            // sacreBLEU's JSON score is float(f"{score:.{width}f}"): the printed string as a
            // number. Ours is the printed string of our text.
            match ours.score.parse::<f64>() {
                Ok(x) if t["score"].as_f64().is_some_and(|y| same_bits(x, y)) => {}
                _ => self.bad(format!(
                    "{name} score: ours {:?}, sacreBLEU {}",
                    ours.score, t["score"]
                )),
            }
            let theirs = Entry {
                name: name.clone(),
                signature: t["signature"].as_str().unwrap().to_owned(),
                score: ours.score.clone(),
                confidence: t
                    .get("confidence_mean")
                    .map(|m| (m.to_string(), t["confidence_var"].to_string())),
                verbose: t["verbose_score"].as_str().map(str::to_owned),
            };
            self.compare_entry(&ours, &theirs, 2);
            // The signature's fields, as sacreBLEU's JSON repeats them.
            let fields: BTreeMap<&str, &str> = ours
                .signature
                .split('|')
                .filter_map(|f| f.split_once(':'))
                .collect();
            for (k, v) in t.as_object().unwrap() {
                if matches!(
                    k.as_str(),
                    "name"
                        | "score"
                        | "signature"
                        | "verbose_score"
                        | "confidence"
                        | "confidence_mean"
                        | "confidence_var"
                ) {
                    continue;
                }
                let ours = fields.get(k.as_str()).copied().unwrap_or("<absent>");
                self.eq(&format!("{name} field {k}"), ours, v.as_str().unwrap_or(""));
            }
        }
    }

    fn score_only(&mut self) {
        let mut cmd = self.command();
        cmd.arg("-b");
        let Some(out) = self.run(&cmd) else { return };
        let theirs = self.stdout().to_owned();
        self.eq("-b stdout", &out.stdout_str(), &theirs);
    }

    fn sentence(&mut self) {
        if self.metric_list().contains(',') {
            self.notes
                .push("several metrics at sentence level: not checked".into());
            return;
        }
        let cmd = self.command();
        let Some(out) = self.run(&cmd) else { return };
        let rows = out.stdout_str();
        if self.args.score_only {
            let theirs = self.stdout().to_owned();
            return self.eq("-sl -b stdout", &rows, &theirs);
        }
        let theirs: Vec<Entry> = self
            .stdout()
            .lines()
            .map(|l| parse_sacre_line(l).unwrap_or_else(|| panic!("sacreBLEU line {l:?}")))
            .collect();
        let rows: Vec<&str> = rows.lines().collect();
        if rows.len() != theirs.len() {
            return self.bad(format!(
                "{} rows, sacreBLEU {} lines",
                rows.len(),
                theirs.len()
            ));
        }
        // BLEU's verbose part from the JSONL rows' statistics.
        let verbose: Vec<Option<String>> = if self.metric_list() == "bleu" {
            let mut cmd = self.command();
            cmd.args(["-f", "jsonl"]);
            let Some(out) = self.run(&cmd) else { return };
            out.jsonl()
                .unwrap()
                .iter()
                .filter(|r| r["type"] == "segment")
                .map(|r| Some(sacrebleu_verbose(&r["bleu"])))
                .collect()
        } else {
            vec![None; rows.len()]
        };
        self.notes
            .push("rows: no per-line signature to compare".into());
        for (k, ((row, t), v)) in rows.iter().zip(&theirs).zip(&verbose).enumerate() {
            self.eq(&format!("line {} score", k + 1), row, &t.score);
            self.eq(
                &format!("line {} verbose", k + 1),
                v.as_deref().unwrap_or(""),
                t.verbose.as_deref().unwrap_or(""),
            );
        }
    }

    /// `--paired-bs` / `--paired-ar` through `bleu-stream compare`.
    fn paired(&mut self, test: &'static str) {
        let a = &self.args;
        let mut cmd = Cmd::new();
        cmd.current_dir(self.dir).arg("compare").arg(test);
        cmd.args(self.metric_options());
        for r in &a.refs {
            cmd.args(["-r", r]);
        }
        cmd.arg("-i").args(&a.inputs).args(["-f", "jsonl"]);
        if let Some(n) = &a.paired_n {
            cmd.args([format!("{test}-n"), n.clone()]);
        }
        let Some(out) = self.run(&cmd) else { return };
        let records = out.jsonl().unwrap();
        let header = &records[0];
        let n = header["samples"].as_u64().unwrap() as usize;
        let systems = &records[1..];
        let keys: Vec<String> = self.metric_list().split(',').map(str::to_owned).collect();
        let json = self.args.format.as_deref().unwrap_or("json") == "json";
        let w = self.width;
        if json {
            let theirs: Vec<Value> = serde_json::from_str(self.stdout()).unwrap();
            if self.counts_differ("systems", systems.len(), theirs.len()) {
                return;
            }
            for (o, t) in systems.iter().zip(&theirs) {
                let sys = o["system"].as_str().unwrap();
                let label = if o["baseline"] == true {
                    format!("Baseline: {sys}")
                } else {
                    sys.to_owned()
                };
                self.eq("system", &label, t["system"].as_str().unwrap());
                for key in &keys {
                    let name = header["metrics"][key]["name"].as_str().unwrap().to_owned();
                    let (o, t) = (&o[key.as_str()], &t[name.as_str()]);
                    match (o["score"].as_f64(), t["score"].as_f64()) {
                        (Some(x), Some(y)) if same_bits(x, y) => {}
                        (x, y) => {
                            self.bad(format!("{label} {name} score: ours {x:?}, sacreBLEU {y:?}"))
                        }
                    }
                    self.paired_numbers(&label, &name, o, t, n, 0.0);
                }
            }
            return;
        }
        // The text table: a row per system (`│ name │ cell │ …`), p-values on the next row.
        let mut rows: Vec<Vec<String>> = Vec::new();
        for line in self.stdout().lines().filter(|l| l.starts_with('│')) {
            let cells: Vec<String> = line
                .trim_matches('│')
                .split('│')
                .map(|c| c.trim().to_owned())
                .collect();
            rows.push(cells);
        }
        let mut table: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
        for cells in rows.into_iter().skip(1) {
            if cells[0].is_empty() {
                if let Some(last) = table.last_mut() {
                    last.2 = cells[1..].to_vec();
                }
            } else {
                table.push((cells[0].clone(), cells[1..].to_vec(), Vec::new()));
            }
        }
        if self.counts_differ("systems", systems.len(), table.len()) {
            return;
        }
        // Signatures from the "Metric signatures" list: ` - NAME   SIGNATURE`.
        let signatures: BTreeMap<String, String> = self
            .stdout()
            .lines()
            .filter_map(|l| l.strip_prefix(" - "))
            .filter_map(|l| l.split_once(' '))
            .map(|(n, s)| (n.to_owned(), s.trim().to_owned()))
            .collect();
        for key in &keys {
            let m = &header["metrics"][key.as_str()];
            let name = m["name"].as_str().unwrap().to_owned();
            let sig = m["signature"].as_str().unwrap().to_owned();
            let theirs = signatures.get(&name).cloned().unwrap_or_default();
            self.eq(&format!("{name} signature"), &sig, &theirs);
        }
        for (o, (label, cells, pcells)) in systems.iter().zip(&table) {
            let sys = o["system"].as_str().unwrap();
            let ours_label = if o["baseline"] == true {
                format!("Baseline: {sys}")
            } else {
                sys.to_owned()
            };
            self.eq("system", &ours_label, label);
            for (k, key) in keys.iter().enumerate() {
                let name = header["metrics"][key.as_str()]["name"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                let o = &o[key.as_str()];
                // `33.8 (33.7 ± 4.2)` or `33.8`; `(p = 0.1788)` below.
                let cell = cells[k].trim_end_matches('*').trim();
                let (score, rest) = cell.split_once(' ').unwrap_or((cell, ""));
                let ours = format!("{:.w$}", o["score"].as_f64().unwrap());
                self.eq(&format!("{label} {name} score"), &ours, score);
                let mut t = serde_json::Map::new();
                if let Some(inside) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
                    let (m, c) = inside.split_once(" \u{b1} ").unwrap();
                    t.insert("mean".into(), m.parse::<f64>().unwrap().into());
                    t.insert("ci".into(), c.parse::<f64>().unwrap().into());
                }
                if let Some(p) = pcells.get(k).and_then(|p| {
                    p.trim_end_matches('*')
                        .trim()
                        .strip_prefix("(p = ")
                        .and_then(|p| p.strip_suffix(')'))
                }) {
                    t.insert("p_value".into(), p.parse::<f64>().unwrap().into());
                } else {
                    t.insert("p_value".into(), Value::Null);
                }
                let r = rounding(w, 1);
                self.paired_numbers(label, &name, o, &Value::Object(t), n, r);
            }
        }
    }

    /// p-value, bootstrap mean and half-width within the resampling tolerances (+ rounding of
    /// sacreBLEU's printed mean/half-width; p-values are printed with 4 decimals).
    fn paired_numbers(&mut self, label: &str, name: &str, o: &Value, t: &Value, n: usize, r: f64) {
        match (o["p_value"].as_f64(), t["p_value"].as_f64()) {
            (None, None) => {}
            (Some(po), Some(pt)) => {
                let p_round = if r > 0.0 { 0.5e-4 } else { 0.0 };
                self.within(
                    &format!("{label} {name} p-value"),
                    po,
                    pt,
                    tolerance_p(pt, po, n) + p_round,
                );
            }
            other => self.bad(format!("{label} {name} p-values {other:?}")),
        }
        match (o["mean"].as_f64(), t["mean"].as_f64()) {
            (None, None) => {}
            (Some(mo), Some(mt)) => {
                let (co, ct) = (o["ci"].as_f64().unwrap(), t["ci"].as_f64().unwrap());
                self.bootstrap_within(&format!("{label} {name}"), (mo, co), (mt, ct), n, r);
            }
            other => self.bad(format!("{label} {name} means {other:?}")),
        }
    }
}

/// sacreBLEU's verbose BLEU part from a JSONL row's statistics (`BLEUScore._verbose`).
fn sacrebleu_verbose(b: &Value) -> String {
    let precisions: Vec<String> = b["precisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{:.1}", p.as_f64().unwrap()))
        .collect();
    let (sys, reference) = (
        b["sys_len"].as_u64().unwrap(),
        b["ref_len"].as_u64().unwrap(),
    );
    let ratio = if reference == 0 {
        0.0
    } else {
        sys as f64 / reference as f64
    };
    format!(
        "{} (BP = {:.3} ratio = {ratio:.3} hyp_len = {sys} ref_len = {reference})",
        precisions.join("/"),
        b["bp"].as_f64().unwrap()
    )
}

/// Maps and runs one record.
fn check(dir: &Path, record: &Value) -> Outcome {
    let argv: Vec<String> = record["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    let args = match SacreArgs::parse(&argv[1..]) {
        Ok(a) => a,
        Err(e) => return Outcome::Skipped(e),
    };
    if let Some(m) = args
        .metrics
        .iter()
        .find(|m| *m != "bleu" && *m != "chrf" && *m != "ter")
    {
        return Outcome::Skipped(format!("metric {m} not mapped"));
    }
    let stdin_has_tabs = record["stdin_file"]
        .as_str()
        .is_some_and(|f| std::fs::read_to_string(dir.join(f)).unwrap().contains('\t'));
    if stdin_has_tabs {
        return Outcome::Skipped("several systems (TAB-separated stdin)".into());
    }
    if args.inputs.len() > 1 && args.paired.is_none() {
        return Outcome::Skipped("several systems in one run without a paired test".into());
    }
    if args.metrics.len() > 1
        && args.metrics.iter().any(|m| m == "bleu")
        && args.metrics.iter().any(|m| m == "chrf")
        && args.lowercase != args.chrf_lowercase
    {
        return Outcome::Skipped("-lc and --chrf-lowercase differ (one --lowercase)".into());
    }
    if let Some(pair) = &args.langpair {
        if args.tokenize.is_none() && (pair.ends_with("-ja") || pair.ends_with("-ko")) {
            return Outcome::Skipped(format!("-l {pair}: MeCab tokenizer"));
        }
    }
    if record["returncode"] != 0 {
        return Outcome::Skipped(format!("sacreBLEU exited with {}", record["returncode"]));
    }
    let width = args.width();
    let mut ctx = Ctx {
        dir,
        record,
        args,
        width,
        notes: Vec::new(),
        tolerant: 0,
        mismatches: Vec::new(),
    };
    if let Some(test) = ctx.args.paired {
        ctx.paired(test);
    } else if ctx.args.sentence {
        ctx.sentence();
    } else if ctx.args.score_only {
        ctx.score_only();
    } else if ctx.args.format.as_deref() == Some("text") {
        ctx.corpus_text();
    } else {
        ctx.corpus_json();
    }
    Outcome::Checked {
        notes: ctx.notes,
        tolerant: ctx.tolerant,
        mismatches: ctx.mismatches,
    }
}

fn cli_dir(shared: &Path) -> PathBuf {
    sacrebleu_vectors(shared).join("cli")
}

#[test]
fn sacrebleu_cli() {
    let Some(shared) = shared_or_skip("conformance sacrebleu cli") else {
        return;
    };
    let dir = cli_dir(&shared);
    let records = read_jsonl(&dir.join("cli_outputs.jsonl"));
    let inputs = dir.join("inputs");
    let mut checked = 0;
    let mut tolerant = 0;
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    let mut notes: BTreeMap<String, usize> = BTreeMap::new();
    let mut bad = Vec::new();
    for (k, r) in records.iter().enumerate() {
        assert_eq!(
            r["cwd"], "vectors/cli/inputs",
            "record {k}: cwd {}",
            r["cwd"]
        );
        let argv = r["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(" ");
        let stdin = r["stdin_file"]
            .as_str()
            .map_or(String::new(), |f| format!(" < {f}"));
        match check(&inputs, r) {
            Outcome::Checked {
                notes: n,
                tolerant: t,
                mismatches,
            } => {
                checked += 1;
                tolerant += t;
                for note in n {
                    *notes.entry(note).or_default() += 1;
                }
                bad.extend(
                    mismatches
                        .into_iter()
                        .map(|m| format!("#{k} `{argv}{stdin}`: {m}")),
                );
            }
            Outcome::Skipped(reason) => *skipped.entry(reason).or_default() += 1,
        }
    }
    let list = |m: &BTreeMap<String, usize>| {
        m.iter()
            .map(|(r, n)| format!("{n} {r}"))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut text = format!(
        "conformance sacrebleu cli: {checked} checked, {} skipped ({}), {} mismatches\n",
        skipped.values().sum::<usize>(),
        list(&skipped),
        bad.len()
    );
    text.push_str(&format!(
        "conformance sacrebleu cli: {tolerant} resampled numbers within tolerance; partly \
         compared: {}\n",
        list(&notes)
    ));
    for m in bad.iter().take(20) {
        text.push_str(&format!("  MISMATCH {m}\n"));
    }
    eprint_whole(&text);
    assert_eq!(checked + skipped.values().sum::<usize>(), records.len());
    assert!(bad.is_empty(), "sacreBLEU CLI: {} mismatches", bad.len());
}

#[test]
fn parses_sacrebleu_lines() {
    let e = parse_sacre_line(
        "  BLEU|nrefs:1|bs:1000|seed:12345|case:mixed = 33.8 (\u{3bc} = 33.7 \u{b1} 4.2) 67.5/41.7 \
         (BP = 0.965)",
    )
    .unwrap();
    assert_eq!(e.name, "BLEU");
    assert_eq!(e.signature, "nrefs:1|bs:1000|seed:12345|case:mixed");
    assert_eq!(e.score, "33.8");
    assert_eq!(e.confidence, Some(("33.7".into(), "4.2".into())));
    assert_eq!(e.verbose.as_deref(), Some("67.5/41.7 (BP = 0.965)"));
    let e = parse_sacre_line("chrF2|nrefs:1 = 59.10").unwrap();
    assert_eq!((e.score.as_str(), e.verbose), ("59.10", None));
    let a = SacreArgs::parse(
        &[
            "refA.txt", "refB.txt", "-i", "sysA.txt", "-m", "bleu", "chrf", "-w", "3", "-sl",
        ]
        .map(String::from),
    )
    .unwrap();
    assert_eq!(a.refs, ["refA.txt", "refB.txt"]);
    assert_eq!(a.inputs, ["sysA.txt"]);
    assert_eq!(a.metrics, ["bleu", "chrf"]);
    assert_eq!((a.width(), a.sentence), (3, true));
    assert!(SacreArgs::parse(&["ref".into(), "--echo".into(), "src".into()]).is_err());
}
