//! Shared by the Coq tests: compiling an export directory with coqc, and picking and dropping
//! events of a skeleton.
#![allow(dead_code)] // each test binary uses its own subset
use std::path::Path;
use std::process::Command;

use mapcheck::eval::Base;
use mapcheck::rel::{Rel, Set};

/// Compile every file of an export directory in order; the compiler's output on failure.
pub fn coqc_all(dir: &Path, files: &[String]) -> Result<String, String> {
    let mut log = String::new();
    for f in files {
        let out = Command::new("coqc")
            .args(["-R", ".", "Mapcheck", f])
            .current_dir(dir)
            .output()
            .map_err(|e| format!("cannot run coqc ({e}); install Coq: scripts/install-deps.sh"))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            return Err(format!("coqc {f} failed in {}:\n{text}", dir.display()));
        }
        log.push_str(&text);
    }
    Ok(log)
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
