//! Reading which file under `src/` imports which, without a Rust parser: each file's code (its
//! comments, string and character literals blanked, its `#[cfg(test)]` items cut), the paths it
//! names (every path of its `use` trees, and every other `a::b` path written in it), and each
//! path resolved to the file of the longest module it names. A file imports another when it
//! names a path into it: `crate::a::b`, `self::child`, `super::x` (and `super::super::…`), a
//! child module's `child::x`, a glob `use super::*` (an import of the parent's file). An item
//! re-exported by a module file is an import of that module file, not of the file defining it.
//! Declaring a `mod` is not an import. `src/` holds two crates: the library (`lib.rs` and every
//! stage) and the binary (`main.rs`, and `cli/`, declared inline in `main.rs`).
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;

use super::rust_files_under;

/// A crate's modules: each module path (`["search", "units"]`; the root is the empty path) with
/// the file that holds it.
pub(super) type Modules = BTreeMap<Vec<String>, String>;

/// Each file under `src/` with the other files under `src/` its code imports.
pub(super) type Graph = BTreeMap<String, BTreeSet<String>>;

/// The two crates under `src/`, the library's first. A directory with no module file of its own
/// (`cli/`) is a module held by the nearest enclosing module's file (`main.rs`).
pub(super) fn crates() -> [Modules; 2] {
    let mut library = Modules::new();
    let mut binary = Modules::new();
    for file in rust_files_under("src") {
        let in_binary = file == "src/main.rs" || file.starts_with("src/cli/");
        let modules = if in_binary { &mut binary } else { &mut library };
        modules.insert(module_path_of(&file), file);
    }
    for modules in [&mut library, &mut binary] {
        let inline: Vec<(Vec<String>, String)> = modules
            .keys()
            .filter(|path| !path.is_empty())
            .filter_map(|path| {
                let parent = path[..path.len() - 1].to_vec();
                let holder = (0..parent.len())
                    .rev()
                    .find_map(|n| modules.get(&parent[..n]))?;
                (!modules.contains_key(&parent)).then(|| (parent, holder.clone()))
            })
            .collect();
        modules.extend(inline);
    }
    [library, binary]
}

/// A file's module path in its crate: `src/search/units.rs` → `search::units`, `src/gpu/mod.rs`
/// → `gpu`, `src/lib.rs` and `src/main.rs` → the root.
pub(super) fn module_path_of(file: &str) -> Vec<String> {
    let rest = file
        .strip_prefix("src/")
        .and_then(|f| f.strip_suffix(".rs"))
        .unwrap_or_else(|| panic!("{file} is not a Rust file under src/"));
    let mut path: Vec<String> = rest.split('/').map(str::to_string).collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// Every file under `src/` with the files it imports.
pub(super) fn import_graph() -> Graph {
    let mut graph = Graph::new();
    for modules in crates() {
        for (own, file) in &modules {
            if module_path_of(file) != *own {
                continue; // an inline module, read with the file that holds it
            }
            let text = fs::read_to_string(file).unwrap();
            graph.insert(file.clone(), imports_of(&text, own, &modules));
        }
    }
    graph
}

/// The other files of its crate that `text`, the file of module `own`, imports.
pub(super) fn imports_of(text: &str, own: &[String], modules: &Modules) -> BTreeSet<String> {
    let file = &modules[own];
    paths_named(&code_of(text))
        .iter()
        .filter_map(|path| absolute(path, own, modules))
        .filter_map(|path| (0..=path.len()).rev().find_map(|n| modules.get(&path[..n])))
        .filter(|target| *target != file)
        .cloned()
        .collect()
}

/// A path written in module `own`, as a path from its crate's root: `crate::…`, `self::…`,
/// `super::…` and a child module's `child::…` are read; any other (`std::…`, `Tag::Rlx`, a
/// local name, another crate) is `None`.
pub(super) fn absolute(path: &[String], own: &[String], modules: &Modules) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    let (mut full, mut segments) = match first.as_str() {
        "crate" => (vec![], rest),
        "self" => (own.to_vec(), rest),
        "super" => (own.to_vec(), path),
        _ => {
            let child: Vec<String> = own.iter().chain([first]).cloned().collect();
            if !modules.contains_key(&child) {
                return None;
            }
            (own.to_vec(), path)
        }
    };
    while let Some((segment, after)) = segments.split_first() {
        if segment != "super" {
            break;
        }
        full.pop()?;
        segments = after;
    }
    full.extend(segments.iter().cloned());
    Some(full)
}

