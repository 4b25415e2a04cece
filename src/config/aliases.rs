//! k9s's `aliases.yaml` (k9s `internal/config/alias.go`, the README's Aliases section) and how
//! `:alias` resolves (k9s `internal/view/cmd/args.go`):
//!
//! ```yaml
//! aliases:
//!   pp: v1/pods                    # a GVR: version/resource (core) or group/version/resource
//!   dep: apps/v1/deployments
//!   web: pp default app=web        # another alias (or a kind's name) with arguments
//! ```
//!
//! Arguments as k9s reads them: a word with `=` (or `!=`, ` in `) is a label selector, `@NAME`
//! a context, `/TEXT` a filter, any other word the namespace. Arguments typed after the alias
//! win over the alias's, an alias's over the alias it names. Older k9s files use `alias:` as
//! the top key; both are read.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::{Error, Problem};
use super::yaml::{locate, parse as parse_yaml};

/// One alias and where it was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasDef {
    pub name: String,
    /// The whole value: a target and optional arguments.
    pub target: String,
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
}

/// The user's aliases; a later file's alias replaces an earlier one of the same name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases {
    defs: Vec<AliasDef>,
}

#[derive(Deserialize)]
struct AliasFile {
    #[serde(default)]
    aliases: Option<std::collections::BTreeMap<String, String>>,
    /// The top key of k9s's older `alias.yml`.
    #[serde(default)]
    alias: Option<std::collections::BTreeMap<String, String>>,
}

/// Parse an `aliases.yaml` into `into`; returns how many aliases it defines.
pub fn parse_into(text: &str, path: &Path, into: &mut Aliases) -> Result<usize, Error> {
    let file: Option<AliasFile> = parse_yaml(text, path)?;
    let Some(file) = file else { return Ok(0) };
    let mut map = file.aliases.unwrap_or_default();
    map.extend(file.alias.unwrap_or_default());
    let n = map.len();
    for (name, target) in map {
        let (line, column) = locate(text, &name, 0);
        let target = target.trim().to_string();
        if target.is_empty() {
            return Err(Error::Parse(Problem::new(
                path,
                line,
                column,
                format!("alias {name:?} has no target"),
            )));
        }
        into.defs.retain(|d| d.name != name);
        into.defs.push(AliasDef {
            name,
            target,
            file: path.to_path_buf(),
            line,
            column,
        });
    }
    Ok(n)
}

pub(super) fn parse(text: &str, path: &Path, into: &mut Aliases) -> Result<usize, Error> {
    // Parse into a copy so that a bad file leaves nothing behind.
    let mut next = into.clone();
    let n = parse_into(text, path, &mut next)?;
    *into = next;
    Ok(n)
}

/// What an alias (or any `:` line in k9s's grammar) asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandArgs {
    pub namespace: Option<String>,
    pub context: Option<String>,
    pub selector: Option<String>,
    pub filter: Option<String>,
}

impl CommandArgs {
    /// Read k9s's arguments from `words`.
    pub fn parse<'a>(words: impl IntoIterator<Item = &'a str>) -> CommandArgs {
        let mut a = CommandArgs::default();
        a.apply(words);
        a
    }

    /// Read `words` over these arguments (a later word wins).
    fn apply<'a>(&mut self, words: impl IntoIterator<Item = &'a str>) {
        for w in words {
            let w = w.trim();
            if w.is_empty() {
                continue;
            }
            if let Some(ctx) = w.strip_prefix('@') {
                self.context = Some(ctx.to_string());
            } else if let Some(f) = w.strip_prefix('/') {
                self.filter = Some(f.to_string());
            } else if w.contains('=') {
                self.selector = Some(w.to_string());
            } else {
                self.namespace = Some(w.to_string());
            }
        }
    }

    fn over(mut self, outer: &CommandArgs) -> CommandArgs {
        if outer.namespace.is_some() {
            self.namespace.clone_from(&outer.namespace);
        }
        if outer.context.is_some() {
            self.context.clone_from(&outer.context);
        }
        if outer.selector.is_some() {
            self.selector.clone_from(&outer.selector);
        }
        if outer.filter.is_some() {
            self.filter.clone_from(&outer.filter);
        }
        self
    }
}

/// An alias resolved: the resource name to open (`pods`, `deployments.apps`, a CRD's plural)
/// and the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    pub resource: String,
    pub args: CommandArgs,
}

/// A k9s GVR (`v1/pods`, `apps/v1/deployments`) as a name `:` resolves (`pods`,
/// `deployments.apps`); any other word as it is.
pub fn gvr_to_name(target: &str) -> Result<String, String> {
    let parts: Vec<&str> = target.split('/').collect();
    match parts.as_slice() {
        [_] => Ok(target.to_string()),
        [version, resource] if !version.is_empty() && !resource.is_empty() => {
            Ok((*resource).to_string())
        }
        [group, version, resource]
            if !group.is_empty() && !version.is_empty() && !resource.is_empty() =>
        {
            Ok(format!("{resource}.{group}"))
        }
        _ => Err(format!(
            "{target:?} is not a GVR (version/resource or group/version/resource)"
        )),
    }
}

impl Aliases {
    pub fn iter(&self) -> impl Iterator<Item = &AliasDef> {
        self.defs.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.defs.len()
    }

    pub fn get(&self, name: &str) -> Option<&AliasDef> {
        self.defs.iter().find(|d| d.name == name)
    }

