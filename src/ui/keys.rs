//! Key bindings as data: defaults in `assets/keys.toml` (embedded), overridable by
//! `~/.config/kinformer/keys.toml`. A binding in the user file replaces the default keys of that
//! action; the help screen and footer hints are generated from the table.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

use super::error::Error;

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
    /// `[` in a live view: the previous view command (k9s's history back).
    HistoryBack,
    /// `]` in a live view: the next view command (after `[`).
    HistoryForward,
    /// `-`: the last view command (again: back; k9s's "last view").
    LastView,
    /// `ctrl-g`: breadcrumbs on/off.
    ToggleCrumbs,
    /// `ctrl-e`: the header on/off.
    ToggleHeader,
    /// Mark a row (a table: for delete, kill and plugins; a timeline: a version to diff).
    Mark,
    /// `ctrl-space`: mark the rows from the last marked one to the selected one.
    MarkRange,
    /// `ctrl-\`: unmark every row.
    ClearMarks,
    /// CronJobs: run now (a Job from the job template).
    Trigger,
    /// CronJobs: suspend / resume.
    Suspend,
    /// Pods and workloads: set a container's image.
    SetImage,
    /// Logs of the previous container instance (k9s `p`).
    PreviousLogs,
    /// Attach to a container's main process (k9s `a`, `kubectl attach -it`).
    Attach,
    /// Sort by READY / STATUS / RESTARTS / IP / NODE (k9s's `shift-<letter>`).
    SortReady,
    SortStatus,
    SortRestarts,
    SortIp,
    SortNode,
    /// `shift-o`: sort by the column picked with `shift-left` / `shift-right`.
    SortPicked,
    /// `shift-left` / `shift-right`: pick the column `shift-o` sorts by.
    PickColumnLeft,
    PickColumnRight,
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
    /// Helm: the release's user-supplied values (k9s `v`).
    HelmValues,
    /// Helm: every value, the chart's defaults under the user's.
    HelmAllValues,
    /// Helm: the release's manifest.
    HelmManifest,
    /// Helm: the release's notes.
    HelmNotes,
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
    /// Shift on an arrow key (`shift-left`); a shifted letter is its upper case instead.
    pub shift: bool,
}

