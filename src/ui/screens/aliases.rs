//! The aliases view (`ctrl-a`, `:aliases`, as k9s's): every resource the server serves with the
//! names `:` accepts for it — plural, singular, kubectl's short names and k9s's own aliases
//! ([`K9S_ALIASES`]) — sorted by name; Enter opens the resource's table.
//!
//! A k9s user's own aliases (`aliases.yaml`, [`crate::config::aliases`]) are listed with the
//! kind they open, with their arguments when they carry some (`web (default app=web)`).

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::widgets::{Row, Table, Widget};

use crate::cluster::ResourceInfo;
use crate::config::Aliases;
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::cursor::{moved_cursor, scrolled_to};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{header_style, screen_block, widest};

/// k9s's built-in aliases beyond kubectl's short names (k9s `internal/config/alias.go`):
/// alias → `plural.group` (or a core plural).
pub const K9S_ALIASES: [(&str, &str); 9] = [
    ("dp", "deployments.apps"),
    ("sec", "secrets"),
    ("jo", "jobs.batch"),
    ("cr", "clusterroles.rbac.authorization.k8s.io"),
    ("crb", "clusterrolebindings.rbac.authorization.k8s.io"),
    ("ro", "roles.rbac.authorization.k8s.io"),
    ("rb", "rolebindings.rbac.authorization.k8s.io"),
    ("np", "networkpolicies.networking.k8s.io"),
    ("ev", "events"),
];

/// The footer hints of the screen.
pub const HINTS: [KeyAction; 4] = [
    KeyAction::Enter,
    KeyAction::Back,
    KeyAction::Command,
    KeyAction::Help,
];

/// The aliases screen's own state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AliasesView {
    pub cursor: usize,
    pub scroll: usize,
}

/// One row: the resource, its `group/version`, and the names that open it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasRow {
    pub resource: String,
    pub group_version: String,
    pub names: Vec<String>,
}

/// The `plural.group` a resource is known by (`pods` for the core group).
fn full_name(r: &ResourceInfo) -> String {
    let ar = &r.api_resource;
    if ar.group.is_empty() {
        ar.plural.clone()
    } else {
        format!("{}.{}", ar.plural, ar.group)
    }
}

/// The rows of the aliases view for `resources` (discovery's list) and the user's aliases,
/// sorted by resource.
pub fn alias_rows(resources: &[ResourceInfo], user: &Aliases) -> Vec<AliasRow> {
    // The user's aliases by the `plural.group` they open.
    let mut mine: Vec<(String, String)> = Vec::new();
    for a in user.iter() {
        if let Some(Ok(e)) = user.expand(&a.name)
            && let Some(r) = crate::ui::resources::resolve(resources, &e.resource)
        {
            let args: Vec<&str> = a.target.split_whitespace().skip(1).collect();
            let shown = if args.is_empty() {
                a.name.clone()
            } else {
                format!("{} ({})", a.name, args.join(" "))
            };
            mine.push((full_name(r), shown));
        }
    }
    let mut rows: Vec<AliasRow> = resources
        .iter()
        .map(|r| {
            let full = full_name(r);
            let mut names: Vec<String> = Vec::new();
            let mut add = |n: &str| {
                if !n.is_empty() && !names.iter().any(|x| x == n) {
                    names.push(n.to_string());
                }
            };
            add(&r.api_resource.plural);
            add(&r.singular);
            for s in &r.short_names {
                add(s);
            }
            for (alias, target) in K9S_ALIASES {
                if target == full {
                    add(alias);
                }
            }
            for (target, shown) in &mine {
                if *target == full {
                    add(shown);
                }
            }
            let ar = &r.api_resource;
            AliasRow {
                resource: full,
                group_version: if ar.group.is_empty() {
                    ar.version.clone()
                } else {
                    format!("{}/{}", ar.group, ar.version)
                },
                names,
            }
        })
        .collect();
    rows.sort_by(|a, b| a.resource.cmp(&b.resource));
    rows.dedup_by(|a, b| a.resource == b.resource);
    rows
}

/// A k9s alias's target, if `name` is one.
pub fn k9s_alias(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    K9S_ALIASES
        .iter()
        .find(|(a, _)| *a == lower)
        .map(|(_, target)| *target)
}

