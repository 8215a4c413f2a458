//! sacreBLEU 2.6.0's SentencePiece tokenizers (`flores101`, `flores200`, `spm`): the pieces of
//! `SentencePieceProcessor.EncodeAsPieces(line)` joined by spaces (`tokenizer_spm.py`), in pure
//! Rust from the model file itself.
//!
//! This is SentencePiece 0.2.3's encoding path, literally: the model protobuf ([`proto`]), the
//! normaliser with the model's precompiled charsmap and flags ([`normalizer`]), the unigram
//! ([`unigram`]) or BPE ([`bpe`]) segmentation, then `PopulateSentencePieceText`: an unknown
//! piece becomes its UTF-8 bytes as `<0xXX>` pieces when the model has byte fallback, else runs
//! of unknown pieces are merged into one. No cache: sacreBLEU memoises `__call__` (2^16 lines),
//! which bleu-stream does not need to be fast; memory per thread is a few buffers.

mod bpe;
mod normalizer;
pub mod proto;
mod unigram;

use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use super::Tokens;
use normalizer::Normalizer;
use proto::{ModelType, PieceType};

/// A piece of the segmentation: a byte range of the normalised text and its piece id.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    start: usize,
    end: usize,
    id: u32,
}

/// The vocabulary, indexed as `ModelInterface::InitializePieces` does.
pub struct Pieces {
    /// NORMAL, USER_DEFINED and UNUSED pieces (`pieces_`) → id.
    trie: crawdad::Trie,
    /// USER_DEFINED pieces (the normaliser's and BPE's `PrefixMatcher`).
    user: Option<crawdad::Trie>,
    /// UNKNOWN, CONTROL and BYTE pieces (`reserved_id_map_`).
    reserved: FxHashMap<String, u32>,
    kinds: Vec<PieceType>,
    scores: Vec<f32>,
    unk_id: u32,
    /// The lowest score of a NORMAL piece; `FLT_MAX` when there is none, as in `unigram::Model`.
    min_score: f32,
}

/// sentencepiece's bound on a piece: 8,000 bytes or more is "piece is too long." (measured
/// with sentencepiece 0.2.3: 7,999 bytes load, 8,000 do not).
const MAX_PIECE_BYTES: usize = 8000;

