//! Point 1: report files are written safely.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{symlink, FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{assert_refused, Cmd, BIN};

const INPUT: &str = "a b c d\ta b c d\n";

/// A symlink planted at the name the temporary file used to have (`PATH.tmp.<pid>`, known once
/// the daemon runs) and at other plausible names is never followed: the files they point to
/// are untouched, and the report is written.
#[test]
fn planted_symlinks_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let prom = dir.path().join("bleu.prom");
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious\n").unwrap();
    let mut child = Command::new(BIN)
        .arg("--report-file")
        .arg(&report)
        .arg("--prometheus")
        .arg(&prom)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut planted = Vec::new();
    for target in [&report, &prom] {
        let name = target.file_name().unwrap().to_str().unwrap();
        for guess in [
            format!("{name}.tmp.{pid}"),
            format!("{name}.tmp"),
            format!(".{name}.tmp"),
            format!("{name}~"),
        ] {
            let link = dir.path().join(guess);
            symlink(&victim, &link).unwrap();
            planted.push(link);
        }
    }
    // The report is only written at the end of the input: the links are in place before.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(INPUT.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    for link in &planted {
        assert!(fs::symlink_metadata(link).unwrap().is_symlink());
    }
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(json["final"], true);
    assert!(fs::read_to_string(&prom).unwrap().contains("bleu"));
    // No temporary file is left behind.
    let known = [&report, &prom, &victim];
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !known.contains(&p) && !planted.contains(p))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A symlink at PATH itself is replaced by the report; its target is untouched.
#[test]
fn a_symlink_at_the_path_is_replaced_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let victim = dir.path().join("victim");
    fs::write(&victim, "precious\n").unwrap();
    symlink(&victim, &report).unwrap();
    let out = Cmd::new()
        .arg("--report-file")
        .arg(&report)
        .stdin(INPUT)
        .run();
    out.assert_success();
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(fs::symlink_metadata(&report).unwrap().is_file());
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// The report keeps the permission bits of the file it replaces (0600 stays 0600, 0640 stays
/// 0640), not its set-id bits; a new one is not executable and not world-writable.
#[test]
fn report_files_keep_their_permission_bits() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bits) in [("private.json", 0o600), ("group.prom", 0o640)] {
        let path = dir.path().join(name);
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(bits)).unwrap();
        let flag = if name.ends_with(".json") {
            "--report-file"
        } else {
            "--prometheus"
        };
        Cmd::new()
            .arg(flag)
            .arg(&path)
            .stdin(INPUT)
            .run()
            .assert_success();
        assert_ne!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(mode(&path), bits, "{name}");
    }
    let new = dir.path().join("new.json");
    Cmd::new()
        .arg("--report-file")
        .arg(&new)
        .stdin(INPUT)
        .run()
        .assert_success();
    assert_eq!(mode(&new) & 0o113, 0, "{:o}", mode(&new));
    // Regression (audit 2026-11-27): set-id and sticky bits were carried over (a 4755 report
    // stayed 4755 after the rewrite); only the rwx bits are.
    let setid = dir.path().join("setid.json");
    fs::write(&setid, "old").unwrap();
    fs::set_permissions(&setid, fs::Permissions::from_mode(0o6755)).unwrap();
    if mode(&setid) & 0o6000 != 0 {
        Cmd::new()
            .arg("--report-file")
            .arg(&setid)
            .stdin(INPUT)
            .run()
            .assert_success();
        assert_eq!(mode(&setid), 0o755, "{:o}", mode(&setid));
    }
}

/// A FIFO, a device or a directory at PATH is refused before anything is scored (status 2),
/// not replaced.
#[test]
fn a_fifo_device_or_directory_at_the_path_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // A device of its own where that is allowed (root: a regression must not replace the
    // machine's /dev/null); elsewhere /dev/null, whose directory only root may write.
    let dev = dir.path().join("null");
    let made = Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"])
        .status();
    let dev = match made {
        Ok(s) if s.success() => dev,
        _ => Path::new("/dev/null").to_owned(),
    };
    let subdir = dir.path().join("subdir");
    fs::create_dir(&subdir).unwrap();
    for (flag, path, what) in [
        ("--report-file", fifo.as_path(), "FIFO"),
        ("--prometheus", dev.as_path(), "device"),
        ("--report-file", subdir.as_path(), "directory"),
    ] {
        let out = Cmd::new().arg(flag).arg(path).stdin(INPUT).run();
        assert_refused(&out, 2, &[what]);
    }
    // A name ending in '/' names a directory, whether or not one exists: no report could be
    // renamed onto it. (Regression, output audit: `--prometheus new.prom/` passed the start-up
    // probe, then every report failed with "Not a directory".)
    let slash = format!("{}/", dir.path().join("new.prom").display());
    for flag in ["--prometheus", "--report-file"] {
        let out = Cmd::new().args([flag, &slash]).stdin(INPUT).run();
        assert_refused(
            &out,
            2,
            &["ends in '/', '.' or '..', so it names a directory"],
        );
    }
    for name in ["new.prom/.", "new.prom/..", "."] {
        let path = format!("{}/{name}", dir.path().display());
        let out = Cmd::new().args(["--report-file", &path]).stdin(INPUT).run();
        assert_refused(&out, 2, &["so it names a directory"]);
    }
    assert!(!dir.path().join("new.prom").exists());
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(subdir.is_dir());
    assert!(fs::metadata(&dev).unwrap().file_type().is_char_device());
}

