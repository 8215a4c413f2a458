//! `multi-bleu`: Moses `multi-bleu.perl` and, with `--multi-bleu-detok`,
//! `multi-bleu-detok.perl` (`MTEVAL.md` §5–6), same statistics and same report line.
//!
//! Both scripts sum, over lines, the clipped n-gram matches and the hypothesis n-gram counts of
//! orders 1–4, the hypothesis length and the closest reference length; the score is
//! `BP · exp(Σ L(p_n) / 4)` with no smoothing (`L(0) = −9999999999`, so any order without a match
//! gives exactly 0). Segment statistics are those sums for one line, corpus statistics their
//! total, so every running or final report is what the script prints for the lines so far.
//! Per-line rows are the script's formula applied to that line alone (the scripts themselves
//! have no sentence scores).
//!
//! Where Perl would die on a division by zero (non-empty references, all hypotheses empty) the
//! report is an error that says so; where the script prints its literal all-zero line (all
//! references empty) that line is reproduced.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::options::CommonArgs;
use super::score::{self, Piece, Score};
use super::Registered;
use super::{saved, Metric};
use crate::input::{RefCounts, Segment};
use crate::ngram::{clipped_matches, ClipWorkspace};
use crate::tokenize::{AsciiSpace, Scratch, Tokenizer, Tokens};
use crate::unicode::py_lower_into;

/// Which script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Script {
    /// `multi-bleu.perl`: bytes, ASCII whitespace split, ASCII-only `-lc`.
    MultiBleu,
    /// `multi-bleu-detok.perl`: UTF-8, mteval-v13a tokenization (case preserved), Perl
    /// whitespace split, Unicode `lc`.
    Detok,
}

impl Script {
    fn file_name(self) -> &'static str {
        match self {
            Script::MultiBleu => "multi-bleu.perl",
            Script::Detok => "multi-bleu-detok.perl",
        }
    }
}

/// `multi-bleu`'s own options (`--lowercase` is shared: [`CommonArgs`]).
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "multi-bleu options")]
pub struct MultiBleuArgs {
    /// multi-bleu: multi-bleu-detok.perl (mteval 13a tokenization of raw text) instead of
    /// multi-bleu.perl (whitespace tokens).
    #[arg(long)]
    pub multi_bleu_detok: bool,
}

/// `multi-bleu` settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MultiBleuConfig {
    pub script: Script,
    /// `-lc`.
    pub lowercase: bool,
}

impl Default for MultiBleuConfig {
    fn default() -> Self {
        MultiBleuConfig {
            script: Script::MultiBleu,
            lowercase: false,
        }
    }
}

/// Statistics of one line, or corpus totals.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MultiBleuStats {
    /// Clipped matches of orders 1–4 (`$CORRECT[n]`).
    pub correct: [u64; 4],
    /// Hypothesis n-grams of orders 1–4 (`$TOTAL[n]`).
    pub total: [u64; 4],
    /// `$length_translation`.
    pub hyp_len: u64,
    /// `$length_reference`: closest reference lengths (9999 for a line no reference has).
    pub ref_len: u64,
    /// Smallest and largest number of references (signature `nrefs`).
    pub nrefs: RefCounts,
}

/// What the script prints for some statistics.
#[derive(Clone, Debug, PartialEq)]
pub enum MultiBleuScore {
    /// The normal line.
    Score {
        /// BLEU on a 0–1 scale, unrounded (`$bleu`).
        bleu: f64,
        /// `$bleu[1..4]`: `correct/total`, 0 for an order without hypothesis n-grams.
        precisions: [f64; 4],
        bp: f64,
        ratio: f64,
    },
    /// All references empty: the script prints `BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0,
    /// ref_len=0)` whatever the hypothesis length, and exits with status 1.
    ZeroReference,
    /// Non-empty references but empty hypotheses: Perl dies with "Illegal division by zero"
    /// computing the brevity penalty (exit 255, nothing on stdout).
    DivisionByZero,
}

const ZERO_LINE: &str = "BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)";

/// The message for [`MultiBleuScore::DivisionByZero`].
fn division_message(script: Script) -> String {
    format!(
        "empty hypotheses against non-empty references: {} dies here with \
         \"Illegal division by zero\" (brevity penalty 1 - ref_len/hyp_len with hyp_len = 0)",
        script.file_name()
    )
}

