//! A user's configuration: kinformer's own `config.toml` and a k9s user's files, read where k9s
//! keeps them and in k9s's formats (k9s: `internal/config/` — `files.go` for the places,
//! `alias.go`, `hotkey.go`, `plugin.go`, `views.go`, `styles.go` for the formats).
//!
//! Pure data and parsing: no terminal, no cluster. Every file is parsed on its own; a file that
//! cannot be read or parsed becomes a [`Problem`] naming the file, line and column, and is
//! skipped, so a bad file never stops the dashboard (k9s stops at start on some of them). The
//! checks that need the cluster's kinds (an alias's target, a plugin's scope) are functions
//! here that the app runs once discovery has answered (`Aliases::unknown_targets`,
//! [`plugins::unknown_scopes`]).
//!
//! Where this differs from k9s: the per-context files (`clusters/<cluster>/<context>/`) are read
//! for the context the dashboard starts on; switching contexts does not reload them.

pub mod aliases;
pub mod context_state;
pub mod error;
pub mod hotkeys;
pub mod k9s_settings;
pub mod own;
pub mod paths;
pub mod plugins;
pub mod skins;
pub mod views;
pub(crate) mod yaml;

use std::fmt;
use std::path::{Path, PathBuf};

pub use aliases::{AliasDef, Aliases};
pub use error::{Error, Problem};
pub use hotkeys::HotKey;
pub use k9s_settings::K9sSetting;
pub use own::{K9sLogger, K9sUi, Settings, ShellPod};
pub use paths::{ConfigEnv, K9sPaths};
pub use plugins::Plugin;
pub use skins::Skin;
pub use views::{ColumnSpec, ViewSetting};

/// What happened to one file that was looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceState {
    /// Read; `entries` things were taken from it (aliases, plugins, ...).
    Loaded { entries: usize },
    /// Not there (nothing to read; not a problem).
    Missing,
    /// There, but skipped because of a problem (listed in [`UserConfig::problems`]).
    Skipped,
}

/// One file that was looked for, what it is, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub what: &'static str,
    pub path: PathBuf,
    pub state: SourceState,
}

/// Everything read: kinformer's settings, the k9s files, where each came from, and the problems.
#[derive(Debug, Clone, Default)]
pub struct UserConfig {
    pub settings: Settings,
    /// The k9s directories read (`None`: none, or `k9s_dir = false`).
    pub k9s: Option<K9sPaths>,
    pub aliases: Aliases,
    pub hotkeys: Vec<HotKey>,
    pub plugins: Vec<Plugin>,
    /// Custom views by GVR key as k9s writes it (`v1/pods`, `apps/v1/deployments`).
    pub views: Vec<(String, ViewSetting)>,
    pub skin: Option<Skin>,
    pub sources: Vec<Source>,
    pub problems: Vec<Problem>,
    /// Every setting of k9s's `config.yaml` files read, used or not (`kinformer config`).
    pub k9s_settings: Vec<K9sSetting>,
    /// k9s's `k9s.readOnly` of `config.yaml`, where it is set.
    pub k9s_read_only: Option<ReadOnlySetting>,
    /// The start context's own `k9s.readOnly` (its `config.yaml`), over the global one.
    pub context_read_only: Option<ReadOnlySetting>,
    /// The start context's namespaces and view (its `config.yaml`; saved there on exit).
    pub context_state: Option<context_state::ContextState>,
}

/// k9s's `readOnly` as one file sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOnlySetting {
    pub read_only: bool,
    pub file: PathBuf,
    pub line: usize,
}

impl fmt::Display for ReadOnlySetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "k9s readOnly: {} in {}:{}",
            self.read_only,
            self.file.display(),
            self.line
        )
    }
}

/// Where `k9s.readOnly` is written in a file `scan`ned into `settings`.
fn read_only_at(settings: &[K9sSetting], value: Option<bool>) -> Option<ReadOnlySetting> {
    let value = value?;
    let at = settings.iter().find(|s| s.key == "k9s.readOnly")?;
    Some(ReadOnlySetting {
        read_only: value,
        file: at.file.clone(),
        line: at.line,
    })
}

