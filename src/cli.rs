//! Command-line interface: the options (clap) and their translation into run settings.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Parser, ValueEnum};

use crate::input::reader::Source;
use crate::input::{InputFormat, Refs, Utf8Policy};
use crate::metric::bleu::{BleuConfig, SmoothMethod};
use crate::metric::chrf::ChrfConfig;
use crate::metric::gleu::GleuConfig;
use crate::metric::mteval_bleu::{BrevityPenalty, MtevalBleuConfig};
use crate::metric::multi_bleu::{MultiBleuConfig, Script};
use crate::metric::nist::{NistCompat, NistConfig, NistTokenize};
use crate::metric::nltk_bleu::{Compat, NltkBleuConfig};
use crate::metric::nltk_chrf::{Beta, NltkChrfConfig};
use crate::metric::MetricOptions;
use crate::output::{Format, Mode, RowWriter};
use crate::pipeline::{OnError, Settings};
use crate::tokenize::mteval::MtevalTokenizer;
use crate::tokenize::Tokenizer;

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
  tail -f decoder.log | bleu-stream --every 1000   running corpus score every 1000 lines
  paste hyp ref | bleu-stream --confidence -b  the score with sacreBLEU's bootstrap interval

Subcommands (each with its own --help):
  bleu-stream merge FILE...                    sum the stats documents of shards (--emit stats)
  bleu-stream compare -r REF -i BASE SYS...    paired significance tests (--paired-bs/-ar)

