//! The shipped tables (`mappings/shipped/`, issue 62) and B1 under both C++ versions
//! (docs/decisions/018-cxx-versions.md): every counterexample the results page
//! (docs/results/2026-12-06-shipped-tables/) shows is a vendored test, judged here by `check
//! --test`'s judge under each C++ reading of the source, and its compiled test by the runner under
//! every PTX reading. Where the search's bound stops short of a counterexample, these are what
//! carries the page's claim; `mappings/EXPECTED.tsv` carries the bounds below.
use std::path::Path;

use mapcheck::encode::Backend;
use mapcheck::mapping::{self, Variants};
use mapcheck::search::{self, Counterexample, TestVerdict};
use mapcheck::{coq, ir, litmus, runner};

use crate::support::axioms;
use crate::support::cli::mapcheck;
use crate::support::coq::{coqc_all, scratch_dir};
use crate::support::tools::{self, Tool};

/// A vendored counterexample and the axioms it breaks under each reading of the source.
struct Found {
    test: &'static str,
    map: &'static str,
    /// Under the source model's default reading (C++11's release sequences).
    cxx11: &'static [&'static str],
    /// Under `--source-variant cxx20` (C++20's).
    cxx20: &'static [&'static str],
}

/// A counterexample that breaks the same axioms under both C++ versions.
const fn alike(test: &'static str, map: &'static str, axioms: &'static [&'static str]) -> Found {
    Found {
        test,
        map,
        cxx11: axioms,
        cxx20: axioms,
    }
}

const SM70: &str = "mappings/shipped/libcuxx-sm70.map";
const PRE_SM70: &str = "mappings/shipped/libcuxx-pre-sm70.map";
const B1: &str = "mappings/known-bugs/b1-rmw-sc-release-dropped.map";

const TRITON: &str = "mappings/shipped/triton-sm90.map";
const LLVM_SM70: &str = "mappings/shipped/llvm-nvptx-sm70-ptx60.map";
const LLVM_SM90: &str = "mappings/shipped/llvm-nvptx-sm90-ptx86.map";

const FIG11_8: &str = "tests/data/search/rc11-ptx-artifact-atomicity-8.litmus";

const FIG11: &str = "mappings/rc11-ptx.map";

const FOUND: [Found; 15] = [
    // Figure 11's seq_cst RMW row, `fence.sc; atom.acq_rel`, is the repair of B1's 7-event
    // transitivity tests: against Figure 11 they are no counterexample.
    alike("tests/data/search/b1-cxx20-coherence-7.litmus", FIG11, &[]),
    alike(
        "tests/data/search/shipped/llvm-nvptx-sm70-ptx60-coherence-7.litmus",
        FIG11,
        &[],
    ),
    // Figure 11's bound-8 failure (issue 59) breaks every table that keeps its RMW rows, under
    // both C++ versions; the pre-Volta table's membars around its RMWs keep it out.
    alike(FIG11_8, SM70, &["Coherence", "Atomicity"]),
    alike(FIG11_8, LLVM_SM70, &["Coherence", "Atomicity"]),
    alike(FIG11_8, LLVM_SM90, &["Coherence", "Atomicity"]),
    alike(FIG11_8, PRE_SM70, &[]),
    // LLVM's seq_cst RMW row is B1's, on sm_70 and sm_90 alike: by transitivity (both C++
    // versions), and on sm_90 also through a release sequence C++20 no longer has.
    alike(
        "tests/data/search/shipped/llvm-nvptx-sm70-ptx60-coherence-7.litmus",
        LLVM_SM70,
        &["Coherence"],
    ),
    alike(
        "tests/data/search/shipped/llvm-nvptx-sm70-ptx60-coherence-7.litmus",
        LLVM_SM90,
        &["Coherence"],
    ),
    Found {
        test: "tests/data/search/shipped/llvm-nvptx-sm90-ptx86-coherence-7.litmus",
        map: LLVM_SM90,
        cxx11: &["Coherence"],
        cxx20: &[],
    },
    // Triton: Figure 11's bound-8 failure (RMWs at two scopes in two CTAs), one event larger.
    alike(
        "tests/data/search/shipped/triton-sm90-coherence-9.litmus",
        TRITON,
        &["Coherence", "Atomicity"],
    ),
    alike(
        "tests/data/search/shipped/triton-sm90-atomicity-9.litmus",
        TRITON,
        &["Coherence", "Atomicity"],
    ),
    // libcu++'s seq_cst RMW row is B1's: transitivity through the RMW's missing release.
    alike(
        "tests/data/search/shipped/libcuxx-sm70-coherence-7.litmus",
        SM70,
        &["Coherence"],
    ),
    // Pre-Volta: an acquire RMW is `atom; membar`, so a read before the release it reads from can
    // see the RMW's write.
    alike(
        "tests/data/search/shipped/libcuxx-pre-sm70-coherence-5.litmus",
        PRE_SM70,
        &["Coherence"],
    ),
    // B1's own witness (ASPLOS'19 Fig. 12) needs C++11's release sequences: under C++20 the
    // program races.
    Found {
        test: "tests/data/search/b1-isa2-7.litmus",
        map: B1,
        cxx11: &["Coherence"],
        cxx20: &[],
    },
    // ... and B1 breaks C++20 too, at the same bound, by transitivity.
    alike(
        "tests/data/search/b1-cxx20-coherence-7.litmus",
        B1,
        &["Coherence"],
    ),
];

