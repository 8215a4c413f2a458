//! Input that scores, but probably not as the user meant: the merger shows each segment to a
//! [`Watch`], which says once what looks wrong, and caps repeated diagnostics so that a file of
//! the wrong shape does not flood the terminal.

use std::collections::HashMap;
use std::sync::Arc;

use crate::diagnostic::diagnostic;
use crate::input::reader::ReaderState;
use crate::input::{Framing, Segment};

/// The hypothesis is empty.
pub const EMPTY_HYP: u8 = 1;
/// A reference is empty.
pub const EMPTY_REF: u8 = 2;
/// The hypothesis ends in a tokenized period (` .`).
pub const TOKENIZED: u8 = 4;
/// A hypothesis read from a parallel file (`-r`) that looks like a whole TSV or JSONL record:
/// it has a TAB, or starts with `{"`.
pub const HYP_RECORD: u8 = 8;

/// Diagnostics of one kind printed before the rest are only counted.
pub const DIAGNOSTICS_PER_KIND: u64 = 25;

/// sacreBLEU's threshold for its "tokenized period" warning (`metrics/base.py`): 100
/// hypotheses that end in ` .`.
const TOKENIZED_LINES: u64 = 100;

/// Trailing runs of lines with an empty side shorter than this are not reported: a corpus may
/// well end in one empty hypothesis. (`compare` reports its TSV columns' runs alike.)
pub const TRAILING_RUN: u64 = 2;

/// What the merger needs to know of a segment, computed by the worker that framed it.
pub fn flags(framing: Framing, segment: &Segment<'_>) -> u8 {
    let mut f = 0;
    if framing == Framing::Parallel && looks_like_a_record(&segment.hyp) {
        f |= HYP_RECORD;
    }
    if segment.hyp.is_empty() {
        f |= EMPTY_HYP;
    }
    if segment.refs.iter().any(|r| r.is_empty()) {
        f |= EMPTY_REF;
    }
    // sacreBLEU checks the hypothesis as its CLI read it (right-stripped).
    if crate::unicode::py_rstrip(&segment.hyp).ends_with(" .") {
        f |= TOKENIZED;
    }
    f
}

/// A hypothesis line that holds a TAB, or starts with `{"` (white space allowed around the `{`,
/// and a byte order mark before it): a TSV or JSONL record given as a `-r` hypothesis file
/// ([`HYP_RECORD`]).
fn looks_like_a_record(hyp: &str) -> bool {
    let start = hyp.strip_prefix('\u{feff}').unwrap_or(hyp).trim_start();
    let object = start
        .strip_prefix('{')
        .is_some_and(|rest| rest.trim_start().starts_with('"'));
    object || memchr::memchr(b'\t', hyp.as_bytes()).is_some()
}

/// The merger's watch over the segments and diagnostics of a run.
#[derive(Default)]
pub struct Watch {
    /// Warn about tokenized-looking hypotheses (a metric that expects detokenized text).
    detokenized: bool,
    tokenized: u64,
    /// The current run of good lines whose hypothesis (or a reference) is empty: its first
    /// line, its length and which side.
    run: Option<(u64, u64, u8)>,
    /// Diagnostics printed and suppressed, by kind, with the first message of the kind.
    kinds: HashMap<String, (u64, u64, String)>,
    /// A line with a TAB has been seen (so "no TAB" is not the sacreBLEU layout).
    segments: u64,
    /// `--input auto`: the format was chosen by the first non-blank line.
    detected: bool,
    /// The framing of the lines seen so far ([`Watch::framing`]).
    framing: Option<Framing>,
    /// The hint that `--input auto` took TSV for JSONL was given.
    hinted_jsonl: bool,
    /// The warning that a `-r` hypothesis looks like a TSV or JSONL record was given.
    warned_record: bool,
    /// The reader's state: which input file a line number is in ([`Watch::line`]).
    pub reader: Arc<ReaderState>,
    /// `--first-line` − 1: what the line numbers shown add to the reader's.
    pub line_offset: u64,
}

impl Watch {
    /// A watch; `detokenized`: a metric expects detokenized text; `detected`: the input format
    /// is `--input auto`'s guess.
    pub fn new(detokenized: bool, detected: bool) -> Watch {
        Watch {
            detokenized,
            detected,
            ..Watch::default()
        }
    }

