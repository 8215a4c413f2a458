//! The shape of the source tree that ARCHITECTURE.md promises (issue 15, point 4), checked on the
//! source text so that a change that breaks it fails here rather than in review:
//!
//! * every top-level module has a place in the layer table, and refers (`crate::NAME` in code,
//!   not in comments) only to modules of lower layers: no upward arrow, hence no import circle
//!   between top-level modules;
//! * no circle between the sibling modules of one module (`super::NAME` / `crate::a::NAME`);
//! * no hand-written source file has more than 800 lines (generated tables aside: they say so
//!   on their first line).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// ARCHITECTURE.md's table, lowest layer first. A module may refer only to modules of lower
/// layers (modules of one layer do not refer to each other).
const LAYERS: &[&[&str]] = &[
    &["stdio"],
    &["diagnostic", "status", "heap", "guard_page", "test_rng"],
    &["unicode"],
    &["tokenize"],
    &["ngram"],
    &["input"],
    &["metric"],
    &["significance"],
    &["confidence"],
    &["output"],
    &["gate", "groups"],
    &["stats", "stats_stream"],
    &["signals"],
    &["pipeline"],
    &["cli"],
    &["command"],
    &["app"],
];

const MAX_LINES: usize = 800;

/// Every `.rs` file under `dir`, with its module path (`metric/nist/mod.rs` → `metric::nist`).
fn sources(dir: &Path, module: &[String], out: &mut Vec<(PathBuf, Vec<String>)>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let mut inner = module.to_vec();
        if path.is_dir() {
            inner.push(name);
            sources(&path, &inner, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            if name != "mod" {
                inner.push(name);
            }
            out.push((path, inner));
        }
    }
}

/// The code of a line: what comes before a `//` comment (a `//` inside a string literal cuts it
/// short, which can only hide a reference, never invent one).
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// The longest prefix of `segments` that names an existing module under `base`.
fn resolve(src: &Path, mut base: Vec<String>, segments: &[&str]) -> Vec<String> {
    for s in segments {
        let mut next = base.clone();
        next.push((*s).to_owned());
        let file = src.join(next.join("/"));
        if file.is_dir() || file.with_extension("rs").is_file() {
            base = next;
        } else {
            break;
        }
    }
    base
}

/// The items of a `{…}` use group starting at `text[open]`, as paths (`{a::b, c as d, e::{f}}`
/// → `a::b`, `c`, `e`), and the offset after the group.
fn group_items(text: &str, open: usize) -> (Vec<String>, usize) {
    let mut depth = 0;
    let mut items = vec![String::new()];
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return (items, open + i + 1);
                }
            }
            ',' if depth == 1 => items.push(String::new()),
            _ if depth == 1 => items.last_mut().unwrap().push(c),
            _ => {}
        }
    }
    (items, text.len())
}

/// The module paths `text` (the code of module `module`) refers to through `crate::` or
/// `super::`, as far as they name existing modules (`crate::metric::DynMetric` → `metric`;
/// `super::{saved, Metric}` in `metric::bleu` → `metric::saved`, `metric`), with the offset of
/// each.
fn references(src: &Path, module: &[String], text: &str) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    for start in 0..text.len() {
        if !text.is_char_boundary(start) {
            continue;
        }
        let rest = &text[start..];
        let head = if rest.starts_with("crate::") {
            "crate"
        } else if rest.starts_with("super::") {
            "super"
        } else {
            continue;
        };
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':') {
            continue; // `x_crate::`, or `super::super::x` counted from the first `super`.
        }
        let path_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let path: Vec<&str> = rest[..path_len]
            .split("::")
            .filter(|s| !s.is_empty())
            .collect();
        let mut base: Vec<String> = if head == "crate" {
            Vec::new()
        } else {
            // `super` of `a::b` is `a`, whether `b` is `a/b.rs` or `a/b/mod.rs`.
            module[..module.len().saturating_sub(1)].to_vec()
        };
        let mut segments = &path[1..];
        while let Some(rest) = segments.strip_prefix(&["super"]) {
            base.pop();
            segments = rest;
        }
        let resolved = resolve(src, base, segments);
        if rest[path_len..].starts_with('{') && resolved.len() == module_depth(&resolved, segments)
        {
            // A use group right after the resolved path: each item may name a module.
            let (items, _) = group_items(text, start + path_len);
            for item in items.iter().filter(|i| !i.trim().is_empty()) {
                let item: Vec<&str> = item
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .find(|s| !s.is_empty())
                    .unwrap_or("")
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .collect();
                let path = resolve(src, resolved.clone(), &item);
                if !path.is_empty() {
                    found.push((start, path));
                }
            }
        } else if !resolved.is_empty() {
            found.push((start, resolved));
        }
    }
    found
}

