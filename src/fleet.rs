//! Several clusters at once: which kubeconfig contexts the user selected (`--context a,b`,
//! `--context 'prod-*'`, `--all-contexts`, `:ctx +name`) and the glob they are matched with.
//!
//! Pure functions; the runtime connects to each selected context with its own client.

/// Does `name` match the shell-style `pattern` (`*`: any run of characters, `?`: one
/// character; everything else literal)?
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative wildcard matching with one backtrack point (the last `*`).
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(c) if *c == '?' || *c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Is `pattern` a glob (rather than a context name)?
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

/// Why a selection names no usable context.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    #[error("context {0:?} not found in the kubeconfig (available: {1})")]
    Unknown(String, String),
    #[error("no context matches {0:?} (available: {1})")]
    NoMatch(String, String),
    #[error("the kubeconfig has no contexts")]
    Empty,
}

/// The contexts `spec` selects among `available`, in kubeconfig order, each once: a
/// comma-separated list of names and globs (`prod-eu,staging`, `prod-*`), or every context
/// (`all`). A name that is not a context, or a glob matching none, is an error.
pub fn select_contexts(
    available: &[String],
    spec: &str,
    all: bool,
) -> Result<Vec<String>, SelectError> {
    if available.is_empty() {
        return Err(SelectError::Empty);
    }
    if all {
        return Ok(available.to_vec());
    }
    let known = || available.join(", ");
    let mut wanted = vec![false; available.len()];
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut any = false;
        for (i, name) in available.iter().enumerate() {
            let hit = if is_glob(part) {
                glob_match(part, name)
            } else {
                name == part
            };
            if hit {
                wanted[i] = true;
                any = true;
            }
        }
        if !any {
            return Err(if is_glob(part) {
                SelectError::NoMatch(part.to_string(), known())
            } else {
                SelectError::Unknown(part.to_string(), known())
            });
        }
    }
    Ok(available
        .iter()
        .zip(wanted)
        .filter(|(_, w)| *w)
        .map(|(n, _)| n.clone())
        .collect())
}

/// Does `context` match one of the comma-separated names and globs in `patterns`
/// (`--readonly-contexts 'prod-*'`)?
pub fn matches_any(patterns: &str, context: &str) -> bool {
    patterns
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .any(|p| glob_match(p, context))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn globs_match_like_a_shell() {
        assert!(glob_match("prod-*", "prod-eu"));
        assert!(glob_match("prod-*", "prod-"));
        assert!(!glob_match("prod-*", "staging"));
        assert!(glob_match("*-eu", "prod-eu"));
        assert!(glob_match("p?od-*u*", "prod-us"));
        assert!(!glob_match("prod-?", "prod-eu"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "aXXbYYbc"));
        assert!(!glob_match("a*b*c", "aXXbYYb"));
        assert!(glob_match("exact", "exact"));
        assert!(!glob_match("exact", "exactly"));
    }

    #[test]
    fn a_selection_keeps_kubeconfig_order_and_names_each_context_once() {
        let available = names(&["prod-eu", "prod-us", "staging", "dev"]);
        assert_eq!(
            select_contexts(&available, "staging,prod-*", false),
            Ok(names(&["prod-eu", "prod-us", "staging"]))
        );
        assert_eq!(
            select_contexts(&available, "dev, dev ,d*", false),
            Ok(names(&["dev"]))
        );
        assert_eq!(
            select_contexts(&available, "ignored", true),
            Ok(available.clone())
        );
    }

    #[test]
    fn unknown_names_and_empty_globs_are_refused_with_the_available_contexts() {
        let available = names(&["prod-eu", "staging"]);
        assert_eq!(
            select_contexts(&available, "prod-eu,qa", false),
            Err(SelectError::Unknown("qa".into(), "prod-eu, staging".into()))
        );
        let e = select_contexts(&available, "test-*", false).unwrap_err();
        assert_eq!(
            e,
            SelectError::NoMatch("test-*".into(), "prod-eu, staging".into())
        );
        assert_eq!(
            e.to_string(),
            "no context matches \"test-*\" (available: prod-eu, staging)"
        );
        assert_eq!(select_contexts(&[], "x", true), Err(SelectError::Empty));
    }

    #[test]
    fn readonly_patterns_match_names_and_globs() {
        assert!(matches_any("prod-*", "prod-us"));
        assert!(matches_any("staging, prod-eu", "prod-eu"));
        assert!(!matches_any("prod-*", "staging"));
        assert!(!matches_any("", "staging"));
    }
}
