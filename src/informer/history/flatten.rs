//! How an object becomes a version's record: its fields flattened to leaves (path, value) through
//! the history mask, the leaves packed into one buffer, and the diff of two packed versions.

use super::*;

/// One object as an observer hands it over: which resource, which fields are tracked, the
/// delta type when the observer knows it, when.
pub(super) struct Observed<'a> {
    pub(super) resource: &'a str,
    pub(super) obj: &'a DynamicObject,
    pub(super) mask: Mask,
    pub(super) delta: Option<DeltaType>,
    pub(super) at_ms: i64,
}

/// Where a flattening writes: path ids interned on the way, values appended to one buffer.
#[derive(Default)]
pub(super) struct Scratch {
    /// The path being named (see [`resolve`]).
    pub(super) path: String,
    /// Every leaf's value bytes, back to back.
    pub(super) vals: Vec<u8>,
    /// (path id, start, end) into `vals`.
    pub(super) leaves: Vec<(u32, u32, u32)>,
    /// The object's key (`namespace/name`).
    pub(super) key: String,
    /// A version's changes, packed (see [`Version::data`]).
    pub(super) changes: Vec<u8>,
    /// Which recorder `seen` holds path ids of ([`History::id`]).
    pub(super) owner: u64,
    /// The path's hash and its id at each leaf position of the previous flattening (see
    /// [`Sink::close_leaf`]).
    pub(super) seen: Vec<(u64, u32)>,
    /// Leaves whose id the position cache did not give: (position, path hash).
    pub(super) misses: Vec<(usize, u64)>,
    /// Each leaf's path text, by position (only filled to name new paths, see [`resolve`]).
    pub(super) names: Vec<String>,
    /// The shape of the path being named: per segment [`SEG_KEY`], [`SEG_NAME`], [`SEG_TYPE`]
    /// or [`SEG_INDEX`] (how the segment addresses its parent); a leaf's shape ends with its
    /// value's kind ([`LEAF_STR`]...).
    pub(super) shape: Vec<u8>,
    /// Each leaf's shape, by position (filled with `names`).
    pub(super) shapes: Vec<Vec<u8>>,
}

/// A path segment that is an object's key.
pub(crate) const SEG_KEY: u8 = b'k';
/// A segment naming an array item by its `name`.
pub(crate) const SEG_NAME: u8 = b'n';
/// A segment naming an array item by its `type`.
pub(crate) const SEG_TYPE: u8 = b't';
/// A segment that is an array index.
pub(crate) const SEG_INDEX: u8 = b'i';
/// A leaf that is a string.
pub(crate) const LEAF_STR: u8 = b's';
/// A leaf that is a number.
pub(crate) const LEAF_NUM: u8 = b'#';
/// A leaf that is a bool.
pub(crate) const LEAF_BOOL: u8 = b'b';
/// A leaf that is null.
pub(crate) const LEAF_NULL: u8 = b'z';

/// The hash of the path `parent` extended by the segment `seg` (the segment's text unescaped;
/// an index as its decimal digits, so `/x/0` is one path whichever way it was reached).
pub(super) fn seg_hash(parent: u64, seg: &str) -> u64 {
    foldhash::fast::FixedState::with_seed(parent).hash_one(seg)
}

pub(super) fn index_hash(parent: u64, i: usize) -> u64 {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = i;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    seg_hash(parent, std::str::from_utf8(&digits[at..]).unwrap_or(""))
}

/// A walk over the tracked fields. With `NAMES` false (every observe) it writes each leaf's
/// value and its path's id, known by the hash of the path's segments, never building the path's
/// text; with `NAMES` true (only when a path is new to the recorder) it writes each leaf's path
/// text instead. Both visit the same leaves in the same order (one function, one order).
pub(super) struct Sink<'a, const NAMES: bool> {
    pub(super) s: &'a mut Scratch,
}

