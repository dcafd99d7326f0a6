//! Why a check fails on one execution, as a path of labelled edges between events.
//!
//! Owns: `Edge`, `explain`. A failing `acyclic` or `irreflexive` check is shown as a cycle, a
//! failing `empty` check as one offending pair, each found by descending through the check's
//! expression down to the model's names. Which pairs a subexpression holds is read off the
//! evaluator (`Evaluator::eval`), so no operator is implemented twice. Uses: `ir`, `rel`.
use std::collections::VecDeque;

use super::{Base, Evaluator};
use crate::ir::{BinOp, CheckKind, DefBody, Expr, Model, Op1};
use crate::rel::Rel;

/// The pair `(from, to)` of events lies in `via`: a name of the model or of the vocabulary, an
/// expression in cat syntax (`W * M`), `l^-1` for a pair of `l` read backwards, or `l1 & l2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edge {
    pub(crate) from: usize,
    pub(crate) via: String,
    pub(crate) to: usize,
}

impl Edge {
    fn new(from: usize, via: impl Into<String>, to: usize) -> Edge {
        Edge {
            from,
            via: via.into(),
            to,
        }
    }

    /// The pair read backwards, through `^-1`.
    fn inverted(self) -> Edge {
        Edge::new(self.to, format!("{}^-1", operand(&self.via)), self.from)
    }
}

/// Why check `check` of `model` fails on `base`, under the witness choice `evaluate` reports:
/// for `acyclic`, a shortest cycle of its relation, each of its pairs explained; for
/// `irreflexive`, a pair (a, a) of it, and for `empty` any pair of it, whichever has the shortest
/// explanation. A pair (a, b) is explained by a path of edges from a to b, found by descending
/// through the expression:
/// - a name (a `let`, a `let rec` variable, a witness, a vocabulary relation): one edge so
///   labelled; but at the top of the check's relation (the whole of it, an operand of `&`, the
///   left of `\`) the body of a `let` is explained in its place, so that `irreflexive r` with
///   `let r = s+` shows a cycle of `s` rather than a self-loop of `r`;
/// - `r1 ; r2`: through the first middle event c with (a, c) in r1 and (c, b) in r2;
/// - `r1 | r2`: through the first branch holding the pair;
/// - `r1 & r2`: both are explained; two single edges become one labelled `l1 & l2`, otherwise
///   the longer path is kept (r1's on a tie);
/// - `r1 \ r2`: through r1;
/// - `r+`: a shortest path in r (on (a, a), a shortest cycle through a), each edge explained
///   through r; `r*` likewise, except on (a, a);
/// - `r?`: through r, except on (a, a);
/// - `[S]`, and `r*` or `r?` on (a, a): no edge at all;
/// - `r^-1`: the path for (b, a) in r, reversed, each label followed by `^-1`;
/// - `S * T`, `~r`: one edge labelled with the expression.
///
/// The path of a cycle or of a pair (a, a) ends where it starts. `None` when the check holds, is
/// negated or is about a set, or when some witness has no possible value.
pub(crate) fn explain(model: &Model, base: &Base, check: usize) -> Option<Vec<Edge>> {
    let check = model.checks.get(check)?;
    if check.negated {
        return None;
    }
    let ev = Evaluator::settled(model, base)?;
    let e = &check.expr;
    let r = ev.rel_of(e)?;
    match check.kind {
        CheckKind::Acyclic => {
            let cycle = (0..r.size())
                .filter_map(|a| shortest_path(&r, a, a))
                .min_by_key(Vec::len)?;
            ev.along(e, &cycle, true)
        }
        CheckKind::Irreflexive => {
            let loops = (0..r.size()).filter(|&a| r.contains(a, a)).map(|a| (a, a));
            ev.shortest(e, loops)
        }
        CheckKind::Empty => ev.shortest(e, r.pairs()),
    }
}

