//! The boolean statements of an export, read back and evaluated: an interpreter of the Coq
//! library's boolean operators (`proofs-export/lib/Dec.v`) over the `Definition …_b` texts that
//! `export-coq` writes, so that a test can decide the exported `searched_on_b` (equivalent to
//! `searched` by its `_dec` lemma) on many programs without running Coq on each.
//!
//! Sets are bit masks over the events `0..n`, relations one mask per row; every operator is read
//! as `Dec.v` defines it on `0..n` (the only part any check looks at). A name the interpreter
//! does not know is an error, never a guess. `wf_consistent_b`, a chain of mirrors in
//! `Mirror_wf.v`, is the one call it leaves to its caller (the tests use the evaluator on
//! `models/wf.cat`, which `tests/coq_fidelity.rs` ties to that mirror).
#![allow(dead_code)]

use std::collections::HashMap;

use mapcheck::eval::Base;

/// A parsed term: a name, an application `(f a b …)`, or a conjunction `a && b && …`.
#[derive(Debug)]
enum Term {
    Name(String),
    App(Vec<Term>),
    And(Vec<Term>),
}

/// A value of the boolean library.
#[derive(Clone, Debug)]
enum Value {
    Nat,
    Exec,
    Bool(bool),
    Set(u128),
    Rel(Vec<u128>),
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
    pub base: &'a Base,
    pub gread: &'a [(usize, usize)],
    pub gwrite: &'a [(usize, usize)],
    pub wf_consistent: bool,
}

/// The `_b` definitions of one exported file.
pub struct Statements {
    defs: HashMap<String, Definition>,
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

/// `(n : nat) (XB : bexec) (grb gwb : brel)` → `[n, XB, grb, gwb]`.
fn parameters(text: &str) -> Vec<String> {
    text.split(['(', ')'])
        .filter_map(|group| group.split_once(':').map(|(names, _)| names))
        .flat_map(|names| names.split_whitespace().map(str::to_string))
        .collect()
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
            let toks = tokens(body);
            let mut at = 0;
            let body = sequence(&toks, &mut at);
            assert_eq!(at, toks.len(), "{name}: trailing tokens");
            defs.insert(
                name,
                Definition {
                    params: parameters(params),
                    body,
                },
            );
        }
        Statements { defs }
    }

    /// The execution fields (`b_<field> XB`) the body of `name` reads itself.
    pub fn fields(&self, name: &str) -> std::collections::BTreeSet<String> {
        fn walk(t: &Term, out: &mut std::collections::BTreeSet<String>) {
            match t {
                Term::Name(x) => {
                    if let Some(field) = x.strip_prefix("b_") {
                        out.insert(field.to_string());
                    }
                }
                Term::App(items) | Term::And(items) => items.iter().for_each(|i| walk(i, out)),
            }
        }
        let mut out = std::collections::BTreeSet::new();
        walk(&self.defs[name].body, &mut out);
        out
    }

    /// The value of the boolean definition `name` (parameters `n XB` and then the guard
    /// relations, as `searched_on_b` takes them) on `input`.
    pub fn decide(&self, name: &str, input: &Input) -> bool {
        let (def, env) = self.bind(name, input);
        boolean(self.evaluator(input).term(&def.body, &env))
    }

    /// The positions of the conjuncts of `name` that fail on `input` (for a message).
    pub fn failing(&self, name: &str, input: &Input) -> Vec<usize> {
        let (def, env) = self.bind(name, input);
        let eval = self.evaluator(input);
        let mut parts = vec![];
        let mut pending = vec![&def.body];
        // `a && (b && (…))`: the conjuncts, in order, however Coq nests them.
        while let Some(t) = pending.pop() {
            match t {
                Term::And(items) => pending.extend(items.iter().rev()),
                _ => parts.push(t),
            }
        }
        (0..parts.len())
            .filter(|&i| !boolean(eval.term(parts[i], &env)))
            .collect()
    }

    /// Definition `name` and its parameters bound to `input`.
    fn bind(&self, name: &str, input: &Input) -> (&Definition, HashMap<String, Value>) {
        let def = self
            .defs
            .get(name)
            .unwrap_or_else(|| panic!("no Definition {name}"));
        let n = input.base.n;
        let mut guard = [input.gread, input.gwrite].into_iter();
        let env = def
            .params
            .iter()
            .map(|p| {
                let v = match p.as_str() {
                    "n" => Value::Nat,
                    "XB" => Value::Exec,
                    _ => Value::Rel(rows(n, guard.next().expect("two guard relations"))),
                };
                (p.clone(), v)
            })
            .collect();
        (def, env)
    }

    fn evaluator<'a>(&'a self, input: &'a Input<'a>) -> Eval<'a> {
        Eval {
            st: self,
            input,
            fields: Default::default(),
        }
    }
}

