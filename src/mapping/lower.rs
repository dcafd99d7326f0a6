//! Giving a parsed mapping file its meaning: scope correspondences, declared classes, rules
//! expanded to one instruction sequence per class; and the checks that make a table usable —
//! tags exist, PTX qualifiers are legal, every declared class has exactly one rule.
//!
//! Owns: `Table` (a checked mapping without its models), `Rule`, `lower`. Uses: `ast`, `class`,
//! `ptx`, `diag`.
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::diag;
use crate::mapping::ast::{self, Item, Pattern, ScopePat, Seq, Span, Word};
use crate::mapping::class::{Class, ClassKind, Tag};
use crate::mapping::ptx::{self, TargetOp, Template};
use crate::vocab::{self, Role};

/// What one source class compiles to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub ops: Vec<TargetOp>,
    /// Index in `ops` of the instruction that stands for the source operation: for a memory access
    /// the target access that carries its `rf` and `co` edges (the only access of the sequence);
    /// for a fence compiled to exactly one fence, that fence; otherwise `None`.
    pub main: Option<usize>,
    /// `file:line` of the rule.
    pub(crate) origin: String,
    /// The rule as written.
    pub(crate) text: String,
}

impl Rule {
    /// The rule of `class` made by a tool rather than read from a file (`origin` says which):
    /// `ops` must have the shape `lower` checks (an access class: exactly one access, of its own
    /// kind; a fence class: fences only). Its text is `CLASS -> ops` with PTX's spelling.
    pub(crate) fn made(class: Class, ops: Vec<TargetOp>, origin: String) -> Rule {
        let main = match class.kind {
            ClassKind::F => (ops.len() == 1).then_some(0),
            _ => ops.iter().position(|op| op.kind.is_access()),
        };
        let text = format!("{class} -> {}", ptx::sequence_text(&ops));
        Rule {
            ops,
            main,
            origin,
            text,
        }
    }
}

/// A checked mapping table, before its models are loaded.
#[derive(Clone, Debug)]
pub struct Table {
    /// Source and target model paths as written (relative to the mapping file), with spans.
    pub(crate) source: Word,
    pub(crate) target: Word,
    /// The herd variants the source and target models are read with, as written.
    pub(crate) source_variants: Vec<Word>,
    pub(crate) target_variants: Vec<Word>,
    /// Scope correspondence, source tag → target tag, in file order.
    pub(crate) scopes: Vec<(Tag, Tag)>,
    /// Source tags the mapping discards.
    pub dropped: Vec<Tag>,
    /// `locations typed`: in the source language a location is atomic or not, so no location
    /// takes both atomic and non-atomic (`NA`) accesses (OpenCL C's `atomic_*` types). The
    /// default, `locations mixed`, allows both (C++'s `atomic_ref`, CUDA's `cuda::atomic_ref`).
    pub(crate) typed_locations: bool,
    /// The `inexpressible "…"` rows: what the table does that no rule states, in file order.
    pub(crate) inexpressible: Vec<String>,
    /// Declared classes, in declaration order.
    pub classes: Vec<Class>,
    pub rules: HashMap<Class, Rule>,
}

/// Check a parsed file and expand its rules.
pub(crate) fn lower(path: &str, src: &Arc<str>, file: ast::File) -> diag::Result<Table> {
    let mut lw = Lowerer::new(path, src);
    lw.target_isa(&file.target_isa)?;
    for item in &file.items {
        match item {
            Item::Scope { from, to, .. } => lw.scope(from, to)?,
            Item::Drop(words) => lw.drop_tags(words)?,
            Item::Locations(w) => lw.locations(w)?,
            _ => {}
        }
    }
    for item in &file.items {
        if let Item::Class(p) = item {
            lw.declare(p)?;
        }
    }
    for item in &file.items {
        if let Item::Rule { pattern, seq, span } = item {
            lw.rule(pattern, seq, *span)?;
        }
    }
    lw.check_no_overridden_rule()?;
    lw.check_coverage()?;
    let Lowerer {
        scopes,
        dropped,
        typed_locations,
        classes,
        rules,
        ..
    } = lw;
    let inexpressible = (file.items.iter())
        .filter_map(|item| match item {
            Item::Inexpressible(text) => Some(text.text.clone()),
            _ => None,
        })
        .collect();
    Ok(Table {
        inexpressible,
        source: file.source,
        target: file.target,
        source_variants: file.source_variants,
        target_variants: file.target_variants,
        scopes,
        dropped,
        typed_locations,
        classes,
        rules,
    })
}

