//! Character n-gram matching for chrF and NLTK's chrF: `[hyp_count, ref_count, matches]` per
//! order of one hypothesis against one reference, with no allocation per n-gram and memory
//! bounded for any line (issue 21: speed; issue 19, point 3: bounded memory).
//!
//! The characters of a segment (hypothesis and references) get small ids, 1, 2, … in order of
//! appearance; an n-gram is the exact integer of its ids ([`packed`](super::packed)), and the
//! keys of order n are a sliding window over the id sequence — nothing is stored per n-gram.
//! Short orders go through dense prefix ids ([`PrefixIds`]), the others through the capped
//! tables of [`packed`](super::packed).
//!
//! Sides longer than [`STREAM_BYTES`] keep no id array: their ids are decoded from the text
//! again for each pass, so that a huge line costs the table and not a multiple of its length.
//! When `bits × max order` exceeds 128 (over 6 orders and a huge alphabet) [`CharNgrams::count`]
//! declines and the caller uses the general [`NgramIndex`](super::NgramIndex).

use rustc_hash::FxHashMap;

use super::packed::{direct_matches, table_matches, CountTables, Key, KeyStreams, DIRECT_BITS};
use crate::tokenize::mteval::is_perl_whitespace;
use crate::unicode::{is_py_whitespace, PY_WHITESPACE_ASCII};

/// Which white space a metric leaves out of its character n-grams.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Spaces {
    /// None: every character counts (`--chrf-whitespace`, NLTK `ignore_whitespace=False`).
    #[default]
    Keep,
    /// Python's `str.split()` white space (sacreBLEU's `''.join(line.split())`).
    Python,
    /// The `regex` module's `\s` (NLTK's `re.sub(r"\s+", "", s)`: Unicode `White_Space`
    /// without U+001C–U+001F, `NLTK.md` Q19).
    Regex,
}

/// A side (hypothesis or reference) longer than this, in bytes, is decoded again for every pass
/// instead of being held as an array of ids (4 bytes a character).
pub const STREAM_BYTES: usize = 1 << 20;

/// The ids of a segment's characters.
struct Alphabet {
    /// Id of each ASCII character, 0 = none yet.
    ascii: [u32; 128],
    /// The ASCII characters that have an id (bit `c` for character `c`).
    ascii_known: u128,
    other: FxHashMap<char, u32>,
    size: u32,
}

impl Default for Alphabet {
    fn default() -> Self {
        Alphabet {
            ascii: [0; 128],
            ascii_known: 0,
            other: FxHashMap::default(),
            size: 0,
        }
    }
}

impl Alphabet {
    fn clear(&mut self) {
        self.ascii = [0; 128];
        self.ascii_known = 0;
        self.other.clear();
        self.size = 0;
    }

    /// The id of `c`, assigning the next one if it has none. An ASCII character is new or seen
    /// without a branch (a sentence's first occurrences are too many for a predictor); the
    /// others go through the map, out of line.
    #[inline(always)]
    fn id(&mut self, c: char) -> u32 {
        if c.is_ascii() {
            let slot = &mut self.ascii[c as usize];
            let new = u32::from(*slot == 0);
            self.size += new;
            *slot |= self.size & new.wrapping_neg();
            self.ascii_known |= 1 << (c as u32);
            *slot
        } else {
            self.other_id(c)
        }
    }

    #[inline(never)]
    fn other_id(&mut self, c: char) -> u32 {
        let next = self.size + 1;
        let id = *self.other.entry(c).or_insert(next);
        if id == next {
            self.size = next;
        }
        id
    }