/// Whether Shift is told apart on this key (the arrows).
fn shift_counts(code: KeyCode) -> bool {
    matches!(
        code,
        KeyCode::Left | KeyCode::Right | KeyCode::Up | KeyCode::Down
    )
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
            shift: shift_counts(code) && ev.modifiers.contains(KeyModifiers::SHIFT),
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
        Ok(KeySpec {
            code,
            ctrl,
            alt,
            shift: shift && shift_counts(code),
        })
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
        if self.shift {
            f.write_str("shift-")?;
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
    /// Keys a user's file binds to two actions that apply in the same place: (the file, one
    /// line saying which key and which actions), until [`KeyMap::take_clashes`].
    clashes: Vec<(String, String)>,
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
            clashes: Vec::new(),
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
    /// help/hint when given). A key the file binds to two actions that apply in the same place
    /// (see [`applies_in`]) is kept as written, and noted: [`KeyMap::take_clashes`].
    pub fn overlay(&mut self, text: &str, origin: &str) -> Result<(), Error> {
        let user = Self::from_toml(text, origin)?;
        let user_keys: Vec<KeySpec> = user.bindings.iter().flat_map(|b| b.keys.clone()).collect();
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
        let mut seen: Vec<KeySpec> = Vec::new();
        for k in user_keys {
            if seen.contains(&k) {
                continue;
            }
            seen.push(k);
            if let Some(line) = self.clash(k) {
                self.clashes.push((origin.to_string(), line));
            }
        }
        Ok(())
    }

    /// The first two actions bound to `k` that apply in the same place, in words: the first
    /// of them is the one the key does there, the other is never reached there.
    fn clash(&self, k: KeySpec) -> Option<String> {
        let actions = self.lookup.get(&k)?;
        for (i, a) in actions.iter().enumerate() {
            for b in &actions[i + 1..] {
                let Some(place) = common_place(*a, *b) else {
                    continue;
                };
                let (a, b) = (action_name(*a), action_name(*b));
                return Some(format!(
                    "key {k} is bound to both {a} and {b}, which {place}: {k} does {a}, {b} is never reached there"
                ));
            }
        }
        None
    }

    /// The clashes the user's files made since the last call (see [`KeyMap::overlay`]): each
    /// the file and one line naming the key and the two actions.
    pub fn take_clashes(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.clashes)
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

    /// Add a binding of the user's k9s files ahead of every other (a plugin with k9s's
    /// `override: true`): its key takes it first, where it applies.
    pub fn add_user_binding_first(&mut self, binding: Binding) {
        self.bindings.insert(0, binding);
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

    /// Every action bound to `k`, in binding order.
    pub fn actions_of(&self, k: &KeySpec) -> &[KeyAction] {
        self.lookup.get(k).map_or(&[], Vec::as_slice)
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

/// Where an action applies (a row of [`applies`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The selected object (a table's row, an xray node) is of this API group and Kind.
    Kind(&'static str, &'static str),
    /// A resource table of this Kind is on top.
    Table(&'static str),
    /// This screen is on top: `deltas` (the event log), `history`, `contexts`, `xray`.
    Screen(&'static str),
    /// Any resource table is on top.
    AnyTable,
    /// A state of the view on top.
    State(ViewState),
}

/// The states of the view on top that decide where a key applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewState {
    /// A past view (`:at`, or a replay, which is all past).
    Past,
    /// A live view (not a past one).
    Live,
    /// A column is picked with shift-left/right.
    PickedColumn,
}

impl ViewState {
    /// Its name in the duplicate-key warning.
    pub fn name(self) -> &'static str {
        match self {
            ViewState::Past => "past view",
            ViewState::Live => "live view",
            ViewState::PickedColumn => "picked column",
        }
    }
}

/// Where an action applies, and how the footer says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applies {
    /// Empty: everywhere (the action's own handler says why it does nothing somewhere).
    pub places: &'static [Place],
    /// For the footer: `deploy/sts/rs`, `:xray`.
    pub words: &'static str,
}

/// The one table of where kind- and screen-specific actions apply (`None`: every table and
/// screen). The key dispatch reads it (`App::key_applies`: the first of a key's actions that
/// applies is taken, the footer says where the others would), and so does the duplicate-key
/// warning (a user's key bound to two actions whose places meet hides one of them there; the
/// defaults bind one key to actions whose places do not meet, as k9s binds `s` to a shell on
/// a pod, scale on a Deployment and suspend on a CronJob). A plugin applies in the scopes it
/// names (not here).
pub fn applies(action: KeyAction) -> Option<Applies> {
    use KeyAction as A;
    use Place::{AnyTable, Kind, Screen, State};
    let (places, words): (&'static [Place], &'static str) = match action {
        A::Shell => (&[Kind("", "Pod"), Kind("", "Node")], "pods and nodes"),
        A::Attach | A::Kill | A::PodNode => (&[Kind("", "Pod")], "pods"),
        A::PreviousLogs | A::Logs => (
            &[
                Kind("", "Pod"),
                Kind("", "Service"),
                Kind("apps", "Deployment"),
                Kind("apps", "StatefulSet"),
                Kind("apps", "DaemonSet"),
                Kind("apps", "ReplicaSet"),
                Kind("batch", "Job"),
            ],
            "pods/workloads/svc",
        ),
        A::Scale => (
            &[
                Kind("apps", "Deployment"),
                Kind("apps", "StatefulSet"),
                Kind("apps", "ReplicaSet"),
            ],
            "deploy/sts/rs",
        ),
        A::Restart => (
            &[
                Kind("apps", "Deployment"),
                Kind("apps", "StatefulSet"),
                Kind("apps", "DaemonSet"),
            ],
            "deploy/sts/ds",
        ),
        A::Trigger | A::Suspend => (&[Kind("batch", "CronJob")], "cronjobs"),
        A::Cordon | A::Uncordon | A::Drain => (&[Kind("", "Node")], "nodes"),
        A::UsedBy => (
            &[
                Kind("", "ConfigMap"),
                Kind("", "Secret"),
                Kind("", "PersistentVolumeClaim"),
            ],
            "cm/secrets/pvc",
        ),
        A::Pause | A::EventType | A::EventKind => (&[Screen("deltas")], ":deltas"),
        A::Mark => (
            &[
                Screen("history"),
                Screen("contexts"),
                Screen("helm"),
                AnyTable,
            ],
            "a history, the contexts or the namespaces",
        ),
        A::ToggleNode | A::ExpandAll | A::CollapseAll => (&[Screen("xray")], ":xray"),
        A::HelmValues | A::HelmAllValues | A::HelmManifest | A::HelmNotes => {
            (&[Screen("helm")], ":helm")
        }
        // `[` / `]`: time in a past view, the view commands in a live one.
        A::TimeBack | A::TimeForward => (&[State(ViewState::Past)], "a past view (:at)"),
        A::HistoryBack | A::HistoryForward | A::LastView => {
            (&[State(ViewState::Live)], "a live view")
        }
        // `shift-o`: the picked column, else k9s's sort by NODE on pods.
        A::SortPicked => (
            &[State(ViewState::PickedColumn)],
            "a picked column (shift-left/right)",
        ),
        A::SortNode => (&[Kind("", "Pod")], "pods"),
        // Everywhere: its handler says when the row is not a secret.
        A::RevealSecrets => (&[], "secrets"),
        _ => return None,
    };
    Some(Applies { places, words })
}

/// The names of the places an action applies in (`Pod`, `Namespace`, `history`): `None` for
/// every table and screen. See [`applies`].
pub fn applies_in(action: KeyAction) -> Option<Vec<&'static str>> {
    let a = applies(action).filter(|a| !a.places.is_empty())?;
    Some(
        a.places
            .iter()
            .map(|p| match *p {
                Place::Kind(_, k) | Place::Table(k) | Place::Screen(k) => k,
                Place::State(s) => s.name(),
                Place::AnyTable => "table",
            })
            .collect(),
    )
}

/// Where both actions apply, in words (`on a Pod`, `everywhere`); `None` when nowhere.
fn common_place(a: KeyAction, b: KeyAction) -> Option<String> {
    let place = |p: &str| match p.chars().next() {
        Some(c) if c.is_ascii_uppercase() => format!("both apply on a {p}"),
        _ => format!("both apply on the {p} screen"),
    };
    match (applies_in(a), applies_in(b)) {
        (None, None) => Some("both apply everywhere".into()),
        (Some(p), None) | (None, Some(p)) => p.first().map(|p| place(p)),
        (Some(x), Some(y)) => x.iter().find(|p| y.contains(p)).map(|p| place(p)),
    }
}

/// An action as a key file names it (`set-image`).
fn action_name(action: KeyAction) -> String {
    let debug = format!("{action:?}");
    let mut out = String::new();
    for (i, c) in debug.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
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

    #[test]
    fn a_user_key_bound_to_two_actions_in_the_same_place_is_one_warning_naming_both() {
        // The defaults share keys only across kinds and screens: nothing to say.
        let map = KeyMap::defaults().unwrap();
        for b in map.bindings() {
            for k in &b.keys {
                assert_eq!(map.clash(*k), None, "the defaults' {k}");
            }
        }
        let clashes = |text: &str| {
            let mut map = KeyMap::defaults().unwrap();
            map.overlay(text, "/home/me/keys.toml").unwrap();
            map.take_clashes()
        };
        // `x` for both YAML and describe: describe is never reached.
        assert_eq!(
            clashes(
                "[[bind]]\naction = \"yaml\"\nkeys = [\"x\"]\n\
                 [[bind]]\naction = \"describe\"\nkeys = [\"x\", \"ctrl-x\"]\n"
            ),
            vec![(
                "/home/me/keys.toml".to_string(),
                "key x is bound to both yaml and describe, which both apply everywhere: x does yaml, describe is never reached there"
                    .to_string()
            )]
        );
        // A pod's shell and its logs meet on a pod.
        assert_eq!(
            clashes(
                "[[bind]]\naction = \"shell\"\nkeys = [\"z\"]\n\
                 [[bind]]\naction = \"logs\"\nkeys = [\"z\"]\n"
            )
            .len(),
            1
        );
        // As k9s's `s`: a pod's shell and a CronJob's trigger never meet; nor do the timeline's
        // mark and the xray's toggle.
        assert!(
            clashes(
                "[[bind]]\naction = \"shell\"\nkeys = [\"z\"]\n\
                 [[bind]]\naction = \"trigger\"\nkeys = [\"z\"]\n\
                 [[bind]]\naction = \"mark\"\nkeys = [\"m\"]\n\
                 [[bind]]\naction = \"toggle-node\"\nkeys = [\"m\"]\n"
            )
            .is_empty()
        );
    }
}
