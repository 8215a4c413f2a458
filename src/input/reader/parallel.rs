//! Parallel files (`-r/--ref`) read in lockstep.

use super::{io_message, read_failed, too_long, Batcher, Line, LineReader, Stop};

/// Parallel files read in lockstep, one record per line number. A stream that ends before the
/// others makes every further record a bad line (one empty row each, naming the stream and its
/// last line), until every stream has ended; then the lengths are an input error.
///
/// `--max-line-bytes` bounds a segment, as it bounds a TSV line holding the hypothesis and every
/// reference: each stream may read what the streams before it left of the limit, and a line
/// past it is skipped unbuffered (the record is bad). With a limit per file, `-r` with R files
/// held R limits' worth of lines (found by the input audit: 2.9 GiB for five 16 MiB lines,
/// against the documented 675 MiB).
pub(super) fn read_parallel(mut streams: Vec<LineReader>, out: &mut Batcher) -> Result<(), Stop> {
    // Per stream: its number of lines, once it has ended.
    let mut ended: Vec<Option<u64>> = vec![None; streams.len()];
    let limit = streams.first().map_or(usize::MAX, LineReader::line_limit);
    loop {
        // Before a read that may block, every record read so far must be on its way.
        if !streams.iter_mut().all(LineReader::has_line) {
            out.send()?;
        }
        let line_no = out.next_line;
        let mut too_long_field = None;
        let mut left = limit;
        for (i, stream) in streams.iter_mut().enumerate() {
            if ended[i].is_some() {
                out.batch.push_field(b"");
                continue;
            }
            stream.set_line_limit(left);
            match stream.next_line() {
                Ok(Some(Line::Text(line))) => {
                    left -= line.len();
                    out.batch.push_field(line);
                }
                Ok(Some(Line::TooLong(bytes))) => {
                    out.batch.push_field(b"");
                    left = 0;
                    too_long_field.get_or_insert_with(|| match usize::try_from(bytes) {
                        Ok(b) if b <= limit => format!(
                            "{}: line of {bytes} bytes takes the segment past --max-line-bytes \
                             (the lines of all files add up to more than {limit} bytes): skipped",
                            stream.name()
                        ),
                        _ => format!("{}: {}", stream.name(), too_long(bytes)),
                    });
                }
                Ok(None) => {
                    if stream.halted() {
                        // Stopping before this stream's line was read: the record is not read.
                        out.batch
                            .fields
                            .truncate(out.batch.records.last().copied().unwrap_or(0));
                        return Ok(());
                    }
                    ended[i] = Some(line_no - 1);
                    out.batch.push_field(b"");
                }
                Err(e) => return Err(read_failed(stream.name(), &e)),
            }
            stream.shrink();
        }
        if ended.iter().all(Option::is_some) {
            // No line left in any stream: drop the empty record.
            out.batch
                .fields
                .truncate(out.batch.records.last().copied().unwrap_or(0));
            return match different_lengths(&streams, &ended) {
                Some(message) => Err(Stop::Fatal(message)),
                None => Ok(()),
            };
        }
        let missing: Vec<String> = ended
            .iter()
            .enumerate()
            .filter_map(|(i, lines)| {
                let lines = (*lines)?;
                let what = match i {
                    0 => "hypothesis".to_owned(),
                    _ if streams.len() == 2 => "reference".to_owned(),
                    _ => format!("reference {i}"),
                };
                Some(format!(
                    "no {what}: {} ended after line {lines}",
                    streams[i].name()
                ))
            })
            .collect();
        if !missing.is_empty() {
            out.batch.mark_bad(missing.join("; "));
        } else if let Some(message) = too_long_field {
            out.batch.mark_bad(message);
        }
        out.record_done()?;
    }
}

/// `a, b and c have different lengths (1, 2 and 2 lines)` when the streams' line counts differ.
fn different_lengths(streams: &[LineReader], lines: &[Option<u64>]) -> Option<String> {
    let counts: Vec<u64> = lines.iter().map(|n| n.unwrap_or(0)).collect();
    if counts.iter().all(|&n| n == counts[0]) {
        return None;
    }
    let list = |items: Vec<String>| match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => items.concat(),
    };
    Some(format!(
        "{} have different lengths ({} lines)",
        list(streams.iter().map(|s| s.name().to_owned()).collect()),
        list(counts.iter().map(u64::to_string).collect()),
    ))
}

