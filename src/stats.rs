//! Stats documents (SPEC §7): the summed statistics of a shard, written by `--emit stats` and
//! summed by `bleu-stream merge`, so that `parallel --pipe`, Hadoop Streaming or Spark
//! `rdd.pipe` give exactly the score of one process over the whole input.
//!
//! A document is one JSON object (one line):
//!
//! ```text
//! {"format":"bleu-stream-stats","version":2,"tool":"bleu-stream 0.1.0",
//!  "segments":N,"bad_lines":B,"expected_bad_lines":E,
//!  "metrics":[{"key":"bleu","config":{"tokenizer":"13a",…},"signature":"nrefs:1|…","stats":{…}}],
//!  "resampling":{…}}                       (only with --confidence, see `significance`)
//! ```
//!
//! `config` is the metric's typed settings, serialized ([`DynMetric::config_json`]): two shards
//! merge only when their metric keys and settings are equal, and `merge` rebuilds each metric
//! from them through the registry ([`crate::metric::registry::from_config`]). `stats` holds integers only (NIST: its n-gram table in id
//! order), whatever each metric's [`Metric::save_totals`](crate::metric::Metric::save_totals)
//! writes. Shards are merged in the order given, which is the input order for `parallel -k`;
//! sums do not depend on it, and the one metric whose internal ids do (NIST) comes out as one
//! run would build it when the order is kept.

use std::any::Any;

use serde::Serialize;
use serde_json::Value;

use crate::confidence::{Resampler, SavedResampling};
use crate::groups::{Groups, SavedGroup};
use crate::metric::{saved, DynMetric};
use crate::output::{BadLines, CorpusReport};

/// The `format` of a stats document.
pub const FORMAT: &str = "bleu-stream-stats";
/// The version of the document layout; documents of another version are refused. (Version 1
/// recorded settings as command-line options; version 2 as typed settings.)
pub const VERSION: u64 = 2;
/// The version of documents with per-group statistics (`--group-by`): a reader of version 2
/// would silently drop the groups. Documents without groups keep version 2.
pub const GROUPED_VERSION: u64 = 3;

/// The tool that wrote a document (informational).
const TOOL: &str = concat!("bleu-stream ", env!("CARGO_PKG_VERSION"));

/// What a run (or a merge) has summed: the contents of a stats document.
pub struct Sums<'a> {
    pub metrics: &'a [Box<dyn DynMetric>],
    pub totals: &'a [Box<dyn Any + Send>],
    /// The framing the lines were read with ([`crate::input::Framing::record`]).
    pub framing: Option<&'a Value>,
    pub segments: u64,
    pub bad_lines: u64,
    /// Of `bad_lines`, those of runs under `--on-error skip`, which expected them: `merge`
    /// fails where the others outnumber the scored lines, as one run over the shards' input
    /// would ([`crate::output::BadLines::Shards`]).
    pub expected_bad_lines: u64,
    pub resampler: Option<&'a Resampler>,
    /// `--group-by`: the groups' totals and the key argument (documents then have version
    /// [`GROUPED_VERSION`]).
    pub groups: Option<&'a Groups>,
    pub group_by: Option<String>,
}

/// A stats document as written (see the module doc): the fields in this order.
#[derive(Serialize)]
pub struct Document<'a> {
    format: &'static str,
    version: u64,
    tool: &'static str,
    /// `null` while nothing decided the framing.
    framing: Option<&'a Value>,
    segments: u64,
    bad_lines: u64,
    /// Always written: its absence marks a document of an earlier version, which did not say
    /// ([`header`]).
    expected_bad_lines: u64,
    metrics: Vec<MetricPart>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resampling: Option<SavedResampling<'a>>,
    /// `--group-by`: its key argument and the groups (both or neither).
    #[serde(skip_serializing_if = "Option::is_none")]
    group_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<Vec<SavedGroup<'a>>>,
}

/// One metric of a document: its key, settings, signature and totals.
#[derive(Serialize)]
struct MetricPart {
    key: &'static str,
    config: Value,
    signature: String,
    stats: Value,
}

