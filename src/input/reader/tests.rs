//! The reader's unit tests.

use std::io::{self, Read};

use super::batch::{MAX_RECORDS, RECYCLE_BYTES};
use super::source::{READ_SIZE, TAIL};
use super::*;
use crossbeam_channel::unbounded;

fn reader(data: &'static [u8]) -> LineReader {
    LineReader::new(Box::new(data), "test".to_owned())
}

fn collect(plan: Plan) -> Vec<Batch> {
    let (tx, rx) = unbounded();
    run(
        plan,
        MAX_RECORDS,
        tx,
        crossbeam_channel::never(),
        Arc::default(),
    );
    rx.into_iter().collect()
}

fn records(batches: &[Batch]) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    let mut fields = Vec::new();
    for b in batches {
        for i in 0..b.len() {
            b.fields(i, &mut fields);
            all.push(
                fields
                    .iter()
                    .map(|f| String::from_utf8_lossy(f).into_owned())
                    .collect(),
            );
        }
    }
    all
}

/// The bad lines of `batches`: (line number, message).
fn bad_lines(batches: &[Batch]) -> Vec<(u64, String)> {
    batches
        .iter()
        .flat_map(|b| {
            b.bad
                .iter()
                .map(move |(i, m)| (b.first_line + *i as u64, m.clone()))
        })
        .collect()
}

#[test]
fn lines_end_at_newline_cr_is_dropped_last_line_counts() {
    let mut r = reader(b"a\r\nb\rc\n\nlast");
    let mut lines = Vec::new();
    while let Some(Line::Text(l)) = r.next_line().unwrap() {
        lines.push(l.to_vec());
    }
    assert_eq!(lines, [&b"a"[..], b"b\rc", b"", b"last"]);
}

#[test]
fn long_lines_grow_the_buffer() {
    let long: &'static [u8] = Box::leak(vec![b'x'; READ_SIZE * 3].into_boxed_slice());
    let mut r = reader(long);
    match r.next_line().unwrap().unwrap() {
        Line::Text(l) => assert_eq!(l.len(), READ_SIZE * 3),
        Line::TooLong(_) => panic!("no limit was set"),
    }
    assert!(r.next_line().unwrap().is_none());
}

#[test]
fn auto_detects_jsonl_after_empty_lines() {
    let plan = Plan::Lines {
        sources: vec![reader(b"\n  {\"hyp\":\"a\",\"ref\":\"a\"}\n")],
        format: InputFormat::Auto,
        refs: Refs::Unknown,
        key_column: false,
    };
    let batches = collect(plan);
    assert_eq!(
        batches.last().unwrap().framing,
        Some(Framing::Jsonl { refs: None })
    );
    assert_eq!(records(&batches).len(), 2);
}

#[test]
fn a_blank_line_with_a_tab_decides_tsv_and_the_number_of_references() {
    // Regression: a first line of only a TAB used to wait for the next non-blank line, so
    // its framing (and whether it was bad) depended on where the batch ended.
    let plan = Plan::Lines {
        sources: vec![reader(b"\t\r\na\tb\tc\n")],
        format: InputFormat::Auto,
        refs: Refs::Unknown,
        key_column: false,
    };
    let batches = collect(plan);
    assert_eq!(
        batches[0].framing,
        Some(Framing::Tsv {
            refs: Refs::AsLine { line: 1, count: 1 }
        })
    );
    // A blank line without a TAB still decides nothing.
    let plan = Plan::Lines {
        sources: vec![reader(b" \n{\"hyp\":\"a\",\"ref\":\"a\"}\n")],
        format: InputFormat::Auto,
        refs: Refs::Unknown,
        key_column: false,
    };
    let batches = collect(plan);
    assert_eq!(batches[0].framing, Some(Framing::Jsonl { refs: None }));
}

#[test]
fn files_are_read_one_after_the_other() {
    let plan = Plan::Lines {
        sources: vec![reader(b"a\tb\nc\td"), reader(b"e\tf\n")],
        format: InputFormat::Tsv,
        refs: Refs::Unknown,
        key_column: false,
    };
    let batches = collect(plan);
    assert_eq!(
        records(&batches),
        [vec!["a\tb"], vec!["c\td"], vec!["e\tf"]]
    );
    assert_eq!(batches[0].first_line, 1);
}

