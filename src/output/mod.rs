//! Output: how rows and corpus reports look ([`text`], [`jsonl`]) and where they go ([`Sink`]).
//!
//! Rows are rendered by the workers (in parallel) into byte buffers; the merger only copies them
//! out in order, interleaving reports at the exact segment where they are due.

pub mod jsonl;
pub mod prometheus;
pub mod report_file;
mod sink;
pub mod text;

pub use sink::{OutputStream, Sink};

use crate::input::Segment;
use crate::metric::{DynMetric, Score};

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Tab-separated scores per row; reports in sacreBLEU's text form.
    Text,
    /// One JSON object per line for rows, errors and reports.
    Jsonl,
}

/// What is written: rows and reports, the final score(s) only, or the final report only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One row per input line on stdout; reports on stderr (text) or stdout (JSONL).
    Rows,
    /// `-b`: only the final corpus score of each metric, one per line, on stdout.
    ScoreOnly,
    /// `--corpus-only`: no rows; the final report on stdout.
    CorpusOnly,
    /// `--emit stats`: no rows; the final statistics as a stats document on stdout (written by
    /// the merger, [`crate::stats`]); running reports on stderr.
    Stats,
}

/// A corpus report: every metric's score over the segments read so far.
#[derive(Clone, Debug)]
pub struct CorpusReport {
    /// True for the report written at the end of the input.
    pub is_final: bool,
    /// Segments scored (bad lines excluded).
    pub segments: u64,
    /// Bad lines seen (excluded from the totals).
    pub bad_lines: u64,
    /// One score per metric, in `--metrics` order.
    pub metrics: Vec<Score>,
    /// Why this report was written out of turn, if it marks an event (a followed file
    /// restarting).
    pub note: Option<String>,
    /// `--group-by`: one report per group, in order of first appearance.
    pub groups: Vec<GroupReport>,
}

/// The part of a [`CorpusReport`] about one `--group-by` group.
#[derive(Clone, Debug)]
pub struct GroupReport {
    /// The key value as JSON text (a string or a number).
    pub key: String,
    /// Segments of the group scored.
    pub segments: u64,
    /// Bad lines whose key could be read.
    pub bad_lines: u64,
    /// One score per metric, in `--metrics` order.
    pub metrics: Vec<Score>,
}

impl GroupReport {
    /// The key as text: a string's characters, a number as written.
    pub fn label(&self) -> String {
        match serde_json::from_str::<String>(&self.key) {
            Ok(s) => s,
            Err(_) => self.key.clone(),
        }
    }

    /// Whether the key is a JSON number (`7`), not a string (`"7"`): the two are different
    /// groups with the same [`label`](GroupReport::label).
    pub fn is_number(&self) -> bool {
        !self.key.starts_with('"')
    }
}

impl CorpusReport {
    /// Every metric has a defined score over at least one segment: what `-b` and
    /// `--fail-under` need.
    pub fn has_scores(&self) -> bool {
        self.segments > 0 && self.metrics.iter().all(|m| !m.value.is_nan())
    }

    /// More lines were bad than were scored: the input is not what the command line says it
    /// is (a stray TAB in line 1 that set the field count, a reference file given as the TSV
    /// input with one TAB line in it), and a score of the few good lines would pass for the
    /// score of the input.
    pub fn mostly_bad(&self) -> bool {
        self.bad_lines > self.segments
    }

    /// The error a finished run (or `merge`) ends with instead of its score, if any: more
    /// lines were bad than scored, none scored included ([`BadLines::Fail`] and
    /// [`BadLines::Shards`]: not for a shard, whose document `merge` judges, nor under
    /// `--on-error skip`), or a score was asked for (`-b`, a gate) and is missing or NaN.
    /// Rather than a plausible-looking 0.00 or a bare nan with status 0.
    pub fn missing_score(&self, wants_score: bool, bad_lines: BadLines) -> Option<String> {
        let bad = bad_lines.judged() && self.mostly_bad();
        (bad || (wants_score && !self.has_scores())).then(|| self.why_no_scores(bad_lines))
    }

    /// Why [`missing_score`](CorpusReport::missing_score) refuses the report, for the error
    /// message; `bad_lines` says where the bad lines were reported.
    pub fn why_no_scores(&self, bad_lines: BadLines) -> String {
        let see = match (bad_lines, self.bad_lines) {
            (BadLines::Skip, _) => "--on-error skip showed no warning",
            (BadLines::Shards, 1) => "see the shard's warning",
            (BadLines::Shards, _) => "see the shards' warnings",
            (_, 1) => "see the warning",
            _ => "see the warnings",
        };
        if self.segments == 0 {
            match self.bad_lines {
                0 => "the input has no segments".to_owned(),
                1 => format!("no line could be scored: the one line was bad ({see})"),
                n => format!("no line could be scored: all {n} lines were bad ({see})"),
            }
        } else if bad_lines.judged() && self.mostly_bad() {
            let lines = self.bad_lines.saturating_add(self.segments);
            let scored = match self.segments {
                1 => "1 line".to_owned(),
                n => format!("{n} lines"),
            };
            let skip = match bad_lines {
                BadLines::Shards => "run the shards with --on-error skip",
                _ => "pass --on-error skip",
            };
            format!(
                "most lines were bad: {} of {lines} ({see}), so a score would describe only \
                 {scored}; fix the input (in TSV, a stray TAB in line 1 sets the number of \
                 fields for every line after it; -r takes files of one sentence per line), or \
                 {skip} to score the good lines anyway",
                self.bad_lines
            )
        } else {
            // A metric whose reference tool dies or raises says why (its report's `error`);
            // only a score that is NaN by definition (MATLAB's all-empty corpus) says NaN.
            let undefined: Vec<String> = self
                .metrics
                .iter()
                .filter(|m| m.value.is_nan())
                .map(|m| match m.fields.get("error").and_then(|e| e.as_str()) {
                    Some(error) => format!("the {} score is undefined: {error}", m.name),
                    None => format!("the {} score is undefined (NaN)", m.name),
                })
                .collect();
            undefined.join("; ")
        }
    }
}