impl<'a> Sums<'a> {
    /// The stats document. `Err` when a metric's totals cannot be merged exactly
    /// ([`DynMetric::totals_refusal`]).
    pub fn document(&self) -> Result<Document<'a>, String> {
        let mut parts = Vec::with_capacity(self.metrics.len());
        for (m, t) in self.metrics.iter().zip(self.totals) {
            if let Some(why) = m.totals_refusal(t.as_ref()) {
                return Err(format!("cannot emit mergeable statistics: {why}"));
            }
            parts.push(MetricPart {
                key: m.key(),
                config: m.config_json(),
                signature: m.score(t.as_ref()).signature,
                stats: m.save_totals(t.as_ref()),
            });
        }
        let (group_by, groups) = match (self.groups, &self.group_by) {
            (Some(groups), Some(by)) => (Some(by.clone()), Some(groups.save(self.metrics)?)),
            _ => (None, None),
        };
        Ok(Document {
            format: FORMAT,
            version: match self.groups {
                Some(_) => GROUPED_VERSION,
                None => VERSION,
            },
            tool: TOOL,
            framing: self.framing,
            segments: self.segments,
            bad_lines: self.bad_lines,
            expected_bad_lines: self.expected_bad_lines,
            metrics: parts,
            resampling: self.resampler.map(|r| r.save(self.metrics)),
            group_by,
            groups,
        })
    }
}

/// `smooth_method: exp against floor`, for messages: the settings whose values differ.
fn differing_settings(mine: &Value, theirs: &Value) -> String {
    let (Some(mine), Some(theirs)) = (mine.as_object(), theirs.as_object()) else {
        return format!("{theirs} against {mine}");
    };
    let mut keys: Vec<&String> = mine.keys().chain(theirs.keys()).collect();
    keys.dedup();
    let mut parts = Vec::new();
    for key in keys {
        let (a, b) = (theirs.get(key), mine.get(key));
        if a != b
            && !parts
                .iter()
                .any(|p: &String| p.starts_with(&format!("{key}:")))
        {
            let show = |v: Option<&Value>| v.map_or("nothing".to_owned(), Value::to_string);
            parts.push(format!("{key}: {} against {}", show(a), show(b)));
        }
    }
    parts.join(", ")
}

/// `TSV with 2 references`, for messages.
fn describe_framing(f: &Value) -> String {
    let input = f.get("input").and_then(Value::as_str).unwrap_or("?");
    match f.get("refs") {
        Some(Value::Number(n)) => format!(
            "{input} with {n} reference{}",
            if n.as_u64() == Some(1) { "" } else { "s" }
        ),
        Some(Value::String(s)) if s == "any" => format!("{input} with any number of references"),
        _ => input.to_owned(),
    }
}

/// Checks a document's `framing` (`null`, or what [`crate::input::Framing::record`] writes).
fn check_framing(framing: &Value) -> Result<(), String> {
    let Some(f) = framing.as_object() else {
        return match framing {
            Value::Null => Ok(()),
            _ => Err(format!("\"framing\" is {framing}, not an object")),
        };
    };
    let refs_ok = |refs: Option<&Value>| match refs {
        Some(Value::String(s)) => s == "any",
        Some(n) => n
            .as_u64()
            .is_some_and(|n| (1..=crate::input::MAX_REFS as u64).contains(&n)),
        None => false,
    };
    let ok = match f.get("input").and_then(Value::as_str) {
        Some("tsv" | "jsonl") => f.len() == 2 && refs_ok(f.get("refs")),
        Some("parallel") => f.len() == 1,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "\"framing\" is {framing}, not a framing bleu-stream records (input tsv or jsonl \
             with refs 1 to {} or \"any\", or input parallel)",
            crate::input::MAX_REFS
        ))
    }
}

/// The header of a document, checked.
struct Header<'a> {
    keys: Vec<&'a str>,
    configs: Vec<&'a Value>,
    segments: u64,
    bad_lines: u64,
    expected_bad_lines: u64,
    parts: &'a [Value],
}

/// The fields of a document ([`Document`]).
const DOCUMENT_KEYS: [&str; 11] = [
    "format",
    "version",
    "tool",
    "framing",
    "segments",
    "bad_lines",
    "expected_bad_lines",
    "metrics",
    "resampling",
    "group_by",
    "groups",
];

