//! A compiled MeCab dictionary (`sys.dic`, `unk.dic`), read the way MeCab 0.996's
//! `Dictionary::open` (dictionary.cpp) lays it out:
//!
//! ```text
//! u32 magic (0xef718f77 ^ file size), u32 version (102), u32 type (0 system, 1 user, 2 unknown),
//! u32 lexsize, u32 lsize, u32 rsize, u32 dsize, u32 tsize, u32 fsize, u32 dummy,
//! char charset[32], double array (dsize bytes), tokens (tsize bytes), features (fsize bytes)
//! ```
//!
//! The double array is Darts 0.32's: 8-byte units `{i32 base; u32 check}`, keys are bytes, a leaf
//! holds `-value - 1` with `value = (first token index << 8) | token count`. A token record is 16
//! bytes: `u16 lcAttr, u16 rcAttr, u16 posid, i16 wcost, u32 feature, u32 compound`. All
//! little-endian (the files are written on and for x86). The feature strings are not read: the
//! tokenizer only needs surfaces (MeCab's wakati output).

use std::io::Read;
use std::path::Path;

/// `DictionaryMagicID` in dictionary.cpp.
const MAGIC_ID: u32 = 0xef71_8f77;
/// `DIC_VERSION` in common.h.
const VERSION: u32 = 102;
/// Bytes before the double array: ten `u32`s and the 32-byte charset.
const HEADER: usize = 72;
/// MeCab's `kResultsSize`: at most this many prefix matches are looked at per position.
pub const MAX_RESULTS: usize = 512;

/// The connection and cost attributes of one dictionary entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub lc: u16,
    pub rc: u16,
    pub posid: u16,
    pub wcost: i16,
}

/// One loaded dictionary: its double array (raw bytes) and its token records.
#[derive(Debug)]
pub struct Dictionary {
    kind: u32,
    lexsize: u32,
    lsize: u32,
    rsize: u32,
    charset: String,
    da: Vec<u8>,
    tokens: Vec<Token>,
}

