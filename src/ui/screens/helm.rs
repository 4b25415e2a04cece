//! `:helm`: the helm releases (the latest revision of each, as `helm ls -a`), and Enter: one
//! release's revisions (`helm history`, newest first). Read from helm's own storage objects by
//! the runtime ([`crate::helm`]); this screen owns its rows and its requests and does no I/O.
//!
//! Keys (both levels): `v` the user-supplied values (`helm get values`), `V` all of them (the
//! chart's defaults under the user's: `helm get values --all`), `m` the manifest, `n` the notes,
//! `d` a diff of the values and manifest between two revisions (the selected one and the one
//! marked with `space`, else the one before it). On the revisions, Enter is that diff too.
//!
//! Where this differs from k9s: uninstall and rollback are not built in (k9s has them); they stay
//! with plugins, as most k9s users run them.

use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, Widget};

use super::Screen;
use super::history_diff::DiffView;
use super::text::{TextKind, TextView};
use crate::helm::{Release, Revision};
use crate::informer::history::text_diff;
use crate::render::Health;
use crate::ui::action::Effect;
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, header_style, screen_block, widest};
use crate::ui::theme::Theme;

/// The footer hints of the screen.
/// (`d`, the diff, is named in the header: the footer would call it describe.)
pub const HINTS: [KeyAction; 6] = [
    KeyAction::Enter,
    KeyAction::HelmValues,
    KeyAction::HelmManifest,
    KeyAction::HelmNotes,
    KeyAction::Back,
    KeyAction::Help,
];

/// What of a release a text screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Values,
    AllValues,
    Manifest,
    Notes,
}

/// A request in flight and what its answer becomes.
#[derive(Debug, Clone)]
enum Pending {
    /// A text screen already pushed with this request.
    Text { request: u64, part: Part },
    /// A diff of two revisions (older first), pushed when both have come.
    Diff {
        title: String,
        requests: [u64; 2],
        got: [Option<Box<Release>>; 2],
    },
}

/// What a key or an answer asks of the app.
#[derive(Debug)]
pub enum Outcome {
    /// Not a key of this screen: the global keys have it.
    Ignored,
    /// Taken; nothing more to do.
    Done,
    /// Push this screen (and carry out these effects).
    Open(Box<Screen>, Vec<Effect>),
    /// Carry out these effects.
    Effects(Vec<Effect>),
    /// Say this on the footer (an error when true).
    Say(String, bool),
}

/// One helm screen: the releases, or one release's revisions.
#[derive(Debug, Clone)]
pub struct HelmScreen {
    /// `None`: the releases; `Some((namespace, name))`: that release's revisions.
    pub release: Option<(String, String)>,
    /// Every revision of every release the feed holds (shared by the helm screens).
    pub revisions: Arc<Vec<Revision>>,
    /// Why the releases cannot be listed.
    pub error: Option<String>,
    /// The feed has answered once.
    pub loaded: bool,
    /// The scope asked for (`None`: all namespaces).
    pub namespace: Option<String>,
    pub cursor: usize,
    pub scroll: usize,
    /// The revision `space` marked (the other side of a diff).
    pub marked: Option<u64>,
    pending: Vec<Pending>,
}

impl HelmScreen {
    /// The releases of `namespace` (`None`: all), before the feed answers.
    pub fn releases(namespace: Option<String>) -> HelmScreen {
        HelmScreen {
            release: None,
            revisions: Arc::new(Vec::new()),
            error: None,
            loaded: false,
            namespace,
            cursor: 0,
            scroll: 0,
            marked: None,
            pending: Vec::new(),
        }
    }

    /// The rows shown: the latest revision of each release, or the release's revisions.
    pub fn rows(&self) -> Vec<&Revision> {
        match &self.release {
            None => crate::helm::latest(&self.revisions),
            Some((ns, name)) => crate::helm::history(&self.revisions, ns, name),
        }
    }

    fn selected(&self) -> Option<&Revision> {
        self.rows().get(self.cursor).copied()
    }

