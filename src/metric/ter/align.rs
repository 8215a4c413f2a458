//! sacreBLEU 2.6.0's TER alignment (`metrics/lib_ter.py`): a beam edit distance around the
//! length-scaled diagonal, and tercom's greedy search for block shifts, reproduced choice by
//! choice — the same candidates in the same order, the same ranking and tie-breaking, the same
//! limits — so that the number of edits is sacreBLEU's, not merely a minimal one.
//!
//! Words are interned ids. sacreBLEU caches the rows of its edit-distance matrix in a trie of
//! hypothesis prefixes; a row depends only on the prefix (every call within one
//! `translation_edit_rate` has the same hypothesis length, hence the same beam), so the cache
//! changes speed, never results. Here the beam rows of the current hypothesis's matrix are kept
//! and every shift candidate starts from the rows of the prefix it shares with it, then
//! computes the rest with two rolling rows. A matrix of up to [`FULL_MATRIX_CELLS`] cells (any
//! real sentence) is kept whole, with its operations; a bigger one keeps one row in
//! [`CHECKPOINT_EVERY`] and recomputes the rows between two kept ones where it needs them (a
//! candidate's prefix, the trace), so that memory is a few bytes a word, not ~550 (issue 19:
//! 58 MB for a 1 MB line of 200,000 words before).

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
/// A matrix of at most this many beam cells (4.5 MiB with its operations) is kept whole.
const FULL_MATRIX_CELLS: usize = 1 << 19;
/// Above that, the rows kept: one in this many (a row is ~51 cells of 8 bytes, so ~6.4 bytes a
/// hypothesis word); recomputing a block costs at most this many rows.
const CHECKPOINT_EVERY: usize = 64;

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
    /// The beam of this hypothesis length against this reference.
    beam: Beam,
    /// The matrix of the current hypothesis keeps rows `every, 2 × every, …`: row `c × every`
    /// holds its columns ([`Beam::columns`]) at `kept_start[c]..` in `kept`. Row 0
    /// (`_initial_row`: column `j` costs `j`) is not stored.
    every: usize,
    kept: Vec<i64>,
    kept_start: Vec<usize>,
    /// With `every == 1`, the operations of every cell, laid out as `kept`.
    ops: Vec<u8>,
    /// The matrix's edit distance (its cell `(n_h, n_r)`).
    distance: i64,
    /// Every cell of the matrix's beam is finite (nearly always: consecutive beams overlap).
    /// Then a candidate whose row equals a matrix row plus a constant, past the words the
    /// shift moved, ends at the matrix's distance plus that constant (see
    /// [`Aligner::candidate_distance`]).
    finite: bool,
    /// Two rolling rows, each holding only its columns (`prev[0]` is column `lo` of its row).
    prev: Vec<i64>,
    cur: Vec<i64>,
    /// With `every > 1`: the operations of the rows of one block, recomputed for the trace.
    block_ops: Vec<u8>,
    block_start: Vec<usize>,
    /// Alignment of the current hypothesis (`trace_to_alignment`).
    align: Vec<i32>,
    ref_err: Vec<u8>,
    hyp_err: Vec<u8>,
    trace: Vec<u8>,
    /// Tests only: keep one row in this many whatever the size (0: by size).
    #[cfg(test)]
    force_every: usize,
}

