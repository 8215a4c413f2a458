//! sacreBLEU 2.6.0's TER alignment (`metrics/lib_ter.py`): a beam edit distance around the
//! length-scaled diagonal, and tercom's greedy search for block shifts, reproduced choice by
//! choice — the same candidates in the same order, the same ranking and tie-breaking, the same
//! limits — so that the number of edits is sacreBLEU's, not merely a minimal one.
//!
//! Words are interned ids. sacreBLEU caches the rows of its edit-distance matrix in a trie of
//! hypothesis prefixes; a row depends only on the prefix (every call within one
//! `translation_edit_rate` has the same hypothesis length, hence the same beam), so the cache
//! changes speed, never results. Here the matrix of the current hypothesis is kept whole (its
//! beam rows only) and every shift candidate reuses the rows of the prefix it shares with it,
//! then computes the rest with two rolling rows: memory is O(words × beam), not a cache of up
//! to 10,000 full rows.

/// `_MAX_SHIFT_SIZE`: the longest block shifted.
const MAX_SHIFT_SIZE: usize = 10;
/// `_MAX_SHIFT_DIST`: how far apart a block's hypothesis and reference positions may be.
const MAX_SHIFT_DIST: usize = 50;
/// `_BEAM_WIDTH`.
const BEAM_WIDTH: usize = 25;
/// `_MAX_SHIFT_CANDIDATES`: shift candidates evaluated per segment and reference, over all
/// rounds.
const MAX_SHIFT_CANDIDATES: usize = 1000;
/// `_INT_INFINITY`: the cost of a cell outside the beam.
const INF: i64 = 10_000_000_000_000_000;

/// Edit operations, as `_edit_distance` records them (rows: hypothesis, columns: reference).
const OP_NOP: u8 = b' ';
const OP_SUB: u8 = b's';
/// A hypothesis word with no reference word: a deletion.
const OP_DEL: u8 = b'd';
/// A reference word with no hypothesis word: an insertion.
const OP_INS: u8 = b'i';
const OP_UNDEF: u8 = b'x';

/// The edits of one hypothesis against one reference, as tercom counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Edits {
    /// What TER counts: the shifts plus the edit distance after them.
    pub total: u64,
    pub insertions: u64,
    pub deletions: u64,
    pub substitutions: u64,
    pub shifts: u64,
    /// Words moved by the shifts.
    pub shifted_words: u64,
}

/// Reusable buffers of the aligner.
#[derive(Default, Debug)]
pub struct Aligner {
    /// The current hypothesis and a candidate shift of it.
    words: Vec<u32>,
    shifted: Vec<u32>,
    /// The matrix of the current hypothesis: row `i` holds columns `lo[i]..hi[i]` at
    /// `start[i]..` in `cost`/`op`.
    cost: Vec<i64>,
    op: Vec<u8>,
    start: Vec<usize>,
    lo: Vec<usize>,
    hi: Vec<usize>,
    /// Every cell of the matrix's beam is finite (nearly always: consecutive beams overlap).
    /// Then a candidate whose row equals a matrix row plus a constant, past the words the
    /// shift moved, ends at the matrix's distance plus that constant (see
    /// [`Aligner::candidate_distance`]).
    finite: bool,
    /// Two rolling rows for candidates (full width, only the beam part is meaningful).
    prev: Vec<i64>,
    cur: Vec<i64>,
    /// Alignment of the current hypothesis (`trace_to_alignment`).
    align: Vec<i64>,
    ref_err: Vec<u8>,
    hyp_err: Vec<u8>,
    trace: Vec<u8>,
}

/// The beam of a hypothesis of `n_h` words against a reference of `n_r` words.
#[derive(Clone, Copy)]
struct Beam {
    ratio: f64,
    width: usize,
    n_h: usize,
    n_r: usize,
}

