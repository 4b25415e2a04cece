//! Create and apply from the editor (`ctrl-n`, `:create KIND`, `:apply FILE|DIR`): the pure half.
//!
//! k9s has no create (derailed/k9s#969); kubectl's counterparts are `kubectl create -f` with
//! `kubectl create ... --dry-run=client -o yaml` for a template, and `kubectl apply
//! --server-side` for the write. Here:
//! - [`template`] writes the object a new one starts from: `apiVersion`, `kind`,
//!   `metadata.name` and `metadata.namespace` (none for a cluster-scoped kind), a minimal
//!   skeleton for the kinds people create by hand ([`skeleton`]: a ConfigMap with data, a
//!   Deployment with one container, ...), and, where discovery offers OpenAPI v3, the schema's
//!   `required` fields with type-correct empty values ([`required_fields`]: the kind's own and,
//!   one level down, its `spec`'s) that the skeleton does not already hold. kubectl has no such
//!   template; `kubectl explain` reads the same schema.
//! - [`parse_manifest`] splits the saved text (or a file) into documents (`---`), as
//!   `kubectl apply -f` does; [`prepare_document`] resolves each to a served resource and fills
//!   in the namespace the way kubectl does (the document's own, else the default one).
//! - each document is sent as a server-side apply (`Operation::Apply`, field manager
//!   [`FIELD_MANAGER`]) through [`crate::ui::operate`]: a dry run first, whose result is
//!   compared with the live object ([`object_diff`], YAML without the fields the server
//!   manages), shown for confirmation with any conflict the dry run met ([`ApplyPlan`]), then
//!   the real apply (forced only after a second confirmation when the dry run conflicted).
//!
//! The fetching (OpenAPI, the dry runs, the live objects) is `crate::runtime::apply`.

use serde_json::{Map, Value, json};

use crate::cluster::ResourceInfo;
use crate::informer::history::{DiffLine, text_diff};
use crate::ui::operate::{Applied, Operation, Write};

/// The field manager kinformer's applies are recorded under (`kubectl apply --server-side`
/// uses `kubectl`).
pub const FIELD_MANAGER: &str = "kinformer";

/// The namespace a new object of a namespaced kind goes to: the current one, the first of a
/// namespace set, `default` for all namespaces. `None` for a cluster-scoped kind.
pub fn template_namespace(scope: Option<&str>, namespaced: bool) -> Option<String> {
    if !namespaced {
        return None;
    }
    let first = crate::ui::scope::names(scope)
        .first()
        .map(|n| n.to_string());
    Some(first.unwrap_or_else(|| "default".to_string()))
}

