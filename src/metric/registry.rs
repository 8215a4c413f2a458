//! The metric registry: the one list of metrics. Adding a metric is adding its module and one
//! line in [`REGISTRY`]; the command line (its options), `--metrics`, stats documents and
//! `merge`, `compare` and every output format find it here.

use clap::{ArgMatches, Command, FromArgMatches};
use serde::Deserialize as _;
use serde_json::Value;

use super::options::CommonArgs;
use super::{bleu, chrf, gleu, mteval_bleu, multi_bleu, nist, nltk_bleu, nltk_chrf, ter};
use super::{DynMetric, Registered};

/// A metric built and type-erased, or a usage error.
pub type Built = Result<Box<dyn DynMetric>, String>;

/// One registered metric, type-erased.
pub struct Entry {
    pub name: &'static str,
    pub summary: &'static str,
    /// Adds the metric's options to a command.
    pub args: fn(Command) -> Command,
    /// Builds the metric from parsed options.
    pub from_args: fn(&CommonArgs, &ArgMatches) -> Built,
    /// Builds the metric from the settings a stats document carries ([`DynMetric::config_json`]).
    pub from_config: fn(&Value) -> Built,
}

const fn entry<M: Registered>() -> Entry {
    Entry {
        name: M::NAME,
        summary: M::SUMMARY,
        args: <M::Args as clap::Args>::augment_args,
        from_args: build_from_args::<M>,
        from_config: build_from_config::<M>,
    }
}

fn build_from_args<M: Registered>(common: &CommonArgs, matches: &ArgMatches) -> Built {
    let args = M::Args::from_arg_matches(matches).map_err(|e| e.to_string())?;
    Ok(Box::new(M::new(M::config_from_args(common, args)?)?))
}

/// Settings read back from a stats document must be exactly what the metric writes: serde
/// passes over keys a struct does not name, so `{"tokenizer": "13a", "lowercase ": true}`
/// (a misspelt key) would merge as settings it does not hold. The built metric's own
/// settings are compared with the document's.
fn build_from_config<M: Registered>(config: &Value) -> Built {
    let settings =
        M::Config::deserialize(config).map_err(|e| format!("{} settings: {e}", M::NAME))?;
    let metric: Box<dyn DynMetric> = Box::new(M::new(settings)?);
    let own = metric.config_json();
    if own != *config {
        return Err(format!(
            "{} settings are not what bleu-stream writes: {}",
            M::NAME,
            first_difference(config, &own)
        ));
    }
    Ok(metric)
}

/// The first key (in document order) where `theirs` differs from `ours`, said briefly.
fn first_difference(theirs: &Value, ours: &Value) -> String {
    let brief = |v: &Value| {
        let text = v.to_string();
        match text.char_indices().nth(60) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text,
        }
    };
    if let (Some(t), Some(o)) = (theirs.as_object(), ours.as_object()) {
        for (key, value) in t {
            match o.get(key) {
                None => return format!("unknown key {}", brief(&Value::from(key.as_str()))),
                Some(own) if own != value => {
                    return format!(
                        "{} is {}, written as {}",
                        brief(&Value::from(key.as_str())),
                        brief(value),
                        brief(own)
                    )
                }
                _ => {}
            }
        }
        if let Some(key) = o.keys().find(|k| !t.contains_key(*k)) {
            return format!("no {}", brief(&Value::from(key.as_str())));
        }
    }
    format!("{}, written as {}", brief(theirs), brief(ours))
}

/// Every metric, in the order `--help` lists them.
pub const REGISTRY: &[Entry] = &[
    entry::<bleu::Bleu>(),
    entry::<chrf::Chrf>(),
    entry::<ter::Ter>(),
    entry::<nltk_bleu::NltkBleu>(),
    entry::<multi_bleu::MultiBleu>(),
    entry::<nltk_chrf::NltkChrf>(),
    entry::<gleu::Gleu>(),
    entry::<nist::Nist>(),
    entry::<mteval_bleu::MtevalBleu>(),
];

