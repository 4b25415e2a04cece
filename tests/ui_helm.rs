//! `:helm`: the releases table and a release's revisions (snapshots at 100×30), and the keys:
//! Enter, `v`/`V` values, `m` manifest, `n` notes, `d` and `space` diffs, leaving.

mod ui_support;

use crossterm::event::KeyCode;
use kinformer::helm::{Release, Revision, Storage, decode_release, encode_release};
use kinformer::ui::App;
use kinformer::ui::action::{Action, Effect};
use kinformer::ui::app::Screen;
use serde_json::json;
use ui_support::*;

/// Unix seconds `days` before the tests' clock.
fn days_ago(days: i64) -> Option<i64> {
    Some(NOW_MS / 1000 - days * 86_400)
}

fn revision(
    ns: &str,
    name: &str,
    n: u64,
    status: &str,
    chart: &str,
    app: &str,
    days: i64,
) -> Revision {
    Revision {
        namespace: ns.into(),
        name: name.into(),
        revision: n,
        status: status.into(),
        chart: chart.into(),
        app_version: app.into(),
        description: if n == 1 {
            "Install complete".into()
        } else {
            "Upgrade complete".into()
        },
        updated: days_ago(days),
        storage: Storage::Secret,
        object: format!("sh.helm.release.v1.{name}.v{n}"),
        error: None,
    }
}

fn revisions() -> Vec<Revision> {
    vec![
        revision(
            "default",
            "redis",
            1,
            "superseded",
            "redis-18.6.1",
            "7.2.3",
            20,
        ),
        revision(
            "default",
            "redis",
            2,
            "deployed",
            "redis-18.6.4",
            "7.2.4",
            6,
        ),
        revision("default", "web", 1, "superseded", "web-0.1.0", "1.0.0", 9),
        revision("default", "web", 2, "superseded", "web-0.2.0", "1.1.0", 5),
        revision("default", "web", 3, "failed", "web-0.3.0", "1.2.0", 1),
    ]
}

/// A release as helm stores it, decoded as the runtime decodes it.
fn release(name: &str, n: u64, replicas: u64) -> Box<Release> {
    let json = json!({
        "name": name, "namespace": "default", "version": n,
        "info": {"status": "deployed", "description": "Upgrade complete",
                 "notes": format!("{name} is ready on port 80")},
        "chart": {"metadata": {"name": name, "version": format!("0.{n}.0"), "appVersion": "1"},
                  "values": {"replicaCount": 1, "image": {"repository": "nginx", "tag": "1.25"}}},
        "config": {"replicaCount": replicas},
        "manifest": format!("---\nkind: Deployment\nspec:\n  replicas: {replicas}\n"),
    });
    Box::new(decode_release(&encode_release(&json)).unwrap())
}

/// The app with `:helm` open and the feed's rows in.
fn helm_app() -> App {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    connected(&mut app);
    run(&mut app, "helm");
    app.update(Action::HelmReleases(Ok(revisions())));
    app
}

/// `:helm` is a view command, as in k9s: `[` after another command comes back to it.
#[test]
fn helm_is_a_view_command_that_brackets_come_back_to() {
    let mut app = helm_app();
    run(&mut app, "deploy");
    assert!(!matches!(app.current_screen(), Some(Screen::Helm(_))));
    app.update(key('['));
    assert!(
        matches!(app.current_screen(), Some(Screen::Helm(_))),
        "{:?}",
        app.message
    );
}

fn run(app: &mut App, line: &str) -> Vec<Effect> {
    app.update(key(':'));
    type_str(app, line);
    app.update(code(KeyCode::Enter))
}

/// The storage objects the effects ask for, in order.
fn fetched(fx: &[Effect]) -> Vec<(u64, String)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::FetchHelmRelease {
                request, object, ..
            } => Some((*request, object.clone())),
            _ => None,
        })
        .collect()
}

fn text_lines(app: &App) -> Vec<String> {
    match app.current_screen() {
        Some(Screen::Text(t)) => match &t.lines {
            Some(Ok(l)) => l.clone(),
            other => panic!("no text: {other:?}"),
        },
        other => panic!("not a text screen: {other:?}"),
    }
}

