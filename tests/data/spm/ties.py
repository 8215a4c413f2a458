#!/usr/bin/env python3
"""Writes unigram_ties.model: unigram_plain.model (its normaliser and trainer settings: identity
normalisation, whitespace as suffix) with its pieces replaced by a few whose path scores tie as
floats, for tests/tokenizer_models.rs `spm_unigram_ties_break_as_sentencepiece_0_2_3`:

    python3 tests/data/spm/ties.py

`x` and `▁` score -2.537842273712158, `---` -9.826004981994629, sixteen dashes
-3.814746856689453 (the scores of an audit's model where `▁` + 19 dashes tied): then
(x + ---) + 16 dashes and (x + 16 dashes) + --- are the same float, though not the same double.
The model protobuf is edited by hand (field 1, `pieces`, replaced), so that only sentencepiece
itself is needed to check it; the test's expected pieces come from sentencepiece 0.2.3.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
NORMAL, UNKNOWN, CONTROL = 1, 2, 3
PIECES = [
    ("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL),
    ("\u2581", -2.537842273712158, NORMAL), ("x", -2.537842273712158, NORMAL),
    ("-", -5.9542951583862305, NORMAL), ("--", -8.647911071777344, NORMAL),
    ("---", -9.826004981994629, NORMAL), ("-" * 16, -3.814746856689453, NORMAL),
]


def varint(data, i):
    value, shift = 0, 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def encode_varint(value):
    out = b""
    while True:
        low, value = value & 0x7F, value >> 7
        if not value:
            return out + bytes([low])
        out += bytes([low | 0x80])


def piece(text, score, kind):
    raw = text.encode()
    body = b"\x0a" + encode_varint(len(raw)) + raw + b"\x15" + struct.pack("<f", score)
    body += b"\x18" + encode_varint(kind)
    return b"\x0a" + encode_varint(len(body)) + body


def main():
    data = open(os.path.join(HERE, "unigram_plain.model"), "rb").read()
    kept, i = b"", 0
    while i < len(data):
        start = i
        key, i = varint(data, i)
        wire = key & 7
        if wire == 2:
            length, i = varint(data, i)
            i += length
        elif wire == 0:
            _, i = varint(data, i)
        elif wire == 5:
            i += 4
        elif wire == 1:
            i += 8
        if key >> 3 != 1:
            kept += data[start:i]
    model = b"".join(piece(*p) for p in PIECES) + kept
    with open(os.path.join(HERE, "unigram_ties.model"), "wb") as f:
        f.write(model)


if __name__ == "__main__":
    main()