/// `resolved.len()` when every segment after the head named a module (the group then holds
/// the module's items), something else otherwise.
fn module_depth(resolved: &[String], segments: &[&str]) -> usize {
    if resolved.ends_with(&segments.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()) {
        resolved.len()
    } else {
        usize::MAX
    }
}

#[test]
fn layers_hold_no_circle_no_upward_arrow_no_file_over_800_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &[], &mut files);
    let layer: BTreeMap<&str, usize> = LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, names)| names.iter().map(move |n| (*n, i)))
        .collect();
    let mut problems = Vec::new();
    // Sibling graph: `a::b` → `a::c`, within each module.
    let mut siblings: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut checked = 0;
    for (path, module) in &files {
        let text = fs::read_to_string(path).unwrap();
        let shown = path.strip_prefix(&src).unwrap().display().to_string();
        let generated = text
            .lines()
            .next()
            .is_some_and(|l| l.contains("@generated") || l.contains("Generated by"));
        let lines = text.lines().count();
        if lines > MAX_LINES && !generated {
            problems.push(format!("src/{shown}: {lines} lines (at most {MAX_LINES})"));
        }
        let top = module[0].as_str();
        if top == "lib" || top == "main" {
            continue;
        }
        let Some(&mine) = layer.get(top) else {
            problems.push(format!(
                "src/{shown}: module `{top}` has no layer (add it to ARCHITECTURE.md's table \
                 and to LAYERS here)"
            ));
            continue;
        };
        let code: String = text.lines().map(|l| code(l).to_owned() + "\n").collect();
        for (offset, target) in references(&src, module, &code) {
            let n = code[..offset].matches('\n').count();
            {
                checked += 1;
                let other = target[0].as_str();
                if other != top {
                    match layer.get(other) {
                        Some(&theirs) if theirs < mine => {}
                        _ => problems.push(format!(
                            "src/{shown}:{}: `{top}` refers to `{other}`, which is not below it",
                            n + 1
                        )),
                    }
                } else if module.len() >= 2 && target.len() >= 2 {
                    // Two children of one module (not a parent and its child).
                    let (a, b) = (&module[..2], &target[..2]);
                    if a != b {
                        siblings
                            .entry(a.join("::"))
                            .or_default()
                            .insert(b.join("::"));
                    }
                }
            }
        }
    }
    for (from, tos) in &siblings {
        for to in tos {
            // A path back from `to` to `from` closes a circle.
            let mut seen = BTreeSet::new();
            let mut stack = vec![to.clone()];
            while let Some(m) = stack.pop() {
                if m == *from {
                    problems.push(format!("import circle: {from} → {to} → … → {from}"));
                    break;
                }
                if seen.insert(m.clone()) {
                    stack.extend(siblings.get(&m).into_iter().flatten().cloned());
                }
            }
        }
    }
    assert!(
        checked > 500,
        "only {checked} references found: is the scan broken?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scan_sees_what_it_must() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let m = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
    let refs = |module: &str, line: &str| -> Vec<Vec<String>> {
        let code = code(line);
        references(&src, &m(module), code)
            .into_iter()
            .map(|(_, path)| path)
            .collect()
    };
    assert_eq!(
        refs("metric::bleu", "use crate::metric::DynMetric;"),
        [m("metric")]
    );
    assert_eq!(
        refs("metric::bleu", "use super::registry::Registered;"),
        [m("metric::registry")]
    );
    assert_eq!(
        refs("metric::nist::table", "use super::super::pymath;"),
        [m("metric::pymath")]
    );
    assert_eq!(
        refs("input::reader", "x(crate::output::Sink) // crate::pipeline"),
        [m("output")]
    );
    assert!(refs("input", "/// [`crate::pipeline`]").is_empty());
    assert_eq!(
        refs("metric::bleu", "use super::{pymath, Metric};"),
        [m("metric::pymath"), m("metric")]
    );
    assert_eq!(
        refs(
            "metric::registry",
            "use super::{\n    bleu,\n    nist::{a, b},\n};"
        ),
        [m("metric::bleu"), m("metric::nist")]
    );
}
