//! Drawing the pulse: tiles, the per-cluster strip, cluster usage, the deltas-per-second
//! sparklines, the pods with the most restarts and the latest warnings.
//!
//! The panels below the tiles are sized by their content: the rates panel takes a row per
//! informer (at most half of the room left, the busiest informers when they do not all fit),
//! and the restarts and warnings lists take the rest, showing as many entries as fit.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Sparkline, Widget};

use super::{CLUSTER_SEP, Level, Pulse, PulseKind, percent};
use crate::ui::kit::truncate;

impl Pulse {
    /// Draw into `area` (pure: reads `self` only).
    pub fn draw(&self, now_unix: i64, area: Rect, buf: &mut Buffer) {
        let strip = if self.by_cluster.is_empty() {
            0
        } else {
            self.by_cluster.len() as u16 + 2
        };
        let [tiles, clusters, usage, rest] = Layout::vertical([
            Constraint::Length(7),
            Constraint::Length(strip),
            Constraint::Length(3),
            Constraint::Fill(1),
        ])
        .areas(area);
        let rates_h = self.rates_height(rest.height);
        let [spark, lists] =
            Layout::vertical([Constraint::Length(rates_h), Constraint::Fill(1)]).areas(rest);
        self.draw_tiles(tiles, buf);
        if strip > 0 {
            self.draw_clusters(clusters, buf);
        }
        self.draw_usage(usage, buf);
        self.draw_rates(spark, buf);
        // The restarts list as wide as its widest line (at most 45%), the warnings the rest.
        let rows = usize::from(lists.height.saturating_sub(2));
        let widest = self
            .restarts
            .iter()
            .rev()
            .take(rows)
            .map(|(n, key)| {
                let (main, place) = restart_line(*n, key);
                main.chars().count() + place.chars().count()
            })
            .max()
            .unwrap_or(0)
            .max(" Most restarts ".len());
        let left_w = u16::try_from(widest + 3)
            .unwrap_or(u16::MAX)
            .min(lists.width.saturating_mul(45) / 100);
        let [left, right] =
            Layout::horizontal([Constraint::Length(left_w), Constraint::Fill(1)]).areas(lists);
        self.draw_restarts(left, buf);
        self.draw_warnings(now_unix, right, buf);
    }

    fn draw_tiles(&self, area: Rect, buf: &mut Buffer) {
        let c = &self.counts;
        let bad = Style::default().fg(Color::Red).add_modifier(Modifier::BOLD);
        let warn = Style::default().fg(Color::Yellow);
        let ok = Style::default().fg(Color::Green);
        let kv = |k: &str, v: usize, style_if: Style| {
            let style = if v > 0 { style_if } else { Style::default() };
            Line::from(vec![
                Span::raw(format!("{k:<12}")),
                Span::styled(v.to_string(), style),
            ])
        };
        let tiles: Vec<(PulseKind, String, Vec<Line>)> = vec![
            (
                PulseKind::Pods,
                format!("Pods {}", c.pods),
                vec![
                    kv("Running", c.pods_by_phase[0], ok),
                    kv("Pending", c.pods_by_phase[1], warn),
                    kv("Failed", c.pods_by_phase[3], bad),
                    kv("Succeeded", c.pods_by_phase[2], Style::default()),
                    kv("Not ready", c.pods_not_ready, warn),
                ],
            ),
            (
                PulseKind::Deployments,
                format!("Deployments {}", c.deployments),
                vec![kv("Unavailable", c.deployments_unavailable, bad)],
            ),
            (
                PulseKind::Nodes,
                format!("Nodes {}", c.nodes),
                vec![
                    kv("NotReady", c.nodes_not_ready, bad),
                    kv("Cordoned", c.nodes_cordoned, warn),
                    kv("Pressure", c.nodes_pressure, warn),
                ],
            ),
            (
                PulseKind::Jobs,
                format!("Jobs {}", c.jobs),
                vec![
                    kv("Active", c.jobs_active, Style::default()),
                    kv("Failed", c.jobs_failed, bad),
                ],
            ),
            (
                PulseKind::Events,
                format!("Events {}", c.events),
                vec![kv("Warnings", c.warnings, warn)],
            ),
        ];
        let cols = Layout::horizontal([Constraint::Ratio(1, 5); 5]).split(area);
        for (i, (kind, title, lines)) in tiles.into_iter().enumerate() {
            let selected = kind == self.selected();
            let border = if selected {
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(Color::DarkGray)
            };
            let block = Block::default()
                .borders(Borders::ALL)
                .border_style(border)
                .title(Span::styled(format!(" {title} "), border));
            Paragraph::new(lines).block(block).render(cols[i], buf);
        }
    }

