//! The command line as a user meets it: the README's main command, JSON output, exit statuses.

use crate::support::cli::{mapcheck, mapcheck_with};

const ORACLE: &str = "tests/data/oracle/dat3m";

/// The README's main command: store buffering with fence.sc.sys is forbidden by PTX 6.0.
#[test]
fn readme_main_command_prints_herd_shape() {
    let (code, out, _) = mapcheck(&[
        "run",
        "models/ptx-v6.cat",
        "tests/data/ptx-manual/0008_sb_fence_sc_sys.litmus",
    ]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("Test ") && lines[0].ends_with(" Allowed"),
        "{out}"
    );
    assert_eq!(lines[1], "States 3");
    assert!(lines.contains(&"No"), "{out}");
    assert!(
        lines.contains(&"Condition exists (0:r0=0 /\\ 1:r1=0)"),
        "{out}"
    );
    assert!(
        out.contains("Observation") && out.contains("Never 0"),
        "{out}"
    );
}

#[test]
fn json_output_carries_the_verdict() {
    let (code, out, _) = mapcheck(&[
        "run",
        "--json",
        "models/sc.cat",
        "tests/data/ptx-manual/0009_sb_fence_acq_rel_sys.litmus",
    ]);
    assert_eq!(code, 0);
    // `run --json` prints one document with every outcome, whatever the number of tests (one
    // outcome here).
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["format"], "mapcheck-run");
    let v = &v["outcomes"][0];
    assert_eq!(
        v["validated"], false,
        "SC forbids store buffering whatever the fences"
    );
    assert!(v["candidates"].as_u64().unwrap() > 0);
}

#[test]
fn bad_litmus_input_exits_2_with_a_located_diagnostic() {
    let dir = std::env::temp_dir().join("mapcheck-cli-test");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.litmus");
    std::fs::write(
        &bad,
        "PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weird r0, x ;\nexists (P0:r0 == 1)\n",
    )
    .unwrap();
    let (code, out, err) = mapcheck(&["run", "models/ptx-v6.cat", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("bad.litmus:4:5") && err.contains("`.weird`"),
        "{err}"
    );
}

#[test]
fn missing_model_exits_2() {
    let (code, _, err) = mapcheck(&[
        "run",
        "models/no-such-model.cat",
        "tests/data/ptx-manual/0008_sb_fence_sc_sys.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no-such-model.cat") && err.contains("cannot read"),
        "{err}"
    );
}

#[test]
fn oracle_command_prints_the_agreement_table() {
    let (code, out, _) = mapcheck(&["oracle", "tests/data/oracle/dat3m", "--suite", "RC11"]);
    assert_eq!(code, 0);
    let row = out
        .lines()
        .find(|l| l.starts_with("RC11"))
        .expect("a row for RC11");
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[1..5], ["100", "0", "0", "100"], "{out}");
}

