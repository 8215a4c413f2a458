//! Multi-system output: `print_results_table` (`utils.py`) — a JSON list (indent 4), or a
//! table as `tabulate` draws it (`fancy_grid` for `-f text`, `latex_booktabs` for `-f latex`;
//! first column right-aligned, the others centred, each column at least its header + 2 wide),
//! then the paired-test explanation and the metric signatures.

use super::pyfmt::{fixed, float_repr, json_string};

/// One cell of a metric column: a formatted score (plain mode) or a paired-test result.
#[derive(Clone, Debug)]
pub enum Cell {
    Text(String),
    Result(PairedResult),
}

/// `significance.Result`.
#[derive(Clone, Copy, Debug)]
pub struct PairedResult {
    pub score: f64,
    pub p_value: Option<f64>,
    pub mean: Option<f64>,
    pub ci: Option<f64>,
}

/// The results: system names and one column per metric (display name, cells).
pub struct Results {
    pub systems: Vec<String>,
    pub columns: Vec<(String, Vec<Cell>)>,
    /// (display name, signature) per metric.
    pub signatures: Vec<(String, String)>,
}

/// Which paired test ran, for the explanation block.
#[derive(Clone, Copy)]
pub struct Paired {
    pub bootstrap: bool,
    pub n: i128,
}

/// `print_results_table` for `-f json`.
pub fn json(results: &Results) -> String {
    if results.systems.is_empty() {
        return "[]\n".into();
    }
    let mut items = Vec::new();
    for (i, name) in results.systems.iter().enumerate() {
        let mut fields = vec![format!("        \"system\": {}", json_string(name, true))];
        for (metric, cells) in &results.columns {
            let value = match &cells[i] {
                Cell::Text(t) => json_string(t, true),
                Cell::Result(r) => {
                    let opt = |v: Option<f64>| v.map_or("null".to_owned(), |x| float_repr(x, true));
                    format!(
                        "{{\n            \"score\": {},\n            \"p_value\": {},\n            \"mean\": {},\n            \"ci\": {}\n        }}",
                        float_repr(r.score, true),
                        opt(r.p_value),
                        opt(r.mean),
                        opt(r.ci)
                    )
                }
            };
            fields.push(format!("        {}: {value}", json_string(metric, true)));
        }
        items.push(format!("    {{\n{}\n    }}", fields.join(",\n")));
    }
    format!("[\n{}\n]\n", items.join(",\n"))
}

/// `_format_score_lines`: the cell texts and header names.
fn format_cells(results: &Results, width: usize, multiline: bool) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut is_bootstrap = false;
    for (metric, cells) in &results.columns {
        let mut texts = Vec::new();
        for c in cells {
            texts.push(match c {
                Cell::Text(t) => t.clone(),
                Cell::Result(r) => {
                    let mut s = fixed(r.score, width);
                    if let (Some(m), Some(ci)) = (r.mean, r.ci) {
                        is_bootstrap = true;
                        s.push_str(&format!(" ({} ± {})", fixed(m, width), fixed(ci, width)));
                    }
                    if let Some(p) = r.p_value {
                        s.push(if multiline { '\n' } else { ' ' });
                        s.push_str(&format!("(p = {p:.4})"));
                        if p <= 0.05 {
                            s.push('*');
                        }
                    }
                    s
                }
            });
        }
        // The flag stays set for the following metrics, as in sacreBLEU.
        let title = if is_bootstrap {
            format!("{metric} (μ ± 95% CI)")
        } else {
            metric.clone()
        };
        out.push((title, texts));
    }
    out
}

fn width_of(s: &str) -> usize {
    s.split('\n').map(|l| l.chars().count()).max().unwrap_or(0)
}

/// Python's `"{:^w}".format(s)`: extra space goes to the right.
fn center(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n >= w {
        return s.to_owned();
    }
    let left = (w - n) / 2;
    format!("{}{s}{}", " ".repeat(left), " ".repeat(w - n - left))
}

fn right(s: &str, w: usize) -> String {
    let n = s.chars().count();
    format!("{}{s}", " ".repeat(w.saturating_sub(n)))
}

/// `tabulate`'s LaTeX escapes.
fn latex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '&' => out.push_str("\\&"),
            '%' => out.push_str("\\%"),
            '$' => out.push_str("\\$"),
            '#' => out.push_str("\\#"),
            '_' => out.push_str("\\_"),
            '^' => out.push_str("\\^{}"),
            '{' => out.push_str("\\{"),
            '}' => out.push_str("\\}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '\\' => out.push_str("\\textbackslash{}"),
            '<' => out.push_str("\\ensuremath{<}"),
            '>' => out.push_str("\\ensuremath{>}"),
            c => out.push(c),
        }
    }
    out
}