/// How a finished run treats its bad lines ([`CorpusReport::missing_score`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadLines {
    /// Warned about, and a run that has more of them than scored lines fails.
    Fail,
    /// `--on-error skip`: expected, not shown.
    Skip,
    /// Counted for a later judge: a shard's stats document (`--emit stats`), and `merge
    /// --emit stats` (a merge of merges judges).
    Counted,
    /// `merge` of documents whose bad lines were not all expected (their runs had no
    /// `--on-error skip`, `expected_bad_lines`): judged as [`BadLines::Fail`] judges one run
    /// over the shards' input, the warnings having been the shard runs'.
    Shards,
}

impl BadLines {
    /// Whether more bad lines than scored ones fail the run.
    pub fn judged(self) -> bool {
        matches!(self, BadLines::Fail | BadLines::Shards)
    }
}

/// Renders rows for the workers.
#[derive(Clone, Copy, Debug)]
pub struct RowWriter {
    pub format: Format,
    pub mode: Mode,
    /// Decimals of text scores.
    pub width: usize,
}

/// How a worker renders a sentence score into the row of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RowStyle {
    /// No row (score-only or corpus-only output): statistics only.
    None,
    /// Text with this many decimals.
    Text(usize),
    /// A JSON object.
    Json,
}

/// A worker's scratch for rendering rows.
#[derive(Default)]
pub struct RowScratch {
    scores: Vec<f64>,
}

impl RowWriter {
    fn style(&self) -> RowStyle {
        match (self.mode, self.format) {
            (Mode::ScoreOnly | Mode::CorpusOnly | Mode::Stats, _) => RowStyle::None,
            (Mode::Rows, Format::Text) => RowStyle::Text(self.width),
            (Mode::Rows, Format::Jsonl) => RowStyle::Json,
        }
    }

    /// Computes `segment`'s statistics with every metric — each appends them to its `stats`
    /// batch — and appends the row (if rows are written) to `out`. A metric whose reference tool
    /// has no sentence score here adds `"<metric>: <message>"` to `notes`; its field stays empty
    /// (text) or is `{"error": …}` (JSONL). So does a [`segment_warning`](crate::metric::Metric::segment_warning),
    /// in every output mode.
    #[allow(clippy::too_many_arguments)]
    pub fn segment(
        &self,
        line: u64,
        segment: &Segment<'_>,
        metrics: &[Box<dyn DynMetric>],
        workspaces: &mut [Box<dyn std::any::Any + Send>],
        stats: &mut [Box<dyn std::any::Any + Send>],
        scratch: &mut RowScratch,
        out: &mut Vec<u8>,
        notes: &mut Vec<String>,
    ) {
        let style = self.style();
        if style == RowStyle::Json {
            jsonl::begin_segment(line, segment, out);
        }
        for (i, ((m, ws), st)) in metrics.iter().zip(workspaces).zip(stats).enumerate() {
            let index = m.push_stats(segment, ws.as_mut(), st.as_mut());
            if let Some(warning) = m.segment_warning(st.as_ref(), index) {
                notes.push(format!("{}: {warning}", m.key()));
            }
            let result = match style {
                RowStyle::None => Ok(()),
                RowStyle::Text(width) => {
                    if i > 0 {
                        out.push(b'\t');
                    }
                    scratch.scores.clear();
                    let result = m.sentence_scores(st.as_ref(), index, &mut scratch.scores);
                    match &result {
                        Ok(()) => text::scores(&scratch.scores, width, out),
                        // Keep the row's columns aligned: one empty field per column.
                        Err(_) => text::empty_fields(m.columns(), out),
                    }
                    result
                }
                RowStyle::Json => {
                    jsonl::metric_key(m.key(), out);
                    let result = m.write_sentence(st.as_ref(), index, out);
                    if let Err(message) = &result {
                        jsonl::error_object(message, out);
                    }
                    result
                }
            };
            if let Err(message) = result {
                notes.push(format!("{}: {message}", m.key()));
            }
        }
        match style {
            RowStyle::None => {}
            RowStyle::Text(_) => out.push(b'\n'),
            RowStyle::Json => out.extend_from_slice(b"}\n"),
        }
    }

    /// Appends the row of a bad line: empty score fields (text), an error record (JSONL).
    pub fn bad_line(&self, line: u64, message: &str, metrics: usize, out: &mut Vec<u8>) {
        match self.style() {
            RowStyle::None => {}
            RowStyle::Text(_) => text::bad_row(metrics, out),
            RowStyle::Json => jsonl::error_record(line, message, out),
        }
    }
}
