//! Helm releases read from helm's own storage (the `:helm` screens): no helm binary, no chart
//! repository, only the objects helm 3 writes.
//!
//! helm's storage drivers (`pkg/storage/driver/secrets.go`, `cfgmaps.go`, `util.go`) keep one
//! object per revision, named `sh.helm.release.v1.<release>.v<revision>` and labelled `owner=helm`,
//! `name=<release>`, `version=<revision>`, `status=<status>`:
//!
//! - the Secret driver (the default) writes a Secret of type `helm.sh/release.v1`;
//! - the ConfigMap driver writes a ConfigMap (no type).
//!
//! Both hold `data.release`: the release as JSON (`pkg/release/release.go`), gzipped (best
//! compression) and base64-encoded (standard alphabet). A Secret's `data` values are themselves
//! base64 on the wire, so a Secret's `data.release` is base64 twice over; a ConfigMap's is the
//! helm string as is. Releases stored before helm compressed them have no gzip header: helm (and
//! this module) then reads the base64-decoded bytes as JSON directly.
//!
//! What a table row needs is small ([`Revision`]): an informer keeps only that per revision (its
//! transform calls [`compact`]), so the values, manifest and notes of every revision are not held
//! in memory; they are decoded ([`Release`]) when one is viewed, from one GET.

use std::collections::BTreeMap;
use std::io::Read;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The Secret type of helm 3's release storage.
pub const SECRET_TYPE: &str = "helm.sh/release.v1";
/// The field selector that lists only helm's Secrets.
pub const SECRET_FIELD_SELECTOR: &str = "type=helm.sh/release.v1";
/// The label selector of both drivers' objects.
pub const LABEL_SELECTOR: &str = "owner=helm";
/// Where a compacted storage object keeps its [`Revision`] (see [`compact`]).
const SUMMARY_KEY: &str = "kinformerHelmRevision";

/// Why a stored release could not be read: one message per bad input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HelmError {
    #[error("no data.release in the helm storage object")]
    NoData,
    #[error("data.release is not base64: {0}")]
    NotBase64(String),
    #[error("data.release is not gzip: {0}")]
    NotGzip(String),
    #[error("the release is not helm's release JSON: {0}")]
    BadJson(String),
}

/// Which of helm's storage drivers wrote a revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Storage {
    Secret,
    ConfigMap,
}

impl Storage {
    /// The kind's plural (`secrets`, `configmaps`).
    pub fn plural(self) -> &'static str {
        match self {
            Storage::Secret => "secrets",
            Storage::ConfigMap => "configmaps",
        }
    }
}

/// One revision of one release, as the tables show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revision {
    pub namespace: String,
    /// The release's name.
    pub name: String,
    pub revision: u64,
    /// helm's status (`deployed`, `superseded`, `failed`, `pending-upgrade` …).
    pub status: String,
    /// `chart-version`, as `helm ls` shows it.
    pub chart: String,
    pub app_version: String,
    pub description: String,
    /// `info.last_deployed` (else the object's creation), unix seconds.
    pub updated: Option<i64>,
    pub storage: Storage,
    /// The storage object's name (`sh.helm.release.v1.web.v3`).
    pub object: String,
    /// Why the release JSON could not be read (the labels still give the row).
    pub error: Option<String>,
}

/// A release as helm stores it (the fields kinformer shows).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Release {
    pub name: String,
    pub namespace: String,
    pub version: u64,
    pub info: Info,
    pub chart: Chart,
    /// The values the user supplied (`helm get values`).
    pub config: Value,
    pub manifest: String,
}

/// `release.Info`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Info {
    pub first_deployed: Option<String>,
    pub last_deployed: Option<String>,
    pub description: String,
    pub status: String,
    pub notes: String,
}

/// `chart.Chart` (its metadata and default values).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Chart {
    pub metadata: ChartMetadata,
    pub values: Value,
}

/// `chart.Metadata`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ChartMetadata {
    pub name: String,
    pub version: String,
    #[serde(rename = "appVersion")]
    pub app_version: String,
}

impl Release {
    /// `chart-version` (`helm ls`'s CHART).
    pub fn chart_label(&self) -> String {
        chart_label(&self.chart.metadata)
    }

    /// The user-supplied values (`helm get values`); `{}` when none.
    pub fn user_values(&self) -> Value {
        match &self.config {
            Value::Null => Value::Object(Default::default()),
            v => v.clone(),
        }
    }

