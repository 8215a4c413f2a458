//! `bleu-stream compare`: paired significance tests of one or more systems against a baseline
//! on the same segments and references, as sacreBLEU's `--paired-bs` / `--paired-ar` run them
//! ([`crate::significance::paired`]).
//!
//! Unlike scoring, this cannot stream: every resample draws from all segments. The segments are
//! read whole, scored on every core into compact per-segment vectors ([`Vectors`]), and then
//! resampled. A bad line is an error rather than a skipped row, since the systems must stay
//! aligned segment by segment.

use std::any::Any;
use std::borrow::Cow;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches, Parser};
use serde_json::{json, Map, Value};

use crate::cli::{FormatArg, Utf8Arg};
use crate::diagnostic::diagnostic;
use crate::input::reader::{io_message, Line, LineReader, Source};
use crate::input::{decode, Segment, SegmentRefs, Utf8Policy};
use crate::metric::options::CommonArgs;
use crate::metric::{registry, DynMetric};
use crate::significance::paired::{
    approximate_randomization, paired_bootstrap, Comparison, BOOTSTRAP_SAMPLES,
    RANDOMIZATION_TRIALS,
};
use crate::significance::{Vectors, DEFAULT_SEED};
use crate::status;

const ABOUT: &str = "Paired significance tests of systems against a baseline (sacreBLEU \
--paired-bs/--paired-ar).";

const AFTER_HELP: &str = "\
Input: the systems' outputs as TSV lines base<TAB>sys1<TAB>sys2… (FILE, or standard input; \
what `paste base.txt sys1.txt sys2.txt` prints), or as parallel files with -i BASE SYS1 SYS2…; \
the references always come from -r files, one per reference, line by line in lockstep.

Examples:
  bleu-stream compare -r ref.txt -i base.txt sys1.txt sys2.txt
  paste base.txt sys.txt | bleu-stream compare -r ref.txt --paired-ar
  bleu-stream compare -r refA.txt -r refB.txt -m bleu,chrf -i base.txt sys.txt -f jsonl

Each system gets its score, with --paired-bs (the default) the bootstrap mean ± half-width of \
the 95% interval, and (p = …): how often chance alone gives a difference from the baseline at \
least as large; * marks p <= 0.05.

Exit status: 0 success; 1 an input cannot be read, streams of different length, or output \
cannot be written; 2 usage error or bad input (a line with a different number of systems, \
invalid UTF-8, no segments, a metric that cannot be resampled).";

/// `bleu-stream compare`'s own options (each metric's own options come from the registry).
#[derive(Parser, Debug)]
#[command(
    name = "bleu-stream compare",
    version,
    about = ABOUT,
    after_help = AFTER_HELP,
    override_usage = "bleu-stream compare [OPTIONS] -r REF… [FILE]\n       \
                      bleu-stream compare [OPTIONS] -r REF… -i BASELINE SYSTEM…",
    max_term_width = 100
)]
pub struct CompareArgs {
    /// TSV of the systems' outputs, `base<TAB>sys1<TAB>…`, one line per segment; `-` is
    /// standard input (the default).
    #[arg(value_name = "FILE", conflicts_with = "systems")]
    pub file: Option<String>,

    /// The systems' outputs as parallel files, one sentence per line: the baseline first, then
    /// one or more systems (sacreBLEU -i). Named by their paths in the output.
    #[arg(short = 'i', long, value_name = "FILE", num_args = 2.., action = ArgAction::Append)]
    pub systems: Vec<String>,