fn header(doc: &Value) -> Result<Header<'_>, String> {
    let obj = doc
        .as_object()
        .ok_or("not a stats document (not a JSON object)")?;
    if obj.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(format!(
            "not a stats document (no \"format\": \"{FORMAT}\"; write one with --emit stats)"
        ));
    }
    saved::only_keys(obj, &DOCUMENT_KEYS, "stats document")?;
    let version = match obj.get("version").and_then(Value::as_u64) {
        Some(v @ (VERSION | GROUPED_VERSION)) => v,
        Some(v) => {
            return Err(format!(
                "stats format version {v}, but this bleu-stream reads versions {VERSION} and \
                 {GROUPED_VERSION} (3: with --group-by)"
            ))
        }
        None => return Err("stats document without a version".to_owned()),
    };
    // Version 3 is exactly the documents with groups: a version-2 reader must not meet them.
    if (version == GROUPED_VERSION) != obj.contains_key("group_by") {
        return Err(format!(
            "stats format version {version} {} \"group_by\"",
            if version == GROUPED_VERSION {
                "without"
            } else {
                "with"
            }
        ));
    }
    check_framing(obj.get("framing").unwrap_or(&Value::Null))?;
    let parts = obj
        .get("metrics")
        .and_then(Value::as_array)
        .filter(|p| !p.is_empty())
        .ok_or("stats document without metrics")?;
    let mut keys = Vec::new();
    let mut configs = Vec::new();
    for p in parts {
        let key = p
            .get("key")
            .and_then(Value::as_str)
            .ok_or("metric statistics without a key")?;
        let part = p.as_object().ok_or("metric statistics are not an object")?;
        saved::only_keys(
            part,
            &["key", "config", "signature", "stats"],
            &format!("metric {key}"),
        )?;
        if keys.contains(&key) {
            return Err(format!("metric {key} listed twice"));
        }
        keys.push(key);
        configs.push(
            p.get("config")
                .filter(|c| c.is_object())
                .ok_or("metric statistics without settings (\"config\")")?,
        );
    }
    let bad_lines = saved::count_field(obj, "bad_lines")?;
    // Absent in documents of earlier versions (of the same format version), which did not say
    // whether their runs expected their bad lines: those are not judged, as before.
    let expected_bad_lines = match obj.contains_key("expected_bad_lines") {
        true => saved::count_field(obj, "expected_bad_lines")?,
        false => bad_lines,
    };
    if expected_bad_lines > bad_lines {
        return Err(format!(
            "inconsistent statistics: {expected_bad_lines} expected bad lines of {bad_lines} \
             bad lines"
        ));
    }
    Ok(Header {
        keys,
        configs,
        segments: saved::count_field(obj, "segments")?,
        bad_lines,
        expected_bad_lines,
        parts,
    })
}

/// Stats documents summed so far.
pub struct Merged {
    pub keys: Vec<String>,
    /// Per metric, its settings as the first document records them.
    pub configs: Vec<Value>,
    pub metrics: Vec<Box<dyn DynMetric>>,
    pub totals: Vec<Box<dyn Any + Send>>,
    pub segments: u64,
    pub bad_lines: u64,
    /// Of `bad_lines`, those the documents' runs expected (`--on-error skip`).
    pub expected_bad_lines: u64,
    /// The documents' resampling parts (`--confidence`), merged.
    pub resampler: Option<Resampler>,
    /// The framing every document was read with (`None`: no document's lines decided one).
    pub framing: Option<Value>,
    /// Per-group totals of grouped documents (`--group-by`), and the key they were made with.
    pub groups: Option<Groups>,
    pub group_by: Option<String>,
    /// Per metric, the keys its saved statistics may have.
    known_keys: Vec<saved::KnownKeys>,
}

