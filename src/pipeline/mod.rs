//! The pipeline of the design card: a **reader** thread frames input into batches, **worker**
//! threads compute per-segment statistics and render rows, and the **merger** (the calling
//! thread) restores input order, writes rows, keeps the running corpus totals and writes reports.
//!
//! Output is byte-identical for every number of threads: workers only ever produce per-batch
//! results, and everything order-dependent (rows, totals, reports) happens in the merger in batch
//! sequence order. Channels are bounded, so a slow consumer of stdout slows the reader down
//! instead of growing buffers: memory stays constant on endless input.
//!
//! The threads themselves, their channels and the reordering are [`stages`], which `compare`
//! runs too; this module is what scoring does in them.

use std::any::Any;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{never, Receiver};

use crate::confidence::Resampler;
use crate::diagnostic::diagnostic;
use crate::groups::Groups;
use crate::input::group::GroupBy;
use crate::input::reader::{self, Batch, Plan, ReaderState};
use crate::input::{frame, Framing, Refs, Utf8Policy};
use crate::metric::{DynMetric, NgramOrders};
use crate::output::{CorpusReport, Format, RowScratch, RowWriter, Sink};
use crate::signals::Event;

pub mod stages;
mod watch;

use stages::{Merge, Work};
use watch::Watch;
pub use watch::TRAILING_RUN;

/// `--on-error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnError {
    /// Diagnostic on stderr, empty row, excluded from the totals.
    Warn,
    /// Empty row, excluded from the totals, no diagnostic.
    Skip,
    /// Diagnostic, then stop: final report over the lines before, exit status 2.
    Fail,
}

/// Pipeline settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub threads: usize,
    pub utf8: Utf8Policy,
    pub rows: RowWriter,
    pub on_error: OnError,
    /// A running corpus report every this many input lines.
    pub every: Option<u64>,
    /// A running corpus report at this interval, whether lines arrive or not.
    pub interval: Option<Duration>,
    /// `--emit stats`: at the end, write a stats document ([`crate::stats`]).
    pub emit_stats: bool,
    /// `--first-line`: the number of the first input line (shards of a larger input number
    /// their lines globally: diagnostics, JSONL `line`, streaming-bootstrap weights).
    pub first_line: u64,
    /// `--group-by`: the key that names each line's group.
    pub group_by: Option<GroupBy>,
    /// `--max-groups`.
    pub max_groups: usize,
    /// `--input auto` (the default): the first non-blank line chose TSV or JSONL.
    pub input_detected: bool,
    /// A line limit below `--max-line-bytes` for metrics that count many n-gram orders.
    pub line_limit: Option<LineLimit>,
}

/// The longest line scored when a metric counts more n-gram orders than its defaults
/// ([`NgramOrders`]): a segment's word n-gram ids take 4 bytes per token and order, so
/// `--gleu-max-len 1024` on a 16 MiB line of one-byte tokens would want tens of GiB (an
/// allocation failure aborts the process and loses every row), and character n-grams are
/// counted order by order (`--nltk-chrf-max-len 1024` took 331 s on a 1.75 MB line, a stop
/// waiting for it). The limit is `--max-line-bytes × base / orders`, which keeps the memory and
/// time per line what they are at the default orders; a longer line is a bad line that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineLimit {
    /// Bytes of a line (its fields and the TABs between them) at most.
    pub bytes: usize,
    /// The metric's orders that set it (the one with the lowest limit).
    orders: NgramOrders,
}

impl LineLimit {
    /// The limit for these metrics, if one of them counts more orders than its defaults.
    pub fn for_metrics<'a>(
        metrics: impl IntoIterator<Item = &'a dyn DynMetric>,
        max_line_bytes: usize,
    ) -> Option<Self> {
        metrics
            .into_iter()
            .filter_map(|m| m.ngram_orders())
            .filter(|o| o.orders > o.base)
            .map(|orders| LineLimit {
                // In 64 bits: `--max-line-bytes` is at most 1 GiB and `base` small.
                bytes: usize::try_from(
                    max_line_bytes as u64 * orders.base as u64 / orders.orders as u64,
                )
                .expect("below --max-line-bytes"),
                orders,
            })
            .min_by_key(|l| l.bytes)
    }

    /// Why, with the limit it divides (`--max-line-bytes`).
    fn why(&self, of: &str) -> String {
        let o = &self.orders;
        format!(
            "{}: every n-gram order takes memory or time per token, so lines are limited to {of} × {} / {}",
            o.option, o.base, o.orders
        )
    }

    /// The warning at the start of a run.
    pub fn warning(&self) -> String {
        format!(
            "lines longer than {} bytes will be skipped ({})",
            self.bytes,
            self.why("--max-line-bytes")
        )
    }

    /// The message of a line of these fields (joined by TABs) over the limit, if it is; `of`
    /// names the limit divided.
    pub fn check(&self, fields: &[&[u8]], of: &str) -> Result<(), String> {
        let bytes = fields.iter().map(|f| f.len()).sum::<usize>() + fields.len().saturating_sub(1);
        if bytes <= self.bytes {
            return Ok(());
        }
        Err(format!(
            "line of {bytes} bytes is longer than {} bytes ({})",
            self.bytes,
            self.why(of)
        ))
    }
}