/// A file's code: its text with comments and string and character literals blanked (line breaks
/// kept), and every `#[cfg(test)]` item cut, wherever in the file it stands.
pub(super) fn code_of(text: &str) -> String {
    let blanked = without_comments_and_literals(text);
    let mut code = String::new();
    let mut rest = blanked.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        code.push_str(&rest[..at]);
        rest = after_item(&rest[at + "#[cfg(test)]".len()..]);
    }
    code.push_str(rest);
    code
}

/// The text after the item `text` starts with (its further attributes included): after its
/// first `;` outside brackets, or after the brace that closes its first `{`.
fn after_item(text: &str) -> &str {
    let mut round_or_square = 0usize;
    let mut braces = 0usize;
    for (i, ch) in text.char_indices() {
        match ch {
            '(' | '[' => round_or_square += 1,
            ')' | ']' => round_or_square = round_or_square.saturating_sub(1),
            '{' => braces += 1,
            '}' => {
                braces = braces.saturating_sub(1);
                if braces == 0 {
                    return &text[i + 1..];
                }
            }
            ';' if round_or_square == 0 && braces == 0 => return &text[i + 1..],
            _ => {}
        }
    }
    ""
}

/// `text` with `//` and `/* */` comments (nested too) and `"…"`, `b"…"`, `r#"…"#`, `br"…"`,
/// `'c'` and `'\n'` literals replaced by spaces, line breaks kept. Lifetimes stay.
fn without_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let end = literal_or_comment_end(&chars, i);
        if end > i {
            out.extend(
                chars[i..end]
                    .iter()
                    .map(|&c| if c == '\n' { '\n' } else { ' ' }),
            );
            i = end;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Where the comment or literal that starts at `i` ends; `i` where none starts there.
fn literal_or_comment_end(chars: &[char], i: usize) -> usize {
    let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
    let word_at = |k: Option<usize>| k.is_some_and(|k| is_word_char(chars[k]));
    // `r"…"` or `br"…"`, not the end of a name such as `for"`.
    let raw_prefix = !word_at(i.checked_sub(1)) || (at(i - 1) == 'b' && !word_at(i.checked_sub(2)));
    match (at(i), at(i + 1)) {
        ('/', '/') => (i..chars.len())
            .find(|&k| chars[k] == '\n')
            .unwrap_or(chars.len()),
        ('/', '*') => {
            let (mut depth, mut k) = (0, i);
            while k < chars.len() {
                match (at(k), at(k + 1)) {
                    ('/', '*') => (depth, k) = (depth + 1, k + 2),
                    ('*', '/') if depth == 1 => return k + 2,
                    ('*', '/') => (depth, k) = (depth - 1, k + 2),
                    _ => k += 1,
                }
            }
            chars.len()
        }
        ('"', _) => quoted_end(chars, i + 1),
        ('r', '"' | '#') if raw_prefix => {
            let hashes = (i + 1..).take_while(|&k| at(k) == '#').count();
            if at(i + 1 + hashes) != '"' {
                return i; // `r#ident`
            }
            let closing: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            (i + 2 + hashes..chars.len())
                .find(|&k| chars[k..].starts_with(&closing))
                .map_or(chars.len(), |k| k + closing.len())
        }
        // An escape (`'\n'`, `'\''`, `'\u{2192}'`): its first character, then the closing quote.
        ('\'', '\\') => (i + 3..chars.len())
            .find(|&k| chars[k] == '\'')
            .map_or(chars.len(), |k| k + 1),
        ('\'', _) if at(i + 2) == '\'' => i + 3,
        _ => i,
    }
}

/// The end of a `"…"` literal whose text starts at `k`, escapes read.
fn quoted_end(chars: &[char], mut k: usize) -> usize {
    while k < chars.len() {
        match chars[k] {
            '\\' => k += 2,
            '"' => return k + 1,
            _ => k += 1,
        }
    }
    chars.len()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every path `code` names: each path of its `use` trees (`use a::{b, c::*}` gives `a::b` and
/// `a::c`), and every other path written in it (`a::b::c`, taken whole).
pub(super) fn paths_named(code: &str) -> Vec<Vec<String>> {
    let mut paths = vec![];
    let mut outside_uses = String::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        outside_uses.push_str(&rest[..at]);
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e);
        let tokens = use_tokens(&rest[at + "use".len()..end]);
        expand_use_tree(&tokens, &mut 0, vec![], &mut paths);
        rest = &rest[(end + 1).min(rest.len())..];
    }
    outside_uses.push_str(rest);
    paths.extend(code_paths(&outside_uses));
    paths
}

/// Where `word` first stands alone in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// A use tree's tokens (names, `::`, `{`, `}`, `,`, `*`), each rename's `as NAME` dropped.
fn use_tokens(tree: &str) -> Vec<String> {
    let spaced: String = tree
        .chars()
        .flat_map(|c| match c {
            '{' | '}' | ',' | '*' => vec![' ', c, ' '],
            c => vec![c],
        })
        .collect::<String>()
        .replace("::", " :: ");
    let mut tokens = vec![];
    let mut words = spaced.split_whitespace();
    while let Some(word) = words.next() {
        if word == "as" {
            words.next();
        } else {
            tokens.push(word.to_string());
        }
    }
    tokens
}

/// The paths of the use tree in `tokens` from `at`, each after `prefix`; `self` in a group
/// names the prefix itself.
fn expand_use_tree(
    tokens: &[String],
    at: &mut usize,
    prefix: Vec<String>,
    paths: &mut Vec<Vec<String>>,
) {
    let mut path = prefix;
    while let Some(token) = tokens.get(*at) {
        *at += 1;
        match token.as_str() {
            "{" => {
                while tokens.get(*at).is_some_and(|t| t != "}") {
                    expand_use_tree(tokens, at, path.clone(), paths);
                    if tokens.get(*at).is_some_and(|t| t == ",") {
                        *at += 1;
                    }
                }
                *at += 1;
                return;
            }
            "*" => break,
            "," | "}" => {
                *at -= 1;
                break;
            }
            "::" => {}
            "self" if !path.is_empty() => {}
            word => path.push(word.to_string()),
        }
    }
    paths.push(path);
}

/// The paths written in `code` outside `use` trees: `a::b::c` taken whole, never from its
/// middle or after a `.`; `$crate` read as `crate`; a turbofish (`f::<T>`) ends a path.
fn code_paths(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut paths = vec![];
    let mut i = 0;
    while i < chars.len() {
        let starts_word = is_word_char(chars[i]) && (i == 0 || !is_word_char(chars[i - 1]));
        let continues = i >= 1 && matches!(chars[i - 1], ':' | '.');
        if !starts_word || continues {
            i += 1;
            continue;
        }
        let mut path = vec![];
        loop {
            let end = (i..chars.len())
                .find(|&k| !is_word_char(chars[k]))
                .unwrap_or(chars.len());
            path.push(chars[i..end].iter().collect::<String>());
            i = end;
            let more = chars.get(i) == Some(&':')
                && chars.get(i + 1) == Some(&':')
                && chars.get(i + 2).is_some_and(|&c| is_word_char(c));
            if !more {
                break;
            }
            i += 2;
        }
        if path.len() > 1 {
            paths.push(path);
        }
    }
    paths
}

/// The strongly connected components of `graph` (Tarjan's algorithm), each a set of files.
pub(super) fn strongly_connected(graph: &Graph) -> Vec<BTreeSet<String>> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        components: Vec<BTreeSet<String>>,
    }
    fn visit<'g>(w: &mut Walk<'g>, v: &'g str) {
        let n = w.index.len();
        w.index.insert(v, n);
        w.low.insert(v, n);
        w.stack.push(v);
        w.on_stack.insert(v);
        for next in w.graph.get(v).into_iter().flatten() {
            let next = next.as_str();
            if !w.index.contains_key(next) {
                visit(w, next);
                let low = w.low[v].min(w.low[next]);
                w.low.insert(v, low);
            } else if w.on_stack.contains(next) {
                let low = w.low[v].min(w.index[next]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = BTreeSet::new();
            while let Some(f) = w.stack.pop() {
                w.on_stack.remove(f);
                component.insert(f.to_string());
                if f == v {
                    break;
                }
            }
            w.components.push(component);
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: vec![],
        on_stack: BTreeSet::new(),
        components: vec![],
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            visit(&mut walk, v);
        }
    }
    walk.components
}

