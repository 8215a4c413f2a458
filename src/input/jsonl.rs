//! JSONL framing: `{"hyp": "...", "refs": ["...", ...]}`, or `"ref": "..."` for one reference,
//! with an optional `"id"` (any JSON value, `null` included, echoed verbatim in JSONL output).
//! Other keys are ignored.
//!
//! A `null` reference is sacreBLEU's `None`: "no reference in this stream for this segment"; it is
//! dropped, so the number of references may vary (signature `nrefs:var`). A segment left without
//! any reference is a bad line (sacreBLEU itself crashes on it).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use smallvec::smallvec;

use super::{Segment, SegmentRefs, Utf8Policy};

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow)]
    hyp: Cow<'a, str>,
    #[serde(borrow, default)]
    refs: Option<Vec<Option<Cow<'a, str>>>>,
    #[serde(borrow, default, rename = "ref")]
    single_ref: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
}

/// `"id": null` is an id like any other (SPEC §2: any JSON value is echoed), where serde's
/// `Option` would read `null` as "no id".
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

pub fn frame(line: &[u8], nrefs: Option<usize>, utf8: Utf8Policy) -> Result<Segment<'_>, String> {
    // A byte order mark (Windows tools write one) is not part of the JSON text (RFC 8259 §8.1
    // lets parsers ignore it).
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Err("empty line".to_owned());
    }
    // serde's derived `Deserialize` also accepts a struct written as a JSON array
    // (`["hyp", ["ref"]]` would silently become hyp + refs by field position); a record is an
    // object, so anything else is refused before it reaches serde (found by fuzzing, the `frame`
    // target).
    let json_ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let first = line.iter().find(|b| !json_ws(b)).copied();
    match super::decode(line, utf8)? {
        Cow::Borrowed(text) => {
            if first != Some(b'{') {
                return Err(not_an_object(text, first));
            }
            let record: Record<'_> = serde_json::from_str(text).map_err(|e| message(&e, text))?;
            segment(record, nrefs, text)
        }
        Cow::Owned(repaired) => {
            if first != Some(b'{') {
                return Err(not_an_object(&repaired, first));
            }
            // A repaired copy of an invalid line: the segment must own its text.
            let record: Record<'_> =
                serde_json::from_str(&repaired).map_err(|e| message(&e, &repaired))?;
            segment(record, nrefs, &repaired).map(into_owned)
        }
    }
}

/// Why `text`, whose first non-blank byte `first` is not `{`, is not a record. A syntax error
/// anywhere in it wins over its type, as for objects ([`message`]): `the cat` is not JSON at
/// all, not "a boolean", and `[1,2` is "EOF while parsing a list". (Not parsed with serde's
/// `Value`: nesting deeper than its recursion limit is valid JSON, and its type is known
/// from the first byte.)
fn not_an_object(text: &str, first: Option<u8>) -> String {
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Err(e) if !e.to_string().starts_with("recursion limit exceeded") => syntax_message(&e),
        _ => format!("not a JSON object: {}", json_kind(first.unwrap_or(b' '))),
    }
}

/// What a JSON text starting with `first` is, for the diagnostic of a line that is not an object.
fn json_kind(first: u8) -> &'static str {
    match first {
        b'[' => "an array (a record is {\"hyp\": ..., \"refs\": [...]})",
        b'"' => "a string",
        b'-' | b'0'..=b'9' => "a number",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "invalid JSON",
    }
}

/// Why `text` is not a record, given serde's first complaint `e`. Serde reads the line once and
/// stops at the first problem, and its complaint about a value of the wrong type names neither
/// the key nor the fact that the line is valid JSON ("invalid type: integer `1`, expected a
/// string"). So a data error (as opposed to a syntax error) is looked at again, on this error
/// path only: the whole line is parsed as a JSON object, a syntax error anywhere in it wins, and
/// otherwise the message names the key and what it holds.
fn message(e: &serde_json::Error, text: &str) -> String {
    if e.classify() == serde_json::error::Category::Data {
        return match serde_json::from_str::<Entries>(text) {
            Ok(Entries(entries)) => schema_message(e, &entries),
            Err(syntax) => syntax_message(&syntax),
        };
    }
    syntax_message(e)
}

