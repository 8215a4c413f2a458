//! EUC-JP → UTF-8 as CPython's `euc_jp` codec (and glibc iconv) decode it — the mapping under
//! which IPADIC's source CSVs were read when the dictionary sacreBLEU uses (PyPI `ipadic`) was
//! compiled. `encoding_rs` (the WHATWG decoder) is *not* that: it maps A1DD to U+FF0D instead of
//! U+2212 (−), A1C1 to U+FF5E instead of U+301C (〜), A1C2 to U+2225 instead of U+2016 (‖) and
//! A1F2 to U+FFE1 instead of U+00A3 (£), and dictionary words with those characters would then
//! never match the text.
//!
//! Covered: ASCII, JIS X 0208 (two bytes A1..FE, table generated from CPython by
//! `tools/gen_jis0208.py`) and half-width katakana (8E A1..DF). JIS X 0212 (8F + two bytes) does
//! not occur in IPADIC and is reported as an error rather than guessed.

use super::jis0208::JIS0208;

/// Why a byte string is not EUC-JP (byte offset of the offending sequence).
#[derive(Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub offset: usize,
}

/// Decodes `bytes` (EUC-JP) into `out`.
pub fn decode_into(bytes: &[u8], out: &mut String) -> Result<(), DecodeError> {
    out.reserve(bytes.len() + bytes.len() / 2);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            // Runs of ASCII are copied at once.
            let end = bytes[i..]
                .iter()
                .position(|&c| c >= 0x80)
                .map_or(bytes.len(), |p| i + p);
            out.push_str(std::str::from_utf8(&bytes[i..end]).expect("ASCII is UTF-8"));
            i = end;
            continue;
        }
        let err = DecodeError { offset: i };
        let trail = *bytes.get(i + 1).ok_or(DecodeError { offset: i })?;
        let c = match b {
            0x8E if (0xA1..=0xDF).contains(&trail) => 0xFF61 + u32::from(trail - 0xA1),
            0xA1..=0xFE if (0xA1..=0xFE).contains(&trail) => {
                let c = JIS0208[usize::from(b - 0xA1) * 94 + usize::from(trail - 0xA1)];
                if c == 0 {
                    return Err(err);
                }
                u32::from(c)
            }
            _ => return Err(err),
        };
        out.push(char::from_u32(c).ok_or(err)?);
        i += 2;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Result<String, DecodeError> {
        let mut s = String::new();
        decode_into(bytes, &mut s).map(|()| s)
    }

    #[test]
    fn python_not_whatwg_mapping() {
        assert_eq!(decode(b"\xa1\xdd").unwrap(), "\u{2212}");
        assert_eq!(decode(b"\xa1\xc1").unwrap(), "\u{301c}");
        assert_eq!(decode(b"\xa1\xc2").unwrap(), "\u{2016}");
        assert_eq!(decode(b"\xa1\xf2").unwrap(), "\u{a3}");
        assert_eq!(decode(b"a\xc6\xfc\xcb\xdcb").unwrap(), "a日本b");
        assert_eq!(decode(b"\x8e\xb1").unwrap(), "ｱ");
    }

    #[test]
    fn invalid_sequences_are_errors() {
        assert_eq!(decode(b"ab\xa1"), Err(DecodeError { offset: 2 }));
        assert_eq!(decode(b"\x8f\xa1\xa1"), Err(DecodeError { offset: 0 }));
        assert_eq!(decode(b"\xa1\x41"), Err(DecodeError { offset: 0 }));
        assert_eq!(decode(b"\xff\xff"), Err(DecodeError { offset: 0 }));
        // A hole of JIS X 0208 (row 2 after ◇).
        assert!(decode(b"\xa2\xaf").is_err());
    }
}