/// The import circles of more than two files: one per strongly connected component of more
/// than two files that holds one, shown as a circle through it. A component holds one unless
/// every import inside it is answered by one back and those pairs form a tree (a module file
/// and children that use it and each other only so): a file and its `mod.rs` may use each
/// other, but three files that each reach the next are one job split wrongly.
pub(super) fn import_circles(graph: &Graph) -> Vec<Vec<String>> {
    let inside = |component: &BTreeSet<String>, a: &String| -> Vec<String> {
        graph[a]
            .iter()
            .filter(|b| component.contains(*b))
            .cloned()
            .collect()
    };
    let mut circles = vec![];
    for component in strongly_connected(graph) {
        if component.len() <= 2 {
            continue;
        }
        let mut edges = vec![];
        for a in &component {
            for b in inside(&component, a) {
                edges.push((a.clone(), b));
            }
        }
        let mutual = |(a, b): &(String, String)| graph[b].contains(a);
        if let Some((a, b)) = edges.iter().find(|e| !mutual(e)) {
            // b reaches a inside the component; with a → b that is a circle of three or more.
            let restricted: Graph = component
                .iter()
                .map(|f| (f.clone(), inside(&component, f).into_iter().collect()))
                .collect();
            let mut circle = shortest_path(&restricted, b, a).expect("a component");
            circle.rotate_right(1);
            circles.push(circle);
        } else if edges.len() / 2 > component.len() - 1 {
            // A ring of mutual pairs: more pairs than a tree over the component has.
            circles.push(component.iter().cloned().collect());
        }
    }
    circles
}

