//! Command-line interface: the options (clap) and their translation into run settings.

mod count;
mod duration;
pub mod misuse;

pub use count::count;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches, Parser, ValueEnum};

use crate::gate::Gate;
use crate::input::reader::Source;
use crate::input::{InputFormat, Refs, Utf8Policy};
use crate::metric::options::CommonArgs;
use crate::metric::{registry, DynMetric};
use crate::output::{Format, Mode, RowWriter};
use crate::pipeline::{LineLimit, OnError, Settings};

const ABOUT: &str =
    "Fast, exact, streaming BLEU: sacreBLEU 2.6.0 numbers, bit for bit, line by line.";

const LONG_ABOUT: &str = "\
Fast, exact, streaming machine-translation metric scorer.

Reads segments — TSV lines `hyp<TAB>ref1<TAB>ref2…` (what `paste hyp ref1 ref2` prints), JSON \
Lines {\"hyp\": …, \"refs\": […]}, or a hypothesis stream with parallel reference files (-r) — \
and writes one sentence score per input line to stdout, in input order, then the corpus score \
(computed from summed statistics, exactly as sacreBLEU does) to stderr.

Note: unlike sacreBLEU, TABs on stdin separate the hypothesis from its references, not systems.";

const AFTER_HELP: &str = "\
Examples:
  paste hyp ref | bleu-stream                  sentence BLEU per line, corpus BLEU on stderr
  paste hyp ref1 ref2 | bleu-stream -b         just the corpus score (Makefiles)
  bleu-stream -r ref1 -r ref2 hyp              parallel files, like `sacrebleu ref1 ref2 -i hyp`
  tail -n +1 -F decoder.log | bleu-stream --every 1000   running score every 1000 lines
  paste hyp ref | bleu-stream --confidence -b  the score with sacreBLEU's bootstrap interval

Subcommands (each with its own --help):
  bleu-stream merge FILE...                    sum the stats documents of shards (--emit stats)
  bleu-stream compare -r REF -i BASE SYS...    paired significance tests (--paired-bs/-ar)
  bleu-stream sacrebleu REF... [-i SYS...]     sacreBLEU 2.6.0's own command line, unchanged

Exit status: 0 success; 1 input or output failure (including streams of different length); \
2 usage error, or a bad line with --on-error fail; 3 final score below --fail-under (above \
--fail-over); \
130/143 stopped by SIGINT/SIGTERM after finishing the lines already read.

See bleu-stream(1) for the output formats and every option.";

/// `bleu-stream`'s options.
#[derive(Parser, Debug)]
#[command(
    name = "bleu-stream",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    max_term_width = 100
)]
pub struct Args {
    /// Input files, read one after the other; `-` is standard input (the default). Lines are
    /// numbered across all files; with several, a diagnostic also names the file and its own
    /// line (`line 3 (b.tsv:2)`). With -r: the one hypothesis file.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,

    /// A reference file read line by line in lockstep with the hypotheses (repeatable: one file
    /// per reference). The hypotheses then come from FILE or standard input, one per line.
    #[arg(short = 'r', long = "ref", value_name = "FILE", action = ArgAction::Append)]
    pub refs_files: Vec<String>,

    /// Input framing [default: auto]: `auto` picks jsonl when the first line that is not blank
    /// starts with `{` (after spaces), tsv otherwise; a blank line with a TAB picks tsv.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input: Option<InputArg>,

    /// Number of references per line: N (TSV: N+1 fields; JSONL: N entries in "refs") or `any`
    /// (one or more, varying). Other lines are bad lines. Default for TSV: as many as the first
    /// line with a TAB has, so that a TAB inside a sentence is caught; for JSONL: any.
    #[arg(long = "refs", value_name = "N|any", value_parser = parse_refs)]
    pub nrefs: Option<Refs>,

