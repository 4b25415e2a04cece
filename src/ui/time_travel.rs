//! Time travel on a resource table: `:at TIME` shows every object of the view as it was then
//! (from per-object history, see `informer::history::past_view`), `[` / `]` step to the previous
//! / next recorded change, `esc` or `:at now` returns to live.
//!
//! k9s counterpart: none (k9s shows the live cache only; its issue #3599 asked for this). While
//! a past view is shown, the live table keeps receiving its rows aside ([`PastTable::live`]) and
//! comes back as it is now; filters, sort and the label picker work on the past rows (the label
//! index answers for now, so the picker scans them instead).
//!
//! Invariants:
//! - a view with `past` set shows the past rows in `table`; the live rows are in `past.live`
//!   and every row batch of the view goes there;
//! - the instant shown is never before the earliest one history holds (the banner says when
//!   the one asked for was).

use std::collections::HashMap;
use std::sync::Arc;

use crate::informer::history::{PastView, step_back, step_forward};
use crate::ui::action::{Effect, ObjectSummary, ViewId, resource_label};
use crate::ui::app::App;
use crate::ui::screens::Screen;
use crate::ui::screens::history::clock;
use crate::ui::screens::text::{TextKind, TextView};
use crate::ui::table::TableModel;
pub use crate::ui::view::PastTable;

pub use crate::ui::style::ago;

/// The instant `:at ARG` names at `now_ms`: `now` (`None`: live), `-5m`, `-30s`, `-1h`,
/// `-2h30m`, or a UTC time of day `10:42` / `10:42:13` (today's; a time later than now is
/// refused, not taken as yesterday's).
pub fn parse_at(arg: &str, now_ms: i64) -> Result<Option<i64>, String> {
    let arg = arg.trim();
    if arg.eq_ignore_ascii_case("now") || arg == "live" {
        return Ok(None);
    }
    if let Some(rel) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('−')) {
        let mut total = 0i64;
        let mut digits = String::new();
        for ch in rel.chars() {
            if ch.is_ascii_digit() {
                digits.push(ch);
                continue;
            }
            let n: i64 = digits
                .parse()
                .map_err(|_| format!("bad duration {arg:?} (e.g. -5m, -30s, -1h30m)"))?;
            digits.clear();
            total += n * match ch {
                'h' => 3_600_000,
                'm' => 60_000,
                's' => 1_000,
                _ => return Err(format!("bad duration {arg:?} (units: h, m, s)")),
            };
        }
        if !digits.is_empty() || total == 0 {
            return Err(format!("bad duration {arg:?} (e.g. -5m, -30s, -1h30m)"));
        }
        return Ok(Some(now_ms - total));
    }
    let parts: Vec<&str> = arg.split(':').collect();
    let num = |s: &str, max: i64| s.parse::<i64>().ok().filter(|n| (0..max).contains(n));
    let (h, m, s) = match parts.as_slice() {
        [h, m] => (num(h, 24), num(m, 60), Some(0)),
        [h, m, s] => (num(h, 24), num(m, 60), num(s, 60)),
        _ => (None, None, None),
    };
    let (Some(h), Some(m), Some(s)) = (h, m, s) else {
        return Err(format!(
            "unknown time {arg:?}: HH:MM, HH:MM:SS (UTC), -5m, -30s or now"
        ));
    };
    let day = now_ms.div_euclid(86_400_000) * 86_400_000;
    let at = day + (h * 3600 + m * 60 + s) * 1000;
    if at > now_ms {
        return Err(format!(
            "{arg} UTC is later than now ({} UTC): :at shows the past",
            clock(now_ms)
        ));
    }
    Ok(Some(at))
}

