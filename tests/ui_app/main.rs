//! `App::update` tests: every key path, and data arriving and leaving with the selection kept.

#[path = "../ui_support/mod.rs"]
mod ui_support;

use crossterm::event::KeyCode;
use kinformer::informer::delta_fifo::DeltaType;
use kinformer::informer::shared_informer::TapEntry;
use kinformer::ui::action::{
    Access, Action, ConnectionState, Denial, Effect, InformerState, ViewId,
};
use kinformer::ui::app::{Mode, Screen};
use kinformer::ui::operate::{Operation, Propagation};
use kinformer::ui::table::{Drill, Mark, SortBy};
use kinformer::ui::{App, AppConfig, KeyMap};
use ui_support::*;

fn three_pods() -> Vec<kinformer::ui::action::ObjectSummary> {
    vec![
        simple_pod("default", "web-2"),
        simple_pod("default", "api-1"),
        simple_pod("default", "db-0"),
    ]
}

fn labelled_pods() -> Vec<kinformer::ui::action::ObjectSummary> {
    vec![
        pod(PodSpec {
            name: "web-1",
            labels: &[("app", "web"), ("env", "prod")],
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "web-2",
            labels: &[("app", "web"), ("env", "stage"), ("canary", "true")],
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "web-3",
            labels: &[("app", "web"), ("env", "dev")],
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "db-0",
            labels: &[("app", "db"), ("env", "prod")],
            ..PodSpec::default()
        }),
    ]
}

/// The drill-down (`Effect::OpenResource { drill }`) each opened view was given.
fn drills(fx: &[Effect]) -> Vec<(ViewId, String, Option<Drill>)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::OpenResource {
                view,
                resource,
                drill,
                ..
            } => Some((*view, resource.api_resource.plural.clone(), drill.clone())),
            _ => None,
        })
        .collect()
}

fn header_filter_line(app: &App, view: ViewId) -> String {
    app.views[&view].drill_text().unwrap_or_default()
}

fn describe_with(app: &mut kinformer::ui::App, body: String) {
    let fx = app.update(key('d'));
    let Effect::FetchDescribe { request, .. } = fx[0].clone() else {
        panic!("{fx:?}")
    };
    app.update(Action::Describe {
        request,
        result: Ok(body),
    });
}

fn text_scroll(app: &kinformer::ui::App) -> usize {
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!()
    };
    t.scroll
}

fn tap(seq: u64, delta: DeltaType, tombstone: bool) -> TapEntry {
    TapEntry {
        seq,
        at: std::time::UNIX_EPOCH + std::time::Duration::from_millis(NOW_MS as u64 + seq),
        kind: "Pod".into(),
        delta,
        tombstone,
        key: format!("default/p{seq}").into(),
        resource_version: (1000 + seq).to_string(),
        queue_depth: 0,
        cluster: None,
    }
}

fn denial(verb: &str, message: &str) -> Denial {
    Denial::from_message(verb, message, Some(NOW_MS + 300_000))
}

const JANE_DEPLOY_ALL: &str = "deployments.apps is forbidden: User \"jane\" cannot list resource \"deployments\" in API group \"apps\" at the cluster scope";

const JANE_DEPLOY_BENCH: &str = "deployments.apps is forbidden: User \"jane\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"bench\"";

/// An initialised app whose first view has received nothing yet (no rows, no sync).
fn fresh_app(cfg: AppConfig) -> (App, ViewId, ViewId) {
    let mut app = App::new(cfg, KeyMap::defaults().unwrap());
    app.update(Action::Resize(120, 30));
    let fx = app.init();
    let views = opened(&fx);
    let ns_view = views.iter().find(|(_, p, _)| p == "namespaces").unwrap().0;
    (app, views[0].0, ns_view)
}

fn screen_text(app: &App) -> String {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(app.size.0, app.size.1)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

mod access;
mod bad_input;
mod command;
mod containers;
mod create;
mod drill;
mod k9s_keys;
mod labels;
mod marks;
mod namespaces;
mod nav_history;
mod safety;
mod screen;
mod stale;
mod table;
mod user_config;
mod verify;
mod views;
