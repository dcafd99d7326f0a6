//! The boolean circuit: hash-consed AND gates over inputs, with negation on edges (OR and NOT
//! are free), folded as they are built.
//!
//! Owns: `Node`, `Circuit` (building with constant folding and structural sharing, evaluating
//! under an input assignment). Uses nothing else of the crate; knows nothing of relations or CNF.
use std::collections::HashMap;
use std::ops::Not;

/// A circuit node: a gate index and a negation bit. `Node::TRUE` and `Node::FALSE` are constants.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Node(u32);

impl Node {
    pub(crate) const TRUE: Node = Node(0);
    pub(crate) const FALSE: Node = Node(1);

    fn new(gate: usize, negated: bool) -> Node {
        let g = u32::try_from(gate).expect("more than 2^31 circuit gates");
        Node(g << 1 | u32::from(negated))
    }
    /// The gate this node reads.
    pub(crate) fn gate(self) -> usize {
        (self.0 >> 1) as usize
    }
    pub(crate) fn is_negated(self) -> bool {
        self.0 & 1 == 1
    }
    pub(crate) fn is_const(self) -> bool {
        self.gate() == 0
    }
    /// `Some(b)` for the constants.
    pub(crate) fn as_const(self) -> Option<bool> {
        self.is_const().then_some(self == Node::TRUE)
    }
    pub(crate) fn constant(b: bool) -> Node {
        if b {
            Node::TRUE
        } else {
            Node::FALSE
        }
    }
}

impl Not for Node {
    type Output = Node;
    fn not(self) -> Node {
        Node(self.0 ^ 1)
    }
}

/// What a gate computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Gate 0, the constant true.
    True,
    /// A free variable; the number counts inputs in creation order.
    Input(usize),
    /// The conjunction of at least two nodes, sorted and distinct.
    And(Box<[Node]>),
}

/// A hash-consed circuit. Building never creates a gate equal to an existing one, never creates
/// a gate with a constant input, and folds `x & !x` to false.
#[derive(Clone, Debug)]
pub struct Circuit {
    gates: Vec<Gate>,
    table: HashMap<Box<[Node]>, Node>,
    inputs: usize,
}

impl Default for Circuit {
    fn default() -> Self {
        Circuit {
            gates: vec![Gate::True],
            table: HashMap::new(),
            inputs: 0,
        }
    }
}

impl Circuit {
    pub(crate) fn new() -> Circuit {
        Circuit::default()
    }

    pub(crate) fn gate(&self, g: usize) -> &Gate {
        &self.gates[g]
    }

    /// Gates, counting the constant and the inputs.
    pub(crate) fn len(&self) -> usize {
        self.gates.len()
    }
    pub(crate) fn inputs(&self) -> usize {
        self.inputs
    }

    /// A fresh free variable.
    pub(crate) fn input(&mut self) -> Node {
        self.gates.push(Gate::Input(self.inputs));
        self.inputs += 1;
        Node::new(self.gates.len() - 1, false)
    }

    pub(crate) fn and2(&mut self, a: Node, b: Node) -> Node {
        match (a.as_const(), b.as_const()) {
            (Some(false), _) | (_, Some(false)) => Node::FALSE,
            (Some(true), _) => b,
            (_, Some(true)) => a,
            _ if a == b => a,
            _ if a == !b => Node::FALSE,
            _ => self.and_sorted(vec![a.min(b), a.max(b)]),
        }
    }

    pub(crate) fn or2(&mut self, a: Node, b: Node) -> Node {
        !self.and2(!a, !b)
    }

    /// `a -> b`.
    pub(crate) fn implies(&mut self, a: Node, b: Node) -> Node {
        self.or2(!a, b)
    }

    /// `a <-> b`.
    pub(crate) fn iff(&mut self, a: Node, b: Node) -> Node {
        let ab = self.implies(a, b);
        let ba = self.implies(b, a);
        self.and2(ab, ba)
    }

