mod util;

mod architecture;
mod cli;
mod compare;
mod confidence;
mod follow;
mod generate;
mod group_by;
mod hardening;
mod live;
mod merge;
mod misuse;
mod sacrebleu_cli;
mod soak;
mod ter;
mod tokenizer_models;

mod differential;
mod differential_ko_mecab;
mod properties;

mod conformance_chrf;
mod conformance_cli;
mod conformance_ko_mecab;
mod conformance_mteval;
mod conformance_multibleu;
mod conformance_nltk;
mod conformance_nltk_gleu_nist_chrf;
mod conformance_sacrebleu;
mod conformance_ter;