    /// Longest line accepted, in bytes (suffixes K, M, G: binary multiples); a longer line is a
    /// bad line, skipped without being held in memory. With -r it bounds a segment: the lines
    /// of all its files together.
    #[arg(long, value_name = "BYTES", default_value = "16M", value_parser = parse_bytes)]
    pub max_line_bytes: usize,

    /// Metrics to compute, comma-separated, in output column order: bleu, chrf, ter
    /// (sacreBLEU 2.6.0), nltk-bleu, nltk-chrf, gleu (NLTK 3.10.4), multi-bleu
    /// (multi-bleu.perl), nist, mteval-bleu (mteval-v13a.pl).
    #[arg(
        short,
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "bleu"
    )]
    pub metrics: Vec<String>,

    /// Options shared by several metrics; each metric's own options are added from the
    /// registry ([`command`]).
    #[command(flatten)]
    pub common: CommonArgs,

    /// Worker threads (default: the number of cores). Output does not depend on it.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Decimals of printed scores (rows, -b, text reports).
    #[arg(short, long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(0..=17))]
    pub width: u32,

    /// Print only the final corpus score of each metric, one per line, on stdout (nltk-bleu
    /// with several --weights sets: one score per set, TAB-separated).
    #[arg(short = 'b', long, conflicts_with = "corpus_only")]
    pub score_only: bool,

    /// No per-line rows; the full final report on stdout.
    #[arg(long)]
    pub corpus_only: bool,

    /// Write a running corpus report every N input lines.
    #[arg(long, value_name = "N", value_parser = count(1, MAX_LINE_NUMBER))]
    pub every: Option<u64>,

    /// Output format: text rows and reports, or JSON Lines records on stdout.
    #[arg(short, long, value_enum, default_value_t = FormatArg::Text, value_name = "FORMAT")]
    pub format: FormatArg,

    /// Exit with status 3 when the final score of the first metric is below X (metrics that
    /// are better when higher: all but TER). -inf fails only a run without a score; inf (or
    /// 1e400, read as inf) would fail every run and is refused.
    #[arg(long, value_name = "X")]
    pub fail_under: Option<f64>,

    /// Exit with status 3 when the final score of the first metric is above X (metrics that
    /// are better when lower: TER). inf fails only a run without a score; -inf is refused.
    #[arg(long, value_name = "X")]
    pub fail_over: Option<f64>,

    /// What to do with a bad line: warn (diagnostic, empty row), skip (empty row only), or fail
    /// (diagnostic, final report for the lines before, exit status 2).
    #[arg(long, value_enum, default_value_t = OnErrorArg::Warn, value_name = "POLICY")]
    pub on_error: OnErrorArg,

    /// Invalid UTF-8: a bad line (error), or replaced by U+FFFD (lossy).
    #[arg(long, value_enum, default_value_t = Utf8Arg::Error, value_name = "POLICY")]
    pub invalid_utf8: Utf8Arg,

    /// Flush stdout after every row (default: only when stdout is a terminal; rows are always
    /// flushed when no more input is waiting).
    #[arg(long)]
    pub line_buffered: bool,

    /// Read FILE like `tail -F`: keep reading as it grows, and read it again from the start when
    /// it is truncated or replaced (log rotation), with a running report marking the restart.
    /// A FIFO is read writer after writer. Not `-` (standard input has no name to reopen: pipe
    /// live input in without --follow). Ends on SIGINT/SIGTERM.
    #[arg(long, value_name = "FILE", help_heading = "Live monitoring",
          conflicts_with_all = ["files", "refs_files"])]
    pub follow: Option<PathBuf>,

    /// Write a running corpus report every DURATION (`10s`, `1m30s`, `500ms`, `2h`; a bare
    /// number is seconds), whether lines arrive or not.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse,
          help_heading = "Live monitoring")]
    pub interval: Option<Duration>,

    /// Write the summed statistics of everything read, one JSON document on stdout, instead of
    /// rows and scores, for `bleu-stream merge` to sum with other shards'.
    #[arg(long, value_name = "WHAT", value_parser = ["stats"], help_heading = "Scaling out",
          conflicts_with_all = ["score_only", "corpus_only", "fail_under", "fail_over"])]
    pub emit: Option<String>,

    /// Number of the first input line, for a shard of a larger input: rows, diagnostics and the
    /// weights of --confidence=streaming use global line numbers, so shards merge exactly.
    #[arg(long, value_name = "N", default_value_t = 1, help_heading = "Scaling out",
          value_parser = count(1, MAX_LINE_NUMBER))]
    pub first_line: u64,

    /// Confidence interval of corpus scores (bleu, chrf, ter, gleu): `bootstrap` (the default; like
    /// sacreBLEU --confidence: keeps every segment's statistics, resamples at the end) or
    /// `streaming` (online Poisson bootstrap: constant memory, an interval in every report).
    #[arg(long, value_name = "METHOD", num_args = 0..=1, require_equals = true,
          default_missing_value = "bootstrap", value_parser = ["bootstrap", "streaming"],
          help_heading = "Significance")]
    pub confidence: Option<String>,

    /// Resamples of --confidence (sacreBLEU --confidence-n), or replicates of
    /// --confidence=streaming.
    #[arg(long, value_name = "N", default_value_t = 1000, help_heading = "Significance",
          value_parser = count(1, crate::confidence::MAX_SAMPLES))]
    pub confidence_n: u64,

    /// Seed of the resampling (sacreBLEU's SACREBLEU_SEED default is 12345 too).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 12345,
        help_heading = "Significance",
        value_parser = count(0, u64::MAX)
    )]
    pub seed: u64,

    /// Write rows (and JSONL records) to FILE instead of stdout, appending; SIGHUP reopens it.
    #[arg(short, long, value_name = "FILE", help_heading = "Live monitoring")]
    pub output: Option<PathBuf>,

    /// Per-group corpus scores in one pass: KEY names each line's group — a JSONL field (`NAME`
    /// or `field:NAME`; its value, a string or a number, is the group) or a TSV column (`col:N`,
    /// from 1; that column is then not part of hypothesis/references). Every report carries one
    /// record per group, in order of first appearance, after the overall one. A line without a
    /// key is a bad line. Not with -r parallel files.
    #[arg(long, value_name = "KEY", value_parser = crate::input::group::GroupBy::parse,
          help_heading = "Groups")]
    pub group_by: Option<crate::input::group::GroupBy>,

    /// At most N groups (--group-by): a line of group N+1 stops the run there with an error
    /// (exit status 2); rows and the final report cover the lines before it.
    #[arg(long, value_name = "N", default_value_t = crate::groups::DEFAULT_MAX as u64,
          help_heading = "Groups", requires = "group_by",
          value_parser = count(1, 100_000_000))]
    pub max_groups: u64,

    /// At every report, atomically replace PATH with the report as JSON (the JSONL corpus
    /// record).
    #[arg(long, value_name = "PATH", help_heading = "Live monitoring")]
    pub report_file: Option<PathBuf>,

    /// At every report, atomically replace PATH with the report in the Prometheus text format
    /// (for node_exporter's textfile collector).
    #[arg(long, value_name = "PATH", help_heading = "Live monitoring")]
    pub prometheus: Option<PathBuf>,

    /// Print the man page (`man`) or a shell completion script (`complete-bash`,
    /// `complete-zsh`, `complete-fish`, `complete-powershell`), generated from these option
    /// definitions, and exit.
    #[arg(long, value_enum, value_name = "KIND")]
    pub generate: Option<GenerateArg>,
}

