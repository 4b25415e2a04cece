//! CustomResourceDefinitions and custom resources: the CRD row (NAME, CREATED AT) and rows of a
//! custom resource from its version's `additionalPrinterColumns`, as the apiextensions-apiserver
//! table convertor builds them (a version without printer columns gets a single Age column on
//! `.metadata.creationTimestamp`). A cell whose path selects nothing is blank (the server
//! sends null, kubectl prints nothing); an unparseable date is `<invalid>`.

use kube::api::DynamicObject;
use serde_json::Value;

use super::cell::{Cell, Column, Health, Row, arr_at, int_at, name_cell, parse_time, str_at};
use super::jsonpath::JsonPath;

/// One `additionalPrinterColumns` entry of a CRD version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrinterColumn {
    /// The column header as declared (`Ready`, `Age`); shown upper-cased.
    pub name: String,
    /// The JSONPath into the object (`.status.conditions[?(@.type=="Ready")].status`).
    pub json_path: String,
    /// `string`, `integer`, `number`, `boolean` or `date`.
    pub type_: String,
    /// 0 = always shown, > 0 = wide only.
    pub priority: i32,
}

/// The printer columns of `version` of a CRD (`spec.versions[].additionalPrinterColumns`, or the
/// legacy top-level `spec.additionalPrinterColumns`). As the API server does, a version that
/// declares none gets a single `Age` column on `.metadata.creationTimestamp`.
pub fn printer_columns_from_crd(crd: &DynamicObject, version: &str) -> Vec<PrinterColumn> {
    let d = &crd.data;
    let declared = arr_at(d, &["spec", "versions"])
        .iter()
        .find(|v| str_at(v, &["name"]) == version)
        .map(|v| arr_at(v, &["additionalPrinterColumns"]))
        .filter(|cols| !cols.is_empty())
        .unwrap_or_else(|| arr_at(d, &["spec", "additionalPrinterColumns"]));
    let cols: Vec<PrinterColumn> = declared
        .iter()
        .filter_map(|c| {
            let name = str_at(c, &["name"]);
            // apiextensions v1 uses jsonPath; v1beta1 used JSONPath.
            let path = match str_at(c, &["jsonPath"]) {
                "" => str_at(c, &["JSONPath"]),
                p => p,
            };
            if name.is_empty() || path.is_empty() {
                return None;
            }
            Some(PrinterColumn {
                name: name.to_string(),
                json_path: path.to_string(),
                type_: str_at(c, &["type"]).to_string(),
                priority: i32::try_from(int_at(c, &["priority"])).unwrap_or(0),
            })
        })
        .collect();
    if cols.is_empty() {
        vec![PrinterColumn {
            name: "Age".to_string(),
            json_path: ".metadata.creationTimestamp".to_string(),
            type_: "date".to_string(),
            priority: 0,
        }]
    } else {
        cols
    }
}

pub(super) fn custom_columns(pcs: &[PrinterColumn]) -> Vec<Column> {
    let mut cols = vec![Column::new("NAME", 20)];
    for pc in pcs {
        let name = pc.name.to_uppercase();
        let min_width = match pc.type_.as_str() {
            "date" => 5,
            "integer" | "number" | "boolean" => (name.len() as u16).max(5),
            _ => (name.len() as u16).max(8),
        };
        cols.push(Column {
            name,
            min_width,
            wide: pc.priority > 0,
        });
    }
    cols
}

/// The object as the JSON the printer-column paths address (metadata included).
fn object_json(obj: &DynamicObject) -> Value {
    let mut root = match &obj.data {
        Value::Object(m) => Value::Object(m.clone()),
        _ => Value::Object(serde_json::Map::new()),
    };
    if let (Value::Object(m), Some(meta)) = (&mut root, crate::informer::cached::metadata_json(obj))
    {
        m.insert("metadata".to_string(), meta);
        if let Some(t) = &obj.types {
            m.insert("apiVersion".into(), Value::String(t.api_version.clone()));
            m.insert("kind".into(), Value::String(t.kind.clone()));
        }
    }
    root
}

/// Go's `%v` of a JSON value as client-go's jsonpath printer writes it.
fn print_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// A cell the path selects nothing for: the server sends null and kubectl prints it blank.
fn none() -> Cell {
    Cell::Text(String::new())
}

fn cell_for(pc: &PrinterColumn, root: &Value) -> Cell {
    let Ok(path) = JsonPath::parse(&pc.json_path) else {
        return none();
    };
    let Some(v) = path.first(root) else {
        return none();
    };
    match pc.type_.as_str() {
        "integer" => match v {
            Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .map(Cell::Int)
                .unwrap_or_else(none),
            _ => none(),
        },
        "number" => match v {
            Value::Number(n) => Cell::Number(n.to_string()),
            _ => none(),
        },
        "boolean" => match v {
            Value::Bool(b) => Cell::Text(b.to_string()),
            _ => none(),
        },
        "date" => match v.as_str() {
            Some(s) => match parse_time(s) {
                Some(t) => Cell::Age(Some(t)),
                None => Cell::text("<invalid>"),
            },
            None => none(),
        },
        _ => Cell::Text(print_value(v)),
    }
}

pub(super) fn custom_row(obj: &DynamicObject, pcs: &[PrinterColumn]) -> Row {
    let root = object_json(obj);
    let mut cells = Vec::with_capacity(pcs.len() + 1);
    cells.push(name_cell(obj));
    for pc in pcs {
        cells.push(cell_for(pc, &root));
    }
    let health = if obj.metadata.deletion_timestamp.is_some() {
        Health::Terminating
    } else {
        // A Ready condition, when the resource has one, colours the row.
        match arr_at(&obj.data, &["status", "conditions"])
            .iter()
            .find(|c| str_at(c, &["type"]) == "Ready")
            .map(|c| str_at(c, &["status"]))
        {
            Some("False") => Health::Error,
            Some("Unknown") => Health::Pending,
            _ => Health::Ok,
        }
    };
    Row { cells, health }
}

pub(super) fn crd_columns() -> Vec<Column> {
    vec![Column::new("NAME", 30), Column::new("CREATED AT", 20)]
}

pub(super) fn crd_row(obj: &DynamicObject) -> Row {
    // The server's CRD table prints creationTimestamp in RFC 3339, seconds precision.
    let created = obj
        .metadata
        .creation_timestamp
        .as_ref()
        .map(|t| t.0.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| "<unknown>".to_string());
    Row {
        cells: vec![name_cell(obj), Cell::Text(created)],
        health: if obj.metadata.deletion_timestamp.is_some() {
            Health::Terminating
        } else {
            Health::Ok
        },
    }
}