/// `invalid JSON: <serde's message> (column C)`, for a line that is not valid JSON.
pub(super) fn syntax_message(e: &serde_json::Error) -> String {
    let what = e.to_string();
    let what = what.split(" at line ").next().unwrap_or(&what);
    let what = what.trim_end_matches('.');
    // serde's words for `"\ud800"` without its pair ("unexpected end of hex escape", "lone
    // leading surrogate in hex escape") do not say what is wrong.
    if what.contains("surrogate") || what.contains("end of hex escape") {
        return format!(
            "invalid JSON: a lone surrogate escape (\\ud800 to \\udfff without its pair) is not \
             a character (column {})",
            e.column()
        );
    }
    format!("invalid JSON: {what} (column {})", e.column())
}

/// What is wrong with a valid JSON object (its entries in order, duplicates kept) that is not a
/// record; `e` is serde's complaint about it.
fn schema_message(e: &serde_json::Error, entries: &[(String, Box<RawValue>)]) -> String {
    let values = |key: &'static str| {
        entries
            .iter()
            .filter(move |(k, _)| k == key)
            .map(|(_, v)| Kind::of(v))
    };
    for key in ["hyp", "refs", "ref", "id"] {
        if values(key).nth(1).is_some() {
            return format!("\"{key}\" given twice");
        }
    }
    match values("hyp").next() {
        None => return "JSON object without \"hyp\"".to_owned(),
        Some(Kind::String) => {}
        Some(other) => return format!("\"hyp\" must be a string, not {}", other.name()),
    }
    let refs = entries.iter().find(|(k, _)| k == "refs").map(|(_, v)| v);
    match refs.map(|v| (Kind::of(v), v)) {
        None | Some((Kind::Null, _)) => {}
        Some((Kind::Array, raw)) => {
            // One level down: the items' kinds (a valid array, so this parse succeeds).
            let items: Vec<Box<RawValue>> = serde_json::from_str(raw.get()).unwrap_or_default();
            let wrong = items
                .iter()
                .map(|item| Kind::of(item))
                .enumerate()
                .find(|(_, kind)| !matches!(kind, Kind::String | Kind::Null));
            if let Some((i, kind)) = wrong {
                return format!(
                    "\"refs\" must be an array of strings (or nulls), but reference {} is {}",
                    i + 1,
                    kind.name()
                );
            }
        }
        Some((Kind::String, _)) => {
            return "\"refs\" must be an array of strings, not a string (\"ref\" takes one \
                    reference as a string)"
                .to_owned()
        }
        Some((other, _)) => {
            return format!("\"refs\" must be an array of strings, not {}", other.name())
        }
    }
    match values("ref").next() {
        None | Some(Kind::Null | Kind::String) => {}
        Some(Kind::Array) => {
            return "\"ref\" must be a string, not an array (\"refs\" takes an array of \
                    references)"
                .to_owned()
        }
        Some(other) => return format!("\"ref\" must be a string, not {}", other.name()),
    }
    // Not reached for any record serde refuses today; kept readable should that change.
    let what = e.to_string();
    let what = what.split(" at line ").next().unwrap_or(&what).to_owned();
    format!("not a valid record: {what} (column {})", e.column())
}

/// The type of a JSON value, told by its first character (the text is valid JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Null,
    Boolean,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    fn of(raw: &RawValue) -> Kind {
        match raw.get().trim_start().bytes().next() {
            Some(b'"') => Kind::String,
            Some(b'[') => Kind::Array,
            Some(b'{') => Kind::Object,
            Some(b't' | b'f') => Kind::Boolean,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }

    /// For messages: "a number", "an array", ….
    fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Boolean => "a boolean",
            Kind::Number => "a number",
            Kind::String => "a string",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }
}

/// A JSON object's entries in order, duplicate keys kept (a map would keep only one), values
/// left unparsed (so that nesting deeper than serde's recursion limit is no error here either:
/// a key this tool ignores may hold anything).
struct Entries(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Entries, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_map(Visit)
    }
}

