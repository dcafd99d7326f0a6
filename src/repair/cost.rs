//! What a rule costs a repair: the sum of its instructions' costs times its class's weight, from
//! a documented default (below) or a TOML file that overrides some entries (`--costs FILE`).
//!
//! The default follows what GPUs charge (docs/decisions/013-repair.md): a fence costs more than
//! any access, an SC fence more than an acq_rel one, and a fence's scope multiplies its cost
//! by the scope's rank among the mapping's target scopes (`space::Scopes`: ×1, ×3, ×10, ×30,
//! …; for PTX 6.0's scopes cta ×1, gpu ×3, sys ×10), since a wider fence waits for more of the
//! memory system. Among accesses, `.weak` < `.relaxed` < `.acquire`/`.release`, an `atom` more
//! than a load or store, a wider scope one more per rank. Every strengthening step of `space::STRONGER`, every scope
//! widening and every added fence costs more under it, so the input rule is the cheapest of its
//! strengthenings.
//!
//! A class's weight stands for how often programs run it: non-atomic (`NA`) classes weigh 10 —
//! most of a program's accesses are plain ones, and a stronger rule for them also takes away the
//! compiler's freedom with them — every other memory order 1.
//!
//! A cost file names instructions as PTX writes them and weights by the class's memory order:
//! ```toml
//! [instructions]
//! "fence.sc.gpu" = 45
//! "ld.acquire.sys" = 9
//! [weights]
//! NA = 4
//! ```
//!
//! Owns: `Costs`. Uses: `mapping` (`TargetOp`, its vocabulary), `isa` (PTX 6.0's scopes), `diag`,
//! `toml`.
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::diag;
use crate::isa::ptx;
use crate::mapping::{Class, Mapping, OpKind, TargetOp};
use crate::vocab::{Role, Tag};

/// The cost of every PTX instruction.
#[derive(Clone, Debug)]
pub struct Costs {
    /// The entries a cost file gives; every other instruction has its default cost.
    given: HashMap<TargetOp, u64>,
    /// Weight per memory order (1 when absent).
    weights: HashMap<Tag, u64>,
    /// Where the costs come from: `default`, or the cost file.
    pub(crate) source: String,
    /// The scopes whose ranks price a scoped instruction, narrowest first: a repair's target
    /// scopes (`space::Scopes`), PTX 6.0's until a repair sets them (`priced_for`).
    scopes: Vec<Tag>,
}

impl Default for Costs {
    fn default() -> Costs {
        Costs {
            given: HashMap::new(),
            weights: HashMap::from([(Tag::Na, 10)]),
            source: "default".to_string(),
            scopes: ptx::scopes_of_ptx_6().collect(),
        }
    }
}

/// A cost file as written.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CostFile {
    #[serde(default)]
    instructions: BTreeMap<toml::Spanned<String>, toml::Spanned<u64>>,
    #[serde(default)]
    weights: BTreeMap<toml::Spanned<String>, toml::Spanned<u64>>,
}

/// The entry of `table` a cost file's `word` names, or an error at it listing the names.
fn known<'t, T>(
    table: &'t BTreeMap<String, T>,
    word: &toml::Spanned<String>,
    file: &str,
    text: &std::sync::Arc<str>,
    what: &str,
) -> diag::Result<&'t T> {
    table.get(word.get_ref()).ok_or_else(|| {
        let names: Vec<&str> = table.keys().map(|k| k.as_str()).collect();
        diag::Error::at(
            file,
            text,
            word.span(),
            format!("`{}` is not {what}", word.get_ref()),
        )
        .with_note(format!("expected one of: {}", names.join(" ")))
    })
}

/// The largest instruction cost and class weight a cost file may give: with a rule of a few
/// instructions and a mapping of a few hundred classes, every sum and difference of mapping
/// costs stays far inside 64 bits (a cost near the limit used to wrap into a nonsense repair).
const MAX_COST: u64 = 1_000_000_000;
const MAX_WEIGHT: u64 = 1_000_000;

/// A cost file's `value`, or an error at it when it is above `max`.
fn at_most(
    value: &toml::Spanned<u64>,
    max: u64,
    file: &str,
    text: &std::sync::Arc<str>,
) -> diag::Result<u64> {
    let v = *value.get_ref();
    if v > max {
        return Err(diag::Error::at(
            file,
            text,
            value.span(),
            format!("{v} is more than a cost file may give ({max})"),
        ));
    }
    Ok(v)
}

