//! The boolean statements of an export, read back and evaluated: an interpreter of the Coq
//! library's boolean operators (`proofs-export/lib/Dec.v`) over the `Definition …_b` texts that
//! `export-coq` writes. `check --test` holds a test to `searched` with it (`coq::class`), and
//! `tests/it/coq_searched_equivalence.rs` decides the exported `searched_on_b` (equivalent to
//! `searched` by its `_dec` lemma) on millions of programs with it, without running Coq on each.
//!
//! A definition is read into terms, then compiled once (`Statements::compile`): every call of
//! another definition inlined (the definitions do not recurse), every operator and execution
//! field resolved. Sets are bit masks over the events `0..n` (`n` at most `MAX_EVENTS`),
//! relations one mask per row; every operator is read as `Dec.v` defines it on `0..n` (the only
//! part any check looks at). A name the interpreter does not know is a bug in the export or
//! here, never a guess: it panics. `wf_consistent_b`, a chain of mirrors in `Mirror_wf.v`, is the
//! one call it leaves to its caller (who evaluates `models/wf.cat`, which
//! `tests/it/coq_fidelity.rs` ties to that mirror).
//!
//! Owns: `Statements`, `Statement`, `Input`. Uses: `eval::Base` (the skeleton).
use std::cell::Cell;
use std::collections::HashMap;

use crate::eval::Base;

/// The most events a statement is evaluated on (a set is a `u32`).
pub const MAX_EVENTS: usize = 32;

/// A parsed term: a name, an application `(f a b …)`, or a conjunction `a && b && …`.
#[derive(Debug)]
enum Term {
    Name(String),
    App(Vec<Term>),
    And(Vec<Term>),
}

type Rows = [u32; MAX_EVENTS];

/// A value of the boolean library.
#[derive(Clone, Copy, Debug)]
enum Value {
    Nat,
    Exec,
    Bool(bool),
    Set(u32),
    Rel(Rows),
}

/// One `Definition <name> <params> : <type> := <body>.` of the boolean side.
#[derive(Debug)]
struct Definition {
    params: Vec<String>,
    body: Term,
}

/// What a boolean statement is evaluated on: a skeleton, its guards and the value of
/// `wf_consistent_b`.
pub struct Input<'a> {
    /// The skeleton: every event of the program, with its tags and relations.
    pub base: &'a Base,
    /// `(guard read, guarded event)` pairs (`grb`).
    pub gread: &'a [(usize, usize)],
    /// `(guard write, guarded event)` pairs (`gwb`).
    pub gwrite: &'a [(usize, usize)],
    /// The value of `wf_consistent_b` on the skeleton.
    pub wf_consistent: bool,
}

/// The `_b` definitions of one exported file.
pub struct Statements {
    defs: HashMap<String, Definition>,
}

/// An operator of `Dec.v`, with the number of arguments it takes.
#[derive(Clone, Copy, Debug)]
enum Op {
    SetUnion,
    SetInter,
    SetMinus,
    SetCompl,
    Union,
    Inter,
    Minus,
    Compl,
    Inv,
    IdOn,
    Cross,
    Seq,
    Tc,
    Rtc,
    Opt,
    Domain,
    Range,
    Empty,
    SetEmpty,
    Negb,
}

const OPERATORS: [(&str, Op, usize); 20] = [
    ("bset_union", Op::SetUnion, 2),
    ("bset_inter", Op::SetInter, 2),
    ("bset_minus", Op::SetMinus, 2),
    ("bset_compl", Op::SetCompl, 2),
    ("bunion", Op::Union, 2),
    ("binter", Op::Inter, 2),
    ("bminus", Op::Minus, 2),
    ("bcompl", Op::Compl, 2),
    ("binv", Op::Inv, 1),
    ("bid_on", Op::IdOn, 1),
    ("bcross", Op::Cross, 2),
    ("bseq", Op::Seq, 3),
    ("btc", Op::Tc, 2),
    ("brtc", Op::Rtc, 3),
    ("bopt", Op::Opt, 2),
    ("bdomain", Op::Domain, 2),
    ("brange", Op::Range, 2),
    ("bempty", Op::Empty, 2),
    ("bset_empty", Op::SetEmpty, 2),
    ("negb", Op::Negb, 1),
];

