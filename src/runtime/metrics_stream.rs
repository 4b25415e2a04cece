//! A metrics list read as it arrives: the body's chunks are scanned for the items of its
//! `items` array, and each item is parsed (borrowed, as [`super::metrics::usage_by_key`] reads
//! one) and folded into the usage by key as soon as it is whole, then dropped. The list's body is
//! never held: at 100k pods it was ~46 MB at every poll (the body, then the items borrowing it);
//! now one item and one chunk are.
//!
//! The scanner follows JSON's structure only as far as it must: strings (with their escapes)
//! and the nesting of objects and arrays. The top object's keys are read to find `items`; every
//! object directly inside that array is an item. What the scanner does not check (a malformed
//! number, a missing comma) is left to the item's parse, which skips a bad item, or to nothing
//! where it lies outside the items, as the whole-body parse's `items`-only struct ignored it.

use std::collections::HashMap;

use super::metrics::fold_item;
use crate::informer::Error;
use crate::render::metrics::Usage;
use crate::ui::metrics::MetricsScope;

/// Where the scanner is in the list's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Before the top object's `{`.
    Start,
    /// Inside the top object, outside any string.
    Top,
    /// Inside a key or value string of the top object (`escaped`: after a backslash).
    TopString { escaped: bool },
    /// Inside a nested value of the top object that is not `items` (depth of `{`/`[` in it).
    Skip { depth: u32 },
    /// Inside a string within a skipped value.
    SkipString { depth: u32, escaped: bool },
    /// Inside the `items` array, between items.
    Items,
    /// Inside an item (depth of `{`/`[` in it, 1 at its own `{`).
    Item { depth: u32 },
    /// Inside a string within an item.
    ItemString { depth: u32, escaped: bool },
    /// After the top object's `}`.
    End,
}

/// Reads a `PodMetricsList` / `NodeMetricsList` chunk by chunk (see the module doc).
pub struct MetricsListReader {
    scope: MetricsScope,
    at: At,
    /// The top object's last key string, and whether a `:` followed it (then the next value is
    /// that key's).
    key: Vec<u8>,
    key_done: bool,
    /// The item being read, from its `{`.
    item: Vec<u8>,
    /// The largest item read (what the reader held at most besides a chunk).
    largest_item: usize,
    out: HashMap<String, Usage>,
}

impl MetricsListReader {
    pub fn new(scope: MetricsScope) -> Self {
        MetricsListReader {
            scope,
            at: At::Start,
            key: Vec::new(),
            key_done: false,
            item: Vec::new(),
            largest_item: 0,
            out: HashMap::new(),
        }
    }

    /// Read the next chunk of the body.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        let mut item_from = match self.at {
            At::Item { .. } | At::ItemString { .. } => Some(0),
            _ => None,
        };
        for (i, &b) in chunk.iter().enumerate() {
            self.at = match self.at {
                At::Start => match b {
                    b'{' => At::Top,
                    b if b.is_ascii_whitespace() => At::Start,
                    _ => return Err(bad("not a JSON object")),
                },
                At::Top => match b {
                    b'"' => {
                        if !self.key_done {
                            self.key.clear();
                        }
                        At::TopString { escaped: false }
                    }
                    b':' => {
                        self.key_done = true;
                        At::Top
                    }
                    b',' => {
                        self.key_done = false;
                        At::Top
                    }
                    b'[' if self.key_done && self.key == b"items" => At::Items,
                    b'{' | b'[' => At::Skip { depth: 1 },
                    b'}' => At::End,
                    _ => At::Top,
                },
                At::TopString { escaped } => match b {
                    _ if escaped => {
                        self.push_key(b);
                        At::TopString { escaped: false }
                    }
                    b'\\' => {
                        self.push_key(b);
                        At::TopString { escaped: true }
                    }
                    b'"' => At::Top,
                    _ => {
                        self.push_key(b);
                        At::TopString { escaped: false }
                    }
                },
                At::Skip { depth } => match b {
                    b'"' => At::SkipString {
                        depth,
                        escaped: false,
                    },
                    b'{' | b'[' => At::Skip { depth: depth + 1 },
                    b'}' | b']' if depth == 1 => At::Top,
                    b'}' | b']' => At::Skip { depth: depth - 1 },
                    _ => At::Skip { depth },
                },
                At::SkipString { depth, escaped } => match b {
                    _ if escaped => At::SkipString {
                        depth,
                        escaped: false,
                    },
                    b'\\' => At::SkipString {
                        depth,
                        escaped: true,
                    },
                    b'"' => At::Skip { depth },
                    _ => At::SkipString {
                        depth,
                        escaped: false,
                    },
                },
                At::Items => match b {
                    b'{' => {
                        item_from = Some(i);
                        At::Item { depth: 1 }
                    }
                    b']' => At::Top,
                    _ => At::Items,
                },
                At::Item { depth } => match b {
                    b'"' => At::ItemString {
                        depth,
                        escaped: false,
                    },
                    b'{' | b'[' => At::Item { depth: depth + 1 },
                    b'}' | b']' if depth == 1 => {
                        let from = item_from.take().unwrap_or(0);
                        self.item.extend_from_slice(&chunk[from..=i]);
                        self.end_item();
                        At::Items
                    }
                    b'}' | b']' => At::Item { depth: depth - 1 },
                    _ => At::Item { depth },
                },
                At::ItemString { depth, escaped } => match b {
                    _ if escaped => At::ItemString {
                        depth,
                        escaped: false,
                    },
                    b'\\' => At::ItemString {
                        depth,
                        escaped: true,
                    },
                    b'"' => At::Item { depth },
                    _ => At::ItemString {
                        depth,
                        escaped: false,
                    },
                },
                At::End if b.is_ascii_whitespace() => At::End,
                At::End => return Err(bad("text after the list")),
            };
        }
        // An item going on into the next chunk: keep what it has so far.
        if let Some(from) = item_from {
            self.item.extend_from_slice(&chunk[from..]);
        }
        Ok(())
    }

    fn push_key(&mut self, b: u8) {
        // Only `items` matters: a longer key need not be kept whole.
        if !self.key_done && self.key.len() < 16 {
            self.key.push(b);
        }
    }

    fn end_item(&mut self) {
        self.largest_item = self.largest_item.max(self.item.len());
        // An item that does not parse is skipped, as in the whole-body read.
        if let Ok(item) = serde_json::from_slice(&self.item) {
            fold_item(&self.scope, item, &mut self.out);
        }
        self.item.clear();
    }

    /// The usage by key, once the whole body has been read.
    pub fn finish(self) -> Result<HashMap<String, Usage>, Error> {
        match self.at {
            At::End => Ok(self.out),
            _ => Err(bad("the list ended early")),
        }
    }

    /// The most bytes of one item held at once.
    pub fn largest_item(&self) -> usize {
        self.largest_item
    }
}

