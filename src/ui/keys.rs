//! Key bindings as data: defaults in `assets/keys.toml` (embedded), overridable by
//! `~/.config/kinformer/keys.toml`. A binding in the user file replaces the default keys of that
//! action; the help screen and footer hints are generated from the table.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

use super::Error;

/// The defaults shipped with the binary.
pub const DEFAULT_KEYS: &str = include_str!("../../assets/keys.toml");

/// Everything a key can be bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyAction {
    Quit,
    Help,
    Command,
    Filter,
    LabelFilter,
    Back,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Enter,
    Yaml,
    Describe,
    Logs,
    Delete,
    Kill,
    Scale,
    Restart,
    Cordon,
    Uncordon,
    Drain,
    Shell,
    Edit,
    /// `ctrl-n`: a new object of the table's kind from a template in the editor.
    Create,
    PortForward,
    RevealSecrets,
    ToggleWrap,
    ToggleEvents,
    SortName,
    SortAge,
    SortNext,
    SortPrev,
    SortFlip,
    SortCpu,
    SortMem,
    Pulse,
    Pause,
    EventType,
    EventKind,
    /// A forbidden view: check access and list again now (not at the slow RBAC retry).
    Retry,
    /// Xray: open / close the selected node.
    ToggleNode,
    /// Xray: open every node.
    ExpandAll,
    /// Xray: close every node (roots only).
    CollapseAll,
    /// The selected object's recorded history (timeline, diffs).
    History,
    /// `b`: the selected object's fields grouped by the manager owning them.
    Blame,
    /// `[`: the current table as it was before its previous recorded change.
    TimeBack,
    /// `]`: the next recorded change (live after the last).
    TimeForward,
    /// Mark a version on the timeline (Enter then diffs the marked and the selected one).
    Mark,
    /// CronJobs: run now (a Job from the job template).
    Trigger,
    /// CronJobs: suspend / resume.
    Suspend,
    /// Pods and workloads: set a container's image.
    SetImage,
    /// Logs of the previous container instance (k9s `p`).
    PreviousLogs,
    /// Sort by READY / STATUS / RESTARTS / IP / NODE (k9s's `shift-<letter>`).
    SortReady,
    SortStatus,
    SortRestarts,
    SortIp,
    SortNode,
    /// Jump to the selected object's owner (k9s `shift-j`).
    JumpOwner,
    /// A pod's node (k9s `o`).
    PodNode,
    /// The active port-forwards (k9s `f`).
    ShowForwards,
    /// Only the faulty rows (k9s `ctrl-z`).
    ToggleFaults,
    /// Wide columns on/off (k9s `ctrl-w`).
    ToggleWide,
    /// The pods that use a ConfigMap, Secret or PersistentVolumeClaim (k9s `u`).
    UsedBy,
    /// Save the table as CSV (k9s `ctrl-s`).
    SaveTable,
    /// Namespace favourites: the binding's n-th key picks favourite n (`0`: all namespaces).
    Favourite,
    /// The aliases view (k9s `ctrl-a`).
    Aliases,
    /// A k9s hotkey: runs the `:` command of the user's hotkey at this index
    /// ([`crate::config::UserConfig::hotkeys`]); bound from `hotkeys.yaml`, not from a key file.
    #[serde(skip)]
    HotKey(u16),
    /// A k9s plugin: runs the user's plugin at this index ([`crate::config::UserConfig::plugins`])
    /// on the selected object; bound from `plugins.yaml`, not from a key file.
    #[serde(skip)]
    Plugin(u16),
}

/// A key with modifiers, normalised (shifted letters are upper-case chars without SHIFT).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeySpec {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
}

impl KeySpec {
    /// Normalise a terminal key event.
    pub fn from_event(ev: &KeyEvent) -> KeySpec {
        let code = match ev.code {
            KeyCode::Char(c) if ev.modifiers.contains(KeyModifiers::SHIFT) => {
                KeyCode::Char(c.to_ascii_uppercase())
            }
            KeyCode::BackTab => KeyCode::BackTab,
            c => c,
        };
        KeySpec {
            code,
            ctrl: ev.modifiers.contains(KeyModifiers::CONTROL),
            alt: ev.modifiers.contains(KeyModifiers::ALT),
        }
    }