impl Beam {
    fn new(n_h: usize, n_r: usize) -> Beam {
        // `length_ratio = n_ref / n_h if words_h else 1`.
        let ratio = if n_h > 0 {
            n_r as f64 / n_h as f64
        } else {
            1.0
        };
        // "In some crazy sentences, the difference in length is so large that we may end up
        // with zero overlap with previous row."
        let width = if (BEAM_WIDTH as f64) < ratio / 2.0 {
            (ratio / 2.0 + BEAM_WIDTH as f64).ceil() as usize
        } else {
            BEAM_WIDTH
        };
        Beam {
            ratio,
            width,
            n_h,
            n_r,
        }
    }

    /// The columns row `i` (1..=n_h) computes: `min_j..max_j`.
    fn columns(&self, i: usize) -> (usize, usize) {
        let diag = (i as f64 * self.ratio).floor() as usize;
        let lo = diag.saturating_sub(self.width);
        let hi = if i == self.n_h {
            self.n_r + 1
        } else {
            (self.n_r + 1).min(diag + self.width)
        };
        (lo, hi)
    }
}

/// `translation_edit_rate(words_hyp, words_ref)`: the edits (and their kinds) of `hyp` against
/// `reference` after sacreBLEU's greedy shifts.
pub fn edits(hyp: &[u32], reference: &[u32], a: &mut Aligner) -> Edits {
    if reference.is_empty() {
        // "Special treatment of empty refs": every hypothesis word is an edit.
        return Edits {
            total: hyp.len() as u64,
            deletions: hyp.len() as u64,
            ..Edits::default()
        };
    }
    let beam = Beam::new(hyp.len(), reference.len());
    a.words.clear();
    a.words.extend_from_slice(hyp);
    let mut shifts = 0u64;
    let mut shifted_words = 0u64;
    let mut checked = 0usize;
    loop {
        let (delta, best) = a.best_shift(reference, beam, &mut checked);
        // The limit wins even over a shift that was found.
        if checked >= MAX_SHIFT_CANDIDATES || delta <= 0 {
            break;
        }
        let (start, length, target) = best.expect("a positive delta comes with a shift");
        perform_shift(&a.words, start, length, target, &mut a.shifted);
        std::mem::swap(&mut a.words, &mut a.shifted);
        shifts += 1;
        shifted_words += length as u64;
    }
    let distance = a.matrix(reference, beam);
    a.trace();
    let count = |op| a.trace.iter().filter(|&&o| o == op).count() as u64;
    Edits {
        total: shifts + distance as u64,
        insertions: count(OP_INS),
        deletions: count(OP_DEL),
        substitutions: count(OP_SUB),
        shifts,
        shifted_words,
    }
}

