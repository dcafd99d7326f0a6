//! PTX, the instruction set, as data: its memory instructions (`OpKind`) and the forms each has
//! (`FORMS`: the `.sem` it accepts, its defaults), the scope order, the one-step-stronger
//! semantics (`STRONGER`), what `.volatile` means; and PTX's words for vocabulary tags: `.sem`
//! qualifiers, `.scope` qualifiers, `membar` levels and barrier modes, and how an instruction's
//! tags split into the qualifiers PTX writes for them. The PTX litmus front end, the mapping
//! language's templates, `repair`'s space and the GPU emitters read these; none keeps a copy.
//!
//! PTX 7.5's proxies: the proxy words of `fence.proxy.*` and of alias declarations
//! (`s @ surface aliases x`), and the mnemonics of accesses through a non-generic proxy (`sust`,
//! `suld`, `tld`, `cold`); the generic proxy has no tag.
//!
//! Owns: `OpKind`, `Form`, `FORMS` (with each form's refusals, the one wording of why PTX has
//! no such instruction), `scope_order`, `STRONGER`, `VOLATILE`, `releases`,
//! `acquires`, the word tables and `split` / `unsupported`, shared by the PTX printer
//! (`litmus::print`) and the PTX emitter (`gpu::cuda::events`). Read by the PTX litmus front end
//! and the mapping's target templates. A volatile access is tagged RLX SYS V (PTX: `.volatile`
//! has "the same memory synchronization semantics as `.relaxed.sys`").
use super::Words;
use crate::vocab::{self, Level, Tag};

/// A PTX memory instruction as the memory model sees it: the shape of its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// `ld`: one read.
    Load,
    /// `st`: one write.
    Store,
    /// `atom` (and `red`): a read and a write joined by `rmw`.
    Rmw,
    /// `fence` (and `membar`, a synonym of `fence.sc`).
    Fence,
}

/// What PTX allows on one instruction (PTX ISA 8.x, §9.7.9.8 `ld`, §9.7.9.9 `st`, §9.7.13.5
/// `atom`, §9.7.13.6 `red`, §9.7.13.4 `membar`/`fence`).
pub(crate) struct Form {
    pub(crate) kind: OpKind,
    /// How it is written: `ld`, `st`, `atom`, `red`, `fence`.
    pub(crate) mnemonic: &'static str,
    /// The tag that sets it apart from the kind's first form (`red`: RED, on both its events);
    /// `None` for the first.
    pub(crate) flavour: Option<Tag>,
    /// The `.sem` it accepts (`weak` and `volatile` among them for `ld` / `st`).
    pub(crate) semantics: &'static [Tag],
    /// The `.sem` it has when none is written.
    pub(crate) default_semantics: Tag,
    /// The scope it has when a scoped semantics is written without one (`atom`: `.gpu`);
    /// `None` where one must be written.
    pub(crate) default_scope: Option<Tag>,
    /// The operations it takes (`.add`), of those mapcheck models; empty for `ld`, `st`, `fence`.
    /// `sub` is not PTX's: it is the word of Dat3M's PTX litmus suite, read as adding the
    /// negated operand (which is how the CUDA emitter writes it).
    pub(crate) ops: &'static [&'static str],
    /// Does it return the old value to a register (`atom`; `red` has no destination)?
    pub(crate) returns: bool,
}

/// The arithmetic and bitwise operations of both `atom` and `red`.
const ARITHMETIC_OPS: [&str; 5] = ["add", "sub", "and", "or", "xor"];

