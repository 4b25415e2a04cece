//! The resource table screen: one informer-fed table ([`ResourceView`], wrapping
//! [`TableModel`]), its keys (filters, sort, drill-down, YAML/describe/delete of the selection)
//! and its drawing.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Cell as TCell, Paragraph, Row as TRow, Scrollbar, ScrollbarOrientation, ScrollbarState,
    StatefulWidget, Table, Widget,
};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::Screen;
use super::text::TextKind;
use crate::cluster::ResourceInfo;
use crate::informer::index::LABEL_INDEX;
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::render::{Column, Health};
use crate::ui::action::{Effect, ObjectSummary, ViewId};
use crate::ui::app::{App, Mode};
use crate::ui::keys::KeyAction;
use crate::ui::resources::resolve;
use crate::ui::table::{Drill, LabelFilter, Mark, SortBy, TableModel, TextFilter};
use crate::ui::widgets::{DIM, TITLE, centered, truncate};
use kube::api::DynamicObject;

/// One resource table (one informer subscription).
#[derive(Debug, Clone)]
pub struct ResourceView {
    pub id: ViewId,
    pub resource: ResourceInfo,
    pub namespace: Option<String>,
    pub columns: Vec<Column>,
    pub table: TableModel,
    /// The informer failed: message and whether it was a 403.
    pub error: Option<(String, bool)>,
    /// At least one Resync arrived.
    pub synced: bool,
    pub store: Option<Arc<ThreadSafeStore<DynamicObject>>>,
    /// What was drilled into, shown in the title (`deployments/web`).
    pub drilled_from: Option<String>,
    /// Not shown: feeds the owner uids of another view (Deployment → ReplicaSets → pods).
    pub feeds: Option<OwnerFeed>,
    /// Widest cell seen per rendered column (NAMESPACE first in an all-namespaces view), from
    /// the rows that were visible: grows while the view is open, never shrinks, so columns do
    /// not jump as rows scroll in and out.
    pub col_widths: Vec<u16>,
}

/// An auxiliary view whose rows owned by `root` become owner uids of `target`'s drill filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerFeed {
    pub target: ViewId,
    pub root: Arc<str>,
}

