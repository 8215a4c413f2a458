//! `bleu-stream compare`: paired significance tests of one or more systems against a baseline
//! on the same segments and references, as sacreBLEU's `--paired-bs` / `--paired-ar` run them
//! ([`crate::significance::paired`]).
//!
//! Unlike scoring, this cannot stream: every resample draws from all segments. The segments are
//! read and scored by the scoring command's reader → workers → merger ([`segments`]) into compact
//! per-segment vectors ([`Vectors`]), which are then resampled; the output is [`render`]ed. A bad
//! line is an error rather than a skipped row, since the systems must stay aligned segment by
//! segment.

mod render;
mod segments;

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches, Parser};

use crate::cli::{FormatArg, Utf8Arg};
use crate::diagnostic::diagnostic;
use crate::input::reader::io_message;
use crate::input::Utf8Policy;
use crate::metric::options::CommonArgs;
use crate::metric::{registry, DynMetric};
use crate::significance::paired::{
    approximate_randomization, paired_bootstrap, Comparison, BOOTSTRAP_SAMPLES,
    RANDOMIZATION_TRIALS,
};
use crate::significance::{Vectors, DEFAULT_SEED};
use crate::status;
use render::{write_jsonl, write_text};

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

Exit status: 0 success; 1 an input cannot be read, streams of different length, a segment \
over --max-line-bytes, or output cannot be written; 2 usage error or bad input (a line with a different number of systems, \
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
    /// options for chrF++), ter, gleu.
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
          help_heading = "Tests", value_parser = crate::cli::count(1, 10_000_000))]
    pub paired_bs_n: u64,

    /// Trials of --paired-ar.
    #[arg(long, value_name = "N", default_value_t = RANDOMIZATION_TRIALS as u64,
          help_heading = "Tests", value_parser = crate::cli::count(1, 10_000_000))]
    pub paired_ar_n: u64,

    /// Seed of the random draws (sacreBLEU's SACREBLEU_SEED default is 12345 too). The same
    /// seed gives the same p-values on every machine and for every number of threads; they are
    /// not sacreBLEU's, whose random numbers come from NumPy.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED, help_heading = "Tests",
          value_parser = crate::cli::count(0, u64::MAX))]
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

    /// Longest segment accepted, in bytes (suffixes K, M, G: binary multiples): a line of every
    /// file (the TSV line or the -i files' lines, and the references') together, as for scoring
    /// with -r; a longer one is an error here, never read whole.
    #[arg(long, value_name = "BYTES", default_value = "16M", value_parser = crate::cli::parse_bytes)]
    pub max_line_bytes: usize,

    /// Options shared by several metrics.
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The `compare` command: [`CompareArgs`] plus every registered metric's own options, so
/// that a metric is set up exactly as the scoring command sets it up.
///
/// The options of metrics that compare refuses (no vector form: [`registry::resamplable`]),
/// and mteval's tokenization switches that only they read, are parsed but hidden from
/// `--help`, so that the help lists what compare can use, while `compare -m nist
/// --nist-order 4` still gets the refusal that names the metrics it supports rather than an
/// unknown-option error.
pub fn command() -> clap::Command {
    let cmd = registry::augment(CompareArgs::command());
    let mut hidden: Vec<String> = ["mteval_international", "case_sensitive"]
        .map(String::from)
        .to_vec();
    for e in registry::REGISTRY
        .iter()
        .filter(|e| !registry::resamplable(e))
    {
        hidden.extend(
            (e.args)(clap::Command::new("x"))
                .get_arguments()
                .map(|a| a.get_id().to_string()),
        );
    }
    let cmd = cmd.mut_args(|a| {
        let hide = a.is_hide_set() || hidden.iter().any(|id| a.get_id() == id.as_str());
        a.hide(hide)
    });
    crate::cli::hyphen_values(cmd)
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
        Ok((args, metrics)) => {
            for note in registry::options_without_their_metric(&args.metrics, &matches) {
                diagnostic(&format!("warning: {note}"));
            }
            if let Some(note) = unused_test_options(&args, &matches) {
                diagnostic(&format!("warning: {note}"));
            }
            ExitCode::from(run(&args, &metrics))
        }
        Err(message) => {
            diagnostic(&format!("error: {message}"));
            ExitCode::from(status::USAGE)
        }
    }
}

/// The count option of the test not run, when given (sacreBLEU ignores it without a word):
/// `--paired-ar --paired-bs-n 100` runs 10,000 randomization trials.
fn unused_test_options(args: &CompareArgs, matches: &ArgMatches) -> Option<String> {
    let given = |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
    let (unused, test) = if args.paired_ar {
        ("paired-bs-n", "--paired-ar")
    } else {
        ("paired-ar-n", "--paired-bs (the default)")
    };
    given(&unused.replace('-', "_"))
        .then(|| format!("--{unused} does nothing here: the test is {test}"))
}