    /// A reference file, read line by line in lockstep with the systems (repeatable: one file
    /// per reference).
    #[arg(short = 'r', long = "ref", value_name = "FILE", required = true,
          action = ArgAction::Append)]
    pub refs: Vec<String>,

    /// Metrics, comma-separated: those whose statistics can be resampled — bleu, chrf (with its
    /// options for chrF++), gleu.
    #[arg(
        short,
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "bleu"
    )]
    pub metrics: Vec<String>,

    /// Paired bootstrap resampling (Koehn 2004; the default): p-values, and each system's
    /// bootstrap mean and 95% interval.
    #[arg(long, conflicts_with = "paired_ar", help_heading = "Tests")]
    pub paired_bs: bool,

    /// Paired approximate randomization (Riezler & Maxwell 2005): p-values only.
    #[arg(long, help_heading = "Tests")]
    pub paired_ar: bool,

    /// Resamples of --paired-bs.
    #[arg(long, value_name = "N", default_value_t = BOOTSTRAP_SAMPLES as u64,
          help_heading = "Tests", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub paired_bs_n: u64,

    /// Trials of --paired-ar.
    #[arg(long, value_name = "N", default_value_t = RANDOMIZATION_TRIALS as u64,
          help_heading = "Tests", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub paired_ar_n: u64,

    /// Seed of the random draws (sacreBLEU's SACREBLEU_SEED default is 12345 too). The same
    /// seed gives the same p-values on every machine and for every number of threads; they are
    /// not sacreBLEU's, whose random numbers come from NumPy.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED, help_heading = "Tests")]
    pub seed: u64,

    /// Decimals of printed scores (p-values always have 4).
    #[arg(short, long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(0..=17))]
    pub width: u32,

    /// Output format: a text table, or JSON Lines with full-precision numbers.
    #[arg(short, long, value_enum, default_value_t = FormatArg::Text, value_name = "FORMAT")]
    pub format: FormatArg,

    /// Threads (default: the number of cores). Results do not depend on it.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Invalid UTF-8: an error, or replaced by U+FFFD (lossy).
    #[arg(long, value_enum, default_value_t = Utf8Arg::Error, value_name = "POLICY")]
    pub invalid_utf8: Utf8Arg,

    /// Options shared by several metrics.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The `compare` command: [`CompareArgs`] plus every registered metric's own options, so
/// that a metric is set up exactly as the scoring command sets it up.
pub fn command() -> clap::Command {
    registry::augment(CompareArgs::command())
}

/// Runs `bleu-stream compare` (`args` includes the program name and `compare`).
pub fn main(args: Vec<OsString>) -> ExitCode {
    let args =
        std::iter::once(OsString::from("bleu-stream compare")).chain(args.into_iter().skip(2));
    let matches = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => return super::clap_exit(e),
    };
    let parsed = CompareArgs::from_arg_matches(&matches).map_err(|e| e.to_string());
    let setup = parsed.and_then(|args| {
        let metrics = build_metrics(&args, &matches)?;
        Ok((args, metrics))
    });
    match setup {
        Ok((args, metrics)) => ExitCode::from(run(&args, &metrics)),
        Err(message) => {
            diagnostic(&format!("error: {message}"));
            ExitCode::from(status::USAGE)
        }
    }
}

/// Builds the metrics through the registry and refuses those without a vector form.
fn build_metrics(args: &CompareArgs, matches: &ArgMatches) -> Result<Vec<Metric>, String> {
    let metrics = registry::build(&args.metrics, &args.common, matches)?;
    let resamplable = || -> Vec<&str> {
        registry::REGISTRY
            .iter()
            .filter(|e| {
                (e.from_args)(&args.common, matches).is_ok_and(|m| m.vector_len().is_some())
            })
            .map(|e| e.name)
            .collect()
    };
    metrics
        .into_iter()
        .map(|m| match m.vector_len() {
            Some(width) => Ok(Metric { m, width }),
            None => Err(format!(
                "metric '{}' cannot be resampled (its statistics are not a fixed vector of \
                 integers summed over segments); compare supports {}",
                m.key(),
                resamplable().join(", ")
            )),
        })
        .collect()
}

/// A metric with its vector width.
struct Metric {
    m: Box<dyn DynMetric>,
    width: usize,
}

/// Everything read: system outputs and references, segment by segment.
struct Corpus {
    /// Display names, the baseline first.
    names: Vec<String>,
    /// True when the systems came from -i files (named by path), false for TSV columns.
    from_files: bool,
    /// `systems[s][i]`: system `s`'s output for segment `i`.
    systems: Vec<Vec<String>>,
    /// `refs[r][i]`.
    refs: Vec<Vec<String>>,
}

impl Corpus {
    fn len(&self) -> usize {
        self.systems[0].len()
    }
}

/// A failure with its exit status.
type Failure = (u8, String);

fn run(args: &CompareArgs, metrics: &[Metric]) -> u8 {
    match compare(args, metrics) {
        Ok(()) => status::OK,
        Err((code, message)) => {
            diagnostic(&format!("error: {message}"));
            code
        }
    }
}