impl<const NAMES: bool> Sink<'_, NAMES> {
    /// The leaf at the path hashed `h` is complete (its value from `start` in `vals`). Its id is
    /// the one the previous flattening on this thread met at the same leaf position when the
    /// hash is the same (objects of a kind share a shape, so it usually is: one comparison of
    /// two integers); else it is resolved after the walk (see [`resolve`]).
    fn close_leaf(&mut self, start: usize, h: u64, kind: u8) {
        if NAMES {
            self.s.names.push(self.s.path.clone());
            let mut shape = self.s.shape.clone();
            shape.push(kind);
            self.s.shapes.push(shape);
            return;
        }
        let k = self.s.leaves.len();
        let id = match self.s.seen.get(k) {
            Some(&(seen, id)) if seen == h && id != u32::MAX => id,
            _ => {
                self.s.misses.push((k, h));
                u32::MAX
            }
        };
        let end = self.s.vals.len().min(start + MAX_VALUE);
        self.s.leaves.push((id, start as u32, end as u32));
    }

    fn leaf_bytes(&mut self, value: &[u8], h: u64) {
        let start = self.s.vals.len();
        if !NAMES {
            self.s.vals.extend_from_slice(value);
        }
        self.close_leaf(start, h, LEAF_STR);
    }

    fn leaf(&mut self, value: &Value, h: u64) {
        let start = self.s.vals.len();
        let kind = match value {
            Value::Number(_) => LEAF_NUM,
            Value::Bool(_) => LEAF_BOOL,
            Value::Null => LEAF_NULL,
            _ => LEAF_STR,
        };
        let vals = &mut self.s.vals;
        match value {
            Value::Array(_) | Value::Object(_) => return,
            _ if NAMES => {}
            Value::String(v) if v.len() > MAX_LEAF => {
                let h = foldhash::fast::FixedState::with_seed(0).hash_one(v.as_bytes());
                let _ = write!(vals, "#{h:016x} ({} bytes)", v.len());
            }
            Value::String(v) => vals.extend_from_slice(v.as_bytes()),
            Value::Number(n) => {
                let _ = write!(vals, "{n}");
            }
            Value::Bool(b) => vals.extend_from_slice(if *b { b"true" } else { b"false" }),
            Value::Null => vals.extend_from_slice(b"null"),
        }
        self.close_leaf(start, h, kind);
    }

    /// Leaves met so far.
    fn count(&self) -> usize {
        if NAMES {
            self.s.names.len()
        } else {
            self.s.leaves.len()
        }
    }

    /// Enter the segment `seg` (its path text, when naming); returns where to truncate back to.
    fn enter(&mut self, seg: &str) -> usize {
        self.enter_as(seg, SEG_KEY)
    }

    /// [`Self::enter`] for a segment of the given shape ([`SEG_KEY`]...).
    fn enter_as(&mut self, seg: &str, shape: u8) -> usize {
        let len = self.s.path.len();
        if NAMES {
            self.s.path.push('/');
            push_escaped(&mut self.s.path, seg);
            self.s.shape.push(shape);
        }
        len
    }

    fn enter_index(&mut self, i: usize) -> usize {
        let len = self.s.path.len();
        if NAMES {
            let _ = std::fmt::Write::write_fmt(&mut self.s.path, format_args!("/{i}"));
            self.s.shape.push(SEG_INDEX);
        }
        len
    }

    fn leave(&mut self, len: usize) {
        if NAMES {
            self.s.path.truncate(len);
            self.s.shape.pop();
        }
    }

    /// The labels (at `/metadata/labels`) and the fields `mask` keeps of `data`.
    fn object(&mut self, obj: &DynamicObject, mask: Mask, root: u64) {
        let labels = crate::informer::cached::labels(obj);
        if !labels.is_empty() {
            let h = seg_hash(seg_hash(root, "metadata"), "labels");
            let base = self.enter("metadata");
            let inner = self.enter("labels");
            for (k, v) in labels {
                let len = self.enter(k);
                self.leaf_bytes(v.as_bytes(), seg_hash(h, k));
                self.leave(len);
            }
            self.leave(inner);
            self.leave(base);
        }
        // The timestamps every row reads (AGE, Terminating), so a past state draws as it was.
        let times = [
            ("creationTimestamp", &obj.metadata.creation_timestamp),
            ("deletionTimestamp", &obj.metadata.deletion_timestamp),
        ];
        for (field, time) in times {
            if let Some(t) = time {
                let h = seg_hash(seg_hash(root, "metadata"), field);
                let base = self.enter("metadata");
                let len = self.enter(field);
                let start = self.s.vals.len();
                if !NAMES {
                    let _ = write!(self.s.vals, "{}", t.0.strftime("%Y-%m-%dT%H:%M:%SZ"));
                }
                self.close_leaf(start, h, LEAF_STR);
                self.leave(len);
                self.leave(base);
            }
        }
        // The owners, by uid (`Kind/name`): a drilled view (the pods of a ReplicaSet) picks its
        // past rows by them.
        if let Some(refs) = obj
            .metadata
            .owner_references
            .as_deref()
            .filter(|r| !r.is_empty())
        {
            let h = seg_hash(seg_hash(root, "metadata"), "ownerReferences");
            let base = self.enter("metadata");
            let inner = self.enter("ownerReferences");
            for r in refs {
                let len = self.enter(&r.uid);
                let start = self.s.vals.len();
                if !NAMES {
                    let _ = write!(self.s.vals, "{}/{}", r.kind, r.name);
                }
                self.close_leaf(start, seg_hash(h, &r.uid), LEAF_STR);
                self.leave(len);
            }
            self.leave(inner);
            self.leave(base);
        }
        self.walk(&obj.data, mask, None, root);
    }

    /// Flatten `v` (at the path hashed `h`) under `mask`; `skip`: the key an array item is
    /// addressed by (not a leaf of its own, the path already names it).
    fn walk(&mut self, v: &Value, mask: Mask, skip: Option<&str>, h: u64) {
        match (v, mask) {
            (Value::Object(m), Mask::Keys(keys)) => {
                // One pass over the object, each key matched against the mask's few keys (a
                // length comparison rejects most): cheaper than a map lookup per mask key.
                for (k, x) in m {
                    let k = k.as_str();
                    if Some(k) == skip {
                        continue;
                    }
                    if let Some((_, sub)) = keys.iter().find(|(name, _)| *name == k) {
                        let len = self.enter(k);
                        self.walk(x, *sub, None, seg_hash(h, k));
                        self.leave(len);
                    }
                }
            }
            (Value::Object(m), Mask::Blank(sizes)) => {
                // Each value's size, or a short one kept (never a Secret's value).
                for (k, x) in m {
                    let len = self.enter(k);
                    self.leaf(&sizes.of(x), seg_hash(h, k));
                    self.leave(len);
                }
            }
            (Value::Object(m), _) => {
                for (k, x) in m {
                    if Some(k.as_str()) == skip {
                        continue;
                    }
                    let len = self.enter(k);
                    self.walk(x, Mask::All, None, seg_hash(h, k));
                    self.leave(len);
                }
            }
            (Value::Array(items), m) => {
                let sub = match m {
                    Mask::Each(sub) => *sub,
                    _ => Mask::All,
                };
                for (i, x) in items.iter().enumerate() {
                    let named = item_name(x);
                    let (len, hh) = match named {
                        Some((k, n)) => {
                            let shape = if k == "name" { SEG_NAME } else { SEG_TYPE };
                            (self.enter_as(n, shape), seg_hash(h, n))
                        }
                        None => (self.enter_index(i), index_hash(h, i)),
                    };
                    let before = self.count();
                    self.walk(x, sub, named.map(|(k, _)| k), hh);
                    if let Some((k, n)) = named
                        && self.count() == before
                    {
                        // An item that is only its name (a ServiceAccount's secret): the name
                        // is its one leaf, so the item is counted and rebuilt.
                        let inner = self.enter(k);
                        self.leaf_bytes(n.as_bytes(), seg_hash(hh, k));
                        self.leave(inner);
                    }
                    self.leave(len);
                }
            }
            (scalar, _) => self.leaf(scalar, h),
        }
    }
}

