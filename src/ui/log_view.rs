//! The log screen: its state, its `update` and its drawing (`impl Widget for &LogView`).
//!
//! It holds the lines of one log view in a ring with a byte cap (the oldest lines go first and
//! the header says how many went), the sources with a stable colour each, autoscroll (follow) or
//! a paused position, a search (highlighted, n/N) and a filter (only matching lines, with
//! context lines around them), and the display switches (timestamps, wrap, full screen, the
//! structured view per container, field columns). It never does I/O: stream restarts, saving
//! and closing are [`LogEffect`]s the runtime carries out.
//!
//! k9s's log view (internal/view/log.go) gives the keys: 0-6 since presets, `s` autoscroll,
//! `f` full screen, `t`, `w`, `c` copy, `m` mark, `a` all containers. It differs where a
//! terminal app cannot do what k9s does: `c` writes the filtered lines to a file and the footer
//! names it (k9s copies to the system clipboard, which needs a display server); and k9s's
//! `shift-c` (clear) is `ctrl-l` here, `C` setting the context lines around matches, as grep's
//! `-C`. The structured view, field filters ([`filter`]), columns and context lines are not in
//! k9s.
//!
//! Invariants:
//! - `bytes` is the sum of the kept lines' [`line_bytes`] and of their parsed fields, and never
//!   exceeds `cap` after an update (a single line larger than the cap is kept alone);
//! - line `seq`s are consecutive: the line at index `i` of `lines` has seq `first_seq + i`;
//! - when paused, `anchor` is the seq of the top line and new lines never move it; lines
//!   arriving meanwhile are counted in `unseen`;
//! - a line's `pass` is whether the current filter lets it through and `shown` whether it is
//!   drawn (it passes or lies within `context` lines of one that does), computed once when the
//!   line arrives or the filter or context changes: drawing and scrolling never run the filter;
//! - a line is parsed ([`fields`]) at most once, only when something reads its fields (a field
//!   filter, or the structured view or columns drawing it), and only in `&mut self` updates, so
//!   its cost is counted against the cap; drawing parses an unparsed line without keeping it.
//!
//! Measured (`cargo bench --bench logs`, buffer full at its 16 MiB cap, 200×50 frame, 2026-11-23
//! 20:10 UTC at load 5–9, so upper bounds): one frame of a 5,000 lines/s pod (84 lines ingested
//! and drawn) 0.33 ms; 50 pods × 100 lines/s 0.34 ms; key → frame under a rare-match regex filter
//! 0.99 ms for a scroll and a follow, down from 180 ms before a line's filter result was kept with
//! the line. The runtime coalesces a view's lines into at most one frame per 33 ms
//! (`tests/log_streams.rs`: 54 frames for 20,215 lines in 2 s). The release binary in tmux on a
//! 5,000 lines/s demo pod: 4.7 % of a core for dashboard and in-process demo server, 57 MiB RSS
//! with the buffer at its cap (95k lines, the oldest dropped and counted).
//!
//! Structured view (same bench, 2026-11-28 16:01–16:05 UTC, load 3.9–9 on 2 shared cores): a
//! field filter (`level>=warn status>=500`, every line parsed) takes 209k lines/s (4.78 ms per
//! 1,000 lines); a frame of a 5,000 lines/s stream with the structured view, three field columns
//! and that filter on, over a full 16 MiB buffer, 1.26 ms.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::widgets::Widget;
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler as _;

mod draw;
pub mod fields;
pub mod filter;
mod keys;
mod matcher;
mod structured;

pub use keys::{LogKey, LogKeyMap, user_log_keys_path};
pub use matcher::{Matcher, Since};

use super::log_stream::{LogEvent, LogLine, SourceId, SourceState, StreamOptions};
use super::log_text::{CleanLine, clean};
use fields::Parsed;
use filter::LineFilter;

/// Default byte cap of a view's buffer.
pub const DEFAULT_CAP_BYTES: usize = 16 * 1024 * 1024;
/// Characters of a line drawn (the rest is cut for display, kept in the buffer and the file).
/// The lines `0` (since: tail) asks for unless k9s's `logger.tail` says.
pub const DEFAULT_TAIL: i64 = 200;

pub const MAX_DISPLAY_CHARS: usize = 2_000;
/// The defaults shipped with the binary.
pub const DEFAULT_LOG_KEYS: &str = include_str!("../../assets/log_keys.toml");

/// Bookkeeping bytes counted per line besides its text.
const LINE_OVERHEAD: usize = 48;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Log,
    /// A marker the view writes (source joined, ended, pod gone).
    Marker,
    /// A separator the user put in (`m`): shown whatever the filter.
    Mark,
}