#[test]
fn helm_watches_helms_storage_in_the_current_scope_or_the_one_named() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    let fx = run(&mut app, "helm");
    assert!(fx.contains(&Effect::WatchHelm {
        namespace: Some("default".into())
    }));
    assert!(matches!(app.current_screen(), Some(Screen::Helm(_))));
    let fx = run(&mut app, "helm all");
    assert!(fx.contains(&Effect::WatchHelm { namespace: None }));
    // One helm screen at a time.
    let helms = app
        .stack
        .iter()
        .filter(|s| matches!(s, Screen::Helm(_)))
        .count();
    assert_eq!(helms, 1);
}

#[test]
fn helm_releases_table_shows_the_latest_revision_of_each_release() {
    let mut app = helm_app();
    insta::assert_snapshot!(draw(&mut app, 100, 30).backend());
}

#[test]
fn helm_revisions_of_a_release_newest_first() {
    let mut app = helm_app();
    app.update(key('j'));
    app.update(code(KeyCode::Enter));
    insta::assert_snapshot!(draw(&mut app, 100, 30).backend());
}

#[test]
fn helm_says_why_when_the_releases_cannot_be_listed() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    run(&mut app, "helm");
    app.update(Action::HelmReleases(Err(
        "helm releases (Secrets of type helm.sh/release.v1): secrets is forbidden".into(),
    )));
    let screen = format!("{:?}", draw(&mut app, 100, 30).backend());
    assert!(screen.contains("secrets is forbidden"), "{screen}");
}

#[test]
fn enter_on_a_release_opens_its_revisions() {
    let mut app = helm_app();
    app.update(key('j'));
    app.update(code(KeyCode::Enter));
    let Some(Screen::Helm(h)) = app.current_screen() else {
        panic!("{:?}", app.current_screen())
    };
    assert_eq!(h.release, Some(("default".into(), "web".into())));
    let shown: Vec<u64> = h.rows().iter().map(|r| r.revision).collect();
    assert_eq!(shown, vec![3, 2, 1]);
}

#[test]
fn v_shows_the_user_values_and_shift_v_all_of_them() {
    let mut app = helm_app();
    let fx = app.update(key('v'));
    let [(request, object)] = fetched(&fx).try_into().unwrap();
    assert_eq!(object, "sh.helm.release.v1.redis.v2");
    app.update(Action::HelmRelease {
        request,
        result: Ok(release("redis", 2, 3)),
    });
    assert_eq!(
        text_lines(&app),
        ["USER-SUPPLIED VALUES:", "replicaCount: 3"]
    );
    app.update(code(KeyCode::Esc));
    let fx = app.update(key('V'));
    let [(request, _)] = fetched(&fx).try_into().unwrap();
    app.update(Action::HelmRelease {
        request,
        result: Ok(release("redis", 2, 3)),
    });
    assert_eq!(
        text_lines(&app),
        [
            "COMPUTED VALUES:",
            "image:",
            "  repository: nginx",
            "  tag: '1.25'",
            "replicaCount: 3"
        ]
    );
}

#[test]
fn m_shows_the_manifest_and_n_the_notes_of_the_selected_revision() {
    let mut app = helm_app();
    app.update(key('j'));
    app.update(code(KeyCode::Enter));
    app.update(key('j'));
    let fx = app.update(key('m'));
    let [(request, object)] = fetched(&fx).try_into().unwrap();
    assert_eq!(object, "sh.helm.release.v1.web.v2");
    app.update(Action::HelmRelease {
        request,
        result: Ok(release("web", 2, 2)),
    });
    assert!(text_lines(&app).contains(&"  replicas: 2".to_string()));
    app.update(code(KeyCode::Esc));
    let fx = app.update(key('n'));
    let [(request, _)] = fetched(&fx).try_into().unwrap();
    app.update(Action::HelmRelease {
        request,
        result: Ok(release("web", 2, 2)),
    });
    assert_eq!(text_lines(&app), ["NOTES:", "web is ready on port 80"]);
}

