mod util;

mod cli;
mod compare;
mod confidence;
mod group_by;
mod hardening;
mod live;
mod merge;
mod misuse;
mod soak;
mod ter;

mod differential;
mod properties;

mod conformance_chrf;
mod conformance_cli;
mod conformance_mteval;
mod conformance_multibleu;
mod conformance_nltk;
mod conformance_nltk_gleu_nist_chrf;
mod conformance_sacrebleu;
mod conformance_ter;
