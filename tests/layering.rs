//! The folders are the architecture: these tests fail when a file crosses a line the README's
//! diagram draws.
//!
//! - `src/ui/` is the pure side (App, Action/Effect, screens, view models, widgets): no I/O, no
//!   tokio, no kube client, nothing from `crate::runtime`. Its unit tests may do what they like.
//! - `src/ui/action.rs` (the messages) depends on plain data types only, never on a screen, the
//!   `App` or the runtime.
//! - `src/informer/` (the client-go port) never imports the UI or the runtime.

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
