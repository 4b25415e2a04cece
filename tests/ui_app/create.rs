//! Create and apply through `App::update`: `ctrl-n`, `:create KIND`, `:apply PATH`, read-only
//! mode, and the dry-run confirmation (its diff, a conflict's second question).

use super::*;
use kinformer::informer::history::DiffLine;
use kinformer::ui::apply::{ApplyPlan, ApplySource, PlannedApply, prepare_document};
use serde_json::json;

fn create_effect(fx: &[Effect]) -> (String, String) {
    match fx {
        [
            Effect::Create {
                resource,
                namespace,
                resources,
                reopen: None,
            },
        ] => {
            assert!(!resources.is_empty(), "the served kinds go with it");
            (resource.api_resource.kind.clone(), namespace.clone())
        }
        other => panic!("expected one Create, got {other:?}"),
    }
}

fn in_namespace(namespace: Option<&str>) -> App {
    let cfg = AppConfig {
        resource: "configmaps".into(),
        namespace: namespace.map(str::to_string),
        ..config()
    };
    app_with(cfg, Vec::new()).0
}

fn command(app: &mut App, line: &str) -> Vec<Effect> {
    app.update(key(':'));
    type_str(app, line);
    app.update(code(KeyCode::Enter))
}

#[test]
fn ctrl_n_opens_the_editor_on_the_tables_kind_in_the_current_namespace() {
    let mut app = in_namespace(Some("shop"));
    assert_eq!(
        create_effect(&app.update(ctrl('n'))),
        ("ConfigMap".into(), "shop".into())
    );
    let mut app = in_namespace(Some("shop,payments"));
    assert_eq!(
        create_effect(&app.update(ctrl('n'))).1,
        "shop",
        "a namespace set: its first"
    );
    let mut app = in_namespace(None);
    assert_eq!(
        create_effect(&app.update(ctrl('n'))).1,
        "default",
        "all namespaces: default"
    );
}

#[test]
fn create_kind_resolves_the_kind_as_colon_does_and_an_unknown_one_is_one_line() {
    let mut app = in_namespace(Some("shop"));
    assert_eq!(
        create_effect(&command(&mut app, "create deploy")).0,
        "Deployment"
    );
    assert_eq!(
        create_effect(&command(&mut app, "create secrets")).0,
        "Secret"
    );
    assert!(command(&mut app, "create gizmo").is_empty());
    assert_eq!(app.message.clone().unwrap().0, "create: unknown kind gizmo");
}

#[test]
fn apply_path_asks_for_the_dry_run_of_that_path() {
    let mut app = in_namespace(Some("shop"));
    match &command(&mut app, "apply /tmp/manifests")[..] {
        [
            Effect::ApplyFile {
                path, namespace, ..
            },
        ] => {
            assert_eq!(path, std::path::Path::new("/tmp/manifests"));
            assert_eq!(namespace, "shop");
        }
        other => panic!("{other:?}"),
    }
    assert!(command(&mut app, "apply").is_empty());
    assert!(app.message.clone().unwrap().0.contains(":apply PATH"));
}

#[test]
fn readonly_refuses_create_and_apply_before_anything_opens() {
    let cfg = AppConfig {
        resource: "configmaps".into(),
        readonly: true,
        ..config()
    };
    let (mut app, _) = app_with(cfg, Vec::new());
    let refused = "read-only mode: create and apply are disabled (started with --readonly)";
    assert!(app.update(ctrl('n')).is_empty());
    assert_eq!(app.message.clone().unwrap().0, refused);
    assert!(command(&mut app, "create cm").is_empty());
    assert!(command(&mut app, "apply /tmp/x.yaml").is_empty());
    assert_eq!(app.message.clone().unwrap().0, refused);
    // A plan arriving anyway opens no dialog.
    app.update(Action::ApplyPlan(Box::new(plan(&app, None))));
    assert!(matches!(app.mode, Mode::Normal));
}