struct Lowerer<'a> {
    path: &'a str,
    src: &'a Arc<str>,
    scopes: Vec<(Tag, Tag)>,
    dropped: Vec<Tag>,
    typed_locations: bool,
    classes: Vec<Class>,
    declared_at: HashMap<Class, Span>,
    rules: HashMap<Class, Rule>,
    /// Where each class's rule is, and whether that rule names its scopes (a rule that names them
    /// wins over a `$s` rule on the classes both match).
    ruled_at: HashMap<Class, (Span, bool)>,
    /// The `$s` rules, to tell one that no class is left to.
    any_scope_rules: Vec<Span>,
}

impl<'a> Lowerer<'a> {
    fn new(path: &'a str, src: &'a Arc<str>) -> Self {
        Lowerer {
            path,
            src,
            scopes: vec![],
            dropped: vec![],
            typed_locations: false,
            classes: vec![],
            declared_at: HashMap::new(),
            rules: HashMap::new(),
            ruled_at: HashMap::new(),
            any_scope_rules: vec![],
        }
    }

    fn err(&self, span: Span, message: impl Into<String>) -> diag::Error {
        diag::Error::at(self.path, self.src, span.range(), message)
    }

    fn line_of(&self, span: Span) -> usize {
        self.src[..span.lo.min(self.src.len())]
            .matches('\n')
            .count()
            + 1
    }

    fn target_isa(&self, isa: &Word) -> diag::Result<()> {
        match isa.text.as_str() {
            "ptx" => Ok(()),
            other => Err(self.err(
                isa.span,
                format!("unknown target instruction set `{other}`; expected `ptx`"),
            )),
        }
    }

    // ---- scope lines and dropped tags ------------------------------------------------------

    fn locations(&mut self, w: &Word) -> diag::Result<()> {
        self.typed_locations = match w.text.as_str() {
            "typed" => true,
            "mixed" => false,
            other => {
                return Err(self.err(
                    w.span,
                    format!("expected `typed` or `mixed` after `locations`, found `{other}`"),
                ))
            }
        };
        Ok(())
    }

    fn scope(&mut self, from: &Word, to: &Word) -> diag::Result<()> {
        let source = self.scope_tag(from)?;
        let target = crate::isa::ptx::SCOPES.tag(&to.text).ok_or_else(|| {
            self.err(
                to.span,
                format!(
                    "unknown PTX scope `{}`; expected `cta`, `gpu` or `sys`",
                    to.text
                ),
            )
        })?;
        if self.scopes.iter().any(|(s, _)| *s == source) {
            return Err(self.err(
                from.span,
                format!("scope `{source}` already has a correspondence"),
            ));
        }
        self.scopes.push((source, target));
        Ok(())
    }

    fn drop_tags(&mut self, words: &[Word]) -> diag::Result<()> {
        for w in words {
            let t = self.any_tag(w)?;
            if matches!(t.role(), Role::Order | Role::Scope) {
                let msg = format!(
                    "`{t}` is a memory order or scope: it selects a class and cannot be dropped"
                );
                return Err(self.err(w.span, msg));
            }
            self.dropped.push(t);
        }
        Ok(())
    }

    // ---- tags --------------------------------------------------------------------------------

    fn any_tag(&self, w: &Word) -> diag::Result<Tag> {
        Tag::from_name(&w.text).ok_or_else(|| {
            self.err(
                w.span,
                format!("`{}` is not a tag of the event vocabulary", w.text),
            )
            .with_note(format!("tags: {}", vocab::join(&vocab::TAGS, " ")))
        })
    }

    fn order_tag(&self, w: &Word) -> diag::Result<Tag> {
        self.tag_of_role(w, Role::Order, "a memory order", "memory orders")
    }

    fn scope_tag(&self, w: &Word) -> diag::Result<Tag> {
        self.tag_of_role(w, Role::Scope, "a scope tag", "scope tags")
    }