fn bad(why: &str) -> Error {
    Error::Decode(format!("metrics list: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::metrics::usage_by_key;
    use proptest::prelude::*;
    use serde_json::json;

    fn pods_list(n: usize) -> String {
        let items: Vec<_> = (0..n)
            .map(|i| {
                json!({
                    "metadata": {"name": format!("p-{i}"), "namespace": "shop",
                        "labels": {"a": "}]\"{["}, "creationTimestamp": "2026-12-07T10:00:00Z"},
                    "timestamp": "2026-12-07T10:00:00Z", "window": "30s",
                    "containers": [
                        {"name": "a", "usage": {"cpu": format!("{}m", i + 1), "memory": "10Mi"}},
                        {"name": "b", "usage": {"cpu": "2m", "memory": "1Ki"}}
                    ]
                })
            })
            .collect();
        json!({"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1",
            "metadata": {"resourceVersion": "", "note": "{\"items\": [}"}, "items": items})
        .to_string()
    }

    fn read(text: &[u8], chunk: usize) -> (Result<HashMap<String, Usage>, Error>, usize) {
        let mut r = MetricsListReader::new(MetricsScope::Pods(None));
        for c in text.chunks(chunk.max(1)) {
            if let Err(e) = r.feed(c) {
                return (Err(e), r.largest_item());
            }
        }
        let largest = r.largest_item();
        (r.finish(), largest)
    }

    /// The metrics list read chunk by chunk, however the body is cut, is what the whole-body
    /// read gives, and the reader holds one item at a time, never the list.
    #[test]
    fn a_metrics_list_read_as_it_arrives_gives_the_whole_reads_usage_holding_one_item() {
        let text = pods_list(50);
        let whole = usage_by_key(&MetricsScope::Pods(None), text.as_bytes()).unwrap();
        assert_eq!(whole.len(), 50);
        for chunk in [1, 2, 3, 7, 64, 1000, text.len()] {
            let (got, largest) = read(text.as_bytes(), chunk);
            assert_eq!(got.unwrap(), whole, "chunks of {chunk}");
            assert!(
                largest < text.len() / 40,
                "{largest} of {} bytes",
                text.len()
            );
        }
    }

    #[test]
    fn a_metrics_list_cut_short_or_followed_by_text_is_an_error() {
        let text = pods_list(3);
        let cut = &text.as_bytes()[..text.len() - 1];
        assert!(read(cut, 16).0.is_err());
        assert!(read(format!("{text} x").as_bytes(), 16).0.is_err());
        assert!(read(b"[1]", 16).0.is_err());
        // An empty list, and one without items, have no usage.
        assert!(
            read(br#"{"kind":"PodMetricsList","items":[]}"#, 5)
                .0
                .unwrap()
                .is_empty()
        );
        assert!(
            read(br#"{"kind":"PodMetricsList"}"#, 5)
                .0
                .unwrap()
                .is_empty()
        );
    }

    proptest! {
        /// Any cut of the body into two chunks reads as the whole.
        #[test]
        fn any_cut_of_the_body_reads_the_same(n in 0usize..6, at in 0usize..2000) {
            let text = pods_list(n);
            let whole = usage_by_key(&MetricsScope::Pods(None), text.as_bytes()).unwrap();
            let at = at.min(text.len());
            let mut r = MetricsListReader::new(MetricsScope::Pods(None));
            r.feed(&text.as_bytes()[..at]).unwrap();
            r.feed(&text.as_bytes()[at..]).unwrap();
            prop_assert_eq!(r.finish().unwrap(), whole);
        }
    }
}
