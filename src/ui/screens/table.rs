//! The resource table's model, where the screens find it: one informer-fed table
//! ([`ResourceView`], wrapping [`TableModel`](crate::ui::table::TableModel)). The table screen
//! itself (its keys: filters, sort, drill-down, YAML/describe/logs/delete of the selection;
//! its drawing) is still App's own code, in `ui/host/table.rs` and `ui/host/table/draw.rs`: it
//! is not a component yet.

pub use crate::ui::view::{DrillAnswer, DrillVia, OwnerFeed, ResourceView};
