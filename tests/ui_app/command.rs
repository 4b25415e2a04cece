//! The command line (`:`), namespace and context switches, the text filter.

use super::*;

#[test]
fn tab_completes_the_command_line() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "inf");
    app.update(code(KeyCode::Tab));
    match &app.mode {
        Mode::Command { input, .. } => assert_eq!(input.value(), "informers"),
        m => panic!("{m:?}"),
    }
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.current_screen(), Some(Screen::Informers(_))));
}

/// An unknown kind asks discovery again once (it may come from kubectl's disk cache, hours
/// old): still unknown, it is one error line and nothing else changes.
#[test]
fn unknown_resource_asks_discovery_again_once_then_shows_an_inline_error() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "gizmos");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(fx, [Effect::Rediscover]);
    assert_eq!(
        app.message,
        Some((
            "gizmos: not in discovery; asking the server again".into(),
            false
        ))
    );
    let fx = app.update(Action::Discovery(
        kinformer::ui::resources::builtin_resources(),
    ));
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(
        app.message,
        Some(("unknown resource or command: gizmos".into(), true))
    );
    assert_eq!(app.current_view_id(), Some(v));
}

/// A CRD installed after discovery (or missing from a stale cache): the kind typed is found
/// when discovery is asked again, and its table opens.
#[test]
fn a_kind_discovery_learns_when_asked_again_opens() {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "buckets");
    assert_eq!(app.update(code(KeyCode::Enter)), [Effect::Rediscover]);
    let bucket = kinformer::cluster::ResourceInfo::from_api_resource(
        "s3.aws.demo.kinformer.io",
        "v1",
        &APIResource {
            name: "buckets".into(),
            kind: "Bucket".into(),
            namespaced: false,
            singular_name: "bucket".into(),
            verbs: vec!["list".into(), "watch".into(), "get".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let mut resources = kinformer::ui::resources::builtin_resources();
    resources.push(bucket);
    let fx = app.update(Action::Discovery(resources));
    assert_eq!(opened(&fx)[0].1, "buckets");
}

#[test]
fn ns_command_switches_namespace_and_rejects_unknown_ones() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "ns nosuch");
    let fx = app.update(code(KeyCode::Enter));
    assert!(fx.is_empty());
    assert!(
        app.message
            .clone()
            .unwrap()
            .0
            .contains("unknown namespace: nosuch")
    );

    app.update(key(':'));
    type_str(&mut app, "ns kube-system");
    let fx = app.update(code(KeyCode::Enter));
    assert!(fx.contains(&Effect::CloseView { view: v }));
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("kube-system"));
    assert_eq!(app.namespace.as_deref(), Some("kube-system"));

    assert_eq!(
        app.favourites.first().map(String::as_str),
        Some("kube-system")
    );

    app.update(key(':'));
    type_str(&mut app, "ns -A");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].2, None, ":ns -A = all namespaces");
    assert_eq!(app.namespace, None);

    // `:ns` alone: the namespaces table, as in k9s (Enter there switches).
    app.update(key(':'));
    type_str(&mut app, "ns");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].1, "namespaces");
    assert_eq!(app.namespace, None, "the scope is unchanged until Enter");
}

#[test]
fn ns_command_trusts_the_user_when_namespaces_cannot_be_listed() {
    let mut app = App::new(config(), KeyMap::defaults().unwrap());
    let fx = app.init();
    let ns_view = opened(&fx)
        .iter()
        .find(|(_, p, _)| p == "namespaces")
        .unwrap()
        .0;
    app.update(Action::ViewError {
        view: ns_view,
        message: "namespaces is forbidden".into(),
        forbidden: true,
    });
    app.update(key(':'));
    type_str(&mut app, "ns team-a");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("team-a"));
}

#[test]
fn ctx_command_switches_context_and_reopens_the_view() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(Action::Contexts(vec!["demo".into(), "prod".into()]));
    app.update(key(':'));
    type_str(&mut app, "ctx nope");
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    assert!(app.message.clone().unwrap().0.contains("unknown context"));
    app.update(key(':'));
    type_str(&mut app, "ctx prod");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(fx[0], Effect::SwitchContext("prod".into()));
    assert!(fx.contains(&Effect::CloseView { view: v }));
    assert!(opened(&fx).iter().any(|(_, p, _)| p == "pods"));
    assert_eq!(app.connection.context, "prod");
}