fn compare(args: &CompareArgs, metrics: &[Metric]) -> Result<(), Failure> {
    let threads = args
        .threads
        .map_or_else(crate::significance::default_threads, |n| n as usize);
    let utf8 = match args.invalid_utf8 {
        Utf8Arg::Error => Utf8Policy::Error,
        Utf8Arg::Lossy => Utf8Policy::Lossy,
    };
    let corpus = read_corpus(args, utf8)?;
    if corpus.len() == 0 {
        return Err((status::USAGE, "no segments to compare".to_owned()));
    }
    let scored = score_corpus(&corpus, metrics, threads).map_err(|m| (status::USAGE, m))?;
    let test = if args.paired_ar {
        Test::Randomization(args.paired_ar_n as usize)
    } else {
        Test::Bootstrap(args.paired_bs_n as usize)
    };
    let width = args.width as usize;
    let mut results = Vec::new();
    for (k, metric) in metrics.iter().enumerate() {
        let base = &scored.vectors[0][k];
        let systems: Vec<&Vectors> = scored.vectors[1..].iter().map(|v| &v[k]).collect();
        let score = |s: &[u64]| metric.m.score_vector(s);
        let rows = match test {
            Test::Bootstrap(n) => paired_bootstrap(base, &systems, n, args.seed, threads, &score),
            Test::Randomization(n) => {
                approximate_randomization(base, &systems, n, args.seed, threads, &score)
            }
        };
        let report = metric.m.score(scored.totals[0][k].as_ref());
        results.push(MetricResult {
            key: metric.m.key(),
            name: report.name.clone(),
            signature: test.signature(&report.signature, args.seed),
            rows,
        });
    }
    let mut out = Vec::new();
    match args.format {
        FormatArg::Text => write_text(&mut out, &corpus, &test, args.seed, &results, width),
        FormatArg::Jsonl => write_jsonl(&mut out, &corpus, &test, args.seed, &results),
    }
    let mut stdout = io::stdout().lock();
    match stdout.write_all(&out).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err((status::IO, format!("writing output: {}", io_message(&e)))),
    }
}

/// The test run, with its number of resamples or trials.
#[derive(Clone, Copy, Debug)]
enum Test {
    Bootstrap(usize),
    Randomization(usize),
}

impl Test {
    fn name(self) -> &'static str {
        match self {
            Test::Bootstrap(_) => "paired-bs",
            Test::Randomization(_) => "paired-ar",
        }
    }

    fn samples(self) -> usize {
        match self {
            Test::Bootstrap(n) | Test::Randomization(n) => n,
        }
    }

    /// sacreBLEU's paired-test signature: `bs:N|seed:S` (or `ar:N|…`) after the first field,
    /// e.g. `nrefs:1|bs:1000|seed:12345|case:mixed|…`.
    fn signature(self, signature: &str, seed: u64) -> String {
        let key = match self {
            Test::Bootstrap(_) => "bs",
            Test::Randomization(_) => "ar",
        };
        let test = format!("{key}:{}|seed:{seed}", self.samples());
        match signature.split_once('|') {
            Some((first, rest)) => format!("{first}|{test}|{rest}"),
            None => format!("{signature}|{test}"),
        }
    }
}

/// One metric's results: the baseline's row first.
struct MetricResult {
    key: &'static str,
    name: String,
    signature: String,
    rows: Vec<Comparison>,
}

// -------------------------------------------------------------------------------------------
// Reading
// -------------------------------------------------------------------------------------------

