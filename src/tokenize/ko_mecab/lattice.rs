//! MeCab 0.996's one-best search (viterbi.cpp `viterbi<false, false>`, tokenizer.cpp `lookup`)
//! over a loaded [`Model`], with mecab-ko's connection cost.
//!
//! Node lists are reproduced *in MeCab's order*, because ties are broken by it: `lookup`
//! prepends each new node to its result list (so the list runs from the last created node
//! back), `connect` walks that list and prepends each node to the end-list of the position it
//! ends at, and the best left node is the first one of strictly lowest cost in that end-list.

use super::char_property::CharInfo;
use super::dictionary::{Match, Token};
use super::Model;

const NONE: u32 = u32::MAX;
/// MeCab's lookup never looks further than this many bytes ahead (tokenizer.cpp).
const MAX_LOOKAHEAD: usize = 65535;
/// Lattice room a workspace keeps between lines (nodes; 40 bytes each).
const KEEP_NODES: usize = 1 << 16;

#[derive(Clone, Copy, Debug)]
struct Node {
    /// Byte offset of the surface (after any skipped white space) and its length.
    surface: u32,
    length: u32,
    cost: i64,
    prev: u32,
    enext: u32,
    rc: u16,
}

/// A node before it is connected: what `lookup` creates.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    token: Token,
    surface: usize,
    length: usize,
    /// Length including the white space skipped before the surface.
    rlength: usize,
}

/// A node that ends where the right nodes being connected start, in end-list order.
#[derive(Clone, Copy, Debug)]
struct Left {
    cost: i64,
    index: u32,
    rc: u16,
}

/// Reusable buffers for one thread.
#[derive(Default, Debug)]
pub struct Workspace {
    nodes: Vec<Node>,
    end_heads: Vec<u32>,
    batch: Vec<Candidate>,
    matches: Vec<Match>,
    /// The end-list of the current position, gathered once for all its right nodes.
    left: Vec<Left>,
    /// Per left-context id: `(stamp, cost, index)` of the best left node at the position
    /// stamped (see [`Model::best_left`]).
    memo: Vec<(u64, i64, u32)>,
    /// Changes with every position connected, so that `memo` never needs clearing.
    stamp: u64,
    /// Per right-context id: `(stamp, index into left)` of the node kept for that id.
    by_rc: Vec<(u64, u32)>,
}

impl Workspace {
    /// Makes the end-list of `pos` the left side of the next connections.
    ///
    /// Of the nodes sharing a right context id only the first of least cost is kept (in its
    /// place): for any right node the others cost at least as much and come later, so MeCab
    /// never picks them (ties go to the earlier node).
    fn gather(&mut self, pos: usize) {
        self.stamp += 1;
        self.left.clear();
        let mut l = self.end_heads[pos];
        while l != NONE {
            let n = &self.nodes[l as usize];
            let slot = usize::from(n.rc);
            if self.by_rc.len() <= slot {
                self.by_rc.resize(slot + 1, (0, 0));
            }
            let (stamp, at) = self.by_rc[slot];
            let left = Left {
                cost: n.cost,
                index: l,
                rc: n.rc,
            };
            if stamp != self.stamp {
                self.by_rc[slot] = (self.stamp, self.left.len() as u32);
                self.left.push(left);
            } else if n.cost < self.left[at as usize].cost {
                // Dropped from its earlier place, kept in this later one.
                self.left[at as usize].index = NONE;
                self.by_rc[slot] = (self.stamp, self.left.len() as u32);
                self.left.push(left);
            }
            l = n.enext;
        }
        self.left.retain(|l| l.index != NONE);
    }
}

impl Model {
    /// The best path's surfaces, as byte ranges of `s`, in order, into `out`.
    pub(super) fn best_path(&self, s: &[u8], ws: &mut Workspace, out: &mut Vec<(usize, usize)>) {
        out.clear();
        let len = s.len();
        ws.nodes.clear();
        ws.end_heads.clear();
        ws.end_heads.resize(len + 1, NONE);
        // BOS: every attribute 0 (a fresh MeCab node is zeroed).
        ws.nodes.push(Node {
            surface: 0,
            length: 0,
            cost: 0,
            prev: NONE,
            enext: NONE,
            rc: 0,
        });
        ws.end_heads[0] = 0;
        for pos in 0..len {
            if ws.end_heads[pos] == NONE {
                continue;
            }
            let mut batch = std::mem::take(&mut ws.batch);
            self.lookup(s, pos, &mut batch, &mut ws.matches);
            ws.gather(pos);
            for c in batch.iter().rev() {
                self.connect(ws, pos, c);
            }
            ws.batch = batch;
        }
        // EOS: attaches to the last position anything ends at.
        let eos = Candidate {
            token: Token {
                lc: 0,
                rc: 0,
                posid: 0,
                wcost: 0,
            },
            surface: len,
            length: 0,
            rlength: 0,
        };
        let last = (0..=len)
            .rev()
            .find(|&p| ws.end_heads[p] != NONE)
            .unwrap_or(0);
        ws.gather(last);
        let eos_index = self.connect(ws, last, &eos);
        let mut node = ws.nodes.get(eos_index as usize).map_or(NONE, |n| n.prev);
        while node != 0 && node != NONE {
            let n = ws.nodes[node as usize];
            out.push((n.surface as usize, (n.surface + n.length) as usize));
            node = n.prev;
        }
        out.reverse();
        // Bounded memory: one huge line must not keep its lattice's room for good.
        if ws.nodes.capacity() > KEEP_NODES * 16 {
            ws.nodes = Vec::with_capacity(KEEP_NODES);
            ws.end_heads = Vec::with_capacity(KEEP_NODES);
        }
    }

