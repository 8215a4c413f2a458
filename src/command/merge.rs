//! `bleu-stream merge FILE…`: sums stats documents (`--emit stats`) and prints the corpus report
//! of the whole, exactly as one run over all the shards' input would (SPEC §7).

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;
use crossbeam_channel::{bounded, Sender};

use super::finish_write;
use crate::cli::FormatArg;
use crate::diagnostic::{diagnostic, escaped, io_message};
use crate::gate::Gate;
use crate::output::{Format, Mode, OutputStream, Sink};
use crate::stats::Merged;
use crate::stats_stream::{begins, Document, Documents, StreamError, MAX_DOCUMENT_BYTES};
use crate::status;

const AFTER_HELP: &str = "\
Examples:
  parallel --pipe -k --block 16M bleu-stream --refs 2 --emit stats < corpus.tsv | bleu-stream merge
  bleu-stream merge shard-*.json                  the corpus report of all shards
  bleu-stream merge --emit stats a.json b.json    one document again (merge merges)

Documents are summed in the order given (keep the input order, e.g. parallel -k, for NIST's \
table and --confidence's bootstrap to come out exactly as one run makes them; sums do not \
depend on order; bootstrap documents numbered with --first-line that come out of order are \
refused). Documents whose \
metrics, settings or format version differ are refused. Score every shard with the same \
options and explicit framing (--refs N, --input): by default each shard decides them from its \
own first lines.

Exit status: 0 success; 1 a FILE cannot be read or output cannot be written, or as one run \
over the shards' lines would end: no score for -b or a gate, or more bad lines than segments \
that the shards' runs did not expect (--on-error skip); 2 usage error, or documents that are malformed, differ in settings or cannot be merged exactly; 3 final score \
below --fail-under (above --fail-over).";

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
          conflicts_with_all = ["score_only", "fail_under", "fail_over"])]
    pub emit: Option<String>,

    /// Exit with status 3 when the score of the first metric is below X (metrics that are
    /// better when higher: all but TER).
    #[arg(long, value_name = "X")]
    pub fail_under: Option<f64>,

    /// Exit with status 3 when the score of the first metric is above X (metrics that are
    /// better when lower: TER).
    #[arg(long, value_name = "X")]
    pub fail_over: Option<f64>,

    /// Longest stats document accepted, in bytes (suffixes K, M, G: binary multiples; default
    /// 256M, at most 1G): a longer one is an error, found before more than that is held. A
    /// document is parsed whole, into up to 40 times its size in memory (arrays of one-digit
    /// numbers; NIST's tables about 20 times), and two may be held at once (one merged while
    /// the next is read).
    #[arg(long, value_name = "BYTES", default_value = "256M",
          value_parser = |t: &str| crate::cli::parse_size(t, MAX_DOCUMENT_BYTES, "the longest document accepted"))]
    pub max_document_bytes: usize,

    /// At most N distinct groups in all the documents (of runs with --group-by): one more is
    /// an error (status 2). Each group holds its own totals, so this bounds memory as
    /// --max-document-bytes does.
    #[arg(long, value_name = "N", default_value_t = crate::groups::DEFAULT_MAX as u64,
          value_parser = crate::cli::count(1, 100_000_000))]
    pub max_groups: u64,
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
    let gate = Gate {
        under: args.fail_under,
        over: args.fail_over,
    };
    let merged = match read_all(args) {
        Ok(merged) => merged,
        Err((code, message)) => {
            error(&message);
            return code;
        }
    };
    if let Some(first) = merged.metrics.first() {
        if let Err(message) = gate.check(first.key(), first.lower_is_better()) {
            error(&message);
            return status::USAGE;
        }
    }
    let mut out = io::BufWriter::new(OutputStream::Stdout(io::stdout()));
    if args.emit.is_some() {
        let doc = match merged.document() {
            Ok(doc) => doc,
            Err(message) => {
                error(&message);
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
        error(&format!("cannot merge exactly: {why}"));
        return status::USAGE;
    }
    let report = merged.report();
    // As one run over the shards' input ends (`score.rs`): no score where `-b` or a gate
    // asks for one, or more bad lines than scored ones that the shards' runs did not expect
    // (no `--on-error skip`), is an error (status 1) with the reason, never an empty, NaN or
    // few-lines score with status 0. Checked before anything is written, as `-b` would write
    // nothing or `nan`.
    let wants_score = args.score_only || gate.is_set();
    if let Some(why) = report.missing_score(wants_score, merged.bad_lines()) {
        error(&why);
        return status::IO;
    }
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
    gate.status(&report)
}

/// An error diagnostic. Messages quote documents (metric keys, settings, serde's own messages
/// with the offending text) and file names: every one is escaped ([`escaped`]).
fn error(message: &str) {
    diagnostic(&format!("error: {}", escaped(message)));
}

/// What the reading thread hands to the merging one.
enum Item {
    /// A document of `files[file]`.
    Doc { file: usize, doc: Document },
    /// Reading stopped: exit status and message.
    Failed(u8, String),
    /// Every document has been read.
    End,
}

/// Reads and sums every document of every file, in order. A thread reads and parses the
/// documents one at a time while this one merges them (parsing is about half of the work for
/// NIST's tables), through a short queue: a file or stream of many documents is never held
/// whole ([`Documents`]).
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
    let names: Vec<String> = files.iter().map(|f| display_name(f)).collect();
    let (tx, rx) = bounded::<Item>(0);
    let max = args.max_document_bytes;
    // Not scoped: after an error the merge ends at once, even while the reader still waits for
    // standard input.
    std::thread::spawn(move || read_documents(&files, max, &tx));
    let mut merged: Option<Merged> = None;
    loop {
        let (file, doc) = match rx.recv() {
            Ok(Item::Doc { file, doc }) => (file, doc),
            Ok(Item::Failed(code, message)) => return Err((code, message)),
            Ok(Item::End) => break,
            Err(_) => return Err((status::IO, "reading the documents failed".to_owned())),
        };
        let context = |m: String| {
            (
                status::USAGE,
                format!(
                    "{}: document {}: {m} {}",
                    names[file],
                    doc.number,
                    begins(doc.line)
                ),
            )
        };
        let m = match &mut merged {
            Some(m) => m,
            None => {
                merged.insert(Merged::new(&doc.value, args.max_groups as usize).map_err(context)?)
            }
        };
        m.add(&doc.value).map_err(context)?;
    }
    Ok(merged.expect("every file holds a document"))
}