Exit status: 0 success; 1 input or output failure (including streams of different length); \
2 usage error, or a bad line with --on-error fail; 3 final score below --fail-under; \
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
    /// Input files, read one after the other; `-` is standard input (the default). With -r: the
    /// one hypothesis file.
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
    /// bad line, skipped without being held in memory.
    #[arg(long, value_name = "BYTES", default_value = "16M", value_parser = parse_bytes)]
    pub max_line_bytes: usize,

    /// Metrics to compute, comma-separated, in output column order: bleu, chrf (sacreBLEU 2.6.0),
    /// nltk-bleu, nltk-chrf, gleu (NLTK 3.10.4), multi-bleu (multi-bleu.perl), nist, mteval-bleu
    /// (mteval-v13a.pl).
    #[arg(
        short,
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "bleu"
    )]
    pub metrics: Vec<String>,

    /// Tokenizer (sacreBLEU -tok): 13a, intl, zh, char or none. Default: 13a for bleu; for
    /// nltk-bleu none at all (Python str.split() only) unless this option is given.
    #[arg(short, long, visible_alias = "tok", value_name = "NAME",
          value_parser = clap::builder::PossibleValuesParser::new(Tokenizer::NAMES))]
    pub tokenize: Option<String>,

    /// Lowercase hypotheses and references before tokenizing (sacreBLEU -lc).
    #[arg(short, long, visible_alias = "lc")]
    pub lowercase: bool,

    /// BLEU smoothing method.
    #[arg(short, long, value_name = "METHOD", default_value = "exp",
          value_parser = ["exp", "floor", "add-k", "none"])]
    pub smooth_method: String,

    /// Smoothing value for floor (default 0.1) and add-k (default 1).
    #[arg(long, value_name = "F")]
    pub smooth_value: Option<f64>,

    /// Maximum n-gram order of BLEU.
    #[arg(long, value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_ngram_order: u32,

    /// Effective order: `auto` is sacreBLEU's choice (on for sentence scores, off for corpus
    /// scores); `yes` or `no` set both.
    #[arg(long, value_enum, default_value_t = EffectiveOrder::Auto, value_name = "WHEN")]
    pub effective_order: EffectiveOrder,

    /// chrF: character n-gram order (sacreBLEU --chrf-char-order).
    #[arg(long, value_name = "N", default_value_t = 6, help_heading = "chrF options",
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub chrf_char_order: u32,

    /// chrF: word n-gram order; 2 gives chrF++ (sacreBLEU --chrf-word-order).
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "chrF options",
          value_parser = clap::value_parser!(u32).range(0..=64))]
    pub chrf_word_order: u32,

    /// chrF: beta, the weight of recall against precision (sacreBLEU --chrf-beta).
    #[arg(long, value_name = "N", default_value_t = 2, help_heading = "chrF options",
          value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub chrf_beta: u32,

    /// chrF: keep white space in character n-grams (sacreBLEU --chrf-whitespace).
    #[arg(long, help_heading = "chrF options")]
    pub chrf_whitespace: bool,

    /// chrF: chrF++.py's epsilon smoothing instead of sacreBLEU's effective-order averaging
    /// (sacreBLEU --chrf-eps-smoothing).
    #[arg(long, help_heading = "chrF options")]
    pub chrf_eps_smoothing: bool,

    /// nltk-bleu: n-gram weights, comma-separated (BLEU-N has N weights). Repeat the option for
    /// several scores from one pass, like NLTK's list of weight tuples. [default: 0.25,0.25,0.25,0.25]
    #[arg(long, value_name = "W1,W2,…", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "NLTK BLEU options")]
    pub weights: Vec<String>,

    /// nltk-bleu: NLTK SmoothingFunction().methodN, N = 0..7 [default: none, which NLTK treats
    /// as method 0].
    #[arg(long, value_name = "N", help_heading = "NLTK BLEU options",
          value_parser = clap::value_parser!(u8).range(0..=7))]
    pub nltk_smoothing: Option<u8>,

    /// nltk-bleu: epsilon of smoothing method 1.
    #[arg(
        long,
        value_name = "X",
        default_value = "0.1",
        allow_hyphen_values = true,
        help_heading = "NLTK BLEU options"
    )]
    pub epsilon: String,

    /// nltk-bleu: alpha of smoothing method 6; `5` (an int) keeps NLTK's exact rational
    /// arithmetic, `5.0` (a float) its float arithmetic.
    #[arg(
        long,
        value_name = "X",
        default_value = "5",
        allow_hyphen_values = true,
        help_heading = "NLTK BLEU options"
    )]
    pub alpha: String,

    /// nltk-bleu: k of smoothing methods 4 and 7.
    #[arg(
        long = "k",
        value_name = "X",
        default_value = "5",
        allow_hyphen_values = true,
        help_heading = "NLTK BLEU options"
    )]
    pub k: String,

    /// nltk-bleu: NLTK's auto_reweigh (uniform weights over the hypothesis length when the
    /// corpus hypothesis length is below 4 and the weights are the default 0.25 ×4).
    #[arg(long, help_heading = "NLTK BLEU options")]
    pub auto_reweigh: bool,

    /// nltk-bleu: `nltk` (NLTK 3.10.4, quirks included) or `matlab` (MATLAB
    /// bleuEvaluationScore: weights normalised to sum 1, score 0 for a candidate shorter than the
    /// weights, NaN when candidate and references are all empty).
    #[arg(long, value_name = "TOOL", default_value = "nltk", help_heading = "NLTK BLEU options",
          value_parser = ["nltk", "matlab"])]
    pub compat: String,

    /// multi-bleu: multi-bleu-detok.perl (mteval 13a tokenization of raw text) instead of
    /// multi-bleu.perl (whitespace tokens).
    #[arg(long, help_heading = "multi-bleu options")]
    pub multi_bleu_detok: bool,

    /// gleu: smallest n-gram order (NLTK min_len; 0 also counts empty n-grams).
    #[arg(long, value_name = "N", default_value_t = 1, help_heading = "GLEU options",
          value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub gleu_min_len: u32,

    /// gleu: largest n-gram order (NLTK max_len).
    #[arg(long, value_name = "N", default_value_t = 4, help_heading = "GLEU options",
          value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub gleu_max_len: u32,

    /// nltk-chrf: smallest character n-gram order (NLTK min_len).
    #[arg(long, value_name = "N", default_value_t = 1, help_heading = "NLTK chrF options",
          value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub nltk_chrf_min_len: u32,

    /// nltk-chrf: largest character n-gram order (NLTK max_len).
    #[arg(long, value_name = "N", default_value_t = 6, help_heading = "NLTK chrF options",
          value_parser = clap::value_parser!(u32).range(0..=1024))]
    pub nltk_chrf_max_len: u32,

    /// nltk-chrf: beta, as a Python number (an integer squares exactly, a float through C pow).
    #[arg(
        long,
        value_name = "X",
        default_value = "3.0",
        help_heading = "NLTK chrF options"
    )]
    pub nltk_chrf_beta: String,

    /// nltk-chrf: keep white space in the strings (NLTK ignore_whitespace=False).
    #[arg(long, help_heading = "NLTK chrF options")]
    pub nltk_chrf_whitespace: bool,

    /// nist: corpus reports follow mteval-v13a.pl (streamed, the default) or NLTK corpus_nist.
    /// Rows always follow NLTK sentence_nist.
    #[arg(long, value_name = "TOOL", default_value = "mteval", help_heading = "NIST options",
          value_parser = ["mteval", "nltk"])]
    pub nist_compat: String,

    /// nist: highest n-gram order N (mteval-v13a: 5; NLTK's n). 1 to 9 follow mteval's
    /// cumulative N-gram columns; 0 makes NLTK raise.
    #[arg(long, value_name = "N", default_value_t = 5, help_heading = "NIST options",
          value_parser = clap::value_parser!(u32).range(0..=9))]
    pub nist_order: u32,

    /// nist: `mteval` (mteval-v13a's own tokenization, see --mteval-international and
    /// --case-sensitive) or `none` (Python str.split() tokens as given, no case folding: NLTK's
    /// usual input).
    #[arg(long, value_name = "NAME", default_value = "mteval", help_heading = "NIST options",
          value_parser = ["mteval", "none"])]
    pub nist_tokenize: String,

    /// nist, mteval-bleu: mteval-v13a's international tokenization
    /// (--international-tokenization) instead of the normal one.
    #[arg(long, help_heading = "mteval options (nist, mteval-bleu)")]
    pub mteval_international: bool,

    /// nist, mteval-bleu: keep case (mteval -c); by default mteval folds ASCII A-Z (normal
    /// tokenization) or applies Perl lc (international).
    #[arg(long, help_heading = "mteval options (nist, mteval-bleu)")]
    pub case_sensitive: bool,

    /// mteval-bleu: BLEU reference length per segment: the closest to the hypothesis length
    /// (ties to the shorter) or the shortest.
    #[arg(long, value_name = "WHICH", default_value = "closest",
          help_heading = "mteval options (nist, mteval-bleu)", value_parser = ["closest", "shortest"])]
    pub brevity_penalty: String,

    /// mteval-bleu: no smoothing (mteval --no-smoothing): 0 when an order has no match.
    #[arg(long, help_heading = "mteval options (nist, mteval-bleu)")]
    pub mteval_no_smoothing: bool,

    /// Worker threads (default: the number of cores). Output does not depend on it.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Decimals of printed scores (rows, -b, text reports).
    #[arg(short, long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(0..=17))]
    pub width: u32,

    /// Print only the final corpus score of each metric, one per line, on stdout.
    #[arg(short = 'b', long, conflicts_with = "corpus_only")]
    pub score_only: bool,

    /// No per-line rows; the full final report on stdout.
    #[arg(long)]
    pub corpus_only: bool,

    /// Write a running corpus report every N input lines.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub every: Option<u64>,

    /// Output format: text rows and reports, or JSON Lines records on stdout.
    #[arg(short, long, value_enum, default_value_t = FormatArg::Text, value_name = "FORMAT")]
    pub format: FormatArg,

    /// Exit with status 3 when the final score of the first metric is below X.
    #[arg(long, value_name = "X")]
    pub fail_under: Option<f64>,

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
    /// Ends on SIGINT/SIGTERM.
    #[arg(long, value_name = "FILE", help_heading = "Live monitoring",
          conflicts_with_all = ["files", "refs_files"])]
    pub follow: Option<PathBuf>,

    /// Write a running corpus report every DURATION (`10s`, `1m`, `500ms`, `2h`; a bare number
    /// is seconds), whether lines arrive or not.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration,
          help_heading = "Live monitoring")]
    pub interval: Option<Duration>,

    /// Write the summed statistics of everything read, one JSON document on stdout, instead of
    /// rows and scores, for `bleu-stream merge` to sum with other shards'.
    #[arg(long, value_name = "WHAT", value_parser = ["stats"], help_heading = "Scaling out",
          conflicts_with_all = ["score_only", "corpus_only", "fail_under"])]
    pub emit: Option<String>,

    /// Number of the first input line, for a shard of a larger input: rows, diagnostics and the
    /// weights of --confidence=streaming use global line numbers, so shards merge exactly.
    #[arg(long, value_name = "N", default_value_t = 1, help_heading = "Scaling out",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub first_line: u64,

    /// Confidence interval of corpus scores (bleu, chrf, gleu): `bootstrap` (the default; like
    /// sacreBLEU --confidence: keeps every segment's statistics, resamples at the end) or
    /// `streaming` (online Poisson bootstrap: constant memory, an interval in every report).
    #[arg(long, value_name = "METHOD", num_args = 0..=1, require_equals = true,
          default_missing_value = "bootstrap", value_parser = ["bootstrap", "streaming"],
          help_heading = "Significance")]
    pub confidence: Option<String>,

    /// Resamples of --confidence (sacreBLEU --confidence-n), or replicates of
    /// --confidence=streaming.
    #[arg(long, value_name = "N", default_value_t = 1000, help_heading = "Significance",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub confidence_n: u64,

    /// Seed of the resampling (sacreBLEU's SACREBLEU_SEED default is 12345 too).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 12345,
        help_heading = "Significance"
    )]
    pub seed: u64,

    /// Write rows (and JSONL records) to FILE instead of stdout, appending; SIGHUP reopens it.
    #[arg(short, long, value_name = "FILE", help_heading = "Live monitoring")]
    pub output: Option<PathBuf>,

    /// At every report, atomically replace PATH with the report as JSON (the JSONL corpus
    /// record).
    #[arg(long, value_name = "PATH", help_heading = "Live monitoring")]
    pub report_file: Option<PathBuf>,

    /// At every report, atomically replace PATH with the report in the Prometheus text format
    /// (for node_exporter's textfile collector).
    #[arg(long, value_name = "PATH", help_heading = "Live monitoring")]
    pub prometheus: Option<PathBuf>,
}

