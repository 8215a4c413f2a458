//! Input: reading lines into batches ([`reader`]) and framing one line into a [`Segment`]
//! ([`tsv`], [`jsonl`], or already-separate lines of parallel files).
//!
//! Framing runs on the worker threads, so JSON parsing and UTF-8 validation are parallel too; the
//! reader thread only finds line ends.

pub mod group;
pub mod jsonl;
pub mod reader;
pub mod tsv;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use smallvec::SmallVec;

/// The references of a [`Segment`].
pub type SegmentRefs<'a> = SmallVec<[Cow<'a, str>; 2]>;

/// One hypothesis with its references, borrowed from the input line where possible.
#[derive(Debug, Clone)]
pub struct Segment<'a> {
    /// The hypothesis.
    pub hyp: Cow<'a, str>,
    /// The references present for this segment (never empty). An empty string is an empty
    /// reference (sacreBLEU CLI semantics), not a missing one. Inline for up to two: a segment
    /// is made per line, and a heap allocation each costs measurably at hundreds of thousands of
    /// lines per second.
    pub refs: SegmentRefs<'a>,
    /// JSONL `"id"`, echoed verbatim in JSONL output (owned when the line was repaired by
    /// `--invalid-utf8 lossy`).
    pub id: Option<Cow<'a, RawValue>>,
    /// The fields are exact strings (JSONL), scored as sacreBLEU's Python API scores the
    /// strings it is given; otherwise they are lines of files (TSV, `-r` files), which the
    /// sacreBLEU CLI `rstrip`s. Only chrF with `--chrf-whitespace` sees the difference.
    pub exact: bool,
}

impl Segment<'_> {
    /// Calls `f` with the hypothesis and the references as plain `&str`s — what every metric's
    /// statistics take — without allocating for up to eight references.
    pub fn with_refs<R>(&self, f: impl FnOnce(&str, &[&str]) -> R) -> R {
        let mut inline: [&str; 8] = [""; 8];
        if self.refs.len() <= inline.len() {
            for (slot, r) in inline.iter_mut().zip(&self.refs) {
                *slot = r;
            }
            f(&self.hyp, &inline[..self.refs.len()])
        } else {
            let refs: Vec<&str> = self.refs.iter().map(|r| &**r).collect();
            f(&self.hyp, &refs)
        }
    }
}

/// The smallest and largest number of references of the segments summed so far: sacreBLEU's
/// signature says `nrefs:N`, or `nrefs:var` when the number varies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RefCounts(Option<(usize, usize)>);

impl RefCounts {
    /// Counts one segment with `n` references.
    pub fn add(&mut self, n: usize) {
        self.0 = Some(match self.0 {
            None => (n, n),
            Some((lo, hi)) => (lo.min(n), hi.max(n)),
        });
    }

    /// Counts of one segment with `n` references.
    pub fn one(n: usize) -> RefCounts {
        RefCounts(Some((n, n)))
    }

    /// Adds the counts of other segments (summing statistics that are themselves totals).
    pub fn merge(&mut self, other: RefCounts) {
        if let Some((lo, hi)) = other.0 {
            self.add(lo);
            self.add(hi);
        }
    }

    /// The smallest and largest number seen, if any segment was counted.
    pub fn range(&self) -> Option<(usize, usize)> {
        self.0
    }

    /// The signature's `nrefs` value: the number, `var`, or `0` before any segment.
    pub fn signature_value(&self) -> String {
        match self.0 {
            Some((lo, hi)) if lo == hi => lo.to_string(),
            Some(_) => "var".to_owned(),
            None => "0".to_owned(),
        }
    }
}

/// How input lines become segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// `hyp<TAB>ref1<TAB>ref2…`.
    Tsv { refs: Refs },
    /// One JSON object per line; `refs` fixes the number of references.
    Jsonl { refs: Option<usize> },
    /// Parallel files: each record is already one line per stream (hypothesis first).
    Parallel,
}

impl Framing {
    /// The framing as a stats document records it (`None` while nothing decides it: every line
    /// read so far is bad in any framing). Shards that infer `--refs` or `--input auto` from their
    /// own first lines may frame differently from one run over the whole input; `merge`
    /// compares these records and refuses a mismatch.
    pub fn record(self) -> Option<serde_json::Value> {
        let (input, refs) = match self {
            Framing::Tsv { refs } => match refs {
                Refs::Exactly(n) | Refs::AsLine { count: n, .. } => {
                    ("tsv", Some(RefsRecord::Count(n)))
                }
                Refs::Any => ("tsv", Some(RefsRecord::Any(AnyRefs::Any))),
                // No line with a TAB yet: every line so far is bad in any framing.
                Refs::Unknown => return None,
            },
            Framing::Jsonl { refs: Some(n) } => ("jsonl", Some(RefsRecord::Count(n))),
            Framing::Jsonl { refs: None } => ("jsonl", Some(RefsRecord::Any(AnyRefs::Any))),
            Framing::Parallel => ("parallel", None),
        };
        let record = FramingRecord {
            input: input.into(),
            refs,
        };
        Some(serde_json::to_value(record).expect("a string and a number serialize"))
    }
}