/// The files of a shortest path from `from` to `to`, both included.
fn shortest_path(graph: &Graph, from: &String, to: &String) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![to.clone()];
            let mut k = to;
            while k != from {
                k = came_from[k];
                path.push(k.clone());
            }
            path.reverse();
            return Some(path);
        }
        for next in graph.get(at).into_iter().flatten() {
            if next != from && !came_from.contains_key(next) {
                came_from.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    None
}

fn path(p: &str) -> Vec<String> {
    p.split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_import_graph_reads_every_way_a_file_names_another() {
    let modules: Modules = [
        "",
        "a",
        "a::child",
        "a::child::leaf",
        "b",
        "c",
        "d",
        "e",
        "f",
        "g",
        "h",
        "k",
        "x",
    ]
    .into_iter()
    .map(|m| {
        (
            path(m),
            format!("{}.rs", if m.is_empty() { "lib" } else { m }),
        )
    })
    .collect();
    let text = r##"
        use crate::{b, c::Thing as Other};
        use super::d::*;
        use self::child::{self, leaf::Item};
        // use crate::x;
        /* crate::x::Y /* nested */ crate::x::Z */
        const S: &str = "crate::x::Z \" crate::x::W";
        const R: &str = r#"crate::x::V "quoted" "#;
        const B: &[u8] = br"crate::x::U";
        fn f() -> char { let _ = crate::e::run(); '"' }
        fn g<'a>(s: &'a str) -> char { $crate::f::go(); child::leaf::call(); Tag::Rlx; std::mem::drop(0); '\'' }
        #[cfg(test)]
        mod tests { use crate::h; }
        #[cfg(test)]
        pub(crate) fn helper(v: [u8; 2]) -> usize { crate::h::only_in_tests(); 0 }
        fn after() { crate::g::kept(); let v = Vec::<u8>::new(); }
        fn last() { crate::k::Kept::new(); }
    "##;
    let imported = imports_of(text, &path("a"), &modules);
    let expected: BTreeSet<String> = [
        "b",
        "c",
        "d",
        "e",
        "f",
        "g",
        "k",
        "a::child",
        "a::child::leaf",
    ]
    .into_iter()
    .map(|f| format!("{f}.rs"))
    .collect();
    assert_eq!(imported, expected);
}

#[test]
fn a_directory_without_a_module_file_belongs_to_the_file_that_declares_it() {
    let [library, binary] = crates();
    assert_eq!(binary[&path("cli")], "src/main.rs");
    assert_eq!(binary[&path("cli::args")], "src/cli/args.rs");
    assert_eq!(library[&path("")], "src/lib.rs");
    assert_eq!(library[&path("search::units")], "src/search/units.rs");
    assert_eq!(library[&path("gpu")], "src/gpu/mod.rs");
    assert!(!library
        .values()
        .any(|f| f.starts_with("src/cli/") || f == "src/main.rs"));
}

#[test]
fn circles_of_three_files_are_found_and_pairs_around_a_module_file_are_not() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g = Graph::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    let shown =
        |g: &Graph| -> Vec<String> { import_circles(g).iter().map(|c| c.join(" ")).collect() };
    // A module file and three children, each using it and used by it; one child uses another.
    let star = [
        ("m", "a"),
        ("a", "m"),
        ("m", "b"),
        ("b", "m"),
        ("m", "c"),
        ("c", "m"),
    ];
    assert!(shown(&graph(&star)).is_empty());
    assert!(shown(&graph(&[("a", "b"), ("b", "a")])).is_empty());
    let mut sibling = star.to_vec();
    sibling.push(("a", "b"));
    assert_eq!(shown(&graph(&sibling)), ["a b m"]);
    assert_eq!(
        shown(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        ["a b c"]
    );
    let ring = [
        ("a", "b"),
        ("b", "a"),
        ("b", "c"),
        ("c", "b"),
        ("c", "a"),
        ("a", "c"),
    ];
    assert_eq!(shown(&graph(&ring)), ["a b c"]);
    // Two components: one circle each.
    let two = [
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
        ("x", "y"),
        ("y", "z"),
        ("z", "x"),
        ("a", "x"),
    ];
    assert_eq!(shown(&graph(&two)).len(), 2);
}
