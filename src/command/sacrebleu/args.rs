//! sacreBLEU 2.6.0's command line, parsed the way its `argparse.ArgumentParser` (CPython 3.11)
//! parses it, so that every spelling a user types means what it means there: unique prefixes of
//! long options (`allow_abbrev`), `--opt=value`, `-w2`, grouped flags (`-bq`), `--` ending the
//! options, negative numbers as values, positionals before or after the options (but only one
//! run of them: `ref -b ref2` leaves `ref2` unrecognized), and the same messages
//! (`usage: …` then `sacrebleu: error: …`, exit status 2).

use super::pynum::{py_float, py_int, py_int_big};

/// `sacrebleu --help` (argparse's output at 80 columns).
pub const HELP: &str = include_str!("help.txt");

/// How many values an option takes (argparse `nargs`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nargs {
    /// `store_true`, `help`, `version`.
    Zero,
    /// Exactly one.
    One,
    /// `*`.
    Any,
    /// `+`.
    Some,
}

/// Value type checks (argparse `type=` and `choices=`).
#[derive(Clone, Copy)]
enum Kind {
    Flag,
    Str,
    Int,
    Float,
    Choice(&'static [&'static str]),
    Help,
    Version,
}

/// One `add_argument`, in the parser's order (which orders ambiguity messages).
struct Opt {
    dest: &'static str,
    names: &'static [&'static str],
    nargs: Nargs,
    kind: Kind,
}

const METRICS: &[&str] = &["bleu", "chrf", "ter"];
const SMOOTH: &[&str] = &["none", "floor", "add-k", "exp"];
/// sacreBLEU's `_TOKENIZERS` keys, in its order.
pub const TOKENIZERS: &[&str] = &[
    "none",
    "zh",
    "13a",
    "intl",
    "char",
    "ja-mecab",
    "ko-mecab",
    "spm",
    "flores101",
    "flores200",
    "spBLEU-1K",
];
const FORMATS: &[&str] = &["json", "text", "latex"];

macro_rules! opt {
    ($dest:literal, [$($n:literal),+], $nargs:ident, $kind:expr) => {
        Opt { dest: $dest, names: &[$($n),+], nargs: Nargs::$nargs, kind: $kind }
    };
}