/// The framing in a stats document ([`Framing::record`]): `{"input":"tsv","refs":2}`,
/// `{"input":"jsonl","refs":"any"}`, `{"input":"parallel"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FramingRecord {
    pub input: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refs: Option<RefsRecord>,
}

/// The number of references of a [`FramingRecord`]: a count, or `"any"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RefsRecord {
    Count(usize),
    Any(AnyRefs),
}

/// `"any"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AnyRefs {
    #[serde(rename = "any")]
    Any,
}

/// How many references a TSV line must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refs {
    /// `--refs N`: exactly N.
    Exactly(usize),
    /// `--refs any`: one or more, varying from line to line.
    Any,
    /// The default: as many as the first line with a TAB (line `line`, `count` references), so
    /// that a TAB inside a sentence cannot silently become an extra reference (WMT22's uk-en
    /// reference A has one).
    AsLine { line: u64, count: usize },
    /// The default, before a line with a TAB has been read: one or more.
    Unknown,
}

impl Refs {
    /// The number fixed by `--refs N`, if any (what JSONL checks).
    pub fn exactly(self) -> Option<usize> {
        match self {
            Refs::Exactly(n) => Some(n),
            _ => None,
        }
    }
}

/// The `--input` choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// JSONL when the first non-empty line starts with `{`, TSV otherwise.
    Auto,
    Tsv,
    Jsonl,
}

/// What to do with invalid UTF-8 (`--invalid-utf8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Utf8Policy {
    /// The line is a bad line.
    Error,
    /// Invalid sequences become U+FFFD, like Python's `errors="replace"`.
    Lossy,
}

/// References per segment at most; a line with more is a bad line. Every reference costs each
/// metric a little state (its tokens, its n-gram counts) whatever its length: an 8 MiB line of
/// TABs (8 million empty references) took 2.7 GB. Real test sets have at most a few dozen
/// references; this bound keeps the per-reference state of one line a few MiB (issue 19,
/// point 3).
pub const MAX_REFS: usize = 4096;

/// The bad-line message for a segment with `n` > [`MAX_REFS`] references.
pub fn too_many_refs(n: usize) -> String {
    format!("{n} references: more than {MAX_REFS}, the most one line may have")
}

/// Frames one record (its fields as read) into a segment, or says why the line is bad.
pub fn frame<'a>(
    framing: Framing,
    fields: &[&'a [u8]],
    utf8: Utf8Policy,
) -> Result<Segment<'a>, String> {
    // A blank line means the same in either framing: it may be read before the format is
    // known (framed as TSV), or after (JSONL), so its diagnostic must not depend on which.
    if framing != Framing::Parallel && is_blank(fields[0]) {
        return Err("empty line".to_owned());
    }
    match framing {
        Framing::Tsv { refs } => tsv::frame(fields[0], refs, utf8),
        Framing::Jsonl { refs } => {
            let segment = jsonl::frame(fields[0], refs, utf8)?;
            if segment.refs.len() > MAX_REFS {
                return Err(too_many_refs(segment.refs.len()));
            }
            Ok(segment)
        }
        Framing::Parallel => {
            let hyp = decode(fields[0], utf8).map_err(|e| format!("hypothesis: {e}"))?;
            let mut refs = SegmentRefs::with_capacity(fields.len() - 1);
            for (i, field) in fields.iter().enumerate().skip(1) {
                refs.push(decode(field, utf8).map_err(|e| format!("reference {i}: {e}"))?);
            }
            Ok(Segment {
                hyp,
                refs,
                id: None,
                exact: false,
            })
        }
    }
}