/// The fields beyond `apiVersion`, `kind` and `metadata` a hand-made object of `kind` usually
/// starts with; `None` for other kinds.
pub fn skeleton(group: &str, kind: &str) -> Option<Value> {
    let container = json!([{"name": "main", "image": "registry.k8s.io/pause:3.10"}]);
    let pod_template = json!({"metadata": {"labels": {"app": "new"}},
                              "spec": {"containers": container}});
    let v = match (group, kind) {
        ("", "ConfigMap") => json!({"data": {"key": "value"}}),
        ("", "Secret") => json!({"type": "Opaque", "stringData": {"key": "value"}}),
        ("", "Namespace") => json!({}),
        ("", "ServiceAccount") => json!({}),
        ("", "Pod") => json!({"spec": {"containers": container}}),
        ("", "Service") => json!({"spec": {"selector": {"app": "new"},
                                           "ports": [{"port": 80, "targetPort": 8080}]}}),
        ("", "PersistentVolumeClaim") => json!({"spec": {"accessModes": ["ReadWriteOnce"],
                                                          "resources": {"requests": {"storage": "1Gi"}}}}),
        ("apps", "Deployment" | "StatefulSet" | "ReplicaSet") => json!({"spec": {
            "replicas": 1, "selector": {"matchLabels": {"app": "new"}}, "template": pod_template}}),
        ("apps", "DaemonSet") => json!({"spec": {
            "selector": {"matchLabels": {"app": "new"}}, "template": pod_template}}),
        ("batch", "Job") => json!({"spec": {"template": {"spec": {
            "restartPolicy": "Never", "containers": container}}}}),
        ("batch", "CronJob") => json!({"spec": {"schedule": "0 * * * *", "jobTemplate": {
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": container}}}}}}),
        _ => return None,
    };
    Some(v)
}

/// The schema `$ref` (directly or as the one entry of `allOf`, as kube-apiserver writes
/// references with a default) points to, within `doc`'s `components.schemas`.
fn dereference<'a>(doc: &'a Value, prop: &'a Value) -> &'a Value {
    let reference = prop.get("$ref").or_else(|| {
        prop.get("allOf")?
            .as_array()?
            .iter()
            .find_map(|s| s.get("$ref"))
    });
    reference
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
        .and_then(|name| doc.pointer(&format!("/components/schemas/{}", name.replace('/', "~1"))))
        .unwrap_or(prop)
}

/// A type-correct empty value for a property schema (a reference: its target's type).
fn empty_value(doc: &Value, prop: &Value) -> Value {
    let prop = dereference(doc, prop);
    if prop.get("x-kubernetes-int-or-string").is_some() {
        return json!(0);
    }
    match prop.get("type").and_then(Value::as_str) {
        Some("string") => json!(""),
        Some("integer" | "number") => json!(0),
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        _ => json!({}),
    }
}

/// The `required` fields of `schema` (but `apiVersion`, `kind` and `metadata`, which every
/// template has) with empty values, and one level down those of its `spec`. `doc`: the
/// group-version's OpenAPI v3 document the schema is in (for references).
pub fn required_fields(doc: &Value, schema: &Value) -> Map<String, Value> {
    let required = |s: &Value| -> Vec<String> {
        s.get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let props = |s: &Value| s.get("properties").cloned().unwrap_or(Value::Null);
    let mut out = Map::new();
    let top = props(schema);
    for name in required(schema) {
        if matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
            continue;
        }
        let prop = top.get(&name).unwrap_or(&Value::Null);
        out.insert(name, empty_value(doc, prop));
    }
    if let Some(spec) = top.get("spec") {
        let spec = dereference(doc, spec);
        let inner = props(spec);
        let mut fields = Map::new();
        for name in required(spec) {
            let prop = inner.get(&name).unwrap_or(&Value::Null);
            fields.insert(name, empty_value(doc, prop));
        }
        if !fields.is_empty() || out.contains_key("spec") {
            out.insert("spec".into(), Value::Object(fields));
        }
    }
    out
}

/// The schema of `group`/`version`/`kind` in a group-version's OpenAPI v3 document (the one
/// whose `x-kubernetes-group-version-kind` names it).
pub fn find_schema<'a>(
    doc: &'a Value,
    group: &str,
    version: &str,
    kind: &str,
) -> Option<&'a Value> {
    doc.pointer("/components/schemas")?
        .as_object()?
        .values()
        .find(|s| {
            s.get("x-kubernetes-group-version-kind")
                .and_then(Value::as_array)
                .is_some_and(|gvks| {
                    gvks.iter().any(|g| {
                        g.get("group").and_then(Value::as_str).unwrap_or("") == group
                            && g.get("version").and_then(Value::as_str) == Some(version)
                            && g.get("kind").and_then(Value::as_str) == Some(kind)
                    })
                })
        })
}

/// Where `/openapi/v3` (its `paths` index) says the group-version's document is: the
/// `serverRelativeURL` of `api/v1` or `apis/GROUP/VERSION`.
pub fn openapi_path(index: &Value, group: &str, version: &str) -> Option<String> {
    let key = if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    };
    let entry = index.get("paths")?.get(&key)?;
    let url = entry.get("serverRelativeURL").and_then(Value::as_str);
    Some(url.map_or_else(|| format!("/openapi/v3/{key}"), str::to_string))
}

/// Merge `extra` into `base`: fields `base` lacks are added, objects merged, the rest kept.
fn merge_missing(base: &mut Map<String, Value>, extra: Map<String, Value>) {
    for (k, v) in extra {
        match (base.get_mut(&k), v) {
            (Some(Value::Object(b)), Value::Object(e)) => merge_missing(b, e),
            (Some(_), _) => {}
            (None, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// The header of a template (comment lines are dropped on save).
pub fn template_header(resource: &ResourceInfo, namespace: Option<&str>) -> String {
    let kind = &resource.api_resource.kind;
    let place = namespace.map_or(String::new(), |ns| format!(" in namespace {ns}"));
    format!(
        "# A new {kind}{place}. Save to apply it (server-side apply, field manager \
         {FIELD_MANAGER}): a dry run first,\n# then its diff for confirmation. Lines starting \
         with '#' are ignored; an unchanged or empty file cancels.\n# Several objects: separate \
         them with a line '---'.\n#\n"
    )
}

/// The YAML a new object of `resource` starts from (see the module documentation): `schema`
/// is the kind's OpenAPI v3 schema with its document, when discovery offers it.
pub fn template(
    resource: &ResourceInfo,
    namespace: Option<&str>,
    schema: Option<(&Value, &Value)>,
) -> String {
    let ar = &resource.api_resource;
    let mut meta = Map::new();
    meta.insert("name".into(), json!(""));
    if let (Some(ns), true) = (namespace, resource.namespaced) {
        meta.insert("namespace".into(), json!(ns));
    }
    let mut obj = Map::new();
    obj.insert("apiVersion".into(), json!(ar.api_version));
    obj.insert("kind".into(), json!(ar.kind));
    obj.insert("metadata".into(), Value::Object(meta));
    if let Some(Value::Object(s)) = skeleton(&ar.group, &ar.kind) {
        merge_missing(&mut obj, s);
    }
    if let Some((doc, schema)) = schema {
        merge_missing(&mut obj, required_fields(doc, schema));
    }
    serde_norway::to_string(&Value::Object(obj)).unwrap_or_default()
}

/// The text without its comment lines (kubectl ignores every line starting with `#`).
pub fn strip_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The objects of a manifest: its YAML (or JSON) documents separated by `---`, empty ones
/// skipped; a `List` (`kubectl get -o yaml`'s output) gives its items. The error names the
/// document (1-based) that does not parse or is not an object.
pub fn parse_manifest(text: &str) -> Result<Vec<Value>, String> {
    use serde::Deserialize as _;
    let mut out = Vec::new();
    for (i, doc) in serde_norway::Deserializer::from_str(text).enumerate() {
        let n = i + 1;
        let v = Value::deserialize(doc).map_err(|e| format!("document {n}: {e}"))?;
        match v {
            Value::Null => {}
            Value::Object(ref m)
                if m.get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| k.ends_with("List"))
                    && m.get("items").is_some_and(Value::is_array) =>
            {
                if let Some(Value::Array(items)) = m.get("items") {
                    out.extend(items.iter().cloned());
                }
            }
            Value::Object(_) => out.push(v),
            _ => return Err(format!("document {n}: not a YAML object")),
        }
    }
    Ok(out)
}

/// `kind name` of a document for messages (`ConfigMap cfg`).
fn doc_label(obj: &Value) -> String {
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("?");
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    format!("{kind} {name}").trim_end().to_string()
}

/// The write one document stands for: its resource (by `apiVersion` and `kind` among the
/// served `resources`), its namespace (its own, else `default_namespace`; none for a
/// cluster-scoped kind) set in the object, as `kubectl apply -f` does.
pub fn prepare_document(
    resources: &[ResourceInfo],
    mut obj: Value,
    default_namespace: &str,
    dry_run: bool,
) -> Result<Write, String> {
    let label = doc_label(&obj);
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version.is_empty() || kind.is_empty() {
        return Err(format!("{label}: apiVersion and kind are required"));
    }
    let resource = resources
        .iter()
        .find(|r| r.api_resource.api_version == api_version && r.api_resource.kind == kind)
        .cloned()
        .ok_or_else(|| {
            format!("{label}: the server does not serve kind {kind} in {api_version}")
        })?;
    let name = obj
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if name.is_empty() {
        return Err(format!("{label}: metadata.name is required"));
    }
    let meta = obj
        .get_mut("metadata")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| format!("{label}: metadata is not an object"))?;
    let namespace = if resource.namespaced {
        let ns = meta
            .get("namespace")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .unwrap_or(default_namespace)
            .to_string();
        meta.insert("namespace".into(), json!(ns));
        Some(ns)
    } else {
        meta.remove("namespace");
        None
    };
    Ok(Write {
        resource,
        namespace,
        name,
        op: Operation::Apply(Box::new(Applied {
            object: obj,
            force: false,
            dry_run,
        })),
        cluster: None,
    })
}

/// An object as the confirmation compares it: YAML without what the server keeps for itself
/// (`status`, `metadata.managedFields`, `resourceVersion`, `uid`, `generation`,
/// `creationTimestamp`), which would change in every diff.
pub fn comparable_yaml(obj: &Value) -> String {
    let mut obj = obj.clone();
    if let Some(m) = obj.as_object_mut() {
        m.remove("status");
        if let Some(meta) = m.get_mut("metadata").and_then(Value::as_object_mut) {
            for k in [
                "managedFields",
                "resourceVersion",
                "uid",
                "generation",
                "creationTimestamp",
            ] {
                meta.remove(k);
            }
        }
    }
    serde_norway::to_string(&obj).unwrap_or_default()
}

/// A Secret's values masked as `kubectl diff` masks them: `***` where both sides agree,
/// `*** (before)` / `*** (after)` where the value changes (the dashboard hides a Secret's
/// values until asked, `x`).
fn mask_secret(live: Option<&mut Value>, result: &mut Value) {
    let is_secret = |v: &Value| v.get("kind").and_then(Value::as_str) == Some("Secret");
    if !is_secret(result) {
        return;
    }
    let mut live = live.filter(|l| is_secret(l));
    for field in ["data", "stringData"] {
        let before = live
            .as_deref()
            .and_then(|l| l.get(field))
            .cloned()
            .unwrap_or(Value::Null);
        let after = result.get(field).cloned().unwrap_or(Value::Null);
        let mask = |v: &mut Value, other: &Value, changed: &str| {
            if let Some(m) = v.get_mut(field).and_then(Value::as_object_mut) {
                for (k, val) in m.iter_mut() {
                    let same = other.get(k) == Some(&*val);
                    *val = json!(if same {
                        "***".to_string()
                    } else {
                        format!("*** ({changed})")
                    });
                }
            }
        };
        if let Some(l) = live.as_deref_mut() {
            mask(l, &after, "before");
        }
        mask(result, &before, "after");
    }
}

/// The diff between the live object (`None`: it does not exist yet) and the dry run's result.
pub fn object_diff(live: Option<&Value>, result: &Value) -> Vec<DiffLine> {
    let mut live = live.cloned();
    let mut result = result.clone();
    mask_secret(live.as_mut(), &mut result);
    let before = live.as_ref().map(comparable_yaml).unwrap_or_default();
    text_diff(&before, &comparable_yaml(&result))
}

/// One document of an apply, after its dry run.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedApply {
    /// The real apply to send (not a dry run; `force` set once the user confirmed it).
    pub write: Write,
    /// Whether the object exists (an apply creates it otherwise).
    pub exists: bool,
    /// Live object → dry run's result.
    pub diff: Vec<DiffLine>,
    /// The dry run's 409: the managers and fields it conflicts with, as the server said it
    /// (the diff is then the forced dry run's).
    pub conflict: Option<String>,
}

impl PlannedApply {
    /// `create configmap shop/cfg`, `configure deployment shop/web`, `unchanged ...`.
    pub fn headline(&self) -> String {
        let verb = if !self.exists {
            "create"
        } else if self
            .diff
            .iter()
            .any(|l| matches!(l, DiffLine::Added(_) | DiffLine::Removed(_)))
        {
            "configure"
        } else {
            "unchanged"
        };
        format!("{verb} {}", self.write.what())
    }
}

/// Where an apply's documents came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplySource {
    /// The editor (`ctrl-n`, `:create`): the text saved (without comment lines), reopened when
    /// the server refuses the real apply.
    Editor { text: String },
    /// `:apply PATH`.
    File(String),
}

/// The editor reopened on a refused apply: the user's text under the server's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reopen {
    pub text: String,
    pub errors: Vec<String>,
}