    /// The feed's rows (or its error): every helm screen takes them.
    pub fn set_revisions(&mut self, result: &Result<Arc<Vec<Revision>>, String>) {
        self.loaded = true;
        match result {
            Ok(rows) => {
                self.revisions = Arc::clone(rows);
                self.error = None;
            }
            Err(e) => self.error = Some(e.clone()),
        }
        let len = self.rows().len();
        self.cursor = self.cursor.min(len.saturating_sub(1));
    }

    /// Up, down, page, top, bottom.
    pub fn nav(&mut self, action: KeyAction, n: usize, page: usize) {
        let len = self.rows().len();
        self.cursor = crate::ui::cursor::moved_cursor(action, n, self.cursor, len);
        self.scroll = crate::ui::cursor::scrolled_to(self.cursor, self.scroll, page.max(1));
    }

    /// A key (`next_request` numbers the GETs it asks for).
    pub fn on_key(&mut self, action: KeyAction, next_request: &mut u64) -> Outcome {
        let part = match action {
            KeyAction::HelmValues => Some(Part::Values),
            KeyAction::HelmAllValues => Some(Part::AllValues),
            KeyAction::HelmManifest => Some(Part::Manifest),
            KeyAction::HelmNotes => Some(Part::Notes),
            _ => None,
        };
        if let Some(part) = part {
            return self.open_text(part, next_request);
        }
        match action {
            KeyAction::Enter if self.release.is_none() => match self.selected() {
                Some(r) => {
                    let mut revisions = HelmScreen::releases(self.namespace.clone());
                    revisions.release = Some((r.namespace.clone(), r.name.clone()));
                    revisions.revisions = Arc::clone(&self.revisions);
                    revisions.loaded = self.loaded;
                    Outcome::Open(Box::new(Screen::Helm(Box::new(revisions))), Vec::new())
                }
                None => Outcome::Done,
            },
            KeyAction::Enter | KeyAction::Describe => self.diff(next_request),
            // `space`: several actions share it (marks, xray's nodes).
            KeyAction::Mark | KeyAction::ToggleNode if self.release.is_some() => {
                if let Some(r) = self.selected().map(|r| r.revision) {
                    self.marked = if self.marked == Some(r) {
                        None
                    } else {
                        Some(r)
                    };
                }
                Outcome::Done
            }
            KeyAction::Back
            | KeyAction::Quit
            | KeyAction::Command
            | KeyAction::Help
            | KeyAction::Up
            | KeyAction::Down
            | KeyAction::PageUp
            | KeyAction::PageDown
            | KeyAction::Top
            | KeyAction::Bottom => Outcome::Ignored,
            // A resource table's keys do nothing here.
            _ => Outcome::Done,
        }
    }

    fn fetch(rev: &Revision, next_request: &mut u64) -> (u64, Effect) {
        let request = *next_request;
        *next_request += 1;
        (
            request,
            Effect::FetchHelmRelease {
                request,
                namespace: rev.namespace.clone(),
                storage: rev.storage,
                object: rev.object.clone(),
            },
        )
    }

    fn open_text(&mut self, part: Part, next_request: &mut u64) -> Outcome {
        let Some(rev) = self.selected().cloned() else {
            return Outcome::Say("no release selected".into(), true);
        };
        let (request, effect) = Self::fetch(&rev, next_request);
        self.pending.push(Pending::Text { request, part });
        let what = match part {
            Part::Values => "values",
            Part::AllValues => "all values",
            Part::Manifest => "manifest",
            Part::Notes => "notes",
        };
        let view = TextView {
            kind: TextKind::Describe,
            title: format!(
                "{}/{} revision {} {what}",
                rev.namespace, rev.name, rev.revision
            ),
            request,
            lines: None,
            value: None,
            reveal: false,
            scroll: 0,
            wrap: true,
            search: None,
            hit: None,
        };
        Outcome::Open(Box::new(Screen::Text(view)), vec![effect])
    }