impl Merged {
    /// Starts from the first document: its metrics and settings are what every other document
    /// must have. Grouped documents may hold at most `max_groups` distinct groups in all.
    pub fn new(first: &Value, max_groups: usize) -> Result<Merged, String> {
        let h = header(first)?;
        let keys: Vec<String> = h.keys.iter().map(|k| (*k).to_owned()).collect();
        let metrics = keys
            .iter()
            .zip(&h.configs)
            .map(|(k, c)| crate::metric::registry::from_config(k, c))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(why) = metrics.iter().find_map(|m| m.merge_refusal()) {
            return Err(format!("cannot merge: {why}"));
        }
        let totals = metrics.iter().map(|m| m.new_totals()).collect();
        let known_keys = metrics
            .iter()
            .map(|m| saved::KnownKeys::new(m.as_ref()))
            .collect();
        let resampler = match first.get("resampling") {
            None => None,
            Some(saved) => Some(Resampler::new(Resampler::saved_settings(saved)?, &metrics)?),
        };
        let group_by = first
            .get("group_by")
            .map(|g| {
                g.as_str()
                    .map(str::to_owned)
                    .ok_or("\"group_by\" is not a string")
            })
            .transpose()?;
        let groups = group_by.as_ref().map(|_| {
            Groups::new(
                max_groups,
                resampler.as_ref().map(|r: &Resampler| r.settings),
            )
        });
        Ok(Merged {
            groups,
            group_by,
            resampler,
            framing: None,
            keys,
            configs: h.configs.into_iter().cloned().collect(),
            metrics,
            totals,
            segments: 0,
            bad_lines: 0,
            expected_bad_lines: 0,
            known_keys,
        })
    }

    /// Adds a document whose segments follow everything added so far.
    pub fn add(&mut self, doc: &Value) -> Result<(), String> {
        let h = header(doc)?;
        if h.keys != self.keys {
            return Err(format!(
                "metrics {} differ from the first document's {}",
                h.keys.join(","),
                self.keys.join(",")
            ));
        }
        for ((key, mine), theirs) in self.keys.iter().zip(&self.configs).zip(&h.configs) {
            if mine != *theirs {
                return Err(format!(
                    "{key} settings differ from the first document's ({}): statistics of \
                     different settings do not add up",
                    differing_settings(mine, theirs)
                ));
            }
        }
        match (&self.framing, doc.get("framing").filter(|f| !f.is_null())) {
            (Some(mine), Some(theirs)) if mine != theirs => {
                return Err(format!(
                    "its input was framed as {}, the earlier documents' as {}; one run over \
                     the whole input frames every line alike (give every shard explicit \
                     --input and --refs)",
                    describe_framing(theirs),
                    describe_framing(mine)
                ))
            }
            (None, Some(theirs)) => self.framing = Some(theirs.clone()),
            _ => {}
        }
        match (&self.resampler, doc.get("resampling")) {
            (None, None) | (Some(_), Some(_)) => {}
            (Some(_), None) => {
                return Err("no resampling statistics (written without --confidence), \
                            unlike the first document"
                    .to_owned())
            }
            (None, Some(_)) => {
                return Err("resampling statistics (written with --confidence), unlike \
                            the first document"
                    .to_owned())
            }
        }
        let their_group_by = doc.get("group_by").and_then(Value::as_str);
        if their_group_by != self.group_by.as_deref() {
            let show = |g: Option<&str>| {
                g.map_or("no --group-by".to_owned(), |g| format!("--group-by {g}"))
            };
            return Err(format!(
                "written with {}, unlike the first document ({}): per-group statistics do not \
                 add up with others",
                show(their_group_by),
                show(self.group_by.as_deref())
            ));
        }
        let framing = doc.get("framing").unwrap_or(&Value::Null);
        if framing.is_null() && h.segments > 0 {
            // One run frames its first good line; `null` says there was none.
            return Err(format!(
                "\"framing\" is null (no line was framed) but the document counts {} segments",
                h.segments
            ));
        }
        let mut group_sums = None;
        // A TSV column's key is text: a number key comes from no run (output audit).
        let text_keys = self.group_by.as_deref().filter(|g| {
            matches!(
                crate::input::group::GroupBy::parse(g),
                Ok(crate::input::group::GroupBy::Column(_))
            )
        });
        if let Some(groups) = &mut self.groups {
            let saved = doc
                .get("groups")
                .ok_or("a document with \"group_by\" but without \"groups\"")?;
            let (segments, bad_lines, sums) =
                groups.merge_saved(&self.metrics, saved, framing, &self.known_keys, text_keys)?;
            group_sums = Some(sums);
            // Every scored line has a key; a bad line may have none (it counts overall only).
            if segments != h.segments || bad_lines > h.bad_lines {
                return Err(format!(
                    "inconsistent statistics: the groups count {segments} segments and \
                     {bad_lines} bad lines, the document {} and {}",
                    h.segments, h.bad_lines
                ));
            }
        }
        // What this document adds to each metric's sums: its own totals' (`Metric::sums`).
        let mut sums = Vec::with_capacity(self.metrics.len());
        for (((m, t), part), known) in self
            .metrics
            .iter()
            .zip(&mut self.totals)
            .zip(h.parts)
            .zip(&mut self.known_keys)
        {
            let stats = part
                .get("stats")
                .ok_or_else(|| format!("{} statistics missing", m.key()))?;
            saved::fits_document(m.as_ref(), stats, h.segments, framing)?;
            let before = m.sums(t.as_ref());
            m.merge_saved(t.as_mut(), stats)?;
            known.check(m.key(), stats)?;
            sums.push(saved::added(&before, &m.sums(t.as_ref())));
        }
        // Every scored line is in one group: the groups add up to the document.
        if let Some(group_sums) = group_sums {
            for ((m, groups), doc) in self.metrics.iter().zip(&group_sums).zip(&sums) {
                // (No group at all adds nothing: zeros.)
                let same = if groups.is_empty() {
                    doc.iter().all(|&x| x == 0)
                } else {
                    groups == doc
                };
                if !same {
                    return Err(format!(
                        "inconsistent statistics: the groups' {} statistics add up to \
                         {groups:?}, the document's are {doc:?}",
                        m.key()
                    ));
                }
            }
        }
        if let (Some(r), Some(saved)) = (&mut self.resampler, doc.get("resampling")) {
            r.merge_saved(&self.metrics, saved, h.segments, &sums)?;
        }
        self.segments = saved::add_count(self.segments, h.segments, "segments")?;
        self.bad_lines = saved::add_count(self.bad_lines, h.bad_lines, "bad_lines")?;
        // At most `bad_lines`, which did not overflow.
        self.expected_bad_lines += h.expected_bad_lines;
        Ok(())
    }

