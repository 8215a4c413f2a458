//! `--fail-under X` / `--fail-over X`: the CI gate on the first metric's final score.
//!
//! Most metrics are better when higher (BLEU, chrF, …) and gate with `--fail-under`; TER is
//! better when lower and gates with `--fail-over`. A gate in the wrong direction for the first
//! metric is a usage error rather than a silently inverted check: `--fail-under 60` on TER
//! would pass a TER of 95 and fail a perfect 0.

use crate::diagnostic::diagnostic;
use crate::output::CorpusReport;
use crate::status;

/// The thresholds given on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gate {
    /// `--fail-under X`: fail when the score is below X.
    pub under: Option<f64>,
    /// `--fail-over X`: fail when the score is above X.
    pub over: Option<f64>,
}

impl Gate {
    /// True when a threshold is set (the run then needs a defined final score).
    pub fn is_set(&self) -> bool {
        self.under.is_some() || self.over.is_some()
    }

    /// Checks the thresholds against the first metric's direction (`name`, better when
    /// lower or not): a usage error for a NaN threshold, an infinite one on the side that
    /// fails every run (`--fail-under 1e400` is read as infinity, and every score is below it,
    /// said only by the message at the end; safety audit; `--fail-under -inf` fails only a run
    /// without a score, and stays), or a gate pointing the wrong way.
    pub fn check(&self, name: &str, lower_is_better: bool) -> Result<(), String> {
        for (flag, x, always) in [
            ("--fail-under", self.under, f64::INFINITY),
            ("--fail-over", self.over, f64::NEG_INFINITY),
        ] {
            match x {
                Some(x) if x.is_nan() => return Err(format!("{flag} needs a number")),
                Some(x) if x == always => {
                    return Err(format!(
                        "{flag} {x} fails every run (a number past a double's range, 1e400 or \
                         -1e400, is read as inf or -inf): give a finite threshold"
                    ))
                }
                _ => {}
            }
        }
        // The mirrored gate of an infinite threshold fails every run: no value is suggested
        // (review: `--fail-over 1e400` with bleu suggested `--fail-under inf`).
        let suggest = |x: f64| {
            if x.is_finite() {
                format!(" {x}")
            } else {
                String::new()
            }
        };
        match (lower_is_better, self.under, self.over) {
            (true, Some(x), _) => Err(format!(
                "{name} is better when lower: --fail-under {x} would fail the run when {name} \
                 is below {x}; use --fail-over{} to fail when it is above",
                suggest(x)
            )),
            (false, _, Some(x)) => Err(format!(
                "{name} is better when higher: --fail-over {x} would fail the run when {name} \
                 is above {x}; use --fail-under{} to fail when it is below",
                suggest(x)
            )),
            _ => Ok(()),
        }
    }

    /// The exit status for the final report: [`status::FAIL_UNDER`] (3, with a diagnostic)
    /// when the first metric's score is on the wrong side of a threshold or undefined,
    /// [`status::OK`] otherwise.
    pub fn status(&self, report: &CorpusReport) -> u8 {
        let Some(first) = report.metrics.first() else {
            return status::OK;
        };
        let v = first.value;
        // A NaN score (MATLAB semantics on empty input) is on neither side of a threshold.
        let failed = match (self.under, self.over) {
            (Some(x), _) if v.is_nan() || v < x => Some(format!("is below --fail-under {x}")),
            (_, Some(x)) if v.is_nan() || v > x => Some(format!("is above --fail-over {x}")),
            _ => None,
        };
        match failed {
            Some(why) => {
                diagnostic(&format!("{} {v} {why}", first.name));
                status::FAIL_UNDER
            }
            None => status::OK,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_is_checked() {
        let under = Gate {
            under: Some(30.0),
            over: None,
        };
        let over = Gate {
            under: None,
            over: Some(60.0),
        };
        assert!(under.check("BLEU", false).is_ok());
        assert!(over.check("TER", true).is_ok());
        assert!(under
            .check("TER", true)
            .unwrap_err()
            .contains("--fail-over 30"));
        assert!(over
            .check("BLEU", false)
            .unwrap_err()
            .contains("--fail-under 60"));
        let nan = Gate {
            under: Some(f64::NAN),
            over: None,
        };
        assert_eq!(
            nan.check("BLEU", false).unwrap_err(),
            "--fail-under needs a number"
        );
        for (under, over) in [
            (Some("1e400".parse().unwrap()), None),
            (None, Some("-1e400".parse().unwrap())),
        ] {
            let gate = Gate { under, over };
            let err = gate.check("TER", over.is_some()).unwrap_err();
            assert!(err.contains(" fails every run"), "{err}");
        }
        let err = Gate {
            under: None,
            over: Some(f64::INFINITY),
        }
        .check("BLEU", false)
        .unwrap_err();
        assert!(
            err.ends_with("use --fail-under to fail when it is below"),
            "{err}"
        );
        // The other infinity fails only a run without a score: a gate that asks for one.
        for (under, over, lower) in [
            (Some(f64::NEG_INFINITY), None, false),
            (None, Some(f64::INFINITY), true),
        ] {
            assert!(Gate { under, over }.check("X", lower).is_ok());
        }
        assert!(!Gate::default().is_set());
    }
}
