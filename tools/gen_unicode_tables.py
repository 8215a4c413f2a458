#!/usr/bin/env python3
"""Generate ``src/unicode/tables.rs`` (the character tables behind ``crate::unicode``).

Usage (from the repository root)::

    python3 tools/gen_unicode_tables.py \
        [--json ../shared/vectors/sacrebleu/tokenizers/unicode_tables.json] \
        [--out src/unicode/tables.rs] [--compare-rust]

Requirements: **CPython 3.11** (``unicodedata.unidata_version == "14.0.0"``), because the
lowercase and Final_Sigma tables are dumped from the running interpreter's ``str.lower()`` --
that is the interpreter sacreBLEU 2.6.0 ran on when the reference vectors were produced.
``rustfmt`` is used (if on PATH) to format the output so that ``cargo fmt --check`` stays clean.

Sources of each table:

* ``PY_WHITESPACE``      -- ``python_whitespace`` from the JSON, cross-checked against
                            ``str.isspace()`` of the running CPython.
* ``ZH_CHINESE``         -- ``zh_is_chinese_char_effective`` from the JSON (sacreBLEU's zh
                            tokenizer as it *actually* behaves, see mjpost/sacrebleu#298).
* ``REGEX_P/S/N``        -- ``regex_P``/``regex_S``/``regex_N`` from the JSON (``regex``
                            2026.11.15, Unicode 17.0; the locally installed ``regex`` may be a
                            different version, so it is deliberately *not* consulted).
* ``NEW_SINCE_14_P/S/N``  -- the code points of ``REGEX_P/S/N`` that the running CPython's
                            UCD 14.0 leaves unassigned (``Cn``): Perl 5.36 (mteval-v13a.pl's
                            interpreter, also UCD 14.0) has them outside ``\p{P}``, ``\p{S}``,
                            ``\p{N}``. Generation stops if UCD 14.0 puts any other code point in
                            a class differently from ``regex``.
* ``PY_LOWER``           -- ``chr(c).lower()`` for every scalar value (one-to-one mappings).
* ``PY_LOWER_MULTI``     -- the one-to-many lowercase mappings (only U+0130 in UCD 14.0).
* ``PY_CASE_IGNORABLE``,
  ``PY_CASED``           -- the two properties CPython's Final_Sigma rule consults, recovered
                            by observing ``str.lower()`` on probe strings (see
                            ``sigma_classes``), so they are exactly what CPython uses.

``--compare-rust`` additionally compiles a tiny program with ``rustc`` and reports where the
toolchain's ``char::to_lowercase`` / ``str::to_lowercase`` disagree with CPython. That report is
informational only: the generated tables do not depend on the Rust toolchain.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO.parent / "shared" / "vectors" / "sacrebleu" / "tokenizers" / "unicode_tables.json"
DEFAULT_OUT = REPO / "src" / "unicode" / "tables.rs"

EXPECTED_PY = (3, 11)
EXPECTED_UCD = "14.0.0"

FLAG_P, FLAG_S, FLAG_N = 1, 2, 4


def scalar_values():
    """All Unicode scalar values (Rust `char`s): code points minus surrogates."""
    yield from range(0xD800)
    yield from range(0xE000, 0x110000)


def parse_ranges(rows) -> list[tuple[int, int]]:
    out = [(int(lo, 16), int(hi, 16)) for lo, hi in rows]
    for lo, hi in out:
        assert lo <= hi, (lo, hi)
    out.sort()
    return out


def merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sort, check disjointness and merge adjacent ranges."""
    merged: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1]:
            raise SystemExit(f"overlapping ranges at U+{lo:04X}")
        if merged and lo == merged[-1][1] + 1:
            merged[-1][1] = hi
        else:
            merged.append([lo, hi])
    return [(lo, hi) for lo, hi in merged]


def to_ranges(cps) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for cp in sorted(cps):
        if ranges and cp == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return ranges


def range_set(ranges) -> set[int]:
    s: set[int] = set()
    for lo, hi in ranges:
        s.update(range(lo, hi + 1))
    return s


