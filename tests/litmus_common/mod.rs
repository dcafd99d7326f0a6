//! Builders for `Litmus` instructions, shared by the tests that write source programs in Rust,
//! and the litmus files of a directory, for the tests that go through a corpus.
#![allow(dead_code)] // each test binary uses its own subset
use std::path::{Path, PathBuf};

use mapcheck::litmus::{Expr, Instr};
use mapcheck::vocab::Tag;

/// The tags named `ts` (model names: `"ACQ"`).
pub fn tags(ts: &[&str]) -> Vec<Tag> {
    ts.iter()
        .map(|t| Tag::from_name(t).unwrap_or_else(|| panic!("no tag {t}")))
        .collect()
}

pub fn ld(dst: &str, loc: &str, t: &[&str]) -> Instr {
    Instr::Load {
        dst: dst.into(),
        loc: loc.into(),
        tags: tags(t),
    }
}

pub fn st(loc: &str, v: i64, t: &[&str]) -> Instr {
    Instr::Store {
        loc: loc.into(),
        value: Expr::Const(v),
        tags: tags(t),
    }
}

pub fn fence(t: &[&str]) -> Instr {
    Instr::Fence { tags: tags(t) }
}

pub fn rmw(dst: &str, loc: &str, op: mapcheck::litmus::RmwOp, t: &[&str]) -> Instr {
    Instr::Rmw {
        dst: Some(dst.into()),
        loc: loc.into(),
        op,
        tags: tags(t),
        fail_tags: None,
    }
}

/// The `.litmus` files under `dir`, recursively, sorted.
pub fn litmus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("test directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(litmus_files(&path));
        } else if path.extension().is_some_and(|x| x == "litmus") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The runner's verdicts that make `source` a counterexample to `map` by hand: scoped RC11 and
/// RC11 forbid its outcome without a race, each PTX model allows the compiled test.
pub fn assert_source_forbidden_and_compiled_allowed(map: &str, source: &mapcheck::litmus::Litmus) {
    use mapcheck::{ir, mapping, runner};
    let m = mapping::load(Path::new(map)).unwrap();
    let target = m.compile_program(source).unwrap().target;
    let opts = runner::Options::default();
    for model in ["models/rc11-scoped.cat", "models/rc11.cat"] {
        let s = runner::run(&ir::load(Path::new(model)).unwrap(), source, &opts).unwrap();
        assert!(!s.validated, "{model} allows the source outcome");
        assert!(s.flags.is_empty(), "{model} finds the source test racy");
    }
    for model in [
        "models/ptx-v6.cat",
        "models/ptx-v6-alloy.cat",
        "models/ptx-v7.5.cat",
    ] {
        let t = runner::run(&ir::load(Path::new(model)).unwrap(), &target, &opts).unwrap();
        assert!(t.validated, "{map}: {model} forbids the compiled test");
    }
}
