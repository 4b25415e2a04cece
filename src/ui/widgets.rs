//! Rendering: `impl Widget for &App`. A pure function of the app state: no I/O, no locks, no
//! allocation proportional to the number of rows — only the visible window of a table is touched,
//! so 100k rows cost what 100 cost per frame.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::action::InformerState;
use super::app::{App, Mode, Screen, events_pane_rows};
use super::component::Component;
use super::keys::KeyAction;
use super::kit::{DIM, KEY, countdown, fit_message, hint_name, state_text, truncate};
use super::screens;
use super::screens::events::render_events;

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let prompt = matches!(self.mode, Mode::Command { .. } | Mode::Filter { .. });
        let screen = self.current_screen();
        // A full-screen log view takes the whole terminal (dialogs still open over it).
        if let Some(Screen::Logs(l)) = screen
            && l.view.fullscreen
            && !prompt
        {
            l.draw(area, buf, &self.ctx());
            screens::draw_dialog(self, area, buf);
            return;
        }
        let pane = self.show_events_pane && matches!(screen, Some(Screen::Table(_)));
        let [header, prompt_area, body, pane_area, footer] = Layout::vertical([
            // k9s's `ui.headless` and ctrl-e: no header.
            Constraint::Length(if self.chrome.header { 3 } else { 0 }),
            Constraint::Length(if prompt { 3 } else { 0 }),
            Constraint::Fill(1),
            Constraint::Length(if pane {
                events_pane_rows(area.height)
            } else {
                0
            }),
            Constraint::Length(1),
        ])
        .areas(area);
        self.render_header(header, buf);
        if prompt {
            self.render_prompt(prompt_area, buf);
        }
        screens::draw(self, screen, body, buf);
        self.draw_crumbs(body, buf);
        if pane && pane_area.height == 1 {
            screens::events::render_events_line(&self.events, pane_area, buf);
        } else if pane {
            render_events(
                &self.events,
                self.fleet
                    .is_fleet()
                    .then_some(self.connection.context.as_str()),
                self.listing_note().as_deref(),
                pane_area,
                buf,
                None,
            );
        }
        self.render_footer(footer, buf);
        screens::draw_dialog(self, area, buf);
    }
}