    /// Every value (`helm get values --all`): the chart's defaults with the user's values over
    /// them, maps merged key by key (helm's `CoalesceValues`; a user's `null` removes a key).
    pub fn all_values(&self) -> Value {
        let mut out = match &self.chart.values {
            Value::Object(_) => self.chart.values.clone(),
            _ => Value::Object(Default::default()),
        };
        coalesce(&mut out, &self.config);
        out
    }
}

fn chart_label(m: &ChartMetadata) -> String {
    match (m.name.is_empty(), m.version.is_empty()) {
        (true, _) => String::new(),
        (false, true) => m.name.clone(),
        (false, false) => format!("{}-{}", m.name, m.version),
    }
}

/// `over` merged into `base`: maps key by key, anything else replaced; `null` deletes.
fn coalesce(base: &mut Value, over: &Value) {
    let (Value::Object(b), Value::Object(o)) = (&mut *base, over) else {
        if !over.is_null() {
            *base = over.clone();
        }
        return;
    };
    for (k, v) in o {
        match (b.get_mut(k), v) {
            (_, Value::Null) => {
                b.remove(k);
            }
            (Some(existing @ Value::Object(_)), Value::Object(_)) => coalesce(existing, v),
            _ => {
                b.insert(k.clone(), v.clone());
            }
        }
    }
}

/// helm's `decodeRelease`: `data` is base64 (standard) of the gzipped release JSON, or of the
/// JSON itself for releases stored before helm compressed them.
pub fn decode_release(data: &str) -> Result<Release, HelmError> {
    let json = release_json(data)?;
    serde_json::from_slice(&json).map_err(|e| HelmError::BadJson(e.to_string()))
}

/// The release JSON inside helm's `data` string (base64, then gunzip when gzip's magic leads).
fn release_json(data: &str) -> Result<Vec<u8>, HelmError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|e| HelmError::NotBase64(e.to_string()))?;
    if bytes.starts_with(&[0x1f, 0x8b, 0x08]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_end(&mut out)
            .map_err(|e| HelmError::NotGzip(e.to_string()))?;
        return Ok(out);
    }
    if bytes.first().is_some_and(|b| *b == b'{') {
        return Ok(bytes);
    }
    Err(HelmError::NotGzip(
        "no gzip header and not JSON either".into(),
    ))
}

/// helm's `encodeRelease` (the demo server stores releases with it): base64 of the gzipped JSON.
pub fn encode_release(release_json: &Value) -> String {
    use std::io::Write;
    let json = serde_json::to_vec(release_json).unwrap_or_default();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = gz.write_all(&json);
    let bytes = gz.finish().unwrap_or_default();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Whether a storage object of `storage`'s kind is one of helm's: labelled `owner=helm`, and a
/// Secret of helm's type.
fn is_helms(obj: &Value, storage: Storage) -> bool {
    let owner = obj
        .pointer("/metadata/labels/owner")
        .and_then(Value::as_str);
    owner == Some("helm")
        && (storage == Storage::ConfigMap
            || obj.get("type").and_then(Value::as_str) == Some(SECRET_TYPE))
}

/// helm's `data` string of a storage object: a Secret's `data.release` decoded once (the wire's
/// base64), a ConfigMap's as is.
pub fn release_data(obj: &Value, storage: Storage) -> Result<String, HelmError> {
    let raw = obj
        .pointer("/data/release")
        .and_then(Value::as_str)
        .ok_or(HelmError::NoData)?;
    match storage {
        Storage::ConfigMap => Ok(raw.to_string()),
        Storage::Secret => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(raw.trim())
                .map_err(|e| HelmError::NotBase64(format!("the Secret's data: {e}")))?;
            String::from_utf8(bytes)
                .map_err(|_| HelmError::NotBase64("the Secret's data is not text".into()))
        }
    }
}

/// The release a storage object (a full object as JSON, e.g. from a GET) holds.
pub fn decode_object(obj: &Value, storage: Storage) -> Result<Release, HelmError> {
    decode_release(&release_data(obj, storage)?)
}