impl UserConfig {
    /// k9s's read-only setting for the start context: its own file's, else `config.yaml`'s
    /// (k9s `IsReadOnly`; the command line's `--readonly` / `--write` go over both).
    pub fn k9s_readonly(&self) -> Option<&ReadOnlySetting> {
        self.context_read_only
            .as_ref()
            .or(self.k9s_read_only.as_ref())
    }
}

/// A context's own `k9s.readOnly` (`clusters/<cluster>/<context>/config.yaml`), for the
/// contexts other than the start one (several clusters, `:ctx`). A file that cannot be read
/// says nothing (the start context's problems are reported by [`UserConfig::load`]).
pub fn context_read_only(k9s: &K9sPaths, cluster: &str, context: &str) -> Option<ReadOnlySetting> {
    let path = k9s.context_dir(cluster, context).join("config.yaml");
    let text = std::fs::read_to_string(&path).ok()?;
    let ctx = own::parse_k9s_context(&text, &path).ok()?;
    let settings = k9s_settings::scan(&text, &path, &k9s_settings::CONTEXT_SUPPORTED);
    read_only_at(&settings, ctx.read_only)
}

/// What to read: kinformer's file, the environment, and the context the dashboard starts on.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--config FILE` (must exist) or the default `~/.config/kinformer/config.toml` (may not).
    pub config_file: Option<PathBuf>,
    /// Whether `config_file` was given explicitly (a missing explicit file is a problem).
    pub explicit: bool,
    pub env: ConfigEnv,
    /// `(cluster, context)` of the kubeconfig's context, for k9s's per-context files.
    pub context: Option<(String, String)>,
}

/// kinformer's own file: `$XDG_CONFIG_HOME/kinformer/config.toml` (platform config dir).
pub fn default_config_file(env: &ConfigEnv) -> Option<PathBuf> {
    env.config_home()
        .map(|d| d.join("kinformer").join("config.toml"))
}

/// Read a file that may be missing: `Ok(None)` when it is not there.
fn read_optional(path: &Path) -> Result<Option<String>, Error> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::Read(path.to_path_buf(), e.to_string())),
    }
}

impl UserConfig {
    /// Read everything `opts` points at. Never fails: problems are collected.
    pub fn load(opts: &LoadOptions) -> UserConfig {
        let mut cfg = UserConfig::default();
        let own_path = opts
            .config_file
            .clone()
            .or_else(|| default_config_file(&opts.env));
        if let Some(path) = own_path {
            cfg.read(&path, "kinformer settings", |cfg, text, path| {
                let s = own::parse(text, path)?;
                cfg.settings = s;
                Ok(1)
            });
            if opts.explicit
                && cfg
                    .sources
                    .last()
                    .is_some_and(|s| s.state == SourceState::Missing)
            {
                cfg.problems
                    .push(Problem::new(&path, 0, 0, "--config file not found"));
            }
        }
        let k9s = match &cfg.settings.k9s_dir {
            own::K9sDir::Off => None,
            own::K9sDir::At(dir) => Some(K9sPaths::at(dir.clone())),
            own::K9sDir::Auto => K9sPaths::resolve(&opts.env),
        };
        if let Some(k9s) = &k9s {
            cfg.load_k9s(k9s, opts.context.as_ref());
        }
        cfg.k9s = k9s;
        cfg
    }

