//! `ListerWatcher`: the informer's only door to the API server.
//!
//! client-go counterpart: `tools/cache/listwatch.go` (`ListerWatcher`, `ListWatch`).
//!
//! Invariants:
//! - `list` returns one page; the caller drives pagination with `continue_token`;
//! - `watch` returns a stream of events that ends when the server closes the watch; an `ERROR`
//!   event carrying a 410 is surfaced as [`WatchEvent::Error`] with [`Error::Gone`];
//! - nothing outside this file performs cluster I/O for the informer.

use futures::future::BoxFuture;
use futures::stream::BoxStream;

use super::{Error, Object};

/// Parameters of one list request (a subset of `metav1.ListOptions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListOptions {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// Page size (`limit`); `None` or 0 means unpaged.
    pub limit: Option<u32>,
    /// `continue` token from the previous page.
    pub continue_token: Option<String>,
    /// `resourceVersion`: `None`/`""` = most recent (consistent read), `"0"` = any (cache).
    pub resource_version: Option<String>,
    /// `resourceVersionMatch`: `NotOlderThan` or `Exact`.
    pub resource_version_match: Option<String>,
}

/// Parameters of one watch request (a subset of `metav1.ListOptions` with `watch=true`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchOptions {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub resource_version: Option<String>,
    pub timeout_seconds: Option<u32>,
    pub allow_watch_bookmarks: bool,
    /// Streaming list: `sendInitialEvents=true` (with `resourceVersionMatch=NotOlderThan`).
    pub send_initial_events: bool,
    /// `resourceVersionMatch`, only meaningful with `send_initial_events`.
    pub resource_version_match: Option<String>,
}

/// One page of a list.
#[derive(Debug, Clone)]
pub struct ListPage<K> {
    pub items: Vec<K>,
    /// The list's `metadata.resourceVersion`.
    pub resource_version: String,
    /// The list's `metadata.continue`; `None` when this was the last page.
    pub continue_token: Option<String>,
    /// `metadata.remainingItemCount` when the server reports it.
    pub remaining_item_count: Option<i64>,
    /// Items that could not be decoded (skipped, logged).
    pub malformed: usize,
}

/// One watch event (client-go's `watch.Event`).
#[derive(Debug, Clone)]
pub enum WatchEvent<K> {
    Added(K),
    Modified(K),
    Deleted(K),
    /// A BOOKMARK: only `resource_version` (and annotations) are meaningful.
    Bookmark {
        resource_version: String,
        /// `metadata.annotations["k8s.io/initial-events-end"] == "true"`.
        initial_events_end: bool,
    },
    /// An ERROR event (a `Status`), already classified.
    Error(Error),
}

/// A stream of watch events; an `Err` item is a transport/decode failure that ends the watch.
pub type WatchStream<K> = BoxStream<'static, Result<WatchEvent<K>, Error>>;

/// The only door to the API: list one page, or open a watch.
pub trait ListerWatcher<K: Object>: Send + Sync {
    /// List one page.
    fn list(&self, opts: &ListOptions) -> BoxFuture<'_, Result<ListPage<K>, Error>>;
    /// Open a watch.
    fn watch(&self, opts: &WatchOptions) -> BoxFuture<'_, Result<WatchStream<K>, Error>>;
}
