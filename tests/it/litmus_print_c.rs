//! `litmus::print_c`: every C11 and OpenCL test of the vendored Dat3M corpus either survives
//! parse → print → parse unchanged (and the runner gives the original and the reprint the same
//! verdict and final states under rc11.cat / opencl.cat) or is refused for a stated reason; a
//! scoped C11 program written in Rust (CTA / GPU / SYS scopes, plain and volatile accesses, an
//! RMW, a fence, two CTAs) round-trips, runs the same under cuda.cat, and prints as the snapshot;
//! what C cannot say is an error naming the thread and instruction.

use std::path::{Path, PathBuf};

use crate::support::litmus::{fence, ld, rmw, st};
use mapcheck::litmus::{
    self, Arch, BinOp, CmpOp, Cond, Condition, Expr, Instr, Litmus, Placement, Prop, Quantifier,
    RmwOp, Target, Thread,
};
use mapcheck::vocab::Level;
use mapcheck::{ir, runner};

const CORPUS: &str = "tests/data/oracle/dat3m/litmus";

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            litmus_files(&path, out)
        } else if path.extension().is_some_and(|e| e == "litmus") {
            out.push(path)
        }
    }
}

/// The tests of one corpus directory (`C11`, `OPENCL`) that parse.
fn corpus(dir: &str) -> Vec<(PathBuf, Litmus)> {
    let mut paths = vec![];
    litmus_files(&Path::new(CORPUS).join(dir), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| litmus::parse_file(&p).ok().map(|t| (p, t)))
        .collect()
}

/// Print and parse again; `Err` is print_c's refusal.
fn reprint(test: &Litmus) -> Result<(String, Litmus), String> {
    let text = litmus::print_c(test).map_err(|e| e.message)?;
    let again = litmus::parse_str("printed.litmus", &text).unwrap_or_else(|e| {
        panic!(
            "print_c returned a file that does not parse:\n{text}\n{}",
            e.render()
        )
    });
    Ok((text, again))
}

struct Tally {
    printed: Vec<(PathBuf, Litmus, Litmus)>,
    refused: Vec<(PathBuf, String)>,
}

/// Every parsed test of `dir` either re-parses equal to itself or is refused.
fn round_trip(dir: &str, arch: Arch) -> Tally {
    let mut tally = Tally {
        printed: vec![],
        refused: vec![],
    };
    for (path, test) in corpus(dir) {
        assert_eq!(test.arch, arch, "{}", path.display());
        match reprint(&test) {
            Ok((text, again)) => {
                assert_eq!(test, again, "{}:\n{text}", path.display());
                tally.printed.push((path, test, again));
            }
            Err(message) => tally.refused.push((path, message)),
        }
    }
    tally
}

/// The one refusal of each corpus: `imm-E3.5` reads an array element `y[r0]` with a register
/// index, which the front end lowers to a branch per element on the locations `y` and `y[1]`;
/// print_c writes no arrays.
fn assert_only_the_array_test_is_refused(tally: &Tally) {
    assert_eq!(tally.refused.len(), 1, "{:?}", tally.refused);
    let (path, message) = &tally.refused[0];
    assert!(
        path.ends_with("manual/imm-E3.5.litmus"),
        "{}",
        path.display()
    );
    assert!(
        message.contains("`y[1]`") && message.contains("array"),
        "{message}"
    );
}

#[test]
fn c11_corpus_round_trips_except_one_array_test() {
    let tally = round_trip("C11", Arch::C11);
    assert_eq!(tally.printed.len(), 99, "the C11 corpus has 100 tests");
    assert_only_the_array_test_is_refused(&tally);
}

#[test]
fn opencl_corpus_round_trips_except_one_array_test() {
    let tally = round_trip("OPENCL", Arch::OpenCl);
    assert_eq!(tally.printed.len(), 133, "the OpenCL corpus has 134 tests");
    assert_only_the_array_test_is_refused(&tally);
}

fn same_outcome(model: &ir::Model, name: &Path, a: &Litmus, b: &Litmus) {
    let opts = runner::Options::default();
    let x = runner::run(model, a, &opts).unwrap_or_else(|e| panic!("{}", e.render()));
    let y = runner::run(model, b, &opts).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(
        (x.validated, &x.states, x.positive, x.negative),
        (y.validated, &y.states, y.positive, y.negative),
        "{}",
        name.display()
    );
}

