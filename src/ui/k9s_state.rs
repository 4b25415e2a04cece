//! What the dashboard leaves in k9s's per-context `config.yaml` on exit (see
//! [`crate::config::context_state`]): the namespace, the favourites and the view, in k9s's
//! terms. Pure: the runtime writes the file.

/// The state to save for the start context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedState {
    /// `k9s.namespace.active`: a namespace, or `all`.
    pub active_namespace: String,
    /// The favourites, most recent first (sets of several namespaces, which k9s cannot read,
    /// left out).
    pub favorites: Vec<String>,
    /// `k9s.view.active`: the current table's resource (`pods`, `deployments`), or `helm`.
    pub view: String,
}

/// The favourites to start with: the context file's (k9s's order), with the start namespace in
/// front when they lack it; at most 9.
pub fn start_favourites(namespace: Option<&str>, saved: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(ns) = namespace
        && !saved.iter().any(|s| s == ns)
    {
        out.push(ns.to_string());
    }
    out.extend(saved.iter().cloned());
    out.truncate(crate::config::context_state::MAX_FAVORITES);
    out
}
