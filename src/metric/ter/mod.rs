//! `ter`: sacreBLEU 2.6.0 `TER` (translation edit rate), bit for bit (`SACREBLEU.md` §5).
//!
//! A segment's statistics are sacreBLEU's `[best_num_edits, avg_ref_len]`: the fewest edits
//! over its references (each after sacreBLEU's greedy shifts, [`align`]) and the average
//! reference length in words. Corpus TER sums them as sacreBLEU's `sum_of_lists` does — the
//! edits as integers, the average lengths as a sequential float sum — and divides. Beyond
//! sacreBLEU, the best reference's edits are broken down as tercom reports them: insertions,
//! deletions, substitutions, shifts and the words shifted.
//!
//! Merging shards adds their float sums of average lengths. That gives one run's float exactly
//! when every average is a multiple of 1/1024 (one, two, four … references) and the sums stay
//! below 2^40: then no partial sum, in any order, is rounded. Otherwise (three references,
//! say) the shard sums would round differently, and `--emit stats` refuses.

mod align;
mod normalize;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::bleu::SACREBLEU_VERSION;
use super::options::CommonArgs;
use super::score::{self, Piece, Score};
use super::Registered;
use super::{saved, Metric};
use crate::input::{RefCounts, Segment};
use crate::ngram::Vocab;

use align::Aligner;
pub use align::Edits;
use normalize::Tercom;

/// `ter`'s own options, with sacreBLEU's names.
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "TER options")]
pub struct TerArgs {
    /// ter: keep case (sacreBLEU --ter-case-sensitive); by default TER lowercases, whatever
    /// --lowercase says.
    #[arg(long)]
    pub ter_case_sensitive: bool,

    /// ter: remove punctuation (sacreBLEU --ter-no-punct).
    #[arg(long)]
    pub ter_no_punct: bool,

    /// ter: tercom's Asian support: split CJK characters (with --ter-normalized) and remove
    /// CJK punctuation (with --ter-no-punct) (sacreBLEU --ter-asian-support).
    #[arg(long)]
    pub ter_asian_support: bool,

    /// ter: tercom's normalization: XML entities, punctuation split off words (sacreBLEU
    /// --ter-normalized).
    #[arg(long)]
    pub ter_normalized: bool,
}

/// TER settings; `Default` is sacreBLEU's `TER()`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerConfig {
    pub normalized: bool,
    pub no_punct: bool,
    pub asian_support: bool,
    pub case_sensitive: bool,
}

/// The `ter` metric.
#[derive(Debug)]
pub struct Ter {
    config: TerConfig,
    tercom: Tercom,
}

/// Statistics of one segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerStats {
    /// The best reference's edits (the first with the fewest).
    pub edits: Edits,
    /// sacreBLEU's `avg_ref_len`: the references' words over their number.
    pub avg_ref_len: f64,
    /// The references' words, summed.
    pub ref_words: u64,
    pub nrefs: usize,
}

/// Running corpus totals.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TerTotals {
    pub num_edits: u64,
    pub insertions: u64,
    pub deletions: u64,
    pub substitutions: u64,
    pub shifts: u64,
    pub shifted_words: u64,
    /// sacreBLEU's sum of the segments' average reference lengths, in input order.
    pub ref_length: f64,
    /// No partial sum of `ref_length` was rounded, in any order (see the module docs).
    pub exact: bool,
    /// Segments added.
    pub segments: u64,
    pub nrefs: RefCounts,
}

/// Per-worker buffers.
#[derive(Default)]
pub struct TerWorkspace {
    scratch: normalize::Scratch,
    ids: Vocab,
    hyp: Vec<u32>,
    reference: Vec<u32>,
    /// A normalized reference's words joined by spaces, for its second pass.
    joined: String,
    aligner: Aligner,
}

