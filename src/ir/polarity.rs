//! Polarity: how a model's definitions and checks change as one witness relation, or one
//! definition, grows.
//!
//! Owns: `Model::failures_grow_with`, which the lowering records on each `Witness`: every
//! non-flag check after the witness's choice fails for a relation whenever it fails for a
//! smaller one. The evaluator then judges a prefix of a linear order (the pairs every completion
//! has) and skips the completions of a prefix that fails too much (`eval`'s `choose`). And
//! `Model::consistency_antitone_in`, the same question for a definition, which lets the encoder
//! over-approximate a closure or a fixpoint that consistency only needs small. And
//! `Model::witness_read`: whether anything judged after a witness depends on it at all (the
//! evaluator tries one choice of a witness nothing reads). Uses: the IR only.
use super::{BinOp, DefBody, Expr, Model, Op1, Step};

/// How a value changes as the witness grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Polarity {
    /// It does not depend on the witness.
    Absent,
    /// It can only grow.
    Monotone,
    /// It can only shrink.
    Antitone,
    /// Either.
    Mixed,
}

impl Polarity {
    fn join(self, other: Polarity) -> Polarity {
        match (self, other) {
            (Polarity::Absent, p) | (p, Polarity::Absent) => p,
            (a, b) if a == b => a,
            _ => Polarity::Mixed,
        }
    }

    fn flip(self) -> Polarity {
        match self {
            Polarity::Monotone => Polarity::Antitone,
            Polarity::Antitone => Polarity::Monotone,
            p => p,
        }
    }
}

/// The polarity of `e` in the witness, given each definition's.
fn of_expr(e: &Expr, defs: &[Polarity]) -> Polarity {
    match e {
        Expr::Empty(_) | Expr::Base { .. } => Polarity::Absent,
        Expr::Def(id) => defs[*id],
        Expr::Binary(BinOp::Diff, a, b) => of_expr(a, defs).join(of_expr(b, defs).flip()),
        Expr::Binary(_, a, b) => of_expr(a, defs).join(of_expr(b, defs)),
        Expr::Unary(Op1::Complement, a) => of_expr(a, defs).flip(),
        Expr::Unary(_, a) => of_expr(a, defs),
    }
}

/// The orders a later witness may range over, in a question about one value growing: its set
/// may never change with the value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LaterOrders {
    /// Orders that do not change either: every value has the same choices after it.
    Fixed,
    /// Orders that can only grow: a larger value has fewer choices after it.
    Growing,
}

impl Model {
    /// Does every non-flag check after witness `w`'s choice fail for a relation whenever it fails
    /// for a smaller one, under each choice of the witnesses after it, which may not depend on
    /// it? Then a larger relation has at least the fewest failures of a smaller one.
    pub(crate) fn failures_grow_with(&self, w: usize) -> bool {
        let Some(at) = self.steps.iter().position(|s| *s == Step::Choose(w)) else {
            return false;
        };
        self.failures_grow_after(
            at + 1,
            self.growing(&[self.witnesses[w].def]),
            LaterOrders::Fixed,
        )
    }

    /// Does any check, or the set or order of any witness chosen after it, read witness `w`,
    /// directly or through definitions? When nothing does, every choice of `w` is judged alike.
    pub(crate) fn witness_read(&self, w: usize) -> bool {
        let Some(at) = self.steps.iter().position(|s| *s == Step::Choose(w)) else {
            return true;
        };
        let mut defs = self.growing(&[self.witnesses[w].def]);
        self.steps[at + 1..].iter().any(|step| {
            self.settle_step(step, &mut defs);
            let reads = |e: &Expr| of_expr(e, &defs) != Polarity::Absent;
            match step {
                Step::Check(c) => reads(&self.checks[*c].expr),
                Step::Choose(v) => {
                    reads(&self.witnesses[*v].set) || reads(&self.witnesses[*v].order)
                }
                Step::Define(_) | Step::Fixpoint(_) => false,
            }
        })
    }

    /// Every definition's polarity when the definitions `ids` grow and nothing else changes.
    fn growing(&self, ids: &[usize]) -> Vec<Polarity> {
        let mut defs = vec![Polarity::Absent; self.defs.len()];
        ids.iter().for_each(|&id| defs[id] = Polarity::Monotone);
        defs
    }

    /// The polarities of what `step` defines (nothing for a check or a choice).
    fn settle_step(&self, step: &Step, defs: &mut [Polarity]) {
        match step {
            Step::Define(id) => {
                if let DefBody::Value(e) = &self.defs[*id].body {
                    defs[*id] = of_expr(e, defs);
                }
            }
            Step::Fixpoint(ids) => self.fixpoint_polarity(ids, defs),
            Step::Check(_) | Step::Choose(_) => {}
        }
    }

    /// Is the model's consistency antitone in the definitions `ids` (one step's: a `let` or a
    /// `let rec` group)? That is, do the non-flag checks after them fail whenever they fail for
    /// smaller values, and do the witnesses chosen after them range over the same sets with
    /// orders that can only grow? Then a consistency that is only asserted may give them any
    /// values above their own (the encoder's over-approximated closures and fixpoints).
    pub(crate) fn consistency_antitone_in(&self, ids: &[usize]) -> bool {
        let Some(at) = self.steps.iter().position(|s| match s {
            Step::Define(id) => ids == [*id],
            Step::Fixpoint(group) => group == ids,
            _ => false,
        }) else {
            return false;
        };
        self.failures_grow_after(at + 1, self.growing(ids), LaterOrders::Growing)
    }

