//! The table's row map, split in [`SHARDS`] hash maps by a hash of the key, so that it
//! grows a shard at a time: a hash map that fills up allocates twice its size and moves every
//! entry there in one insert, which in one map of 114k rows is ~130 ms in one frame (`bench
//! --only listing` at 150k pods, a streaming list of unknown length); a shard holds a sixteenth
//! of the rows, so its growth is a sixteenth of that.
//!
//! Invariant: a key lives in the shard [`shard_of`] its text names, whatever `Borrow` form it is
//! looked up by (`&str` or `&Arc<str>`: both give the same text).

use std::borrow::Borrow;
use std::hash::Hash;
use std::sync::Arc;

use super::{Entry, FastMap};

/// How many maps the rows are split in.
const SHARDS: usize = 16;

/// The shard of a key: a fixed-seed foldhash of its text (a few ns for a key; its bytes are then
/// in cache for the shard's own lookup), top bits.
fn shard_of(key: &str) -> usize {
    use std::hash::BuildHasher;
    let h = foldhash::fast::FixedState::with_seed(0x6b69_6e66_6f72_6d65).hash_one(key);
    (h >> 60) as usize % SHARDS
}

/// The rows by key (see the module doc).
#[derive(Debug, Clone, Default)]
pub(super) struct Rows {
    shards: [FastMap<Arc<str>, Entry>; SHARDS],
}

impl Rows {
    fn shard<Q: ?Sized + AsRef<str>>(&self, key: &Q) -> &FastMap<Arc<str>, Entry> {
        &self.shards[shard_of(key.as_ref())]
    }

    fn shard_mut<Q: ?Sized + AsRef<str>>(&mut self, key: &Q) -> &mut FastMap<Arc<str>, Entry> {
        &mut self.shards[shard_of(key.as_ref())]
    }

    pub(super) fn get<Q>(&self, key: &Q) -> Option<&Entry>
    where
        Arc<str>: Borrow<Q>,
        Q: ?Sized + Hash + Eq + AsRef<str>,
    {
        self.shard(key).get(key)
    }

    pub(super) fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut Entry>
    where
        Arc<str>: Borrow<Q>,
        Q: ?Sized + Hash + Eq + AsRef<str>,
    {
        self.shard_mut(key).get_mut(key)
    }

    pub(super) fn get_key_value<Q>(&self, key: &Q) -> Option<(&Arc<str>, &Entry)>
    where
        Arc<str>: Borrow<Q>,
        Q: ?Sized + Hash + Eq + AsRef<str>,
    {
        self.shard(key).get_key_value(key)
    }

    pub(super) fn contains_key<Q>(&self, key: &Q) -> bool
    where
        Arc<str>: Borrow<Q>,
        Q: ?Sized + Hash + Eq + AsRef<str>,
    {
        self.shard(key).contains_key(key)
    }

    /// Insert or replace; a replaced entry keeps the map's own key `Arc` (as `HashMap`'s).
    pub(super) fn insert(&mut self, key: Arc<str>, entry: Entry) -> Option<Entry> {
        self.shard_mut(&*key).insert(key, entry)
    }

    pub(super) fn remove<Q>(&mut self, key: &Q) -> Option<Entry>
    where
        Arc<str>: Borrow<Q>,
        Q: ?Sized + Hash + Eq + AsRef<str>,
    {
        self.shard_mut(key).remove(key)
    }

    pub(super) fn len(&self) -> usize {
        self.shards.iter().map(FastMap::len).sum()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.shards.iter().all(FastMap::is_empty)
    }

    /// Rows held without any shard growing (each shard's own room, the least of them times the
    /// shards: keys spread about evenly).
    pub(super) fn capacity(&self) -> usize {
        self.shards
            .iter()
            .map(FastMap::capacity)
            .min()
            .unwrap_or(0)
            .saturating_mul(SHARDS)
    }

    /// Room for `additional` more rows, spread over the shards (with a margin for an uneven
    /// spread).
    pub(super) fn reserve(&mut self, additional: usize) {
        let each = additional / SHARDS + additional / (SHARDS * 8) + 1;
        for s in &mut self.shards {
            s.reserve(each);
        }
    }

    pub(super) fn keys(&self) -> impl Iterator<Item = &Arc<str>> {
        self.shards.iter().flat_map(FastMap::keys)
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &Entry> {
        self.shards.iter().flat_map(FastMap::values)
    }

    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        self.shards.iter_mut().flat_map(FastMap::values_mut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_found_by_its_text_whatever_form_it_is_looked_up_by_and_rows_spread_over_shards() {
        let mut used = [0usize; SHARDS];
        for i in 0..2_000 {
            let k = format!("team-{}/web-7d4b9c8f6d-{i:05}", i % 40);
            used[shard_of(&k)] += 1;
            let arc: Arc<str> = Arc::from(k.as_str());
            assert_eq!(shard_of(&arc), shard_of(k.as_str()));
        }
        assert!(
            used.iter().all(|n| *n > 2_000 / SHARDS / 4),
            "every shard takes a share: {used:?}"
        );
    }
}