impl TerWorkspace {
    /// The words of `line` as ids (one id per distinct word of the segment).
    ///
    /// sacreBLEU tokenizes a reference twice: `_cache_references` preprocesses it, and
    /// `TER._extract_reference_info` preprocesses the result again. Only the normalization is
    /// not idempotent (`,,1b` becomes `, ,1b`, then `, , 1b`: the comma before a digit is split
    /// off only once the comma before it is), so a normalized reference goes through it a
    /// second time, as its words joined by spaces (sacreBLEU's `" ".join`).
    fn intern(&mut self, tercom: Tercom, line: &str, reference: bool) {
        let Self {
            scratch,
            ids,
            hyp,
            reference: ref_ids,
            joined,
            ..
        } = self;
        let out = if reference { ref_ids } else { hyp };
        out.clear();
        let line = if reference && tercom.normalized {
            joined.clear();
            for (i, w) in tercom.words(line, scratch).enumerate() {
                if i > 0 {
                    joined.push(' ');
                }
                joined.push_str(w);
            }
            joined.as_str()
        } else {
            line
        };
        out.extend(tercom.words(line, scratch).map(|word| ids.id(word)));
    }
}

/// Average lengths that are multiples of this add up exactly in any order (below
/// [`EXACT_LIMIT`]).
const EXACT_QUANTUM: f64 = 1024.0;
/// 2^40.
const EXACT_LIMIT: f64 = 1_099_511_627_776.0;

impl Ter {
    /// A TER metric with these settings.
    pub fn new(config: TerConfig) -> Ter {
        Ter {
            config,
            tercom: Tercom {
                normalized: config.normalized,
                no_punct: config.no_punct,
                asian_support: config.asian_support,
                case_sensitive: config.case_sensitive,
            },
        }
    }

    /// `TER._compute_segment_statistics` of `hyp` against `refs` (at least one).
    pub fn stats(&self, hyp: &str, refs: &[&str], ws: &mut TerWorkspace) -> TerStats {
        ws.ids.clear();
        ws.intern(self.tercom, hyp, false);
        let mut best: Option<Edits> = None;
        let mut ref_words = 0u64;
        for r in refs {
            ws.intern(self.tercom, r, true);
            ref_words += ws.reference.len() as u64;
            let e = align::edits(&ws.hyp, &ws.reference, &mut ws.aligner);
            // `if num_edits < best_num_edits`: the first reference with the fewest wins.
            if best.is_none_or(|b| e.total < b.total) {
                best = Some(e);
            }
        }
        TerStats {
            edits: best.unwrap_or_default(),
            // Python's int / int: one correctly rounded division.
            avg_ref_len: ref_words as f64 / refs.len().max(1) as f64,
            ref_words,
            nrefs: refs.len(),
        }
    }

    /// `TER._compute_score_from_stats`, in its operation order.
    pub fn compute(num_edits: u64, ref_length: f64) -> f64 {
        let score = if ref_length > 0.0 {
            num_edits as f64 / ref_length
        } else if num_edits > 0 {
            // Empty reference(s) and a non-empty hypothesis.
            1.0
        } else {
            0.0
        };
        100.0 * score
    }

    /// sacreBLEU's signature, e.g. `nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0`.
    pub fn signature(&self, nrefs: &str) -> String {
        let yes = |b: bool| if b { "yes" } else { "no" };
        let c = &self.config;
        format!(
            "nrefs:{nrefs}|case:{}|tok:tercom|norm:{}|punct:{}|asian:{}|version:{SACREBLEU_VERSION}",
            if c.case_sensitive { "mixed" } else { "lc" },
            yes(c.normalized),
            yes(!c.no_punct),
            yes(c.asian_support),
        )
    }
}

/// The JSON record of a sentence TER score: sacreBLEU's statistics and tercom's breakdown.
#[derive(Serialize)]
pub struct TerRecord {
    pub score: f64,
    pub num_edits: u64,
    pub ref_length: f64,
    pub insertions: u64,
    pub deletions: u64,
    pub substitutions: u64,
    pub shifts: u64,
    pub shifted_words: u64,
}

impl Registered for Ter {
    const NAME: &'static str = "ter";
    const SUMMARY: &'static str = "sacreBLEU 2.6.0 TER";
    type Args = TerArgs;

    fn config_from_args(_: &CommonArgs, args: TerArgs) -> Result<TerConfig, String> {
        Ok(TerConfig {
            normalized: args.ter_normalized,
            no_punct: args.ter_no_punct,
            asian_support: args.ter_asian_support,
            case_sensitive: args.ter_case_sensitive,
        })
    }

    fn new(config: TerConfig) -> Result<Ter, String> {
        Ok(Ter::new(config))
    }
}

