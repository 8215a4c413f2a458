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

/// Reusable buffers for one thread.
#[derive(Default, Debug)]
pub struct Workspace {
    nodes: Vec<Node>,
    end_heads: Vec<u32>,
    batch: Vec<Candidate>,
    matches: Vec<Match>,
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
    fn connect(&self, ws: &mut Workspace, pos: usize, c: &Candidate) -> u32 {
        let mut best_cost = i64::MAX;
        let mut best = NONE;
        let penalty = if c.rlength != c.length {
            i64::from(self.connector.space_penalty(c.token.posid))
        } else {
            0
        };
        let local = i64::from(c.token.wcost) + penalty;
        let mut l = ws.end_heads[pos];
        while l != NONE {
            let left = &ws.nodes[l as usize];
            let cost =
                left.cost + i64::from(self.connector.transition(left.rc, c.token.lc)) + local;
            if cost < best_cost {
                best_cost = cost;
                best = l;
            }
            l = left.enext;
        }
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