impl Aligner {
    /// `_shift`: the best shift of `self.words` (delta, and start/length/target), counting the
    /// candidates evaluated into `checked`.
    fn best_shift(
        &mut self,
        reference: &[u32],
        beam: Beam,
        checked: &mut usize,
    ) -> (i64, Option<(usize, usize, usize)>) {
        let pre_score = self.matrix(reference, beam);
        self.trace();
        self.alignment();
        let (n_h, n_r) = (self.words.len(), reference.len());
        // (score, length, -start_h, -idx) of the best candidate: tuples compare in that order;
        // an equal tuple is the same shift, so the first stays.
        let mut best: Option<(i64, usize, i64, i64)> = None;
        let mut best_shift = None;
        'pairs: for start_h in 0..n_h {
            for start_r in 0..n_r {
                if start_r.abs_diff(start_h) > MAX_SHIFT_DIST {
                    continue;
                }
                let mut length = 0;
                while self.words[start_h + length] == reference[start_r + length]
                    && length < MAX_SHIFT_SIZE
                {
                    length += 1;
                    self.candidates(
                        reference,
                        pre_score,
                        start_h,
                        start_r,
                        length,
                        checked,
                        &mut best,
                        &mut best_shift,
                    );
                    // sacreBLEU checks the limit after each (start_h, start_r, length) triple
                    // it evaluates (a skipped triple changes nothing), never within one.
                    if *checked >= MAX_SHIFT_CANDIDATES {
                        break 'pairs;
                    }
                    if n_h == start_h + length || n_r == start_r + length {
                        break;
                    }
                }
            }
        }
        match best {
            None => (0, None),
            Some((score, ..)) => (score, best_shift),
        }
    }

    /// The candidates of one matching block (`_shift`'s loop body).
    #[allow(clippy::too_many_arguments)]
    fn candidates(
        &mut self,
        reference: &[u32],
        pre_score: i64,
        start_h: usize,
        start_r: usize,
        length: usize,
        checked: &mut usize,
        best: &mut Option<(i64, usize, i64, i64)>,
        best_shift: &mut Option<(usize, usize, usize)>,
    ) {
        let end_h = (start_h + length).min(self.hyp_err.len());
        if self.hyp_err[start_h..end_h].iter().all(|&e| e == 0) {
            return;
        }
        let end_r = (start_r + length).min(self.ref_err.len());
        if self.ref_err[start_r..end_r].iter().all(|&e| e == 0) {
            return;
        }
        let aligned = self.align[start_r];
        if start_h as i64 <= aligned && aligned < (start_h + length) as i64 {
            return;
        }
        let mut prev_idx: i64 = -1;
        for offset in -1..length as i64 {
            let r = start_r as i64 + offset;
            let idx = if r == -1 {
                0
            } else if (r as usize) < self.align.len() {
                self.align[r as usize] + 1
            } else {
                break;
            };
            if idx == prev_idx {
                continue;
            }
            prev_idx = idx;
            let target = idx as usize;
            perform_shift(&self.words, start_h, length, target, &mut self.shifted);
            // From this word on the shifted hypothesis is the hypothesis again.
            let moved_end = if target < start_h {
                start_h + length
            } else if target > start_h + length {
                target
            } else {
                target + length
            };
            let score =
                pre_score - self.candidate_distance(reference, start_h.min(target), moved_end);
            *checked += 1;
            let key = (score, length, -(start_h as i64), -idx);
            if best.is_none_or(|b| key > b) {
                *best = Some(key);
                *best_shift = Some((start_h, length, target));
            }
        }
    }

    /// `_edit_distance` of `self.words`: fills the beam rows of the matrix (costs and ops) and
    /// returns the distance.
    fn matrix(&mut self, reference: &[u32], beam: Beam) -> i64 {
        let n_h = self.words.len();
        let n_r = reference.len();
        self.cost.clear();
        self.op.clear();
        self.start.clear();
        self.lo.clear();
        self.hi.clear();
        // Row 0: `_initial_row`, one insertion per reference word.
        self.start.push(0);
        self.lo.push(0);
        self.hi.push(n_r + 1);
        self.cost.extend((0..=n_r).map(|j| j as i64));
        self.op.extend(std::iter::repeat_n(OP_INS, n_r + 1));
        let mut finite = true;
        for i in 1..=n_h {
            let (lo, hi) = beam.columns(i);
            // The previous row: columns plo..phi at pstart (outside them, infinite).
            let (plo, phi, pstart) = (self.lo[i - 1], self.hi[i - 1], self.start[i - 1]);
            self.start.push(self.cost.len());
            self.lo.push(lo);
            self.hi.push(hi);
            let word = self.words[i - 1];
            let mut left = INF;
            for j in lo..hi {
                let above = |j: usize, cost: &[i64]| {
                    if j >= plo && j < phi {
                        cost[pstart + j - plo]
                    } else {
                        INF
                    }
                };
                let up = above(j, &self.cost);
                let (c, o) = if j == 0 {
                    (up + 1, OP_DEL)
                } else {
                    let (sub_cost, sub_op) = if word == reference[j - 1] {
                        (0, OP_NOP)
                    } else {
                        (1, OP_SUB)
                    };
                    cell(
                        above(j - 1, &self.cost) + sub_cost,
                        sub_op,
                        up + 1,
                        left + 1,
                    )
                };
                left = c;
                finite &= c < INF;
                self.cost.push(c);
                self.op.push(o);
            }
        }
        self.finite = finite;
        self.get(n_h, n_r).0
    }

    /// Cell `(i, j)` of the matrix: outside the beam, sacreBLEU's `(_INT_INFINITY, 'x')`.
    fn get(&self, i: usize, j: usize) -> (i64, u8) {
        if j >= self.lo[i] && j < self.hi[i] {
            let k = self.start[i] + j - self.lo[i];
            (self.cost[k], self.op[k])
        } else {
            (INF, OP_UNDEF)
        }
    }

    /// The edit distance of `self.shifted`, which shares its first `prefix` words with
    /// `self.words` and its words from `moved_end` on: rows `0..=prefix` are the matrix's, the
    /// rest is computed in two rows — until a row at or past `moved_end` is the matrix's row
    /// plus a constant `c`. From there both consume the same words with the same beams, every
    /// cell is a minimum of finite sums (`self.finite`), and adding `c` to a row adds `c` to
    /// every later one: the distance is the matrix's plus `c`, exactly what the remaining rows
    /// would give (sacreBLEU computes them all; the result is the same integer).
    fn candidate_distance(&mut self, reference: &[u32], prefix: usize, moved_end: usize) -> i64 {
        let n_h = self.shifted.len();
        let n_r = reference.len();
        if prefix == n_h {
            return self.get(n_h, n_r).0;
        }
        self.prev.clear();
        self.prev.resize(n_r + 1, INF);
        self.cur.clear();
        self.cur.resize(n_r + 1, INF);
        let (mut plo, mut phi) = (self.lo[prefix], self.hi[prefix]);
        for j in plo..phi {
            self.prev[j] = self.get(prefix, j).0;
        }
        for i in prefix + 1..=n_h {
            // The same beam as the matrix's row `i` (the same hypothesis length).
            let (lo, hi) = (self.lo[i], self.hi[i]);
            let word = self.shifted[i - 1];
            let prev = |j: usize, row: &[i64]| if j >= plo && j < phi { row[j] } else { INF };
            for j in lo..hi {
                let c = if j == 0 {
                    prev(0, &self.prev) + 1
                } else {
                    let sub_cost = i64::from(word != reference[j - 1]);
                    let left = if j > lo { self.cur[j - 1] } else { INF };
                    cell(
                        prev(j - 1, &self.prev) + sub_cost,
                        OP_NOP,
                        prev(j, &self.prev) + 1,
                        left + 1,
                    )
                    .0
                };
                self.cur[j] = c;
            }
            if self.finite && i >= moved_end && i < n_h {
                let row = &self.cost[self.start[i]..self.start[i] + (hi - lo)];
                let c = self.cur[lo] - row[0];
                if self.cur[lo..hi].iter().zip(row).all(|(x, y)| x - y == c) {
                    return self.get(n_h, n_r).0 + c;
                }
            }
            std::mem::swap(&mut self.prev, &mut self.cur);
            (plo, phi) = (lo, hi);
        }
        self.prev[n_r]
    }

    /// The operations from `(n_h, n_r)` back to `(0, 0)`, in order (`_edit_distance`'s trace).
    fn trace(&mut self) {
        self.trace.clear();
        // Row 0 spans the whole reference, 0..=n_r.
        let (mut i, mut j) = (self.words.len(), self.hi[0] - 1);
        while i > 0 || j > 0 {
            let op = self.get(i, j).1;
            self.trace.push(op);
            match op {
                OP_SUB | OP_NOP => {
                    i -= 1;
                    j -= 1;
                }
                OP_INS => j -= 1,
                OP_DEL => i -= 1,
                // Outside the beam: sacreBLEU raises here; no input of real length gets here,
                // and stopping keeps the count finite.
                _ => break,
            }
        }
        self.trace.reverse();
    }

    /// `trace_to_alignment(_flip_trace(trace))`: per reference position the hypothesis position
    /// it is aligned to, and which positions are errors.
    fn alignment(&mut self) {
        self.align.clear();
        self.ref_err.clear();
        self.hyp_err.clear();
        let mut pos_hyp: i64 = -1;
        for &op in &self.trace {
            // Flipped: our insertion (a reference word) is a deletion of the rewrite of the
            // reference into the hypothesis, and the other way round.
            match op {
                OP_NOP | OP_SUB => {
                    pos_hyp += 1;
                    self.align.push(pos_hyp);
                    let err = u8::from(op == OP_SUB);
                    self.hyp_err.push(err);
                    self.ref_err.push(err);
                }
                OP_DEL => {
                    pos_hyp += 1;
                    self.hyp_err.push(1);
                }
                OP_INS => {
                    self.align.push(pos_hyp);
                    self.ref_err.push(1);
                }
                _ => {}
            }
        }
    }
}