#[test]
fn parallel_streams_in_lockstep_and_length_mismatch() {
    let named = |data: &'static [u8], name: &str| LineReader::new(Box::new(data), name.to_owned());
    let plan = Plan::Parallel {
        streams: vec![named(b"h1\nh2\nh3\nh4", "hyp"), named(b"r1\nr2\n", "ref")],
    };
    let batches = collect(plan);
    // Every line of the longer stream is a record, bad, with empty fields for the missing.
    assert_eq!(
        records(&batches),
        [["h1", "r1"], ["h2", "r2"], ["h3", ""], ["h4", ""]]
    );
    let message = "no reference: ref ended after line 2".to_owned();
    assert_eq!(bad_lines(&batches), [(3, message.clone()), (4, message)]);
    let fatal = batches.last().unwrap().fatal.clone().unwrap();
    assert_eq!(fatal, "hyp and ref have different lengths (4 and 2 lines)");
    // Three streams, the hypothesis shortest: every stream that ended is named.
    let plan = Plan::Parallel {
        streams: vec![
            named(b"h1\n", "hyp"),
            named(b"a1\na2\n", "r1"),
            named(b"b1\nb2\nb3\n", "r2"),
        ],
    };
    let batches = collect(plan);
    assert_eq!(records(&batches).len(), 3);
    let bad: Vec<_> = batches.iter().flat_map(|b| b.bad.clone()).collect();
    assert_eq!(bad.len(), 2);
    assert_eq!(bad[0].1, "no hypothesis: hyp ended after line 1");
    assert_eq!(
        bad[1].1,
        "no hypothesis: hyp ended after line 1; no reference 1: r1 ended after line 2"
    );
    assert_eq!(
        batches.last().unwrap().fatal.as_deref(),
        Some("hyp, r1 and r2 have different lengths (1, 2 and 3 lines)")
    );
    // Same lengths: no error.
    let plan = Plan::Parallel {
        streams: vec![named(b"h1\nh2", "hyp"), named(b"r1\nr2\n", "ref")],
    };
    let batches = collect(plan);
    assert_eq!(records(&batches).len(), 2);
    assert!(batches
        .iter()
        .all(|b| b.fatal.is_none() && b.bad.is_empty()));
}

/// A reader that hands out `data` in `chunk`-byte reads and requests a stop after `stop_after`
/// reads.
struct Chunked {
    data: &'static [u8],
    chunk: usize,
    reads: usize,
    stop_after: usize,
    state: Arc<ReaderState>,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        assert!(!self.state.stop_requested(), "no read after a stop request");
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.reads += 1;
        if self.reads == self.stop_after {
            self.state.request_stop();
        }
        Ok(n)
    }
}

#[test]
fn a_stop_reads_no_more_but_keeps_every_complete_line_read() {
    let data: &'static [u8] = Box::leak(
        (0..20_000)
            .map(|i| format!("h {i}\tr {i}\n"))
            .collect::<String>()
            .into_bytes()
            .into_boxed_slice(),
    );
    for (chunk, stop_after) in [(100_000, 1), (100_000, 2), (7, 3), (READ_SIZE, 1)] {
        let state = Arc::new(ReaderState::default());
        let source = Chunked {
            data,
            chunk,
            reads: 0,
            stop_after,
            state: Arc::clone(&state),
        };
        let read = (chunk * stop_after).min(data.len());
        let complete = data[..read].iter().filter(|&&b| b == b'\n').count();
        let plan = Plan::Lines {
            sources: vec![LineReader::new(Box::new(source), "test".to_owned())],
            format: InputFormat::Tsv,
            refs: Refs::Unknown,
            key_column: false,
        };
        let (tx, rx) = unbounded();
        run(plan, MAX_RECORDS, tx, crossbeam_channel::never(), state);
        let batches: Vec<Batch> = rx.into_iter().collect();
        let all = records(&batches);
        assert_eq!(
            all.len(),
            complete,
            "chunk {chunk}, stop after {stop_after}"
        );
        let last = complete - 1;
        assert_eq!(all.last().unwrap()[0], format!("h {last}\tr {last}"));
    }
}