/// The mapping with its source read with `variant`.
fn read_with(map: &str, variant: Option<&str>) -> mapcheck::Mapping {
    let variants = Variants {
        source: variant.into_iter().map(String::from).collect(),
        target: vec![],
    };
    mapping::load_with(Path::new(map), &variants).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// The counterexamples `test` is under the mapping read with `variant`, by axiom.
fn counterexamples(f: &Found, variant: Option<&str>) -> Vec<(String, Counterexample)> {
    let test = litmus::parse_file(Path::new(f.test)).expect("parses");
    let m = read_with(f.map, variant);
    let verdicts = search::confirm(&m, &test, &axioms(&m.source)).expect("judged");
    verdicts
        .into_iter()
        .filter_map(|(axiom, verdict)| match verdict {
            TestVerdict::Counterexample(cx) => Some((axiom, *cx)),
            TestVerdict::NotOne(_) => None,
        })
        .collect()
}

#[test]
fn every_counterexample_of_the_results_page_breaks_the_axioms_it_names_under_each_cxx_version() {
    for f in &FOUND {
        for (variant, want) in [(None, f.cxx11), (Some("cxx20"), f.cxx20)] {
            let found = counterexamples(f, variant);
            for (_, cx) in &found {
                let allowing = cx.readings.iter().filter(|r| r.allows == Some(true));
                assert_eq!(
                    allowing.count(),
                    6,
                    "{}: every PTX reading allows it",
                    f.test
                );
            }
            let broken: Vec<&str> = found.iter().map(|(a, _)| a.as_str()).collect();
            assert_eq!(
                broken, want,
                "{} against {} under {variant:?}",
                f.test, f.map
            );
        }
    }
}

/// Each of them refuted in Coq, under the first C++ version it breaks (C++11's, where it breaks
/// both) and its first axiom there: the export of the mapping so read, with the test's
/// refutation, compiles and `Print Assumptions` is closed for the satisfiability proof and the
/// refutation.
#[test]
#[ignore = "exhaustive tier (scripts/test --exhaustive)"]
fn exhaustive_coq_refutes_every_counterexample_of_the_results_page() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    for f in &FOUND {
        let found = [None, Some("cxx20")].into_iter().find_map(|variant| {
            let first = counterexamples(f, variant).into_iter().next();
            first.map(|(axiom, cx)| (variant, axiom, cx))
        });
        if let Some((variant, axiom, cx)) = found {
            let m = read_with(f.map, variant);
            let stem = Path::new(f.test).file_stem().unwrap().to_string_lossy();
            let reading = variant.unwrap_or("default");
            let table = coq::model_prefix(f.map);
            let dir = scratch_dir(&format!("shipped-{table}-{stem}-{reading}"));
            let w = coq::export_refutation(&m, &cx, &dir).expect("export");
            assert_eq!(w.files.last(), Some(&format!("Refutation_{axiom}.v")));
            let log = coqc_all(&w.dir, &w.files).unwrap_or_else(|e| panic!("{}: {e}", f.test));
            let closed = log.matches("Closed under the global context").count();
            assert_eq!(closed, 2, "{} under {reading}: axiom-free?\n{log}", f.test);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// libcu++'s 8- and 16-bit compare-exchange (not expressible in a mapping yet, the header of
/// `libcuxx-sm70.map` says why): a failed CAS with acquire failure order is an acquire in C++
/// (CUDA C++ forbids the outcome, race-free), the sm_70 code reads the word with a relaxed load and
/// returns (PTX allows it), and the pre-Volta code's trailing membar restores the order (PTX
/// forbids it). Each test writes the 8-bit flag and its 32-bit word as one location.
#[test]
fn a_failed_sub_word_compare_exchange_acquires_nothing_on_sm_70() {
    let run = |model: &str, test: &str| {
        let m = ir::load(Path::new(model)).unwrap();
        let path = format!("tests/data/litmus/shipped/{test}.litmus");
        let t = litmus::parse_file(Path::new(&path)).unwrap_or_else(|e| panic!("{}", e.render()));
        runner::run(&m, &t, &runner::Options::default()).expect("runs")
    };
    let source = run("models/cuda.cat", "cas8-fail-acquire");
    assert!(!source.validated && source.flags.is_empty());
    for ptx in ["models/ptx-v6.cat", "models/ptx-v7.5.cat"] {
        assert!(run(ptx, "cas8-fail-acquire-sm70").validated, "{ptx}");
        assert!(!run(ptx, "cas8-fail-acquire-sm60").validated, "{ptx}");
    }
}

/// libcu++'s pre-Volta arm with a leading `membar` added to its acquire and consume RMW rows,
/// which makes them its acq_rel row (`membar.s; atom.s; membar.s`), all pre-Volta PTX. The
/// results page's claim: that mends the 5-event Coherence counterexample, and the file is clean of
/// Coherence and Atomicity up to 6 under both C++ versions (SC keeps Figure 11's failure at 5).
#[test]
#[ignore = "exhaustive tier (scripts/test --exhaustive)"]
fn exhaustive_a_leading_membar_mends_the_pre_volta_acquire_rmw() {
    let text = std::fs::read_to_string(PRE_SM70).unwrap();
    let mut mended_rows = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|line| match line.strip_prefix("RMW.{CON, ACQ}.") {
            Some(rest) => {
                let (scopes, rule) = rest.split_once("->").unwrap();
                let rule = rule.split("//").next().unwrap().trim();
                let (atom, membar) = rule.split_once("; ").unwrap();
                assert!(
                    atom.starts_with("atom.") && membar.starts_with("membar."),
                    "{line}"
                );
                mended_rows += 1;
                format!("RMW.{{CON, ACQ}}.{scopes}-> {membar}; {atom}; {membar}")
            }
            // The C++ version is the mapping language's own `variant` word on the source line.
            None if line.starts_with("source ") => {
                assert!(!line.contains("//"), "{line}");
                format!("{line} {{variant}}")
            }
            None => line.to_string(),
        })
        .collect();
    assert_eq!(mended_rows, 3, "one row per scope group");
    let mended = lines.join("\n");
    for variant in ["", "variant \"cxx20\""] {
        let with = mended.replace("{variant}", variant);
        let m = mapping::load_str("membar-first.map", &with, Path::new(PRE_SM70).parent())
            .unwrap_or_else(|e| panic!("{}", e.render()));
        let cxx20 = m.source.variants_enabled.contains("cxx20");
        assert_eq!(cxx20, !variant.is_empty(), "{variant:?}");
        let opts = search::Options::natural(6, Backend::Cadical);
        let report = search::check(&m, &opts, &|_| {}).expect("the check runs");
        let verdicts: Vec<(&str, Option<usize>, usize)> = report
            .axioms
            .iter()
            .map(|a| {
                (
                    a.axiom.as_str(),
                    a.counterexample.as_ref().map(|c| c.bound),
                    a.clean_to,
                )
            })
            .collect();
        assert_eq!(
            verdicts,
            [
                ("Coherence", None, 6),
                ("Atomicity", None, 6),
                ("SC", Some(5), 4)
            ],
            "under {variant:?}"
        );
    }
}

/// The results page's sound change to B1's row, at the bound where B1 breaks: LLVM's sm_70 file
/// with its `RMW.SC.$s` row replaced by Figure 11's (`fence.sc.$s; atom.acq_rel.$s`), every other
/// row kept (the seq_cst store's `fence.sc; st.relaxed` among them), has no Coherence or Atomicity
/// counterexample up to 7 under C++11 and NVIDIA's reading of PTX (about 4 minutes on 2 cores).
#[test]
#[ignore = "exhaustive tier (scripts/test --exhaustive)"]
fn exhaustive_fig11s_seq_cst_rmw_row_mends_llvm_sm70_to_7() {
    let text = std::fs::read_to_string(LLVM_SM70).unwrap();
    let b1_row = "RMW.SC.$s          -> fence.sc.$s; atom.acquire.$s";
    let fig11_row = "RMW.SC.$s -> fence.sc.$s; atom.acq_rel.$s";
    let mut rows_changed = 0;
    let lines: Vec<&str> = (text.lines())
        .map(|line| match line.starts_with(b1_row) {
            true => {
                rows_changed += 1;
                fig11_row
            }
            false => line,
        })
        .collect();
    assert_eq!(rows_changed, 1, "{LLVM_SM70} has B1's row once");
    let m = mapping::load_str(
        "fig11-rmw.map",
        &lines.join("\n"),
        Path::new(LLVM_SM70).parent(),
    )
    .unwrap_or_else(|e| panic!("{}", e.render()));
    let opts = search::Options {
        axioms: vec!["Coherence".into(), "Atomicity".into()],
        ..search::Options::natural(7, Backend::Cadical)
    };
    let report = search::check(&m, &opts, &|_| {}).expect("the check runs");
    let verdicts: Vec<(&str, bool, usize)> = (report.axioms.iter())
        .map(|a| (a.axiom.as_str(), a.counterexample.is_some(), a.clean_to))
        .collect();
    assert_eq!(verdicts, [("Coherence", false, 7), ("Atomicity", false, 7)]);
}

/// The results page's Atomicity cells beyond bound 6 that no vendored test carries: neither
/// LLVM's two files nor libcu++'s two arms has an Atomicity counterexample up to 7 under either
/// C++ version (about 30 s per check on 2 cores).
#[test]
#[ignore = "exhaustive tier (scripts/test --exhaustive)"]
fn exhaustive_no_atomicity_counterexample_up_to_7_in_llvm_or_libcuxx() {
    for map in [LLVM_SM70, LLVM_SM90, SM70, PRE_SM70] {
        for variant in [None, Some("cxx20")] {
            assert_atomicity_clean_to_7(map, variant);
        }
    }
}

fn assert_atomicity_clean_to_7(map: &str, variant: Option<&str>) {
    let m = read_with(map, variant);
    let opts = search::Options {
        axioms: vec!["Atomicity".into()],
        ..search::Options::natural(7, Backend::Cadical)
    };
    let report = search::check(&m, &opts, &|_| {}).expect("the check runs");
    let [a] = &report.axioms[..] else {
        panic!("{map}: one axiom asked, {} answered", report.axioms.len());
    };
    assert!(a.counterexample.is_none(), "{map} under {variant:?}");
    assert_eq!(a.clean_to, 7, "{map} under {variant:?}");
}

/// Decision 019's table: LLVM's `syncscope("singlethread")` rows, each overriding its `$s` row in
/// both LLVM files, while the RMWs it does not override take `$s` at `WI`'s image, `.gpu`.
#[test]
fn llvm_singlethread_rows_override_their_dollar_s_rows() {
    for map in [LLVM_SM70, LLVM_SM90] {
        let m = mapping::load(Path::new(map)).expect("mapping loads");
        let row = |class: &str| -> String {
            let c = (m.classes().iter())
                .find(|c| c.to_string() == class)
                .unwrap_or_else(|| panic!("{map}: no class {class}"));
            let ops: Vec<String> = m.compile(c).iter().map(|o| o.to_string()).collect();
            ops.join("; ")
        };
        for class in ["R.RLX.WI", "R.CON.WI", "R.ACQ.WI", "R.SC.WI"] {
            assert_eq!(row(class), "ld.weak", "{map}: {class}");
        }
        for class in ["W.RLX.WI", "W.REL.WI", "W.SC.WI"] {
            assert_eq!(row(class), "st.weak", "{map}: {class}");
        }
        for class in [
            "F.CON.WI",
            "F.ACQ.WI",
            "F.REL.WI",
            "F.ACQ_REL.WI",
            "F.SC.WI",
        ] {
            assert_eq!(row(class), "", "{map}: {class}");
        }
        assert_eq!(row("RMW.SC.WI"), "atom.acquire.gpu", "{map}");
        assert_eq!(row("RMW.RLX.WI"), "atom.relaxed.gpu", "{map}");
        assert_eq!(row("RMW.ACQ_REL.WI"), "atom.acq_rel.gpu", "{map}");
        assert_eq!(row("RMW.SC.GPU"), "fence.sc.gpu; atom.acquire.gpu", "{map}");
        assert_eq!(row("R.ACQ.CTA"), "ld.acquire.cta", "{map}");
    }
}

/// Every row a shipped file's header lists under "Not expressible yet" is an `inexpressible` row
/// of the file, one for one, and every check of the file lists each in `not searched`.
#[test]
fn every_inexpressible_row_is_listed_in_not_searched() {
    for map in [LLVM_SM70, LLVM_SM90, SM70, PRE_SM70, TRITON] {
        let text = std::fs::read_to_string(map).unwrap();
        let listed = (text.lines())
            .skip_while(|l| !l.starts_with("// Not expressible yet"))
            .skip(1)
            .take_while(|l| *l != "//")
            .filter(|l| {
                // An item of the list, not a sub-item: at most three spaces after `//`.
                let rest = l.trim_start_matches("//");
                let item = rest.trim_start();
                let numbered = item
                    .split_once(". ")
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok());
                rest.len() - item.len() <= 3 && (item.starts_with("- ") || numbered)
            })
            .count();
        let rows: Vec<&str> = (text.lines())
            .filter_map(|l| l.strip_prefix("inexpressible \""))
            .map(|l| l.trim_end_matches('"'))
            .collect();
        assert!(listed > 0, "{map}: no \"Not expressible yet\" list");
        assert_eq!(
            rows.len(),
            listed,
            "{map}: header list against inexpressible rows"
        );
        let (code, out, err) = mapcheck(&["check", map, "--bound", "1", "--json"]);
        assert_eq!(code, 0, "{map}: {err}");
        let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        let not_searched: Vec<&str> = (report["not_searched"].as_array())
            .expect("a not_searched list")
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for row in rows {
            let line = format!("inexpressible row: {row}");
            assert!(not_searched.contains(&line.as_str()), "{map}: {line}");
        }
    }
}
