//! Create and apply (`ctrl-n`, `:create`, `:apply`): the scripted editor on a template, the
//! dry run and its diff, conflicts with another field manager and `force`, manifests of
//! several documents. Only the server's behaviour is asserted (it runs against a real cluster).

use super::*;
use k8s_openapi::api::core::v1::Secret;
use kinformer::informer::history::DiffLine;
use kinformer::runtime::apply::{Prepared, apply_writes, create_loop, plan_paths};
use kinformer::ui::apply::ApplyPlan;

/// A scripted `$EDITOR`: `sh` running `body` with the file as `$1`.
fn editor_script(s: &Setup, name: &str, body: &str) -> Vec<String> {
    let path = s._dir.path().join(name);
    std::fs::write(&path, body).unwrap();
    vec!["sh".into(), path.display().to_string()]
}

fn plan(p: Prepared) -> ApplyPlan {
    match p {
        Prepared::Plan(plan) => plan,
        Prepared::Done(o) => panic!("no plan: {o:?}"),
    }
}

fn added(plan: &ApplyPlan, i: usize) -> Vec<String> {
    plan.docs[i]
        .diff
        .iter()
        .filter_map(|l| match l {
            DiffLine::Added(t) => Some(t.trim().to_string()),
            _ => None,
        })
        .collect()
}