#[test]
fn a_release_that_cannot_be_read_says_why_in_its_text_screen() {
    let mut app = helm_app();
    let fx = app.update(key('m'));
    let [(request, _)] = fetched(&fx).try_into().unwrap();
    app.update(Action::HelmRelease {
        request,
        result: Err("sh.helm.release.v1.redis.v2: data.release is not gzip: bad header".into()),
    });
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!()
    };
    assert!(matches!(&t.lines, Some(Err(e)) if e.contains("not gzip")));
}

fn diff_lines(app: &App) -> Vec<String> {
    match app.current_screen() {
        Some(Screen::HistoryDiff(d)) => d.lines.iter().map(|l| format!("{l:?}")).collect(),
        other => panic!("not a diff: {other:?}"),
    }
}

#[test]
fn d_diffs_the_selected_revision_with_the_one_before_it() {
    let mut app = helm_app();
    app.update(key('j'));
    app.update(code(KeyCode::Enter));
    let fx = app.update(key('d'));
    let asked = fetched(&fx);
    let objects: Vec<&str> = asked.iter().map(|(_, o)| o.as_str()).collect();
    assert_eq!(
        objects,
        ["sh.helm.release.v1.web.v2", "sh.helm.release.v1.web.v3"]
    );
    // Answers in any order; the diff shows when both have come.
    app.update(Action::HelmRelease {
        request: asked[1].0,
        result: Ok(release("web", 3, 5)),
    });
    assert!(matches!(app.current_screen(), Some(Screen::Helm(_))));
    app.update(Action::HelmRelease {
        request: asked[0].0,
        result: Ok(release("web", 2, 2)),
    });
    let lines = diff_lines(&app);
    assert!(
        lines.contains(&"Removed(\"replicaCount: 2\")".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"Added(\"replicaCount: 5\")".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"Added(\"  replicas: 5\")".to_string()),
        "{lines:?}"
    );
    // The header says what a helm diff compares (not history's recorded fields).
    let screen = format!("{:?}", draw(&mut app, 120, 30).backend());
    assert!(
        screen.contains(
            "Compares: the two revisions' user-supplied values, then their rendered manifests"
        ),
        "{screen}"
    );
    assert!(!screen.contains("recorded fields"), "{screen}");
}

#[test]
fn space_marks_a_revision_and_d_diffs_it_with_the_selected_one() {
    let mut app = helm_app();
    app.update(key('j'));
    app.update(code(KeyCode::Enter));
    // Mark revision 3, select revision 1.
    app.update(code(KeyCode::Char(' ')));
    app.update(key('G'));
    let fx = app.update(key('d'));
    let objects: Vec<String> = fetched(&fx).into_iter().map(|(_, o)| o).collect();
    assert_eq!(
        objects,
        ["sh.helm.release.v1.web.v1", "sh.helm.release.v1.web.v3"]
    );
}

#[test]
fn the_first_revision_has_nothing_to_diff_against() {
    let mut app = helm_app();
    app.update(key('j'));
    app.update(code(KeyCode::Enter));
    app.update(key('G'));
    let fx = app.update(key('d'));
    assert!(fetched(&fx).is_empty());
    let (msg, error) = app.message.clone().unwrap();
    assert!(error && msg.contains("revision 1 is the first"), "{msg}");
}

#[test]
fn leaving_the_last_helm_screen_stops_the_feed() {
    let mut app = helm_app();
    app.update(code(KeyCode::Enter));
    let fx = app.update(code(KeyCode::Esc));
    assert!(
        !fx.contains(&Effect::UnwatchHelm),
        "the releases are still shown"
    );
    let fx = app.update(code(KeyCode::Esc));
    assert!(fx.contains(&Effect::UnwatchHelm));
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

#[test]
fn another_resource_from_the_helm_screen_stops_the_feed() {
    let mut app = helm_app();
    let fx = run(&mut app, "pods");
    assert!(fx.contains(&Effect::UnwatchHelm));
}