impl PastTable {
    /// The banner: `AS OF 10:42:13 (−4m12s) · live: esc`, then how far back the view goes and
    /// whether the instant asked for was older, each only when it fits in `room` characters
    /// (the title stays whole at 100 columns).
    pub fn banner(&self, now_ms: i64, room: usize) -> String {
        let mut s = format!(
            " AS OF {} ({}) · live: esc ",
            clock(self.at_ms),
            ago(self.at_ms, now_ms)
        );
        let extras = [
            self.earliest_ms
                .map(|e| format!("· history from {} ", clock(e))),
            (self.asked_ms < self.at_ms)
                .then(|| format!("(asked {}: not held) ", clock(self.asked_ms))),
        ];
        for extra in extras.into_iter().flatten() {
            if s.chars().count() + extra.chars().count() <= room {
                s.push_str(&extra);
            }
        }
        s
    }
}

impl App {
    /// `:at ARG` on the current table.
    pub(crate) fn at_command(&mut self, arg: Option<&str>, fx: &mut Vec<Effect>) {
        let Some(id) = self.current_view_id() else {
            self.error(":at shows a table as it was: open a table first");
            return;
        };
        let Some(arg) = arg else {
            self.error(":at TIME (10:42, 10:42:13 UTC, -5m, -30s, now)");
            return;
        };
        match parse_at(arg, self.present_ms()) {
            Ok(None) => {
                self.pause_replay();
                self.leave_past(id);
            }
            Ok(Some(at)) => {
                self.pause_replay();
                self.travel_to(id, at, fx);
            }
            Err(e) => self.error(e),
        }
    }

    /// Ask for view `id` as it was at `at_ms`.
    pub(crate) fn travel_to(&mut self, id: ViewId, at_ms: i64, fx: &mut Vec<Effect>) {
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        match &mut v.past {
            Some(p) => {
                p.asked_ms = at_ms;
                p.pending = true;
            }
            None => {
                v.past = Some(Box::new(PastTable {
                    at_ms,
                    asked_ms: at_ms,
                    earliest_ms: None,
                    times: Vec::new(),
                    since: HashMap::new(),
                    live: TableModel::default(),
                    pending: true,
                    swapped: false,
                }))
            }
        }
        fx.push(Effect::FetchPastView {
            view: id,
            resource: resource_label(&v.resource),
            namespace: v.namespace.clone(),
            at_ms,
        });
    }

    /// `[` (back) or `]` on the current table: the previous / next recorded change; `]` past
    /// the last change returns to live. `[` on a live table starts from now.
    pub(crate) fn time_step(&mut self, back: bool, fx: &mut Vec<Effect>) {
        let Some(id) = self.current_view_id() else {
            return;
        };
        // A step chooses the instant: a replay playing stops there.
        self.pause_replay();
        let Some(v) = self.views.get(&id) else {
            return;
        };
        let Some(p) = &v.past else {
            if back {
                // From live: the times are not known yet; ask for now, then step once they are.
                self.travel_to(id, self.present_ms(), fx);
                if let Some(p) = self.views.get_mut(&id).and_then(|v| v.past.as_mut()) {
                    p.asked_ms = i64::MIN;
                }
            } else {
                self.info("] steps forward in a past view (:at TIME first)");
            }
            return;
        };
        let from = p.at_ms;
        let next = if back {
            step_back(&p.times, from)
        } else {
            step_forward(&p.times, from)
        };
        match (next, back) {
            (Some(at), _) => self.travel_to(id, at, fx),
            (None, true) => self.info("no earlier change held"),
            (None, false) => self.leave_past(id),
        }
    }

    /// Back to the live table of view `id`.
    pub(crate) fn leave_past(&mut self, id: ViewId) {
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        if let Some(p) = v.past.take()
            && p.swapped
        {
            let selected = v.table.selected_key().cloned();
            v.table = p.live;
            if let Some(k) = selected {
                v.table.select_key(&k);
            }
        }
        self.dirty = true;
        self.scroll_current();
    }

    /// The current table is shown as it was.
    pub(crate) fn in_past(&self) -> bool {
        self.current_view().is_some_and(|v| v.past.is_some())
    }

