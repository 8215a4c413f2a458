//! Fuzz target: `bleu-stream merge`'s reading of stats documents (issue 19, point 2).
//!
//! Input: any bytes, read as a stream of stats documents exactly as `merge FILE` reads one
//! ([`Documents`], strict JSON, bounded size) and summed with [`Merged`], as `merge` sums them.
//!
//! Checks, besides "no panic" (in reading, validation, merging and scoring): either an error, or
//! merged statistics that are themselves a valid document — the document `merge --emit stats`
//! would write reads back, merges without error, and writes itself again unchanged.

#![no_main]

use bleu_stream::stats::Merged;
use bleu_stream::stats_stream::{Documents, StreamError};
use libfuzzer_sys::fuzz_target;

/// Largest document read (the fuzzer's inputs are far smaller anyway).
const MAX: usize = 1 << 20;

/// Merges every document of `bytes`; `Err` at the first invalid one.
fn merge(bytes: &[u8]) -> Result<Option<Merged>, String> {
    let mut merged: Option<Merged> = None;
    for doc in Documents::new(bytes, MAX) {
        let doc = match doc {
            Ok(doc) => doc,
            Err(StreamError::Invalid(m)) => return Err(m),
            Err(StreamError::Io(e)) => panic!("reading a slice failed: {e}"),
        };
        let m = match &mut merged {
            Some(m) => m,
            None => merged.insert(Merged::new(&doc.value, bleu_stream::groups::DEFAULT_MAX)?),
        };
        m.add(&doc.value)?;
    }
    Ok(merged)
}

fuzz_target!(|data: &[u8]| {
    let Ok(Some(merged)) = merge(data) else {
        return;
    };
    // Scoring must not panic either (a bootstrap of many resamples is only slow: skip it).
    let samples = merged.resampler.as_ref().map_or(0, |r| r.settings.samples);
    if samples <= 2000 {
        let _ = merged.refusal();
        let _ = merged.report();
    }
    let Ok(doc) = merged.document() else {
        return;
    };
    let text = serde_json::to_vec(&doc).expect("a document serializes");
    let again = match merge(&text) {
        Ok(Some(m)) => m,
        Ok(None) => panic!("the merged document reads as no document"),
        Err(e) => panic!(
            "the merged document is refused: {e}\n{}",
            String::from_utf8_lossy(&text)
        ),
    };
    let text_again = serde_json::to_vec(&again.document().expect("it was written once"))
        .expect("a document serializes");
    assert!(
        text == text_again,
        "merging the merged document changes it:\n{}\n{}",
        String::from_utf8_lossy(&text),
        String::from_utf8_lossy(&text_again)
    );
});
