//! The relational encoder: a cat model over a bounded universe of `n` event slots, as a boolean
//! circuit, as CNF in a SAT solver (Kodkod's layering: relations → circuit → CNF → `solver`).
//!
//! Owns: `Encoding` (the one door), `Bounds` (what is known of each vocabulary name), and the
//! layers below it: `circuit` (hash-consed AND/NOT gates, folded as built), `cnf` (polarity-aware
//! Tseitin), `matrix` (sets and relations as vectors and matrices of nodes), `translate` (the
//! model's steps), `checks` (acyclicity, irreflexivity, emptiness and witness orders).
//! Uses: `ir`, `rel`, `vocab`, `solver`. Never `runner` or `eval`: the encoder and the evaluator
//! are two readings of the same IR, and the tests (`tests/encode_*.rs`) hold them to agreement.
//!
//! Literals handed out (`consistent`, `check_holds`, `check_fails`, `lit`) are meant to be
//! asserted — assumed, or used positively — never negated: some encodings choose fresh variables
//! existentially (an order witnessing acyclicity, a guessed cycle, a witness linearisation), so
//! the negation of such a literal is not the negation of what it says. Ask for the opposite
//! literal instead (`check_fails` rather than `!check_holds`).
//!
//! ```
//! use mapcheck::encode::{Bounds, Encoding};
//! use mapcheck::rel::{Rel, Set};
//! let model = mapcheck::ir::load_str("sc", "acyclic po | rf as SC", None).unwrap();
//! let mut bounds = Bounds::new(2);
//! bounds.exact_rel("po", &Rel::from_pairs(2, [(0, 1)])).unwrap();
//! bounds.bound_rel("rf", Rel::empty(2), Rel::from_pairs(2, [(1, 0)])).unwrap();
//! let mut enc = Encoding::new(&model, &bounds);
//! let (holds, fails) = (enc.check_holds(0), enc.check_fails(0));
//! assert!(enc.solve(&[fails]).is_sat());
//! assert_eq!(enc.rel_value("rf"), Some(Rel::from_pairs(2, [(1, 0)])));
//! assert!(enc.solve(&[holds]).is_sat());
//! assert!(enc.rel_value("rf").unwrap().is_empty());
//! ```
mod bounds;
mod checks;
mod circuit;
mod cnf;
mod matrix;
mod translate;

pub use self::bounds::{Bounds, BoundsError};
pub use self::circuit::{Circuit, Node};
pub use self::matrix::{Matrix, Value, Vector};
pub use crate::solver::{Backend, Lit, Verdict};

use self::cnf::{Polarity, Tseitin};
use self::translate::Translation;
use crate::ir::{CheckKind, Model};
use crate::rel::{Rel, Set};
use crate::solver::{self, SatSolver};

/// Sizes of an encoding: circuit and CNF.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Event slots of the universe.
    pub slots: usize,
    /// Gates of the circuit (inputs included).
    pub gates: usize,
    /// Free inputs: open tuples of the bounds plus the existential choices made so far.
    pub inputs: usize,
    /// CNF emitted into the solver so far, and solver calls.
    pub solver: solver::Stats,
}

/// A model encoded over bounds, with its solver.
pub struct Encoding {
    model: Model,
    circuit: Circuit,
    cnf: Tseitin,
    solver: Box<dyn SatSolver>,
    tr: Translation,
    holds: Vec<Option<Node>>,
    fails: Vec<Option<Node>>,
}

impl Encoding {
    /// Encode `model` over `bounds` with the default solver.
    pub fn new(model: &Model, bounds: &Bounds) -> Encoding {
        Encoding::with_solver(model, bounds, solver::new_default())
    }

    /// Encode with a chosen backend.
    pub fn with_backend(model: &Model, bounds: &Bounds, backend: Backend) -> Encoding {
        Encoding::with_solver(model, bounds, solver::new(backend))
    }

