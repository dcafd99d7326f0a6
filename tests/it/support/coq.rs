//! Shared by the Coq tests: compiling an export directory with coqc, and picking and dropping
//! events of a skeleton.
//!
//! Compiling is cached. Many tests compile the same files (the project's library, `Exec.v`, each
//! model): a file whose text was compiled before, with the same coqc and the same compiled
//! libraries (`.vo` files, byte for byte) beside it, gets that compile's `.vo`, `.glob` and
//! output back instead of a second compile. Only successful compiles are kept. coqc is a pure
//! function of those inputs, so a hit answers what a compile would; the cache lives in cargo's
//! `target/tmp`, and `cargo clean` empties it.
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use mapcheck::coq::program::Program;
use mapcheck::eval::Base;
use mapcheck::rel::{Rel, Set};
use sha2::{Digest, Sha256};

/// A new, empty directory for one export, named after `what`: unique in the test process, where
/// tests run side by side (a name made of the process id alone is not). Kept until the test
/// removes it, so that a failing test leaves its files to read.
pub fn scratch_dir(what: &str) -> PathBuf {
    tempfile::Builder::new()
        .prefix(&format!("mapcheck-{what}-"))
        .tempdir()
        .expect("a scratch directory")
        .keep()
}

/// Compile every file of an export directory in order; the compiler's output on failure.
pub fn coqc_all(dir: &Path, files: &[String]) -> Result<String, String> {
    let mut compiled = compiled_libraries(dir);
    let mut log = String::new();
    for f in files {
        let key = cache_key(dir, f, &compiled)?;
        let text = match fetch_cached(&key, dir, f) {
            Some(text) => text,
            None => {
                let text = coqc(dir, f)?;
                store_cached(&key, dir, f, &text);
                text
            }
        };
        let vo = vo_name(f);
        let bytes = fs::read(dir.join(&vo)).map_err(|e| format!("{vo}: {e}"))?;
        compiled.insert(vo, hex(&Sha256::digest(&bytes)));
        log.push_str(&text);
    }
    Ok(log)
}

fn coqc(dir: &Path, f: &str) -> Result<String, String> {
    let out = Command::new("coqc")
        .args(["-R", ".", "Mapcheck", f])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run coqc ({e}); install Coq: scripts/install-deps.sh"))?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("coqc {f} failed in {}:\n{text}", dir.display()));
    }
    Ok(text)
}

fn vo_name(file: &str) -> String {
    format!("{}.vo", file.strip_suffix(".v").unwrap_or(file))
}

fn glob_name(file: &str) -> String {
    format!("{}.glob", file.strip_suffix(".v").unwrap_or(file))
}

/// The digest of each compiled library (`.vo`) already in `dir`.
fn compiled_libraries(dir: &Path) -> BTreeMap<String, String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let bytes = name.ends_with(".vo").then(|| fs::read(e.path()).ok())??;
            Some((name, hex(&Sha256::digest(&bytes))))
        })
        .collect()
}

/// What a compile of `file` in `dir` depends on: coqc's version, the file's name and text, and
/// the compiled libraries beside it.
fn cache_key(
    dir: &Path,
    file: &str,
    compiled: &BTreeMap<String, String>,
) -> Result<String, String> {
    let text = fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
    let mut h = Sha256::new();
    h.update(coqc_version()?.as_bytes());
    for part in [file.as_bytes(), &text] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    for (vo, digest) in compiled {
        h.update(format!("{vo} {digest}\n").as_bytes());
    }
    Ok(hex(&h.finalize()))
}

fn coqc_version() -> Result<String, String> {
    static VERSION: OnceLock<Result<String, String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let out = Command::new("coqc")
                .arg("--version")
                .output()
                .map_err(|e| {
                    format!("cannot run coqc ({e}); install Coq: scripts/install-deps.sh")
                })?;
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        })
        .clone()
}

fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("coq-cache")
}

/// The cached compile of `key` put into `dir`, and its output; `None` when there is none.
fn fetch_cached(key: &str, dir: &Path, file: &str) -> Option<String> {
    let entry = cache_dir().join(key);
    let text = fs::read_to_string(entry.join("output")).ok()?;
    for name in [vo_name(file), glob_name(file)] {
        fs::copy(entry.join(&name), dir.join(&name)).ok()?;
    }
    Some(text)
}

/// Keep the compile of `key` (written whole under a temporary name, then renamed into place, so
/// that a concurrent test sees all of it or none).
fn store_cached(key: &str, dir: &Path, file: &str, output: &str) {
    let root = cache_dir();
    let _ = fs::create_dir_all(&root);
    let Ok(staging) = tempfile::tempdir_in(&root) else {
        return;
    };
    for name in [vo_name(file), glob_name(file)] {
        if fs::copy(dir.join(&name), staging.path().join(&name)).is_err() {
            return;
        }
    }
    if fs::write(staging.path().join("output"), output).is_ok() {
        // Another test may have kept the same compile first; either copy is the same.
        let kept = staging.keep();
        if fs::rename(&kept, root.join(key)).is_err() {
            let _ = fs::remove_dir_all(&kept);
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `p` with every thread in a sub-group of its own (the search puts each work-group in one):
/// `ssg` loses every pair of events of two threads, and so do `sr` and `incl` where either event
/// has sub-group scope (wf.cat reads them off `ssg` there).
pub fn split_subgroups(p: &Program) -> Program {
    let s = &p.skeleton;
    let int = &s.rels["int"];
    let sg = s.sets.get("SG").copied().unwrap_or(Set::EMPTY);
    let mut skeleton = s.clone();
    let ssg = s.rels["ssg"].pairs().filter(|&(a, b)| int.contains(a, b));
    skeleton.rels.insert("ssg", Rel::from_pairs(s.n, ssg));
    for name in ["sr", "incl"] {
        let kept = s.rels[name]
            .pairs()
            .filter(|&(a, b)| int.contains(a, b) || !(sg.contains(a) || sg.contains(b)));
        skeleton.rels.insert(name, Rel::from_pairs(s.n, kept));
    }
    Program {
        skeleton,
        gread: p.gread.clone(),
        gwrite: p.gwrite.clone(),
    }
}

/// The first event of `base` in every set of `all` and in none of `none`.
pub fn first_event(base: &Base, all: &[&str], none: &[&str]) -> Option<usize> {
    let within = all
        .iter()
        .fold(Set::full(base.n), |s, t| s.inter(base.sets[t]));
    let outside = none.iter().fold(within, |s, t| s.diff(base.sets[t]));
    outside.iter().next()
}

/// `base` without event `e` at all: in no set and no relation.
pub fn dropped(base: &Base, e: usize) -> Base {
    let mut out = base.clone();
    for (name, set) in &base.sets {
        let mut s = Set::EMPTY;
        set.iter().filter(|&x| x != e).for_each(|x| s.insert(x));
        out.sets.insert(name, s);
    }
    for (name, rel) in &base.rels {
        let mut r = Rel::empty(base.n);
        rel.pairs()
            .filter(|&(x, y)| x != e && y != e)
            .for_each(|(x, y)| r.insert(x, y));
        out.rels.insert(name, r);
    }
    out
}