    /// The ids of the characters of the all-ASCII `bytes` but those in `skip` (a bit set, see
    /// [`skip_set`]) into `out`, which is at least as long (byte i writes slot ≤ i); returns
    /// their number.
    ///
    /// Two passes instead of [`Alphabet::id`] per character: the first collects the set of
    /// characters present in a register, then the new ones get their ids (in byte order rather
    /// than order of appearance: any one-to-one numbering counts the same n-grams); the second
    /// is a table lookup per byte, skipped characters (id 0) written over by the next one. The
    /// per-character path carries every id through a load and a store of the table, the next
    /// character waiting on them; this one has no such chain (issue 21: 19 % of chrF's time
    /// was the per-character path).
    fn ascii_ids(&mut self, bytes: &[u8], skip: u128, out: &mut [u32]) -> usize {
        let mut present = 0u128;
        for &b in bytes {
            present |= 1 << (b & 0x7f);
        }
        let mut new = present & !skip & !self.ascii_known;
        self.ascii_known |= new;
        while new != 0 {
            let c = new.trailing_zeros() as usize;
            new &= new - 1;
            self.size += 1;
            self.ascii[c] = self.size;
        }
        let mut len = 0;
        for &b in bytes {
            // Skipped characters have no id (0): the next one overwrites the slot.
            let id = self.ascii[usize::from(b & 0x7f)];
            out[len] = id;
            len += usize::from(id != 0);
        }
        len
    }

    /// The id of a character already seen.
    #[inline]
    fn get(&self, c: char) -> u32 {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other[&c]
        }
    }

    /// Bits that hold every id.
    fn bits(&self) -> u32 {
        u32::BITS - self.size.leading_zeros()
    }
}

/// One side's characters: ids, or (long sides) only their number, the text being decoded again.
#[derive(Default)]
struct Side {
    ids: Vec<u32>,
    len: usize,
    streamed: bool,
}

impl Side {
    /// Registers the characters of `text` (white space dropped unless `keep_ws`, as sacreBLEU's
    /// `''.join(line.split())` does) in `alphabet`.
    fn load(&mut self, text: &str, spaces: Spaces, alphabet: &mut Alphabet) {
        self.ids.clear();
        self.streamed = text.len() > STREAM_BYTES;
        if self.streamed {
            self.ids = Vec::new();
            let mut len = 0;
            each_char(text, spaces, |c| {
                alphabet.id(c);
                len += 1;
            });
            self.len = len;
        } else if text.is_ascii() {
            self.ids.resize(text.len(), 0);
            self.len = alphabet.ascii_ids(text.as_bytes(), skip_set(spaces), &mut self.ids);
            self.ids.truncate(self.len);
        } else {
            // At most one character a byte: the ids are written into place, not pushed.
            self.ids.resize(text.len(), 0);
            let ids = &mut self.ids[..];
            let mut len = 0;
            each_char(text, spaces, |c| {
                ids[len] = alphabet.id(c);
                len += 1;
            });
            self.ids.truncate(len);
            self.len = len;
        }
    }

    /// Calls `f` with the id of every character in order.
    #[inline]
    fn each_id(&self, text: &str, spaces: Spaces, alphabet: &Alphabet, mut f: impl FnMut(u32)) {
        if self.streamed {
            each_char(text, spaces, |c| f(alphabet.get(c)));
        } else {
            for &id in &self.ids {
                f(id);
            }
        }
    }

    /// Calls `f` with the key of every n-gram of order `n` in order.
    #[inline]
    fn each_key<K: Key>(
        &self,
        text: &str,
        spaces: Spaces,
        alphabet: &Alphabet,
        n: usize,
        mut f: impl FnMut(K),
    ) {
        let bits = alphabet.bits();
        let mask = K::mask(bits * n as u32);
        let mut key = K::default();
        let mut seen = 0usize;
        self.each_id(text, spaces, alphabet, |id| {
            key = key.push(bits, id).and(mask);
            seen += 1;
            if seen >= n {
                f(key);
            }
        });
    }
}

/// The ASCII characters that `spaces` leaves out, as a bit set (bit `c` for character `c`).
fn skip_set(spaces: Spaces) -> u128 {
    match spaces {
        Spaces::Keep => 0,
        Spaces::Python => PY_WHITESPACE_ASCII,
        // `regex`'s `\s` keeps the separators U+001C–U+001F that `str.split()` splits on.
        Spaces::Regex => PY_WHITESPACE_ASCII & !(0xf << 0x1c),
    }
}

