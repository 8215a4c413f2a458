//! Fuzz target: the line reader and batcher (`bleu_stream::input::reader`) on input arriving in
//! arbitrary pieces, with a small `--max-line-bytes` so that over-long lines (skipped without
//! being buffered) happen often.
//!
//! Input: three header bytes (line limit, two chunk sizes; the first chunk size also sets the
//! batches' record limit), then the stream. Checks against a simple model — split on `\n`, no
//! empty piece after a final `\n`, one trailing `\r` removed, a line longer than the limit
//! reported with its length — both `LineReader::next_line` and the batches of `reader::run`
//! (records in order, nothing lost or invented, consecutive sequence numbers and first line
//! numbers, no batch over the record limit, bad records empty and flagged).

#![no_main]

use std::io::{self, Read};
use std::sync::Arc;

use bleu_stream::input::reader::{run, Line, LineReader, Plan};
use bleu_stream::input::{InputFormat, Refs};
use libfuzzer_sys::fuzz_target;

/// A stream returning at most `sizes[i % len]` bytes per read, like a pipe fed in pieces.
struct Pieces {
    data: Vec<u8>,
    pos: usize,
    sizes: [usize; 2],
    reads: usize,
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = self.sizes[self.reads % 2];
        self.reads += 1;
        let n = want.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Want {
    Text(Vec<u8>),
    TooLong(u64),
}

fn model(data: &[u8], max_line: usize) -> Vec<Want> {
    if data.is_empty() {
        return Vec::new();
    }
    let body = data.strip_suffix(b"\n").unwrap_or(data);
    body.split(|&b| b == b'\n')
        .map(|raw| {
            // `--max-line-bytes` counts the line without its `\r\n` (issue 19, point 9).
            let text = raw.strip_suffix(b"\r").unwrap_or(raw);
            if text.len() > max_line {
                Want::TooLong(text.len() as u64)
            } else {
                Want::Text(text.to_vec())
            }
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let [limit, a, b, rest @ ..] = data else {
        return;
    };
    let max_line = usize::from(*limit % 64) + 1;
    let sizes = [usize::from(*a) + 1, usize::from(*b) * 3 + 1];
    let stream = || {
        Box::new(Pieces {
            data: rest.to_vec(),
            pos: 0,
            sizes,
            reads: 0,
        })
    };
    let want = model(rest, max_line);

    // Line by line.
    let mut reader = LineReader::new(stream(), "fuzz".to_owned()).max_line(max_line);
    let mut got = Vec::new();
    while let Some(line) = reader.next_line().expect("reading memory cannot fail") {
        got.push(match line {
            Line::Text(t) => Want::Text(t.to_vec()),
            Line::TooLong(n) => Want::TooLong(n),
        });
        assert!(got.len() <= want.len(), "more lines than the input has");
    }
    assert_eq!(got, want, "lines differ from the model");
    assert_eq!(reader.offset(), rest.len() as u64);

    // Batched, as the reader thread sends them (TSV framing, so no line is dropped).
    let (tx, rx) = crossbeam_channel::unbounded();
    let plan = Plan::Lines {
        sources: vec![LineReader::new(stream(), "fuzz".to_owned()).max_line(max_line)],
        format: InputFormat::Tsv,
        refs: Refs::Any,
        key_column: false,
    };
    // A record limit from the header too (1 to 8, as a work with large statistics asks for
    // small batches), so that batches are cut by count as well as at line limits.
    let max_records = usize::from(*a % 8) + 1;
    run(
        plan,
        max_records,
        tx,
        crossbeam_channel::never(),
        Arc::default(),
    );
    let mut next_line = 1u64;
    let mut records = Vec::new();
    for (seq, batch) in rx.into_iter().enumerate() {
        let mut fields = Vec::new();
        assert_eq!(batch.seq, seq as u64, "batch sequence numbers");
        assert_eq!(batch.first_line, next_line, "first line of batch {seq}");
        assert!(batch.fatal.is_none(), "{:?}", batch.fatal);
        assert!(batch.framing.is_some());
        for i in 0..batch.len() {
            batch.fields(i, &mut fields);
            let bad = batch.bad.iter().any(|(r, _)| *r == i);
            records.push((fields.concat(), bad));
        }
        assert!(
            batch.len() <= max_records,
            "batch {seq} over the record limit"
        );
        next_line += batch.len() as u64;
    }
    assert_eq!(records.len(), want.len(), "records vs lines");
    for (i, ((bytes, bad), w)) in records.iter().zip(&want).enumerate() {
        match w {
            Want::Text(t) => assert!(!bad && bytes == t, "record {i}"),
            Want::TooLong(_) => assert!(*bad && bytes.is_empty(), "record {i}"),
        }
    }
});
