//! Faults from outside (issue 41): a disk that fills up and a `kill -9` at any moment, against
//! the two commands that write many files (`export-coq -o` and `check -o`). Whatever happens, a
//! file in the output directory is whole (byte for byte what an undisturbed run writes) and the
//! next run leaves exactly one run's result; a full disk is also a diagnostic and status 2.
//! Two writers at once and INT/TERM are in `cli_results.rs`. Each fault has a
//! budgeted form in the fast or CI tier and a larger one in the exhaustive tier. Memory (issue 60): a mapping whose
//! SAT problems would be too large is refused with the estimate before any is built, and an
//! allocation that fails is a diagnostic and status 2, never an abort.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_mapcheck");

/// The two writing commands, with `OUT` for the output directory.
const RUNS: [&[&str]; 2] = [
    &[
        "export-coq",
        "mappings/rc11-ptx.map",
        "--bound",
        "3",
        "-o",
        "OUT",
    ],
    &[
        "check",
        "mappings/known-bugs/m2-release-store-relaxed.map",
        "--bound",
        "4",
        "-o",
        "OUT",
    ],
];

fn command(run: &[&str], out: &Path) -> Vec<String> {
    run.iter()
        .map(|w| {
            if *w == "OUT" {
                out.display().to_string()
            } else {
                w.to_string()
            }
        })
        .collect()
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(path.strip_prefix(root).unwrap().to_path_buf(), bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out
}

fn is_bookkeeping(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(".mapcheck-"))
}

/// What an undisturbed run of one of `RUNS` writes into a fresh directory, and its exit status.
struct Reference {
    run: &'static [&'static str],
    files: BTreeMap<PathBuf, Vec<u8>>,
    status: Option<i32>,
}

impl Reference {
    fn of(run: &'static [&'static str], root: &Path) -> Reference {
        let out = root.join(format!("reference-{}", run[0]));
        let status = Command::new(BIN)
            .args(command(run, &out))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        let files = tree(&out);
        assert!(files.len() > 5, "{run:?} wrote {} files", files.len());
        Reference {
            run,
            files,
            status: status.code(),
        }
    }

    /// Each result file (not bookkeeping) left in `out` is the reference's file, whole.
    fn only_whole_files(&self, out: &Path, what: &str) {
        for (path, bytes) in tree(out) {
            if is_bookkeeping(&path) {
                continue;
            }
            assert!(
                self.files.get(&path) == Some(&bytes),
                "{what}: {} is not a whole result file",
                path.display()
            );
        }
    }

    /// A rerun into `out` ends as the reference run did and leaves exactly its files.
    fn rerun_leaves_one_result(&self, out: &Path, what: &str) {
        let again = Command::new(BIN)
            .args(command(self.run, out))
            .output()
            .unwrap();
        assert_eq!(
            again.status.code(),
            self.status,
            "{what}: {}",
            String::from_utf8_lossy(&again.stderr)
        );
        let left = tree(out);
        let extra: Vec<&PathBuf> = left
            .keys()
            .filter(|p| !self.files.contains_key(*p))
            .collect();
        let missing: Vec<&PathBuf> = self
            .files
            .keys()
            .filter(|p| !left.contains_key(*p))
            .collect();
        assert!(
            extra.is_empty() && missing.is_empty(),
            "{what}: extra {extra:?}, missing {missing:?}"
        );
        assert!(
            left == self.files,
            "{what}: a file differs from the reference run's"
        );
    }
}

/// For each of `RUNS`: its reference, and an output directory beside it for the faulty runs.
fn for_each_run(check: impl Fn(&Reference, &Path)) {
    let root = tempfile::tempdir().unwrap();
    for run in RUNS {
        let reference = Reference::of(run, root.path());
        check(&reference, &root.path().join(format!("faulty-{}", run[0])));
    }
}

/// A file-size limit (`ulimit -f`, with SIGXFSZ ignored so a write fails with EFBIG as on a full
/// disk) of 512 bytes: the run stops at the first larger file with a diagnostic naming it and
/// status 2, leaves no temporary file, and what it did write is whole.
#[test]
fn a_full_disk_is_a_diagnostic_and_leaves_only_whole_files() {
    full_disk_at(&[1]);
}