/// What an array item is addressed by: its `name`, else its `type` (a string either way).
pub(super) fn item_name(x: &Value) -> Option<(&'static str, &str)> {
    let Value::Object(m) = x else {
        return None;
    };
    let (mut name, mut kind) = (None, None);
    for (k, v) in m {
        match (k.as_str(), v) {
            ("name", Value::String(n)) => {
                name = Some(n.as_str());
                break;
            }
            ("type", Value::String(t)) => kind = Some(t.as_str()),
            _ => {}
        }
    }
    name.map(|n| ("name", n)).or(kind.map(|t| ("type", t)))
}

pub(super) fn push_escaped(path: &mut String, seg: &str) {
    if !seg.bytes().any(|b| b == b'~' || b == b'/') {
        path.push_str(seg);
        return;
    }
    for ch in seg.chars() {
        match ch {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

/// Flatten the labels and the fields `mask` keeps of `data` into `s` (sorted by path id, one
/// leaf per path); `root`: the recorder's root hash.
pub(super) fn flatten(
    obj: &DynamicObject,
    mask: Mask,
    paths: &Mutex<Paths>,
    root: u64,
    bytes: &mut usize,
    s: &mut Scratch,
) {
    s.vals.clear();
    s.leaves.clear();
    s.misses.clear();
    Sink::<false> { s }.object(obj, mask, root);
    if !s.misses.is_empty() {
        resolve(obj, mask, paths, root, bytes, s);
    }
    // Stable, and the last of two leaves at one path wins (a list with two items of one name).
    // Objects of a shape met before usually come in id order already.
    if !s.leaves.is_sorted_by_key(|(id, _, _)| *id) {
        s.leaves.sort_by_key(|(id, _, _)| *id);
    }
    s.leaves.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            *kept = *later;
        }
        same
    });
}

