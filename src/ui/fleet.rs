//! Several selected clusters (`--context a,b`, `--context 'prod-*'`, `--all-contexts`,
//! `:ctx +name` / `:ctx -name`): each member is probed on its own client by the runtime
//! ([`Effect::WatchCluster`], which also gives it its own connection, informers and access
//! cache: `runtime/members.rs`) and the header shows every member's state in one compact line.
//! Tables are merged over the members ([`super::fleet_table`]): a CLUSTER column, rows keyed
//! (cluster, key), and everything aimed at a row goes to that row's cluster. The event log
//! hears every member's informers (a CLUSTER column); the current context (marked in the
//! line) is the one of the informer panel, the xray, the pulse and the usage columns. `--readonly-contexts` makes some members read-only, and with several
//! members every confirmation names the cluster of the object it acts on.
//!
//! With one member nothing changes: no probes, the single-cluster header, keys and dialogs.

use super::action::ClusterHealth;
use crate::fleet::matches_any;

/// The selected clusters and which of them are read-only.
#[derive(Debug, Clone, Default)]
pub struct FleetState {
    /// Selected contexts in order with their probed state.
    pub members: Vec<(String, ClusterHealth)>,
    /// `--readonly`: every cluster is read-only.
    pub readonly_all: bool,
    /// `--readonly-contexts`: comma-separated names and globs of read-only contexts.
    pub readonly_contexts: Option<String>,
    /// k9s's `readOnly` settings (see [`K9sReadOnly`]).
    pub k9s: K9sReadOnly,
}

/// k9s's `readOnly` as k9s decides it (k9s `internal/config/k9s.go` `IsReadOnly`): a context's
/// own `config.yaml` over the global `config.yaml`, and the command line over both (`--write`
/// turns it off; `--readonly` is [`FleetState::readonly_all`]).
#[derive(Debug, Clone, Default)]
pub struct K9sReadOnly {
    /// `config.yaml`'s `k9s.readOnly`.
    pub global: Option<crate::config::ReadOnlySetting>,
    /// Each context's own `k9s.readOnly`, by context name.
    pub contexts: Vec<(String, crate::config::ReadOnlySetting)>,
    /// `--write`: k9s's setting is not applied.
    pub write: bool,
}

impl K9sReadOnly {
    /// The setting that makes `context` read-only, if one does.
    pub fn refuses(&self, context: &str) -> Option<&crate::config::ReadOnlySetting> {
        if self.write {
            return None;
        }
        let own = self.contexts.iter().find(|(c, _)| c == context);
        own.map(|(_, s)| s)
            .or(self.global.as_ref())
            .filter(|s| s.read_only)
    }
}

impl FleetState {
    pub fn new(members: &[String], readonly_all: bool, readonly_contexts: Option<String>) -> Self {
        FleetState {
            members: members
                .iter()
                .map(|m| (m.clone(), ClusterHealth::default()))
                .collect(),
            readonly_all,
            readonly_contexts,
            k9s: K9sReadOnly::default(),
        }
    }

    /// More than one cluster selected.
    pub fn is_fleet(&self) -> bool {
        self.members.len() > 1
    }

    /// Is `context` read-only (`--readonly`, it matches `--readonly-contexts`, or k9s's
    /// `readOnly` says so)?
    pub fn readonly_for(&self, context: &str) -> bool {
        self.readonly_reason(context).is_some()
    }

    /// Why `context` is read-only (for the footer's refusal), if it is.
    pub fn readonly_reason(&self, context: &str) -> Option<String> {
        if self.readonly_all {
            return Some("started with --readonly".into());
        }
        if self
            .readonly_contexts
            .as_deref()
            .is_some_and(|p| matches_any(p, context))
        {
            return Some(format!("{context} matches --readonly-contexts"));
        }
        self.k9s
            .refuses(context)
            .map(|s| format!("{s}; --write allows writes"))
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.members.iter().any(|(m, _)| m == name)
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.members.iter().map(|(m, _)| m.clone()).collect()
    }
}

pub use super::kit::cluster_style;
