//! Replay (`kinformer replay FILE`): the dashboard on a recording, with no cluster.
//!
//! khronoscope counterpart: its VCR controls. The replay's "now" is the end of the recording
//! (the tables are the objects present then); any earlier instant is a past view of the table,
//! the very time travel of the live dashboard (`ui::time_travel`: `:at`, `[`, `]`), fed from
//! the recording loaded into per-object history. On top of it: `space` plays forward at 1×,
//! 10× or 60× (each press the next speed, then pause), `m` marks the instant with a note
//! (`:mark NOTE`), `:marks` lists the marks; every write is refused with "replay: read-only"
//! (the runtime refuses anything that would reach a cluster the same way).
//!
//! Invariants: the instant shown is the current table's past view's, or the end of the
//! recording when it shows the end; playing never moves past the end (it stops there); the
//! end is the replay's present (`:at` counts back from it and cannot go beyond it); choosing
//! an instant (`:at`, `[`, `]`) while playing pauses there, so the next tick does not move
//! the table away from it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::Input;

use crate::ui::action::Effect;
use crate::ui::app::{App, Mode, Screen};
use crate::ui::screens::history::clock;
use crate::ui::screens::text::{TextKind, TextView};

/// Why writes are refused in a replay (the footer's whole message).
pub const READ_ONLY: &str = crate::ui::operate::REPLAY_READ_ONLY;

/// The speeds `space` cycles through (then pause).
pub const SPEEDS: [u32; 3] = [1, 10, 60];

/// A replay's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    /// The recording's file, as given.
    pub file: String,
    /// The first and last instants recorded.
    pub start_ms: i64,
    pub end_ms: i64,
    /// Playing at this speed (`None`: paused).
    pub speed: Option<u32>,
    /// Marks `(instant, note)`, by instant; the runtime keeps the new ones in the file.
    pub marks: Vec<(i64, String)>,
    /// Marks made in this replay and not yet kept in the file (the runtime takes them).
    pub new_marks: Vec<(i64, String)>,
}

impl Replay {
    /// The banner: `REPLAY 03:12:44 ▶ 10×` (or `❚❚` paused).
    pub fn banner(&self, at_ms: i64) -> String {
        let state = match self.speed {
            Some(s) => format!("▶ {s}×"),
            None => "❚❚".to_string(),
        };
        format!(" REPLAY {} {state} ", clock(at_ms))
    }
}

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
                    input: Input::new("mark ".into()),
                    completions: Vec::new(),
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