def sigma_classes() -> tuple[set[int], set[int]]:
    """Recover CPython's Case_Ignorable and Cased sets as seen by its Final_Sigma rule.

    CPython (Objects/unicodeobject.c, handle_capital_sigma) lowercases U+03A3 to final
    U+03C2 iff the nearest non-Case_Ignorable code point before it is Cased and the nearest
    non-Case_Ignorable code point after it (if any) is not Cased. So for a probe c:

    * ``(c + "Σ").lower()`` ends in "ς"  <=>  c is Cased and not Case_Ignorable;
    * ``("A" + c + "Σ").lower()`` ends in "ς"  <=>  c is Case_Ignorable or Cased.

    Code points that are both Cased and Case_Ignorable (e.g. U+0345, U+02B0) are always
    skipped first, so their Cased bit is unobservable; ``PY_CASED`` therefore holds "Cased and
    not Case_Ignorable", which is all the rule needs.
    """
    ignorable: set[int] = set()
    cased: set[int] = set()
    for cp in scalar_values():
        c = chr(cp)
        alone = (c + "\u03a3").lower().endswith("\u03c2")
        after_a = ("A" + c + "\u03a3").lower().endswith("\u03c2")
        if alone:
            cased.add(cp)
        elif after_a:
            ignorable.add(cp)
    return ignorable, cased


def lower_tables() -> tuple[list[tuple[int, int]], list[tuple[int, str]]]:
    single: list[tuple[int, int]] = []
    multi: list[tuple[int, str]] = []
    for cp in scalar_values():
        low = chr(cp).lower()
        if low == chr(cp):
            continue
        if len(low) == 1:
            single.append((cp, ord(low)))
        else:
            multi.append((cp, low))
    return single, multi


# ---------------------------------------------------------------------------------------------
# Rust emission


def rs_ranges(name: str, doc: str, ranges) -> str:
    lines = [f"/// {d}" for d in doc.strip().splitlines()]
    lines.append(f"pub(super) static {name}: &[(u32, u32)] = &[")
    lines += [f"    (0x{lo:04X}, 0x{hi:04X})," for lo, hi in ranges]
    lines.append("];")
    return "\n".join(lines)


def rs_char(cp: int) -> str:
    return f"'\\u{{{cp:X}}}'"


def rs_str(s: str) -> str:
    return '"' + "".join(f"\\u{{{ord(ch):X}}}" for ch in s) + '"'


def rs_byte_table(name: str, doc: str, values) -> str:
    assert len(values) == 256
    lines = [f"/// {d}" for d in doc.strip().splitlines()]
    lines.append(f"pub(super) static {name}: [u8; 256] = [")
    for row in range(0, 256, 16):
        lines.append("    " + " ".join(f"{v}," for v in values[row : row + 16]))
    lines.append("];")
    return "\n".join(lines)


