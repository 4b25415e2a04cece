//! Several namespaces in one table: `:ns a,b`, space-marking rows in the namespaces table,
//! favourites holding a set, and the NAMESPACE column over them.

use super::*;

#[test]
fn ns_command_takes_several_namespaces_and_rejects_an_unknown_one() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "ns shop,nosuch");
    let fx = app.update(code(KeyCode::Enter));
    assert!(opened(&fx).is_empty());
    assert!(
        app.message
            .clone()
            .unwrap()
            .0
            .contains("unknown namespace: nosuch")
    );

    app.update(key(':'));
    type_str(&mut app, "ns shop,kube-system,shop");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("shop,kube-system"));
    assert_eq!(app.namespace.as_deref(), Some("shop,kube-system"));
    assert_eq!(
        app.message.clone().unwrap().0,
        "namespaces: shop,kube-system"
    );
    // The set is one favourite: `1` brings it back.
    assert_eq!(
        app.favourites.first().map(String::as_str),
        Some("shop,kube-system")
    );
    app.update(key(':'));
    type_str(&mut app, "ns default");
    app.update(code(KeyCode::Enter));
    let fx = app.update(key('2'));
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("shop,kube-system"));
}

#[test]
fn space_marks_namespaces_and_enter_shows_the_marked_ones_together() {
    let cfg = AppConfig {
        resource: "ns".into(),
        namespace: None,
        ..config()
    };
    let (mut app, ns_view) = app_with(
        cfg,
        vec![
            cluster_object("default", "Active"),
            cluster_object("kube-system", "Active"),
            cluster_object("shop", "Active"),
        ],
    );
    // A mark moves down, as in k9s; space on a marked row unmarks it.
    app.update(code(KeyCode::Down));
    app.update(key(' '));
    assert_eq!(selected(&app, ns_view).as_deref(), Some("shop"));
    app.update(key(' '));
    app.update(code(KeyCode::Up));
    app.update(code(KeyCode::Up));
    app.update(key(' '));
    assert_eq!(
        app.views[&ns_view].marked,
        ["kube-system", "shop", "default"]
    );
    app.update(key(' '));
    assert_eq!(app.views[&ns_view].marked, ["shop", "default"]);
    let fx = app.update(code(KeyCode::Enter));
    let views = opened(&fx);
    assert_eq!(views[0].1, "pods");
    assert_eq!(views[0].2.as_deref(), Some("shop,default"));
    assert_eq!(app.namespace.as_deref(), Some("shop,default"));
}

#[test]
fn a_table_of_several_namespaces_shows_their_namespace_column() {
    let cfg = AppConfig {
        namespace: Some("shop,payments".into()),
        ..config()
    };
    let (mut app, v) = app_with(
        cfg,
        vec![
            simple_pod("shop", "cart-0"),
            simple_pod("payments", "ledger-0"),
            simple_pod("shop", "web-1"),
        ],
    );
    connected(&mut app);
    app.update(Action::ScopeServed {
        view: v,
        served: "one pods informer per namespace (shop, payments)".into(),
    });
    assert_eq!(
        shown(&app, v),
        ["payments/ledger-0", "shop/cart-0", "shop/web-1"]
    );
    insta::assert_snapshot!(draw(&mut app, 100, 12).backend());
    // The informer panel says which informers serve it.
    app.update(key(':'));
    type_str(&mut app, "informers");
    app.update(code(KeyCode::Enter));
    let t = draw(&mut app, 100, 12);
    let text: String = t
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(
        text.contains("Scope: shop,payments │ one pods informer per namespace (shop, payments)"),
        "{text}"
    );
}
