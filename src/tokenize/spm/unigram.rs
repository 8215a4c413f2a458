//! SentencePiece's unigram encoder: `unigram::Model::EncodeOptimized` of SentencePiece 0.2.3
//! (the Viterbi search the library uses for `EncodeAsPieces`), with its float arithmetic.
//!
//! 0.2.3 differs from 0.2.0 in three ways that change pieces, all reproduced here:
//! * path scores are summed and compared as `float` (0.2.0 compared a `double` candidate with
//!   the stored `float`): two paths whose scores round to the same float tie, and the earlier
//!   start (visited first) keeps the end position. `'▁' + '-' * 19` with a model holding `---`
//!   and 16 dashes is `▁ --- ----------------` in 0.2.3, `▁ ---------------- ---` in 0.2.0;
//! * a user-defined piece scores `0.1 · (length − 1)` (a float from a double product), not
//!   `length · max_score − 0.1`;
//! * once the score at a start position leaves ±100,000 (very long inputs), every score from
//!   there to the farthest end reached so far is shifted by it (`kScoreResetThreshold`).

use super::{Pieces, Span};

/// `kUnkPenalty`.
const UNK_PENALTY: f32 = 10.0;

/// `kScoreResetThreshold`.
const SCORE_RESET: f32 = 100_000.0;

/// `GetUserDefinedScore(length)`: `0.1 * (length - 1)` in double, returned as a float.
fn user_defined_score(len: usize) -> f32 {
    (0.1 * (len as f64 - 1.0)) as f32
}

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
    let mut frontier = 0;
    while start < size {
        let mut here = best[start].score;
        if !(-SCORE_RESET..=SCORE_RESET).contains(&here) {
            // Far from zero a float has few digits left: shift the scores ahead by this one.
            let offset = here;
            for (i, b) in best.iter_mut().enumerate().take(frontier + 1).skip(start) {
                if i == start || b.start != usize::MAX {
                    b.score -= offset;
                }
            }
            here = 0.0;
        }
        let rest = &text[start..];
        let mblen = rest.chars().next().map_or(1, char::len_utf8);
        let mut single = false;
        for (id, len) in p.prefixes(rest) {
            if p.is_unused(id) {
                continue;
            }
            frontier = frontier.max(start + len);
            let score = if p.is_user_defined(id) {
                user_defined_score(len)
            } else {
                p.score(id)
            };
            let candidate = score + here;
            let target = &mut best[start + len];
            if target.start == usize::MAX || candidate > target.score {
                *target = Best {
                    id,
                    score: candidate,
                    start,
                };
            }
            if len == mblen {
                single = true;
            }
        }
        if !single {
            frontier = frontier.max(start + mblen);
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