#[test]
fn reprinted_c11_tests_run_the_same_under_rc11() {
    let model = ir::load(Path::new("models/rc11.cat")).unwrap_or_else(|e| panic!("{}", e.render()));
    let tally = round_trip("C11", Arch::C11);
    for (path, test, again) in &tally.printed {
        same_outcome(&model, path, test, again);
    }
    assert_eq!(tally.printed.len(), 99);
}

#[test]
fn reprinted_opencl_tests_run_the_same_under_opencl() {
    let model =
        ir::load(Path::new("models/opencl.cat")).unwrap_or_else(|e| panic!("{}", e.render()));
    let tally = round_trip("OPENCL", Arch::OpenCl);
    for (path, test, again) in &tally.printed {
        same_outcome(&model, path, test, again);
    }
    assert_eq!(tally.printed.len(), 133);
}

fn reg_is(thread: usize, reg: &str, v: i64) -> Box<Prop> {
    Box::new(Prop::Eq(
        Target::Reg {
            thread,
            reg: reg.into(),
        },
        v,
    ))
}

/// Message passing across two CTAs of one GPU in scoped C++: P0 writes the data plainly, fences
/// at device scope and raises the flag with a block-scoped exchange; P1 takes the flag with a
/// system-scoped fetch-add, reads a volatile and then the data.
fn scoped_message_passing() -> Litmus {
    let p0 = vec![
        st("data", 42, &["NA"]),
        fence(&["REL", "GPU"]),
        rmw("r0", "flag", RmwOp::Exch(Expr::Const(1)), &["RLX", "CTA"]),
        st("vol", 1, &["RLX", "SYS", "V"]),
    ];
    let p1 = vec![
        rmw(
            "r1",
            "flag",
            RmwOp::Arith(BinOp::Add, Expr::Const(1)),
            &["ACQ", "SYS"],
        ),
        ld("r2", "vol", &["RLX", "SYS", "V"]),
        fence(&["ACQ", "GPU"]),
        ld("r3", "data", &["NA"]),
    ];
    Litmus {
        arch: Arch::C11,
        name: "MP+scoped".into(),
        init_mem: vec![("data".into(), 0), ("flag".into(), 0), ("vol".into(), 0)],
        init_regs: vec![],
        ssw: vec![],
        filter: None,
        loc_tags: vec![],
        aliases: vec![],
        threads: vec![
            Thread {
                name: "P0".into(),
                placement: Placement::default(),
                code: p0,
                unsequenced: vec![],
            },
            Thread {
                name: "P1".into(),
                placement: Placement::default().with(Level::Cta, 1),
                code: p1,
                unsequenced: vec![],
            },
        ],
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop: Prop::And(reg_is(1, "r1", 1), reg_is(1, "r3", 0)),
        },
        locations: vec![],
    }
}

#[test]
fn scoped_c11_program_round_trips_and_prints_as_the_snapshot() {
    let test = scoped_message_passing();
    let (text, again) = reprint(&test).unwrap_or_else(|m| panic!("{m}"));
    assert_eq!(test, again, "{text}");
    let model = ir::load(Path::new("models/cuda.cat")).unwrap_or_else(|e| panic!("{}", e.render()));
    same_outcome(&model, Path::new("MP+scoped"), &test, &again);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../data/litmus/print");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("c11-scoped-message-passing", text));
}

