//! TSV framing: `hyp<TAB>ref1<TAB>ref2…`, the layout `paste hyp ref1 ref2` produces.
//!
//! Unlike sacreBLEU, where TABs on stdin separate *systems*, field 1 is the hypothesis and every
//! further field is a reference. Fields are split on U+0009 only; an empty field is an empty
//! reference (as an empty line of a sacreBLEU reference file is).

use std::borrow::Cow;

use smallvec::smallvec;

use super::{decode, too_many_refs, Refs, Segment, SegmentRefs, Utf8Policy, MAX_REFS};

pub fn frame(line: &[u8], refs: Refs, utf8: Utf8Policy) -> Result<Segment<'_>, String> {
    // One pass for the TABs, one validation of the whole line: on a valid line every field is a
    // valid `str` too (TAB is ASCII). Only a line with invalid UTF-8 is decoded field by field,
    // for the message naming the field (or for lossy replacement). With AVX-512 both come from
    // one pass, which also says whether the line is ASCII (then valid UTF-8 without a check).
    let Scan {
        first_tab,
        tabs,
        ascii,
    } = scan(line);
    let nfields = tabs + 1;
    if nfields - 1 > MAX_REFS {
        return Err(too_many_refs(nfields - 1));
    }
    match refs {
        Refs::Exactly(n) if nfields != n + 1 => {
            return Err(format!(
                "{nfields} field{} where --refs {n} expects {}: a TAB inside a sentence, or a \
                 missing reference?",
                if nfields == 1 { "" } else { "s" },
                n + 1
            ))
        }
        Refs::AsLine { line, count } if nfields > 1 && nfields != count + 1 => {
            return Err(format!(
                "{nfields} fields but line {line} has {}: a TAB inside a sentence? (--refs any \
                 accepts a varying number of references)",
                count + 1
            ))
        }
        _ if nfields < 2 => {
            let mut message =
                "no TAB: expected hypothesis<TAB>reference[<TAB>reference…]".to_owned();
            // JSON Lines whose first non-blank line is not an object (`[1]`, `null`) were taken
            // for TSV (`--input auto` decides by that line): say how to read them (input audit).
            let start = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
            if start.trim_ascii_start().starts_with(b"{") {
                message.push_str(" (a JSON record? --input jsonl reads JSON Lines)");
            }
            return Err(message);
        }
        _ => {}
    }
    let text = match ascii {
        // SAFETY: every byte is below 0x80: ASCII is valid UTF-8.
        true => Ok(unsafe { std::str::from_utf8_unchecked(line) }),
        false => simdutf8::basic::from_utf8(line),
    };
    if let (Ok(text), Some(tab)) = (text, first_tab) {
        let hyp = Cow::Borrowed(&text[..tab]);
        let rest = &text[tab + 1..];
        let refs = if nfields == 2 {
            smallvec![Cow::Borrowed(rest)]
        } else {
            rest.split('\t').map(Cow::Borrowed).collect()
        };
        return Ok(Segment {
            hyp,
            refs,
            id: None,
            exact: false,
        });
    }
    let mut fields = line.split(|&b| b == b'\t');
    let hyp =
        decode(fields.next().unwrap_or_default(), utf8).map_err(|e| format!("hypothesis: {e}"))?;
    let refs = fields
        .enumerate()
        .map(|(i, f)| decode(f, utf8).map_err(|e| format!("reference {}: {e}", i + 1)))
        .collect::<Result<SegmentRefs<'_>, String>>()?;
    Ok(Segment {
        hyp,
        refs,
        id: None,
        exact: false,
    })
}

/// What framing needs to know of a line before splitting it.
#[derive(Debug, PartialEq, Eq)]
struct Scan {
    first_tab: Option<usize>,
    /// TABs in the line.
    tabs: usize,
    /// Known to be all ASCII (false also when not checked).
    ascii: bool,
}

/// [`Scan`] of `line`: one AVX-512 pass where the processor has it, else `memchr` (the TABs
/// after the second are counted only when there is a second).
fn scan(line: &[u8]) -> Scan {
    #[cfg(target_arch = "x86_64")]
    if avx512::available() {
        // SAFETY: `available` detected every feature the function enables.
        return unsafe { avx512::scan(line) };
    }
    scan_memchr(line)
}