impl Evaluator<'_> {
    /// The value of `e`, if it is a relation.
    fn rel_of(&self, e: &Expr) -> Option<Rel> {
        self.eval(e).as_rel().cloned()
    }

    /// The value of `e`, a relation by lowering's guarantee.
    fn rel(&self, e: &Expr) -> Rel {
        self.rel_of(e).unwrap_or_else(|| Rel::empty(self.n))
    }

    /// Of the paths for `pairs` at the top of `e`, a shortest one.
    fn shortest(&self, e: &Expr, pairs: impl Iterator<Item = (usize, usize)>) -> Option<Vec<Edge>> {
        pairs
            .filter_map(|(a, b)| self.path(e, a, b, true))
            .min_by_key(Vec::len)
    }

    /// The paths in `e` between consecutive `events`, joined.
    fn along(&self, e: &Expr, events: &[usize], top: bool) -> Option<Vec<Edge>> {
        let parts: Option<Vec<Vec<Edge>>> = events
            .windows(2)
            .map(|w| self.path(e, w[0], w[1], top))
            .collect();
        Some(parts?.concat())
    }

    /// A path of edges from `a` to `b` showing why (a, b), a pair of `e`, is one (see `explain`).
    /// `top`: `e` is at the top of the check's relation.
    fn path(&self, e: &Expr, a: usize, b: usize, top: bool) -> Option<Vec<Edge>> {
        let model = self.model;
        match e {
            Expr::Def(id) => match &model.defs[*id].body {
                DefBody::Value(body) if top => self.path(body, a, b, true),
                _ => Some(vec![Edge::new(a, &model.defs[*id].name, b)]),
            },
            Expr::Base { name, .. } => Some(vec![Edge::new(a, *name, b)]),
            Expr::Binary(BinOp::Seq, r1, r2) => {
                let right = self.rel(r2);
                let c = self.rel(r1).row(a).iter().find(|&c| right.contains(c, b))?;
                Some([self.path(r1, a, c, false)?, self.path(r2, c, b, false)?].concat())
            }
            Expr::Binary(BinOp::Union, r1, r2) => {
                let branch = if self.rel(r1).contains(a, b) { r1 } else { r2 };
                self.path(branch, a, b, false)
            }
            Expr::Binary(BinOp::Inter, r1, r2) => {
                Some(both(self.path(r1, a, b, top)?, self.path(r2, a, b, top)?))
            }
            Expr::Binary(BinOp::Diff, r1, _) => self.path(r1, a, b, top),
            Expr::Unary(Op1::IdOn, _) => Some(vec![]),
            Expr::Unary(Op1::Opt | Op1::Star, _) if a == b => Some(vec![]),
            Expr::Unary(Op1::Opt, r) => self.path(r, a, b, false),
            Expr::Unary(Op1::Plus | Op1::Star, r) => {
                self.along(r, &shortest_path(&self.rel(r), a, b)?, false)
            }
            Expr::Unary(Op1::Inverse, r) => {
                let forward = self.path(r, b, a, false)?;
                Some(forward.into_iter().rev().map(Edge::inverted).collect())
            }
            _ => Some(vec![Edge::new(a, text(model, e), b)]),
        }
    }
}

/// A pair of `r1 & r2` from its paths in r1 and in r2: two single edges become one labelled
/// `l1 & l2`; otherwise the longer path (r1's on a tie).
fn both(p1: Vec<Edge>, p2: Vec<Edge>) -> Vec<Edge> {
    match (p1.as_slice(), p2.as_slice()) {
        ([e1], [e2]) => vec![Edge::new(
            e1.from,
            format!("{} & {}", e1.via, e2.via),
            e1.to,
        )],
        _ if p2.len() > p1.len() => p2,
        _ => p1,
    }
}

/// The events of a shortest path of one edge or more from `a` to `b` in `r` (a cycle when
/// `a == b`), first event first, found breadth first.
fn shortest_path(r: &Rel, a: usize, b: usize) -> Option<Vec<usize>> {
    let mut parent = vec![None; r.size()];
    let mut queue = VecDeque::from([a]);
    while let Some(x) = queue.pop_front() {
        for y in r.row(x).iter() {
            if parent[y].is_some() {
                continue;
            }
            parent[y] = Some(x);
            if y == b {
                return Some(back_from(&parent, a, b));
            }
            queue.push_back(y);
        }
    }
    None
}

