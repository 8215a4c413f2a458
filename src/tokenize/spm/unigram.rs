//! SentencePiece's unigram encoder: `unigram::Model::EncodeOptimized` (the Viterbi search the
//! library uses by default), with its float arithmetic — scores are `float`, a user-defined
//! piece's bonus `length * max_score - 0.1` is a `double`, and candidate paths are compared in
//! `double` before being stored as `float` — so that ties and near-ties break the same way.

use super::{Pieces, Span};

/// `kUnkPenalty`.
const UNK_PENALTY: f32 = 10.0;

#[derive(Clone, Copy)]
struct Best {
    id: u32,
    score: f32,
    /// Start (bytes) of the last piece of the best path ending here; `usize::MAX`: none yet.
    start: usize,
}

/// Per-thread buffers.
#[derive(Default)]
pub struct Scratch {
    best: Vec<Best>,
}

/// Segments `text` (normalised) into `out` as (start, end, id).
pub fn encode(p: &Pieces, text: &str, scratch: &mut Scratch, out: &mut Vec<Span>) {
    out.clear();
    let size = text.len();
    if size == 0 {
        return;
    }
    let unk_score = p.min_score - UNK_PENALTY;
    let best = &mut scratch.best;
    best.clear();
    best.resize(
        size + 1,
        Best {
            id: 0,
            score: 0.0,
            start: usize::MAX,
        },
    );
    let mut start = 0;
    while start < size {
        let here = best[start].score;
        let rest = &text[start..];
        let mblen = rest.chars().next().map_or(1, char::len_utf8);
        let mut single = false;
        for (id, len) in p.prefixes(rest) {
            if p.is_unused(id) {
                continue;
            }
            let score: f64 = if p.is_user_defined(id) {
                f64::from(len as f32 * p.max_score) - 0.1
            } else {
                f64::from(p.score(id))
            };
            let candidate = score + f64::from(here);
            let target = &mut best[start + len];
            if target.start == usize::MAX || candidate > f64::from(target.score) {
                *target = Best {
                    id,
                    score: candidate as f32,
                    start,
                };
            }
            if len == mblen {
                single = true;
            }
        }
        if !single {
            let candidate = unk_score + here;
            let target = &mut best[start + mblen];
            if target.start == usize::MAX || candidate > target.score {
                *target = Best {
                    id: p.unk_id,
                    score: candidate,
                    start,
                };
            }
        }
        start += mblen;
    }
    let mut end = size;
    while end > 0 {
        let b = best[end];
        out.push(Span {
            start: b.start,
            end,
            id: b.id,
        });
        end = b.start;
    }
    out.reverse();
}