/// The characters of `text`, white space skipped unless `keep_ws` (ASCII decoded byte by byte).
#[inline]
fn each_char(text: &str, spaces: Spaces, f: impl FnMut(char)) {
    // One loop per kind of white space, so that the test is not a `match` per character.
    match spaces {
        Spaces::Keep => each_char_but(text, |_| false, f),
        Spaces::Python => each_char_but(text, is_py_whitespace, f),
        Spaces::Regex => each_char_but(text, is_perl_whitespace, f),
    }
}

/// The characters of `text` for which `skip` is false.
#[inline]
fn each_char_but(text: &str, skip: impl Fn(char) -> bool, mut f: impl FnMut(char)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            let c = char::from(b);
            if !skip(c) {
                f(c);
            }
        } else {
            let c = text[i..].chars().next().expect("a char boundary");
            i += c.len_utf8();
            if !skip(c) {
                f(c);
            }
        }
    }
}

/// Per-worker state of [`CharNgrams::count`]; reused across segments.
#[derive(Default)]
pub struct CharNgrams {
    alphabet: Alphabet,
    /// The white space of the segment at hand (fixed by [`CharNgrams::set_hyp`]: one alphabet
    /// must not number a character on one side that the other leaves out).
    spaces: Spaces,
    hyp: Side,
    rf: Side,
    prefix: PrefixIds,
}

/// Dense ids of the distinct reference n-grams of one order, found from the id of their
/// (n−1)-gram prefix and their last character through one array access — no hashing, no
/// probing (the usual path for sentences: see [`PrefixIds::step`]).
#[derive(Default)]
struct PrefixIds {
    /// Id of each hypothesis / reference n-gram of the current order by position (hypothesis: 0
    /// when no reference has it).
    hyp: Vec<u32>,
    rf: Vec<u32>,
    /// `map[prefix id × stride + last character id]`: id of that n-gram, 0 = none. All zero
    /// between steps.
    map: Vec<u32>,
    /// `set[id]`: the index of `map` that n-gram id `id` of the current step went to, to zero
    /// it again (index 0 unused, one scratch slot after the last id).
    set: Vec<u32>,
    /// Unmatched reference occurrences by n-gram id (index 0, "none", stays 0).
    avail: Vec<u32>,
    /// Number of distinct reference n-grams of the current order (ids `1..=distinct`).
    distinct: u32,
}

/// Largest `map` of [`PrefixIds`] (entries); a bigger order goes to the tables.
const PREFIX_MAP_MAX: usize = 1 << 16;

impl PrefixIds {
    /// Order 1: the character ids themselves (dense, `1..=size`).
    fn start(&mut self, hyp: &[u32], rf: &[u32], size: u32) {
        self.hyp.clear();
        self.hyp.extend_from_slice(hyp);
        self.rf.clear();
        self.rf.extend_from_slice(rf);
        self.distinct = size;
    }

    /// Whether order `n + 1` fits the map, for an alphabet of `size` ids.
    fn fits(&self, size: u32) -> bool {
        (self.distinct as usize + 1) * (size as usize + 1) <= PREFIX_MAP_MAX
    }