    /// The tiles' figures per cluster, one line each (several clusters only).
    fn draw_clusters(&self, area: Rect, buf: &mut Buffer) {
        let bad = Style::default().fg(Color::Red);
        let warn = Style::default().fg(Color::Yellow);
        let width = self
            .by_cluster
            .keys()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0);
        let part = |label: &str, n: usize, what: &str, v: usize, style: Style| {
            let mut spans = vec![Span::raw(format!("{label} {n:<6}"))];
            if v > 0 {
                spans.push(Span::styled(format!("{v} {what}"), style));
                spans.push(Span::raw("   "));
            } else {
                spans.push(Span::raw(format!("{:<w$}", "", w = what.len() + 5)));
            }
            spans
        };
        let lines: Vec<Line> = self
            .by_cluster
            .iter()
            .map(|(cluster, c)| {
                let marker = if self.current.as_deref() == Some(&**cluster) {
                    "▸"
                } else {
                    " "
                };
                let mut spans = vec![Span::styled(
                    format!("{marker}{cluster:<width$}  "),
                    Style::default().add_modifier(Modifier::BOLD),
                )];
                spans.extend(part("pods", c.pods, "not ready", c.pods_not_ready, warn));
                spans.extend(part(
                    "deploy",
                    c.deployments,
                    "unavailable",
                    c.deployments_unavailable,
                    bad,
                ));
                spans.extend(part("nodes", c.nodes, "NotReady", c.nodes_not_ready, bad));
                spans.extend(part("jobs", c.jobs, "failed", c.jobs_failed, bad));
                spans.extend(part("events", c.events, "warnings", c.warnings, warn));
                Line::from(spans)
            })
            .collect();
        Paragraph::new(lines)
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(" Per cluster "),
            )
            .render(area, buf);
    }

    fn draw_usage(&self, area: Rect, buf: &mut Buffer) {
        let c = self.usage_counts();
        let line = match (self.cluster_usage(), &self.metrics_note) {
            (Some(u), _) => {
                let cpu_m = crate::render::metrics::nanos_to_milli(u.cpu_n);
                let cpu_p = percent(cpu_m, Some(c.alloc_cpu_m));
                let mem_p = percent(u.mem, Some(c.alloc_mem));
                let style = |l: Level| match l {
                    Level::Critical => Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                    Level::Warn => Style::default().fg(Color::Yellow),
                    Level::Normal => Style::default().fg(Color::Green),
                };
                Line::from(vec![
                    Span::raw(format!("CPU {cpu_m}m / {}m  ", c.alloc_cpu_m)),
                    Span::styled(format!("{}%", cpu_p.display()), style(cpu_p.level())),
                    Span::raw(format!(
                        "    MEM {}Mi / {}Mi  ",
                        u.mem >> 20,
                        c.alloc_mem >> 20
                    )),
                    Span::styled(format!("{}%", mem_p.display()), style(mem_p.level())),
                ])
            }
            (None, Some(why)) => Line::styled(why.clone(), Style::default().fg(Color::DarkGray)),
            (None, None) => Line::styled(
                "metrics: waiting for the first poll",
                Style::default().fg(Color::DarkGray),
            ),
        };
        let title = match &self.current {
            Some(c) => format!(" Cluster usage ({c}) "),
            None => " Cluster usage ".to_string(),
        };
        Paragraph::new(line)
            .block(Block::default().borders(Borders::ALL).title(title))
            .render(area, buf);
    }

    /// Rows of the rates panel in `room` rows: a row per informer and its border when they fit
    /// with the lists' content; else at least half the room (the lists take the rest).
    pub(crate) fn rates_height(&self, room: u16) -> u16 {
        let informers = u16::try_from(self.rates.len()).unwrap_or(u16::MAX);
        let rates_want = informers.max(1).saturating_add(2);
        let entries = self.restarts.len().max(self.warnings.len()).max(1);
        let lists_want = u16::try_from(entries).unwrap_or(u16::MAX).saturating_add(2);
        let lists_min = 3.min(room);
        let cap = if rates_want.saturating_add(lists_want) <= room {
            rates_want
        } else {
            room.saturating_sub(lists_want).max(room / 2)
        };
        rates_want.min(cap).min(room.saturating_sub(lists_min))
    }

    fn draw_rates(&self, area: Rect, buf: &mut Buffer) {
        let block = Block::default()
            .borders(Borders::ALL)
            .title(" Deltas/s per informer (5 min) ");
        let inner = block.inner(area);
        block.render(area, buf);
        let rows = usize::from(inner.height);
        if rows == 0 {
            return;
        }
        let all: Vec<_> = self.rates.iter().collect();
        let labels = short_labels(all.iter().map(|(l, _)| l.as_str()));
        // Every informer when they fit, else the busiest of the window (in label order) and a
        // line saying how many quieter ones are left out.
        let mut shown: Vec<usize> = (0..all.len()).collect();
        let hidden = all.len().saturating_sub(rows);
        if hidden > 0 {
            let keep = rows.saturating_sub(1);
            shown.sort_by_key(|&i| {
                std::cmp::Reverse(all.get(i).map_or(0, |(_, r)| r.iter().sum::<u64>()))
            });
            shown.truncate(keep);
            shown.sort_unstable();
        }
        let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let label_w = widest.clamp(8, usize::from(inner.width / 2).max(8));
        // `label last/s` then the sparkline.
        let text_w = label_w + 8;
        for (row, i) in shown.iter().enumerate() {
            let (Some((_, ring)), Some(label)) = (all.get(*i), labels.get(*i)) else {
                continue;
            };
            let y = inner.y + row as u16;
            let last = ring.back().copied().unwrap_or(0);
            let text = format!("{:<label_w$} {last:>5}/s", truncate(label, label_w));
            buf.set_stringn(
                inner.x,
                y,
                &text,
                usize::from(inner.width),
                Style::default(),
            );
            let x = inner.x.saturating_add(text_w as u16 + 1);
            let w = (inner.x + inner.width).saturating_sub(x);
            let data: Vec<u64> = ring
                .iter()
                .rev()
                .take(usize::from(w))
                .rev()
                .copied()
                .collect();
            Sparkline::default()
                .data(&data)
                .style(Style::default().fg(Color::Cyan))
                .render(Rect::new(x, y, w, 1), buf);
        }
        if hidden > 0 {
            let y = inner.y + inner.height - 1;
            let more = hidden + 1;
            buf.set_stringn(
                inner.x,
                y,
                format!(
                    "… {more} quieter {}",
                    if more == 1 { "informer" } else { "informers" }
                ),
                usize::from(inner.width),
                Style::default().fg(Color::DarkGray),
            );
        }
    }

    fn draw_restarts(&self, area: Rect, buf: &mut Buffer) {
        let rows = usize::from(area.height.saturating_sub(2));
        let lines: Vec<Line> = self
            .restarts
            .iter()
            .rev()
            .take(rows)
            .map(|(n, key)| {
                let (main, place) = restart_line(*n, key);
                Line::from(vec![
                    Span::raw(main),
                    Span::styled(place, Style::default().fg(Color::DarkGray)),
                ])
            })
            .collect();
        Paragraph::new(lines)
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(" Most restarts "),
            )
            .render(area, buf);
    }

    /// The latest warnings, newest first, each message word-wrapped under the reason on at
    /// most two lines (as many warnings as fit).
    fn draw_warnings(&self, now_unix: i64, area: Rect, buf: &mut Buffer) {
        let rows = usize::from(area.height.saturating_sub(2));
        let width = usize::from(area.width.saturating_sub(2)).max(12);
        let mut lines: Vec<Line> = Vec::new();
        for ((_, key), w) in self.warnings.iter().rev() {
            let cluster = key
                .split_once(CLUSTER_SEP)
                .map(|(c, _)| format!("{c} "))
                .unwrap_or_default();
            let age = format!(
                "{:>5} ",
                crate::render::format_age(now_unix.saturating_sub(w.at))
            );
            let indent = " ".repeat(age.len());
            let text = format!("{} {cluster}{} {}", w.reason, w.object, w.message);
            let opts = textwrap::Options::new(width)
                .initial_indent(&age)
                .subsequent_indent(&indent);
            // At most two lines a warning (the second cut with `…`): more warnings show.
            let mut wrapped: Vec<String> = textwrap::wrap(&text, opts)
                .into_iter()
                .map(|l| l.into_owned())
                .collect();
            if wrapped.len() > 2 {
                wrapped.truncate(2);
                if let Some(last) = wrapped.last_mut() {
                    if last.chars().count() >= width {
                        last.pop();
                    }
                    last.push('…');
                }
            }
            if lines.len() + wrapped.len() > rows && !lines.is_empty() {
                break;
            }
            for (i, l) in wrapped.into_iter().enumerate() {
                // The reason in yellow after the age.
                let tail = (i == 0)
                    .then(|| {
                        l.strip_prefix(age.as_str())?
                            .strip_prefix(w.reason.as_str())
                    })
                    .flatten();
                match tail {
                    Some(tail) => lines.push(Line::from(vec![
                        Span::raw(age.clone()),
                        Span::styled(w.reason.clone(), Style::default().fg(Color::Yellow)),
                        Span::raw(tail.to_string()),
                    ])),
                    None => lines.push(Line::raw(l)),
                }
            }
        }
        Paragraph::new(lines)
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(" Latest warnings "),
            )
            .render(area, buf);
    }
}