fn scan_memchr(line: &[u8]) -> Scan {
    let first_tab = memchr::memchr(b'\t', line);
    let tabs = match first_tab {
        None => 0,
        Some(tab) => match memchr::memchr(b'\t', &line[tab + 1..]) {
            None => 1,
            Some(next) => 2 + memchr::memchr_iter(b'\t', &line[tab + next + 2..]).count(),
        },
    };
    Scan {
        first_tab,
        tabs,
        ascii: false,
    }
}

/// [`scan`] 64 bytes a step: the TAB bytes and the bytes over 0x7F as masks, the last block a
/// masked load (no read past the line).
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_maskz_loadu_epi8, _mm512_movepi8_mask,
        _mm512_set1_epi8,
    };

    use super::Scan;

    /// Whether this processor has every feature [`scan`] enables (each detected on its own:
    /// see `tokenize::split`'s `available`).
    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("popcnt")
    }

    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    pub(super) fn scan(line: &[u8]) -> Scan {
        let tab = _mm512_set1_epi8(b'\t' as i8);
        let (mut first_tab, mut tabs, mut high) = (None, 0usize, 0u64);
        let mut offset = 0;
        let mut blocks = line.chunks_exact(64);
        for block in &mut blocks {
            // SAFETY: `block` is 64 readable bytes; `loadu` takes any alignment.
            let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
            let t = _mm512_cmpeq_epi8_mask(v, tab);
            if first_tab.is_none() && t != 0 {
                first_tab = Some(offset + t.trailing_zeros() as usize);
            }
            tabs += t.count_ones() as usize;
            high |= _mm512_movepi8_mask(v);
            offset += 64;
        }
        let rest = blocks.remainder();
        // SAFETY: the mask covers only `rest`'s bytes; masked-off bytes are not accessed (and
        // read as zero, neither a TAB nor over 0x7F).
        let v = unsafe { _mm512_maskz_loadu_epi8((1u64 << rest.len()) - 1, rest.as_ptr().cast()) };
        let t = _mm512_cmpeq_epi8_mask(v, tab);
        if first_tab.is_none() && t != 0 {
            first_tab = Some(offset + t.trailing_zeros() as usize);
        }
        tabs += t.count_ones() as usize;
        high |= _mm512_movepi8_mask(v);
        Scan {
            first_tab,
            tabs,
            ascii: high == 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`scan`] as dispatched finds `memchr`'s TABs, and its ASCII flag is exact where the
    /// AVX-512 pass ran (never wrong elsewhere).
    fn scans_agree_on(line: &[u8]) {
        let want = scan_memchr(line);
        let got = scan(line);
        assert_eq!(
            (got.first_tab, got.tabs),
            (want.first_tab, want.tabs),
            "{line:?}"
        );
        assert!(!got.ascii || line.is_ascii(), "{line:?}");
        #[cfg(target_arch = "x86_64")]
        if avx512::available() {
            assert_eq!(got.ascii, line.is_ascii(), "{line:?}");
        }
    }

    /// The AVX-512 pass (where the processor has it) and `memchr` find the same TABs, at every
    /// length around the block size and every position, and the ASCII flag is exact.
    #[test]
    fn scans_agree() {
        for len in (0usize..140).chain([200, 255, 256, 257, 1000]) {
            for fill in [b'a', 0xc3] {
                for at in [None, Some(0), Some(len / 2), Some(len.saturating_sub(1))] {
                    let mut line = vec![fill; len];
                    if let Some(at) = at.filter(|&at| at < len) {
                        line[at] = b'\t';
                        line[len / 3] = b'\t';
                    }
                    scans_agree_on(&line);
                }
            }
        }
    }

    /// Every length up to 300 (around the 64-byte block), each ending where an unmapped page
    /// begins: the masked last load must not touch a byte past the line (a read there faults),
    /// and both scans agree on content with TABs, ASCII and bytes over 0x7F mixed.
    #[test]
    fn scans_stop_at_the_end_of_the_line() {
        let mut guarded = crate::guard_page::GuardedTail::new(512);
        let alphabet = b"a\t\t \xc3\xa9\x80\x00\x7f";
        let mut rng = crate::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        for len in 0..=300 {
            for _ in 0..16 {
                let content: Vec<u8> = (0..len)
                    .map(|_| alphabet[rng.below(alphabet.len())])
                    .collect();
                scans_agree_on(guarded.bytes(&content));
            }
        }
    }

    #[test]
    fn fields_and_empty_references() {
        let seg = frame(b"h\tr1\t\tr3", Refs::Unknown, Utf8Policy::Error).unwrap();
        assert_eq!(seg.hyp, "h");
        assert_eq!(seg.refs[..], ["r1", "", "r3"]);
        let seg = frame(b"\t", Refs::Any, Utf8Policy::Error).unwrap();
        assert_eq!((seg.hyp.as_ref(), seg.refs.len()), ("", 1));
    }

    #[test]
    fn bad_field_counts() {
        assert!(
            frame(b"just a hypothesis", Refs::Unknown, Utf8Policy::Error)
                .unwrap_err()
                .starts_with("no TAB")
        );
        assert_eq!(
            frame(b"h\tr\tx", Refs::Exactly(1), Utf8Policy::Error).unwrap_err(),
            "3 fields where --refs 1 expects 2: a TAB inside a sentence, or a missing reference?"
        );
        assert!(frame(b"h\tr\tx", Refs::Exactly(2), Utf8Policy::Error).is_ok());
    }

    /// Regression (input audit): JSON Lines whose first line is not an object were read as TSV,
    /// and each record's "no TAB" pointed at -r (sacreBLEU's layout) only.
    #[test]
    fn a_json_record_without_a_tab_points_at_input_jsonl() {
        for line in [
            &b"{\"hyp\": \"a\", \"ref\": \"a\"}"[..],
            b"\xef\xbb\xbf {\"hyp\": 1}",
        ] {
            assert_eq!(
                frame(line, Refs::Unknown, Utf8Policy::Error).unwrap_err(),
                "no TAB: expected hypothesis<TAB>reference[<TAB>reference…] (a JSON record? \
                 --input jsonl reads JSON Lines)"
            );
        }
        assert!(!frame(b"just text", Refs::Unknown, Utf8Policy::Error)
            .unwrap_err()
            .contains("JSON"));
    }

    #[test]
    fn field_count_of_the_first_line_is_the_default() {
        let first = Refs::AsLine { line: 1, count: 1 };
        assert!(frame(b"h\tr", first, Utf8Policy::Error).is_ok());
        assert_eq!(
            frame(b"h\tr\tx", first, Utf8Policy::Error).unwrap_err(),
            "3 fields but line 1 has 2: a TAB inside a sentence? (--refs any accepts a varying \
             number of references)"
        );
        assert!(frame(b"h", first, Utf8Policy::Error)
            .unwrap_err()
            .starts_with("no TAB"));
        assert!(frame(b"h\tr\tx", Refs::Any, Utf8Policy::Error).is_ok());
    }

    #[test]
    fn valid_lines_borrow_every_field() {
        // The one-pass path for valid UTF-8 and the field-by-field one give the same segment.
        for line in [&b"h\tr"[..], b"h\t\t", b"\xc3\xa9\tr1\tr\xc3\xa92\t"] {
            let seg = frame(line, Refs::Any, Utf8Policy::Error).unwrap();
            let fields: Vec<&str> = std::str::from_utf8(line).unwrap().split('\t').collect();
            assert_eq!(seg.hyp, fields[0]);
            assert_eq!(seg.refs[..], fields[1..]);
            assert!(matches!(seg.hyp, Cow::Borrowed(_)));
            assert!(seg.refs.iter().all(|r| matches!(r, Cow::Borrowed(_))));
        }
        let seg = frame(b"h\tr\xff\tok", Refs::Any, Utf8Policy::Lossy).unwrap();
        assert_eq!(seg.refs[..], ["r\u{fffd}", "ok"]);
    }

    #[test]
    fn invalid_utf8_names_the_field() {
        let err = frame(b"ok\t\xc3", Refs::Unknown, Utf8Policy::Error).unwrap_err();
        assert!(
            err.starts_with("reference 1: invalid UTF-8 at byte 1"),
            "{err}"
        );
    }
}
