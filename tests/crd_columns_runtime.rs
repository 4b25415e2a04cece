//! Custom resources through discovery and the runtime against the demo server over real HTTP:
//! discovery gives each custom resource the printer columns its CRD declares for the served
//! version (discovery itself does not carry them), and the Widgets view opens with them.
//! `HANG_GUARD` only turns a hang into a failure; no assertion on elapsed time.

mod runtime_support;

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent};
use kinformer::app_main::DemoSpec;
use kinformer::render::PrinterColumn;
use kinformer::ui::action::Action;
use runtime_support::headless_on_demo;

const HANG_GUARD: Duration = Duration::from_secs(90);

fn spec() -> DemoSpec {
    DemoSpec {
        port: 0,
        pods: 20,
        nodes: Some(2),
        churn_per_sec: 0.0,
        seed: 3,
        history: 1_000,
        metrics: false,
        namespace_user: None,
        pod_shape: kinformer::demo::realistic::PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 0.0,
    }
}

/// Issue 39: the demo's Widgets (and on a real API server any CRD's kind) showed NAMESPACE NAME
/// AGE; kubectl shows the CRD's `additionalPrinterColumns`.
#[tokio::test]
async fn discovery_gives_a_custom_resource_its_crds_printer_columns() {
    let mut s = headless_on_demo(&spec(), Duration::from_secs(60)).await;
    let widgets = kinformer::cluster::resolve(&s.app.resources, "widgets")
        .expect("the demo serves widgets")
        .clone();
    let pcs: &[PrinterColumn] = widgets.printer_columns.as_deref().expect("printer columns");
    let names: Vec<(&str, &str)> = pcs
        .iter()
        .map(|c| (c.name.as_str(), c.type_.as_str()))
        .collect();
    assert!(names.contains(&("Color", "string")), "{names:?}");
    assert!(names.contains(&("Phase", "string")), "{names:?}");
    assert!(names.contains(&("Age", "date")), "{names:?}");
    // `:widgets` opens a view with those columns, and its rows carry their cells.
    for c in ":widgets".chars() {
        s.app.update(Action::Key(KeyEvent::from(KeyCode::Char(c))));
    }
    let fx = s.app.update(Action::Key(KeyEvent::from(KeyCode::Enter)));
    for e in fx {
        s.rt.carry_out(e).await;
    }
    let view = s.app.current_view_id().expect("a table");
    let cols: Vec<String> = s.app.views[&view]
        .columns
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(cols[0], "NAME");
    assert!(
        cols.contains(&"COLOR".to_string()) && cols.contains(&"PHASE".to_string()),
        "{cols:?}"
    );
    let filled = tokio::time::timeout(HANG_GUARD, async {
        loop {
            let Some(a) = s.rt.next_action().await else {
                return false;
            };
            for e in s.app.update(a) {
                s.rt.carry_out(e).await;
            }
            let v = &s.app.views[&view];
            let color = cols.iter().position(|c| c == "COLOR").unwrap_or(0);
            if v.table.list().iter().any(|k| {
                v.table
                    .entry(k)
                    .and_then(|e| e.summary.row.cells.get(color))
                    .is_some_and(|c| !c.display(0).is_empty())
            }) {
                return true;
            }
        }
    })
    .await;
    assert_eq!(filled, Ok(true), "a widget row with its COLOR cell");
    s.rt.shutdown().await;
    s.demo.stop().await;
}
