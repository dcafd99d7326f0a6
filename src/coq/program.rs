//! Concrete programs in Coq: a source test and its compilation as `bprogram` literals over one
//! numbering of events, and the executions of a counterexample embedded in that numbering.
//!
//! The numbering is the one `compiles` states: the compiled test's events in the runner's order,
//! each source event numbered as the event of its main target instruction, and source events
//! without one (a fence compiled to nothing or to several fences) after them. A program's
//! skeleton is the runner's execution of the test with every event present (every guard holds);
//! its guards are read off the test's `if`s.
//!
//! Owns: `Numbering`, `Programs` (both programs and the embedding of executions into them), and
//! the files printed from them: a counterexample's refutation (`refutation`) and the obligations'
//! satisfiability witness (`satisfiable`, in `program/witness.rs`).
//! Uses: `runner` (skeletons, race freedom), `search` (event keys, `validate::executions`),
//! `mapping` (the instruction map), `litmus` (the programs), `ir`, `eval`, `exec` and `rel` (the
//! models and executions), `diag`, `coq::concrete` (literals and mirrors), `coq::mapping` (the
//! statement).
//!
//! Files:
//! - `program/witness.rs`: `satisfiable`, the obligations' satisfiability witness.
use std::collections::BTreeMap;
use std::fmt::Write;

use super::concrete::bexec_literal;
use crate::diag;
use crate::eval::Base;
use crate::exec::{EventKind, Execution};
use crate::ir::Model;
use crate::litmus::{first_events, CmpOp, Expr, Instr, Litmus};
use crate::mapping::{Compiled, Mapping};
use crate::rel::{Rel, Set};
use crate::runner;
use crate::search::{execution_keys, EventKey};

mod witness;
pub(crate) use witness::satisfiable;

/// Which test an event key belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Test {
    /// The source test (the program compiled from).
    Source,
    /// The compiled target test.
    Target,
}

/// The joint numbering: event number → its key in the source test and in the target test.
#[derive(Clone, Debug)]
pub struct Numbering {
    index: BTreeMap<(Test, EventKey), usize>,
    /// Events in the joint numbering: the target's, then source thread events with no main target
    /// instruction.
    pub n: usize,
}

impl Numbering {
    pub(crate) fn number(&self, side: Test, key: &EventKey) -> Option<usize> {
        self.index.get(&(side, key.clone())).copied()
    }
}

/// Source event key → target event key of its main instruction, for every thread event.
fn main_events(source: &Litmus, compiled: &Compiled) -> BTreeMap<EventKey, EventKey> {
    let mut map = BTreeMap::new();
    for (t, thread) in source.threads.iter().enumerate() {
        let (src_first, tgt_first) = (
            first_events(&thread.code),
            first_events(&compiled.target.threads[t].code),
        );
        for (i, instr) in thread.code.iter().enumerate() {
            let Some(main) = compiled.image(t, i).and_then(|im| im.main) else {
                continue;
            };
            for part in 0..instr.event_count() {
                map.insert(
                    EventKey::Event(t, src_first[i] + part),
                    EventKey::Event(t, tgt_first[main] + part),
                );
            }
        }
    }
    map
}

/// The runner's execution of `test` with every event present: as many as the test's code gives,
/// so that a missing event is an error, not a smaller skeleton.
fn skeleton(model: &Model, test: &Litmus) -> diag::Result<Execution> {
    // Every thread event present; the runner gives every location an initial write, declared
    // in the test or not, so they are not counted.
    let expected: usize = test
        .threads
        .iter()
        .flat_map(|t| &t.code)
        .map(Instr::event_count)
        .sum();
    let mut best: Option<Execution> = None;
    let opts = runner::Options::default();
    runner::for_each_candidate(model, test, &opts, &mut |c| {
        let thread = c.execution.events.iter().filter(|e| e.thread.is_some());
        let thread_events = thread.count();
        if best.is_none() && thread_events == expected {
            best = Some(c.execution.clone());
        }
    })?;
    best.ok_or_else(|| {
        diag::Error::file(
            &test.name,
            format!(
                "the runner has no execution of {} with all {expected} thread events",
                test.name
            ),
        )
    })
}

