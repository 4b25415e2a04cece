//! k9s's plugins (k9s `internal/config/plugin.go`, the README's Plugins section): a command run
//! on the selected object, bound to a shortcut in the scopes it names.
//!
//! ```yaml
//! plugins:
//!   stern:
//!     shortCut: Ctrl-L
//!     description: Logs (stern)
//!     scopes: [pods, deploy]          # kinds, aliases, short names, or `all`
//!     command: stern
//!     background: false               # true: runs while the dashboard stays; output to a file
//!     confirm: false                  # ask first
//!     dangerous: false                # refused under --readonly
//!     overwriteOutput: false
//!     args: [--tail, 50, $NAME, -n, $NAMESPACE, --context, $CONTEXT]
//! ```
//!
//! `plugins.yaml` holds a `plugins:` map; a file in a `plugins/` directory holds one plugin
//! (named after the file) or a `plugins:` map, as k9s reads them. The variables
//! ([`expand`]) are k9s's: `$NAMESPACE`, `$NAME`, `$CONTAINER`, `$CONTEXT`, `$CLUSTER`,
//! `$USER`, `$GROUPS`, `$FILTER`, `$KUBECONFIG`, `$RESOURCE_GROUP`, `$RESOURCE_VERSION`,
//! `$RESOURCE_NAME`, `$COL-<NAME>` for the row's columns; others come from the environment.
//! k9s's `inputs` are asked in a dialog before the plugin runs and are `$INPUT_<NAME>` (the
//! name upper-cased); `confirm` defaults to true when there are inputs (k9s
//! `ShouldConfirm`). `override: true` lets a plugin take a key already bound in its scopes;
//! without it such a plugin is refused (the key map says so). k9s's `pipes` are not run
//! (`kinformer config` names them "not supported").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::{Error, Problem};
use super::yaml::{locate, locate_value, parse as parse_yaml};

/// One plugin and where it was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    pub name: String,
    /// As written (`Ctrl-L`, `Shift-D`); the key map parses it.
    pub shortcut: String,
    pub description: String,
    pub scopes: Vec<String>,
    pub command: String,
    pub args: Vec<String>,
    pub confirm: bool,
    pub background: bool,
    pub dangerous: bool,
    pub overwrite_output: bool,
    /// k9s's `override`: the plugin may take a key already bound in its scopes (otherwise such
    /// a plugin is refused, as k9s refuses it).
    pub allow_override: bool,
    /// k9s's `inputs`: values asked in a dialog before the plugin runs, as `$INPUT_<NAME>`.
    pub inputs: Vec<PluginInput>,
    /// Where k9s's `pipes` is written, when the plugin has some (not supported: the report
    /// names it).
    pub pipes_at: Option<usize>,
    /// Where each scope is written (same order as `scopes`).
    pub scope_at: Vec<(usize, usize)>,
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
}

/// A string or a number, as k9s accepts in `args`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Arg {
    Text(String),
    Int(i64),
    Float(f64),
    Flag(bool),
}