/// The table (`fancy_grid` or `latex_booktabs`) and what follows it.
pub fn table(results: &Results, width: usize, latex: bool, paired: Option<Paired>) -> String {
    // `tabulate` strips every cell (`PRESERVE_WHITESPACE` is off): a system file named `x `
    // is shown as `x` (found by the significance audit).
    let names = results
        .systems
        .iter()
        .map(|s| crate::unicode::py_strip(s).to_owned())
        .collect();
    let mut cols: Vec<(String, Vec<String>)> = vec![("System".into(), names)];
    cols.extend(format_cells(results, width, !latex));
    let widths: Vec<usize> = cols
        .iter()
        .map(|(h, v)| {
            v.iter()
                .map(|s| width_of(s))
                .max()
                .unwrap_or(0)
                .max(width_of(h) + 2)
        })
        .collect();
    let align = |i: usize, s: &str| {
        if i == 0 {
            right(s, widths[i])
        } else {
            center(s, widths[i])
        }
    };
    let mut out = String::new();
    if latex {
        out.push_str(&format!(
            "\\begin{{tabular}}{{r{}}}\n\\toprule\n",
            "c".repeat(cols.len() - 1)
        ));
        let row = |cells: Vec<String>| -> String {
            let cells: Vec<String> = cells
                .iter()
                .map(|c| format!(" {} ", latex_escape(c)))
                .collect();
            format!("{}\\\\\n", cells.join("&"))
        };
        out.push_str(&row(cols
            .iter()
            .enumerate()
            .map(|(i, (h, _))| align(i, h))
            .collect()));
        out.push_str("\\midrule\n");
        for r in 0..results.systems.len() {
            out.push_str(&row(cols
                .iter()
                .enumerate()
                .map(|(i, (_, v))| align(i, &v[r]))
                .collect()));
        }
        out.push_str("\\bottomrule\n\\end{tabular}\n");
    } else {
        let rule = |l: &str, fill: &str, mid: &str, r: &str| {
            let parts: Vec<String> = widths.iter().map(|w| fill.repeat(w + 2)).collect();
            format!("{l}{}{r}\n", parts.join(mid))
        };
        // A row of possibly multi-line cells, each line aligned on its own, short cells padded
        // below.
        let row = |cells: Vec<&str>| -> String {
            let lines: Vec<Vec<&str>> = cells.iter().map(|c| c.split('\n').collect()).collect();
            let height = lines.iter().map(Vec::len).max().unwrap_or(1);
            let mut s = String::new();
            for k in 0..height {
                let parts: Vec<String> = lines
                    .iter()
                    .enumerate()
                    .map(|(i, l)| match l.get(k) {
                        Some(text) => format!(" {} ", align(i, text)),
                        None => " ".repeat(widths[i] + 2),
                    })
                    .collect();
                s.push_str(&format!("│{}│\n", parts.join("│")));
            }
            s
        };
        out.push_str(&rule("╒", "═", "╤", "╕"));
        out.push_str(&row(cols.iter().map(|(h, _)| h.as_str()).collect()));
        out.push_str(&rule("╞", "═", "╪", "╡"));
        for r in 0..results.systems.len() {
            if r > 0 {
                out.push_str(&rule("├", "─", "┼", "┤"));
            }
            out.push_str(&row(cols.iter().map(|(_, v)| v[r].as_str()).collect()));
        }
        out.push_str(&rule("╘", "═", "╧", "╛"));
    }
    out.push('\n');
    if let Some(p) = paired {
        // Only a name starting with `Baseline:` is remembered as the baseline's (standard input
        // names it plain `Baseline`, and sacreBLEU then prints an empty name).
        let first = results.systems.first().map_or("", String::as_str);
        let baseline = if first.starts_with("Baseline:") {
            first
        } else {
            ""
        };
        out.push_str(&explanation(p, baseline));
    }
    out.push_str("-----------------\nMetric signatures\n-----------------\n");
    for (name, sig) in &results.signatures {
        out.push_str(&format!(" - {name:<10} {sig}\n"));
    }
    out
}

/// The paired-test block of `print_results_table`.
fn explanation(p: Paired, baseline: &str) -> String {
    let (test, kind) = if p.bootstrap {
        ("bootstrap resampling", "resampling trials")
    } else {
        ("approximate randomization", "trials")
    };
    let msg = format!("Paired {test} test with {} {kind}", p.n);
    let dash = "-".repeat(msg.chars().count());
    let mut s = format!("{dash}\n{msg}\n{dash}\n");
    s.push_str(&format!(
        " - Each system is pairwise compared to {baseline}.\n"
    ));
    s.push_str(if p.bootstrap {
        "   Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric.\n"
    } else {
        "   Actual system score is provided for each metric.\n"
    });
    s.push_str(concat!(
        "\n",
        " - Null hypothesis: the system and the baseline translations are essentially\n",
        "   generated by the same underlying process. For a given system and the baseline,\n",
        "   the p-value is roughly the probability of the absolute score difference (delta)\n",
        "   or higher occurring due to chance, under the assumption that the null hypothesis is correct.\n",
        "\n",
        " - Assuming a significance threshold of 0.05, the null hypothesis can be rejected\n",
        "   for p-values < 0.05 (marked with \"*\"). This means that the delta is unlikely to be attributed\n",
        "   to chance, hence the system is significantly \"different\" than the baseline.\n",
        "   Otherwise, the p-values are highlighted in red.\n",
        "\n",
        " - NOTE: Significance does not tell whether a system is \"better\" than the baseline but rather\n",
        "   emphasizes the \"difference\" of the systems in terms of the replicability of the delta.\n",
        "\n",
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (significance audit): `tabulate` strips its cells, so a system file named
    /// `x ` is right-aligned as `x`, like ` x`; widths count code points.
    #[test]
    fn system_names_are_stripped_as_tabulate_strips_cells() {
        let results = |name: &str| Results {
            systems: vec![name.to_owned(), "long name".to_owned()],
            columns: vec![(
                "BLEU".to_owned(),
                vec![Cell::Text("1.0".to_owned()), Cell::Text("2.0".to_owned())],
            )],
            signatures: Vec::new(),
        };
        for name in ["x", "x ", " x", "\u{3000}x\t"] {
            let text = table(&results(name), 1, false, None);
            assert!(text.contains("│         x │"), "{name:?}:\n{text}");
        }
        let latex = table(&results("x "), 1, true, None);
        assert!(latex.contains("         x & "), "{latex}");
    }
}
