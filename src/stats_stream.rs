//! Reading a stream of stats documents (`merge FILE`, SPEC §7): one document at a time, each
//! parsed strictly and bounded in size, so that memory does not grow with the number of
//! documents in a file and a hostile file cannot make `merge` trust what it did not check.
//!
//! * **One at a time.** The input is read in blocks; a document is parsed as soon as its text
//!   is complete and its bytes are dropped. At most one document's text and one block are held.
//! * **Bounded.** A document longer than the limit (`merge --max-document-bytes`, 256 MiB by
//!   default, 1 GiB at most) is an error, found before more than the limit and a block is held:
//!   its end is found by a syntax check that builds nothing, and only a whole document within
//!   the limit is parsed (its `Value` takes up to 40 times its text: 32 bytes per number).
//! * **Strict.** `serde_json::Value` keeps the *last* of duplicate object keys in silence (so
//!   `{"segments":1,"segments":9}` would pass for one shard with 9 segments): [`Strict`]
//!   refuses a duplicate key anywhere in a document, with its position.

use std::fmt;
use std::io::{self, Read};

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The most `--max-document-bytes` may allow: the parsed form of a document takes up to 40
/// times its text (the default is a quarter of this).
pub const MAX_DOCUMENT_BYTES: usize = 1 << 30;

/// Bytes read at a time.
const BLOCK: usize = 1 << 20;

/// A JSON value parsed with every object's keys distinct (see the module docs).
pub struct Strict(pub Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity; `Value::from` would make one `null`.
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Strict::deserialize(d).map(|s| s.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate key {}",
                    Value::from(key.as_str())
                )));
            }
            let Strict(value) = map.next_value()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

/// Why a stream of documents could not be read.
#[derive(Debug)]
pub enum StreamError {
    /// Reading failed (exit status 1).
    Io(io::Error),
    /// The text is not a document (exit status 2): the message names the document and line.
    Invalid(String),
}

/// A document of a stream: its number (from 1), the line it starts on (from 1), its value.
pub struct Document {
    pub number: usize,
    pub line: u64,
    pub value: Value,
}

/// The documents of a stream, one at a time (see the module docs).
pub struct Documents<R> {
    input: R,
    buf: Vec<u8>,
    /// Bytes of `buf` already parsed.
    pos: usize,
    /// Line of `buf[pos]` (from 1).
    line: u64,
    eof: bool,
    /// Documents returned so far.
    number: usize,
    max: usize,
    /// A document cut by the end of the buffer is parsed again only once the buffer has grown
    /// to this length, so that a huge document costs linear time.
    retry_at: usize,
    failed: bool,
}

impl<R: Read> Documents<R> {
    /// The documents of `input`, each at most `max` bytes long.
    pub fn new(input: R, max: usize) -> Documents<R> {
        Documents {
            input,
            buf: Vec::new(),
            pos: 0,
            line: 1,
            eof: false,
            number: 0,
            max,
            retry_at: 0,
            failed: false,
        }
    }

    /// Documents returned so far.
    pub fn read_so_far(&self) -> usize {
        self.number
    }

    /// Drops the parsed bytes and reads a block (or up to the end of input).
    fn fill(&mut self) -> io::Result<()> {
        self.buf.drain(..self.pos);
        self.pos = 0;
        let mut len = self.buf.len();
        self.buf.resize(len + BLOCK, 0);
        while len < self.buf.len() {
            match self.input.read(&mut self.buf[len..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.truncate(len);
                    return Err(e);
                }
            }
        }
        self.buf.truncate(len);
        Ok(())
    }

