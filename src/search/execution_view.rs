//! The vocabulary over circuits: one execution of the candidate program, read by one model, as
//! the value of every built-in name (`ExecutionView::base`), computed the way `Execution::base`
//! computes them on a concrete execution — including which events execute at all, which
//! depends on `rf`.
//!
//! Owns: `ExecutionView`. Uses: `candidate_variables`, `model_reading` (scope levels),
//! `program_variables`, `layout`, `encode`, `vocab`, `exec` (scope levels).
use std::collections::BTreeMap;

use super::candidate_variables::CandidateVariables;
use super::layout::Role;
use super::model_reading::LEVELS;
use super::program_variables::matrix;
use crate::encode::{Circuit, Matrix, Node, Value, Vector};
use crate::vocab::Level;
use crate::vocab::{self, Kind};

/// One execution of the program read by one model: the model's reading restricted to the
/// events that execute under `rf`, with `rf`, `co` and the control dependencies of the guards.
pub(super) struct ExecutionView<'p, 'a> {
    vars: &'p CandidateVariables<'a>,
    pub(super) present: Vector,
    pub(super) reads: Vector,
    pub(super) writes: Vector,
    fences: Vector,
    tags: BTreeMap<&'static str, Vector>,
    rf: Matrix,
    co: Matrix,
    /// Per event: it executes.
    pub(super) alive: Vec<Node>,
    source: bool,
}

impl<'p, 'a> ExecutionView<'p, 'a> {
    /// The execution of `vars`'s program with `rf` and `co`, read by the source
    /// (`source == true`) or the target model.
    pub(super) fn new(
        c: &mut Circuit,
        vars: &'p CandidateVariables<'a>,
        source: bool,
        rf: &Matrix,
        co: &Matrix,
    ) -> ExecutionView<'p, 'a> {
        let side = if source { &vars.source } else { &vars.target };
        let alive = vars.alive_under(c, rf);
        let mut mask = |v: &Vector| vars.mask_with(c, v, &alive);
        let (present, reads, writes, fences) = (
            mask(&side.present),
            mask(&side.reads),
            mask(&side.writes),
            mask(&side.fences),
        );
        let tags = side.tags.iter().map(|(t, v)| (*t, mask(v))).collect();
        ExecutionView {
            vars,
            present,
            reads,
            writes,
            fences,
            tags,
            rf: rf.clone(),
            co: co.clone(),
            alive,
            source,
        }
    }

    /// The value of vocabulary name `name` in this execution.
    pub(super) fn base(&self, c: &mut Circuit, name: &str) -> Value {
        let p = &self.vars.program;
        let side = if self.source {
            &self.vars.source
        } else {
            &self.vars.target
        };
        let n = p.layout.n();
        let pres = &self.present;
        let pair = |c: &mut Circuit, f: &dyn Fn(&mut Circuit, usize, usize) -> Node| {
            let mut m = vec![Node::FALSE; n * n];
            for a in 0..n {
                for b in 0..n {
                    let both = c.and2(pres.0[a], pres.0[b]);
                    if both == Node::FALSE {
                        continue;
                    }
                    let v = f(c, a, b);
                    m[a * n + b] = c.and2(both, v);
                }
            }
            matrix(n, m)
        };
        if vocab::kind_of(name) == Some(Kind::Set) {
            let v = match name {
                "_" => pres.clone(),
                "R" => self.reads.clone(),
                "W" => self.writes.clone(),
                "F" => self.fences.clone(),
                "M" => self.reads.union(c, &self.writes),
                "IW" => Vector(
                    (0..n)
                        .map(|s| Node::constant(matches!(p.layout.slots[s].role, Role::Init(_))))
                        .collect(),
                ),
                "RMW" => {
                    let rmw = self.rmw(c);
                    let (d, r) = (rmw.domain(c), rmw.range(c));
                    d.union(c, &r)
                }
                tag => self
                    .tags
                    .get(tag)
                    .cloned()
                    .unwrap_or_else(|| Vector(vec![Node::FALSE; n])),
            };
            return Value::Set(v);
        }
        let levels = &side.levels;
        let m = match name {
            "id" => Matrix::id_on(pres),
            "po" => pair(c, &|_, a, b| Node::constant(p.same_thread(a, b) && a < b)),
            "rf" => self.rf.clone(),
            "co" => self.co.clone(),
            "fr" => self.rf.inverse().seq(c, &self.co),
            "loc" => pair(c, &|_, a, b| self.vars.loc_rel.get(a, b)),
            "rmw" => self.rmw(c),
            "ctrl" => pair(c, &|c, a, b| self.ctrl(c, a, b)),
            "int" => pair(c, &|_, a, b| Node::constant(p.same_thread(a, b))),
            "ext" => pair(c, &|_, a, b| Node::constant(!p.same_thread(a, b))),
            "scta" | "swg" => pair(c, &|_, a, b| p.same_instance(Level::Cta, a, b)),
            "sgpu" | "sdv" => pair(c, &|_, a, b| p.same_instance(Level::Gpu, a, b)),
            "sr" => pair(c, &|c, a, b| {
                let per: Vec<Node> = (0..4)
                    .map(|k| {
                        let si = p.same_instance(LEVELS[k], a, b);
                        c.and([levels[a][k], levels[b][k], si])
                    })
                    .collect();
                c.or(per)
            }),
            "incl" => pair(c, &|c, a, b| {
                let la: Vec<Node> = (0..4)
                    .map(|k| {
                        let si = p.same_instance(LEVELS[k], a, b);
                        c.and2(levels[a][k], si)
                    })
                    .collect();
                let lb: Vec<Node> = (0..4)
                    .map(|k| {
                        let si = p.same_instance(LEVELS[k], a, b);
                        c.and2(levels[b][k], si)
                    })
                    .collect();
                let (la, lb) = (c.or(la), c.or(lb));
                c.and2(la, lb)
            }),
            _ => Matrix::empty(n), // addr, data, syncbar: values are constants, no barriers
        };
        Value::Rel(m)
    }

    /// `rmw` between executing events.
    fn rmw(&self, c: &mut Circuit) -> Matrix {
        let p = &self.vars.program;
        let n = p.layout.n();
        let pres = &self.present.0;
        let cells = (0..n * n)
            .map(|k| c.and([p.rmw.get(k / n, k % n), pres[k / n], pres[k % n]]))
            .collect();
        matrix(n, cells)
    }

    /// `ctrl`: from a guarded read to every event its guard decides (the runner's reading of
    /// `if (r != v) goto END`: every later event depends on the read).
    fn ctrl(&self, c: &mut Circuit, a: usize, b: usize) -> Node {
        let p = &self.vars.program;
        let (sa, sb) = (p.layout.slots[a], p.layout.slots[b]);
        match (sa.role, sa.event, sb.event) {
            (Role::Main, Some(d), Some(e)) => {
                let guarded = !p.guard[d][0];
                let decides = p.affects(d, e);
                c.and2(guarded, decides)
            }
            _ => Node::FALSE,
        }
    }
}
