//! The user's keys on top of the defaults: `config.toml`'s `[[bind]]` entries, k9s hotkeys and
//! plugins, each one more row of the key table ([`KeyMap`]), so that help, the footer and
//! dispatch see them as any other binding.
//!
//! Precedence, as the issue asks: a key bound in kinformer's `config.toml` wins; a hotkey takes
//! its key from the built-in action that had it (k9s: a hotkey is a user's explicit choice); a
//! plugin shares its key, and the first action that applies where it is pressed is taken (a
//! plugin applies in its scopes only), so a plugin never hides a built-in key elsewhere.
//! k9s writes shortcuts as `Ctrl-L`, `Shift-W`, `Alt-I`, `Shift-0`: a letter with `Ctrl`/`Alt`
//! is the lower-case key, `Shift-<digit>` the US keyboard's shifted digit (k9s's own table).

use crossterm::event::KeyCode;

use super::keys::{Binding, KeyAction, KeyMap, KeySpec};
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
        let mut bind = |shortcut: &str,
                        action: KeyAction,
                        help: String,
                        hint: bool,
                        exclusive: bool,
                        at: (&std::path::Path, usize, usize)| {
            match parse_k9s_shortcut(shortcut) {
                Ok(k) if own.contains(&k) => problems.push(Problem::new(
                    at.0,
                    at.1,
                    at.2,
                    format!(
                        "{shortcut}: bound in {} (kinformer's keys win)",
                        settings_path.display()
                    ),
                )),
                Ok(k) => self.add_user_binding(
                    Binding {
                        action,
                        keys: vec![k],
                        help,
                        hint,
                    },
                    exclusive,
                ),
                Err(why) => problems.push(Problem::new(at.0, at.1, at.2, why)),
            }
        };
        for (i, h) in user.hotkeys.iter().enumerate().take(u16::MAX as usize) {
            let help = if h.description.is_empty() {
                format!(":{}", h.command)
            } else {
                format!("{} (:{})", h.description, h.command)
            };
            bind(
                &h.shortcut,
                KeyAction::HotKey(i as u16),
                help,
                false,
                true,
                (&h.file, h.line, h.column),
            );
        }
        for (i, p) in user.plugins.iter().enumerate().take(u16::MAX as usize) {
            let help = if p.description.is_empty() {
                p.name.clone()
            } else {
                p.description.clone()
            };
            bind(
                &p.shortcut,
                KeyAction::Plugin(i as u16),
                help,
                true,
                false,
                (&p.file, p.line, p.column),
            );
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
