//! Shared harness for the integration tests: running the `bleu-stream` binary, locating
//! `../shared`, reading JSONL vectors, exact float helpers and a tiny parallel job runner.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Path of the binary under test (built by cargo for integration tests).
pub const BIN: &str = env!("CARGO_BIN_EXE_bleu-stream");

/// Default time limit of one binary invocation.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

// ---------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------

/// Builder for one invocation of the binary under test.
#[derive(Clone, Debug)]
pub struct Cmd {
    program: PathBuf,
    args: Vec<OsString>,
    stdin: Option<Vec<u8>>,
    env: Vec<(OsString, Option<OsString>)>,
    cwd: Option<PathBuf>,
    timeout: Duration,
}

impl Default for Cmd {
    fn default() -> Self {
        Self::new()
    }
}

impl Cmd {
    /// An invocation of `bleu-stream` with no arguments and empty stdin.
    pub fn new() -> Cmd {
        Cmd::program(BIN)
    }

    /// An invocation of an arbitrary program (for pipelines in tests).
    pub fn program(program: impl AsRef<Path>) -> Cmd {
        Cmd {
            program: program.as_ref().to_path_buf(),
            args: Vec::new(),
            stdin: None,
            env: Vec::new(),
            cwd: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Cmd {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Cmd
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        for a in args {
            self.arg(a);
        }
        self
    }

    /// Bytes written to the child's stdin (stdin is empty when never called).
    pub fn stdin(&mut self, bytes: impl Into<Vec<u8>>) -> &mut Cmd {
        self.stdin = Some(bytes.into());
        self
    }

    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Cmd {
        self.env.push((
            key.as_ref().to_os_string(),
            Some(value.as_ref().to_os_string()),
        ));
        self
    }

    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Cmd {
        self.env.push((key.as_ref().to_os_string(), None));
        self
    }

    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Cmd {
        self.cwd = Some(dir.as_ref().to_path_buf());
        self
    }

    pub fn timeout(&mut self, timeout: Duration) -> &mut Cmd {
        self.timeout = timeout;
        self
    }

    /// Shell-like rendering of the command line, for failure messages.
    pub fn display(&self) -> String {
        let mut s = self.program.display().to_string();
        for a in &self.args {
            let a = a.to_string_lossy();
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
                let _ = write!(s, " '{}'", a.replace('\'', "'\\''"));
            } else {
                let _ = write!(s, " {a}");
            }
        }
        if let Some(input) = &self.stdin {
            let _ = write!(s, " < [{} bytes of stdin]", input.len());
        }
        s
    }

    /// Runs the command to completion (or until the timeout, when the child is killed and
    /// `timed_out` is set). Panics only if the program cannot be started.
    pub fn run(&self) -> Output {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.env {
            match v {
                Some(v) => command.env(k, v),
                None => command.env_remove(k),
            };
        }
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        let start = Instant::now();
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.display()));

        let stdin_thread = match (self.stdin.clone(), child.stdin.take()) {
            (Some(bytes), Some(mut pipe)) => Some(thread::spawn(move || {
                // A child that exits early closes the pipe: that is not an error of the harness.
                let _ = pipe.write_all(&bytes);
            })),
            _ => None,
        };
        let (tx, rx) = mpsc::channel::<()>();
        let mut stdout_pipe = child.stdout.take().expect("stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
        let tx_out = tx.clone();
        let stdout_thread = thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stdout_pipe.read_to_end(&mut buf);
            let _ = tx_out.send(());
            buf
        });
        let stderr_thread = thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr_pipe.read_to_end(&mut buf);
            let _ = tx.send(());
            buf
        });

        let deadline = start + self.timeout;
        let mut timed_out = false;
        // Both output pipes reach EOF when the child exits (or closes them).
        for _ in 0..2 {
            let left = deadline.saturating_duration_since(Instant::now());
            if rx.recv_timeout(left).is_err() {
                timed_out = true;
                break;
            }
        }
        let status = loop {
            if timed_out {
                let _ = child.kill();
                break child.wait().expect("wait for killed child");
            }
            match child.try_wait().expect("try_wait") {
                Some(status) => break status,
                None if Instant::now() >= deadline => timed_out = true,
                None => thread::sleep(Duration::from_micros(200)),
            }
        };
        let stdout = stdout_thread.join().expect("stdout reader");
        let stderr = stderr_thread.join().expect("stderr reader");
        if let Some(t) = stdin_thread {
            let _ = t.join();
        }
        Output {
            command: self.display(),
            stdout,
            stderr,
            code: status.code(),
            timed_out,
            elapsed: start.elapsed(),
        }
    }
}