fn managers(cm: &ConfigMap) -> Vec<(String, String)> {
    cm.metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|m| {
            (
                m.manager.clone().unwrap_or_default(),
                m.operation.clone().unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configmap_made_from_the_template_is_dry_run_shown_and_then_applied() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let info = s.resource("configmaps");
    let fill = editor_script(
        &s,
        "fill.sh",
        "sed -i -e 's/name: .*/name: made/' -e 's/key: value/colour: blue/' \"$1\"\n",
    );
    let mut shown = String::new();
    let prepared = create_loop(client.clone(), &s.resources, &info, &s.ns, None, |p| {
        shown = std::fs::read_to_string(p)?;
        run_editor(&fill, p)
    })
    .await;
    assert!(
        shown.starts_with("# A new ConfigMap in namespace"),
        "{shown}"
    );
    assert!(shown.contains(&format!("namespace: {}", s.ns)), "{shown}");
    let plan = plan(prepared);
    assert_eq!(plan.docs.len(), 1);
    assert!(!plan.docs[0].exists);
    assert_eq!(plan.docs[0].conflict, None);
    assert_eq!(
        plan.docs[0].headline(),
        format!("create configmap {}/made", s.ns)
    );
    let added = added(&plan, 0);
    assert!(added.contains(&"colour: blue".to_string()), "{added:?}");
    assert!(added.contains(&"name: made".to_string()), "{added:?}");
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), &s.ns);
    assert!(
        cms.get_opt("made").await.unwrap().is_none(),
        "the dry run stores nothing"
    );

    let out = apply_writes(client.clone(), &plan.writes(false)).await;
    assert_eq!(
        (out.message.as_str(), out.error),
        (format!("configmap {}/made applied", s.ns).as_str(), false)
    );
    let cm = cms.get("made").await.unwrap();
    assert_eq!(cm.data.as_ref().unwrap()["colour"], "blue");
    assert!(
        managers(&cm).contains(&("kinformer".into(), "Apply".into())),
        "{:?}",
        managers(&cm)
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_template_or_an_empty_file_cancels_and_sends_nothing() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let info = s.resource("configmaps");
    let unchanged = editor_script(&s, "true.sh", "true\n");
    let out = create_loop(client.clone(), &s.resources, &info, &s.ns, None, |p| {
        run_editor(&unchanged, p)
    })
    .await;
    let Prepared::Done(o) = out else {
        panic!("{out:?}")
    };
    assert_eq!(
        (o.message.as_str(), o.error),
        ("create ConfigMap cancelled, template unchanged", false)
    );
    let empty = editor_script(&s, "empty.sh", ": > \"$1\"\n");
    let out = create_loop(client.clone(), &s.resources, &info, &s.ns, None, |p| {
        run_editor(&empty, p)
    })
    .await;
    let Prepared::Done(o) = out else {
        panic!("{out:?}")
    };
    assert_eq!(
        (o.message.as_str(), o.error),
        ("create ConfigMap cancelled, empty file", false)
    );
    let cms: Api<ConfigMap> = Api::namespaced(client, &s.ns);
    assert!(
        cms.list(&Default::default())
            .await
            .unwrap()
            .items
            .iter()
            .all(|c| c.metadata.name.as_deref() == Some("kube-root-ca.crt"))
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_document_reopens_the_editor_with_the_servers_message_over_the_text() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let info = s.resource("configmaps");
    let bad = editor_script(&s, "bad.sh", "sed -i 's/name: .*/name: Bad_Name/' \"$1\"\n");
    let good = editor_script(
        &s,
        "good.sh",
        "sed -i 's/name: Bad_Name/name: good/' \"$1\"\n",
    );
    let mut calls = 0;
    let mut reopened = String::new();
    let prepared = create_loop(client.clone(), &s.resources, &info, &s.ns, None, |p| {
        calls += 1;
        if calls == 1 {
            run_editor(&bad, p)
        } else {
            reopened = std::fs::read_to_string(p)?;
            run_editor(&good, p)
        }
    })
    .await;
    assert_eq!(calls, 2, "the editor is reopened once");
    assert!(
        reopened.contains("# dry-run apply configmap") && reopened.contains("Bad_Name"),
        "{reopened}"
    );
    assert!(
        reopened.contains("\nmetadata:\n"),
        "the text is kept: {reopened}"
    );
    let plan = plan(prepared);
    assert_eq!(plan.docs[0].write.name, "good");
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflict_with_another_manager_is_shown_and_only_a_forced_apply_takes_the_field() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), &s.ns);
    cms.patch(
        "shared",
        &PatchParams::apply("other-team"),
        &Patch::Apply(json!({"apiVersion": "v1", "kind": "ConfigMap",
                             "metadata": {"name": "shared"}, "data": {"mode": "slow"}})),
    )
    .await
    .unwrap();
    let dir = s._dir.path().join("manifests");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("shared.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  mode: fast\n",
    )
    .unwrap();
    let plan = plan(plan_paths(client.clone(), &s.resources, &dir, &s.ns).await);
    let doc = &plan.docs[0];
    let conflict = doc.conflict.clone().expect("a conflict");
    assert!(
        conflict.contains("other-team") && conflict.contains(".data.mode"),
        "{conflict}"
    );
    assert!(doc.exists && plan.conflicts());
    assert!(doc.diff.contains(&DiffLine::Removed("  mode: slow".into())));
    assert!(doc.diff.contains(&DiffLine::Added("  mode: fast".into())));

    let out = apply_writes(client.clone(), &plan.writes(false)).await;
    assert!(out.error && out.message.contains("other-team"), "{out:?}");
    assert_eq!(
        cms.get("shared").await.unwrap().data.unwrap()["mode"],
        "slow"
    );

    let out = apply_writes(client.clone(), &plan.writes(true)).await;
    assert_eq!(
        (out.message.as_str(), out.error),
        (
            format!("configmap {}/shared applied (forced)", s.ns).as_str(),
            false
        )
    );
    assert_eq!(
        cms.get("shared").await.unwrap().data.unwrap()["mode"],
        "fast"
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manifest_of_several_documents_is_planned_in_order_and_applied_together() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let file = s._dir.path().join("two.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\ndata:\n  a: \"1\"\n\
         ---\n\
         apiVersion: v1\nkind: Secret\nmetadata:\n  name: second\nstringData:\n  token: x\n",
    )
    .unwrap();
    let plan = plan(plan_paths(client.clone(), &s.resources, &file, &s.ns).await);
    let heads: Vec<String> = plan.docs.iter().map(|d| d.headline()).collect();
    assert_eq!(
        heads,
        [
            format!("create configmap {}/first", s.ns),
            format!("create secret {}/second", s.ns)
        ]
    );
    let out = apply_writes(client.clone(), &plan.writes(false)).await;
    assert_eq!(
        (out.message.as_str(), out.error),
        ("2 objects applied", false)
    );
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), &s.ns);
    assert!(cms.get_opt("first").await.unwrap().is_some());
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &s.ns);
    assert!(secrets.get_opt("second").await.unwrap().is_some());

    // A document the server does not serve: nothing of the file is applied.
    let bad = s._dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: third\n---\n\
         apiVersion: nowhere.example/v1\nkind: Gadget\nmetadata:\n  name: g\n",
    )
    .unwrap();
    let Prepared::Done(o) = plan_paths(client.clone(), &s.resources, &bad, &s.ns).await else {
        panic!("planned an unserved kind")
    };
    assert!(
        o.error && o.message.contains("does not serve kind Gadget"),
        "{o:?}"
    );
    assert!(cms.get_opt("third").await.unwrap().is_none());
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_apply_command_dry_runs_asks_and_applies_the_file() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let file = s._dir.path().join("cm.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-file\ndata:\n  a: \"1\"\n",
    )
    .unwrap();
    let mut app = dashboard(&s, "configmaps", Vec::new());
    press(&mut app, KeyCode::Char(':'));
    for c in format!("apply {}", file.display()).chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let fx = press(&mut app, KeyCode::Enter);
    let [
        Effect::ApplyFile {
            path,
            namespace,
            resources,
        },
    ] = &fx[..]
    else {
        panic!("{fx:?}")
    };
    assert_eq!(namespace, &s.ns);
    let prepared = plan_paths(client.clone(), resources, path, namespace).await;
    app.update(kinformer::runtime::apply::prepared_action(prepared));
    assert!(
        matches!(app.mode, kinformer::ui::app::Mode::ConfirmApply(_)),
        "{:?}",
        app.message
    );
    let fx = press(&mut app, KeyCode::Char('y'));
    let [Effect::Apply { writes, .. }] = &fx[..] else {
        panic!("{fx:?}")
    };
    let out = apply_writes(client.clone(), writes).await;
    assert_eq!(out.message, format!("configmap {}/from-file applied", s.ns));
    let cms: Api<ConfigMap> = Api::namespaced(client, &s.ns);
    assert!(cms.get_opt("from-file").await.unwrap().is_some());
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kind_with_an_openapi_v3_schema_gets_its_required_fields_in_the_template() {
    let s = setup().await;
    let client = s.conn.client.clone();
    // The demo publishes its Widget CRD's schema; a cluster needs that CRD for this test.
    let Some(widgets) = resolve(&s.resources, "widgets.demo.kinformer.io").cloned() else {
        eprintln!("skipping: widgets.demo.kinformer.io is not served here");
        s.cleanup().await;
        return;
    };
    let (_, schema) = kinformer::runtime::apply::fetch_schema(&client, &widgets)
        .await
        .expect("the CRD's schema through /openapi/v3");
    assert_eq!(
        schema.pointer("/properties/spec/required"),
        Some(&json!(["size"]))
    );
    let unchanged = editor_script(&s, "true.sh", "true\n");
    let mut shown = String::new();
    let out = create_loop(client.clone(), &s.resources, &widgets, &s.ns, None, |p| {
        shown = std::fs::read_to_string(p)?;
        run_editor(&unchanged, p)
    })
    .await;
    assert!(matches!(out, Prepared::Done(_)), "{out:?}");
    let body: serde_json::Value =
        serde_norway::from_str(&kinformer::ui::apply::strip_comments(&shown)).unwrap();
    assert_eq!(body["apiVersion"], "demo.kinformer.io/v1");
    assert_eq!(body["spec"], json!({"size": ""}), "{shown}");
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apply_refused_after_its_dry_run_reopens_the_editor_on_the_text_with_the_refusal() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let info = s.resource("configmaps");
    let fill = editor_script(
        &s,
        "fill.sh",
        "sed -i -e 's/name: .*/name: raced/' -e 's/key: value/mode: mine/' \"$1\"\n",
    );
    let plan = plan(
        create_loop(client.clone(), &s.resources, &info, &s.ns, None, |p| {
            run_editor(&fill, p)
        })
        .await,
    );
    // Between the dry run and the confirmation another manager takes the field.
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), &s.ns);
    cms.patch(
        "raced",
        &PatchParams::apply("other-team"),
        &Patch::Apply(json!({"apiVersion": "v1", "kind": "ConfigMap",
                             "metadata": {"name": "raced"}, "data": {"mode": "theirs"}})),
    )
    .await
    .unwrap();
    let (out, code) =
        kinformer::runtime::apply::apply_writes_with_code(client.clone(), &plan.writes(false))
            .await;
    assert_eq!(code, Some(409), "{out:?}");
    let text = plan.edited().expect("an editor's plan keeps its text");
    assert!(text.contains("mode: mine"), "{text}");

    // The dashboard reopens the editor on that text with the refusal over it.
    let fix = editor_script(&s, "fix.sh", "sed -i 's/mode: mine/mode: theirs/' \"$1\"\n");
    let mut reopened = String::new();
    let reopen = kinformer::ui::apply::Reopen {
        text,
        errors: vec![out.message.clone()],
    };
    let again = plan_or_done(
        create_loop(
            client.clone(),
            &s.resources,
            &info,
            &s.ns,
            Some(reopen),
            |p| {
                reopened = std::fs::read_to_string(p)?;
                run_editor(&fix, p)
            },
        )
        .await,
    );
    assert!(
        reopened.contains(&format!("# {}", out.message.lines().next().unwrap())),
        "{reopened}"
    );
    assert!(
        reopened.contains("mode: mine"),
        "the text is kept: {reopened}"
    );
    let again = again.expect("agreeing with the other manager plans without a conflict");
    assert_eq!(again.docs[0].conflict, None);
    s.cleanup().await;
}

fn plan_or_done(p: Prepared) -> Option<ApplyPlan> {
    match p {
        Prepared::Plan(plan) => Some(plan),
        Prepared::Done(_) => None,
    }
}