/// A prefix match: the tokens `first..first + count` match the first `len` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    pub first: u32,
    pub count: u32,
    pub len: u32,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl Dictionary {
    /// Reads `path` (header, double array and tokens; the feature strings are skipped).
    pub fn open(path: &Path) -> Result<Dictionary, String> {
        let name = path.display();
        let (mut file, size) = crate::tokenize::model_file::open(path)
            .map_err(|e| format!("cannot open {name}: {e}"))?;
        let mut head = [0u8; HEADER];
        file.read_exact(&mut head)
            .map_err(|_| format!("{name}: dictionary file is broken (shorter than its header)"))?;
        let mut rest = Vec::new();
        let (dsize, tsize) = (u32_at(&head, 24) as usize, u32_at(&head, 28) as usize);
        let want = dsize as u64 + tsize as u64;
        if want > size {
            return Err(format!(
                "{name}: dictionary file is broken (sizes exceed the file)"
            ));
        }
        rest.try_reserve_exact(want as usize)
            .map_err(|_| format!("{name}: out of memory"))?;
        (&mut file)
            .take(want)
            .read_to_end(&mut rest)
            .map_err(|e| format!("cannot read {name}: {e}"))?;
        Dictionary::parse(&head, rest, size).map_err(|e| format!("{name}: {e}"))
    }

    /// Validates a header and the double array + token bytes that follow it; `file_size` is
    /// the whole file's length (which the magic number encodes).
    pub fn parse(
        head: &[u8; HEADER],
        mut body: Vec<u8>,
        file_size: u64,
    ) -> Result<Dictionary, String> {
        let field = |i: usize| u32_at(head, 4 * i);
        let (magic, version, kind, lexsize) = (field(0), field(1), field(2), field(3));
        let (lsize, rsize, dsize, tsize, fsize) =
            (field(4), field(5), field(6), field(7), field(8));
        if u64::from(magic ^ MAGIC_ID) != file_size {
            return Err("dictionary file is broken (magic number / size mismatch)".into());
        }
        if version != VERSION {
            return Err(format!(
                "incompatible dictionary version {version} (MeCab 0.996 writes {VERSION})"
            ));
        }
        let total = HEADER as u64 + u64::from(dsize) + u64::from(tsize) + u64::from(fsize);
        if total != file_size || body.len() as u64 != u64::from(dsize) + u64::from(tsize) {
            return Err("dictionary file is broken (section sizes do not add up)".into());
        }
        if !dsize.is_multiple_of(8) || !tsize.is_multiple_of(16) || dsize < 8 {
            return Err("dictionary file is broken (section sizes are not whole records)".into());
        }
        let charset: String = head[40..72]
            .iter()
            .take_while(|&&b| b != 0)
            .map(|&b| char::from(b))
            .collect();
        let tokens: Vec<Token> = body[dsize as usize..]
            .chunks_exact(16)
            .map(|t| Token {
                lc: u16::from_le_bytes([t[0], t[1]]),
                rc: u16::from_le_bytes([t[2], t[3]]),
                posid: u16::from_le_bytes([t[4], t[5]]),
                wcost: i16::from_le_bytes([t[6], t[7]]),
            })
            .collect();
        body.truncate(dsize as usize);
        body.shrink_to_fit();
        let dic = Dictionary {
            kind,
            lexsize,
            lsize,
            rsize,
            charset,
            da: body,
            tokens,
        };
        dic.validate_leaves()?;
        Ok(dic)
    }

    /// Every leaf of the double array must name tokens that exist, so that a match can never
    /// point outside the token table.
    fn validate_leaves(&self) -> Result<(), String> {
        let n = self.tokens.len() as u64;
        for unit in self.da.chunks_exact(8) {
            let base = i32::from_le_bytes(unit[..4].try_into().expect("4 bytes"));
            if base < 0 {
                let value = (-(i64::from(base)) - 1) as u64;
                if (value >> 8) + (value & 0xff) > n {
                    return Err(
                        "dictionary file is broken (an entry points past the token table)".into(),
                    );
                }
            }
        }
        Ok(())
    }

    /// 0 system, 1 user, 2 unknown-word dictionary.
    pub fn kind(&self) -> u32 {
        self.kind
    }

    /// Number of entries (MeCab's `DictionaryInfo::size`).
    pub fn lexsize(&self) -> u32 {
        self.lexsize
    }

    /// The context-id counts the dictionary was compiled for (the matrix must agree).
    pub fn context_sizes(&self) -> (u32, u32) {
        (self.lsize, self.rsize)
    }

    pub fn charset(&self) -> &str {
        &self.charset
    }

    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    /// Unit `i` as `(base, check)`; out of range reads as an empty unit (Darts would read
    /// outside the array; an empty unit never matches a check).
    #[inline]
    fn unit(&self, i: u64) -> (i32, u32) {
        let unit = usize::try_from(i)
            .ok()
            .and_then(|i| i.checked_mul(8))
            .and_then(|at| self.da.get(at..at.checked_add(8)?));
        match unit {
            Some(u) => (
                i32::from_le_bytes(u[..4].try_into().expect("4 bytes")),
                u32::from_le_bytes(u[4..].try_into().expect("4 bytes")),
            ),
            None => (0, u32::MAX),
        }
    }

    fn leaf(&self, b: i32) -> Option<u32> {
        let (n, check) = self.unit(u64::from(b as u32));
        (b as u32 == check && n < 0).then(|| (-(i64::from(n)) - 1) as u32)
    }

    fn as_match(value: u32, len: usize) -> Match {
        Match {
            first: value >> 8,
            count: value & 0xff,
            len: len as u32,
        }
    }

    /// Darts' `commonPrefixSearch`: the entries that are prefixes of `key`, shortest first, at
    /// most [`MAX_RESULTS`] of them, into `out` (cleared first).
    pub fn common_prefix_search(&self, key: &[u8], out: &mut Vec<Match>) {
        out.clear();
        let mut b = self.unit(0).0;
        for (i, &c) in key.iter().enumerate() {
            if let Some(v) = self.leaf(b) {
                if out.len() < MAX_RESULTS {
                    out.push(Self::as_match(v, i));
                }
            }
            let p = u64::from((b as u32).wrapping_add(u32::from(c)).wrapping_add(1));
            let (base, check) = self.unit(p);
            if b as u32 != check {
                return;
            }
            b = base;
        }
        if let Some(v) = self.leaf(b) {
            if out.len() < MAX_RESULTS {
                out.push(Self::as_match(v, key.len()));
            }
        }
    }

    /// Darts' `exactMatchSearch`.
    pub fn exact_match_search(&self, key: &[u8]) -> Option<Match> {
        let mut b = self.unit(0).0;
        for &c in key {
            let p = u64::from((b as u32).wrapping_add(u32::from(c)).wrapping_add(1));
            let (base, check) = self.unit(p);
            if b as u32 != check {
                return None;
            }
            b = base;
        }
        self.leaf(b).map(|v| Self::as_match(v, key.len()))
    }
}
