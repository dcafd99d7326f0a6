//! One test thread's events against its function's SASS: each access found once, in program
//! order, at least as strong as the test says, guarded as the test says; each fence's gap holding
//! what the fence needs.
use super::expected::*;
use super::sass::{scope_word, Sass};
use super::{Row, Verdict};
use crate::gpu::cuda::events::{Event, Op, Scope, Strength};

/// One thread's events against its function's SASS.
pub(super) struct ThreadCheck<'a> {
    thread: &'a str,
    events: &'a [Event],
    code: &'a [Sass],
    /// Per event: the index in `code` of its access (accesses found once).
    at: Vec<Option<usize>>,
}

impl<'a> ThreadCheck<'a> {
    pub(super) fn new(thread: &'a str, events: &'a [Event], code: &'a [Sass]) -> Self {
        let at = events
            .iter()
            .map(|e| match e {
                Event::Access(a) => {
                    let mut hits = code
                        .iter()
                        .enumerate()
                        .filter(|(_, i)| i.is_memory() && i.offset() == Some(a.tag));
                    hits.next().map(|(k, _)| k)
                }
                Event::Fence(_) => None,
            })
            .collect();
        ThreadCheck {
            thread,
            events,
            code,
            at,
        }
    }

    pub(super) fn rows(&self) -> Vec<Row> {
        (0..self.events.len()).map(|k| self.row(k)).collect()
    }

    fn row(&self, k: usize) -> Row {
        let e = &self.events[k];
        let (verdict, found, why) = match e {
            Event::Access(_) => self.access(k),
            Event::Fence(f) => self.fence(k, fence_need(f.sem, f.scope)),
        };
        Row {
            thread: self.thread.to_string(),
            ptx: ptx_text(e),
            expected: expected_text(e),
            found,
            verdict,
            why,
        }
    }

    /// The code range between the access before event `k` and the one after it (exclusive).
    fn gap(&self, k: usize) -> std::ops::Range<usize> {
        let before = self.at[..k]
            .iter()
            .rev()
            .flatten()
            .next()
            .map_or(0, |p| p + 1);
        let after = self.at[k + 1..]
            .iter()
            .flatten()
            .next()
            .copied()
            .unwrap_or(self.code.len());
        before..after.max(before)
    }

    fn access(&self, k: usize) -> (Verdict, String, String) {
        let Event::Access(a) = &self.events[k] else {
            return (Verdict::Missing, String::new(), "not an access".into());
        };
        let hits: Vec<&Sass> = self
            .code
            .iter()
            .filter(|i| i.is_memory() && i.offset() == Some(a.tag))
            .collect();
        let Some(pos) = self.at[k] else {
            return (
                Verdict::Missing,
                String::new(),
                format!("no memory instruction at offset {:#x}", a.tag),
            );
        };
        let found = self.code[pos].text();
        if hits.len() > 1 {
            return (
                Verdict::Duplicated,
                found,
                format!("{} instructions at offset {:#x}", hits.len(), a.tag),
            );
        }
        if let Some(earlier) = self.at[..k].iter().flatten().find(|p| **p > pos) {
            let why = format!("before {}", self.code[*earlier].text());
            return (Verdict::Reordered, found, why);
        }
        let found = self.found_around(k, a.op, a.strength, pos);
        let sass = &self.code[pos];
        let checks = [
            self.operation(a.op, sass),
            self.strength(a.strength, sass),
            self.guard(a.guarded, pos),
            self.release(k, a.op, a.strength, pos),
            self.acquire(k, a.strength, pos),
        ];
        let worst = checks
            .into_iter()
            .flatten()
            .max_by_key(|(v, _)| !v.passes())
            .unwrap_or((Verdict::Ok, String::new()));
        (worst.0, found, worst.1)
    }

    /// The access with the `MEMBAR`s before it (a releasing write) and the `CCTL.IVALL` after it
    /// (an acquiring read) that its checks look at.
    fn found_around(&self, k: usize, op: Op, s: Strength, pos: usize) -> String {
        let gap = self.gap(k);
        let mut parts: Vec<String> = vec![];
        if release_scope(op, s).is_some() {
            let start = gap.start.min(pos);
            parts.extend(
                self.code[start..pos]
                    .iter()
                    .filter(|i| i.membar().is_some())
                    .map(Sass::text),
            );
        }
        parts.push(self.code[pos].text());
        if acquire_invalidates(s) {
            let end = gap.end.max(pos + 1);
            parts.extend(
                self.code[pos + 1..end]
                    .iter()
                    .filter(|i| i.is_invalidation())
                    .map(Sass::text),
            );
        }
        parts.join("; ")
    }

    fn operation(&self, op: Op, sass: &Sass) -> Option<(Verdict, String)> {
        let (base, modifier) = match op {
            Op::Load => ("LDG", None),
            Op::Store => ("STG", None),
            Op::Atom(o) => ("ATOMG", Some(o.sass())),
            Op::Red(o) => ("REDG", Some(o.sass())),
        };
        let ok = sass.base() == base && modifier.is_none_or(|m| sass.has(m));
        (!ok).then(|| (Verdict::Weakened, format!("expected {}", op_text(op))))
    }

