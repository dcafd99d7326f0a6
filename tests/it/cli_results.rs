//! No run loses, garbles or invents a result (issue 10), as a user meets it on the command line:
//! a check stopped by a signal or `--timeout` says what it settled; closed and full outputs end
//! the program without a panic; output arguments are checked before any work; nothing is
//! reported clean that was not searched.
use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::cli::mapcheck;
use std::time::{Duration, Instant};

fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mapcheck"))
}

fn no_panic(err: &str) {
    assert!(!err.contains("panicked"), "{err}");
}

/// `mapcheck args` is refused before any work: status 2, nothing on standard output, and a
/// diagnostic saying `says`.
fn refused(args: &[&str], says: &str) {
    let (code, out, err) = mapcheck(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert!(out.is_empty(), "{args:?}: {out}");
    assert!(err.contains(says), "{args:?}: {err}");
}

/// `mapcheck args OUT`, sent `signal` `times` times at once after 2 seconds: its exit status,
/// its standard output, and how long it ran after the signal.
fn signalled(
    args: &[&str],
    out: &Path,
    signal: i32,
    times: usize,
) -> (Option<i32>, String, Duration) {
    let mut child = binary()
        .args(args)
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    for _ in 0..times {
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    }
    let asked = Instant::now();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    (status.code(), stdout, asked.elapsed())
}

/// A check at a bound it cannot finish, stopped by `--timeout`: exit 4, and every axiom says the
/// largest bound it finished and the bound it was stopped in. (Coherence and Atomicity of
/// `rc11-ptx.map` have no counterexample, so nothing found is the only right outcome.)
#[test]
fn a_timeout_prints_what_is_settled_and_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cx");
    let (code, stdout, err) = mapcheck(&[
        "mappings/rc11-ptx.map",
        "--bound",
        "12",
        "--axiom",
        "Coherence",
        "--axiom",
        "Atomicity",
        "--timeout",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    no_panic(&err);
    assert_eq!(code, 4, "{stdout}{err}");
    assert!(
        stdout.starts_with("mapping mappings/rc11-ptx.map\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("stopped (--timeout 2 s) before bound 12"),
        "{stdout}"
    );
    for axiom in ["Coherence", "Atomicity"] {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{axiom}: ")))
            .unwrap_or_else(|| panic!("no line for {axiom}: {stdout}"));
        assert!(
            line.contains("none up to bound") && line.contains("stopped during bound"),
            "{line}"
        );
    }
}

/// The same with `--json`: one JSON document with the partial result.
#[test]
fn a_timeout_with_json_gives_the_partial_result() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cx");
    let (code, stdout, err) = mapcheck(&[
        "check",
        "mappings/rc11-ptx.map",
        "--bound",
        "12",
        "--axiom",
        "Coherence",
        "--timeout",
        "2",
        "--json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 4, "{err}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON document");
    assert_eq!(v["stopped"], "--timeout 2 s");
    for a in v["axioms"].as_array().unwrap() {
        let unfinished = &a["unfinished"];
        assert_eq!(
            unfinished["bound"].as_u64().unwrap(),
            a["clean_to"].as_u64().unwrap() + 1,
            "{a}"
        );
    }
}

/// SIGINT stops a check the same way (the solvers poll the request, so it ends promptly).
#[test]
fn sigint_stops_a_check_with_what_is_settled() {
    let dir = tempfile::tempdir().unwrap();
    // Twice at once, as `timeout -s INT` does (the child, then its process group): still one
    // request, not the forced exit a later second Ctrl-C gives.
    let (code, stdout, after) = signalled(
        &[
            "mappings/rc11-ptx.map",
            "--bound",
            "12",
            "--axiom",
            "Coherence",
            "-o",
        ],
        &dir.path().join("cx"),
        libc::SIGINT,
        2,
    );
    assert!(
        after < Duration::from_secs(60),
        "still running a minute after SIGINT"
    );
    assert_eq!(code, Some(4), "{stdout}");
    assert!(stdout.contains("stopped (SIGINT)"), "{stdout}");
}

/// SIGTERM stops `export-coq`'s search: the export is written with the bounds the search settled
/// (no claim beyond them) and the exit status is a stopped check's, 4 (it used to die with 143
/// and write nothing).
#[test]
fn sigterm_stops_an_export_with_what_is_settled() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("coq");
    let (code, stdout, _) = signalled(
        &["export-coq", "mappings/rc11-ptx.map", "--bound", "12", "-o"],
        &out,
        libc::SIGTERM,
        1,
    );
    assert_eq!(code, Some(4), "{stdout}");
    assert!(stdout.contains("stopped before the bound"), "{stdout}");
    let obligations = std::fs::read_to_string(out.join("Obligations_rc11_ptx.v")).unwrap();
    assert!(
        obligations.contains("up to bound"),
        "the settled bounds are stated"
    );
    assert!(
        !obligations.contains("up to bound 12"),
        "no claim beyond what was settled"
    );
}

/// A closed standard output ends a command quietly with 141, a full one with a diagnostic and 2:
/// a real command, and the help and version clap prints.
#[test]
fn closed_and_full_standard_output_end_without_a_panic() {
    let commands: [&[&str]; 3] = [
        &[
            "run",
            "models/ptx-v6.cat",
            "tests/data/ptx-manual/0008_sb_fence_sc_sys.litmus",
        ],
        &["--help"],
        &["--version"],
    ];
    for args in commands {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = binary().args(args).stdout(writer).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        no_panic(&err);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?} quietly: {err}");

        if Path::new("/dev/full").exists() {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let out = binary().args(args).stdout(full).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            no_panic(&err);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains("cannot write"), "{args:?}: {err}");
        }
    }
}

/// A count of 0 that would make a command report on nothing (`run --unroll 0`: "Never" from no
/// execution; `gpu run --iterations 0`: no instance) is refused.
#[test]
fn a_count_of_zero_is_refused() {
    let commands: [&[&str]; 3] = [
        &[
            "run",
            "--unroll",
            "0",
            "models/ptx-v6.cat",
            "tests/data/ptx-manual/0008_sb_fence_sc_sys.litmus",
        ],
        &["gpu", "run", "--iterations", "0", "tests/data"],
        &[
            "gpu",
            "suite",
            "tests/data/gpu",
            "--target",
            "opencl",
            "--iterations",
            "0",
            "-o",
            "unused",
        ],
    ];
    for args in commands {
        refused(args, "must be at least 1");
    }
}

/// `gpu suite -o FILE` is refused before any test is emitted (it used to skip every test, each
/// "skipped" for the write that failed, and exit 0).
#[test]
fn a_gpu_suite_into_a_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "mine").unwrap();
    // Nothing printed: no test "skipped".
    refused(
        &[
            "gpu",
            "suite",
            "tests/data/gpu",
            "--target",
            "opencl",
            "-o",
            file.to_str().unwrap(),
        ],
        "is not a directory",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

/// A Graphviz that fails half-way (a full disk) leaves no SVG: its output is taken from its
/// standard output and written whole or not at all (it used to write straight into place with
/// `-o`, and a truncated `graph.svg` was kept).
#[cfg(unix)]
#[test]
fn a_graphviz_that_fails_leaves_no_svg() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    // Writes half an SVG where it is told to (`-o FILE`, else standard output), then fails.
    let fake = bin.join("dot");
    std::fs::write(
        &fake,
        "#!/bin/sh\nout=/dev/stdout\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\nprintf '<svg trunc' > \"$out\"\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = dir.path().join("cx");
    let run = binary()
        .env("PATH", path)
        .args([
            "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map",
            "--bound",
            "3",
            "--axiom",
            "Coherence",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    no_panic(&err);
    assert_eq!(run.status.code(), Some(1), "{err}");
    let case = out.join("m4-release-acquire-gpu-narrowed-Coherence");
    assert!(case.join("graph.dot").exists());
    assert!(
        !case.join("graph.svg").exists(),
        "a failed dot's SVG was kept"
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(!stdout.contains("graph.svg"), "{stdout}");
}

/// A check or an export into a place nothing can be written (`/proc`, even for root) is refused
/// before the search, not at its first write.
#[test]
fn an_output_that_cannot_be_written_is_refused_before_the_work() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    for command in ["check", "export-coq"] {
        refused(
            &[
                command,
                "mappings/rc11-ptx.map",
                "--bound",
                "9",
                "-o",
                "/proc/mapcheck-output",
            ],
            "cannot write into /proc",
        );
    }
}

/// Two runs writing into one directory at once: each either writes the whole directory or is
/// refused (the directory is locked while a run writes), so what is left is one run's result,
/// every file in it listed by its manifest.
#[test]
fn two_writers_into_one_directory_leave_one_result() {
    two_writers_race(5);
}

/// The same race 500 times.
#[test]
#[ignore = "exhaustive tier (scripts/test --exhaustive)"]
fn exhaustive_two_writers_into_one_directory_leave_one_result() {
    two_writers_race(500);
}

/// Two `gpu emit`s into one directory at once, `rounds` times.
fn two_writers_race(rounds: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let tests = [
        "tests/data/gpu/0001_sb_relaxed_two_work_groups.litmus",
        "tests/data/gpu/0003_mp_release_acquire.litmus",
    ];
    for _ in 0..rounds {
        let children: Vec<std::process::Child> = tests
            .iter()
            .map(|t| {
                binary()
                    .args(["gpu", "emit", t, "--target", "opencl", "-o"])
                    .arg(&dir)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut written = vec![];
        for (child, test) in children.into_iter().zip(tests) {
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            no_panic(&err);
            match out.status.code() {
                Some(0) => written.push(std::fs::read_to_string(test).unwrap()),
                Some(2) => assert!(err.contains("another mapcheck run"), "{err}"),
                other => panic!("{other:?}: {err}"),
            }
        }
        assert!(!written.is_empty(), "one of the two runs wrote");
        let manifest = std::fs::read_to_string(dir.join(".mapcheck-files")).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with(".mapcheck-") {
                assert!(manifest.lines().any(|l| l == name), "{name} not listed");
            }
        }
        let left = std::fs::read_to_string(dir.join("test.litmus")).unwrap();
        let source = |t: &str| left.lines().next() == t.lines().next();
        assert!(
            written.iter().any(|t| source(t)),
            "test.litmus of a run that wrote: {left}"
        );
    }
}

/// `repair -o` into a directory that does not exist is refused before the repair (it used to
/// fail after the whole search).
#[test]
fn a_repair_into_a_missing_directory_is_refused_before_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("missing").join("r.map");
    // The refusal, not the write after a finished repair (which says "creating a temporary
    // file").
    refused(
        &[
            "repair",
            "mappings/rc11-ptx.map",
            "--bound",
            "5",
            "-o",
            to.to_str().unwrap(),
        ],
        "missing does not exist",
    );
}

/// `-o FILE` is refused before the search starts (nothing printed but the error).
#[test]
fn an_output_path_that_is_a_file_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("results.txt");
    std::fs::write(&file, "mine").unwrap();
    refused(
        &[
            "mappings/rc11-ptx.map",
            "--bound",
            "9",
            "-o",
            file.to_str().unwrap(),
        ],
        "is not a directory",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

/// A counterexample directory with files mapcheck did not write is refused; one an earlier run
/// wrote is cleared of exactly those files.
#[test]
fn a_run_owns_its_counterexample_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let map = "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map";
    let case = dir.path().join("m4-release-acquire-gpu-narrowed-Coherence");
    std::fs::create_dir(&case).unwrap();
    std::fs::write(case.join("notes.txt"), "mine").unwrap();
    let args = [map, "--bound", "3", "--axiom", "Coherence", "-o", out];
    let (code, _, err) = mapcheck(&args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("did not write"), "{err}");

    std::fs::remove_file(case.join("notes.txt")).unwrap();
    let (code, _, err) = mapcheck(&args);
    assert_eq!(code, 1, "{err}");
    let manifest = std::fs::read_to_string(case.join(".mapcheck-files")).unwrap();
    assert!(manifest.contains("graph.dot"), "{manifest}");
    // A stale file the earlier run listed is gone after the next run, a user's file stays.
    std::fs::write(case.join("graph.svg"), "stale").unwrap();
    std::fs::write(
        case.join(".mapcheck-files"),
        format!("{manifest}graph.svg\n"),
    )
    .unwrap();
    std::fs::write(case.join("notes.txt"), "mine").unwrap();
    let (code, _, err) = mapcheck(&args);
    assert_eq!(code, 1, "{err}");
    let svg = std::fs::read_to_string(case.join("graph.svg")).unwrap_or_default();
    assert_ne!(
        svg, "stale",
        "an earlier run's graph.svg is left beside the new graph.dot"
    );
    assert!(case.join("notes.txt").exists());
}

/// `compile -o` onto its own input is refused and the input is left as it was.
#[test]
fn compile_refuses_to_overwrite_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("mp.litmus");
    let text = std::fs::read_to_string("tests/data/gpu/0004_b1_source.litmus").unwrap();
    std::fs::write(&source, &text).unwrap();
    let s = source.to_str().unwrap();
    let (code, _, err) = mapcheck(&["compile", "mappings/rc11-ptx.map", s, "-o", s]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is the input"), "{err}");
    assert_eq!(std::fs::read_to_string(&source).unwrap(), text);
}

/// Zero bounds, threads or locations would search nothing: refused, never "none up to bound".
#[test]
fn zero_bounds_threads_and_locations_are_refused() {
    for flag in ["--bound", "--threads", "--locations"] {
        let (code, stdout, err) = mapcheck(&["mappings/rc11-ptx.map", flag, "0"]);
        assert_eq!(code, 2, "{flag}: {stdout}{err}");
        assert!(err.contains("at least 1"), "{flag}: {err}");
        assert!(!stdout.contains("none up to"), "{stdout}");
    }
}

/// A mapping file with its `class` lines cut off is refused; one without fence classes is
/// searched with a warning naming what is not searched, and the header says it too.
#[test]
fn a_mapping_that_leaves_operations_out_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let full = std::fs::read_to_string("mappings/rc11-ptx.map")
        .unwrap()
        .replace("\"../models/", &format!("\"{}/", models.display()));
    let header: String = full
        .lines()
        .take_while(|l| !l.starts_with("class"))
        .map(|l| format!("{l}\n"))
        .collect();
    let truncated = dir.path().join("truncated.map");
    std::fs::write(&truncated, header).unwrap();
    let (code, stdout, err) = mapcheck(&[truncated.to_str().unwrap(), "--bound", "2"]);
    assert_eq!(code, 2, "{stdout}{err}");
    assert!(
        err.contains("declares none") && !stdout.contains("none up to"),
        "{err}"
    );

    let no_fences: String = full
        .lines()
        .filter(|l| !l.starts_with("F.") && !l.starts_with("class F"))
        .map(|l| format!("{l}\n"))
        .collect();
    let path = dir.path().join("no-fences.map");
    std::fs::write(&path, no_fences).unwrap();
    let out = dir.path().join("cx");
    let (code, stdout, err) = mapcheck(&[
        path.to_str().unwrap(),
        "--bound",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(err.contains("warning: not searched: fences (F)"), "{err}");
    assert!(stdout.contains("not searched: fences (F)"), "{stdout}");
    assert!(
        !stdout
            .lines()
            .any(|l| l.starts_with("searched:") && l.contains("F.SC")),
        "{stdout}"
    );
}

/// OpenCL has work-group barriers and `opencl.cat` gives them meaning, but the mapping check's
/// programs have none (only `compare`'s PTX identity mapping places barriers): the header and a
/// warning say so.
#[test]
fn a_check_says_it_places_no_barriers_when_the_source_model_has_them() {
    let (code, stdout, err) = mapcheck(&["check", "mappings/opencl-ptx.map", "--bound", "1"]);
    assert_eq!(code, 0, "{stdout}{err}");
    let line = "not searched: barriers: the source model has them, the search places none";
    assert!(err.contains(&format!("warning: {line}")), "{err}");
    assert!(stdout.contains(line), "{stdout}");
    let (code, stdout, err) = mapcheck(&["check", "mappings/rc11-ptx.map", "--bound", "1"]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(!stdout.contains("barriers"), "{stdout}");
}

/// With `--json`, an error is a JSON document too (and the diagnostic stays on stderr).
#[test]
fn errors_are_json_when_json_is_asked() {
    let (code, stdout, err) = mapcheck(&["check", "no-such.map", "--json"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON error");
    assert_eq!(v["error"]["path"], "no-such.map");
    assert!(err.contains("no-such.map"), "{err}");
}

/// Wait until another process holds `dir`'s lock (this process cannot take it).
fn wait_until_locked(dir: &Path) {
    let start = Instant::now();
    loop {
        if let Ok(file) = std::fs::File::open(dir.join(".mapcheck-lock")) {
            if let Err(std::fs::TryLockError::WouldBlock) = file.try_lock() {
                return;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} never locked",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every directory a check may write is locked at its start (issue 60: two identical checks
/// into one `-o` both searched to the end, then one could not write): a second check into it is
/// refused before its search, and a check that finds nothing leaves no directory behind.
#[test]
fn a_check_locks_its_output_directories_before_the_search() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let map = "mappings/rc11-ptx-artifact.map";
    let mut first = binary()
        .args([map, "--bound", "8", "--timeout", "120", "-o"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until_locked(&out.join("rc11-ptx-artifact-Coherence"));
    let (code, stdout, err) = mapcheck(&[map, "--bound", "3", "-o", out.to_str().unwrap()]);
    first.kill().unwrap();
    first.wait().unwrap();
    assert_eq!(code, 2, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        err.contains("is being written by another mapcheck run"),
        "{err}"
    );

    let clean = tmp.path().join("clean");
    let (code, _, err) = mapcheck(&[map, "--bound", "3", "-o", clean.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!clean.exists(), "a clean check left {}", clean.display());
}

/// `gpu run DIR` locks DIR before it runs anything (it used to write its results beside a `gpu
/// emit` into the same directory).
#[test]
fn a_gpu_run_is_refused_while_its_directory_is_being_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("harness");
    let test = "tests/data/gpu/0001_sb_relaxed_two_work_groups.litmus";
    let (code, _, err) = mapcheck(&[
        "gpu",
        "emit",
        test,
        "--target",
        "opencl",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let lock = std::fs::File::open(dir.join(".mapcheck-lock")).unwrap();
    lock.try_lock().expect("no run holds the emitted directory");
    let (code, _, err) = mapcheck(&["gpu", "run", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("is being written by another mapcheck run"),
        "{err}"
    );
    assert!(!dir.join("result.json").exists());
}