#[test]
fn printed_file_is_accepted_by_parse_file() {
    let test = scoped_message_passing();
    let text = litmus::print_c(&test).unwrap_or_else(|e| panic!("{}", e.render()));
    let path = std::env::temp_dir().join(format!("mapcheck-print-c-{}.litmus", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let again = litmus::parse_file(&path);
    std::fs::remove_file(&path).ok();
    assert_eq!(again.unwrap_or_else(|e| panic!("{}", e.render())), test);
}

#[test]
fn tags_are_read_as_sets() {
    let mut test = scoped_message_passing();
    test.threads[0].code[3] = st("vol", 1, &["V", "SYS", "RLX"]);
    let (_, again) = reprint(&test).unwrap_or_else(|m| panic!("{m}"));
    assert_eq!(again, scoped_message_passing());
}

#[test]
fn unscoped_c11_threads_print_without_placement() {
    let mut test = scoped_message_passing();
    test.threads[1].placement = Placement::default();
    let (text, again) = reprint(&test).unwrap_or_else(|m| panic!("{m}"));
    assert_eq!(test, again);
    assert!(text.contains("P0 (") && text.contains("P1 ("), "{text}");
}

fn refusal(test: &Litmus) -> String {
    match litmus::print_c(test) {
        Ok(text) => panic!("printed what C cannot say:\n{text}"),
        Err(e) => e.message,
    }
}

#[test]
fn what_c_cannot_say_is_an_error_naming_the_instruction() {
    let with = |code: Vec<Instr>| {
        let mut t = scoped_message_passing();
        t.threads[1].code = code;
        t
    };
    let message = refusal(&with(vec![st("data", 1, &["WEAK"])]));
    assert!(
        message.contains("P1, instruction 0") && message.contains("WEAK"),
        "{message}"
    );
    // A volatile access is relaxed at system scope, nothing else.
    let message = refusal(&with(vec![ld("r0", "data", &["ACQ", "SYS", "V"])]));
    assert!(message.contains("no C call"), "{message}");
    // An acquire store, a plain RMW, a fetch-multiply.
    let message = refusal(&with(vec![st("data", 1, &["ACQ", "GPU"])]));
    assert!(
        message.contains("C has no store with order ACQ"),
        "{message}"
    );
    let message = refusal(&with(vec![rmw(
        "r0",
        "data",
        RmwOp::Exch(Expr::Const(1)),
        &["NA"],
    )]));
    assert!(message.contains("must be atomic"), "{message}");
    let message = refusal(&with(vec![rmw(
        "r0",
        "data",
        RmwOp::Arith(BinOp::Mul, Expr::Const(2)),
        &["RLX"],
    )]));
    assert!(message.contains("atomic_fetch_mul"), "{message}");
    // OpenCL scopes in a C11 test.
    let message = refusal(&with(vec![fence(&["SC", "WG"])]));
    assert!(
        message.contains("`WG` has no C spelling in a C11 test"),
        "{message}"
    );
    // A backward jump is no `if`.
    let jump = Instr::BranchIf {
        cond: Cond {
            op: CmpOp::Eq,
            lhs: Expr::Reg("r0".into()),
            rhs: Expr::Const(0),
        },
        target: "%L0".into(),
    };
    let message = refusal(&with(vec![Instr::Label("%L0".into()), jump]));
    assert!(message.contains("P1, instruction 0"), "{message}");
    // A register named like a location, and a PTX test.
    let message = refusal(&with(vec![ld("flag", "data", &["NA"])]));
    assert!(message.contains("name of a location"), "{message}");
    let mut ptx = scoped_message_passing();
    ptx.arch = Arch::Ptx;
    assert!(refusal(&ptx).contains("print_ptx"));
}

/// A jump the front end would not produce, with names it could: refused by the check that
/// re-parses the printed text, not printed as something else.
#[test]
fn a_structure_that_reads_back_differently_is_refused() {
    let mut test = scoped_message_passing();
    test.threads[1].code = vec![
        ld("r1", "flag", &["ACQ"]),
        Instr::BranchIf {
            cond: Cond {
                op: CmpOp::Eq,
                lhs: Expr::Reg("r1".into()),
                rhs: Expr::Const(0),
            },
            // The front end would number this label %L0.
            target: "%L7".into(),
        },
        ld("r3", "data", &["NA"]),
        Instr::Label("%L7".into()),
    ];
    let message = refusal(&test);
    assert!(
        message.contains("reads back") && message.contains("%L7"),
        "{message}"
    );
}

/// herd's `locations [...]` clause is printed back; unsequenced operands are refused, since one
/// statement per access would sequence them.
#[test]
fn locations_print_back_and_unsequenced_operands_are_refused() {
    let text = |p0: &str| {
        format!(
            "C t
{{ [x] = 0; [y] = 0; }}

P0 (atomic_int* x, atomic_int* y) {{
  {p0}
}}

locations [y; 0:a;]
exists (0:t=0)"
        )
    };
    let sequenced = litmus::parse_str(
        "t.litmus",
        &text("int a = atomic_load_explicit(x, memory_order_relaxed);\n  int t = a + 1;"),
    )
    .unwrap_or_else(|e| panic!("{}", e.render()));
    let (printed, again) = reprint(&sequenced).unwrap_or_else(|e| panic!("{e}"));
    assert!(printed.contains("locations [y; P0:a;]"), "{printed}");
    assert_eq!(again.locations, sequenced.locations);
    let unsequenced = litmus::parse_str(
        "t.litmus",
        &text("int a = 0;\n  int t = atomic_load_explicit(x, memory_order_relaxed) + atomic_load_explicit(y, memory_order_relaxed);"),
    )
    .unwrap_or_else(|e| panic!("{}", e.render()));
    let refused = reprint(&unsequenced).expect_err("unsequenced operands are refused");
    assert!(refused.contains("unsequenced operands"), "{refused}");
}
