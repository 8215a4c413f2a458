//! `bleu-stream sacrebleu ARGS…` (or the binary called through a link named `sacrebleu`):
//! sacreBLEU 2.6.0's command line, with the same standard output and exit status, so that
//! existing scripts get faster without changing a character.
//!
//! The flow is `sacrebleu.py`'s `main()`: parse ([`args`]), check, read references and systems
//! ([`read`]), build the metrics from typed settings ([`metric`]), then sentence scores, one
//! system ([`report`]) or several ([`table`]), with sacreBLEU's resampling ([`resample`]).
//! Messages on stderr follow its logger: `sacreBLEU: …`, or the bare message under `-q`
//! (Python's last-resort handler, warnings and errors only).

pub mod args;
mod float32;
mod metric;
mod pyfmt;
mod pynum;
mod read;
mod report;
mod resample;
mod table;
mod testset;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use args::{Args, Exit};
use metric::{Common, Row, SbMetric, Workspaces};
use pyfmt::py_str_repr;
use report::{format_score, single_results, Estimate};
use resample::Draws;
use table::{Cell, Paired, Results};

use crate::tokenize::{ModelPaths, Tokenizer};

/// `get_available_testsets()` of sacreBLEU 2.6.0 as its error message prints the list.
const TESTSETS: &str = include_str!("testsets.txt");

/// sacreBLEU's logger.
struct Log {
    quiet: bool,
}

impl Log {
    fn info(&self, msg: &str) {
        if !self.quiet {
            eprint_raw(&format!("sacreBLEU: {msg}\n"));
        }
    }
    fn warn(&self, msg: &str) {
        if self.quiet {
            eprint_raw(&format!("{msg}\n"));
        } else {
            eprint_raw(&format!("sacreBLEU: {msg}\n"));
        }
    }
}

fn eprint_raw(s: &str) {
    let _ = std::io::stderr().write_all(s.as_bytes());
}

/// An early end: text for stderr (already formatted) and the status.
struct End(String, u8);

/// Runs the drop-in on `argv` (program name first, then sacreBLEU's arguments).
pub fn main(argv: Vec<OsString>) -> ExitCode {
    let mut strings = Vec::with_capacity(argv.len());
    for a in argv.into_iter().skip(1) {
        match a.into_string() {
            Ok(s) => strings.push(s),
            Err(a) => {
                crate::diagnostic::diagnostic(&format!(
                    "error: argument {} is not valid UTF-8",
                    a.to_string_lossy()
                ));
                return ExitCode::from(2);
            }
        }
    }
    let args = match args::parse(&strings) {
        Ok(a) => a,
        Err(Exit::Help) => return print_exit(args::HELP, 0),
        Err(Exit::Version) => {
            return print_exit(
                &format!("sacrebleu {}\n", crate::metric::bleu::SACREBLEU_VERSION),
                0,
            )
        }
        Err(Exit::Usage(text)) => {
            eprint_raw(&text);
            return ExitCode::from(2);
        }
    };
    let log = Log { quiet: args.quiet };
    let mut out = String::new();
    let status = match run(&args, &log, &mut out) {
        Ok(()) => 0,
        Err(End(msg, status)) => {
            eprint_raw(&msg);
            status
        }
    };
    // What was computed before an error is printed, as Python's `print` calls would have.
    print_exit(&out, status)
}

/// Writes `text` to standard output and ends with `status`, or as [`super::finish_write`] says
/// when standard output cannot take it (sacreBLEU dies there with an `OSError` traceback,
/// status 120; with `--help` it even exits 0, the help lost). When its reader has gone away
/// (`| head -1`) the process ends by SIGPIPE, as sacreBLEU does: `sacrebleu.py` restores
/// SIGPIPE's default action when it starts, so `set -o pipefail` sees the same status (141).
fn print_exit(text: &str, status: u8) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    if written
        .as_ref()
        .is_err_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    {
        // Rust ignores SIGPIPE (hence the error); this restores the default action and raises
        // it. It returns only if that failed: then the quiet exit a filter makes.
        let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGPIPE);
    }
    ExitCode::from(match super::finish_write(written) {
        crate::status::OK => status,
        failed => failed,
    })
}