/// The warning for a segment whose hypothesis or a reference starts with a UTF-8 byte order mark
/// (U+FEFF), if any. The mark is kept, as sacreBLEU keeps it (Python's `utf-8` codec does not
/// strip it), so it is scored as part of the first word; the warning says why the line scores
/// lower. Normally only line 1 of a file saved by a Windows tool has one — and the line after a
/// file boundary of `cat a b`, or field 2 of `paste hyp ref` — so every line is checked: that
/// costs one look at each field's first byte. (Before JSON the mark is not text and is skipped
/// without a warning: see [`jsonl`].)
pub fn byte_order_mark(framing: Framing, segment: &Segment<'_>) -> Option<String> {
    let bom = |s: &str| s.as_bytes().starts_with(b"\xef\xbb\xbf");
    let hyp = bom(&segment.hyp);
    if !hyp && !segment.refs.iter().any(|r| bom(r)) {
        return None;
    }
    let refs = segment.refs.iter().enumerate().filter(|(_, r)| bom(r));
    let mut names: Vec<String> = refs.map(|(i, _)| format!("reference {}", i + 1)).collect();
    let subject = if hyp && names.is_empty() && framing != Framing::Parallel {
        // TSV and JSONL: the line starts with it (the same message in both forms).
        "starts".to_owned()
    } else {
        if hyp {
            names.insert(0, "hypothesis".to_owned());
        }
        let last = names.pop().expect("at least one field");
        match names.is_empty() {
            true => format!("{last} starts"),
            false => format!("{} and {last} start", names.join(", ")),
        }
    };
    Some(format!(
        "{subject} with a byte order mark (U+FEFF); it is scored as part of the first word, as \
         sacreBLEU does"
    ))
}

/// Empty, or nothing but ASCII white space other than TAB and an optional byte order mark. (A
/// TAB makes a TSV segment: `hyp<TAB>ref` with both empty is a valid line.)
fn is_blank(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    line.iter().all(|&b| b != b'\t' && is_space(b))
}

/// ASCII white space as Python's `str.isspace` sees it (Rust's `is_ascii_whitespace` leaves out
/// the vertical tab). Framing and format detection use this one definition, so a line that is
/// blank for one is blank for the other.
pub(crate) fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0b
}

