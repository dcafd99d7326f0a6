//! Reading `nvdisasm`'s listing: its functions and, per instruction, the opcode's modifiers
//! (strength, scope, `MEMBAR`, invalidation, branch), predicate and address offset.
use crate::gpu::cuda::events::Scope;
use crate::vocab::Tag;

/// One SASS instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sass {
    /// Its address in the function's section (`/*0100*/`).
    pub(crate) address: u32,
    /// `@P0`, `@!P1`, or empty.
    pub(crate) predicate: String,
    /// `LDG.E.STRONG.GPU`.
    pub(crate) opcode: String,
    pub(crate) operands: String,
}

impl Sass {
    fn parse(line: &str) -> Option<Sass> {
        let rest = line.trim().strip_prefix("/*")?;
        let (address, rest) = rest.split_once("*/")?;
        let address = u32::from_str_radix(address.trim(), 16).ok()?;
        let text = rest.split("/*").next()?.trim().trim_end_matches(';').trim();
        let (predicate, text) = match text.strip_prefix('@') {
            Some(p) => {
                let (pred, rest) = p.split_once(char::is_whitespace)?;
                (format!("@{pred}"), rest.trim())
            }
            None => (String::new(), text),
        };
        let (opcode, operands) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        (!opcode.is_empty()).then(|| Sass {
            address,
            predicate,
            opcode: opcode.to_string(),
            operands: operands.trim().to_string(),
        })
    }
    pub(super) fn base(&self) -> &str {
        self.opcode.split('.').next().unwrap_or("")
    }
    pub(super) fn has(&self, modifier: &str) -> bool {
        self.opcode.split('.').skip(1).any(|m| m == modifier)
    }
    /// The immediate offset of the (last) address operand: `[R2.64+0x100]` → 0x100.
    pub(super) fn offset(&self) -> Option<u32> {
        let inside = self.operands.rsplit('[').next()?.split(']').next()?;
        let hex = inside.split('+').nth(1)?.trim().strip_prefix("0x")?;
        u32::from_str_radix(hex, 16).ok()
    }
    /// The scope after `.STRONG` (`SM` is the CTA's), if any.
    pub(super) fn strong_scope(&self) -> Option<Scope> {
        let mut parts = self
            .opcode
            .split('.')
            .skip_while(|m| *m != "STRONG")
            .skip(1);
        scope_of(parts.next()?)
    }
    pub(super) fn is_memory(&self) -> bool {
        matches!(
            self.base(),
            "LDG" | "STG" | "ATOMG" | "REDG" | "LD" | "ST" | "ATOM" | "RED"
        )
    }
    pub(super) fn predicated(&self) -> bool {
        !self.predicate.is_empty() && self.predicate != "@PT"
    }
    /// `MEMBAR.SC.GPU` → (true, Gpu).
    pub(super) fn membar(&self) -> Option<(bool, Scope)> {
        let mut parts = self.opcode.split('.');
        (parts.next()? == "MEMBAR").then_some(())?;
        let sc = parts.next()? == "SC";
        Some((sc, scope_of(parts.next()?)?))
    }
    pub(super) fn is_invalidation(&self) -> bool {
        self.opcode == "CCTL.IVALL"
    }
    pub(super) fn is_conditional_branch(&self) -> bool {
        self.base() == "BRA" && self.predicated()
    }
    pub(super) fn text(&self) -> String {
        let pred = if self.predicate.is_empty() {
            String::new()
        } else {
            format!("{} ", self.predicate)
        };
        format!(
            "/*{:04x}*/ {pred}{} {}",
            self.address, self.opcode, self.operands
        )
        .trim_end()
        .to_string()
    }
}

/// SASS's scope words (`MEMBAR.SC.GPU`, `LDG.E.STRONG.GPU`); a CTA-scoped access says `SM`.
const SASS_SCOPES: [(&str, Tag); 3] = [("CTA", Tag::Cta), ("GPU", Tag::Gpu), ("SYS", Tag::Sys)];

fn scope_of(word: &str) -> Option<Scope> {
    let word = if word == "SM" { "CTA" } else { word };
    SASS_SCOPES
        .iter()
        .find(|(w, _)| *w == word)
        .map(|&(_, t)| Scope(t))
}

/// How SASS writes scope `s` on an access or a fence. A scope without a SASS word (`.cluster`)
/// never gets here: the layout refuses tests that use it (`gpu::layout::LAID_OUT`).
pub(super) fn scope_word(s: Scope, access: bool) -> &'static str {
    match (s.0, access) {
        (Tag::Cta, true) => "SM",
        (t, _) => SASS_SCOPES
            .iter()
            .find(|&&(_, u)| u == t)
            .map(|&(w, _)| w)
            .unwrap_or_else(|| panic!("SASS has no word for scope {t}")),
    }
}

/// The functions of a SASS listing (`nvdisasm` names each with `.type NAME,@function`).
pub(crate) fn functions(sass: &str) -> Vec<(String, Vec<Sass>)> {
    let mut out: Vec<(String, Vec<Sass>)> = vec![];
    for line in sass.lines() {
        let header = line
            .trim()
            .strip_prefix(".type")
            .and_then(|r| r.trim().strip_suffix(",@function"));
        match header {
            Some(name) => out.push((name.trim().to_string(), vec![])),
            None => {
                if let (Some(i), Some(last)) = (Sass::parse(line), out.last_mut()) {
                    last.1.push(i);
                }
            }
        }
    }
    out
}
