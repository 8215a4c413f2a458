//! Parallel files (`-r/--ref`) read in lockstep.

use super::{read_failed, too_long, Batcher, Line, LineReader, Stop};

/// Parallel files read in lockstep, one record per line number. A stream that ends before the
/// others makes every further record a bad line (one empty row each, naming the stream and its
/// last line), until every stream has ended; then the lengths are an input error.
pub(super) fn read_parallel(mut streams: Vec<LineReader>, out: &mut Batcher) -> Result<(), Stop> {
    // Per stream: its number of lines, once it has ended.
    let mut ended: Vec<Option<u64>> = vec![None; streams.len()];
    loop {
        // Before a read that may block, every record read so far must be on its way.
        if !streams.iter_mut().all(LineReader::has_line) {
            out.send()?;
        }
        let line_no = out.next_line;
        let mut too_long_field = None;
        for (i, stream) in streams.iter_mut().enumerate() {
            if ended[i].is_some() {
                out.batch.push_field(b"");
                continue;
            }
            match stream.next_line() {
                Ok(Some(Line::Text(line))) => out.batch.push_field(line),
                Ok(Some(Line::TooLong(bytes))) => {
                    out.batch.push_field(b"");
                    too_long_field
                        .get_or_insert_with(|| format!("{}: {}", stream.name(), too_long(bytes)));
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
