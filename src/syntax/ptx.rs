//! PTX's words for vocabulary tags: `.sem` qualifiers, `.scope` qualifiers, `membar` levels and
//! barrier modes, and how an instruction's tags split into the qualifiers PTX writes for them.
//!
//! PTX 7.5's proxies: the proxy words of `fence.proxy.*` and of alias declarations
//! (`s @ surface aliases x`), and the mnemonics of accesses through a non-generic proxy (`sust`,
//! `suld`, `tld`, `cold`); the generic proxy has no tag.
//!
//! Owns: the PTX tables and `split` / `unsupported`, shared by the PTX printer
//! (`litmus::print`) and the PTX emitter (`gpu::ptx::events`). Read by the PTX litmus front end
//! and the mapping's target templates. A volatile access is tagged RLX SYS V (PTX: `.volatile`
//! has "the same memory synchronization semantics as `.relaxed.sys`").
use super::Words;
use crate::vocab::{self, Tag};

/// `.sem` words (`ld.acquire`).
pub(crate) const SEMANTICS: Words = Words(&[
    ("weak", Tag::Weak),
    ("relaxed", Tag::Rlx),
    ("acquire", Tag::Acq),
    ("release", Tag::Rel),
    ("acq_rel", Tag::AcqRel),
    ("sc", Tag::Sc),
    ("volatile", Tag::V),
]);

/// `.scope` words (`fence.sc.gpu`).
pub(crate) const SCOPES: Words = Words(&[("cta", Tag::Cta), ("gpu", Tag::Gpu), ("sys", Tag::Sys)]);

/// `membar` levels: `membar.lvl` is `fence.sc` at the corresponding scope.
pub(crate) const MEMBAR_LEVELS: Words =
    Words(&[("cta", Tag::Cta), ("gl", Tag::Gpu), ("sys", Tag::Sys)]);

/// Barrier modes (`bar.cta.sync`, `bar.cta.arrive`).
pub(crate) const BARRIER_MODES: Words = Words(&[("sync", Tag::Sync), ("arrive", Tag::Arrive)]);

/// Non-generic proxies (`fence.proxy.surface`, `s @ surface aliases x`).
pub(crate) const PROXIES: Words = Words(&[
    ("surface", Tag::Sur),
    ("texture", Tag::Tex),
    ("constant", Tag::Const),
]);

/// The generic proxy (`y @ generic aliases x`): the proxy of `ld`, `st`, `atom`, `red`; no tag.
pub(crate) const GENERIC: &str = "generic";

/// `fence.proxy.alias`: orders accesses to one location through different virtual addresses.
pub(crate) const ALIAS_FENCE: Words = Words(&[("alias", Tag::Alias)]);

/// Loads through a non-generic proxy: surface, texture and constant-cache loads.
pub(crate) const PROXY_LOADS: Words =
    Words(&[("suld", Tag::Sur), ("tld", Tag::Tex), ("cold", Tag::Const)]);

/// Stores through a non-generic proxy: surface stores.
pub(crate) const PROXY_STORES: Words = Words(&[("sust", Tag::Sur)]);

/// An instruction's tags, sorted by the PTX qualifier they become.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Quals {
    /// Tags with a `.sem` word other than `volatile`, in their order.
    pub(crate) sem: Vec<Tag>,
    /// Tags with a `.scope` word, in their order.
    pub(crate) scope: Vec<Tag>,
    /// Every other tag (V, RED, barrier modes, tags PTX cannot write).
    pub(crate) rest: Vec<Tag>,
}

/// Sort tags into semantics, scopes and the rest. V goes to the rest: a volatile access is
/// RLX SYS plus V, and only the whole triple is `.volatile`.
pub(crate) fn split(tags: &[Tag]) -> Quals {
    let mut q = Quals::default();
    for &t in tags {
        match t {
            Tag::V => q.rest.push(t),
            t if SEMANTICS.has(t) => q.sem.push(t),
            t if SCOPES.has(t) => q.scope.push(t),
            t => q.rest.push(t),
        }
    }
    q
}

/// The qualifiers PTX writes for `tags`, in their order (`.acquire.gpu`): each tag's `.sem` or
/// `.scope` word, or its name where it has none; tags with V among them are `.volatile` alone.
pub(crate) fn quals(tags: &[Tag]) -> String {
    if tags.contains(&Tag::V) {
        return format!(".{}", SEMANTICS.word(Tag::V).unwrap_or_default());
    }
    let words = tags
        .iter()
        .map(|&t| SEMANTICS.word(t).or(SCOPES.word(t)).unwrap_or(t.name()));
    words.map(|w| format!(".{w}")).collect()
}

/// The message for tags that no PTX instruction carries.
pub(crate) fn unsupported(tags: &[Tag]) -> String {
    format!("tags [{}] have no PTX qualifiers", vocab::join(tags, ", "))
}

#[cfg(test)]
mod tests {
    use super::super::assert_round_trips;
    use super::*;

    #[test]
    fn semantics_round_trip() {
        assert_round_trips(&SEMANTICS, &[]);
    }

    #[test]
    fn scopes_round_trip() {
        assert_round_trips(&SCOPES, &[]);
    }

    #[test]
    fn membar_levels_round_trip() {
        assert_round_trips(&MEMBAR_LEVELS, &[]);
    }

    #[test]
    fn barrier_modes_round_trip() {
        assert_round_trips(&BARRIER_MODES, &[]);
    }

    #[test]
    fn proxy_words_round_trip() {
        for table in [&PROXIES, &ALIAS_FENCE, &PROXY_LOADS, &PROXY_STORES] {
            assert_round_trips(table, &[]);
        }
    }

    #[test]
    fn qualifiers_are_written_in_order() {
        assert_eq!(quals(&[Tag::Acq, Tag::Gpu]), ".acquire.gpu");
        assert_eq!(quals(&[Tag::Rlx, Tag::Sys, Tag::V]), ".volatile");
    }

    #[test]
    fn volatile_splits_as_relaxed_system_plus_v() {
        let q = split(&[Tag::Rlx, Tag::Sys, Tag::V]);
        assert_eq!(
            (q.sem, q.scope, q.rest),
            (vec![Tag::Rlx], vec![Tag::Sys], vec![Tag::V])
        );
    }
}
