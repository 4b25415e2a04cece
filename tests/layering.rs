//! The folders are the architecture: these tests fail when a file crosses a line the README's
//! diagram draws.
//!
//! - `src/ui/` is the pure side (App, Action/Effect, screens, view models, widgets): no I/O, no
//!   tokio, no kube client, nothing from `crate::runtime`. Its unit tests may do what they like.
//! - `src/ui/action.rs` (the messages) depends on plain data types only, never on a screen, the
//!   `App` or the runtime.
//! - `src/informer/` (the client-go port) never imports the UI or the runtime.
//! - A screen or dialog (a `ui::component::Component`) imports neither `App` nor another
//!   screen, and the largest import circle in `src/` does not grow (a ratchet).

use std::path::{Path, PathBuf};

/// What the pure side may not name outside its tests.
const IMPURE: &[&str] = &[
    "crate::runtime",
    "tokio",
    "kube::Client",
    "kube::client",
    "Api<",
    "Api::",
    "kube::api::Api;",
    "std::fs",
    "std::process",
    "std::net",
    "std::thread",
    "hyper",
    "reqwest",
    "EventStream",
    "crossterm::terminal",
    "crossterm::execute",
    ".await",
];

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The lines of `text` before its unit tests, without comments, numbered from 1.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| !l.starts_with("#[cfg(test)]"))
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.starts_with("//"))
}

/// `file:line: text` for every line of `text` naming one of `forbidden`.
fn violations(name: &str, text: &str, forbidden: &[&str]) -> Vec<String> {
    code_lines(text)
        .filter(|(_, l)| forbidden.iter().any(|f| l.contains(f)))
        .map(|(n, l)| format!("{name}:{n}: {l}"))
        .collect()
}

fn is_test_file(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || name.ends_with("_tests.rs")
}

fn check_tree(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    rust_files(&root.join(dir))
        .into_iter()
        .filter(|p| !is_test_file(p))
        .flat_map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.strip_prefix(root).unwrap().display().to_string();
            violations(&name, &text, forbidden)
        })
        .collect()
}

#[test]
fn the_pure_side_does_no_io_and_never_imports_the_runtime() {
    let found = check_tree("src/ui", IMPURE);
    assert!(
        found.is_empty(),
        "src/ui is the pure side; move these to src/runtime:\n{}",
        found.join("\n")
    );
}

