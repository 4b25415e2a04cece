//! The log screen's keys as data: [`LogKey`] actions bound in `assets/log_keys.toml`
//! ([`DEFAULT_LOG_KEYS`](super::DEFAULT_LOG_KEYS)), overlaid by the user's `log_keys.toml`.

use std::collections::HashMap;
use std::path::PathBuf;

use crossterm::event::KeyEvent;

use super::DEFAULT_LOG_KEYS;
use crate::ui::keys::KeySpec;

/// A key of the log screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogKey {
    Close,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Follow,
    Search,
    Filter,
    NextMatch,
    PrevMatch,
    Previous,
    /// Cycle the since presets.
    Since,
    SinceTail,
    SinceHead,
    #[serde(rename = "since-1m")]
    Since1m,
    #[serde(rename = "since-5m")]
    Since5m,
    #[serde(rename = "since-15m")]
    Since15m,
    #[serde(rename = "since-30m")]
    Since30m,
    #[serde(rename = "since-1h")]
    Since1h,
    /// Autoscroll on/off (k9s `s`).
    Autoscroll,
    Timestamps,
    Wrap,
    Clear,
    Fullscreen,
    Save,
    /// Write the lines the filter lets through to a file (no clipboard in a terminal app).
    Copy,
    /// A separator line with the time.
    Mark,
    /// Every container of the pod / the one picked (a view of one container of several).
    AllContainers,
    /// Structured view on/off for the current line's container.
    Structured,
    /// Lines kept around each filter match (grep -C): cycles 0, 1, 2, 3, 5, 10.
    Context,
    /// Fields shown as columns (`level,status,path`).
    Columns,
    /// The current line whole, pretty-printed.
    Detail,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKeys {
    #[serde(default)]
    bind: Vec<RawBind>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBind {
    action: LogKey,
    keys: Vec<String>,
    help: Option<String>,
    hint: Option<bool>,
}

/// The log screen's key table (data: `assets/log_keys.toml`).
#[derive(Debug, Clone, Default)]
pub struct LogKeyMap {
    /// (action, keys, help, hint) in help order.
    pub bindings: Vec<(LogKey, Vec<KeySpec>, String, bool)>,
    lookup: HashMap<KeySpec, LogKey>,
}

impl LogKeyMap {
    pub fn defaults() -> Result<Self, String> {
        Self::from_toml(DEFAULT_LOG_KEYS)
    }

    pub fn from_toml(text: &str) -> Result<Self, String> {
        let raw: RawKeys = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut bindings = Vec::new();
        let mut lookup = HashMap::new();
        for b in raw.bind {
            let keys = b
                .keys
                .iter()
                .map(|k| KeySpec::parse(k))
                .collect::<Result<Vec<_>, _>>()?;
            for k in &keys {
                lookup.insert(*k, b.action);
            }
            bindings.push((
                b.action,
                keys,
                b.help.unwrap_or_default(),
                b.hint.unwrap_or(false),
            ));
        }
        Ok(Self { bindings, lookup })
    }

    /// Apply a user file on top: each action it lists gets the user's keys (and help/hint when
    /// given); a key the user binds leaves whatever default action had it.
    pub fn overlay(&mut self, text: &str) -> Result<(), String> {
        let user = Self::from_toml(text)?;
        for (action, keys, _, _) in &user.bindings {
            for b in self.bindings.iter_mut().filter(|b| b.0 != *action) {
                b.1.retain(|k| !keys.contains(k));
            }
        }
        for (action, keys, help, hint) in user.bindings {
            match self.bindings.iter_mut().find(|b| b.0 == action) {
                Some(b) => {
                    b.1 = keys;
                    if !help.is_empty() {
                        b.2 = help;
                    }
                    b.3 |= hint;
                }
                None => self.bindings.push((action, keys, help, hint)),
            }
        }
        self.lookup = self
            .bindings
            .iter()
            .flat_map(|b| b.1.iter().map(move |k| (*k, b.0)))
            .collect();
        Ok(())
    }

    /// Defaults overlaid with the user's file at `path` if it exists (usually
    /// [`user_log_keys_path`]); an unreadable or invalid file is an error naming it.
    pub fn load(user: Option<&crate::ui::keys::UserFile>) -> Result<Self, String> {
        let mut map = Self::defaults()?;
        if let Some(file) = user {
            map.overlay(&file.text)
                .map_err(|e| format!("log key bindings in {}: {e}", file.origin))?;
        }
        Ok(map)
    }

    pub fn action(&self, ev: &KeyEvent) -> Option<LogKey> {
        self.lookup.get(&KeySpec::from_event(ev)).copied()
    }

    pub(super) fn first_key(&self, a: LogKey) -> String {
        self.bindings
            .iter()
            .find(|b| b.0 == a)
            .and_then(|b| b.1.first())
            .map_or_else(|| "?".into(), ToString::to_string)
    }
}

/// `~/.config/kinformer/log_keys.toml` (platform config dir).
pub fn user_log_keys_path() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("kinformer").join("log_keys.toml"))
}