/// Documents whose dry runs passed, waiting for the user's confirmation.
#[derive(Debug, Clone, PartialEq)]
pub struct ApplyPlan {
    pub docs: Vec<PlannedApply>,
    pub source: ApplySource,
}

impl ApplyPlan {
    /// Whether a dry run conflicted with another manager (applying takes a forced apply).
    pub fn conflicts(&self) -> bool {
        self.docs.iter().any(|d| d.conflict.is_some())
    }

    /// The text to reopen the editor on when the real apply is refused (an editor's plan).
    pub fn edited(&self) -> Option<String> {
        match &self.source {
            ApplySource::Editor { text } => Some(text.clone()),
            ApplySource::File(_) => None,
        }
    }

    /// The real applies, forced when `force`.
    pub fn writes(&self, force: bool) -> Vec<Write> {
        self.docs
            .iter()
            .map(|d| {
                let mut w = d.write.clone();
                if let Operation::Apply(a) = &mut w.op {
                    a.force = force;
                    a.dry_run = false;
                }
                w
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;

    fn info(group: &str, plural: &str, kind: &str, namespaced: bool) -> ResourceInfo {
        let r = APIResource {
            name: plural.into(),
            kind: kind.into(),
            namespaced,
            singular_name: kind.to_lowercase(),
            verbs: ["get", "list", "watch", "patch"].map(String::from).to_vec(),
            ..APIResource::default()
        };
        ResourceInfo::from_api_resource(group, "v1", &r).unwrap()
    }

    /// A group-version document as kube-apiserver serves it, cut down: a CRD-like kind with
    /// top-level and spec-level `required`, references through `allOf`.
    fn fixture() -> Value {
        json!({"openapi": "3.0.0", "components": {"schemas": {
            "io.example.v1.Widget": {
                "type": "object",
                "required": ["apiVersion", "kind", "metadata", "spec", "owner"],
                "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.ObjectMeta"}]},
                    "owner": {"type": "string"},
                    "spec": {"allOf": [{"$ref": "#/components/schemas/io.example.v1.WidgetSpec"}],
                             "default": {}}
                },
                "x-kubernetes-group-version-kind": [{"group": "example.io", "kind": "Widget", "version": "v1"}]
            },
            "io.example.v1.WidgetSpec": {
                "type": "object",
                "required": ["size", "colours", "enabled", "port", "selector", "ratio"],
                "properties": {
                    "size": {"type": "integer"}, "colours": {"type": "array", "items": {"type": "string"}},
                    "enabled": {"type": "boolean"}, "port": {"x-kubernetes-int-or-string": true},
                    "selector": {"$ref": "#/components/schemas/io.k8s.LabelSelector"},
                    "ratio": {"type": "number"}, "optional": {"type": "string"}
                }
            },
            "io.k8s.LabelSelector": {"type": "object"},
            "io.k8s.ObjectMeta": {"type": "object"}
        }}})
    }

    #[test]
    fn a_schema_template_has_the_required_fields_with_type_correct_empty_values() {
        let doc = fixture();
        let schema = find_schema(&doc, "example.io", "v1", "Widget").unwrap();
        let widgets = info("example.io", "widgets", "Widget", true);
        let text = template(&widgets, Some("shop"), Some((&doc, schema)));
        let v: Value = serde_norway::from_str(&text).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "example.io/v1", "kind": "Widget",
                   "metadata": {"name": "", "namespace": "shop"},
                   "owner": "",
                   "spec": {"size": 0, "colours": [], "enabled": false, "port": 0,
                            "selector": {}, "ratio": 0}})
        );
        assert!(find_schema(&doc, "example.io", "v2", "Widget").is_none());
    }

    #[test]
    fn without_a_schema_a_known_kind_gets_its_skeleton_and_another_the_bare_object() {
        let cm = info("", "configmaps", "ConfigMap", true);
        let v: Value = serde_norway::from_str(&template(&cm, Some("shop"), None)).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "", "namespace": "shop"}, "data": {"key": "value"}})
        );
        let deploy = info("apps", "deployments", "Deployment", true);
        let v: Value = serde_norway::from_str(&template(&deploy, Some("shop"), None)).unwrap();
        assert_eq!(
            v.pointer("/spec/template/spec/containers/0/name"),
            Some(&json!("main"))
        );
        let widgets = info("example.io", "widgets", "Widget", false);
        let v: Value = serde_norway::from_str(&template(&widgets, Some("shop"), None)).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "example.io/v1", "kind": "Widget", "metadata": {"name": ""}})
        );
    }

    #[test]
    fn a_schema_adds_to_the_skeleton_without_replacing_it() {
        let doc = json!({"components": {"schemas": {"cm": {
            "required": ["data", "immutable"],
            "properties": {"data": {"type": "object"}, "immutable": {"type": "boolean"}},
            "x-kubernetes-group-version-kind": [{"group": "", "kind": "ConfigMap", "version": "v1"}]
        }}}});
        let schema = find_schema(&doc, "", "v1", "ConfigMap").unwrap();
        let cm = info("", "configmaps", "ConfigMap", true);
        let v: Value =
            serde_norway::from_str(&template(&cm, Some("a"), Some((&doc, schema)))).unwrap();
        assert_eq!(v["data"], json!({"key": "value"}));
        assert_eq!(v["immutable"], json!(false));
    }

    #[test]
    fn a_new_object_goes_to_the_current_namespace_the_first_of_a_set_or_default() {
        assert_eq!(
            template_namespace(Some("shop"), true).as_deref(),
            Some("shop")
        );
        assert_eq!(
            template_namespace(Some("shop,payments"), true).as_deref(),
            Some("shop")
        );
        assert_eq!(template_namespace(None, true).as_deref(), Some("default"));
        assert_eq!(template_namespace(Some("shop"), false), None);
    }

    #[test]
    fn the_openapi_index_names_the_group_versions_document() {
        let index = json!({"paths": {
            "api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=AB"},
            "apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=CD"}}});
        assert_eq!(
            openapi_path(&index, "", "v1").as_deref(),
            Some("/openapi/v3/api/v1?hash=AB")
        );
        assert_eq!(
            openapi_path(&index, "apps", "v1").as_deref(),
            Some("/openapi/v3/apis/apps/v1?hash=CD")
        );
        assert_eq!(openapi_path(&index, "batch", "v1"), None);
    }

    #[test]
    fn a_manifest_is_split_into_its_documents_and_lists_into_their_items() {
        let docs = parse_manifest(
            "---\na: 1\n---\n# only a comment\n---\nkind: List\nitems:\n- b: 2\n- c: 3\n",
        )
        .unwrap();
        assert_eq!(
            docs,
            vec![json!({"a": 1}), json!({"b": 2}), json!({"c": 3})]
        );
        assert_eq!(
            parse_manifest("a: 1\n---\n- x\n").unwrap_err(),
            "document 2: not a YAML object"
        );
        assert!(
            parse_manifest("a: [\n")
                .unwrap_err()
                .starts_with("document 1:")
        );
        assert!(parse_manifest("").unwrap().is_empty());
    }

    #[test]
    fn a_document_takes_the_default_namespace_unless_it_has_one_and_cluster_kinds_none() {
        let resources = vec![
            info("", "configmaps", "ConfigMap", true),
            info("", "namespaces", "Namespace", false),
        ];
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
        let w = prepare_document(&resources, cm, "shop", true).unwrap();
        assert_eq!(
            (w.namespace.as_deref(), w.name.as_str()),
            (Some("shop"), "a")
        );
        let Operation::Apply(a) = &w.op else {
            panic!("{:?}", w.op)
        };
        assert_eq!(
            a.object.pointer("/metadata/namespace"),
            Some(&json!("shop"))
        );
        assert!(a.dry_run && !a.force);
        let own = json!({"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": "a", "namespace": "payments"}});
        let w = prepare_document(&resources, own, "shop", true).unwrap();
        assert_eq!(w.namespace.as_deref(), Some("payments"));
        let ns = json!({"apiVersion": "v1", "kind": "Namespace",
                        "metadata": {"name": "n", "namespace": "shop"}});
        assert_eq!(
            prepare_document(&resources, ns, "shop", true)
                .unwrap()
                .namespace,
            None
        );
        let unknown = json!({"apiVersion": "x.io/v1", "kind": "Gadget", "metadata": {"name": "g"}});
        assert_eq!(
            prepare_document(&resources, unknown, "shop", true).unwrap_err(),
            "Gadget g: the server does not serve kind Gadget in x.io/v1"
        );
        let nameless = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}});
        assert_eq!(
            prepare_document(&resources, nameless, "shop", true).unwrap_err(),
            "ConfigMap: metadata.name is required"
        );
    }

    #[test]
    fn the_diff_leaves_out_what_the_server_keeps_for_itself() {
        let live = json!({"metadata": {"name": "a", "resourceVersion": "5", "uid": "u",
                                       "managedFields": [{}]}, "data": {"k": "old"}});
        let result = json!({"metadata": {"name": "a", "resourceVersion": "6", "uid": "u",
                                         "managedFields": [{}, {}]}, "data": {"k": "new"}});
        let changed: Vec<DiffLine> = object_diff(Some(&live), &result)
            .into_iter()
            .filter(|l| matches!(l, DiffLine::Added(_) | DiffLine::Removed(_)))
            .collect();
        assert_eq!(
            changed,
            [
                DiffLine::Removed("  k: old".into()),
                DiffLine::Added("  k: new".into())
            ]
        );
        let created = object_diff(None, &result);
        assert!(created.iter().all(|l| !matches!(l, DiffLine::Removed(_))));
        assert!(created.contains(&DiffLine::Added("  k: new".into())));
    }

    #[test]
    fn a_secrets_values_are_masked_in_the_diff_as_kubectl_diff_masks_them() {
        let secret = |v: &str| json!({"kind": "Secret", "metadata": {"name": "s"}, "data": {"same": "YQ==", "token": v}});
        let changed: Vec<DiffLine> = object_diff(Some(&secret("b2xk")), &secret("bmV3"))
            .into_iter()
            .filter(|l| !matches!(l, DiffLine::Hunk(_)))
            .collect();
        let text = format!("{changed:?}");
        assert!(
            !text.contains("b2xk") && !text.contains("bmV3") && !text.contains("YQ=="),
            "{text}"
        );
        assert!(
            changed.contains(&DiffLine::Same("  same: '***'".into())),
            "{text}"
        );
        assert!(
            changed.contains(&DiffLine::Removed("  token: '*** (before)'".into())),
            "{text}"
        );
        assert!(
            changed.contains(&DiffLine::Added("  token: '*** (after)'".into())),
            "{text}"
        );
    }
}