const OPTS: &[Opt] = &[
    opt!("help", ["-h", "--help"], Zero, Kind::Help),
    opt!("citation", ["--citation", "--cite"], Zero, Kind::Flag),
    opt!("list", ["--list"], Zero, Kind::Flag),
    opt!("test_set", ["--test-set", "-t"], One, Kind::Str),
    opt!("langpair", ["--language-pair", "-l"], One, Kind::Str),
    opt!("origlang", ["--origlang", "-ol"], One, Kind::Str),
    opt!("subset", ["--subset"], One, Kind::Str),
    opt!("download", ["--download"], One, Kind::Str),
    opt!("echo", ["--echo"], Some, Kind::Str),
    opt!("input", ["--input", "-i"], Any, Kind::Str),
    opt!("num_refs", ["--num-refs", "-nr"], One, Kind::Int),
    opt!("encoding", ["--encoding", "-e"], One, Kind::Str),
    opt!("metrics", ["--metrics", "-m"], Some, Kind::Choice(METRICS)),
    opt!(
        "sentence_level",
        ["--sentence-level", "-sl"],
        Zero,
        Kind::Flag
    ),
    opt!(
        "smooth_method",
        ["--smooth-method", "-s"],
        One,
        Kind::Choice(SMOOTH)
    ),
    opt!("smooth_value", ["--smooth-value", "-sv"], One, Kind::Float),
    opt!(
        "tokenize",
        ["--tokenize", "-tok"],
        One,
        Kind::Choice(TOKENIZERS)
    ),
    opt!("lowercase", ["--lowercase", "-lc"], Zero, Kind::Flag),
    opt!("force", ["--force"], Zero, Kind::Flag),
    opt!(
        "chrf_char_order",
        ["--chrf-char-order", "-cc"],
        One,
        Kind::Int
    ),
    opt!(
        "chrf_word_order",
        ["--chrf-word-order", "-cw"],
        One,
        Kind::Int
    ),
    opt!("chrf_beta", ["--chrf-beta"], One, Kind::Int),
    opt!("chrf_whitespace", ["--chrf-whitespace"], Zero, Kind::Flag),
    opt!("chrf_lowercase", ["--chrf-lowercase"], Zero, Kind::Flag),
    opt!(
        "chrf_eps_smoothing",
        ["--chrf-eps-smoothing"],
        Zero,
        Kind::Flag
    ),
    opt!(
        "ter_case_sensitive",
        ["--ter-case-sensitive"],
        Zero,
        Kind::Flag
    ),
    opt!(
        "ter_asian_support",
        ["--ter-asian-support"],
        Zero,
        Kind::Flag
    ),
    opt!("ter_no_punct", ["--ter-no-punct"], Zero, Kind::Flag),
    opt!("ter_normalized", ["--ter-normalized"], Zero, Kind::Flag),
    opt!("confidence", ["--confidence", "-ci"], Zero, Kind::Flag),
    opt!("confidence_n", ["--confidence-n", "-cin"], One, Kind::Int),
    opt!("paired_ar", ["--paired-ar", "-par"], Zero, Kind::Flag),
    opt!("paired_bs", ["--paired-bs", "-pbs"], Zero, Kind::Flag),
    opt!("paired_ar_n", ["--paired-ar-n", "-parn"], One, Kind::Int),
    opt!("paired_bs_n", ["--paired-bs-n", "-pbsn"], One, Kind::Int),
    opt!("paired_jobs", ["--paired-jobs", "-j"], One, Kind::Int),
    opt!("quiet", ["--quiet", "-q"], Zero, Kind::Flag),
    opt!("short", ["--short", "-sh"], Zero, Kind::Flag),
    opt!("score_only", ["--score-only", "-b"], Zero, Kind::Flag),
    opt!("width", ["--width", "-w"], One, Kind::Int),
    opt!("detail", ["--detail", "-d"], Zero, Kind::Flag),
    opt!("no_color", ["--no-color", "-nc"], Zero, Kind::Flag),
    opt!("format", ["--format", "-f"], One, Kind::Choice(FORMATS)),
    opt!("version", ["--version", "-V"], Zero, Kind::Version),
];

/// The parsed command line (sacreBLEU's `args` namespace).
#[derive(Clone, Debug, PartialEq)]
pub struct Args {
    pub citation: bool,
    pub list: bool,
    pub test_set: Option<String>,
    pub langpair: Option<String>,
    pub origlang: Option<String>,
    pub subset: Option<String>,
    pub download: Option<String>,
    pub echo: Option<Vec<String>>,
    pub input: Option<Vec<String>>,
    pub refs: Vec<String>,
    pub num_refs: i64,
    pub encoding: String,
    pub metrics: Vec<String>,
    pub sentence_level: bool,
    pub smooth_method: String,
    pub smooth_value: Option<f64>,
    pub tokenize: Option<String>,
    pub lowercase: bool,
    pub force: bool,
    pub chrf_char_order: i64,
    pub chrf_word_order: i64,
    pub chrf_beta: i128,
    pub chrf_whitespace: bool,
    pub chrf_lowercase: bool,
    pub chrf_eps_smoothing: bool,
    pub ter_case_sensitive: bool,
    pub ter_asian_support: bool,
    pub ter_no_punct: bool,
    pub ter_normalized: bool,
    pub confidence: bool,
    pub confidence_n: i128,
    pub paired_ar: bool,
    pub paired_bs: bool,
    pub paired_ar_n: i128,
    pub paired_bs_n: i128,
    pub paired_jobs: i64,
    pub quiet: bool,
    pub short: bool,
    pub score_only: bool,
    pub width: i128,
    pub detail: bool,
    pub no_color: bool,
    pub format: String,
}