    /// From the ids of order n − 1 to those of order n (`n ≥ 2`, both sides at least n long),
    /// returning the matches of order n.
    ///
    /// One pass over the reference assigns ids and counts occurrences, one over the hypothesis
    /// consumes them; then only the entries set are zeroed. Every buffer is sized before the
    /// loops, so that they index slices (no `push`, no reload of a `Vec` through `self` after
    /// each store into `map`).
    fn step(&mut self, hyp_chars: &[u32], ref_chars: &[u32], n: usize, size: u32) -> u64 {
        let stride = size as usize + 1;
        let map_len = (self.distinct as usize + 1) * stride;
        if self.map.len() < map_len {
            self.map.resize(map_len, 0);
        }
        let (r, h) = (ref_chars.len() + 1 - n, hyp_chars.len() + 1 - n);
        // At most `r` distinct n-grams: ids `1..=r`, and `set` has one scratch slot after.
        if self.set.len() < r + 2 {
            self.set.resize(r + 2, 0);
        }
        if self.avail.len() < r + 2 {
            self.avail.resize(r + 2, 0);
        }
        let PrefixIds {
            hyp,
            rf,
            map,
            set,
            avail,
            distinct: prev,
        } = self;
        let map = &mut map[..map_len];
        let set = &mut set[..r + 2];
        let avail = &mut avail[..r + 2];
        let mut distinct = 0u32;
        for (id_at, &last) in rf[..r].iter_mut().zip(&ref_chars[n - 1..]) {
            let k = *id_at as usize * stride + last as usize;
            let old = map[k];
            // A new n-gram gets the next id, without a branch on new or seen; `set[id]` keeps
            // where it went (a seen one writes the scratch slot after the last id).
            let new = u32::from(old == 0);
            distinct += new;
            let id = old | (distinct & new.wrapping_neg());
            map[k] = id;
            *id_at = id;
            set[(distinct + 1 - new) as usize] = k as u32;
            avail[id as usize] += 1;
        }
        rf.truncate(r);
        let mut matches = 0u64;
        for (id_at, &last) in hyp[..h].iter_mut().zip(&hyp_chars[n - 1..]) {
            // A prefix no reference has (id 0) reads row 0 of `map`, which stays all zero.
            let id = map[*id_at as usize * stride + last as usize];
            *id_at = id;
            let a = &mut avail[id as usize];
            let t = u32::from(*a > 0);
            *a -= t;
            matches += u64::from(t);
        }
        hyp.truncate(h);
        let distinct_ids = 1..distinct as usize + 1;
        for &k in &set[distinct_ids.clone()] {
            map[k as usize] = 0;
        }
        avail[distinct_ids].fill(0);
        *prev = distinct;
        matches
    }
}

/// The two sides of a comparison and how to read them.
struct Pair<'a> {
    hyp: &'a Side,
    rf: &'a Side,
    hyp_text: &'a str,
    ref_text: &'a str,
    spaces: Spaces,
    alphabet: &'a Alphabet,
}

impl KeyStreams for Pair<'_> {
    #[inline]
    fn ref_keys<K: Key>(&self, n: usize, f: impl FnMut(K)) {
        self.rf
            .each_key(self.ref_text, self.spaces, self.alphabet, n, f);
    }
    #[inline]
    fn hyp_keys<K: Key>(&self, n: usize, f: impl FnMut(K)) {
        self.hyp
            .each_key(self.hyp_text, self.spaces, self.alphabet, n, f);
    }
}

impl CharNgrams {
    /// Characters of the hypothesis and of the last reference counted (white space left out as
    /// asked).
    pub fn lens(&self) -> (usize, usize) {
        (self.hyp.len, self.rf.len)
    }

    /// Starts a segment: its hypothesis, after `rstrip` and lowercasing as the metric wants.
    pub fn set_hyp(&mut self, hyp: &str, spaces: Spaces) {
        self.alphabet.clear();
        self.spaces = spaces;
        self.hyp.load(hyp, spaces, &mut self.alphabet);
    }