    /// Parse `"ctrl-d"`, `"G"`, `"shift-n"`, `"pgdn"`, ...
    pub fn parse(s: &str) -> Result<KeySpec, String> {
        let mut ctrl = false;
        let mut alt = false;
        let mut shift = false;
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.len() > 1 && lower.starts_with("ctrl-") {
                ctrl = true;
                rest = &rest[5..];
            } else if rest.len() > 1 && lower.starts_with("alt-") {
                alt = true;
                rest = &rest[4..];
            } else if rest.len() > 1 && lower.starts_with("shift-") {
                shift = true;
                rest = &rest[6..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(if shift { c.to_ascii_uppercase() } else { c }),
            _ => match rest.to_ascii_lowercase().as_str() {
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "pgup" | "pageup" => KeyCode::PageUp,
                "pgdn" | "pagedown" => KeyCode::PageDown,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "space" => KeyCode::Char(' '),
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                f if f.starts_with('f') => match f[1..].parse::<u8>() {
                    Ok(n) if (1..=12).contains(&n) => KeyCode::F(n),
                    _ => return Err(format!("unknown key {s:?}")),
                },
                _ => return Err(format!("unknown key {s:?}")),
            },
        };
        Ok(KeySpec { code, ctrl, alt })
    }
}

impl fmt::Display for KeySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("ctrl-")?;
        }
        if self.alt {
            f.write_str("alt-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("pgup"),
            KeyCode::PageDown => f.write_str("pgdn"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::BackTab => f.write_str("backtab"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Delete => f.write_str("del"),
            KeyCode::F(n) => write!(f, "f{n}"),
            _ => f.write_str("?"),
        }
    }
}

/// One entry of the key table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub action: KeyAction,
    pub keys: Vec<KeySpec>,
    pub help: String,
    pub hint: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyFile {
    #[serde(default)]
    bind: Vec<RawBinding>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBinding {
    action: KeyAction,
    keys: Vec<String>,
    help: Option<String>,
    hint: Option<bool>,
}

/// The key table: bindings in help order, and a lookup from key to the actions bound to it.
///
/// As in k9s, one key may mean different things on different objects (`s`: a shell on a pod,
/// scale on a Deployment, suspend on a CronJob): the defaults bind such a key to several actions,
/// in order, and the app takes the first one that applies to what is selected
/// ([`KeyMap::actions`]). A key a user's file binds belongs to that action alone.
#[derive(Debug, Clone)]
pub struct KeyMap {
    bindings: Vec<Binding>,
    /// Invariant: each list is in binding order and holds an action at most once.
    lookup: HashMap<KeySpec, Vec<KeyAction>>,
}

impl KeyMap {
    /// The embedded defaults.
    pub fn defaults() -> Result<KeyMap, Error> {
        Self::from_toml(DEFAULT_KEYS, "assets/keys.toml")
    }

    /// Parse a key file (`origin` names it in errors).
    pub fn from_toml(text: &str, origin: &str) -> Result<KeyMap, Error> {
        let bad = |message: String| Error::KeyMap {
            origin: origin.to_string(),
            message,
        };
        // toml's own message is several lines (the position, the line quoted, a caret): keep one
        // line, the position first.
        let file: KeyFile = toml::from_str(text).map_err(|e| {
            let mut message = e.message().trim().replace('\n', " ");
            // serde lists every action after an unknown one: a footer line cannot hold it.
            if let Some(rest) = message.strip_prefix("unknown variant ")
                && let Some(i) = rest.find(", expected one of")
            {
                message = format!("unknown action {}", &rest[..i]);
            }
            match e.span() {
                Some(span) => {
                    let (line, column) =
                        crate::config::yaml::line_col(text, span.start.min(text.len()));
                    bad(format!("line {line}, column {column}: {message}"))
                }
                None => bad(message),
            }
        })?;
        let mut map = KeyMap {
            bindings: Vec::new(),
            lookup: HashMap::new(),
        };
        for raw in file.bind {
            let keys = raw
                .keys
                .iter()
                .map(|k| KeySpec::parse(k))
                .collect::<Result<Vec<_>, _>>()
                .map_err(bad)?;
            map.bindings.push(Binding {
                action: raw.action,
                keys,
                help: raw.help.unwrap_or_default(),
                hint: raw.hint.unwrap_or(false),
            });
        }
        map.rebuild();
        Ok(map)
    }

    /// Apply a user file on top of these bindings: each action it lists gets the user's keys (and
    /// help/hint when given).
    pub fn overlay(&mut self, text: &str, origin: &str) -> Result<(), Error> {
        let user = Self::from_toml(text, origin)?;
        // A key the user binds is taken away from whatever default action had it.
        for ub in &user.bindings {
            for b in self.bindings.iter_mut().filter(|b| b.action != ub.action) {
                b.keys.retain(|k| !ub.keys.contains(k));
            }
        }
        for ub in user.bindings {
            match self.bindings.iter_mut().find(|b| b.action == ub.action) {
                Some(b) => {
                    b.keys = ub.keys;
                    if !ub.help.is_empty() {
                        b.help = ub.help;
                    }
                    b.hint |= ub.hint;
                }
                None => self.bindings.push(ub),
            }
        }
        self.rebuild();
        Ok(())
    }

    /// Defaults overlaid with the user's file if there is one (usually [`user_keys_path`], read
    /// by the runtime: `crate::runtime::user_file::read`). A file that cannot be parsed is an
    /// error naming it.
    pub fn load(user: Option<&UserFile>) -> Result<KeyMap, Error> {
        let mut map = Self::defaults()?;
        if let Some(file) = user {
            map.overlay(&file.text, &file.origin)?;
        }
        Ok(map)
    }

    /// Add a binding of the user's k9s files (a hotkey, a plugin). `exclusive`: its keys are
    /// taken away from the built-in actions that had them (a hotkey); otherwise the key keeps
    /// its other actions and the first that applies where it is pressed is taken (a plugin,
    /// whose scopes say where it applies).
    pub fn add_user_binding(&mut self, binding: Binding, exclusive: bool) {
        if exclusive {
            for b in self.bindings.iter_mut() {
                b.keys.retain(|k| !binding.keys.contains(k));
            }
        }
        self.bindings.push(binding);
        self.rebuild();
    }

    /// The binding of `action`, if any.
    pub fn binding(&self, action: KeyAction) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.action == action)
    }

    fn rebuild(&mut self) {
        self.lookup.clear();
        for b in &self.bindings {
            for k in &b.keys {
                let actions = self.lookup.entry(*k).or_default();
                if !actions.contains(&b.action) {
                    actions.push(b.action);
                }
            }
        }
    }

    /// The first action bound to this key, if any.
    pub fn action(&self, ev: &KeyEvent) -> Option<KeyAction> {
        self.actions(ev).first().copied()
    }

    /// Every action bound to this key, in binding order (the caller takes the first that
    /// applies where the key was pressed).
    pub fn actions(&self, ev: &KeyEvent) -> &[KeyAction] {
        self.lookup
            .get(&KeySpec::from_event(ev))
            .map_or(&[], Vec::as_slice)
    }

    /// Which of `action`'s keys this is (its position in the binding), if it is one of them.
    pub fn key_index(&self, action: KeyAction, ev: &KeyEvent) -> Option<usize> {
        let k = KeySpec::from_event(ev);
        self.bindings
            .iter()
            .find(|b| b.action == action)
            .and_then(|b| b.keys.iter().position(|x| *x == k))
    }

    /// All bindings, in help order.
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The first key of an action, for hints (`"?"` if unbound).
    pub fn key_for(&self, action: KeyAction) -> String {
        self.bindings
            .iter()
            .find(|b| b.action == action)
            .and_then(|b| b.keys.first())
            .map_or_else(|| "?".to_string(), ToString::to_string)
    }
}