/// The registered metric called `name`.
pub fn find(name: &str) -> Result<&'static Entry, String> {
    REGISTRY.iter().find(|e| e.name == name).ok_or_else(|| {
        format!(
            "unknown metric '{name}' (available: {})",
            names().collect::<Vec<_>>().join(", ")
        )
    })
}

/// The names `--metrics` accepts.
pub fn names() -> impl Iterator<Item = &'static str> {
    REGISTRY.iter().map(|e| e.name)
}

/// Whether the metric of `e` has a vector form (`compare` and `--confidence` resample it),
/// judged on its default settings: a metric has one for all settings or for none.
pub fn resamplable(e: &Entry) -> bool {
    let matches = (e.args)(Command::new("x"))
        .no_binary_name(true)
        .try_get_matches_from(std::iter::empty::<&str>());
    matches.is_ok_and(|m| {
        (e.from_args)(&CommonArgs::default(), &m).is_ok_and(|m| m.vector_len().is_some())
    })
}

/// Adds every metric's options to `cmd`. (clap's derived `augment_args` also sets the
/// command's description from the options struct's doc comment; the command keeps its own.)
pub fn augment(cmd: Command) -> Command {
    use clap::builder::Resettable;
    let (about, long_about) = (cmd.get_about().cloned(), cmd.get_long_about().cloned());
    let cmd = REGISTRY.iter().fold(cmd, |cmd, e| (e.args)(cmd));
    let cmd = match about {
        Some(text) => cmd.about(text),
        None => cmd.about(Resettable::Reset),
    };
    match long_about {
        Some(text) => cmd.long_about(text),
        None => cmd.long_about(Resettable::Reset),
    }
}

/// Builds the metrics named in `names`, in the order given, from parsed options.
pub fn build(
    names: &[String],
    common: &CommonArgs,
    matches: &ArgMatches,
) -> Result<Vec<Box<dyn DynMetric>>, String> {
    let mut metrics: Vec<Box<dyn DynMetric>> = Vec::new();
    for name in names {
        let metric = (find(name)?.from_args)(common, matches)?;
        if metrics.iter().any(|m| m.key() == metric.key()) {
            return Err(format!("metric '{name}' given twice"));
        }
        metrics.push(metric);
    }
    if metrics.is_empty() {
        return Err("no metric selected".to_owned());
    }
    Ok(metrics)
}

/// Options given on the command line that belong to a metric `names` does not select
/// (`-m bleu --weights …`, `-m chrf --nist-order 4`): each would silently do nothing, which
/// is rarely what was meant (a misspelt metric list, `chrf` for `nltk-chrf`). One message per
/// option, naming its metric.
pub fn options_without_their_metric(names: &[String], matches: &ArgMatches) -> Vec<String> {
    let mut notes = Vec::new();
    for e in REGISTRY
        .iter()
        .filter(|e| !names.iter().any(|n| n == e.name))
    {
        for arg in (e.args)(Command::new("x")).get_arguments() {
            if matches.value_source(arg.get_id().as_str())
                == Some(clap::parser::ValueSource::CommandLine)
            {
                let flag = arg
                    .get_long()
                    .map_or_else(|| arg.get_id().to_string(), |long| format!("--{long}"));
                notes.push(format!(
                    "{flag} is an option of {}, which --metrics does not select ({}): it has \
                     no effect",
                    e.name,
                    names.join(",")
                ));
            }
        }
    }
    notes.extend(common_options_without_effect(names, matches));
    notes
}