impl Pieces {
    fn new(m: &proto::ModelProto) -> Result<Pieces, String> {
        let mut normal: Vec<(&str, u32)> = Vec::new();
        let mut user: Vec<(&str, u32)> = Vec::new();
        let mut reserved = FxHashMap::default();
        let mut unk_id = None;
        let mut bytes = [false; 256];
        let mut min_score = f32::MAX;
        for (i, p) in m.pieces.iter().enumerate() {
            let id = u32::try_from(i).map_err(|_| "too many pieces")?;
            if p.text.is_empty() {
                return Err("piece must not be empty".into());
            }
            // sentencepiece 0.2.1 and later refuse these (the audit of crafted models: a NaN
            // score steers the unigram search, and a 300,000-byte piece loaded).
            if p.text.len() >= MAX_PIECE_BYTES {
                return Err("piece is too long.".into());
            }
            if !p.score.is_finite() {
                return Err("score is NaN or Inf.".into());
            }
            match p.kind {
                PieceType::Normal | PieceType::UserDefined | PieceType::Unused => {
                    normal.push((&p.text, id))
                }
                _ => {
                    if reserved.insert(p.text.clone(), id).is_some() {
                        return Err(format!("{} is already defined", p.text));
                    }
                }
            }
            match p.kind {
                PieceType::Normal => min_score = min_score.min(p.score),
                PieceType::UserDefined => user.push((&p.text, id)),
                PieceType::Unknown if unk_id.is_some() => {
                    return Err("unk is already defined".into())
                }
                PieceType::Unknown => unk_id = Some(id),
                PieceType::Byte => {
                    if !m.byte_fallback {
                        return Err(format!(
                            "byte piece {} is found although byte_fallback is false",
                            p.text
                        ));
                    }
                    // `PieceToByte`: exactly `ByteToPiece`'s `<0x%02X>`, upper-case digits
                    // (`<0x3e>` is invalid).
                    let hex = p.text.strip_prefix("<0x").and_then(|s| s.strip_suffix('>'));
                    let upper = hex.is_some_and(|h| {
                        h.len() == 2
                            && h.bytes()
                                .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(&c))
                    });
                    match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                        Some(b) if upper => bytes[b as usize] = true,
                        _ => return Err(format!("byte piece {} is invalid", p.text)),
                    }
                }
                _ => {}
            }
        }
        let unk_id = unk_id.ok_or("unk is not defined")?;
        if m.byte_fallback && bytes.iter().any(|&b| !b) {
            return Err("there are not 256 byte pieces although byte_fallback is true".into());
        }
        let sorted_trie = |mut v: Vec<(&str, u32)>| -> Result<crawdad::Trie, String> {
            v.sort_unstable();
            if let Some(w) = v.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(format!("{} is already defined", w[0].0));
            }
            crawdad::Trie::from_records(v).map_err(|e| format!("piece trie: {e}"))
        };
        if normal.is_empty() {
            return Err("no normal pieces".into());
        }
        Ok(Pieces {
            trie: sorted_trie(normal)?,
            user: if user.is_empty() {
                None
            } else {
                Some(sorted_trie(user)?)
            },
            reserved,
            kinds: m.pieces.iter().map(|p| p.kind).collect(),
            scores: m.pieces.iter().map(|p| p.score).collect(),
            unk_id,
            min_score,
        })
    }

    fn kind(&self, id: u32) -> PieceType {
        self.kinds[id as usize]
    }

    fn is_unused(&self, id: u32) -> bool {
        self.kind(id) == PieceType::Unused
    }

    fn is_user_defined(&self, id: u32) -> bool {
        self.kind(id) == PieceType::UserDefined
    }

    fn score(&self, id: u32) -> f32 {
        self.scores[id as usize]
    }

    /// Pieces (`pieces_`) that prefix `rest`, shortest first: (id, length in bytes).
    ///
    /// The search stops at a NUL: `crawdad` uses U+0000 as its end-of-key marker (no piece
    /// holds one; the trie refuses such keys), so a NUL in the text would match as the end of
    /// the piece before it and be swallowed. SentencePiece sees an unknown character there
    /// (sacreBLEU: `'a\x00b'` is the pieces `a`, `\x00`, `b`). Regression test:
    /// `nul_is_an_unknown_character`.
    fn prefixes<'a>(&'a self, rest: &'a str) -> impl Iterator<Item = (u32, usize)> + 'a {
        let mut ends = rest
            .char_indices()
            .map(|(i, _)| i)
            .skip(1)
            .chain(std::iter::once(rest.len()));
        let (mut chars, mut byte) = (0, 0);
        self.trie
            .common_prefix_search(rest.chars().take_while(|&c| c != '\0'))
            .map(move |(id, n)| {
                while chars < n {
                    byte = ends.next().unwrap_or(rest.len());
                    chars += 1;
                }
                (id, byte)
            })
    }

    /// Bytes of the longest user-defined piece prefixing `rest` (0: none).
    fn user_defined_prefix(&self, rest: &str) -> usize {
        let Some(user) = &self.user else { return 0 };
        let chars = user
            .common_prefix_search(rest.chars().take_while(|&c| c != '\0'))
            .map(|(_, n)| n)
            .max()
            .unwrap_or(0);
        if chars == 0 {
            return 0;
        }
        rest.char_indices()
            .nth(chars)
            .map_or(rest.len(), |(i, _)| i)
    }

    /// `pieces_.find(piece)`.
    fn find(&self, piece: &str) -> Option<u32> {
        if piece.contains('\0') {
            // No piece holds a NUL (see `prefixes`); crawdad would stop at it.
            return None;
        }
        self.trie.exact_match(piece.chars())
    }

    /// `ModelInterface::PieceToId`: reserved pieces, then the others, else unk.
    fn piece_to_id(&self, piece: &str) -> u32 {
        self.reserved
            .get(piece)
            .copied()
            .or_else(|| self.find(piece))
            .unwrap_or(self.unk_id)
    }
}

