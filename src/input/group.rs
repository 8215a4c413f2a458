//! `--group-by KEY`: which group a line belongs to, read off the line before it is framed.
//!
//! A key is kept as the JSON text of its value (a string re-escaped canonically, a number as
//! serde_json writes it), so `"de-en"` and `"de\u002den"` name one group while the string `"7"`
//! and the number `7` name two, and a JSONL report can echo the value. Workers append that
//! text to a per-batch buffer ([`split`]); the merger interns it ([`crate::pipeline`]): no
//! allocation per line beyond the key's bytes.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::{decode, Framing, InputFormat, Refs, Utf8Policy};

/// What `--group-by` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupBy {
    /// JSONL: the value (a string or a number) of this field.
    Field(String),
    /// TSV: the 1-based column holding the key; it is not part of hypothesis/references.
    Column(usize),
}

impl GroupBy {
    /// `col:N` (a TSV column, N from 1), `field:NAME` or a bare `NAME` (a JSONL field).
    pub fn parse(arg: &str) -> Result<GroupBy, String> {
        if let Some(n) = arg.strip_prefix("col:") {
            return match n.parse::<usize>() {
                Ok(n) if n > 0 => Ok(GroupBy::Column(n)),
                Err(_) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                    Err(format!("col:{n}: the column number is too large"))
                }
                _ => Err(format!(
                    "col:{n}: expected a column number from 1 (col:1 is the first TSV field)"
                )),
            };
        }
        let name = arg.strip_prefix("field:").unwrap_or(arg);
        if name.is_empty() {
            return Err("expected a JSONL field name, col:N (a TSV column) or field:NAME".into());
        }
        Ok(GroupBy::Field(name.to_owned()))
    }

    /// The input format the key implies.
    pub fn input(&self) -> InputFormat {
        match self {
            GroupBy::Field(_) => InputFormat::Jsonl,
            GroupBy::Column(_) => InputFormat::Tsv,
        }
    }

    /// The input format to read with `--input` (`Auto` unless given) and parallel files
    /// (`-r`) or not: the key decides the format; `Err` is the usage error.
    pub fn check_input(&self, input: InputFormat, parallel: bool) -> Result<InputFormat, String> {
        if parallel {
            return Err(
                "--group-by is not supported with -r/--ref parallel files: paste them \
                        into TSV with a key column (`paste keys hyp ref | bleu-stream \
                        --group-by col:1`) or write JSONL"
                    .to_owned(),
            );
        }
        let wanted = self.input();
        if input != InputFormat::Auto && input != wanted {
            return Err(match self {
                GroupBy::Column(n) => format!(
                    "--group-by col:{n} names a TSV column, but --input is jsonl (a JSONL field \
                     is --group-by NAME)"
                ),
                GroupBy::Field(name) => format!(
                    "--group-by {name} names a JSONL field, but --input is tsv (a TSV column is \
                     --group-by col:N)"
                ),
            });
        }
        Ok(wanted)
    }

    /// The framing of what is left once the key column is taken out: the number of fields
    /// the reader counted on the first line includes the key column.
    pub fn framing(&self, framing: Framing) -> Framing {
        match (self, framing) {
            (
                GroupBy::Column(_),
                Framing::Tsv {
                    refs: Refs::AsLine { line, count },
                },
            ) => Framing::Tsv {
                refs: match count {
                    // `key<TAB>hyp`: no reference. `AsLine` counts at least one; the lines
                    // then fail as lines without a reference.
                    0 | 1 => Refs::AsLine { line, count: 0 },
                    _ => Refs::AsLine {
                        line,
                        count: count - 1,
                    },
                },
            },
            _ => framing,
        }
    }

    /// Appends the key of `line` to `key` (as JSON text) and returns the line to frame: the
    /// line itself (JSONL, or a TSV key in the first or last column) or the line without the
    /// key column, built in `scratch`.
    pub fn split<'a>(
        &self,
        line: &'a [u8],
        utf8: Utf8Policy,
        scratch: &'a mut Vec<u8>,
        key: &mut Vec<u8>,
    ) -> Result<&'a [u8], String> {
        let before = key.len();
        let rest = match self {
            GroupBy::Field(name) => {
                field_key(line, name, utf8, key)?;
                line
            }
            GroupBy::Column(n) => column_key(line, *n, utf8, scratch, key)?,
        };
        let len = key.len() - before;
        if len > MAX_KEY_BYTES {
            key.truncate(before);
            return Err(format!(
                "a group key of {len} bytes (as JSON text; at most {MAX_KEY_BYTES}): a key \
                 names a system, a language pair or a domain; is --group-by {self} the right {}?",
                match self {
                    GroupBy::Field(_) => "field",
                    GroupBy::Column(_) => "column",
                }
            ));
        }
        Ok(rest)
    }
}