    /// The tag `w` names, which must have `role` (`what` and `all` say it in messages).
    fn tag_of_role(&self, w: &Word, role: Role, what: &str, all: &str) -> diag::Result<Tag> {
        match Tag::from_name(&w.text) {
            Some(t) if t.role() == role => Ok(t),
            _ => {
                let tags: Vec<Tag> = Tag::with_role(role).collect();
                Err(self
                    .err(w.span, format!("`{}` is not {what}", w.text))
                    .with_note(format!("{all}: {}", vocab::join(&tags, " "))))
            }
        }
    }

    fn kind(&self, w: &Word) -> diag::Result<ClassKind> {
        ClassKind::parse(&w.text).ok_or_else(|| {
            self.err(
                w.span,
                format!(
                    "unknown operation kind `{}`; expected `R`, `W`, `RMW` or `F`",
                    w.text
                ),
            )
        })
    }

    /// The target scope of a source scope.
    fn image(&self, scope: Tag) -> Option<Tag> {
        self.scopes
            .iter()
            .find(|(s, _)| *s == scope)
            .map(|(_, t)| *t)
    }

    // ---- class declarations --------------------------------------------------------------------

    fn declare(&mut self, p: &Pattern) -> diag::Result<()> {
        let kind = self.kind(&p.kind)?;
        let orders = p
            .orders
            .words()
            .iter()
            .map(|w| self.order_tag(w))
            .collect::<diag::Result<Vec<_>>>()?;
        let scopes = self.declared_scopes(&p.scope, p.span)?;
        for &order in &orders {
            for &scope in &scopes {
                self.add_class(Class { kind, order, scope }, p.span)?;
            }
        }
        Ok(())
    }

    /// The scopes a declaration names: `$s` is every scope of the `scope` lines.
    fn declared_scopes(&self, pat: &ScopePat, span: Span) -> diag::Result<Vec<Option<Tag>>> {
        match pat {
            ScopePat::Unscoped => Ok(vec![None]),
            ScopePat::Var(_) if self.scopes.is_empty() => Err(self.err(
                span,
                "`$s` stands for every scope of the `scope … -> …` lines, and there are none",
            )),
            ScopePat::Var(_) => Ok(self.scopes.iter().map(|(s, _)| Some(*s)).collect()),
            ScopePat::Tags(choice) => choice
                .words()
                .iter()
                .map(|w| self.mapped_scope(w).map(Some))
                .collect(),
        }
    }

    /// A scope tag that has a correspondence.
    fn mapped_scope(&self, w: &Word) -> diag::Result<Tag> {
        let t = self.scope_tag(w)?;
        match self.image(t) {
            Some(_) => Ok(t),
            None => Err(self.err(
                w.span,
                format!("scope `{t}` has no correspondence; add `scope {t} -> …`"),
            )),
        }
    }

    fn add_class(&mut self, c: Class, span: Span) -> diag::Result<()> {
        if let Some(first) = self.declared_at.get(&c) {
            let note = format!("first declared at line {}", self.line_of(*first));
            return Err(self
                .err(span, format!("class {c} is declared twice"))
                .with_note(note));
        }
        self.declared_at.insert(c, span);
        self.classes.push(c);
        Ok(())
    }

    // ---- rules -------------------------------------------------------------------------------

    fn rule(&mut self, p: &Pattern, seq: &Seq, span: Span) -> diag::Result<()> {
        let matched = self.matched_classes(p)?;
        let var = match &p.scope {
            ScopePat::Var(v) => Some(v.text.as_str()),
            _ => None,
        };
        let templates = self.templates(seq, var)?;
        let main = self.check_shape(matched[0].kind, &templates, seq, span)?;
        let text = self.src[span.range()].trim().to_string();
        let names_scopes = var.is_none();
        if !names_scopes {
            self.any_scope_rules.push(p.span);
        }
        for c in matched {
            self.add_rule(c, &templates, main, (p.span, names_scopes), &text)?;
        }
        Ok(())
    }

