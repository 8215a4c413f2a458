//! The few fields of SentencePiece's `ModelProto` (`sentencepiece_model.proto`) that encoding
//! needs, read by a small protobuf decoder: the pieces (text, score, type), the trainer spec's
//! model type and flags, and the normaliser spec. Unknown fields are skipped, as protobuf
//! requires; any malformed length or wire type is an error, never a panic.

/// `ModelProto.SentencePiece.Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceType {
    Normal,
    Unknown,
    Control,
    UserDefined,
    Unused,
    Byte,
}

/// One `ModelProto.SentencePiece`.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    pub text: String,
    pub score: f32,
    pub kind: PieceType,
}

/// `TrainerSpec.ModelType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelType {
    Unigram,
    Bpe,
    Word,
    Char,
}

/// The parts of a `ModelProto` that encoding reads, with the proto defaults.
#[derive(Clone, Debug)]
pub struct ModelProto {
    pub pieces: Vec<Piece>,
    pub model_type: ModelType,
    pub treat_whitespace_as_suffix: bool,
    pub byte_fallback: bool,
    pub precompiled_charsmap: Vec<u8>,
    pub add_dummy_prefix: bool,
    pub remove_extra_whitespaces: bool,
    pub escape_whitespaces: bool,
}

/// A protobuf wire reader over a byte slice.
struct Reader<'a> {
    buf: &'a [u8],
}

/// A field's value as it is on the wire.
enum Value<'a> {
    Varint(u64),
    Fixed32(u32),
    Fixed64,
    Bytes(&'a [u8]),
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for i in 0..10 {
            let (&b, rest) = self.buf.split_first().ok_or("truncated varint")?;
            self.buf = rest;
            v |= u64::from(b & 0x7F) << (7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err("varint longer than 10 bytes".into())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.buf.len() {
            return Err("field runs past the end of its message".into());
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    /// The next field (number, value), or `None` at the end.
    fn field(&mut self) -> Result<Option<(u64, Value<'a>)>, String> {
        if self.buf.is_empty() {
            return Ok(None);
        }
        let key = self.varint()?;
        // Field numbers start at 1: protobuf's parser refuses 0 (the audit appended `\0\0`).
        if key >> 3 == 0 {
            return Err("field number 0".into());
        }
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let n = usize::try_from(self.varint()?).map_err(|_| "length overflow")?;
                Value::Bytes(self.take(n)?)
            }
            5 => Value::Fixed32(u32::from_le_bytes(self.take(4)?.try_into().expect("4"))),
            w => return Err(format!("unsupported wire type {w}")),
        };
        Ok(Some((key >> 3, value)))
    }
}

fn string(v: &[u8], what: &str) -> Result<String, String> {
    String::from_utf8(v.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
}

fn piece(bytes: &[u8]) -> Result<Piece, String> {
    let mut r = Reader { buf: bytes };
    let mut p = Piece {
        text: String::new(),
        score: 0.0,
        kind: PieceType::Normal,
    };
    while let Some((n, v)) = r.field()? {
        match (n, v) {
            (1, Value::Bytes(b)) => p.text = string(b, "a piece")?,
            (2, Value::Fixed32(x)) => p.score = f32::from_bits(x),
            (3, Value::Varint(t)) => {
                p.kind = match t {
                    1 => PieceType::Normal,
                    2 => PieceType::Unknown,
                    3 => PieceType::Control,
                    4 => PieceType::UserDefined,
                    5 => PieceType::Unused,
                    6 => PieceType::Byte,
                    _ => return Err(format!("unknown piece type {t}")),
                }
            }
            (1..=3, _) => return Err("a piece field has the wrong wire type".into()),
            _ => {}
        }
    }
    Ok(p)
}

/// Parses a serialised `ModelProto`.
pub fn parse(bytes: &[u8]) -> Result<ModelProto, String> {
    let mut m = ModelProto {
        pieces: Vec::new(),
        model_type: ModelType::Unigram,
        treat_whitespace_as_suffix: false,
        byte_fallback: false,
        precompiled_charsmap: Vec::new(),
        add_dummy_prefix: true,
        remove_extra_whitespaces: true,
        escape_whitespaces: true,
    };
    let mut r = Reader { buf: bytes };
    while let Some((n, v)) = r.field()? {
        match (n, v) {
            (1, Value::Bytes(b)) => m.pieces.push(piece(b)?),
            (2, Value::Bytes(b)) => {
                let mut t = Reader { buf: b };
                while let Some((n, v)) = t.field()? {
                    match (n, v) {
                        (3, Value::Varint(x)) => {
                            m.model_type = match x {
                                1 => ModelType::Unigram,
                                2 => ModelType::Bpe,
                                3 => ModelType::Word,
                                4 => ModelType::Char,
                                _ => return Err(format!("unknown model type {x}")),
                            }
                        }
                        (24, Value::Varint(x)) => m.treat_whitespace_as_suffix = x != 0,
                        (35, Value::Varint(x)) => m.byte_fallback = x != 0,
                        _ => {}
                    }
                }
            }
            (3, Value::Bytes(b)) => {
                let mut t = Reader { buf: b };
                while let Some((n, v)) = t.field()? {
                    match (n, v) {
                        (2, Value::Bytes(x)) => m.precompiled_charsmap = x.to_vec(),
                        (3, Value::Varint(x)) => m.add_dummy_prefix = x != 0,
                        (4, Value::Varint(x)) => m.remove_extra_whitespaces = x != 0,
                        (5, Value::Varint(x)) => m.escape_whitespaces = x != 0,
                        _ => {}
                    }
                }
            }
            (1..=3, _) => return Err("a model field has the wrong wire type".into()),
            _ => {}
        }
    }
    Ok(m)
}