/// How the outside world steers a run: events (signals) and the state shared with the reader.
pub struct Control {
    pub events: Receiver<Event>,
    pub reader: Arc<ReaderState>,
    /// Served as each [`Event::Report`] is answered, so that requests merge while one waits.
    pub reports: crate::signals::ReportRequests,
}

impl Default for Control {
    /// No signals.
    fn default() -> Control {
        Control {
            events: never(),
            reader: Arc::default(),
            reports: crate::signals::ReportRequests::default(),
        }
    }
}

/// How a run ended.
#[derive(Debug)]
pub struct Outcome {
    /// The final report (also written to the sink).
    pub report: CorpusReport,
    /// The input failed (read error, streams of different length): the message.
    pub input_error: Option<String>,
    /// `--on-error fail` stopped the run at a bad line.
    pub failed_on_bad_line: bool,
    /// The run was stopped by this signal (SIGINT, SIGTERM) after finishing what was read.
    pub stopped_by: Option<i32>,
    /// `--emit stats` could not write exact statistics: why.
    pub stats_error: Option<String>,
    /// Stdout's reader went away (`| head`); the run stopped there.
    pub output_closed: bool,
}

/// What a worker hands the merger for one batch.
struct Done {
    first_line: u64,
    /// Rendered rows of every record, back to back; record `i` ends at `row_ends[i]`.
    rows: Vec<u8>,
    row_ends: Vec<usize>,
    /// Bad records: index in the batch and message, in order.
    bad: Vec<(usize, String)>,
    /// Sentence scores a metric could not give (the reference tool raises): index and message,
    /// in order. The segment still counts for the corpus.
    notes: Vec<(usize, String)>,
    /// Per metric: the statistics of the batch's good records, in order.
    stats: Vec<Box<dyn Any + Send>>,
    /// Per good record: what the merger's [`Watch`] needs to know ([`watch::flags`]).
    flags: Vec<u8>,
    /// `--group-by`: the group keys (JSON text) of the records, back to back; record `i`'s
    /// ends at `key_ends[i]` (an empty key: a bad line whose key could not be read).
    keys: Vec<u8>,
    key_ends: Vec<usize>,
    fatal: Option<String>,
    restart: Option<String>,
    /// How the batch was framed (the reader's framing when it sent the batch).
    framing: Framing,
}

/// Runs the pipeline over `plan`, writing to `sink`. Returns when the input is exhausted, has
/// failed, or output can no longer be written (the `io::Error` then).
pub fn run(
    plan: Plan,
    metrics: &[Box<dyn DynMetric>],
    settings: &Settings,
    resampler: Option<Resampler>,
    sink: &mut Sink,
    control: Control,
) -> io::Result<Outcome> {
    let work = Scoring { metrics, settings };
    let mut merging = Merging {
        merger: Merger::new(metrics, settings, resampler),
        sink,
    };
    merging.merger.watch.reader = Arc::clone(&control.reader);
    merging.merger.watch.line_offset = settings.first_line.saturating_sub(1);
    let result = stages::run(
        plan,
        &work,
        settings.threads,
        &control,
        settings.interval,
        &mut merging,
    );
    let Merging {
        mut merger, sink, ..
    } = merging;
    match result {
        // `| head`: stdout's reader went away. Stop, but still write the final report of the
        // lines merged so far where it can go (stderr, the report files); the command exits
        // quietly.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            sink.close_output();
            let line = merger.segments + merger.bad_lines;
            merger.note = Some(format!("output closed after line {line}"));
            merger.finish(sink).map(|mut outcome| {
                outcome.output_closed = true;
                outcome
            })
        }
        result => result.and_then(|()| merger.finish(sink)),
    }
}

