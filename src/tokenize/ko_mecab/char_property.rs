//! MeCab's character categories (`char.bin`), as char_property.cpp reads them:
//! `u32 csize`, `csize` category names of 32 bytes each (NUL-padded), then one 32-bit
//! `CharInfo` for each UCS-2 code point 0..0xFFFE (`0xffff` entries — U+FFFF has none).
//!
//! `CharInfo` is a GCC bit field on a little-endian machine: bits 0–17 `type` (the set of
//! categories the character belongs to), 18–25 `default_type` (the category whose unknown-word
//! entries it gets), 26–29 `length`, 30 `group`, 31 `invoke`.

use std::path::Path;

/// Number of `CharInfo` entries in the file (MeCab writes `0xffff`, not 0x10000).
const ENTRIES: usize = 0xffff;

/// One character's categories and unknown-word settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CharInfo(pub u32);

impl CharInfo {
    pub fn type_bits(self) -> u32 {
        self.0 & 0x3ffff
    }
    pub fn default_type(self) -> usize {
        ((self.0 >> 18) & 0xff) as usize
    }
    pub fn length(self) -> usize {
        ((self.0 >> 26) & 0xf) as usize
    }
    pub fn group(self) -> bool {
        (self.0 >> 30) & 1 == 1
    }
    pub fn invoke(self) -> bool {
        self.0 >> 31 == 1
    }
    /// `CharInfo::isKindOf`: the two share a category.
    pub fn is_kind_of(self, other: CharInfo) -> bool {
        self.type_bits() & other.type_bits() != 0
    }
}

/// The loaded category table.
#[derive(Debug)]
pub struct CharProperty {
    names: Vec<Vec<u8>>,
    map: Vec<CharInfo>,
}

impl CharProperty {
    pub fn open(path: &Path) -> Result<CharProperty, String> {
        let bytes = crate::tokenize::model_file::read(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        CharProperty::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(bytes: &[u8]) -> Result<CharProperty, String> {
        let csize = bytes
            .get(..4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
            .ok_or("invalid file size (no header)")?;
        let want = (csize as u64) * 32 + 4 + 4 * ENTRIES as u64;
        if want != bytes.len() as u64 {
            return Err(format!(
                "invalid file size ({} bytes for {csize} categories)",
                bytes.len()
            ));
        }
        let names_end = 4 + 32 * csize;
        let names = bytes[4..names_end]
            .chunks_exact(32)
            .map(|n| n.iter().take_while(|&&b| b != 0).copied().collect())
            .collect();
        let map: Vec<CharInfo> = bytes[names_end..]
            .chunks_exact(4)
            .map(|c| CharInfo(u32::from_le_bytes(c.try_into().expect("4 bytes"))))
            .collect();
        let cp = CharProperty { names, map };
        if let Some(bad) = cp.map.iter().find(|c| c.default_type() >= csize) {
            return Err(format!(
                "a character's default category {} is not among the {csize} categories",
                bad.default_type()
            ));
        }
        Ok(cp)
    }

    /// Category names in id order.
    pub fn names(&self) -> &[Vec<u8>] {
        &self.names
    }

    /// The info of UCS-2 code `code`. U+FFFF lies past MeCab's table: MeCab reads the bytes
    /// after the mapped file there, which the kernel zero-fills — an all-zero `CharInfo`.
    #[inline]
    pub fn info(&self, code: u16) -> CharInfo {
        self.map.get(usize::from(code)).copied().unwrap_or_default()
    }

    /// `getCharInfo` on UTF-8: the character at `s[p..]`, decoded by MeCab's `utf8_to_ucs2`
    /// with `end - p` bytes available, and its byte length. Characters outside the BMP (and
    /// malformed bytes) read as code 0. At `p == s.len()` MeCab reads the string's terminating
    /// NUL.
    #[inline]
    pub fn char_at(&self, s: &[u8], p: usize, end: usize) -> (CharInfo, usize) {
        let b0 = s.get(p).copied().unwrap_or(0);
        let avail = end.saturating_sub(p);
        let at = |i: usize| u16::from(s.get(p + i).copied().unwrap_or(0) & 0x3f);
        let (code, len) = if b0 < 0x80 {
            (u16::from(b0), 1)
        } else if avail >= 2 && b0 & 0xe0 == 0xc0 {
            ((u16::from(b0 & 0x1f) << 6) | at(1), 2)
        } else if avail >= 3 && b0 & 0xf0 == 0xe0 {
            ((u16::from(b0 & 0x0f) << 12) | (at(1) << 6) | at(2), 3)
        } else if avail >= 4 && b0 & 0xf8 == 0xf0 {
            (0, 4)
        } else if avail >= 5 && b0 & 0xfc == 0xf8 {
            (0, 5)
        } else if avail >= 6 && b0 & 0xfe == 0xfc {
            (0, 6)
        } else {
            (0, 1)
        };
        (self.info(code), len)
    }
}