/// The shared options ([`CommonArgs`]) that nothing selected uses: mteval's switches without
/// `nist` or `mteval-bleu` (`-m ter --case-sensitive`, where TER's own is
/// `--ter-case-sensitive`), a MeCab dictionary or SentencePiece model without the tokenizer
/// that reads it (found by the compare audit: each was ignored in silence), `--tokenize` or
/// `--lowercase` where no metric selected reads it (`-m chrf -t ja-mecab`, `-m ter -l`).
fn common_options_without_effect(names: &[String], matches: &ArgMatches) -> Vec<String> {
    let given = |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
    let selects = |keys: &[&str]| names.iter().any(|n| keys.contains(&n.as_str()));
    let mut notes = Vec::new();
    for (id, flag) in [
        ("mteval_international", "--mteval-international"),
        ("case_sensitive", "--case-sensitive"),
    ] {
        // NIST reads them only with mteval's own tokenization.
        let nist_mteval = matches
            .get_one::<String>("nist_tokenize")
            .is_none_or(|t| t == "mteval");
        let users: &[&str] = match nist_mteval {
            true => &["nist", "mteval-bleu"],
            false => &["mteval-bleu"],
        };
        if given(id) && !selects(users) {
            let hint = match (id, selects(&["ter"])) {
                ("case_sensitive", true) => " (TER keeps case with --ter-case-sensitive)",
                _ => "",
            };
            notes.push(match (nist_mteval, selects(&["nist"])) {
                (false, true) => format!(
                    "{flag} has no effect on nist with --nist-tokenize none (it sets mteval's \
                     tokenization), nor on the other metrics selected ({})",
                    names.join(",")
                ),
                _ => format!(
                    "{flag} is an option of nist and mteval-bleu, which --metrics does not \
                     select ({}): it has no effect{hint}",
                    names.join(",")
                ),
            });
        }
    }
    // Which metrics read `--tokenize` and `--lowercase` (their `config_from_args`); the
    // others tokenize and fold case their own way, as in sacreBLEU, where `-tok` does nothing
    // for chrF and TER and `-lc` nothing for TER.
    let nist_split = matches
        .get_one::<String>("nist_tokenize")
        .is_some_and(|t| t == "none");
    if given("tokenize") && !selects(&["bleu", "nltk-bleu", "gleu"]) {
        notes.push(format!(
            "--tokenize has no effect on the metrics selected ({}): only bleu, nltk-bleu and \
             gleu read it (chrF works on characters, TER, nist and mteval-bleu tokenize their \
             own way)",
            names.join(",")
        ));
    }
    let reads_lowercase = |name: &str| {
        matches!(
            name,
            "bleu" | "chrf" | "gleu" | "multi-bleu" | "nltk-bleu" | "nltk-chrf"
        ) || (nist_split && name == "nist")
    };
    if given("lowercase") && !names.iter().any(|n| reads_lowercase(n)) {
        notes.push(format!(
            "--lowercase has no effect on the metrics selected ({}): ter folds case unless \
             --ter-case-sensitive, and nist (with mteval's tokenization) and mteval-bleu \
             unless --case-sensitive",
            names.join(",")
        ));
    }
    let tokenizer = matches
        .get_one::<String>("tokenize")
        .map(String::as_str)
        .unwrap_or("");
    for (id, flag, readers) in [
        ("mecab_dic", "--mecab-dic", &["ja-mecab", "ko-mecab"][..]),
        (
            "spm_model",
            "--spm-model",
            &["flores101", "flores200", "spm", "spBLEU-1K"][..],
        ),
    ] {
        if given(id) && !readers.contains(&tokenizer) {
            notes.push(format!(
                "{flag} has no effect without --tokenize {}",
                match readers.split_last() {
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => String::new(),
                }
            ));
        }
    }
    notes
}

