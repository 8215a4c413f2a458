//! SentencePiece's normaliser (`normalizer.cc`, `Normalizer::Normalize`), without the
//! normalised-to-original offsets that piece text does not need.
//!
//! The rules come from the model: `precompiled_charsmap` is `<u32 LE trie size><Darts-clone
//! double array><NUL-terminated replacement strings>`; at each position the longest key of the
//! trie that prefixes the input is replaced by its string (`nmt_nfkc` = NFKC plus NMT
//! clean-ups), else one character is copied. User-defined pieces are never normalised. Then the
//! spec's flags: leading, trailing and repeated spaces dropped (`remove_extra_whitespaces`),
//! spaces written as U+2581 (`escape_whitespaces`), and U+2581 put before the text
//! (`add_dummy_prefix`; after it with `treat_whitespace_as_suffix`).

use super::proto::ModelProto;

/// `▁`, SentencePiece's visible space.
pub const SPACE_SYMBOL: &str = "\u{2581}";

/// Darts-clone's `commonPrefixSearch` reports at most this many matches to the normaliser
/// (`Normalizer::kMaxTrieResultsSize`); the longest of those wins.
const MAX_TRIE_RESULTS: usize = 32;

pub struct Normalizer {
    /// The double array (units), empty when the model has no charsmap (identity).
    units: Vec<u32>,
    /// The replacement strings, each ended by NUL.
    strings: Vec<u8>,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
    treat_whitespace_as_suffix: bool,
}

impl Normalizer {
    pub fn new(m: &ModelProto) -> Result<Normalizer, String> {
        let blob = &m.precompiled_charsmap;
        let (mut units, mut strings) = (Vec::new(), Vec::new());
        if !blob.is_empty() {
            // `DecodePrecompiledCharsMap` of sentencepiece 0.2.1 and later, its messages.
            if blob.len() <= 4 {
                return Err("Blob for normalization rule is broken.".into());
            }
            let size = u32::from_le_bytes(blob[..4].try_into().expect("4")) as usize;
            if size >= blob.len() - 4 {
                return Err("Trie data size exceeds the input blob size.".into());
            }
            // Darts units are 4 bytes, and the array is whole blocks of 256 units.
            if size < 1024 || !size.is_multiple_of(1024) {
                return Err("Trie data size is not divisible by 1024.".into());
            }
            let trie = &blob[4..4 + size];
            units = trie
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
                .collect();
            strings = blob[4 + size..].to_vec();
            if strings.last() != Some(&0) {
                return Err("normalized block must be null terminated.".into());
            }
            check_rules(&units, &strings)?;
        }
        Ok(Normalizer {
            units,
            strings,
            add_dummy_prefix: m.add_dummy_prefix,
            remove_extra_whitespaces: m.remove_extra_whitespaces,
            escape_whitespaces: m.escape_whitespaces,
            treat_whitespace_as_suffix: m.treat_whitespace_as_suffix,
        })
    }

    /// The offset a unit's children are at (Darts-clone `offset()`).
    fn offset(unit: u32) -> u32 {
        (unit >> 10) << ((unit & (1 << 9)) >> 6)
    }

    /// The longest charsmap key prefixing `key` (Darts-clone `commonPrefixSearch`, limited to
    /// its first [`MAX_TRIE_RESULTS`] results): (its length, offset of its replacement).
    /// Out-of-range units (a damaged model) end the search instead of panicking.
    fn longest_rule(&self, key: &[u8]) -> Option<(usize, usize)> {
        let unit = |pos: u32| self.units.get(pos as usize).copied();
        let offset = Normalizer::offset;
        let mut node = offset(unit(0)?);
        let (mut best, mut found) = (None, 0);
        for (i, &b) in key.iter().enumerate() {
            node ^= u32::from(b);
            let Some(u) = unit(node) else { break };
            if u & ((1 << 31) | 0xFF) != u32::from(b) {
                break;
            }
            node ^= offset(u);
            if (u >> 8) & 1 == 1 {
                if found < MAX_TRIE_RESULTS {
                    let Some(leaf) = unit(node) else { break };
                    best = Some((i + 1, (leaf & ((1 << 31) - 1)) as usize));
                }
                found += 1;
            }
        }
        best
    }

