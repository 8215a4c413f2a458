//! `nltk-bleu`'s options: the command-line arguments, the settings carried by stats documents,
//! and the validated configuration (weights after NLTK's normalisation).

use super::*;

/// Which tool's semantics the scores follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Compat {
    /// NLTK 3.10.4, quirks included.
    Nltk,
    /// MATLAB `bleuEvaluationScore`: weights normalised to sum 1, no smoothing, score 0 for a
    /// candidate shorter than the number of weights, NaN when everything is empty.
    Matlab,
}

/// `nltk-bleu`'s own options (`--tokenize` and `--lowercase` are shared: [`CommonArgs`]).
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "NLTK BLEU options")]
pub struct NltkBleuArgs {
    /// nltk-bleu: n-gram weights, comma-separated (BLEU-N has N weights). Repeat the option for
    /// several scores from one pass, like NLTK's list of weight tuples; `()` is NLTK's empty
    /// tuple (an empty value is an error). More than 5 weights skip lines longer than
    /// --max-line-bytes × 5 / N. [default: 0.25,0.25,0.25,0.25]
    #[arg(long, value_name = "W1,W2,…", action = ArgAction::Append, allow_hyphen_values = true)]
    pub weights: Vec<String>,

    /// nltk-bleu: NLTK SmoothingFunction().methodN, N = 0..7 [default: none, which NLTK treats
    /// as method 0].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=7))]
    pub nltk_smoothing: Option<u8>,

    /// nltk-bleu: epsilon of smoothing method 1.
    #[arg(
        long,
        value_name = "X",
        default_value = "0.1",
        allow_hyphen_values = true
    )]
    pub epsilon: String,

    /// nltk-bleu: alpha of smoothing method 6; `5` (an int) keeps NLTK's exact rational
    /// arithmetic, `5.0` (a float) its float arithmetic.
    #[arg(
        long,
        value_name = "X",
        default_value = "5",
        allow_hyphen_values = true
    )]
    pub alpha: String,

    /// nltk-bleu: k of smoothing methods 4 and 7.
    #[arg(
        long = "k",
        value_name = "X",
        default_value = "5",
        allow_hyphen_values = true
    )]
    pub k: String,

    /// nltk-bleu: NLTK's auto_reweigh (uniform weights over the hypothesis length when the
    /// corpus hypothesis length is below 4 and the weights are the default 0.25 ×4).
    #[arg(long)]
    pub auto_reweigh: bool,

    /// nltk-bleu: `nltk` (NLTK 3.10.4, quirks included) or `matlab` (MATLAB
    /// bleuEvaluationScore: weights normalised to sum 1, score 0 for a candidate shorter than the
    /// weights, NaN when candidate and references are all empty).
    #[arg(long, value_enum, value_name = "TOOL", default_value = "nltk")]
    pub compat: Compat,
}

/// `nltk-bleu` settings as a stats document carries them: the command-line text, from which
/// [`NltkBleuConfig::from_cli`] rebuilds the exact Python values (int or float, as written).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NltkBleuSettings {
    pub tokenizer: Option<Tokenizer>,
    pub lowercase: bool,
    pub weights: Vec<String>,
    pub smoothing: Option<u8>,
    pub epsilon: String,
    pub alpha: String,
    pub k: String,
    pub auto_reweigh: bool,
    pub compat: Compat,
}

impl From<NltkBleuConfig> for NltkBleuSettings {
    fn from(c: NltkBleuConfig) -> NltkBleuSettings {
        let [epsilon, alpha, k] = c.params_text;
        NltkBleuSettings {
            tokenizer: c.tokenizer,
            lowercase: c.lowercase,
            weights: c.weights_text,
            smoothing: c.smoothing,
            epsilon,
            alpha,
            k,
            auto_reweigh: c.auto_reweigh,
            compat: c.compat,
        }
    }
}

impl TryFrom<NltkBleuSettings> for NltkBleuConfig {
    type Error = String;

    fn try_from(s: NltkBleuSettings) -> Result<NltkBleuConfig, String> {
        NltkBleuConfig::from_cli(
            s.tokenizer,
            s.lowercase,
            &s.weights,
            s.smoothing,
            &s.epsilon,
            &s.alpha,
            &s.k,
            s.auto_reweigh,
            s.compat,
        )
    }
}