fn read_corpus(args: &CompareArgs, utf8: Utf8Policy) -> Result<Corpus, Failure> {
    let from_files = !args.systems.is_empty();
    let system_sources: Vec<Source> = if from_files {
        args.systems.iter().map(|f| Source::from_arg(f)).collect()
    } else {
        vec![Source::from_arg(args.file.as_deref().unwrap_or("-"))]
    };
    let ref_sources: Vec<Source> = args.refs.iter().map(|f| Source::from_arg(f)).collect();
    let stdin_uses = system_sources
        .iter()
        .chain(&ref_sources)
        .filter(|s| **s == Source::Stdin)
        .count();
    if stdin_uses > 1 {
        return Err((
            status::USAGE,
            "standard input ('-') can be read only once".to_owned(),
        ));
    }
    let mut streams = Vec::new();
    for source in system_sources.iter().chain(&ref_sources) {
        let input = source.open().map_err(|m| (status::IO, m))?;
        streams.push(LineReader::new(input, source.name()));
    }
    let n_sys_streams = system_sources.len();
    let mut systems: Vec<Vec<String>> = if from_files {
        vec![Vec::new(); n_sys_streams]
    } else {
        Vec::new()
    };
    let mut refs: Vec<Vec<String>> = vec![Vec::new(); ref_sources.len()];
    let mut line_no: u64 = 0;
    loop {
        line_no += 1;
        let mut ended = Vec::new();
        let mut lines: Vec<Option<Vec<u8>>> = Vec::with_capacity(streams.len());
        for (i, stream) in streams.iter_mut().enumerate() {
            match stream.next_line() {
                Ok(Some(Line::Text(text))) => lines.push(Some(text.to_vec())),
                Ok(Some(Line::TooLong(_))) => unreachable!("no line length limit is set"),
                Ok(None) => {
                    ended.push(i);
                    lines.push(None);
                }
                Err(e) => {
                    return Err((status::IO, format!("{}: {}", stream.name(), io_message(&e))))
                }
            }
        }
        if ended.len() == streams.len() {
            break;
        }
        if !ended.is_empty() {
            let names = |ended_too: bool| -> Vec<&str> {
                (0..streams.len())
                    .filter(|i| ended.contains(i) == ended_too)
                    .map(|i| streams[i].name())
                    .collect()
            };
            let (short, long) = (names(true), names(false));
            return Err((
                status::IO,
                format!(
                    "streams have different lengths: {} ended after line {} but {} {} line {}",
                    short.join(", "),
                    line_no - 1,
                    long.join(", "),
                    if long.len() == 1 { "has" } else { "have" },
                    line_no
                ),
            ));
        }
        let mut lines = lines.into_iter().map(|l| l.expect("no stream ended"));
        if from_files {
            for (s, system) in systems.iter_mut().enumerate() {
                let text = lines.next().expect("one line per stream");
                let what = || format!("{}: line {line_no}", streams[s].name());
                system.push(
                    decode_owned(text, utf8)
                        .map_err(|e| (status::USAGE, format!("{}: {e}", what())))?,
                );
            }
        } else {
            let text = lines.next().expect("one line per stream");
            let name = streams[0].name();
            let fields: Vec<&[u8]> = text.split(|&b| b == b'\t').collect();
            if systems.is_empty() {
                if fields.len() < 2 {
                    return Err((
                        status::USAGE,
                        format!(
                            "{name}: line {line_no}: one field; compare needs the baseline and \
                             at least one system, TAB-separated (base<TAB>sys1<TAB>…), or -i \
                             BASE SYS1 …"
                        ),
                    ));
                }
                systems = vec![Vec::new(); fields.len()];
            }
            if fields.len() != systems.len() {
                return Err((
                    status::USAGE,
                    format!(
                        "{name}: line {line_no}: {} field{}, but line 1 has {} (one per system; \
                         a TAB inside a sentence?)",
                        fields.len(),
                        if fields.len() == 1 { "" } else { "s" },
                        systems.len()
                    ),
                ));
            }
            for (s, (system, field)) in systems.iter_mut().zip(fields).enumerate() {
                let text = decode(field, utf8).map_err(|e| {
                    (
                        status::USAGE,
                        format!("{name}: line {line_no}: field {}: {e}", s + 1),
                    )
                })?;
                system.push(text.into_owned());
            }
        }
        for (r, reference) in refs.iter_mut().enumerate() {
            let text = lines.next().expect("one line per stream");
            let name = streams[n_sys_streams + r].name();
            reference.push(
                decode_owned(text, utf8)
                    .map_err(|e| (status::USAGE, format!("{name}: line {line_no}: {e}")))?,
            );
        }
    }
    if systems.is_empty() {
        // Empty TSV input: the number of systems is unknown; `compare` refuses it anyway.
        systems.push(Vec::new());
    }
    let names = if from_files {
        args.systems.clone()
    } else {
        std::iter::once("Baseline".to_owned())
            .chain((1..systems.len()).map(|i| format!("System {i}")))
            .collect()
    };
    Ok(Corpus {
        names,
        from_files,
        systems,
        refs,
    })
}

fn decode_owned(bytes: Vec<u8>, utf8: Utf8Policy) -> Result<String, String> {
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => decode(e.as_bytes(), utf8).map(Cow::into_owned),
    }
}

// -------------------------------------------------------------------------------------------
// Scoring
// -------------------------------------------------------------------------------------------

/// Per system and metric: the segments' vectors and the corpus totals (for the report's name
/// and signature).
struct Scored {
    /// `vectors[s][k]`.
    vectors: Vec<Vec<Vectors>>,
    /// `totals[s][k]`.
    totals: Vec<Vec<Box<dyn Any + Send>>>,
}

/// Segments per unit of work.
const CHUNK: usize = 256;