/// Streams that must stay aligned, read in lockstep ([`super::Plan::Aligned`]): a record of one
/// field per stream for every line number. When some streams end and others do not, or a read
/// fails, the input ends with an error after the records before; the messages are `compare`'s
/// (it needs every system's line for every segment, so there is no bad line to skip).
///
/// `--max-line-bytes` bounds a segment, every stream's line of it together, as for `-r`
/// ([`read_parallel`]): with a limit per stream, R streams held R limits' worth of lines (found
/// by the compare audit: 1.38 GiB for a baseline, a system and a reference of 16 MB each).
pub(super) fn read_aligned(mut streams: Vec<LineReader>, out: &mut Batcher) -> Result<(), Stop> {
    let mut ended = Vec::with_capacity(streams.len());
    let limit = streams.first().map_or(usize::MAX, LineReader::line_limit);
    loop {
        // Before a read that may block, every record read so far must be on its way.
        if !streams.iter_mut().all(LineReader::has_line) {
            out.send()?;
        }
        let line_no = out.next_line;
        ended.clear();
        let mut left = limit;
        for (i, stream) in streams.iter_mut().enumerate() {
            stream.set_line_limit(left);
            match stream.next_line() {
                Ok(Some(Line::Text(line))) => {
                    left -= line.len();
                    out.batch.push_field(line);
                }
                Ok(Some(Line::TooLong(bytes))) => {
                    // Streams that must stay aligned cannot skip a line: the run ends there.
                    let what = match usize::try_from(bytes) {
                        Ok(b) if b <= limit => format!(
                            "{bytes} bytes, which take the segment (this line and the other \
                             files' lines of it) past --max-line-bytes {limit}"
                        ),
                        _ => format!("{bytes} bytes, more than --max-line-bytes {limit}"),
                    };
                    return Err(Stop::Fatal(format!(
                        "{}: line {line_no}: {what}; raise --max-line-bytes (up to 1G) to \
                         compare such lines",
                        stream.name()
                    )));
                }
                Ok(None) => ended.push(i),
                Err(e) => {
                    return Err(Stop::Fatal(format!(
                        "{}: {}",
                        stream.name(),
                        io_message(&e)
                    )))
                }
            }
            stream.shrink();
        }
        if ended.is_empty() {
            out.record_done()?;
            continue;
        }
        // The record being built is not one: drop its fields.
        out.batch
            .fields
            .truncate(out.batch.records.last().copied().unwrap_or(0));
        if ended.len() == streams.len() || streams.iter().any(LineReader::halted) {
            return Ok(());
        }
        let names = |ended_too: bool| -> Vec<&str> {
            (0..streams.len())
                .filter(|i| ended.contains(i) == ended_too)
                .map(|i| streams[i].name())
                .collect()
        };
        let (short, long) = (names(true), names(false));
        return Err(Stop::Fatal(format!(
            "streams have different lengths: {} ended after line {} but {} {} line {line_no}",
            short.join(", "),
            line_no - 1,
            long.join(", "),
            if long.len() == 1 { "has" } else { "have" },
        )));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crossbeam_channel::unbounded;

    use super::super::{run, Batch, Plan, MAX_RECORDS};
    use super::LineReader;

    fn aligned(streams: &[(&'static [u8], &str)]) -> Vec<Batch> {
        let streams = streams
            .iter()
            .map(|&(data, name)| LineReader::new(Box::new(data), name.to_owned()))
            .collect();
        let (tx, rx) = unbounded();
        run(
            Plan::Aligned { streams },
            MAX_RECORDS,
            tx,
            crossbeam_channel::never(),
            Arc::default(),
        );
        rx.into_iter().collect()
    }

    fn records(batches: &[Batch]) -> Vec<Vec<String>> {
        let mut fields = Vec::new();
        let mut all = Vec::new();
        for b in batches {
            for i in 0..b.len() {
                b.fields(i, &mut fields);
                let text = fields.iter().map(|f| String::from_utf8_lossy(f).into());
                all.push(text.collect());
            }
        }
        all
    }

    #[test]
    fn aligned_streams_stop_at_the_first_that_ends_early() {
        // Equal lengths (a last line without `\n` counts): every line, no error.
        let batches = aligned(&[(b"a\tb\nc\td", "tsv"), (b"r1\nr2\n", "ref")]);
        assert_eq!(records(&batches), [["a\tb", "r1"], ["c\td", "r2"]]);
        assert!(batches
            .iter()
            .all(|b| b.fatal.is_none() && b.bad.is_empty()));
        // The reference ends first: the lines before are records, then compare's message.
        let batches = aligned(&[
            (b"s1\ns2\ns3\n", "sys"),
            (b"t1\nt2\nt3\n", "sys2"),
            (b"r1\nr2\n", "ref"),
        ]);
        assert_eq!(records(&batches), [["s1", "t1", "r1"], ["s2", "t2", "r2"]]);
        assert_eq!(
            batches.last().unwrap().fatal.as_deref(),
            Some(
                "streams have different lengths: ref ended after line 2 but sys, sys2 have line 3"
            )
        );
        // Two streams end together before a third.
        let batches = aligned(&[(b"", "a"), (b"x\n", "b"), (b"", "c")]);
        assert!(records(&batches).is_empty());
        assert_eq!(
            batches.last().unwrap().fatal.as_deref(),
            Some("streams have different lengths: a, c ended after line 0 but b has line 1")
        );
    }
}