/// Pairs of event numbers: a relation as the Coq literal lists it.
pub(crate) type Pairs = Vec<(usize, usize)>;

/// A program as Coq sees it: its skeleton and its guards in the joint numbering.
#[derive(Clone)]
pub struct Program {
    /// The skeleton execution (every event present), renumbered into the joint numbering.
    pub skeleton: Base,
    /// `(guard read, guarded event)` and `(guard write, guarded event)`.
    pub gread: Pairs,
    /// `(guard write, guarded event)`: the write of the value the guard compares against (the
    /// initial write for 0).
    pub gwrite: Pairs,
}

/// The guards of `test`: for each event inside an `if (r != v) goto end`, the read that loaded
/// `r` and the write of value `v` to its location in `skel` (0: the initial write).
fn guards(
    test: &Litmus,
    skel: &Execution,
    keys: &[EventKey],
    number: &dyn Fn(&EventKey) -> usize,
) -> (Pairs, Pairs) {
    let at = |k: &EventKey| {
        keys.iter()
            .position(|x| x == k)
            .expect("a key of the skeleton")
    };
    let (mut gread, mut gwrite) = (vec![], vec![]);
    for (t, thread) in test.threads.iter().enumerate() {
        let first = first_events(&thread.code);
        let mut loaded: BTreeMap<&str, usize> = BTreeMap::new();
        let mut guard: Option<(usize, usize)> = None;
        for (i, instr) in thread.code.iter().enumerate() {
            match instr {
                Instr::Load { dst, .. } => drop(loaded.insert(dst, first[i])),
                Instr::Rmw { dst: Some(dst), .. } => drop(loaded.insert(dst, first[i])),
                Instr::BranchIf { cond, .. } if cond.op == CmpOp::Ne => {
                    if let (Expr::Reg(r), Expr::Const(v)) = (&cond.lhs, &cond.rhs) {
                        let read = at(&EventKey::Event(t, loaded[r.as_str()]));
                        let loc = skel.events[read].loc;
                        let write = (0..skel.n())
                            .find(|&w| {
                                skel.events[w].kind == EventKind::Write
                                    && skel.events[w].loc == loc
                                    && skel.events[w].value == *v
                            })
                            .expect("a guard names a write of the skeleton");
                        guard = Some((read, write));
                    }
                }
                _ => {}
            }
            let Some((read, write)) = guard else { continue };
            for part in 0..instr.event_count() {
                let e = number(&EventKey::Event(t, first[i] + part));
                gread.push((number(&keys[read]), e));
                gwrite.push((number(&keys[write]), e));
            }
        }
    }
    (gread, gwrite)
}

/// `x`'s vocabulary values renumbered by `number` into `n` events (events outside `x` are in no
/// set, not in `E`, and in no relation).
fn embed(x: &Execution, number: &dyn Fn(&EventKey) -> usize, n: usize) -> Base {
    let keys = execution_keys(x);
    let to: Vec<usize> = keys.iter().map(number).collect();
    let base = x.base();
    let mut out = Base::empty(n);
    for (name, set) in &base.sets {
        let mut s = Set::EMPTY;
        set.iter().for_each(|e| s.insert(to[e]));
        out.sets.insert(name, s);
    }
    for (name, rel) in &base.rels {
        let mut r = Rel::empty(n);
        rel.pairs().for_each(|(a, b)| r.insert(to[a], to[b]));
        out.rels.insert(name, r);
    }
    out
}

/// A source test and its compilation, numbered jointly.
pub struct Programs {
    /// Each event's number in the source test and in the target test.
    pub numbering: Numbering,
    /// The source test's skeleton and guards, in the joint numbering.
    pub source: Program,
    /// The compiled target test's skeleton and guards, in the joint numbering.
    pub target: Program,
    /// The compiled test.
    pub(crate) compiled: Litmus,
}