#[test]
fn the_follow_tail_keeps_the_last_bytes_read() {
    let data: &'static [u8] = Box::leak(
        (0..3000u32)
            .map(|i| (b'a' + (i % 26) as u8) as char)
            .collect::<String>()
            .into_bytes()
            .into_boxed_slice(),
    );
    for chunk in [1, 7, 63, 64, 65, 1000] {
        let source = Chunked {
            data,
            chunk,
            reads: 0,
            stop_after: 0,
            state: Arc::default(),
        };
        let mut r = LineReader::new(Box::new(source), "test".to_owned()).following();
        let mut read = 0;
        while read < data.len() {
            r.fill().unwrap();
            read = r.offset() as usize;
            let want = &data[read.saturating_sub(TAIL)..read];
            assert_eq!(r.tail, want, "chunk {chunk}, {read} bytes read");
        }
    }
}

/// Regression (audit 2026-11-26): a followed file rewritten (truncated and written again past
/// the read position) while the reader is still behind the writer. The check ran only at the
/// end of the data, so a reader catching up read the new file from its old offset: the new
/// file's start was lost, a line was cut, and no restart was reported. Every read of a regular
/// file now checks the bytes before its position: the read that returns the new file's bytes
/// is dropped and the reader is at the end of the data, the file changed.
#[cfg(unix)]
#[test]
fn a_followed_file_rewritten_under_a_busy_reader_is_not_read_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log");
    let lines =
        |tag: &str, n: usize| -> String { (0..n).map(|i| format!("{tag} {i}\n")).collect() };
    let old = lines("old line", 3 * READ_SIZE / 10);
    assert!(old.len() > 2 * READ_SIZE);
    std::fs::write(&path, &old).unwrap();
    let open = || {
        let file = std::fs::File::open(&path).unwrap();
        let mut r =
            LineReader::new(Box::new(file.try_clone().unwrap()), "log".to_owned()).following();
        r.positioned = Some(file);
        r
    };
    // The control: the file as it is is read to its end, line for line.
    let mut r = open();
    let mut n = 0;
    while let Some(line) = r.next_line().unwrap() {
        assert_eq!(line, Line::Text(format!("old line {n}").as_bytes()));
        n += 1;
    }
    assert_eq!((n, r.offset()), (3 * READ_SIZE / 10, old.len() as u64));
    assert!(r.tail_matches());
    // One read's worth taken, then the file is rewritten, longer than before.
    let mut r = open();
    r.fill().unwrap();
    let first = r.offset();
    assert!(first > 0 && first < old.len() as u64);
    std::fs::write(&path, lines("new", 4 * READ_SIZE / 5)).unwrap();
    let mut got = Vec::new();
    while let Some(Line::Text(line)) = r.next_line().unwrap() {
        got.push(String::from_utf8(line.to_vec()).unwrap());
    }
    assert_eq!(r.offset(), first, "nothing of the new file was taken");
    assert!(
        got.iter().all(|l| l.starts_with("old line ")),
        "{:?}",
        got.last()
    );
    assert!(!r.tail_matches(), "the follower sees the file changed");
    // The piece of a line after the last complete one is dropped, not made a line.
    assert!(r.cut_short());
    let piece = first - got.iter().map(|l| l.len() as u64 + 1).sum::<u64>();
    assert!(piece > 0);
    assert_eq!(r.abandon(), piece);
    assert_eq!(r.next_line().unwrap(), None);
}

/// Regression (issue 19, point 5): when a followed file is finished (rotated, or a FIFO's
/// writer closed it), its last line without newline used to be taken as raw bytes: an
/// over-long one whose start was skipped vanished, and one just over `--max-line-bytes` was
/// scored. It is now checked like any last line.
#[test]
fn a_finished_followed_stream_checks_its_last_line_like_any_other() {
    for (data, last) in [
        (&b"ab\nabcdef"[..], Line::TooLong(6)),
        (b"ab\nabcd", Line::TooLong(4)),
        (b"ab\nabc\r", Line::Text(b"abc")),
    ] {
        let mut r = LineReader::new(Box::new(data), "test".to_owned())
            .following()
            .max_line(3);
        assert_eq!(r.next_line().unwrap(), Some(Line::Text(b"ab")));
        // Following: the partial line may still be being written.
        assert_eq!(r.next_line().unwrap(), None);
        r.finish();
        assert!(r.has_line());
        assert_eq!(r.next_line().unwrap(), Some(last));
        assert_eq!(r.next_line().unwrap(), None);
    }
}