    /// Encode into a given (fresh) solver.
    pub fn with_solver(model: &Model, bounds: &Bounds, solver: Box<dyn SatSolver>) -> Encoding {
        let mut circuit = Circuit::new();
        let cnf = Tseitin::default();
        let (all, bases) = translate::instantiate(&mut circuit, model, bounds);
        let tr = Translation::new(&mut circuit, model, all, bases);
        let checks = model.checks.len();
        Encoding {
            model: model.clone(),
            circuit,
            cnf,
            solver,
            tr,
            holds: vec![None; checks],
            fails: vec![None; checks],
        }
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The number of event slots.
    pub fn n(&self) -> usize {
        self.tr.n
    }

    /// "Every non-flag check holds and every witness has a value": the model's consistency.
    pub fn consistent(&mut self) -> Lit {
        let node = self.consistent_node();
        self.lit(node)
    }

    /// Check `i` (index into `model.checks`) holds, for some choice of the witnesses it reads.
    pub fn check_holds(&mut self, i: usize) -> Lit {
        let node = self.holds_node(i);
        self.lit(node)
    }

    /// Check `i` fails: exact for a check that reads no witness; for one that does, "fails for
    /// some legal choice of the witnesses" (a search for a violated axiom of a model with
    /// witnesses must quantify over them itself).
    pub fn check_fails(&mut self, i: usize) -> Lit {
        let node = self.fails_node(i);
        self.lit(node)
    }

    /// The node of `consistent`.
    pub fn consistent_node(&mut self) -> Node {
        let mut parts = self.tr.legal.clone();
        for i in 0..self.model.checks.len() {
            if !self.model.checks[i].flag {
                parts.push(self.holds_node(i));
            }
        }
        self.circuit.and(parts)
    }

    /// The node of `check_holds`.
    pub fn holds_node(&mut self, i: usize) -> Node {
        if let Some(n) = self.holds[i] {
            return n;
        }
        let n = self.test_node(i, !self.model.checks[i].negated);
        self.holds[i] = Some(n);
        n
    }

    /// The node of `check_fails`.
    pub fn fails_node(&mut self, i: usize) -> Node {
        if let Some(n) = self.fails[i] {
            return n;
        }
        let n = self.test_node(i, self.model.checks[i].negated);
        self.fails[i] = Some(n);
        n
    }

    /// The value of check `i`'s expression (to read back, e.g., the cycle of a failed check).
    pub fn check_value(&self, i: usize) -> &Value {
        &self.tr.checks[i]
    }

    /// Does check `i` read a witness (`with … from linearisations`)?
    pub fn check_reads_witness(&self, i: usize) -> bool {
        !self.tr.check_witnesses[i].is_empty()
    }

    /// The check's test (`positive`) or its negation, with its witnesses' legality.
    fn test_node(&mut self, i: usize, positive: bool) -> Node {
        let c = &mut self.circuit;
        let test = match (self.model.checks[i].kind, &self.tr.checks[i]) {
            (CheckKind::Acyclic, Value::Rel(r)) if positive => checks::acyclic(c, r),
            (CheckKind::Acyclic, Value::Rel(r)) => checks::cyclic(c, r),
            (CheckKind::Irreflexive, Value::Rel(r)) if positive => checks::irreflexive(c, r),
            (CheckKind::Irreflexive, Value::Rel(r)) => checks::reflexive_somewhere(c, r),
            (_, v) if positive => checks::empty(c, v),
            (_, v) => checks::nonempty(c, v),
        };
        let legal: Vec<Node> = self.tr.check_witnesses[i]
            .iter()
            .map(|&w| self.tr.legal[w])
            .collect();
        self.circuit.and(legal.into_iter().chain([test]))
    }

    /// A literal that implies `node` (emitting the clauses needed): assume it, or use it
    /// positively in clauses.
    pub fn lit(&mut self, node: Node) -> Lit {
        self.cnf
            .lit(&self.circuit, self.solver.as_mut(), node, Polarity::Pos)
    }

    /// A literal equivalent to `node` (both directions of its gates' clauses). Only meaningful
    /// for nodes without existential choices below them (see the module header).
    pub fn lit_exact(&mut self, node: Node) -> Lit {
        self.cnf
            .lit_exact(&self.circuit, self.solver.as_mut(), node)
    }

    /// Add `node` as a hard constraint.
    pub fn assert(&mut self, node: Node) {
        let l = self.lit(node);
        self.solver.add_clause(&[l]);
    }

    /// Solve under assumptions.
    pub fn solve(&mut self, assumptions: &[Lit]) -> Verdict {
        self.solver.solve(assumptions)
    }

    /// The circuit, to build further constraints over the encoding's nodes.
    pub fn circuit_mut(&mut self) -> &mut Circuit {
        &mut self.circuit
    }

    /// The value of a name: a definition of the model (the last one so named) or a vocabulary
    /// name the model uses.
    pub fn value(&self, name: &str) -> Option<&Value> {
        if let Some(id) = self.model.def_named(name) {
            return self.tr.defs[id].as_ref();
        }
        let slot = self.model.bases.iter().position(|b| *b == name)?;
        Some(&self.tr.bases[slot])
    }

    /// The matrix of a relation name (see `value`).
    pub fn rel(&self, name: &str) -> Option<&Matrix> {
        match self.value(name)? {
            Value::Rel(m) => Some(m),
            Value::Set(_) => None,
        }
    }

    /// The vector of a set name (see `value`).
    pub fn set(&self, name: &str) -> Option<&Vector> {
        match self.value(name)? {
            Value::Set(v) => Some(v),
            Value::Rel(_) => None,
        }
    }

    /// A relation's value in the last model (after `solve` answered `Sat`).
    pub fn rel_value(&self, name: &str) -> Option<Rel> {
        self.rel(name).map(|m| self.read_rel(m))
    }

    /// A set's value in the last model (after `solve` answered `Sat`).
    pub fn set_value(&self, name: &str) -> Option<Set> {
        self.set(name).map(|v| self.read_set(v))
    }

    /// A matrix's value in the last model. Inputs the CNF never mentioned read as false.
    pub fn read_rel(&self, m: &Matrix) -> Rel {
        let bits = self.read(m.cells());
        let n = m.n();
        Rel::from_pairs(n, (0..n * n).filter(|&k| bits[k]).map(|k| (k / n, k % n)))
    }

    /// A vector's value in the last model.
    pub fn read_set(&self, v: &Vector) -> Set {
        Set::from_iter(
            self.read(&v.0)
                .iter()
                .enumerate()
                .filter(|(_, b)| **b)
                .map(|(i, _)| i),
        )
    }

    /// Nodes' values in the last model, by evaluating the circuit on the solver's inputs.
    pub fn read(&self, nodes: &[Node]) -> Vec<bool> {
        let input = |g: usize| self.cnf.existing(g).is_some_and(|l| self.solver.value(l));
        self.circuit.eval_many(nodes, &input)
    }

    /// Rounds each `let rec` group of the model took.
    pub fn fixpoint_rounds(&self) -> &[usize] {
        &self.tr.fixpoint_rounds
    }

    pub fn stats(&self) -> Stats {
        Stats {
            slots: self.tr.n,
            gates: self.circuit.len(),
            inputs: self.circuit.inputs(),
            solver: self.solver.stats(),
        }
    }

    /// The backend's name.
    pub fn solver_name(&self) -> &'static str {
        self.solver.name()
    }
}