fn rows(n: usize, pairs: &[(usize, usize)]) -> Vec<u128> {
    let mut r = vec![0u128; n];
    for &(a, b) in pairs {
        r[a] |= 1 << b;
    }
    r
}

struct Eval<'a> {
    st: &'a Statements,
    input: &'a Input<'a>,
    /// The execution's fields read so far.
    fields: std::cell::RefCell<HashMap<String, Value>>,
}

fn set(v: Value) -> u128 {
    match v {
        Value::Set(s) => s,
        other => panic!("a set expected, got {other:?}"),
    }
}

fn rel(v: Value) -> Vec<u128> {
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

impl Eval<'_> {
    fn n(&self) -> usize {
        self.input.base.n
    }

    fn all(&self) -> u128 {
        if self.n() == 128 {
            u128::MAX
        } else {
            (1u128 << self.n()) - 1
        }
    }

    fn term(&self, t: &Term, env: &HashMap<String, Value>) -> Value {
        match t {
            Term::Name(x) => self.name(x, env),
            Term::And(parts) => Value::Bool(parts.iter().all(|p| boolean(self.term(p, env)))),
            Term::App(items) => {
                let Term::Name(head) = &items[0] else {
                    panic!("an application of a non-name: {t:?}")
                };
                let args: Vec<Value> = items[1..].iter().map(|a| self.term(a, env)).collect();
                self.apply(head, args)
            }
        }
    }

    fn name(&self, x: &str, env: &HashMap<String, Value>) -> Value {
        if let Some(v) = env.get(x) {
            return v.clone();
        }
        match x {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "bset0" => Value::Set(0),
            "ball" => Value::Set(self.all()),
            "brel0" => Value::Rel(vec![0; self.n()]),
            _ => panic!("an unknown name {x} in a boolean statement"),
        }
    }

    fn seq(&self, r: &[u128], s: &[u128]) -> Vec<u128> {
        r.iter()
            .map(|&row| {
                (0..self.n())
                    .filter(|&z| row >> z & 1 == 1)
                    .fold(0, |acc, z| acc | s[z])
            })
            .collect()
    }

    fn tc(&self, r: &[u128]) -> Vec<u128> {
        let mut t = r.to_vec();
        loop {
            let next: Vec<u128> = t.iter().zip(self.seq(&t, &t)).map(|(a, b)| a | b).collect();
            if next == t {
                return t;
            }
            t = next;
        }
    }

    fn field(&self, name: &str) -> Value {
        if let Some(v) = self.fields.borrow().get(name) {
            return v.clone();
        }
        let v = self.read_field(name);
        self.fields.borrow_mut().insert(name.to_string(), v.clone());
        v
    }

    fn read_field(&self, name: &str) -> Value {
        let base = self.input.base;
        if let Some(s) = base.sets.get(name) {
            return Value::Set(s.0 & self.all());
        }
        if let Some(r) = base.rels.get(name) {
            return Value::Rel(rows(self.n(), &r.pairs().collect::<Vec<_>>()));
        }
        panic!("no field {name} in the execution")
    }

    fn apply(&self, f: &str, args: Vec<Value>) -> Value {
        let n = self.n();
        let mut a = args.into_iter();
        let mut next = || a.next().unwrap_or_else(|| panic!("{f}: too few arguments"));
        let zip = |r: Vec<u128>, s: Vec<u128>, op: fn(u128, u128) -> u128| {
            Value::Rel(r.into_iter().zip(s).map(|(x, y)| op(x, y)).collect())
        };
        match f {
            "bset_union" => Value::Set(set(next()) | set(next())),
            "bset_inter" => Value::Set(set(next()) & set(next())),
            "bset_minus" => Value::Set(set(next()) & !set(next())),
            "bset_compl" => Value::Set(set(next()) & !set(next())),
            "bunion" => zip(rel(next()), rel(next()), |x, y| x | y),
            "binter" => zip(rel(next()), rel(next()), |x, y| x & y),
            "bminus" => zip(rel(next()), rel(next()), |x, y| x & !y),
            "bcompl" => {
                let (u, r) = (set(next()), rel(next()));
                Value::Rel(
                    (0..n)
                        .map(|x| if u >> x & 1 == 1 { u & !r[x] } else { 0 })
                        .collect(),
                )
            }
            "binv" => {
                let r = rel(next());
                Value::Rel(
                    (0..n)
                        .map(|y| {
                            (0..n)
                                .filter(|&x| r[x] >> y & 1 == 1)
                                .fold(0, |acc, x| acc | 1 << x)
                        })
                        .collect(),
                )
            }
            "bid_on" => {
                let s = set(next());
                Value::Rel((0..n).map(|x| s & (1 << x)).collect())
            }
            "bcross" => {
                let (s, t) = (set(next()), set(next()));
                Value::Rel(
                    (0..n)
                        .map(|x| if s >> x & 1 == 1 { t & self.all() } else { 0 })
                        .collect(),
                )
            }
            "bseq" => {
                let (_, r, s) = (next(), rel(next()), rel(next()));
                Value::Rel(self.seq(&r, &s))
            }
            "btc" => {
                let (_, r) = (next(), rel(next()));
                Value::Rel(self.tc(&r))
            }
            "brtc" => {
                let (_, u, r) = (next(), set(next()), rel(next()));
                let t = self.tc(&r);
                Value::Rel((0..n).map(|x| (t[x] | 1 << x) & u).collect())
            }
            "bopt" => {
                let (u, r) = (set(next()), rel(next()));
                Value::Rel((0..n).map(|x| r[x] | (u & 1 << x)).collect())
            }
            "bdomain" => {
                let (_, r) = (next(), rel(next()));
                Value::Set((0..n).filter(|&x| r[x] != 0).fold(0, |acc, x| acc | 1 << x))
            }
            "brange" => {
                let (_, r) = (next(), rel(next()));
                Value::Set(r.iter().fold(0, |acc, row| acc | row))
            }
            "bempty" => {
                let (_, r) = (next(), rel(next()));
                Value::Bool(r.iter().all(|&row| row & self.all() == 0))
            }
            "bset_empty" => {
                let (_, s) = (next(), set(next()));
                Value::Bool(s & self.all() == 0)
            }
            "negb" => Value::Bool(!boolean(next())),
            "wf_consistent_b" => Value::Bool(self.input.wf_consistent),
            _ if f.starts_with("b_") => self.field(&f[2..]),
            _ => {
                let def =
                    self.st.defs.get(f).unwrap_or_else(|| {
                        panic!("an unknown operator {f} in a boolean statement")
                    });
                let env: HashMap<String, Value> =
                    def.params.iter().cloned().zip(a.by_ref()).collect();
                assert_eq!(env.len(), def.params.len(), "{f}: arity");
                self.term(&def.body, &env)
            }
        }
    }
}