/// Result of one invocation.
#[derive(Clone, Debug)]
pub struct Output {
    pub command: String,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Exit code; `None` when killed by a signal (including the timeout guard).
    pub code: Option<i32>,
    pub timed_out: bool,
    pub elapsed: Duration,
}

impl Output {
    pub fn success(&self) -> bool {
        !self.timed_out && self.code == Some(0)
    }

    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// One-paragraph description for failure messages (stderr truncated).
    pub fn describe(&self) -> String {
        let mut err = self.stderr_str();
        if err.len() > 2000 {
            let mut cut = 2000;
            while !err.is_char_boundary(cut) {
                cut -= 1;
            }
            err.truncate(cut);
            err.push('…');
        }
        format!(
            "`{}` {} after {:.2?}; stderr: {}",
            self.command,
            if self.timed_out {
                "TIMED OUT".to_string()
            } else {
                format!("exited with {:?}", self.code)
            },
            self.elapsed,
            err.trim_end()
        )
    }

    /// Parses stdout as JSON Lines (empty lines are an error too).
    pub fn jsonl(&self) -> Result<Vec<Value>, String> {
        let text =
            std::str::from_utf8(&self.stdout).map_err(|e| format!("stdout is not UTF-8: {e}"))?;
        let mut out = Vec::new();
        for (i, line) in text.split_terminator('\n').enumerate() {
            let v: Value = serde_json::from_str(line)
                .map_err(|e| format!("stdout line {}: not JSON ({e}): {line:?}", i + 1))?;
            out.push(v);
        }
        Ok(out)
    }

    /// Panics (with the command and its stderr) unless the run succeeded.
    pub fn assert_success(&self) -> &Output {
        assert!(self.success(), "{}", self.describe());
        self
    }
}

/// Asserts exit status `code`, nothing on stdout, and a `bleu-stream: error:` diagnostic that
/// contains every one of `parts`: how every refusal (usage error, bad document, unwritable
/// output) looks.
pub fn assert_refused(out: &Output, code: i32, parts: &[&str]) {
    assert_eq!(out.code, Some(code), "{}", out.describe());
    assert!(out.stdout.is_empty(), "stdout: {}", out.stdout_str());
    let err = out.stderr_str();
    assert!(err.starts_with("bleu-stream: error: "), "{err}");
    for p in parts {
        assert!(err.contains(p), "{err:?} does not contain {p:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// ../shared
// ---------------------------------------------------------------------------------------------

/// The shared data folder: `$BLEU_STREAM_SHARED` if set, else `<crate>/../shared` if it exists.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BLEU_STREAM_SHARED").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        assert!(
            p.is_dir(),
            "BLEU_STREAM_SHARED={} is not a directory",
            p.display()
        );
        return Some(p);
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared");
    p.is_dir().then_some(p)
}

/// Prints the standard skip message for a test that needs `../shared`.
pub fn skip(reason: &str) {
    eprint_whole(&format!(
        "SKIPPED: {reason} (../shared not found; set BLEU_STREAM_SHARED to use another path)\n"
    ));
}

/// Writes `text` to stderr in one call, so that lines of concurrent tests do not interleave
/// (`eprintln!` writes its formatted pieces separately to the unbuffered stderr).
pub fn eprint_whole(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `shared_dir()`, or print the skip message for `what` and return `None`.
pub fn shared_or_skip(what: &str) -> Option<PathBuf> {
    let dir = shared_dir();
    if dir.is_none() {
        skip(what);
    }
    dir
}

/// True under CI (`CI` set): optional system parts the tests need must then be present.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// Prints `SKIPPED: {what} ({why})`, or fails under CI, where `.ci/run` installs it all.
pub fn skip_optional(what: &str, why: &str) {
    assert!(
        !in_ci(),
        "{what}: {why} — under CI this is a failure (.ci/run installs it)"
    );
    eprint_whole(&format!("SKIPPED: {what} ({why})\n"));
}

/// Whether ja-mecab can load its dictionary (Debian's `mecab-ipadic`, or
/// `$BLEU_STREAM_MECAB_DIC`); if not, the skip message for `what` is printed (a failure in CI).
pub fn mecab_ipadic_or_skip(what: &str) -> bool {
    let paths = bleu_stream::tokenize::ModelPaths::default();
    let (dir, _) = bleu_stream::tokenize::models::mecab_dic(&paths);
    if dir.join("matrix.def").is_file() {
        return true;
    }
    skip_optional(
        what,
        &format!(
            "no IPADIC source dictionary in {}: apt-get install mecab-ipadic",
            dir.display()
        ),
    );
    false
}

/// `<shared>/vectors/sacrebleu`.
pub fn sacrebleu_vectors(shared: &Path) -> PathBuf {
    shared.join("vectors").join("sacrebleu")
}

/// `<shared>/data/wmt22`.
pub fn wmt22_dir(shared: &Path) -> PathBuf {
    shared.join("data").join("wmt22")
}

// ---------------------------------------------------------------------------------------------
// Reading vectors and data
// ---------------------------------------------------------------------------------------------

/// Reads a JSON Lines file (every non-empty line one JSON value). Panics on any error.
pub fn read_jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}:{}: invalid JSON: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Reads a text file the way the sacreBLEU CLI does: strict UTF-8, split on `\n` only, a final
/// `\n` does not create an empty line. Lines are returned as-is (no rstrip).
pub fn read_lines_sacrebleu(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    split_lines_sacrebleu(&text)
}

/// `text.split('\n')` without the empty piece after a final `\n`.
pub fn split_lines_sacrebleu(text: &str) -> Vec<String> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    body.split('\n').map(str::to_string).collect()
}

