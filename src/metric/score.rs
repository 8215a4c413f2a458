//! A corpus score as typed data: what every renderer (`output::{text, jsonl, prometheus}`)
//! needs, with no formatting decision left in the metric except the reference tool's own
//! one-line layout, described as [`Piece`]s so that the renderer applies `--width` and places a
//! confidence interval.

use serde::Serialize;
use serde_json::{Map, Value};

/// One part of a metric's one-line text form (`BLEU = 34.92 64.8/40.9/… (BP = …)`).
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Text the reference tool prints verbatim (including numbers it prints with a fixed number
    /// of decimals, whatever `--width` says).
    Text(String),
    /// A score printed with `--width` decimals (`nan` when undefined); a confidence interval
    /// goes right after the first one.
    Score(f64),
}

/// A corpus score and everything the reports show of it.
#[derive(Clone, Debug)]
pub struct Score {
    /// The metric's key (`bleu`), naming its object in JSON reports.
    pub key: &'static str,
    /// Display name, e.g. `BLEU`, `chrF2++`.
    pub name: String,
    /// The headline score in the reference implementation's scale (NaN when it has none):
    /// what `-b`, `--fail-under` and Prometheus use.
    pub value: f64,
    /// The reference tool's signature, e.g. `nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0`.
    pub signature: String,
    /// The fields of the JSON form at full precision, in order (`score` first).
    pub fields: Map<String, Value>,
    /// The one-line text form.
    pub line: Vec<Piece>,
    /// Further scores of the same metric from the same statistics, each labelled (NLTK BLEU:
    /// one per `--weights` set).
    pub variants: Option<Variants>,
    /// The confidence interval, with `--confidence`.
    pub confidence: Option<Confidence>,
}

/// Labelled scores of one metric (see [`Score::variants`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Variants {
    /// The option that makes them, as a label name (`weights`).
    pub label: &'static str,
    /// Label value and score, in option order.
    pub scores: Vec<(String, f64)>,
}

impl Score {
    /// A score whose JSON form is `fields` (with `score` first) and whose line is `line`.
    pub fn new(
        key: &'static str,
        name: String,
        value: f64,
        signature: String,
        fields: Map<String, Value>,
        line: Vec<Piece>,
    ) -> Score {
        Score {
            key,
            name,
            value,
            signature,
            fields,
            line,
            variants: None,
            confidence: None,
        }
    }

    /// The scores of a metric that gives one per option set (NLTK BLEU with several
    /// `--weights`): its JSON `score` is then their array (`null` for an undefined one), which
    /// `-b` prints whole.
    pub fn set_scores(&self) -> Option<&[Value]> {
        match self.fields.get("score") {
            Some(Value::Array(scores)) => Some(scores),
            _ => None,
        }
    }

    /// The signature with the resampling settings after `nrefs`, as sacreBLEU shows a
    /// confidence interval's: `nrefs:1|bs:1000|seed:12345|case:…` (plus `resample:poisson` for
    /// the online variant, which sacreBLEU does not have).
    pub fn full_signature(&self) -> String {
        let Some(c) = &self.confidence else {
            return self.signature.clone();
        };
        let mut extra = format!("bs:{}|seed:{}", c.samples, c.seed);
        if c.method != "bootstrap" {
            extra.push_str("|resample:");
            extra.push_str(c.method);
        }
        match self.signature.split_once('|') {
            Some((first, rest)) if first.starts_with("nrefs:") => format!("{first}|{extra}|{rest}"),
            _ => format!("{extra}|{}", self.signature),
        }
    }
}

/// A confidence interval from resampling segments (`--confidence`), as sacreBLEU reports it:
/// the mean of the resampled scores and the half-width of the 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Confidence {
    /// `bootstrap` (resampling with replacement, sacreBLEU's) or `poisson` (online).
    pub method: &'static str,
    pub samples: usize,
    pub seed: u64,
    pub mean: f64,
    /// Half-width: `(upper − lower) / 2`.
    pub ci: f64,
    /// The 2.5% and 97.5% resampled scores (sacreBLEU's indices `n/40` and `n − n/40 − 1`).
    pub lower: f64,
    pub upper: f64,
}

/// The `fields` map of a [`Score`] from a serializable record (field order = struct order).
pub fn fields<T: Serialize>(record: &T) -> Map<String, Value> {
    match serde_json::to_value(record) {
        Ok(Value::Object(map)) => map,
        _ => unreachable!("score records serialize to JSON objects"),
    }
}

/// Serializes counts that are integers unless a fractional add-k value made them fractional
/// (sacreBLEU reports its smoothed counts as they are: `[3, 2.5, …]`).
pub fn counts<S: serde::Serializer>(counts: &[f64], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(counts.len()))?;
    for &c in counts {
        if c.fract() == 0.0 && c.abs() < 9.007_199_254_740_992e15 {
            seq.serialize_element(&(c as i64))?;
        } else {
            seq.serialize_element(&c)?;
        }
    }
    seq.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_goes_after_nrefs_in_the_signature() {
        let mut s = Score::new(
            "bleu",
            "BLEU".into(),
            1.0,
            "nrefs:1|case:mixed".into(),
            Map::new(),
            vec![],
        );
        assert_eq!(s.full_signature(), "nrefs:1|case:mixed");
        s.confidence = Some(Confidence {
            method: "poisson",
            samples: 10,
            seed: 7,
            mean: 1.0,
            ci: 0.5,
            lower: 0.5,
            upper: 1.5,
        });
        assert_eq!(
            s.full_signature(),
            "nrefs:1|bs:10|seed:7|resample:poisson|case:mixed"
        );
        s.signature = "case:mixed".into();
        assert_eq!(
            s.full_signature(),
            "bs:10|seed:7|resample:poisson|case:mixed"
        );
    }

    #[test]
    fn counts_are_integers_when_integral() {
        #[derive(Serialize)]
        struct R {
            #[serde(serialize_with = "counts")]
            c: Vec<f64>,
        }
        let v = serde_json::to_string(&R {
            c: vec![3.0, 2.5, 0.0],
        })
        .unwrap();
        assert_eq!(v, r#"{"c":[3,2.5,0]}"#);
    }
}