    /// How a diagnostic names input line `line`: `line 3`, and with several input files also
    /// the file and the line's own number in it, `line 3 (b.tsv:2)` ([`ReaderState::file_line`]).
    pub fn line(&self, line: u64) -> String {
        line_label(&self.reader, self.line_offset, line)
    }

    /// The framing of the batch at hand (JSONL or TSV once the reader has decided it).
    pub fn framing(&mut self, framing: Framing) {
        self.framing = Some(framing);
    }

    /// A good segment at `line` with [`flags`] `f`.
    pub fn segment(&mut self, line: u64, f: u8) {
        self.segments += 1;
        if f & HYP_RECORD != 0 && !self.warned_record {
            // `paste hyp ref | bleu-stream -r ref` or a JSONL file given with -r: each line is
            // then one hypothesis, the reference's words (or the JSON) scored as part of it, as
            // sacreBLEU would score such a file, and the score looks plausible (found by the
            // input audit).
            self.warned_record = true;
            diagnostic(&format!(
                "warning: {}: the hypothesis has a TAB or starts with '{{\"': with -r, \
                 each line of the hypothesis file is one sentence, TABs and all (as sacreBLEU \
                 reads it); to score hypothesis<TAB>reference lines (paste) or JSON Lines, leave \
                 out -r",
                self.line(line)
            ));
        }
        if f & TOKENIZED != 0 && self.detokenized {
            self.tokenized += 1;
            if self.tokenized == TOKENIZED_LINES {
                diagnostic(&format!(
                    "warning: {}: that's {TOKENIZED_LINES} hypotheses that end in a \
                     tokenized period (' .'): the output looks tokenized, which hurts BLEU on \
                     detokenized references (sacreBLEU warns the same); score detokenized \
                     text",
                    self.line(line)
                ));
            }
        }
        let side = f & (EMPTY_HYP | EMPTY_REF);
        self.run = match (self.run, side) {
            (_, 0) => None,
            (Some((start, n, s)), side) if s == side => Some((start, n + 1, s)),
            (_, side) => Some((line, 1, side)),
        };
    }

    /// A bad line: breaks a run of empty sides.
    pub fn bad_line(&mut self) {
        self.run = None;
    }

    /// Prints `text` (`warning: line N: message`) unless `DIAGNOSTICS_PER_KIND` of its kind
    /// were printed already. The kind is the message with its digits left out, so that "3
    /// fields where…" and "4 fields where…" count together.
    pub fn diagnostic(&mut self, severity: &str, line: u64, message: &str) {
        let kind: String = message.chars().filter(|c| !c.is_ascii_digit()).collect();
        let (printed, suppressed, first) = self.kinds.entry(kind).or_default();
        if first.is_empty() {
            message.clone_into(first);
        }
        // The sacreBLEU layout (`bleu-stream ref.txt < hyp.txt`): while no line has had a TAB,
        // one message with the hint says it all; the rest are counted.
        let layout = self.segments == 0 && message.starts_with("no TAB");
        if layout && *printed >= 1 {
            *suppressed += 1;
        } else if *printed < DIAGNOSTICS_PER_KIND {
            *printed += 1;
            let at = line_label(&self.reader, self.line_offset, line);
            let mut text = format!("{severity}: {at}: {message}");
            let not_json = message.starts_with("invalid JSON") || message.starts_with("not a JSON");
            if self.detected
                && self.segments == 0
                && !self.hinted_jsonl
                && not_json
                && matches!(self.framing, Some(Framing::Jsonl { .. }))
            {
                self.hinted_jsonl = true;
                // A TSV file whose first hypothesis starts with `{` (a placeholder, a code
                // snippet) is taken for JSONL, and every line is then bad JSON.
                text.push_str(
                    " — the input was taken as JSONL because its first non-blank line starts \
                     with '{'; for TSV lines (hypothesis<TAB>reference) give --input tsv",
                );
            }
            if self.segments == 0 && *printed == 1 && message.starts_with("no TAB") {
                text.push_str(
                    " — no line so far has a TAB: to score a hypothesis file against reference \
                     files (sacreBLEU's `sacrebleu ref.txt < hyp.txt`), give the references with \
                     -r: bleu-stream -r ref.txt hyp.txt, or run sacreBLEU's command line as it \
                     is: bleu-stream sacrebleu ref.txt < hyp.txt (further lines without a TAB \
                     are counted, not shown, until a line has one)",
                );
            }
            if *printed == DIAGNOSTICS_PER_KIND && !layout {
                text.push_str(" (further lines like this are counted, not shown)");
            }
            diagnostic(&text);
        } else {
            *suppressed += 1;
        }
    }