impl App {
    /// Keys for the resource table under the current screen (filters, drill-down, YAML,
    /// describe, delete, sort); false when `action` is not one of them.
    pub(crate) fn on_table_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        match action {
            KeyAction::Filter => {
                if let Some(v) = self.current_view() {
                    let raw = v.table.filters.text_raw.clone();
                    self.mode = Mode::Filter {
                        input: Input::new(raw),
                    };
                }
            }
            KeyAction::LabelFilter => self.open_picker(),
            KeyAction::Enter => self.enter(fx),
            KeyAction::Yaml => self.fetch_text(TextKind::Yaml, fx),
            KeyAction::Describe => self.fetch_text(TextKind::Describe, fx),
            KeyAction::Delete
            | KeyAction::Kill
            | KeyAction::Scale
            | KeyAction::Restart
            | KeyAction::Cordon
            | KeyAction::Uncordon
            | KeyAction::Drain
            | KeyAction::Shell
            | KeyAction::PortForward => {
                self.on_operate_key(action, fx);
            }
            KeyAction::SortName => {
                // Outside -A the key order is the name order.
                let all_ns = self
                    .current_view()
                    .is_some_and(|v| v.namespace.is_none() && v.resource.namespaced);
                let by = if all_ns { SortBy::Cell(0) } else { SortBy::Key };
                self.sort_table(move |_, _| by, true)
            }
            KeyAction::SortAge => self.sort_table(
                |cols, _| {
                    cols.iter()
                        .position(|c| c.name == "AGE")
                        .map_or(SortBy::Key, SortBy::Cell)
                },
                true,
            ),
            KeyAction::SortNext | KeyAction::SortPrev => {
                let fwd = action == KeyAction::SortNext;
                let all_ns = self
                    .current_view()
                    .is_some_and(|v| v.namespace.is_none() && v.resource.namespaced);
                self.sort_table(
                    move |cols, cur| {
                        // Positions: Key (NAMESPACE in -A, else NAME) then cells (skipping NAME
                        // when Key already stands for it).
                        let mut seq: Vec<SortBy> = vec![SortBy::Key];
                        let first = if all_ns { 0 } else { 1 };
                        seq.extend((first..cols.len()).map(SortBy::Cell));
                        let i = seq.iter().position(|s| *s == cur).unwrap_or(0);
                        let n = seq.len();
                        seq[if fwd { (i + 1) % n } else { (i + n - 1) % n }]
                    },
                    false,
                )
            }
            KeyAction::SortFlip => {
                if let Some(id) = self.current_view_id()
                    && let Some(v) = self.views.get_mut(&id)
                {
                    v.table.flip_sort();
                }
                self.scroll_current();
            }
            _ => return false,
        }
        true
    }

    pub(crate) fn nav_table(&mut self, id: ViewId, action: KeyAction, n: usize) {
        let n = n as isize;
        if let Some(v) = self.views.get_mut(&id) {
            match action {
                KeyAction::Up | KeyAction::PageUp => v.table.move_by(-n),
                KeyAction::Down | KeyAction::PageDown => v.table.move_by(n),
                KeyAction::Top => v.table.select_index(0),
                _ => v.table.select_index(usize::MAX),
            }
        }
        self.scroll_current();
    }

    /// Grow the current table's remembered column widths to fit its visible rows (O(visible
    /// rows), never a scan of the whole table).
    pub(crate) fn remember_col_widths(&mut self) {
        let h = self.table_height();
        let now_unix = self.now_ms.div_euclid(1000);
        let Some(id) = self.current_view_id() else {
            return;
        };
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let all_ns = v.namespace.is_none() && v.resource.namespaced;
        let skip = usize::from(all_ns);
        let ncols = v.columns.len() + skip;
        if v.col_widths.len() != ncols {
            v.col_widths = vec![0; ncols];
        }
        let list = v.table.list();
        let n = list.len();
        let start = v.table.offset.min(n);
        for key in &list[start..(start + h).min(n)] {
            let Some(e) = v.table.entry(key) else {
                continue;
            };
            if all_ns && let Some(w) = v.col_widths.first_mut() {
                let len = e.summary.namespace.as_deref().map_or(0, str::len);
                *w = (*w).max(len.min(60) as u16);
            }
            for (w, c) in v.col_widths.iter_mut().skip(skip).zip(&e.summary.row.cells) {
                *w = (*w).max(c.display(now_unix).chars().count().min(60) as u16);
            }
        }
    }

    /// An all-namespaces view that may not list across namespaces switches to the context's
    /// namespace (once), rather than showing nothing.
    pub(crate) fn fall_back_from_forbidden_all_namespaces(&mut self, fx: &mut Vec<Effect>) {
        let Some(Screen::Table(id)) = self.current_screen() else {
            return;
        };
        let Some(v) = self.views.get(id) else { return };
        if v.namespace.is_some() || !v.resource.namespaced || v.drilled_from.is_some() {
            return;
        }
        if !self.informer_for(v).is_some_and(|r| r.forbidden) {
            return;
        }
        let Some(ns) = self.context_namespace.take() else {
            return;
        };
        let resource = v.resource.clone();
        let plural = resource.api_resource.plural.clone();
        self.namespace = Some(ns.clone());
        self.reset_to(resource, fx);
        self.error(format!(
            "no permission to list {plural} in all namespaces: showing namespace {ns}"
        ));
        self.dirty = true;
    }

    pub(crate) fn after_rows(&mut self, view: ViewId) {
        self.dirty = true;
        let feed = self.views.get(&view).and_then(|v| v.feeds.clone());
        if let Some(feed) = feed {
            self.refresh_owner_feed(view, &feed);
        }
        self.scroll_current();
    }

    /// Recompute the owner uids a feeder view provides (e.g. a Deployment's ReplicaSets) and
    /// refilter the target when they changed.
    pub(crate) fn refresh_owner_feed(&mut self, feeder: ViewId, feed: &OwnerFeed) {
        let Some(src) = self.views.get(&feeder) else {
            return;
        };
        let mut uids: HashSet<Arc<str>> = src
            .table
            .entries()
            .filter(|e| e.mark != super::table::Mark::Deleted)
            .filter(|e| e.summary.owner_uids().any(|u| u == &*feed.root))
            .map(|e| Arc::from(e.summary.uid()))
            .collect();
        uids.insert(feed.root.clone());
        let Some(target) = self.views.get_mut(&feed.target) else {
            return;
        };
        let new = Some(Drill::Owners(uids));
        if target.table.filters.drill != new {
            target.table.filters.drill = new;
            target.table.refilter(None);
        }
    }

    pub(crate) fn sort_table(
        &mut self,
        pick: impl Fn(&[Column], SortBy) -> SortBy,
        same_flips: bool,
    ) {
        let Some(id) = self.current_view_id() else {
            return;
        };
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let (cur, _) = v.table.sort();
        let by = pick(&v.columns, cur);
        if by == cur && !same_flips {
            return;
        }
        v.table.set_sort(by);
        self.scroll_current();
    }

    pub(crate) fn selected_object(&self) -> Option<(&ResourceView, &ObjectSummary)> {
        let Some(Screen::Table(id)) = self.current_screen() else {
            return None;
        };
        let v = self.views.get(id)?;
        let e = v.table.selected()?;
        Some((v, &e.summary))
    }

    pub(crate) fn enter(&mut self, fx: &mut Vec<Effect>) {
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let kind = view.resource.api_resource.kind.clone();
        let ns = obj.namespace.as_deref().map(str::to_string);
        let name = obj.name.to_string();
        let uid: Arc<str> = Arc::from(obj.uid());
        let Some(pods) = resolve(&self.resources, "pods").cloned() else {
            return;
        };
        let (scope, drill, feeder) = match kind.as_str() {
            "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => (
                ns.clone(),
                Some(Drill::Owners([uid.clone()].into_iter().collect())),
                None,
            ),
            "Deployment" => (
                ns.clone(),
                Some(Drill::Owners([uid.clone()].into_iter().collect())),
                resolve(&self.resources, "replicasets").cloned(),
            ),
            "Node" => (None, Some(Drill::Node(Arc::from(name.as_str()))), None),
            "Namespace" => (Some(name.clone()), None, None),
            _ => {
                // Other kinds: Enter shows the YAML, as k9s's default "view" action.
                self.fetch_text(TextKind::Yaml, fx);
                return;
            }
        };
        let plural = view.resource.api_resource.plural.clone();
        let id = self.open_view(pods, scope.clone(), fx);
        if let Some(v) = self.views.get_mut(&id) {
            v.drilled_from = Some(format!("{plural}/{name}"));
            v.table.filters.drill = drill;
            v.table.refilter(None);
        }
        if let Some(rs) = feeder {
            let fid = self.open_view(rs, scope, fx);
            if let Some(f) = self.views.get_mut(&fid) {
                f.feeds = Some(OwnerFeed {
                    target: id,
                    root: uid,
                });
            }
        }
        self.stack.push(Screen::Table(id));
        self.scroll_current();
    }

    pub(crate) fn on_filter_key(&mut self, key: KeyEvent, mut input: Input) -> Mode {
        match key.code {
            KeyCode::Esc => {
                if let Some(id) = self.current_view_id() {
                    self.set_text_filter(id, "");
                }
                Mode::Normal
            }
            KeyCode::Enter => {
                let text = input.value().trim().to_string();
                if let Some(sel) = text.strip_prefix("-l") {
                    if let Some(id) = self.current_view_id() {
                        self.set_text_filter(id, "");
                        self.apply_label_filter(id, sel.trim());
                    }
                } else if let Some(id) = self.current_view_id() {
                    self.set_text_filter(id, &text);
                }
                Mode::Normal
            }
            _ => {
                input.handle_event(&Event::Key(key));
                let text = input.value().to_string();
                // Live substring/regex filtering while typing; `-l` waits for Enter.
                if !text.starts_with("-l")
                    && let Some(id) = self.current_view_id()
                {
                    self.set_text_filter(id, &text);
                }
                Mode::Filter { input }
            }
        }
    }

    pub(crate) fn set_text_filter(&mut self, id: ViewId, text: &str) {
        let parsed = if text.is_empty() {
            Ok(None)
        } else {
            TextFilter::parse(text).map(Some)
        };
        match parsed {
            Ok(f) => {
                if self
                    .message
                    .as_ref()
                    .is_some_and(|(m, e)| *e && m.starts_with("invalid regex"))
                {
                    self.message = None;
                }
                if let Some(v) = self.views.get_mut(&id) {
                    v.table.filters.text = f;
                    v.table.filters.text_raw = text.to_string();
                    let cands = Self::label_candidates(v);
                    v.table.refilter(cands);
                }
                self.scroll_current();
            }
            Err(e) => self.error(e),
        }
    }

    /// Candidates from the label index for the view's label filter (None: scan all rows).
    pub(crate) fn label_candidates(v: &mut ResourceView) -> Option<Vec<Arc<str>>> {
        let lf = v.table.filters.label.as_mut()?;
        let from_index = match v.store.as_ref() {
            Some(s) if !lf.index_terms.is_empty() => {
                let terms: Vec<&str> = lf.index_terms.iter().map(String::as_str).collect();
                s.index_keys_all(LABEL_INDEX, &terms).ok()
            }
            _ => None,
        };
        lf.from_index = from_index.is_some();
        // The store's keys are `namespace/name`, as the table's (a key the table has not
        // received yet is skipped by `refilter`).
        from_index
    }

    /// Parse and apply a label selector to a view (empty: clear). Invalid → inline error.
    pub fn apply_label_filter(&mut self, id: ViewId, text: &str) -> bool {
        let parsed = if text.trim().is_empty() {
            Ok(None)
        } else {
            LabelFilter::parse(text.trim()).map(Some)
        };
        match parsed {
            Ok(f) => {
                if let Some(v) = self.views.get_mut(&id) {
                    v.table.filters.label = f;
                    let cands = Self::label_candidates(v);
                    v.table.refilter(cands);
                }
                self.scroll_current();
                true
            }
            Err(e) => {
                self.error(format!("invalid label selector {text:?}: {e}"));
                false
            }
        }
    }

    pub(crate) fn render_table(&self, v: &ResourceView, area: Rect, buf: &mut Buffer) {
        let t = &v.table;
        let list = t.list();
        let stale = !self.connection.reachable;
        let title = format!(
            " {}({}){}[{}] ",
            capitalized(&v.resource.api_resource.plural),
            v.namespace
                .as_deref()
                .unwrap_or(if v.resource.namespaced { "all" } else { "-" }),
            v.drilled_from
                .as_deref()
                .map(|d| format!(" <{d}> "))
                .unwrap_or_default(),
            list.len()
        );
        let mut title_spans = vec![Span::styled(
            title,
            Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
        )];
        if stale {
            title_spans.push(Span::styled(
                " STALE ",
                Style::default().fg(Color::Black).bg(Color::Yellow),
            ));
        }
        let position = if list.is_empty() {
            " 0/0 ".to_string()
        } else {
            format!(" {}/{} ", t.cursor() + 1, list.len())
        };
        let block = Block::bordered()
            .border_style(Style::default().fg(if stale { Color::Yellow } else { Color::Blue }))
            .title(Line::from(title_spans).centered())
            .title_bottom(Line::from(position).right_aligned());
        let inner = block.inner(area);
        block.render(area, buf);

        let forbidden = v
            .error
            .as_ref()
            .filter(|(_, f)| *f)
            .map(|(m, _)| m.clone())
            .or_else(|| {
                self.informer_for(v)
                    .filter(|r| r.forbidden)
                    .map(|r| r.last_error.clone().unwrap_or_else(|| "forbidden".into()))
            });
        if let Some(msg) = forbidden {
            let text = vec![
                Line::styled(
                    format!(
                        "403 Forbidden: no permission to list/watch {} in {}",
                        v.resource.api_resource.plural,
                        v.namespace
                            .as_deref()
                            .map_or("all namespaces".to_string(), |n| format!("namespace {n}"))
                    ),
                    Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                ),
                Line::styled(
                    truncate(&msg, inner.width as usize).into_owned(),
                    Style::default().fg(DIM),
                ),
                Line::styled(
                    "Other views keep working: try :ns NAME or another resource.",
                    Style::default().fg(DIM),
                ),
            ];
            Paragraph::new(text).render(centered(inner, inner.width, 3), buf);
            return;
        }
        if let Some((msg, _)) = &v.error
            && list.is_empty()
        {
            Paragraph::new(Line::styled(
                format!("error: {msg}"),
                Style::default().fg(Color::Red),
            ))
            .render(inner, buf);
            return;
        }

        let all_ns = v.namespace.is_none() && v.resource.namespaced;
        let (sort, desc) = t.sort();
        let arrow = if desc { "↓" } else { "↑" };
        let mut headers: Vec<String> = Vec::with_capacity(v.columns.len() + 1);
        if all_ns {
            headers.push(format!(
                "NAMESPACE{}",
                if sort == SortBy::Key { arrow } else { "" }
            ));
        }
        for (i, c) in v.columns.iter().enumerate() {
            let sorted = sort == SortBy::Cell(i) || (sort == SortBy::Key && i == 0 && !all_ns);
            headers.push(format!("{}{}", c.name, if sorted { arrow } else { "" }));
        }

        let height = inner.height.saturating_sub(1) as usize;
        let n = list.len();
        let mut offset = t.offset.min(n.saturating_sub(height));
        if t.cursor() < offset {
            offset = t.cursor();
        } else if height > 0 && t.cursor() >= offset + height {
            offset = t.cursor() + 1 - height;
        }
        let window = &list[offset.min(n)..(offset + height).min(n)];
        let now_unix = self.now_ms.div_euclid(1000);

        // Cells of the visible rows only.
        let mut rows_text: Vec<(Vec<Cow<'_, str>>, Style, bool)> = Vec::with_capacity(window.len());
        for key in window {
            let Some(e) = t.entry(key) else { continue };
            let mut cells: Vec<Cow<'_, str>> = Vec::with_capacity(headers.len());
            if all_ns {
                cells.push(Cow::Borrowed(e.summary.namespace.as_deref().unwrap_or("")));
            }
            for i in 0..v.columns.len() {
                cells.push(
                    e.summary
                        .row
                        .cells
                        .get(i)
                        .map_or(Cow::Borrowed(""), |c| c.display(now_unix)),
                );
            }
            let style = mark_style(health_style(e.summary.row.health), e.mark_at(self.now_ms));
            let selected = t.selected_key().is_some_and(|s| s == key);
            rows_text.push((cells, style, selected));
        }
        let mut widths: Vec<u16> = headers.iter().map(|h| h.chars().count() as u16).collect();
        // Never narrower than what this view has shown before (stable while scrolling).
        for (w, seen) in widths.iter_mut().zip(&v.col_widths) {
            *w = (*w).max(*seen);
        }
        for (cells, _, _) in &rows_text {
            for (w, c) in widths.iter_mut().zip(cells) {
                *w = (*w).max(c.chars().count().min(60) as u16);
            }
        }
        if rows_text.is_empty() {
            for (w, c) in widths
                .iter_mut()
                .skip(usize::from(all_ns))
                .zip(v.columns.iter())
            {
                *w = (*w).max(c.min_width.min(20));
            }
        }
        let header = TRow::new(headers.into_iter().map(TCell::from)).style(
            Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
        );
        let rows = rows_text.into_iter().map(|(cells, style, selected)| {
            let style = if selected {
                style.add_modifier(Modifier::REVERSED)
            } else {
                style
            };
            TRow::new(cells.into_iter().map(|c| TCell::from(c.into_owned()))).style(style)
        });
        let constraints: Vec<Constraint> = widths.iter().map(|w| Constraint::Length(*w)).collect();
        Widget::render(
            Table::new(rows, constraints)
                .header(header)
                .column_spacing(2),
            inner,
            buf,
        );
        if n == 0 {
            let msg = if !v.synced && self.informer_for(v).is_none_or(|r| !r.synced) {
                "loading… (listing)".to_string()
            } else if v.table.filters.label.is_some() || !v.table.filters.text_raw.is_empty() {
                "no rows match the filter (esc clears it)".to_string()
            } else {
                format!("no {} here", v.resource.api_resource.plural)
            };
            let r = Rect {
                y: inner.y + 2.min(inner.height),
                height: inner.height.saturating_sub(2).min(1),
                ..inner
            };
            Paragraph::new(Line::styled(msg, Style::default().fg(DIM)).centered()).render(r, buf);
        }
        if n > height && height > 0 {
            let mut st = ScrollbarState::new(n.saturating_sub(height))
                .position(offset)
                .viewport_content_length(height);
            let sb_area = Rect {
                y: inner.y + 1,
                height: inner.height.saturating_sub(1),
                ..area
            };
            StatefulWidget::render(
                Scrollbar::new(ScrollbarOrientation::VerticalRight)
                    .begin_symbol(None)
                    .end_symbol(None),
                sb_area,
                buf,
                &mut st,
            );
        }
    }
}

/// `pods` → `Pods`, as k9s titles its tables.
fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn health_style(h: Health) -> Style {
    Style::default().fg(match h {
        Health::Ok => Color::Cyan,
        Health::Pending => Color::Yellow,
        Health::Warning => Color::LightYellow,
        Health::Error => Color::Red,
        Health::Terminating => Color::Magenta,
        Health::Completed => Color::DarkGray,
    })
}

fn mark_style(base: Style, m: Mark) -> Style {
    match m {
        Mark::None => base,
        Mark::Added => base.fg(Color::Black).bg(Color::Green),
        Mark::Updated => base.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        Mark::Deleted => Style::default()
            .fg(Color::Red)
            .add_modifier(Modifier::CROSSED_OUT | Modifier::DIM),
    }
}
