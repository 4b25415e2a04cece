//! Placeholder copies of types that other modules of the crate are still building
//! (`crate::render`, `crate::selector`, `crate::informer::shared_informer::TapEntry`,
//! `crate::informer::thread_safe_store::ThreadSafeStore`, `crate::cluster::ResourceInfo`).
//!
//! Everything here mirrors the agreed public API so that switching to the real types is a change
//! of `use` lines only. This file is deleted as soon as merging `main` brings the real ones.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use kube::api::DynamicObject;
use parking_lot::RwLock;

// ---------------------------------------------------------------- render

/// One table cell (placeholder of `crate::render::Cell`).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Text(String),
    Int(i64),
    Age(Option<i64>),
    Ratio(u32, u32),
}

impl Cell {
    pub fn display(&self, now_unix: i64) -> Cow<'_, str> {
        match self {
            Cell::Text(s) => Cow::Borrowed(s.as_str()),
            Cell::Int(i) => Cow::Owned(i.to_string()),
            Cell::Age(Some(t)) => Cow::Owned(format_age(now_unix - t)),
            Cell::Age(None) => Cow::Borrowed("<unknown>"),
            Cell::Ratio(a, b) => Cow::Owned(format!("{a}/{b}")),
        }
    }

    pub fn cmp_for_sort(&self, other: &Cell) -> Ordering {
        match (self, other) {
            (Cell::Text(a), Cell::Text(b)) => a.cmp(b),
            (Cell::Int(a), Cell::Int(b)) => a.cmp(b),
            // Ascending age (youngest first) is descending creation time.
            (Cell::Age(a), Cell::Age(b)) => b.cmp(a),
            (Cell::Ratio(a, _), Cell::Ratio(b, _)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Cell::Text(_) => 0,
            Cell::Int(_) => 1,
            Cell::Age(_) => 2,
            Cell::Ratio(..) => 3,
        }
    }
}

/// Row colour class (placeholder of `crate::render::Health`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    Ok,
    Pending,
    Warning,
    Error,
    Terminating,
    Completed,
}

/// A table column (placeholder of `crate::render::Column`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub min_width: u16,
    pub wide: bool,
}

/// A rendered row (placeholder of `crate::render::Row`).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub cells: Vec<Cell>,
    pub health: Health,
}

/// A CRD additionalPrinterColumn (placeholder of `crate::render::PrinterColumn`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrinterColumn {
    pub name: String,
    pub json_path: String,
    pub type_: String,
    pub priority: i32,
}

fn col(name: &str, min_width: u16) -> Column {
    Column {
        name: name.to_string(),
        min_width,
        wide: false,
    }
}

/// Placeholder of `crate::render::columns`.
pub fn columns(kind: &str, printer_columns: Option<&[PrinterColumn]>) -> Vec<Column> {
    match kind {
        "Pod" => vec![
            col("NAME", 20),
            col("READY", 5),
            col("STATUS", 8),
            col("RESTARTS", 8),
            col("AGE", 5),
            col("IP", 10),
            col("NODE", 10),
        ],
        "Deployment" => vec![
            col("NAME", 20),
            col("READY", 5),
            col("UP-TO-DATE", 10),
            col("AVAILABLE", 9),
            col("AGE", 5),
        ],
        "Node" => vec![
            col("NAME", 20),
            col("STATUS", 8),
            col("ROLES", 8),
            col("AGE", 5),
            col("VERSION", 8),
        ],
        "Namespace" => vec![col("NAME", 20), col("STATUS", 8), col("AGE", 5)],
        _ => {
            let mut cols = vec![col("NAME", 20)];
            if let Some(pcs) = printer_columns {
                cols.extend(pcs.iter().map(|p| col(&p.name.to_uppercase(), 6)));
            }
            cols.push(col("AGE", 5));
            cols
        }
    }
}

/// Placeholder of `crate::render::format_age` (kubectl's `HumanDuration`).
pub fn format_age(seconds: i64) -> String {
    let s = seconds.max(0);
    if s < 120 {
        return format!("{s}s");
    }
    let m = s / 60;
    if m < 10 {
        let rem = s % 60;
        return if rem == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{rem}s")
        };
    }
    if m < 180 {
        return format!("{m}m");
    }
    let h = s / 3600;
    if h < 8 {
        let rm = (s % 3600) / 60;
        return if rm == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{rm}m")
        };
    }
    if h < 48 {
        return format!("{h}h");
    }
    let d = h / 24;
    if d < 8 {
        let rh = h % 24;
        return if rh == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{rh}h")
        };
    }
    if d < 365 * 2 {
        return format!("{d}d");
    }
    format!("{}y", d / 365)
}