/// The default cost of one instruction (see the module's text), its scope ranked among `scopes`
/// (a scope not among them ranks above all).
fn default_cost(op: &TargetOp, scopes: &[Tag]) -> u64 {
    let rank = |s: Tag| scopes.iter().position(|&t| t == s).unwrap_or(scopes.len());
    let scope_step = op.scope().map_or(0, rank) as u32;
    if op.kind == OpKind::Fence {
        let base = match op.sem() {
            Tag::Sc => 20,
            Tag::AcqRel => 15,
            _ => 12,
        };
        // ×1, ×3, ×10, ×30, …: each wider scope about √10 times dearer.
        let factor = 10u64.pow(scope_step / 2) * if scope_step % 2 == 1 { 3 } else { 1 };
        return base * factor;
    }
    let base = match (op.kind, op.sem()) {
        (_, Tag::Weak) => return 1,
        (_, Tag::V) => return 4,
        (OpKind::Rmw, Tag::Rlx) => 4,
        (OpKind::Rmw, Tag::AcqRel) => 8,
        (OpKind::Rmw, _) => 6,
        (_, Tag::Rlx) => 2,
        _ => 4,
    };
    base + u64::from(scope_step)
}

impl Costs {
    /// The default costs with the entries of a TOML cost file replacing theirs.
    pub fn load(path: &Path) -> diag::Result<Costs> {
        let text = diag::read_source(path)?;
        let name = path.display().to_string();
        let file: CostFile = toml::from_str(&text).map_err(|e| {
            let at = e.span().unwrap_or(0..0);
            diag::Error::at(&name, &text, at, format!("not a cost file: {}", e.message()))
                .with_note("a cost file has a table `[instructions]` of lines `\"fence.sc.gpu\" = 45` and a table `[weights]` of lines `NA = 10`, each value a non-negative integer, a cost at most 1000000000 and a weight at most 1000000")
        })?;
        let mut costs = Costs::default();
        let instructions: BTreeMap<String, TargetOp> = TargetOp::vocabulary()
            .into_iter()
            .map(|op| (op.to_string(), op))
            .collect();
        for (word, cost) in file.instructions {
            let op = known(
                &instructions,
                &word,
                &name,
                &text,
                "a PTX instruction mapcheck knows",
            )?;
            costs
                .given
                .insert(op.clone(), at_most(&cost, MAX_COST, &name, &text)?);
        }
        let orders: BTreeMap<String, Tag> = Tag::with_role(Role::Order)
            .map(|t| (t.to_string(), t))
            .collect();
        for (word, weight) in file.weights {
            let order = known(&orders, &word, &name, &text, "a memory order")?;
            costs
                .weights
                .insert(*order, at_most(&weight, MAX_WEIGHT, &name, &text)?);
        }
        costs.source = name;
        Ok(costs)
    }

    /// What `class`'s rule `ops` costs a mapping: the rule's cost times the class's weight.
    pub fn class_rule(&self, class: &Class, ops: &[TargetOp]) -> u64 {
        self.weights.get(&class.order).copied().unwrap_or(1) * self.rule(ops)
    }

    /// The cost of a whole mapping: its rules' costs summed over its classes, with scoped
    /// instructions priced by the mapping's own target scopes, as a repair of it prices them.
    pub fn of_mapping(&self, m: &Mapping) -> u64 {
        let costs = self.priced_for(super::space::Scopes::of(m).as_slice());
        (m.classes().iter())
            .map(|c| costs.class_rule(c, m.compile(c)))
            .sum()
    }

    /// The cost of a rule: the sum of its instructions' costs.
    pub(crate) fn rule(&self, ops: &[TargetOp]) -> u64 {
        let cost = |op: &TargetOp| {
            let given = self.given.get(op).copied();
            given.unwrap_or_else(|| default_cost(op, &self.scopes))
        };
        ops.iter().map(cost).sum()
    }