/// The path from `a` to `b` that the breadth-first `parent` links record, first event first.
fn back_from(parent: &[Option<usize>], a: usize, b: usize) -> Vec<usize> {
    let mut events = vec![b];
    let mut at = b;
    while let Some(p) = parent[at] {
        events.push(p);
        if p == a {
            break;
        }
        at = p;
    }
    events.reverse();
    events
}

/// A label as the operand of a postfix operator: parenthesised unless it is a name.
fn operand(label: &str) -> String {
    let is_name = label
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if is_name {
        label.to_string()
    } else {
        format!("({label})")
    }
}

/// `e` in cat syntax, binary operands in parentheses.
fn text(model: &Model, e: &Expr) -> String {
    let inner = |a: &Expr| match a {
        Expr::Binary(..) => format!("({})", text(model, a)),
        _ => text(model, a),
    };
    match e {
        Expr::Empty(_) => "0".to_string(),
        Expr::Base { name, .. } => name.to_string(),
        Expr::Def(id) => model.defs[*id].name.clone(),
        Expr::Binary(op, a, b) => format!("{} {} {}", inner(a), op.symbol(), inner(b)),
        Expr::Unary(Op1::IdOn, a) => format!("[{}]", text(model, a)),
        Expr::Unary(Op1::Domain, a) => format!("domain({})", text(model, a)),
        Expr::Unary(Op1::Range, a) => format!("range({})", text(model, a)),
        Expr::Unary(Op1::Complement, a) => format!("~{}", inner(a)),
        Expr::Unary(Op1::Inverse, a) => format!("{}^-1", inner(a)),
        Expr::Unary(Op1::Plus, a) => format!("{}+", inner(a)),
        Expr::Unary(Op1::Star, a) => format!("{}*", inner(a)),
        Expr::Unary(Op1::Opt, a) => format!("{}?", inner(a)),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::eval::{evaluate, evaluate_named, Value};
    use crate::rel::Set;
    use crate::{ir, litmus, runner};

    fn model(text: &str) -> Model {
        ir::load_str("test.cat", text, None).unwrap_or_else(|e| panic!("{}", e.render()))
    }

    /// `n` events with the relations and sets given.
    fn base(n: usize, rels: &[(&str, &[(usize, usize)])], sets: &[(&str, &[usize])]) -> Base {
        let mut b = Base::empty(n);
        for (name, pairs) in rels {
            assert!(b.set(name, Value::Rel(Rel::from_pairs(n, pairs.iter().copied()))));
        }
        for (name, elems) in sets {
            assert!(b.set(name, Value::Set(Set::from_iter(elems.iter().copied()))));
        }
        b
    }

    /// The explanation of the model's first check, as `0 -po-> 1 -rf-> 0`.
    fn explained(m: &Model, b: &Base) -> Option<String> {
        let path = explain(m, b, 0)?;
        let mut out = path.first().map_or(String::new(), |e| e.from.to_string());
        for e in &path {
            out += &format!(" -{}-> {}", e.via, e.to);
        }
        Some(out)
    }

    #[test]
    fn a_checked_name_is_unfolded_so_a_self_loop_becomes_a_cycle() {
        let m = model("let r = (po | rf)+\nirreflexive r as Loop");
        let b = base(2, &[("po", &[(0, 1)]), ("rf", &[(1, 0)])], &[]);
        assert_eq!(explained(&m, &b).unwrap(), "0 -po-> 1 -rf-> 0");
    }

    #[test]
    fn a_name_inside_the_checked_relation_is_one_edge() {
        let m = model("let hb = (po | rf)+\nirreflexive hb; fr as Coherence");
        let b = base(
            3,
            &[("po", &[(0, 1)]), ("rf", &[(1, 2)]), ("fr", &[(2, 0)])],
            &[],
        );
        assert_eq!(explained(&m, &b).unwrap(), "0 -hb-> 2 -fr-> 0");
    }

    #[test]
    fn an_acyclic_check_shows_a_shortest_cycle() {
        let m = model("acyclic po | rf | co as Order");
        let b = base(
            4,
            &[
                ("po", &[(0, 1), (1, 2), (2, 3)]),
                ("rf", &[(3, 0)]),
                ("co", &[(2, 1)]),
            ],
            &[],
        );
        assert_eq!(explained(&m, &b).unwrap(), "1 -po-> 2 -co-> 1");
    }

    #[test]
    fn a_passing_or_negated_check_has_no_explanation() {
        let b = base(2, &[("po", &[(0, 1)])], &[]);
        assert_eq!(explain(&model("acyclic po as A"), &b, 0), None);
        assert_eq!(explain(&model("irreflexive po as A"), &b, 0), None);
        assert_eq!(explain(&model("~empty po as A"), &b, 0), None);
        assert_eq!(explain(&model("empty po as A"), &b, 1), None);
    }

    #[test]
    fn sequences_identities_and_options() {
        let m = model("empty [W]; po?; rf as A");
        let through_po = base(3, &[("po", &[(0, 1)]), ("rf", &[(1, 2)])], &[("W", &[0])]);
        assert_eq!(explained(&m, &through_po).unwrap(), "0 -po-> 1 -rf-> 2");
        let direct = base(3, &[("rf", &[(0, 2)])], &[("W", &[0])]);
        assert_eq!(explained(&m, &direct).unwrap(), "0 -rf-> 2");
    }

    #[test]
    fn closures_take_a_shortest_path() {
        let m = model("empty [W]; (po | rf)+; [R] as A");
        let b = base(
            4,
            &[("po", &[(0, 1), (1, 2), (2, 3)]), ("rf", &[(1, 3)])],
            &[("W", &[0]), ("R", &[3])],
        );
        assert_eq!(explained(&m, &b).unwrap(), "0 -po-> 1 -rf-> 3");
        let star = model("empty [W]; po*; [W] as A");
        let b = base(1, &[], &[("W", &[0])]);
        assert_eq!(explain(&star, &b, 0), Some(vec![]));
    }

    #[test]
    fn an_inverse_is_the_path_read_backwards() {
        let m = model("empty (po; rf)^-1 as A");
        let b = base(3, &[("po", &[(0, 1)]), ("rf", &[(1, 2)])], &[]);
        assert_eq!(explained(&m, &b).unwrap(), "2 -rf^-1-> 1 -po^-1-> 0");
        let m = model("empty (po & loc)^-1 as A");
        let b = base(2, &[("po", &[(0, 1)]), ("loc", &[(0, 1)])], &[]);
        assert_eq!(explained(&m, &b).unwrap(), "1 -(po & loc)^-1-> 0");
    }

    #[test]
    fn unions_intersections_and_differences() {
        let b = base(
            3,
            &[
                ("po", &[(0, 1)]),
                ("rf", &[(0, 2)]),
                ("fr", &[(0, 1)]),
                ("co", &[(1, 2)]),
                ("rmw", &[(0, 2)]),
                ("loc", &[(0, 2)]),
            ],
            &[("W", &[0]), ("R", &[2])],
        );
        let one = |text: &str| explained(&model(text), &b).unwrap();
        assert_eq!(one("empty po | rf as A"), "0 -po-> 1");
        assert_eq!(one("empty (po | rf) \\ po as A"), "0 -rf-> 2");
        assert_eq!(one("empty rmw & (fr; co) as A"), "0 -fr-> 1 -co-> 2");
        assert_eq!(one("empty (W * R) & loc as A"), "0 -W * R & loc-> 2");
        assert_eq!(one("empty ~po & rf as A"), "0 -~po & rf-> 2");
    }

    #[test]
    fn witnesses_take_the_choice_evaluate_reports() {
        let text = "with s from linearisations(W, 0)\n\
                    acyclic s | po as A\n\
                    acyclic s | rf as B";
        let m = model(text);
        let b = base(
            2,
            &[("po", &[(1, 0)]), ("rf", &[(0, 1)])],
            &[("W", &[0, 1])],
        );
        assert_eq!(evaluate(&m, &b).failed, ["A"]);
        assert_eq!(explained(&m, &b).unwrap(), "0 -s-> 1 -po-> 0");
        assert_eq!(explain(&m, &b, 1), None);
    }

    /// Every edge's pair lies in the relations its label names.
    fn holds(m: &Model, b: &Base, e: &Edge) -> bool {
        e.via.split(" & ").all(|label| {
            let (name, from, to) = match label.strip_suffix("^-1") {
                Some(name) => (name, e.to, e.from),
                None => (label, e.from, e.to),
            };
            let value =
                evaluate_named(m, b, name).or_else(|| b.rels.get(name).cloned().map(Value::Rel));
            value.is_some_and(|v| v.as_rel().is_some_and(|r| r.contains(from, to)))
        })
    }

    fn is_closed_path(path: &[Edge]) -> bool {
        let linked = path.windows(2).all(|w| w[0].to == w[1].from);
        linked && path.first().map(|e| e.from) == path.last().map(|e| e.to)
    }

    /// The explanations of `axiom` on the runner's candidates of `test` under `model` that fail it.
    fn explanations(model_path: &str, test: &str, axiom: &str) -> Vec<Vec<Edge>> {
        let m = ir::load(Path::new(model_path)).unwrap();
        let check = m.checks.iter().position(|c| c.name == axiom).unwrap();
        let t = litmus::parse_str("test.litmus", test).unwrap_or_else(|e| panic!("{}", e.render()));
        let mut out = vec![];
        runner::for_each_candidate(&m, &t, &runner::Options::default(), &mut |cand| {
            if cand.judgement.failed.iter().any(|f| f == axiom) {
                let b = cand.execution.base();
                let path = explain(&m, &b, check).expect("a failing check is explained");
                assert!(is_closed_path(&path), "{path:?}");
                assert!(path.iter().all(|e| e.from != e.to), "{path:?}");
                assert!(path.iter().all(|e| holds(&m, &b, e)), "{path:?}");
                out.push(path);
            }
        })
        .unwrap();
        assert!(!out.is_empty(), "no candidate fails {axiom}");
        out
    }

    fn labels(path: &[Edge]) -> Vec<&str> {
        path.iter().map(|e| e.via.as_str()).collect()
    }

    #[test]
    fn message_passing_breaks_rc11_coherence_through_hb_and_eco() {
        let test = "C mp\n{ [x] = 0; [y] = 0; }\n\
            P0 (atomic_int* y, int* x) { *x = 1; atomic_store_explicit(y, 1, memory_order_release); }\n\
            P1 (atomic_int* y, int* x) { int r0 = atomic_load_explicit(y, memory_order_acquire); \
            int r1 = *x; }\n\
            exists (1:r0=1 /\\ 1:r1=0)";
        for path in explanations("models/rc11.cat", test, "Coherence") {
            assert_eq!(labels(&path), ["hb", "eco"], "{path:?}");
        }
    }

    #[test]
    fn store_buffering_breaks_rc11_sc_through_sb_and_rb() {
        let test = "C sb\n{ [x] = 0; [y] = 0; }\n\
            P0 (atomic_int* y, atomic_int* x) { atomic_store_explicit(x, 1, memory_order_seq_cst); \
            int r0 = atomic_load_explicit(y, memory_order_seq_cst); }\n\
            P1 (atomic_int* y, atomic_int* x) { atomic_store_explicit(y, 1, memory_order_seq_cst); \
            int r0 = atomic_load_explicit(x, memory_order_seq_cst); }\n\
            exists (0:r0=0 /\\ 1:r0=0)";
        for path in explanations("models/rc11.cat", test, "SC") {
            assert_eq!(labels(&path), ["sb", "rb", "sb", "rb"], "{path:?}");
        }
    }
}