/// `file` as messages name it.
fn display_name(file: &str) -> String {
    if file == "-" {
        "<stdin>".to_owned()
    } else {
        file.to_owned()
    }
}

/// The reading thread: every document of every file, in order, then [`Item::End`]; stops at
/// the first error (or when the merging thread has stopped).
fn read_documents(files: &[String], max: usize, tx: &Sender<Item>) {
    for (index, file) in files.iter().enumerate() {
        let name = display_name(file);
        let sent = if file == "-" {
            send_stream(index, &name, io::stdin().lock(), max, tx)
        } else {
            match std::fs::File::open(file) {
                Ok(f) => send_stream(index, &name, f, max, tx),
                Err(e) => Err((status::IO, format!("{name}: {}", io_message(&e)))),
            }
        };
        match sent {
            Ok(true) => {}
            Ok(false) => return,
            Err((code, message)) => {
                let _ = tx.send(Item::Failed(code, message));
                return;
            }
        }
    }
    let _ = tx.send(Item::End);
}

/// Sends the documents of one file as they are read; `Ok(false)` when the merging thread is
/// gone.
fn send_stream(
    file: usize,
    name: &str,
    input: impl io::Read,
    max: usize,
    tx: &Sender<Item>,
) -> Result<bool, (u8, String)> {
    let mut docs = Documents::new(input, max);
    for doc in &mut docs {
        match doc {
            Ok(doc) => {
                if tx.send(Item::Doc { file, doc }).is_err() {
                    return Ok(false);
                }
            }
            Err(StreamError::Io(e)) => {
                return Err((status::IO, format!("{name}: {}", io_message(&e))))
            }
            Err(StreamError::Invalid(m)) => return Err((status::USAGE, format!("{name}: {m}"))),
        }
    }
    if docs.read_so_far() == 0 {
        // Every `--emit stats` writes a document, even for empty input: an empty file is a
        // shard whose run failed, and summing without it would be silently wrong.
        return Err((
            status::USAGE,
            format!("{name}: no stats documents (write them with --emit stats)"),
        ));
    }
    Ok(true)
}