impl Metric for Ter {
    type Stats = TerStats;
    type Totals = TerTotals;
    type Workspace = TerWorkspace;
    type Config = TerConfig;
    type Sentence = TerRecord;

    fn key(&self) -> &'static str {
        "ter"
    }

    fn config(&self) -> &TerConfig {
        &self.config
    }

    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut TerWorkspace) -> TerStats {
        segment.with_refs(|hyp, refs| self.stats(hyp, refs, ws))
    }

    fn sentence_scores(&self, stats: &TerStats, out: &mut Vec<f64>) -> Result<(), String> {
        out.push(Ter::compute(stats.edits.total, stats.avg_ref_len));
        Ok(())
    }

    fn sentence(&self, stats: &TerStats) -> Result<TerRecord, String> {
        let e = &stats.edits;
        Ok(TerRecord {
            score: Ter::compute(e.total, stats.avg_ref_len),
            num_edits: e.total,
            ref_length: stats.avg_ref_len,
            insertions: e.insertions,
            deletions: e.deletions,
            substitutions: e.substitutions,
            shifts: e.shifts,
            shifted_words: e.shifted_words,
        })
    }

    /// An edit rate: fewer edits are better, so `--fail-over` gates it.
    fn lower_is_better(&self) -> bool {
        true
    }

    fn new_totals(&self) -> TerTotals {
        TerTotals {
            exact: true,
            ..TerTotals::default()
        }
    }

    fn add(&self, t: &mut TerTotals, s: &TerStats) {
        let e = &s.edits;
        t.num_edits += e.total;
        t.insertions += e.insertions;
        t.deletions += e.deletions;
        t.substitutions += e.substitutions;
        t.shifts += e.shifts;
        t.shifted_words += e.shifted_words;
        // `total[i] += ll[i]`, in input order.
        t.ref_length += s.avg_ref_len;
        t.exact &= (s.avg_ref_len * EXACT_QUANTUM).fract() == 0.0 && t.ref_length < EXACT_LIMIT;
        t.segments += 1;
        t.nrefs.add(s.nrefs);
    }

    /// The edit counts and segments (the reference length is a float sum in input order).
    fn sums(&self, t: &TerTotals) -> Vec<u64> {
        vec![
            t.num_edits,
            t.insertions,
            t.deletions,
            t.substitutions,
            t.shifts,
            t.shifted_words,
            t.segments,
        ]
    }

    fn save_totals(&self, t: &TerTotals) -> Value {
        serde_json::to_value(t).expect("numbers serialize")
    }

    fn merge_saved(&self, t: &mut TerTotals, saved: &Value) -> Result<(), String> {
        let o: TerTotals =
            TerTotals::deserialize(saved).map_err(|e| format!("TER statistics: {e}"))?;
        if !(o.ref_length.is_finite() && o.ref_length >= 0.0) {
            return Err("TER statistics: ref_length is not a non-negative number".to_owned());
        }
        // One run keeps `exact` only while every average length is a multiple of 1/1024 and
        // the sum stays below 2^40 (`add`), so its sum is such a multiple too.
        if o.exact && !((o.ref_length * EXACT_QUANTUM).fract() == 0.0 && o.ref_length < EXACT_LIMIT)
        {
            return Err(format!(
                "TER statistics: ref_length {} is marked exact, but no sum of average lengths \
                 in steps of 1/1024 below 2^40 is",
                o.ref_length
            ));
        }
        saved::check_nrefs(o.nrefs, "TER statistics")?;
        check_ref_length(&o)?;
        let parts = o
            .insertions
            .checked_add(o.deletions)
            .and_then(|x| x.checked_add(o.substitutions))
            .and_then(|x| x.checked_add(o.shifts));
        if parts != Some(o.num_edits) || o.shifted_words < o.shifts {
            return Err(
                "TER statistics: the edit breakdown does not add up to num_edits".to_owned(),
            );
        }
        let add = |a: &mut u64, b: u64| -> Result<(), String> {
            *a = a
                .checked_add(b)
                .ok_or("TER statistics: sum overflows 64 bits")?;
            Ok(())
        };
        add(&mut t.num_edits, o.num_edits)?;
        add(&mut t.insertions, o.insertions)?;
        add(&mut t.deletions, o.deletions)?;
        add(&mut t.substitutions, o.substitutions)?;
        add(&mut t.shifts, o.shifts)?;
        add(&mut t.shifted_words, o.shifted_words)?;
        add(&mut t.segments, o.segments)?;
        t.ref_length += o.ref_length;
        t.exact &= o.exact && t.ref_length < EXACT_LIMIT;
        t.nrefs.merge(o.nrefs);
        Ok(())
    }

    fn totals_refusal(&self, t: &TerTotals) -> Option<String> {
        (!t.exact).then(|| {
            "ter: sacreBLEU sums the average reference lengths in floating point, and with \
             these numbers of references (not 1, 2, 4, …) that sum is rounded, so shard sums \
             would round differently from one run"
                .to_owned()
        })
    }

    /// Resampling: `[edits, 2520 × avg_ref_len]` (2520 = lcm(1..10), exact for up to ten
    /// references; the interval is a statistical estimate either way).
    fn vector_len(&self) -> Option<usize> {
        Some(2)
    }

    fn stats_vector(&self, s: &TerStats, out: &mut [u64]) {
        out[0] = s.edits.total;
        out[1] = (s.avg_ref_len * 2520.0).round() as u64;
    }

    fn check_vector(&self, v: &[u64]) -> Result<(), String> {
        match v.len() {
            2 => Ok(()),
            n => Err(format!("TER statistics: {n} numbers, not 2")),
        }
    }

    fn score_vector(&self, sums: &[u64]) -> f64 {
        Ter::compute(sums[0], sums[1] as f64 / 2520.0)
    }

    fn score(&self, t: &TerTotals) -> Score {
        let value = Ter::compute(t.num_edits, t.ref_length);
        let fields = score::fields(&TerRecord {
            score: value,
            num_edits: t.num_edits,
            ref_length: t.ref_length,
            insertions: t.insertions,
            deletions: t.deletions,
            substitutions: t.substitutions,
            shifts: t.shifts,
            shifted_words: t.shifted_words,
        });
        let line = vec![Piece::Text("TER = ".to_owned()), Piece::Score(value)];
        let signature = self.signature(&t.nrefs.signature_value());
        Score::new("ter", "TER".to_owned(), value, signature, fields, line)
    }
}