/// Every memory instruction's form: for each `OpKind` its first form, then its flavoured ones.
pub(crate) const FORMS: [Form; 5] = [
    Form {
        kind: OpKind::Load,
        mnemonic: "ld",
        flavour: None,
        semantics: &[Tag::Weak, Tag::Rlx, Tag::Acq, Tag::V],
        default_semantics: Tag::Weak,
        default_scope: None,
        ops: &[],
        returns: true,
    },
    Form {
        kind: OpKind::Store,
        mnemonic: "st",
        flavour: None,
        semantics: &[Tag::Weak, Tag::Rlx, Tag::Rel, Tag::V],
        default_semantics: Tag::Weak,
        default_scope: None,
        ops: &[],
        returns: false,
    },
    Form {
        kind: OpKind::Rmw,
        mnemonic: "atom",
        flavour: None,
        semantics: &[Tag::Rlx, Tag::Acq, Tag::Rel, Tag::AcqRel],
        default_semantics: Tag::Rlx,
        default_scope: Some(Tag::Gpu),
        ops: &["add", "sub", "and", "or", "xor", "exch", "cas"],
        returns: true,
    },
    Form {
        kind: OpKind::Rmw,
        mnemonic: "red",
        flavour: Some(Tag::Red),
        semantics: &[Tag::Rlx, Tag::Rel],
        default_semantics: Tag::Rlx,
        default_scope: Some(Tag::Gpu),
        ops: &ARITHMETIC_OPS,
        returns: false,
    },
    Form {
        kind: OpKind::Fence,
        mnemonic: "fence",
        flavour: None,
        semantics: &[Tag::Sc, Tag::AcqRel, Tag::Acq, Tag::Rel],
        default_semantics: Tag::AcqRel,
        default_scope: None,
        ops: &[],
        returns: false,
    },
];

impl OpKind {
    /// Every kind, in the order the mapping language lists them.
    pub(crate) const ALL: [OpKind; 4] = [OpKind::Load, OpKind::Store, OpKind::Rmw, OpKind::Fence];

    /// The kind's first form (`atom` for an RMW).
    pub(crate) fn form(self) -> &'static Form {
        let form = FORMS.iter().find(|f| f.kind == self);
        form.expect("FORMS has a row per kind")
    }
    pub(crate) fn mnemonic(self) -> &'static str {
        self.form().mnemonic
    }
    pub(crate) fn is_access(self) -> bool {
        self != OpKind::Fence
    }
}

impl Form {
    /// The form written `mnemonic`.
    pub(crate) fn named(mnemonic: &str) -> Option<&'static Form> {
        FORMS.iter().find(|f| f.mnemonic == mnemonic)
    }

    /// The form of an instruction of `kind` with `tags`: the flavoured form whose flavour is
    /// among them, else the kind's first.
    pub(crate) fn of(kind: OpKind, tags: &[Tag]) -> &'static Form {
        let flavoured = FORMS
            .iter()
            .find(|f| f.kind == kind && f.flavour.is_some_and(|t| tags.contains(&t)));
        flavoured.unwrap_or(kind.form())
    }

    /// The `.sem` words it accepts, as a message lists them: "`.sc`, `.acq_rel` or `.release`".
    pub(crate) fn listed_semantics(&self) -> String {
        listed(self.semantics.iter().map(|&t| SEMANTICS.spelling(t)))
    }

    /// Why PTX has no such instruction with semantics `sem`; `None` when it has. The front end,
    /// the mapping's templates, the printer and the CUDA emitter all give this reason.
    pub(crate) fn semantics_refusal(&self, sem: Tag) -> Option<String> {
        let word = SEMANTICS
            .word(sem)
            .map_or(sem.name().to_string(), |w| format!(".{w}"));
        (!self.semantics.contains(&sem)).then(|| {
            format!(
                "`{}` cannot be `{word}`; expected {}",
                self.mnemonic,
                self.listed_semantics()
            )
        })
    }

    /// Why PTX has no such instruction with operation `op` (its word, `exch`); `None` when it has.
    pub(crate) fn op_refusal(&self, op: &str) -> Option<String> {
        (!self.ops.contains(&op)).then(|| {
            format!(
                "`{}` cannot be `.{op}`; expected {}",
                self.mnemonic,
                listed(self.ops.iter().copied())
            )
        })
    }
}

/// An instruction's tags as one of PTX's forms reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Written {
    pub(crate) form: &'static Form,
    /// Its `.sem`: WEAK, V (`.volatile`, which is RLX SYS V) or a scoped semantics.
    pub(crate) sem: Tag,
    /// Its scope, for a scoped semantics.
    pub(crate) scope: Option<Tag>,
}