fn segment<'a>(
    record: Record<'a>,
    nrefs: Option<usize>,
    line: &str,
) -> Result<Segment<'a>, String> {
    let given = match (&record.refs, &record.single_ref) {
        (Some(refs), None) => refs.len(),
        (None, Some(_)) => 1,
        _ => 0,
    };
    if let Some(n) = nrefs {
        if given != n && given > 0 {
            let s = if given == 1 { "" } else { "s" };
            return Err(format!("{given} reference{s} where --refs {n} expects {n}"));
        }
    }
    let refs: SegmentRefs<'_> = match (record.refs, record.single_ref) {
        (Some(_), Some(_)) => return Err("both \"refs\" and \"ref\" given".to_owned()),
        // serde reads `"ref": null` as no "ref" at all: say what the line has.
        (None, None) if has_null_ref(line) => {
            return Err(
                "\"ref\" must be a string, not null (a segment needs a reference)".to_owned(),
            )
        }
        (None, None) => return Err("JSON object without \"refs\" or \"ref\"".to_owned()),
        (None, Some(r)) => smallvec![r],
        (Some(refs), None) => {
            if refs.is_empty() {
                return Err("\"refs\" is empty".to_owned());
            }
            let present: SegmentRefs<'_> = refs.into_iter().flatten().collect();
            if present.is_empty() {
                return Err("every reference is null".to_owned());
            }
            present
        }
    };
    // The id is echoed as written. serde_json's raw values accept a lone surrogate escape
    // (`"\ud800"`), which strict JSON parsers (serde_json itself among them) refuse: echoing it
    // would make the output invalid JSON, so such an id is refused here. Only that is checked:
    // a number beyond f64 (`1e99999`) or nesting deeper than serde's recursion limit is valid
    // JSON, echoed as it came.
    if let Some(id) = record.id {
        if let Some(at) = lone_surrogate(id.get()) {
            // The column in the line, as every other diagnostic gives it (`id` borrows from it).
            let column = id.get().as_ptr() as usize - line.as_ptr() as usize + at + 1;
            return Err(format!(
                "\"id\": invalid JSON: a lone surrogate escape (\\ud800 to \\udfff without its \
                 pair) is not a character (column {column})"
            ));
        }
    }
    Ok(Segment {
        hyp: record.hyp,
        refs,
        id: record.id.map(Cow::Borrowed),
        exact: true,
    })
}

/// Whether the (valid) JSON object `line` has a `"ref"` key whose value is `null`. Only asked
/// on the error path of a line without a usable reference.
fn has_null_ref(line: &str) -> bool {
    serde_json::from_str::<Entries>(line).is_ok_and(|Entries(entries)| {
        entries
            .iter()
            .any(|(k, v)| k == "ref" && Kind::of(v) == Kind::Null)
    })
}

/// The byte offset in `raw` (valid JSON text) of the first `\u` escape of a UTF-16 surrogate
/// without its pair, if any. In valid JSON a backslash only occurs inside strings, so every
/// backslash starts an escape.
fn lone_surrogate(raw: &str) -> Option<usize> {
    let bytes = raw.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &bytes[i..]) {
        let at = i + k;
        match unit(at) {
            Some(0xD800..=0xDBFF) if matches!(unit(at + 6), Some(0xDC00..=0xDFFF)) => i = at + 12,
            Some(0xD800..=0xDFFF) => return Some(at),
            Some(_) => i = at + 6,
            // `\\`, `\"`, `\n`, …: two bytes.
            None => i = at + 2,
        }
    }
    None
}