    /// `NormalizePrefix`: the normalised form of the start of `input` and the bytes it covers.
    /// `user` gives the length of the longest user-defined piece prefixing a string (0: none).
    fn prefix<'s>(&'s self, input: &'s str, user: &impl Fn(&str) -> usize) -> (&'s [u8], usize) {
        let n = user(input);
        if n > 0 {
            return (&input.as_bytes()[..n], n);
        }
        if let Some((len, at)) = self.longest_rule(input.as_bytes()) {
            let s = self.strings.get(at..).unwrap_or(&[]);
            let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
            return (&s[..end], len);
        }
        let n = input.chars().next().map_or(1, char::len_utf8);
        (&input.as_bytes()[..n], n)
    }

    /// `Normalizer::Normalize` of `input` into `out` (cleared first).
    pub fn normalize(&self, mut input: &str, user: &impl Fn(&str) -> usize, out: &mut Vec<u8>) {
        out.clear();
        if self.remove_extra_whitespaces {
            while !input.is_empty() {
                let (s, n) = self.prefix(input, user);
                if s != b" " {
                    break;
                }
                input = advance(input, n);
            }
        }
        if input.is_empty() {
            return;
        }
        let ws: &[u8] = if self.escape_whitespaces {
            SPACE_SYMBOL.as_bytes()
        } else {
            b" "
        };
        if !self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            out.extend_from_slice(ws);
        }
        let mut prev_space = self.remove_extra_whitespaces;
        while !input.is_empty() {
            let (mut s, n) = self.prefix(input, user);
            while prev_space && s.first() == Some(&b' ') {
                s = &s[1..];
            }
            if !s.is_empty() {
                for &b in s {
                    if self.escape_whitespaces && b == b' ' {
                        out.extend_from_slice(SPACE_SYMBOL.as_bytes());
                    } else {
                        out.push(b);
                    }
                }
                prev_space = s.last() == Some(&b' ');
            }
            input = advance(input, n);
            if !self.remove_extra_whitespaces {
                prev_space = false;
            }
        }
        if self.remove_extra_whitespaces {
            while out.ends_with(ws) {
                out.truncate(out.len() - ws.len());
            }
        }
        if self.treat_whitespace_as_suffix && self.add_dummy_prefix {
            out.extend_from_slice(ws);
        }
    }
}

/// `input` past its first `n` bytes; a rule that would end inside a character (impossible with
/// a well-formed charsmap, whose keys are whole characters) advances to the next boundary.
fn advance(input: &str, n: usize) -> &str {
    let mut n = n.min(input.len());
    while !input.is_char_boundary(n) {
        n += 1;
    }
    &input[n..]
}
/// sentencepiece's check of a loaded charsmap ("precompiled_charsmap is invalid.", Darts-clone's
/// `validate` since sentencepiece 0.2.1): every unit's references inside the array — a leaf's
/// value (an offset into the replacement strings) before the strings' end, an inner unit's
/// children (at its position xor its offset) inside the array. A damaged charsmap scored with
/// silently different tokens before (the audit of crafted models: 433 of 2,800 byte-flipped
/// models that sentencepiece refuses).
fn check_rules(units: &[u32], strings: &[u8]) -> Result<(), String> {
    let valid = units.iter().enumerate().all(|(i, &u)| {
        if u & (1 << 31) != 0 {
            ((u & ((1 << 31) - 1)) as usize) < strings.len()
        } else {
            ((i as u32 ^ Normalizer::offset(u)) as usize) < units.len()
        }
    });
    if !valid {
        return Err(INVALID.into());
    }
    // Every node the root reaches: its block inside the array, each rule's replacement inside
    // the strings and ended by a NUL.
    let unit = |pos: u32| units.get(pos as usize).copied().ok_or(INVALID);
    let mut seen = vec![false; units.len()];
    let mut stack = vec![Normalizer::offset(unit(0)?)];
    while let Some(node) = stack.pop() {
        if node as usize >= units.len() {
            return Err(INVALID.into());
        }
        if std::mem::replace(&mut seen[node as usize], true) {
            continue;
        }
        for b in 1..=255u32 {
            let u = unit(node ^ b)?;
            if u & ((1 << 31) | 0xFF) != b {
                continue;
            }
            let child = node ^ b ^ Normalizer::offset(u);
            if (u >> 8) & 1 == 1 {
                let at = (unit(child)? & ((1 << 31) - 1)) as usize;
                let rule = strings.get(at..).ok_or(INVALID)?;
                rule.iter().position(|&c| c == 0).ok_or(INVALID)?;
            }
            stack.push(child);
        }
    }
    Ok(())
}

const INVALID: &str = "precompiled_charsmap is invalid.";
