//! From circuit to CNF: polarity-aware Tseitin translation (Plaisted–Greenbaum), incremental.
//!
//! Owns: `Tseitin`, which gives each gate a solver literal on first use and emits, per gate and
//! per direction, the clauses that make the literal imply the gate (`Polarity::Pos`) or the gate
//! imply the literal (`Polarity::Neg`), each direction once. A gate needed only one way costs
//! only that way's clauses. Later requests add the missing clauses, so one circuit can feed many
//! incremental queries. Uses: `circuit`, `solver`.
use super::circuit::{Circuit, Gate, Node};
use crate::solver::{Lit, SatSolver};

/// Which way a literal must agree with its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Polarity {
    /// `lit -> node`: enough to assume the literal or use it positively in clauses.
    Pos,
    /// `node -> lit`.
    Neg,
}

impl Polarity {
    fn flip(self) -> Polarity {
        match self {
            Polarity::Pos => Polarity::Neg,
            Polarity::Neg => Polarity::Pos,
        }
    }
    fn bit(self) -> u8 {
        match self {
            Polarity::Pos => 1,
            Polarity::Neg => 2,
        }
    }
}

/// The incremental translation of one circuit into one solver.
#[derive(Default)]
pub(crate) struct Tseitin {
    /// Solver literal of each gate, once it has one.
    lits: Vec<Option<Lit>>,
    /// Directions already emitted per gate (`Polarity::bit`).
    emitted: Vec<u8>,
}

impl Tseitin {
    /// The literal of `node` with the clauses for `pol` (`Pos`: the literal implies the node).
    pub(crate) fn lit(
        &mut self,
        c: &Circuit,
        s: &mut dyn SatSolver,
        node: Node,
        pol: Polarity,
    ) -> Lit {
        let lit = self.gate_lit(c, s, node.gate());
        let gate_pol = if node.is_negated() { pol.flip() } else { pol };
        self.emit(c, s, node.gate(), gate_pol);
        if node.is_negated() {
            !lit
        } else {
            lit
        }
    }

    /// The literal of `node`, equivalent to it (both directions).
    pub(crate) fn lit_exact(&mut self, c: &Circuit, s: &mut dyn SatSolver, node: Node) -> Lit {
        self.lit(c, s, node, Polarity::Neg);
        self.lit(c, s, node, Polarity::Pos)
    }

    /// The literal of an input gate if it has been given one (`None`: unconstrained).
    pub(crate) fn existing(&self, gate: usize) -> Option<Lit> {
        self.lits.get(gate).copied().flatten()
    }

    fn gate_lit(&mut self, c: &Circuit, s: &mut dyn SatSolver, g: usize) -> Lit {
        if self.lits.len() < c.len() {
            self.lits.resize(c.len(), None);
            self.emitted.resize(c.len(), 0);
        }
        if let Some(l) = self.lits[g] {
            return l;
        }
        let l = s.new_var();
        if matches!(c.gate(g), Gate::True) {
            s.add_clause(&[l]);
        }
        self.lits[g] = Some(l);
        l
    }

    /// Emit the clauses of gate `g` for `pol`, and of the gates below it as needed.
    fn emit(&mut self, c: &Circuit, s: &mut dyn SatSolver, g: usize, pol: Polarity) {
        let mut work = vec![(g, pol)];
        while let Some((g, pol)) = work.pop() {
            if self.emitted[g] & pol.bit() != 0 {
                continue;
            }
            self.emitted[g] |= pol.bit();
            let Gate::And(xs) = c.gate(g) else { continue };
            let v = self.gate_lit(c, s, g);
            let mut long = vec![v];
            for &x in xs.iter() {
                let lx = self.gate_lit(c, s, x.gate());
                let lx = if x.is_negated() { !lx } else { lx };
                let x_pol = if x.is_negated() { pol.flip() } else { pol };
                work.push((x.gate(), x_pol));
                match pol {
                    Polarity::Pos => s.add_clause(&[!v, lx]),
                    Polarity::Neg => long.push(!lx),
                }
            }
            if pol == Polarity::Neg {
                s.add_clause(&long);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{self, Verdict};

    #[test]
    fn positive_polarity_is_enough_to_assume_and_exact_literals_are_equivalent() {
        let mut c = Circuit::new();
        let (x, y) = (c.input(), c.input());
        let xy = c.and2(x, y);
        let f = c.or2(xy, !x); // = !x | y
        let mut s = solver::new_default();
        let mut t = Tseitin::default();
        let lf = t.lit(&c, s.as_mut(), f, Polarity::Pos);
        let lx = t.lit(&c, s.as_mut(), x, Polarity::Pos);
        let ly = t.lit(&c, s.as_mut(), y, Polarity::Pos);
        assert_eq!(s.solve(&[lf, lx, !ly]), Verdict::Unsat);
        assert_eq!(s.solve(&[lf, lx]), Verdict::Sat);
        assert!(s.value(ly));
        let g = t.lit_exact(&c, s.as_mut(), xy);
        assert_eq!(s.solve(&[!g, lx, ly]), Verdict::Unsat);
        assert_eq!(s.solve(&[g, !lx]), Verdict::Unsat);
    }

    #[test]
    fn constants_have_literals() {
        let c = Circuit::new();
        let mut s = solver::new_default();
        let mut t = Tseitin::default();
        let tt = t.lit(&c, s.as_mut(), Node::TRUE, Polarity::Pos);
        let ff = t.lit(&c, s.as_mut(), Node::FALSE, Polarity::Pos);
        assert_eq!(s.solve(&[tt]), Verdict::Sat);
        assert_eq!(s.solve(&[ff]), Verdict::Unsat);
        assert_eq!(s.stats().vars, 1);
    }
}