    /// The corpus report of everything merged.
    pub fn report(&self) -> CorpusReport {
        CorpusReport {
            is_final: true,
            segments: self.segments,
            bad_lines: self.bad_lines,
            metrics: crate::confidence::scores(
                &self.metrics,
                &self.totals,
                self.resampler.as_ref(),
                true,
            ),
            note: None,
            groups: self
                .groups
                .as_ref()
                .map_or_else(Vec::new, |g| g.reports(&self.metrics, true)),
        }
    }

    /// Why the merged totals are not exact, if so (see [`DynMetric::totals_refusal`]).
    pub fn refusal(&self) -> Option<String> {
        self.metrics
            .iter()
            .zip(&self.totals)
            .find_map(|(m, t)| m.totals_refusal(t.as_ref()))
            .or_else(|| {
                let groups = self.groups.as_ref()?;
                groups.list.iter().find_map(|g| {
                    let why = self
                        .metrics
                        .iter()
                        .zip(&g.totals)
                        .find_map(|(m, t)| m.totals_refusal(t.as_ref()))?;
                    Some(format!("group {}: {why}", g.key))
                })
            })
    }

    /// How the merged bad lines are judged: as one run over the shards' input would judge
    /// them, on the bad lines the shards' runs did not expect ([`BadLines::Shards`]); where
    /// every one was expected, as under `--on-error skip`.
    pub fn bad_lines(&self) -> BadLines {
        let unexpected = self.bad_lines - self.expected_bad_lines;
        if unexpected > self.segments {
            BadLines::Shards
        } else if unexpected == 0 && self.bad_lines > 0 {
            BadLines::Skip
        } else {
            BadLines::Counted
        }
    }

    /// The merged statistics as one document (tree-shaped merges: merge the merges).
    pub fn document(&self) -> Result<Document<'_>, String> {
        Sums {
            metrics: &self.metrics,
            totals: &self.totals,
            framing: self.framing.as_ref(),
            segments: self.segments,
            bad_lines: self.bad_lines,
            expected_bad_lines: self.expected_bad_lines,
            resampler: self.resampler.as_ref(),
            groups: self.groups.as_ref(),
            group_by: self.group_by.clone(),
        }
        .document()
    }
}