/// Computes every segment's statistics for every system and metric, on `threads` threads, in
/// chunks of segments that are put back in order.
fn score_corpus(corpus: &Corpus, metrics: &[Metric], threads: usize) -> Result<Scored, String> {
    let n = corpus.len();
    let chunks = n.div_ceil(CHUNK);
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Result<Scored, String>>>> =
        Mutex::new((0..chunks).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, chunks.max(1)) {
            scope.spawn(|| {
                let mut workspaces: Vec<_> = metrics.iter().map(|m| m.m.new_workspace()).collect();
                loop {
                    let c = next.fetch_add(1, Ordering::Relaxed);
                    if c >= chunks {
                        return;
                    }
                    let range = c * CHUNK..((c + 1) * CHUNK).min(n);
                    let result = score_chunk(corpus, metrics, &mut workspaces, range);
                    done.lock().expect("no panics while holding the lock")[c] = Some(result);
                }
            });
        }
    });
    let mut scored = Scored {
        vectors: (0..corpus.systems.len())
            .map(|_| metrics.iter().map(|m| Vectors::new(m.width)).collect())
            .collect(),
        totals: (0..corpus.systems.len())
            .map(|_| metrics.iter().map(|m| m.m.new_totals()).collect())
            .collect(),
    };
    for chunk in done.into_inner().expect("threads joined") {
        let chunk = chunk.expect("every chunk scored")?;
        for (s, per_metric) in chunk.vectors.iter().enumerate() {
            for (k, v) in per_metric.iter().enumerate() {
                scored.vectors[s][k].extend_from(v)?;
                let m = &metrics[k].m;
                // Chunk totals add up like shards' (SPEC §7), through the stats-document form.
                let saved = m.save_totals(chunk.totals[s][k].as_ref());
                m.merge_saved(scored.totals[s][k].as_mut(), &saved)?;
            }
        }
    }
    Ok(scored)
}

fn score_chunk(
    corpus: &Corpus,
    metrics: &[Metric],
    workspaces: &mut [Box<dyn Any + Send>],
    range: std::ops::Range<usize>,
) -> Result<Scored, String> {
    let systems = corpus.systems.len();
    let mut vectors: Vec<Vec<Vectors>> = (0..systems)
        .map(|_| metrics.iter().map(|m| Vectors::new(m.width)).collect())
        .collect();
    let mut totals: Vec<Vec<Box<dyn Any + Send>>> = (0..systems)
        .map(|_| metrics.iter().map(|m| m.m.new_totals()).collect())
        .collect();
    let mut batches: Vec<Vec<Box<dyn Any + Send>>> = (0..systems)
        .map(|_| metrics.iter().map(|m| m.m.new_batch(range.len())).collect())
        .collect();
    let mut vector = Vec::new();
    for (index, i) in range.enumerate() {
        let refs: SegmentRefs<'_> = corpus.refs.iter().map(|r| Cow::Borrowed(&*r[i])).collect();
        let mut segment = Segment {
            hyp: Cow::Borrowed(""),
            refs,
            id: None,
        };
        for s in 0..systems {
            segment.hyp = Cow::Borrowed(&corpus.systems[s][i]);
            for (k, metric) in metrics.iter().enumerate() {
                let m = &metric.m;
                let batch = batches[s][k].as_mut();
                m.push_stats(&segment, workspaces[k].as_mut(), batch);
                vector.resize(metric.width, 0);
                m.batch_vector(batches[s][k].as_ref(), index, &mut vector);
                vectors[s][k]
                    .push(&vector)
                    .map_err(|e| format!("{}: line {}: {e}", corpus.names[s], i + 1))?;
                m.accumulate(totals[s][k].as_mut(), batches[s][k].as_ref(), index);
            }
        }
    }
    Ok(Scored { vectors, totals })
}

// -------------------------------------------------------------------------------------------
// Output
// -------------------------------------------------------------------------------------------

/// sacreBLEU's `(p = 0.0123)`, with `*` when p ≤ 0.05.
fn p_text(p: f64) -> String {
    let star = if p <= 0.05 { "*" } else { "" };
    format!("(p = {p:.4}){star}")
}