/// The ids of the leaves whose position did not match the previous flattening's: by their
/// path's hash when the recorder knows it, else the path is named (a second walk, writing path
/// texts) and interned. Updates the thread's position cache.
pub(super) fn resolve(
    obj: &DynamicObject,
    mask: Mask,
    paths: &Mutex<Paths>,
    root: u64,
    bytes: &mut usize,
    s: &mut Scratch,
) {
    let mut paths = paths.lock();
    s.names.clear();
    s.shapes.clear();
    s.shape.clear();
    if s.seen.len() < s.leaves.len() {
        s.seen.resize(s.leaves.len(), (0, u32::MAX));
    }
    for i in 0..s.misses.len() {
        let (k, h) = s.misses[i];
        let id = match paths.by_hash.get(&h) {
            Some(id) => *id,
            None => {
                if s.names.is_empty() {
                    s.path.clear();
                    Sink::<true> { s: &mut *s }.object(obj, mask, root);
                }
                let name = s.names.get(k).map_or("", String::as_str);
                let shape = s.shapes.get(k).map_or(&[][..], Vec::as_slice);
                paths.intern(h, name, shape, bytes)
            }
        };
        if let Some(leaf) = s.leaves.get_mut(k) {
            leaf.0 = id;
        }
        if let Some(e) = s.seen.get_mut(k) {
            *e = (h, id);
        }
    }
}

/// The flattened leaves (`s.leaves` into `s.vals`) packed into `out`: per leaf a u32 path id,
/// a u16 length, the bytes.
pub(super) fn pack(s: &Scratch, out: &mut Vec<u8>) {
    let total: usize = s.leaves.iter().map(|(_, a, b)| 6 + (b - a) as usize).sum();
    out.clear();
    out.resize(total, 0);
    let mut rest = out.as_mut_slice();
    for (id, a, b) in &s.leaves {
        let v = &s.vals[*a as usize..*b as usize];
        let (head, tail) = rest.split_at_mut(6);
        head[..4].copy_from_slice(&id.to_le_bytes());
        head[4..].copy_from_slice(&(v.len() as u16).to_le_bytes());
        let (value, tail) = tail.split_at_mut(v.len());
        value.copy_from_slice(v);
        rest = tail;
    }
}

/// The leaves of a packed buffer, in order: (path id, value bytes).
pub(super) struct Packed<'a> {
    pub(super) buf: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Iterator for Packed<'a> {
    type Item = (u32, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let head = self.buf.get(self.at..self.at + 6)?;
        let id = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let len = usize::from(u16::from_le_bytes([head[4], head[5]]));
        let start = self.at + 6;
        let end = (start + len).min(self.buf.len());
        self.at = end;
        Some((id, &self.buf[start..end]))
    }
}

pub(super) fn leaves(buf: &[u8]) -> Packed<'_> {
    Packed { buf, at: 0 }
}

pub(super) fn text(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or("")
}

pub(super) fn unpack(packed: &[u8]) -> Vec<(u32, &str)> {
    leaves(packed).map(|(id, v)| (id, text(v))).collect()
}

/// The changes from the packed leaves `old` to the flattened leaves of `s` (both sorted by path
/// id), packed into `s.changes` (see [`Version::data`]); false when nothing changed.
pub(super) fn diff(old: &[u8], s: &mut Scratch) -> bool {
    let out = &mut s.changes;
    out.clear();
    let vals = &s.vals;
    let mut old = leaves(old).peekable();
    let mut new = s
        .leaves
        .iter()
        .map(|&(id, a, b)| (id, &vals[a as usize..b as usize]))
        .peekable();
    loop {
        match (old.peek().copied(), new.peek().copied()) {
            (Some(a), Some(b)) if a.0 == b.0 => {
                if a.1 != b.1 {
                    push_change(out, a.0, Some(a.1), Some(b.1));
                }
                old.next();
                new.next();
            }
            (Some(a), Some(b)) if a.0 < b.0 => {
                push_change(out, a.0, Some(a.1), None);
                old.next();
            }
            (Some(a), None) => {
                push_change(out, a.0, Some(a.1), None);
                old.next();
            }
            (_, Some(b)) => {
                push_change(out, b.0, None, Some(b.1));
                new.next();
            }
            (None, None) => break,
        }
    }
    !out.is_empty()
}
