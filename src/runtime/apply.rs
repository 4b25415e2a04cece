//! Create and apply from the editor, and `:apply FILE|DIR`: the runtime's half (what is sent
//! and shown is [`crate::ui::apply`]).
//!
//! [`create_loop`] reads the kind's OpenAPI v3 schema when the server offers it
//! ([`fetch_schema`]: `/openapi/v3`, then the group-version's document; anything else, e.g. an
//! older server or the demo, gives the skeleton), opens the editor on the template and, on
//! save, dry-runs every document ([`plan_documents`]). A document that does not parse, names
//! a kind the server does not serve, or whose dry run is refused (400, 403, 404, 422, a 409
//! that is no field conflict) reopens the editor with the message as `# ` lines over the
//! user's text, as `kubectl edit` does; saving it unchanged gives up. A dry run that conflicts
//! with another field manager is not an error: the forced dry run's result is planned with the
//! conflict, and the dashboard asks twice before the forced apply. [`plan_paths`] does the
//! same for a manifest file or directory, without an editor: a failure is the footer's line
//! (the file is the user's; kubectl apply -f reports and changes nothing either).
//! [`apply_writes`] sends the confirmed applies, one after the other, as kubectl continues
//! past a failing document.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::api::{Api, DynamicObject};
use serde_json::Value;

use crate::cluster::{ResourceInfo, one_line};
use crate::runtime::edit::{Saved, TempFile, editor_round};
use crate::runtime::operate::execute_apply;
use crate::ui::apply::{
    ApplyPlan, ApplySource, PlannedApply, Reopen, object_diff, parse_manifest, prepare_document,
    template, template_header, template_namespace,
};
use crate::ui::operate::{Operation, Write, WriteOutcome};

/// How long the schema may take before the template is made without it.
const SCHEMA_TIMEOUT: Duration = Duration::from_secs(5);

/// What a create or an apply of files came to before the confirmation.
#[derive(Debug)]
pub enum Prepared {
    /// Dry runs passed: ask the user.
    Plan(ApplyPlan),
    /// Cancelled, given up or failed: the footer's line.
    Done(WriteOutcome),
}

fn done(message: String, error: bool) -> Prepared {
    Prepared::Done(WriteOutcome { message, error })
}

async fn get_json(client: &kube::Client, path: &str) -> Option<Value> {
    let request = http::Request::get(path).body(Vec::new()).ok()?;
    let text = tokio::time::timeout(SCHEMA_TIMEOUT, client.request_text(request))
        .await
        .ok()?
        .ok()?;
    serde_json::from_str(&text).ok()
}

/// The group-version's OpenAPI v3 document and the kind's schema in it, when the server
/// offers them.
pub async fn fetch_schema(
    client: &kube::Client,
    resource: &ResourceInfo,
) -> Option<(Value, Value)> {
    let ar = &resource.api_resource;
    let index = get_json(client, "/openapi/v3").await?;
    let path = crate::ui::apply::openapi_path(&index, &ar.group, &ar.version)?;
    let doc = get_json(client, &path).await?;
    let schema = crate::ui::apply::find_schema(&doc, &ar.group, &ar.version, &ar.kind)?.clone();
    Some((doc, schema))
}

fn api(client: kube::Client, w: &Write) -> Api<DynamicObject> {
    match &w.namespace {
        Some(ns) if w.resource.namespaced => {
            Api::namespaced_with(client, ns, &w.resource.api_resource)
        }
        _ => Api::all_with(client, &w.resource.api_resource),
    }
}

/// Dry-run one document: the live object (if any), then the apply with `dryRun=All`; on a
/// field conflict, the forced dry run. The error is the message to show.
async fn plan_one(client: &kube::Client, mut w: Write) -> Result<PlannedApply, String> {
    let live = api(client.clone(), &w)
        .get_opt(&w.name)
        .await
        .map_err(|e| format!("{}: {}", w.what(), one_line(&e.to_string())))?
        .and_then(|o| serde_json::to_value(o).ok());
    let (outcome, code, result) = execute_apply(client.clone(), &w).await;
    let (result, conflict) = match (result, code) {
        (Some(r), _) => (r, None),
        (None, Some(409)) => {
            if let Operation::Apply(a) = &mut w.op {
                a.force = true;
            }
            let (forced, _, result) = execute_apply(client.clone(), &w).await;
            match result {
                Some(r) => (r, Some(outcome.message)),
                None => return Err(forced.message),
            }
        }
        (None, _) => return Err(outcome.message),
    };
    if let Operation::Apply(a) = &mut w.op {
        a.force = false;
        a.dry_run = false;
    }
    Ok(PlannedApply {
        diff: object_diff(live.as_ref(), &result),
        exists: live.is_some(),
        conflict,
        write: w,
    })
}

/// Dry-run every document (see the module documentation); the first failure's message.
pub async fn plan_documents(
    client: &kube::Client,
    resources: &[ResourceInfo],
    docs: Vec<Value>,
    default_namespace: &str,
    source: ApplySource,
) -> Result<ApplyPlan, String> {
    let mut planned = Vec::new();
    for doc in docs {
        let w = prepare_document(resources, doc, default_namespace, true)?;
        planned.push(plan_one(client, w).await?);
    }
    Ok(ApplyPlan {
        docs: planned,
        source,
    })
}