/// The workers' side of scoring: a batch's rows and statistics ([`Done`]).
struct Scoring<'a> {
    metrics: &'a [Box<dyn DynMetric>],
    settings: &'a Settings,
}

impl Work for Scoring<'_> {
    /// Per metric its workspace, and the row renderer's scratch.
    type State = (Vec<Box<dyn Any + Send>>, RowScratch);
    type Done = Done;

    fn state(&self) -> Self::State {
        let workspaces = self.metrics.iter().map(|m| m.new_workspace()).collect();
        (workspaces, RowScratch::default())
    }

    fn max_batch_records(&self) -> usize {
        crate::metric::smallest_batch(self.metrics.iter().map(|m| &**m))
    }

    /// Frames every record, scores the good ones and renders every row (an empty one for a bad
    /// line).
    fn batch(&self, state: &mut Self::State, batch: &mut Batch) -> Done {
        let (metrics, settings) = (self.metrics, self.settings);
        let (workspaces, scratch) = state;
        let n = batch.len();
        let mut framing = batch.framing.expect("the reader sets the framing");
        if let Some(by) = &settings.group_by {
            framing = by.framing(framing);
        }
        let offset = settings.first_line.saturating_sub(1);
        // "3 fields but line 1 has 2" names the line that set the number of fields, in the
        // numbering every diagnostic uses: with --first-line too (review: it said the reader's
        // own number, 1, where the line was shown as 100).
        if let Framing::Tsv {
            refs: Refs::AsLine { line, .. },
        } = &mut framing
        {
            *line = line.saturating_add(offset);
        }
        let first_line = batch.first_line + offset;
        let mut done = Done {
            first_line,
            rows: Vec::new(),
            row_ends: Vec::with_capacity(n),
            bad: Vec::new(),
            notes: Vec::new(),
            stats: metrics.iter().map(|m| m.new_batch(n)).collect(),
            flags: Vec::with_capacity(n),
            keys: Vec::new(),
            key_ends: Vec::new(),
            fatal: batch.fatal.take(),
            restart: batch.restart.take(),
            framing,
        };
        let mut fields = Vec::new();
        let mut notes = Vec::new();
        let mut key_scratch = Vec::new();
        let mut reader_bad = std::mem::take(&mut batch.bad).into_iter().peekable();
        for i in 0..n {
            let line = first_line + i as u64;
            batch.fields(i, &mut fields);
            let over_limit = settings.line_limit.as_ref().and_then(|limit| {
                let message = limit.check(&fields, "--max-line-bytes").err()?;
                Some(format!("{message}: skipped"))
            });
            let bad = reader_bad.next_if(|(r, _)| *r == i).map(|(_, m)| m);
            let framed = match (bad.or(over_limit), &settings.group_by) {
                (Some(message), _) => Err(message),
                (None, None) => frame(framing, &fields, settings.utf8),
                (None, Some(by)) => {
                    let split =
                        by.split(fields[0], settings.utf8, &mut key_scratch, &mut done.keys);
                    match split {
                        Ok(rest) => frame(framing, &[rest], settings.utf8)
                            .map_err(|message| by.explain(message)),
                        Err(message) => Err(message),
                    }
                }
            };
            if settings.group_by.is_some() {
                done.key_ends.push(done.keys.len());
            }
            match framed {
                Ok(segment) => {
                    notes.extend(crate::input::byte_order_mark(framing, &segment));
                    done.flags.push(watch::flags(framing, &segment));
                    settings.rows.segment(
                        line,
                        &segment,
                        metrics,
                        workspaces,
                        &mut done.stats,
                        scratch,
                        &mut done.rows,
                        &mut notes,
                    );
                    done.notes.extend(notes.drain(..).map(|note| (i, note)));
                }
                Err(message) => {
                    // One empty field per column (a metric may write several).
                    let columns = metrics.iter().map(|m| m.columns()).sum();
                    settings
                        .rows
                        .bad_line(line, &message, columns, &mut done.rows);
                    done.bad.push((i, message));
                }
            }
            done.row_ends.push(done.rows.len());
        }
        done
    }
}

/// The merger's side of scoring: [`Merger`] and where it writes.
struct Merging<'a, 's> {
    merger: Merger<'a>,
    sink: &'s mut Sink,
}

impl Merge<Done> for Merging<'_, '_> {
    fn batch(&mut self, done: &mut Done) -> io::Result<bool> {
        self.merger.process(done, self.sink)
    }

    fn idle(&mut self) -> io::Result<()> {
        self.sink.out.flush()
    }