/// One matrix cell: sacreBLEU's preference order — no-op/substitution, then deletion, then
/// insertion — each taken only when strictly cheaper than what the cell holds (initially
/// infinite).
fn cell(diag: i64, diag_op: u8, up: i64, left: i64) -> (i64, u8) {
    let mut best = (INF, OP_UNDEF);
    for (c, o) in [(diag, diag_op), (up, OP_DEL), (left, OP_INS)] {
        if best.0 > c {
            best = (c, o);
        }
    }
    best
}

/// `_perform_shift`: `words` with the block `start..start + length` moved to `target`.
fn perform_shift(words: &[u32], start: usize, length: usize, target: usize, out: &mut Vec<u32>) {
    out.clear();
    let n = words.len();
    let slice = |a: usize, b: usize| &words[a.min(n)..b.min(n).max(a.min(n))];
    if target < start {
        out.extend_from_slice(slice(0, target));
        out.extend_from_slice(slice(start, start + length));
        out.extend_from_slice(slice(target, start));
        out.extend_from_slice(slice(start + length, n));
    } else if target > start + length {
        out.extend_from_slice(slice(0, start));
        out.extend_from_slice(slice(start + length, target));
        out.extend_from_slice(slice(start, start + length));
        out.extend_from_slice(slice(target, n));
    } else {
        out.extend_from_slice(slice(0, start));
        out.extend_from_slice(slice(start + length, length + target));
        out.extend_from_slice(slice(start, start + length));
        out.extend_from_slice(slice(length + target, n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(s: &str, vocab: &mut Vec<String>) -> Vec<u32> {
        s.split_whitespace()
            .map(|w| match vocab.iter().position(|v| v == w) {
                Some(i) => i as u32,
                None => {
                    vocab.push(w.to_owned());
                    (vocab.len() - 1) as u32
                }
            })
            .collect()
    }

    fn ter(h: &str, r: &str) -> Edits {
        let mut v = Vec::new();
        let (h, r) = (ids(h, &mut v), ids(r, &mut v));
        edits(&h, &r, &mut Aligner::default())
    }

    #[test]
    fn identical_is_zero_and_empty_reference_counts_every_word() {
        assert_eq!(ter("a b c", "a b c").total, 0);
        assert_eq!(ter("a b c", "").total, 3);
        assert_eq!(ter("", "a b").total, 2);
        assert_eq!(ter("", "a b").insertions, 2);
    }

    #[test]
    fn a_block_shift_is_one_edit() {
        let e = ter("c d a b", "a b c d");
        assert_eq!((e.total, e.shifts, e.shifted_words), (1, 1, 2));
        let e = ter("a x c", "a b c");
        assert_eq!((e.total, e.substitutions), (1, 1));
    }

    #[test]
    fn shifts_keep_every_word() {
        let words: Vec<u32> = (0..7).collect();
        let mut out = Vec::new();
        for start in 0..7 {
            for length in 1..=7 - start {
                for target in 0..=7 {
                    perform_shift(&words, start, length, target, &mut out);
                    let mut sorted = out.clone();
                    sorted.sort();
                    assert_eq!(sorted, words, "{start} {length} {target}");
                }
            }
        }
    }
}