#[derive(Debug, Clone)]
struct Line {
    source: u16,
    ts_ns: i64,
    kind: LineKind,
    text: CleanLine,
    /// The filter lets it through (see the module's invariants).
    pass: bool,
    /// Shown: it passes, or lies within the context lines of one that does.
    shown: bool,
    /// Its fields, once something needed them (`None`: not parsed yet; counted in `bytes`).
    parsed: Option<Option<Box<Parsed>>>,
}

impl Line {
    fn bytes(&self) -> usize {
        line_bytes(&self.text)
            + match &self.parsed {
                Some(Some(p)) => p.heap_bytes(),
                _ => 0,
            }
    }
}

/// Bytes a line counts against the cap.
pub fn line_bytes(text: &CleanLine) -> usize {
    text.heap_bytes() + LINE_OVERHEAD
}

#[derive(Debug, Clone)]
struct Source {
    id: Arc<SourceId>,
    colour: Color,
    state: SourceState,
}

const PALETTE: [Color; 12] = [
    Color::Cyan,
    Color::Green,
    Color::Magenta,
    Color::Yellow,
    Color::Blue,
    Color::LightRed,
    Color::LightCyan,
    Color::LightGreen,
    Color::LightMagenta,
    Color::LightYellow,
    Color::LightBlue,
    Color::Red,
];

/// A stable colour per source name (the same pod/container always gets the same colour).
pub fn source_colour(id: &SourceId) -> Color {
    let mut h: u32 = 0x811c_9dc5;
    for b in id.pod.bytes().chain([b'/']).chain(id.container.bytes()) {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    PALETTE[(h as usize) % PALETTE.len()]
}

/// Which input line is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Search,
    Filter,
    Columns,
}

/// What the runtime must do for the log screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogEffect {
    /// Close the view: cancel its token (every stream stops).
    Close,
    /// Stop the streams and start them again with these options (the buffer was cleared).
    Restart(StreamOptions),
    /// Write `contents` to `path` (directories created), then call [`LogView::saved`].
    Save { path: PathBuf, contents: String },
    /// Switch between the one container picked and every container of the pod (restart).
    AllContainers,
}

/// The log screen.
#[derive(Debug, Clone)]
pub struct LogView {
    pub title: String,
    /// Names the saved file: `<namespace>_<pod>_<container>` (or the workload's name).
    pub file_stem: String,
    save_dir: PathBuf,
    sources: Vec<Source>,
    by_id: HashMap<Arc<SourceId>, u16>,
    lines: VecDeque<Line>,
    first_seq: u64,
    bytes: usize,
    cap: usize,
    /// Oldest lines dropped at the cap (since the streams last started).
    dropped: u64,
    /// Head (`1`): the buffer holds the start of the log up to the cap; the lines after that
    /// are not kept, and counted here (since the streams last started).
    not_kept: u64,
    follow: bool,
    anchor: u64,
    unseen: u64,
    search: Option<Matcher>,
    /// Seq of the match n/N last went to.
    current_match: Option<u64>,
    filter: Option<LineFilter>,
    /// The filter as typed.
    filter_raw: String,
    /// Log lines in the buffer the filter lets through.
    matched: usize,
    /// Lines kept before and after each match.
    context: usize,
    /// Containers (by name) shown structured.
    structured: std::collections::BTreeSet<String>,
    /// Fields shown as columns.
    columns: Vec<String>,
    /// The line shown whole (`enter`) and how far it is scrolled.
    detail: Option<(u64, usize)>,
    input: Option<(InputKind, Input)>,
    pub timestamps: bool,
    pub wrap: bool,
    pub fullscreen: bool,
    since: Since,
    /// The lines `0` (since: tail) asks for: 200, or k9s's `logger.tail`.
    tail: i64,
    /// The most lines kept (k9s's `logger.buffer`; the byte cap applies too).
    max_lines: usize,
    options: StreamOptions,
    /// Body size from the last resize (page moves, follow position).
    viewport: (u16, u16),
    /// Local time offset for timestamps, fixed when the view opens (render stays pure).
    utc_offset_secs: i32,
    status: Option<(String, bool)>,
    /// The pending save is a copy (`c`): the footer says so.
    saving_copy: bool,
    dirty: bool,
}

impl LogView {
    pub fn new(title: impl Into<String>, file_stem: impl Into<String>, cap: usize) -> Self {
        let options = StreamOptions::default();
        Self {
            title: title.into(),
            file_stem: file_stem.into(),
            save_dir: default_save_dir(),
            sources: Vec::new(),
            by_id: HashMap::new(),
            lines: VecDeque::new(),
            first_seq: 0,
            bytes: 0,
            cap: cap.max(1),
            dropped: 0,
            not_kept: 0,
            follow: true,
            anchor: 0,
            unseen: 0,
            search: None,
            current_match: None,
            filter: None,
            filter_raw: String::new(),
            matched: 0,
            context: 0,
            structured: std::collections::BTreeSet::new(),
            columns: Vec::new(),
            detail: None,
            input: None,
            timestamps: false,
            wrap: false,
            fullscreen: false,
            since: Since::Tail(DEFAULT_TAIL),
            tail: DEFAULT_TAIL,
            max_lines: usize::MAX,
            options,
            viewport: (80, 20),
            utc_offset_secs: chrono::Local::now().offset().local_minus_utc(),
            status: None,
            saving_copy: false,
            dirty: true,
        }
    }