    /// `connect` for one right node starting (white space included) at `pos`; returns its
    /// index. Nodes that would end past the sentence (see `lookup`) are not stored.
    ///
    /// MeCab starts from a best cost of 2^31 − 1 and fails ("too long sentence.") when no
    /// path is cheaper; sacreBLEU then raises. Whenever MeCab succeeds, the cheapest path
    /// (first in list order on ties) is the same with an unbounded start, which is what is
    /// used here: where MeCab gives up (cumulative costs over two billion, i.e. lines of
    /// hundreds of thousands of words) the search simply continues in 64 bits.
    ///
    /// The left nodes are those [`Workspace::gather`] collected for `pos`.
    fn connect(&self, ws: &mut Workspace, pos: usize, c: &Candidate) -> u32 {
        let (best_left_cost, best) = self.best_left(ws, c.token.lc);
        let penalty = if c.rlength != c.length {
            i64::from(self.connector.space_penalty(c.token.posid))
        } else {
            0
        };
        let best_cost = best_left_cost.saturating_add(i64::from(c.token.wcost) + penalty);
        let end = pos + c.rlength;
        if best == NONE || end >= ws.end_heads.len() {
            // (`best` is only missing when `pos` has no node, which the callers exclude.)
            return NONE;
        }
        let index = ws.nodes.len() as u32;
        ws.nodes.push(Node {
            surface: c.surface as u32,
            length: c.length as u32,
            cost: best_cost,
            prev: best,
            enext: ws.end_heads[end],
            rc: c.token.rc,
        });
        ws.end_heads[end] = index;
        index
    }

    /// MeCab's inner loop of `connect`: over the left nodes in end-list order, the first of
    /// least `cost + matrix[rc][lc]`, with that sum. The right node's own cost (word cost and
    /// space penalty) adds the same to every candidate, so neither the choice nor the tie-break
    /// depends on it: the result depends only on the right node's left context id, and is
    /// computed once per id and position (many entries share one id).
    fn best_left(&self, ws: &mut Workspace, lc: u16) -> (i64, u32) {
        let slot = usize::from(lc);
        if ws.memo.len() <= slot {
            ws.memo.resize(slot + 1, (0, 0, NONE));
        }
        let (stamp, cost, index) = ws.memo[slot];
        if stamp == ws.stamp {
            return (cost, index);
        }
        let mut best = (i64::MAX, NONE);
        for l in &ws.left {
            let cost = l.cost + i64::from(self.connector.transition(l.rc, lc));
            if cost < best.0 {
                best = (cost, l.index);
            }
        }
        ws.memo[slot] = (ws.stamp, best.0, best.1);
        best
    }

    /// Skips characters that share a category with `c`, each compared with the one before it
    /// (`CharProperty::seekToOtherType`). Returns the stop position, the info and byte length
    /// of the last character examined, and how many characters were skipped.
    fn seek_to_other_type(
        &self,
        s: &[u8],
        mut p: usize,
        end: usize,
        mut c: CharInfo,
        mut fail: (CharInfo, usize),
    ) -> (usize, (CharInfo, usize), usize) {
        let mut count = 0;
        while p != end {
            fail = self.chars.char_at(s, p, end);
            if !c.is_kind_of(fail.0) {
                break;
            }
            p += fail.1;
            count += 1;
            c = fail.0;
        }
        (p, fail, count)
    }

    /// `Tokenizer::lookup` at byte `begin`: dictionary words and unknown words starting at the
    /// first character that is not white space, in creation order (MeCab's list is the
    /// reverse).
    fn lookup(&self, s: &[u8], begin: usize, out: &mut Vec<Candidate>, matches: &mut Vec<Match>) {
        out.clear();
        let end = s.len().min(begin + MAX_LOOKAHEAD);
        let (begin2, (cinfo, mblen), _) =
            self.seek_to_other_type(s, begin, end, self.space, (CharInfo::default(), 0));
        self.sys.common_prefix_search(&s[begin2..end], matches);
        for m in matches.iter() {
            for token in &self.sys.tokens()[m.first as usize..(m.first + m.count) as usize] {
                out.push(Candidate {
                    token: *token,
                    surface: begin2,
                    length: m.len as usize,
                    rlength: begin2 - begin + m.len as usize,
                });
            }
        }
        if !out.is_empty() && !cinfo.invoke() {
            return;
        }
        let unknown = |out: &mut Vec<Candidate>, begin3: usize| {
            for token in self.unknown_tokens(cinfo) {
                out.push(Candidate {
                    token: *token,
                    surface: begin2,
                    length: begin3 - begin2,
                    rlength: begin3 - begin,
                });
            }
        };
        let mut begin3 = begin2 + mblen;
        if begin3 > end {
            // Only white space was left: MeCab adds an unknown word reaching past the end (it
            // never lies on a path).
            unknown(out, begin3);
            if !out.is_empty() {
                return;
            }
        }
        let mut group_end = None;
        if cinfo.group() {
            let (stop, _, count) = self.seek_to_other_type(s, begin3, end, cinfo, (cinfo, mblen));
            if count <= self.max_grouping_size {
                unknown(out, stop);
            }
            group_end = Some(stop);
        }
        for _ in 1..=cinfo.length() {
            if begin3 > end {
                break;
            }
            if Some(begin3) == group_end {
                continue;
            }
            unknown(out, begin3);
            let (next, next_len) = self.chars.char_at(s, begin3, end);
            if !cinfo.is_kind_of(next) {
                break;
            }
            begin3 += next_len;
        }
        if out.is_empty() {
            unknown(out, begin3);
        }
    }
}
