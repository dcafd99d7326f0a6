//! `run --herd` against herd7's own expected output (issue 45, item 3): the seven C tests of
//! herdtools7's `herd/tests/instructions/C/` that mapcheck reads, vendored with their `.expected`
//! files in `tests/data/herd-expected/`, run under mapcheck's `rc11` with `--hexa` as their
//! `ci.cfg` runs herd; each output is herd's byte for byte once herd's `Hash=` line (a digest
//! mapcheck does not compute) is left out.
use crate::support::cli::mapcheck;

const DIR: &str = "tests/data/herd-expected";
const TESTS: [&str; 7] = ["C01", "C02", "C03", "C13", "C14", "C15", "C16"];

/// herd's expected output of `test`, its `Hash=` line left out.
fn expected(test: &str) -> String {
    let text = std::fs::read_to_string(format!("{DIR}/{test}.litmus.expected")).unwrap();
    let kept: Vec<&str> = text
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("Hash="))
        .collect();
    kept.concat()
}

#[test]
fn herds_own_c_tests_print_as_herd_prints_them() {
    let paths: Vec<String> = TESTS.iter().map(|t| format!("{DIR}/{t}.litmus")).collect();
    let mut args = vec!["run", "rc11", "--herd", "--hexa"];
    args.extend(paths.iter().map(String::as_str));
    let (code, out, err) = mapcheck(&args);
    assert_eq!(code, 0, "{err}");
    let want: String = TESTS.iter().map(|t| expected(t)).collect();
    assert_eq!(out, want);
}

/// Without `--hexa` the values are decimal, as herd7 prints them by default; the rest is the
/// same, and `run`'s own text differs (its spelling, its `Candidates` line).
#[test]
fn herd_mode_without_hexa_prints_decimal_values() {
    let path = format!("{DIR}/C15.litmus");
    let (code, out, err) = mapcheck(&["run", "rc11", "--herd", &path]);
    assert_eq!(code, 0, "{err}");
    let decimal = expected("C15")
        .replace("0x0", "0")
        .replace("0x1", "1")
        .replace("0x2", "2");
    assert_eq!(out, decimal);
    let (_, plain, _) = mapcheck(&["run", "rc11", &path]);
    assert!(
        plain.contains("1:r1=0; y=1;") && plain.contains("Candidates C15"),
        "{plain}"
    );
}