impl MultiBleuScore {
    /// The script's stdout line: `BLEU = %.2f, %.1f/%.1f/%.1f/%.1f (BP=%.3f, ratio=%.3f,
    /// hyp_len=%d, ref_len=%d)`. Rust's `{:.N}` rounds the exact binary value half to even, as
    /// C `printf` does (`100·3/16 = 18.75` → `18.8`, `6.25` → `6.2`).
    pub fn line(&self, stats: &MultiBleuStats) -> Option<String> {
        match self {
            MultiBleuScore::Score {
                bleu,
                precisions,
                bp,
                ratio,
            } => {
                let p = precisions;
                Some(format!(
                    "BLEU = {:.2}, {:.1}/{:.1}/{:.1}/{:.1} (BP={:.3}, ratio={:.3}, hyp_len={}, ref_len={})",
                    100.0 * bleu,
                    100.0 * p[0],
                    100.0 * p[1],
                    100.0 * p[2],
                    100.0 * p[3],
                    bp,
                    ratio,
                    stats.hyp_len,
                    stats.ref_len
                ))
            }
            MultiBleuScore::ZeroReference => Some(ZERO_LINE.to_owned()),
            MultiBleuScore::DivisionByZero => None,
        }
    }

    /// The printed score, `100 · $bleu` (0 for the all-zero line, NaN where Perl dies).
    pub fn score(&self) -> f64 {
        match self {
            MultiBleuScore::Score { bleu, .. } => 100.0 * bleu,
            MultiBleuScore::ZeroReference => 0.0,
            MultiBleuScore::DivisionByZero => f64::NAN,
        }
    }
}

/// The `multi-bleu` metric.
#[derive(Debug)]
pub struct MultiBleu {
    config: MultiBleuConfig,
}

/// Per-worker buffers.
#[derive(Default)]
pub struct MultiBleuWorkspace {
    scratch: Scratch,
    text: String,
    hyp: Tokens,
    refs: Vec<Tokens>,
    clip: ClipWorkspace,
    /// A reference as multi-bleu-detok.perl's strict decoding reads it ([`strict_utf8`]).
    strict: String,
}