impl Programs {
    /// Compile `source` through `mapping` (without the locations it declares and never
    /// accesses), take both tests' skeletons and number them jointly: a source event shares the
    /// number of its main target event; initial writes share theirs.
    pub fn of(mapping: &Mapping, source: &Litmus) -> diag::Result<Programs> {
        let source = &source.without_unused_locations();
        let compiled = mapping.compile_program(source)?;
        let (s_skel, t_skel) = (
            skeleton(&mapping.source, source)?,
            skeleton(&mapping.target, &compiled.target)?,
        );
        let (s_keys, t_keys) = (execution_keys(&s_skel), execution_keys(&t_skel));
        let main = main_events(source, &compiled);
        let mut index = BTreeMap::new();
        for (j, k) in t_keys.iter().enumerate() {
            index.insert((Test::Target, k.clone()), j);
        }
        let mut next = t_keys.len();
        for k in &s_keys {
            let j = match k {
                EventKey::Init(_) => index[&(Test::Target, k.clone())],
                EventKey::Event(..) => match main.get(k) {
                    Some(tk) => index[&(Test::Target, tk.clone())],
                    None => {
                        next += 1;
                        next - 1
                    }
                },
            };
            index.insert((Test::Source, k.clone()), j);
        }
        let numbering = Numbering { index, n: next };
        let program = |side: Test, skel: &Execution, keys: &[EventKey], test: &Litmus| {
            let number = |k: &EventKey| numbering.number(side, k).expect("every key is numbered");
            let (gread, gwrite) = guards(test, skel, keys, &number);
            Program {
                skeleton: embed(skel, &number, numbering.n),
                gread,
                gwrite,
            }
        };
        Ok(Programs {
            source: program(Test::Source, &s_skel, &s_keys, source),
            target: program(Test::Target, &t_skel, &t_keys, &compiled.target),
            numbering,
            compiled: compiled.target,
        })
    }

    /// An execution of one of the two tests in the joint numbering.
    pub fn embed(&self, side: Test, x: &Execution) -> Base {
        let number = |k: &EventKey| {
            self.numbering
                .number(side, k)
                .expect("every key is numbered")
        };
        embed(x, &number, self.numbering.n)
    }
}

impl Program {
    /// `test` alone as a program (without the locations it declares and never accesses): its
    /// skeleton under `model` and its guards, its events numbered as the runner numbers them.
    /// `Programs::of` gives the same program, up to numbering, as the source of a compilation.
    pub fn of_test(model: &Model, test: &Litmus) -> diag::Result<Program> {
        Program::of_test_keyed(model, test).map(|(p, _)| p)
    }

    /// `of_test`, and the key in `test` of each event number.
    pub(crate) fn of_test_keyed(
        model: &Model,
        test: &Litmus,
    ) -> diag::Result<(Program, Vec<EventKey>)> {
        let test = &test.without_unused_locations();
        let skel = skeleton(model, test)?;
        let keys = execution_keys(&skel);
        let number = |k: &EventKey| {
            keys.iter()
                .position(|x| x == k)
                .expect("a key of the skeleton")
        };
        let (gread, gwrite) = guards(test, &skel, &keys, &number);
        let program = Program {
            skeleton: embed(&skel, &number, keys.len()),
            gread,
            gwrite,
        };
        Ok((program, keys))
    }
}

/// `{| bpr := …; bgread := …; bgwrite := … |}`.
pub fn bprogram_literal(p: &Program) -> String {
    let pairs = |r: &[(usize, usize)]| {
        let items: Vec<String> = r.iter().map(|(a, b)| format!("({a}, {b})")).collect();
        format!("brel_of_list [{}]", items.join("; "))
    };
    format!(
        "{{| bpr := {}; bgread := {}; bgwrite := {} |}}",
        bexec_literal(&p.skeleton),
        pairs(&p.gread),
        pairs(&p.gwrite)
    )
}