impl Arg {
    fn into_string(self) -> String {
        match self {
            Arg::Text(s) => s,
            Arg::Int(n) => n.to_string(),
            Arg::Float(f) => f.to_string(),
            Arg::Flag(b) => b.to_string(),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPlugin {
    short_cut: String,
    #[serde(default)]
    description: String,
    scopes: Vec<String>,
    command: String,
    #[serde(default)]
    args: Vec<Arg>,
    confirm: Option<bool>,
    #[serde(default)]
    background: bool,
    #[serde(default)]
    dangerous: bool,
    #[serde(default)]
    overwrite_output: bool,
    #[serde(default, rename = "override")]
    allow_override: bool,
    #[serde(default)]
    pipes: Vec<String>,
    #[serde(default)]
    inputs: Vec<PluginInput>,
}

/// The kind of value a plugin input takes (k9s `PluginInputType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputType {
    #[default]
    String,
    Number,
    Bool,
    Dropdown,
}

/// One input of a plugin (k9s `PluginInput`): asked before the plugin runs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PluginInput {
    pub name: String,
    #[serde(default)]
    pub label: String,
    #[serde(default, rename = "type")]
    pub kind: InputType,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub default: String,
    #[serde(default)]
    pub options: Vec<String>,
}

impl PluginInput {
    /// Why `value` is not acceptable for this input, if it is not.
    pub fn invalid(&self, value: &str) -> Option<String> {
        let label = if self.label.is_empty() {
            &self.name
        } else {
            &self.label
        };
        if value.is_empty() {
            return self.required.then(|| format!("{label} is required"));
        }
        match self.kind {
            InputType::Number if value.parse::<f64>().is_err() => {
                Some(format!("{label}: {value:?} is not a number"))
            }
            InputType::Bool if value != "true" && value != "false" => {
                Some(format!("{label}: {value:?} is not true or false"))
            }
            InputType::Dropdown if !self.options.iter().any(|o| o == value) => Some(format!(
                "{label}: {value:?} is not one of {}",
                self.options.join(", ")
            )),
            _ => None,
        }
    }
}

/// k9s's checks of a plugin's inputs (k9s `Plugin.Validate`): unique names, defaults of the
/// input's type.
fn validate_inputs(inputs: &[PluginInput]) -> Result<(), String> {
    for (i, input) in inputs.iter().enumerate() {
        if inputs[..i].iter().any(|x| x.name == input.name) {
            return Err(format!("duplicate input name {:?}", input.name));
        }
        if input.kind == InputType::Dropdown && input.options.is_empty() {
            return Err(format!("dropdown input {:?} has no options", input.name));
        }
        if !input.default.is_empty()
            && let Some(why) = input.invalid(&input.default)
        {
            return Err(format!("default of input {:?}: {why}", input.name));
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct PluginsFile {
    #[serde(default)]
    plugins: BTreeMap<String, RawPlugin>,
}

fn build(
    name: String,
    raw: RawPlugin,
    text: &str,
    path: &Path,
    single: bool,
) -> Result<Plugin, Error> {
    let (line, column) = if single {
        locate(text, "shortCut", 0)
    } else {
        locate(text, &name, 0)
    };
    if let Err(why) = validate_inputs(&raw.inputs) {
        return Err(Error::Parse(Problem::new(
            path,
            line,
            column,
            format!("plugin {name:?}: {why}"),
        )));
    }
    let scope_at = raw
        .scopes
        .iter()
        .map(|sc| match locate_value(text, sc, line.saturating_sub(1)) {
            (0, _) => (line, column),
            at => at,
        })
        .collect();
    Ok(Plugin {
        name,
        scope_at,
        shortcut: raw.short_cut,
        description: raw.description,
        scopes: raw.scopes,
        command: raw.command,
        args: raw.args.into_iter().map(Arg::into_string).collect(),
        // k9s: asked when there are inputs, unless the plugin says otherwise.
        confirm: raw.confirm.unwrap_or(!raw.inputs.is_empty()),
        background: raw.background,
        dangerous: raw.dangerous,
        overwrite_output: raw.overwrite_output,
        allow_override: raw.allow_override,
        inputs: raw.inputs,
        pipes_at: (!raw.pipes.is_empty()).then(|| locate(text, "pipes", line.saturating_sub(1)).0),
        file: path.to_path_buf(),
        line,
        column,
    })
}

/// Parse a `plugins.yaml` (a `plugins:` map).
pub fn parse_file(text: &str, path: &Path) -> Result<Vec<Plugin>, Error> {
    let file: Option<PluginsFile> = parse_yaml(text, path)?;
    file.map(|f| {
        f.plugins
            .into_iter()
            .map(|(name, raw)| build(name, raw, text, path, false))
            .collect()
    })
    .unwrap_or_else(|| Ok(Vec::new()))
}

/// Parse a file of a `plugins/` directory: one plugin named after the file, or a `plugins:` map.
pub fn parse_dir_file(text: &str, path: &Path) -> Result<Vec<Plugin>, Error> {
    let looks_like_map = text
        .lines()
        .any(|l| l.trim_end() == "plugins:" || l.starts_with("plugins:"));
    if looks_like_map {
        return parse_file(text, path);
    }
    let raw: RawPlugin = parse_yaml(text, path)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(vec![build(name, raw, text, path, true)?])
}

impl Plugin {
    /// Whether the plugin applies to a resource known by any of `names` (its plural, singular,
    /// kind, short names, aliases; compared without case).
    pub fn applies_to(&self, names: &[&str]) -> bool {
        self.scopes.iter().any(|s| {
            s.eq_ignore_ascii_case("all") || names.iter().any(|n| n.eq_ignore_ascii_case(s))
        })
    }
}

/// Each scope that names no resource (`known` says whether a name is one), as a problem at the
/// plugin's definition. `all` is always known.
pub fn unknown_scopes(plugins: &[Plugin], known: &dyn Fn(&str) -> bool) -> Vec<Problem> {
    let mut out = Vec::new();
    for p in plugins {
        for (i, s) in p.scopes.iter().enumerate() {
            if s.eq_ignore_ascii_case("all") || known(s) {
                continue;
            }
            let (line, column) = p.scope_at.get(i).copied().unwrap_or((p.line, p.column));
            out.push(Problem::new(
                &p.file,
                line,
                column,
                format!(
                    "plugin {:?}: unknown scope {s:?} (not a kind, short name or alias)",
                    p.name
                ),
            ));
        }
    }
    out
}

/// Expand k9s's `$VAR` / `${VAR}` in `arg`; `lookup` answers a variable's value (`None`:
/// unknown, left as written). A `$COL-NAME` is looked up whole; for other names the longest
/// known prefix before a `-` is taken (`$NAME-debug` → the name and `-debug`).
pub fn expand(arg: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(inner) = after.strip_prefix('{')
            && let Some(end) = inner.find('}')
        {
            let name = &inner[..end];
            match lookup(name) {
                Some(v) => out.push_str(&v),
                None => out.push_str(&rest[i..i + 2 + end + 1]),
            }
            rest = &inner[end + 1..];
            continue;
        }
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(after.len());
        let token = &after[..len];
        // The longest known prefix, cut at a '-'.
        let mut cut = token.len();
        let found = loop {
            let name = &token[..cut];
            if !name.is_empty()
                && let Some(v) = lookup(name)
            {
                break Some((v, cut));
            }
            match name.rfind('-') {
                Some(p) => cut = p,
                None => break None,
            }
        };
        match found {
            Some((v, used)) => {
                out.push_str(&v);
                rest = &after[used..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_expand_as_k9s_does() {
        let vars = |n: &str| match n {
            "NAMESPACE" => Some("default".to_string()),
            "NAME" => Some("web-1".to_string()),
            "COL-READY" => Some("1/1".to_string()),
            _ => None,
        };
        assert_eq!(expand("$NAMESPACE/$NAME", &vars), "default/web-1");
        assert_eq!(expand("${NAME}.log", &vars), "web-1.log");
        assert_eq!(expand("$NAME-debug", &vars), "web-1-debug");
        assert_eq!(expand("$COL-READY", &vars), "1/1");
        assert_eq!(expand("$NOPE and $", &vars), "$NOPE and $");
        assert_eq!(expand("cost: 5$", &vars), "cost: 5$");
    }

    #[test]
    fn a_plugin_dir_file_is_one_plugin_named_after_it_or_a_map() {
        let one = "shortCut: Ctrl-D\ndescription: dive\nscopes: [containers]\ncommand: dive\nargs: [$COL-IMAGE, 3]\n";
        let p = parse_dir_file(one, Path::new("/k/plugins/dive.yaml")).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "dive");
        assert_eq!(p[0].args, vec!["$COL-IMAGE".to_string(), "3".to_string()]);
        let map = "plugins:\n  a:\n    shortCut: a\n    scopes: [all]\n    command: echo\n";
        let p = parse_dir_file(map, Path::new("/k/plugins/x.yaml")).unwrap();
        assert_eq!(p[0].name, "a");
        assert_eq!(p[0].line, 2);
    }

    #[test]
    fn scopes_match_names_without_case_and_all_matches_everything() {
        let p = parse_file(
            "plugins:\n  a:\n    shortCut: a\n    scopes: [Pods, dp]\n    command: x\n",
            Path::new("p.yaml"),
        )
        .unwrap();
        assert!(p[0].applies_to(&["pods", "pod", "po"]));
        assert!(p[0].applies_to(&["deployments", "dp"]));
        assert!(!p[0].applies_to(&["services", "svc"]));
    }
}
