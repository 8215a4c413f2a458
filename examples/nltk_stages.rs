//! Where the CPU time of `-m nltk-bleu` goes, stage by stage, on one thread, with the input
//! already in memory: Python `str.split()` of both fields, then also the exact n-gram ids and
//! clipping of orders 1–4 ([`clipped_matches`]), then the whole per-segment statistics
//! ([`NltkBleu::stats`]). What the process spends beyond the last figure is reading, framing,
//! UTF-8 checks, batching and merging (compare with `bench/run.sh --tools bleu-stream-t1,nltk`).
//!
//! Usage: `cargo run --release --example nltk_stages -- bench/work/corpus.tsv` (hyp<TAB>ref
//! lines; bench/run.sh builds that file). Prints the best of 5 runs of each stage.
use std::time::{Duration, Instant};

use bleu_stream::metric::nltk_bleu::{NltkBleu, NltkBleuConfig, NltkWorkspace};
use bleu_stream::metric::Metric;
use bleu_stream::ngram::{clipped_matches, ClipWorkspace};
use bleu_stream::tokenize::Tokens;

/// The best of 5 runs of `stage`, and what its last run returned (so that nothing is optimised
/// away, and the stages can be seen to agree).
fn best(mut stage: impl FnMut() -> u64) -> (Duration, u64) {
    let mut fastest = Duration::MAX;
    let mut result = 0;
    for _ in 0..5 {
        let start = Instant::now();
        result = stage();
        fastest = fastest.min(start.elapsed());
    }
    (fastest, result)
}

/// `str.split()` of a hypothesis and its reference into reused buffers.
fn split_into(h: &str, r: &str, hyp: &mut Tokens, reference: &mut Tokens) {
    hyp.clear();
    hyp.extend_split(h);
    reference.clear();
    reference.extend_split(r);
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: nltk_stages CORPUS.tsv (hyp<TAB>ref lines)");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let pairs: Vec<(&str, &str)> = text
        .lines()
        .map(|l| l.split_once('\t').unwrap_or((l, "")))
        .collect();
    let mut hyp = Tokens::default();
    let mut refs = vec![Tokens::default()];
    let split = best(|| {
        let mut tokens = 0;
        for (h, r) in &pairs {
            split_into(h, r, &mut hyp, &mut refs[0]);
            tokens += (hyp.len() + refs[0].len()) as u64;
        }
        tokens
    });
    let mut clip = ClipWorkspace::default();
    let clipped = best(|| {
        let mut unigrams = 0;
        for (h, r) in &pairs {
            split_into(h, r, &mut hyp, &mut refs[0]);
            clipped_matches(&hyp, &refs, 4, &mut clip);
            unigrams += clip.matches[0];
        }
        unigrams
    });
    let metric = NltkBleu::new(NltkBleuConfig::default()).expect("default NLTK settings");
    let mut ws = NltkWorkspace::default();
    let stats = best(|| {
        let mut totals = metric.new_totals();
        for (h, r) in &pairs {
            metric.merge(&mut totals, &metric.stats(h, &[r], &mut ws));
        }
        totals.counts[0]
    });
    println!("{} segments", pairs.len());
    println!("split            {:>9.1?}  ({} tokens)", split.0, split.1);
    println!(
        "+ ids, clipping  {:>9.1?}  ({} clipped unigram matches)",
        clipped.0, clipped.1
    );
    println!(
        "whole statistics {:>9.1?}  ({} clipped unigram matches)",
        stats.0, stats.1
    );
}