/// What `ref_length`, sacreBLEU's float sum of the segments' `avg_ref_len` (a segment's
/// reference words w over its k references, one correctly rounded division: [`Ter::stats`]),
/// can be beyond a non-negative number (`merge_saved`):
///
/// * with at most one reference per segment (`nrefs` up to 1) every average is a word count,
///   and a float sum of integers is an integer;
/// * when `exact`, each average is a multiple of 1/1024 and no partial sum was rounded
///   ([`Metric::add`]). An average w/k that is not itself such a multiple does not round to
///   one: each reference is a line of at most 1 GiB, so w < k × 2^30 and rounding moves w/k by
///   less than 2^−23, while such a w/k is at least 2^−10/k ≥ 2^−22 away from one (k ≤ 4096,
///   [`MAX_REFS`](crate::input::MAX_REFS)). So the odd part of k
///   divides w, and the average is a multiple of 1/2^a for the 2^a dividing k, at most the
///   most references: the sum is a multiple of 1/P, P the largest power of two up to that
///   many (and 1024), and it is the exact sum of the averages. Each segment's insertions and
///   substitutions take reference words of its best reference (tercom's trace), at most its
///   w = k × average words, so they add up to at most `ref_length` × the most references;
/// * a `ref_length` of 0 means every reference was empty: every edit is then a deletion (an
///   empty reference is "every hypothesis word is an edit", sacreBLEU's special case).
///
/// (A hypothesis with empty references has edits over a `ref_length` of 0: TER 100, not an
/// error.) The audit's document of 1000 one-reference segments with `ref_length` 1.5 scored
/// TER = 560133.33.
fn check_ref_length(o: &TerTotals) -> Result<(), String> {
    let most = o.nrefs.range().map_or(1, |(_, hi)| hi.max(1));
    let len = o.ref_length;
    if most == 1 && len.fract() != 0.0 {
        return Err(format!(
            "TER statistics: ref_length {len} is not a whole number of words, with one reference \
             per segment"
        ));
    }
    if len == 0.0 && (o.insertions > 0 || o.substitutions > 0 || o.shifts > 0) {
        return Err(
            "TER statistics: ref_length 0 (every reference empty) with insertions, \
             substitutions or shifts (against an empty reference every edit is a deletion)"
                .to_owned(),
        );
    }
    if !o.exact {
        return Ok(());
    }
    let step = 1u64 << most.min(1024).ilog2();
    if (len * step as f64).fract() != 0.0 {
        return Err(format!(
            "TER statistics: ref_length {len} is not a multiple of 1/{step}, which a sum of \
             exact averages of at most {most} references is"
        ));
    }
    // Rounding to doubles keeps `≤`, so the rounded sides compare as the exact ones do.
    let taken = o.insertions.saturating_add(o.substitutions);
    if taken as f64 > most as f64 * len {
        return Err(format!(
            "TER statistics: {taken} insertions and substitutions, more than the reference words \
             of ref_length {len} with at most {most} reference{} per segment",
            if most == 1 { "" } else { "s" }
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(h: &str, refs: &[&str], config: TerConfig) -> (f64, TerStats) {
        let ter = Ter::new(config);
        let s = ter.stats(h, refs, &mut TerWorkspace::default());
        (Ter::compute(s.edits.total, s.avg_ref_len), s)
    }

    #[test]
    fn scores_and_breakdown() {
        let (score, s) = sentence("the cat sat", &["the cat sat"], TerConfig::default());
        assert_eq!(score, 0.0);
        assert_eq!(s.avg_ref_len, 3.0);
        let (score, s) = sentence("sat the cat", &["The cat sat"], TerConfig::default());
        assert_eq!(s.edits.total, 1);
        assert_eq!(s.edits.shifts, 1);
        assert_eq!(score, 33.33333333333333); // sacreBLEU: 1 / 3 * 100
                                              // Several references: the fewest edits, the average length.
        let (_, s) = sentence("a b c", &["a b c d e", "x y"], TerConfig::default());
        assert_eq!((s.edits.total, s.avg_ref_len), (2, 3.5));
        // Empty reference: every hypothesis word, and TER 100.
        let (score, _) = sentence("a b", &[""], TerConfig::default());
        assert_eq!(score, 100.0);
        let (score, _) = sentence("", &[""], TerConfig::default());
        assert_eq!(score, 0.0);
    }

    /// Regression: sacreBLEU normalizes a reference twice (`_cache_references`, then
    /// `_extract_reference_info`), and tercom's normalization is not idempotent. sacreBLEU
    /// 2.6.0 itself gives `,,1b` against `,,1b` TER 66.67 (2 edits) and `, , 1b` TER 0.
    #[test]
    fn normalized_reference_is_normalized_twice() {
        let norm = TerConfig {
            normalized: true,
            ..TerConfig::default()
        };
        let (score, s) = sentence(",,1b", &[",,1b"], norm);
        assert_eq!((s.edits.total, s.avg_ref_len), (2, 3.0));
        assert_eq!(score, 66.66666666666666);
        let (score, _) = sentence(", , 1b", &[",,1b"], norm);
        assert_eq!(score, 0.0);
        // The hypothesis is normalized once only.
        let (score, _) = sentence(": % , . 1b1", &[":%,.1b1"], norm);
        assert_eq!(score, 0.0);
    }

    #[test]
    fn signatures() {
        let t = Ter::new(TerConfig::default());
        assert_eq!(
            t.signature("1"),
            "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"
        );
        let t = Ter::new(TerConfig {
            normalized: true,
            no_punct: true,
            asian_support: true,
            case_sensitive: true,
        });
        assert_eq!(
            t.signature("2"),
            "nrefs:2|case:mixed|tok:tercom|norm:yes|punct:no|asian:yes|version:2.6.0"
        );
    }

    #[test]
    fn thirds_are_not_mergeable_halves_are() {
        let ter = Ter::new(TerConfig::default());
        let mut ws = TerWorkspace::default();
        let mut t = ter.new_totals();
        ter.add(&mut t, &ter.stats("a", &["a b", "a"], &mut ws));
        assert!(ter.totals_refusal(&t).is_none());
        ter.add(&mut t, &ter.stats("a", &["a b", "a", "a"], &mut ws));
        assert!(ter.totals_refusal(&t).is_some());
    }

    /// Sums of segments `stats` makes — empty hypotheses and references, one to eight
    /// references (halves, quarters, eighths; thirds and fifths, whose sums are inexact) — are
    /// accepted, whatever their `nrefs` range.
    #[test]
    fn every_sum_of_real_segments_is_accepted() {
        let ter = Ter::new(TerConfig::default());
        let mut ws = TerWorkspace::default();
        let mut rng = crate::test_rng::Rng(0x7e4_5eed);
        let words = |rng: &mut crate::test_rng::Rng| {
            let len = rng.below(8);
            (0..len)
                .map(|_| ["a", "b", "c", "d", "e"][rng.below(5)])
                .collect::<Vec<_>>()
                .join(" ")
        };
        for counts in [
            &[1][..],
            &[2],
            &[1, 2],
            &[4],
            &[1, 2, 3, 4],
            &[3],
            &[5, 8],
            &[8],
        ] {
            for _ in 0..30 {
                let mut t = ter.new_totals();
                for _ in 0..1 + rng.below(10) {
                    let hyp = words(&mut rng);
                    let k = counts[rng.below(counts.len())];
                    let refs: Vec<String> = (0..k).map(|_| words(&mut rng)).collect();
                    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
                    ter.add(&mut t, &ter.stats(&hyp, &refs, &mut ws));
                }
                let mut merged = ter.new_totals();
                let saved = ter.save_totals(&t);
                assert_eq!(ter.merge_saved(&mut merged, &saved), Ok(()), "{saved}");
                assert_eq!(merged, t);
            }
        }
        // Empty references: edits over a ref_length of 0, all deletions (TER 100).
        let mut t = ter.new_totals();
        ter.add(&mut t, &ter.stats("a b", &["", ""], &mut ws));
        assert_eq!((t.deletions, t.ref_length), (2, 0.0));
        assert!(ter
            .merge_saved(&mut ter.new_totals(), &ter.save_totals(&t))
            .is_ok());
    }

    /// The audit's document (one reference per segment, `ref_length` 1.5: TER = 560133.33,
    /// exit 0) and other reference lengths no segments add up to are refused.
    #[test]
    fn impossible_reference_lengths_are_refused() {
        let ter = Ter::new(TerConfig::default());
        let mut ws = TerWorkspace::default();
        let mut total = |pairs: &[(&str, &[&str])]| {
            let mut t = ter.new_totals();
            for (h, refs) in pairs {
                ter.add(&mut t, &ter.stats(h, refs, &mut ws));
            }
            t
        };
        let refused = |t: &TerTotals, edit: &dyn Fn(&mut Value), says: &str| {
            let mut saved = ter.save_totals(t);
            edit(&mut saved);
            let e = ter.merge_saved(&mut ter.new_totals(), &saved).unwrap_err();
            assert!(e.contains(says), "{e:?} does not contain {says:?}");
        };
        let one = total(&[("a b c", &["a x c d"]), ("b", &["b c"])]);
        assert_eq!((one.num_edits, one.ref_length, one.insertions), (3, 6.0, 2));
        refused(
            &one,
            &|v| v["ref_length"] = serde_json::json!(1.5),
            "ref_length 1.5 is not a whole number of words, with one reference per segment",
        );
        refused(
            &one,
            &|v| v["ref_length"] = serde_json::json!(2.0),
            "3 insertions and substitutions, more than the reference words of ref_length 2",
        );
        refused(
            &one,
            &|v| v["ref_length"] = serde_json::json!(0.0),
            "ref_length 0 (every reference empty) with insertions",
        );
        // Up to three references: averages in halves at most, and at most 3 × 2.5 words taken.
        let two = total(&[("a b", &["a b c", "a b"]), ("a", &["b", "c", "d"])]);
        assert_eq!((two.ref_length, two.nrefs.range()), (3.5, Some((2, 3))));
        refused(
            &two,
            &|v| v["ref_length"] = serde_json::json!(3.25),
            "ref_length 3.25 is not a multiple of 1/2",
        );
        let mut saved = ter.save_totals(&two);
        saved["exact"] = serde_json::json!(false);
        saved["ref_length"] = serde_json::json!(3.25);
        assert!(ter.merge_saved(&mut ter.new_totals(), &saved).is_ok());
    }
}
