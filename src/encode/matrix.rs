//! Sets and relations over `n` event slots as vectors and matrices of circuit nodes, and the
//! relational algebra of cat on them (Kodkod's boolean matrices).
//!
//! Owns: `Vector`, `Matrix`, `Value` and their operators. Complements and reflexive closures are
//! taken with respect to the universe set `all` (the value of `E`), so a universe whose slots
//! may be unused stays exact; with every slot used they are the evaluator's. Uses: `circuit`,
//! `rel` (constant values in and out).
use super::circuit::{Circuit, Node};
use crate::rel::Rel;

/// A set of event slots: one node per slot.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Vector(pub Vec<Node>);

/// A relation over event slots: one node per pair, row-major.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Matrix {
    n: usize,
    cells: Vec<Node>,
}

/// The value of a cat expression in the circuit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Value {
    Set(Vector),
    Rel(Matrix),
}

impl Value {
    /// Its nodes: a set's by slot, a relation's row by row.
    pub(crate) fn cells(&self) -> &[Node] {
        match self {
            Value::Set(v) => &v.0,
            Value::Rel(m) => m.cells(),
        }
    }

    /// A value of the same kind and size with the given nodes (in `cells` order).
    pub(crate) fn with_cells(&self, mut f: impl FnMut(usize, Node) -> Node) -> Value {
        match self {
            Value::Set(v) => Value::Set(Vector(
                v.0.iter().enumerate().map(|(k, &x)| f(k, x)).collect(),
            )),
            Value::Rel(m) => {
                let n = m.n();
                Value::Rel(Matrix::from_fn(n, |i, j| f(i * n + j, m.get(i, j))))
            }
        }
    }
}

impl From<Vector> for Value {
    fn from(v: Vector) -> Value {
        Value::Set(v)
    }
}

impl From<Matrix> for Value {
    fn from(m: Matrix) -> Value {
        Value::Rel(m)
    }
}

impl Vector {
    /// The constant vector of set `s` over `n` slots.
    pub(crate) fn constant(n: usize, s: crate::rel::Set) -> Vector {
        Vector((0..n).map(|i| Node::constant(s.contains(i))).collect())
    }
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
    pub fn get(&self, i: usize) -> Node {
        self.0[i]
    }
    fn zip(
        &self,
        c: &mut Circuit,
        o: &Vector,
        f: impl Fn(&mut Circuit, Node, Node) -> Node,
    ) -> Vector {
        Vector(self.0.iter().zip(&o.0).map(|(&a, &b)| f(c, a, b)).collect())
    }
    pub(crate) fn union(&self, c: &mut Circuit, o: &Vector) -> Vector {
        self.zip(c, o, Circuit::or2)
    }
    pub(crate) fn inter(&self, c: &mut Circuit, o: &Vector) -> Vector {
        self.zip(c, o, Circuit::and2)
    }
    pub(crate) fn diff(&self, c: &mut Circuit, o: &Vector) -> Vector {
        self.zip(c, o, |c, a, b| c.and2(a, !b))
    }
    /// `all \ self`.
    pub(crate) fn complement(&self, c: &mut Circuit, all: &Vector) -> Vector {
        all.diff(c, self)
    }
}

impl Matrix {
    pub(crate) fn from_fn(n: usize, mut f: impl FnMut(usize, usize) -> Node) -> Matrix {
        let cells = (0..n * n).map(|k| f(k / n, k % n)).collect();
        Matrix { n, cells }
    }
    pub(crate) fn empty(n: usize) -> Matrix {
        Matrix {
            n,
            cells: vec![Node::FALSE; n * n],
        }
    }
    pub(crate) fn constant(r: &Rel) -> Matrix {
        Matrix::from_fn(r.size(), |i, j| Node::constant(r.contains(i, j)))
    }
    pub(crate) fn n(&self) -> usize {
        self.n
    }
    pub fn get(&self, i: usize, j: usize) -> Node {
        self.cells[i * self.n + j]
    }
    pub fn cells(&self) -> &[Node] {
        &self.cells
    }
    /// The pairs that are not constantly false (where the relation may hold).
    pub(crate) fn support(&self) -> Rel {
        let pairs = (0..self.n * self.n).filter(|&k| self.cells[k] != Node::FALSE);
        Rel::from_pairs(self.n, pairs.map(|k| (k / self.n, k % self.n)))
    }