/// A line of the restarts list: the count and the pod's name, then (dimmed) its cluster and
/// namespace, so that a narrow list cuts the namespace rather than the name.
fn restart_line(n: i64, key: &str) -> (String, String) {
    let (cluster, k) = key.split_once(CLUSTER_SEP).unwrap_or(("", key));
    let (ns, name) = k.split_once('/').unwrap_or(("", k));
    let place = [cluster, ns]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let place = if place.is_empty() {
        place
    } else {
        format!("  {place}")
    };
    (format!("{n:>5}  {name}"), place)
}

/// The informers' labels as the rates panel shows them: a group-qualified resource
/// (`customresourcedefinitions.apiextensions.k8s.io`) by its plural alone when no other
/// informer's resource has that plural (the scope and cluster suffixes stay).
fn short_labels<'a>(labels: impl Iterator<Item = &'a str>) -> Vec<String> {
    let labels: Vec<&str> = labels.collect();
    let resource = |l: &'a str| l.split(' ').next().unwrap_or(l);
    let plural = |r: &'a str| r.split('.').next().unwrap_or(r);
    let mut resources: Vec<&str> = labels.iter().map(|l| resource(l)).collect();
    resources.sort_unstable();
    resources.dedup();
    labels
        .iter()
        .map(|l| {
            let r = resource(l);
            let p = plural(r);
            let unique = resources.iter().filter(|o| plural(o) == p).count() == 1;
            if unique && p != r {
                format!("{p}{}", &l[r.len()..])
            } else {
                l.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_qualified_resource_shows_its_plural_when_no_other_informer_shares_it() {
        let labels = [
            "customresourcedefinitions.apiextensions.k8s.io",
            "deployments.apps (shop)",
            "deployments.apps",
            "widgets.demo.kinformer.io @prod",
            "widgets.other.io",
            "pods",
        ];
        assert_eq!(
            short_labels(labels.into_iter()),
            [
                "customresourcedefinitions",
                "deployments (shop)",
                "deployments",
                "widgets.demo.kinformer.io @prod",
                "widgets.other.io",
                "pods",
            ]
        );
    }
}