/// Placeholder of `crate::render::to_yaml`.
pub fn to_yaml(obj: &serde_json::Value, reveal_secrets: bool) -> String {
    let mut v = obj.clone();
    if let Some(meta) = v.get_mut("metadata").and_then(|m| m.as_object_mut()) {
        meta.remove("managedFields");
    }
    let is_secret = v.get("kind").and_then(|k| k.as_str()) == Some("Secret");
    if is_secret && !reveal_secrets {
        for field in ["data", "stringData"] {
            if let Some(map) = v.get_mut(field).and_then(|m| m.as_object_mut()) {
                for val in map.values_mut() {
                    let n = val.as_str().map(str::len).unwrap_or(0);
                    *val = serde_json::Value::String(format!("<hidden: {n} bytes>"));
                }
            }
        }
    }
    serde_norway::to_string(&v).unwrap_or_else(|e| format!("# cannot render YAML: {e}"))
}

// ---------------------------------------------------------------- informer tap

/// Placeholder of `crate::informer::delta_fifo::DeltaType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeltaType {
    Added,
    Updated,
    Deleted,
    Replaced,
    Sync,
}

/// Placeholder of `crate::informer::shared_informer::TapEntry`.
#[derive(Debug, Clone)]
pub struct TapEntry {
    pub seq: u64,
    pub at: std::time::SystemTime,
    pub kind: Arc<str>,
    pub delta: DeltaType,
    pub tombstone: bool,
    pub key: Arc<str>,
    pub resource_version: String,
    pub queue_depth: usize,
}

// ---------------------------------------------------------------- indexer

/// Placeholder of `crate::informer::index::LABEL_INDEX`.
pub const LABEL_INDEX: &str = "label";

/// Placeholder of `crate::informer::thread_safe_store::ThreadSafeStore<DynamicObject>` with only
/// the label index (values `key=value` and `key`), enough for the dashboard's label filter.
#[derive(Debug)]
pub struct ThreadSafeStore<K> {
    inner: RwLock<StoreInner<K>>,
}

#[derive(Debug)]
struct StoreInner<K> {
    items: HashMap<String, Arc<K>>,
    label: HashMap<String, HashSet<String>>,
}

impl<K> Default for StoreInner<K> {
    fn default() -> Self {
        StoreInner {
            items: HashMap::new(),
            label: HashMap::new(),
        }
    }
}

impl<K> Default for ThreadSafeStore<K> {
    fn default() -> Self {
        ThreadSafeStore {
            inner: RwLock::new(StoreInner::default()),
        }
    }
}

impl ThreadSafeStore<DynamicObject> {
    pub fn add(&self, key: String, obj: Arc<DynamicObject>) {
        let mut g = self.inner.write();
        for (k, v) in obj.metadata.labels.iter().flatten() {
            for val in [format!("{k}={v}"), k.clone()] {
                g.label.entry(val).or_default().insert(key.clone());
            }
        }
        g.items.insert(key, obj);
    }

    pub fn index_keys(&self, name: &str, value: &str) -> Result<Vec<String>, String> {
        if name != LABEL_INDEX {
            return Err(format!("no index {name}"));
        }
        let g = self.inner.read();
        Ok(g.label
            .get(value)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default())
    }

    pub fn list_index_func_values(&self, name: &str) -> Vec<String> {
        if name != LABEL_INDEX {
            return vec![];
        }
        self.inner.read().label.keys().cloned().collect()
    }

    pub fn index_cardinality(&self, name: &str, value: &str) -> usize {
        if name != LABEL_INDEX {
            return 0;
        }
        self.inner.read().label.get(value).map_or(0, HashSet::len)
    }

    pub fn by_index_all(
        &self,
        name: &str,
        values: &[String],
    ) -> Result<Vec<Arc<DynamicObject>>, String> {
        if name != LABEL_INDEX {
            return Err(format!("no index {name}"));
        }
        let g = self.inner.read();
        let mut sets: Vec<&HashSet<String>> = Vec::new();
        for v in values {
            match g.label.get(v) {
                Some(s) => sets.push(s),
                None => return Ok(vec![]),
            }
        }
        sets.sort_by_key(|s| s.len());
        let Some((first, rest)) = sets.split_first() else {
            return Ok(g.items.values().cloned().collect());
        };
        Ok(first
            .iter()
            .filter(|k| rest.iter().all(|s| s.contains(*k)))
            .filter_map(|k| g.items.get(k).cloned())
            .collect())
    }
}

// ---------------------------------------------------------------- discovery

pub use crate::cluster::ResourceInfo;

/// The CRD printer columns of a resource, once discovery carries them (`None` until then).
pub fn printer_columns_of(_resource: &ResourceInfo) -> Option<&[PrinterColumn]> {
    None
}
