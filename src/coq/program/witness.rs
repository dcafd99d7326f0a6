//! The obligations' satisfiability witness (`satisfiable`): a real source program with memory
//! events, its compilation and a pair of their executions that meet every hypothesis of the
//! mapping's statement, so the claims are not true for nothing.
use super::super::model::Models;
use super::{Instance, Programs, Test};
use crate::diag;
use crate::exec::Execution;
use crate::ir::Model;
use crate::litmus::{Expr, Instr, Litmus};
use crate::mapping::Mapping;
use crate::rel::Rel;
use crate::runner;
use crate::search::{execution_keys, EventKey};

/// `compilation_satisfiable`, in a Module `Witness`: the hypotheses describe at least one real
/// pair with memory events (a store and a load of one location in two threads of one CTA, of
/// the mapping's first atomic classes of one scope), so the claims are not true for nothing.
pub(crate) fn satisfiable(mapping: &Mapping, models: &Models) -> diag::Result<String> {
    let source = witness_test(mapping)?;
    let programs = Programs::of(mapping, &source)?;
    let (xt, xs) = witness_pair(mapping, &source, &programs)?;
    let instance = Instance::new(mapping, programs, &source, &xt, &xs)?;
    Ok(format!(
        "(* The hypotheses are satisfiable by a program with memory events. *)\n\
         Module Witness.\n{}\
         Lemma compilation_satisfiable : exists Ps Pt Xs Xt, compilation Ps Pt Xs Xt.\n\
         Proof. exists Ps, Pt, Xs, Xt. {}. Qed.\n\
         End Witness.\nPrint Assumptions Witness.compilation_satisfiable.\n",
        instance.print(mapping, models),
        Instance::constructor(mapping, models)
    ))
}

/// `P0: x = 1 ‖ P1: r0 = x` (both threads in one CTA), with the first atomic store and load
/// classes of one scope, compiled to a main instruction each, that make it race free. A mapping
/// without such a pair (Triton's table has no atomic loads or stores) gets an RMW, an exchange,
/// in the place of either: stores and loads are tried first, then RMWs.
fn witness_test(mapping: &Mapping) -> diag::Result<Litmus> {
    use crate::mapping::ClassKind;
    let atomic = |kinds: [ClassKind; 2]| -> Vec<&crate::mapping::Class> {
        let of = |kind: ClassKind| {
            mapping
                .classes()
                .iter()
                .filter(move |c| c.kind == kind && c.order != crate::vocab::Tag::Na)
                .filter(|c| mapping.rule(c).is_some_and(|r| r.main.is_some()))
        };
        kinds.into_iter().flat_map(of).collect()
    };
    let (writers, readers) = (
        atomic([ClassKind::W, ClassKind::Rmw]),
        atomic([ClassKind::R, ClassKind::Rmw]),
    );
    let pairs = writers
        .iter()
        .flat_map(|w| readers.iter().map(move |r| (w, r)))
        .filter(|(w, r)| w.scope == r.scope);
    let (plain, with_rmw): (Vec<_>, Vec<_>) =
        pairs.partition(|(w, r)| w.kind == ClassKind::W && r.kind == ClassKind::R);
    for (writer, reader) in plain.into_iter().chain(with_rmw) {
        let test = write_and_read(mapping, writer, reader);
        if race_free(&mapping.source, &test)? {
            return Ok(test);
        }
    }
    Err(diag::Error::file(
        &mapping.path,
        "the Coq export's satisfiability witness needs two atomic classes of one scope, a store or an RMW and a load or an RMW, that are race free across two threads of one CTA",
    ))
}

/// The witness's instruction for `class`: a store of `value` or a load into `r0`, or for an RMW
/// an exchange of `value` into `r0`.
fn access(class: &crate::mapping::Class, value: i64) -> Instr {
    use crate::litmus::RmwOp;
    use crate::mapping::ClassKind;
    let (loc, tags) = ("x".to_string(), class.tags());
    match class.kind {
        ClassKind::W => Instr::Store {
            loc,
            value: Expr::Const(value),
            tags,
        },
        ClassKind::R => Instr::Load {
            dst: "r0".into(),
            loc,
            tags,
        },
        _ => Instr::Rmw {
            dst: Some("r0".into()),
            loc,
            op: RmwOp::Exch(Expr::Const(value)),
            tags,
            fail_tags: None,
        },
    }
}

fn write_and_read(
    mapping: &Mapping,
    writer: &crate::mapping::Class,
    reader: &crate::mapping::Class,
) -> Litmus {
    use crate::litmus::{Arch, Condition, Prop, Quantifier, Thread};
    let region = mapping.region();
    let thread = |name: &str, instr: Instr| Thread {
        name: name.into(),
        placement: Default::default(),
        code: vec![instr],
        unsequenced: vec![],
    };
    Litmus {
        arch: if region.is_some() {
            Arch::OpenCl
        } else {
            Arch::C11
        },
        name: "witness".into(),
        init_mem: vec![("x".into(), 0)],
        init_regs: vec![],
        ssw: vec![],
        filter: None,
        loc_tags: region
            .map(|r| vec![("x".to_string(), vec![r])])
            .unwrap_or_default(),
        aliases: vec![],
        threads: vec![
            thread("P0", access(writer, 1)),
            thread("P1", access(reader, 2)),
        ],
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop: Prop::True,
        },
        locations: vec![],
    }
}

/// No consistent execution of `test` raises a flag of `model` (the runner's word).
fn race_free(model: &Model, test: &Litmus) -> diag::Result<bool> {
    let mut racy = false;
    runner::for_each_candidate(model, test, &runner::Options::default(), &mut |c| {
        racy |= c.is_consistent() && !c.judgement.flags.is_empty();
    })?;
    Ok(!racy)
}

/// A target execution of the compiled test that the target model allows, and a source
/// execution of `source` with its `rf` and a coherence order containing its `co` (compared in
/// the joint numbering).
fn witness_pair(
    mapping: &Mapping,
    source: &Litmus,
    programs: &Programs,
) -> diag::Result<(Execution, Execution)> {
    let numbered = |test: Test, x: &Execution, r: &Rel| {
        let keys = execution_keys(x);
        let number = |k: &EventKey| programs.numbering.number(test, k);
        r.pairs()
            .filter_map(|(a, b)| Some((number(&keys[a])?, number(&keys[b])?)))
            .collect::<std::collections::BTreeSet<_>>()
    };
    let opts = runner::Options::default();
    let mut targets = vec![];
    runner::for_each_candidate(&mapping.target, &programs.compiled, &opts, &mut |c| {
        if c.is_consistent() {
            targets.push(c.execution.clone());
        }
    })?;
    let mut pair = None;
    runner::for_each_candidate(&mapping.source, source, &opts, &mut |c| {
        let xs = c.execution;
        for xt in &targets {
            if pair.is_none()
                && numbered(Test::Source, xs, &xs.rf) == numbered(Test::Target, xt, &xt.rf)
                && numbered(Test::Target, xt, &xt.co).is_subset(&numbered(Test::Source, xs, &xs.co))
            {
                pair = Some((xt.clone(), xs.clone()));
            }
        }
    })?;
    pair.ok_or_else(|| {
        diag::Error::file(
            &mapping.path,
            "the satisfiability witness has no target execution with a source lift",
        )
    })
}