impl App {
    fn render_header(&self, area: Rect, buf: &mut Buffer) {
        let label = Style::default().fg(Color::Yellow);
        let value = Style::default()
            .fg(Color::White)
            .add_modifier(Modifier::BOLD);
        let c = &self.connection;
        let mut l1 = vec![
            Span::styled(" Context: ", label),
            Span::styled(
                if c.context.is_empty() {
                    "-"
                } else {
                    c.context.as_str()
                },
                value,
            ),
            Span::styled("  Server: ", label),
            Span::styled(c.server_version.as_deref().unwrap_or("?"), value),
            Span::styled("  Namespace: ", label),
            Span::styled(self.header_scope(), value),
        ];

        if self.fleet.is_fleet() {
            // Every selected cluster's state in place of the one context.
            let mut fleet = self.fleet_spans(label);
            fleet.extend(l1.drain(2..));
            l1 = fleet;
        }
        if let (Some(r), Some(at)) = (&self.replay, self.replay_instant()) {
            l1.push(Span::raw("  "));
            l1.push(Span::styled(
                r.banner(at),
                Style::default()
                    .fg(Color::Black)
                    .bg(Color::LightMagenta)
                    .add_modifier(Modifier::BOLD),
            ));
        } else if self.readonly {
            l1.push(Span::styled(
                "  [readonly]",
                Style::default().fg(Color::LightRed),
            ));
        }
        // k9s's namespace favourites (`0` all, `1`-`9` the most recently used), as many as fit,
        // then how many more there are (`+3 more`).
        let used: usize = l1.iter().map(Span::width).sum();
        let favs: Vec<(String, &str)> = std::iter::once("all")
            .chain(self.favourites.iter().map(String::as_str))
            .enumerate()
            .map(|(i, ns)| (format!("{}<{i}>", if i == 0 { "  " } else { " " }), ns))
            .collect();
        let width = |f: &(String, &str)| f.0.chars().count() + f.1.chars().count();
        let more = |n: usize| format!(" +{n} more");
        let mut shown = 0;
        let mut room = (area.width as usize).saturating_sub(used);
        for (i, f) in favs.iter().enumerate() {
            let after = favs.len() - i - 1;
            let tail = if after > 0 { more(after).len() } else { 0 };
            // This one, and the note for the rest if any (unless they all fit too).
            let rest: usize = favs[i..].iter().map(width).sum();
            if rest <= room {
                shown = favs.len();
                break;
            }
            if width(f) + tail > room {
                break;
            }
            room -= width(f);
            shown = i + 1;
        }
        for (k, n) in &favs[..shown] {
            l1.push(Span::styled(
                k.clone(),
                Style::default().fg(KEY).add_modifier(Modifier::BOLD),
            ));
            l1.push(Span::styled(n.to_string(), Style::default().fg(DIM)));
        }
        if shown < favs.len() && more(favs.len() - shown).len() <= room {
            l1.push(Span::styled(
                more(favs.len() - shown),
                Style::default().fg(DIM),
            ));
        }
        let screen = self.current_screen();
        // The informer and filter lines describe the screen on top, not the table beneath it.
        // The informer and filter lines describe the screen on top, not the table beneath it.
        if let Some([l2, l3]) = screens::header_lines(self, screen, label, value) {
            Paragraph::new(vec![Line::from(l1), l2, l3]).render(area, buf);
            return;
        }
        let mut l2 = vec![Span::styled(" Informer: ", label)];
        let view = self.current_view();
        if !c.reachable {
            l2.push(Span::styled(
                " UNREACHABLE ",
                Style::default()
                    .fg(Color::White)
                    .bg(Color::Red)
                    .add_modifier(Modifier::BOLD),
            ));
            l2.push(Span::styled(
                " STALE: cached data",
                Style::default()
                    .fg(Color::Yellow)
                    .add_modifier(Modifier::BOLD),
            ));
            if let Some(at) = c.retry_at_ms {
                l2.push(Span::styled(
                    format!(" retry in {}", countdown(self.now_ms, at)),
                    Style::default().fg(Color::Red),
                ));
            }
            if let Some(e) = &c.last_error {
                l2.push(Span::styled(
                    format!(" ({})", truncate(e, 60)),
                    Style::default().fg(DIM),
                ));
            }
        } else if let Some(v) = view {
            match self.informer_for(v) {
                _ if v.denial.is_some() => {
                    let d = v.denial.as_ref();
                    l2.push(Span::styled(
                        format!("{} ", crate::ui::action::resource_label(&v.resource)),
                        value,
                    ));
                    l2.push(Span::styled(
                        "forbidden: not started",
                        Style::default().fg(Color::Red),
                    ));
                    if let Some(at) = d.and_then(|d| d.retry_at_ms) {
                        l2.push(Span::raw(format!(
                            " │ access checked again in {} ({} now)",
                            countdown(self.now_ms, at),
                            self.keys.key_for(KeyAction::Retry)
                        )));
                    }
                }
                Some(r) => {
                    let st = state_text(&r.state, self.now_ms);
                    let st_style = match r.state {
                        InformerState::Watching => Style::default().fg(Color::Green),
                        InformerState::BackingOff { .. } | InformerState::Forbidden { .. } => {
                            Style::default().fg(Color::Red)
                        }
                        _ => Style::default().fg(Color::Yellow),
                    };
                    l2.push(Span::styled(format!("{} ", r.resource), value));
                    // A relist keeps the previous list's rows: say it is one.
                    let st = match (&r.state, &r.progress) {
                        (InformerState::Listing, Some(_)) if r.synced => "relisting".to_string(),
                        _ => st,
                    };
                    l2.push(Span::styled(st, st_style));
                    // While listing: what has arrived, of how many, and how fast.
                    // Several clusters: the table holds every member's objects, so the count
                    // sums the same informer of each (the state and RV are the current one's).
                    let (cached, clusters) = if self.fleet.is_fleet() {
                        self.informers
                            .iter()
                            .filter(|m| {
                                m.cluster.is_some()
                                    && m.resource == r.resource
                                    && m.namespace == r.namespace
                            })
                            .fold((r.cached, 1), |(n, c), m| (n + m.cached, c + 1))
                    } else {
                        (r.cached, 1)
                    };
                    let counts = match &r.progress {
                        Some(p) => format!(" │ {}", p.text()),
                        None => format!(
                            " │ {} {}{} │ {:.1} ev/s",
                            crate::ui::listing::thousands(u64::try_from(cached).unwrap_or(0)),
                            if cached == 1 { "object" } else { "objects" },
                            if clusters > 1 {
                                format!(" in {clusters} clusters")
                            } else {
                                String::new()
                            },
                            r.deltas_per_sec
                        ),
                    };
                    l2.push(Span::raw(format!(
                        "{counts} │ RV {}{}",
                        if r.last_rv.is_empty() {
                            "-"
                        } else {
                            &r.last_rv
                        },
                        if r.progress.is_some() {
                            " │ syncing"
                        } else if r.synced && r.stale {
                            // After an outage: not confirmed current until the watch delivers
                            // or the history check passes.
                            " │ stale"
                        } else if r.synced {
                            " │ synced"
                        } else if r.forbidden {
                            ""
                        } else {
                            " │ syncing"
                        }
                    )));
                    if let Some(reset) = &r.history_reset {
                        l2.push(Span::styled(
                            format!(" │ {reset}"),
                            Style::default().fg(Color::Yellow),
                        ));
                    }
                }
                None => l2.push(Span::styled("starting", Style::default().fg(Color::Yellow))),
            }
        }
        let mut l3 = vec![Span::styled(" Filter: ", label)];
        match view.filter(|_| matches!(screen, Some(Screen::Table(_)))) {
            Some(v) => {
                let f = &v.table.filters;
                let mut any = false;
                let so_far = self.listing(v) || v.table.filtering();
                if !f.text_raw.is_empty() {
                    l3.push(Span::styled(format!("/{}  ", f.text_raw), value));
                    if so_far {
                        let n = v.table.list().len();
                        l3.push(Span::raw(format!(
                            "({n} {} so far)  ",
                            if n == 1 { "match" } else { "matches" }
                        )));
                    }
                    if f.text_invalid {
                        l3.push(Span::styled(
                            "(invalid, not applied)  ",
                            Style::default().fg(Color::LightRed),
                        ));
                    }
                    any = true;
                }
                if let Some(l) = &f.label {
                    l3.push(Span::styled(format!("-l {}", l.text), value));
                    let n = v.table.list().len();
                    l3.push(Span::raw(format!(
                        " ({n} {}{}, {})  ",
                        if n == 1 { "match" } else { "matches" },
                        if so_far { " so far" } else { "" },
                        if l.from_index { "label index" } else { "scan" }
                    )));
                    any = true;
                }
                if let Some(d) = v.drill_text() {
                    l3.push(Span::styled(d, value));
                    any = true;
                }
                if f.faults {
                    l3.push(Span::styled(
                        "  faulty rows only (ctrl-z: all)",
                        Style::default().fg(Color::LightRed),
                    ));
                    any = true;
                }
                if !any {
                    l3.push(Span::styled("none", Style::default().fg(DIM)));
                }
            }
            None => l3.push(Span::styled("none", Style::default().fg(DIM))),
        }
        Paragraph::new(vec![Line::from(l1), Line::from(l2), Line::from(l3)]).render(area, buf);
    }