/// The proof of one field of `compilation` for the concrete `Ps Pt Xs Xt` of a refutation file.
fn field_proof(field: &str, models: &Models) -> String {
    let (wf, s, t) = (models.wf.consistent(), models.source, models.target);
    let computed = |dec: &str| format!("apply (dec_true _ _ ({dec})). vm_compute. reflexivity.");
    let ok = |m: &str, prop: &str| {
        format!("apply {m}.{prop}_ok; [vm_compute; reflexivity | apply of_bexec_reflects].")
    };
    let runs = |p: &str, m: &str| {
        computed(&format!(
            "runs_dec n _ _ _ _ R{p} (of_bexec_reflects {m}.n {m}.XB)"
        ))
    };
    let co_total = |m: &str| {
        computed(&format!(
            "co_total_dec {m}.n _ _ (of_bexec_reflects {m}.n {m}.XB)"
        ))
    };
    match field {
        "c_searched" => computed(
            "searched_on_dec n _ _ _ _ _ _ (rp_pr _ _ _ RPs) (rp_gread _ _ _ RPs) (rp_gwrite _ _ _ RPs)",
        ),
        "c_compiles" => format!(
            "split.\n  - {}\n  - {}",
            computed("lowering_dec n _ _ _ _ (rp_pr _ _ _ RPs) (rp_pr _ _ _ RPt)"),
            computed(
                "guards_compiled_dec n _ _ _ _ _ _ _ _ _ _ _ _ (rp_pr _ _ _ RPs) (rp_pr _ _ _ RPt) \
                 (rp_gread _ _ _ RPs) (rp_gwrite _ _ _ RPs) (rp_gread _ _ _ RPt) (rp_gwrite _ _ _ RPt)"
            )
        ),
        "c_meaning" => {
            let mut steps = vec![runs("Ps", "Meaning"), ok("Meaning", &wf)];
            if co_total_needed(models.source.model) {
                steps.push(co_total("Meaning"));
            }
            steps.push(ok("Meaning", &s.consistent()));
            let (last, init) = steps.split_last().expect("steps");
            let splits: String = init.iter().map(|p| format!("\n  split. {{ {p} }}")).collect();
            format!("exists Meaning.X.{splits}\n  {last}")
        }
        "c_drf" => {
            let race = s.race_free();
            for_every_execution(
                models,
                &premises(models, "Y", false),
                (&format!("{race}_b n YB"), &format!("{race}_dec n Y YB HY"), &format!("{race} Y")),
            )
        }
        "c_runs_t" => runs("Pt", "Compiled"),
        "c_wf_t" => ok("Compiled", &wf),
        "c_co_t" => co_total("Compiled"),
        "c_consistent_t" => ok("Compiled", &t.consistent()),
        "c_runs_s" => runs("Ps", "Lifted"),
        "c_wf_s" => ok("Lifted", &wf),
        "c_co_s" => co_total("Lifted"),
        "c_lift_rf" => computed(
            "same_rel_dec (r_rf _ _ _ (of_bexec_reflects Lifted.n Lifted.XB)) (r_rf _ _ _ (of_bexec_reflects Compiled.n Compiled.XB))",
        ),
        "c_lift_co" => computed(
            "inclusion_dec (r_co _ _ _ (of_bexec_reflects Compiled.n Compiled.XB)) (r_co _ _ _ (of_bexec_reflects Lifted.n Lifted.XB))",
        ),
        other => unreachable!("no proof for field {other}"),
    }
}

use super::mapping::{co_total_needed, compilation_fields};
use super::model::{Models, APPLIED};

/// The premises of race freedom (`drf`) or of `unexplained` (`lift`: same `rf` as the compiled
/// execution, `co` containing its `co`) over execution `x`: as a boolean over its mirror `xb`,
/// the decision lemma, and the Prop.
struct Premise {
    boolean: String,
    dec: String,
    prop: String,
}

/// The premises over `x`. `co_total`, where the source model needs it, is not among them:
/// `for_every_execution` then enumerates only the executions with a total co.
fn premises(models: &Models, x: &str, lift: bool) -> Vec<Premise> {
    let s = models.source;
    let xb = format!("{x}B");
    let compiled = "(of_bexec_reflects Compiled.n Compiled.XB)";
    let mut p = vec![];
    if lift {
        p.push(Premise {
            boolean: format!("brel_eq n (b_rf {xb}) (b_rf Compiled.XB)"),
            dec: format!("same_rel_dec (r_rf _ _ _ H{x}) (r_rf _ _ _ {compiled})"),
            prop: format!("same_rel (rf {x}) (rf Xt)"),
        });
        p.push(Premise {
            boolean: format!("bsubset n (b_co Compiled.XB) (b_co {xb})"),
            dec: format!("inclusion_dec (r_co _ _ _ {compiled}) (r_co _ _ _ H{x})"),
            prop: format!("inclusion (co Xt) (co {x})"),
        });
    } else {
        p.push(Premise {
            boolean: format!("{}_b n {xb}", s.consistent()),
            dec: format!("{}_dec n {x} {xb} H{x}", s.consistent()),
            prop: format!("{} {x}", s.consistent()),
        });
    }
    p
}