impl Default for Args {
    fn default() -> Self {
        Args {
            citation: false,
            list: false,
            test_set: None,
            langpair: None,
            origlang: None,
            subset: None,
            download: None,
            echo: None,
            input: None,
            refs: Vec::new(),
            num_refs: 1,
            encoding: "utf-8".into(),
            metrics: vec!["bleu".into()],
            sentence_level: false,
            smooth_method: "exp".into(),
            smooth_value: None,
            tokenize: None,
            lowercase: false,
            force: false,
            chrf_char_order: 6,
            chrf_word_order: 0,
            chrf_beta: 2,
            chrf_whitespace: false,
            chrf_lowercase: false,
            chrf_eps_smoothing: false,
            ter_case_sensitive: false,
            ter_asian_support: false,
            ter_no_punct: false,
            ter_normalized: false,
            confidence: false,
            confidence_n: 1000,
            paired_ar: false,
            paired_bs: false,
            paired_ar_n: 10000,
            paired_bs_n: 1000,
            paired_jobs: 1,
            quiet: false,
            short: false,
            score_only: false,
            width: 1,
            detail: false,
            no_color: false,
            format: "json".into(),
        }
    }
}

/// What parsing ends with besides arguments: help or version printed (status 0), or a usage
/// error (the full stderr text; status 2).
#[derive(Debug, PartialEq)]
pub enum Exit {
    Help,
    Version,
    Usage(String),
}

/// The usage block of [`HELP`] (up to its first blank line).
pub fn usage() -> &'static str {
    HELP.split_once("\n\n").map_or(HELP, |(u, _)| u)
}

fn error(message: &str) -> Exit {
    Exit::Usage(format!("{}\nsacrebleu: error: {message}\n", usage()))
}

/// `'/'.join(action.option_strings)`, as argparse names an option in messages.
fn display(opt: &Opt) -> String {
    opt.names.join("/")
}

fn lookup(name: &str) -> Option<usize> {
    OPTS.iter().position(|o| o.names.contains(&name))
}

/// `(option index or None for an unknown option, the option string, explicit argument)`.
type OptTuple = (Option<usize>, String, Option<String>);

/// Every option string, in registration order (`_option_string_actions`).
fn all_names() -> impl Iterator<Item = (usize, &'static str)> {
    OPTS.iter()
        .enumerate()
        .flat_map(|(i, o)| o.names.iter().map(move |n| (i, *n)))
}

/// `_parse_optional`: `None` for a positional, or the option it names; `Err` when ambiguous.
fn parse_optional(arg: &str) -> Result<Option<OptTuple>, Exit> {
    if !arg.starts_with('-') {
        return Ok(None);
    }
    if let Some(i) = lookup(arg) {
        return Ok(Some((Some(i), arg.to_owned(), None)));
    }
    if arg.chars().count() == 1 {
        return Ok(None);
    }
    if let Some((name, value)) = arg.split_once('=') {
        if let Some(i) = lookup(name) {
            return Ok(Some((Some(i), name.to_owned(), Some(value.to_owned()))));
        }
    }
    let tuples = option_tuples(arg);
    if tuples.len() > 1 {
        let names: Vec<&str> = tuples.iter().map(|t| t.1.as_str()).collect();
        return Err(error(&format!(
            "ambiguous option: {arg} could match {}",
            names.join(", ")
        )));
    }
    if let Some(t) = tuples.into_iter().next() {
        return Ok(Some(t));
    }
    if is_negative_number(arg) || arg.contains(' ') {
        return Ok(None);
    }
    Ok(Some((None, arg.to_owned(), None)))
}

/// `^-\d+$|^-\d*\.\d+$`.
fn is_negative_number(arg: &str) -> bool {
    let rest = &arg[1..];
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(rest)
        || rest.split_once('.').is_some_and(|(a, b)| {
            (a.is_empty() || a.bytes().all(|b| b.is_ascii_digit())) && digits(b)
        })
}

/// `_get_option_tuples` (allow_abbrev): long prefixes, or a short option glued to its value.
fn option_tuples(arg: &str) -> Vec<OptTuple> {
    let mut out = Vec::new();
    if arg.starts_with("--") {
        let (prefix, explicit) = match arg.split_once('=') {
            Some((p, v)) => (p, Some(v.to_owned())),
            None => (arg, None),
        };
        for (i, name) in all_names() {
            if name.starts_with(prefix) {
                out.push((Some(i), name.to_owned(), explicit.clone()));
            }
        }
    } else {
        let split = arg.char_indices().nth(2).map_or(arg.len(), |(k, _)| k);
        let (short, rest) = arg.split_at(split);
        for (i, name) in all_names() {
            if name == short {
                out.push((Some(i), name.to_owned(), Some(rest.to_owned())));
            } else if name.starts_with(arg) {
                out.push((Some(i), name.to_owned(), None));
            }
        }
    }
    out
}

