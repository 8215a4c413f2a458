//! Fuzz target: framing one record into a segment (`bleu_stream::input::frame`), for TSV under
//! every reference-count rule, JSONL with and without a fixed number of references, and parallel
//! records, under both UTF-8 policies.
//!
//! Input: one selector byte, then the line (or, for parallel records, the streams' lines joined
//! by `\n`). Besides "no panic", checks what framing promises: a segment always has a reference;
//! TSV fields are exactly the line's TAB-separated pieces (decoded under the policy) in the
//! number the rule demands; JSONL gives at most the fixed number of references and the `hyp`
//! string of the JSON text; parallel fields are taken verbatim; errors say something.

#![no_main]

use std::borrow::Cow;

use bleu_stream::input::{frame, Framing, Refs, Utf8Policy};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn decode(bytes: &[u8], utf8: Utf8Policy) -> Option<Cow<'_, str>> {
    match utf8 {
        Utf8Policy::Error => std::str::from_utf8(bytes).ok().map(Cow::Borrowed),
        Utf8Policy::Lossy => Some(String::from_utf8_lossy(bytes)),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, line)) = data.split_first() else {
        return;
    };
    let utf8 = if sel & 1 == 0 {
        Utf8Policy::Error
    } else {
        Utf8Policy::Lossy
    };
    let n = usize::from((sel >> 1) & 3) + 1;
    let framing = match (sel >> 3) % 7 {
        0 => Framing::Tsv {
            refs: Refs::Unknown,
        },
        1 => Framing::Tsv { refs: Refs::Any },
        2 => Framing::Tsv {
            refs: Refs::Exactly(n),
        },
        3 => Framing::Tsv {
            refs: Refs::AsLine { line: 1, count: n },
        },
        4 => Framing::Jsonl { refs: None },
        5 => Framing::Jsonl { refs: Some(n) },
        _ => Framing::Parallel,
    };

    if framing == Framing::Parallel {
        // The reader gives one field per stream: the hypothesis and at least one reference.
        let fields: Vec<&[u8]> = line.split(|&b| b == b'\n').collect();
        if fields.len() < 2 {
            return;
        }
        match frame(framing, &fields, utf8) {
            Ok(seg) => {
                assert_eq!(seg.refs.len(), fields.len() - 1);
                let want: Vec<Cow<'_, str>> = fields
                    .iter()
                    .map(|f| decode(f, utf8).expect("a field framed without error decodes"))
                    .collect();
                assert_eq!(seg.hyp, want[0]);
                assert_eq!(seg.refs[..], want[1..]);
                assert!(seg.id.is_none());
            }
            Err(message) => {
                assert!(!message.is_empty());
                assert_eq!(
                    utf8,
                    Utf8Policy::Error,
                    "lossy decoding cannot fail: {message}"
                );
                assert!(fields.iter().any(|f| std::str::from_utf8(f).is_err()));
            }
        }
        return;
    }

    let result = frame(framing, &[line], utf8);
    let seg = match result {
        Ok(seg) => seg,
        Err(message) => {
            assert!(!message.is_empty());
            return;
        }
    };
    assert!(!seg.refs.is_empty(), "a segment without references");
    match framing {
        Framing::Tsv { refs } => {
            let text = decode(line, utf8).expect("a line framed without error decodes");
            let mut joined = seg.hyp.to_string();
            for r in &seg.refs {
                joined.push('\t');
                joined.push_str(r);
            }
            assert_eq!(joined, text, "TSV fields are not the line's pieces");
            match refs {
                Refs::Exactly(k) => assert_eq!(seg.refs.len(), k),
                Refs::AsLine { count, .. } => assert_eq!(seg.refs.len(), count),
                Refs::Any | Refs::Unknown => {}
            }
            assert!(seg.id.is_none());
        }
        Framing::Jsonl { refs } => {
            if let Some(k) = refs {
                assert!(
                    seg.refs.len() <= k,
                    "{} references, --refs {k}",
                    seg.refs.len()
                );
            }
            let body = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
            let text = decode(body, utf8).expect("a line framed without error decodes");
            let v: Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                // Valid JSON that `Value` cannot hold (an id like 5e999999, or nested deeper
                // than its recursion limit): the id is echoed as raw text, never parsed, so
                // framing rightly accepts it.
                Err(e)
                    if e.to_string().starts_with("number out of range")
                        || e.to_string().starts_with("recursion limit exceeded") =>
                {
                    return
                }
                Err(e) => panic!("framed JSON is not JSON: {e}"),
            };
            assert_eq!(
                v["hyp"].as_str(),
                Some(&*seg.hyp),
                "hyp differs from the JSON's"
            );
            if let Some(id) = &seg.id {
                let parsed: Value = serde_json::from_str(id.get()).expect("id is JSON");
                assert_eq!(parsed, v["id"]);
            }
        }
        Framing::Parallel => unreachable!(),
    }
});