/// The proof that every execution `Y` of the source program satisfies `premises -> conclusion`,
/// by checking every candidate of the enumeration: `forall_executions`, or for a source model
/// with a total co (whose statements take `co_total Y` first) `forall_total_executions`, which
/// enumerates only the total orders.
fn for_every_execution(
    models: &Models,
    premises: &[Premise],
    conclusion: (&str, &str, &str),
) -> String {
    let (boolean, dec, prop) = conclusion;
    let props: String = premises.iter().map(|p| format!("{} -> ", p.prop)).collect();
    let bools: Vec<String> = premises.iter().map(|p| p.boolean.clone()).collect();
    let decs: Vec<String> = premises.iter().map(|p| p.dec.clone()).collect();
    let names: Vec<String> = (0..premises.len()).map(|i| format!("A{i}")).collect();
    let (enumeration, hypotheses) = if co_total_needed(models.source.model) {
        ("forall_total_executions", "HR Hwf Htot")
    } else {
        ("forall_executions", "HR Hwf")
    };
    format!(
        "intros Y {hypotheses}.\n  \
         refine ({enumeration} n Ps PBs (fun Y => {props}{prop}) (fun YB => implb ({}) ({boolean})) RPs _ _ _ Y {hypotheses}).\n  \
         - intros Y'. stable_tac.\n  \
         - clear Y {hypotheses}. intros Y YB HY _ _ E {}. apply (implb_dec _ _ _ _ ({}) ({dec}) E). exact {}.\n  \
         - vm_compute. reflexivity.",
        APPLIED.and(&bools),
        names.join(" "),
        super::mirror::and_proof(&decs),
        nested_conj(&names)
    )
}

