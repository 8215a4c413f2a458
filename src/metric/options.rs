//! Options shared by several metrics (`--tokenize`, `--lowercase`, the mteval tokenization
//! switches). Each metric's own options live in its module as a typed `clap::Args` struct and
//! are added to the command line through [`super::registry`].

use clap::Args;

use crate::tokenize::Tokenizer;

/// Options that more than one metric reads.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct CommonArgs {
    /// Tokenizer (sacreBLEU -tok): 13a, intl, zh, char or none. Default: 13a for bleu; for
    /// nltk-bleu and gleu none at all (Python str.split() only) unless this option is given.
    #[arg(short, long, visible_alias = "tok", value_name = "NAME",
          value_parser = clap::builder::PossibleValuesParser::new(Tokenizer::NAMES))]
    pub tokenize: Option<String>,

    /// Lowercase hypotheses and references before tokenizing (sacreBLEU -lc).
    #[arg(short, long, visible_alias = "lc")]
    pub lowercase: bool,

    /// nist, mteval-bleu: mteval-v13a's international tokenization
    /// (--international-tokenization) instead of the normal one.
    #[arg(long, help_heading = "mteval options (nist, mteval-bleu)")]
    pub mteval_international: bool,

    /// nist, mteval-bleu: keep case (mteval -c); by default mteval folds ASCII A-Z (normal
    /// tokenization) or applies Perl lc (international).
    #[arg(long, help_heading = "mteval options (nist, mteval-bleu)")]
    pub case_sensitive: bool,
}

impl CommonArgs {
    /// The tokenizer given with `--tokenize`, if any.
    pub fn tokenizer(&self) -> Option<Tokenizer> {
        self.tokenize.as_deref().and_then(Tokenizer::from_name)
    }
}