/// The longest group key, as JSON text. Every group keeps its key for the whole run, so with
/// `--max-groups` this bounds what keys take (10,000 groups: 40 MiB at most), where a line's
/// length alone would allow gigabytes per group (an audit held 300 keys of 4 MiB in 7 GiB).
pub const MAX_KEY_BYTES: usize = 4096;

impl GroupBy {
    /// A framing error of the line without its key column, said in terms of the whole line:
    /// "no TAB" there means the line had the key and one field (`hyp<TAB>ref` under
    /// `col:1`), not sacreBLEU's reference-file layout that "no TAB" alone hints at.
    pub fn explain(&self, message: String) -> String {
        match self {
            GroupBy::Column(n) if message.starts_with("no TAB") => format!(
                "only 2 fields: --group-by col:{n} takes column {n} out as the key, which leaves \
                 no reference; expected the key column besides \
                 hypothesis<TAB>reference[<TAB>reference…] (paste keys hyp ref | bleu-stream \
                 --group-by col:1)"
            ),
            _ => message,
        }
    }
}

impl fmt::Display for GroupBy {
    /// The canonical argument (what stats documents record).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupBy::Field(name) => write!(f, "field:{name}"),
            GroupBy::Column(n) => write!(f, "col:{n}"),
        }
    }
}

fn column_key<'a>(
    line: &'a [u8],
    n: usize,
    utf8: Utf8Policy,
    scratch: &'a mut Vec<u8>,
    key: &mut Vec<u8>,
) -> Result<&'a [u8], String> {
    // A line of one field, not blank: nothing is left once the key is taken out. Said as
    // such (it read as "empty line"), and a JSON record as the other form of --group-by.
    if memchr::memchr(b'\t', line).is_none() && !super::is_blank(line) {
        let body = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
        return Err(if body.trim_ascii_start().starts_with(b"{") {
            format!(
                "one field: --group-by col:{n} reads TSV, and this line looks like a JSON record \
                 (a JSONL field is --group-by NAME)"
            )
        } else {
            format!(
                "one field: --group-by col:{n} expects a key column besides \
                 hypothesis<TAB>reference[<TAB>reference…] (paste keys hyp ref | bleu-stream \
                 --group-by col:1)"
            )
        });
    }
    // Field boundaries: start of field n (0-based n - 1) and its end.
    let mut start = 0usize;
    for _ in 1..n {
        match memchr::memchr(b'\t', &line[start..]) {
            Some(tab) => start += tab + 1,
            None => {
                return Err(format!(
                    "no column {n} for --group-by col:{n} (the line has fewer fields)"
                ))
            }
        }
    }
    let end = memchr::memchr(b'\t', &line[start..]).map_or(line.len(), |t| start + t);
    // A byte order mark starting the line belongs to the file (a Windows tool's, or the second
    // file of `cat a b`), not to the key: as before a JSON record, it is not part of the
    // value. Kept, it made `\u{feff}sysA` a group of its own beside `sysA`, shown alike (group
    // audit).
    let field = match start {
        0 => line[..end]
            .strip_prefix(b"\xef\xbb\xbf")
            .unwrap_or(&line[..end]),
        _ => &line[start..end],
    };
    let text = decode(field, utf8).map_err(|e| format!("group key (column {n}): {e}"))?;
    serde_json::to_writer(&mut *key, text.as_ref()).expect("writing to a Vec cannot fail");
    Ok(if start == 0 {
        // The first column: the rest follows its TAB (none: the line is only a key).
        line.get(end + 1..).unwrap_or_default()
    } else if end == line.len() {
        // The last column: what precedes its TAB.
        &line[..start - 1]
    } else {
        scratch.clear();
        scratch.extend_from_slice(&line[..start - 1]);
        scratch.extend_from_slice(&line[end..]);
        scratch
    })
}

/// serde's message about the key's value alone, without its "at line 1 column C", which
/// counts within the value and would read as an input line number.
fn without_position(e: &serde_json::Error) -> String {
    let what = e.to_string();
    let what = what.split(" at line ").next().unwrap_or(&what);
    if what.contains("surrogate") || what.contains("end of hex escape") {
        // As `jsonl::syntax_message` says it for a whole line.
        return "a lone surrogate escape (\\ud800 to \\udfff without its pair) is not a character"
            .to_owned();
    }
    what.to_owned()
}

