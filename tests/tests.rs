mod util;

mod cli;

mod conformance_sacrebleu;
mod conformance_chrf;