/// Builds a metric from the settings a stats document records.
pub fn from_config(name: &str, config: &Value) -> Built {
    (find(name)?.from_config)(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: clap's derived `augment_args` set the scoring command's description to the
    /// doc comment of the last metric's options struct.
    /// The metrics `compare` can resample, judged on default settings (its `--help` hides the
    /// others' options).
    #[test]
    fn resamplable_metrics_are_those_with_a_vector_form() {
        let names: Vec<&str> = REGISTRY
            .iter()
            .filter(|e| resamplable(e))
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["bleu", "chrf", "ter", "gleu"]);
    }

    #[test]
    fn augmenting_keeps_the_command_s_description() {
        let cmd = augment(Command::new("x").about("short").long_about("long"));
        assert_eq!(
            cmd.get_about().map(ToString::to_string).as_deref(),
            Some("short")
        );
        assert_eq!(
            cmd.get_long_about().map(ToString::to_string).as_deref(),
            Some("long")
        );
        let cmd = augment(Command::new("x"));
        assert!(cmd.get_about().is_none() && cmd.get_long_about().is_none());
    }

    #[test]
    fn every_metric_builds_from_its_own_saved_settings() {
        let matches = augment(<CommonArgs as clap::Args>::augment_args(Command::new("x")))
            .try_get_matches_from(["x"])
            .unwrap();
        let common = CommonArgs::from_arg_matches(&matches).unwrap();
        for e in REGISTRY {
            let m = (e.from_args)(&common, &matches).unwrap();
            assert_eq!(m.key(), e.name);
            let again = from_config(e.name, &m.config_json()).unwrap();
            assert_eq!(again.config_json(), m.config_json(), "{}", e.name);
        }
        assert!(find("klingon")
            .err()
            .unwrap()
            .contains("available: bleu, chrf"));
    }

    /// `merge` refuses statistics keys that a metric does not write, reading the keys off
    /// empty totals ([`crate::metric::saved::KnownKeys`]): every metric writes the same keys
    /// whatever its totals hold, with the settings that change what it saves too.
    #[test]
    fn saved_statistics_keys_do_not_depend_on_the_totals() {
        use std::borrow::Cow;
        let variants: [&[&str]; 3] = [
            &[],
            &[
                "--nist-compat",
                "nltk",
                "--weights",
                "0.5,0.5",
                "--weights",
                "1",
            ],
            &["--compat", "matlab"],
        ];
        for extra in variants {
            let args = std::iter::once("x").chain(extra.iter().copied());
            let matches = augment(<CommonArgs as clap::Args>::augment_args(Command::new("x")))
                .ignore_errors(true)
                .try_get_matches_from(args)
                .unwrap();
            let common = CommonArgs::from_arg_matches(&matches).unwrap();
            let mut checked = 0;
            for e in REGISTRY {
                let Ok(m) = (e.from_args)(&common, &matches) else {
                    continue;
                };
                checked += 1;
                let keys = |t: &(dyn std::any::Any + Send)| -> Vec<String> {
                    match m.save_totals(t) {
                        Value::Object(o) => o.keys().cloned().collect(),
                        _ => Vec::new(),
                    }
                };
                let empty = keys(m.new_totals().as_ref());
                let mut totals = m.new_totals();
                let mut ws = m.new_workspace();
                let mut batch = m.new_batch(3);
                for (hyp, refs) in [
                    ("the cat sat on the mat", &["the cat sat on a mat"][..]),
                    ("", &[""]),
                    ("a b c d e f", &["a b c d e g"]),
                ] {
                    let segment = crate::input::Segment {
                        hyp: Cow::Borrowed(hyp),
                        refs: refs.iter().map(|r| Cow::Borrowed(*r)).collect(),
                        id: None,
                        exact: false,
                    };
                    let i = m.push_stats(&segment, ws.as_mut(), batch.as_mut());
                    m.accumulate(totals.as_mut(), batch.as_ref(), i);
                }
                assert_eq!(keys(totals.as_ref()), empty, "{} {extra:?}", e.name);
            }
            // Each variant's settings are valid for most metrics (MATLAB's for NLTK BLEU only).
            assert!(
                checked >= REGISTRY.len() - 1,
                "{extra:?}: {checked} metrics"
            );
        }
    }
}
