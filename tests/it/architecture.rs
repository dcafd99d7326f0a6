//! The hand-kept map must not drift: every stage declared in `src/lib.rs` (public or private)
//! has a section in ARCHITECTURE.md, which stays at most 400 lines and names no file that does
//! not exist; every stage uses only the stages its row of ARCHITECTURE.md's import table
//! allows; every file under `src/` opens with a `//!` header saying what it is, whose `Uses:`
//! line, where it has one, names exactly the other stages it imports; every file under `src/`
//! but `lib.rs` is named, with one line, in the `Files:` paragraph of the header of the file
//! holding its parent module (`lib.rs` for a stage's own file), and every file named there
//! exists. No import circle under `src/` runs through more than two files (`imports`).
mod imports;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

#[test]
fn every_stage_has_a_section_in_architecture_md() {
    let map = fs::read_to_string("ARCHITECTURE.md").unwrap();
    let stages = stages();
    assert!(stages.len() >= 10, "lib.rs lists {stages:?}");
    let missing: Vec<_> = stages
        .iter()
        .filter(|s| !map.contains(&format!("### `{s}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "stages without a section in ARCHITECTURE.md: {missing:?}"
    );
}

#[test]
fn every_source_file_says_what_it_is() {
    let mut missing = vec![];
    let mut stack = vec![std::path::PathBuf::from("src")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = fs::read_to_string(&path).unwrap();
                if !text.trim_start().starts_with("//!") {
                    missing.push(path.display().to_string());
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files without a //! header: {missing:?}"
    );
}

/// The repository is self-contained: no file outside `docs/` names the workplace folder beside
/// the checkout, which a clone does not have (what the tests need is vendored in `tests/data/`).
#[test]
fn nothing_outside_docs_points_outside_the_repository() {
    // Spelled in pieces so that this file does not name what it looks for.
    let needles = [concat!("../", "shared"), concat!("/work/", "shared")];
    let skip = [
        "./.git",
        "./target",
        "./.tools",
        "./docs",
        "./counterexamples",
    ];
    let mut offenders = vec![];
    let mut stack = vec![std::path::PathBuf::from(".")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if skip.iter().any(|s| path == std::path::Path::new(s)) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = fs::read_to_string(&path) {
                if needles.iter().any(|n| text.contains(n)) {
                    offenders.push(path.display().to_string());
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "files naming the folder beside the checkout: {offenders:?}"
    );
}

/// The stages `src/lib.rs` declares, public (`pub mod`) and private (`mod`).
fn stages() -> Vec<String> {
    fs::read_to_string("src/lib.rs")
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("mod "))
        })
        .map(|m| m.trim_end_matches(';').to_string())
        .collect()
}

/// Every Rust file under `dir`, as a path from the repository root.
fn rust_files_under(dir: &str) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.insert(path.display().to_string());
            }
        }
    }
    files
}

/// The Rust files a text names in backquotes, each as a path from the repository root: a name
/// that starts `src/`, `tests/` or `build.rs` stands as written, any other is under `src/`
/// (`search/units.rs`).
fn rust_files_named(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| name.ends_with(".rs") && !name.contains(char::is_whitespace))
        .map(|name| {
            if name.starts_with("src/") || name.starts_with("tests/") || name == "build.rs" {
                name.to_string()
            } else {
                format!("src/{name}")
            }
        })
        .collect()
}

/// The file whose `//!` header names `file` in its `Files:` paragraph: the file that holds its
/// parent module (`src/search/units.rs` → `src/search/mod.rs`, `src/gpu/cuda/host.rs` →
/// `src/gpu/cuda.rs`, `src/cli/args.rs` → `src/main.rs`); a stage's own file and `src/main.rs`
/// are named by `src/lib.rs`, which nothing names.
fn naming_file(file: &str, crates: &[imports::Modules; 2]) -> Option<String> {
    match file {
        "src/lib.rs" => None,
        "src/main.rs" => Some("src/lib.rs".to_string()),
        _ => {
            let path = imports::module_path_of(file);
            let modules = &crates[usize::from(file.starts_with("src/cli/"))];
            Some(modules[&path[..path.len() - 1]].clone())
        }
    }
}

/// The Rust files the `Files:` paragraph of a file's `//!` header names (from the line that
/// starts `Files:` to the header's next blank line or its end), each as a path from the
/// repository root: a name is relative to `dir`, the directory of the file it heads.
fn files_named_in_header(text: &str, dir: &Path) -> BTreeSet<String> {
    let header: Vec<&str> = text
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim())
        .collect();
    let Some(start) = header.iter().position(|l| l.starts_with("Files:")) else {
        return BTreeSet::new();
    };
    header[start..]
        .iter()
        .take_while(|l| !l.is_empty())
        .flat_map(|l| l.split('`').skip(1).step_by(2))
        .filter(|name| name.ends_with(".rs") && !name.contains(char::is_whitespace))
        .map(|name| dir.join(name).display().to_string())
        .collect()
}