    fn load_k9s(&mut self, k9s: &K9sPaths, context: Option<&(String, String)>) {
        let ctx_dir = context.map(|(cl, ct)| k9s.context_dir(cl, ct));
        // k9s.ui.skin (and the refresh rate) from config.yaml; a context's config.yaml may
        // name its own skin.
        let mut skin_name: Option<String> = None;
        self.read(
            &k9s.config_dir.join("config.yaml"),
            "k9s config",
            |cfg, text, path| {
                let main = own::parse_k9s_main(text, path)?;
                skin_name = main.skin;
                cfg.settings.k9s_refresh_seconds = main.refresh_rate;
                cfg.settings.k9s_no_exit_on_ctrl_c = main.no_exit_on_ctrl_c;
                cfg.settings.k9s_logger = main.logger;
                cfg.settings.k9s_ui = main.ui;
                cfg.settings.k9s_shell_pod = main.shell_pod;
                let settings = k9s_settings::scan(text, path, &k9s_settings::MAIN_SUPPORTED);
                cfg.k9s_read_only = read_only_at(&settings, main.read_only);
                let n = settings.len();
                cfg.k9s_settings.extend(settings);
                Ok(n)
            },
        );
        if let Some(dir) = &ctx_dir {
            let path = dir.join("config.yaml");
            self.context_state = Some(context_state::ContextState {
                path: path.clone(),
                ..Default::default()
            });
            if let Ok(text) = std::fs::read_to_string(&path)
                && let Ok(state) = context_state::parse(&text, &path)
            {
                self.context_state = Some(state);
            }
            self.read(
                &dir.join("config.yaml"),
                "k9s context config",
                |cfg, text, path| {
                    let ctx = own::parse_k9s_context(text, path)?;
                    if ctx.skin.is_some() {
                        skin_name = ctx.skin;
                    }
                    let settings = k9s_settings::scan(text, path, &k9s_settings::CONTEXT_SUPPORTED);
                    cfg.context_read_only = read_only_at(&settings, ctx.read_only);
                    cfg.settings.k9s_node_shell = ctx.node_shell;
                    let n = settings.len();
                    cfg.k9s_settings.extend(settings);
                    Ok(n)
                },
            );
        }
        // Aliases, hotkeys and plugins: the global file, then the context's on top (k9s).
        let mut files = vec![k9s.config_dir.clone()];
        files.extend(ctx_dir.clone());
        for dir in &files {
            self.read(
                &dir.join("aliases.yaml"),
                "k9s aliases",
                |cfg, text, path| {
                    let n = aliases::parse(text, path, &mut cfg.aliases)?;
                    Ok(n)
                },
            );
            self.read(
                &dir.join("hotkeys.yaml"),
                "k9s hotkeys",
                |cfg, text, path| {
                    let hk = hotkeys::parse(text, path)?;
                    let n = hk.len();
                    for h in hk {
                        cfg.hotkeys.retain(|x| x.name != h.name);
                        cfg.hotkeys.push(h);
                    }
                    Ok(n)
                },
            );
            self.read(
                &dir.join("plugins.yaml"),
                "k9s plugins",
                |cfg, text, path| {
                    let pp = plugins::parse_file(text, path)?;
                    Ok(cfg.add_plugins(pp))
                },
            );
        }
        // plugins/*.yaml: each file one plugin (named after the file) or a `plugins:` map.
        for dir in k9s.plugin_dirs() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut paths: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                .collect();
            paths.sort();
            for p in paths {
                self.read(&p, "k9s plugin", |cfg, text, path| {
                    let pp = plugins::parse_dir_file(text, path)?;
                    Ok(cfg.add_plugins(pp))
                });
            }
        }
        self.read(
            &k9s.config_dir.join("views.yaml"),
            "k9s views",
            |cfg, text, path| {
                let vv = views::parse(text, path)?;
                let n = vv.len();
                cfg.views = vv;
                Ok(n)
            },
        );
        let skin_name = self.settings.skin.clone().or(skin_name);
        if let Some(name) = skin_name {
            let path = k9s.skins_dir().join(format!("{name}.yaml"));
            self.read(&path, "k9s skin", |cfg, text, path| {
                cfg.skin = Some(skins::parse(text, path)?);
                Ok(1)
            });
            if self
                .sources
                .last()
                .is_some_and(|s| s.state == SourceState::Missing)
            {
                self.problems.push(Problem::new(
                    &path,
                    0,
                    0,
                    format!("skin {name:?} not found; the built-in look is used"),
                ));
            }
        }
    }

    /// Plugins replace those of the same name (a context's file over the global one).
    fn add_plugins(&mut self, pp: Vec<Plugin>) -> usize {
        let n = pp.len();
        for p in pp {
            if let Some(line) = p.pipes_at {
                self.k9s_settings.push(K9sSetting {
                    file: p.file.clone(),
                    line,
                    key: format!("plugins.{}.pipes", p.name),
                    value: "(list)".into(),
                    supported: false,
                });
            }
            self.plugins.retain(|x| x.name != p.name);
            self.plugins.push(p);
        }
        n
    }

    /// Read one file and hand it to `parse`; record the source and any problem.
    fn read(
        &mut self,
        path: &Path,
        what: &'static str,
        parse: impl FnOnce(&mut UserConfig, &str, &Path) -> Result<usize, Error>,
    ) {
        let state = match read_optional(path) {
            Ok(None) => SourceState::Missing,
            Ok(Some(text)) => match parse(self, &text, path) {
                Ok(entries) => SourceState::Loaded { entries },
                Err(e) => {
                    self.problems.push(problem_of(e));
                    SourceState::Skipped
                }
            },
            Err(e) => {
                self.problems.push(problem_of(e));
                SourceState::Skipped
            }
        };
        self.sources.push(Source {
            what,
            path: path.to_path_buf(),
            state,
        });
    }

    /// `kinformer config`'s report: every file looked for and what came of it, what was
    /// loaded, and every problem.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let k9s = match &self.k9s {
            Some(k) => format!(
                "{} (contexts: {})",
                k.config_dir.display(),
                k.contexts_dir.display()
            ),
            None => "not read".to_string(),
        };
        out.push_str(&format!("k9s configuration: {k9s}\n\nFiles:\n"));
        for s in &self.sources {
            let state = match s.state {
                SourceState::Loaded { entries } => format!("loaded ({entries})"),
                SourceState::Missing => "not there".to_string(),
                SourceState::Skipped => "SKIPPED (see problems)".to_string(),
            };
            out.push_str(&format!(
                "  {:<22} {:<24} {}\n",
                s.what,
                state,
                s.path.display()
            ));
        }
        out.push_str(&format!("\nSettings: {}\n", self.settings.summary()));
        match self.k9s_readonly() {
            Some(r) if r.read_only => {
                out.push_str(&format!("Writes: refused ({r}; `--write` allows them)\n"))
            }
            Some(r) => out.push_str(&format!("Writes: allowed ({r})\n")),
            None => {}
        }
        if !self.k9s_settings.is_empty() {
            out.push_str("\nk9s settings:\n");
            for s in &self.k9s_settings {
                let at = format!("{}:{}", s.file.display(), s.line);
                let note = if s.supported { "" } else { "  not supported" };
                out.push_str(&format!("  {at}  {} = {}{note}\n", s.key, s.value));
            }
        }
        if !self.aliases.is_empty() {
            out.push_str("\nAliases:\n");
            for a in self.aliases.iter() {
                out.push_str(&format!("  {:<12} {}\n", a.name, a.target));
            }
        }
        if !self.hotkeys.is_empty() {
            out.push_str("\nHotkeys:\n");
            for h in &self.hotkeys {
                out.push_str(&format!(
                    "  {:<12} :{:<20} {}\n",
                    h.shortcut, h.command, h.description
                ));
            }
        }
        if !self.plugins.is_empty() {
            out.push_str("\nPlugins:\n");
            for p in &self.plugins {
                out.push_str(&format!(
                    "  {:<12} {:<16} [{}] {} {}\n",
                    p.shortcut,
                    p.name,
                    p.scopes.join(","),
                    p.command,
                    p.args.join(" ")
                ));
            }
        }
        if !self.views.is_empty() {
            out.push_str("\nViews:\n");
            for (gvr, v) in &self.views {
                let cols: Vec<String> = v.columns.iter().map(|c| c.name.clone()).collect();
                out.push_str(&format!("  {:<24} {}\n", gvr, cols.join(" ")));
            }
        }
        if let Some(s) = &self.skin {
            out.push_str(&format!("\nSkin: {}\n", s.name));
        }
        let ignored = self.ignored_settings();
        if ignored > 0 {
            out.push_str(&format!(
                "\n{ignored} setting{} not supported and ignored (marked above).\n",
                if ignored == 1 { " is" } else { "s are" }
            ));
        }
        if self.problems.is_empty() {
            if ignored == 0 {
                out.push_str("\nNo problems.\n");
            }
        } else {
            out.push_str(&format!("\nProblems ({}):\n", self.problems.len()));
            for p in &self.problems {
                out.push_str(&format!("  {p}\n"));
            }
        }
        out
    }
}

impl UserConfig {
    /// How many settings read are not used (listed as "not supported" by [`Self::report`]).
    pub fn ignored_settings(&self) -> usize {
        self.k9s_settings.iter().filter(|s| !s.supported).count()
    }
}

fn problem_of(e: Error) -> Problem {
    match e {
        Error::Read(path, why) => Problem::new(&path, 0, 0, format!("cannot read: {why}")),
        Error::Parse(p) => p,
    }
}

#[cfg(test)]
mod tests;