#[test]
fn run_json_on_several_tests_is_one_document() {
    let tests = [
        "tests/data/ptx-manual/0008_sb_fence_sc_sys.litmus",
        "tests/data/ptx-manual/0009_sb_fence_acq_rel_sys.litmus",
    ];
    let (code, out, err) = mapcheck(&["run", "--json", "models/ptx-v6.cat", tests[0], tests[1]]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    let outcomes = v["outcomes"].as_array().expect("an array of outcomes");
    assert_eq!(outcomes.len(), 2);
    // fence.sc forbids store buffering in PTX; fence.acq_rel does not.
    assert_eq!(outcomes[0]["validated"], false);
    assert_eq!(outcomes[1]["validated"], true);
}

/// A Dat3M checkout read as it is: verdicts in `dartagnan/src/test/resources/*-expected.csv`.
const DAT3M_CHECKOUT: &str = "tests/data/oracle/dat3m-checkout";

#[test]
fn oracle_reads_a_dat3m_checkout() {
    let (code, out, err) = mapcheck(&["oracle", DAT3M_CHECKOUT, "--suite", "C11"]);
    assert_eq!(code, 0, "{out}{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("C11"))
        .expect("a C11 row");
    let cols: Vec<&str> = row.split_whitespace().collect();
    // Four tests, one of them listed twice: five rows, as the file has them.
    assert_eq!(&cols[1..5], ["5", "0", "0", "5"], "{out}");
}

#[test]
fn oracle_exits_1_and_says_so_when_a_test_disagrees() {
    // The fixture's RC11 verdict for lb.litmus is wrong on purpose (its README).
    let (code, out, err) = mapcheck(&["oracle", DAT3M_CHECKOUT, "--suite", "RC11"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("RC11: DISAGREE litmus/C11/auto/lb.litmus (expected 1, got 0)"),
        "{out}"
    );
    assert!(err.contains("1 test(s) disagree"), "{err}");
}

#[test]
fn unknown_oracle_suite_is_an_error() {
    let (code, _, err) = mapcheck(&["oracle", "tests/data/oracle/dat3m", "--suite", "ARMv8"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no suite `ARMv8`") && err.contains("PTXv6_0"),
        "{err}"
    );
}

#[test]
fn cli_compile_then_run() {
    let dir = std::env::temp_dir().join(format!("mapcheck-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("mp.litmus");
    let source = format!("{ORACLE}/litmus/OPENCL/herd/MP.litmus");
    let (code, stdout, err) = mapcheck(&[
        "compile",
        "mappings/opencl-ptx.map",
        &source,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty());
    let (code, stdout, err) = mapcheck(&["run", "models/ptx-v6.cat", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.starts_with("Test ") && stdout.contains("Observation"),
        "{stdout}"
    );
    let (code, stdout, _) = mapcheck(&["compile", "mappings/opencl-ptx.map", &source]);
    assert_eq!(code, 0);
    assert_eq!(stdout, std::fs::read_to_string(&out).unwrap());
}

#[test]
fn cli_compile_bad_input_exits_2() {
    let (code, out, err) = mapcheck(&[
        "compile",
        "mappings/opencl-ptx.map",
        "tests/data/no-such.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty() && err.contains("no-such.litmus"), "{err}");
}

/// An instruction the mapping has no class for is reported at its line and column (issue 60:
/// semantic errors came without a position): a seq_cst load under `rc11-ptx-artifact.map`.
#[test]
fn cli_compile_points_at_an_instruction_of_no_class() {
    let tmp = tempfile::tempdir().unwrap();
    let test = tmp.path().join("sc.litmus");
    std::fs::write(
        &test,
        "C sc-load\n{ [x] = 0; }\nP0 (atomic_int* x) {\n  int r0 = atomic_load_explicit(x, memory_order_seq_cst, thread_scope_device);\n}\nexists (P0:r0 == 0)\n",
    )
    .unwrap();
    let map = "mappings/rc11-ptx-artifact.map";
    let (code, out, err) = mapcheck(&["compile", map, test.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("P0: operation class R.SC.GPU is not declared in mapping"),
        "{err}"
    );
    assert!(err.contains("sc.litmus:4:12"), "{err}");
}

/// `mapcheck FILE.map` is `mapcheck check FILE.map`; a counterexample exits 1 and is written out
/// as tests the `run` command accepts, with the verdicts the check claims.
#[test]
fn check_finds_m4_and_writes_runnable_tests() {
    let dir = std::env::temp_dir().join(format!("mapcheck-cli-m4-{}", std::process::id()));
    let dir_s = dir.to_str().unwrap();
    let map = "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map";
    let (code, out, err) = mapcheck(&[map, "--bound", "3", "--axiom", "Coherence", "-o", dir_s]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("Coherence: COUNTEREXAMPLE at bound 3"),
        "{out}"
    );
    let case = dir.join("m4-release-acquire-gpu-narrowed-Coherence");
    for f in ["source.litmus", "target.litmus", "graph.dot"] {
        assert!(case.join(f).is_file(), "{f} missing");
    }
    let run = |model: &str, test: &str| {
        let (code, out, _) = mapcheck(&["run", model, case.join(test).to_str().unwrap()]);
        assert_eq!(code, 0);
        out
    };
    let source = run("models/rc11-scoped.cat", "source.litmus");
    let target = run("models/ptx-v6.cat", "target.litmus");
    assert!(source.lines().any(|l| l == "No"), "{source}");
    assert!(target.lines().any(|l| l == "Ok"), "{target}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_clean_mapping_exits_0_with_json() {
    let dir = std::env::temp_dir().join(format!("mapcheck-cli-ok-{}", std::process::id()));
    let (code, out, err) = mapcheck(&[
        "check",
        "mappings/rc11-ptx.map",
        "--bound",
        "3",
        "--json",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let axioms = v["axioms"].as_array().unwrap();
    assert_eq!(axioms.len(), 3);
    for a in axioms {
        assert_eq!(a["clean_to"], 3, "{a}");
        assert!(a["counterexample"].is_null());
    }
    assert!(!dir.exists(), "nothing to write when nothing is found");
}

/// `check --test`: the 8-event Atomicity test is a counterexample to Coherence and Atomicity,
/// not SC (exit 1, one JSON document naming the target model and its reading, the files of each
/// counterexample written, `readings.tsv` among them: every PTX reading allows the compiled test);
/// the written source test, given back, gets the same verdicts; a search option beside `--test`
/// is refused.
#[test]
fn check_test_judges_a_given_test_and_writes_its_counterexamples() {
    let dir = std::env::temp_dir().join(format!("mapcheck-cli-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let judge = |test: &str, out: &str| {
        let out = dir.join(out);
        let (code, json, err) = mapcheck(&[
            "check",
            "mappings/rc11-ptx-artifact.map",
            "--test",
            test,
            "--json",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 1, "{err}");
        let v: serde_json::Value = serde_json::from_str(&json).expect("one JSON document");
        let target = v["target_model"].as_str().unwrap();
        assert!(
            target.ends_with(
                "ptx-v6.cat (default reading; it also offers --variant dep-without-rmw)"
            ),
            "{target}"
        );
        let readings = v["readings"].as_array().unwrap();
        assert_eq!(readings.len(), 6, "{json}");
        assert!(readings.iter().all(|r| r["allows"] == true), "{json}");
        let verdicts: Vec<(String, String)> = v["axioms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["axiom"].to_string(), a["verdict"].to_string()))
            .collect();
        (verdicts, out)
    };
    let (first, out) = judge(
        "tests/data/search/rc11-ptx-artifact-atomicity-8.litmus",
        "a",
    );
    let cx = "\"counterexample\"".to_string();
    let not = "\"not a counterexample\"".to_string();
    assert_eq!(
        first,
        [
            ("\"Coherence\"".into(), cx.clone()),
            ("\"Atomicity\"".into(), cx),
            ("\"SC\"".into(), not)
        ]
    );
    let written = out.join("rc11-ptx-artifact-Atomicity/source.litmus");
    assert!(out
        .join("rc11-ptx-artifact-Atomicity/target.litmus")
        .exists());
    let table = std::fs::read_to_string(out.join("rc11-ptx-artifact-Atomicity/readings.tsv"))
        .expect("readings.tsv written");
    let rows: Vec<&str> = table.lines().filter(|l| !l.starts_with('#')).collect();
    let side = |s: &str| rows.iter().filter(|r| r.starts_with(s)).count();
    assert_eq!((side("source\t"), side("target\t")), (6, 6), "{table}");
    assert!(
        rows.contains(&"target\tptx-v6.cat\t-\tyes\tallows"),
        "{table}"
    );
    assert!(
        rows.contains(&"target\tptx-v7.5.cat\tdep-without-rmw\tno\tallows"),
        "{table}"
    );
    assert!(
        rows.contains(&"source\trc11-scoped.cat\t-\tyes\tforbids, race-free"),
        "{table}"
    );
    let (again, _) = judge(written.to_str().unwrap(), "b");
    assert_eq!(again, first);
    let (code, _, err) = mapcheck(&[
        "check",
        "mappings/rc11-ptx-artifact.map",
        "--test",
        written.to_str().unwrap(),
        "--bound",
        "5",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--bound"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `check --test` holds a test to the searched class (issue 59): the untyped 3-event program
/// under `opencl-ptx.map` (which declares `locations typed`) is refused with exit status 2, the
/// condition it breaks and the plain read's line and column, and nothing is written; so is a
/// program whose events are in no memory region. Without `locations typed` the same program is
/// judged (and is a GnaRf counterexample).
#[test]
fn check_test_refuses_a_test_outside_the_searched_class() {
    let dir = std::env::temp_dir().join(format!("mapcheck-cli-class-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (out, coq) = (dir.join("out"), dir.join("coq"));
    let check = |map: &str, test: &str| {
        mapcheck(&[
            "check",
            map,
            "--test",
            test,
            "-o",
            out.to_str().unwrap(),
            "--coq",
            coq.to_str().unwrap(),
        ])
    };
    let untyped = "tests/data/search/opencl-ptx-untyped-3.litmus";
    let (code, stdout, err) = check("mappings/opencl-ptx.map", untyped);
    assert_eq!(code, 2, "{stdout}{err}");
    assert!(
        err.contains("error: not in the searched class of mappings/opencl-ptx.map: locations are typed (`locations typed`)"),
        "{err}"
    );
    assert!(err.contains(&format!("{untyped}:10:10")), "{err}");
    assert!(
        err.contains("no counterexample verdict and no refutation"),
        "{err}"
    );
    assert!(stdout.is_empty(), "{stdout}");
    assert!(!out.exists() && !coq.exists(), "nothing written");

    std::fs::create_dir_all(&dir).unwrap();
    let region = dir.join("region.litmus");
    std::fs::write(
        &region,
        "OPENCL region\n{ [x] = 0; }\nP0@wg 0, dev 0 (int* x) {\n  *x = 1;\n  int r0 = *x;\n}\nexists (P0:r0 == 0)\n",
    )
    .unwrap();
    let (code, _, err) = check("mappings/opencl-ptx.map", region.to_str().unwrap());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("every event is in the search's memory region"),
        "{err}"
    );
    assert!(err.contains("the initial write of `x`"), "{err}");

    let untyped_map = dir.join("opencl-ptx-untyped.map");
    let text = std::fs::read_to_string("mappings/opencl-ptx.map").unwrap();
    assert!(
        text.contains("\nlocations typed\n"),
        "the mapping declares typed locations"
    );
    let root = std::env::current_dir().unwrap();
    let text = text
        .replace("\nlocations typed\n", "\n")
        .replace("../models/", &format!("{}/models/", root.display()));
    std::fs::write(&untyped_map, text).unwrap();
    let (code, stdout, err) = check(untyped_map.to_str().unwrap(), untyped);
    assert_eq!(code, 1, "{stdout}{err}");
    assert!(stdout.contains("GnaRf: COUNTEREXAMPLE"), "{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A mapping is data: its `source` and `target` lines may name `.cat` files under the mapping's
/// directory or the one above it, the current directory or mapcheck's `models/` only. One naming
/// `/etc/passwd`, or a `.cat` file two directories up, is refused at that line without a byte of
/// the file echoed (issue 60).
#[test]
fn a_mapping_names_no_model_outside_its_places() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("a").join("m");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(tmp.path().join("outside.cat"), "secret first line\n").unwrap();
    let text = std::fs::read_to_string("mappings/rc11-ptx.map").unwrap();
    for named in ["/etc/passwd", "../../outside.cat"] {
        let map = dir.join("evil.map");
        std::fs::write(
            &map,
            text.replace("\"../models/rc11-scoped.cat\"", &format!("{named:?}")),
        )
        .unwrap();
        let (code, out, err) = mapcheck(&["check", map.to_str().unwrap(), "--bound", "2"]);
        assert_eq!(code, 2, "{out}{err}");
        assert!(
            err.contains("is not a `.cat` file in the places a mapping may name models in"),
            "{err}"
        );
        assert!(!err.contains("secret") && !err.contains("root:"), "{err}");
    }
}

/// A mapping whose file name is a Coq identifier (`m2.map`) names its counterexample directory
/// and its refutation directory alike (`m2-Coherence`): `-o D --coq D` is refused before the
/// search, and nothing is written (the Coq export once replaced the reported files, issue 60).
#[test]
fn one_directory_for_counterexamples_and_refutations_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::env::current_dir().unwrap();
    let text = std::fs::read_to_string("mappings/known-bugs/m2-release-store-relaxed.map")
        .unwrap()
        .replace("../../models/", &format!("{}/models/", root.display()));
    let map = tmp.path().join("m2.map");
    std::fs::write(&map, text).unwrap();
    let out = tmp.path().join("out");
    let (code, stdout, err) = mapcheck(&[
        "check",
        map.to_str().unwrap(),
        "--bound",
        "3",
        "-o",
        out.to_str().unwrap(),
        "--coq",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stdout}{err}");
    assert!(
        err.contains("is both the counterexample's directory (-o) and its refutation's (--coq)"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
}

/// The source's readings (decision 018): `check --test` of a test that only C++11's release
/// sequences forbid names the C++ readings that forbid it race-free and those that allow it, and
/// `--source-variant cxx20` makes C++20's the searched one, in the header too. A variant the
/// model does not test is an error, for `check` and for `run`.
#[test]
fn check_names_the_source_readings_and_takes_a_source_variant() {
    let dir = std::env::temp_dir().join(format!("mapcheck-cli-source-{}", std::process::id()));
    let test = "tests/data/litmus/cxx-versions/MP+rel-rlx+acq.litmus";
    let out_dir = dir.to_str().unwrap();
    let check = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "mappings/rc11-ptx.map",
            "--test",
            test,
            "-o",
            out_dir,
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = mapcheck(&args);
        assert_eq!(code, 0, "{err}");
        out
    };
    let out = check(&[]);
    assert!(
        out.contains("source model mappings/../models/rc11-scoped.cat (default reading; it also offers --variant cxx20)\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "    forbidden and race-free under: c11.cat, rc11-scoped.cat (searched), rc11.cat\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("    allowed and race-free by: c11.cat --variant cxx20, rc11-scoped.cat --variant cxx20, rc11.cat --variant cxx20\n"),
        "{out}"
    );
    let out = check(&["--source-variant", "cxx20"]);
    assert!(
        out.contains(
            "source model mappings/../models/rc11-scoped.cat (read with --variant cxx20)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("rc11-scoped.cat --variant cxx20 (searched)"),
        "{out}"
    );
    let (code, _, err) = mapcheck(&[
        "check",
        "mappings/rc11-ptx.map",
        "--source-variant",
        "c++20",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the source model tests no variant `c++20`\n  = it tests: cxx20"),
        "{err}"
    );
    let (code, _, err) = mapcheck(&["run", "models/rc11.cat", test, "--variant", "c++20"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("models/rc11.cat: the model tests no variant `c++20`"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `check --test` names the readings in text too: the 7-event Coherence test is no counterexample
/// under the searched (default) reading, exit 0, and its compiled test is allowed exactly by the
/// `dep-without-rmw` readings of the three PTX models.
#[test]
fn check_test_names_the_readings_that_allow_the_compiled_test() {
    let dir = std::env::temp_dir().join(format!("mapcheck-cli-readings-{}", std::process::id()));
    let (code, out, err) = mapcheck(&[
        "check",
        "mappings/rc11-ptx-artifact.map",
        "--test",
        "tests/data/search/rc11-ptx-artifact-coherence-7.litmus",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("(default reading; it also offers --variant dep-without-rmw)"),
        "{out}"
    );
    assert!(
        out.contains("    allowed by: ptx-v6-alloy.cat --variant dep-without-rmw, ptx-v6.cat --variant dep-without-rmw, ptx-v7.5.cat --variant dep-without-rmw\n"),
        "{out}"
    );
    assert!(
        out.contains("    forbidden by: ptx-v6-alloy.cat, ptx-v6.cat (searched), ptx-v7.5.cat\n"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_bad_input_exits_2() {
    let (code, _, err) = mapcheck(&["check", "mappings/rc11-ptx.map", "--axiom", "Nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no axiom `Nope`"), "{err}");
    let (code, _, err) = mapcheck(&["missing.map"]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.map"), "{err}");
}

/// `bench` at bound 4: the Fig. 17 rows carry both peers' times beside mapcheck's, the run
/// measures its machine reference, and B1's Coherence is clean at 4 under NVIDIA's reading of
/// PTX (its counterexample has 7 events; timings are printed, never asserted).
#[test]
fn bench_rows_carry_the_peer_times_and_the_machine_reference() {
    let (code, out, err) = mapcheck(&[
        "bench",
        "--bounds",
        "4",
        "--natural-bounds",
        "4",
        "--b1-bound",
        "4",
        "--solver",
        "batsat",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(
        v["machine_reference_seconds"].as_f64().unwrap() > 0.0,
        "{out}"
    );
    let rows = v["checks"].as_array().unwrap();
    let row = |check: &str| {
        rows.iter()
            .find(|r| r["check"] == check)
            .unwrap_or_else(|| panic!("no {check} row: {out}"))
    };
    assert_eq!(rows.len(), 5, "{out}");
    assert_eq!(row("Coherence")["alloy"], "41 s");
    assert_eq!(row("Coherence")["alloy_cnf"], "2.70 s");
    assert_eq!(row("SC")["alloy_cnf"], "0.68 s");
    assert_eq!(row("Atomicity")["alloy"], "4 s, vacuous");
    assert_eq!(row("Atomicity")["alloy_cnf"], "-");
    assert_eq!(row("all axioms")["result"], "none");
    assert_eq!(row("find B1")["result"], "none");
}

/// A test the runner takes minutes over when made to enumerate it (4,980,736 candidates) rather
/// than send it to the solver: the slow test of a batch.
const SLOW: [&str; 3] = [
    "--enumeration-seconds",
    "100000",
    "tests/data/litmus/limits/three-stores-nine-loads.litmus",
];
const SB_FENCE_SC: &str = "tests/data/ptx-manual/0008_sb_fence_sc_sys.litmus";
const BAD_ARCH: &str = "tests/data/litmus/errors/arch.litmus";

/// `run --json-lines`: one JSON object per test in the order given, and the batch goes on past
/// a bad test (its diagnostic as `--json` gives one) and past a test its `--timeout` stopped.
#[test]
fn run_json_lines_goes_on_past_bad_and_stopped_tests() {
    let (code, out, err) = mapcheck(&[
        "run",
        "--json-lines",
        "--timeout",
        "1",
        "models/ptx-v6.cat",
        SB_FENCE_SC,
        BAD_ARCH,
        SLOW[0],
        SLOW[1],
        SLOW[2],
        SB_FENCE_SC,
    ]);
    assert_eq!(code, 2, "a bad test makes the status 2: {err}");
    let records: Vec<serde_json::Value> = (out.lines())
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    let ended: Vec<(&str, &str)> = (records.iter())
        .map(|r| {
            let what = ["outcome", "error", "timeout"]
                .into_iter()
                .find(|k| r.get(k).is_some())
                .expect("an outcome, an error or a timeout");
            (r["test"].as_str().unwrap(), what)
        })
        .collect();
    assert_eq!(
        ended,
        [
            (SB_FENCE_SC, "outcome"),
            (BAD_ARCH, "error"),
            (SLOW[2], "timeout"),
            (SB_FENCE_SC, "outcome")
        ]
    );
    assert_eq!(records[0]["outcome"]["validated"], false);
    assert_eq!(records[1]["error"]["path"], BAD_ARCH);
    assert_eq!(records[1]["error"]["line"], 1);
    assert_eq!(records[2]["timeout"], 1);
    assert!(records[2]["seconds"].as_f64().unwrap() >= 1.0);
}

/// Text mode stops the slow test too, says so on stderr, and ends with status 4 (stopped, no
/// bad test); the other test's herd output is whole.
#[test]
fn run_timeout_stops_a_slow_test_and_ends_with_status_4() {
    let mut args = vec!["run", "--timeout", "1", "models/ptx-v6.cat"];
    args.extend(SLOW);
    args.push(SB_FENCE_SC);
    let (code, out, err) = mapcheck(&args);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains(&format!("{}: stopped after its --timeout of 1 s", SLOW[2])),
        "{err}"
    );
    assert!(
        out.starts_with("Test ") && out.contains("Observation"),
        "{out}"
    );
}

/// `--json-lines` prints each record as its test ends: the first is read while the slow second
/// test is still running (it is given 60 s; were the records held back to the end, the first
/// would come only as the process ends).
#[test]
fn run_json_lines_streams_each_record_as_its_test_ends() {
    use std::io::BufRead as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mapcheck"))
        .args([
            "run",
            "--json-lines",
            "--timeout",
            "60",
            "models/ptx-v6.cat",
            SB_FENCE_SC,
        ])
        .args(SLOW)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("binary runs");
    let mut first = String::new();
    let stdout = child.stdout.take().unwrap();
    std::io::BufReader::new(stdout)
        .read_line(&mut first)
        .expect("reads");
    let still_running = child.try_wait().expect("waits").is_none();
    child.kill().expect("kills");
    let _ = child.wait();
    let record: serde_json::Value = serde_json::from_str(&first).expect("a JSON line");
    assert_eq!(record["test"], SB_FENCE_SC);
    assert!(
        still_running,
        "the first record came only when the batch ended"
    );
}

/// The commands `mapcheck --help` lists (but `help`).
fn commands() -> Vec<String> {
    let (code, out, _) = mapcheck(&["--help"]);
    assert_eq!(code, 0);
    let listed = out.split("Commands:\n").nth(1).expect("a command list");
    (listed.lines())
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| *w != "help")
        .map(String::from)
        .collect()
}

/// Completion scripts come from the CLI definition: bash reads its script without a syntax
/// error, and every shell's script names every command and `run`'s `--json-lines`.
#[test]
fn completions_name_every_command_and_bash_reads_its_script() {
    let commands = commands();
    assert!(
        commands.len() >= 10 && commands.contains(&"run".to_string()),
        "{commands:?}"
    );
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = mapcheck(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for name in commands.iter().map(String::as_str).chain(["json-lines"]) {
            assert!(out.contains(name), "{shell}: no {name}");
        }
        if shell == "bash" {
            let dir = tempfile::tempdir().unwrap();
            let script = dir.path().join("mapcheck.bash");
            std::fs::write(&script, &out).unwrap();
            let status = std::process::Command::new("bash")
                .arg("-n")
                .arg(&script)
                .status()
                .expect("bash runs");
            assert!(status.success(), "bash -n rejects the script");
        }
    }
}

/// `mapcheck man DIR` writes a roff page for the tool and one per command, each a man page
/// (`.TH`) naming itself; `run`'s documents its batch options.
#[test]
fn man_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = mapcheck(&["man", d]);
    assert_eq!(code, 0, "{err}");
    let mut expected = vec!["mapcheck".to_string()];
    expected.extend(commands().iter().map(|c| format!("mapcheck-{c}")));
    for page in &expected {
        let path = dir.path().join(format!("{page}.1"));
        assert!(out.contains(&path.display().to_string()), "{page}: {out}");
        let text = std::fs::read_to_string(&path).expect("the page is written");
        assert!(text.contains(&format!(".TH {page} 1")), "{page}");
    }
    let run = std::fs::read_to_string(dir.path().join("mapcheck-run.1")).unwrap();
    assert!(
        run.contains("json\\-lines") && run.contains("timeout"),
        "{run}"
    );
}

/// The shipped models and mappings by name, from a directory outside the checkout (the files
/// are the binary's own, written into the cache directory); an unknown name lists the shipped
/// ones.
#[test]
fn shipped_models_and_mappings_run_by_name_from_any_directory() {
    let elsewhere = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let test = std::fs::canonicalize(SB_FENCE_SC).unwrap();
    let run = |args: &[&str]| {
        mapcheck_with(args, |c| {
            c.current_dir(elsewhere.path())
                .env("XDG_CACHE_HOME", cache.path());
        })
    };
    let (code, out, err) = run(&["run", "ptx-v6", test.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("Test SB+fence.sc.sys") && out.contains("Never"),
        "{out}"
    );
    let (code, out, err) = run(&["rc11-ptx.map", "--bound", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Coherence: none up to bound 2"), "{out}");
    let (code, _, err) = run(&["run", "ptx-v9", test.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no shipped model of that name") && err.contains("ptx-v7.5"),
        "{err}"
    );
}

/// `--default-scope` gives a plain C11 test's atomics the scope the scoped mappings and models
/// need: without it `compile` refuses the unscoped relaxed store (its class is not a row);
/// with it every atomic access gets the scope and a non-atomic one none, `check --test` judges
/// the test, and a word that is no thread scope is bad input naming the words.
#[test]
fn default_scope_gives_an_unscoped_c_tests_atomics_a_scope() {
    let dir = tempfile::tempdir().unwrap();
    let test = dir.path().join("plain.litmus");
    std::fs::write(
        &test,
        "C plain\n{ [x] = 0; [y] = 0; }\n\
         P0 (int* x, atomic_int* y) {\n  *x = 1;\n  atomic_store_explicit(y, 1, memory_order_release);\n}\n\
         P1 (int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_acquire);\n}\n\
         exists (1:r0=1)\n",
    )
    .unwrap();
    let test = test.to_str().unwrap();
    let (code, _, err) = mapcheck(&["compile", "rc11-ptx", test]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not declared in mapping"), "{err}");
    let scoped = ["--default-scope", "thread_scope_device"];
    let (code, out, err) = mapcheck(&[&["compile", "rc11-ptx", test][..], &scoped].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("st.weak x, 1"), "{out}");
    assert!(
        out.contains("st.release.gpu y, 1") && out.contains("ld.acquire.gpu r0, y"),
        "{out}"
    );
    let confirm = ["check", "rc11-ptx", "--test", test, "-o"];
    let out_dir = dir.path().join("out");
    let args = [&confirm[..], &[out_dir.to_str().unwrap()], &scoped].concat();
    let (code, out, err) = mapcheck(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("SC: not a counterexample"), "{out}");
    let (code, _, err) = mapcheck(&["run", "rc11", test, "--default-scope", "device"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("expected a thread scope (`thread_scope_thread`"),
        "{err}"
    );
}