    /// Drop the alias `name` (its target is not served: the name keeps its built-in meaning).
    pub fn remove(&mut self, name: &str) {
        self.defs.retain(|d| d.name != name);
    }

    /// Resolve a `:` line whose first word is an alias (`None` if it is not one). Aliases may
    /// name aliases; a cycle or a malformed GVR is an error.
    pub fn expand(&self, line: &str) -> Option<Result<Expanded, String>> {
        let mut words = line.split_whitespace();
        let first = words.next()?;
        let def = self.get(first)?;
        let typed = CommandArgs::parse(words);
        Some(self.expand_def(def, &typed))
    }

    fn expand_def(&self, def: &AliasDef, typed: &CommandArgs) -> Result<Expanded, String> {
        // Layers of arguments, outermost first.
        let mut layers = vec![typed.clone()];
        let mut seen = vec![def.name.as_str()];
        let mut cur = def;
        loop {
            let mut words = cur.target.split_whitespace();
            let Some(head) = words.next() else {
                return Err(format!("alias {:?} has no target", cur.name));
            };
            layers.push(CommandArgs::parse(words));
            match self.get(head) {
                // An alias naming itself (`po: po kube-system`) means the kind.
                Some(next) if next.name != cur.name => {
                    if seen.contains(&next.name.as_str()) {
                        return Err(format!("alias cycle: {} → {}", seen.join(" → "), next.name));
                    }
                    seen.push(next.name.as_str());
                    cur = next;
                }
                _ => {
                    let resource = gvr_to_name(head)?;
                    let args = layers
                        .iter()
                        .rev()
                        .fold(CommandArgs::default(), |acc, l| acc.over(l));
                    return Ok(Expanded { resource, args });
                }
            }
        }
    }

    /// Each alias whose target does not resolve, as a problem at its definition; `known`
    /// says whether a resource name (as [`Expanded::resource`]) or command exists.
    pub fn unknown_targets(&self, known: &dyn Fn(&str) -> bool) -> Vec<Problem> {
        self.unknown_target_names(known)
            .into_iter()
            .map(|(_, p)| p)
            .collect()
    }

    /// [`Aliases::unknown_targets`] with each alias's name.
    pub fn unknown_target_names(&self, known: &dyn Fn(&str) -> bool) -> Vec<(String, Problem)> {
        self.defs
            .iter()
            .filter_map(|d| {
                let why = match self.expand_def(d, &CommandArgs::default()) {
                    Ok(e) if known(&e.resource) => return None,
                    Ok(e) => format!(
                        "alias {:?}: unknown target {:?} (no such resource or command); not loaded",
                        d.name, e.resource
                    ),
                    Err(why) => format!("alias {:?}: {why}; not loaded", d.name),
                };
                Some((d.name.clone(), Problem::new(&d.file, d.line, d.column, why)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aliases(text: &str) -> Aliases {
        let mut a = Aliases::default();
        parse_into(text, Path::new("/k/aliases.yaml"), &mut a).unwrap();
        a
    }

    #[test]
    fn a_gvr_alias_names_the_resource() {
        let a = aliases("aliases:\n  pp: v1/pods\n  dep: apps/v1/deployments\n");
        assert_eq!(a.expand("pp").unwrap().unwrap().resource, "pods");
        assert_eq!(
            a.expand("dep").unwrap().unwrap().resource,
            "deployments.apps"
        );
        assert!(a.expand("po").is_none());
    }

    #[test]
    fn an_alias_of_an_alias_carries_namespace_selector_and_context() {
        let a = aliases(
            "aliases:\n  pp: v1/pods\n  web: pp default app=web @prod\n  w2: web kube-system\n",
        );
        let e = a.expand("web").unwrap().unwrap();
        assert_eq!(e.resource, "pods");
        assert_eq!(e.args.namespace.as_deref(), Some("default"));
        assert_eq!(e.args.selector.as_deref(), Some("app=web"));
        assert_eq!(e.args.context.as_deref(), Some("prod"));
        // The outer alias's namespace wins, the inner's selector stays; typed words win last.
        let e = a.expand("w2").unwrap().unwrap();
        assert_eq!(e.args.namespace.as_deref(), Some("kube-system"));
        assert_eq!(e.args.selector.as_deref(), Some("app=web"));
        let e = a.expand("w2 other /api").unwrap().unwrap();
        assert_eq!(e.args.namespace.as_deref(), Some("other"));
        assert_eq!(e.args.filter.as_deref(), Some("api"));
    }

    #[test]
    fn an_alias_cycle_is_an_error_not_a_hang() {
        let a = aliases("aliases:\n  a: b\n  b: a\n");
        let e = a.expand("a").unwrap().unwrap_err();
        assert!(e.contains("cycle"), "{e}");
    }

    #[test]
    fn an_unknown_target_is_named_with_its_line() {
        let a = aliases("aliases:\n  pp: v1/pods\n  zz: v1/podz\n  bad: a/b/c/d\n");
        let known = |n: &str| n == "pods";
        let problems = a.unknown_targets(&known);
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(problems.len(), 2, "{text:?}");
        assert!(
            text.iter()
                .any(|p| p.starts_with("/k/aliases.yaml:3:3:") && p.contains("podz")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|p| p.starts_with("/k/aliases.yaml:4:3:") && p.contains("not a GVR")),
            "{text:?}"
        );
    }

    #[test]
    fn the_older_alias_key_is_read_too() {
        let a = aliases("alias:\n  dp: apps/v1/deployments\n");
        assert_eq!(a.len(), 1);
    }
}
