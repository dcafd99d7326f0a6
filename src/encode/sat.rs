//! The boolean layer one or several translated models share: the hash-consed circuit, its
//! Tseitin CNF and the solver it is emitted into.
//!
//! Owns: `Sat` — literals for circuit nodes (`lit`, `lit_exact`), hard constraints, solving under
//! assumptions, and reading values back. Uses: `circuit`, `cnf`, `matrix`, `solver`.
use super::circuit::{Circuit, Node};
use super::cnf::{Polarity, Tseitin};
use super::matrix::{Matrix, Vector};
use crate::rel::{Rel, Set};
use crate::solver::{self, Backend, Lit, SatSolver, Verdict};

/// A circuit with its CNF in one solver.
pub(crate) struct Sat {
    pub(crate) circuit: Circuit,
    cnf: Tseitin,
    solver: Box<dyn SatSolver>,
}

impl Sat {
    /// An empty circuit over a solver of the given backend.
    pub(crate) fn new(backend: Backend) -> Sat {
        Sat::with_solver(solver::new(backend))
    }

    /// An empty circuit over a given (fresh) solver.
    pub(crate) fn with_solver(solver: Box<dyn SatSolver>) -> Sat {
        Sat {
            circuit: Circuit::new(),
            cnf: Tseitin::default(),
            solver,
        }
    }

    /// A literal that implies `node` (emitting the clauses needed): assume it, or use it
    /// positively in clauses.
    pub(crate) fn lit(&mut self, node: Node) -> Lit {
        self.cnf
            .lit(&self.circuit, self.solver.as_mut(), node, Polarity::Pos)
    }

    /// A literal equivalent to `node` (both directions of its gates' clauses). Only meaningful
    /// for nodes without existential choices below them (see the `encode` module header).
    pub(crate) fn lit_exact(&mut self, node: Node) -> Lit {
        self.cnf
            .lit_exact(&self.circuit, self.solver.as_mut(), node)
    }

    /// Add `node` as a hard constraint.
    pub(crate) fn assert(&mut self, node: Node) {
        let l = self.lit(node);
        self.solver.add_clause(&[l]);
    }

    /// End each later `solve` with `Stopped` soon after `stop` is requested.
    pub(crate) fn stop_when(&mut self, stop: solver::Stop) {
        self.solver.stop_when(stop);
    }

    /// Solve under assumptions.
    pub(crate) fn solve(&mut self, assumptions: &[Lit]) -> Verdict {
        self.solver.solve(assumptions)
    }

    /// Nodes' values in the last model, by evaluating the circuit on the solver's inputs.
    /// Inputs the CNF never mentioned read as false.
    pub(crate) fn read(&self, nodes: &[Node]) -> Vec<bool> {
        let input = |g: usize| self.cnf.existing(g).is_some_and(|l| self.solver.value(l));
        self.circuit.eval_many(nodes, &input)
    }

    /// A matrix's value in the last model.
    pub(crate) fn read_rel(&self, m: &Matrix) -> Rel {
        let bits = self.read(m.cells());
        let n = m.n();
        Rel::from_pairs(n, (0..n * n).filter(|&k| bits[k]).map(|k| (k / n, k % n)))
    }

    /// A vector's value in the last model.
    pub(crate) fn read_set(&self, v: &Vector) -> Set {
        Set::from_iter(
            self.read(&v.0)
                .iter()
                .enumerate()
                .filter(|(_, b)| **b)
                .map(|(i, _)| i),
        )
    }

    /// Gates of the circuit, its free inputs, and the solver's counters.
    pub(crate) fn stats(&self) -> (usize, usize, solver::Stats) {
        (
            self.circuit.len(),
            self.circuit.inputs(),
            self.solver.stats(),
        )
    }

    /// The backend's name.
    pub(crate) fn solver_name(&self) -> &'static str {
        self.solver.name()
    }
}
