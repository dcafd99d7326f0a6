//! Executions of a program in Coq (`proofs-export/lib/Program.v`): the library and the
//! generated `Exec.v`/`Model_wf.v` are written into a directory, `ProgramSelftest.v` is compiled
//! there, and the statements it proves by enumerating a program's candidates (message passing
//! with a guard: every SC execution whose guarded read runs sees the data; dropping the guarded
//! read while its guard holds is not an execution) must rest on no axiom, and a false one (the
//! guarded read never sees the data) must be rejected. Needs `coqc`.
use std::path::Path;

use mapcheck::coq;

use crate::support::coq::coqc_all;
use crate::support::tools::{self, Tool};

const SELFTEST: &str = "ProgramSelftest.v";

/// The library, `Exec.v` and `Model_wf.v` (with `Program.v`) in a fresh
/// directory, and the files to compile in order.
fn library_dir() -> (std::path::PathBuf, Vec<String>) {
    let dir = std::env::temp_dir().join(format!("mapcheck-coq-program-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let wf = coq::wf_model().expect("wf.cat loads");
    let names = coq::model::Names::new(&wf, "wf");
    let mut out = coq::Written::new(&dir).expect("directory");
    coq::write_common(&mut out, &[&names]).expect("library written");
    let written = out.finish().expect("_CoqProject");
    (dir, written.files)
}

#[test]
fn program_selftest_compiles_without_axioms() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    let (dir, mut files) = library_dir();
    assert!(
        files.iter().any(|f| f == "Program.v"),
        "Program.v is exported"
    );
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("proofs-export/lib")
        .join(SELFTEST);
    std::fs::copy(&source, dir.join(SELFTEST)).expect("copy the selftest");
    files.push(SELFTEST.to_string());
    let log = coqc_all(&dir, &files).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        log.matches("Closed under the global context").count(),
        2,
        "the selftest's statements must rest on no axiom:\n{log}"
    );

    // The enumeration is not vacuous: under SC the guarded read may well see x=1 (event 2), so
    // claiming it never does must fail.
    let text = std::fs::read_to_string(dir.join(SELFTEST)).expect("read");
    let tampered = text
        .replace("~ rf X 0 5", "~ rf X 2 5")
        .replace("negb (b_rf XB 0 5)", "negb (b_rf XB 2 5)");
    assert_ne!(text, tampered, "the selftest has the expected shape");
    std::fs::write(dir.join(SELFTEST), tampered).expect("write");
    assert!(
        coqc_all(&dir, &[SELFTEST.to_string()]).is_err(),
        "Coq accepted a false statement about every execution"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
