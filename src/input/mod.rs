//! Input: reading lines into batches ([`reader`]) and framing one line into a [`Segment`]
//! ([`tsv`], [`jsonl`], or already-separate lines of parallel files).
//!
//! Framing runs on the worker threads, so JSON parsing and UTF-8 validation are parallel too; the
//! reader thread only finds line ends.

pub mod jsonl;
pub mod reader;
pub mod tsv;

use std::borrow::Cow;

use serde_json::value::RawValue;

/// One hypothesis with its references, borrowed from the input line where possible.
#[derive(Debug, Clone)]
pub struct Segment<'a> {
    /// The hypothesis.
    pub hyp: Cow<'a, str>,
    /// The references present for this segment (never empty). An empty string is an empty
    /// reference (sacreBLEU CLI semantics), not a missing one.
    pub refs: Vec<Cow<'a, str>>,
    /// JSONL `"id"`, echoed verbatim in JSONL output.
    pub id: Option<&'a RawValue>,
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

/// Frames one record (its fields as read) into a segment, or says why the line is bad.
pub fn frame<'a>(
    framing: Framing,
    fields: &[&'a [u8]],
    utf8: Utf8Policy,
) -> Result<Segment<'a>, String> {
    if framing != Framing::Parallel && fields[0].is_empty() {
        return Err("empty line".to_owned());
    }
    match framing {
        Framing::Tsv { refs } => tsv::frame(fields[0], refs, utf8),
        Framing::Jsonl { refs } => jsonl::frame(fields[0], refs, utf8),
        Framing::Parallel => {
            let mut texts = Vec::with_capacity(fields.len());
            for (i, field) in fields.iter().enumerate() {
                let what = if i == 0 {
                    "hypothesis".to_owned()
                } else {
                    format!("reference {i}")
                };
                texts.push(decode(field, utf8).map_err(|e| format!("{what}: {e}"))?);
            }
            let hyp = texts.remove(0);
            Ok(Segment {
                hyp,
                refs: texts,
                id: None,
            })
        }
    }
}

/// Decodes UTF-8 under the policy; the error names the byte offset of the first bad sequence.
pub fn decode(bytes: &[u8], utf8: Utf8Policy) -> Result<Cow<'_, str>, String> {
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
    fn parallel_fields_are_taken_verbatim() {
        let seg = frame(Framing::Parallel, &[b"a\tb", b"", b"r"], Utf8Policy::Error).unwrap();
        assert_eq!(seg.hyp, "a\tb");
        assert_eq!(seg.refs, ["", "r"]);
    }

    #[test]
    fn invalid_utf8_is_an_error_or_replaced() {
        let err = frame(Framing::Parallel, &[b"ok", b"b\xffd"], Utf8Policy::Error).unwrap_err();
        assert_eq!(
            err,
            "reference 1: invalid UTF-8 at byte 2 (use --invalid-utf8 lossy to replace it)"
        );
        let seg = frame(Framing::Parallel, &[b"ok", b"b\xffd"], Utf8Policy::Lossy).unwrap();
        assert_eq!(seg.refs, ["b\u{fffd}d"]);
    }
}