impl Component for AliasesView {
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        match action {
            KeyAction::Enter => {
                let rows = alias_rows(ctx.resources, &ctx.user.aliases);
                match rows
                    .get(self.cursor)
                    .and_then(|row| crate::ui::resources::resolve(ctx.resources, &row.resource))
                {
                    Some(r) => Outcome::Ask(Request::ResetTo(Box::new(r.clone()))),
                    None => Outcome::Consumed,
                }
            }
            KeyAction::Back | KeyAction::Quit | KeyAction::Command | KeyAction::Help => {
                Outcome::NotConsumed
            }
            // The resource table's keys do not apply here.
            _ => Outcome::Consumed,
        }
    }

    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        let len = alias_rows(ctx.resources, &ctx.user.aliases).len();
        let page = ctx.table_height.max(1);
        self.cursor = moved_cursor(action, n, self.cursor, len);
        self.scroll = scrolled_to(self.cursor, self.scroll, page);
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        render_aliases(self, ctx, area, buf)
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}

fn render_aliases(view: &AliasesView, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    {
        let rows = alias_rows(ctx.resources, &ctx.user.aliases);
        let block = screen_block(format!(" Aliases[{}] ", rows.len()), ctx.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        let page = inner.height.saturating_sub(1) as usize;
        let scroll = scrolled_to(view.cursor, view.scroll, page.max(1));
        let body = rows
            .iter()
            .enumerate()
            .skip(scroll)
            .take(page)
            .map(|(i, r)| {
                let style = Style::default().fg(ctx.theme.ok);
                let style = if i == view.cursor {
                    ctx.theme.selected(style)
                } else {
                    style
                };
                // The plural is the RESOURCE column: the other names are the aliases.
                let plural = r.resource.split('.').next().unwrap_or(&r.resource);
                let aliases: Vec<&str> = r
                    .names
                    .iter()
                    .map(String::as_str)
                    .filter(|n| *n != plural)
                    .collect();
                Row::new(vec![
                    plural.to_string(),
                    aliases.join(", "),
                    r.group_version.clone(),
                ])
                .style(style)
            });
        let header = Row::new(vec![
            "RESOURCE",
            "ALIASES (:alias opens it)",
            "GROUP/VERSION",
        ])
        .style(header_style(ctx.theme));
        let resource_w = widest(
            &rows,
            |r| r.resource.split('.').next().unwrap_or("").len(),
            8,
        );
        let group_w = widest(&rows, |r| r.group_version.len(), 13);
        Table::new(
            body,
            [
                Constraint::Length(resource_w),
                Constraint::Fill(1),
                Constraint::Length(group_w),
            ],
        )
        .header(header)
        .render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::resources::builtin_resources;

    #[test]
    fn rows_list_kubectl_short_names_and_k9s_aliases() {
        let rows = alias_rows(&builtin_resources(), &Aliases::default());
        let dp = rows
            .iter()
            .find(|r| r.resource == "deployments.apps")
            .expect("deployments listed");
        assert_eq!(dp.group_version, "apps/v1");
        assert!(dp.names.contains(&"deploy".to_string()), "{dp:?}");
        assert!(dp.names.contains(&"dp".to_string()), "{dp:?}");
        let sec = rows
            .iter()
            .find(|r| r.resource == "secrets")
            .expect("secrets");
        assert!(sec.names.contains(&"sec".to_string()), "{sec:?}");
        assert!(rows.windows(2).all(|w| w[0].resource < w[1].resource));
    }

    #[test]
    fn a_users_aliases_are_listed_with_the_kind_they_open_and_their_arguments() {
        let mut user = Aliases::default();
        crate::config::aliases::parse_into(
            "aliases:\n  pp: v1/pods\n  web: pp default app=web\n  zz: v1/nopes\n",
            std::path::Path::new("a.yaml"),
            &mut user,
        )
        .unwrap();
        let rows = alias_rows(&builtin_resources(), &user);
        let pods = rows.iter().find(|r| r.resource == "pods").unwrap();
        assert!(pods.names.contains(&"pp".to_string()), "{pods:?}");
        assert!(
            pods.names.contains(&"web (default app=web)".to_string()),
            "{pods:?}"
        );
        assert!(!rows.iter().any(|r| r.names.iter().any(|n| n == "zz")));
    }

    #[test]
    fn k9s_aliases_resolve_case_insensitively() {
        assert_eq!(k9s_alias("DP"), Some("deployments.apps"));
        assert_eq!(k9s_alias("nope"), None);
    }
}