    /// The declared classes a rule's pattern matches; every tag it names must match some.
    fn matched_classes(&self, p: &Pattern) -> diag::Result<Vec<Class>> {
        let kind = self.kind(&p.kind)?;
        let orders = p
            .orders
            .words()
            .iter()
            .map(|w| Ok((self.order_tag(w)?, w.span)))
            .collect::<diag::Result<Vec<_>>>()?;
        let scopes = self.scope_filter(&p.scope)?;
        let matched: Vec<Class> = self
            .classes
            .iter()
            .filter(|c| {
                c.kind == kind
                    && orders.iter().any(|(o, _)| *o == c.order)
                    && scopes.admits(c.scope)
            })
            .copied()
            .collect();
        if matched.is_empty() {
            return Err(self
                .err(p.span, "this pattern matches no declared class")
                .with_note(self.declared_note(kind)));
        }
        for (o, span) in &orders {
            if !matched.iter().any(|c| c.order == *o) {
                return Err(self.err(
                    *span,
                    format!(
                        "no declared class {}.{o} has the scopes this rule names",
                        kind.name()
                    ),
                ));
            }
        }
        if let ScopeFilter::Tags(tags) = &scopes {
            for (s, span) in tags {
                if !matched.iter().any(|c| c.scope == Some(*s)) {
                    return Err(self.err(
                        *span,
                        format!("no declared class of this kind and order has scope {s}"),
                    ));
                }
            }
        }
        Ok(matched)
    }

    fn declared_note(&self, kind: ClassKind) -> String {
        let same_kind: Vec<String> = self
            .classes
            .iter()
            .filter(|c| c.kind == kind)
            .map(|c| c.to_string())
            .collect();
        match same_kind.as_slice() {
            [] => format!("no {} class is declared", kind.name()),
            list => format!("declared {} classes: {}", kind.name(), list.join(", ")),
        }
    }

    fn scope_filter(&self, pat: &ScopePat) -> diag::Result<ScopeFilter> {
        match pat {
            ScopePat::Var(_) => Ok(ScopeFilter::AnyScope),
            ScopePat::Unscoped => Ok(ScopeFilter::Unscoped),
            ScopePat::Tags(choice) => {
                let tags = choice
                    .words()
                    .iter()
                    .map(|w| Ok((self.scope_tag(w)?, w.span)))
                    .collect::<diag::Result<_>>()?;
                Ok(ScopeFilter::Tags(tags))
            }
        }
    }

    fn templates(&self, seq: &Seq, var: Option<&str>) -> diag::Result<Vec<Template>> {
        match seq {
            Seq::Skip(_) => Ok(vec![]),
            Seq::Ops(ops) => ops
                .iter()
                .map(|op| ptx::template(op, var).map_err(|(span, msg)| self.err(span, msg)))
                .collect(),
        }
    }