/// `nltk-bleu` settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "NltkBleuSettings", try_from = "NltkBleuSettings")]
pub struct NltkBleuConfig {
    /// A sacreBLEU tokenizer applied before the whitespace split (`--tokenize` given
    /// explicitly); `None`: Python `str.split()` only, as NLTK users do.
    pub tokenizer: Option<Tokenizer>,
    /// Python `str.lower()` before splitting (the seed blog's `lower_n_split`).
    pub lowercase: bool,
    /// The weight vectors in command-line order (`--weights`, repeatable). One vector is NLTK's
    /// flat tuple form (a scalar result); several are its list-of-tuples form (one score each).
    pub weights: Vec<Vec<f64>>,
    /// The weights as written, for the signature.
    pub weights_text: Vec<String>,
    /// Library only: the single flat vector was a Python *list*, not a tuple (`auto_reweigh`
    /// compares with the tuple `(0.25, 0.25, 0.25, 0.25)` and never fires for a list, Q5).
    pub weights_as_list: bool,
    /// Library only: the weights were a list of tuples even if there is only one (on the
    /// command line, two or more `--weights`). Matters only for `[()]`, which NLTK wraps again.
    pub weights_nested: bool,
    /// `SmoothingFunction().methodN`; `None` is `smoothing_function=None` (method 0).
    pub smoothing: Option<u8>,
    /// `SmoothingFunction(epsilon, alpha, k)`, keeping Python's int/float distinction.
    pub epsilon: Num,
    pub alpha: Num,
    pub k: Num,
    /// The three parameters as written, for the signature.
    pub params_text: [String; 3],
    pub auto_reweigh: bool,
    pub compat: Compat,
}

impl Default for NltkBleuConfig {
    /// NLTK's defaults: BLEU-4 with uniform weights, no smoothing function.
    fn default() -> Self {
        NltkBleuConfig {
            tokenizer: None,
            lowercase: false,
            weights: vec![vec![0.25; 4]],
            weights_text: vec!["0.25,0.25,0.25,0.25".to_owned()],
            weights_as_list: false,
            weights_nested: false,
            smoothing: None,
            epsilon: Num::Float(0.1),
            alpha: Num::int(5),
            k: Num::int(5),
            params_text: ["0.1".to_owned(), "5".to_owned(), "5".to_owned()],
            auto_reweigh: false,
            compat: Compat::Nltk,
        }
    }
}

impl NltkBleuConfig {
    /// Settings from command-line text: `weights` are the `--weights` values (none: NLTK's
    /// default BLEU-4), each a comma-separated list of Python number literals (empty: the empty
    /// tuple); `epsilon`, `alpha` and `k` keep Python's int/float distinction (`5` vs `5.0`).
    #[allow(clippy::too_many_arguments)]
    pub fn from_cli(
        tokenizer: Option<Tokenizer>,
        lowercase: bool,
        weights: &[String],
        smoothing: Option<u8>,
        epsilon: &str,
        alpha: &str,
        k: &str,
        auto_reweigh: bool,
        compat: Compat,
    ) -> Result<NltkBleuConfig, String> {
        let mut config = NltkBleuConfig {
            tokenizer,
            lowercase,
            smoothing,
            auto_reweigh,
            compat,
            ..NltkBleuConfig::default()
        };
        if !weights.is_empty() {
            config.weights.clear();
            config.weights_text.clear();
            for text in weights {
                let mut vector = Vec::new();
                // `--weights=` is far more often a shell variable that expanded to nothing than
                // a wish for NLTK's `weights=()`, which scores int 0 whatever the input (quirk
                // 5): the empty tuple has to be asked for by name.
                if text.trim().is_empty() {
                    return Err(
                        "--weights: the value is empty; write --weights '()' for NLTK's \
                                empty weight tuple (whose score is always 0)"
                            .to_owned(),
                    );
                }
                if text.trim() != "()" {
                    for item in text.split(',') {
                        let w = parse_py_number(item)
                            .and_then(|n| n.to_f64().ok())
                            .filter(|w| w.is_finite())
                            .ok_or_else(|| {
                                format!("--weights: '{}' is not a finite number", item.trim())
                            })?;
                        vector.push(w);
                    }
                }
                config.weights.push(vector);
                config.weights_text.push(text.trim().to_owned());
            }
        }
        let param = |name: &str, text: &str| {
            parse_py_number(text)
                .ok_or_else(|| format!("--{name}: '{text}' is not a finite number"))
        };
        config.epsilon = param("epsilon", epsilon)?;
        config.alpha = param("alpha", alpha)?;
        config.k = param("k", k)?;
        config.params_text = [
            epsilon.trim().to_owned(),
            alpha.trim().to_owned(),
            k.trim().to_owned(),
        ];
        Ok(config)
    }
}

/// The weights after NLTK's normalisation (`NLTK.md` §6 step 2).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Weights {
    /// Weight vectors, each paired with "is a tuple" (for `auto_reweigh`).
    Vectors(Vec<(Vec<f64>, bool)>),
    /// Several vectors whose **first** is empty: `weights[0][0]` raises `IndexError`, so NLTK
    /// wraps the whole list once more and scores one "vector" of this many tuples (Q6), which
    /// raises `TypeError` as soon as a tuple meets a positive precision.
    Wrapped(usize),
}
