//! Accesses, fences and barriers: an instruction's tags decoded into the C call that writes
//! them (`*x`, the `_explicit` calls with order and scope, `volatile_load` / `volatile_store`,
//! `atomic_work_item_fence`, `barrier`), and the names of the fetch-and-op calls.
use std::collections::HashSet;

use super::statements::Body;
use crate::isa::c;
use crate::litmus::print::Msg;
use crate::litmus::program::{BinOp, Expr};
use crate::vocab::{self, Tag};

/// How an access is written.
pub(super) enum Access {
    Plain,
    Atomic { order: &'static str, scope: String },
    Volatile,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Use {
    Load,
    Store,
    Rmw,
}

impl Body<'_> {
    /// Decode the tags of an access into how it is written.
    pub(super) fn access(&self, tags: &[Tag], u: Use) -> Msg<Access> {
        let t = Tags::split(tags, self.opencl)?;
        let bad = || Err(format!("tags [{}] have no C call", vocab::join(tags, ", ")));
        if !t.regions.is_empty() {
            return bad();
        }
        match (t.order, t.scope, t.volatile) {
            (Tag::Na, None, false) if u != Use::Rmw => Ok(Access::Plain),
            (Tag::Na, _, _) if u == Use::Rmw => {
                Err("a read-modify-write must be atomic, with a memory order".into())
            }
            (Tag::Rlx, Some(Tag::Sys), true) if !self.opencl && u != Use::Rmw => {
                Ok(Access::Volatile)
            }
            (o, scope, false) if o != Tag::Na => {
                let legal = match u {
                    Use::Load => !matches!(o, Tag::Rel | Tag::AcqRel),
                    Use::Store => !matches!(o, Tag::Acq | Tag::AcqRel | Tag::Con),
                    Use::Rmw => true,
                };
                if !legal {
                    return Err(format!("C has no {} with order {o}", use_name(u)));
                }
                let scope = match (scope, self.opencl) {
                    (Some(s), _) => format!(", {}", c::scopes(self.opencl).spelling(s)),
                    (None, false) => String::new(),
                    (None, true) => return Err("an OpenCL atomic always has a scope tag".into()),
                };
                Ok(Access::Atomic {
                    order: c::MEMORY_ORDERS.spelling(o),
                    scope,
                })
            }
            _ => bad(),
        }
    }

    pub(super) fn fence(&self, tags: &[Tag]) -> Msg<String> {
        let t = Tags::split(tags, self.opencl)?;
        let no_fence = || {
            Err(format!(
                "tags [{}] have no C fence",
                vocab::join(tags, ", ")
            ))
        };
        if t.volatile || t.order == Tag::Na {
            return no_fence();
        }
        let order = c::MEMORY_ORDERS.spelling(t.order);
        let scope = |s| c::scopes(self.opencl).spelling(s);
        match (self.opencl, t.scope) {
            (false, s) if t.regions.is_empty() => Ok(match s {
                Some(s) => format!("atomic_thread_fence({order}, {});", scope(s)),
                None => format!("atomic_thread_fence({order});"),
            }),
            (true, Some(s)) => Ok(format!(
                "atomic_work_item_fence({}, {order}, {});",
                flags(&t.regions),
                scope(s)
            )),
            _ => no_fence(),
        }
    }

    /// `barrier(flags)` (OpenCL): tags SYNC, WG and the regions; the whole work-group.
    pub(super) fn barrier(&self, count: Option<&Expr>, tags: &[Tag]) -> Msg<String> {
        let regions: Vec<Tag> = tags
            .iter()
            .copied()
            .filter(|t| !matches!(t, Tag::Sync | Tag::Wg))
            .collect();
        let shape = tags.iter().filter(|t| **t == Tag::Sync).count() == 1
            && tags.iter().filter(|t| **t == Tag::Wg).count() == 1
            && regions.iter().all(|r| c::FENCE_FLAGS.has(*r))
            && regions.len() == regions.iter().collect::<HashSet<_>>().len();
        if !self.opencl || count.is_some() || !shape {
            return Err(format!(
                "a barrier with tags [{}]{} has no C call (OpenCL's `barrier(flags)` waits for the whole work-group)",
                vocab::join(tags, ", "),
                if count.is_some() { " and a thread count" } else { "" }
            ));
        }
        Ok(format!("barrier({})", flags(&regions)))
    }
}

/// The tags of one instruction, sorted by role.
struct Tags {
    order: Tag,
    scope: Option<Tag>,
    volatile: bool,
    /// GLOBAL / LOCAL, in their order.
    regions: Vec<Tag>,
}

impl Tags {
    fn split(tags: &[Tag], opencl: bool) -> Msg<Tags> {
        let mut orders = vec![];
        let mut scopes = vec![];
        let mut volatile = 0;
        let mut regions = vec![];
        for &t in tags {
            match t {
                Tag::Na => orders.push(t),
                t if c::MEMORY_ORDERS.has(t) => orders.push(t),
                t if c::scopes(opencl).has(t) => scopes.push(t),
                Tag::V if !opencl => volatile += 1,
                t if opencl && c::FENCE_FLAGS.has(t) && !regions.contains(&t) => regions.push(t),
                _ => {
                    return Err(format!(
                        "tags [{}]: `{t}` has no C spelling in a {} test",
                        vocab::join(tags, ", "),
                        if opencl { "OpenCL" } else { "C11" }
                    ))
                }
            }
        }
        match (orders.as_slice(), scopes.as_slice(), volatile) {
            ([order], [] | [_], 0 | 1) => Ok(Tags {
                order: *order,
                scope: scopes.first().copied(),
                volatile: volatile == 1,
                regions,
            }),
            _ => Err(format!(
                "tags [{}] need exactly one memory order and at most one scope",
                vocab::join(tags, ", ")
            )),
        }
    }
}

/// OpenCL fence flags for the regions, in their order (`0` for none).
fn flags(regions: &[Tag]) -> String {
    if regions.is_empty() {
        return "0".into();
    }
    let words: Vec<&str> = regions
        .iter()
        .map(|r| c::FENCE_FLAGS.spelling(*r))
        .collect();
    words.join(" | ")
}

fn use_name(u: Use) -> &'static str {
    match u {
        Use::Load => "load",
        Use::Store => "store",
        Use::Rmw => "read-modify-write",
    }
}

pub(super) fn fetch_name(op: BinOp) -> Msg<&'static str> {
    Ok(match op {
        BinOp::Add => "atomic_fetch_add",
        BinOp::Sub => "atomic_fetch_sub",
        BinOp::And => "atomic_fetch_and",
        BinOp::Or => "atomic_fetch_or",
        BinOp::Xor => "atomic_fetch_xor",
        BinOp::Mul => return Err("C has no atomic_fetch_mul".into()),
    })
}
