mod util;

mod cli;

mod conformance_sacrebleu;
