//! Fuzz target: TER (`-m ter`): tercom's normalizer and sacreBLEU's beam edit distance with its
//! greedy shift search.
//!
//! Input: one flag byte (bit 0 normalized, 1 no_punct, 2 asian_support, 3 case_sensitive),
//! then text (invalid UTF-8 replaced) split at TABs: the hypothesis, then references (at least
//! one; none given means one empty reference).
//! Besides "no panic" (and bounded time: libFuzzer's per-input timeout), checks: the edit
//! breakdown adds up to the edits and the words shifted are at least the shifts; the edits are
//! at most hypothesis + reference words (a shift is taken only when it lowers the edit distance,
//! so the total never exceeds the plain distance, itself at most the sum of lengths); the score
//! is finite and non-negative; a worker's reused workspace (shift caches, word ids) gives the
//! same statistics as a fresh one.

#![no_main]

use bleu_stream::metric::ter::{Ter, TerConfig, TerWorkspace};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let mut fields = text.split('\t');
    let hyp = fields.next().unwrap_or("");
    let mut refs: Vec<&str> = fields.collect();
    if refs.is_empty() {
        refs.push("");
    }
    let config = TerConfig {
        normalized: flags & 1 != 0,
        no_punct: flags & 2 != 0,
        asian_support: flags & 4 != 0,
        case_sensitive: flags & 8 != 0,
    };
    let ter = Ter::new(config);

    let mut fresh = TerWorkspace::default();
    let s = ter.stats(hyp, &refs, &mut fresh);
    let e = s.edits;
    assert_eq!(
        e.insertions + e.deletions + e.substitutions + e.shifts,
        e.total,
        "breakdown"
    );
    assert!(e.shifted_words >= e.shifts, "shifted words");
    let hyp_words = ter.stats(hyp, &[hyp], &mut fresh);
    // The hypothesis against itself as reference: its word count is the average length.
    let hyp_len = hyp_words.avg_ref_len as u64;
    let max_ref = refs
        .iter()
        .map(|r| ter.stats(r, &[r], &mut fresh).avg_ref_len as u64)
        .max()
        .unwrap_or(0);
    assert!(e.total <= hyp_len + max_ref, "{} edits", e.total);
    let score = Ter::compute(e.total, s.avg_ref_len);
    assert!(score.is_finite() && score >= 0.0, "score {score}");

    // Reuse: a workspace that scored other lines first gives the same statistics.
    let mut reused = TerWorkspace::default();
    let _ = ter.stats(&refs[0], &[hyp], &mut reused);
    let again = ter.stats(hyp, &refs, &mut reused);
    assert_eq!(again, s, "reused workspace");
});