/// Detaches a segment parsed from a temporary (repaired) line: the id too (it was read from
/// the repaired text, so it is valid JSON with U+FFFD where the line's bytes were invalid).
fn into_owned<'b>(seg: Segment<'_>) -> Segment<'b> {
    Segment {
        hyp: Cow::Owned(seg.hyp.into_owned()),
        refs: seg
            .refs
            .into_iter()
            .map(|r| Cow::Owned(r.into_owned()))
            .collect(),
        id: seg.id.map(|id| Cow::Owned(id.into_owned())),
        exact: seg.exact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_ref_id_and_nulls() {
        let seg = frame(
            br#"{"hyp":"h","refs":["a",null,""],"id":{"k":[1]}}"#,
            None,
            Utf8Policy::Error,
        )
        .unwrap();
        assert_eq!(seg.hyp, "h");
        assert_eq!(seg.refs[..], ["a", ""]);
        assert_eq!(seg.id.unwrap().get(), r#"{"k":[1]}"#);
        let seg = frame(
            br#"{"ref":"r","hyp":"h\tx\u00e9","src":"ignored"}"#,
            None,
            Utf8Policy::Error,
        )
        .unwrap();
        assert_eq!((seg.hyp.as_ref(), seg.refs.len()), ("h\txé", 1));
    }

    #[test]
    fn bad_records() {
        let e = |s: &[u8]| frame(s, None, Utf8Policy::Error).unwrap_err();
        assert_eq!(e(br#"{"refs":["a"]}"#), "JSON object without \"hyp\"");
        assert_eq!(
            e(br#"{"hyp":"h"}"#),
            "JSON object without \"refs\" or \"ref\""
        );
        assert_eq!(e(br#"{"hyp":"h","refs":[]}"#), "\"refs\" is empty");
        assert_eq!(
            e(br#"{"hyp":"h","refs":[null]}"#),
            "every reference is null"
        );
        assert!(e(br#"{"hyp":"h","refs":["a"#).starts_with("invalid JSON: EOF"));
        assert!(e(b" ").starts_with("empty line"));
        let two = br#"{"hyp":"h","refs":["a",null]}"#;
        let err = frame(two, Some(1), Utf8Policy::Error).unwrap_err();
        assert_eq!(err, "2 references where --refs 1 expects 1");
        assert!(frame(two, Some(2), Utf8Policy::Error).is_ok());
    }

    /// A line that is valid JSON but not a record is not called "invalid JSON": the message
    /// names the key and what it holds (issue 6).
    #[test]
    fn wrong_types_are_schema_errors_not_syntax_errors() {
        let e = |s: &[u8]| frame(s, None, Utf8Policy::Error).unwrap_err();
        assert_eq!(
            e(br#"{"hyp":1,"refs":["a"]}"#),
            "\"hyp\" must be a string, not a number"
        );
        assert_eq!(
            e(br#"{"hyp":null,"ref":"a"}"#),
            "\"hyp\" must be a string, not null"
        );
        assert_eq!(
            e(br#"{"hyp":["a"],"ref":"a"}"#),
            "\"hyp\" must be a string, not an array"
        );
        assert_eq!(
            e(br#"{"hyp":"h","refs":"a"}"#),
            "\"refs\" must be an array of strings, not a string (\"ref\" takes one reference \
             as a string)"
        );
        assert_eq!(
            e(br#"{"hyp":"h","refs":{"a":1}}"#),
            "\"refs\" must be an array of strings, not an object"
        );
        assert_eq!(
            e(br#"{"hyp":"h","refs":["a",null,2]}"#),
            "\"refs\" must be an array of strings (or nulls), but reference 3 is a number"
        );
        assert_eq!(
            e(br#"{"hyp":"h","refs":[["a"]]}"#),
            "\"refs\" must be an array of strings (or nulls), but reference 1 is an array"
        );
        assert_eq!(
            e(br#"{"hyp":"h","ref":["a"]}"#),
            "\"ref\" must be a string, not an array (\"refs\" takes an array of references)"
        );
        assert_eq!(
            e(br#"{"hyp":"h","ref":false}"#),
            "\"ref\" must be a string, not a boolean"
        );
        assert_eq!(
            e(br#"{"hyp":"h","ref":"a","hyp":"h"}"#),
            "\"hyp\" given twice"
        );
        // The duplicate is named even when serde first stumbles on the type of the first one.
        assert_eq!(
            e(br#"{"hyp":1,"hyp":"h","ref":"a"}"#),
            "\"hyp\" given twice"
        );
        assert_eq!(
            e(br#"{"hyp":"h","ref":"a","id":1,"id":2}"#),
            "\"id\" given twice"
        );
        // Nesting deeper than serde's recursion limit does not make valid JSON "invalid" here.
        let deep = format!(
            "{{\"hyp\":1,\"ref\":\"a\",\"x\":{}{}}}",
            "[".repeat(5000),
            "]".repeat(5000)
        );
        assert_eq!(e(deep.as_bytes()), "\"hyp\" must be a string, not a number");
        // A key this tool ignores may hold anything, also twice; a null "refs"/"ref" is absent.
        assert!(frame(
            br#"{"hyp":"h","ref":"a","x":1,"x":[]}"#,
            None,
            Utf8Policy::Error
        )
        .is_ok());
        assert!(frame(
            br#"{"hyp":"h","ref":"a","refs":null}"#,
            None,
            Utf8Policy::Error
        )
        .is_ok());
    }

    /// A syntax error anywhere in the line wins over a type error before it (serde stops at
    /// the first problem it meets): the line is not JSON at all.
    #[test]
    fn syntax_errors_say_invalid_json_and_the_column() {
        let e = |s: &[u8]| frame(s, None, Utf8Policy::Error).unwrap_err();
        assert_eq!(
            e(br#"{"hyp":1,"refs":["a""#),
            "invalid JSON: EOF while parsing a list (column 20)"
        );
        assert_eq!(
            e(br#"{"hyp":"h","ref":"a"} x"#),
            "invalid JSON: trailing characters (column 23)"
        );
        assert_eq!(
            e(br#"{"hyp":"h",,"ref":"a"}"#),
            "invalid JSON: key must be a string (column 12)"
        );
        assert_eq!(
            e(b"{\"hyp\":\"h\\x\",\"ref\":\"a\"}"),
            "invalid JSON: invalid escape (column 11)"
        );
        // Under --invalid-utf8 lossy the repaired copy is parsed (and described) the same way.
        let err = frame(b"{\"hyp\":1,\"ref\":\"\xff\"}", None, Utf8Policy::Lossy).unwrap_err();
        assert_eq!(err, "\"hyp\" must be a string, not a number");
    }

    /// Regression (fuzz `frame`): serde maps a JSON array onto the record's fields by position.
    #[test]
    fn arrays_and_scalars_are_not_records() {
        let e = |s: &[u8]| frame(s, None, Utf8Policy::Lossy).unwrap_err();
        assert!(e(br#"["b",["a"]]  "#).starts_with("not a JSON object: an array"));
        assert!(e(br#" ["b","a"]"#).starts_with("not a JSON object: an array"));
        assert_eq!(e(br#""hyp""#), "not a JSON object: a string");
        assert_eq!(e(b"12"), "not a JSON object: a number");
        assert_eq!(e(b"true"), "not a JSON object: a boolean");
        assert_eq!(e(b"null"), "not a JSON object: null");
        assert_eq!(e(b"hyp"), "invalid JSON: expected value (column 1)");
        assert!(frame(b"\t{\"hyp\":\"h\",\"ref\":\"r\"}", None, Utf8Policy::Error).is_ok());
        // A valid array nested deeper than serde's recursion limit is still an array.
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        assert!(e(deep.as_bytes()).starts_with("not a JSON object: an array"));
    }

    /// Regression (input audit): a line that is not JSON at all was described by its first
    /// byte ("the cat" as "a boolean", "nope" as null, "[1,2" as an array). A syntax error
    /// anywhere wins, as it does for objects.
    #[test]
    fn text_that_is_not_json_is_invalid_json_whatever_its_first_byte() {
        let e = |s: &[u8]| frame(s, None, Utf8Policy::Error).unwrap_err();
        for (line, want) in [
            (&b"the cat"[..], "invalid JSON: expected ident (column 2)"),
            (b"foo", "invalid JSON: expected ident (column 2)"),
            (b"hello", "invalid JSON: expected value (column 1)"),
            (b"nope", "invalid JSON: expected ident (column 2)"),
            (b"0 days", "invalid JSON: trailing characters (column 3)"),
            (
                b"\"abc",
                "invalid JSON: EOF while parsing a string (column 4)",
            ),
            (b"[1,2", "invalid JSON: EOF while parsing a list (column 4)"),
            (b"[1,2] x", "invalid JSON: trailing characters (column 7)"),
        ] {
            assert_eq!(e(line), want, "{:?}", String::from_utf8_lossy(line));
        }
        // Invalid UTF-8 is said first, as in an object.
        assert!(e(b"caf\xff").starts_with("invalid UTF-8 at byte 4"));
    }

    /// Regression (input audit): `"id": null` was not echoed, and ids serde's `Value` cannot
    /// hold (a number beyond f64, nesting past its recursion limit) made the line bad; a
    /// lossy-repaired line lost its id.
    #[test]
    fn every_json_id_is_echoed_verbatim() {
        let id = |line: &[u8], utf8| {
            frame(line, None, utf8)
                .unwrap()
                .id
                .map(|id| id.get().to_owned())
        };
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for value in [
            "null",
            "false",
            "1e99999",
            "-0",
            "\"\\ud83d\\ude00\"",
            "\"\\\\ud800\"",
            &deep,
        ] {
            let line = format!(r#"{{"hyp":"a","ref":"a","id":{value}}}"#);
            assert_eq!(
                id(line.as_bytes(), Utf8Policy::Error).as_deref(),
                Some(value),
                "{value}"
            );
        }
        assert_eq!(id(br#"{"hyp":"a","ref":"a"}"#, Utf8Policy::Error), None);
        assert_eq!(
            id(
                b"{\"hyp\":\"a \xffb\",\"ref\":\"a b\",\"id\":7}",
                Utf8Policy::Lossy
            )
            .as_deref(),
            Some("7")
        );
        // A lone surrogate is refused, with its column in the line.
        let e = frame(
            br#"{"hyp":"a","ref":"a","id":["x","\udc00"]}"#,
            None,
            Utf8Policy::Error,
        )
        .unwrap_err();
        assert!(
            e.starts_with("\"id\": invalid JSON: a lone surrogate"),
            "{e}"
        );
        assert!(e.ends_with("(column 33)"), "{e}");
        for bad in [
            r#""\ud800""#,
            r#""\ud800\ud800""#,
            r#""\ud800x""#,
            r#""\ud800\n""#,
        ] {
            assert_eq!(lone_surrogate(bad), Some(1), "{bad}");
        }
        for good in [r#""\ud800\udc00""#, r#""\\ud800""#, r#""\u00e9\"\\""#, "1"] {
            assert_eq!(lone_surrogate(good), None, "{good}");
        }
    }

    /// Regression (input audit): `"ref": null` was "without \"refs\" or \"ref\"", and one
    /// reference against `--refs 2` was "1 references".
    #[test]
    fn a_null_ref_and_one_reference_are_named_as_such() {
        let e = |s: &[u8], n| frame(s, n, Utf8Policy::Error).unwrap_err();
        assert_eq!(
            e(br#"{"hyp":"a","ref":null}"#, None),
            "\"ref\" must be a string, not null (a segment needs a reference)"
        );
        assert_eq!(
            e(br#"{"hyp":"a"}"#, None),
            "JSON object without \"refs\" or \"ref\""
        );
        assert_eq!(
            e(br#"{"hyp":"a","ref":"b"}"#, Some(2)),
            "1 reference where --refs 2 expects 2"
        );
    }

    #[test]
    fn byte_order_mark_before_json() {
        let seg = frame(
            b"\xef\xbb\xbf{\"hyp\":\"h\",\"ref\":\"r\"}",
            None,
            Utf8Policy::Error,
        )
        .unwrap();
        assert_eq!(seg.hyp, "h");
    }

    #[test]
    fn invalid_utf8_inside_json() {
        let line = b"{\"hyp\":\"a\xff\",\"ref\":\"a\"}";
        assert!(frame(line, None, Utf8Policy::Error).is_err());
        let seg = frame(line, None, Utf8Policy::Lossy).unwrap();
        assert_eq!(seg.hyp, "a\u{fffd}");
    }
}
