//! The connection-cost matrix (`matrix.bin`) and mecab-ko's left-space penalty.
//!
//! `matrix.bin` (connector.cpp): `u16 lsize, u16 rsize`, then `lsize * rsize` `i16` costs; the
//! cost of a left node with right context `r` followed by a right node with left context `l`
//! is `matrix[r + lsize * l]`.
//!
//! mecab-ko (NoUnique/mecab-ko, which PyPI `mecab-ko` builds from) adds to every connection
//! the penalty `left-space-penalty-factor` (dicrc) gives the right node's part of speech when
//! the right node is preceded by white space (`rlength != length`); see
//! `Connector::get_space_penalty_cost`.

use std::path::Path;

use super::dictionary::Token;

#[derive(Debug)]
pub struct Connector {
    lsize: usize,
    rsize: usize,
    matrix: Vec<u8>,
    /// `(posid, penalty)` in dicrc order; the first entry for a posid wins.
    penalties: Vec<(u16, i32)>,
}

impl Connector {
    pub fn open(path: &Path, penalties: Vec<(u16, i32)>) -> Result<Connector, String> {
        let bytes = crate::tokenize::model_file::read(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Connector::parse(bytes, penalties).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(matrix: Vec<u8>, penalties: Vec<(u16, i32)>) -> Result<Connector, String> {
        if matrix.len() < 4 {
            return Err("file size is invalid".into());
        }
        let lsize = usize::from(u16::from_le_bytes([matrix[0], matrix[1]]));
        let rsize = usize::from(u16::from_le_bytes([matrix[2], matrix[3]]));
        if (lsize * rsize + 2) * 2 != matrix.len() {
            return Err(format!("file size is invalid for a {lsize}x{rsize} matrix"));
        }
        Ok(Connector {
            lsize,
            rsize,
            matrix,
            penalties,
        })
    }

    pub fn sizes(&self) -> (usize, usize) {
        (self.lsize, self.rsize)
    }

    /// Whether `token` can appear on both sides of a connection without leaving the matrix.
    pub fn fits(&self, token: &Token) -> bool {
        usize::from(token.rc) < self.lsize && usize::from(token.lc) < self.rsize
    }

    /// `matrix_[rc + lsize * lc]` (both ids checked by [`fits`](Self::fits) at load time).
    #[inline]
    pub fn transition(&self, rc: u16, lc: u16) -> i32 {
        let at = 4 + 2 * (usize::from(rc) + self.lsize * usize::from(lc));
        i32::from(i16::from_le_bytes([self.matrix[at], self.matrix[at + 1]]))
    }

    /// `get_space_penalty_cost` for a right node with part of speech `posid` that is preceded
    /// by white space.
    #[inline]
    pub fn space_penalty(&self, posid: u16) -> i32 {
        self.penalties
            .iter()
            .find(|p| p.0 == posid)
            .map_or(0, |p| p.1)
    }
}

/// `strtol(s, NULL, 0)`: leading white space, a sign, `0x` hex / `0` octal / decimal digits,
/// stopping at the first other character (0 when there is no digit). Saturates like strtol.
fn strtol(s: &str) -> i64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if (s.starts_with("0x") || s.starts_with("0X"))
        && s[2..].starts_with(|c: char| c.is_ascii_hexdigit())
    {
        (16, &s[2..])
    } else if s.starts_with('0') {
        (8, s)
    } else {
        (10, s)
    };
    let mut v: i64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        v = v
            .saturating_mul(i64::from(radix))
            .saturating_add(i64::from(d));
    }
    if neg {
        v.saturating_neg()
    } else {
        v
    }
}

/// Parses `left-space-penalty-factor` (`posid,penalty,posid,penalty,…`) as mecab-ko does: the
/// value cut to 511 bytes, split on commas into at most 64 fields (leading blanks skipped),
/// each read with `strtoul`/`strtol` base 0, cast to `unsigned short` / `int`.
pub fn parse_penalties(value: &str) -> Result<Vec<(u16, i32)>, String> {
    let mut cut = value.len().min(511);
    while !value.is_char_boundary(cut) {
        cut -= 1;
    }
    let value = &value[..cut];
    if value.is_empty() {
        return Ok(Vec::new());
    }
    let fields: Vec<&str> = value
        .splitn(64, ',')
        .map(|f| f.trim_start_matches([' ', '\t']))
        .collect();
    if !fields.len().is_multiple_of(2) {
        return Err(format!(
            "left-space-penalty-factor has an odd number of fields ({}): it must be posid,cost pairs",
            fields.len()
        ));
    }
    Ok(fields
        .chunks_exact(2)
        .map(|p| (strtol(p[0]) as u16, strtol(p[1]) as i32))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtol_base_zero() {
        assert_eq!(strtol("120"), 120);
        assert_eq!(strtol(" 0x10"), 16);
        assert_eq!(strtol("010"), 8);
        assert_eq!(strtol("-5x"), -5);
        assert_eq!(strtol("abc"), 0);
        assert_eq!(strtol("0x"), 0);
    }

    #[test]
    fn penalties_as_mecab_ko_reads_them() {
        assert_eq!(
            parse_penalties("120,6000, 184,3000").unwrap(),
            [(120, 6000), (184, 3000)]
        );
        assert_eq!(parse_penalties("").unwrap(), []);
        assert!(parse_penalties("120,6000,5").is_err());
    }

    #[test]
    fn matrix_size_is_checked() {
        let mut m = vec![2, 0, 1, 0, 5, 0, 0xff, 0xff];
        let c = Connector::parse(m.clone(), vec![(3, 7)]).unwrap();
        assert_eq!(c.transition(1, 0), -1);
        assert_eq!(c.space_penalty(3), 7);
        assert_eq!(c.space_penalty(4), 0);
        m.pop();
        assert!(Connector::parse(m, vec![]).is_err());
        assert!(Connector::parse(vec![1], vec![]).is_err());
    }
}