    /// A diff of the selected revision with the marked one, else with the one before it.
    fn diff(&mut self, next_request: &mut u64) -> Outcome {
        let Some(sel) = self.selected().cloned() else {
            return Outcome::Say("no release selected".into(), true);
        };
        let history = crate::helm::history(&self.revisions, &sel.namespace, &sel.name);
        let other = match self.marked.filter(|m| *m != sel.revision) {
            Some(m) => history.iter().find(|r| r.revision == m),
            None => history.iter().find(|r| r.revision < sel.revision),
        };
        let Some(other) = other.map(|r| (*r).clone()) else {
            return Outcome::Say(
                format!(
                    "{}: revision {} is the first: nothing to compare it with (space marks another)",
                    sel.name, sel.revision
                ),
                true,
            );
        };
        let (old, new) = if other.revision < sel.revision {
            (other, sel)
        } else {
            (sel, other)
        };
        let (a, fa) = Self::fetch(&old, next_request);
        let (b, fb) = Self::fetch(&new, next_request);
        self.pending.push(Pending::Diff {
            title: format!(
                "{}/{} revision {} → {} (values and manifest)",
                new.namespace, new.name, old.revision, new.revision
            ),
            requests: [a, b],
            got: [None, None],
        });
        Outcome::Effects(vec![fa, fb])
    }

    /// A release fetched for `request`: what it becomes, `None` when not this screen's.
    pub fn on_release(
        &mut self,
        request: u64,
        result: &Result<Box<Release>, String>,
    ) -> Option<Answer> {
        let i = self.pending.iter().position(|p| match p {
            Pending::Text { request: r, .. } => *r == request,
            Pending::Diff { requests, .. } => requests.contains(&request),
        })?;
        match &mut self.pending[i] {
            Pending::Text { part, .. } => {
                let part = *part;
                self.pending.remove(i);
                Some(Answer::Text(
                    result
                        .as_ref()
                        .map(|r| text_of(r, part))
                        .map_err(Clone::clone),
                ))
            }
            Pending::Diff {
                title,
                requests,
                got,
            } => {
                let release = match result {
                    Ok(r) => r.clone(),
                    Err(e) => {
                        self.pending.remove(i);
                        return Some(Answer::Failed(format!("helm diff: {e}")));
                    }
                };
                let side = usize::from(requests[1] == request);
                got[side] = Some(release);
                let [Some(old), Some(new)] = got else {
                    return Some(Answer::Waiting);
                };
                let view = DiffView {
                    title: title.clone(),
                    lines: text_diff(&diff_text(old), &diff_text(new)),
                    scroll: 0,
                    about: Some(
                        "the two revisions' user-supplied values, then their rendered manifests",
                    ),
                };
                self.pending.remove(i);
                Some(Answer::Diff(Box::new(view)))
            }
        }
    }

    /// Header lines 2 and 3.
    pub fn header(&self, label: Style, value: Style) -> [Line<'static>; 2] {
        let scope = self.namespace.as_deref().unwrap_or("all namespaces");
        let l2 = match &self.release {
            None => vec![
                Span::styled(" Helm: ", label),
                Span::styled(
                    format!(
                        "{} releases │ {scope}",
                        crate::helm::latest(&self.revisions).len()
                    ),
                    value,
                ),
            ],
            Some((ns, name)) => vec![
                Span::styled(" Release: ", label),
                Span::styled(
                    format!("{ns}/{name} │ {} revisions", self.rows().len()),
                    value,
                ),
            ],
        };
        let l3 = match (&self.release, self.marked) {
            (Some(_), Some(m)) => vec![
                Span::styled(" Marked: ", label),
                Span::styled(
                    format!("revision {m} (d diffs it with the selected one)"),
                    value,
                ),
            ],
            (Some(_), None) => vec![
                Span::styled(" Diff: ", label),
                Span::styled(
                    "d or enter: the selected revision against the one before (space marks another)",
                    value,
                ),
            ],
            (None, _) => vec![
                Span::styled(" Storage: ", label),
                Span::styled(
                    format!(
                        "Secrets of type {} and ConfigMaps, labelled {}",
                        crate::helm::SECRET_TYPE,
                        crate::helm::LABEL_SELECTOR
                    ),
                    value,
                ),
            ],
        };
        [Line::from(l2), Line::from(l3)]
    }

