//! `litmus::print_ptx`: every PTX test of the Dat3M suite and of the PTX manual survives
//! parse → print → parse unchanged, and the runner gives the reprinted manual tests the same
//! verdict and final states; compiled OpenCL tests print, re-parse and run; what PTX cannot say is
//! an error; and `mapcheck compile` end to end.
use std::path::{Path, PathBuf};

use mapcheck::litmus::{self, Expr, Instr, Litmus, RmwOp};
use mapcheck::vocab::Tag;
use mapcheck::{ir, mapping, runner};

use crate::support::litmus::refusal_of;

const ORACLE: &str = "tests/data/oracle/dat3m";

/// The PTX tests the Dat3M PTXv6_0 suite lists.
fn dat3m_ptx() -> Vec<PathBuf> {
    suite("PTXv6_0")
}

/// The tests a Dat3M verdict list names, less those mapcheck refuses (`REFUSED`, which
/// `litmus_corpus` checks are refused).
fn suite(name: &str) -> Vec<PathBuf> {
    let table =
        std::fs::read_to_string(Path::new(ORACLE).join(format!("expected/{name}.tsv"))).unwrap();
    table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| Path::new(ORACLE).join(l.split('\t').next().unwrap()))
        .filter(|p| refusal_of(p).is_none())
        .collect()
}

fn manual() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir("tests/data/ptx-manual")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    v.sort();
    v
}

fn parse(path: &Path) -> Litmus {
    litmus::parse_file(path).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn reparse(test: &Litmus) -> (String, Litmus) {
    let text = litmus::print_ptx(test).unwrap_or_else(|e| panic!("{}: {}", test.name, e.render()));
    let again = litmus::parse_str("printed.litmus", &text)
        .unwrap_or_else(|e| panic!("{text}\n{}", e.render()));
    (text, again)
}

/// Parse → print → parse gives the same `Litmus`; returns how many tests were checked.
fn round_trip(paths: &[PathBuf]) -> usize {
    for path in paths {
        let test = parse(path);
        let (text, again) = reparse(&test);
        assert_eq!(test, again, "{}:\n{text}", path.display());
    }
    paths.len()
}

#[test]
fn dat3m_ptx_suite_round_trips() {
    let n = round_trip(&dat3m_ptx());
    assert_eq!(
        n, 107,
        "the PTXv6_0 suite lists 109 tests, two of them refused"
    );
}

/// The PTX 7.5 suite: aliases, proxy accesses and proxy fences print and read back.
#[test]
fn dat3m_ptx_v75_suite_round_trips() {
    let n = round_trip(&suite("PTXv7_5"));
    assert_eq!(
        n, 202,
        "the PTXv7_5 suite lists 204 tests, two of them refused"
    );
}

/// The reprinted mixed-proxy tests get the same verdict and final states under PTX 7.5.
#[test]
fn reprinted_proxy_tests_run_the_same() {
    let model = ir::load(Path::new("models/ptx-v7.5.cat")).unwrap();
    let proxy: Vec<PathBuf> = suite("PTXv7_5")
        .into_iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "proxy"))
        .collect();
    assert_eq!(proxy.len(), 95);
    for path in proxy {
        let test = parse(&path);
        same_outcome(&model, &test, &reparse(&test).1);
    }
}

#[test]
fn ptx_manual_round_trips() {
    let n = round_trip(&manual());
    assert!(n >= 11, "{n} manual tests");
}

fn same_outcome(model: &ir::Model, a: &Litmus, b: &Litmus) {
    let opts = runner::Options::default();
    let x = runner::run(model, a, &opts).unwrap_or_else(|e| panic!("{}", e.render()));
    let y = runner::run(model, b, &opts).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(
        (x.validated, &x.states),
        (y.validated, &y.states),
        "{}",
        a.name
    );
}

#[test]
fn reprinted_tests_run_the_same() {
    let model = ir::load(Path::new("models/ptx-v6.cat")).unwrap();
    let manual_dir = Path::new(ORACLE).join("litmus/PTX/Manual");
    let paths: Vec<PathBuf> = manual().into_iter().chain(dat3m_ptx()).collect();
    // 75 of the suite's tests are in Manual/, two of them refused (`REFUSED`).
    assert!(paths.iter().filter(|p| p.starts_with(&manual_dir)).count() == 73);
    for path in paths {
        let test = parse(&path);
        same_outcome(&model, &test, &reparse(&test).1);
    }
}

fn compiled_opencl(name: &str) -> Litmus {
    let src = parse(&Path::new(ORACLE).join("litmus/OPENCL/herd").join(name));
    let m = mapping::load(Path::new("mappings/opencl-ptx.map"))
        .unwrap_or_else(|e| panic!("{}", e.render()));
    m.compile_program(&src)
        .unwrap_or_else(|e| panic!("{}", e.render()))
        .target
}

#[test]
fn compiled_opencl_message_passing_prints_reparses_and_runs() {
    let model = ir::load(Path::new("models/ptx-v6.cat")).unwrap();
    for name in ["MP.litmus", "SB.litmus", "IRIW.litmus"] {
        let target = compiled_opencl(name);
        let (text, again) = reparse(&target);
        assert!(text.starts_with("PTX "), "{text}");
        same_outcome(&model, &target, &again);
    }
}

fn opencl_tests(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            opencl_tests(&path, out)
        } else if path.extension().is_some_and(|e| e == "litmus") {
            out.push(path)
        }
    }
}