fn write_text(
    out: &mut Vec<u8>,
    corpus: &Corpus,
    test: &Test,
    seed: u64,
    results: &[MetricResult],
    width: usize,
) {
    let what = match test {
        Test::Bootstrap(n) => format!("paired bootstrap resampling, {n} resamples"),
        Test::Randomization(n) => format!("paired approximate randomization, {n} trials"),
    };
    let mut text = format!(
        "# bleu-stream {} compare: {what}, seed {seed}, {} segments, {} against the \
         baseline\n",
        env!("CARGO_PKG_VERSION"),
        corpus.len(),
        match corpus.systems.len() - 1 {
            1 => "1 system".to_owned(),
            n => format!("{n} systems"),
        }
    );
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut header = vec!["System".to_owned()];
    for r in results {
        header.push(match test {
            Test::Bootstrap(_) => format!("{} (μ ± 95% CI)", r.name),
            Test::Randomization(_) => r.name.clone(),
        });
    }
    table.push(header);
    for (s, name) in corpus.names.iter().enumerate() {
        let mut row = vec![if s == 0 && corpus.from_files {
            format!("Baseline: {name}")
        } else {
            name.clone()
        }];
        for r in results {
            let c = &r.rows[s];
            let mut cell = format!("{:.width$}", c.score);
            if let Some(i) = &c.interval {
                let _ = write!(cell, " ({:.width$} ± {:.width$})", i.mean, i.ci);
            }
            if let Some(p) = c.p_value {
                let _ = write!(cell, " {}", p_text(p));
            }
            row.push(cell);
        }
        table.push(row);
    }
    let columns = table[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            table
                .iter()
                .map(|row| row[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &table {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            let pad = widths[c] - cell.chars().count();
            line.extend(std::iter::repeat_n(' ', pad));
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    for r in results {
        let _ = writeln!(text, "# {} signature: {}", r.name, r.signature);
    }
    text.push_str(
        "# p: how often chance alone gives a difference from the baseline at least this large; \
         * marks p <= 0.05\n",
    );
    out.extend_from_slice(text.as_bytes());
}

fn write_jsonl(
    out: &mut Vec<u8>,
    corpus: &Corpus,
    test: &Test,
    seed: u64,
    results: &[MetricResult],
) {
    let mut metrics = Map::new();
    for r in results {
        metrics.insert(
            r.key.to_owned(),
            json!({"name": r.name, "signature": r.signature}),
        );
    }
    let header = json!({
        "type": "compare",
        "test": test.name(),
        "samples": test.samples(),
        "seed": seed,
        "segments": corpus.len(),
        "systems": corpus.systems.len() - 1,
        "metrics": metrics,
        "tool": format!("bleu-stream {}", env!("CARGO_PKG_VERSION")),
    });
    let mut lines = vec![header];
    for (s, name) in corpus.names.iter().enumerate() {
        let mut record = Map::new();
        record.insert("type".into(), "system".into());
        record.insert("system".into(), name.clone().into());
        record.insert("baseline".into(), (s == 0).into());
        for r in results {
            let c = &r.rows[s];
            let mut m = Map::new();
            m.insert("score".into(), c.score.into());
            m.insert("p_value".into(), c.p_value.into());
            m.insert("mean".into(), c.interval.map(|i| i.mean).into());
            m.insert("ci".into(), c.interval.map(|i| i.ci).into());
            if let Some(i) = &c.interval {
                m.insert("lower".into(), i.lower.into());
                m.insert("upper".into(), i.upper.into());
            }
            record.insert(r.key.to_owned(), Value::Object(m));
        }
        lines.push(Value::Object(record));
    }
    for line in lines {
        serde_json::to_writer(&mut *out, &line).expect("writing to a Vec");
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_options_are_the_scoring_command_s() {
        // Every option of the scoring command that sets up a metric is offered by compare:
        // both take them from the registry.
        let scoring = crate::cli::command();
        let compare = command();
        for arg in scoring.get_arguments() {
            let heading = arg.get_help_heading().unwrap_or("");
            if heading.contains("options")
                || ["tokenize", "lowercase"].contains(&arg.get_id().as_str())
            {
                assert!(
                    compare.get_arguments().any(|a| a.get_id() == arg.get_id()),
                    "compare does not offer --{}",
                    arg.get_long().unwrap_or("?")
                );
            }
        }
        // `--help` builds (no clashing short or long names).
        command().debug_assert();
        crate::cli::command().debug_assert();
    }

    #[test]
    fn signatures_name_the_test() {
        let sig = "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0";
        assert_eq!(
            Test::Bootstrap(1000).signature(sig, 12345),
            "nrefs:1|bs:1000|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
        );
        assert_eq!(
            Test::Randomization(10000).signature("x", 1),
            "x|ar:10000|seed:1"
        );
        assert_eq!(p_text(0.05), "(p = 0.0500)*");
        assert_eq!(p_text(0.0501), "(p = 0.0501)");
        assert_eq!(p_text(1.0 / 1001.0), "(p = 0.0010)*");
    }
}
