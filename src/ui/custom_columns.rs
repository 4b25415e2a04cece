//! k9s custom views (views.yaml, [`crate::config::views`]) on the tables: per resource, the
//! columns shown and their order — the table's own columns by header, and `NAME:JSONPATH`
//! columns read from the cached object (kept there by [`crate::render::view_mask`]) — and the
//! sort the view opens with (`sortColumn`, on one of the table's own columns).
//!
//! A JSONPath column's cell is the value's text (an object or list as compact JSON); a label or
//! annotation the object lacks is `<none>` (kubectl's custom-columns); any other path that finds
//! nothing is `<error>`, and the footer says so once per column with the reason.
//!
//! `|W` columns show in wide mode only (`ctrl-w`), as in k9s.
//!
//! Where this differs from k9s: sorting by a JSONPath column is not offered (the sort keys are
//! the table's own cells).

use std::collections::HashMap;

use serde_json::Value;

use super::action::ObjectSummary;
use crate::config::UserConfig;
use crate::render::JsonPath;

/// Where a custom column's cells come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The table's own column with this header.
    Own(String),
    /// A JSONPath into the object.
    Path(JsonPath, String),
}

/// One configured column.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomCol {
    pub name: String,
    pub source: Source,
    /// Not shown (`|H`).
    pub hidden: bool,
    /// Shown in wide mode only (`|W` without `|S`).
    pub wide_only: bool,
    /// A label or annotation column: absent means `<none>`, not an error.
    pub optional: bool,
}

/// A resource's configured view.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomView {
    pub gvr: String,
    pub columns: Vec<CustomCol>,
    /// `(column, descending)`.
    pub sort: Option<(String, bool)>,
}

/// `v1/pods` → `("", "pods")`, `apps/v1/deployments` → `("apps", "deployments")`.
pub fn gvr_key(gvr: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = gvr.split('/').collect();
    match parts.as_slice() {
        [_, plural] => Some((String::new(), plural.to_string())),
        [group, _, plural] => Some((group.to_string(), plural.to_string())),
        _ => None,
    }
}

/// The custom views of `user`, by `(group, plural)`.
pub fn custom_views(user: &UserConfig) -> HashMap<(String, String), CustomView> {
    let mut out = HashMap::new();
    for (gvr, v) in &user.views {
        let Some(key) = gvr_key(gvr) else { continue };
        let columns = v
            .columns
            .iter()
            .filter_map(|c| {
                let source = match &c.path {
                    None => Source::Own(c.name.clone()),
                    Some(p) => Source::Path(JsonPath::parse(p).ok()?, p.clone()),
                };
                let optional = c.path.as_deref().is_some_and(|p| {
                    let p = p.trim_start_matches('{').trim_start_matches('.');
                    p.starts_with("metadata.labels") || p.starts_with("metadata.annotations")
                });
                Some(CustomCol {
                    name: c.name.clone(),
                    source,
                    hidden: c.hide,
                    wide_only: c.wide && !c.show,
                    optional,
                })
            })
            .collect();
        out.insert(
            key,
            CustomView {
                gvr: gvr.clone(),
                columns,
                sort: v.sort.clone(),
            },
        );
    }
    out
}

/// The masks the custom columns need in the cache, by `(group, plural)`.
pub fn view_masks(
    views: &HashMap<(String, String), CustomView>,
) -> HashMap<(String, String), crate::render::view_mask::ViewMask> {
    views
        .iter()
        .filter_map(|(k, v)| {
            let paths = v.columns.iter().filter_map(|c| match &c.source {
                Source::Path(p, _) => Some(p),
                Source::Own(_) => None,
            });
            crate::render::view_mask::ViewMask::of_paths(paths).map(|m| (k.clone(), m))
        })
        .collect()
}

/// The text of a JSONPath column for `obj`; `None`: the path finds nothing.
pub fn path_cell(path: &JsonPath, text: &str, obj: &ObjectSummary) -> Option<String> {
    let on_metadata = text
        .trim_start_matches('{')
        .trim_start_matches('.')
        .starts_with("metadata");
    let meta;
    let object = crate::informer::cached::unpacked(&obj.object);
    let root = if on_metadata {
        let mut m = serde_json::Map::new();
        m.insert(
            "metadata".to_string(),
            crate::informer::cached::metadata_json(&obj.object)?,
        );
        meta = Value::Object(m);
        &meta
    } else {
        &object.data
    };
    let found = path.find(root);
    if found.is_empty() {
        return None;
    }
    Some(
        found
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                Value::Null => "<none>".to_string(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(","),
    )
}
