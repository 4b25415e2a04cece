//! App's side of a replay ([`crate::ui::replay`]): its instant, its keys and its marks.

use crate::ui::action::Effect;
use crate::ui::app::{App, Mode, Screen};
use crate::ui::replay::SPEEDS;
use crate::ui::screens::history::clock;
use crate::ui::screens::prompt::Prompt;
use crate::ui::screens::text::{TextKind, TextView};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

impl App {
    /// The present: the wall clock, or in a replay the end of the recording (`:at` and the
    /// AS OF banner count back from it; nothing is shown later).
    pub fn present_ms(&self) -> i64 {
        self.replay.as_ref().map_or(self.now_ms, |r| r.end_ms)
    }

    /// A replay playing stops (the user chose an instant: `:at`, `[`, `]`).
    pub(crate) fn pause_replay(&mut self) {
        if let Some(r) = self.replay.as_mut() {
            r.speed = None;
        }
    }

    /// The instant a replay shows: the current table's past view's, else the recording's end.
    pub fn replay_instant(&self) -> Option<i64> {
        let r = self.replay.as_ref()?;
        Some(
            self.current_view()
                .and_then(|v| v.past.as_ref())
                .map_or(r.end_ms, |p| p.at_ms),
        )
    }

    /// A replay's own keys on a table (`space`, `m`); `None`: not one of them (or not a
    /// replay, or a prompt or dialog is open): the key goes to the app as usual.
    pub fn replay_key(&mut self, key: &KeyEvent) -> Option<Vec<Effect>> {
        self.replay.as_ref()?;
        if !matches!(self.mode, Mode::Normal)
            || !matches!(self.current_screen(), Some(Screen::Table(_)))
            || key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return None;
        }
        let mut fx = Vec::new();
        match key.code {
            KeyCode::Char(' ') => {
                let r = self.replay.as_mut()?;
                r.speed = match r.speed {
                    None => Some(SPEEDS[0]),
                    Some(s) => SPEEDS.iter().copied().skip_while(|x| *x != s).nth(1),
                };
                let at = self.replay_instant()?;
                if self.replay.as_ref()?.speed.is_some()
                    && at >= self.replay.as_ref()?.end_ms
                    && let Some(id) = self.current_view_id()
                {
                    // Playing from the end: from the start.
                    let start = self.replay.as_ref()?.start_ms;
                    self.travel_to(id, start, &mut fx);
                }
            }
            KeyCode::Char('m') => {
                self.mode = Mode::Command {
                    input: Prompt::command("mark "),
                };
            }
            _ => return None,
        }
        self.dirty = true;
        Some(fx)
    }

    /// Playing: move the current table `elapsed_ms` of replay time (times the speed) forward;
    /// at the end, stop there.
    pub fn replay_advance(&mut self, elapsed_ms: i64) -> Vec<Effect> {
        let mut fx = Vec::new();
        let (Some(r), Some(at)) = (self.replay.as_ref(), self.replay_instant()) else {
            return fx;
        };
        let Some(speed) = r.speed else {
            return fx;
        };
        let end = r.end_ms;
        let Some(id) = self.current_view_id() else {
            return fx;
        };
        // A past view still on its way: wait for it.
        if self
            .current_view()
            .and_then(|v| v.past.as_ref())
            .is_some_and(|p| p.pending)
        {
            return fx;
        }
        let next = at.saturating_add(elapsed_ms.saturating_mul(i64::from(speed)));
        if next >= end {
            self.leave_past(id);
            if let Some(r) = self.replay.as_mut() {
                r.speed = None;
            }
            self.info("replay: the end of the recording");
        } else {
            self.travel_to(id, next, &mut fx);
        }
        fx
    }

    /// `:mark NOTE` (the instant shown) and `:marks`.
    pub(crate) fn replay_command(&mut self, cmd: &str, line: &str) {
        let Some(at) = self.replay_instant() else {
            self.error(":mark and :marks are for replays (kinformer replay FILE)");
            return;
        };
        if cmd == "mark" {
            let note = line
                .split_once(char::is_whitespace)
                .map_or("", |(_, n)| n.trim())
                .to_string();
            let note = if note.is_empty() {
                "(no note)".to_string()
            } else {
                note
            };
            if let Some(r) = self.replay.as_mut() {
                r.marks.push((at, note.clone()));
                r.marks.sort();
                r.new_marks.push((at, note.clone()));
            }
            self.info(format!("marked {}: {note}", clock(at)));
            return;
        }
        let marks = self
            .replay
            .as_ref()
            .map(|r| r.marks.clone())
            .unwrap_or_default();
        let lines: Vec<String> = if marks.is_empty() {
            vec!["no marks yet: m (or :mark NOTE) marks the instant shown".to_string()]
        } else {
            marks
                .iter()
                .map(|(at, note)| format!("{}  {note}   (:at {})", clock(*at), clock(*at)))
                .collect()
        };
        let request = self.next_request;
        self.next_request += 1;
        self.stack.push(Screen::Text(TextView {
            kind: TextKind::Describe,
            title: format!("Marks ({})", marks.len()),
            request,
            lines: Some(Ok(lines)),
            value: None,
            reveal: false,
            scroll: 0,
            wrap: true,
            search: None,
            hit: None,
        }));
        self.dirty = true;
    }
}