    /// A memory-access class compiles to exactly one target access of its own kind (plus fences); a
    /// fence class to fences only. Returns the index of the main instruction.
    fn check_shape(
        &self,
        kind: ClassKind,
        ts: &[Template],
        seq: &Seq,
        span: Span,
    ) -> diag::Result<Option<usize>> {
        let accesses: Vec<usize> = ts
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind.is_access())
            .map(|(i, _)| i)
            .collect();
        if kind == ClassKind::F {
            return self.fence_shape(ts, &accesses);
        }
        let expected = ptx::OpKind::of_class(kind);
        let seq_span = match seq {
            Seq::Skip(s) => *s,
            Seq::Ops(_) => span,
        };
        match accesses.as_slice() {
            [i] if ts[*i].kind == expected => Ok(Some(*i)),
            [i] => Err(self.err(ts[*i].span, format!("{} must compile to `{}`", kind.describe(), expected.mnemonic()))),
            _ => Err(self.err(seq_span, format!(
                "{} must compile to exactly one memory access, `{}`, with any fences around it",
                kind.describe(),
                expected.mnemonic()
            ))
            .with_note("the access carries the source operation's rf and co; extra accesses would need locations the source program does not have")),
        }
    }

    fn fence_shape(&self, ts: &[Template], accesses: &[usize]) -> diag::Result<Option<usize>> {
        match accesses.first() {
            Some(i) => Err(self.err(
                ts[*i].span,
                "a fence (F) must compile to fences only, or to `skip`",
            )),
            None => Ok(if ts.len() == 1 { Some(0) } else { None }),
        }
    }

    fn add_rule(
        &mut self,
        c: Class,
        ts: &[Template],
        main: Option<usize>,
        (span, names_scopes): (Span, bool),
        text: &str,
    ) -> diag::Result<()> {
        match self.ruled_at.get(&c) {
            Some(&(_, true)) if !names_scopes => return Ok(()),
            Some(&(first, first_names_scopes)) if first_names_scopes == names_scopes => {
                let note = format!(
                    "{c} is already mapped by the rule at line {}",
                    self.line_of(first)
                );
                return Err(self
                    .err(span, format!("rules overlap: a second rule for {c}"))
                    .with_note(note)
                    .with_note(
                        "a rule that names its scopes may override a `$s` rule, nothing else",
                    ));
            }
            _ => {}
        }
        let image = c.scope.and_then(|s| self.image(s));
        let ops = ts
            .iter()
            .map(|t| {
                t.instantiate(image)
                    .ok_or_else(|| self.err(t.span, format!("{c} has no scope to put in `$s`")))
            })
            .collect::<diag::Result<Vec<_>>>()?;
        let origin = format!("{}:{}", self.path, self.line_of(span));
        self.ruled_at.insert(c, (span, names_scopes));
        self.rules.insert(
            c,
            Rule {
                ops,
                main,
                origin,
                text: text.to_string(),
            },
        );
        Ok(())
    }

    // ---- coverage ------------------------------------------------------------------------------

    /// A `$s` rule that rules naming their scopes override everywhere applies nowhere.
    fn check_no_overridden_rule(&self) -> diag::Result<()> {
        let ruling: HashSet<Span> = self.ruled_at.values().map(|(span, _)| *span).collect();
        match self.any_scope_rules.iter().find(|s| !ruling.contains(s)) {
            None => Ok(()),
            Some(dead) => Err(self
                .err(
                    *dead,
                    "every class this `$s` rule matches has a rule that names its scope",
                )
                .with_note(
                    "the rule applies nowhere: delete it, or name fewer scopes in the others",
                )),
        }
    }

    fn check_coverage(&self) -> diag::Result<()> {
        let missing: Vec<&Class> = self
            .classes
            .iter()
            .filter(|c| !self.rules.contains_key(*c))
            .collect();
        let Some(first) = missing.first() else {
            return Ok(());
        };
        let names: Vec<String> = missing.iter().map(|c| c.to_string()).collect();
        let plural = if missing.len() == 1 { "" } else { "es" };
        let msg = format!(
            "the mapping does not cover {} source class{plural}: {}",
            missing.len(),
            names.join(", ")
        );
        Err(self.err(self.declared_at[*first], msg).with_note(
            "every class declared with `class` needs exactly one rule `KIND.ORDER.SCOPE -> …`",
        ))
    }
}

/// Which scopes a rule's pattern admits.
enum ScopeFilter {
    /// `$s`: every scoped class.
    AnyScope,
    /// `_` or nothing: unscoped classes.
    Unscoped,
    /// The named scopes, with their spans.
    Tags(Vec<(Tag, Span)>),
}