/// Parses `argv` (without the program name).
pub fn parse(argv: &[String]) -> Result<Args, Exit> {
    // Classify every argument ('O' option, 'A' argument, '-' the `--` marker).
    let mut pattern = Vec::with_capacity(argv.len());
    let mut options: Vec<Option<OptTuple>> = vec![None; argv.len()];
    let mut iter = argv.iter().enumerate();
    while let Some((i, a)) = iter.next() {
        if a == "--" {
            pattern.push(b'-');
            pattern.extend(iter.by_ref().map(|_| b'A'));
            break;
        }
        match parse_optional(a)? {
            None => pattern.push(b'A'),
            Some(t) => {
                options[i] = Some(t);
                pattern.push(b'O');
            }
        }
    }
    let mut st = State {
        args: Args::default(),
        seen_non_default: Vec::new(),
        positionals_done: false,
        extras: Vec::new(),
    };
    let max_option = pattern.iter().rposition(|&p| p == b'O');
    let mut start = 0usize;
    if let Some(max_option) = max_option {
        while start <= max_option {
            let next_option = (start..pattern.len())
                .find(|&k| pattern[k] == b'O')
                .expect("an option at or after start");
            if start != next_option {
                let end = st.consume_positionals(argv, &pattern, start);
                if end > start {
                    start = end;
                    continue;
                }
            }
            if pattern[start] != b'O' {
                st.extras.extend(argv[start..next_option].iter().cloned());
                start = next_option;
            }
            let (opt, name, explicit) = options[start].clone().expect("an option");
            start = st.consume_optional(argv, &pattern, start, opt, name, explicit)?;
        }
    }
    let stop = st.consume_positionals(argv, &pattern, start);
    st.extras.extend(argv[stop..].iter().cloned());
    if !st.extras.is_empty() {
        return Err(error(&format!(
            "unrecognized arguments: {}",
            st.extras.join(" ")
        )));
    }
    Ok(st.args)
}

struct State {
    args: Args,
    seen_non_default: Vec<usize>,
    positionals_done: bool,
    extras: Vec<String>,
}

impl State {
    /// The `refs` positional (`nargs='*'`): the run of arguments at `start`, once.
    fn consume_positionals(&mut self, argv: &[String], pattern: &[u8], start: usize) -> usize {
        if self.positionals_done {
            return start;
        }
        self.positionals_done = true;
        let n = pattern[start..]
            .iter()
            .take_while(|&&p| p == b'A' || p == b'-')
            .count();
        let mut values: Vec<String> = argv[start..start + n].to_vec();
        // `_get_values` removes the first `--`.
        if let Some(k) = values.iter().position(|v| v == "--") {
            if pattern[start + k] == b'-' {
                values.remove(k);
            }
        }
        self.args.refs = values;
        start + n
    }