def generate(json_path: Path) -> str:
    raw = json_path.read_bytes()
    data = json.loads(raw)
    sha = hashlib.sha256(raw).hexdigest()

    ws = merge(parse_ranges(data["python_whitespace"]))
    zh = merge(parse_ranges(data["zh_is_chinese_char_effective"]))
    cat_p = merge(parse_ranges(data["regex_P"]))
    cat_s = merge(parse_ranges(data["regex_S"]))
    cat_n = merge(parse_ranges(data["regex_N"]))

    # Cross-checks against the running CPython and internal consistency.
    ws_set = range_set(ws)
    py_ws = {cp for cp in scalar_values() if chr(cp).isspace()}
    if ws_set != py_ws:
        raise SystemExit(f"python_whitespace differs from str.isspace(): {sorted(ws_set ^ py_ws)}")
    if len(ws_set) != 29:
        raise SystemExit(f"expected 29 whitespace code points, got {len(ws_set)}")
    sp, ss, sn = range_set(cat_p), range_set(cat_s), range_set(cat_n)
    if sp & ss or sp & sn or ss & sn:
        raise SystemExit("P/S/N tables overlap")

    # ASCII whitespace bitmask and the UTF-8 byte classifier used by the fast splitter.
    ascii_mask = sum(1 << cp for cp in ws_set if cp < 0x80)
    ws_byte = [0] * 256
    for cp in ws_set:
        enc = chr(cp).encode("utf-8")
        ws_byte[enc[0]] = 1 if cp < 0x80 else 2
    latin1 = [0] * 256
    for cp in range(256):
        latin1[cp] = (FLAG_P if cp in sp else 0) | (FLAG_S if cp in ss else 0) | (FLAG_N if cp in sn else 0)

    # Perl 5.36 (UCD 14.0) classes = the regex (17.0) classes minus what 14.0 had not assigned.
    new_since_14 = {}
    for name, cat, regex_set in (("P", "P", sp), ("S", "S", ss), ("N", "N", sn)):
        ucd14 = {cp for cp in scalar_values() if unicodedata.category(chr(cp))[0] == cat}
        if not ucd14 <= regex_set:
            raise SystemExit(f"UCD 14.0 has {name} code points regex does not: {sorted(ucd14 - regex_set)[:10]}")
        newer = regex_set - ucd14
        if any(unicodedata.category(chr(cp)) != "Cn" or cp < 0x100 for cp in newer):
            raise SystemExit(f"regex {name} re-categorises a code point UCD 14.0 assigns")
        new_since_14[name] = to_ranges(newer)

    single, multi = lower_tables()
    ignorable, cased = sigma_classes()
    assert 0x03A3 in cased and 0x03A3 not in ignorable

    parts = [
        "// @generated by tools/gen_unicode_tables.py -- DO NOT EDIT BY HAND.",
        "//",
        "// Re-generate from the repository root with CPython 3.11 (unicodedata 14.0.0):",
        "//     python3 tools/gen_unicode_tables.py \\",
        "//         --json ../shared/vectors/sacrebleu/tokenizers/unicode_tables.json",
        "// (add --compare-rust to see where the Rust toolchain's lowercasing differs).",
        "//",
        f"// Input unicode_tables.json sha256: {sha}",
        f"// CPython: {sys.version.split()[0]}, unicodedata {unicodedata.unidata_version}",
        "",
        rs_ranges(
            "PY_WHITESPACE",
            "CPython 3.11 `str.isspace()` code points (the set used by `str.split()`/`strip()`).",
            ws,
        ),
        "",
        "/// Bit `c` is set iff ASCII `c` is in [`PY_WHITESPACE`].",
        f"pub(super) const PY_WHITESPACE_ASCII_MASK: u128 = 0x{ascii_mask:X};",
        "",
        rs_byte_table(
            "PY_WHITESPACE_FIRST_BYTE",
            "Classifies a UTF-8 byte: 1 = it is an ASCII whitespace character, 2 = it is the lead\n"
            "byte of some multi-byte whitespace character (decode to decide), 0 = it never starts\n"
            "a whitespace character (this includes all continuation bytes).",
            ws_byte,
        ),
        "",
        rs_ranges(
            "ZH_CHINESE",
            "sacreBLEU 2.6.0 `TokenizerZh._is_chinese_char` as it effectively behaves (see mjpost/sacrebleu#298).",
            zh,
        ),
        "",
        rs_ranges("REGEX_P", "`regex` 2026.11.15 `\\p{P}` (Unicode 17.0).", cat_p),
        "",
        rs_ranges("REGEX_S", "`regex` 2026.11.15 `\\p{S}` (Unicode 17.0).", cat_s),
        "",
        rs_ranges("REGEX_N", "`regex` 2026.11.15 `\\p{N}` (Unicode 17.0).", cat_n),
        "",
        *[
            part
            for name, cls in (("P", "punctuation"), ("S", "symbol"), ("N", "number"))
            for part in (
                rs_ranges(
                    f"NEW_SINCE_14_{name}",
                    f"The code points of [`REGEX_{name}`] that UCD 14.0 (CPython 3.11, Perl 5.36) has not\n"
                    f"assigned: outside Perl 5.36's `\\p{{{name}}}` ({cls}). All above U+00FF.",
                    new_since_14[name],
                ),
                "",
            )
        ],
        f"/// Flag bits of [`LATIN1_PSN`].\npub(super) const FLAG_P: u8 = {FLAG_P};",
        f"/// Flag bits of [`LATIN1_PSN`].\npub(super) const FLAG_S: u8 = {FLAG_S};",
        f"/// Flag bits of [`LATIN1_PSN`].\npub(super) const FLAG_N: u8 = {FLAG_N};",
        "",
        rs_byte_table(
            "LATIN1_PSN",
            "P/S/N membership (`FLAG_*` bits) for U+0000..=U+00FF, a fast path for the range tables.",
            latin1,
        ),
        "",
        "/// CPython 3.11 `chr(c).lower()` for every `c` whose lowercase is a single different",
        "/// code point (U+03A3 maps to non-final sigma here; the caller applies Final_Sigma).",
        "pub(super) static PY_LOWER: &[(char, char)] = &[",
        *[f"    ({rs_char(a)}, {rs_char(b)})," for a, b in single],
        "];",
        "",
        "/// CPython 3.11 one-to-many lowercase mappings (SpecialCasing.txt, unconditional).",
        "pub(super) static PY_LOWER_MULTI: &[(char, &str)] = &[",
        *[f"    ({rs_char(a)}, {rs_str(b)})," for a, b in multi],
        "];",
        "",
        rs_ranges(
            "PY_CASE_IGNORABLE",
            "Case_Ignorable as used by CPython 3.11's Final_Sigma rule (recovered from `str.lower()`).",
            to_ranges(ignorable),
        ),
        "",
        rs_ranges(
            "PY_CASED",
            "Cased and not Case_Ignorable, as used by CPython 3.11's Final_Sigma rule.",
            to_ranges(cased),
        ),
        "",
    ]
    stats = (
        f"whitespace {len(ws)} ranges, zh {len(zh)}, P {len(cat_p)}, S {len(cat_s)}, N {len(cat_n)}, "
        f"lower {len(single)}+{len(multi)}, case-ignorable {len(to_ranges(ignorable))} ranges, "
        f"cased {len(to_ranges(cased))} ranges"
    )
    print(stats, file=sys.stderr)
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Informational comparison with the Rust toolchain's lowercasing

