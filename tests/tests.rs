mod util;

mod cli;
mod live;
mod soak;

mod conformance_chrf;
mod conformance_sacrebleu;