    /// The conjunction of any number of nodes (true when there are none).
    pub(crate) fn and(&mut self, nodes: impl IntoIterator<Item = Node>) -> Node {
        let mut kept = Vec::new();
        for x in nodes {
            match x.as_const() {
                Some(true) => {}
                Some(false) => return Node::FALSE,
                None => kept.push(x),
            }
        }
        kept.sort_unstable();
        kept.dedup();
        // After sorting, `x` and `!x` are neighbours.
        if kept.windows(2).any(|w| w[0] == !w[1]) {
            return Node::FALSE;
        }
        match kept.len() {
            0 => Node::TRUE,
            1 => kept[0],
            _ => self.and_sorted(kept),
        }
    }

    /// The disjunction of any number of nodes (false when there are none).
    pub fn or(&mut self, nodes: impl IntoIterator<Item = Node>) -> Node {
        !self.and(nodes.into_iter().map(|x| !x))
    }

    /// An AND gate on at least two sorted, distinct, non-constant, non-complementary inputs.
    fn and_sorted(&mut self, inputs: Vec<Node>) -> Node {
        let key = inputs.into_boxed_slice();
        if let Some(&n) = self.table.get(&key) {
            return n;
        }
        self.gates.push(Gate::And(key.clone()));
        let n = Node::new(self.gates.len() - 1, false);
        self.table.insert(key, n);
        n
    }

    /// The value of `nodes` when the input of gate `g` has value `input(g)`.
    pub(crate) fn eval_many(&self, nodes: &[Node], input: &dyn Fn(usize) -> bool) -> Vec<bool> {
        let mut memo: Vec<Option<bool>> = vec![None; self.gates.len()];
        nodes
            .iter()
            .map(|&n| self.eval_node(n, input, &mut memo))
            .collect()
    }

    fn eval_node(&self, n: Node, input: &dyn Fn(usize) -> bool, memo: &mut [Option<bool>]) -> bool {
        let mut stack = vec![n.gate()];
        while let Some(&g) = stack.last() {
            if memo[g].is_some() {
                stack.pop();
                continue;
            }
            let value = match &self.gates[g] {
                Gate::True => Some(true),
                Gate::Input(_) => Some(input(g)),
                Gate::And(xs) => self.and_value(xs, memo, &mut stack),
            };
            if let Some(v) = value {
                memo[g] = Some(v);
                stack.pop();
            }
        }
        memo[n.gate()] == Some(!n.is_negated())
    }

    /// The value of an AND gate if all its inputs are known; otherwise push the unknown ones.
    fn and_value(
        &self,
        xs: &[Node],
        memo: &[Option<bool>],
        stack: &mut Vec<usize>,
    ) -> Option<bool> {
        let mut all_known = true;
        for x in xs {
            match memo[x.gate()] {
                Some(v) if v == x.is_negated() => return Some(false),
                Some(_) => {}
                None => {
                    all_known = false;
                    stack.push(x.gate());
                }
            }
        }
        all_known.then_some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_fold_and_gates_are_shared() {
        let mut c = Circuit::new();
        let (x, y) = (c.input(), c.input());
        assert_eq!(c.and2(x, Node::TRUE), x);
        assert_eq!(c.and2(x, Node::FALSE), Node::FALSE);
        assert_eq!(c.or2(x, !x), Node::TRUE);
        assert_eq!(c.and([x, y, Node::TRUE, x]), c.and2(y, x));
        assert_eq!(c.or(std::iter::empty()), Node::FALSE);
        let before = c.len();
        let g = c.and2(x, y);
        assert_eq!(c.and2(y, x), g);
        assert_eq!(c.len(), before);
    }

    #[test]
    fn evaluation_follows_inputs() {
        let mut c = Circuit::new();
        let (x, y, z) = (c.input(), c.input(), c.input());
        let xy = c.and2(x, y);
        let f = c.or2(xy, !z);
        let g = c.iff(x, z);
        for bits in 0..8usize {
            let v = |k: usize| bits >> k & 1 == 1;
            let got = c.eval_many(&[f, g, Node::TRUE, Node::FALSE], &|gate| v(gate - 1));
            assert_eq!(
                got,
                vec![(v(0) && v(1)) || !v(2), v(0) == v(2), true, false]
            );
        }
    }
}
