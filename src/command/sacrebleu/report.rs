//! Single-system output: `Score.format` (`metrics/base.py`) and `print_single_results`
//! (`utils.py`) — the JSON object (indent 1), the text line, `-b`, and the alignment of several
//! metrics on their ` = `.

use super::metric::SbScore;
use super::pyfmt::{fixed, float_repr, json_string};

/// A bootstrap estimate attached to a score (`Score._mean`, `Score._ci`).
#[derive(Clone, Copy, Debug)]
pub struct Estimate {
    pub mean: f64,
    pub ci: f64,
}

/// `Score.format(width, score_only, signature, is_json)`.
pub fn format_score(
    s: &SbScore,
    estimate: Option<Estimate>,
    width: usize,
    score_only: bool,
    signature: &str,
    is_json: bool,
) -> String {
    let mut sc = fixed(s.score, width);
    let mut json_conf = String::new();
    // `if self._mean > 0`
    if let Some(e) = estimate.filter(|e| e.mean > 0.0) {
        let (m, v) = (fixed(e.mean, width), fixed(e.ci, width));
        let conf = format!("μ = {m} ± {v}");
        sc.push_str(&format!(" ({conf})"));
        json_conf = format!(
            ",\n \"confidence_mean\": {},\n \"confidence_var\": {},\n \"confidence\": {}",
            reparse(&m),
            reparse(&v),
            json_string(&conf, false)
        );
    }
    if score_only {
        return sc;
    }
    if is_json {
        let mut out = format!(
            "{{\n \"name\": {},\n \"score\": {},\n \"signature\": {}{json_conf}",
            json_string(&s.name, false),
            reparse(&fixed(s.score, width)),
            json_string(signature, false)
        );
        if !s.verbose.is_empty() {
            out.push_str(&format!(
                ",\n \"verbose_score\": {}",
                json_string(&s.verbose, false)
            ));
        }
        for param in signature.split('|') {
            let (k, v) = param.split_once(':').unwrap_or((param, ""));
            out.push_str(&format!(
                ",\n {}: {}",
                json_string(k, false),
                json_string(v, false)
            ));
        }
        out.push_str("\n}");
        return out;
    }
    let head = if signature.is_empty() {
        s.name.clone()
    } else {
        format!("{}|{signature}", s.name)
    };
    let mut line = format!("{head} = {sc}");
    if !s.verbose.is_empty() {
        line.push(' ');
        line.push_str(&s.verbose);
    }
    line
}

/// `float(f"{x:.{w}f}")` written back by `json.dumps`.
fn reparse(text: &str) -> String {
    float_repr(text.parse::<f64>().unwrap_or(f64::NAN), true)
}

/// `print_single_results`: the text to print (with its final newline).
pub fn single_results(results: &[String], json: bool) -> String {
    let mut out = String::new();
    if json {
        if results.len() > 1 {
            out.push_str(&format!("[\n{}\n]\n", results.join(",\n")));
        } else if let Some(r) = results.first() {
            out.push_str(r);
            out.push('\n');
        }
        return out;
    }
    if results.len() == 1 {
        out.push_str(&results[0]);
        out.push('\n');
        return out;
    }
    // Align on the first '=' (`line.index('=') - 1`, in code points); lines without one
    // (`-b`) are printed as they come.
    let mut lens = Vec::new();
    for line in results {
        match line.find('=') {
            Some(byte) => lens.push(line[..byte].chars().count() as isize - 1),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if let Some(&w) = lens.iter().max() {
        for (len, line) in lens.iter().zip(results) {
            let (left, right) = split_chars(line, *len);
            let pad = (w - left.chars().count() as isize).max(0) as usize;
            out.push_str(&" ".repeat(pad));
            out.push_str(left);
            out.push_str(right);
            out.push('\n');
        }
    }
    out
}

/// `line[:n], line[n:]` in code points (Python slicing, `n` may be -1).
fn split_chars(line: &str, n: isize) -> (&str, &str) {
    let count = line.chars().count() as isize;
    let n = if n < 0 {
        (count + n).max(0)
    } else {
        n.min(count)
    } as usize;
    let byte = line.char_indices().nth(n).map_or(line.len(), |(b, _)| b);
    line.split_at(byte)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_on_equals() {
        let r = vec!["BLEU|x = 1.0 a".to_owned(), "chrF2|xyz = 2.0".to_owned()];
        assert_eq!(
            single_results(&r, false),
            "   BLEU|x = 1.0 a\nchrF2|xyz = 2.0\n"
        );
        assert_eq!(
            single_results(&["1.0".into(), "2.0".into()], true),
            "[\n1.0,\n2.0\n]\n"
        );
    }
}