/// The row of a storage object of `storage`'s kind (as JSON): the labels give the release, revision
/// and status; the decoded JSON the chart, app version, description and time. `None` when the
/// object is not one of helm's. A release that cannot be decoded still gives its row, with the
/// reason in [`Revision::error`].
pub fn revision_of(obj: &Value, storage: Storage) -> Option<Revision> {
    if let Some(summary) = obj.get(SUMMARY_KEY) {
        return serde_json::from_value(summary.clone()).ok();
    }
    if !is_helms(obj, storage) {
        return None;
    }
    let meta = obj.get("metadata")?;
    let labels: BTreeMap<String, String> = meta
        .get("labels")
        .and_then(|l| serde_json::from_value(l.clone()).ok())
        .unwrap_or_default();
    let object = meta.get("name").and_then(Value::as_str)?.to_string();
    let namespace = meta
        .get("namespace")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let created = meta
        .get("creationTimestamp")
        .and_then(Value::as_str)
        .and_then(parse_time);
    let decoded = release_data(obj, storage).and_then(|d| decode_release(&d));
    let mut rev = Revision {
        namespace,
        name: labels.get("name").cloned().unwrap_or_default(),
        revision: labels
            .get("version")
            .and_then(|v| v.parse().ok())
            .unwrap_or_default(),
        status: labels.get("status").cloned().unwrap_or_default(),
        chart: String::new(),
        app_version: String::new(),
        description: String::new(),
        updated: created,
        storage,
        object,
        error: None,
    };
    match decoded {
        Ok(r) => {
            if rev.name.is_empty() {
                rev.name = r.name.clone();
            }
            if rev.revision == 0 {
                rev.revision = r.version;
            }
            if !r.info.status.is_empty() {
                rev.status = r.info.status.clone();
            }
            rev.chart = r.chart_label();
            rev.app_version = r.chart.metadata.app_version.clone();
            rev.description = r.info.description.clone();
            if let Some(t) = r.info.last_deployed.as_deref().and_then(parse_time) {
                rev.updated = Some(t);
            }
        }
        Err(e) => rev.error = Some(e.to_string()),
    }
    Some(rev)
}

/// An informer transform's work: a helm storage object reduced to its [`Revision`] (kept under
/// a key of its own; `data` dropped), so a cache holds a row per revision, not every revision's
/// values and manifest. Other objects pass unchanged.
pub fn compact(obj: &mut Value, storage: Storage) {
    if obj.get(SUMMARY_KEY).is_some() {
        return;
    }
    let Some(rev) = revision_of(obj, storage) else {
        return;
    };
    let Ok(summary) = serde_json::to_value(&rev) else {
        return;
    };
    if let Some(m) = obj.as_object_mut() {
        m.remove("data");
        m.remove("binaryData");
        m.insert(SUMMARY_KEY.into(), summary);
    }
}

/// An informer's transform for helm's storage objects of `storage`'s kind: the object reduced
/// by [`compact`] (and without managed fields, as every cached object).
pub fn compact_object(
    mut obj: kube::api::DynamicObject,
    storage: Storage,
) -> kube::api::DynamicObject {
    obj.metadata.managed_fields = None;
    let mut v = std::mem::take(&mut obj.data);
    if let (Some(m), Ok(meta)) = (v.as_object_mut(), serde_json::to_value(&obj.metadata)) {
        m.insert("metadata".into(), meta);
        compact(&mut v, storage);
        if let Some(m) = v.as_object_mut() {
            m.remove("metadata");
        }
    }
    obj.data = v;
    obj
}

/// The [`Revision`] an informer's compacted object holds (see [`compact_object`]).
pub fn cached_revision(obj: &kube::api::DynamicObject) -> Option<Revision> {
    serde_json::from_value(obj.data.get(SUMMARY_KEY)?.clone()).ok()
}

/// The latest revision of each release (`helm ls`), ordered by namespace then name.
pub fn latest(revisions: &[Revision]) -> Vec<&Revision> {
    let mut by: BTreeMap<(&str, &str), &Revision> = BTreeMap::new();
    for r in revisions {
        let slot = by.entry((&r.namespace, &r.name)).or_insert(r);
        if r.revision > slot.revision {
            *slot = r;
        }
    }
    by.into_values().collect()
}

/// The revisions of one release, newest first (`helm history`, reversed).
pub fn history<'a>(revisions: &'a [Revision], namespace: &str, name: &str) -> Vec<&'a Revision> {
    let mut out: Vec<&Revision> = revisions
        .iter()
        .filter(|r| r.namespace == namespace && r.name == name)
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.revision));
    out
}

fn parse_time(s: &str) -> Option<i64> {
    s.parse::<k8s_openapi::jiff::Timestamp>()
        .ok()
        .map(|t| t.as_second())
}

#[cfg(test)]
mod tests;