    fn strength(&self, s: Strength, sass: &Sass) -> Option<(Verdict, String)> {
        match (s.scope(), sass.strong_scope()) {
            (None, None) => None,
            (None, Some(found)) => Some((
                Verdict::Stronger,
                format!("weak access made .STRONG.{}", scope_word(found, true)),
            )),
            (Some(want), None) => Some((
                Verdict::Weakened,
                format!("no .STRONG.{}: a weak access", scope_word(want, true)),
            )),
            (Some(want), Some(found)) if found < want => Some((
                Verdict::Weakened,
                format!(
                    "scope .STRONG.{}, test says {}",
                    scope_word(found, true),
                    want.ptx()
                ),
            )),
            (Some(want), Some(found)) if found > want => Some((
                Verdict::Stronger,
                format!("scope .STRONG.{}", scope_word(found, true)),
            )),
            _ => None,
        }
    }

    fn guard(&self, guarded: bool, pos: usize) -> Option<(Verdict, String)> {
        let sass = &self.code[pos];
        let branch_before = self.code[..pos].iter().any(Sass::is_conditional_branch);
        match (guarded, sass.predicated(), branch_before) {
            (true, false, false) => Some((
                Verdict::GuardLost,
                "neither predicated nor after a conditional branch".into(),
            )),
            (false, true, _) => Some((
                Verdict::Predicated,
                format!("runs only under {}", sass.predicate),
            )),
            _ => None,
        }
    }

    /// A releasing write needs a `MEMBAR` at its scope between the previous access and it.
    fn release(&self, k: usize, op: Op, s: Strength, pos: usize) -> Option<(Verdict, String)> {
        let scope = release_scope(op, s)?;
        let start = self.gap(k).start.min(pos);
        self.membar_in(start..pos, false, scope)
            .map(|v| (v, format!("release: {}", self.membar_why(start..pos, v))))
    }

    /// An acquiring read at gpu or sys scope needs a `CCTL.IVALL` before the next access.
    fn acquire(&self, k: usize, s: Strength, pos: usize) -> Option<(Verdict, String)> {
        if !acquire_invalidates(s) {
            return None;
        }
        let end = self.gap(k).end.max(pos + 1);
        let found = self.code[pos + 1..end].iter().any(Sass::is_invalidation);
        (!found).then(|| {
            (
                Verdict::Weakened,
                "acquire without CCTL.IVALL after it: a relaxed read".into(),
            )
        })
    }

    fn fence(&self, k: usize, need: Need) -> (Verdict, String, String) {
        let gap = self.gap(k);
        let found = |pred: &dyn Fn(&Sass) -> bool| {
            self.code[gap.clone()]
                .iter()
                .filter(|i| pred(i))
                .map(Sass::text)
                .collect::<Vec<_>>()
                .join("; ")
        };
        match need {
            Need::Nothing => (Verdict::Ok, String::new(), "no SASS at cta scope".into()),
            Need::Invalidate => {
                let f = found(&Sass::is_invalidation);
                let v = if f.is_empty() {
                    Verdict::Missing
                } else {
                    Verdict::Ok
                };
                (v, f, String::new())
            }
            Need::Membar { sc, scope } => {
                let f = found(&|i| i.membar().is_some());
                match self.membar_in(gap.clone(), sc, scope) {
                    None => (Verdict::Ok, f, String::new()),
                    Some(v) => (v, f, self.membar_why(gap, v)),
                }
            }
        }
    }

    /// `None` if `range` has a `MEMBAR` at least as strong as asked; else how it falls short
    /// (`Weakened` if there is a weaker one, `Missing` if none). `Stronger` if only stronger.
    fn membar_in(&self, range: std::ops::Range<usize>, sc: bool, scope: Scope) -> Option<Verdict> {
        let bars: Vec<(bool, Scope)> = self.code[range].iter().filter_map(Sass::membar).collect();
        if bars.contains(&(sc, scope)) {
            return None;
        }
        let covers = |(bar_sc, bar_scope): &(bool, Scope)| (*bar_sc || !sc) && *bar_scope >= scope;
        if bars.iter().any(covers) {
            return Some(Verdict::Stronger);
        }
        Some(if bars.is_empty() {
            Verdict::Missing
        } else {
            Verdict::Weakened
        })
    }

    fn membar_why(&self, range: std::ops::Range<usize>, v: Verdict) -> String {
        let ctx = if range.start == 0 {
            "at the start".to_string()
        } else {
            format!("after {}", self.code[range.start - 1].text())
        };
        match v {
            Verdict::Stronger => "a stronger MEMBAR".into(),
            Verdict::Missing => format!("no MEMBAR in its gap ({ctx})"),
            _ => format!("only weaker MEMBARs in its gap ({ctx})"),
        }
    }
}