#[test]
fn ctx_with_an_unknown_name_says_so_and_lists_the_known_contexts_even_when_none_are_known() {
    // No contexts known (none read yet, or a kubeconfig without any): not "switched".
    let (mut app, _) = app_with(config(), three_pods());
    let current = app.connection.context.clone();
    app.update(key(':'));
    type_str(&mut app, "ctx nosuch");
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    let (msg, error) = app.message.clone().unwrap();
    assert_eq!(
        msg,
        r#"unknown context "nosuch": no context exists with that name (no contexts known)"#
    );
    assert!(error);
    assert_eq!(app.connection.context, current);
    // Known ones are listed.
    app.update(Action::Contexts(vec!["demo".into(), "prod".into()]));
    app.update(key(':'));
    type_str(&mut app, "ctx nosuch");
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    assert_eq!(
        app.message.clone().unwrap().0,
        r#"unknown context "nosuch": no context exists with that name (known: demo, prod)"#
    );
}

#[test]
fn quit_command_and_keys_quit() {
    for word in ["q", "quit", "q!"] {
        let (mut app, _) = app_with(config(), three_pods());
        app.update(key(':'));
        type_str(&mut app, word);
        assert_eq!(
            app.update(code(KeyCode::Enter)),
            vec![Effect::Quit],
            ":{word}"
        );
    }
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    assert_eq!(
        app.update(ctrl('c')),
        vec![Effect::Quit],
        "ctrl-c quits from any mode"
    );
}

#[test]
fn esc_cancels_the_command_line() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "deploy");
    assert!(app.update(code(KeyCode::Esc)).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
    app.update(key(':'));
    type_str(&mut app, "d");
    app.update(code(KeyCode::Backspace));
    assert!(matches!(app.mode, Mode::Command { .. }));
    app.update(code(KeyCode::Backspace));
    assert!(
        matches!(app.mode, Mode::Normal),
        "backspace on an empty line leaves"
    );
}

#[test]
fn text_filter_matches_substrings_live_and_regex_with_tilde() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key('/'));
    type_str(&mut app, "WEB");
    assert_eq!(shown(&app, v), ["default/web-2"], "live, case-insensitive");
    app.update(code(KeyCode::Enter));
    assert_eq!(selected(&app, v).as_deref(), Some("default/web-2"));
    // New matching rows join the filtered list; others stay hidden.
    app.update(Action::Rows {
        view: v,
        upserts: vec![simple_pod("default", "web-1"), simple_pod("default", "zzz")],
        deletes: vec![],
    });
    assert_eq!(shown(&app, v), ["default/web-1", "default/web-2"]);
    assert_eq!(selected(&app, v).as_deref(), Some("default/web-2"));
    app.update(code(KeyCode::Esc)); // clears the filter
    assert_eq!(shown(&app, v).len(), 5);
    app.update(key('/'));
    type_str(&mut app, "~^(api|db)-");
    app.update(code(KeyCode::Enter));
    assert_eq!(shown(&app, v), ["default/api-1", "default/db-0"]);
}

#[test]
fn invalid_regex_shows_an_inline_error() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key('/'));
    type_str(&mut app, "~(unclosed");
    app.update(code(KeyCode::Enter));
    // One line: what was typed and what is wrong (regex's own message is several lines).
    assert_eq!(
        app.message.clone().unwrap().0,
        "invalid regex /~(unclosed: unclosed group"
    );
    assert_eq!(shown(&app, v).len(), 3, "rows stay visible");
}

#[test]
fn q_is_back_in_a_detail_view_and_never_quits() {
    let (mut app, _) = app_with(config(), three_pods());
    describe_with(&mut app, "body\n".to_string());
    assert!(matches!(app.current_screen(), Some(Screen::Text(_))));
    let fx = app.update(key('q'));
    assert!(!fx.contains(&Effect::Quit), "{fx:?}");
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
    // On the root table with nothing to reset, q does nothing at all.
    assert!(app.update(key('q')).is_empty());
    assert!(!app.should_quit);
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

#[test]
fn q_resets_a_table_filter_and_never_quits() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key('/'));
    type_str(&mut app, "web");
    app.update(code(KeyCode::Enter));
    assert_eq!(shown(&app, v), ["default/web-2"]);
    let fx = app.update(key('q'));
    assert!(!fx.contains(&Effect::Quit), "{fx:?}");
    assert_eq!(shown(&app, v).len(), 3, "the filter is reset");
    assert!(!app.should_quit);
}

