//! A repair's answer as a mapping file: the input file's text with each changed rule replaced —
//! one line per class, or one `$s` line when the new rules of all the classes the old line
//! covered agree up to the scope — under a comment with the line it replaces. The text is read
//! back before it is written, and must give exactly the repaired rules.
//!
//! Owns: `write_mapping`, `default_output`. Uses: `mapping` (rules and their lines, `load_str`),
//! `output` (atomic writes), `diag`.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Change, Repair};
use crate::diag;
use crate::mapping::ptx::sequence_text;
use crate::mapping::{self, Class, Mapping, TargetOp};
use crate::output;

/// Where a repaired mapping goes by default: beside the input (so that its model paths still
/// hold), as `NAME.repaired.map`.
pub fn default_output(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map_or("mapping".into(), |s| s.to_string_lossy());
    input.with_file_name(format!("{stem}.repaired.map"))
}

/// Write the repaired mapping of `repair` (which must have changes) to `output`.
pub fn write_mapping(
    input_path: &Path,
    input: &Mapping,
    repair: &Repair,
    to: &Path,
) -> diag::Result<()> {
    output::refuse_overwriting(to, &[input_path])?;
    let original = diag::read_source(input_path)?;
    let mut text = repaired_text(&original, input, &repair.changes)?;
    let header = format!(
        "// Repaired by `mapcheck repair` from {} at bound {}: no counterexample up to {} (natural counting,\n// every axiom); cost {} -> {} ({} costs). Each changed rule says what it replaces.\n",
        input_path.display(),
        repair.bound,
        repair.bound,
        repair.input_cost,
        repair.repaired_cost,
        repair.costs
    );
    text.insert_str(0, &header);
    let text = with_model_paths_for(&text, input_path, input, to);
    read_back(&text, input, &repair.changes, to)?;
    output::write_file(to, text)
}

/// The input's text with the rules of `changes` replaced.
fn repaired_text(original: &str, input: &Mapping, changes: &[Change]) -> diag::Result<String> {
    let new_rule: BTreeMap<Class, &[TargetOp]> =
        changes.iter().map(|c| (c.key, c.ops.as_slice())).collect();
    // The rules to rewrite, by their line: the classes each covers.
    let mut lines: BTreeMap<usize, (String, Vec<Class>)> = BTreeMap::new();
    for class in new_rule.keys() {
        let rule = input.rule(class).expect("a changed class is declared");
        let line = line_of(&rule.origin);
        lines
            .entry(line)
            .or_insert_with(|| (rule.text.clone(), vec![]));
    }
    for class in input.classes() {
        let rule = input.rule(class).expect("every class has a rule");
        if let Some((_, covered)) = lines.get_mut(&line_of(&rule.origin)) {
            covered.push(*class);
        }
    }
    let mut text = original.to_string();
    // From the last line up, so that earlier offsets stay valid.
    for (line, (rule_text, covered)) in lines.iter().rev() {
        let rules: Vec<(Class, &[TargetOp])> = covered
            .iter()
            .map(|c| (*c, new_rule.get(c).copied().unwrap_or(input.compile(c))))
            .collect();
        let start = line_start(&text, *line);
        let at = text[start..]
            .find(rule_text.as_str())
            .map(|i| start + i)
            .ok_or_else(|| {
                diag::Error::file(
                    input.path.clone(),
                    format!("cannot find the rule `{rule_text}` at line {line} again"),
                )
            })?;
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let was = text[start..end].trim().to_string();
        let mut new = format!("// repaired; was: {was}\n");
        new.push_str(&new_lines(rule_text, input, &rules).join("\n"));
        text.replace_range(start..end, &new);
    }
    Ok(text)
}

/// The lines for a rewritten rule: the old pattern with `$s` when every covered class's new rule
/// is the same template, otherwise one line per class.
fn new_lines(rule_text: &str, input: &Mapping, rules: &[(Class, &[TargetOp])]) -> Vec<String> {
    let pattern = rule_text.split("->").next().unwrap_or("").trim();
    if let Some(var) = pattern.split('.').find(|p| p.starts_with('$')) {
        let templates: Vec<String> = rules
            .iter()
            .map(|(c, ops)| template(ops, c.scope.and_then(|s| input.scope_image(s)), var))
            .collect();
        if templates.windows(2).all(|w| w[0] == w[1]) {
            return vec![format!("{pattern} -> {}", templates[0])];
        }
    }
    rules
        .iter()
        .map(|(c, ops)| format!("{c} -> {}", sequence_text(ops)))
        .collect()
}

/// `ops` with the scope `image` written as `var`.
fn template(ops: &[TargetOp], image: Option<mapping::Tag>, var: &str) -> String {
    let text = sequence_text(ops);
    match image.and_then(|t| crate::isa::ptx::SCOPES.word(t)) {
        Some(word) => text
            .split("; ")
            .map(|op| match op.strip_suffix(&format!(".{word}")) {
                Some(head) => format!("{head}.{var}"),
                None => op.to_string(),
            })
            .collect::<Vec<_>>()
            .join("; "),
        None => text,
    }
}

/// The line number of an origin `file:LINE`.
fn line_of(origin: &str) -> usize {
    origin
        .rsplit(':')
        .next()
        .and_then(|l| l.parse().ok())
        .unwrap_or(1)
}

/// The byte offset where 1-based `line` starts.
fn line_start(text: &str, line: usize) -> usize {
    text.split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum()
}

/// The text with its model paths made absolute when it goes to another directory than the input.
fn with_model_paths_for(text: &str, input_path: &Path, input: &Mapping, to: &Path) -> String {
    let dir = |p: &Path| -> PathBuf {
        let d = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        d.canonicalize().unwrap_or_else(|_| d.to_path_buf())
    };
    let input_dir = dir(input_path);
    if input_dir == dir(to) {
        return text.to_string();
    }
    let mut text = text.to_string();
    for model in [&input.source_path, &input.target_path] {
        let written = model
            .strip_prefix(input_path.parent().unwrap_or(Path::new("")))
            .unwrap_or(model);
        let absolute = input_dir.join(written);
        let absolute = absolute.canonicalize().unwrap_or(absolute);
        text = text.replacen(
            &format!("\"{}\"", written.display()),
            &format!("\"{}\"", absolute.display()),
            1,
        );
    }
    text
}

/// Load `text` as it will be written and require exactly the repaired rules.
fn read_back(text: &str, input: &Mapping, changes: &[Change], to: &Path) -> diag::Result<()> {
    let dir = to
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = to.display().to_string();
    let back = mapping::load_str(&name, text, Some(dir))?;
    for class in input.classes() {
        let expected = changes
            .iter()
            .find(|c| c.key == *class)
            .map_or(input.compile(class), |c| c.ops.as_slice());
        if back.compile(class) != expected {
            return Err(diag::Error::internal(
                name,
                diag::Internal(format!(
                    "the repaired mapping reads back with {class} -> {}, not {}",
                    sequence_text(back.compile(class)),
                    sequence_text(expected)
                )),
            ));
        }
    }
    Ok(())
}