    fn consume_optional(
        &mut self,
        argv: &[String],
        pattern: &[u8],
        start: usize,
        mut opt: Option<usize>,
        mut name: String,
        mut explicit: Option<String>,
    ) -> Result<usize, Exit> {
        let mut actions: Vec<(usize, Vec<String>)> = Vec::new();
        let stop;
        loop {
            let Some(i) = opt else {
                self.extras.push(argv[start].clone());
                return Ok(start + 1);
            };
            let o = &OPTS[i];
            if let Some(value) = explicit.take() {
                if o.nargs == Nargs::Zero {
                    if !name.starts_with("--") && !value.is_empty() {
                        actions.push((i, Vec::new()));
                        let mut cs = value.chars();
                        let first = cs.next().expect("non-empty");
                        let next_name = format!("-{first}");
                        let rest: String = cs.collect();
                        match lookup(&next_name) {
                            Some(j) => {
                                opt = Some(j);
                                name = next_name;
                                explicit = (!rest.is_empty()).then_some(rest);
                                continue;
                            }
                            None => {
                                return Err(error(&format!(
                                    "argument {}: ignored explicit argument '{value}'",
                                    display(o)
                                )))
                            }
                        }
                    }
                    return Err(error(&format!(
                        "argument {}: ignored explicit argument '{value}'",
                        display(o)
                    )));
                }
                actions.push((i, vec![value]));
                stop = start + 1;
                break;
            }
            let following = pattern[start + 1..]
                .iter()
                .take_while(|&&p| p == b'A')
                .count();
            let count = match o.nargs {
                Nargs::Zero => 0,
                Nargs::One if following >= 1 => 1,
                Nargs::One => {
                    return Err(error(&format!(
                        "argument {}: expected one argument",
                        display(o)
                    )))
                }
                Nargs::Any => following,
                Nargs::Some if following >= 1 => following,
                Nargs::Some => {
                    return Err(error(&format!(
                        "argument {}: expected at least one argument",
                        display(o)
                    )))
                }
            };
            actions.push((i, argv[start + 1..start + 1 + count].to_vec()));
            stop = start + 1 + count;
            break;
        }
        for (i, values) in actions {
            self.take_action(i, values)?;
        }
        Ok(stop)
    }