    /// These costs with scoped instructions priced by their rank among `scopes` (a repair's
    /// target scopes, narrowest first).
    pub(crate) fn priced_for(&self, scopes: &[Tag]) -> Costs {
        Costs {
            scopes: scopes.to_vec(),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::ptx::scope_order;

    #[test]
    fn fences_dominate_and_scopes_multiply() {
        let c = Costs::default();
        let fence = |sem, s| c.rule(&[TargetOp::new(OpKind::Fence, sem, Some(s))]);
        assert_eq!(fence(Tag::Sc, Tag::Cta), 20);
        assert_eq!(fence(Tag::Sc, Tag::Gpu), 60);
        assert_eq!(fence(Tag::Sc, Tag::Sys), 200);
        let cheapest_fence = fence(Tag::Acq, Tag::Cta);
        let dearest_access = TargetOp::vocabulary()
            .iter()
            .filter(|op| op.kind != OpKind::Fence)
            .map(|op| c.rule(std::slice::from_ref(op)))
            .max()
            .unwrap();
        assert!(dearest_access < cheapest_fence);
        for kind in [OpKind::Load, OpKind::Fence] {
            let sem = if kind == OpKind::Fence {
                Tag::Sc
            } else {
                Tag::Acq
            };
            let by_scope = |c: &Costs, scopes: Vec<Tag>| -> Vec<u64> {
                let op = |s| TargetOp::new(kind, sem, Some(s));
                scopes.into_iter().map(|s| c.rule(&[op(s)])).collect()
            };
            let ptx_6 = by_scope(&c, ptx::scopes_of_ptx_6().collect());
            assert!(ptx_6.windows(2).all(|w| w[0] < w[1]), "{ptx_6:?}");
            let all: Vec<Tag> = scope_order().collect();
            let with_cluster = by_scope(&c.priced_for(&all), all);
            assert!(
                with_cluster.windows(2).all(|w| w[0] < w[1]),
                "{with_cluster:?}"
            );
        }
    }

    #[test]
    fn a_cost_file_replaces_entries_and_names_what_it_does_not_know() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.toml");
        std::fs::write(
            &good,
            "[instructions]\n\"fence.sc.gpu\" = 45\n[weights]\nNA = 2\n",
        )
        .unwrap();
        let c = Costs::load(&good).unwrap();
        let op = |s| TargetOp::new(OpKind::Fence, Tag::Sc, Some(s));
        assert_eq!(c.rule(&[op(Tag::Gpu)]), 45);
        assert_eq!(c.rule(&[op(Tag::Sys)]), 200);
        let class = |order| Class {
            kind: crate::mapping::ClassKind::F,
            order,
            scope: None,
        };
        assert_eq!(c.class_rule(&class(Tag::Na), &[op(Tag::Gpu)]), 90);
        assert_eq!(c.class_rule(&class(Tag::Sc), &[op(Tag::Gpu)]), 45);
        assert_eq!(
            Costs::default().class_rule(&class(Tag::Na), &[op(Tag::Gpu)]),
            600
        );
        let bad = dir.path().join("bad.toml");
        std::fs::write(
            &bad,
            "[instructions]\n\"fence.sc.gpu\" = 45\n\"fence.sc.planet\" = 1\n",
        )
        .unwrap();
        let e = Costs::load(&bad).unwrap_err().render();
        assert!(
            e.contains("bad.toml:3:1") && e.contains("fence.sc.planet"),
            "{e}"
        );
        std::fs::write(&bad, "[weights]\nMAYBE = 3\n").unwrap();
        let e = Costs::load(&bad).unwrap_err().render();
        assert!(
            e.contains("bad.toml:2:1") && e.contains("memory order"),
            "{e}"
        );
        std::fs::write(&bad, "[instructions]\n\"fence.sc.gpu\" = -3\n").unwrap();
        let e = Costs::load(&bad).unwrap_err().render();
        assert!(e.contains("bad.toml:2:"), "{e}");
        // Near the 64-bit limit a mapping's cost would wrap: refused at the value.
        for text in [
            "[instructions]\n\"fence.sc.gpu\" = 9223372036854775807\n",
            "[weights]\nNA = 1000001\n",
        ] {
            std::fs::write(&bad, text).unwrap();
            let e = Costs::load(&bad).unwrap_err().render();
            assert!(
                e.contains("bad.toml:2:") && e.contains("more than a cost file may give"),
                "{e}"
            );
        }
    }
}