/// Create an object of `resource` in `namespace` (the default for documents without one; a
/// cluster-scoped kind's template has none) with `editor`, until the dry runs pass or the user
/// cancels or gives up. `reopen`: start from the user's text and the server's refusal of its
/// apply instead of the template.
pub async fn create_loop(
    client: kube::Client,
    resources: &[ResourceInfo],
    resource: &ResourceInfo,
    namespace: &str,
    reopen: Option<Reopen>,
    mut editor: impl FnMut(&Path) -> std::io::Result<()>,
) -> Prepared {
    let kind = resource.api_resource.kind.clone();
    let template_ns = template_namespace(Some(namespace), resource.namespaced);
    let (first, mut errors) = match reopen {
        Some(r) => (r.text, r.errors),
        None => {
            let schema = fetch_schema(&client, resource).await;
            let t = template(
                resource,
                template_ns.as_deref(),
                schema.as_ref().map(|(d, s)| (d, s)),
            );
            (t, Vec::new())
        }
    };
    let header = template_header(resource, template_ns.as_deref());
    let file = match TempFile::create(&format!("new-{kind}")) {
        Ok(f) => f,
        Err(e) => return done(format!("create {kind}: temporary file: {e}"), true),
    };
    let mut body = first;
    loop {
        let edited = match editor_round(&file, &header, &errors, &body, &mut editor) {
            Ok(Saved::Edited(t)) => t,
            Ok(Saved::Empty) => return done(format!("create {kind} cancelled, empty file"), false),
            Ok(Saved::Unchanged) => {
                return match errors.first() {
                    None => done(
                        format!("create {kind} cancelled, template unchanged"),
                        false,
                    ),
                    Some(e) => done(format!("create {kind} given up: {}", one_line(e)), true),
                };
            }
            Err(e) => return done(format!("create {kind}: {e}"), true),
        };
        body = edited.clone();
        let docs = match parse_manifest(&edited) {
            Ok(d) if d.is_empty() => {
                return done(format!("create {kind} cancelled, no object"), false);
            }
            Ok(d) => d,
            Err(e) => {
                errors = vec![format!("The file had a syntax error: {e}")];
                continue;
            }
        };
        let source = ApplySource::Editor {
            text: edited.clone(),
        };
        match plan_documents(&client, resources, docs, namespace, source).await {
            Ok(plan) => return Prepared::Plan(plan),
            Err(e) => errors = vec![e],
        }
    }
}

/// The manifests `path` names: the file itself, or a directory's `.yaml`, `.yml` and `.json`
/// files (not its subdirectories, as `kubectl apply -f DIR` without `-R`), sorted by name.
pub fn manifest_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// `:apply PATH`: the documents of the file or directory, dry-run; the footer's line when
/// something fails.
pub async fn plan_paths(
    client: kube::Client,
    resources: &[ResourceInfo],
    path: &Path,
    namespace: &str,
) -> Prepared {
    let shown = path.display().to_string();
    let files = match manifest_files(path) {
        Ok(f) if f.is_empty() => {
            return done(format!("apply {shown}: no .yaml, .yml or .json file"), true);
        }
        Ok(f) => f,
        Err(e) => return done(format!("apply {shown}: {e}"), true),
    };
    let mut docs = Vec::new();
    for f in &files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => return done(format!("apply {}: {e}", f.display()), true),
        };
        match parse_manifest(&text) {
            Ok(d) => docs.extend(d),
            Err(e) => return done(format!("apply {}: {e}", f.display()), true),
        }
    }
    if docs.is_empty() {
        return done(format!("apply {shown}: no object in it"), true);
    }
    match plan_documents(
        &client,
        resources,
        docs,
        namespace,
        ApplySource::File(shown.clone()),
    )
    .await
    {
        Ok(plan) => Prepared::Plan(plan),
        Err(e) => done(format!("apply {shown}: {}", one_line(&e)), true),
    }
}

/// The action that answers a create or an apply of files: the plan to confirm, or the
/// footer's line.
pub fn prepared_action(p: Prepared) -> crate::ui::action::Action {
    match p {
        Prepared::Plan(plan) => crate::ui::action::Action::ApplyPlan(Box::new(plan)),
        Prepared::Done(o) => crate::ui::action::Action::Notify {
            message: o.message,
            error: o.error,
        },
    }
}

/// Send the confirmed applies in order (every one, as kubectl goes on past a failing
/// document); the footer's line: the one answer, or how many were applied and the first
/// failure.
pub async fn apply_writes(client: kube::Client, writes: &[Write]) -> WriteOutcome {
    apply_writes_with_code(client, writes).await.0
}

/// [`apply_writes`], with the status code of the first refusal.
pub async fn apply_writes_with_code(
    client: kube::Client,
    writes: &[Write],
) -> (WriteOutcome, Option<u16>) {
    let mut answers = Vec::new();
    let mut refused = None;
    for w in writes {
        let (answer, code, _) = execute_apply(client.clone(), w).await;
        refused = refused.or(code);
        answers.push(answer);
    }
    (summary(answers), refused)
}

fn summary(answers: Vec<WriteOutcome>) -> WriteOutcome {
    if let [one] = answers.as_slice() {
        return one.clone();
    }
    let ok = answers.iter().filter(|a| !a.error).count();
    match answers.iter().find(|a| a.error) {
        None => WriteOutcome {
            message: format!("{ok} objects applied"),
            error: false,
        },
        Some(e) => WriteOutcome {
            message: format!("{ok} of {} applied; {}", answers.len(), e.message),
            error: true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_gives_its_manifests_sorted_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["b.yaml", "a.yml", "c.json", "notes.txt"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub.yaml")).unwrap();
        let names: Vec<String> = manifest_files(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.yml", "b.yaml", "c.json"]);
        let one = dir.path().join("b.yaml");
        assert_eq!(manifest_files(&one).unwrap(), vec![one]);
    }
}
