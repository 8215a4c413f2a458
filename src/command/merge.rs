//! `bleu-stream merge FILE…`: sums stats documents (`--emit stats`) and prints the corpus report
//! of the whole, exactly as one run over all the shards' input would (SPEC §7).

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::app::status;
use crate::cli::{Args, FormatArg};
use crate::input::reader::io_message;
use crate::metric::{self, DynMetric};
use crate::output::{diagnostic, Format, Mode, OutputStream, Sink};
use crate::stats::{self, Merged};

const AFTER_HELP: &str = "\
Examples:
  parallel --pipe -k --block 16M bleu-stream --emit stats < corpus.tsv | bleu-stream merge
  bleu-stream merge shard-*.json                  the corpus report of all shards
  bleu-stream merge --emit stats a.json b.json    one document again (merge merges)

Documents are summed in the order given (keep the input order, e.g. parallel -k, for NIST's \
table to come out exactly as one run builds it; sums do not depend on order). Documents whose \
metrics, settings or format version differ are refused.

Exit status: 0 success; 1 a FILE cannot be read or output cannot be written; 2 usage error, or \
documents that are malformed, differ in settings or cannot be merged exactly; 3 final score \
below --fail-under.";

/// `bleu-stream merge`'s options.
#[derive(Parser, Debug)]
#[command(
    name = "bleu-stream merge",
    version,
    about = "Sum stats documents written by `bleu-stream --emit stats` and print the corpus report.",
    after_help = AFTER_HELP,
    max_term_width = 100
)]
pub struct MergeArgs {
    /// Stats documents: files of one or more documents (JSON Lines); `-` is standard input (the
    /// default).
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,

    /// Decimals of printed scores.
    #[arg(short, long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(0..=17))]
    pub width: u32,

    /// Print only the corpus score of each metric, one per line.
    #[arg(short = 'b', long)]
    pub score_only: bool,

    /// Report format: text (sacreBLEU's lines and signatures) or a JSONL corpus record.
    #[arg(short, long, value_enum, default_value_t = FormatArg::Text, value_name = "FORMAT")]
    pub format: FormatArg,

    /// Write the merged statistics as one stats document instead of the report.
    #[arg(long, value_name = "WHAT", value_parser = ["stats"],
          conflicts_with_all = ["score_only", "fail_under"])]
    pub emit: Option<String>,

    /// Exit with status 3 when the score of the first metric is below X.
    #[arg(long, value_name = "X")]
    pub fail_under: Option<f64>,
}

/// Runs `bleu-stream merge` (`args` includes the program name and `merge`).
pub fn main(args: Vec<OsString>) -> ExitCode {
    // clap sees `bleu-stream merge` as the program name.
    let args = std::iter::once(OsString::from("bleu-stream merge")).chain(args.into_iter().skip(2));
    let args: MergeArgs = match super::parse(args) {
        Ok(args) => args,
        Err(code) => return code,
    };
    ExitCode::from(run(&args))
}

fn run(args: &MergeArgs) -> u8 {
    let width = args.width as usize;
    let merged = match read_all(args) {
        Ok(merged) => merged,
        Err((code, message)) => {
            diagnostic(&format!("error: {message}"));
            return code;
        }
    };
    let mut out = io::BufWriter::new(io::stdout());
    if args.emit.is_some() {
        let doc = match merged.document(width) {
            Ok(doc) => doc,
            Err(message) => {
                diagnostic(&format!("error: {message}"));
                return status::USAGE;
            }
        };
        let written = serde_json::to_writer(&mut out, &doc)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        return finish_write(written);
    }
    if let Some(why) = merged.refusal() {
        diagnostic(&format!("error: cannot merge exactly: {why}"));
        return status::USAGE;
    }
    let report = merged.report(width);
    let format = match args.format {
        FormatArg::Text => Format::Text,
        FormatArg::Jsonl => Format::Jsonl,
    };
    let mode = if args.score_only {
        Mode::ScoreOnly
    } else {
        Mode::CorpusOnly
    };
    let mut sink = Sink::new(OutputStream::Stdout(io::stdout()), format, mode, width);
    let written = sink.report(&report).and_then(|()| sink.out.flush());
    let code = finish_write(written);
    if code != status::OK {
        return code;
    }
    if let (Some(threshold), Some(first)) = (args.fail_under, report.metrics.first()) {
        if first.score.is_nan() || first.score < threshold {
            diagnostic(&format!(
                "{} {} is below --fail-under {threshold}",
                first.name, first.score
            ));
            return status::FAIL_UNDER;
        }
    }
    status::OK
}