/// `--refs`: a positive number or `any`.
/// Largest `--first-line` and `--every` (2^53, the largest line number a JSON reader keeps
/// exact): line numbers are added to and counted up from them, which must never wrap.
pub const MAX_LINE_NUMBER: u64 = 1 << 53;

/// Largest `--max-line-bytes`: 1 GiB. Tokenizers index a segment with 32-bit offsets, and
/// memory is a multiple of the longest line (see bleu-stream(1), SECURITY AND LIMITS).
pub const MAX_LINE_BYTES: usize = 1 << 30;

fn parse_refs(text: &str) -> Result<Refs, String> {
    let max = crate::input::MAX_REFS;
    match text {
        "any" => Ok(Refs::Any),
        n => match n.parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(Refs::Exactly(n)),
            Ok(n) if n > max => Err(format!(
                "{n} is more than {max}, the most references a line may have"
            )),
            Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Err(format!(
                "{text} is more than {max}, the most references a line may have"
            )),
            _ => Err(format!("'{text}' is neither a positive number nor 'any'")),
        },
    }
}

/// `--max-line-bytes`: a number with an optional K, M or G (powers of 1024).
pub fn parse_bytes(text: &str) -> Result<usize, String> {
    parse_size(text, MAX_LINE_BYTES, "the longest line accepted")
}