RUST_DUMP = r"""
use std::io::Write;
fn main() {
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    for cp in 0u32..=0x10FFFF {
        if let Some(c) = char::from_u32(cp) {
            let low: String = c.to_lowercase().collect();
            let alone = format!("{c}\u{3A3}").to_lowercase().ends_with('\u{3C2}');
            let after_a = format!("A{c}\u{3A3}").to_lowercase().ends_with('\u{3C2}');
            let class = if alone { 'C' } else if after_a { 'I' } else { 'O' };
            let hex: Vec<String> = low.chars().map(|x| format!("{:X}", x as u32)).collect();
            writeln!(w, "{cp:X}\t{}\t{class}", hex.join(" ")).unwrap();
        }
    }
    eprintln!("rust char::UNICODE_VERSION = {:?}", char::UNICODE_VERSION);
}
"""


def compare_rust() -> None:
    rustc = shutil.which("rustc")
    if rustc is None:
        print("--compare-rust: rustc not found", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "dump.rs"
        exe = Path(tmp) / "dump"
        src.write_text(RUST_DUMP)
        subprocess.run([rustc, "-O", "--edition", "2021", "-o", str(exe), str(src)], check=True)
        dump = subprocess.run([str(exe)], check=True, capture_output=True, text=True)
        sys.stderr.write(dump.stderr)
    ignorable, cased = sigma_classes()
    lower_diff, sigma_diff = [], []
    for line in dump.stdout.splitlines():
        cp_hex, low_hex, rust_class = line.split("\t")
        cp = int(cp_hex, 16)
        rust_low = "".join(chr(int(h, 16)) for h in low_hex.split())
        if rust_low != chr(cp).lower():
            lower_diff.append(cp)
        py_class = "C" if cp in cased else ("I" if cp in ignorable else "O")
        if py_class != rust_class:
            sigma_diff.append(cp)
    fmt = lambda cps: " ".join(f"U+{cp:04X}" for cp in cps)  # noqa: E731
    print(f"char::to_lowercase differs from CPython at {len(lower_diff)} code points: {fmt(lower_diff)}")
    print(f"Final_Sigma context class differs at {len(sigma_diff)} code points: {fmt(sigma_diff)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--compare-rust", action="store_true")
    args = ap.parse_args()

    if sys.version_info[:2] != EXPECTED_PY or unicodedata.unidata_version != EXPECTED_UCD:
        raise SystemExit(
            f"need CPython {EXPECTED_PY[0]}.{EXPECTED_PY[1]} with UCD {EXPECTED_UCD}; this is "
            f"{sys.version.split()[0]} with UCD {unicodedata.unidata_version}"
        )

    text = generate(args.json)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    rustfmt = shutil.which("rustfmt")
    if rustfmt:
        subprocess.run([rustfmt, "--edition", "2021", str(args.out)], check=True)
    else:
        print("warning: rustfmt not found; output left unformatted", file=sys.stderr)
    print(f"wrote {args.out}", file=sys.stderr)
    if args.compare_rust:
        compare_rust()


if __name__ == "__main__":
    main()