#[test]
fn no_exit_on_ctrl_c_from_the_k9s_config_keeps_ctrl_c_from_quitting() {
    let mut user = kinformer::config::UserConfig::default();
    user.settings.k9s_no_exit_on_ctrl_c = true;
    let cfg = AppConfig {
        user: std::sync::Arc::new(user),
        ..config()
    };
    let (mut app, _) = app_with(cfg, three_pods());
    assert!(!app.update(ctrl('c')).contains(&Effect::Quit));
    assert!(!app.should_quit);
    assert!(app.message.clone().unwrap().0.contains(":q quits"));
    app.update(key(':'));
    type_str(&mut app, "quit");
    assert_eq!(app.update(code(KeyCode::Enter)), vec![Effect::Quit]);
}

#[test]
fn pulses_is_an_alias_of_pulse() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "pulses");
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.current_screen(), Some(Screen::Pulse)));
}

/// The `:` prompt's line.
fn prompt_line(app: &App) -> String {
    match &app.mode {
        Mode::Command { input, .. } => input.value().to_string(),
        m => panic!("no command prompt: {m:?}"),
    }
}

#[test]
fn up_and_down_recall_earlier_commands_in_the_prompt() {
    let (mut app, _) = app_with(config(), three_pods());
    for line in ["nosuch1", "nosuch2", "nosuch2"] {
        app.update(key(':'));
        type_str(&mut app, line);
        app.update(code(KeyCode::Enter));
    }
    app.update(key(':'));
    type_str(&mut app, "x");
    app.update(code(KeyCode::Up));
    assert_eq!(prompt_line(&app), "nosuch2", "the last one first");
    app.update(code(KeyCode::Up));
    assert_eq!(
        prompt_line(&app),
        "nosuch1",
        "a line run twice in a row is kept once"
    );
    app.update(code(KeyCode::Up));
    assert_eq!(prompt_line(&app), "nosuch1", "the oldest stays");
    app.update(code(KeyCode::Down));
    assert_eq!(prompt_line(&app), "nosuch2");
    app.update(code(KeyCode::Down));
    assert_eq!(prompt_line(&app), "", "past the newest: an empty line");
    // A recalled line runs as typed.
    app.update(code(KeyCode::Up));
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.mode, Mode::Normal));
    assert!(
        app.message.clone().unwrap().0.contains("nosuch2"),
        "{:?}",
        app.message
    );
    // A fresh prompt starts from the newest again.
    app.update(key(':'));
    app.update(code(KeyCode::Up));
    assert_eq!(prompt_line(&app), "nosuch2");
}

fn run_line(app: &mut App, line: &str) -> Vec<Effect> {
    app.update(key(':'));
    type_str(app, line);
    app.update(code(KeyCode::Enter))
}

#[test]
fn a_resource_command_takes_a_namespace_or_all_as_k9s() {
    let (mut app, _) = app_with(config(), three_pods());
    let fx = run_line(&mut app, "pod shop");
    assert_eq!(
        opened(&fx)[0],
        (opened(&fx)[0].0, "pods".into(), Some("shop".into()))
    );
    assert_eq!(app.namespace.as_deref(), Some("shop"));
    let fx = run_line(&mut app, "pod -A");
    assert_eq!(opened(&fx)[0].2, None, ":pod -A = all namespaces");
    let fx = run_line(&mut app, "pod default,shop");
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("default,shop"));
    // An unknown namespace is refused as :ns refuses it, nothing opened.
    let fx = run_line(&mut app, "pod nosuch");
    assert!(opened(&fx).is_empty(), "{fx:?}");
    assert!(app.message.clone().unwrap().0.contains("unknown namespace"));
}

#[test]
fn a_resource_command_takes_a_slash_filter_as_k9s() {
    let (mut app, _) = app_with(config(), three_pods());
    let fx = run_line(&mut app, "pod /web");
    let id = opened(&fx)[0].0;
    assert_eq!(app.views[&id].table.filters.text_raw, "web");
    app.update(Action::Resync {
        view: id,
        rows: three_pods(),
    });
    assert_eq!(shown(&app, id), ["default/web-2"]);
}

#[test]
fn a_resource_command_takes_a_label_selector_as_k9s() {
    let (mut app, _) = app_with(config(), three_pods());
    let fx = run_line(&mut app, "pod app=fred,env=dev");
    let id = opened(&fx)[0].0;
    let label = app.views[&id]
        .table
        .filters
        .label
        .as_ref()
        .map(|l| l.text.clone());
    assert_eq!(label.as_deref(), Some("app=fred,env=dev"));
    assert_eq!(app.namespace.as_deref(), Some("default"), "the scope stays");
}