    fn take_action(&mut self, i: usize, values: Vec<String>) -> Result<(), Exit> {
        let o = &OPTS[i];
        // The mutually exclusive group --paired-ar | --paired-bs.
        let partner = match o.dest {
            "paired_ar" => Some("paired_bs"),
            "paired_bs" => Some("paired_ar"),
            _ => None,
        };
        if let Some(p) = partner {
            let j = OPTS.iter().position(|x| x.dest == p).expect("known");
            if self.seen_non_default.contains(&j) {
                return Err(error(&format!(
                    "argument {}: not allowed with argument {}",
                    display(o),
                    display(&OPTS[j])
                )));
            }
            self.seen_non_default.push(i);
        }
        let a = &mut self.args;
        let one = || values.first().cloned().unwrap_or_default();
        let int = |v: &str| {
            py_int(v).ok_or_else(|| {
                error(&format!(
                    "argument {}: invalid int value: '{v}'",
                    display(o)
                ))
            })
        };
        // The resample counts and chrF's beta: Python's int of any size, kept to the i128 range
        // (any count past 2^64 fails alike in NumPy: `resample::array_size`; a beta past 2^64
        // is refused in `metric.rs`).
        let wide = |v: &str| {
            let big = py_int_big(v).ok_or_else(|| {
                error(&format!(
                    "argument {}: invalid int value: '{v}'",
                    display(o)
                ))
            })?;
            Ok::<i128, Exit>(i128::try_from(&big).unwrap_or(
                if big.sign() == num_bigint::Sign::Minus {
                    i128::MIN
                } else {
                    i128::MAX
                },
            ))
        };
        let check = |v: &str| -> Result<(), Exit> {
            if let Kind::Choice(choices) = o.kind {
                if !choices.contains(&v) {
                    let list: Vec<String> = choices.iter().map(|c| format!("'{c}'")).collect();
                    return Err(error(&format!(
                        "argument {}: invalid choice: '{v}' (choose from {})",
                        display(o),
                        list.join(", ")
                    )));
                }
            }
            Ok(())
        };
        for v in &values {
            check(v)?;
        }
        match o.kind {
            Kind::Help => return Err(Exit::Help),
            Kind::Version => return Err(Exit::Version),
            _ => {}
        }
        match o.dest {
            "citation" => a.citation = true,
            "list" => a.list = true,
            "test_set" => a.test_set = Some(one()),
            "langpair" => a.langpair = Some(one()),
            "origlang" => a.origlang = Some(one()),
            "subset" => a.subset = Some(one()),
            "download" => a.download = Some(one()),
            "echo" => a.echo = Some(values),
            "input" => a.input = Some(values),
            "num_refs" => a.num_refs = int(&one())?,
            "encoding" => a.encoding = one(),
            "metrics" => a.metrics = values,
            "sentence_level" => a.sentence_level = true,
            "smooth_method" => a.smooth_method = one(),
            "smooth_value" => {
                let v = one();
                a.smooth_value = Some(py_float(&v).ok_or_else(|| {
                    error(&format!(
                        "argument {}: invalid float value: '{v}'",
                        display(o)
                    ))
                })?);
            }
            "tokenize" => a.tokenize = Some(one()),
            "lowercase" => a.lowercase = true,
            "force" => a.force = true,
            "chrf_char_order" => a.chrf_char_order = int(&one())?,
            "chrf_word_order" => a.chrf_word_order = int(&one())?,
            "chrf_beta" => a.chrf_beta = wide(&one())?,
            "chrf_whitespace" => a.chrf_whitespace = true,
            "chrf_lowercase" => a.chrf_lowercase = true,
            "chrf_eps_smoothing" => a.chrf_eps_smoothing = true,
            "ter_case_sensitive" => a.ter_case_sensitive = true,
            "ter_asian_support" => a.ter_asian_support = true,
            "ter_no_punct" => a.ter_no_punct = true,
            "ter_normalized" => a.ter_normalized = true,
            "confidence" => a.confidence = true,
            "confidence_n" => a.confidence_n = wide(&one())?,
            "paired_ar" => a.paired_ar = true,
            "paired_bs" => a.paired_bs = true,
            "paired_ar_n" => a.paired_ar_n = wide(&one())?,
            "paired_bs_n" => a.paired_bs_n = wide(&one())?,
            "paired_jobs" => a.paired_jobs = int(&one())?,
            "quiet" => a.quiet = true,
            "short" => a.short = true,
            "score_only" => a.score_only = true,
            "width" => a.width = wide(&one())?,
            "detail" => a.detail = true,
            "no_color" => a.no_color = true,
            "format" => a.format = one(),
            other => unreachable!("option {other} without a destination"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Args, Exit> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn err(args: &[&str]) -> String {
        match p(args) {
            Err(Exit::Usage(m)) => m.lines().last().unwrap().to_owned(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn spellings_argparse_accepts() {
        let a = p(&["-b", "ref.txt"]).unwrap();
        assert!(a.score_only && a.refs == ["ref.txt"]);
        let a = p(&["r", "-w2", "--wid=3", "-bq", "-sv", "-0.5", "-i", "a", "b"]).unwrap();
        assert_eq!((a.width, a.score_only, a.quiet), (3, true, true));
        assert_eq!(a.smooth_value, Some(-0.5));
        assert_eq!(a.input.unwrap(), ["a", "b"]);
        let a = p(&["--ter-c", "r", "-m", "chrf", "ter"]).unwrap();
        assert!(a.ter_case_sensitive && a.metrics == ["chrf", "ter"]);
        let a = p(&["-len-de", "--", "-x"]).unwrap();
        assert_eq!(
            (a.langpair.as_deref(), a.refs.as_slice()),
            (Some("en-de"), &["-x".to_owned()][..])
        );
    }

    #[test]
    fn errors_read_like_argparse() {
        assert_eq!(
            err(&["r", "--conf"]),
            "sacrebleu: error: ambiguous option: --conf could match --confidence, --confidence-n"
        );
        assert_eq!(
            err(&["r", "-to"]),
            "sacrebleu: error: ambiguous option: -to could match -t, -tok"
        );
        assert_eq!(
            err(&["r", "-b", "r2"]),
            "sacrebleu: error: unrecognized arguments: r2"
        );
        assert_eq!(
            err(&["--paired-bs", "--paired-ar"]),
            "sacrebleu: error: argument --paired-ar/-par: not allowed with argument --paired-bs/-pbs"
        );
        assert_eq!(
            err(&["-w", "1.5"]),
            "sacrebleu: error: argument --width/-w: invalid int value: '1.5'"
        );
        assert_eq!(
            err(&["-w"]),
            "sacrebleu: error: argument --width/-w: expected one argument"
        );
        assert_eq!(
            err(&["-bx"]),
            "sacrebleu: error: argument --score-only/-b: ignored explicit argument 'x'"
        );
        assert_eq!(
            err(&["-f", "xml"]),
            "sacrebleu: error: argument --format/-f: invalid choice: 'xml' (choose from 'json', 'text', 'latex')"
        );
        assert_eq!(p(&["--ver"]), Err(Exit::Version));
    }
}
