//! JSONL framing: `{"hyp": "...", "refs": ["...", ...]}`, or `"ref": "..."` for one reference,
//! with an optional `"id"` (any JSON value, echoed in JSONL output). Other keys are ignored.
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
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
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
    match line.iter().find(|b| !json_ws(b)) {
        Some(b'{') | None => {}
        Some(&b) => return Err(format!("not a JSON object: {}", json_kind(b))),
    }
    match super::decode(line, utf8)? {
        Cow::Borrowed(text) => {
            let record: Record<'_> = serde_json::from_str(text).map_err(|e| message(&e, text))?;
            segment(record, nrefs)
        }
        Cow::Owned(repaired) => {
            // A repaired copy of an invalid line: the segment must own its text.
            let record: Record<'_> =
                serde_json::from_str(&repaired).map_err(|e| message(&e, &repaired))?;
            segment(record, nrefs).map(into_owned)
        }
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

fn segment(record: Record<'_>, nrefs: Option<usize>) -> Result<Segment<'_>, String> {
    let given = match (&record.refs, &record.single_ref) {
        (Some(refs), None) => refs.len(),
        (None, Some(_)) => 1,
        _ => 0,
    };
    if let Some(n) = nrefs {
        if given != n && given > 0 {
            return Err(format!("{given} references where --refs {n} expects {n}"));
        }
    }
    let refs: SegmentRefs<'_> = match (record.refs, record.single_ref) {
        (Some(_), Some(_)) => return Err("both \"refs\" and \"ref\" given".to_owned()),
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
    // would make the output invalid JSON, so such an id is refused here.
    if let Some(id) = record.id {
        if let Err(e) = serde_json::from_str::<serde_json::Value>(id.get()) {
            return Err(format!("\"id\": {}", syntax_message(&e)));
        }
    }
    Ok(Segment {
        hyp: record.hyp,
        refs,
        id: record.id,
    })
}

/// Detaches a segment parsed from a temporary (repaired) line. The id is dropped: it cannot
/// outlive the temporary and a repaired line's id is not trustworthy anyway.
fn into_owned<'b>(seg: Segment<'_>) -> Segment<'b> {
    Segment {
        hyp: Cow::Owned(seg.hyp.into_owned()),
        refs: seg
            .refs
            .into_iter()
            .map(|r| Cow::Owned(r.into_owned()))
            .collect(),
        id: None,
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
        assert_eq!(e(b"hyp"), "not a JSON object: invalid JSON");
        assert!(frame(b"\t{\"hyp\":\"h\",\"ref\":\"r\"}", None, Utf8Policy::Error).is_ok());
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