/// A loaded SentencePiece model.
pub struct Spm {
    pieces: Pieces,
    normalizer: Normalizer,
    model_type: ModelType,
    byte_fallback: bool,
}

impl std::fmt::Debug for Spm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Spm({:?}, {} pieces)",
            self.model_type,
            self.pieces.kinds.len()
        )
    }
}

/// Per-thread buffers.
#[derive(Default)]
pub struct Scratch {
    normalized: Vec<u8>,
    text: String,
    spans: Vec<Span>,
    joined: String,
    unigram: unigram::Scratch,
    bpe: bpe::Scratch,
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("spm::Scratch")
    }
}

impl Spm {
    /// Reads a serialised `ModelProto` (a `.model` file's bytes).
    pub fn from_bytes(bytes: &[u8]) -> Result<Spm, String> {
        let m = proto::parse(bytes)?;
        if !matches!(m.model_type, ModelType::Unigram | ModelType::Bpe) {
            return Err(format!(
                "model type {:?} is not supported (unigram and BPE are)",
                m.model_type
            ));
        }
        Ok(Spm {
            pieces: Pieces::new(&m)?,
            normalizer: Normalizer::new(&m)?,
            model_type: m.model_type,
            byte_fallback: m.byte_fallback,
        })
    }

    /// `EncodeAsPieces(line)`, pieces separated by single spaces, into `s.joined`.
    pub fn encode_joined<'s>(&self, line: &str, s: &'s mut Scratch) -> &'s str {
        let p = &self.pieces;
        self.normalizer
            .normalize(line, &|r: &str| p.user_defined_prefix(r), &mut s.normalized);
        s.text.clear();
        match std::str::from_utf8(&s.normalized) {
            Ok(t) => s.text.push_str(t),
            // Only a damaged charsmap makes invalid UTF-8.
            Err(_) => s.text.push_str(&String::from_utf8_lossy(&s.normalized)),
        }
        match self.model_type {
            ModelType::Bpe => bpe::encode(p, &s.text, &mut s.bpe, &mut s.spans),
            _ => unigram::encode(p, &s.text, &mut s.unigram, &mut s.spans),
        }
        s.joined.clear();
        let mut prev_unk = false;
        for span in &s.spans {
            let w = &s.text[span.start..span.end];
            let unk = p.kind(span.id) == PieceType::Unknown;
            if unk && self.byte_fallback {
                for b in w.bytes() {
                    if !s.joined.is_empty() {
                        s.joined.push(' ');
                    }
                    let _ = write!(s.joined, "<0x{b:02X}>");
                }
            } else if unk && prev_unk {
                s.joined.push_str(w);
            } else {
                if !s.joined.is_empty() {
                    s.joined.push(' ');
                }
                s.joined.push_str(w);
            }
            prev_unk = unk;
        }
        &s.joined
    }

    /// Appends BLEU's tokens of `line` (lowercased and right-stripped by the caller):
    /// `" ".join(EncodeAsPieces(line)).split()`.
    pub fn tokenize(&self, line: &str, s: &mut Scratch, out: &mut Tokens) {
        self.encode_joined(line, s);
        out.extend_split(&s.joined);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BPE: &[u8] = include_bytes!("../../../tests/data/spm/bpe_plain.model");
    const UNIGRAM: &[u8] = include_bytes!("../../../tests/data/spm/unigram_plain.model");

    #[test]
    fn damaged_models_are_errors_not_panics() {
        // Every truncation and a sweep of byte flips of two small models: an error, or a model
        // that encodes without panicking.
        let lines = ["", "Hello wörld 日本語 <sep> @@", "  a  ", "\u{1F600}x"];
        for model in [BPE, UNIGRAM] {
            let mut s = Scratch::default();
            let try_model = |bytes: &[u8], s: &mut Scratch| {
                if let Ok(spm) = Spm::from_bytes(bytes) {
                    for l in lines {
                        spm.encode_joined(l, s);
                    }
                }
            };
            for n in 0..model.len() {
                try_model(&model[..n], &mut s);
            }
            let mut bytes = model.to_vec();
            for i in (0..bytes.len()).step_by(7) {
                bytes[i] ^= 0x5A;
                try_model(&bytes, &mut s);
                bytes[i] ^= 0x5A;
            }
        }
    }

    #[test]
    fn empty_and_white_space_lines_have_no_pieces() {
        let spm = Spm::from_bytes(BPE).unwrap();
        let mut s = Scratch::default();
        assert_eq!(spm.encode_joined("", &mut s), "");
        assert_eq!(spm.encode_joined("   ", &mut s), "");
        assert!(spm.encode_joined(" the ", &mut s).starts_with('\u{2581}'));
    }

    /// Regression (audit of crafted models, 2026-11-27): what sentencepiece 0.2.3 refuses to
    /// load is refused with its message, instead of scored.
    #[test]
    fn models_sentencepiece_refuses_are_refused() {
        const NFKC_BF: &[u8] = include_bytes!("../../../tests/data/spm/unigram_nfkc_bf.model");
        let good = proto::parse(NFKC_BF).unwrap();
        assert!(Spm::from_bytes(NFKC_BF).is_ok());
        let refused = |change: &dyn Fn(&mut proto::ModelProto), says: &str| {
            let mut m = proto::parse(NFKC_BF).unwrap();
            change(&mut m);
            let e = Pieces::new(&m)
                .and_then(|_| Normalizer::new(&m).map(|_| ()))
                .map(|_| ())
                .unwrap_err();
            assert!(e.contains(says), "{e} (want {says})");
        };
        for score in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            refused(&|m| m.pieces[5].score = score, "score is NaN or Inf.");
        }
        refused(
            &|m| m.pieces[5].text = "a".repeat(8000),
            "piece is too long.",
        );
        let byte = good.pieces.iter().position(|p| p.text == "<0x3E>").unwrap();
        refused(
            &|m| m.pieces[byte].text = "<0x3e>".into(),
            "byte piece <0x3e> is invalid",
        );
        // The charsmap: its size field, its NUL-terminated strings, a leaf pointing past them.
        let map = &good.precompiled_charsmap;
        let size = u32::from_le_bytes(map[..4].try_into().unwrap());
        for (bad, says) in [
            (512u32, "Trie data size is not divisible by 1024."),
            (size + 4, "Trie data size is not divisible by 1024."),
            (u32::MAX, "Trie data size exceeds the input blob size."),
        ] {
            refused(
                &|m| m.precompiled_charsmap[..4].copy_from_slice(&bad.to_le_bytes()),
                says,
            );
        }
        refused(
            &|m| *m.precompiled_charsmap.last_mut().unwrap() = b'a',
            "normalized block must be null terminated.",
        );
        refused(&|m| m.precompiled_charsmap.truncate(3), "is broken");
        // sentencepiece's own regression case: a leaf's value set to the largest there is.
        let leaf = (0..size as usize / 4)
            .find(|&u| map[4 + 4 * u + 3] & 0x80 != 0)
            .unwrap();
        refused(
            &|m| m.precompiled_charsmap[4 + 4 * leaf..8 + 4 * leaf].fill(0xFF),
            "precompiled_charsmap is invalid.",
        );
        // Field number 0 (protobuf refuses it).
        let mut bytes = NFKC_BF.to_vec();
        bytes.extend([0, 0]);
        assert!(Spm::from_bytes(&bytes)
            .unwrap_err()
            .contains("field number 0"));
    }
}