/// `~/.config/kinformer/keys.toml` (platform config dir).
pub fn user_keys_path() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("kinformer").join("keys.toml"))
}

/// A user's configuration file as read by the runtime: its text and where it came from (named in
/// every error about it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserFile {
    pub origin: String,
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, m)
    }

    #[test]
    fn default_keys_parse_and_bind_k9s_navigation() {
        let map = KeyMap::defaults().unwrap();
        assert_eq!(
            map.action(&key(KeyCode::Char('j'), KeyModifiers::NONE)),
            Some(KeyAction::Down)
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(KeyAction::Quit)
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(KeyAction::Bottom)
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('d'), KeyModifiers::CONTROL)),
            Some(KeyAction::Delete)
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('d'), KeyModifiers::NONE)),
            Some(KeyAction::Describe)
        );
    }

    #[test]
    fn user_file_replaces_keys_of_listed_actions_only() {
        let mut map = KeyMap::defaults().unwrap();
        map.overlay("[[bind]]\naction = \"down\"\nkeys = [\"n\"]\n", "user")
            .unwrap();
        assert_eq!(
            map.action(&key(KeyCode::Char('n'), KeyModifiers::NONE)),
            Some(KeyAction::Down)
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('j'), KeyModifiers::NONE)),
            None
        );
        assert_eq!(
            map.action(&key(KeyCode::Char('k'), KeyModifiers::NONE)),
            Some(KeyAction::Up)
        );
    }

    #[test]
    fn bad_key_file_gives_error_naming_the_file() {
        let err = KeyMap::defaults()
            .unwrap()
            .overlay(
                "[[bind]]\naction = \"fly\"\nkeys = [\"f\"]\n",
                "/home/u/keys.toml",
            )
            .unwrap_err();
        assert!(err.to_string().contains("/home/u/keys.toml"), "{err}");
        let err = KeyMap::from_toml("[[bind]]\naction = \"up\"\nkeys = [\"hyper-x\"]\n", "f")
            .unwrap_err();
        assert!(err.to_string().contains("hyper-x"), "{err}");
    }

    #[test]
    fn a_key_rebound_by_the_user_leaves_its_default_action() {
        let mut map = KeyMap::defaults().unwrap();
        map.overlay("[[bind]]\naction = \"up\"\nkeys = [\"j\"]\n", "user")
            .unwrap();
        assert_eq!(
            map.action(&key(KeyCode::Char('j'), KeyModifiers::NONE)),
            Some(KeyAction::Up)
        );
        assert_eq!(
            map.action(&key(KeyCode::Down, KeyModifiers::NONE)),
            Some(KeyAction::Down)
        );
        let down = map
            .bindings()
            .iter()
            .find(|b| b.action == KeyAction::Down)
            .unwrap();
        assert!(
            !down.keys.contains(&KeySpec::parse("j").unwrap()),
            "help must not list j twice"
        );
    }

    #[test]
    fn an_invalid_user_file_is_an_error_naming_it() {
        let user = UserFile {
            origin: "/home/me/.config/kinformer/keys.toml".into(),
            text: "[[bind]]\naction = \"down\"\nkeys = 3\n".into(),
        };
        let err = KeyMap::load(Some(&user)).unwrap_err();
        assert!(err.to_string().contains(&user.origin), "{err}");
    }

    #[test]
    fn no_user_file_is_the_defaults() {
        let map = KeyMap::load(None).unwrap();
        assert_eq!(
            map.bindings().len(),
            KeyMap::defaults().unwrap().bindings().len()
        );
    }

    #[test]
    fn key_spec_round_trips_through_display() {
        for s in ["ctrl-d", "G", "?", "pgdn", "enter", "esc", "f5"] {
            let k = KeySpec::parse(s).unwrap();
            assert_eq!(KeySpec::parse(&k.to_string()).unwrap(), k, "{s}");
        }
        assert_eq!(
            KeySpec::parse("shift-n").unwrap(),
            KeySpec::parse("N").unwrap()
        );
    }

    /// One row per kind of bad user key file: not TOML, a wrong type, an unknown action, bad key
    /// syntax, a missing field. Each is one line naming the file and, when the TOML parser
    /// knows it, the position.
    #[test]
    fn each_bad_user_key_file_is_one_line_naming_the_file() {
        let origin = "/home/me/.config/kinformer/keys.toml";
        let rows: &[(&str, &str)] = &[
            (
                "[[bind]\naction = \"down\"\n",
                "line 1, column 8: unclosed array table, expected `]`",
            ),
            (
                "[[bind]]\naction = \"down\"\nkeys = 3\n",
                "line 3, column 8: invalid type: integer `3`, expected a sequence",
            ),
            (
                "[[bind]]\naction = \"fly\"\nkeys = [\"x\"]\n",
                "line 2, column 10: unknown action `fly`",
            ),
            (
                "[[bind]]\naction = \"down\"\nkeys = [\"hyper-x\"]\n",
                "unknown key \"hyper-x\"",
            ),
            (
                "[[bind]]\naction = \"down\"\nkeys = [\"\"]\n",
                "unknown key \"\"",
            ),
            (
                "[[bind]]\nkeys = [\"x\"]\n",
                "line 1, column 1: missing field `action`",
            ),
            (
                "bind = 5\n",
                "line 1, column 8: invalid type: integer `5`, expected a sequence",
            ),
        ];
        for (text, want) in rows {
            let user = UserFile {
                origin: origin.into(),
                text: (*text).into(),
            };
            let err = KeyMap::load(Some(&user)).unwrap_err().to_string();
            assert_eq!(err, format!("key bindings in {origin}: {want}"), "{text:?}");
        }
    }
}