/// `v[key]` as a string, with a useful panic message.
pub fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("field {key:?} missing or not a string in {}", brief(v)))
}

/// Short rendering of a JSON value for messages.
pub fn brief(v: &Value) -> String {
    let mut s = v.to_string();
    if s.len() > 300 {
        let mut cut = 300;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// sacreBLEU BLEU constructor parameters as stored in the vectors' `params`.
#[derive(Clone, Debug, PartialEq)]
pub struct BleuParams {
    pub tokenize: String,
    pub lowercase: bool,
    pub smooth_method: String,
    /// The JSON text of `smooth_value` (`"2"`, `"0.5"`, …), `None` for `null`.
    pub smooth_value: Option<String>,
    pub max_ngram_order: u64,
    pub effective_order: bool,
}

impl BleuParams {
    pub fn from_json(params: &Value) -> BleuParams {
        let get = |k: &str| {
            params
                .get(k)
                .unwrap_or_else(|| panic!("params.{k} missing in {}", brief(params)))
        };
        let smooth_value = match get("smooth_value") {
            Value::Null => None,
            v @ Value::Number(_) => Some(v.to_string()),
            v => panic!("unexpected smooth_value {v}"),
        };
        BleuParams {
            tokenize: get("tokenize").as_str().expect("tokenize").to_string(),
            lowercase: get("lowercase").as_bool().expect("lowercase"),
            smooth_method: get("smooth_method")
                .as_str()
                .expect("smooth_method")
                .to_string(),
            smooth_value,
            max_ngram_order: get("max_ngram_order").as_u64().expect("max_ngram_order"),
            effective_order: get("effective_order").as_bool().expect("effective_order"),
        }
    }

    /// MeCab-based tokenizers that bleu-stream does not implement (ja-mecab is implemented,
    /// but needs the `mecab-ipadic` dictionary: see [`BleuParams::skip_mecab`]).
    pub fn needs_mecab(&self) -> bool {
        self.tokenize.ends_with("-mecab") && self.tokenize != "ja-mecab"
    }

    /// Whether to skip these parameters: a MeCab tokenizer bleu-stream lacks, or ja-mecab
    /// without its dictionary (`have_ipadic`).
    pub fn skip_mecab(&self, have_ipadic: bool) -> bool {
        self.needs_mecab() || (self.tokenize == "ja-mecab" && !have_ipadic)
    }

    /// The CLI flags selecting these parameters (effective order given explicitly).
    pub fn cli_args(&self) -> Vec<String> {
        let mut a = vec!["--tokenize".to_string(), self.tokenize.clone()];
        if self.lowercase {
            a.push("--lowercase".into());
        }
        a.push("--smooth-method".into());
        a.push(self.smooth_method.clone());
        if let Some(v) = &self.smooth_value {
            a.push("--smooth-value".into());
            a.push(v.clone());
        }
        a.push("--max-ngram-order".into());
        a.push(self.max_ngram_order.to_string());
        a.push("--effective-order".into());
        a.push(if self.effective_order { "yes" } else { "no" }.into());
        a
    }
}

// ---------------------------------------------------------------------------------------------
// Exact floats
// ---------------------------------------------------------------------------------------------

/// Parses Python `float.hex()` output (and the other forms accepted by `float.fromhex` that
/// denote an exactly representable binary64: optional sign, `0x`, hex digits with an optional
/// point, optional binary exponent `p±N`; `inf`, `nan`). Returns `None` for malformed input
/// and for values that are not exactly representable (no rounding is ever done).
pub fn parse_float_hex(s: &str) -> Option<f64> {
    let (neg, rest) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let sign = |x: f64| if neg { -x } else { x };
    match rest.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => return Some(sign(f64::INFINITY)),
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    let rest = rest
        .strip_prefix("0x")
        .or_else(|| rest.strip_prefix("0X"))?;
    let (mant, exp) = match rest.find(['p', 'P']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let mut e: i64 = match exp {
        None => 0,
        Some(x) => {
            let digits = x.strip_prefix(['+', '-']).unwrap_or(x);
            if digits.is_empty() || digits.len() > 6 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            x.parse().ok()?
        }
    };
    let (int_part, frac_part) = mant.split_once('.').unwrap_or((mant, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut m: u128 = 0;
    let mut push = |d: u8, e: &mut i64| -> Option<()> {
        let d = (d as char).to_digit(16)? as u128;
        if m >> 124 != 0 {
            // No room for another digit: only trailing zeros keep the value exact.
            if d != 0 {
                return None;
            }
            *e += 4;
        } else {
            m = m * 16 + d;
        }
        Some(())
    };
    for &b in int_part.as_bytes() {
        push(b, &mut e)?;
    }
    for &b in frac_part.as_bytes() {
        push(b, &mut e)?;
        e -= 4;
    }
    if m == 0 {
        return Some(sign(0.0));
    }
    let tz = m.trailing_zeros();
    m >>= tz;
    e += i64::from(tz);
    let nbits = i64::from(128 - m.leading_zeros());
    if nbits > 53 {
        return None;
    }
    let top = e + nbits - 1; // exponent of the leading bit
    let bits: u64 = if top > 1023 {
        return None;
    } else if top >= -1022 {
        let frac = ((m << (52 - (nbits - 1))) as u64) & ((1u64 << 52) - 1);
        (((top + 1023) as u64) << 52) | frac
    } else {
        if e < -1074 {
            return None;
        }
        (m << (e + 1074)) as u64
    };
    Some(sign(f64::from_bits(bits)))
}

/// Python's `float.hex()` of `x` (e.g. `0x1.26b30f7de6d19p+5`, `0x0.0p+0`).
pub fn float_hex(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 && frac == 0 {
        format!("{sign}0x0.0p+0")
    } else if exp == 0 {
        format!("{sign}0x0.{frac:013x}p-1022")
    } else {
        let e = exp - 1023;
        format!(
            "{sign}0x1.{frac:013x}p{}{}",
            if e < 0 { '-' } else { '+' },
            e.abs()
        )
    }
}

/// `x` shown as decimal (shortest round-trip) plus its exact hex form.
pub fn show_f64(x: f64) -> String {
    format!("{x:?} ({})", float_hex(x))
}

/// Bit-exact equality (distinguishes 0.0 and -0.0; NaN equals NaN with the same bits).
pub fn same_bits(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

/// A JSON number as f64, exactly (serde_json is built with `float_roundtrip`).
pub fn json_f64(v: &Value) -> Option<f64> {
    v.as_f64()
}

/// Bit-exact comparison of two JSON numbers (`1` and `1.0` are equal).
pub fn json_num_eq(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => same_bits(x, y),
        _ => false,
    }
}

/// Bit-exact comparison of two JSON arrays of numbers.
pub fn json_nums_eq(a: &Value, b: &Value) -> bool {
    match (a.as_array(), b.as_array()) {
        (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_num_eq(p, q)),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Python reprs stored as strings
// ---------------------------------------------------------------------------------------------

/// Converts a Python `repr` of a structure made of lists, dicts, ints, floats and strings into
/// JSON, *if* that can be done safely by turning single quotes into double quotes: the repr must
/// contain no `"` (Python switches to double quotes for strings containing an apostrophe), no
/// backslash, and every `'` must be a string delimiter (checked by counting strings and keys
/// after parsing). Any other input is an error — callers fail loudly.
pub fn py_repr_to_json(repr: &str) -> Result<Value, String> {
    if repr.contains('"') {
        return Err("repr contains '\"' (a string with an apostrophe?)".into());
    }
    if repr.contains('\\') {
        return Err("repr contains a backslash escape".into());
    }
    let converted = repr.replace('\'', "\"");
    let v: Value = serde_json::from_str(&converted)
        .map_err(|e| format!("repr is not JSON after quote conversion: {e}"))?;
    fn count_strings(v: &Value) -> usize {
        match v {
            Value::String(_) => 1,
            Value::Array(a) => a.iter().map(count_strings).sum(),
            Value::Object(o) => o.values().map(|x| 1 + count_strings(x)).sum(),
            _ => 0,
        }
    }
    let quotes = repr.matches('\'').count();
    let strings = count_strings(&v);
    if quotes != 2 * strings {
        return Err(format!(
            "{quotes} apostrophes for {strings} strings: an apostrophe inside a string?"
        ));
    }
    Ok(v)
}

/// A field that is either already JSON or a string holding a Python repr of it.
pub fn json_or_py_repr(v: &Value) -> Result<Value, String> {
    match v {
        Value::String(s) => py_repr_to_json(s),
        other => Ok(other.clone()),
    }
}

// ---------------------------------------------------------------------------------------------
// Parallel jobs and mismatch reports
// ---------------------------------------------------------------------------------------------

/// Number of concurrent binary invocations: `$BLEU_STREAM_TEST_JOBS`, else the number of cores
/// clamped to 2..=4.
pub fn jobs() -> usize {
    if let Some(n) = std::env::var("BLEU_STREAM_TEST_JOBS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return n;
    }
    thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 4)
}

/// `items.iter().map(f)` on `jobs()` threads; results in input order.
pub fn par_map<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let workers = jobs().min(items.len().max(1));
    thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// Collects mismatches of one conformance test and fails the test at the end.
#[derive(Debug, Default)]
pub struct Mismatches {
    items: Vec<String>,
}

impl Mismatches {
    pub const SHOWN: usize = 20;

    pub fn new() -> Mismatches {
        Mismatches::default()
    }

    pub fn push(&mut self, id: &str, what: impl AsRef<str>) {
        self.items.push(format!("{id}: {}", what.as_ref()));
    }

    pub fn extend(&mut self, other: Vec<String>) {
        self.items.extend(other);
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Prints the first `SHOWN` mismatches and panics with the total, if there are any.
    pub fn finish(self, test: &str) {
        if self.items.is_empty() {
            return;
        }
        let mut report = format!("{test}: {} mismatch(es); first ones:\n", self.items.len());
        for m in self.items.iter().take(Self::SHOWN) {
            let _ = writeln!(report, "  {m}");
        }
        eprint_whole(&report);
        panic!("{test}: {} mismatch(es) (see above)", self.items.len());
    }
}

/// Counts per category, printed as `a: 1, b: 2`.
#[derive(Debug, Default)]
pub struct Tally(pub BTreeMap<String, usize>);

impl Tally {
    pub fn add(&mut self, key: impl Into<String>, n: usize) {
        *self.0.entry(key.into()).or_default() += n;
    }

    pub fn get(&self, key: &str) -> usize {
        self.0.get(key).copied().unwrap_or(0)
    }
}

// ---------------------------------------------------------------------------------------------
// Tests of the harness itself
// ---------------------------------------------------------------------------------------------

/// A fresh temporary directory for one test's files ([`tempfile`]), removed when dropped.
pub struct TempDir(tempfile::TempDir);

impl TempDir {
    /// A new directory whose name starts with `bleu-stream-{what}-`.
    pub fn new(what: &str) -> TempDir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("bleu-stream-{what}-"))
            .tempdir()
            .expect("create a temporary directory");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// Writes `bytes` to `name` in the directory and returns its path.
    pub fn file(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.path().join(name);
        std::fs::write(&path, bytes).expect("write a test file");
        path
    }

    /// [`TempDir::file`], the path as a string (for argument lists).
    pub fn file_str(&self, name: &str, text: &str) -> String {
        let path = self.file(name, text);
        path.to_str().expect("UTF-8 temp path").to_owned()
    }
}

/// The seed of a differential test: `$BLEU_STREAM_DIFF_SEED`, else one from the clock (the
/// tests print it, so that a failure can be replayed).
pub fn diff_seed() -> u64 {
    match std::env::var("BLEU_STREAM_DIFF_SEED") {
        Ok(s) if !s.is_empty() => s
            .parse()
            .unwrap_or_else(|_| panic!("BLEU_STREAM_DIFF_SEED={s} is not a number")),
        _ => {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("clock after 1970")
                .as_nanos() as u64
                % 1_000_000_007
        }
    }
}

/// `python3 SCRIPT ARGS…` (from the repository root) succeeds: a differential test's Python
/// side is importable; `Err` carries what it printed on stderr (the skip reason).
pub fn python_check(script: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
    }
}

#[cfg(test)]
mod harness_tests {
    use super::*;

    #[test]
    fn float_hex_parses_exactly() {
        let cases: &[(&str, f64)] = &[
            ("0x1.26b30f7de6d19p+5", 36.83743189201977),
            ("0x1.9000000000003p+6", 100.00000000000004),
            ("0x1.0000000000000p+0", 1.0),
            ("0x1.0p-3", 0.125),
            ("-0x1.0p-3", -0.125),
            ("0x1p3", 8.0),
            ("0X1P3", 8.0),
            ("0x.8p1", 1.0),
            ("0x10", 16.0),
            ("+0x1.8p+1", 3.0),
            ("0x1.fffffffffffffp+1023", f64::MAX),
            ("0x1.0000000000000p-1022", f64::MIN_POSITIVE),
            ("0x0.0000000000001p-1022", f64::from_bits(1)),
            ("0x0.fffffffffffffp-1022", f64::from_bits((1 << 52) - 1)),
            ("0x1p-1074", f64::from_bits(1)),
            ("0x0.1p-1070", f64::from_bits(1)),
            ("0x1.00000000000000000000000000000000000p+0", 1.0),
            ("0x1000000000000000000000000000000000000p-144", 1.0),
            ("0x1.5555555555555p-2", 1.0 / 3.0),
        ];
        for &(s, want) in cases {
            let got = parse_float_hex(s).unwrap_or_else(|| panic!("{s} rejected"));
            assert!(same_bits(got, want), "{s}: got {got:?}, want {want:?}");
        }
        let zero = parse_float_hex("0x0.0p+0").unwrap();
        assert_eq!(zero.to_bits(), 0);
        let neg_zero = parse_float_hex("-0x0.0p+0").unwrap();
        assert_eq!(neg_zero.to_bits(), (-0.0f64).to_bits());
        assert_eq!(parse_float_hex("inf"), Some(f64::INFINITY));
        assert_eq!(parse_float_hex("-inf"), Some(f64::NEG_INFINITY));
        assert!(parse_float_hex("nan").unwrap().is_nan());
    }

    #[test]
    fn float_hex_rejects_malformed_and_inexact() {
        for s in [
            "",
            "-",
            "0x",
            "0x.",
            "0x.p1",
            "1.5",
            "0x1.0q+0",
            "0x1.0p",
            "0x1.0p+",
            "0x1.0p+1x",
            "0x1.0p++1",
            "0x1.0p+1234567",
            " 0x1.0p+0",
            "0x1.0p+0 ",
            "0x1.00000000000008p+0",    // 53 fraction bits: not representable
            "0x1.0p+1024",              // overflow
            "0x1.0p-1075",              // below the smallest subnormal
            "0x0.00000000000008p-1022", // half the smallest subnormal
            "0x1.0000000000001p-1023",  // subnormal that would need rounding
            "0x1000000000000000000000000000000001p+0",
        ] {
            assert_eq!(parse_float_hex(s).map(f64::to_bits), None, "{s:?} accepted");
        }
    }

    #[test]
    fn float_hex_round_trips() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            // xorshift over all bit patterns (finite ones are checked).
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x);
            if !f.is_finite() {
                continue;
            }
            let h = float_hex(f);
            let back = parse_float_hex(&h).unwrap_or_else(|| panic!("{h} rejected"));
            assert_eq!(back.to_bits(), x, "{h}");
        }
        assert_eq!(float_hex(1.0), "0x1.0000000000000p+0");
        assert_eq!(float_hex(-0.0), "-0x0.0p+0");
        assert_eq!(float_hex(0.0), "0x0.0p+0");
        assert_eq!(float_hex(f64::from_bits(1)), "0x0.0000000000001p-1022");
        assert_eq!(float_hex(100.00000000000004), "0x1.9000000000003p+6");
        assert_eq!(float_hex(0.125), "0x1.0000000000000p-3");
    }

    #[test]
    fn py_repr_conversion() {
        let v = py_repr_to_json(
            "[{'n': 100, 'score': 53.99638580476872, 'score_hex': '0x1.aff8991eed714p+5', \
             'formatted': 'BLEU = 54.00 82.4/61.9 (BP = 1.000)', 'counts': [1, 2]}]",
        )
        .unwrap();
        assert_eq!(v[0]["n"], 100);
        assert_eq!(v[0]["score_hex"], "0x1.aff8991eed714p+5");
        assert_eq!(v[0]["formatted"], "BLEU = 54.00 82.4/61.9 (BP = 1.000)");
        assert_eq!(
            py_repr_to_json("['0x1.0p+0', '0x0.0p+0']").unwrap(),
            serde_json::json!(["0x1.0p+0", "0x0.0p+0"])
        );
        assert!(py_repr_to_json("[{'a': \"it's\"}]").is_err());
        assert!(py_repr_to_json("['a\\'b']").is_err());
        assert!(py_repr_to_json("[True]").is_err());
        assert_eq!(
            json_or_py_repr(&serde_json::json!([[1, 2], [3]])).unwrap(),
            serde_json::json!([[1, 2], [3]])
        );
        assert_eq!(
            json_or_py_repr(&Value::String("[[1, 2], [3]]".into())).unwrap(),
            serde_json::json!([[1, 2], [3]])
        );
    }

    #[test]
    fn sacrebleu_line_splitting() {
        assert_eq!(split_lines_sacrebleu(""), Vec::<String>::new());
        assert_eq!(split_lines_sacrebleu("\n"), vec![""]);
        assert_eq!(split_lines_sacrebleu("a\nb"), vec!["a", "b"]);
        assert_eq!(split_lines_sacrebleu("a\nb\n"), vec!["a", "b"]);
        assert_eq!(
            split_lines_sacrebleu("a\r\n\nb\n\n"),
            vec!["a\r", "", "b", ""]
        );
    }

    #[test]
    fn cmd_runs_and_times_out() {
        let out = Cmd::program("sh")
            .args(["-c", "cat; echo err >&2; exit 3"])
            .stdin("hello\n")
            .run();
        assert_eq!(out.code, Some(3));
        assert_eq!(out.stdout, b"hello\n");
        assert_eq!(out.stderr, b"err\n");
        assert!(!out.timed_out);
        let out = Cmd::program("sh")
            .args(["-c", "echo \"$X\""])
            .env("X", "set")
            .run();
        assert_eq!(out.stdout_str(), "set\n");
        let out = Cmd::program("sleep")
            .arg("30")
            .timeout(Duration::from_millis(200))
            .run();
        assert!(out.timed_out && !out.success());
        assert!(out.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn par_map_keeps_order() {
        let v: Vec<usize> = (0..100).collect();
        assert_eq!(
            par_map(&v, |x| x * 2),
            (0..100).map(|x| x * 2).collect::<Vec<_>>()
        );
        assert!(par_map(&[] as &[u8], |x| *x).is_empty());
    }
}
