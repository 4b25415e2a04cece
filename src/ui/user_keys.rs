//! The user's keys on top of the defaults: `config.toml`'s `[[bind]]` entries, k9s hotkeys and
//! plugins, each one more row of the key table ([`KeyMap`]), so that help, the footer and
//! dispatch see them as any other binding.
//!
//! Precedence: a key bound in kinformer's `config.toml` wins. As k9s (`internal/view/actions.go`),
//! a hotkey on a key already bound, and a plugin on a key already bound where it applies (its
//! scopes), are refused with k9s's message (`duplicate plugin key found for "Ctrl-L" in
//! "stern"`) unless they say `override: true`: then a hotkey takes the key from the built-in
//! action, and a plugin goes first on the key where it applies. A plugin on a key free in its
//! scopes shares it: the first action that applies where it is pressed is taken, so a plugin
//! never hides a built-in key elsewhere.
//! k9s writes shortcuts as `Ctrl-L`, `Shift-W`, `Alt-I`, `Shift-0`: a letter with `Ctrl`/`Alt`
//! is the lower-case key, `Shift-<digit>` the US keyboard's shifted digit (k9s's own table).

use crossterm::event::KeyCode;

use super::keys::{Binding, KeyAction, KeyMap, KeySpec, applies_in};
use crate::config::{Problem, UserConfig};

/// A k9s shortcut (`Ctrl-L`, `Shift-W`, `Shift-0`, `Alt-I`, `F1`) as a key.
pub fn parse_k9s_shortcut(s: &str) -> Result<KeySpec, String> {
    let lower = s.trim().to_ascii_lowercase();
    if let Some(d) = lower.strip_prefix("shift-")
        && d.len() == 1
        && let Some(c) = d.chars().next()
        && c.is_ascii_digit()
    {
        let shifted = b")!@#$%^&*("[(c as u8 - b'0') as usize] as char;
        return Ok(KeySpec {
            code: KeyCode::Char(shifted),
            ctrl: false,
            alt: false,
            shift: false,
        });
    }
    let mut k = KeySpec::parse(s.trim())?;
    if (k.ctrl || k.alt)
        && !lower.contains("shift-")
        && let KeyCode::Char(c) = k.code
    {
        k.code = KeyCode::Char(c.to_ascii_lowercase());
    }
    Ok(k)
}

/// A k9s shortcut on a key `config.toml` binds: kinformer's keys win.
fn owned(
    shortcut: &str,
    at: (&std::path::PathBuf, usize, usize),
    settings: &std::path::Path,
) -> Problem {
    Problem::new(
        at.0,
        at.1,
        at.2,
        format!(
            "{shortcut}: bound in {} (kinformer's keys win)",
            settings.display()
        ),
    )
}