    /// Enter (or `h`) in a past view: the selected object's history, at the version shown.
    pub(crate) fn past_history(&mut self, fx: &mut Vec<Effect>) {
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let resource = resource_label(&view.resource);
        let key = obj.object_key().to_string();
        let rv = obj.object.metadata.resource_version.clone();
        self.open_history(&resource, &key, rv, fx);
    }

    /// `y` / `d` in a past view: the selected object's recorded state, as YAML (the fields
    /// history tracks, as they were).
    pub(crate) fn past_text(&mut self) {
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let at = view.past.as_ref().map_or(self.now_ms, |p| p.at_ms);
        let title = format!(
            "Recorded state: {} as of {} (rv {})",
            obj.key,
            clock(at),
            obj.object
                .metadata
                .resource_version
                .as_deref()
                .unwrap_or("?")
        );
        let value = serde_json::to_value(&*obj.object).unwrap_or_default();
        let lines = crate::render::to_yaml(&value, false)
            .lines()
            .map(str::to_string)
            .collect();
        let request = self.next_request;
        self.next_request += 1;
        self.stack.push(Screen::Text(TextView {
            kind: TextKind::Yaml,
            title,
            request,
            lines: Some(Ok(lines)),
            value: Some(value),
            reveal: false,
            scroll: 0,
            wrap: true,
            search: None,
            hit: None,
        }));
        self.dirty = true;
    }

    /// Answer to [`Effect::FetchPastView`].
    pub(crate) fn on_past_view(
        &mut self,
        id: ViewId,
        past: PastView,
        times: Vec<i64>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let Some(p) = v.past.as_mut() else {
            // Left before the answer came.
            return;
        };
        // A `[` from live: now the change instants are known, step once.
        if p.asked_ms == i64::MIN {
            p.times = times;
            p.asked_ms = past.asked_ms;
            match step_back(&p.times, past.asked_ms) {
                Some(at) => {
                    self.travel_to(id, at, fx);
                }
                None => {
                    v.past = None;
                    self.info("no earlier change held");
                }
            }
            return;
        }
        if past.asked_ms != p.asked_ms {
            // An answer to an older question.
            return;
        }
        let kind = v.resource.api_resource.kind.clone();
        let printer_columns = v.resource.printer_columns.clone();
        let mut table = TableModel::with_settings_of(&v.table);
        let mut since = HashMap::new();
        // A row already printed from the very same object (the live one, or one the previous
        // past view showed: history hands back the objects it rebuilt then) is not printed
        // again: a `[` step prints only what changed.
        let shown: [Option<&TableModel>; 2] = [Some(&v.table), p.swapped.then_some(&p.live)];
        let printed = |r: &crate::informer::history::PastRow| {
            shown.iter().flatten().find_map(|t| {
                t.entry(&r.key)
                    .filter(|e| Arc::ptr_eq(&e.summary.object, &r.object))
                    .map(|e| e.summary.clone())
            })
        };
        let summaries: Vec<ObjectSummary> = past
            .rows
            .iter()
            .filter_map(|r| {
                since.insert(r.key.clone(), r.since);
                printed(r).or_else(|| {
                    ObjectSummary::with_key(
                        &kind,
                        r.key.clone(),
                        &r.object,
                        printer_columns.as_deref(),
                    )
                })
            })
            .collect();
        table.resync(summaries, self.now_ms);
        table.refilter(None);
        if let Some(sel) = v.table.selected_key().cloned() {
            table.select_key(&sel);
        }
        p.at_ms = past.at_ms;
        p.earliest_ms = past.earliest_ms;
        p.times = times;
        p.since = since;
        p.pending = false;
        let shown = std::mem::replace(&mut v.table, table);
        if !p.swapped {
            // First answer: the live table goes aside.
            p.live = shown;
            p.swapped = true;
        }
        self.dirty = true;
        self.scroll_current();
    }
}

#[cfg(test)]
#[path = "time_travel_tests.rs"]
mod tests;