impl PartialEq for Form {
    fn eq(&self, other: &Form) -> bool {
        self.mnemonic == other.mnemonic
    }
}
impl Eq for Form {}
impl std::fmt::Debug for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.mnemonic)
    }
}

impl Written {
    /// The qualifiers PTX writes after the mnemonic (`.acquire.gpu`, `.weak`, `.volatile`).
    pub(crate) fn quals(&self) -> String {
        let tags: Vec<Tag> = [self.sem].into_iter().chain(self.scope).collect();
        quals(&tags)
    }
}

/// How PTX writes an instruction of `kind` with `tags` (a generic-proxy access, an `atom` or
/// `red`, a memory fence), or why it cannot: the one reading of `FORMS` that the printer and the
/// CUDA emitter share (the front end builds tags by the same rows).
pub(crate) fn written(kind: OpKind, tags: &[Tag]) -> Result<Written, String> {
    let form = Form::of(kind, tags);
    let q = split(tags);
    let flavour: Vec<Tag> = form.flavour.into_iter().collect();
    let volatile: Vec<Tag> = [Tag::V].into_iter().chain(form.flavour).collect();
    let (sem, scope) = match (q.sem.as_slice(), q.scope.as_slice(), q.rest.as_slice()) {
        ([Tag::Rlx], [Tag::Sys], rest) if rest == volatile => (Tag::V, None),
        ([sem], [], rest) if !is_scoped(*sem) && rest == flavour => (*sem, None),
        ([sem], [scope], rest) if is_scoped(*sem) && rest == flavour => (*sem, Some(*scope)),
        _ => return Err(unsupported(tags)),
    };
    match form.semantics_refusal(sem) {
        Some(refusal) => Err(refusal),
        None => Ok(Written { form, sem, scope }),
    }
}

/// PTX's scope words, as a message lists them: "`.cta`, `.gpu` or `.sys`".
pub(crate) fn listed_scopes() -> String {
    listed(scope_order().map(|t| SCOPES.spelling(t)))
}

/// A table's words as a message lists them: "`.cta`, `.gl` or `.sys`".
pub(crate) fn listed_words(table: &Words) -> String {
    listed(table.0.iter().map(|&(w, _)| w))
}