    /// The table.
    pub fn draw(&self, now_ms: i64, theme: &Theme, area: Rect, buf: &mut Buffer) {
        let rows = self.rows();
        let title = match &self.release {
            None => format!(
                " Helm({})[{}] ",
                self.namespace.as_deref().unwrap_or("all"),
                rows.len()
            ),
            Some((ns, name)) => format!(" History({ns}/{name})[{}] ", rows.len()),
        };
        let block = screen_block(title, theme);
        let inner = block.inner(area);
        block.render(area, buf);
        let empty = match (&self.error, self.loaded) {
            (Some(e), _) => Some(e.clone()),
            (None, false) => Some("reading helm's storage…".to_string()),
            (None, true) if rows.is_empty() => Some(match &self.namespace {
                Some(ns) => format!("no helm releases in {ns} (:helm all shows every namespace)"),
                None => "no helm releases".to_string(),
            }),
            _ => None,
        };
        if let Some(text) = empty {
            Paragraph::new(Line::styled(text, Style::default().fg(DIM)))
                .centered()
                .render(inner, buf);
            return;
        }
        let age = |r: &Revision| {
            r.updated
                .map(|t| crate::render::format_age(now_ms.div_euclid(1000) - t))
                .unwrap_or_default()
        };
        let page = inner.height.saturating_sub(1) as usize;
        let scroll = crate::ui::cursor::scrolled_to(self.cursor, self.scroll, page.max(1));
        let releases = self.release.is_none();
        let cells = |r: &Revision| -> Vec<String> {
            let status = match &r.error {
                Some(_) => format!("{} (unreadable)", r.status),
                None => r.status.clone(),
            };
            if releases {
                vec![
                    r.name.clone(),
                    r.namespace.clone(),
                    r.revision.to_string(),
                    status,
                    r.chart.clone(),
                    r.app_version.clone(),
                    age(r),
                ]
            } else {
                let mark = if self.marked == Some(r.revision) {
                    "✓"
                } else {
                    ""
                };
                vec![
                    format!("{mark}{}", r.revision),
                    status,
                    r.chart.clone(),
                    r.app_version.clone(),
                    r.error.clone().unwrap_or_else(|| r.description.clone()),
                    age(r),
                ]
            }
        };
        let table: Vec<Vec<String>> = rows.iter().map(|r| cells(r)).collect();
        let body = rows
            .iter()
            .zip(&table)
            .enumerate()
            .skip(scroll)
            .take(page)
            .map(|(i, (r, cells))| {
                let mut style = theme.health(health(r));
                if i == self.cursor {
                    style = theme.selected(style);
                }
                Row::new(cells.clone()).style(style)
            });
        let names: &[&str] = if releases {
            &[
                "NAME",
                "NAMESPACE",
                "REVISION",
                "STATUS",
                "CHART",
                "APP VERSION",
                "AGE",
            ]
        } else {
            &[
                "REVISION",
                "STATUS",
                "CHART",
                "APP VERSION",
                "DESCRIPTION",
                "AGE",
            ]
        };
        let widths: Vec<Constraint> = names
            .iter()
            .enumerate()
            .map(|(c, name)| {
                let w = widest(&table, |row| row[c].chars().count(), name.len());
                if !releases && *name == "DESCRIPTION" {
                    Constraint::Fill(1)
                } else {
                    Constraint::Length(w)
                }
            })
            .collect();
        Table::new(body, widths)
            .header(Row::new(names.to_vec()).style(header_style(theme)))
            .render(inner, buf);
    }
}

/// What a fetched release becomes.
#[derive(Debug)]
pub enum Answer {
    /// The text of a text screen already open (by its request).
    Text(Result<String, String>),
    /// The other side of the diff has not come yet.
    Waiting,
    /// The diff, to push.
    Diff(Box<DiffView>),
    /// Why the diff cannot be shown.
    Failed(String),
}

/// A revision's health: deployed is fine, failed is not, pending is on its way, the rest
/// (superseded, uninstalled) is history.
fn health(r: &Revision) -> Health {
    if r.error.is_some() {
        return Health::Error;
    }
    match r.status.as_str() {
        "deployed" => Health::Ok,
        "failed" => Health::Error,
        s if s.starts_with("pending") || s == "uninstalling" => Health::Pending,
        _ => Health::Completed,
    }
}

fn yaml(v: &serde_json::Value) -> String {
    serde_norway::to_string(v).unwrap_or_else(|_| v.to_string())
}