#[test]
fn messages_depend_only_on_plain_data_types() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("src/ui/action.rs")).unwrap();
    let uses: String = code_lines(&text)
        .filter(|(_, l)| l.starts_with("use "))
        .map(|(_, l)| l)
        .collect::<Vec<_>>()
        .join("\n");
    let found = violations(
        "src/ui/action.rs",
        &uses,
        &[
            "screens",
            "ui::app",
            "super::app",
            "crate::runtime",
            "ui::table",
            "widgets",
        ],
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_informer_core_never_imports_the_ui_or_the_runtime() {
    let found = check_tree("src/informer", &["crate::ui", "crate::runtime", "ratatui"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_informer_core_and_the_ui_never_import_the_recorder() {
    let mut found = check_tree("src/informer", &["crate::recorder", "rusqlite"]);
    found.extend(check_tree("src/ui", &["crate::recorder", "rusqlite"]));
    assert!(
        found.is_empty(),
        "the recorder is fed by the runtime, never by the core or the UI:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_an_import_outside_tests_and_ignores_one_inside() {
    let text = "use std::sync::Arc;\nuse tokio::sync::mpsc;\n#[cfg(test)]\nmod tests {\n    use tokio::time;\n}\n";
    assert_eq!(
        violations("x.rs", text, IMPURE),
        vec!["x.rs:2: use tokio::sync::mpsc;".to_string()]
    );
    let comment = "// the runtime uses tokio\nfn f() {}\n";
    assert!(violations("y.rs", comment, IMPURE).is_empty());
}

#[test]
fn the_cluster_layer_never_imports_the_ui() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("src/cluster.rs")).unwrap();
    let found = violations("src/cluster.rs", &text, &["crate::ui", "ratatui"]);
    assert!(
        found.is_empty(),
        "the cluster layer feeds the UI plain data types defined beside Connection:\n{}",
        found.join("\n")
    );
}

// ------------------------------------------------------------------ the import graph

/// The largest import circle among `src/` files may not grow past this (files; counted as
/// `import_graph` does: `use` items and written-out paths outside unit tests). It is issue 40's
/// target (it was 49 before the component seam). A parent module whose children import it back
/// (`use super::*`) is one circle with all of them: what the children share goes in a child of
/// its own (`bench/common.rs`, `config/error.rs`, `render/cell.rs`). Never raise it.
const LARGEST_CIRCLE_RATCHET: usize = 6;

/// Screen files still written as `impl App` blocks (they import `App` or another screen).
/// They are converted one by one onto `ui::component`; remove a file from this list when its
/// screen is a component. The list only shrinks (a test fails when a listed file no longer
/// needs to be on it).
const NOT_YET_COMPONENTS: &[&str] = &[];

/// A module's path in the crate (`["ui", "screens", "scale"]`) → its file.
type Modules = std::collections::BTreeMap<Vec<String>, PathBuf>;

fn modules(src: &Path) -> Modules {
    rust_files(src)
        .into_iter()
        .filter(|p| !is_test_file(p))
        .map(|p| {
            let rel = p.strip_prefix(src).unwrap().with_extension("");
            let mut segs: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if segs.last().is_some_and(|s| s == "mod") {
                segs.pop();
            }
            if segs == ["lib"] || segs == ["main"] {
                segs.clear();
            }
            (segs, p)
        })
        .collect()
}

/// `text`'s code before its unit tests, without `//` comments (doc comments included).
fn code_of(text: &str) -> String {
    let code = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    code.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths of a `use` tree (`a::{b, c::{d as e}}`), each with the name it brings in scope.
fn use_paths(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{')
        && tree.ends_with('}')
    {
        let mut base = prefix.to_vec();
        base.extend(
            tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
        let inner = &tree[open + 1..tree.len() - 1];
        let (mut depth, mut start) = (0, 0);
        for (i, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_paths(&base, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        use_paths(&base, &inner[start..], out);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim().to_string())),
        None => (tree, None),
    };
    let mut segs = prefix.to_vec();
    segs.extend(
        path.split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string),
    );
    if segs.last().is_some_and(|s| s == "self") {
        segs.pop();
    }
    let alias = alias.or_else(|| segs.last().cloned());
    out.push((segs, alias));
}

/// The modules of `mods` that module `me` (its code `code`) refers to: `use` items and paths
/// written out (`crate::…`, `super::…`, `self::…`, a child module's or an imported module's
/// name), each resolved to the longest module path that has a file.
fn imports(me: &[String], code: &str, mods: &Modules) -> std::collections::BTreeSet<Vec<String>> {
    let mut scope: std::collections::HashMap<String, Vec<String>> = mods
        .keys()
        .filter(|k| k.len() == me.len() + 1 && k.starts_with(me))
        .map(|k| (k[me.len()].clone(), k.clone()))
        .collect();
    let absolute = |segs: &[String],
                    scope: &std::collections::HashMap<String, Vec<String>>|
     -> Option<Vec<String>> {
        let (mut base, mut rest): (Vec<String>, &[String]) = match segs.first()?.as_str() {
            "crate" => (Vec::new(), &segs[1..]),
            "self" => (me.to_vec(), &segs[1..]),
            "super" => (me[..me.len().saturating_sub(1)].to_vec(), &segs[1..]),
            first => (scope.get(first)?.clone(), &segs[1..]),
        };
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some(base)
    };
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| mods.contains_key(p))
    };
    let mut out = std::collections::BTreeSet::new();
    let use_re = regex::Regex::new(r"\buse\s+([^;]+);").unwrap();
    for c in use_re.captures_iter(code) {
        let mut paths = Vec::new();
        use_paths(&[], &c[1], &mut paths);
        for (segs, alias) in paths {
            let Some(abs) = absolute(&segs, &scope) else {
                continue;
            };
            if let Some(m) = resolve(&abs) {
                if m == abs
                    && let Some(a) = alias
                {
                    scope.insert(a, m.clone());
                }
                out.insert(m);
            }
        }
    }
    let path_re = regex::Regex::new(
        r"(?:^|[^A-Za-z0-9_:])((?:[A-Za-z_][A-Za-z0-9_]*::)+[A-Za-z_][A-Za-z0-9_]*)",
    )
    .unwrap();
    for c in path_re.captures_iter(code) {
        let segs: Vec<String> = c[1].split("::").map(str::to_string).collect();
        if let Some(m) = absolute(&segs, &scope).and_then(|a| resolve(&a)) {
            out.insert(m);
        }
    }
    out.remove(me);
    out
}

/// Every module's imports.
fn import_graph(
    src: &Path,
) -> std::collections::BTreeMap<Vec<String>, std::collections::BTreeSet<Vec<String>>> {
    let mods = modules(src);
    mods.iter()
        .map(|(m, p)| {
            let code = code_of(&std::fs::read_to_string(p).unwrap());
            (m.clone(), imports(m, &code, &mods))
        })
        .collect()
}

/// The strongly connected components of `graph` (Tarjan), largest first.
fn circles(
    graph: &std::collections::BTreeMap<Vec<String>, std::collections::BTreeSet<Vec<String>>>,
) -> Vec<Vec<Vec<String>>> {
    let names: Vec<&Vec<String>> = graph.keys().collect();
    let at: std::collections::HashMap<&Vec<String>, usize> =
        names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let n = names.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0);
    // Iterative: (node, position among its edges).
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            let edges: Vec<usize> = graph[names[v]]
                .iter()
                .filter_map(|w| at.get(w).copied())
                .collect();
            if *pos < edges.len() {
                let w = edges[*pos];
                *pos += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    comp.push(names[w].clone());
                    if w == v {
                        break;
                    }
                }
                comp.sort();
                out.push(comp);
            }
        }
    }
    out.sort_by_key(|c| std::cmp::Reverse(c.len()));
    out
}

