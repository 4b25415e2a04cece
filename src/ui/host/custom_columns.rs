//! App's side of k9s custom views ([`crate::ui::custom_columns`]): the configured view of a table's resource, the footer's word on a JSONPath column that finds nothing, and the sort a view opens with.

use crate::cluster::ResourceInfo;
use crate::ui::action::ViewId;
use crate::ui::app::App;
use crate::ui::custom_columns::{CustomView, Source, path_cell};

impl App {
    /// The configured view of `r`, if the user has one.
    pub(crate) fn custom_view(&self, r: &ResourceInfo) -> Option<&CustomView> {
        self.custom_views
            .get(&(r.api_resource.group.clone(), r.api_resource.plural.clone()))
    }

    /// Once a view's rows are there: a JSONPath column that finds nothing in the first row is
    /// named in the footer, once per column.
    pub(crate) fn check_custom_columns(&mut self, view: ViewId) {
        let Some(v) = self.views.get(&view) else {
            return;
        };
        let Some(cv) = self.custom_view(&v.resource) else {
            return;
        };
        let Some(first) = v.table.entries().next() else {
            return;
        };
        let mut found = None;
        for c in &cv.columns {
            if let Source::Path(p, text) = &c.source {
                let key = format!("{}:{}", cv.gvr, c.name);
                if !c.optional
                    && !self.reported_columns.contains(&key)
                    && path_cell(p, text, &first.summary).is_none()
                {
                    found = Some((
                        key,
                        format!(
                            "views.yaml {}: column {} shows <error>: {text} finds nothing in {}",
                            cv.gvr, c.name, first.summary.key
                        ),
                    ));
                    break;
                }
            }
        }
        if let Some((key, msg)) = found {
            self.reported_columns.insert(key);
            self.error(msg);
        }
    }

    /// A new table of a configured resource opens with its `sortColumn`.
    pub(crate) fn apply_custom_sort(&mut self, view: ViewId) {
        let Some(v) = self.views.get(&view) else {
            return;
        };
        let Some((col, desc)) = self.custom_view(&v.resource).and_then(|c| c.sort.clone()) else {
            return;
        };
        let Some(i) = v.columns.iter().position(|c| c.name == col) else {
            return;
        };
        if let Some(v) = self.views.get_mut(&view) {
            let by = if i == 0 && col == "NAME" {
                crate::ui::table::SortBy::Key
            } else {
                crate::ui::table::SortBy::Cell(i)
            };
            v.table.set_sort(by);
            if desc != v.table.sort().1 {
                v.table.flip_sort();
            }
        }
    }
}