/// The same at every limit from 1 to 24 blocks of 512 bytes, so that the disk fills at each of
/// the files the runs write.
#[test]
#[ignore = "exhaustive tier (scripts/test --exhaustive)"]
fn exhaustive_a_disk_full_at_any_file_leaves_only_whole_files() {
    full_disk_at(&(1..=24).collect::<Vec<_>>());
}

/// Each of `RUNS` under each file-size limit of `blocks` (512-byte blocks): status 2 and a
/// diagnostic where one of its files passes the limit, its own status where none does, no
/// temporary file, only whole files, and a rerun that leaves one result.
fn full_disk_at(blocks: &[u32]) {
    for_each_run(|reference, out| {
        for limit in blocks {
            let _ = std::fs::remove_dir_all(out);
            let words = command(reference.run, out).join(" ");
            let limited = Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "trap '' XFSZ; ulimit -f {limit}; exec {BIN} {words}"
                ))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&limited.stderr);
            let what = format!("{words} under ulimit -f {limit}");
            assert!(!err.contains("panicked"), "{what}: {err}");
            let too_large = (reference.files.values()).any(|b| b.len() > *limit as usize * 512);
            if too_large {
                assert_eq!(limited.status.code(), Some(2), "{what}: {err}");
                assert!(
                    err.contains("error: ") && err.contains("File too large"),
                    "{what}: {err}"
                );
            } else {
                assert_eq!(limited.status.code(), reference.status, "{what}: {err}");
            }
            reference.only_whole_files(out, &what);
            let temporary = tree(out)
                .into_keys()
                .find(|p| p.to_string_lossy().contains(".mapcheck-tmp-"));
            assert_eq!(temporary, None, "{what}");
            reference.rerun_leaves_one_result(out, &what);
        }
    });
}

/// `kill -9` at moments spread over a whole run (every 16 ms from its start to past its end):
/// each file left is whole, and the next run into the directory (which sweeps the dead run's
/// temporary files) leaves exactly one run's result.
#[test]
#[ignore = "CI tier (scripts/test)"]
fn a_kill_at_any_moment_leaves_only_whole_files_and_the_next_run_completes() {
    kills_at_moments((0..400).step_by(16));
}

/// The same every 6 ms: 67 moments per run.
#[test]
#[ignore = "exhaustive tier (scripts/test --exhaustive)"]
fn exhaustive_a_kill_at_any_moment_leaves_only_whole_files() {
    kills_at_moments((0..400).step_by(6));
}

/// Each of `RUNS` killed after each of `delays` ms: each file left is whole, and a rerun into
/// the directory leaves exactly one run's result.
fn kills_at_moments(delays: impl Iterator<Item = u64> + Clone) {
    for_each_run(|reference, out| {
        for delay_ms in delays.clone() {
            let _ = std::fs::remove_dir_all(out);
            let mut child = Command::new(BIN)
                .args(command(reference.run, out))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(Duration::from_millis(delay_ms));
            let _ = child.kill();
            child.wait().unwrap();
            let what = format!("{:?} killed after {delay_ms} ms", reference.run);
            reference.only_whole_files(out, &what);
            reference.rerun_leaves_one_result(out, &what);
        }
    });
}

const FORTY_FENCES: &str = "tests/data/mapping/forty-fences.map";

/// One row of 40 fences widens every shape to 126 slots at bound 3: refused with the estimate
/// and the limit, nothing printed on stdout.
#[test]
fn a_forty_fence_row_is_refused_with_its_memory_estimate() {
    let out = Command::new(BIN)
        .args(["check", FORTY_FENCES, "--bound", "3"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty());
    for words in [
        "126 event slots",
        "the row for W.SC",
        "estimated at",
        "more than --max-memory 4 GiB",
    ] {
        assert!(err.contains(words), "{words}: {err}");
    }
}

/// The same check let past the estimate, in a process limited to 1 GiB of address space: the
/// failed allocation is reported, status 2, where it used to abort (status 134).
#[cfg(unix)]
#[test]
fn a_failed_allocation_is_a_diagnostic() {
    let script =
        format!("ulimit -v 1048576; exec {BIN} check {FORTY_FENCES} --bound 3 --max-memory 64");
    let out = Command::new("sh")
        .args(["-c", &script])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("mapcheck ran out of memory (an allocation of"),
        "{err}"
    );
}
