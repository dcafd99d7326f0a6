//! Which OpenCL C atomic each tag becomes: an access's memory order and scope, a fence, a
//! fetch function, a comparison, a 32-bit word. Which order and scope the harness gives each
//! tag is decided here (decision 003); their words are `isa::c`'s.
//!
//! Owns: `Kind`, `access`, `order`, `scope`, `failure_order`, `fence`, `fetch_function`, `cmp`,
//! `word`. Used by `opencl::thread`.
use crate::diag::{Error, Result};
use crate::isa::c;
use crate::litmus::{BinOp, CmpOp, Litmus};
use crate::vocab::{self, Level, Role, Tag};

/// What an access is: a load, a store, or both.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Load,
    Store,
    Rmw,
}

/// The memory order and scope of an access; `None` for a plain (weak, non-atomic) one.
pub(super) fn access(
    test: &Litmus,
    tags: &[Tag],
    kind: Kind,
) -> Result<Option<(&'static str, &'static str)>> {
    if let Some(proxy) = tags.iter().find(|t| t.role() == Role::Proxy) {
        return Err(Error::file(
            &test.name,
            format!("an access through the PTX 7.5 {proxy} proxy has no OpenCL C form"),
        ));
    }
    let Some(order) = order(test, tags)? else {
        return Ok(None);
    };
    let fits = match kind {
        Kind::Load => matches!(order, Tag::Rlx | Tag::Acq | Tag::Sc),
        Kind::Store => matches!(order, Tag::Rlx | Tag::Rel | Tag::Sc),
        Kind::Rmw => true,
    };
    let order = c::MEMORY_ORDERS.spelling(order);
    if !fits {
        return Err(Error::file(
            &test.name,
            format!(
                "an access tagged {} has no OpenCL C form ({order} on a {})",
                vocab::join(tags, " "),
                if kind == Kind::Load { "load" } else { "store" }
            ),
        ));
    }
    Ok(Some((order, scope(test, tags)?)))
}

/// The memory order the harness gives the tags (consume is acquire); `None` for weak and
/// non-atomic accesses.
fn order(test: &Litmus, tags: &[Tag]) -> Result<Option<Tag>> {
    const ORDERS: &[(Tag, Option<Tag>)] = &[
        (Tag::Sc, Some(Tag::Sc)),
        (Tag::AcqRel, Some(Tag::AcqRel)),
        (Tag::Acq, Some(Tag::Acq)),
        (Tag::Con, Some(Tag::Acq)),
        (Tag::Rel, Some(Tag::Rel)),
        (Tag::Rlx, Some(Tag::Rlx)),
        (Tag::Weak, None),
        (Tag::Na, None),
    ];
    ORDERS
        .iter()
        .find(|(tag, _)| tags.contains(tag))
        .map(|(_, o)| *o)
        .ok_or_else(|| {
            Error::file(
                &test.name,
                format!("no memory order among the tags {}", vocab::join(tags, " ")),
            )
        })
}

/// The OpenCL memory scope of the tags (device when none is given): the `memory_scope_*` of
/// the scope tag's level (`Tag::level`), the system read as the device (the harness runs on
/// one). A scope inside a work-group is refused: the test threads are separate work-items,
/// never one sub-group.
fn scope(test: &Litmus, tags: &[Tag]) -> Result<&'static str> {
    let Some((tag, level)) = tags.iter().find_map(|&t| t.level().map(|l| (t, l))) else {
        return Ok(c::OPENCL_SCOPES.spelling(Tag::Dev));
    };
    let refuse = |why: &str| Err(Error::file(&test.name, format!("scope {tag} {why}")));
    let level = match level {
        Level::Thread | Level::Subgroup => {
            return refuse("is not supported by the harness (test threads are separate work-items, never one sub-group)")
        }
        Level::System => Level::Gpu,
        level => level,
    };
    match c::OPENCL_SCOPES
        .0
        .iter()
        .find(|(_, t)| t.level() == Some(level))
    {
        Some(&(word, _)) => Ok(word),
        None => refuse("has no OpenCL memory scope"),
    }
}

/// A CAS's failure order: its read's order, without the release part C forbids there.
pub(super) fn failure_order(test: &Litmus, tags: &[Tag]) -> Result<&'static str> {
    let order = match order(test, tags)? {
        Some(Tag::AcqRel) => Tag::Acq,
        Some(Tag::Rel) | None => Tag::Rlx,
        Some(o) => o,
    };
    Ok(c::MEMORY_ORDERS.spelling(order))
}

pub(super) fn fence(test: &Litmus, tags: &[Tag]) -> Result<String> {
    let order = match order(test, tags)? {
        Some(o) if o != Tag::Rlx => c::MEMORY_ORDERS.spelling(o),
        _ => {
            return Err(Error::file(
                &test.name,
                format!("a fence tagged {} orders nothing", vocab::join(tags, " ")),
            ))
        }
    };
    let flags: Vec<&str> = [Tag::Global, Tag::Local]
        .into_iter()
        .filter(|t| tags.contains(t))
        .map(|t| c::FENCE_FLAGS.spelling(t))
        .collect();
    let flags = if flags.is_empty() {
        c::FENCE_FLAGS.spelling(Tag::Global).to_string()
    } else {
        flags.join(" | ")
    };
    Ok(format!(
        "atomic_work_item_fence({flags}, {order}, {});",
        scope(test, tags)?
    ))
}

pub(super) fn fetch_function(test: &str, op: BinOp) -> Result<&'static str> {
    Ok(match op {
        BinOp::Add => "atomic_fetch_add_explicit",
        BinOp::Sub => "atomic_fetch_sub_explicit",
        BinOp::And => "atomic_fetch_and_explicit",
        BinOp::Or => "atomic_fetch_or_explicit",
        BinOp::Xor => "atomic_fetch_xor_explicit",
        BinOp::Mul => {
            return Err(Error::file(test, "OpenCL C has no atomic multiplication"));
        }
    })
}

pub(super) fn cmp(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// A constant as a 32-bit word.
pub(super) fn word(test: &str, v: i64) -> Result<i32> {
    i32::try_from(v).map_err(|_| {
        Error::file(
            test,
            format!("value {v} does not fit the harness's 32-bit memory words"),
        )
    })
}