    fn zip(
        &self,
        c: &mut Circuit,
        o: &Matrix,
        f: impl Fn(&mut Circuit, Node, Node) -> Node,
    ) -> Matrix {
        let cells = self
            .cells
            .iter()
            .zip(&o.cells)
            .map(|(&a, &b)| f(c, a, b))
            .collect();
        Matrix { n: self.n, cells }
    }
    pub(crate) fn union(&self, c: &mut Circuit, o: &Matrix) -> Matrix {
        self.zip(c, o, Circuit::or2)
    }
    pub(crate) fn inter(&self, c: &mut Circuit, o: &Matrix) -> Matrix {
        self.zip(c, o, Circuit::and2)
    }
    pub(crate) fn diff(&self, c: &mut Circuit, o: &Matrix) -> Matrix {
        self.zip(c, o, |c, a, b| c.and2(a, !b))
    }
    /// All pairs of `all` not in `self`.
    pub(crate) fn complement(&self, c: &mut Circuit, all: &Vector) -> Matrix {
        Matrix::product(c, all, all).diff(c, self)
    }
    pub(crate) fn inverse(&self) -> Matrix {
        Matrix::from_fn(self.n, |i, j| self.get(j, i))
    }

    /// `self ; o`: OR over the middle slot of ANDs, skipping constant-false terms.
    pub(crate) fn seq(&self, c: &mut Circuit, o: &Matrix) -> Matrix {
        let n = self.n;
        let cols: Vec<Vec<usize>> = (0..n)
            .map(|j| (0..n).filter(|&k| o.get(k, j) != Node::FALSE).collect())
            .collect();
        let mut cells = Vec::with_capacity(n * n);
        for i in 0..n {
            let row: Vec<bool> = (0..n).map(|k| self.get(i, k) != Node::FALSE).collect();
            for (j, col) in cols.iter().enumerate() {
                let terms: Vec<Node> = col
                    .iter()
                    .filter(|&&k| row[k])
                    .map(|&k| c.and2(self.get(i, k), o.get(k, j)))
                    .collect();
                cells.push(c.or(terms));
            }
        }
        Matrix { n, cells }
    }

    /// `[s]`.
    pub(crate) fn id_on(s: &Vector) -> Matrix {
        Matrix::from_fn(s.len(), |i, j| if i == j { s.get(i) } else { Node::FALSE })
    }
    /// `a * b`.
    pub(crate) fn product(c: &mut Circuit, a: &Vector, b: &Vector) -> Matrix {
        Matrix::from_fn(a.len(), |i, j| c.and2(a.get(i), b.get(j)))
    }
    pub(crate) fn domain(&self, c: &mut Circuit) -> Vector {
        Vector(
            (0..self.n)
                .map(|i| c.or((0..self.n).map(|j| self.get(i, j))))
                .collect(),
        )
    }
    pub(crate) fn range(&self, c: &mut Circuit) -> Vector {
        Vector(
            (0..self.n)
                .map(|j| c.or((0..self.n).map(|i| self.get(i, j))))
                .collect(),
        )
    }
    /// The diagonal as a set.
    pub(crate) fn diagonal(&self) -> Vector {
        Vector((0..self.n).map(|i| self.get(i, i)).collect())
    }

    /// `self^+` by iterative squaring: after round k the matrix holds every path of at most
    /// 2^k steps, and every pair of the closure on n slots has a path of at most n steps, so
    /// ceil(log2 n) rounds are exact. Stops early when a round changes no node.
    pub(crate) fn plus(&self, c: &mut Circuit) -> Matrix {
        let mut r = self.clone();
        let mut reach = 1;
        while reach < self.n {
            let step = r.seq(c, &r);
            let next = r.union(c, &step);
            if next == r {
                break;
            }
            r = next;
            reach *= 2;
        }
        r
    }
    /// `self?` over `all`.
    pub(crate) fn opt(&self, c: &mut Circuit, all: &Vector) -> Matrix {
        self.union(c, &Matrix::id_on(all))
    }
    /// `self*` over `all`.
    pub(crate) fn star(&self, c: &mut Circuit, all: &Vector) -> Matrix {
        self.plus(c).opt(c, all)
    }
}
