mod util;

mod cli;

mod conformance_chrf;
mod conformance_sacrebleu;