fn finish_write(result: io::Result<()>) -> u8 {
    match result {
        Ok(()) => status::OK,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => status::OK,
        Err(e) => {
            diagnostic(&format!("error: writing output: {}", io_message(&e)));
            status::IO
        }
    }
}

/// Reads and sums every document of every file, in order.
fn read_all(args: &MergeArgs) -> Result<Merged, (u8, String)> {
    let files = if args.files.is_empty() {
        vec!["-".to_owned()]
    } else {
        args.files.clone()
    };
    if files.iter().filter(|f| *f == "-").count() > 1 {
        return Err((
            status::USAGE,
            "standard input ('-') can be read only once".to_owned(),
        ));
    }
    let mut merged: Option<Merged> = None;
    for file in &files {
        let (name, text) = read(file).map_err(|m| (status::IO, m))?;
        let docs = stats::parse_documents(&text, &name).map_err(|m| (status::USAGE, m))?;
        for (i, doc) in docs.iter().enumerate() {
            let context = |m: String| (status::USAGE, format!("{name}: document {}: {m}", i + 1));
            let m = match &mut merged {
                Some(m) => m,
                None => merged.insert(Merged::new(doc, &build).map_err(context)?),
            };
            m.add(doc).map_err(context)?;
        }
    }
    merged.ok_or_else(|| {
        (
            status::USAGE,
            format!("no stats documents in {}", files.join(", ")),
        )
    })
}

fn read(file: &str) -> Result<(String, Vec<u8>), String> {
    let mut text = Vec::new();
    if file == "-" {
        io::stdin()
            .lock()
            .read_to_end(&mut text)
            .map_err(|e| format!("<stdin>: {}", io_message(&e)))?;
        Ok(("<stdin>".to_owned(), text))
    } else {
        let text = std::fs::read(file).map_err(|e| format!("{file}: {}", io_message(&e)))?;
        Ok((file.to_owned(), text))
    }
}

/// Rebuilds the metrics of a document from their keys and canonical options, through the
/// scoring command's own option parser, and checks that the options are what that parser
/// would write for them (a hand-edited or inconsistent document is refused).
pub fn build(keys: &[String], options: &[Vec<String>]) -> Result<Vec<Box<dyn DynMetric>>, String> {
    let mut argv = vec![
        "bleu-stream".to_owned(),
        format!("--metrics={}", keys.join(",")),
    ];
    // Options shared by several metrics (--lowercase, --tokenize) are given once.
    let mut seen: HashSet<&str> = HashSet::new();
    for opts in options {
        let name = |o: &'_ String| -> String { o.split('=').next().unwrap_or(o).to_owned() };
        let new: HashSet<String> = opts
            .iter()
            .map(name)
            .filter(|n| !seen.contains(n.as_str()))
            .collect();
        argv.extend(opts.iter().filter(|o| new.contains(&name(o))).cloned());
        for o in opts {
            let n = o.split('=').next().unwrap_or(o);
            seen.insert(n);
        }
    }
    let config = Args::try_parse_from(&argv)
        .map_err(|e| {
            let text = e.render().to_string();
            format!(
                "invalid metric options {:?}: {}",
                &argv[1..],
                text.trim_end()
            )
        })
        .and_then(|args| args.into_config())?;
    if config.metric_args != options {
        return Err(format!(
            "inconsistent metric options {:?} (not what one run writes)",
            &argv[1..]
        ));
    }
    metric::build(&config.metric_names, &config.metric_options)
}
