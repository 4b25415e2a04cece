//! kinformer's own settings file (`~/.config/kinformer/config.toml`, `--config FILE`), and the
//! keys read from k9s's `config.yaml` (`k9s.refreshRate`, `k9s.readOnly`, `k9s.ui.skin`; a
//! context's `config.yaml` may set its own `k9s.readOnly` and `k9s.skin`).
//!
//! ```toml
//! refresh_seconds = 2            # how often ages and countdowns are redrawn
//! history_mib = 64               # --history-mib
//! history_file = "~/.local/state/kinformer/history.db"  # --history-file
//! log_buffer_mib = 16            # --log-buffer-mib
//! metrics_period = 15            # --metrics-period (seconds)
//! readonly_contexts = ["prod-*"] # --readonly-contexts
//! default_view = "deploy"        # --resource
//! k9s_dir = false                # or "/path/to/k9s"; default: where k9s keeps it
//! skin = "dracula"               # a k9s skin (skins/<name>.yaml); wins over k9s.ui.skin
//! verify_minutes = 30            # `:verify` the current table this often (off by default)
//!
//! [[bind]]                       # keys, as in assets/keys.toml
//! action = "describe"
//! keys = ["d"]
//! ```
//!
//! A flag given on the command line wins over the file; the file wins over k9s's settings.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{Error, Problem};
use super::yaml::{parse as parse_yaml, parse_toml};

/// Whether and where to read k9s's files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum K9sDir {
    /// Where k9s keeps them ([`super::K9sPaths::resolve`]).
    #[default]
    Auto,
    /// `k9s_dir = false`.
    Off,
    /// `k9s_dir = "/path"`.
    At(PathBuf),
}

impl<'de> Deserialize<'de> for K9sDir {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Flag(bool),
            Path(PathBuf),
        }
        Ok(match Raw::deserialize(d)? {
            Raw::Flag(true) => K9sDir::Auto,
            Raw::Flag(false) => K9sDir::Off,
            Raw::Path(p) => K9sDir::At(p),
        })
    }
}

/// One key binding, as in `assets/keys.toml` (checked when the key map is built).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Bind {
    pub action: String,
    pub keys: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<bool>,
}

/// kinformer's settings (every one optional: unset means the flag's default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub refresh_seconds: Option<u64>,
    pub history_mib: Option<u64>,
    /// `--history-file`: the dashboard's history kept across restarts (`~/` is the home).
    pub history_file: Option<PathBuf>,
    pub log_buffer_mib: Option<u64>,
    pub metrics_period: Option<u64>,
    pub readonly_contexts: Option<Vec<String>>,
    pub default_view: Option<String>,
    #[serde(default)]
    pub k9s_dir: K9sDir,
    pub skin: Option<String>,
    /// `:verify` the current table every this many minutes (unset: never). Each run is one
    /// consistent list of the table's resource, paged by 500: at 10,000 pods it took 1.2–1.4 s
    /// (debug build, the demo server on loopback, 2 shared cores at load 4.4) and as much work
    /// on the API server as a relist; so opt-in, and minutes apart.
    pub verify_minutes: Option<u64>,
    #[serde(default)]
    pub bind: Vec<Bind>,
    /// Where the settings came from (for the key map's messages).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// k9s's `refreshRate` (seconds), used when `refresh_seconds` is not set.
    #[serde(skip)]
    pub k9s_refresh_seconds: Option<u64>,
    /// k9s's `noExitOnCtrlC`: ctrl-c does not quit (`:q` does).
    #[serde(skip)]
    pub k9s_no_exit_on_ctrl_c: bool,
    /// k9s's `logger` settings (the log view's start).
    #[serde(skip)]
    pub k9s_logger: K9sLogger,
    /// k9s's `ui` settings (mouse, header, logo, breadcrumbs, icons).
    #[serde(skip)]
    pub k9s_ui: K9sUi,
    /// k9s's `shellPod` (the node shell's pod).
    #[serde(skip)]
    pub k9s_shell_pod: ShellPod,
    /// k9s's `featureGates.nodeShell` of the context's `config.yaml`: `s` on a node opens a
    /// node shell (off unless the file says, as in k9s).
    #[serde(skip)]
    pub k9s_node_shell: bool,
}