fn field_key(line: &[u8], name: &str, utf8: Utf8Policy, key: &mut Vec<u8>) -> Result<(), String> {
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    let text = decode(line, utf8)?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let found = FieldSeed(name).deserialize(&mut de).map_err(|e| {
        // Valid JSON with the key twice: said as a record's fields are (`"hyp" given twice`).
        let twice = format!("\"{name}\" given twice");
        if e.is_data() && e.to_string().starts_with(&twice) {
            return twice;
        }
        // A blank line is said as without --group-by (it said "invalid JSON: EOF while
        // parsing").
        if text.trim().is_empty() {
            return "empty line".to_owned();
        }
        let message = super::jsonl::syntax_message(&e);
        // TSV under a field name: say which form reads it (every line said "invalid JSON").
        match text.contains('\t') && !text.trim_start().starts_with('{') {
            true => format!(
                "{message}: --group-by {name} reads JSON Lines (a TSV column is --group-by \
                 col:N)"
            ),
            false => message,
        }
    })?;
    let Some(raw) = found else {
        return Err(format!("no \"{name}\" field (--group-by {name})"));
    };
    let value = raw.get().trim();
    match value.as_bytes().first() {
        Some(b'"') => {
            let s: Cow<'_, str> = serde_json::from_str::<CowStr<'_>>(value)
                .map_err(|e| format!("\"{name}\": {}", without_position(&e)))?
                .0;
            serde_json::to_writer(&mut *key, s.as_ref()).expect("writing to a Vec cannot fail");
        }
        Some(b'-' | b'0'..=b'9') => {
            // As a JSON number (`1e2` is `100.0`), so that a key reads back from a stats
            // document as the same group.
            let number: serde_json::Number = serde_json::from_str(value)
                .map_err(|e| format!("\"{name}\": {value}: {}", without_position(&e)))?;
            // An integer past 64 bits would be rounded to a double and share its group with
            // its neighbours (Python keeps it exact, so pandas would not): refused, not merged.
            if value == "-0" {
                // The integer zero written with a sign (serde_json keeps it as the double
                // -0.0): Python's `json` reads int 0, the group of `0`.
                key.push(b'0');
                return Ok(());
            }
            if number.is_f64() && !value.contains(['.', 'e', 'E']) {
                return Err(format!(
                    "\"{name}\": the integer {value} does not fit in 64 bits: as a group key it \
                     would be rounded and merged with other numbers; quote it to make it a string"
                ));
            }
            serde_json::to_writer(&mut *key, &number).expect("writing to a Vec cannot fail");
        }
        _ => {
            return Err(format!(
                "\"{name}\" must be a string or a number to name a group (--group-by {name}), \
                 not {}",
                kind(value)
            ))
        }
    }
    Ok(())
}

fn kind(value: &str) -> &'static str {
    match value.as_bytes().first() {
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "invalid JSON",
    }
}

#[derive(serde::Deserialize)]
struct CowStr<'a>(#[serde(borrow)] Cow<'a, str>);

/// Finds one field of a JSON object, skipping the others.
struct FieldSeed<'n>(&'n str);