/// The text of `part`, as helm prints it (`helm get values`, `--all`, `manifest`, `notes`).
pub fn text_of(r: &Release, part: Part) -> String {
    match part {
        Part::Values => format!("USER-SUPPLIED VALUES:\n{}", yaml(&r.user_values())),
        Part::AllValues => format!("COMPUTED VALUES:\n{}", yaml(&r.all_values())),
        Part::Manifest if r.manifest.is_empty() => "(no manifest)".into(),
        Part::Manifest => r.manifest.clone(),
        Part::Notes if r.info.notes.is_empty() => "(the chart has no notes)".into(),
        Part::Notes => format!("NOTES:\n{}", r.info.notes),
    }
}

/// What a diff compares: the user's values, then the manifest.
fn diff_text(r: &Release) -> String {
    format!(
        "# values\n{}# manifest\n{}",
        yaml(&r.user_values()),
        r.manifest
    )
}

// ------------------------------------------------------------------ wiring into the app

use crate::ui::app::App;

/// `:helm` (the current scope), `:helm NS`, `:helm all` (or `-A`): the releases.
pub(crate) fn open(app: &mut App, arg: Option<&str>, fx: &mut Vec<Effect>) {
    let namespace = match arg {
        Some("all" | "-A" | "*") => None,
        Some(ns) => Some(ns.to_string()),
        None => app.namespace.clone(),
    };
    // A command replaces the stack, as in k9s (`:helm` over a pod's containers is `<helm>`,
    // not `<pods> <containers> <helm>`); `[` and `-` come back to the command before.
    app.clear_stack(fx);
    fx.push(Effect::WatchHelm {
        namespace: namespace.clone(),
    });
    app.stack
        .push(Screen::Helm(Box::new(HelmScreen::releases(namespace))));
}

/// A key on a helm screen; false when it is not one (the global keys take it).
pub(crate) fn on_key(app: &mut App, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
    let mut next = app.next_request;
    let Some(Screen::Helm(h)) = app.stack.last_mut() else {
        return false;
    };
    let outcome = h.on_key(action, &mut next);
    app.next_request = next;
    match outcome {
        Outcome::Ignored => return false,
        Outcome::Done => {}
        Outcome::Open(screen, effects) => {
            fx.extend(effects);
            app.stack.push(*screen);
        }
        Outcome::Effects(effects) => fx.extend(effects),
        Outcome::Say(m, true) => app.error(m),
        Outcome::Say(m, false) => app.info(m),
    }
    true
}

/// Up, down, page, top, bottom on the helm screen on top.
pub(crate) fn nav(app: &mut App, action: KeyAction, n: usize) {
    let page = app.table_height().max(1);
    if let Some(Screen::Helm(h)) = app.stack.last_mut() {
        h.nav(action, n, page);
    }
}

/// The feed's rows: every helm screen on the stack takes them.
pub(crate) fn on_releases(app: &mut App, result: Result<Vec<Revision>, String>) {
    let shared = result.map(Arc::new);
    for s in app.stack.iter_mut() {
        if let Screen::Helm(h) = s {
            h.set_revisions(&shared);
        }
    }
    app.dirty = true;
}

/// A release fetched for a text screen or a diff.
pub(crate) fn on_release(app: &mut App, request: u64, result: Result<Box<Release>, String>) {
    let answer = app.stack.iter_mut().find_map(|s| match s {
        Screen::Helm(h) => h.on_release(request, &result),
        _ => None,
    });
    match answer {
        Some(Answer::Text(text)) => {
            app.on_text(request, text.map(super::text::TextResult::Describe))
        }
        // Shown only if the user is still where they asked for it.
        Some(Answer::Diff(view)) if matches!(app.current_screen(), Some(Screen::Helm(_))) => {
            app.stack.push(Screen::HistoryDiff(view));
            app.dirty = true;
        }
        Some(Answer::Failed(e)) => app.error(e),
        _ => {}
    }
}

/// A helm screen left the stack: the feed stops with the last one.
pub(crate) fn closed(app: &App, fx: &mut Vec<Effect>) {
    if !app.stack.iter().any(|s| matches!(s, Screen::Helm(_))) {
        fx.push(Effect::UnwatchHelm);
    }
}