/// k9s's `k9s.logger` (each unset means kinformer's default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct K9sLogger {
    /// Lines asked for when the view opens (k9s: 100).
    pub tail: Option<i64>,
    /// The most lines kept.
    pub buffer: Option<i64>,
    /// Negative: the tail; 0: the whole log; else seconds back.
    pub since_seconds: Option<i64>,
    pub text_wrap: Option<bool>,
    pub show_time: Option<bool>,
}

/// k9s's `k9s.ui` flags.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct K9sUi {
    /// k9s: mouse support on. kinformer takes the mouse (wheel scrolling) unless this is
    /// `false`.
    pub enable_mouse: Option<bool>,
    /// No header.
    pub headless: bool,
    /// No logo (kinformer's header has none to hide: the context line stays).
    pub logoless: bool,
    /// No breadcrumbs.
    pub crumbsless: bool,
    /// No icons.
    pub no_icons: bool,
}

/// k9s's `k9s.shellPod`: the pod a node shell runs in.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ShellPod {
    pub image: String,
    pub namespace: String,
    /// `cpu` and `memory` limits.
    pub limits: std::collections::BTreeMap<String, String>,
}

impl Default for ShellPod {
    /// k9s's defaults (`internal/config/shell_pod.go`).
    fn default() -> Self {
        ShellPod {
            image: "busybox:1.35.0".into(),
            namespace: "default".into(),
            limits: [("cpu", "100m"), ("memory", "100Mi")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }
}

/// The allowed range of each numeric setting (as the flags').
const RANGES: [(&str, u64, u64); 5] = [
    ("refresh_seconds", 1, 3600),
    ("verify_minutes", 1, 1440),
    ("history_mib", 1, 65536),
    ("log_buffer_mib", 1, 4096),
    ("metrics_period", 1, 3600),
];

/// Where `key = ...` is in a TOML text.
fn toml_line(text: &str, key: &str) -> (usize, usize) {
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_start();
        if t.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return (i + 1, l.len() - t.len() + 1);
        }
    }
    (0, 0)
}

/// Parse kinformer's `config.toml`.
pub fn parse_settings(text: &str, path: &Path) -> Result<Settings, Error> {
    let mut s: Settings = parse_toml(text, path)?;
    for (key, lo, hi) in RANGES {
        let v = match key {
            "refresh_seconds" => s.refresh_seconds,
            "history_mib" => s.history_mib,
            "log_buffer_mib" => s.log_buffer_mib,
            "verify_minutes" => s.verify_minutes,
            _ => s.metrics_period,
        };
        if let Some(v) = v
            && !(lo..=hi).contains(&v)
        {
            let (line, col) = toml_line(text, key);
            return Err(Error::Parse(Problem::new(
                path,
                line,
                col,
                format!("{key} = {v}: expected {lo}..={hi}"),
            )));
        }
    }
    if let Some(v) = &s.default_view
        && v.trim().is_empty()
    {
        let (line, col) = toml_line(text, "default_view");
        return Err(Error::Parse(Problem::new(
            path,
            line,
            col,
            "default_view is empty",
        )));
    }
    s.path = Some(path.to_path_buf());
    Ok(s)
}

/// [`parse_settings`] under the name the loader uses.
pub(super) fn parse(text: &str, path: &Path) -> Result<Settings, Error> {
    parse_settings(text, path)
}

impl Settings {
    /// One line for `kinformer config`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        let mut num = |k: &str, v: Option<u64>| {
            if let Some(v) = v {
                parts.push(format!("{k}={v}"));
            }
        };
        num("refresh_seconds", self.refresh_seconds);
        num("k9s refreshRate", self.k9s_refresh_seconds);
        num("history_mib", self.history_mib);
        num("log_buffer_mib", self.log_buffer_mib);
        num("metrics_period", self.metrics_period);
        if let Some(r) = &self.readonly_contexts {
            parts.push(format!("readonly_contexts={}", r.join(",")));
        }
        if let Some(f) = &self.history_file {
            parts.push(format!("history_file={}", f.display()));
        }
        if let Some(v) = &self.default_view {
            parts.push(format!("default_view={v}"));
        }
        match &self.k9s_dir {
            K9sDir::Auto => {}
            K9sDir::Off => parts.push("k9s_dir=false".into()),
            K9sDir::At(p) => parts.push(format!("k9s_dir={}", p.display())),
        }
        if let Some(s) = &self.skin {
            parts.push(format!("skin={s}"));
        }
        if !self.bind.is_empty() {
            parts.push(format!("{} key bindings", self.bind.len()));
        }
        if parts.is_empty() {
            "defaults".to_string()
        } else {
            parts.join(" ")
        }
    }

    /// The refresh period: kinformer's setting, else k9s's `refreshRate`, else 1 s.
    pub fn refresh(&self) -> std::time::Duration {
        std::time::Duration::from_secs(
            self.refresh_seconds
                .or(self.k9s_refresh_seconds)
                .unwrap_or(1)
                .clamp(1, 3600),
        )
    }
}

