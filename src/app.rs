//! The program: parse arguments, open the inputs, run the pipeline, choose the exit status.

use std::io;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use crate::cli::{Args, Config};
use crate::input::reader::{io_message, LineReader, Plan, ReaderState};
use crate::metric;
use crate::output::{diagnostic, OutputStream, Sink};
use crate::pipeline::{self, Control};
use crate::signals;

/// Exit statuses (documented in the man page).
pub mod status {
    /// Success.
    pub const OK: u8 = 0;
    /// Input could not be read or output could not be written.
    pub const IO: u8 = 1;
    /// Usage error, or a bad line under `--on-error fail`.
    pub const USAGE: u8 = 2;
    /// The final score is below `--fail-under`.
    pub const FAIL_UNDER: u8 = 3;
}

/// Runs the command line and returns the exit status.
pub fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv.get(1).is_some_and(|a| a == "merge") {
        return crate::command::merge::main(argv);
    }
    if argv.get(1).is_some_and(|a| a == "compare") {
        return crate::command::compare::main(argv);
    }
    let args = match Args::try_parse_from(argv) {
        Ok(args) => args,
        Err(e) if e.use_stderr() => {
            // Usage errors carry the tool's prefix like every other error: `bleu-stream: error:`.
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            diagnostic(&format!("error: {}", text.trim_end()));
            return ExitCode::from(status::USAGE);
        }
        Err(e) => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::from(status::OK);
        }
    };
    let config = match args.into_config() {
        Ok(config) => config,
        Err(message) => return fail(status::USAGE, &message),
    };
    ExitCode::from(run(config))
}

fn fail(code: u8, message: &str) -> ExitCode {
    diagnostic(&format!("error: {message}"));
    ExitCode::from(code)
}

/// Runs a validated configuration; returns the exit status.
pub fn run(config: Config) -> u8 {
    let metrics = match metric::build(&config.metric_names, &config.metric_options) {
        Ok(m) => m,
        Err(message) => {
            diagnostic(&format!("error: {message}"));
            return status::USAGE;
        }
    };
    let resampler = match config.confidence {
        None => None,
        Some(settings) => match crate::confidence::Resampler::new(settings, &metrics) {
            Ok(r) => Some(r),
            Err(message) => {
                diagnostic(&format!("error: {message}"));
                return status::USAGE;
            }
        },
    };
    if config.emit_stats {
        if let Some(why) = metrics.iter().find_map(|m| m.merge_refusal()) {
            diagnostic(&format!("error: --emit stats: {why}"));
            return status::USAGE;
        }
    }
    let plan = match open(&config) {
        Ok(plan) => plan,
        Err(message) => {
            diagnostic(&format!("error: {message}"));
            return status::IO;
        }
    };
    let reader_state = Arc::new(ReaderState::default());
    let events = match signals::spawn(Arc::clone(&reader_state)) {
        Ok(events) => events,
        Err(e) => {
            diagnostic(&format!(
                "error: installing signal handlers: {}",
                io_message(&e)
            ));
            return status::IO;
        }
    };
    let out = match OutputStream::open(config.output.as_deref()) {
        Ok(out) => out,
        Err(e) => {
            let path = config.output.as_deref().unwrap_or(Path::new("-")).display();
            diagnostic(&format!("error: {path}: {}", io_message(&e)));
            return status::IO;
        }
    };
    let mut sink = Sink::new(out, config.format, config.mode, config.width);
    sink.line_buffered = config.line_buffered;
    sink.report_file = config.report_file.clone();
    sink.prometheus = config.prometheus.clone();
    let control = Control {
        events,
        reader: reader_state,
    };
    let outcome = match pipeline::run(
        plan,
        &metrics,
        &config.settings,
        resampler,
        &mut sink,
        control,
    ) {
        Ok(outcome) => outcome,
        // `| head -1`: the reader went away; that is not an error worth a word.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return status::OK,
        Err(e) => {
            diagnostic(&format!("error: writing output: {}", io_message(&e)));
            return status::IO;
        }
    };
    if let Some(signal) = outcome.stopped_by {
        // Stopped by SIGINT/SIGTERM after finishing every line read: 128 + signal, by
        // convention.
        return u8::try_from(128 + signal).unwrap_or(status::IO);
    }
    if let Some(message) = &outcome.input_error {
        diagnostic(&format!("error: {message}"));
        return status::IO;
    }
    if outcome.failed_on_bad_line {
        return status::USAGE;
    }
    if let Some(message) = &outcome.stats_error {
        diagnostic(&format!("error: {message}"));
        return status::USAGE;
    }
    fail_under(config.fail_under, &outcome.report)
}

/// `--fail-under X`: status 3 (with a diagnostic) when the first metric's final score is
/// below X, 0 otherwise.
pub fn fail_under(threshold: Option<f64>, report: &crate::output::CorpusReport) -> u8 {
    if let (Some(threshold), Some(first)) = (threshold, report.metrics.first()) {
        // A NaN score (MATLAB semantics on empty input) is not "at least X" either.
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

/// Opens every input stream before anything is written, so a missing file is reported at once.
fn open(config: &Config) -> Result<Plan, String> {
    let reader = |s: &crate::input::reader::Source| -> Result<LineReader, String> {
        Ok(s.reader()?.max_line(config.max_line_bytes))
    };
    if let Some(path) = &config.follow {
        // Fail now, not in the reader thread, if the file cannot be read at all. A file that does
        // not exist yet is waited for, like `tail -F`.
        if let Err(e) = std::fs::File::open(path) {
            if e.kind() != io::ErrorKind::NotFound {
                return Err(format!("{}: {}", path.display(), io_message(&e)));
            }
        }
        return Ok(Plan::Follow {
            path: path.clone(),
            format: config.input,
            refs: config.nrefs,
            max_line: config.max_line_bytes,
        });
    }
    if config.ref_files.is_empty() {
        Ok(Plan::Lines {
            sources: config
                .sources
                .iter()
                .map(reader)
                .collect::<Result<_, _>>()?,
            format: config.input,
            refs: config.nrefs,
        })
    } else {
        let mut streams = vec![reader(&config.sources[0])?];
        for r in &config.ref_files {
            streams.push(reader(r)?);
        }
        Ok(Plan::Parallel { streams })
    }
}