    /// Skips white space (counting lines); `false` when nothing but white space is left.
    fn skip_space(&mut self) -> io::Result<bool> {
        loop {
            while let Some(&b) = self.buf.get(self.pos) {
                if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    return Ok(true);
                }
                self.line += u64::from(b == b'\n');
                self.pos += 1;
            }
            if self.eof {
                return Ok(false);
            }
            self.fill()?;
        }
    }

    fn next_document(&mut self) -> Result<Option<Document>, StreamError> {
        if !self.skip_space().map_err(StreamError::Io)? {
            return Ok(None);
        }
        let number = self.number + 1;
        let too_long = |line: u64, max: usize| {
            StreamError::Invalid(format!(
                "document {number}: longer than {max} bytes, the longest document accepted \
                 (--max-document-bytes) {}",
                begins(line)
            ))
        };
        loop {
            let text = &self.buf[self.pos..];
            let ready = self.eof || text.len() >= self.retry_at;
            if ready {
                // Where the document ends, found by a syntax check that builds nothing: only a
                // whole document within the limit is parsed into a `Value` (several times its
                // text). Parsing what had been read of an unfinished one took 20 GiB for the
                // first 1 GiB of a huge array, before the limit could be checked.
                let mut scan = serde_json::Deserializer::from_slice(text).into_iter::<IgnoredAny>();
                match scan.next() {
                    Some(Ok(_)) if self.eof || scan.byte_offset() < text.len() => {
                        let end = scan.byte_offset();
                        if end > self.max {
                            return Err(too_long(self.line, self.max));
                        }
                        let value = serde_json::from_slice::<Strict>(&text[..end])
                            .map_err(|e| {
                                StreamError::Invalid(format!(
                                    "document {number}: invalid JSON: {e} {}",
                                    begins(self.line),
                                ))
                            })?
                            .0;
                        let document = Document {
                            number,
                            line: self.line,
                            value,
                        };
                        self.line += text[..end].iter().filter(|&&b| b == b'\n').count() as u64;
                        self.pos += end;
                        self.number = number;
                        self.retry_at = 0;
                        return Ok(Some(document));
                    }
                    // Ends exactly at the end of what has been read: a number could go on.
                    Some(Ok(_)) => {}
                    Some(Err(e)) if e.is_eof() && !self.eof => {}
                    Some(Err(e)) => {
                        return Err(StreamError::Invalid(format!(
                            "document {number}: invalid JSON: {e} {}",
                            begins(self.line),
                        )))
                    }
                    None => return Ok(None),
                }
                // Everything read belongs to this unfinished document.
                if text.len() > self.max {
                    return Err(too_long(self.line, self.max));
                }
                self.retry_at = (2 * text.len()).min(self.max + 1);
            }
            self.fill().map_err(StreamError::Io)?;
        }
    }
}

/// `(the document begins on line L)`: where a document of a stream is (serde's own positions
/// count from the document's start).
pub fn begins(line: u64) -> String {
    format!("(the document begins on line {line})")
}

impl<R: Read> Iterator for Documents<R> {
    type Item = Result<Document, StreamError>;

    /// The next document; after an error, nothing more.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.next_document();
        self.failed = next.is_err();
        next.transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &[u8], max: usize) -> Result<Vec<(usize, u64, Value)>, String> {
        Documents::new(text, max)
            .map(|d| match d {
                Ok(d) => Ok((d.number, d.line, d.value)),
                Err(StreamError::Invalid(m)) => Err(m),
                Err(StreamError::Io(e)) => Err(e.to_string()),
            })
            .collect()
    }

    #[test]
    fn documents_are_numbered_with_their_lines() {
        let docs = read(b"\n{\"a\":1}\n{\"b\":[2,3]}{\"c\":{}}\n\n 7 \n", 100).unwrap();
        let got: Vec<(usize, u64)> = docs.iter().map(|d| (d.0, d.1)).collect();
        assert_eq!(got, [(1, 2), (2, 3), (3, 3), (4, 5)]);
        assert_eq!(docs[3].2, Value::from(7));
        assert!(read(b"  \n ", 100).unwrap().is_empty());
    }

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        for text in [
            &b"{\"a\":1,\"a\":1}"[..],
            b"{\"x\":[{\"k\":{\"a\":1,\"b\":2,\"a\":3}}]}",
            b"{\"a\":1}\n{\"s\":1,\"\\u0073\":2}",
        ] {
            let err = read(text, 100).unwrap_err();
            assert!(err.contains("duplicate key"), "{err}");
        }
        let err = read(b"{\"a\":1}\n{\"s\":1,\"s\":2}", 100).unwrap_err();
        assert!(err.starts_with("document 2: invalid JSON"), "{err}");
        assert!(err.ends_with("(the document begins on line 2)"), "{err}");
    }

    #[test]
    fn a_document_over_the_limit_is_refused() {
        assert!(read(b"{\"a\":\"0123456789\"}", 18).is_ok());
        let err = read(b"{\"a\":\"0123456789\"}", 17).unwrap_err();
        assert!(err.contains("longer than 17 bytes"), "{err}");
        // Not only at the end of input: a document still being read.
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(3 * BLOCK));
        let err = read(long.as_bytes(), BLOCK).unwrap_err();
        assert!(err.contains("longer than"), "{err}");
    }

    #[test]
    fn documents_across_blocks_and_cut_numbers_parse_whole() {
        let mut text = Vec::new();
        let mut want = Vec::new();
        for i in 0..200_000u64 {
            text.extend_from_slice(format!("{}\n", i * 1_000_003).as_bytes());
            want.push(Value::from(i * 1_000_003));
        }
        let got: Vec<Value> = read(&text, 100).unwrap().into_iter().map(|d| d.2).collect();
        assert_eq!(got, want);
        let err = read(b"{\"a\":1}\n{\"b\":", 100).unwrap_err();
        assert!(err.starts_with("document 2: invalid JSON"), "{err}");
    }
}