    fn event(&mut self, event: Event) -> io::Result<()> {
        self.merger.event(event, self.sink)
    }

    fn tick(&mut self) -> io::Result<()> {
        self.merger.running_report(self.sink, None)
    }

    fn stopping(&self) -> bool {
        self.merger.stopped_by.is_some()
    }
}

struct Merger<'a> {
    metrics: &'a [Box<dyn DynMetric>],
    settings: &'a Settings,
    totals: Vec<Box<dyn Any + Send>>,
    /// `--confidence`: resampling state kept next to the totals.
    resampler: Option<Resampler>,
    /// `--group-by`: the totals of every group.
    groups: Option<Groups>,
    /// The framing the input was read with, once a line has decided it (stats documents).
    framing: Option<serde_json::Value>,
    segments: u64,
    bad_lines: u64,
    input_error: Option<String>,
    failed_on_bad_line: bool,
    stopped_by: Option<i32>,
    watch: Watch,
    /// Said in the final report (why it ends early).
    note: Option<String>,
}

impl<'a> Merger<'a> {
    fn new(
        metrics: &'a [Box<dyn DynMetric>],
        settings: &'a Settings,
        resampler: Option<Resampler>,
    ) -> Merger<'a> {
        Merger {
            metrics,
            settings,
            totals: metrics.iter().map(|m| m.new_totals()).collect(),
            groups: settings
                .group_by
                .as_ref()
                .map(|_| Groups::new(settings.max_groups, resampler.as_ref().map(|r| r.settings))),
            resampler,
            framing: None,
            segments: 0,
            bad_lines: 0,
            input_error: None,
            failed_on_bad_line: false,
            stopped_by: None,
            watch: Watch::new(
                metrics.iter().any(|m| m.expects_detokenized()),
                settings.input_detected,
            ),
            note: None,
        }
    }

    fn event(&mut self, event: Event, sink: &mut Sink) -> io::Result<()> {
        match event {
            Event::Stop(signal) => {
                self.stopped_by.get_or_insert(signal);
            }
            Event::Report => self.running_report(sink, None)?,
            Event::Reopen => {
                if let Err(e) = sink.reopen() {
                    diagnostic(&format!(
                        "warning: reopening the output after SIGHUP: {}",
                        reader::io_message(&e)
                    ));
                }
            }
        }
        Ok(())
    }

    fn running_report(&self, sink: &mut Sink, note: Option<String>) -> io::Result<()> {
        let mut report = self.report(false);
        report.note = note;
        sink.report(&report)
    }

    /// Writes one batch's rows in order, accumulating statistics and writing due reports.
    /// Returns false when the run must stop.
    fn process(&mut self, done: &mut Done, sink: &mut Sink) -> io::Result<bool> {
        if self.framing.is_none() {
            self.framing = done.framing.record();
        }
        self.watch.framing(done.framing);
        let mut bad = done.bad.iter().peekable();
        let mut notes = done.notes.iter().peekable();
        let mut good = 0usize;
        let mut row_start = 0usize;
        let write_rows = sink.mode == crate::output::Mode::Rows;
        let mut key_start = 0usize;
        for (i, &row_end) in done.row_ends.iter().enumerate() {
            let line = done.first_line + i as u64;
            let row = &done.rows[row_start..row_end];
            row_start = row_end;
            // The line's group (`--group-by`), found before anything is counted: a group past
            // `--max-groups` stops the run at this line, as `--on-error fail` stops at a bad one.
            let group = match &mut self.groups {
                None => None,
                Some(groups) => {
                    let key = &done.keys[key_start..done.key_ends[i]];
                    key_start = done.key_ends[i];
                    match key.is_empty() {
                        true => None,
                        false => match groups.get(key, self.metrics) {
                            Ok(group) => Some(group),
                            Err(message) => {
                                let at = self.watch.line(line);
                                crate::diagnostic::diagnostic(&format!("error: {at}: {message}"));
                                self.note = Some(format!("stopped at {at}: too many groups"));
                                self.failed_on_bad_line = true;
                                return Ok(false);
                            }
                        },
                    }
                }
            };
            if let Some((_, message)) = bad.next_if(|(b, _)| *b == i) {
                self.bad_lines += 1;
                if let Some(group) = group {
                    group.bad_lines += 1;
                }
                self.watch.bad_line();
                match self.settings.on_error {
                    OnError::Warn => self.watch.diagnostic("warning", line, message),
                    OnError::Skip => {}
                    OnError::Fail => {
                        let at = self.watch.line(line);
                        crate::diagnostic::diagnostic(&format!("error: {at}: {message}"));
                        if write_rows && sink.format == Format::Jsonl {
                            sink.out.write_all(row)?;
                        }
                        self.failed_on_bad_line = true;
                        return Ok(false);
                    }
                }
            } else {
                while let Some((_, note)) = notes.next_if(|(n, _)| *n == i) {
                    // Not a bad line: `fail` warns as `warn` does; only `skip` is silent.
                    if self.settings.on_error != OnError::Skip {
                        self.watch.diagnostic("warning", line, note);
                    }
                }
                self.watch.segment(line, done.flags[good]);
                for ((m, t), stats) in self.metrics.iter().zip(&mut self.totals).zip(&done.stats) {
                    m.accumulate(t.as_mut(), stats.as_ref(), good);
                }
                if let Some(group) = group {
                    for ((m, t), stats) in
                        self.metrics.iter().zip(&mut group.totals).zip(&done.stats)
                    {
                        m.accumulate(t.as_mut(), stats.as_ref(), good);
                    }
                    if let Some(r) = &mut group.resampler {
                        if let Err(message) = r.add(self.metrics, &done.stats, good, line) {
                            let at = self.watch.line(line);
                            self.input_error = Some(format!("{at}: --confidence: {message}"));
                            return Ok(false);
                        }
                    }
                    group.segments += 1;
                }
                if let Some(r) = &mut self.resampler {
                    if let Err(message) = r.add(self.metrics, &done.stats, good, line) {
                        // Only a segment with more than 2^32 of one count gets here.
                        let at = self.watch.line(line);
                        self.input_error = Some(format!("{at}: --confidence: {message}"));
                        return Ok(false);
                    }
                }
                good += 1;
                self.segments += 1;
            }
            if write_rows {
                sink.out.write_all(row)?;
            }
            if let Some(every) = self.settings.every {
                // Every input line so far is either a scored segment or a bad line.
                if (self.segments + self.bad_lines).is_multiple_of(every) {
                    self.running_report(sink, None)?;
                }
            }
        }
        if sink.line_buffered {
            sink.out.flush()?;
        }
        if let Some(restart) = done.restart.take() {
            self.running_report(sink, Some(restart))?;
        }
        if let Some(fatal) = done.fatal.take() {
            self.input_error = Some(fatal);
            return Ok(false);
        }
        Ok(true)
    }

    fn report(&self, is_final: bool) -> CorpusReport {
        CorpusReport {
            is_final,
            segments: self.segments,
            bad_lines: self.bad_lines,
            metrics: crate::confidence::scores(
                self.metrics,
                &self.totals,
                self.resampler.as_ref(),
                is_final,
            ),
            note: None,
            groups: self
                .groups
                .as_ref()
                .map_or_else(Vec::new, |g| g.reports(self.metrics, is_final)),
        }
    }

    /// Writes the final report and says how the run ended.
    fn finish(mut self, sink: &mut Sink) -> io::Result<Outcome> {
        if self.settings.on_error != OnError::Skip {
            self.watch.finish();
        }
        let mut report = self.report(true);
        report.note = self.note.take();
        // A failed run (a read error, --on-error fail) writes no statistics: merged with the
        // other shards' they would be silently incomplete; nor a `-b` score. A run stopped by
        // a signal has read a whole input, as at end of file.
        let failed = self.input_error.is_some() || self.failed_on_bad_line;
        sink.run_failed = failed;
        sink.report(&report)?;
        let mut stats_error = None;
        if self.settings.emit_stats && !failed {
            let sums = crate::stats::Sums {
                metrics: self.metrics,
                totals: &self.totals,
                framing: self.framing.as_ref(),
                segments: self.segments,
                bad_lines: self.bad_lines,
                expected_bad_lines: match self.settings.on_error {
                    OnError::Skip => self.bad_lines,
                    _ => 0,
                },
                resampler: self.resampler.as_ref(),
                groups: self.groups.as_ref(),
                group_by: self.settings.group_by.as_ref().map(|g| g.to_string()),
            };
            match sums.document() {
                Ok(doc) => {
                    serde_json::to_writer(&mut sink.out, &doc)?;
                    sink.out.write_all(b"\n")?;
                }
                Err(message) => stats_error = Some(message),
            }
        }
        sink.out.flush()?;
        Ok(Outcome {
            report,
            input_error: self.input_error,
            failed_on_bad_line: self.failed_on_bad_line,
            stopped_by: self.stopped_by,
            stats_error,
            output_closed: false,
        })
    }
}