    /// The namespace scope of what is shown: the table on top's own scope (a drill-down or a
    /// view opened in another namespace keeps its own), else the app's current namespace.
    fn header_scope(&self) -> &str {
        match (self.current_screen(), self.current_view()) {
            (Some(Screen::Table(_) | Screen::Text(_)), Some(v)) => match &v.namespace {
                Some(ns) => ns,
                None if v.resource.namespaced => "all",
                // A cluster-scoped table (nodes, namespaces): the scope the next views open in.
                None => self.namespace.as_deref().unwrap_or("all"),
            },
            _ => self.namespace.as_deref().unwrap_or("all"),
        }
    }

    fn render_prompt(&self, area: Rect, buf: &mut Buffer) {
        if let Mode::Command { input: p } | Mode::Filter { input: p } = &self.mode {
            p.draw(area, buf, &self.ctx());
        }
    }

    fn render_footer(&self, area: Rect, buf: &mut Buffer) {
        // The demo cluster's seeding, until it is done (only an error goes over it).
        if let Some(s) = &self.demo_seeding
            && !matches!(self.message, Some((_, true)))
        {
            let text = format!(
                "demo cluster: seeding {} pods… {}%",
                crate::ui::listing::thousands(u64::try_from(s.pods).unwrap_or(u64::MAX)),
                s.percent
            );
            let text = fit_message(&text, usize::from(area.width).saturating_sub(1));
            Paragraph::new(Line::styled(
                format!(" {text}"),
                Style::default().fg(Color::Yellow),
            ))
            .render(area, buf);
            return;
        }
        if let Some((msg, err)) = &self.message {
            let style = if *err {
                Style::default().fg(Color::White).bg(Color::Red)
            } else {
                Style::default().fg(Color::Green)
            };
            let text = fit_message(msg, usize::from(area.width).saturating_sub(1));
            Paragraph::new(Line::styled(format!(" {text}"), style)).render(area, buf);
            return;
        }
        let actions: Vec<KeyAction> =
            screens::hints(self, self.current_screen()).unwrap_or_else(|| {
                self.keys
                    .bindings()
                    .iter()
                    // A plugin's hint shows where it applies (its scopes).
                    .filter(|b| {
                        b.hint
                            && (!matches!(b.action, KeyAction::Plugin(_))
                                || self.key_applies(b.action))
                    })
                    .map(|b| b.action)
                    .collect()
            });
        let mut spans = Vec::new();
        let mut used = 0usize;
        for a in actions {
            let Some(b) = self.keys.bindings().iter().find(|b| b.action == a) else {
                continue;
            };
            let Some(k) = b.keys.first() else { continue };
            // On a YAML or describe screen `/` searches the text.
            let name = match (a, self.current_screen()) {
                (KeyAction::Filter, Some(Screen::Text(_))) => "search",
                // A plugin or hotkey is named by its description.
                (KeyAction::Plugin(_) | KeyAction::HotKey(_), _) => b.help.as_str(),
                _ => hint_name(a),
            };
            let key = format!(" <{k}>");
            // Whole hints only: the ones that do not fit are left out, not cut.
            let width = key.chars().count() + name.chars().count();
            if used + width > area.width as usize {
                break;
            }
            used += width;
            spans.push(Span::styled(
                key,
                Style::default()
                    .fg(self.theme.key)
                    .add_modifier(Modifier::BOLD),
            ));
            spans.push(Span::styled(name, Style::default().fg(self.theme.menu)));
        }
        Paragraph::new(Line::from(spans)).render(area, buf);
    }
}
