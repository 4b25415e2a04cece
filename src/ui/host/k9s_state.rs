//! App's side of k9s's per-context state ([`crate::ui::k9s_state`]): what to save, read from App.

use crate::ui::app::{App, Screen};
use crate::ui::k9s_state::SavedState;

impl App {
    /// The namespaces and view to save, in k9s's terms.
    pub fn k9s_state(&self) -> SavedState {
        let single = |ns: &str| !ns.contains(',');
        let active_namespace = match &self.namespace {
            None => "all".to_string(),
            Some(ns) => ns.split(',').next().unwrap_or(ns).to_string(),
        };
        let favorites = self
            .favourites
            .iter()
            .filter(|f| single(f))
            .cloned()
            .collect();
        let view = if self.stack.iter().any(|s| matches!(s, Screen::Helm(_))) {
            "helm".to_string()
        } else {
            self.current_view()
                .map(|v| v.resource.api_resource.plural.clone())
                .unwrap_or_else(|| "pods".to_string())
        };
        SavedState {
            active_namespace,
            favorites,
            view,
        }
    }
}