/// An output that is the same file as an input (even through a link) is refused before
/// anything is written: the input is intact.
#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.tsv");
    fs::write(&input, INPUT).unwrap();
    let alias = dir.path().join("alias");
    symlink(&input, &alias).unwrap();
    for flag in ["--output", "--report-file", "--prometheus"] {
        let out = Cmd::new().arg(flag).arg(&alias).arg(&input).run();
        assert_eq!(out.code, Some(2), "{flag}: {}", out.describe());
        assert!(out.stderr_str().contains("same file"), "{}", out.describe());
        assert_eq!(fs::read_to_string(&input).unwrap(), INPUT);
    }
    // Standard input redirected from the file counts too.
    let out = Command::new(BIN)
        .arg("--output")
        .arg(&input)
        .stdin(fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(fs::read_to_string(&input).unwrap(), INPUT);
    // So does a file to follow, under each output option.
    for flag in ["--output", "--report-file", "--prometheus"] {
        let out = Cmd::new()
            .arg("--follow")
            .arg(&input)
            .arg(flag)
            .arg(&alias)
            .stdin("")
            .run();
        assert_eq!(out.code, Some(2), "--follow, {flag}: {}", out.describe());
        assert!(out.stderr_str().contains("same file"), "{}", out.describe());
        assert_eq!(fs::read_to_string(&input).unwrap(), INPUT);
    }
    // So does a reference file.
    let out = Cmd::new()
        .arg("-r")
        .arg(&input)
        .arg("--report-file")
        .arg(&input)
        .stdin("a b\n")
        .run();
    assert_eq!(out.code, Some(2), "{}", out.describe());
}

/// What sits at PATH is checked again at every report: a FIFO put there while the daemon runs
/// is not replaced (nor written to, which would block) but warned about; the scoring goes on,
/// and the run ends with status 1, as a report that could not be written was lost (point 6);
/// the final report's failure is an error.
#[test]
fn a_fifo_put_at_the_path_during_the_run_is_refused_and_the_report_counted_lost() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let mut child = Command::new(BIN)
        .args(["--every", "1", "-f", "jsonl", "--report-file"])
        .arg(&report)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(INPUT.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !report.exists() {
        assert!(std::time::Instant::now() < deadline, "no report file");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    fs::remove_file(&report).unwrap();
    let made = Command::new("mkfifo").arg(&report).status().unwrap();
    assert!(made.success());
    stdin.write_all(INPUT.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // Both lines scored, the final report on stdout.
    let text = String::from_utf8_lossy(&out.stdout);
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(
        (last["final"].as_bool(), last["segments"].as_u64()),
        (Some(true), Some(2))
    );
    // Said at the running report of line 2 (a warning: the scoring goes on) and at the final
    // one (an error: nothing comes after it).
    for level in ["warning", "error"] {
        let said = format!("bleu-stream: {level}: cannot write {}: ", report.display());
        assert_eq!(stderr.matches(&said).count(), 1, "{stderr}");
    }
    assert!(stderr.contains("is a FIFO"), "{stderr}");
    assert!(fs::symlink_metadata(&report).unwrap().file_type().is_fifo());
}

/// Two outputs that are one file (audit 2026-11-26: `-o X --report-file X` replaced the rows
/// with the report, status 0) are refused before anything is written, whether named alike,
/// spelled differently, or reached through a link.
#[test]
fn outputs_that_are_one_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out");
    let dotted = dir.path().join(".").join("out");
    let alias = dir.path().join("alias");
    fs::write(&path, "kept").unwrap();
    symlink(&path, &alias).unwrap();
    for (a, b, c) in [
        ("-o", "--report-file", &path),
        ("--report-file", "--prometheus", &dotted),
        ("-o", "--prometheus", &alias),
    ] {
        let out = Cmd::new()
            .arg(a)
            .arg(&path)
            .arg(b)
            .arg(c)
            .stdin(INPUT)
            .run();
        assert_refused(&out, 2, &["one would overwrite the other"]);
        assert_eq!(fs::read_to_string(&path).unwrap(), "kept");
    }
}

/// Regression (streaming audit): `--report-file r.json > r.json` was accepted, and each report
/// replaced the rows standard output had written there. With -o the rows go there and stdout
/// carries nothing: accepted.
#[test]
fn a_report_file_that_is_standard_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    let rows = dir.path().join("rows");
    for (flag, extra, status) in [
        ("--report-file", "", 2),
        ("--prometheus", "", 2),
        ("--report-file", " -o rows", 0),
    ] {
        let script = format!("'{BIN}' {flag} out.json{extra} < /dev/null > out.json");
        let out = Cmd::program("sh")
            .args(["-c", &script])
            .current_dir(dir.path())
            .run();
        assert_eq!(out.code, Some(status), "{script}: {}", out.describe());
        if status == 2 {
            assert!(
                out.stderr_str().contains("is also standard output"),
                "{}",
                out.describe()
            );
        }
    }
    assert!(rows.exists() && path.exists());
}

