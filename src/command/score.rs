//! The scoring command, `bleu-stream [OPTIONS] [FILE]…`: opens the inputs, runs the pipeline
//! and chooses the exit status.

use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::cli::Config;
use crate::diagnostic::{diagnostic, io_message};
use crate::input::group::GroupBy;
use crate::input::reader::{LineReader, Plan, ReaderState, Source};
use crate::output::{report_file, BadLines, OutputStream, Sink};
use crate::pipeline::{self, Control};
use crate::signals;
use crate::status;

/// Runs a validated configuration; returns the exit status.
pub fn run(config: Config, signals: signals::Handlers) -> u8 {
    for note in &config.unused_options {
        diagnostic(&format!("warning: {note}"));
    }
    if let Some(limit) = &config.settings.line_limit {
        diagnostic(&format!("warning: {}", limit.warning()));
    }
    let metrics = &config.metrics;
    let resampler = match config.confidence {
        None => None,
        Some(settings) => match crate::confidence::Resampler::new(settings, metrics) {
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
    if let Err(message) = check_outputs(&config) {
        diagnostic(&format!("error: {message}"));
        return status::USAGE;
    }
    let plan = match open(&config) {
        Ok(plan) => plan,
        Err(message) => {
            diagnostic(&format!("error: {message}"));
            return status::IO;
        }
    };
    let reader_state = Arc::new(ReaderState::default());
    let (events, caught_stop, reports) = match signals::spawn(signals, Arc::clone(&reader_state)) {
        Ok(spawned) => spawned,
        Err(e) => {
            diagnostic(&format!(
                "error: installing signal handlers: {}",
                io_message(&e)
            ));
            return status::IO;
        }
    };
    let out = match OutputStream::open(config.output.as_deref(), || caught_stop.get().is_some()) {
        Ok(Some(out)) => out,
        Ok(None) => {
            // Stopped while `-o` (a FIFO) waited for its reader: nothing was read.
            let signal = caught_stop.get().unwrap_or(libc::SIGTERM);
            let name = if signal == libc::SIGINT {
                "SIGINT"
            } else {
                "SIGTERM"
            };
            diagnostic(&format!(
                "warning: stopped by {name} while -o {} (a FIFO) waited for a reader: nothing \
                 was read",
                config.output.as_deref().unwrap_or(Path::new("-")).display()
            ));
            return u8::try_from(128 + signal).unwrap_or(status::IO);
        }
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
    sink.gated = config.gate.is_set();
    sink.bad_lines = bad_lines(&config);
    sink.inputs = input_ids(&config);
    sink.follow = config.follow.clone();
    let control = Control {
        events,
        reader: reader_state,
        reports,
    };
    let outcome = match pipeline::run(
        plan,
        metrics,
        &config.settings,
        resampler,
        &mut sink,
        control,
    ) {
        Ok(outcome) => outcome,
        Err(e) => return super::finish_write(Err(e)),
    };
    if sink.reports_lost > 0 {
        // Nowhere to say it (stderr is what failed): the status says it.
        return status::IO;
    }
    // A stop whose event the run ended before acting on still sets the status (see
    // `CaughtStop`): every line read was finished either way. It comes before a reader of
    // stdout that went away: a SIGTERM caught while a write waited for a slow reader, who then
    // left, is still the stop it was (found by the streaming audit: status 0).
    let wants_score = config.mode == crate::output::Mode::ScoreOnly || config.gate.is_set();
    if let Some(signal) = outcome.stopped_by.or_else(|| caught_stop.get()) {
        // Stopped by SIGINT/SIGTERM after finishing every line read: 128 + signal, by
        // convention. A score `-b` withheld still gets its reason (found by the review: an
        // empty stdout and no word on a stopped, mostly bad run).
        if let Some(why) = outcome
            .report
            .missing_score(wants_score, bad_lines(&config))
        {
            diagnostic(&format!("error: {why}"));
        }
        return u8::try_from(128 + signal).unwrap_or(status::IO);
    }
    if outcome.output_closed {
        return status::OK;
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
    // Nothing scored where a score was asked for (or at all, or hardly, though lines came):
    // say so and fail, rather than leave a plausible-looking 0.00 or a bare nan with status 0.
    let report = &outcome.report;
    if let Some(why) = report.missing_score(wants_score, bad_lines(&config)) {
        diagnostic(&format!("error: {why}"));
        return status::IO;
    }
    config.gate.status(report)
}

/// How the run's bad lines are judged at its end: a shard (`--emit stats`) of bad lines only
/// is not an error, its document counts them and `merge` decides; nor is it under `--on-error
/// skip`, which says bad lines are expected.
fn bad_lines(config: &Config) -> BadLines {
    if config.emit_stats {
        BadLines::Counted
    } else if config.settings.on_error == crate::pipeline::OnError::Skip {
        BadLines::Skip
    } else {
        BadLines::Fail
    }
}

/// Refuses, before anything is read or written, report files that cannot be replaced safely
/// (a FIFO, device or directory at the path) and any output that is an input, standard
/// output included (writing there would destroy what is being read, or feed it back).
fn check_outputs(config: &Config) -> Result<(), String> {
    for path in [&config.report_file, &config.prometheus]
        .into_iter()
        .flatten()
    {
        report_file::probe(path)?;
    }
    let named: Vec<(&str, &Path)> = [
        ("-o", &config.output),
        ("--report-file", &config.report_file),
        ("--prometheus", &config.prometheus),
    ]
    .into_iter()
    .filter_map(|(flag, path)| path.as_deref().map(|p| (flag, p)))
    .collect();
    if let Some(message) = report_file::clashing_outputs(&named) {
        return Err(message);
    }
    // `--report-file r.json > r.json`: each report would replace what stdout wrote (found by
    // the streaming audit). Only when stdout carries something, that is without -o.
    let stdout = report_file::stdout_id().filter(|_| config.output.is_none());
    for (flag, path) in &named {
        if stdout.is_some() && report_file::file_id(path) == stdout {
            return Err(format!(
                "{flag} {}: is also standard output: a report would replace what is written \
                 there; give it its own file",
                path.display()
            ));
        }
    }
    let outputs: Vec<(&Path, bool)> = [
        (&config.output, true),
        (&config.report_file, false),
        (&config.prometheus, false),
    ]
    .into_iter()
    .filter_map(|(path, follows)| path.as_deref().map(|p| (p, follows)))
    .collect();
    let inputs = input_ids(config);
    let paths: Vec<(String, &Path)> = config
        .sources
        .iter()
        .chain(&config.ref_files)
        .filter_map(|s| match s {
            Source::Stdin => None,
            Source::File(p) => Some((s.name(), p.as_path())),
        })
        .chain(
            config
                .follow
                .iter()
                .map(|p| (p.display().to_string(), p.as_path())),
        )
        .collect();
    if let Some(message) = report_file::same_file(&outputs, &inputs, &paths) {
        return Err(message);
    }
    streams_onto_inputs(config)
}

/// Refuses standard output or standard error redirected onto an input (`bleu-stream f.tsv >>
/// f.tsv`, `--follow log >> log`, `--follow log --every 1 2>> log`): every row or report
/// written would be read again and scored again, and the file would grow until the disk is
/// full (audit: 99.7 MB in 10 s from a 200,000-line file). GNU `cat` refuses "input file is
/// output file" only for an input with bytes left to read when it opens it; this check runs
/// once, before anything is read, so it refuses the same file whatever its size: `bleu-stream
/// *.tsv > scores.tsv`, with `scores.tsv` left from an earlier run, finds it empty (the shell
/// truncated it) and then reads back the rows of the files before it (found by the review of
/// the first version of this check, which let that grow to 24 MB in 3 s). Only the inputs
/// actually read count: standard input is not read with `--follow` or named files.
fn streams_onto_inputs(config: &Config) -> Result<(), String> {
    let streams = [
        (
            "standard output",
            report_file::stdout_id().filter(|_| config.output.is_none()),
        ),
        ("standard error", report_file::stderr_id()),
    ];
    let read = input_ids(config);
    for (stream, id) in streams {
        let Some(id) = id else { continue };
        if let Some((name, _)) = read.iter().find(|(_, input)| *input == Some(id)) {
            return Err(format!(
                "{name}: {stream} is this input: what is written there would be read back as \
                 input without end; redirect {stream} elsewhere{}",
                if stream == "standard output" {
                    " or write the rows to another file (-o FILE)"
                } else {
                    ""
                }
            ));
        }
    }
    Ok(())
}

/// Every input that is read, by name with its device and inode (`--follow`'s file as it is
/// now; standard input only when it is read: not with `--follow`).
fn input_ids(config: &Config) -> Vec<(String, Option<(u64, u64)>)> {
    config
        .sources
        .iter()
        .filter(|_| config.follow.is_none())
        .chain(&config.ref_files)
        .map(|s| match s {
            Source::Stdin => (s.name(), report_file::stdin_id()),
            Source::File(p) => (s.name(), report_file::file_id(p)),
        })
        .chain(
            config
                .follow
                .iter()
                .map(|p| (p.display().to_string(), report_file::file_id(p))),
        )
        .collect()
}

/// Opens every input stream before anything is written, so a missing file is reported at once.
fn open(config: &Config) -> Result<Plan, String> {
    let reader = |s: &crate::input::reader::Source| -> Result<LineReader, String> {
        Ok(s.reader()?.max_line(config.max_line_bytes))
    };
    let key_column = matches!(config.settings.group_by, Some(GroupBy::Column(_)));
    if let Some(path) = &config.follow {
        // Fail now, not in the reader thread, if the file cannot be read at all. A file that does
        // not exist yet is waited for, like `tail -F`. A FIFO is not opened here: opening it
        // waits for a writer, which the reader thread does (a stop ends that wait).
        let checked = std::fs::metadata(path).and_then(|meta| {
            if meta.is_dir() {
                Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "Is a directory",
                ))
            } else if meta.is_file() {
                std::fs::File::open(path).map(drop)
            } else {
                Ok(())
            }
        });
        if let Err(e) = checked {
            if e.kind() != io::ErrorKind::NotFound {
                return Err(format!("{}: {}", path.display(), io_message(&e)));
            }
        }
        return Ok(Plan::Follow {
            path: path.clone(),
            format: config.input,
            refs: config.nrefs,
            key_column,
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
            key_column,
        })
    } else {
        let mut streams = vec![reader(&config.sources[0])?];
        for r in &config.ref_files {
            streams.push(reader(r)?);
        }
        Ok(Plan::Parallel { streams })
    }
}