    /// For tests and snapshots: a fixed timezone and save directory.
    pub fn with_env(mut self, utc_offset_secs: i32, save_dir: PathBuf) -> Self {
        self.utc_offset_secs = utc_offset_secs;
        self.save_dir = save_dir;
        self
    }

    /// Start as k9s's `logger` settings say: `tail` lines (`0` then asks for as many),
    /// `since_seconds` (k9s: negative for the tail, `0` for the whole log, else seconds back),
    /// lines wrapped (`textWrap`) and timestamps shown (`showTime`).
    pub fn with_k9s_logger(mut self, l: &crate::config::K9sLogger) -> Self {
        if let Some(t) = l.tail.filter(|t| *t > 0) {
            self.tail = t;
            self.since = Since::Tail(t);
        }
        match l.since_seconds {
            Some(0) => self.since = Since::All,
            Some(s) if s > 0 => self.since = Since::Seconds(s),
            _ => {}
        }
        self.since.apply(&mut self.options);
        if let Some(w) = l.text_wrap {
            self.wrap = w;
        }
        if let Some(t) = l.show_time {
            self.timestamps = t;
        }
        if let Some(b) = l.buffer.filter(|b| *b > 0) {
            self.max_lines = usize::try_from(b).unwrap_or(usize::MAX);
        }
        self
    }

    /// Start with the previous container instance (`p` toggles it later).
    pub fn with_previous(mut self, previous: bool) -> Self {
        self.options.previous = previous;
        self
    }

    /// The options the streams run with.
    pub fn options(&self) -> StreamOptions {
        self.options
    }

    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    pub fn is_following(&self) -> bool {
        self.follow
    }
    pub fn len(&self) -> usize {
        self.lines.len()
    }
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
    /// Head mode: lines after the kept start of the log, not kept (the buffer is full).
    pub fn not_kept(&self) -> u64 {
        self.not_kept
    }
    pub fn unseen(&self) -> u64 {
        self.unseen
    }
    pub fn source_count(&self) -> usize {
        self.sources.len()
    }
    /// The byte cap of the buffer.
    pub fn cap(&self) -> usize {
        self.cap
    }
    /// The footer's message, if any.
    pub fn status(&self) -> Option<&str> {
        self.status.as_ref().map(|s| s.0.as_str())
    }
    /// A search or filter line is open: every key goes to it.
    pub fn is_typing(&self) -> bool {
        self.input.is_some()
    }
    /// Plain text of every kept line (in order), markers included.
    pub fn texts(&self) -> Vec<&str> {
        self.lines.iter().map(|l| &*l.text.text).collect()
    }
    /// Plain text of the lines the filter lets through.
    pub fn visible_texts(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter(|l| self.passes(l))
            .map(|l| &*l.text.text)
            .collect()
    }

    pub fn set_viewport(&mut self, width: u16, height: u16) {
        if self.viewport != (width, height) {
            self.viewport = (width, height);
            self.dirty = true;
            self.prepare_visible();
        }
    }

    fn page(&self) -> usize {
        usize::from(
            self.viewport
                .1
                .saturating_sub(if self.fullscreen { 1 } else { 2 }),
        )
        .max(1)
    }

    fn source_index(&mut self, id: &Arc<SourceId>) -> u16 {
        if let Some(i) = self.by_id.get(id) {
            return *i;
        }
        let i = u16::try_from(self.sources.len()).unwrap_or(u16::MAX);
        self.sources.push(Source {
            id: id.clone(),
            colour: source_colour(id),
            state: SourceState::Connecting,
        });
        self.by_id.insert(id.clone(), i);
        i
    }

    fn passes(&self, l: &Line) -> bool {
        l.kind != LineKind::Log || l.shown
    }