/// Decodes UTF-8 under the policy; the error names the byte offset of the first bad sequence.
pub fn decode(bytes: &[u8], utf8: Utf8Policy) -> Result<Cow<'_, str>, String> {
    // simdutf8 validates several times faster than `std::str::from_utf8` (whose error,
    // which says where, is only needed on the rare invalid line).
    if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
        return Ok(Cow::Borrowed(s));
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(Cow::Borrowed(s)),
        Err(e) => match utf8 {
            Utf8Policy::Lossy => Ok(String::from_utf8_lossy(bytes)),
            Utf8Policy::Error => Err(format!(
                "invalid UTF-8 at byte {} (use --invalid-utf8 lossy to replace it)",
                e.valid_up_to() + 1
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_lines_are_empty_lines_in_both_framings() {
        let tsv = Framing::Tsv {
            refs: Refs::Unknown,
        };
        let jsonl = Framing::Jsonl { refs: None };
        for blank in [&b""[..], b" ", b"\xef\xbb\xbf", b"\x0c \x0b"] {
            for framing in [tsv, jsonl] {
                let err = frame(framing, &[blank], Utf8Policy::Error).unwrap_err();
                assert_eq!(err, "empty line", "{blank:?} {framing:?}");
            }
        }
        assert!(frame(tsv, &[b"\t"], Utf8Policy::Error).is_ok());
    }

    #[test]
    fn ref_counts_make_the_nrefs_signature_value() {
        let mut counts = RefCounts::default();
        assert_eq!(counts.signature_value(), "0");
        counts.add(2);
        counts.add(2);
        assert_eq!(counts.signature_value(), "2");
        counts.add(1);
        assert_eq!(counts.signature_value(), "var");
    }

    #[test]
    fn with_refs_passes_every_reference() {
        let refs: Vec<Cow<'_, str>> = (0..10).map(|i| Cow::Owned(i.to_string())).collect();
        for n in [1, 8, 10] {
            let seg = Segment {
                hyp: Cow::Borrowed("h"),
                refs: refs[..n].iter().cloned().collect(),
                id: None,
                exact: false,
            };
            seg.with_refs(|hyp, r| {
                assert_eq!(hyp, "h");
                assert_eq!(r.len(), n);
                assert_eq!(r.last().copied(), Some((n - 1).to_string().as_str()));
            });
        }
    }

    #[test]
    fn a_byte_order_mark_at_the_start_of_a_field_is_kept_and_warned_about() {
        let tsv = Framing::Tsv { refs: Refs::Any };
        let jsonl = Framing::Jsonl { refs: None };
        let warning = |framing: Framing, fields: &[&[u8]]| {
            let segment = frame(framing, fields, Utf8Policy::Error).unwrap();
            byte_order_mark(framing, &segment)
        };
        let tail = "with a byte order mark (U+FEFF); it is scored as part of the first word, as \
                    sacreBLEU does";
        // Kept in the text, as sacreBLEU keeps it.
        let seg = frame(tsv, &[b"\xef\xbb\xbfa b\ta b"], Utf8Policy::Error).unwrap();
        assert_eq!(seg.hyp, "\u{feff}a b");
        assert_eq!(
            warning(tsv, &[b"\xef\xbb\xbfa b\ta b"]),
            Some(format!("starts {tail}"))
        );
        assert_eq!(
            warning(tsv, &[b"a b\t\xef\xbb\xbfa b"]),
            Some(format!("reference 1 starts {tail}"))
        );
        assert_eq!(
            warning(tsv, &[b"\xef\xbb\xbfa\tb\t\xef\xbb\xbfc\t\xef\xbb\xbfd"]),
            Some(format!(
                "hypothesis, reference 2 and reference 3 start {tail}"
            ))
        );
        // JSONL: a mark before the JSON text is skipped; one inside a string is text.
        assert_eq!(
            warning(jsonl, &[b"\xef\xbb\xbf{\"hyp\":\"a\",\"ref\":\"a\"}"]),
            None
        );
        assert_eq!(
            warning(jsonl, &[b"{\"hyp\":\"\\ufeffa\",\"ref\":\"a\"}"]),
            Some(format!("starts {tail}"))
        );
        // Parallel files: the streams are named.
        assert_eq!(
            warning(Framing::Parallel, &[b"\xef\xbb\xbfa", b"a"]),
            Some(format!("hypothesis starts {tail}"))
        );
        assert_eq!(
            warning(Framing::Parallel, &[b"\xef\xbb\xbfa", b"\xef\xbb\xbfa"]),
            Some(format!("hypothesis and reference 1 start {tail}"))
        );
        // Elsewhere in a field it is not at a word start: no warning.
        assert_eq!(warning(tsv, &[b"a \xef\xbb\xbfb\tc"]), None);
        assert_eq!(warning(Framing::Parallel, &[b"a", b"b"]), None);
    }

    #[test]
    fn parallel_fields_are_taken_verbatim() {
        let seg = frame(Framing::Parallel, &[b"a\tb", b"", b"r"], Utf8Policy::Error).unwrap();
        assert_eq!(seg.hyp, "a\tb");
        assert_eq!(seg.refs[..], ["", "r"]);
    }

    #[test]
    fn invalid_utf8_is_an_error_or_replaced() {
        let err = frame(Framing::Parallel, &[b"ok", b"b\xffd"], Utf8Policy::Error).unwrap_err();
        assert_eq!(
            err,
            "reference 1: invalid UTF-8 at byte 2 (use --invalid-utf8 lossy to replace it)"
        );
        let seg = frame(Framing::Parallel, &[b"ok", b"b\xffd"], Utf8Policy::Lossy).unwrap();
        assert_eq!(seg.refs[..], ["b\u{fffd}d"]);
    }

    #[test]
    fn framing_records_are_the_documented_json() {
        let text = |f: Framing| f.record().map(|v| v.to_string());
        let tsv = |refs| Framing::Tsv { refs };
        assert_eq!(
            text(tsv(Refs::Exactly(2))).as_deref(),
            Some(r#"{"input":"tsv","refs":2}"#)
        );
        let as_line = Refs::AsLine { line: 3, count: 1 };
        assert_eq!(
            text(tsv(as_line)).as_deref(),
            Some(r#"{"input":"tsv","refs":1}"#)
        );
        assert_eq!(
            text(tsv(Refs::Any)).as_deref(),
            Some(r#"{"input":"tsv","refs":"any"}"#)
        );
        assert_eq!(text(tsv(Refs::Unknown)), None);
        let jsonl = |refs| text(Framing::Jsonl { refs });
        assert_eq!(
            jsonl(Some(0)).as_deref(),
            Some(r#"{"input":"jsonl","refs":0}"#)
        );
        assert_eq!(
            jsonl(None).as_deref(),
            Some(r#"{"input":"jsonl","refs":"any"}"#)
        );
        assert_eq!(
            text(Framing::Parallel).as_deref(),
            Some(r#"{"input":"parallel"}"#)
        );
        // And they read back.
        let any: FramingRecord = serde_json::from_str(r#"{"input":"tsv","refs":"any"}"#).unwrap();
        assert_eq!(any.refs, Some(RefsRecord::Any(AnyRefs::Any)));
        let parallel: FramingRecord = serde_json::from_str(r#"{"input":"parallel"}"#).unwrap();
        assert_eq!(parallel.refs, None);
    }
}