/// A logged error (`sacrelogger.error`) ending with `status`.
fn fail(log: &Log, lines: &[&str], status: u8) -> End {
    let mut s = String::new();
    for l in lines {
        if log.quiet {
            s.push_str(&format!("{l}\n"));
        } else {
            s.push_str(&format!("sacreBLEU: {l}\n"));
        }
    }
    End(s, status)
}

/// An error sacreBLEU ends with a Python exception (status 1); ours says what happened.
fn crash(msg: &str) -> End {
    End(format!("bleu-stream: error: {msg}\n"), 1)
}

fn run(args: &Args, log: &Log, out: &mut String) -> Result<(), End> {
    let paired = args.paired_bs || args.paired_ar;
    if args.download.is_some() || args.list || args.echo.is_some() {
        return Err(crash(
            "--download, --list and --echo need sacreBLEU's test-set registry, which bleu-stream does not have; run sacreBLEU itself for them",
        ));
    }
    if args.sentence_level && args.metrics.len() > 1 {
        return Err(fail(
            log,
            &["Only one metric can be used in sentence-level mode."],
            1,
        ));
    }
    if args.citation {
        if args.test_set.is_none() {
            return Err(fail(log, &["I need a test set (-t)."], 1));
        }
        return Err(crash(
            "--citation needs sacreBLEU's test-set registry; run sacreBLEU itself for it",
        ));
    }
    if args.num_refs != 1 && (args.test_set.is_some() || args.refs.len() > 1) {
        return Err(fail(
            log,
            &[
                "The --num-refs argument allows you to provide any number of tab-delimited references in a single file.",
                "You can only use it with externally provided references, however (i.e., not with `-t`),",
                "and you cannot then provide multiple reference files.",
            ],
            1,
        ));
    }
    if let Some(t) = &args.test_set {
        for name in t.split(',') {
            if testset::langpairs(name).is_none() {
                return Err(fail(
                    log,
                    &[
                        &format!("Unknown test set {}", py_str_repr(name)),
                        "Please run with --list to see the available test sets.",
                    ],
                    1,
                ));
            }
        }
    }
    match (&args.test_set, &args.langpair) {
        (None, _) if args.refs.is_empty() => {
            return Err(fail(
                log,
                &[
                    "If manual references given, make sure to provide them before the -i/--input argument to avoid confusion.",
                    "Otherwise, I need a predefined test set (-t) from the following list:",
                    TESTSETS.trim_end(),
                ],
                1,
            ));
        }
        (None, _) => {}
        (Some(_), _) if !args.refs.is_empty() => {
            return Err(fail(
                log,
                &["I need exactly one of (a) a predefined test set (-t) or (b) a list of references"],
                1,
            ));
        }
        (Some(_), None) => {
            return Err(fail(
                log,
                &["I need a language pair (-l). Use --list to see available language pairs for this test set."],
                1,
            ));
        }
        (Some(t), Some(lp)) => {
            for name in t.split(',') {
                let pairs = testset::langpairs(name).unwrap_or_default();
                if !pairs.contains(&lp.as_str()) {
                    let mut lines = vec![
                        format!("No such language pair {}", py_str_repr(lp)),
                        format!("Available language pairs for {} are:", py_str_repr(name)),
                    ];
                    lines.extend(pairs.iter().map(|p| format!(" > {p}")));
                    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
                    return Err(fail(log, &lines, 1));
                }
            }
        }
    }
    // sacreBLEU filters by the original language or domain annotations of the raw XML/SGM
    // files (`utils.filter_subset`); without -t it ends with a ValueError.
    if args.origlang.is_some() || args.subset.is_some() || (args.detail && args.test_set.is_some())
    {
        if args.test_set.is_none() {
            return Err(crash(
                "--origlang/--subset: ValueError: Filtering for --origlang or --subset needs a test (-t) and a language pair (-l).",
            ));
        }
        return Err(crash(
            "--origlang, --subset and -d/--detail with -t read the annotations of sacreBLEU's raw XML/SGM test-set files, which bleu-stream does not read; run sacreBLEU itself for them",
        ));
    }
    let trg_lang = match &args.langpair {
        Some(lp) => match lp.split('-').nth(1) {
            Some(t) => Some(t.to_owned()),
            None => {
                return Err(crash(&format!(
                    "-l {lp}: IndexError: list index out of range (sacreBLEU expects SRC-TGT)"
                )))
            }
        },
        None => None,
    };
    read::check_encoding(&args.encoding)
        .map_err(|(m, s)| End(format!("bleu-stream: error: {m}\n"), s))?;
    let io = |(m, s): read::Failure| {
        if s == 17 {
            fail(log, &[&m], s)
        } else {
            End(format!("bleu-stream: error: {m}\n"), s)
        }
    };

    if args.test_set.is_some() && args.tokenize.as_deref() == Some("none") {
        log.warn("You are turning off BLEU's internal tokenizer presumably to supply your own tokenized files.");
        log.warn("Published numbers will not be comparable to other papers.");
    }

    // References: the files given, or each test set's from the cache, concatenated.
    let concat: Vec<Vec<String>> = match (&args.test_set, &args.langpair) {
        (Some(t), Some(lp)) => {
            let dir = testset::cache_dir();
            let mut concat = Vec::new();
            for name in t.split(',') {
                let files = testset::reference_files(&dir, name, lp).map_err(|m| crash(&m))?;
                if files.is_empty() {
                    log.warn(&format!("No references found for test set {name}/{lp}."));
                }
                let files = files
                    .into_iter()
                    .map(|p| {
                        p.into_os_string().into_string().map_err(|p| {
                            crash(&format!(
                                "{}: the path is not valid UTF-8",
                                p.to_string_lossy()
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                concat.push(files);
            }
            concat
        }
        _ => vec![args.refs.clone()],
    };
    let refs =
        read::reference_streams(&concat, args.num_refs, args.test_set.as_deref()).map_err(io)?;

    // Systems.
    let (mut systems, mut names): (Vec<Vec<String>>, Vec<String>) = (Vec::new(), Vec::new());
    match &args.input {
        None => {
            systems = read::stdin_systems().map_err(io)?;
            names = (1..=systems.len()).map(|i| format!("System {i}")).collect();
        }
        Some(files) => {
            for f in files {
                if names.contains(f) {
                    if paired && names.first() == Some(f) {
                        log.info(&format!(
                            "Ignoring {} as it was also given as the baseline.",
                            py_str_repr(f)
                        ));
                        continue;
                    }
                    return Err(fail(
                        log,
                        &[
                            &format!("{} already used to name a system.", py_str_repr(f)),
                            "Make sure to have a different basename for each system.",
                        ],
                        1,
                    ));
                }
                systems.push(read::file_lines(f).map_err(io)?);
                names.push(f.clone());
            }
        }
    }
    let num_sys = systems.len();
    if paired && num_sys > 0 {
        if args.input.is_none() {
            names = std::iter::once("Baseline".to_owned())
                .chain((1..num_sys).map(|i| format!("System {i}")))
                .collect();
        } else {
            names[0] = format!("Baseline: {}", names[0]);
        }
    }
    if args.sentence_level {
        if num_sys > 1 {
            return Err(fail(
                log,
                &["Only one system can be evaluated in sentence-level mode."],
                1,
            ));
        }
        if args.confidence || paired {
            return Err(fail(
                log,
                &["Statistical tests are unavailable in sentence-level mode."],
                1,
            ));
        }
    }
    if paired && num_sys == 1 {
        return Err(fail(
            log,
            &["Paired tests require multiple input systems given to --input (-i)."],
            1,
        ));
    }
    if num_sys > 1 && args.confidence {
        return Err(fail(
            log,
            &["Use paired tests (--paired) for multiple systems."],
            1,
        ));
    }
    for (s, name) in systems.iter().zip(&names) {
        if s.is_empty() {
            let name = args
                .test_set
                .as_deref()
                .map_or("None".to_owned(), py_str_repr);
            return Err(fail(
                log,
                &[&format!("Test set {name} contains no sentence")],
                1,
            ));
        }
        if refs.iter().any(|r| r.len() != s.len()) {
            let mut lines = vec!["System and reference streams have different lengths.".to_owned()];
            // `sanity_check_lengths`: with -t, the cache may be at fault.
            if let Some(t) = &args.test_set {
                lines.extend([
                    "This could be an issue with your system output or with sacreBLEU's reference database if -t is given.".to_owned(),
                    "For the latter, try cleaning out the cache by typing:\n".to_owned(),
                    format!("  rm -r {}/{t}\n", testset::cache_dir().display()),
                    "The test sets will be re-downloaded the next time you run sacreBLEU.".to_owned(),
                ]);
            }
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let End(mut text, status) = fail(log, &lines, 1);
            // sacreBLEU's message names neither file nor count; one more line says which
            // (found by the drop-in audit: the scoring command's message says it, this did not).
            let counts: Vec<String> = refs
                .iter()
                .enumerate()
                .map(|(k, r)| {
                    let file = match args.refs.len() == refs.len() {
                        true => py_str_repr(&args.refs[k]),
                        false => format!("reference {}", k + 1),
                    };
                    format!("{file} {}", r.len())
                })
                .collect();
            text.push_str(&crate::diagnostic::escaped(&format!(
                "bleu-stream: {} has {} lines and {}: every system line pairs with the line of \
                 each reference at the same number (a line missing or extra, or a truncated \
                 file?)",
                py_str_repr(name),
                s.len(),
                counts.join(", ")
            )));
            text.push('\n');
            return Err(End(text, status));
        }
    }

    // Metrics, in `-m` order without repeats (a dict keyed by the upper-case name).
    let tokenizer = resolve_tokenizer(args, trg_lang.as_deref(), log)?;
    // The dictionary or model the tokenizer needs, loaded now: one that cannot be found ends
    // the run with its message (sacreBLEU raises, status 1), not a panic while scoring.
    let paths = ModelPaths {
        drop_in: true,
        ..ModelPaths::default()
    };
    crate::tokenize::prepare(tokenizer, &paths).map_err(|e| crash(&e))?;
    let mut metrics: Vec<(String, SbMetric)> = Vec::new();
    for name in &args.metrics {
        let key = metric::upper_name(name);
        if metrics.iter().any(|(k, _)| *k == key) {
            continue;
        }
        let m = SbMetric::new(name, args, tokenizer).map_err(|e| crash(&e))?;
        // A paired test keeps the baseline's statistics beside each system's.
        let kept = systems.first().map_or(0, Vec::len) * if paired { 2 } else { 1 };
        m.check_statistics_size(kept).map_err(|e| crash(&e))?;
        metrics.push((key, m));
    }
    // `-w` is checked where sacreBLEU formats with it (`f"{score:.{width}f}"`): everywhere but
    // the JSON table of paired tests, which prints the raw floats (`-w -1` works there).
    let width = || pyfmt::width(args.width).map_err(|e| crash(&e));
    let nrefs = if systems.first().is_some_and(|s| !s.is_empty()) {
        refs.len().to_string()
    } else {
        "var".to_owned()
    };
    let mut ws = Workspaces::default();
    let ref_row = |i: usize| -> Vec<&str> { refs.iter().map(|r| r[i].as_str()).collect() };

    if args.sentence_level {
        let (_, m) = &metrics[0];
        let common = Common {
            nrefs: refs.len().to_string(),
            ..Common::default()
        };
        let sig = m.signature(&common, args.short);
        let width = width()?;
        for (i, hyp) in systems[0].iter().enumerate() {
            let row = m.row(hyp, &ref_row(i), &mut ws);
            let s = m.score(&row).map_err(|e| crash(&e))?;
            out.push_str(&format_score(&s, None, width, args.score_only, &sig, false));
            out.push('\n');
        }
        return Ok(());
    }
    // Every corpus score (plain, --confidence, paired) sums the statistics lists first; one
    // segment's list is returned as it is (`sum_of_lists` of one list), which scores 0.0.
    if metrics
        .iter()
        .any(|(_, m)| matches!(m, SbMetric::Chrf(_, given) if given.has_no_order()))
        && (systems[0].len() != 1 || args.confidence || paired)
    {
        return Err(crash(
            "IndexError: list index out of range (chrF with neither a character nor a word n-gram order: sacreBLEU's sum_of_lists indexes an empty statistics list)",
        ));
    }

    // `SACREBLEU_FORMAT` overrides `-f` when it names a format.
    let env_format = std::env::var("SACREBLEU_FORMAT")
        .ok()
        .map(|f| f.to_lowercase());
    let format = match env_format.as_deref() {
        Some(f @ ("json" | "text" | "latex")) => f,
        _ => args.format.as_str(),
    };
    let format = if args.detail && format == "json" {
        "text"
    } else {
        format
    };
    // Statistics of every system and metric (sacreBLEU extracts them once per corpus score).
    let rows_of = |m: &SbMetric, sys: &[String], ws: &mut Workspaces| -> Vec<Row> {
        if m.checks_tokenized(args.force) {
            let tok = sys.iter().filter(|h| h.ends_with(" .")).count();
            if tok >= 100 {
                log.warn("That's 100 lines that end in a tokenized period ('.')");
                log.warn("It looks like you forgot to detokenize your test data, which may hurt your score.");
                log.warn("If you insist your data is detokenized, or don't care, you can suppress this message with the `force` parameter.");
            }
        }
        sys.iter()
            .enumerate()
            .map(|(i, h)| m.row(h, &ref_row(i), ws))
            .collect()
    };

    if num_sys == 1 {
        let width = width()?;
        let mut sorted: Vec<&(String, SbMetric)> = metrics.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let seed = if args.confidence && args.confidence_n > 1 {
            Some(resample::Seed::from_env().map_err(|e| crash(&e))?)
        } else {
            None
        };
        let mut results = Vec::new();
        for (_, m) in sorted {
            let rows = rows_of(m, &systems[0], &mut ws);
            let s = m.score(&SbMetric::sum_rows(&rows)).map_err(|e| crash(&e))?;
            let mut common = Common {
                nrefs: nrefs.clone(),
                ..Common::default()
            };
            let mut estimate = None;
            if let Some(seed) = &seed {
                let draws = resample::Draws::Indices;
                let count = resample::array_size(args.confidence_n, rows.len(), draws)
                    .map_err(|e| crash(&e))?;
                let (mean, ci) =
                    resample::confidence(m, &rows, count, seed).map_err(|e| crash(&e))?;
                estimate = Some(Estimate { mean, ci });
                common.bs = Some(args.confidence_n);
                common.seed = Some(seed.text.to_lowercase());
            }
            let sig = m.signature(&common, args.short && format != "json");
            results.push(format_score(
                &s,
                estimate,
                width,
                args.score_only,
                &sig,
                format == "json",
            ));
        }
        out.push_str(&single_results(&results, format == "json"));
        if args.detail {
            out.push_str("No subset information found. Consider using --origlang argument.\n");
        }
        return Ok(());
    }

    log.info(&format!("Found {num_sys} systems."));
    let mut res = Results {
        systems: names.clone(),
        columns: Vec::new(),
        signatures: Vec::new(),
    };
    let mut paired_info = None;
    if !paired {
        let mut sorted: Vec<&(String, SbMetric)> = metrics.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let common = Common {
            nrefs: nrefs.clone(),
            ..Common::default()
        };
        let width = width()?;
        for (_, m) in &sorted {
            let mut cells = Vec::new();
            let mut name = String::new();
            for sys in &systems {
                let rows = rows_of(m, sys, &mut ws);
                let s = m.score(&SbMetric::sum_rows(&rows)).map_err(|e| crash(&e))?;
                name.clone_from(&s.name);
                cells.push(Cell::Text(format_score(&s, None, width, true, "", false)));
            }
            res.signatures
                .push((name.clone(), m.signature(&common, args.short)));
            res.columns.push((name, cells));
        }
    } else {
        let seed = resample::Seed::from_env().map_err(|e| crash(&e))?;
        let bs = args.paired_bs;
        let n = if bs {
            args.paired_bs_n
        } else {
            args.paired_ar_n
        };
        let n = if n > 0 {
            n
        } else if bs {
            1000
        } else {
            10000
        };
        let draws = if bs { Draws::Indices } else { Draws::Flips };
        let count = resample::array_size(n, systems[0].len(), draws).map_err(|e| crash(&e))?;
        paired_info = Some(Paired {
            bootstrap: bs,
            n: if bs {
                args.paired_bs_n
            } else {
                args.paired_ar_n
            },
        });
        let mut has_f32 = false;
        let mut per_metric = Vec::new();
        for (key, m) in &metrics {
            log.info(&format!(
                "Pre-computing {key} statistics for {}",
                py_str_repr(&names[0])
            ));
            let rows = rows_of(m, &systems[0], &mut ws);
            let s = m.score(&SbMetric::sum_rows(&rows)).map_err(|e| crash(&e))?;
            let (mean, ci) = if bs {
                let (mean, ci, f32s) =
                    resample::baseline_estimate(m, &rows, count, &seed).map_err(|e| crash(&e))?;
                has_f32 |= f32s;
                (Some(mean), Some(ci))
            } else {
                (None, None)
            };
            let common = Common {
                nrefs: nrefs.clone(),
                bs: bs.then_some(n),
                ar: (!bs).then_some(n),
                seed: Some(seed.int_text()),
            };
            res.signatures
                .push((s.name.clone(), m.signature(&common, args.short)));
            let base = table::PairedResult {
                score: s.score,
                p_value: None,
                mean,
                ci,
            };
            per_metric.push((s.name.clone(), rows, s.score, vec![Cell::Result(base)]));
        }
        // `PairedTest`'s workers: bleu-stream computes the tests in this process either way, but
        // says what sacreBLEU says, and fails where its process pool does.
        let jobs = paired_jobs(args.paired_jobs, num_sys - 1);
        if jobs != 1 {
            log.info(&format!("Launching {jobs} parallel workers."));
        }
        if jobs < 1 {
            return Err(crash(&format!(
                "ValueError: Number of processes must be at least 1 (-j {jobs})"
            )));
        }
        for (k, sys) in systems.iter().enumerate().skip(1) {
            for ((_, m), (_, base_rows, base_score, cells)) in
                metrics.iter().zip(per_metric.iter_mut())
            {
                log.info(&format!(
                    "Computing {} for {} and extracting sufficient statistics",
                    metric_key(m),
                    py_str_repr(&names[k])
                ));
                let rows = rows_of(m, sys, &mut ws);
                let r = if bs {
                    log.info(&format!(
                        " > Performing paired bootstrap resampling test (# resamples: {n})"
                    ));
                    let (r, f32s) =
                        resample::paired_bs(m, base_rows, *base_score, &rows, count, &seed)
                            .map_err(|e| crash(&e))?;
                    has_f32 |= f32s;
                    r
                } else {
                    log.info(&format!(
                        " > Performing approximate randomization test (# trials: {n})"
                    ));
                    resample::paired_ar(m, base_rows, *base_score, &rows, count, &seed)
                        .map_err(|e| crash(&e))?
                };
                cells.push(Cell::Result(r));
            }
        }
        if format == "json" && has_f32 {
            return Err(crash(
                "TypeError: Object of type float32 is not JSON serializable — sacreBLEU 2.6.0 fails here too (its chrF/TER bootstrap estimates are NumPy float32); use -f text",
            ));
        }
        res.columns = per_metric
            .into_iter()
            .map(|(name, _, _, cells)| (name, cells))
            .collect();
    }
    if num_sys == 0 && format != "json" {
        // `print_results_table` indexes the first system's name.
        return Err(crash(
            "IndexError: list index out of range (no system given to -i)",
        ));
    }
    match format {
        "json" => out.push_str(&table::json(&res)),
        f => out.push_str(&table::table(&res, width()?, f == "latex", paired_info)),
    }
    Ok(())
}

/// sacreBLEU's number of paired-test workers for `-j`: 0 is half the processors
/// (`os.cpu_count() // 2`, at least 1), at most one per system compared with the baseline;
/// any other value as given.
fn paired_jobs(j: i64, systems: usize) -> i64 {
    if j != 0 {
        return j;
    }
    // SAFETY: `sysconf` reads a system setting and takes no pointer.
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    match cpus.max(0) / 2 {
        0 => 1,
        half => half.min(systems as i64),
    }
}

/// The name the paired tests' per-system log lines give a metric: the score name (`BLEU`,
/// `chrF2`, `TER`; the baseline's line uses the `METRICS` key, `CHRF`).
fn metric_key(m: &SbMetric) -> String {
    match m {
        SbMetric::Bleu(_) => "BLEU".into(),
        SbMetric::Chrf(_, given) => given.name(),
        SbMetric::Ter(_) => "TER".into(),
    }
}

/// `-tok` or sacreBLEU's default for the target language (`zh` → zh, `ja` → ja-mecab, `ko` →
/// ko-mecab, else 13a), with its warning when an explicit choice disagrees; the name is looked
/// up in bleu-stream's tokenizer registry.
fn resolve_tokenizer(args: &Args, trg: Option<&str>, log: &Log) -> Result<Tokenizer, End> {
    if !args.metrics.iter().any(|m| m == "bleu") {
        return Ok(Tokenizer::T13a);
    }
    let name = match &args.tokenize {
        None => match trg {
            Some("zh") => "zh",
            Some("ja") => "ja-mecab",
            Some("ko") => "ko-mecab",
            _ => "13a",
        },
        Some(t) => {
            let hint = match trg {
                Some("zh") if t != "zh" => {
                    Some("Consider using the 'zh' or 'spm' tokenizer for Chinese.")
                }
                Some("ja") if t != "ja-mecab" => {
                    Some("Consider using the 'ja-mecab' or 'spm' tokenizer for Japanese.")
                }
                Some("ko") if t != "ko-mecab" => {
                    Some("Consider using the 'ko-mecab' or 'spm' tokenizer for Korean.")
                }
                _ => None,
            };
            if let Some(h) = hint {
                log.warn(h);
            }
            t.as_str()
        }
    };
    // The main command's message for a tokenizer this build does not have (clap's).
    Tokenizer::from_name(name).ok_or_else(|| {
        End(
            format!(
                "bleu-stream: error: invalid value '{name}' for '--tokenize <NAME>'\n  [possible values: {}]\n",
                Tokenizer::NAMES.join(", ")
            ),
            crate::status::USAGE,
        )
    })
}