impl KeyMap {
    /// These bindings with the user's: `config.toml`'s keys, then hotkeys and plugins. A key
    /// that cannot be bound is a problem naming where it was written; the rest still bind.
    pub fn with_user_config(mut self, user: &UserConfig) -> (KeyMap, Vec<Problem>) {
        let mut problems = Vec::new();
        let settings_path = user.settings.path.clone().unwrap_or_default();
        if !user.settings.bind.is_empty() {
            #[derive(serde::Serialize)]
            struct BindFile<'a> {
                bind: &'a [crate::config::own::Bind],
            }
            let text = toml::to_string(&BindFile {
                bind: &user.settings.bind,
            })
            .unwrap_or_default();
            if let Err(e) = self.overlay(&text, &settings_path.display().to_string()) {
                problems.push(Problem::new(&settings_path, 0, 0, e.to_string()));
            }
        }
        // Keys config.toml binds stay its own.
        let own: Vec<KeySpec> = user
            .settings
            .bind
            .iter()
            .flat_map(|b| b.keys.iter().filter_map(|k| KeySpec::parse(k).ok()))
            .collect();
        let resources = crate::ui::resources::builtin_resources();
        // The kinds a plugin's scopes name (`None`: `all`, every kind).
        let kinds_of = |scopes: &[String]| -> Option<Vec<String>> {
            if scopes.iter().any(|s| s.eq_ignore_ascii_case("all")) {
                return None;
            }
            Some(
                scopes
                    .iter()
                    .map(|s| match crate::cluster::resolve(&resources, s) {
                        Some(r) => r.api_resource.kind.clone(),
                        None => s.clone(),
                    })
                    .collect(),
            )
        };
        // Does `action` (bound before) apply where a plugin of these kinds applies?
        let meets = |action: KeyAction, kinds: &Option<Vec<String>>| -> bool {
            let theirs: Option<Vec<String>> = match action {
                KeyAction::Plugin(i) => user
                    .plugins
                    .get(i as usize)
                    .and_then(|p| kinds_of(&p.scopes)),
                KeyAction::HotKey(_) => None,
                a => applies_in(a).map(|p| p.into_iter().map(str::to_string).collect()),
            };
            match (theirs, kinds) {
                (None, _) | (_, None) => true,
                (Some(a), Some(b)) => a.iter().any(|x| b.contains(x)),
            }
        };
        for (i, h) in user.hotkeys.iter().enumerate().take(u16::MAX as usize) {
            let at = (&h.file, h.line, h.column);
            let k = match parse_k9s_shortcut(&h.shortcut) {
                Ok(k) => k,
                Err(why) => {
                    problems.push(Problem::new(at.0, at.1, at.2, why));
                    continue;
                }
            };
            if own.contains(&k) {
                problems.push(owned(&h.shortcut, at, &settings_path));
                continue;
            }
            // k9s (`internal/view/actions.go`): a hotkey on a key already bound is refused
            // unless it says `override: true`.
            if !h.allow_override && !self.actions_of(&k).is_empty() {
                problems.push(Problem::new(
                    at.0,
                    at.1,
                    at.2,
                    format!(
                        "duplicate hotkey found for {:?} in {:?}",
                        h.shortcut, h.name
                    ),
                ));
                continue;
            }
            let help = if h.description.is_empty() {
                format!(":{}", h.command)
            } else {
                format!("{} (:{})", h.description, h.command)
            };
            self.add_user_binding(
                Binding {
                    action: KeyAction::HotKey(i as u16),
                    keys: vec![k],
                    help,
                    hint: false,
                },
                true,
            );
        }
        for (i, p) in user.plugins.iter().enumerate().take(u16::MAX as usize) {
            let at = (&p.file, p.line, p.column);
            let k = match parse_k9s_shortcut(&p.shortcut) {
                Ok(k) => k,
                Err(why) => {
                    problems.push(Problem::new(at.0, at.1, at.2, why));
                    continue;
                }
            };
            if own.contains(&k) {
                problems.push(owned(&p.shortcut, at, &settings_path));
                continue;
            }
            // k9s: a plugin on a key already bound where it applies is refused unless it says
            // `override: true`; with it, it goes first on that key (where it applies).
            let kinds = kinds_of(&p.scopes);
            let taken = self.actions_of(&k).iter().any(|a| meets(*a, &kinds));
            if taken && !p.allow_override {
                problems.push(Problem::new(
                    at.0,
                    at.1,
                    at.2,
                    format!(
                        "duplicate plugin key found for {:?} in {:?}",
                        p.shortcut, p.name
                    ),
                ));
                continue;
            }
            let help = if p.description.is_empty() {
                p.name.clone()
            } else {
                p.description.clone()
            };
            let binding = Binding {
                action: KeyAction::Plugin(i as u16),
                keys: vec![k],
                help,
                hint: true,
            };
            if taken {
                self.add_user_binding_first(binding);
            } else {
                self.add_user_binding(binding, false);
            }
        }
        (self, problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyEvent, KeyModifiers};

    #[test]
    fn k9s_shortcuts_are_the_keys_a_terminal_sends() {
        let ctrl_l = parse_k9s_shortcut("Ctrl-L").unwrap();
        assert_eq!(
            ctrl_l,
            KeySpec::from_event(&KeyEvent::new(KeyCode::Char('l'), KeyModifiers::CONTROL))
        );
        let shift_w = parse_k9s_shortcut("Shift-W").unwrap();
        assert_eq!(
            shift_w,
            KeySpec::from_event(&KeyEvent::new(KeyCode::Char('W'), KeyModifiers::SHIFT))
        );
        let shift_0 = parse_k9s_shortcut("Shift-0").unwrap();
        assert_eq!(
            shift_0,
            KeySpec::from_event(&KeyEvent::new(KeyCode::Char(')'), KeyModifiers::SHIFT))
        );
        assert!(parse_k9s_shortcut("Hyper-Q").is_err());
    }
}