/// A plan for one ConfigMap `shop/cfg` whose `mode` goes `slow` → `fast`.
fn plan(app: &App, conflict: Option<&str>) -> ApplyPlan {
    let doc = json!({"apiVersion": "v1", "kind": "ConfigMap",
                     "metadata": {"name": "cfg"}, "data": {"mode": "fast"}});
    let mut write = prepare_document(&app.resources, doc, "shop", false).unwrap();
    write.op = match write.op {
        Operation::Apply(mut a) => {
            a.dry_run = false;
            Operation::Apply(a)
        }
        op => op,
    };
    ApplyPlan {
        docs: vec![PlannedApply {
            write,
            exists: true,
            diff: vec![
                DiffLine::Hunk("@@ -1,5 +1,5 @@".into()),
                DiffLine::Same("apiVersion: v1".into()),
                DiffLine::Same("data:".into()),
                DiffLine::Removed("  mode: slow".into()),
                DiffLine::Added("  mode: fast".into()),
                DiffLine::Same("kind: ConfigMap".into()),
            ],
            conflict: conflict.map(str::to_string),
        }],
        source: ApplySource::Editor {
            text: "kind: ConfigMap\n".into(),
        },
    }
}

fn sent_force(fx: &[Effect]) -> bool {
    match fx {
        [Effect::Apply { writes, .. }] => match &writes[0].op {
            Operation::Apply(a) => {
                assert!(!a.dry_run);
                a.force
            }
            op => panic!("{op:?}"),
        },
        other => panic!("expected one Apply, got {other:?}"),
    }
}

#[test]
fn a_dry_run_plan_is_confirmed_before_the_apply_and_n_cancels() {
    let mut app = in_namespace(Some("shop"));
    let p = plan(&app, None);
    app.update(Action::ApplyPlan(Box::new(p.clone())));
    assert!(matches!(app.mode, Mode::ConfirmApply(_)));
    assert!(app.update(key('j')).is_empty(), "scrolling sends nothing");
    assert!(!sent_force(&app.update(key('y'))));
    assert!(matches!(app.mode, Mode::Normal));
    app.update(Action::ApplyPlan(Box::new(p)));
    assert!(app.update(key('n')).is_empty());
    assert_eq!(app.message.clone().unwrap().0, "apply cancelled");
}

#[test]
fn a_conflict_asks_a_second_time_and_then_sends_the_forced_apply() {
    let mut app = in_namespace(Some("shop"));
    app.update(Action::ApplyPlan(Box::new(plan(
        &app,
        Some("Apply failed with 1 conflict: conflict with \"other-team\": .data.mode"),
    ))));
    assert!(app.update(key('y')).is_empty(), "the first y asks again");
    let Mode::ConfirmApply(d) = &app.mode else {
        panic!("{:?}", app.mode)
    };
    assert!(d.force_asked);
    insta::assert_snapshot!("apply_force_question", draw(&mut app, 100, 16).backend());
    assert!(sent_force(&app.update(key('y'))));
}

#[test]
fn the_dry_run_diff_confirmation_shows_each_object_and_its_changes() {
    let mut app = in_namespace(Some("shop"));
    app.update(Action::ApplyPlan(Box::new(plan(&app, None))));
    insta::assert_snapshot!(draw(&mut app, 100, 16).backend());
    app.update(Action::ApplyPlan(Box::new(plan(
        &app,
        Some("Apply failed with 1 conflict: conflict with \"other-team\": .data.mode"),
    ))));
    insta::assert_snapshot!(
        "apply_conflict_first_question",
        draw(&mut app, 100, 16).backend()
    );
}

#[test]
fn a_refused_apply_from_the_editor_reopens_it_on_the_text_with_the_message() {
    let mut app = in_namespace(Some("shop"));
    let resource = app
        .resources
        .iter()
        .find(|r| r.api_resource.kind == "ConfigMap")
        .cloned()
        .unwrap();
    let fx = app.update(Action::ApplyRefused {
        resource: resource.clone(),
        text: "kind: ConfigMap\n".into(),
        message: "apply configmap shop/cfg: conflict (Conflict)".into(),
    });
    match &fx[..] {
        [
            Effect::Create {
                resource: r,
                namespace,
                reopen: Some(reopen),
                ..
            },
        ] => {
            assert_eq!((r, namespace.as_str()), (&resource, "shop"));
            assert_eq!(reopen.text, "kind: ConfigMap\n");
            assert_eq!(
                reopen.errors,
                ["apply configmap shop/cfg: conflict (Conflict)"]
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(app.message.clone().unwrap().0.contains("(Conflict)"));
}
