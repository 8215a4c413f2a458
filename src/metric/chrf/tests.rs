//! Unit tests of [`super::Chrf`].

use super::*;

fn sentence(hyp: &str, refs: &[&str], config: ChrfConfig) -> (f64, ChrfStats) {
    let chrf = Chrf::new(config);
    let stats = chrf.stats(hyp, refs, &mut ChrfWorkspace::default());
    (chrf.f_score(&stats.counts), stats)
}

#[test]
fn identical_strings_score_100_and_empty_ones_0() {
    let (score, stats) = sentence("a cat", &["a cat"], ChrfConfig::default());
    assert_eq!(score, 100.0);
    // "acat": 4 unigrams, 3 bigrams, 2 trigrams, 1 fourgram, none longer.
    assert_eq!(stats.counts[..12], [4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1]);
    assert_eq!(stats.counts[12..], [0, 0, 0, 0, 0, 0]);
    let (score, _) = sentence("", &[""], ChrfConfig::default());
    assert_eq!(score, 0.0);
    let eps = ChrfConfig {
        eps_smoothing: true,
        ..ChrfConfig::default()
    };
    assert_eq!(sentence("", &[""], eps).0, 1.0000000000000002e-14);
}

#[test]
fn first_strictly_best_reference_wins() {
    let (_, stats) = sentence("xyz", &["abc", "def"], ChrfConfig::default());
    assert_eq!(stats.best_ref, 0);
    let (_, stats) = sentence("abc", &["xyz", "abc", "abc"], ChrfConfig::default());
    assert_eq!(stats.best_ref, 1);
}

#[test]
fn names_and_signatures() {
    let plus = Chrf::new(ChrfConfig {
        word_order: 2,
        ..ChrfConfig::default()
    });
    assert_eq!(plus.name(), "chrF2++");
    assert_eq!(
        plus.signature("1"),
        "nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0"
    );
}

/// `[hyp_count, ref_count, matches]` of orders `1..=max_order` by counting every n-gram in a
/// map (both sides longer than `max_order`).
fn naive_triples<T: Clone + Eq + std::hash::Hash>(h: &[T], r: &[T], max_order: usize) -> Vec<u64> {
    let mut out = Vec::new();
    for n in 1..=max_order {
        let count = |s: &[T]| {
            let mut m = std::collections::HashMap::<Vec<T>, u64>::new();
            for w in s.windows(n) {
                *m.entry(w.to_vec()).or_default() += 1;
            }
            m
        };
        let (hc, rc) = (count(h), count(r));
        let matched: u64 = hc
            .iter()
            .map(|(g, c)| (*c).min(rc.get(g).copied().unwrap_or(0)))
            .sum();
        out.extend([(h.len() + 1 - n) as u64, (r.len() + 1 - n) as u64, matched]);
    }
    out
}

/// Character orders too long for 128-bit keys on a segment over [`SORTED_CHARS_BYTES`] are
/// counted by sorting (the index took about 100 × the line): the triples equal naive
/// counting of the n-grams as strings, white space removed as sacreBLEU does.
#[test]
fn long_orders_on_a_huge_segment_count_exactly() {
    let mut x: u32 = 7;
    let mut text = |len: usize| -> String {
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                // 40 letters (6-bit ids: 30 orders need 180 bits) and some spaces.
                char::from_u32(if x.is_multiple_of(9) {
                    32
                } else {
                    0x3b1 + x % 40
                })
                .unwrap()
            })
            .collect()
    };
    let hyp = text(40_000);
    let mut reference: String = hyp.chars().skip(5).collect();
    reference.push_str(&text(3_000));
    assert!(hyp.len() + reference.len() > SORTED_CHARS_BYTES);
    let config = ChrfConfig {
        char_order: 30,
        ..ChrfConfig::default()
    };
    let (_, stats) = sentence(&hyp, &[&reference], config);
    let chars = |s: &str| -> Vec<char> { s.chars().filter(|c| *c != ' ').collect() };
    let (h, r) = (chars(&hyp), chars(&reference));
    assert_eq!(stats.counts, naive_triples(&h, &r, 30));
}

/// The same for chrF++ word orders too long for [`WordNgrams`]' 128-bit keys (here 40
/// words, 6-bit ids, order 25): the word triples equal naive counting.
#[test]
fn long_word_orders_on_a_huge_segment_count_exactly() {
    let mut x: u32 = 11;
    let mut words = |len: usize| -> Vec<String> {
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                format!("w{}", x % 40)
            })
            .collect()
    };
    let h = words(12_000);
    let mut r: Vec<String> = h[3..].to_vec();
    r.extend(words(2_000));
    let (hyp, reference) = (h.join(" "), r.join(" "));
    assert!(hyp.len() + reference.len() > PACKED_WORDS_BYTES);
    let config = ChrfConfig {
        word_order: 25,
        ..ChrfConfig::default()
    };
    let (_, stats) = sentence(&hyp, &[&reference], config);
    // The character orders (6 by default) come first.
    assert_eq!(stats.counts[3 * 6..], naive_triples(&h, &r, 25)[..]);
}

/// Regression (drop-in audit, 2026-11-27): sacreBLEU's `factor = beta ** 2` is a Python int;
/// the `u32` square wrapped past beta 65,535 (a silent wrong chrF), and `1.0 + factor` rounded
/// twice where Python rounds `1 + factor` once (values from CPython 3.11).
#[test]
fn beta_factors_are_python_s_int_to_float() {
    let factors = |beta: u64| {
        ChrfConfig {
            beta,
            ..ChrfConfig::default()
        }
        .factors()
    };
    assert_eq!(factors(2), (4.0, 5.0));
    assert_eq!(factors(65_536), (4_294_967_296.0, 4_294_967_297.0));
    // 94906267² = 9007199515875289, past 2^53: 9007199515875288.0 and 9007199515875290.0,
    // where 9007199515875288.0 + 1.0 would be 9007199515875288.0.
    assert_eq!(
        factors(94_906_267),
        (9_007_199_515_875_288.0, 9_007_199_515_875_290.0)
    );
    assert_eq!(
        factors(u64::MAX),
        (3.402_823_669_209_385e38, 3.402_823_669_209_385e38)
    );
}