/// Builds the metrics through the registry and refuses those without a vector form.
fn build_metrics(args: &CompareArgs, matches: &ArgMatches) -> Result<Vec<Metric>, String> {
    let metrics = registry::build(&args.metrics, &args.common, matches)?;
    let resamplable = || -> Vec<&str> {
        registry::REGISTRY
            .iter()
            .filter(|e| registry::resamplable(e))
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
pub(crate) struct Metric {
    m: Box<dyn DynMetric>,
    width: usize,
}

/// A failure with its exit status.
pub(crate) type Failure = (u8, String);

fn run(args: &CompareArgs, metrics: &[Metric]) -> u8 {
    match compare(args, metrics) {
        Ok(()) => status::OK,
        Err((code, message)) => {
            diagnostic(&format!("error: {message}"));
            code
        }
    }
}

/// What the resampled scores of one metric may take: a bootstrap keeps every resample's score
/// of every system (8 bytes each) to read the intervals and p-values from. Known before the
/// first draw, so a run past it is refused instead of aborting on a failed allocation (the
/// audit's `--paired-bs-n 10000000` with 1,001 systems asked for 80 GB).
const SAMPLE_BUDGET: usize = 1 << 30;

/// `Err` when `test`'s scores of `systems` systems (the baseline included) pass
/// [`SAMPLE_BUDGET`]. A randomization test keeps one system's trials at a time.
fn check_sample_budget(test: &Test, systems: usize) -> Result<(), Failure> {
    let (n, kept, option) = match *test {
        Test::Bootstrap(n) => (n, systems, "--paired-bs-n"),
        Test::Randomization(n) => (n, 1, "--paired-ar-n"),
    };
    let bytes = n.saturating_mul(kept).saturating_mul(8);
    if bytes <= SAMPLE_BUDGET {
        return Ok(());
    }
    Err((
        status::USAGE,
        format!(
            "{option} {n} with {systems} systems: the resampled scores would take {} MiB (8 \
             bytes per resample and system), more than 1 GiB: use fewer resamples, or compare \
             fewer systems a run",
            bytes >> 20
        ),
    ))
}

fn compare(args: &CompareArgs, metrics: &[Metric]) -> Result<(), Failure> {
    let threads = args
        .threads
        .map_or_else(crate::significance::default_threads, |n| n as usize);
    let utf8 = match args.invalid_utf8 {
        Utf8Arg::Error => Utf8Policy::Error,
        Utf8Arg::Lossy => Utf8Policy::Lossy,
    };
    let scored = segments::score(args, metrics, utf8, threads)?;
    if scored.segments == 0 {
        return Err((status::USAGE, "no segments to compare".to_owned()));
    }
    let test = if args.paired_ar {
        Test::Randomization(args.paired_ar_n as usize)
    } else {
        Test::Bootstrap(args.paired_bs_n as usize)
    };
    check_sample_budget(&test, scored.vectors.len())?;
    let width = args.width as usize;
    let mut results = Vec::new();
    for (k, metric) in metrics.iter().enumerate() {
        let base = &scored.vectors[0][k];
        let systems: Vec<&Vectors> = scored.vectors[1..].iter().map(|v| &v[k]).collect();
        let score = |s: &[u64]| metric.m.score_vector(s);
        let mut rows = match test {
            Test::Bootstrap(n) => paired_bootstrap(base, &systems, n, args.seed, threads, &score),
            Test::Randomization(n) => {
                approximate_randomization(base, &systems, n, args.seed, threads, &score)
            }
        };
        // The scores shown are each system's own corpus score, as the scoring command computes
        // it. The vectors' exact integer sums (TER's average reference lengths in 1/2520ths)
        // serve the resampling, but sacreBLEU sums those averages as floats, which rounds
        // differently with 3 references (found by the significance audit: 117.85714285714286
        // against sacreBLEU's …289).
        for (row, totals) in rows.iter_mut().zip(&scored.totals) {
            row.score = metric.m.score(totals[k].as_ref()).value;
        }
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
        FormatArg::Text => write_text(&mut out, &scored, &test, args.seed, &results, width),
        FormatArg::Jsonl => write_jsonl(&mut out, &scored, &test, args.seed, &results),
    }
    let mut stdout = crate::output::OutputStream::Stdout(io::stdout());
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
        assert_eq!(render::p_text(0.05), "(p = 0.0500)*");
        assert_eq!(render::p_text(0.0501), "(p = 0.0501)");
        assert_eq!(render::p_text(1.0 / 1001.0), "(p = 0.0010)*");
    }
}