    /// At the end of the input: what the watch noticed and has not said yet.
    pub fn finish(&mut self) {
        let mut suppressed: Vec<(&String, u64)> = self
            .kinds
            .values()
            .filter(|(_, s, _)| *s > 0)
            .map(|(_, s, first)| (first, *s))
            .collect();
        suppressed.sort();
        for (first, n) in suppressed {
            let mut example: String = first.chars().take(60).collect();
            if example.len() < first.len() {
                example.push('…');
            }
            diagnostic(&format!(
                "warning: {n} more line{} like \"{example}\" not shown",
                if n == 1 { "" } else { "s" },
            ));
        }
        // Only `paste`'s TSV pads a shorter file with empty fields: parallel files (-r) report
        // a length mismatch as an error, and JSONL records are written whole.
        let pasted = matches!(self.framing, Some(Framing::Tsv { .. }));
        if let Some((start, n, side)) = self.run.filter(|_| pasted) {
            if n >= TRAILING_RUN {
                let what = if side & EMPTY_HYP != 0 {
                    "an empty hypothesis"
                } else {
                    "an empty reference"
                };
                diagnostic(&format!(
                    "warning: the last {n} lines, from {} on, have {what}: the inputs \
                     probably differ in length (paste pads the shorter file with empty fields), \
                     and the score counts those lines; check with `wc -l`, or give the files \
                     with -r, which reports a length mismatch as an error",
                    self.line(start)
                ));
            }
        }
    }
}

/// [`Watch::line`] (a function of the fields it reads, for where the watch is borrowed).
fn line_label(reader: &ReaderState, offset: u64, line: u64) -> String {
    match reader.file_line(line.saturating_sub(offset)) {
        Some((name, n)) => format!("line {line} ({name}:{n})"),
        None => format!("line {line}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trailing_run_of_one_side_is_found() {
        let mut w = Watch::default();
        w.segment(1, 0);
        w.segment(2, EMPTY_HYP);
        w.segment(3, 0);
        w.segment(4, EMPTY_HYP);
        w.segment(5, EMPTY_HYP);
        assert_eq!(w.run, Some((4, 2, EMPTY_HYP)));
        w.segment(6, EMPTY_REF);
        assert_eq!(w.run, Some((6, 1, EMPTY_REF)));
        w.bad_line();
        assert_eq!(w.run, None);
    }

    #[test]
    fn the_sacrebleu_layout_gets_one_message_until_a_line_has_a_tab() {
        let mut w = Watch::default();
        for line in 1..=50 {
            w.diagnostic("warning", line, "no TAB: expected hypothesis<TAB>reference");
        }
        assert_eq!(
            w.kinds.values().map(|(p, s, _)| (*p, *s)).next(),
            Some((1, 49))
        );
        // Once a line had a TAB, a line without one is an ordinary bad line again.
        w.segment(51, 0);
        w.diagnostic("warning", 52, "no TAB: expected hypothesis<TAB>reference");
        assert_eq!(
            w.kinds.values().map(|(p, s, _)| (*p, *s)).next(),
            Some((2, 49))
        );
    }

    #[test]
    fn diagnostics_are_capped_per_kind() {
        let mut w = Watch::default();
        for line in 0..100 {
            w.diagnostic(
                "warning",
                line,
                &format!("{} fields where --refs 1 expects 2", line % 5),
            );
        }
        w.diagnostic("warning", 101, "invalid UTF-8 at byte 3");
        let counts: Vec<(u64, u64)> = {
            let mut v: Vec<_> = w.kinds.values().map(|(p, s, _)| (*p, *s)).collect();
            v.sort();
            v
        };
        assert_eq!(
            counts,
            [(1, 0), (DIAGNOSTICS_PER_KIND, 100 - DIAGNOSTICS_PER_KIND)]
        );
    }
}