/// `--refs`: a positive number or `any`.
fn parse_refs(text: &str) -> Result<Refs, String> {
    match text {
        "any" => Ok(Refs::Any),
        n => match n.parse::<usize>() {
            Ok(n) if n > 0 => Ok(Refs::Exactly(n)),
            _ => Err(format!("'{text}' is neither a positive number nor 'any'")),
        },
    }
}

/// `--max-line-bytes`: a number with an optional K, M or G (powers of 1024).
fn parse_bytes(text: &str) -> Result<usize, String> {
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
    number
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("'{text}' is not a size like 65536, 64K or 16M"))
}

/// `10s`, `1m`, `500ms`, `2h`, `1.5s`; a bare number is seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a duration like 10s, 1m, 500ms"))?;
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("unknown unit '{other}' (use ms, s, m or h)")),
    };
    let duration = Duration::try_from_secs_f64(seconds).map_err(|e| e.to_string())?;
    if duration < Duration::from_millis(1) {
        return Err("the interval must be at least 1ms".to_owned());
    }
    Ok(duration)
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum InputArg {
    Auto,
    Tsv,
    Jsonl,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum EffectiveOrder {
    Auto,
    Yes,
    No,
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

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Utf8Arg {
    Error,
    Lossy,
}

/// Everything a run needs, validated.
#[derive(Debug)]
pub struct Config {
    pub sources: Vec<Source>,
    /// Reference files of parallel mode (empty: TSV/JSONL input).
    pub ref_files: Vec<Source>,
    pub input: InputFormat,
    pub nrefs: Refs,
    pub max_line_bytes: usize,
    pub metric_names: Vec<String>,
    pub metric_options: MetricOptions,
    pub settings: Settings,
    pub format: Format,
    pub mode: Mode,
    pub width: usize,
    pub line_buffered: bool,
    pub fail_under: Option<f64>,
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
    /// Per metric (in `metric_names` order), its settings as canonical command-line options:
    /// what a stats document records, so that `merge` can compare shards and rebuild the metric.
    pub metric_args: Vec<Vec<String>>,
}

impl Args {
    /// The options that shape metric `key`'s statistics and scores, every one explicit (defaults
    /// included) in `--name=value` form: equal lists mean equal settings, and parsing the list
    /// gives the metric back (`merge`). Unknown metrics get an empty list (`build` rejects them).
    pub fn metric_args(&self, key: &str) -> Vec<String> {
        let mut a = Vec::new();
        let mut opt =
            |name: &str, value: &dyn std::fmt::Display| a.push(format!("--{name}={value}"));
        let mut flags = Vec::new();
        match key {
            "bleu" => {
                // Not the default 13a, so that `-t 13a` and no -t (the same BLEU) merge. Not
                // written as 13a either: without -t, nltk-bleu and gleu split on white space
                // alone, and an explicit 13a would change them when `merge` rebuilds them.
                if let Some(t) = self.tokenize.as_deref().filter(|&t| t != "13a") {
                    opt("tokenize", &t);
                }
                opt("smooth-method", &self.smooth_method);
                if let Some(v) = self.smooth_value {
                    opt("smooth-value", &v);
                }
                opt("max-ngram-order", &self.max_ngram_order);
                let eff = self
                    .effective_order
                    .to_possible_value()
                    .expect("not skipped");
                opt("effective-order", &eff.get_name());
                flags.push(("lowercase", self.lowercase));
            }
            "chrf" => {
                opt("chrf-char-order", &self.chrf_char_order);
                opt("chrf-word-order", &self.chrf_word_order);
                opt("chrf-beta", &self.chrf_beta);
                flags.push(("lowercase", self.lowercase));
                flags.push(("chrf-whitespace", self.chrf_whitespace));
                flags.push(("chrf-eps-smoothing", self.chrf_eps_smoothing));
            }
            "nltk-bleu" => {
                if let Some(t) = &self.tokenize {
                    opt("tokenize", t);
                }
                for w in &self.weights {
                    opt("weights", w);
                }
                if let Some(m) = self.nltk_smoothing {
                    opt("nltk-smoothing", &m);
                }
                opt("epsilon", &self.epsilon);
                opt("alpha", &self.alpha);
                opt("k", &self.k);
                opt("compat", &self.compat);
                flags.push(("lowercase", self.lowercase));
                flags.push(("auto-reweigh", self.auto_reweigh));
            }
            "multi-bleu" => {
                flags.push(("lowercase", self.lowercase));
                flags.push(("multi-bleu-detok", self.multi_bleu_detok));
            }
            "nltk-chrf" => {
                opt("nltk-chrf-min-len", &self.nltk_chrf_min_len);
                opt("nltk-chrf-max-len", &self.nltk_chrf_max_len);
                opt("nltk-chrf-beta", &self.nltk_chrf_beta);
                flags.push(("nltk-chrf-whitespace", self.nltk_chrf_whitespace));
            }
            "gleu" => {
                if let Some(t) = &self.tokenize {
                    opt("tokenize", t);
                }
                opt("gleu-min-len", &self.gleu_min_len);
                opt("gleu-max-len", &self.gleu_max_len);
                flags.push(("lowercase", self.lowercase));
            }
            "nist" => {
                opt("nist-compat", &self.nist_compat);
                opt("nist-order", &self.nist_order);
                opt("nist-tokenize", &self.nist_tokenize);
                flags.push(("mteval-international", self.mteval_international));
                flags.push(("case-sensitive", self.case_sensitive));
            }
            "mteval-bleu" => {
                opt("brevity-penalty", &self.brevity_penalty);
                flags.push(("mteval-international", self.mteval_international));
                flags.push(("case-sensitive", self.case_sensitive));
                flags.push(("mteval-no-smoothing", self.mteval_no_smoothing));
            }
            _ => {}
        }
        a.extend(
            flags
                .into_iter()
                .filter(|&(_, on)| on)
                .map(|(name, _)| format!("--{name}")),
        );
        a
    }

    /// Validates the options that clap cannot check alone.
    pub fn into_config(self) -> Result<Config, String> {
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
        let stdin_uses = sources
            .iter()
            .chain(&ref_files)
            .filter(|s| **s == Source::Stdin);
        if stdin_uses.count() > 1 {
            return Err("standard input ('-') can be read only once".to_owned());
        }
        if self.fail_under.is_some_and(f64::is_nan) {
            return Err("--fail-under needs a number".to_owned());
        }
        let smooth_method = SmoothMethod::from_name(&self.smooth_method)
            .expect("clap only accepts known smoothing methods");
        if let Some(v) = self.smooth_value {
            if !v.is_finite() || v < 0.0 {
                return Err(format!(
                    "--smooth-value must be a non-negative number, not {v}"
                ));
            }
        }
        let (sentence_eff, corpus_eff) = match self.effective_order {
            EffectiveOrder::Auto => (true, false),
            EffectiveOrder::Yes => (true, true),
            EffectiveOrder::No => (false, false),
        };
        let bleu = BleuConfig {
            tokenizer: match &self.tokenize {
                Some(name) => {
                    Tokenizer::from_name(name).expect("clap only accepts known tokenizers")
                }
                None => Tokenizer::T13a,
            },
            lowercase: self.lowercase,
            smooth_method,
            smooth_value: self.smooth_value,
            max_ngram_order: self.max_ngram_order as usize,
            sentence_effective_order: sentence_eff,
            corpus_effective_order: corpus_eff,
        };
        let nltk_bleu = NltkBleuConfig::from_cli(
            self.tokenize.as_deref().and_then(Tokenizer::from_name),
            self.lowercase,
            &self.weights,
            self.nltk_smoothing,
            &self.epsilon,
            &self.alpha,
            &self.k,
            self.auto_reweigh,
            if self.compat == "matlab" {
                Compat::Matlab
            } else {
                Compat::Nltk
            },
        )?;
        let multi_bleu = MultiBleuConfig {
            script: if self.multi_bleu_detok {
                Script::Detok
            } else {
                Script::MultiBleu
            },
            lowercase: self.lowercase,
        };
        let mteval_tokenizer = MtevalTokenizer {
            international: self.mteval_international,
            case_sensitive: self.case_sensitive,
            split_non_ascii: false,
        };
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
        let metric_args: Vec<Vec<String>> =
            metric_names.iter().map(|m| self.metric_args(m)).collect();
        Ok(Config {
            sources,
            ref_files,
            input: match self.input.unwrap_or(InputArg::Auto) {
                InputArg::Auto => InputFormat::Auto,
                InputArg::Tsv => InputFormat::Tsv,
                InputArg::Jsonl => InputFormat::Jsonl,
            },
            nrefs: self.nrefs.unwrap_or(Refs::Unknown),
            max_line_bytes: self.max_line_bytes,
            metric_names,
            metric_options: MetricOptions {
                bleu,
                chrf: ChrfConfig {
                    char_order: self.chrf_char_order as usize,
                    word_order: self.chrf_word_order as usize,
                    beta: self.chrf_beta,
                    lowercase: self.lowercase,
                    whitespace: self.chrf_whitespace,
                    eps_smoothing: self.chrf_eps_smoothing,
                },
                nltk_bleu,
                multi_bleu,
                gleu: GleuConfig {
                    min_len: self.gleu_min_len as usize,
                    max_len: self.gleu_max_len as usize,
                    tokenizer: self.tokenize.as_deref().and_then(Tokenizer::from_name),
                    lowercase: self.lowercase,
                },
                nltk_chrf: NltkChrfConfig {
                    min_len: self.nltk_chrf_min_len as usize,
                    max_len: self.nltk_chrf_max_len as usize,
                    beta: Beta::parse(&self.nltk_chrf_beta)
                        .map_err(|e| format!("--nltk-chrf-beta: {e}"))?,
                    ignore_whitespace: !self.nltk_chrf_whitespace,
                },
                nist: NistConfig {
                    tokenize: if self.nist_tokenize == "none" {
                        NistTokenize::Split
                    } else {
                        NistTokenize::Mteval(mteval_tokenizer)
                    },
                    order: self.nist_order as usize,
                    compat: if self.nist_compat == "nltk" {
                        NistCompat::Nltk
                    } else {
                        NistCompat::Mteval
                    },
                },
                mteval_bleu: MtevalBleuConfig {
                    tokenizer: mteval_tokenizer,
                    brevity_penalty: if self.brevity_penalty == "shortest" {
                        BrevityPenalty::Shortest
                    } else {
                        BrevityPenalty::Closest
                    },
                    smoothing: !self.mteval_no_smoothing,
                },
            },
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
                emit_stats: self.emit.is_some().then(|| metric_args.clone()),
                first_line: self.first_line,
            },
            format,
            mode,
            width,
            line_buffered: self.line_buffered
                || (self.output.is_none() && std::io::stdout().is_terminal()),
            fail_under: self.fail_under,
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
            metric_args,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("10x").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("0s").is_err());
    }

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
