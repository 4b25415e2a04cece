//! `kubectl edit` semantics: the scripted editor, conflicts, invalid edits.

use super::*;

/// A scripted `$EDITOR`: `sh` running `body` with the file as `$1`.
fn editor_script(s: &Setup, name: &str, body: &str) -> Vec<String> {
    let path = s._dir.path().join(name);
    std::fs::write(&path, body).unwrap();
    vec!["sh".into(), path.display().to_string()]
}

async fn labelled_configmap(s: &Setup, name: &str) -> Api<ConfigMap> {
    let cms: Api<ConfigMap> = Api::namespaced(s.conn.client.clone(), &s.ns);
    cms.create(
        &PostParams::default(),
        &serde_json::from_value(
            json!({"metadata": {"name": name, "labels": {"app": "orig"}},
                                       "data": {"k": "v"}}),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    cms
}

fn label(cm: &ConfigMap) -> Option<String> {
    cm.metadata.labels.as_ref()?.get("app").cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_with_a_scripted_editor_puts_the_change_and_an_unchanged_file_sends_nothing() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let cms = labelled_configmap(&s, "cfg").await;
    let info = s.resource("configmaps");
    let sed = editor_script(&s, "sed.sh", "sed -i 's/app: orig/app: edited/' \"$1\"\n");
    let mut shown = String::new();
    let out = edit_loop(client.clone(), &info, Some(&s.ns), "cfg", |p| {
        shown = std::fs::read_to_string(p)?;
        run_editor(&sed, p)
    })
    .await;
    assert_eq!(
        (out.message.as_str(), out.error),
        (format!("configmap {}/cfg edited", s.ns).as_str(), false)
    );
    assert!(
        shown.starts_with("# Please edit the object below."),
        "{shown}"
    );
    assert!(!shown.contains("managedFields"), "{shown}");
    assert!(shown.contains("app: orig"), "{shown}");
    let cm = cms.get("cfg").await.unwrap();
    assert_eq!(label(&cm).as_deref(), Some("edited"));

    let rv = cm.metadata.resource_version.clone();
    let unchanged = editor_script(&s, "true.sh", "true\n");
    let out = edit_loop(client.clone(), &info, Some(&s.ns), "cfg", |p| {
        run_editor(&unchanged, p)
    })
    .await;
    assert_eq!(
        (out.message.as_str(), out.error),
        ("edit cancelled, no changes", false)
    );
    assert_eq!(cms.get("cfg").await.unwrap().metadata.resource_version, rv);
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_conflict_reopens_the_editor_with_the_error_and_the_edit_kept() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let cms = labelled_configmap(&s, "cfg").await;
    let info = s.resource("configmaps");
    let first = editor_script(&s, "first.sh", "sed -i 's/app: orig/app: first/' \"$1\"\n");
    let second = editor_script(
        &s,
        "second.sh",
        "sed -i 's/app: first/app: second/' \"$1\"\n",
    );
    let handle = tokio::runtime::Handle::current();
    let mut reopened = String::new();
    let mut calls = 0;
    let out = edit_loop(client.clone(), &info, Some(&s.ns), "cfg", |p| {
        calls += 1;
        if calls == 1 {
            run_editor(&first, p)?;
            // Someone else changes the object between the GET and the PUT.
            let cms = cms.clone();
            tokio::task::block_in_place(|| {
                handle.block_on(cms.patch(
                    "cfg",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"data": {"other": "writer"}})),
                ))
            })
            .map_err(std::io::Error::other)?;
            Ok(())
        } else {
            reopened = std::fs::read_to_string(p)?;
            run_editor(&second, p)
        }
    })
    .await;
    assert_eq!(calls, 2, "the editor is reopened once");
    assert!(reopened.contains("# edit configmap"), "{reopened}");
    assert!(reopened.contains("(Conflict)"), "{reopened}");
    assert!(
        reopened.contains("app: first"),
        "the edit is kept: {reopened}"
    );
    assert_eq!(
        (out.message.as_str(), out.error),
        (format!("configmap {}/cfg edited", s.ns).as_str(), false)
    );
    let cm = cms.get("cfg").await.unwrap();
    assert_eq!(label(&cm).as_deref(), Some("second"));
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_edit_reopens_the_editor_and_saving_it_unchanged_gives_up() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let cms = labelled_configmap(&s, "cfg").await;
    let info = s.resource("configmaps");
    let broken = editor_script(&s, "broken.sh", "printf 'data: [unclosed\\n' >> \"$1\"\n");
    let unchanged = editor_script(&s, "true.sh", "true\n");
    let mut calls = 0;
    let mut reopened = String::new();
    let out = edit_loop(client.clone(), &info, Some(&s.ns), "cfg", |p| {
        calls += 1;
        if calls == 1 {
            run_editor(&broken, p)
        } else {
            reopened = std::fs::read_to_string(p)?;
            run_editor(&unchanged, p)
        }
    })
    .await;
    assert_eq!(calls, 2);
    assert!(
        reopened.contains("# The edited file had a syntax error"),
        "{reopened}"
    );
    assert!(reopened.contains("data: [unclosed"), "{reopened}");
    assert!(out.error, "{}", out.message);
    assert!(out.message.contains("given up"), "{}", out.message);
    let cm = cms.get("cfg").await.unwrap();
    assert_eq!(label(&cm).as_deref(), Some("orig"), "nothing sent");
    s.cleanup().await;
}
