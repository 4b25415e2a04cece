//! The README is a contract: what it says the program does is pinned here.
//!
//! - The key tables (`## Keys`, `### Coming from k9s`) are checked against the key data
//!   (`assets/keys.toml`, `assets/log_keys.toml`, as [`KeyMap`] and [`LogKeyMap`] load them):
//!   each row names the actions it documents in a comment at its end
//!   (`<!-- keys: describe yaml -->`, `<!-- log-keys: … -->`; `fixed: n N` for keys a screen
//!   handles itself). Every key the row shows must be bound to one of them, each of them must
//!   show at least one of its keys, and every action of the key data is in some row (or in
//!   [`NOT_IN_THE_TABLES`], with where the README covers it).
//! - Every other behaviour is pinned by a test named in a comment beside the sentence
//!   (`<!-- test: tests/ui_app/drill.rs::enter_on_a_node_shows_the_pods_on_it_in_all_namespaces -->`):
//!   each named test must exist (a `fn NAME` in that file), and a test the README's tables name
//!   in backticks (the Reliability table) likewise.

use std::collections::BTreeSet;
use std::path::Path;

use kinformer::ui::keys::{KeyMap, KeySpec};
use kinformer::ui::log_view::LogKeyMap;

const README: &str = include_str!("../README.md");

/// Actions of the key data no key-table row documents, and where the README covers them.
const NOT_IN_THE_TABLES: &[(&str, &str)] = &[
    ("blame", "## History and changes: `b` (`:blame`)"),
    // The log view moves as every screen does (## Keys, Everywhere).
    ("log:up", "Everywhere: `j` `k` / arrows"),
    ("log:down", "Everywhere: `j` `k` / arrows"),
    ("log:page-up", "Everywhere: `pgdn` `pgup`"),
    ("log:page-down", "Everywhere: `pgdn` `pgup`"),
    ("log:top", "Everywhere: `g`"),
];

/// (action name as the key file spells it, its default keys) of both key tables; log actions
/// prefixed `log:`.
fn key_data() -> Vec<(String, Vec<KeySpec>)> {
    let mut out = Vec::new();
    for b in KeyMap::defaults().unwrap().bindings() {
        out.push((kebab(&format!("{:?}", b.action)), b.keys.clone()));
    }
    for (action, keys, _, _) in LogKeyMap::defaults().unwrap().bindings {
        out.push((format!("log:{}", kebab(&format!("{action:?}"))), keys));
    }
    out
}

/// `SortName` → `sort-name`.
fn kebab(debug: &str) -> String {
    let mut out = String::new();
    let mut prev: Option<char> = None;
    for c in debug.chars() {
        if !c.is_ascii_alphanumeric() {
            break;
        }
        // A word starts at a capital, and at a digit after a letter (`Since1m` → `since-1m`).
        let starts = c.is_ascii_uppercase()
            || (c.is_ascii_digit() && prev.is_some_and(|p| p.is_ascii_alphabetic()));
        if starts && prev.is_some() {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
        prev = Some(c);
    }
    out
}

/// The cells of a markdown table row (comments and the row's pipes stripped).
fn cells(row: &str) -> Vec<String> {
    let row = row.split("<!--").next().unwrap_or("").trim();
    let row = row.trim_start_matches('|').trim_end_matches('|');
    row.split(" | ").map(|c| c.trim().to_string()).collect()
}

/// The keys a cell shows: each backticked word that parses as a key (`:q`, `/~regex` do not);
/// `` `0`–`6` `` is every digit between.
fn keys_shown(cell: &str) -> Vec<(String, KeySpec)> {
    let mut out = Vec::new();
    let spans: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
    for (i, span) in spans.iter().enumerate() {
        for word in span.split_whitespace() {
            if let Ok(k) = KeySpec::parse(word) {
                out.push((word.to_string(), k));
            }
        }
        let range = format!("`{span}`–`");
        if let (Some(pos), Ok(a)) = (cell.find(&range), span.parse::<u8>()) {
            let _ = pos;
            if let Some(b) = spans.get(i + 1).and_then(|s| s.parse::<u8>().ok()) {
                for d in a + 1..b {
                    let w = d.to_string();
                    out.push((w.clone(), KeySpec::parse(&w).unwrap()));
                }
            }
        }
    }
    out
}

/// The clauses of every `<!-- … -->` comment in `text`: (`keys`, `fixed`, `test`…, words).
fn clauses(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for part in text.split("<!--").skip(1) {
        let body = part.split("-->").next().unwrap_or("");
        for clause in body.split(';') {
            if let Some((name, rest)) = clause.split_once(':') {
                let words = rest
                    .split([' ', ','])
                    .filter(|w| !w.is_empty())
                    .map(String::from)
                    .collect();
                out.push((name.trim().to_string(), words));
            }
        }
    }
    out
}

/// The comment at the end of a row: (`log:` prefix or not, actions, fixed keys).
fn row_actions(row: &str) -> Option<(bool, Vec<String>, Vec<String>)> {
    let c = clauses(row);
    let get = |n: &str| c.iter().find(|(k, _)| k == n).map(|(_, w)| w.clone());
    let fixed = get("fixed").unwrap_or_default();
    match (get("keys"), get("log-keys")) {
        (Some(a), _) => Some((false, a, fixed)),
        (None, Some(a)) => Some((true, a, fixed)),
        (None, None) => None,
    }
}

/// The README between `## Keys` and the next `## ` (which includes `### Coming from k9s`).
fn keys_section() -> &'static str {
    let start = README.find("\n## Keys\n").expect("a ## Keys section");
    let end = README[start + 1..]
        .find("\n## ")
        .map_or(README.len(), |e| start + 1 + e);
    &README[start..end]
}