#[test]
fn a_resource_command_takes_a_context_as_k9s() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::Contexts(vec!["demo".into(), "ctx1".into()]));
    let fx = run_line(&mut app, "pod @ctx1");
    assert!(fx.contains(&Effect::SwitchContext("ctx1".into())), "{fx:?}");
    assert_eq!(app.connection.context, "ctx1");
    assert_eq!(
        app.current_view().unwrap().resource.api_resource.plural,
        "pods"
    );
    // A context the kubeconfig does not name: refused, nothing switched.
    let fx = run_line(&mut app, "pod @nosuch");
    assert!(!fx.iter().any(|e| matches!(e, Effect::SwitchContext(_))));
    assert!(app.message.clone().unwrap().0.contains("unknown context"));
}

#[test]
fn a_resource_command_combines_namespace_selector_and_filter_in_any_order() {
    let (mut app, _) = app_with(config(), three_pods());
    let fx = run_line(&mut app, "dp shop app=web");
    let (id, plural, ns) = opened(&fx)[0].clone();
    assert_eq!(
        (plural.as_str(), ns.as_deref()),
        ("deployments", Some("shop"))
    );
    let label = app.views[&id]
        .table
        .filters
        .label
        .as_ref()
        .map(|l| l.text.clone());
    assert_eq!(label.as_deref(), Some("app=web"));
    let fx = run_line(&mut app, "po /api app=web kube-system");
    let (id, _, ns) = opened(&fx)[0].clone();
    assert_eq!(ns.as_deref(), Some("kube-system"));
    let v = &app.views[&id];
    assert_eq!(v.table.filters.text_raw, "api");
    assert_eq!(v.table.filters.label.as_ref().unwrap().text, "app=web");
}

fn filter_with(app: &mut App, text: &str) {
    app.update(key('/'));
    type_str(app, text);
    app.update(code(KeyCode::Enter));
}

#[test]
fn slash_is_a_regular_expression_as_k9s() {
    let (mut app, v) = app_with(config(), three_pods());
    filter_with(&mut app, "API|db");
    assert_eq!(shown(&app, v), ["default/api-1", "default/db-0"]);
}

#[test]
fn slash_bang_keeps_the_rows_that_do_not_match() {
    let (mut app, v) = app_with(config(), three_pods());
    filter_with(&mut app, "!web");
    assert_eq!(shown(&app, v), ["default/api-1", "default/db-0"]);
    app.update(code(KeyCode::Esc));
    filter_with(&mut app, "!api|db");
    assert_eq!(shown(&app, v), ["default/web-2"]);
}

#[test]
fn slash_dash_f_is_a_fuzzy_match_on_the_name() {
    let (mut app, v) = app_with(config(), three_pods());
    filter_with(&mut app, "-f wb2");
    assert_eq!(shown(&app, v), ["default/web-2"]);
    app.update(code(KeyCode::Esc));
    filter_with(&mut app, "-f d0");
    assert_eq!(shown(&app, v), ["default/db-0"]);
}

#[test]
fn an_invalid_regex_after_slash_is_one_footer_message_and_hides_nothing() {
    let (mut app, v) = app_with(config(), three_pods());
    filter_with(&mut app, "web(");
    let (msg, error) = app.message.clone().unwrap();
    assert!(error);
    assert_eq!(msg, "invalid regex /web(: unclosed group");
    assert_eq!(shown(&app, v).len(), 3);
}

#[test]
fn literal_text_stays_a_substring_filter_and_metacharacters_make_a_regex() {
    use kinformer::ui::table::TextFilter;
    for literal in ["web-2", "10.0.0", "node_1", "Running"] {
        let parsed = TextFilter::parse(literal);
        // A dot is a metacharacter: `10.0.0` is a regex (matching what the substring would).
        let want_substring = !literal.contains('.');
        assert_eq!(
            matches!(parsed, Ok(TextFilter::Substring(_))),
            want_substring,
            "{literal}: {parsed:?}"
        );
    }
    assert!(matches!(
        TextFilter::parse("fred|blee"),
        Ok(TextFilter::Regex(_))
    ));
    assert!(matches!(TextFilter::parse("!x"), Ok(TextFilter::Not(_))));
    assert!(matches!(
        TextFilter::parse("-f x"),
        Ok(TextFilter::Fuzzy(_))
    ));
}

#[test]
fn help_typed_at_the_command_prompt_opens_the_help() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "help");
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.mode, Mode::Help { .. }), "{:?}", app.mode);
}