/// A size option (`--max-line-bytes`, `merge --max-document-bytes`): a positive number with
/// an optional K, M or G (powers of 1024), at most `max` (`max_means` says what it is).
pub fn parse_size(text: &str, max: usize, max_means: &str) -> Result<usize, String> {
    let (number, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let factor: usize = match unit {
        "" => 1,
        "K" | "k" | "KiB" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        _ => return Err(format!("'{text}' is not a size like 65536, 64K or 16M")),
    };
    if number.is_empty() {
        return Err(format!("'{text}' is not a size like 65536, 64K or 16M"));
    }
    // Digits only from here: a number that does not fit, or overflows with its unit, is a size
    // too large, not "not a size" (issue 19, point 9: diagnostics say what is true).
    match number
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
    {
        Some(0) => Err(format!("'{text}': the limit must be at least 1 byte")),
        Some(n) if n <= max => Ok(n),
        _ => {
            let shown = match max % (1 << 30) {
                0 => format!("{}G", max >> 30),
                _ => max.to_string(),
            };
            Err(format!("'{text}' is more than {shown}, {max_means}"))
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum InputArg {
    Auto,
    Tsv,
    Jsonl,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    Text,
    Jsonl,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OnErrorArg {
    Warn,
    Skip,
    Fail,
}

/// `--generate`: what to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GenerateArg {
    /// The man page (roff), `man/bleu-stream.1`.
    Man,
    CompleteBash,
    CompleteZsh,
    CompleteFish,
    CompletePowershell,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Utf8Arg {
    Error,
    Lossy,
}

/// Everything a run needs, validated.
pub struct Config {
    pub sources: Vec<Source>,
    /// Reference files of parallel mode (empty: TSV/JSONL input).
    pub ref_files: Vec<Source>,
    pub input: InputFormat,
    pub nrefs: Refs,
    pub max_line_bytes: usize,
    /// The metrics, built from their options, in `--metrics` order.
    pub metrics: Vec<Box<dyn DynMetric>>,
    /// Warnings for options of metrics not selected ([`registry::options_without_their_metric`]).
    pub unused_options: Vec<String>,
    pub settings: Settings,
    pub format: Format,
    pub mode: Mode,
    pub width: usize,
    pub line_buffered: bool,
    /// `--fail-under` / `--fail-over`.
    pub gate: Gate,
    /// `--follow FILE`.
    pub follow: Option<PathBuf>,
    /// `--output FILE` (stdout without).
    pub output: Option<PathBuf>,
    pub report_file: Option<PathBuf>,
    pub prometheus: Option<PathBuf>,
    /// `--emit stats`.
    pub emit_stats: bool,
    /// `--confidence`, with `--confidence-n` and `--seed`.
    pub confidence: Option<crate::confidence::Settings>,
    /// `--generate KIND`: print the man page or a completion script instead of scoring.
    pub generate: Option<GenerateArg>,
}

/// The scoring command's options: [`Args`] plus every registered metric's own options.
pub fn command() -> clap::Command {
    hyphen_values(registry::augment(Args::command()))
}

/// `-w -1`, `--fail-under -5`, `--fail-under -inf`, `--smooth-value -nan`: the word after an
/// option that takes one value is that value, even when it starts with a hyphen, and the
/// option's parser then accepts or refuses it with its own message. Without this clap took it
/// for an unknown option and suggested `-- -1`, which passes it as a FILE (found by the input
/// audit); `allow_negative_numbers` alone still refused `-inf` (the numeric-extremes audit),
/// and `merge` had neither. Options that take several values (`compare -i`) or an optional
/// one (`--confidence[=METHOD]`) are left as they are: a hyphen word after them is an option.
pub fn hyphen_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|arg| {
        let option = arg.get_long().is_some() || arg.get_short().is_some();
        let one_value = arg
            .get_num_args()
            .is_none_or(|n| n.min_values() == 1 && n.max_values() == 1);
        if option && arg.get_action().takes_values() && one_value && !arg.is_require_equals_set() {
            arg.allow_hyphen_values(true)
        } else {
            arg
        }
    })
}

/// Parses a command line into a validated [`Config`]: `Err(Ok(e))` is clap's (usage errors,
/// `--help`, `--version`), `Err(Err(message))` a usage error found after parsing.
pub fn parse(
    argv: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<Config, Result<clap::Error, String>> {
    let argv: Vec<std::ffi::OsString> = argv.into_iter().collect();
    misuse::check(&argv).map_err(Err)?;
    let matches = command().try_get_matches_from(argv).map_err(Ok)?;
    let args = Args::from_arg_matches(&matches).map_err(Ok)?;
    args.into_config(&matches).map_err(Err)
}

impl Args {
    /// Validates the options that clap cannot check alone.
    pub fn into_config(self, matches: &ArgMatches) -> Result<Config, String> {
        let mut sources: Vec<Source> = self.files.iter().map(|f| Source::from_arg(f)).collect();
        if sources.is_empty() {
            sources.push(Source::Stdin);
        }
        let ref_files: Vec<Source> = self
            .refs_files
            .iter()
            .map(|f| Source::from_arg(f))
            .collect();
        if !ref_files.is_empty() {
            if sources.len() > 1 {
                return Err("with -r/--ref, give at most one hypothesis FILE".to_owned());
            }
            if self.input.is_some() || self.nrefs.is_some() {
                return Err("-r/--ref reads plain text lines, one per stream: \
                            --input and --refs do not apply"
                    .to_owned());
            }
        }
        let input = match self.input.unwrap_or(InputArg::Auto) {
            InputArg::Auto => InputFormat::Auto,
            InputArg::Tsv => InputFormat::Tsv,
            InputArg::Jsonl => InputFormat::Jsonl,
        };
        let input = match &self.group_by {
            None => input,
            Some(by) => by.check_input(input, !ref_files.is_empty())?,
        };
        if let Some(follow) = &self.follow {
            // `--follow` reopens its file by name after a rotation; standard input has no name
            // (GNU `tail -F -` refuses it the same way). Live standard input needs no
            // `--follow`: each line is scored as it arrives.
            if follow.as_os_str() == "-" {
                return Err("--follow -: standard input cannot be followed by name; \
                            pipe live input in without --follow instead \
                            (`tail -n +1 -F FILE | bleu-stream`: each line is scored as it arrives)"
                    .to_owned());
            }
        }
        let input_detected = input == InputFormat::Auto && ref_files.is_empty();
        let stdin_uses = sources
            .iter()
            .chain(&ref_files)
            .filter(|s| **s == Source::Stdin);
        if stdin_uses.count() > 1 {
            return Err("standard input ('-') can be read only once".to_owned());
        }
        let format = match self.format {
            FormatArg::Text => Format::Text,
            FormatArg::Jsonl => Format::Jsonl,
        };
        let mode = if self.emit.is_some() {
            Mode::Stats
        } else if self.score_only {
            Mode::ScoreOnly
        } else if self.corpus_only {
            Mode::CorpusOnly
        } else {
            Mode::Rows
        };
        let width = self.width as usize;
        let threads = match self.threads {
            Some(n) => n as usize,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let metric_names: Vec<String> = self
            .metrics
            .iter()
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
            .collect();
        let metrics = registry::build(&metric_names, &self.common, matches)?;
        let mut unused_options = registry::options_without_their_metric(&metric_names, matches);
        // sacreBLEU ignores them too, without a word; `compare` warns about its unused counts.
        for (id, flag) in [("confidence_n", "--confidence-n"), ("seed", "--seed")] {
            if self.confidence.is_none()
                && matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
            {
                unused_options.push(format!("{flag} has no effect without --confidence"));
            }
        }
        // multi-bleu.perl compares bytes, and multi-bleu-detok.perl reads a reference's invalid
        // bytes as `\xHH` text: U+FFFD for every invalid sequence makes different bytes match
        // (Perl audit: 100.0 unigram precision where the script gives 0.0).
        if self.invalid_utf8 == Utf8Arg::Lossy && metrics.iter().any(|m| m.key() == "multi-bleu") {
            unused_options.push(
                "--invalid-utf8 lossy: multi-bleu scores a line with invalid UTF-8 with U+FFFD \
                 for each invalid sequence, which then match each other; multi-bleu.perl \
                 compares the bytes themselves, so such lines score differently from the \
                 script's"
                    .to_owned(),
            );
        }
        let line_limit = LineLimit::for_metrics(metrics.iter().map(|m| &**m), self.max_line_bytes);
        let gate = Gate {
            under: self.fail_under,
            over: self.fail_over,
        };
        if let Some(first) = metrics.first() {
            gate.check(first.key(), first.lower_is_better())?;
        }
        Ok(Config {
            sources,
            ref_files,
            input,
            nrefs: self.nrefs.unwrap_or(Refs::Unknown),
            max_line_bytes: self.max_line_bytes,
            metrics,
            unused_options,
            settings: Settings {
                threads,
                utf8: match self.invalid_utf8 {
                    Utf8Arg::Error => Utf8Policy::Error,
                    Utf8Arg::Lossy => Utf8Policy::Lossy,
                },
                rows: RowWriter {
                    format,
                    mode,
                    width,
                },
                on_error: match self.on_error {
                    OnErrorArg::Warn => OnError::Warn,
                    OnErrorArg::Skip => OnError::Skip,
                    OnErrorArg::Fail => OnError::Fail,
                },
                every: self.every,
                interval: self.interval,
                emit_stats: self.emit.is_some(),
                first_line: self.first_line,
                group_by: self.group_by,
                max_groups: usize::try_from(self.max_groups).unwrap_or(usize::MAX),
                input_detected,
                line_limit,
            },
            format,
            mode,
            width,
            line_buffered: self.line_buffered
                || (self.output.is_none() && std::io::stdout().is_terminal()),
            gate,
            follow: self.follow,
            output: self.output,
            report_file: self.report_file,
            prometheus: self.prometheus,
            emit_stats: self.emit.is_some(),
            confidence: self
                .confidence
                .as_deref()
                .map(|m| crate::confidence::Settings {
                    method: if m == "streaming" {
                        crate::confidence::Method::Streaming
                    } else {
                        crate::confidence::Method::Bootstrap
                    },
                    samples: self.confidence_n as usize,
                    seed: self.seed,
                }),
            generate: self.generate,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_and_sizes() {
        assert_eq!(parse_refs("2"), Ok(Refs::Exactly(2)));
        assert_eq!(parse_refs("any"), Ok(Refs::Any));
        assert!(parse_refs("0").is_err() && parse_refs("x").is_err());
        assert_eq!(parse_bytes("16M"), Ok(16 << 20));
        assert_eq!(parse_bytes("64K"), Ok(65536));
        assert_eq!(parse_bytes("100"), Ok(100));
        assert!(parse_bytes("0").is_err() && parse_bytes("1T").is_err());
    }
}