    /// Appends `[hyp_count, ref_count, matches]` for the character orders `1..=max_order` of the
    /// hypothesis given to [`set_hyp`](Self::set_hyp) (text `hyp`, the same) against `rf`, as
    /// sacreBLEU's `CHRF._get_match_statistics` counts them: the hypothesis count of an order is
    /// 0 when the reference has no n-gram of that order; white space is left out as `set_hyp`
    /// was told. Returns false, appending nothing, when the keys of an order both sides have
    /// would not fit 128 bits (the caller then counts another way).
    pub fn count(
        &mut self,
        hyp: &str,
        rf: &str,
        max_order: usize,
        tables: &mut CountTables,
        out: &mut Vec<u64>,
    ) -> bool {
        let spaces = self.spaces;
        self.rf.load(rf, spaces, &mut self.alphabet);
        let bits = self.alphabet.bits();
        // Orders longer than a side need no keys.
        let keyed = max_order.min(self.hyp.len).min(self.rf.len);
        if bits as usize * keyed > 128 {
            return false;
        }
        let CharNgrams {
            alphabet,
            hyp: hyp_side,
            rf: ref_side,
            prefix,
            ..
        } = self;
        // Ids by prefix while both sides are arrays and the map stays small.
        let mut by_prefix = !hyp_side.streamed && !ref_side.streamed;
        if by_prefix {
            prefix.start(&hyp_side.ids, &ref_side.ids, alphabet.size);
        }
        let pair = Pair {
            hyp: hyp_side,
            rf: ref_side,
            hyp_text: hyp,
            ref_text: rf,
            spaces,
            alphabet,
        };
        for n in 1..=max_order {
            let r = (pair.rf.len + 1).saturating_sub(n);
            let h = (pair.hyp.len + 1).saturating_sub(n);
            if r == 0 {
                out.extend_from_slice(&[0, 0, 0]);
                continue;
            }
            let width = bits * n as u32;
            if h == 0 {
                by_prefix = false;
            }
            let matches = if h == 0 {
                0
            } else if n >= 2 && by_prefix && prefix.fits(alphabet.size) {
                prefix.step(&hyp_side.ids, &ref_side.ids, n, alphabet.size)
            } else if width <= DIRECT_BITS {
                direct_matches(&pair, n, 1 << width, &mut tables.direct)
            } else if width <= 64 {
                table_matches(&pair, n, r, &mut tables.t64)
            } else {
                table_matches(&pair, n, r, &mut tables.t128)
            };
            if n >= 2 && by_prefix && !prefix.fits(alphabet.size) {
                by_prefix = false;
            }
            out.extend_from_slice(&[h as u64, r as u64, matches]);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The triples counted the obvious way (sacreBLEU's Counter arithmetic).
    fn naive(hyp: &str, rf: &str, spaces: Spaces, max_order: usize) -> Vec<u64> {
        let skips = |c: char| match spaces {
            Spaces::Keep => false,
            Spaces::Python => is_py_whitespace(c),
            Spaces::Regex => is_perl_whitespace(c),
        };
        let chars = |s: &str| -> Vec<char> { s.chars().filter(|&c| !skips(c)).collect() };
        let (h, r) = (chars(hyp), chars(rf));
        let count = |t: &[char], n: usize| {
            let mut m: HashMap<Vec<char>, u64> = HashMap::new();
            for w in t.windows(n) {
                *m.entry(w.to_vec()).or_default() += 1;
            }
            m
        };
        let mut out = Vec::new();
        for n in 1..=max_order {
            let (hc, rc) = (count(&h, n), count(&r, n));
            let rn: u64 = rc.values().sum();
            let hn: u64 = if rn == 0 { 0 } else { hc.values().sum() };
            let m: u64 = hc
                .iter()
                .map(|(g, &c)| c.min(rc.get(g).copied().unwrap_or(0)))
                .sum();
            out.extend([hn, rn, m]);
        }
        out
    }

    fn counted(ws: &mut CharNgrams, hyp: &str, rf: &str, spaces: Spaces, n: usize) -> Vec<u64> {
        ws.set_hyp(hyp, spaces);
        let mut out = Vec::new();
        assert!(ws.count(hyp, rf, n, &mut CountTables::default(), &mut out));
        out
    }

    use crate::test_rng::Rng;

    #[test]
    fn counts_equal_naive_counting_for_every_key_width() {
        // Small alphabets (direct arrays), ASCII plus a few others (u64 tables), and alphabets
        // of thousands of characters (u128 keys from order 5 on).
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut ws = CharNgrams::default();
        for case in 0..600 {
            let alphabet: Vec<char> = match case % 3 {
                0 => "ab c".chars().collect(),
                1 => "abcdefghij klmnop\u{e9}\u{201c}\u{3000}\u{1c}"
                    .chars()
                    .collect(),
                _ => (0..3000)
                    .map(|i| char::from_u32(0x4e00 + i).unwrap())
                    .collect(),
            };
            let text = |rng: &mut Rng| -> String {
                let len = if case % 40 == 0 { 3000 } else { rng.below(40) };
                let k = 1 + rng.below(alphabet.len());
                (0..len).map(|_| alphabet[rng.below(k)]).collect()
            };
            let (hyp, rf) = (text(&mut rng), text(&mut rng));
            let spaces = [Spaces::Keep, Spaces::Python, Spaces::Regex][case % 3];
            let n = 1 + rng.below(8);
            assert_eq!(
                counted(&mut ws, &hyp, &rf, spaces, n),
                naive(&hyp, &rf, spaces, n),
                "case {case}: {hyp:?} vs {rf:?}, order {n}"
            );
        }
    }

    /// All-ASCII sides take the two-pass numbering ([`Alphabet::ascii_ids`]), other sides the
    /// per-character one; they share one alphabet per segment. Every kind of white space, with
    /// every `Spaces`, one side or both ASCII, a skipped character last or first.
    #[test]
    fn ascii_sides_count_as_the_others_do() {
        let mut rng = Rng(0x0DDB_A11C_AFE5_EED5);
        let mut ws = CharNgrams::default();
        let ascii: Vec<char> = "ab c\t\n\u{b}\u{c}\r\u{1c}\u{1d}\u{1f}.~\u{7f}\u{0}"
            .chars()
            .collect();
        for case in 0..3000 {
            let text = |rng: &mut Rng, other: bool| -> String {
                let len = rng.below(30);
                let k = 1 + rng.below(ascii.len());
                let mut t: String = (0..len).map(|_| ascii[rng.below(k)]).collect();
                if other {
                    t.insert(
                        rng.below(t.len() + 1),
                        ['\u{e9}', '\u{85}', '\u{3000}'][rng.below(3)],
                    );
                }
                t
            };
            let (hyp, rf) = (text(&mut rng, case % 4 == 1), text(&mut rng, case % 4 == 2));
            let spaces = [Spaces::Keep, Spaces::Python, Spaces::Regex][rng.below(3)];
            let n = 1 + rng.below(7);
            assert_eq!(
                counted(&mut ws, &hyp, &rf, spaces, n),
                naive(&hyp, &rf, spaces, n),
                "case {case}: {hyp:?} vs {rf:?}, {spaces:?}, order {n}"
            );
        }
        assert_eq!(skip_set(Spaces::Keep), 0);
        for c in (0..128u8).map(char::from) {
            let bit = |spaces| (skip_set(spaces) >> (c as u32)) & 1 == 1;
            assert_eq!(bit(Spaces::Python), is_py_whitespace(c), "{c:?}");
            assert_eq!(bit(Spaces::Regex), is_perl_whitespace(c), "{c:?}");
        }
    }

    #[test]
    fn streamed_sides_and_partitioned_tables_count_the_same() {
        // Over STREAM_BYTES, with more distinct 6-grams than one u128 table holds: several
        // passes over hash partitions.
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let chars: Vec<char> = (0..2000)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        let rf: String = (0..STREAM_BYTES / 3 + 1000)
            .map(|_| chars[rng.below(chars.len())])
            .collect();
        let hyp: String = rf.chars().rev().take(200_000).collect::<String>() + &rf[..300_000];
        assert!(rf.len() > STREAM_BYTES && hyp.len() < STREAM_BYTES);
        assert!(rf.chars().count() > 4 * super::super::packed::CountTable::<u64>::MAX_KEYS);
        let mut ws = CharNgrams::default();
        assert_eq!(
            counted(&mut ws, &hyp, &rf, Spaces::Python, 6),
            naive(&hyp, &rf, Spaces::Python, 6)
        );
        assert_eq!(
            counted(&mut ws, &rf, &hyp, Spaces::Python, 6),
            naive(&rf, &hyp, Spaces::Python, 6)
        );
    }

    #[test]
    fn declines_keys_over_128_bits() {
        let mut ws = CharNgrams::default();
        let many: String = (0..5000)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        ws.set_hyp(&many, Spaces::Python);
        let mut out = Vec::new();
        // 13 bits an id: 9 orders take 117 bits, 10 take 130.
        assert!(ws.count(&many, &many, 9, &mut CountTables::default(), &mut out));
        assert!(!ws.count(
            &many,
            &many,
            10,
            &mut CountTables::default(),
            &mut Vec::new()
        ));
        // Orders longer than a side need no key: accepted.
        let mut out = Vec::new();
        assert!(ws.count(&many, "xy", 10, &mut CountTables::default(), &mut out));
        assert_eq!(out[3..9], [4999, 1, 0, 0, 0, 0]);
    }
}