/// `(conj A0 (conj A1 …))`, the proof of the right-nested conjunction of `names`.
fn nested_conj(names: &[String]) -> String {
    match names {
        [] => "I".into(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("(conj {first} {})", nested_conj(rest)),
    }
}

/// A source test with its compilation, a target execution of it, the source execution it
/// lifts to and a consistent source execution, ready to be printed as one instance of
/// `compilation`.
struct Instance {
    programs: Programs,
    source_text: String,
    target_text: String,
    compiled: Base,
    lifted: Base,
    meaning: Base,
}

impl Instance {
    fn new(
        mapping: &Mapping,
        programs: Programs,
        source: &Litmus,
        xt: &Execution,
        xs: &Execution,
    ) -> diag::Result<Instance> {
        let meaning = consistent_execution(&mapping.source, source)?;
        Ok(Instance {
            // A counterexample's programs are of the searched class, which the printers
            // write: a failure to print one is a bug in mapcheck, never an empty comment.
            source_text: crate::litmus::print_c(source)
                .map_err(|e| e.into_internal("the refuted source program cannot be printed"))?,
            target_text: crate::litmus::print_ptx(&programs.compiled)
                .map_err(|e| e.into_internal("the refuted compiled program cannot be printed"))?,
            compiled: programs.embed(Test::Target, xt),
            lifted: programs.embed(Test::Source, xs),
            meaning: programs.embed(Test::Source, &meaning),
            programs,
        })
    }

    /// The programs, the three executions as Modules, and one lemma `<field>_holds` per field
    /// of `compilation`.
    fn print(&self, mapping: &Mapping, models: &Models) -> String {
        let (wf, s, t) = (models.wf, models.source, models.target);
        let mut text = format!(
            "(* Source program:\n{}\n   Compiled program:\n{}\n\
             \x20  Events are numbered jointly: each source event is the event of its main target\n\
             \x20  instruction. *)\n\n\
             Definition n : nat := {}.\n\
             Definition PBs : bprogram := {}.\n\
             Definition PBt : bprogram := {}.\n\
             Notation Ps := (of_bprogram n PBs).\n\
             Notation Pt := (of_bprogram n PBt).\n\
             Definition RPs := of_bprogram_reflects n PBs.\n\
             Definition RPt := of_bprogram_reflects n PBt.\n\n\
             (* The compiled execution, which the target model allows. *)\n{}\
             (* The source execution with its rf and a coherence order containing its co. *)\n{}\
             (* A consistent execution of the source program: it has a meaning. *)\n{}\
             Notation Xs := Lifted.X.\nNotation Xt := Compiled.X.\n\n",
            super::text::comment_text(&self.source_text),
            super::text::comment_text(&self.target_text),
            self.programs.numbering.n,
            bprogram_literal(&self.programs.source),
            bprogram_literal(&self.programs.target),
            super::concrete::module("Compiled", &self.compiled, &[wf, t]),
            super::concrete::module("Lifted", &self.lifted, &[wf, s]),
            super::concrete::module("Meaning", &self.meaning, &[wf, s]),
        );
        for (name, stmt) in compilation_fields(mapping, models) {
            let _ = writeln!(
                text,
                "Lemma {name}_holds : {stmt}.\nProof.\n  {}\nQed.\n",
                field_proof(name, models)
            );
        }
        text
    }

    /// `constructor` of `compilation` from the `<field>_holds` lemmas.
    fn constructor(mapping: &Mapping, models: &Models) -> String {
        let fields: Vec<String> = compilation_fields(mapping, models)
            .iter()
            .map(|(name, _)| format!("exact {name}_holds"))
            .collect();
        format!("constructor; [{}]", fields.join(" | "))
    }
}

/// `Refutation_<axiom>.v`: `~ claim_<axiom>`, proved from the counterexample's own programs and
/// executions: each field of `compilation` and `unexplained` decided by computation (over every
/// execution of the source program for `drf` and `unexplained`), and the axiom failing.
pub(crate) fn refutation(
    mapping: &Mapping,
    models: &Models,
    cx: &crate::search::Counterexample,
    imports: &str,
) -> diag::Result<String> {
    let s = models.source;
    let axiom = s
        .axioms()
        .find(|(_, c)| c.name == cx.axiom)
        .map(|(c, _)| c)
        .ok_or_else(|| {
            diag::Error::file(&mapping.path, format!("no source axiom named {}", cx.axiom))
        })?;
    let (xt, xs) = crate::search::validate::executions(mapping, &cx.found)?.ok_or_else(|| {
        diag::Error::file(
            &mapping.path,
            format!(
                "the runner has no execution for the counterexample to {}",
                cx.axiom
            ),
        )
    })?;
    let programs = Programs::of(mapping, &cx.found.source)?;
    let instance = Instance::new(mapping, programs, &cx.found.source, &xt, &xs)?;
    let mut text = super::text::header(
        &format!(
            "the refutation of the claim for {} of {}",
            cx.axiom, mapping.path
        ),
        imports,
    );
    let _ = writeln!(
        text,
        "(* The counterexample to {} at bound {}. *)\n{}\
         Lemma unexplained_holds : unexplained Ps Xt.\nProof.\n  {}\nQed.\n\n{}\n\
         Theorem refutation : ~ {}.\nProof.\n  \
         intro C. apply lifted_fails.\n  \
         apply (C Ps Pt Xs Xt); [{} | exact unexplained_holds].\nQed.\n\
         Print Assumptions refutation.",
        cx.axiom,
        cx.bound,
        instance.print(mapping, models),
        for_every_execution(
            models,
            &premises(models, "Y", true),
            (
                &format!("negb ({}_b n YB)", s.consistent()),
                &format!("negb_dec _ _ ({}_dec n Y YB HY)", s.consistent()),
                &format!("~ {} Y", s.consistent()),
            )
        ),
        super::concrete::check_lemma(s, "lifted_fails", "Lifted", axiom, false),
        super::mapping::claim_name(s, axiom),
        Instance::constructor(mapping, models),
    );
    Ok(text)
}

/// Some consistent execution of `test` under `model` (the runner's first).
fn consistent_execution(model: &Model, test: &Litmus) -> diag::Result<Execution> {
    let mut found = None;
    runner::for_each_candidate(model, test, &runner::Options::default(), &mut |c| {
        if found.is_none() && c.is_consistent() {
            found = Some(c.execution.clone());
        }
    })?;
    found.ok_or_else(|| {
        diag::Error::file(&test.name, "the source program has no consistent execution")
    })
}
