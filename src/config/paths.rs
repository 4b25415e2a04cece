//! Where k9s keeps its files, resolved as k9s does (k9s `internal/config/files.go`):
//!
//! - `$K9S_CONFIG_DIR` set: everything under it (`clusters/` for the per-context files);
//! - else the XDG places: `$XDG_CONFIG_HOME/k9s` (else the platform's config directory) for
//!   `config.yaml`, `aliases.yaml`, `hotkeys.yaml`, `plugins.yaml`, `views.yaml`, `skins/`, and
//!   `$XDG_DATA_HOME/k9s/clusters/<cluster>/<context>/` for a context's own files.
//!
//! Plugin directories: k9s reads `<data dir>/k9s/plugins/*.yaml`; kinformer also reads
//! `<config dir>/plugins/*.yaml`, where users of `$K9S_CONFIG_DIR` keep them.
//!
//! The environment is passed in ([`ConfigEnv`]) so that tests never change the process's.

use std::path::PathBuf;

/// The environment variables and platform directories the resolution reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigEnv {
    pub k9s_config_dir: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub xdg_data_home: Option<PathBuf>,
    /// The platform's config directory when `$XDG_CONFIG_HOME` is not set
    /// (`~/.config`, `~/Library/Application Support`).
    pub platform_config: Option<PathBuf>,
    /// The platform's data directory when `$XDG_DATA_HOME` is not set (`~/.local/share`).
    pub platform_data: Option<PathBuf>,
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

impl ConfigEnv {
    /// The process's environment.
    pub fn from_process() -> ConfigEnv {
        let home = dirs::home_dir();
        ConfigEnv {
            k9s_config_dir: env_path("K9S_CONFIG_DIR"),
            xdg_config_home: env_path("XDG_CONFIG_HOME"),
            xdg_data_home: env_path("XDG_DATA_HOME"),
            platform_config: if cfg!(target_os = "macos") {
                dirs::config_dir()
            } else {
                home.as_ref().map(|h| h.join(".config"))
            },
            platform_data: if cfg!(target_os = "macos") {
                dirs::data_dir()
            } else {
                home.as_ref().map(|h| h.join(".local").join("share"))
            },
        }
    }

    /// `$XDG_CONFIG_HOME`, else the platform's config directory.
    pub fn config_home(&self) -> Option<PathBuf> {
        self.xdg_config_home
            .clone()
            .or_else(|| self.platform_config.clone())
    }

    /// `$XDG_DATA_HOME`, else the platform's data directory.
    pub fn data_home(&self) -> Option<PathBuf> {
        self.xdg_data_home
            .clone()
            .or_else(|| self.platform_data.clone())
    }
}

/// The k9s directories to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct K9sPaths {
    /// Where `config.yaml`, `aliases.yaml`, ... and `skins/` are.
    pub config_dir: PathBuf,
    /// Where `<cluster>/<context>/` directories are.
    pub contexts_dir: PathBuf,
    /// `<data dir>/k9s` (its `plugins/` is read), when known.
    pub data_dir: Option<PathBuf>,
}

/// k9s's file-name cleaning of a cluster or context name: runs of `:` and `/` become `-`.
pub fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_run = false;
    for c in name.chars() {
        if c == ':' || c == '/' {
            if !in_run {
                out.push('-');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

impl K9sPaths {
    /// As k9s resolves them (see the module documentation); `None` without any home.
    pub fn resolve(env: &ConfigEnv) -> Option<K9sPaths> {
        if let Some(dir) = &env.k9s_config_dir {
            return Some(K9sPaths {
                config_dir: dir.clone(),
                contexts_dir: dir.join("clusters"),
                data_dir: env.data_home().map(|d| d.join("k9s")),
            });
        }
        let config_dir = env.config_home()?.join("k9s");
        let data_dir = env.data_home().map(|d| d.join("k9s"));
        Some(K9sPaths {
            contexts_dir: data_dir
                .as_ref()
                .map_or_else(|| config_dir.join("clusters"), |d| d.join("clusters")),
            config_dir,
            data_dir,
        })
    }

    /// A k9s directory named in kinformer's settings (`k9s_dir = "..."`): everything under it.
    pub fn at(dir: PathBuf) -> K9sPaths {
        K9sPaths {
            contexts_dir: dir.join("clusters"),
            config_dir: dir,
            data_dir: None,
        }
    }

    /// A context's own directory: `clusters/<cluster>/<context>/`.
    pub fn context_dir(&self, cluster: &str, context: &str) -> PathBuf {
        self.contexts_dir
            .join(sanitize(cluster))
            .join(sanitize(context))
    }

    /// `skins/`.
    pub fn skins_dir(&self) -> PathBuf {
        self.config_dir.join("skins")
    }

    /// The directories whose `*.yaml` are plugins, without repeats.
    pub fn plugin_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.config_dir.join("plugins")];
        if let Some(d) = &self.data_dir {
            let p = d.join("plugins");
            if !dirs.contains(&p) {
                dirs.push(p);
            }
        }
        dirs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> ConfigEnv {
        ConfigEnv {
            platform_config: Some("/home/u/.config".into()),
            platform_data: Some("/home/u/.local/share".into()),
            ..Default::default()
        }
    }

    #[test]
    fn k9s_config_dir_holds_everything_when_set() {
        let e = ConfigEnv {
            k9s_config_dir: Some("/k".into()),
            xdg_config_home: Some("/x".into()),
            ..env()
        };
        let p = K9sPaths::resolve(&e).unwrap();
        assert_eq!(p.config_dir, PathBuf::from("/k"));
        assert_eq!(
            p.context_dir("c1", "ctx"),
            PathBuf::from("/k/clusters/c1/ctx")
        );
    }

    #[test]
    fn xdg_config_home_then_the_platform_default_and_contexts_under_the_data_dir() {
        let e = ConfigEnv {
            xdg_config_home: Some("/x".into()),
            ..env()
        };
        let p = K9sPaths::resolve(&e).unwrap();
        assert_eq!(p.config_dir, PathBuf::from("/x/k9s"));
        assert_eq!(
            p.contexts_dir,
            PathBuf::from("/home/u/.local/share/k9s/clusters")
        );
        let p = K9sPaths::resolve(&env()).unwrap();
        assert_eq!(p.config_dir, PathBuf::from("/home/u/.config/k9s"));
        assert!(
            p.plugin_dirs()
                .contains(&PathBuf::from("/home/u/.local/share/k9s/plugins"))
        );
    }

    #[test]
    fn cluster_and_context_names_are_cleaned_as_k9s_does() {
        let p = K9sPaths::at("/k".into());
        assert_eq!(
            p.context_dir("arn:aws:eks:eu/x", "a//b"),
            PathBuf::from("/k/clusters/arn-aws-eks-eu-x/a-b")
        );
    }
}