    /// Set the filter and recompute every kept line's `pass` (once per filter change).
    fn set_filter(&mut self, filter: Option<LineFilter>, raw: String) {
        self.filter = filter;
        self.filter_raw = raw;
        let needs = self.filter.as_ref().is_some_and(LineFilter::needs_fields);
        for i in 0..self.lines.len() {
            if needs {
                self.parse_at(i);
            }
            let l = &self.lines[i];
            let pass = self.filter.as_ref().is_none_or(|f| {
                f.matches(&l.text.text, l.parsed.as_ref().and_then(|p| p.as_deref()))
            });
            self.lines[i].pass = pass;
        }
        self.matched = self
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Log && l.pass)
            .count();
        self.recompute_shown();
        self.trim();
    }

    /// `shown` of every line from `pass` and the context (once per filter or context change).
    fn recompute_shown(&mut self) {
        let c = if self.filter.is_some() {
            self.context
        } else {
            0
        };
        let n = self.lines.len();
        let mut last_pass: Option<usize> = None;
        for i in 0..n {
            if self.lines[i].kind == LineKind::Log && self.lines[i].pass {
                last_pass = Some(i);
            }
            self.lines[i].shown = last_pass.is_some_and(|p| i - p <= c);
        }
        let mut next_pass: Option<usize> = None;
        for i in (0..n).rev() {
            if self.lines[i].kind == LineKind::Log && self.lines[i].pass {
                next_pass = Some(i);
            }
            if next_pass.is_some_and(|p| p - i <= c) {
                self.lines[i].shown = true;
            }
        }
    }

    /// Parses the line at index `i` once, counting its fields against the cap.
    fn parse_at(&mut self, i: usize) {
        let Some(l) = self.lines.get_mut(i) else {
            return;
        };
        if l.parsed.is_some() || l.kind != LineKind::Log {
            return;
        }
        let p = fields::parse(&l.text.text).map(Box::new);
        self.bytes += p.as_ref().map_or(0, |p| p.heap_bytes());
        l.parsed = Some(p);
    }

    /// Drops the oldest lines while over the cap (a single line is kept whatever its size). In
    /// head mode the start of the log is what is kept: the newest lines go instead.
    fn trim(&mut self) {
        if self.since == Since::All {
            while (self.bytes > self.cap || self.lines.len() > self.max_lines)
                && self.lines.len() > 1
            {
                if let Some(new) = self.lines.pop_back() {
                    self.bytes -= new.bytes();
                    self.not_kept += 1;
                    if new.kind == LineKind::Log && new.pass {
                        self.matched = self.matched.saturating_sub(1);
                    }
                    // Counted as new while paused when pushed: it is not there to see.
                    if !self.follow && self.passes(&new) {
                        self.unseen = self.unseen.saturating_sub(1);
                    }
                }
            }
            return;
        }
        while (self.bytes > self.cap || self.lines.len() > self.max_lines) && self.lines.len() > 1 {
            if let Some(old) = self.lines.pop_front() {
                self.bytes -= old.bytes();
                self.first_seq += 1;
                self.dropped += 1;
                if old.kind == LineKind::Log && old.pass {
                    self.matched = self.matched.saturating_sub(1);
                }
            }
        }
        if self.anchor < self.first_seq {
            self.anchor = self.first_seq;
        }
    }

    fn push(&mut self, source: u16, ts_ns: i64, kind: LineKind, text: CleanLine) {
        self.bytes += line_bytes(&text);
        let mut line = Line {
            source,
            ts_ns,
            kind,
            text,
            pass: true,
            shown: true,
            parsed: None,
        };
        if kind == LineKind::Log
            && let Some(f) = &self.filter
        {
            if f.needs_fields() {
                let p = fields::parse(&line.text.text).map(Box::new);
                self.bytes += p.as_ref().map_or(0, |p| p.heap_bytes());
                line.parsed = Some(p);
            }
            line.pass = f.matches(
                &line.text.text,
                line.parsed.as_ref().and_then(|p| p.as_deref()),
            );
        }
        if kind == LineKind::Log && line.pass {
            self.matched += 1;
        }
        line.shown = line.pass;
        if self.context > 0 && self.filter.is_some() {
            let n = self.lines.len();
            if line.pass {
                // The lines before it within the context now show.
                for k in 0..self.context.min(n) {
                    let before = &mut self.lines[n - 1 - k];
                    if !before.shown && !self.follow {
                        self.unseen += 1;
                    }
                    before.shown = true;
                }
            } else {
                let recent_pass = (0..self.context.min(n)).any(|k| {
                    let l = &self.lines[n - 1 - k];
                    l.kind == LineKind::Log && l.pass
                });
                line.shown = recent_pass;
            }
        }
        if !self.follow && self.passes(&line) {
            self.unseen += 1;
        }
        self.lines.push_back(line);
        self.trim();
    }

    fn marker(&mut self, source: u16, text: String) {
        self.push(source, 0, LineKind::Marker, clean(&text));
    }

    /// New events from the streams (one frame's worth, coalesced by the runtime).
    pub fn ingest(&mut self, events: Vec<LogEvent>) {
        for ev in events {
            match ev {
                LogEvent::Lines { source, lines } => {
                    let s = self.source_index(&source);
                    for LogLine { ts_ns, text } in lines {
                        // Head: once the start of the log fills the buffer, the rest is
                        // counted, not kept.
                        if self.not_kept > 0 && self.since == Since::All {
                            self.not_kept += 1;
                            continue;
                        }
                        self.push(s, ts_ns, LineKind::Log, clean(&text));
                    }
                }
                LogEvent::State { source, state } => {
                    let s = self.source_index(&source);
                    let idx = usize::from(s);
                    if self.sources[idx].state == state {
                        continue;
                    }
                    let note = match &state {
                        SourceState::Streaming | SourceState::Connecting => None,
                        SourceState::Waiting(m) => Some(format!("waiting: {m}")),
                        SourceState::Retrying { after_ms, error } => Some(format!(
                            "connection lost ({error}); retrying in {:.1}s from the last line",
                            *after_ms as f64 / 1000.0
                        )),
                        SourceState::Ended(m) => Some(format!("ended: {m}")),
                        SourceState::Failed(m) => Some(format!("error: {m}")),
                    };
                    let joined = matches!(self.sources[idx].state, SourceState::Connecting)
                        && state == SourceState::Streaming
                        && self.sources.len() > 1;
                    self.sources[idx].state = state;
                    if let Some(n) = note {
                        self.marker(s, format!("── {} {n} ──", source));
                    } else if joined {
                        self.marker(s, format!("── {} joined ──", source));
                    }
                }
                LogEvent::PodGone { namespace, pod } => {
                    let ids: Vec<u16> = self
                        .sources
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.id.namespace == namespace && s.id.pod == pod)
                        .map(|(i, _)| u16::try_from(i).unwrap_or(u16::MAX))
                        .collect();
                    let src = match ids.first() {
                        Some(s) => *s,
                        None => self.source_index(&Arc::new(SourceId {
                            namespace: namespace.clone(),
                            pod: pod.clone(),
                            container: String::new(),
                        })),
                    };
                    for i in &ids {
                        self.sources[usize::from(*i)].state = SourceState::Ended("pod gone".into());
                    }
                    self.marker(src, format!("── pod/{pod} gone: its streams ended ──"));
                }
            }
        }
        self.prepare_visible();
        self.dirty = true;
    }

    /// Seqs of the lines passing the filter, newest last, at most `n` ending at the bottom.
    fn last_visible(&self, n: usize) -> Vec<u64> {
        let mut out = Vec::with_capacity(n);
        for (i, l) in self.lines.iter().enumerate().rev() {
            if out.len() >= n {
                break;
            }
            if self.passes(l) {
                out.push(self.first_seq + i as u64);
            }
        }
        out.reverse();
        out
    }

    fn line(&self, seq: u64) -> Option<&Line> {
        seq.checked_sub(self.first_seq)
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.lines.get(i))
    }

    /// The seq of the top line now (following: computed from the bottom).
    fn top(&self) -> u64 {
        if self.follow {
            self.last_visible(self.page())
                .first()
                .copied()
                .unwrap_or(self.first_seq + self.lines.len() as u64)
        } else {
            self.anchor
        }
    }

    /// Moves `from` by `n` visible lines (negative: up); clamped to the buffer.
    fn step(&self, from: u64, n: i64) -> u64 {
        let mut seq = from.max(self.first_seq);
        let end = self.first_seq + self.lines.len() as u64;
        let mut left = n.unsigned_abs();
        while left > 0 {
            let next = if n < 0 {
                match seq.checked_sub(1) {
                    Some(s) if s >= self.first_seq => s,
                    _ => break,
                }
            } else if seq + 1 < end {
                seq + 1
            } else {
                break;
            };
            seq = next;
            if self.line(seq).is_some_and(|l| self.passes(l)) {
                left -= 1;
            }
        }
        seq
    }

    fn pause_at(&mut self, seq: u64) {
        let bottom_top = self.last_visible(self.page()).first().copied();
        if bottom_top.is_some_and(|b| seq >= b) {
            self.resume();
            return;
        }
        if self.follow {
            self.unseen = 0;
        }
        self.follow = false;
        self.anchor = seq.max(self.first_seq);
    }

    fn resume(&mut self) {
        self.follow = true;
        self.unseen = 0;
    }

    fn matches_of(&self, m: &Matcher) -> Vec<u64> {
        self.lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.kind == LineKind::Log && self.passes(l) && m.is_match(&l.text.text))
            .map(|(i, _)| self.first_seq + i as u64)
            .collect()
    }

    fn go_to_match(&mut self, newer: bool) {
        let Some(m) = self.search.clone() else {
            self.status = Some(("no search: / to search".into(), false));
            return;
        };
        let all = self.matches_of(&m);
        let from = self.current_match.unwrap_or(u64::MAX);
        let target = if newer {
            all.iter().copied().find(|s| *s > from || from == u64::MAX)
        } else {
            all.iter().rev().copied().find(|s| *s < from)
        };
        let target = match (target, self.current_match) {
            (Some(t), _) => Some(t),
            (None, None) => all.last().copied(),
            (None, Some(_)) => None,
        };
        match target {
            Some(t) => {
                self.current_match = Some(t);
                let k = all.iter().position(|s| *s == t).map_or(0, |p| p + 1);
                self.status = Some((format!("match {k} of {}", all.len()), false));
                let half = i64::try_from(self.page() / 2).unwrap_or(0);
                let top = self.step(t, -half);
                self.pause_at(top);
            }
            None if all.is_empty() => {
                self.status = Some((format!("no match for {:?}", m.raw), true));
            }
            None => {
                self.status = Some((
                    if newer {
                        "no newer match"
                    } else {
                        "no older match"
                    }
                    .into(),
                    false,
                ));
            }
        }
    }

    /// A key on the log screen.
    pub fn handle_key(&mut self, ev: &KeyEvent, keys: &LogKeyMap, now_ms: i64) -> Vec<LogEffect> {
        self.dirty = true;
        if let Some((kind, input)) = &mut self.input {
            match ev.code {
                KeyCode::Esc => self.input = None,
                KeyCode::Enter => {
                    let kind = *kind;
                    let raw = input.value().to_string();
                    self.input = None;
                    self.apply_input(kind, &raw);
                }
                _ => {
                    input.handle_event(&crossterm::event::Event::Key(*ev));
                }
            }
            return Vec::new();
        }
        let Some(action) = keys.action(ev) else {
            return Vec::new();
        };
        self.status = None;
        let page = i64::try_from(self.page()).unwrap_or(1);
        match action {
            LogKey::Close | LogKey::Detail if self.detail.is_some() => self.detail = None,
            LogKey::Up if self.detail.is_some() => {
                if let Some((_, scroll)) = &mut self.detail {
                    *scroll = scroll.saturating_sub(1);
                }
            }
            LogKey::Down if self.detail.is_some() => {
                if let Some((_, scroll)) = &mut self.detail {
                    *scroll += 1;
                }
            }
            LogKey::Close => {
                if self.filter.is_some() || self.search.is_some() {
                    self.set_filter(None, String::new());
                    self.search = None;
                    self.current_match = None;
                } else {
                    return vec![LogEffect::Close];
                }
            }
            LogKey::Up => {
                let t = self.step(self.top(), -1);
                self.pause_at(t);
            }
            LogKey::PageUp => {
                let t = self.step(self.top(), -page);
                self.pause_at(t);
            }
            LogKey::Down if !self.follow => {
                let t = self.step(self.anchor, 1);
                self.pause_at(t);
            }
            LogKey::PageDown if !self.follow => {
                let t = self.step(self.anchor, page);
                self.pause_at(t);
            }
            LogKey::Down | LogKey::PageDown => {}
            LogKey::Top => {
                let first = (0..self.lines.len())
                    .find(|i| self.passes(&self.lines[*i]))
                    .map_or(self.first_seq, |i| self.first_seq + i as u64);
                self.pause_at(first);
            }
            LogKey::Follow => self.resume(),
            LogKey::Search => self.input = Some((InputKind::Search, Input::default())),
            LogKey::Filter => {
                let current = self.filter_raw.clone();
                self.input = Some((InputKind::Filter, Input::new(current)));
            }
            LogKey::NextMatch => self.go_to_match(true),
            LogKey::PrevMatch => self.go_to_match(false),
            LogKey::Previous => {
                self.options.previous = !self.options.previous;
                return self.restart();
            }
            LogKey::Since => return self.set_since(self.since.next(self.tail)),
            LogKey::SinceTail => return self.set_since(Since::Tail(self.tail)),
            LogKey::SinceHead => return self.set_since(Since::All),
            LogKey::Since1m => return self.set_since(Since::Minutes1),
            LogKey::Since5m => return self.set_since(Since::Minutes5),
            LogKey::Since15m => return self.set_since(Since::Minutes15),
            LogKey::Since30m => return self.set_since(Since::Minutes30),
            LogKey::Since1h => return self.set_since(Since::Hour1),
            LogKey::Autoscroll if self.follow => {
                let t = self.top();
                self.follow = false;
                self.unseen = 0;
                self.anchor = t.max(self.first_seq);
            }
            LogKey::Autoscroll => self.resume(),
            LogKey::Timestamps => self.timestamps = !self.timestamps,
            LogKey::Wrap => self.wrap = !self.wrap,
            LogKey::Clear => self.clear(),
            LogKey::Fullscreen => self.fullscreen = !self.fullscreen,
            LogKey::Save => return vec![self.save(now_ms, false)],
            LogKey::Copy => return vec![self.save(now_ms, true)],
            LogKey::Mark => {
                let t = chrono::DateTime::from_timestamp_millis(now_ms).unwrap_or_default()
                    + chrono::Duration::seconds(i64::from(self.utc_offset_secs));
                let src = self.sources.len().saturating_sub(1);
                if self.sources.is_empty() {
                    self.status = Some(("nothing to mark yet: no stream has started".into(), true));
                } else {
                    let src = u16::try_from(src).unwrap_or(u16::MAX);
                    self.push(
                        src,
                        0,
                        LineKind::Mark,
                        clean(&format!("──────── mark {} ────────", t.format("%H:%M:%S"))),
                    );
                }
            }
            LogKey::AllContainers => return vec![LogEffect::AllContainers],
            LogKey::Structured => self.toggle_structured(),
            LogKey::Context => {
                self.context = match self.context {
                    0 => 1,
                    1 => 2,
                    2 => 3,
                    3 => 5,
                    5 => 10,
                    _ => 0,
                };
                self.recompute_shown();
                self.status = Some((
                    if self.filter.is_some() {
                        format!("{} context lines around each match", self.context)
                    } else {
                        format!(
                            "{} context lines around each match once a filter is set (&)",
                            self.context
                        )
                    },
                    false,
                ));
            }
            LogKey::Columns => {
                let current = self.columns.join(",");
                self.input = Some((InputKind::Columns, Input::new(current)));
            }
            LogKey::Detail => match self.current_line() {
                Some(seq) => self.detail = Some((seq, 0)),
                None => self.status = Some(("no line to show".into(), false)),
            },
        }
        self.prepare_visible();
        Vec::new()
    }

    /// The line `enter`, `J` act on: the current search match, else the top line when paused,
    /// else the newest line shown.
    fn current_line(&self) -> Option<u64> {
        let is_log = |s: u64| self.line(s).is_some_and(|l| l.kind == LineKind::Log);
        if let Some(m) = self.current_match.filter(|m| is_log(*m)) {
            return Some(m);
        }
        if !self.follow {
            let end = self.first_seq + self.lines.len() as u64;
            return (self.anchor..end)
                .find(|s| is_log(*s) && self.line(*s).is_some_and(|l| self.passes(l)));
        }
        self.last_visible(self.page())
            .into_iter()
            .rev()
            .find(|s| is_log(*s))
    }

    /// `J`: structured view on/off for the current line's container (every container when
    /// there is no line yet).
    fn toggle_structured(&mut self) {
        let containers: Vec<String> = match self.current_line().and_then(|s| self.line(s)) {
            Some(l) => vec![self.sources[usize::from(l.source)].id.container.clone()],
            None => self
                .sources
                .iter()
                .map(|s| s.id.container.clone())
                .collect(),
        };
        if containers.is_empty() {
            self.status = Some(("no container yet: J waits for a stream".into(), false));
            return;
        }
        let on = !containers.iter().all(|c| self.structured.contains(c));
        for c in &containers {
            if on {
                self.structured.insert(c.clone());
            } else {
                self.structured.remove(c);
            }
        }
        let names = containers.join(", ");
        self.status = Some((
            format!(
                "structured view {} for container {names}",
                if on { "on" } else { "off" }
            ),
            false,
        ));
    }

    /// Structured or columns display: the container of `l` shows fields.
    fn shows_fields(&self, l: &Line) -> bool {
        l.kind == LineKind::Log
            && (!self.columns.is_empty()
                || self
                    .structured
                    .contains(&self.sources[usize::from(l.source)].id.container))
    }

    /// Parses the lines on screen that show fields (cached per line, counted against the cap),
    /// so drawing finds them parsed.
    fn prepare_visible(&mut self) {
        if self.structured.is_empty() && self.columns.is_empty() {
            return;
        }
        let seqs = self.screen_seqs(usize::from(self.viewport.1));
        for s in seqs {
            let i = (s - self.first_seq) as usize;
            if self.lines.get(i).is_some_and(|l| self.shows_fields(l)) {
                self.parse_at(i);
            }
        }
        if let Some((d, _)) = self.detail {
            self.parse_at(d.saturating_sub(self.first_seq) as usize);
        }
        self.trim();
    }

    /// Seqs of the lines drawn now on `rows` rows, top first.
    fn screen_seqs(&self, rows: usize) -> Vec<u64> {
        if self.follow {
            self.last_visible(rows)
        } else {
            let mut out = Vec::with_capacity(rows);
            let mut s = self.anchor;
            let end = self.first_seq + self.lines.len() as u64;
            while s < end && out.len() < rows {
                if self.line(s).is_some_and(|l| self.passes(l)) {
                    out.push(s);
                }
                s += 1;
            }
            out
        }
    }

    fn set_since(&mut self, since: Since) -> Vec<LogEffect> {
        self.since = since;
        self.since.apply(&mut self.options);
        self.restart()
    }

    /// Tell the footer something (the screen's answer to a key the view cannot act on alone).
    pub fn set_status(&mut self, msg: impl Into<String>, error: bool) {
        self.status = Some((msg.into(), error));
        self.dirty = true;
    }

    fn apply_input(&mut self, kind: InputKind, raw: &str) {
        match kind {
            InputKind::Columns => {
                self.set_columns(raw);
                return;
            }
            InputKind::Filter => {
                match LineFilter::parse(raw) {
                    Err(e) => self.status = Some((e, true)),
                    Ok(f) => {
                        let f = (!f.terms.is_empty()).then_some(f);
                        self.set_filter(f, raw.trim().to_string());
                        self.unseen = 0;
                        if !self.follow {
                            let t = self.step(self.anchor.saturating_sub(1), 1);
                            self.anchor = t;
                        }
                    }
                }
                return;
            }
            InputKind::Search => {}
        }
        let parsed = if raw.is_empty() {
            Ok(None)
        } else {
            Matcher::parse(raw).map(Some)
        };
        match parsed {
            Err(e) => self.status = Some((e, true)),
            Ok(m) => {
                self.search = m;
                self.current_match = None;
                if self.search.is_some() {
                    self.go_to_match(false);
                }
            }
        }
    }

    /// Fields to show as columns, comma- or space-separated (empty: none). The dashboard's
    /// `:cols` can call this too.
    /// The fields shown as columns (`o`, `:cols`), in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    pub fn set_columns(&mut self, raw: &str) {
        self.columns = raw
            .split([',', ' '])
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect();
        self.status = Some((
            if self.columns.is_empty() {
                "columns off".to_string()
            } else {
                format!("columns: {}", self.columns.join(", "))
            },
            false,
        ));
        self.dirty = true;
        self.prepare_visible();
    }

    fn clear(&mut self) {
        self.first_seq += self.lines.len() as u64;
        self.lines.clear();
        self.bytes = 0;
        self.dropped = 0;
        self.not_kept = 0;
        self.matched = 0;
        self.detail = None;
        self.anchor = self.first_seq;
        self.unseen = 0;
        self.current_match = None;
        self.follow = true;
    }

    fn restart(&mut self) -> Vec<LogEffect> {
        vec![LogEffect::Restart(self.restart_streams())]
    }

    /// Clear the buffer for streams about to start again; the options they start with.
    pub fn restart_streams(&mut self) -> StreamOptions {
        self.clear();
        for s in &mut self.sources {
            s.state = SourceState::Connecting;
        }
        self.options
    }

    /// The buffer (`copy`: the lines the filter lets through, marks included) as a file in the
    /// save directory.
    fn save(&mut self, now_ms: i64, copy: bool) -> LogEffect {
        let t = chrono::DateTime::from_timestamp_millis(now_ms)
            .unwrap_or_default()
            .format("%Y%m%dT%H%M%SZ");
        let stem: String = self
            .file_stem
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let suffix = if copy { "_copy" } else { "" };
        let path = self.save_dir.join(format!("{stem}_{t}{suffix}.log"));
        self.saving_copy = copy;
        let multi = self.sources.len() > 1;
        let mut contents = String::new();
        for l in self.lines.iter().filter(|l| !copy || self.passes(l)) {
            if self.timestamps && l.ts_ns != 0 {
                contents.push_str(&crate::demo::logs::format_ts(l.ts_ns));
                contents.push(' ');
            }
            if multi && l.kind == LineKind::Log {
                contents.push_str(&self.sources[usize::from(l.source)].id.to_string());
                contents.push(' ');
            }
            contents.push_str(&l.text.text);
            contents.push('\n');
        }
        LogEffect::Save { path, contents }
    }

    /// The runtime's answer to [`LogEffect::Save`].
    pub fn saved(&mut self, result: Result<(PathBuf, usize), String>) {
        self.status = Some(match result {
            Ok((p, n)) if self.saving_copy => (
                format!(
                    "copied {n} lines to {} (no clipboard here: paste from that file)",
                    p.display()
                ),
                false,
            ),
            Ok((p, n)) => (format!("saved {n} lines to {}", p.display()), false),
            Err(e) => (format!("save failed: {e}"), true),
        });
        self.dirty = true;
    }
}

/// `~/.local/state/kinformer/logs` (platform state dir; the home directory otherwise).
pub fn default_save_dir() -> PathBuf {
    crate::logging::state_dir().join("logs")
}

impl Widget for &LogView {
    fn render(self, area: Rect, buf: &mut Buffer) {
        self.render_with(area, buf, None);
    }
}