#[test]
fn the_readme_key_tables_are_the_key_data() {
    let data = key_data();
    let keys_of = |name: &str| data.iter().find(|(a, _)| a == name).map(|(_, k)| k.clone());
    let mut wrong = Vec::new();
    let mut documented = BTreeSet::new();
    // The columns whose keys are kinformer's: every column, but only `kinformer` in the k9s table.
    let mut checked: Option<usize> = None;
    let mut rows = 0;
    for line in keys_section().lines() {
        if !line.starts_with('|') {
            continue;
        }
        let c = cells(line);
        if c.iter().all(|c| c.chars().all(|ch| ch == '-' || ch == ' ')) {
            continue;
        }
        if c[0] == "key" || c[0] == "screen" || c[0] == "k9s" {
            checked = c.iter().position(|h| h == "kinformer");
            continue;
        }
        let text = match checked {
            Some(i) => c[i].clone(),
            None => c.join(" | "),
        };
        rows += 1;
        let Some((log, actions, fixed)) = row_actions(line) else {
            let pinned = clauses(line).iter().any(|(k, _)| k == "test");
            if !pinned && !keys_shown(&text).is_empty() {
                wrong.push(format!("no `<!-- keys: … -->` comment: {line}"));
            }
            continue;
        };
        let actions: Vec<String> = actions
            .into_iter()
            .map(|a| if log { format!("log:{a}") } else { a })
            .collect();
        let shown = keys_shown(&text);
        let mut bound = Vec::new();
        for a in &actions {
            documented.insert(a.clone());
            match keys_of(a) {
                None => wrong.push(format!("{a}: no such action ({line})")),
                Some(keys) => {
                    if !keys.iter().any(|k| shown.iter().any(|(_, s)| s == k)) {
                        wrong.push(format!("{a}: none of its keys is shown in {text:?}"));
                    }
                    bound.extend(keys);
                }
            }
        }
        for (word, k) in &shown {
            if !bound.contains(k) && !fixed.contains(word) {
                wrong.push(format!(
                    "`{word}` in {text:?} is bound to none of {actions:?}"
                ));
            }
        }
    }
    assert!(rows > 40, "the key tables were not found ({rows} rows)");
    for (action, _) in &data {
        let allowed = NOT_IN_THE_TABLES.iter().any(|(a, _)| a == action);
        if !documented.contains(action) && !allowed {
            wrong.push(format!(
                "{action}: bound in the key data, in no README key table row"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `<!-- test: FILE::NAME -->` comments, and test names the README shows in backticks in a
/// table's "pinned by" column or names as `tests/FILE.rs`.
fn named_tests() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, words) in clauses(README) {
        if name == "test" {
            for t in words {
                let (file, name) = t.rsplit_once("::").unwrap_or(("", &t));
                out.push((file.to_string(), name.to_string()));
            }
        }
    }
    for line in README.lines().filter(|l| l.starts_with('|')) {
        let last = cells(line).pop().unwrap_or_default();
        for span in last.split('`').skip(1).step_by(2) {
            if span
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                && span.contains('_')
            {
                out.push((String::new(), span.to_string()));
            } else if span.starts_with("tests/") && span.ends_with(".rs") {
                out.push((span.to_string(), String::new()));
            }
        }
    }
    out
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

#[test]
fn every_test_the_readme_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("tests"), &mut files);
    rust_files(&root.join("src"), &mut files);
    let named = named_tests();
    assert!(named.len() > 20, "too few named tests found: {named:?}");
    let mut missing = Vec::new();
    for (file, name) in &named {
        let defines = |text: &str| {
            name.is_empty()
                || text.contains(&format!("fn {name}("))
                || text.contains(&format!("fn {name}<"))
        };
        let found = files
            .iter()
            .any(|(path, text)| (file.is_empty() || path == file) && defines(text));
        if !found {
            missing.push(format!("{file}::{name}"));
        }
    }
    assert!(
        missing.is_empty(),
        "the README names tests that do not exist: {missing:?}"
    );
}