impl<'de> DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = Option<&'de RawValue>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed<'_> {
    type Value = Option<&'de RawValue>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(k) = map.next_key::<CowStr<'de>>()? {
            if k.0 == self.0 {
                if found.is_some() {
                    return Err(serde::de::Error::custom(format!(
                        "\"{}\" given twice",
                        self.0
                    )));
                }
                found = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(by: &GroupBy, line: &str) -> Result<(String, String), String> {
        let mut scratch = Vec::new();
        let mut key = Vec::new();
        let rest = by.split(line.as_bytes(), Utf8Policy::Error, &mut scratch, &mut key)?;
        let rest = String::from_utf8(rest.to_vec()).unwrap();
        Ok((String::from_utf8(key).unwrap(), rest))
    }

    #[test]
    fn parses_the_key_forms() {
        assert_eq!(
            GroupBy::parse("system"),
            Ok(GroupBy::Field("system".into()))
        );
        assert_eq!(
            GroupBy::parse("field:col:1"),
            Ok(GroupBy::Field("col:1".into()))
        );
        assert_eq!(GroupBy::parse("col:2"), Ok(GroupBy::Column(2)));
        assert!(GroupBy::parse("col:0").is_err());
        assert!(GroupBy::parse("col:x").is_err());
        // Regression: a column number past usize was told to start from 1.
        assert_eq!(
            GroupBy::parse("col:99999999999999999999"),
            Err("col:99999999999999999999: the column number is too large".to_owned())
        );
        assert!(GroupBy::parse("").is_err());
    }

    #[test]
    fn tsv_columns_come_out_of_the_line() {
        let first = GroupBy::Column(1);
        assert_eq!(
            split(&first, "sys\th\tr"),
            Ok(("\"sys\"".into(), "h\tr".into()))
        );
        let mid = GroupBy::Column(2);
        assert_eq!(
            split(&mid, "h\tsys\tr1\tr2"),
            Ok(("\"sys\"".into(), "h\tr1\tr2".into()))
        );
        let last = GroupBy::Column(3);
        assert_eq!(
            split(&last, "h\tr\ta\"b"),
            Ok(("\"a\\\"b\"".into(), "h\tr".into()))
        );
        assert!(split(&GroupBy::Column(4), "h\tr\tk")
            .unwrap_err()
            .starts_with("no column 4"));
        // Only a key: nothing left to frame, said as such (and a JSON record told apart).
        assert!(split(&first, "sys").unwrap_err().starts_with("one field:"));
        assert!(split(&first, "{\"sys\":1}")
            .unwrap_err()
            .contains("a JSONL field is --group-by NAME"));
        // A blank line stays an empty line (the framing says so).
        assert_eq!(split(&first, " "), Ok(("\" \"".into(), "".into())));
    }

    #[test]
    fn jsonl_fields_are_strings_or_numbers() {
        let by = GroupBy::Field("sys".into());
        let key = |line: &str| split(&by, line).map(|(k, _)| k);
        assert_eq!(
            key(r#"{"hyp":"a","sys":"de\u002den"}"#),
            Ok("\"de-en\"".into())
        );
        assert_eq!(key(r#"{"sys": 7 ,"hyp":"a"}"#), Ok("7".into()));
        assert_eq!(
            key(r#"{"hyp":"a"}"#),
            Err("no \"sys\" field (--group-by sys)".into())
        );
        assert!(key(r#"{"sys":null}"#).unwrap_err().ends_with("not null"));
        assert!(key(r#"{"sys":["a"]}"#)
            .unwrap_err()
            .ends_with("not an array"));
        // As a record's own fields are said (regression, group audit: `invalid JSON: "sys"
        // given twice (column 17)`).
        assert_eq!(
            key(r#"{"sys":"a","sys":"b"}"#),
            Err("\"sys\" given twice".into())
        );
        // The hint for TSV under a field name is for lines with a TAB only.
        assert_eq!(key("  "), Err("empty line".into()));
        assert!(!key("[1]").unwrap_err().contains("reads JSON Lines"));
        assert!(key("a\tb").unwrap_err().contains("reads JSON Lines"));
    }

    /// Integers keep their 64-bit values; one past that range would be rounded to a double
    /// and silently share a group with its neighbours, so it is a bad line that says to quote
    /// it. (Regression: 2^64 and 2^64 + 1 were one group.) Non-integers are doubles, as in
    /// Python's `json`.
    #[test]
    fn number_keys_are_exact_or_refused() {
        let by = GroupBy::Field("sys".into());
        let key = |line: &str| split(&by, line).map(|(k, _)| k);
        assert_eq!(
            key(r#"{"sys":18446744073709551615}"#),
            Ok("18446744073709551615".into())
        );
        assert_eq!(
            key(r#"{"sys":-9223372036854775808}"#),
            Ok("-9223372036854775808".into())
        );
        for big in ["18446744073709551616", "-9223372036854775809"] {
            let err = key(&format!(r#"{{"sys":{big}}}"#)).unwrap_err();
            assert!(err.contains("does not fit in 64 bits"), "{err}");
            assert!(err.contains("quote it"), "{err}");
        }
        assert_eq!(key(r#"{"sys":1e2}"#), Ok("100.0".into()));
        assert_eq!(key(r#"{"sys":0.5}"#), Ok("0.5".into()));
        // Regression: `-0` was refused as "does not fit in 64 bits" (serde_json reads it as
        // the double -0.0). It is the integer 0, as in Python; `-0.0` stays a double.
        assert_eq!(key(r#"{"sys":-0}"#), Ok("0".into()));
        assert_eq!(key(r#"{"sys": -0 }"#), Ok("0".into()));
        assert_eq!(key(r#"{"sys":-0.0}"#), Ok("-0.0".into()));
    }

    #[test]
    fn the_key_column_does_not_count_as_a_reference() {
        let by = GroupBy::Column(1);
        let framing = Framing::Tsv {
            refs: Refs::AsLine { line: 1, count: 2 },
        };
        assert_eq!(
            by.framing(framing),
            Framing::Tsv {
                refs: Refs::AsLine { line: 1, count: 1 }
            }
        );
    }
}
