//! Rendering snapshots of the views a k9s user opens first: the aliases (`ctrl-a`), the
//! namespaces table (`:ns`) with the favourites in the header, and the footer of a key that does
//! nothing here; at 100×30.

mod ui_support;

use crossterm::event::KeyCode;
use kinformer::ui::AppConfig;
use kinformer::ui::action::Action;
use ui_support::*;

#[test]
fn aliases_view_lists_each_resource_with_its_aliases() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    connected(&mut app);
    app.update(ctrl('a'));
    insta::assert_snapshot!(draw(&mut app, 100, 30).backend());
}

#[test]
fn namespaces_table_and_favourites_in_the_header() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    connected(&mut app);
    // shop, then kube-system: favourites 1 and 2, most recent first.
    for ns in ["shop", "kube-system"] {
        app.update(key(':'));
        type_str(&mut app, &format!("ns {ns}"));
        app.update(code(KeyCode::Enter));
    }
    app.update(key(':'));
    type_str(&mut app, "ns");
    let fx = app.update(code(KeyCode::Enter));
    let (view, plural, _) = opened(&fx)[0].clone();
    assert_eq!(plural, "namespaces");
    app.update(Action::Resync {
        view,
        rows: vec![
            cluster_object("default", "Active"),
            cluster_object("kube-system", "Active"),
            cluster_object("shop", "Active"),
        ],
    });
    insta::assert_snapshot!(draw(&mut app, 100, 30).backend());
}

#[test]
fn a_shared_key_that_fits_nothing_here_is_explained_in_the_footer() {
    let cfg = AppConfig {
        resource: "services".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("web", "ClusterIP")]);
    connected(&mut app);
    app.update(key('s'));
    let t = draw(&mut app, 100, 30);
    let footer: String = (0..100)
        .map(|x| t.backend().buffer()[(x, 29)].symbol().to_string())
        .collect();
    assert_eq!(
        footer.trim_end(),
        " s: nothing to do on a Service (shell: pods and nodes · scale: deploy/sts/rs · suspend: cronjobs)"
    );
}

#[test]
fn contexts_table_marks_the_current_context() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    connected(&mut app);
    app.update(Action::Contexts(vec!["kind-demo".into(), "prod".into()]));
    app.update(Action::ContextRows(vec![
        kinformer::ui::action::ContextRow {
            name: "kind-demo".into(),
            cluster: "kind-demo".into(),
            user: "kind-admin".into(),
            namespace: Some("shop".into()),
        },
        kinformer::ui::action::ContextRow {
            name: "prod".into(),
            cluster: "prod-eu-1".into(),
            user: "sso-jane".into(),
            namespace: None,
        },
    ]));
    app.update(key(':'));
    type_str(&mut app, "ctx");
    app.update(code(KeyCode::Enter));
    insta::assert_snapshot!(draw(&mut app, 100, 12).backend());
}

/// Issue 39: the contexts view kept the previous view's informer line in the header.
#[test]
fn the_contexts_header_describes_the_contexts_not_the_table_beneath() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    connected(&mut app);
    app.update(Action::InformerStats(vec![informer_row(
        "pods",
        None,
        kinformer::ui::action::InformerState::Watching,
    )]));
    app.update(Action::Contexts(vec!["kind-demo".into(), "prod".into()]));
    let before = format!("{:?}", draw(&mut app, 100, 12).backend());
    assert!(before.contains("Informer:"), "{before}");
    app.update(key(':'));
    type_str(&mut app, "ctx");
    app.update(code(KeyCode::Enter));
    let text = format!("{:?}", draw(&mut app, 100, 12).backend());
    assert!(!text.contains("Informer:"), "{text}");
    assert!(text.contains("Contexts: 2 │ current kind-demo"), "{text}");
}
