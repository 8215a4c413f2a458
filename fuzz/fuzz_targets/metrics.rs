//! Fuzz target: statistics, sentence rows and corpus reports of every metric in
//! `bleu_stream::metric::REGISTRY`, under fuzzed settings.
//!
//! Input: eight option bytes, then segments — lines split on `\n`, fields on `\t` (hypothesis
//! first; a line without a TAB gets one empty reference), invalid UTF-8 replaced. The options
//! are turned into a command line and parsed by the binary's own parser, so the metrics are
//! configured exactly as `bleu-stream` configures them (and new options' defaults apply).
//!
//! Checks, besides "no panic": rows are valid JSON (or the documented `{"error": …}`) and text
//! rows have the metric's number of columns; matches never exceed totals (BLEU's and chrF's
//! typed statistics, and every `counts`/`matches` vs `totals`/`total` pair in rows); BLEU
//! totals are the hypothesis n-gram counts; scores are never infinite, never negative, at most
//! 100 for BLEU and chrF, and NaN only where documented — a report carrying an `"error"` (the
//! reference tool dies there) or `nltk-bleu --compat matlab` on all-empty input.

#![no_main]

use std::borrow::Cow;

use bleu_stream::input::{Segment, SegmentRefs};
use bleu_stream::metric::bleu::BleuStats;
use bleu_stream::metric::chrf::ChrfStats;
use bleu_stream::metric::registry;
use bleu_stream::output::{jsonl, text};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Command-line options from eight bytes (every metric's settings, within their valid ranges).
fn options(o: &[u8; 8]) -> Vec<String> {
    let pick = |b: u8, xs: &[&str]| xs[usize::from(b) % xs.len()].to_owned();
    let mut a: Vec<String> = vec!["bleu-stream".into()];
    let mut push = |k: &str, v: String| {
        a.push(k.to_owned());
        a.push(v);
    };
    let tok = pick(o[0], &["", "13a", "intl", "zh", "char", "none"]);
    if !tok.is_empty() {
        push("--tokenize", tok);
    }
    push("-s", pick(o[0] >> 3, &["exp", "floor", "add-k", "none"]));
    push("--max-ngram-order", (1 + o[1] % 6).to_string());
    push("--effective-order", pick(o[1] >> 3, &["auto", "yes", "no"]));
    push("--chrf-char-order", (1 + o[2] % 7).to_string());
    push("--chrf-word-order", (o[2] >> 3 & 3).to_string());
    push("--chrf-beta", (o[2] >> 5).to_string());
    push(
        "--weights",
        pick(
            o[3],
            &[
                "0.25,0.25,0.25,0.25",
                "1",
                "0.5,0.5",
                "0.1,0.2,0.3,0.4,0.5",
                "0,1",
                "0.3333,0.3333,0.3333",
            ],
        ),
    );
    if o[3] & 0x80 != 0 {
        push("--weights", "0.5,0.5".into());
    }
    if o[3] & 0x40 == 0 {
        push("--nltk-smoothing", (o[3] >> 3 & 7).to_string());
    }
    push("--compat", pick(o[4], &["nltk", "matlab"]));
    push("--alpha", pick(o[4] >> 1, &["5", "5.0", "0.5"]));
    push("--k", pick(o[4] >> 3, &["5", "2", "7.5"]));
    push("--epsilon", pick(o[4] >> 5, &["0.1", "1", "0.01"]));
    push("--gleu-min-len", (o[5] % 4).to_string());
    push("--gleu-max-len", (o[5] >> 2 & 7).to_string());
    push("--nltk-chrf-min-len", (o[5] >> 5).to_string());
    push("--nltk-chrf-max-len", (o[6] % 8).to_string());
    push(
        "--nltk-chrf-beta",
        pick(o[6] >> 3, &["3.0", "2", "0.5", "1"]),
    );
    push("--nist-order", (o[6] >> 5).to_string());
    push("--nist-compat", pick(o[7], &["mteval", "nltk"]));
    push("--nist-tokenize", pick(o[7] >> 1, &["mteval", "none"]));
    push(
        "--brevity-penalty",
        pick(o[7] >> 2, &["closest", "shortest"]),
    );
    let flags = [
        (o[0] & 0x80 != 0, "-l"),
        (o[1] & 0x80 != 0, "--chrf-whitespace"),
        (o[1] & 0x40 != 0, "--chrf-eps-smoothing"),
        (o[4] & 0x80 != 0, "--auto-reweigh"),
        (o[7] & 0x08 != 0, "--multi-bleu-detok"),
        (o[7] & 0x10 != 0, "--nltk-chrf-whitespace"),
        (o[7] & 0x20 != 0, "--mteval-international"),
        (o[7] & 0x40 != 0, "--case-sensitive"),
        (o[7] & 0x80 != 0, "--mteval-no-smoothing"),
    ];
    for (on, flag) in flags {
        if on {
            a.push(flag.to_owned());
        }
    }
    a
}

/// `counts`/`matches` ≤ `totals`/`total`, element-wise, in a row or report object.
fn check_matches(key: &str, v: &Value) {
    let matches = v.get("counts").or_else(|| v.get("matches"));
    let totals = v.get("totals").or_else(|| v.get("total"));
    let (Some(m), Some(t)) = (matches, totals) else {
        return;
    };
    let flat = |x: &Value| -> Vec<f64> {
        match x {
            Value::Array(a) => a.iter().filter_map(Value::as_f64).collect(),
            other => other.as_f64().into_iter().collect(),
        }
    };
    let (m, t) = (flat(m), flat(t));
    assert_eq!(
        m.len(),
        t.len(),
        "{key}: counts and totals differ in length: {v}"
    );
    for (a, b) in m.iter().zip(&t) {
        assert!(a <= b, "{key}: matches over totals: {v}");
    }
}

fn check_score(key: &str, score: f64, documented_nan: bool, what: &str) {
    assert!(!score.is_infinite(), "{key}: infinite {what} score");
    if score.is_nan() {
        assert!(documented_nan, "{key}: undocumented NaN {what} score");
        return;
    }
    assert!(score >= 0.0, "{key}: negative {what} score {score}");
    if key == "bleu" || key == "chrf" {
        assert!(
            score <= 100.0 + 1e-9,
            "{key}: {what} score {score} over 100"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (head, body) = data.split_at(8);
    let mut argv = options(head.try_into().expect("8 bytes"));
    let names: Vec<String> = registry::names().map(str::to_owned).collect();
    argv.push(format!("--metrics={}", names.join(",")));
    let metrics = match bleu_stream::cli::parse(argv.iter().map(Into::into)) {
        Ok(config) => config.metrics,
        // A usage error (e.g. weights NLTK rejects): not a crash.
        Err(_) => return,
    };
    let matlab = argv.iter().any(|a| a == "matlab");

    let text = String::from_utf8_lossy(body);
    let segments: Vec<Segment<'_>> = text
        .split('\n')
        .take(16)
        .map(|line| {
            let mut fields = line.split('\t').map(Cow::Borrowed);
            let hyp = fields.next().unwrap_or_default();
            let mut refs: SegmentRefs<'_> = fields.take(6).collect();
            if refs.is_empty() {
                refs.push(Cow::Borrowed(""));
            }
            Segment {
                hyp,
                refs,
                id: None,
                exact: false,
            }
        })
        .collect();

    for m in &metrics {
        let key = m.key();
        let mut ws = m.new_workspace();
        let mut json_batch = m.new_batch(segments.len());
        let mut text_batch = m.new_batch(segments.len());
        let mut totals = m.new_totals();
        for (i, seg) in segments.iter().enumerate() {
            let mut row = Vec::new();
            let index = m.push_stats(seg, ws.as_mut(), json_batch.as_mut());
            let err = m.write_sentence(json_batch.as_ref(), index, &mut row).err();
            if let Some(message) = &err {
                jsonl::error_object(message, &mut row);
            }
            let v: Value = serde_json::from_slice(&row)
                .unwrap_or_else(|e| panic!("{key}: row is not JSON ({e}): {row:?}"));
            match err {
                Some(message) => {
                    assert!(!message.is_empty());
                    assert_eq!(v["error"].as_str(), Some(message.as_str()), "{key}: {v}");
                }
                None => {
                    check_matches(key, &v);
                    // One score, or one per weight vector (nltk-bleu with several --weights).
                    let scores = match &v["score"] {
                        Value::Array(a) => a.clone(),
                        s => vec![s.clone()],
                    };
                    for s in scores {
                        match s {
                            Value::Null => {
                                assert!(key == "nltk-bleu" && matlab, "{key}: null score: {v}")
                            }
                            s => check_score(key, s.as_f64().expect("number"), false, "sentence"),
                        }
                    }
                }
            }
            let mut scores = Vec::new();
            let index = m.push_stats(seg, ws.as_mut(), text_batch.as_mut());
            let mut line = Vec::new();
            match m.sentence_scores(text_batch.as_ref(), index, &mut scores) {
                Ok(()) => {
                    assert_eq!(scores.len(), m.columns(), "{key}: text row columns");
                    text::scores(&scores, 3, &mut line);
                }
                Err(_) => text::empty_fields(m.columns(), &mut line),
            }
            let tabs = line.iter().filter(|&&b| b == b'\t').count();
            assert_eq!(tabs + 1, m.columns(), "{key}: text row columns: {line:?}");
            assert!(!line.contains(&b'\n'), "{key}: newline in a text row");
            m.accumulate(totals.as_mut(), json_batch.as_ref(), i);
        }
        // Typed statistics of the two sacreBLEU metrics.
        if let Some(stats) = json_batch.downcast_ref::<Vec<BleuStats>>() {
            for s in stats {
                let n = (s.counts.len() - 2) / 2;
                let (hyp_len, matches, totals) =
                    (s.counts[0], &s.counts[2..2 + n], &s.counts[2 + n..]);
                for i in 0..n {
                    assert!(matches[i] <= totals[i], "bleu: {:?}", s.counts);
                    assert_eq!(
                        totals[i],
                        hyp_len.saturating_sub(i as u64),
                        "bleu: {:?}",
                        s.counts
                    );
                }
            }
        }
        if let Some(stats) = json_batch.downcast_ref::<Vec<ChrfStats>>() {
            for s in stats {
                for t in s.counts.chunks_exact(3) {
                    assert!(t[2] <= t[0] && t[2] <= t[1], "chrf: {:?}", s.counts);
                }
                assert!(s.best_ref < s.nrefs);
            }
        }
        let report = m.score(totals.as_ref());
        assert_eq!(report.key, key);
        assert!(
            !text::line(&report, 2).contains('\n'),
            "{key}: newline in report text"
        );
        let fields = Value::Object(jsonl::score_object(&report, 2));
        serde_json::to_string(&fields).expect("report serializes");
        let error = report.fields.contains_key("error");
        check_score(
            key,
            report.value,
            error || (key == "nltk-bleu" && matlab),
            "corpus",
        );
        if !error {
            check_matches(key, &fields);
        }
    }
});