    /// From step `from` on, with `defs` the polarities so far: does every non-flag check fail
    /// more as the growing values grow? A later witness choice is allowed when its set does not
    /// change and its order changes only as `later` allows.
    fn failures_grow_after(
        &self,
        from: usize,
        mut defs: Vec<Polarity>,
        later: LaterOrders,
    ) -> bool {
        self.steps[from..].iter().all(|step| {
            self.settle_step(step, &mut defs);
            self.grows_at(step, &defs, later)
        })
    }

    /// Does `step` fail more as the growing values grow (true for a definition)?
    fn grows_at(&self, step: &Step, defs: &[Polarity], later: LaterOrders) -> bool {
        match step {
            Step::Define(_) | Step::Fixpoint(_) => true,
            Step::Check(c) => {
                let check = &self.checks[*c];
                let grows = if check.negated {
                    Polarity::Antitone
                } else {
                    Polarity::Monotone
                };
                check.flag
                    || matches!(of_expr(&check.expr, defs), p if p == grows || p == Polarity::Absent)
            }
            Step::Choose(w) => {
                let witness = &self.witnesses[*w];
                let order = of_expr(&witness.order, defs);
                of_expr(&witness.set, defs) == Polarity::Absent
                    && (order == Polarity::Absent
                        || (later == LaterOrders::Growing && order == Polarity::Monotone))
            }
        }
    }

    /// A `let rec` group's polarities: its bodies are monotone in the group (lowering checks
    /// that), so each variable's least fixpoint changes as the join of its body's other parts.
    fn fixpoint_polarity(&self, ids: &[usize], defs: &mut [Polarity]) {
        loop {
            let mut changed = false;
            for &id in ids {
                if let DefBody::Fixpoint(e) = &self.defs[id].body {
                    let p = defs[id].join(of_expr(e, defs));
                    changed |= p != defs[id];
                    defs[id] = p;
                }
            }
            if !changed {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::load_str;

    /// `failures_grow` of the one witness of a model made of `with s from linearisations(W, 0)`
    /// and `rest`.
    fn grows(rest: &str) -> bool {
        let text = format!("\"t\"\nwith s from linearisations(W, 0)\n{rest}\n");
        let model = load_str("t.cat", &text, None).expect("model loads");
        model.witnesses[0].failures_grow
    }

    #[test]
    fn checks_over_a_growing_witness_fail_more() {
        assert!(grows("acyclic s | po as A"));
        assert!(grows("let t = (s; rf)+ & loc\nirreflexive t; po as A"));
        assert!(grows("empty (po \\ ~s) as A"));
        assert!(grows("let rec h = s | h; po\nacyclic h as A"));
        assert!(grows("~empty (po \\ s) as A"));
        assert!(grows("acyclic po as A"));
    }

    #[test]
    fn shrinking_mixed_or_followed_uses_turn_pruning_off() {
        assert!(!grows("empty po \\ s as A"));
        assert!(!grows("let t = ~s\nacyclic t as A"));
        assert!(!grows("~empty s as A"));
        assert!(!grows("acyclic (s \\ po) | (po \\ s) as A"));
        assert!(!grows("let rec h = (po \\ s) | h; s\nacyclic h as A"));
        assert!(!grows("with t from linearisations(R, s)\nacyclic t as A"));
    }

    /// `consistency_antitone_in` the definition `name` of a model.
    fn antitone(text: &str, name: &str) -> bool {
        let model = load_str("t.cat", &format!("\"t\"\n{text}\n"), None).expect("model loads");
        let id = model.def_named(name).expect("defined");
        let group = model
            .steps
            .iter()
            .find_map(|s| match s {
                crate::ir::Step::Fixpoint(g) if g.contains(&id) => Some(g.clone()),
                _ => None,
            })
            .unwrap_or(vec![id]);
        model.consistency_antitone_in(&group)
    }

    #[test]
    fn consistency_is_antitone_in_a_closure_only_checks_want_small() {
        assert!(antitone("let t = (po | rf)+\nacyclic t; co as A", "t"));
        assert!(antitone(
            "let rec h = rf | h; rmw; h\nlet c = po | h\nempty (c & loc) \\ co as A",
            "h"
        ));
        assert!(antitone(
            "let t = po+\nwith s from linearisations(W, t)\nacyclic s as A",
            "t"
        ));
        assert!(antitone(
            "let t = po+\nflag ~empty t as F\nacyclic rf as A",
            "t"
        ));
        assert!(!antitone("let t = po+\n~empty t as A", "t"));
        assert!(!antitone("let t = po+\nempty co \\ t as A", "t"));
        assert!(!antitone(
            "let t = po+\nwith s from linearisations(domain(t), 0)\nacyclic s as A",
            "t"
        ));
    }

    #[test]
    fn flags_do_not_count() {
        assert!(grows("flag ~empty s as F\nacyclic s as A"));
    }
}
