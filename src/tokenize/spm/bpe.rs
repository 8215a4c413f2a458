//! SentencePiece's BPE encoder (`bpe::Model::SampleEncode` without dropout): start from
//! characters (a user-defined piece is one frozen symbol), repeatedly merge the adjacent pair
//! that forms the best-scoring piece — ties to the leftmost — and finally split pieces of type
//! UNUSED back into the pair they were merged from (`resegment`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use super::{Pieces, Span};

#[derive(Clone, Copy)]
struct Symbol {
    prev: Option<usize>,
    next: Option<usize>,
    freeze: bool,
    start: usize,
    /// 0: merged into its left neighbour.
    len: usize,
}

/// A candidate merge (`SymbolPair`); the heap's maximum is the best score, then the leftmost.
struct Pair {
    left: usize,
    right: usize,
    score: f32,
    len: usize,
}

impl PartialEq for Pair {
    fn eq(&self, o: &Pair) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Pair {}
impl PartialOrd for Pair {
    fn partial_cmp(&self, o: &Pair) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pair {
    fn cmp(&self, o: &Pair) -> Ordering {
        self.score
            .total_cmp(&o.score)
            .then_with(|| o.left.cmp(&self.left))
            .then_with(|| o.len.cmp(&self.len))
    }
}

/// Per-thread buffers.
#[derive(Default)]
pub struct Scratch {
    symbols: Vec<Symbol>,
    heap: BinaryHeap<Pair>,
}

/// An UNUSED piece's text → the two texts it was last merged from (`rev_merge`: keyed by text,
/// so the last merge seen decides for every occurrence, as in SentencePiece).
type RevMerge<'t> = FxHashMap<&'t str, (&'t str, &'t str)>;

fn add_pair<'t>(
    p: &Pieces,
    text: &'t str,
    s: &mut Scratch,
    rev_merge: &mut RevMerge<'t>,
    left: Option<usize>,
    right: Option<usize>,
) {
    let (Some(l), Some(r)) = (left, right) else {
        return;
    };
    let (a, b) = (s.symbols[l], s.symbols[r]);
    if a.freeze || b.freeze {
        return;
    }
    let len = a.len + b.len;
    let Some(id) = p.find(&text[a.start..a.start + len]) else {
        return;
    };
    s.heap.push(Pair {
        left: l,
        right: r,
        score: p.score(id),
        len,
    });
    if p.is_unused(id) {
        rev_merge.insert(
            &text[a.start..a.start + len],
            (
                &text[a.start..a.start + a.len],
                &text[b.start..b.start + b.len],
            ),
        );
    }
}

/// Segments `text` (normalised) into `out` as (start, end, id).
pub fn encode(p: &Pieces, text: &str, s: &mut Scratch, out: &mut Vec<Span>) {
    out.clear();
    s.symbols.clear();
    s.heap.clear();
    let mut rev_merge = RevMerge::default();
    let mut pos = 0;
    while pos < text.len() {
        let user = p.user_defined_prefix(&text[pos..]);
        let len = if user > 0 {
            user
        } else {
            text[pos..].chars().next().map_or(1, char::len_utf8)
        };
        let i = s.symbols.len();
        s.symbols.push(Symbol {
            prev: i.checked_sub(1),
            next: (pos + len < text.len()).then_some(i + 1),
            freeze: user > 0,
            start: pos,
            len,
        });
        pos += len;
    }
    for i in 1..s.symbols.len() {
        add_pair(p, text, s, &mut rev_merge, Some(i - 1), Some(i));
    }
    while let Some(top) = s.heap.pop() {
        let (l, r) = (s.symbols[top.left], s.symbols[top.right]);
        if l.len == 0 || r.len == 0 || l.len + r.len != top.len {
            continue;
        }
        s.symbols[top.left].len = top.len;
        s.symbols[top.left].next = r.next;
        if let Some(n) = r.next {
            s.symbols[n].prev = Some(top.left);
        }
        s.symbols[top.right].len = 0;
        let (prev, next) = (s.symbols[top.left].prev, s.symbols[top.left].next);
        add_pair(p, text, s, &mut rev_merge, prev, Some(top.left));
        add_pair(p, text, s, &mut rev_merge, Some(top.left), next);
    }
    let mut index = if s.symbols.is_empty() { None } else { Some(0) };
    while let Some(i) = index {
        let sym = s.symbols[i];
        resegment(
            p,
            &rev_merge,
            &text[sym.start..sym.start + sym.len],
            sym.start,
            out,
        );
        index = sym.next;
    }
}

/// Appends `piece` (at byte `at`), split recursively if it is an UNUSED piece.
fn resegment(p: &Pieces, rev: &RevMerge<'_>, piece: &str, at: usize, out: &mut Vec<Span>) {
    let id = p.piece_to_id(piece);
    if p.is_unused(id) {
        if let Some(&(left, right)) = rev.get(piece) {
            resegment(p, rev, left, at, out);
            resegment(p, rev, right, at + left.len(), out);
            return;
        }
    }
    out.push(Span {
        start: at,
        end: at + piece.len(),
        id,
    });
}