impl ScopeFilter {
    fn admits(&self, scope: Option<Tag>) -> bool {
        match (self, scope) {
            (ScopeFilter::AnyScope, s) => s.is_some(),
            (ScopeFilter::Unscoped, s) => s.is_none(),
            (ScopeFilter::Tags(tags), Some(s)) => tags.iter().any(|(t, _)| *t == s),
            (ScopeFilter::Tags(_), None) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::mapping::parse_table;

    const HEADER: &str =
        "source \"s.cat\"\ntarget ptx \"t.cat\"\nscope CTA -> cta\nscope GPU -> gpu\n";

    fn table(body: &str) -> Result<super::Table, String> {
        parse_table("t.map", &format!("{HEADER}{body}")).map_err(|e| e.message)
    }

    fn ops(t: &super::Table, class: &str) -> Vec<String> {
        let c = t.classes.iter().find(|c| c.to_string() == class).unwrap();
        t.rules[c].ops.iter().map(|o| o.to_string()).collect()
    }

    #[test]
    fn scope_positions_underscore_sets_and_fixed_scopes() {
        let t = table(
            "class R.NA._\nclass W.{RLX, REL}.$s\nclass F.{ACQ, SC}.{GPU}\n\
             R.NA._ -> ld\nW.RLX.$s -> st.relaxed.$s\nW.REL.CTA -> st.release.cta\nW.REL.GPU -> membar.gl; st.relaxed.gpu\n\
             F.ACQ.GPU -> skip\nF.SC.GPU -> membar.gl",
        )
        .unwrap();
        assert_eq!(t.classes.len(), 7);
        assert_eq!(ops(&t, "R.NA"), ["ld.weak"]);
        assert_eq!(ops(&t, "W.RLX.CTA"), ["st.relaxed.cta"]);
        assert_eq!(ops(&t, "W.REL.GPU"), ["fence.sc.gpu", "st.relaxed.gpu"]);
        assert!(ops(&t, "F.ACQ.GPU").is_empty());
        assert_eq!(ops(&t, "F.SC.GPU"), ["fence.sc.gpu"]);
    }

    #[test]
    fn declarations_are_checked() {
        let cases = [
            ("class R.NA\nclass R.NA\nR.NA -> ld.weak", "declared twice"),
            (
                "scope CTA -> gpu\nclass R.NA\nR.NA -> ld.weak",
                "already has a correspondence",
            ),
            ("drop SC\nclass R.NA\nR.NA -> ld.weak", "cannot be dropped"),
            ("drop FOO\nclass R.NA\nR.NA -> ld.weak", "not a tag"),
            (
                "locations atomic\nclass R.NA\nR.NA -> ld.weak",
                "expected `typed` or `mixed`",
            ),
            ("class X.NA\nX.NA -> ld.weak", "unknown operation kind"),
            ("class R.GPU\nR.GPU -> ld.weak", "not a memory order"),
            ("class R.ACQ.NA\nR.ACQ.NA -> ld.weak", "not a scope tag"),
            (
                "class R.{ACQ, RLX}.$s\nR.{ACQ, REL}.$s -> ld.acquire.$s",
                "no declared class R.REL",
            ),
            (
                "class R.ACQ.CTA\nR.ACQ.{CTA, GPU} -> ld.acquire.cta",
                "has scope GPU",
            ),
            ("class W.NA\nW.NA -> atom.cta", "must compile to `st`"),
            ("class W.NA\nW.NA -> skip", "exactly one memory access"),
        ];
        for (body, expected) in cases {
            let e = table(body).expect_err(body);
            assert!(e.contains(expected), "{body}: {e}");
        }
        let other_isa = parse_table("t.map", "source \"s\"\ntarget x86 \"t\"\n").unwrap_err();
        assert!(other_isa.message.contains("expected `ptx`"));
    }

    #[test]
    fn a_rule_that_names_its_scope_overrides_a_dollar_s_rule_in_either_order() {
        for body in [
            "class R.{RLX, ACQ}.$s\nR.{RLX, ACQ}.$s -> ld.relaxed.$s\nR.ACQ.CTA -> ld.weak",
            "class R.{RLX, ACQ}.$s\nR.ACQ.CTA -> ld.weak\nR.{RLX, ACQ}.$s -> ld.relaxed.$s",
        ] {
            let t = table(body).unwrap();
            assert_eq!(ops(&t, "R.ACQ.CTA"), ["ld.weak"], "{body}");
            assert_eq!(ops(&t, "R.ACQ.GPU"), ["ld.relaxed.gpu"], "{body}");
            assert_eq!(ops(&t, "R.RLX.CTA"), ["ld.relaxed.cta"], "{body}");
        }
        let cases = [
            (
                "class R.ACQ.$s\nR.ACQ.$s -> ld.acquire.$s\nR.ACQ.$s -> ld.relaxed.$s",
                "rules overlap",
            ),
            (
                "class R.ACQ.$s\nR.ACQ.CTA -> ld.acquire.cta\nR.ACQ.{CTA, GPU} -> ld.weak",
                "rules overlap",
            ),
            (
                "class R.ACQ.$s\nR.ACQ.$s -> ld.acquire.$s\nR.ACQ.{CTA, GPU} -> ld.weak",
                "every class this `$s` rule matches",
            ),
        ];
        for (body, expected) in cases {
            let e = table(body).expect_err(body);
            assert!(e.contains(expected), "{body}: {e}");
        }
    }
}