#[test]
fn every_source_file_is_named_by_its_module_header_and_every_named_file_exists() {
    let crates = imports::crates();
    let files = rust_files_under("src");
    let mut named = BTreeMap::new();
    let mut wrong = vec![];
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        let names = files_named_in_header(&text, Path::new(file).parent().unwrap());
        for name in &names {
            if !Path::new(name).exists() {
                wrong.push(format!("{file} names {name}, which does not exist"));
            } else if naming_file(name, &crates).as_ref() != Some(file) {
                wrong.push(format!("{file} names {name}, which is not its child"));
            }
        }
        named.insert(file.clone(), names);
    }
    for file in &files {
        if let Some(holder) = naming_file(file, &crates) {
            if !named[&holder].contains(file) {
                wrong.push(format!(
                    "{file} is not named in {holder}'s `Files:` paragraph"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "module headers and the files under src/ disagree: {wrong:#?}"
    );
}

#[test]
fn the_files_paragraph_reader_reads_names_beside_the_header() {
    let header = "//! What this is, with `other.rs` in passing.\n\
                  //!\n\
                  //! Files:\n\
                  //! - `units.rs`: one line\n\
                  //!   more of it, `Rel`, `a b.rs`.\n\
                  //! - `cuda/host.rs`: a grandchild's directory.\n\
                  //!\n\
                  //! After: `later.rs`.\n\
                  use crate::x; // `code.rs`\n";
    let named = files_named_in_header(header, Path::new("src/search"));
    let expected: BTreeSet<String> = ["src/search/units.rs", "src/search/cuda/host.rs"]
        .into_iter()
        .map(str::to_string)
        .collect();
    assert_eq!(named, expected);
    let crates = imports::crates();
    let holder = |f: &str| naming_file(f, &crates);
    assert_eq!(
        holder("src/search/units.rs").as_deref(),
        Some("src/search/mod.rs")
    );
    assert_eq!(
        holder("src/gpu/cuda/host.rs").as_deref(),
        Some("src/gpu/cuda.rs")
    );
    assert_eq!(holder("src/cli/args.rs").as_deref(), Some("src/main.rs"));
    assert_eq!(holder("src/search/mod.rs").as_deref(), Some("src/lib.rs"));
    assert_eq!(holder("src/main.rs").as_deref(), Some("src/lib.rs"));
    assert_eq!(holder("src/lib.rs"), None);
}

#[test]
fn architecture_md_names_only_real_files() {
    let map = fs::read_to_string("ARCHITECTURE.md").unwrap();
    let missing: Vec<_> = rust_files_named(&map)
        .into_iter()
        .filter(|f| !Path::new(f).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {missing:#?}"
    );
}

#[test]
fn architecture_md_is_at_most_400_lines() {
    let lines = fs::read_to_string("ARCHITECTURE.md")
        .unwrap()
        .lines()
        .count();
    assert!(
        lines <= 400,
        "ARCHITECTURE.md is {lines} lines; it is the map at the level of stages (at most 400), \
         and each file's line belongs in its module header's `Files:` paragraph"
    );
}

#[test]
fn the_file_name_reader_reads_paths_from_the_root_and_from_src() {
    let named = rust_files_named(
        "see `search/units.rs`, `src/lib.rs`, `tests/it/architecture.rs` and `a b.rs`, not `Rel`",
    );
    let expected: BTreeSet<String> = [
        "src/search/units.rs",
        "src/lib.rs",
        "tests/it/architecture.rs",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    assert_eq!(named, expected);
}

/// The stage a file under `src/` belongs to (`src/search/units.rs` → `search`, `src/decide.rs`
/// → `decide`); `None` for `lib.rs`, `main.rs` and the CLI's files.
fn stage_of(file: &str, stages: &[String]) -> Option<String> {
    let rest = file.strip_prefix("src/")?;
    let first = rest.split('/').next()?.trim_end_matches(".rs");
    stages.iter().find(|s| *s == first).cloned()
}

/// The stages a file's `//!` header says it uses: the backquoted stage names of its `Uses:`
/// paragraph (from `Uses:` to the header's next blank line or its end); `None` without one.
fn stages_said_used(text: &str, stages: &[String]) -> Option<BTreeSet<String>> {
    let header: Vec<&str> = text
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim())
        .collect();
    let start = header.iter().position(|l| l.starts_with("Uses:"))?;
    let paragraph = header[start..].iter().take_while(|l| !l.is_empty());
    let words = paragraph.flat_map(|l| l.split('`').skip(1).step_by(2));
    let leading = words.map(|w| w.split("::").next().unwrap_or(w).to_string());
    Some(leading.filter(|w| stages.contains(w)).collect())
}

#[test]
fn every_uses_line_names_exactly_the_stages_its_file_imports() {
    let stages = stages();
    let mut wrong = vec![];
    for file in rust_files_under("src") {
        let Some(own) = stage_of(&file, &stages) else {
            continue;
        };
        let text = fs::read_to_string(&file).unwrap();
        let Some(said) = stages_said_used(&text, &stages) else {
            continue;
        };
        let mut used = stages_used_by_the_text_of(&file, &own);
        used.retain(|s| stages.contains(s) && *s != own);
        let said: BTreeSet<String> = said.into_iter().filter(|s| *s != own).collect();
        if said != used {
            let missing: Vec<_> = used.difference(&said).collect();
            let extra: Vec<_> = said.difference(&used).collect();
            wrong.push(format!(
                "{file}: not named {missing:?}, named but not used {extra:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "Uses: lines that do not match the imports: {wrong:#?}"
    );
}

/// What a file's `Uses:` line answers for: its own imports, or for a stage's `mod.rs`, which
/// speaks for the stage, the imports of every file of the stage.
fn stages_used_by_the_text_of(file: &str, stage: &str) -> BTreeSet<String> {
    if file.ends_with("/mod.rs") {
        files_of(stage)
            .iter()
            .flat_map(|f| stages_used(f))
            .collect()
    } else {
        stages_used(Path::new(file))
    }
}

/// ARCHITECTURE.md's import table: each stage's row, the stages it may use.
fn import_rules() -> BTreeMap<String, BTreeSet<String>> {
    let map = fs::read_to_string("ARCHITECTURE.md").unwrap();
    let section = map
        .split("## Which stage may use which")
        .nth(1)
        .expect("ARCHITECTURE.md has no import table");
    let code_names = |cell: &str| -> BTreeSet<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|row| {
            let cells: Vec<&str> = row.split('|').collect();
            let stage = code_names(cells[1]).into_iter().next().unwrap();
            (stage, code_names(cells[2]))
        })
        .collect()
}

/// Every Rust file of a stage: `src/<stage>.rs`, or everything under `src/<stage>/`.
fn files_of(stage: &str) -> Vec<PathBuf> {
    let single = PathBuf::from(format!("src/{stage}.rs"));
    if single.exists() {
        return vec![single];
    }
    let mut files = vec![];
    let mut stack = vec![PathBuf::from(format!("src/{stage}"))];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// The stages a file's code names: the first segment of every path it names that leads into
/// the library (`crate::a::…`, a grouped `use crate::{a::…, b, …}`, `super::super::a`), read by
/// `imports`. Unit tests (`#[cfg(test)]` items) are not the stage's code and may build their
/// inputs with any stage; comments and string literals are not code.
fn stages_used(path: &Path) -> BTreeSet<String> {
    let file = path.display().to_string();
    let [library, _] = imports::crates();
    let text = fs::read_to_string(path).unwrap();
    stages_used_in(&text, &imports::module_path_of(&file), &library)
}

/// The stages `text`, the file of module `own`, names.
fn stages_used_in(text: &str, own: &[String], modules: &imports::Modules) -> BTreeSet<String> {
    imports::paths_named(&imports::code_of(text))
        .iter()
        .filter_map(|path| imports::absolute(path, own, modules))
        .filter_map(|path| path.first().cloned())
        .collect()
}

#[test]
fn every_stage_uses_only_what_its_row_allows() {
    let rules = import_rules();
    let stages = stages();
    let unruled: Vec<_> = stages.iter().filter(|s| !rules.contains_key(*s)).collect();
    assert!(
        unruled.is_empty(),
        "stages without a row in ARCHITECTURE.md's import table: {unruled:?}"
    );
    let mut violations = vec![];
    for stage in &stages {
        for file in files_of(stage) {
            for used in stages_used(&file) {
                if stages.contains(&used) && used != *stage && !rules[stage].contains(&used) {
                    violations.push(format!("{} uses `{used}`", file.display()));
                }
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports the table in ARCHITECTURE.md does not allow: {violations:#?}"
    );
}

#[test]
fn the_import_reader_sees_grouped_and_nested_uses() {
    let modules: imports::Modules = [vec![], vec!["search".to_string()]]
        .into_iter()
        .map(|m| (m, String::new()))
        .collect();
    let text = "use crate::{eval::{self, Base}, rel::Rel, vocab};\n\
                fn f() { crate::runner::run(); }\n\
                use crate::exec::Execution;\n\
                // crate::coq::export\n\
                const S: &str = \"crate::gpu\";\n\
                #[cfg(test)]\n\
                fn only_in_tests() { crate::report::json(); }\n\
                fn after() { super::shard::merge(); }\n\
                #[cfg(test)]\n\
                mod tests { use crate::search; }\n";
    let used = stages_used_in(text, &["search".to_string()], &modules);
    let expected: BTreeSet<String> = ["eval", "rel", "vocab", "runner", "exec", "shard"]
        .into_iter()
        .map(str::to_string)
        .collect();
    assert_eq!(used, expected);
}

#[test]
fn no_import_circle_has_more_than_two_files() {
    let graph = imports::import_graph();
    assert!(graph.len() > 100, "read {} files", graph.len());
    let circles: Vec<String> = imports::import_circles(&graph)
        .iter()
        .map(|c| format!("{} → (back to the first)", c.join(" → ")))
        .collect();
    assert!(
        circles.is_empty(),
        "import circles of more than two files under src/: {circles:#?}"
    );
}