/// Qualifier words as a message lists them: "`.a`, `.b` or `.c`".
fn listed<'w>(words: impl Iterator<Item = &'w str>) -> String {
    let words: Vec<String> = words.map(|w| format!("`.{w}`")).collect();
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Does an instruction with semantics `sem` have a scope? `.weak` has none, and `.volatile` is
/// system-scoped without writing one.
pub(crate) fn is_scoped(sem: Tag) -> bool {
    !matches!(sem, Tag::Weak | Tag::V)
}

/// The tags of a `.volatile` access: the ISA gives it "the same memory synchronization
/// semantics as `.relaxed.sys`", plus V, which ptxas treats as its own qualifier.
pub(crate) const VOLATILE: [Tag; 3] = [Tag::Rlx, Tag::Sys, Tag::V];

/// PTX's scopes, narrowest first: each includes the ones before it (`SCOPES`' rows, in order).
pub(crate) fn scope_order() -> impl Iterator<Item = Tag> {
    SCOPES.0.iter().map(|&(_, t)| t)
}

/// PTX's semantics orders, one step per row: on an instruction of this kind, the second
/// semantics keeps every order the first keeps, and more. `.volatile` is on no row (`repair`
/// leaves it as it is).
pub(crate) const STRONGER: &[(OpKind, Tag, Tag)] = &[
    (OpKind::Load, Tag::Weak, Tag::Rlx),
    (OpKind::Load, Tag::Rlx, Tag::Acq),
    (OpKind::Store, Tag::Weak, Tag::Rlx),
    (OpKind::Store, Tag::Rlx, Tag::Rel),
    (OpKind::Rmw, Tag::Rlx, Tag::Acq),
    (OpKind::Rmw, Tag::Rlx, Tag::Rel),
    (OpKind::Rmw, Tag::Acq, Tag::AcqRel),
    (OpKind::Rmw, Tag::Rel, Tag::AcqRel),
    (OpKind::Fence, Tag::Acq, Tag::AcqRel),
    (OpKind::Fence, Tag::Rel, Tag::AcqRel),
    (OpKind::Fence, Tag::AcqRel, Tag::Sc),
];

/// Does semantics `sem` release (order what comes before it)?
pub(crate) fn releases(sem: Tag) -> bool {
    matches!(sem, Tag::Rel | Tag::AcqRel | Tag::Sc)
}

/// Does semantics `sem` acquire (order what comes after it)?
pub(crate) fn acquires(sem: Tag) -> bool {
    matches!(sem, Tag::Acq | Tag::AcqRel | Tag::Sc)
}

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

/// `.scope` words (`fence.sc.gpu`), narrowest first (`scope_order`). PTX ISA §8.5 "Scope":
/// `.cta`, `.cluster` (PTX 7.8+, sm_90: "the set of all threads executing in the same cluster
/// as the current thread"), `.gpu`, `.sys`.
pub(crate) const SCOPES: Words = Words(&[
    ("cta", Tag::Cta),
    ("cluster", Tag::Cluster),
    ("gpu", Tag::Gpu),
    ("sys", Tag::Sys),
]);

/// Scopes PTX added after PTX 6.0 (ASPLOS'19's PTX), with the version that added each: PTX ISA,
/// "Changes in PTX ISA Version 7.8" (`.cluster`, sm_90).
pub(crate) const SCOPES_SINCE: [(Tag, &str); 1] = [(Tag::Cluster, "7.8")];

/// PTX 6.0's scopes, narrowest first: what a tool offers unless a mapping or a model names a later
/// one (`compare`'s classes, `repair`'s default prices).
pub(crate) fn scopes_of_ptx_6() -> impl Iterator<Item = Tag> {
    scope_order().filter(|t| SCOPES_SINCE.iter().all(|(s, _)| s != t))
}

/// The words of a thread's placement in a test's header (`P0@cta 0,cluster 0,gpu 0`),
/// innermost first; a level not written is instance 0.
pub(crate) const PLACEMENT: [(&str, Level); 3] = [
    ("cta", Level::Cta),
    ("cluster", Level::Cluster),
    ("gpu", Level::Gpu),
];

/// How `membar` is written: a synonym of `fence.sc` (its levels below).
pub(crate) const MEMBAR: &str = "membar";

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
    fn forms_are_indexed_by_kind_and_their_semantics_have_words() {
        for kind in OpKind::ALL {
            assert_eq!(kind.form().kind, kind);
            assert_eq!(kind.form().flavour, None);
        }
        for form in &FORMS {
            assert!(form.semantics.contains(&form.default_semantics));
            assert!(form.semantics.iter().all(|&t| SEMANTICS.has(t)));
            assert_eq!(
                Form::named(form.mnemonic).map(|f| f.mnemonic),
                Some(form.mnemonic)
            );
            let tags: Vec<Tag> = form.flavour.into_iter().collect();
            assert_eq!(Form::of(form.kind, &tags).mnemonic, form.mnemonic);
            assert_eq!(
                form.ops.is_empty(),
                form.kind != OpKind::Rmw,
                "{}",
                form.mnemonic
            );
        }
        assert_eq!(OpKind::Rmw.form().default_scope, Some(Tag::Gpu));
        let red = Form::named("red").unwrap();
        assert_eq!(
            red.semantics_refusal(Tag::Acq).as_deref(),
            Some("`red` cannot be `.acquire`; expected `.relaxed` or `.release`")
        );
        assert!(red
            .op_refusal("exch")
            .unwrap()
            .starts_with("`red` cannot be `.exch`"));
        assert_eq!(
            OpKind::Fence.form().listed_semantics(),
            "`.sc`, `.acq_rel`, `.acquire` or `.release`"
        );
        assert_eq!(listed_scopes(), "`.cta`, `.cluster`, `.gpu` or `.sys`");
    }

    #[test]
    fn each_stronger_step_stays_within_its_instructions_forms() {
        for &(kind, weak, strong) in STRONGER {
            let sems = kind.form().semantics;
            assert!(
                sems.contains(&weak) && sems.contains(&strong),
                "{kind:?} {weak} {strong}"
            );
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