/// The beam of a hypothesis of `n_h` words against a reference of `n_r` words.
#[derive(Clone, Copy, Debug, Default)]
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

    /// The columns row `i` holds, row 0 (`_initial_row`) included.
    fn row_columns(&self, i: usize) -> (usize, usize) {
        if i == 0 {
            (0, self.n_r + 1)
        } else {
            self.columns(i)
        }
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
    a.beam = Beam::new(hyp.len(), reference.len());
    a.words.clear();
    a.words.extend_from_slice(hyp);
    let mut shifts = 0u64;
    let mut shifted_words = 0u64;
    let mut checked = 0usize;
    loop {
        let (delta, best) = a.best_shift(reference, &mut checked);
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
    let distance = a.matrix(reference);
    a.trace(reference);
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
        checked: &mut usize,
    ) -> (i64, Option<(usize, usize, usize)>) {
        let pre_score = self.matrix(reference);
        self.trace(reference);
        self.alignment();
        let (n_h, n_r) = (self.words.len(), reference.len());
        // (score, length, -start_h, -idx) of the best candidate: tuples compare in that order;
        // an equal tuple is the same shift, so the first stays.
        let mut best: Option<(i64, usize, i64, i64)> = None;
        let mut best_shift = None;
        'pairs: for start_h in 0..n_h {
            // sacreBLEU visits every start_r and skips those more than MAX_SHIFT_DIST away:
            // the same ones, in the same order, without the quadratic walk.
            let near =
                start_h.saturating_sub(MAX_SHIFT_DIST)..n_r.min(start_h + MAX_SHIFT_DIST + 1);
            for start_r in near {
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
        let aligned = i64::from(self.align[start_r]);
        if start_h as i64 <= aligned && aligned < (start_h + length) as i64 {
            return;
        }
        let mut prev_idx: i64 = -1;
        for offset in -1..length as i64 {
            let r = start_r as i64 + offset;
            let idx = if r == -1 {
                0
            } else if (r as usize) < self.align.len() {
                i64::from(self.align[r as usize]) + 1
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

    /// `_edit_distance` of `self.words`: computes the beam rows of the matrix, keeps one in
    /// `every` (all of them, with their operations, for a matrix of real size) and returns the
    /// distance.
    fn matrix(&mut self, reference: &[u32]) -> i64 {
        let beam = self.beam;
        let (n_h, n_r) = (self.words.len(), reference.len());
        let cells = (1..=n_h).fold(0usize, |sum, i| {
            let (lo, hi) = beam.columns(i);
            sum.saturating_add(hi - lo)
        });
        self.every = if cells <= FULL_MATRIX_CELLS {
            1
        } else {
            CHECKPOINT_EVERY
        };
        #[cfg(test)]
        if self.force_every > 0 {
            self.every = self.force_every;
        }
        let whole = self.every == 1;
        self.kept.clear();
        self.kept_start.clear();
        self.kept_start.push(0);
        self.ops.clear();
        self.finite = true;
        if n_h == 0 {
            // Row 0 is the last row: one insertion per reference word.
            self.distance = n_r as i64;
            return self.distance;
        }
        let mut finite = true;
        // The operations are kept only with the whole matrix (one call a row, not a cell).
        let fill = if whole { row::<true> } else { row::<false> };
        let mut above = self.load_kept(0);
        for i in 1..=n_h {
            let columns = beam.columns(i);
            let word = self.words[i - 1];
            finite &= fill(
                reference,
                word,
                &self.prev,
                above,
                columns,
                &mut self.cur,
                &mut self.ops,
            );
            if i % self.every == 0 {
                self.kept_start.push(self.kept.len());
                self.kept.extend_from_slice(&self.cur);
            }
            std::mem::swap(&mut self.prev, &mut self.cur);
            above = columns;
        }
        self.finite = finite;
        // The last row's columns end at n_r.
        self.distance = *self.prev.last().expect("the last row has column n_r");
        self.distance
    }

    /// Loads kept row `i` (a multiple of `every`) into `self.prev`; returns its columns. Of
    /// row 0, the columns row 1 reads are written out (the hypothesis is not empty).
    fn load_kept(&mut self, i: usize) -> (usize, usize) {
        self.prev.clear();
        if i == 0 {
            let (lo, hi) = self.beam.columns(1);
            let lo = lo.saturating_sub(1);
            self.prev.extend((lo..hi).map(|j| j as i64));
            return (lo, hi);
        }
        let (lo, hi) = self.beam.columns(i);
        let start = self.kept_start[i / self.every];
        self.prev
            .extend_from_slice(&self.kept[start..start + (hi - lo)]);
        (lo, hi)
    }

    /// The edit distance of `self.shifted`, which shares its first `prefix` words with
    /// `self.words` and its words from `moved_end` on: it starts from the matrix's last kept row
    /// at or before `prefix` (rows up to `prefix` are the matrix's), computes the next rows in
    /// two — until a kept row at or past `moved_end` is the matrix's row plus a constant `c`.
    /// From there both consume the same words with the same beams, every cell is a minimum of
    /// finite sums (`self.finite`), and adding `c` to a row adds `c` to every later one: the
    /// distance is the matrix's plus `c`, exactly what the remaining rows would give (sacreBLEU
    /// computes them all; the result is the same integer).
    fn candidate_distance(&mut self, reference: &[u32], prefix: usize, moved_end: usize) -> i64 {
        let n_h = self.shifted.len();
        if prefix == n_h {
            return self.distance;
        }
        let from = prefix - prefix % self.every;
        let mut above = self.load_kept(from);
        for i in from + 1..=n_h {
            // The same beam as the matrix's row `i` (the same hypothesis length).
            let (lo, hi) = self.beam.columns(i);
            let word = self.shifted[i - 1];
            row::<false>(
                reference,
                word,
                &self.prev,
                above,
                (lo, hi),
                &mut self.cur,
                &mut self.ops,
            );
            if self.finite && i >= moved_end && i < n_h && i % self.every == 0 {
                let start = self.kept_start[i / self.every];
                let kept = &self.kept[start..start + (hi - lo)];
                let c = self.cur[0] - kept[0];
                if self.cur.iter().zip(kept).all(|(x, y)| x - y == c) {
                    return self.distance + c;
                }
            }
            std::mem::swap(&mut self.prev, &mut self.cur);
            above = (lo, hi);
        }
        *self.prev.last().expect("the last row has column n_r")
    }

    /// With `every > 1`: recomputes the operations of the rows after kept row `block × every`
    /// up to the next kept one (or the last row) into `block_ops`.
    fn fill_block(&mut self, reference: &[u32], block: usize) {
        let first = block * self.every;
        let last = (first + self.every).min(self.words.len());
        self.block_ops.clear();
        self.block_start.clear();
        let mut above = self.load_kept(first);
        for i in first + 1..=last {
            let columns = self.beam.columns(i);
            self.block_start.push(self.block_ops.len());
            row::<true>(
                reference,
                self.words[i - 1],
                &self.prev,
                above,
                columns,
                &mut self.cur,
                &mut self.block_ops,
            );
            std::mem::swap(&mut self.prev, &mut self.cur);
            above = columns;
        }
    }

    /// The operations from `(n_h, n_r)` back to `(0, 0)`, in order (`_edit_distance`'s trace).
    fn trace(&mut self, reference: &[u32]) {
        self.trace.clear();
        let (mut i, mut j) = (self.words.len(), reference.len());
        let mut block = None;
        while i > 0 || j > 0 {
            let (lo, hi) = self.beam.row_columns(i);
            // Outside the beam: sacreBLEU's `(_INT_INFINITY, 'x')`.
            let op = if j < lo || j >= hi {
                OP_UNDEF
            } else if i == 0 {
                OP_INS
            } else if self.every == 1 {
                self.ops[self.kept_start[i] + j - lo]
            } else {
                let b = (i - 1) / self.every;
                if block != Some(b) {
                    self.fill_block(reference, b);
                    block = Some(b);
                }
                self.block_ops[self.block_start[i - 1 - b * self.every] + j - lo]
            };
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
        let mut pos_hyp: i32 = -1;
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

/// Row `i` of the matrix — columns `lo..hi` for hypothesis word `word` — into `cur` (from
/// `cur[0]`), from row `i - 1` in `prev` (columns `above`, infinite outside them); with `OPS`,
/// each cell's operation is pushed onto `ops`. Returns whether every cell is finite.
#[inline(always)]
fn row<const OPS: bool>(
    reference: &[u32],
    word: u32,
    prev: &[i64],
    above: (usize, usize),
    (lo, hi): (usize, usize),
    cur: &mut Vec<i64>,
    ops: &mut Vec<u8>,
) -> bool {
    cur.clear();
    let up = |j: usize| {
        if j >= above.0 && j < above.1 {
            prev[j - above.0]
        } else {
            INF
        }
    };
    let mut left = INF;
    let mut finite = true;
    for j in lo..hi {
        let (c, o) = if j == 0 {
            (up(0) + 1, OP_DEL)
        } else {
            let (sub_cost, sub_op) = if word == reference[j - 1] {
                (0, OP_NOP)
            } else {
                (1, OP_SUB)
            };
            cell(up(j - 1) + sub_cost, sub_op, up(j) + 1, left + 1)
        };
        left = c;
        finite &= c < INF;
        cur.push(c);
        if OPS {
            ops.push(o);
        }
    }
    finite
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

    /// Keeping one row in `every` (the path of huge lines) changes memory, never the edits:
    /// random segments over a small vocabulary (many matches, shifts and ties), lengths across
    /// block boundaries and length ratios that widen the beam, against the whole matrix.
    #[test]
    fn kept_rows_give_the_edits_of_the_whole_matrix() {
        let mut x: u32 = 0x9e37_79b9;
        let mut next = |n: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % n
        };
        let mut whole = Aligner::default();
        let mut kept = Aligner::default();
        for case in 0..400 {
            let n_h = next(if case % 10 == 0 { 300 } else { 90 }) as usize;
            let n_r = if case % 7 == 0 {
                next(400) as usize
            } else {
                n_h + next(9) as usize
            };
            let vocab = 2 + next(12);
            let hyp: Vec<u32> = (0..n_h).map(|_| next(vocab)).collect();
            let mut reference: Vec<u32> = hyp.iter().take(n_r).copied().collect();
            reference.resize_with(n_r, || next(vocab));
            // Move a few blocks and change a few words, so that shifts pay off.
            for _ in 0..next(4) {
                if n_r > 12 {
                    let (a, b) = (next(n_r as u32 - 6) as usize, next(n_r as u32 - 6) as usize);
                    let mut moved = Vec::new();
                    perform_shift(&reference, a, 1 + next(5) as usize, b, &mut moved);
                    reference = moved;
                }
                if n_r > 0 {
                    let k = next(n_r as u32) as usize;
                    reference[k] = next(vocab);
                }
            }
            let expected = edits(&hyp, &reference, &mut whole);
            assert_eq!(whole.every, 1);
            for every in [2, 3, 7, CHECKPOINT_EVERY] {
                kept.force_every = every;
                assert_eq!(
                    edits(&hyp, &reference, &mut kept),
                    expected,
                    "case {case}: {n_h} x {n_r} words, one row in {every}"
                );
            }
        }
    }
}