#[test]
fn recycled_batches_come_back_empty_and_are_reused() {
    let mut batch = Batch {
        seq: 7,
        first_line: 9,
        framing: Some(Framing::Parallel),
        fatal: Some("failed".to_owned()),
        restart: Some("truncated".to_owned()),
        ..Batch::default()
    };
    batch.push_field(b"h\tr");
    batch.end_record();
    batch.mark_bad("too long".to_owned());
    let capacity = batch.data.capacity();
    let empty = batch.recycle().expect("a small batch is kept");
    assert!(empty.is_empty() && empty.fields.is_empty() && empty.data.is_empty());
    assert!(empty.bad.is_empty() && empty.fatal.is_none() && empty.restart.is_none());
    assert_eq!(empty.framing, None);
    assert_eq!(empty.data.capacity(), capacity);
    // A batch that held a very long line is dropped rather than kept.
    let mut big = Batch::default();
    big.push_field(&vec![b'x'; RECYCLE_BYTES + 1]);
    assert!(big.recycle().is_none());
    // The reader takes a waiting one for its next batch, numbering it itself.
    let (tx, rx) = unbounded();
    let (recycle_tx, recycle_rx) = unbounded();
    recycle_tx.send(empty).unwrap();
    let plan = Plan::Lines {
        sources: vec![reader(b"a\tb\n")],
        format: InputFormat::Tsv,
        refs: Refs::Unknown,
        key_column: false,
    };
    run(plan, MAX_RECORDS, tx, recycle_rx, Arc::default());
    let batches: Vec<Batch> = rx.into_iter().collect();
    assert_eq!(records(&batches), [vec!["a\tb"]]);
    assert_eq!((batches[0].seq, batches[0].first_line), (0, 1));
}

#[test]
fn batches_are_cut_when_full() {
    let data: &'static [u8] = Box::leak(
        "x\ty\n"
            .repeat(MAX_RECORDS * 2 + 5)
            .into_bytes()
            .into_boxed_slice(),
    );
    let batches = collect(Plan::Lines {
        sources: vec![reader(data)],
        format: InputFormat::Tsv,
        refs: Refs::Unknown,
        key_column: false,
    });
    assert!(batches.len() >= 3);
    assert_eq!(records(&batches).len(), MAX_RECORDS * 2 + 5);
    let mut line = 1;
    for (i, b) in batches.iter().enumerate() {
        assert_eq!((b.seq, b.first_line), (i as u64, line));
        line += b.len() as u64;
    }
}

/// A work that asks for small batches (NIST, whose statistics are large) gets them, with every
/// record kept, in order.
#[test]
fn batches_respect_the_work_s_record_limit() {
    let text: String = (1..=1000).map(|i| format!("h{i}\tr{i}\n")).collect();
    let data: &'static [u8] = Box::leak(text.into_bytes().into_boxed_slice());
    let (tx, rx) = unbounded();
    let plan = Plan::Lines {
        sources: vec![reader(data)],
        format: InputFormat::Tsv,
        refs: Refs::Unknown,
        key_column: false,
    };
    run(plan, 256, tx, crossbeam_channel::never(), Arc::default());
    let batches: Vec<Batch> = rx.into_iter().collect();
    let sizes: Vec<usize> = batches.iter().map(Batch::len).collect();
    assert_eq!(sizes, [256, 256, 256, 232]);
    let all = records(&batches);
    assert_eq!(all.len(), 1000);
    assert_eq!(all[999], ["h1000\tr1000"]);
    assert_eq!(batches[3].first_line, 769);
}

/// A stream that may block (a pipe) has its batch handed over whenever no complete line is
/// left to read, so that live lines are scored at once; a regular file, which never waits,
/// fills its batches however its reads are cut.
#[test]
fn only_streams_that_may_block_cut_a_batch_per_read() {
    let data: &'static [u8] = Box::leak("h\tr\n".repeat(100).into_bytes().into_boxed_slice());
    let chunked = |may_block| {
        let source = Chunked {
            data,
            chunk: 40,
            reads: 0,
            stop_after: usize::MAX,
            state: Arc::default(),
        };
        let mut r = LineReader::new(Box::new(source), "test".to_owned());
        r.may_block = may_block;
        collect(Plan::Lines {
            sources: vec![r],
            format: InputFormat::Tsv,
            refs: Refs::Unknown,
            key_column: false,
        })
    };
    let pipe = chunked(true);
    let file = chunked(false);
    assert_eq!(records(&pipe), records(&file));
    assert_eq!(records(&file).len(), 100);
    assert!(pipe.len() >= 5, "{} batches from a pipe", pipe.len());
    assert_eq!(file.len(), 1);
}