fn crate_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn the_largest_import_circle_does_not_grow() {
    let graph = import_graph(&crate_src());
    let all = circles(&graph);
    let largest = &all[0];
    let names: Vec<String> = largest.iter().map(|m| m.join("::")).collect();
    println!(
        "largest import circle: {} files: {}",
        largest.len(),
        names.join(", ")
    );
    assert!(
        largest.len() <= LARGEST_CIRCLE_RATCHET,
        "the largest import circle has {} files (at most {LARGEST_CIRCLE_RATCHET}): {}",
        largest.len(),
        names.join(", ")
    );
}

/// What a component (a converted screen or dialog) may not import: the `App`, its frame, the
/// `ui` module (which re-exports `App`), the screen router, `App`'s side of the seam, or
/// another screen.
fn forbidden_for_component(me: &[String], target: &[String]) -> bool {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let app_side = [
        s(&["ui"]),
        s(&["ui", "app"]),
        s(&["ui", "widgets"]),
        s(&["ui", "outcome"]),
        s(&["ui", "dialogs"]),
        s(&["ui", "create"]),
        s(&["ui", "plugin_start"]),
        s(&["ui", "screens"]),
    ];
    if app_side.iter().any(|a| a.as_slice() == target) {
        return true;
    }
    // Another screen: under ui::screens, and neither this screen's own module nor its parts.
    let screen_of = |m: &[String]| -> Option<String> {
        (m.len() >= 3 && m[0] == "ui" && m[1] == "screens").then(|| m[2].clone())
    };
    match (screen_of(me), screen_of(target)) {
        (Some(mine), Some(theirs)) => mine != theirs,
        (None, Some(_)) => true,
        _ => false,
    }
}

#[test]
fn a_component_imports_neither_the_app_nor_another_screen() {
    let src = crate_src();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = import_graph(&src);
    let mods = modules(&src);
    let mut found = Vec::new();
    let mut converted_but_listed = Vec::new();
    let seam = ["component", "view", "kit"];
    for (m, targets) in &graph {
        let is_screen = m.len() >= 3 && m[0] == "ui" && m[1] == "screens";
        let is_seam = m.len() == 2 && m[0] == "ui" && seam.contains(&m[1].as_str());
        if !is_screen && !is_seam {
            continue;
        }
        let file = mods[m].strip_prefix(root).unwrap().display().to_string();
        let bad: Vec<String> = targets
            .iter()
            .filter(|t| forbidden_for_component(m, t))
            .map(|t| t.join("::"))
            .collect();
        let listed = NOT_YET_COMPONENTS.contains(&file.as_str());
        if listed && bad.is_empty() {
            converted_but_listed.push(file);
        } else if !listed && !bad.is_empty() {
            found.push(format!("{file} imports {}", bad.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "a screen or dialog is a ui::component::Component: it reads a Ctx and answers an \
         Outcome, and imports neither App nor another screen:\n{}",
        found.join("\n")
    );
    assert!(
        converted_but_listed.is_empty(),
        "these no longer import App or another screen: take them off NOT_YET_COMPONENTS:\n{}",
        converted_but_listed.join("\n")
    );
}

#[test]
fn the_import_graph_sees_use_trees_super_paths_and_written_out_paths() {
    let m = |s: &str| -> Vec<String> {
        if s.is_empty() {
            Vec::new()
        } else {
            s.split("::").map(str::to_string).collect()
        }
    };
    let mods: Modules = [
        "",
        "ui",
        "ui::app",
        "ui::kit",
        "ui::screens",
        "ui::screens::scale",
        "ui::screens::help",
        "ui::screens::table",
        "ui::screens::table::draw",
    ]
    .iter()
    .map(|s| (m(s), PathBuf::new()))
    .collect();
    let code = "use super::{help::Help, table};\nuse crate::ui::kit::{centered, DIM};\n\
                fn f() { table::draw::x(); crate::ui::app::App::new(); }\n";
    let found = imports(&m("ui::screens::scale"), &code_of(code), &mods);
    let want: std::collections::BTreeSet<Vec<String>> = [
        "ui::screens::help",
        "ui::screens::table",
        "ui::screens::table::draw",
        "ui::kit",
        "ui::app",
    ]
    .iter()
    .map(|s| m(s))
    .collect();
    assert_eq!(found, want);
    // A comment or a unit test naming a module is not an import.
    let quiet = "// use crate::ui::app::App;\nfn g() {}\n#[cfg(test)]\nmod tests { use crate::ui::app::App; }\n";
    assert!(imports(&m("ui::kit"), &code_of(quiet), &mods).is_empty());
    // Two modules importing each other are one circle of two.
    let graph: std::collections::BTreeMap<_, _> = [
        (m("a"), [m("b")].into_iter().collect()),
        (m("b"), [m("a")].into_iter().collect()),
        (m("c"), [m("a")].into_iter().collect()),
    ]
    .into_iter()
    .collect();
    assert_eq!(circles(&graph)[0], vec![m("a"), m("b")]);
}