/// What kinformer takes from k9s's `config.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct K9sMain {
    pub skin: Option<String>,
    pub refresh_rate: Option<u64>,
    /// `k9s.readOnly`.
    pub read_only: Option<bool>,
    /// `k9s.noExitOnCtrlC`: ctrl-c does not quit.
    pub no_exit_on_ctrl_c: bool,
    pub logger: K9sLogger,
    pub ui: K9sUi,
    pub shell_pod: ShellPod,
}

#[derive(Deserialize, Default)]
struct MainFile {
    #[serde(default)]
    k9s: MainK9s,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct MainK9s {
    refresh_rate: Option<f64>,
    read_only: Option<bool>,
    no_exit_on_ctrl_c: Option<bool>,
    #[serde(default)]
    ui: MainUi,
    #[serde(default)]
    logger: K9sLogger,
    shell_pod: Option<ShellPod>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct MainUi {
    skin: Option<String>,
    enable_mouse: Option<bool>,
    #[serde(default)]
    headless: bool,
    #[serde(default)]
    logoless: bool,
    #[serde(default)]
    crumbsless: bool,
    #[serde(default)]
    no_icons: bool,
}

/// k9s's `config.yaml` (other keys are k9s's own and ignored).
pub(super) fn parse_k9s_main(text: &str, path: &Path) -> Result<K9sMain, Error> {
    let f: Option<MainFile> = parse_yaml(text, path)?;
    let f = f.unwrap_or_default();
    let mut shell_pod = f.k9s.shell_pod.unwrap_or_default();
    // An empty image or namespace is k9s's default (as k9s's `Validate` does).
    let defaults = ShellPod::default();
    if shell_pod.image.trim().is_empty() {
        shell_pod.image = defaults.image;
    }
    if shell_pod.namespace.trim().is_empty() {
        shell_pod.namespace = defaults.namespace;
    }
    Ok(K9sMain {
        logger: f.k9s.logger,
        ui: K9sUi {
            enable_mouse: f.k9s.ui.enable_mouse,
            headless: f.k9s.ui.headless,
            logoless: f.k9s.ui.logoless,
            crumbsless: f.k9s.ui.crumbsless,
            no_icons: f.k9s.ui.no_icons,
        },
        shell_pod,
        skin: f.k9s.ui.skin.filter(|s| !s.is_empty()),
        refresh_rate: f
            .k9s
            .refresh_rate
            .filter(|r| r.is_finite() && *r >= 1.0)
            .map(|r| r as u64),
        read_only: f.k9s.read_only,
        no_exit_on_ctrl_c: f.k9s.no_exit_on_ctrl_c.unwrap_or(false),
    })
}

#[derive(Deserialize, Default)]
struct ContextFile {
    #[serde(default)]
    k9s: ContextK9s,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ContextK9s {
    skin: Option<String>,
    read_only: Option<bool>,
    #[serde(default)]
    feature_gates: FeatureGates,
}

/// k9s's `FeatureGates` (`internal/config/data/feature_gate.go`): opt-in features.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct FeatureGates {
    #[serde(default)]
    node_shell: bool,
}

/// What kinformer takes from a context's `config.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct K9sContext {
    pub skin: Option<String>,
    /// `k9s.readOnly`: over the global one for this context.
    pub read_only: Option<bool>,
    /// `k9s.featureGates.nodeShell`.
    pub node_shell: bool,
}

/// A context's `config.yaml`: the skin it names and its `readOnly`, if any.
pub(super) fn parse_k9s_context(text: &str, path: &Path) -> Result<K9sContext, Error> {
    let f: Option<ContextFile> = parse_yaml(text, path)?;
    let k = f.unwrap_or_default().k9s;
    Ok(K9sContext {
        skin: k.skin.filter(|s| !s.is_empty()),
        read_only: k.read_only,
        node_shell: k.feature_gates.node_shell,
    })
}