/// Every OpenCL test the mapping compiles either prints (and then re-parses and runs with the
/// same verdict and the same number of final states; registers may be renamed) or is refused with
/// an error for something PTX cannot say (local memory, array elements).
#[test]
fn compiled_opencl_suite_prints_or_is_refused() {
    let model = ir::load(Path::new("models/ptx-v6.cat")).unwrap();
    let m = mapping::load(Path::new("mappings/opencl-ptx.map")).unwrap();
    let mut paths = vec![];
    opencl_tests(&Path::new(ORACLE).join("litmus/OPENCL"), &mut paths);
    paths.sort();
    let (mut printed, mut refused) = (0, 0);
    for path in &paths {
        let Ok(compiled) = m.compile_program(&parse(path)) else {
            continue;
        };
        let target = compiled.target;
        match litmus::print_ptx(&target) {
            Ok(text) => {
                let again = litmus::parse_str("printed.litmus", &text)
                    .unwrap_or_else(|e| panic!("{text}\n{}", e.render()));
                let opts = runner::Options::default();
                let x = runner::run(&model, &target, &opts).unwrap();
                let y = runner::run(&model, &again, &opts).unwrap();
                assert_eq!(
                    (x.validated, x.states.len()),
                    (y.validated, y.states.len()),
                    "{}:\n{text}",
                    path.display()
                );
                printed += 1;
            }
            Err(e) => {
                assert!(
                    e.message.contains("LOCAL") || e.message.contains('['),
                    "{}: {}",
                    path.display(),
                    e.message
                );
                refused += 1;
            }
        }
    }
    assert!(
        printed >= 124 && refused <= 9,
        "printed {printed}, refused {refused} of {}",
        paths.len()
    );
}

fn one_thread(code: Vec<Instr>) -> Litmus {
    let mut t = parse(&manual()[0]);
    t.threads.truncate(1);
    t.init_regs.clear();
    t.threads[0].code = code;
    t.condition.prop = litmus::Prop::True;
    t
}

fn tags(ts: &[&str]) -> Vec<Tag> {
    ts.iter().map(|t| Tag::from_name(t).unwrap()).collect()
}

#[test]
fn what_ptx_cannot_say_is_an_error_naming_the_instruction() {
    let na = Instr::Store {
        loc: "x".into(),
        value: Expr::Const(1),
        tags: tags(&["NA"]),
    };
    let err = litmus::print_ptx(&one_thread(vec![na])).unwrap_err();
    assert!(
        err.message.contains("P0, instruction 0") && err.message.contains("NA"),
        "{}",
        err.message
    );
    let cas = Instr::Rmw {
        dst: Some("r0".into()),
        loc: "x".into(),
        op: RmwOp::Cas {
            expected: Expr::Const(0),
            desired: Expr::Const(1),
        },
        tags: tags(&["ACQ", "GPU"]),
        fail_tags: Some(tags(&["RLX", "GPU"])),
    };
    let err = litmus::print_ptx(&one_thread(vec![cas])).unwrap_err();
    assert!(err.message.contains("failure order"), "{}", err.message);
}

#[test]
fn rmw_without_destination_or_red_tag_stays_an_atom() {
    let rmw = Instr::Rmw {
        dst: None,
        loc: "x".into(),
        op: RmwOp::Arith(mapcheck::litmus::BinOp::Add, Expr::Const(1)),
        tags: tags(&["RLX", "GPU"]),
        fail_tags: None,
    };
    let (text, again) = reparse(&one_thread(vec![rmw]));
    assert!(text.contains("atom.relaxed.gpu.add %t0, x, 1"), "{text}");
    assert!(
        matches!(&again.threads[0].code[0], Instr::Rmw { dst: Some(d), tags: t, .. } if d == "%t0" && !t.contains(&Tag::Red))
    );
}

#[test]
fn nested_expressions_are_flattened_into_temporaries() {
    use mapcheck::litmus::BinOp::{Add, Sub};
    let nested = Expr::Bin(
        Add,
        Box::new(Expr::Bin(
            Sub,
            Box::new(Expr::Reg("r1".into())),
            Box::new(Expr::Const(2)),
        )),
        Box::new(Expr::Const(3)),
    );
    let store = Instr::Store {
        loc: "x".into(),
        value: nested,
        tags: tags(&["WEAK"]),
    };
    let (text, again) = reparse(&one_thread(vec![store]));
    assert!(
        text.contains("sub %t1, r1, 2")
            && text.contains("add %t0, %t1, 3")
            && text.contains("st.weak x, %t0"),
        "{text}"
    );
    assert_eq!(again.threads[0].code.len(), 3);
}

#[test]
fn unreadable_register_and_label_names_are_renamed_consistently() {
    let code = vec![
        Instr::Load {
            dst: "t".into(),
            loc: "x".into(),
            tags: tags(&["WEAK"]),
        },
        Instr::BranchIf {
            cond: litmus::Cond {
                op: litmus::CmpOp::Eq,
                lhs: Expr::Reg("t".into()),
                rhs: Expr::Const(0),
            },
            target: "%L0".into(),
        },
        Instr::Label("%L0".into()),
    ];
    let mut test = one_thread(code);
    test.condition.prop = litmus::Prop::Eq(
        litmus::Target::Reg {
            thread: 0,
            reg: "t".into(),
        },
        1,
    );
    let (text, again) = reparse(&test);
    assert!(
        text.contains("ld.weak r0, x") && text.contains("beq r0, 0, L0") && text.contains("L0:"),
        "{text}"
    );
    assert!(text.contains("P0:r0 == 1"), "{text}");
    assert_eq!(again.threads[0].code.len(), 3);
}