/// A report file that could never be written is a usage error before the input is read
/// (audit: an unwritable directory gave only a warning after the whole run, and `/proc/version`
/// "No such file or directory"): the message names the directory that refused the file.
#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_report_directory_is_refused_at_once() {
    let out = Cmd::new()
        .args(["--report-file", "/proc/version", "-b"])
        .stdin(INPUT)
        .run();
    assert_refused(&out, 2, &[]);
    assert!(
        out.stderr_str()
            .starts_with("bleu-stream: error: /proc/version: cannot create a file in /proc"),
        "{}",
        out.describe()
    );
}

/// The replaced report keeps its group (and owner, as root): a collector that reads it through
/// its group keeps reading it (audit: a root:nogroup 0640 file came back root:root). Needs a
/// group to move the file to: as root any; otherwise skipped.
#[test]
fn report_files_keep_their_group() {
    use std::os::unix::fs::{chown, MetadataExt};
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED report_files_keep_their_group: needs root to give a file another group");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bleu.prom");
    fs::write(&path, "old").unwrap();
    chown(&path, Some(65534), Some(65534)).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    Cmd::new()
        .arg("--prometheus")
        .arg(&path)
        .stdin(INPUT)
        .run()
        .assert_success();
    let meta = fs::metadata(&path).unwrap();
    assert_ne!(fs::read_to_string(&path).unwrap(), "old");
    assert_eq!((meta.uid(), meta.gid(), mode(&path)), (65534, 65534, 0o640));
}

/// Regression (audit F6): a report file whose name is long but valid (250 bytes) is written.
/// The start-up probe made a temporary file under a short name of its own and passed; every
/// real report then failed ("cannot create a temporary file in .: File name too long": the
/// temporary name added 12 bytes to the whole of PATH's name), and the run ended with
/// status 1, no report ever written.
#[test]
fn a_report_file_with_a_long_name_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let name = "r".repeat(250);
    let out = Cmd::new()
        .args(["--report-file", &name, "-b"])
        .current_dir(dir.path())
        .stdin(INPUT)
        .run();
    out.assert_success();
    let written = fs::read_to_string(dir.path().join(&name)).unwrap();
    assert!(written.contains("\"final\":true"), "{written}");
    // A name too long for the file system itself is refused before anything is read.
    let out = Cmd::new()
        .args(["--report-file", &"r".repeat(256), "-b"])
        .current_dir(dir.path())
        .stdin(INPUT)
        .run();
    assert_refused(&out, 2, &["File name too long"]);
}

/// Regression (audit F7): a symlink at PATH is replaced, not followed, so the owner and mode of
/// the file it points to are not the old report's: root's report gets what a new file gets.
/// Before, in a sticky directory, anyone could plant `report.json -> mine` (mine: 0600, or
/// 0666 and theirs) and root's report came out with that mode and owner. The target stays as
/// it was.
#[test]
fn a_symlink_at_the_report_path_lends_no_owner_or_mode() {
    use std::os::unix::fs::{chown, MetadataExt};
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let dir = tempfile::tempdir().unwrap();
    // What a new report gets here (the umask decides).
    let fresh = dir.path().join("fresh.json");
    Cmd::new()
        .arg("--report-file")
        .arg(&fresh)
        .stdin(INPUT)
        .run()
        .assert_success();
    let fresh_mode = mode(&fresh);
    for target_mode in [0o600, 0o666] {
        let mine = dir.path().join(format!("mine-{target_mode:o}"));
        let report = dir.path().join(format!("report-{target_mode:o}.json"));
        fs::write(&mine, "theirs").unwrap();
        if root {
            chown(&mine, Some(65534), Some(65534)).unwrap();
        }
        fs::set_permissions(&mine, fs::Permissions::from_mode(target_mode)).unwrap();
        symlink(&mine, &report).unwrap();
        Cmd::new()
            .arg("--report-file")
            .arg(&report)
            .stdin(INPUT)
            .run()
            .assert_success();
        let meta = fs::symlink_metadata(&report).unwrap();
        assert!(meta.is_file(), "the link was not replaced");
        assert_eq!(mode(&report), fresh_mode, "mode of {}", mine.display());
        let me = fs::metadata(&fresh).unwrap();
        assert_eq!((meta.uid(), meta.gid()), (me.uid(), me.gid()));
        assert_eq!(fs::read_to_string(&mine).unwrap(), "theirs");
        assert_eq!(mode(&mine), target_mode);
    }
}