/// A compiled term.
#[derive(Clone, Debug)]
enum Node {
    /// `n` or `XB`: read only by the operators that take them.
    Nat,
    Exec,
    True,
    False,
    EmptySet,
    AllEvents,
    EmptyRel,
    /// The guard relations, `grb` (0) and `gwb` (1).
    Guard(usize),
    /// `b_<field> XB`: the index of the field in `Statement::fields`.
    Field(usize),
    WfConsistent,
    Apply(Op, Vec<Node>),
    And(Vec<Node>),
}

/// A compiled boolean definition: its conjuncts (however Coq nests its `&&`).
pub struct Statement {
    conjuncts: Vec<Node>,
    fields: Vec<String>,
}

fn tokens(text: &str) -> Vec<String> {
    let mut out = vec![];
    let mut word = String::new();
    for ch in text.chars() {
        if ch.is_alphanumeric() || ch == '_' || ch == '\'' || ch == '&' {
            word.push(ch);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if ch == '(' || ch == ')' {
            out.push(ch.to_string());
        } else if !ch.is_whitespace() {
            panic!("unexpected character {ch:?} in a boolean statement");
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Terms up to the next `)` (or the end), split at `&&`.
fn sequence(toks: &[String], at: &mut usize) -> Term {
    let mut segments: Vec<Vec<Term>> = vec![vec![]];
    while *at < toks.len() && toks[*at] != ")" {
        let tok = &toks[*at];
        *at += 1;
        match tok.as_str() {
            "(" => {
                let inner = sequence(toks, at);
                assert_eq!(toks.get(*at).map(String::as_str), Some(")"), "unbalanced");
                *at += 1;
                segments.last_mut().unwrap().push(inner);
            }
            "&&" => segments.push(vec![]),
            _ => segments.last_mut().unwrap().push(Term::Name(tok.clone())),
        }
    }
    let mut parts: Vec<Term> = segments
        .into_iter()
        .map(|mut s| match s.len() {
            1 => s.pop().unwrap(),
            0 => panic!("an empty term"),
            _ => Term::App(s),
        })
        .collect();
    if parts.len() == 1 {
        parts.pop().unwrap()
    } else {
        Term::And(parts)
    }
}

/// The term `text` reads as.
fn term(text: &str) -> Term {
    let toks = tokens(text);
    let mut at = 0;
    let t = sequence(&toks, &mut at);
    assert_eq!(at, toks.len(), "trailing tokens in {text}");
    t
}

/// `(n : nat) (XB : bexec) (grb gwb : brel)` → `[n, XB, grb, gwb]`.
fn parameters(text: &str) -> Vec<String> {
    text.split(['(', ')'])
        .filter_map(|group| group.split_once(':').map(|(names, _)| names))
        .flat_map(|names| names.split_whitespace().map(str::to_string))
        .collect()
}

/// The conjuncts of `a && (b && (…))`, in order, however Coq nests them.
fn conjuncts(t: &Term) -> Vec<&Term> {
    let mut parts = vec![];
    let mut pending = vec![t];
    while let Some(t) = pending.pop() {
        match t {
            Term::And(items) => pending.extend(items.iter().rev()),
            _ => parts.push(t),
        }
    }
    parts
}

impl Statements {
    /// Every `Definition <x>_b …` of `text` (an exported `.v` file).
    pub fn read(text: &str) -> Statements {
        let mut defs = HashMap::new();
        let mut rest = text;
        while let Some(start) = rest.find("\nDefinition ") {
            rest = &rest[start + "\nDefinition ".len()..];
            let end = rest.find(".\n").expect("a Definition ends with a period");
            let (head, body) = rest[..end]
                .split_once(":=")
                .expect("a Definition has a body");
            let name = head.split_whitespace().next().unwrap().to_string();
            if !name.ends_with("_b") {
                continue;
            }
            let typed = head[name.len()..].trim();
            let params = typed.rsplit_once(':').map_or("", |(p, _)| p);
            defs.insert(
                name,
                Definition {
                    params: parameters(params),
                    body: term(body),
                },
            );
        }
        Statements { defs }
    }

    fn def(&self, name: &str) -> &Definition {
        self.defs
            .get(name)
            .unwrap_or_else(|| panic!("no Definition {name}"))
    }

    /// Definition `name`, whose parameters are `n XB` and then the guard relations (as
    /// `searched_on_b` takes them), compiled.
    pub fn compile(&self, name: &str) -> Statement {
        let def = self.def(name);
        self.compile_term(name, &def.params, &def.body)
    }

    /// A body over `n XB grb gwb` (one condition of `searched_on_b`), compiled against these
    /// definitions.
    pub fn compile_body(&self, body: &str) -> Statement {
        let params: Vec<String> = ["n", "XB", "grb", "gwb"].map(str::to_string).into();
        self.compile_term(body, &params, &term(body))
    }

    fn compile_term(&self, what: &str, params: &[String], body: &Term) -> Statement {
        let mut guards = 0..;
        let env: HashMap<String, Node> = params
            .iter()
            .map(|p| {
                let node = match p.as_str() {
                    "n" => Node::Nat,
                    "XB" => Node::Exec,
                    _ => Node::Guard(guards.next().unwrap()),
                };
                (p.clone(), node)
            })
            .collect();
        assert!(guards.next() == Some(2), "{what}: two guard relations");
        let mut fields = vec![];
        let conjuncts = conjuncts(body)
            .into_iter()
            .map(|t| self.node(t, &env, &mut fields))
            .collect();
        Statement { conjuncts, fields }
    }

    /// `t` compiled, its parameters bound by `env`; the fields it reads added to `fields`.
    fn node(&self, t: &Term, env: &HashMap<String, Node>, fields: &mut Vec<String>) -> Node {
        match t {
            Term::Name(x) => self.name(x, env),
            Term::And(parts) => {
                Node::And(parts.iter().map(|p| self.node(p, env, fields)).collect())
            }
            Term::App(items) => {
                let Term::Name(head) = &items[0] else {
                    panic!("an application of a non-name: {t:?}")
                };
                let args: Vec<Node> = items[1..]
                    .iter()
                    .map(|a| self.node(a, env, fields))
                    .collect();
                if let Some(&(_, op, arity)) = OPERATORS.iter().find(|(n, _, _)| n == head) {
                    assert_eq!(args.len(), arity, "{head}: arity");
                    return Node::Apply(op, args);
                }
                if head == "wf_consistent_b" {
                    return Node::WfConsistent;
                }
                if let Some(field) = head.strip_prefix("b_") {
                    assert!(matches!(args[..], [Node::Exec]), "{head}: applied to XB");
                    let at = fields.iter().position(|f| f == field).unwrap_or_else(|| {
                        fields.push(field.to_string());
                        fields.len() - 1
                    });
                    return Node::Field(at);
                }
                let def = self
                    .defs
                    .get(head.as_str())
                    .unwrap_or_else(|| panic!("an unknown operator {head} in a boolean statement"));
                assert_eq!(args.len(), def.params.len(), "{head}: arity");
                let inner: HashMap<String, Node> = def.params.iter().cloned().zip(args).collect();
                self.node(&def.body, &inner, fields)
            }
        }
    }

    fn name(&self, x: &str, env: &HashMap<String, Node>) -> Node {
        if let Some(v) = env.get(x) {
            return v.clone();
        }
        match x {
            "true" => Node::True,
            "false" => Node::False,
            "bset0" => Node::EmptySet,
            "ball" => Node::AllEvents,
            "brel0" => Node::EmptyRel,
            _ => panic!("an unknown name {x} in a boolean statement"),
        }
    }
}

impl Statement {
    /// The statement's value on `input`.
    pub fn decide(&self, input: &Input) -> bool {
        let eval = Eval::new(self, input);
        self.conjuncts.iter().all(|c| boolean(eval.node(c)))
    }

    /// The positions of the conjuncts that fail on `input` (for a message).
    pub fn failing(&self, input: &Input) -> Vec<usize> {
        let eval = Eval::new(self, input);
        (0..self.conjuncts.len())
            .filter(|&i| !boolean(eval.node(&self.conjuncts[i])))
            .collect()
    }

    /// The events named by the conjuncts that fail on `input` (a set that must be empty, the
    /// pairs of a relation that must be empty: their first events, then their second); empty
    /// when it holds or when what fails names no event (`wf_consistent_b`).
    pub fn witnesses(&self, input: &Input) -> Vec<usize> {
        let eval = Eval::new(self, input);
        let mut events = vec![];
        for c in self.conjuncts.iter().filter(|c| !boolean(eval.node(c))) {
            witnesses(&eval, c, &mut events);
        }
        events
    }
}

/// The events a failing conjunct names, added to `out` in order: those of the set it says is
/// empty, or of the pairs of the relation it says is empty (their first events, then their
/// second), or, for a conjunction, of each failing part.
fn witnesses(eval: &Eval, t: &Node, out: &mut Vec<usize>) {
    let mut add = |events: u32| {
        let new = (0..eval.n).filter(|&x| events >> x & 1 == 1 && !out.contains(&x));
        let new: Vec<usize> = new.collect();
        out.extend(new);
    };
    match t {
        Node::And(parts) => {
            for p in parts.iter().filter(|p| !boolean(eval.node(p))) {
                witnesses(eval, p, out);
            }
        }
        Node::Apply(Op::SetEmpty, args) => add(set(eval.node(&args[1]))),
        Node::Apply(Op::Empty, args) => {
            let r = rel(eval.node(&args[1]));
            let pairs = (0..eval.n).filter(|&x| r[x] & eval.all() != 0);
            add(pairs.clone().fold(0, |acc, x| acc | 1 << x));
            add(pairs.fold(0, |acc, x| acc | r[x] & eval.all()));
        }
        _ => {}
    }
}

fn rows(n: usize, pairs: impl Iterator<Item = (usize, usize)>) -> Rows {
    let mut r = [0; MAX_EVENTS];
    for (a, b) in pairs {
        assert!(a < n && b < n, "a pair ({a}, {b}) outside the {n} events");
        r[a] |= 1 << b;
    }
    r
}

struct Eval<'a> {
    statement: &'a Statement,
    input: &'a Input<'a>,
    n: usize,
    guards: [Rows; 2],
    /// The execution's fields read so far, by index.
    fields: Vec<Cell<Option<Value>>>,
}

fn set(v: Value) -> u32 {
    match v {
        Value::Set(s) => s,
        other => panic!("a set expected, got {other:?}"),
    }
}

fn rel(v: Value) -> Rows {
    match v {
        Value::Rel(r) => r,
        other => panic!("a relation expected, got {other:?}"),
    }
}

fn boolean(v: Value) -> bool {
    match v {
        Value::Bool(b) => b,
        other => panic!("a boolean expected, got {other:?}"),
    }
}

impl<'a> Eval<'a> {
    fn new(statement: &'a Statement, input: &'a Input<'a>) -> Eval<'a> {
        let n = input.base.n;
        assert!(n <= MAX_EVENTS, "at most {MAX_EVENTS} events, not {n}");
        Eval {
            statement,
            input,
            n,
            guards: [
                rows(n, input.gread.iter().copied()),
                rows(n, input.gwrite.iter().copied()),
            ],
            fields: vec![Cell::new(None); statement.fields.len()],
        }
    }

    fn all(&self) -> u32 {
        if self.n == 32 {
            u32::MAX
        } else {
            (1u32 << self.n) - 1
        }
    }

    fn map_rows(&self, f: impl Fn(usize) -> u32) -> Value {
        let mut out = [0; MAX_EVENTS];
        for (x, row) in out.iter_mut().enumerate().take(self.n) {
            *row = f(x);
        }
        Value::Rel(out)
    }

    fn seq(&self, r: &Rows, s: &Rows) -> Rows {
        let mut out = [0; MAX_EVENTS];
        for x in 0..self.n {
            let mut row = r[x];
            while row != 0 {
                let z = row.trailing_zeros() as usize;
                row &= row - 1;
                out[x] |= s[z];
            }
        }
        out
    }

    fn tc(&self, r: &Rows) -> Rows {
        let mut t = *r;
        loop {
            let step = self.seq(&t, &t);
            let mut next = t;
            for x in 0..self.n {
                next[x] |= step[x];
            }
            if next == t {
                return t;
            }
            t = next;
        }
    }

    fn field(&self, at: usize) -> Value {
        if let Some(v) = self.fields[at].get() {
            return v;
        }
        let name = self.statement.fields[at].as_str();
        let base = self.input.base;
        let v = if let Some(s) = base.sets.get(name) {
            Value::Set((s.0 & self.all() as u128) as u32)
        } else if let Some(r) = base.rels.get(name) {
            Value::Rel(rows(self.n, r.pairs()))
        } else {
            panic!("no field {name} in the execution")
        };
        self.fields[at].set(Some(v));
        v
    }

    fn node(&self, t: &Node) -> Value {
        match t {
            Node::Nat => Value::Nat,
            Node::Exec => Value::Exec,
            Node::True => Value::Bool(true),
            Node::False => Value::Bool(false),
            Node::EmptySet => Value::Set(0),
            Node::AllEvents => Value::Set(self.all()),
            Node::EmptyRel => Value::Rel([0; MAX_EVENTS]),
            Node::Guard(i) => Value::Rel(self.guards[*i]),
            Node::Field(at) => self.field(*at),
            Node::WfConsistent => Value::Bool(self.input.wf_consistent),
            Node::And(parts) => Value::Bool(parts.iter().all(|p| boolean(self.node(p)))),
            Node::Apply(op, args) => self.apply(*op, args),
        }
    }

    fn apply(&self, op: Op, args: &[Node]) -> Value {
        let arg = |i: usize| self.node(&args[i]);
        let zip = |op: fn(u32, u32) -> u32| {
            let (r, s) = (rel(arg(0)), rel(arg(1)));
            self.map_rows(|x| op(r[x], s[x]))
        };
        match op {
            Op::SetUnion => Value::Set(set(arg(0)) | set(arg(1))),
            Op::SetInter => Value::Set(set(arg(0)) & set(arg(1))),
            Op::SetMinus | Op::SetCompl => Value::Set(set(arg(0)) & !set(arg(1))),
            Op::Union => zip(|x, y| x | y),
            Op::Inter => zip(|x, y| x & y),
            Op::Minus => zip(|x, y| x & !y),
            Op::Compl => {
                let (u, r) = (set(arg(0)), rel(arg(1)));
                self.map_rows(|x| if u >> x & 1 == 1 { u & !r[x] } else { 0 })
            }
            Op::Inv => {
                let r = rel(arg(0));
                self.map_rows(|y| {
                    (0..self.n)
                        .filter(|&x| r[x] >> y & 1 == 1)
                        .fold(0, |acc, x| acc | 1 << x)
                })
            }
            Op::IdOn => {
                let s = set(arg(0));
                self.map_rows(|x| s & (1 << x))
            }
            Op::Cross => {
                let (s, t) = (set(arg(0)), set(arg(1)));
                self.map_rows(|x| if s >> x & 1 == 1 { t & self.all() } else { 0 })
            }
            Op::Seq => Value::Rel(self.seq(&rel(arg(1)), &rel(arg(2)))),
            Op::Tc => Value::Rel(self.tc(&rel(arg(1)))),
            Op::Rtc => {
                let (u, t) = (set(arg(1)), self.tc(&rel(arg(2))));
                self.map_rows(|x| (t[x] | 1 << x) & u)
            }
            Op::Opt => {
                let (u, r) = (set(arg(0)), rel(arg(1)));
                self.map_rows(|x| r[x] | (u & 1 << x))
            }
            Op::Domain => {
                let r = rel(arg(1));
                Value::Set(
                    (0..self.n)
                        .filter(|&x| r[x] != 0)
                        .fold(0, |acc, x| acc | 1 << x),
                )
            }
            Op::Range => {
                let r = rel(arg(1));
                Value::Set(r[..self.n].iter().fold(0, |acc, row| acc | row))
            }
            Op::Empty => Value::Bool(
                rel(arg(1))[..self.n]
                    .iter()
                    .all(|&row| row & self.all() == 0),
            ),
            Op::SetEmpty => Value::Bool(set(arg(1)) & self.all() == 0),
            Op::Negb => Value::Bool(!boolean(arg(0))),
        }
    }
}