/// `multi-bleu-detok.perl` reads its reference files through `use open ':encoding(UTF-8)'`,
/// Perl's *strict* decoding, which refuses Unicode's 66 noncharacters (U+FDD0–U+FDEF and the
/// last two code points of every plane) and, by PerlIO's default fallback, reads each as the
/// text `\xEF\xB7\x90` (its bytes, in upper-case hex), which 13a then splits at the
/// backslashes: more reference tokens (`a U+FDD0 b` is 8 of them). The hypothesis comes from
/// standard input, decoded leniently (`:utf8`), so it keeps them (found by the Perl audit;
/// mteval-v13a.pl and multi-bleu.perl keep them too).
fn strict_utf8<'a>(text: &'a str, out: &'a mut String) -> &'a str {
    let noncharacter =
        |c: char| matches!(c, '\u{FDD0}'..='\u{FDEF}') || (c as u32) & 0xFFFE == 0xFFFE;
    if text.is_ascii() || !text.chars().any(noncharacter) {
        return text;
    }
    use std::fmt::Write;
    out.clear();
    for c in text.chars() {
        if noncharacter(c) {
            let mut bytes = [0u8; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                // (Writing to a String cannot fail.)
                let _ = write!(out, "\\x{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `multi-bleu.perl` splits on `\s+` of a byte string: ASCII space, `\t`, `\n`, `\v`, `\f`, `\r`
/// (NBSP and every other non-ASCII space stay inside tokens). An ASCII byte is never part of a
/// multi-byte character, so every cut is on a character boundary.
fn split_ascii(s: &str, out: &mut Tokens) {
    out.extend_split_ascii(s, AsciiSpace::Perl);
}

/// Perl `lc` on a character string: the full lowercase mapping of each character, **without**
/// Python's final-sigma rule (`Σ` → `σ` everywhere). Python's mapping is used for everything
/// else (Perl 5.36 and CPython 3.11 share Unicode 14.0); cutting the text at each `Σ` keeps the
/// context rule from ever firing.
fn perl_lc(s: &str, out: &mut String) {
    out.clear();
    for (i, piece) in s.split('Σ').enumerate() {
        if i > 0 {
            out.push('σ');
        }
        py_lower_into(piece, out);
    }
}

impl MultiBleu {
    /// A metric with these settings.
    pub fn new(config: MultiBleuConfig) -> MultiBleu {
        MultiBleu { config }
    }

    /// The settings.
    pub fn config(&self) -> &MultiBleuConfig {
        &self.config
    }

    fn tokenize(
        &self,
        text: &str,
        is_hyp: bool,
        ws_text: &mut String,
        scratch: &mut Scratch,
        out: &mut Tokens,
    ) {
        out.clear();
        let lc = self.config.lowercase;
        match self.config.script {
            Script::MultiBleu => {
                if lc && text.bytes().any(|b| b.is_ascii_uppercase()) {
                    ws_text.clear();
                    ws_text.push_str(text);
                    ws_text.make_ascii_lowercase();
                    split_ascii(ws_text, out);
                } else {
                    split_ascii(text, out);
                }
            }
            Script::Detok => {
                // The hypothesis is lowercased before tokenization, the references after it:
                // only `<SKIPPED>`/`&QUOT;`-style text notices (MTEVAL.md §6).
                if lc && is_hyp {
                    perl_lc(text, ws_text);
                    let tokenized = Tokenizer::mteval_13a(ws_text, scratch);
                    out.extend_split_perl(tokenized);
                } else if lc {
                    let tokenized = Tokenizer::mteval_13a(text, scratch);
                    perl_lc(tokenized, ws_text);
                    out.extend_split_perl(ws_text);
                } else {
                    out.extend_split_perl(Tokenizer::mteval_13a(text, scratch));
                }
            }
        }
    }

    /// Statistics of one hypothesis line against the same line of each reference file (none:
    /// no reference file has this line, and the script adds 9999 to the reference length).
    pub fn stats(&self, hyp: &str, refs: &[&str], ws: &mut MultiBleuWorkspace) -> MultiBleuStats {
        let mut hyp_tokens = std::mem::take(&mut ws.hyp);
        self.tokenize(hyp, true, &mut ws.text, &mut ws.scratch, &mut hyp_tokens);
        let mut ref_tokens = std::mem::take(&mut ws.refs);
        if ref_tokens.len() < refs.len() {
            ref_tokens.resize_with(refs.len(), Tokens::default);
        }
        for (r, out) in refs.iter().zip(&mut ref_tokens) {
            let r = match self.config.script {
                Script::Detok => strict_utf8(r, &mut ws.strict),
                Script::MultiBleu => r,
            };
            self.tokenize(r, false, &mut ws.text, &mut ws.scratch, out);
        }
        let refs_tok = &ref_tokens[..refs.len()];
        let hyp_len = hyp_tokens.len();
        // The script's closest-length search starts from (diff 9999, length 9999) and takes a
        // reference when its difference is smaller, or equal with a smaller length.
        let (mut best_diff, mut best_len) = (9999usize, 9999usize);
        for r in refs_tok {
            let diff = hyp_len.abs_diff(r.len());
            if diff < best_diff || (diff == best_diff && r.len() < best_len) {
                best_diff = diff;
                best_len = r.len();
            }
        }
        clipped_matches(&hyp_tokens, refs_tok, 4, &mut ws.clip);
        let mut stats = MultiBleuStats {
            hyp_len: hyp_len as u64,
            ref_len: best_len as u64,
            nrefs: RefCounts::one(refs.len()),
            ..MultiBleuStats::default()
        };
        for n in 0..4 {
            stats.correct[n] = ws.clip.matches[n];
            stats.total[n] = (hyp_len + 1).saturating_sub(n + 1) as u64;
        }
        ws.hyp = hyp_tokens;
        ws.refs = ref_tokens;
        stats
    }

    /// What the script computes from these statistics, in its order of operations.
    pub fn stats_score(&self, s: &MultiBleuStats) -> MultiBleuScore {
        if s.ref_len == 0 {
            return MultiBleuScore::ZeroReference;
        }
        let mut precisions = [0.0f64; 4];
        for (p, (&c, &t)) in precisions.iter_mut().zip(s.correct.iter().zip(&s.total)) {
            if t > 0 {
                *p = c as f64 / t as f64;
            }
        }
        let mut bp = 1.0f64;
        if s.hyp_len < s.ref_len {
            if s.hyp_len == 0 {
                return MultiBleuScore::DivisionByZero;
            }
            bp = (1.0 - s.ref_len as f64 / s.hyp_len as f64).exp();
        }
        // my_log: log(0) is the constant -9999999999; summed left to right, then / 4.
        let my_log = |x: f64| if x == 0.0 { -9_999_999_999.0 } else { x.ln() };
        let sum = my_log(precisions[0])
            + my_log(precisions[1])
            + my_log(precisions[2])
            + my_log(precisions[3]);
        let bleu = bp * (sum / 4.0).exp();
        MultiBleuScore::Score {
            bleu,
            precisions,
            bp,
            ratio: s.hyp_len as f64 / s.ref_len as f64,
        }
    }

    /// The signature, e.g. `nrefs:1|case:mixed|tok:split|script:multi-bleu.perl`.
    pub fn signature(&self, nrefs: &str) -> String {
        format!(
            "nrefs:{nrefs}|case:{}|tok:{}|script:{}",
            if self.config.lowercase { "lc" } else { "mixed" },
            match self.config.script {
                Script::MultiBleu => "split",
                Script::Detok => "13a",
            },
            self.config.script.file_name()
        )
    }
}

fn merge(totals: &mut MultiBleuStats, stats: &MultiBleuStats) {
    for n in 0..4 {
        totals.correct[n] += stats.correct[n];
        totals.total[n] += stats.total[n];
    }
    totals.hyp_len += stats.hyp_len;
    totals.ref_len += stats.ref_len;
    totals.nrefs.merge(stats.nrefs);
}

/// The JSON record of a sentence multi-bleu score.
#[derive(Serialize)]
pub struct MultiBleuRecord {
    pub score: f64,
    pub counts: [u64; 4],
    pub totals: [u64; 4],
    pub hyp_len: u64,
    pub ref_len: u64,
}

/// The JSON form of the script's corpus line: `score` null and `error` where Perl dies.
#[derive(Serialize)]
struct MultiBleuCorpusRecord {
    score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bleu: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    precisions: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ratio: Option<f64>,
    counts: [u64; 4],
    totals: [u64; 4],
    hyp_len: u64,
    ref_len: u64,
}

impl Registered for MultiBleu {
    const NAME: &'static str = "multi-bleu";
    const SUMMARY: &'static str = "multi-bleu.perl and multi-bleu-detok.perl";
    type Args = MultiBleuArgs;

    fn config_from_args(
        common: &CommonArgs,
        args: MultiBleuArgs,
    ) -> Result<MultiBleuConfig, String> {
        Ok(MultiBleuConfig {
            script: if args.multi_bleu_detok {
                Script::Detok
            } else {
                Script::MultiBleu
            },
            lowercase: common.lowercase,
        })
    }

    fn new(config: MultiBleuConfig) -> Result<MultiBleu, String> {
        Ok(MultiBleu::new(config))
    }
}

impl Metric for MultiBleu {
    type Stats = MultiBleuStats;
    type Totals = MultiBleuStats;
    type Workspace = MultiBleuWorkspace;
    type Config = MultiBleuConfig;
    type Sentence = MultiBleuRecord;

    fn key(&self) -> &'static str {
        "multi-bleu"
    }

    fn config(&self) -> &MultiBleuConfig {
        &self.config
    }

    fn segment_stats(&self, segment: &Segment<'_>, ws: &mut MultiBleuWorkspace) -> MultiBleuStats {
        segment.with_refs(|hyp, refs| self.stats(hyp, refs, ws))
    }

    fn sentence_scores(&self, stats: &MultiBleuStats, out: &mut Vec<f64>) -> Result<(), String> {
        let score = self.stats_score(stats);
        if score == MultiBleuScore::DivisionByZero {
            return Err(division_message(self.config.script));
        }
        out.push(score.score());
        Ok(())
    }

    fn sentence(&self, stats: &MultiBleuStats) -> Result<MultiBleuRecord, String> {
        let score = self.stats_score(stats);
        if score == MultiBleuScore::DivisionByZero {
            return Err(division_message(self.config.script));
        }
        Ok(MultiBleuRecord {
            score: score.score(),
            counts: stats.correct,
            totals: stats.total,
            hyp_len: stats.hyp_len,
            ref_len: stats.ref_len,
        })
    }

    fn new_totals(&self) -> MultiBleuStats {
        MultiBleuStats::default()
    }

    fn add(&self, totals: &mut MultiBleuStats, stats: &MultiBleuStats) {
        merge(totals, stats);
    }

    fn sums(&self, t: &MultiBleuStats) -> Vec<u64> {
        [&t.correct[..], &t.total, &[t.hyp_len, t.ref_len]].concat()
    }

    fn save_totals(&self, totals: &MultiBleuStats) -> Value {
        serde_json::to_value(totals).expect("integers serialize")
    }

    fn check_saved_segments(&self, saved: &Value, segments: u64) -> Result<(), String> {
        match saved::field::<[u64; 4]>(saved, "total") {
            Ok(total) => saved::orders_fit(&total, segments, "multi-bleu n-gram totals"),
            Err(_) => Ok(()),
        }
    }

    fn merge_saved(&self, totals: &mut MultiBleuStats, saved: &Value) -> Result<(), String> {
        let o = <MultiBleuStats as serde::Deserialize>::deserialize(saved)
            .map_err(|e| format!("multi-bleu statistics: {e}"))?;
        // What `stats` makes of every segment, and so of any sum: `$TOTAL[1]` is the
        // translation length, each order has at most the previous order's n-grams (L − n + 1
        // of L words), and clipped matches are at most the n-grams of their order.
        saved::check_nrefs(o.nrefs, "multi-bleu statistics")?;
        if o.total[0] != o.hyp_len {
            return Err(format!(
                "inconsistent statistics: multi-bleu unigram total {} is not the translation \
                 length {}",
                o.total[0], o.hyp_len
            ));
        }
        for n in 0..4 {
            saved::at_most(
                o.correct[n],
                o.total[n],
                &format!("multi-bleu order-{} matches above the total", n + 1),
            )?;
            if n > 0 {
                saved::at_most(
                    o.total[n],
                    o.total[n - 1],
                    &format!("multi-bleu order-{} total above the order-{n} total", n + 1),
                )?;
            }
        }
        let what = "multi-bleu statistics";
        for n in 0..4 {
            saved::add_to(&mut totals.correct[n], o.correct[n], what)?;
            saved::add_to(&mut totals.total[n], o.total[n], what)?;
        }
        saved::add_to(&mut totals.hyp_len, o.hyp_len, what)?;
        saved::add_to(&mut totals.ref_len, o.ref_len, what)?;
        totals.nrefs.merge(o.nrefs);
        Ok(())
    }

    /// The script prints two decimals whatever `--width` says: the line is fixed text.
    fn score(&self, totals: &MultiBleuStats) -> Score {
        let signature = self.signature(&totals.nrefs.signature_value());
        let score = self.stats_score(totals);
        let (text, error) = match score.line(totals) {
            Some(line) => (line, None),
            None => {
                let message = division_message(self.config.script);
                (format!("BLEU = error: {message}"), Some(message))
            }
        };
        let mut record = MultiBleuCorpusRecord {
            score: error.is_none().then(|| score.score()),
            error,
            bleu: None,
            precisions: None,
            bp: None,
            ratio: None,
            counts: totals.correct,
            totals: totals.total,
            hyp_len: totals.hyp_len,
            ref_len: totals.ref_len,
        };
        if let MultiBleuScore::Score {
            bleu,
            precisions,
            bp,
            ratio,
        } = score
        {
            record.bleu = Some(bleu);
            record.precisions = Some(precisions.iter().map(|p| 100.0 * p).collect());
            record.bp = Some(bp);
            record.ratio = Some(ratio);
        }
        Score::new(
            "multi-bleu",
            "multi-BLEU".to_owned(),
            score.score(),
            signature,
            score::fields(&record),
            vec![Piece::Text(text)],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(config: MultiBleuConfig, hyps: &[&str], refs: &[&[&str]]) -> Option<String> {
        let m = MultiBleu::new(config);
        let mut ws = MultiBleuWorkspace::default();
        let mut totals = MultiBleuStats::default();
        for (h, r) in hyps.iter().zip(refs) {
            merge(&mut totals, &m.stats(h, r, &mut ws));
        }
        m.stats_score(&totals).line(&totals)
    }

    /// multi-bleu-detok.perl reads a reference's noncharacters as their bytes in `\xHH` text
    /// (strict decoding), its hypothesis's as characters; the other script keeps both. The
    /// lines are the scripts' own output (Perl 5.36, Moses 34452895).
    #[test]
    fn detok_reads_reference_noncharacters_as_perl_s_strict_decoding() {
        let detok = MultiBleuConfig {
            script: Script::Detok,
            lowercase: false,
        };
        let text = "a \u{FDD0} b";
        assert_eq!(
            line(detok, &[text], &[&[text]]).unwrap(),
            "BLEU = 0.00, 66.7/0.0/0.0/0.0 (BP=0.189, ratio=0.375, hyp_len=3, ref_len=8)"
        );
        let mut out = String::new();
        assert_eq!(
            strict_utf8("x\u{10FFFF}\u{FFFE}é", &mut out),
            "x\\xF4\\x8F\\xBF\\xBF\\xEF\\xBF\\xBEé"
        );
        for kept in ["\u{FDCF}\u{FDF0}\u{FFFD}\u{E000}\u{10FFFD}", "plain"] {
            assert_eq!(strict_utf8(kept, &mut out), kept);
        }
        assert_eq!(
            line(MultiBleuConfig::default(), &[text], &[&[text]]).unwrap(),
            "BLEU = 0.00, 100.0/100.0/100.0/0.0 (BP=1.000, ratio=1.000, hyp_len=3, ref_len=3)"
        );
    }

    #[test]
    fn script_lines() {
        let c = MultiBleuConfig::default();
        assert_eq!(
            line(
                c,
                &["the cat sat on the mat"],
                &[&["the cat sat on the mat"]]
            )
            .unwrap(),
            "BLEU = 100.00, 100.0/100.0/100.0/100.0 (BP=1.000, ratio=1.000, hyp_len=6, ref_len=6)"
        );
        // All references empty: the literal zero line.
        assert_eq!(line(c, &["a b"], &[&[""]]).unwrap(), ZERO_LINE);
        // Empty hypotheses against a reference: Perl's division by zero becomes an error.
        assert_eq!(line(c, &[""], &[&["a b"]]), None);
        // A line no reference has: 9999 is added to the reference length.
        let m = MultiBleu::new(c);
        let st = m.stats("a b", &[], &mut MultiBleuWorkspace::default());
        assert_eq!((st.hyp_len, st.ref_len), (2, 9999));
    }

    #[test]
    fn tokenization_per_script() {
        let plain = MultiBleu::new(MultiBleuConfig {
            script: Script::MultiBleu,
            lowercase: true,
        });
        let mut ws = MultiBleuWorkspace::default();
        let mut t = Tokens::default();
        plain.tokenize(
            "ÄB\u{a0}c\x0bD",
            true,
            &mut ws.text,
            &mut ws.scratch,
            &mut t,
        );
        assert_eq!(t.iter().collect::<Vec<_>>(), ["Äb\u{a0}c", "d"]);
        let detok = MultiBleu::new(MultiBleuConfig {
            script: Script::Detok,
            lowercase: true,
        });
        detok.tokenize(
            "ΣΑΣ, &QUOT;x\u{1c}y",
            true,
            &mut ws.text,
            &mut ws.scratch,
            &mut t,
        );
        assert_eq!(t.iter().collect::<Vec<_>>(), ["σασ", ",", "\"", "x\u{1c}y"]);
        detok.tokenize("&QUOT;", false, &mut ws.text, &mut ws.scratch, &mut t);
        assert_eq!(t.iter().collect::<Vec<_>>(), ["&", "quot", ";"]);
    }
}