/// `--max-line-bytes` counts a line without its `\r\n` (issue 19, point 9), also at the end of
/// the input and when the `\r` arrives before the `\n` is buffered.
#[test]
fn the_line_limit_does_not_count_the_line_end() {
    let mut r = reader(b"abc\r\nabcd\r\nabc\nabc\rabcd").max_line(3);
    assert_eq!(r.next_line().unwrap(), Some(Line::Text(b"abc")));
    assert_eq!(r.next_line().unwrap(), Some(Line::TooLong(4)));
    assert_eq!(r.next_line().unwrap(), Some(Line::Text(b"abc")));
    assert!(matches!(r.next_line().unwrap(), Some(Line::TooLong(_))));
    assert_eq!(r.next_line().unwrap(), None);
    let mut r = reader(b"abc\r").max_line(3);
    assert_eq!(r.next_line().unwrap(), Some(Line::Text(b"abc")));
    let mut r = reader(b"abcd").max_line(3);
    assert_eq!(r.next_line().unwrap(), Some(Line::TooLong(4)));
}

/// A stream returning at most `chunk` bytes per read.
struct Pieces {
    data: Vec<u8>,
    chunk: usize,
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.chunk.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data.drain(..n);
        Ok(n)
    }
}

/// `buffered_lines` (the reader's one-pass path) returns exactly what `next_line` would: the
/// same lines, `\r` removed, the same over-long lines with the same lengths (also one whose
/// start was skipped across reads), and it stops where `each` says.
#[test]
fn buffered_lines_agree_with_next_line() {
    let mut rng = crate::test_rng::Rng(0x5eed_1e55);
    for case in 0..3000 {
        let len = rng.below(200);
        let data: Vec<u8> = (0..len).map(|_| b"ab\r\n\n"[rng.below(5)]).collect();
        let (max_line, chunk) = (1 + rng.below(12), 1 + rng.below(40));
        let open = |data: &[u8]| {
            LineReader::new(
                Box::new(Pieces {
                    data: data.to_vec(),
                    chunk,
                }),
                "test".to_owned(),
            )
            .max_line(max_line)
        };
        let owned = |line: Line<'_>| match line {
            Line::Text(t) => Ok(t.to_vec()),
            Line::TooLong(n) => Err(n),
        };
        let mut want = Vec::new();
        let mut plain = open(&data);
        while let Some(line) = plain.next_line().unwrap() {
            want.push(owned(line));
        }
        let mut got = Vec::new();
        let mut mixed = open(&data);
        let cap = 1 + rng.below(4);
        loop {
            let mut taken = 0;
            mixed.buffered_lines(|line| {
                got.push(owned(line));
                taken += 1;
                taken < cap
            });
            match mixed.next_line().unwrap() {
                Some(line) => got.push(owned(line)),
                None => break,
            }
        }
        assert_eq!(
            got, want,
            "case {case}: {data:?}, limit {max_line}, reads of {chunk}"
        );
    }
}

/// Regression (input audit): `--max-line-bytes` bounded each parallel file's line, so `-r` with
/// R files held R limits' worth of text per segment. It bounds the segment now: each stream reads
/// what the streams before it left, and the first line past that is skipped unbuffered.
#[test]
fn parallel_streams_share_one_line_limit_per_segment() {
    let named = |data: &'static [u8], name: &str| {
        LineReader::new(Box::new(data), name.to_owned()).max_line(10)
    };
    let plan = Plan::Parallel {
        streams: vec![
            // Line 1: 4 + 6 + 0 bytes fit; line 2: 4 + 7 do not; line 3: the hypothesis alone is
            // over the limit; line 4: 10 + 0 + 0 fit exactly; line 5: a reference of exactly the
            // limit after a hypothesis of 2 takes the segment past it.
            named(b"h1h1\nh2h2\nh3h3h3h3h3h3\n0123456789\nab\n", "hyp"),
            named(b"r1r1r1\nr2r2r2r\nr3\n\n0123456789\n", "r1"),
            named(b"\nxx\n\n\n\n", "r2"),
        ],
    };
    let batches = collect(plan);
    assert_eq!(
        records(&batches),
        [
            ["h1h1", "r1r1r1", ""],
            ["h2h2", "", ""],
            ["", "", ""],
            ["0123456789", "", ""],
            ["ab", "", ""]
        ]
    );
    assert_eq!(
        bad_lines(&batches),
        [
            (
                2,
                "r1: line of 7 bytes takes the segment past --max-line-bytes (the lines of all \
                 files add up to more than 10 bytes): skipped"
                    .to_owned()
            ),
            (
                3,
                "hyp: line of 12 bytes is longer than --max-line-bytes: skipped".to_owned()
            ),
            (
                5,
                "r1: line of 10 bytes takes the segment past --max-line-bytes (the lines of all \
                 files add up to more than 10 bytes): skipped"
                    .to_owned()
            ),
        ]
    );
    assert!(batches.iter().all(|b| b.fatal.is_none()));
}

/// A reader gives back the buffer it grew for a long line once what it holds fits a normal one.
#[test]
fn a_grown_buffer_shrinks_back() {
    let long: &'static [u8] = Box::leak(
        [vec![b'x'; READ_SIZE * 5], b"\nshort\n".to_vec()]
            .concat()
            .into_boxed_slice(),
    );
    let mut r = LineReader::new(Box::new(long), "long".to_owned());
    match r.next_line().unwrap() {
        Some(Line::Text(l)) => assert_eq!(l.len(), READ_SIZE * 5),
        other => panic!("{other:?}"),
    }
    assert!(r.buffer_len() > 2 * READ_SIZE);
    r.shrink();
    assert_eq!(r.buffer_len(), READ_SIZE);
    // What was buffered after the long line is still read.
    assert_eq!(r.next_line().unwrap(), Some(Line::Text(b"short")));
    assert_eq!(r.next_line().unwrap(), None);
}

/// A line is long from `LONG_BUDGET / workers` bytes: its batch holds that many bytes of the
/// budget, and the reader sends no batch that would take the budget past 2 MiB until a worker
/// gives bytes back. With 16 workers a 200 KiB line is long (every worker holding one would
/// keep 16 × 25 × 200 KiB); with 2 it is not, and short lines never are (safety audit: lines
/// just under 1 MiB, the only bound before, took 2.4 GB at `-j 128`).
#[test]
fn long_lines_hold_a_share_of_the_budget() {
    // A line of `kib` KiB of hypothesis, a TAB and a one-byte reference.
    let long = |kib: usize| format!("{}\tr\n", "w ".repeat(kib * 512));
    let plan = |text: String| Plan::Lines {
        sources: vec![reader(Box::leak(text.into_bytes().into_boxed_slice()))],
        format: InputFormat::Tsv,
        refs: Refs::Unknown,
        key_column: false,
    };
    let held = |workers: usize, text: String| {
        let state = Arc::new(ReaderState::default());
        state.workers(workers);
        let (tx, rx) = unbounded();
        run(
            plan(text),
            MAX_RECORDS,
            tx,
            crossbeam_channel::never(),
            state,
        );
        // (Batches are cut where a read may wait, so only the shares are compared.)
        rx.into_iter().map(|b| b.held).max()
    };
    let text = format!("a\tb\n{}c\td\n", long(200));
    assert_eq!(held(2, text.clone()), Some(0), "not long for 2 workers");
    assert_eq!(held(16, text), Some((200 << 10) + 2), "long for 16");
    assert_eq!(held(1024, "a\tb\n".repeat(100)), Some(0));
    // Two workers: two 1.5 MiB lines do not fit the budget together.
    let state = Arc::new(ReaderState::default());
    state.workers(2);
    let (tx, rx) = unbounded();
    let reader_state = Arc::clone(&state);
    let text = format!("a\tb\n{}{}c\td\n", long(1536), long(1536));
    let thread = std::thread::spawn(move || {
        run(
            plan(text),
            MAX_RECORDS,
            tx,
            crossbeam_channel::never(),
            reader_state,
        )
    });
    let mut first = rx.recv().unwrap();
    if first.held == 0 {
        // The short first line, sent before a read that may wait.
        first = rx.recv().unwrap();
    }
    assert_eq!(first.held, (1536 << 10) + 2);
    assert!(
        rx.recv_timeout(std::time::Duration::from_millis(300))
            .is_err(),
        "the second 1.5 MiB line waits for the first's share"
    );
    state.release(first.held);
    let second = rx.recv().unwrap();
    assert_eq!(second.held, (1536 << 10) + 2);
    state.release(second.held);
    thread.join().unwrap();
    assert!(rx.into_iter().all(|b| b.held == 0));
}
