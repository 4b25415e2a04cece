//! k9s's per-context state: `clusters/<cluster>/<context>/config.yaml`'s `k9s.namespace.active`,
//! `k9s.namespace.favorites` and `k9s.view.active` (k9s's `internal/config/data` `Context`,
//! `Namespace`, `View`). Read at start (the namespace and view to open, the favourites `1`–`9`)
//! and written back on exit as k9s writes them, so the favourites mean the same namespaces
//! tomorrow, in kinformer and in k9s.
//!
//! Writing keeps every other key of the file (its `readOnly`, `skin`, `featureGates` …): the
//! file is read as a YAML document, the three keys set, and the whole written to a temporary
//! file beside it, then renamed over it (a crash never leaves half a file). k9s keeps at most
//! 9 favourites; so does this.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// k9s's `MaxFavoritesNS`.
pub const MAX_FAVORITES: usize = 9;

/// What a context's file says of its namespaces and view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextState {
    /// The file (it may not exist yet: k9s and kinformer create it on exit).
    pub path: PathBuf,
    /// `k9s.namespace.active` (`all`: every namespace, as k9s writes it).
    pub active_namespace: Option<String>,
    /// `k9s.namespace.favorites`, most recent first.
    pub favorites: Vec<String>,
    /// `k9s.namespace.lockFavorites`: the favourites are not changed on exit.
    pub lock_favorites: bool,
    /// `k9s.view.active` (`po`, `deploy`, `helm` …).
    pub view: Option<String>,
}

#[derive(Deserialize, Default)]
struct File {
    #[serde(default)]
    k9s: K9s,
}

#[derive(Deserialize, Default)]
struct K9s {
    #[serde(default)]
    namespace: Namespace,
    #[serde(default)]
    view: View,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Namespace {
    active: Option<String>,
    #[serde(default)]
    favorites: Vec<String>,
    #[serde(default)]
    lock_favorites: bool,
}

#[derive(Deserialize, Default)]
struct View {
    active: Option<String>,
}

/// Parse a context's `config.yaml` text (`path` is where it is, for the state to be written
/// back there).
pub fn parse(text: &str, path: &Path) -> Result<ContextState, super::error::Error> {
    let f: Option<File> = super::yaml::parse(text, path)?;
    let k = f.unwrap_or_default().k9s;
    let nonempty = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
    Ok(ContextState {
        path: path.to_path_buf(),
        active_namespace: nonempty(k.namespace.active),
        favorites: k
            .namespace
            .favorites
            .into_iter()
            .filter(|f| !f.trim().is_empty())
            .take(MAX_FAVORITES)
            .collect(),
        lock_favorites: k.namespace.lock_favorites,
        view: nonempty(k.view.active),
    })
}

/// `text` (a context's `config.yaml`, empty when there is none) with the state set, as k9s
/// writes it; every other key kept.
pub fn updated(
    text: &str,
    context: &str,
    active_namespace: &str,
    favorites: &[String],
    view: &str,
) -> Result<String, String> {
    use serde_norway::{Mapping, Value};
    let mut doc: Value = if text.trim().is_empty() {
        Value::Mapping(Mapping::new())
    } else {
        serde_norway::from_str(text).map_err(|e| e.to_string())?
    };
    if !doc.is_mapping() {
        doc = Value::Mapping(Mapping::new());
    }
    /// The mapping under `key` of mapping `v`, made one when it is not.
    fn child<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
        let Value::Mapping(m) = v else { return None };
        let k = Value::from(key);
        if !m.get(&k).is_some_and(Value::is_mapping) {
            m.insert(k.clone(), Value::Mapping(Mapping::new()));
        }
        m.get_mut(&k)
    }
    let k9s = child(&mut doc, "k9s").ok_or("not a YAML mapping")?;
    if let Value::Mapping(m) = &mut *k9s
        && m.get("cluster").is_none()
    {
        m.insert(Value::from("cluster"), Value::from(context));
    }
    if let Some(Value::Mapping(m)) = child(k9s, "namespace") {
        m.insert(Value::from("active"), Value::from(active_namespace));
        let locked = m
            .get("lockFavorites")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if !locked {
            let favs: Vec<Value> = favorites
                .iter()
                .take(MAX_FAVORITES)
                .map(|f| Value::from(f.as_str()))
                .collect();
            m.insert(Value::from("favorites"), Value::Sequence(favs));
        }
    }
    if let Some(Value::Mapping(m)) = child(k9s, "view") {
        m.insert(Value::from("active"), Value::from(view));
    }
    serde_norway::to_string(&doc).map_err(|e| e.to_string())
}

/// Write the state into the file at `path` (created with its directories when missing),
/// atomically: a temporary file beside it renamed over it.
pub fn save(
    path: &Path,
    context: &str,
    active_namespace: &str,
    favorites: &[String],
    view: &str,
) -> Result<(), String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let out = updated(&text, context, active_namespace, favorites, view)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let tmp = path.with_extension(format!("yaml.kinformer-{}", std::process::id()));
    std::fs::write(&tmp, out).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context file as k9s 0.32 writes it.
    const K9S_SAMPLE: &str = "k9s:
  cluster: kind-demo
  readOnly: false
  skin: dracula
  namespace:
    active: shop
    lockFavorites: false
    favorites:
    - shop
    - kube-system
    - default
  view:
    active: dp
  featureGates:
    nodeShell: true
  portForwardAddress: localhost
";

    #[test]
    fn a_k9s_context_file_gives_the_active_namespace_favourites_and_view() {
        let s = parse(K9S_SAMPLE, Path::new("c.yaml")).unwrap();
        assert_eq!(s.active_namespace.as_deref(), Some("shop"));
        assert_eq!(s.favorites, ["shop", "kube-system", "default"]);
        assert_eq!(s.view.as_deref(), Some("dp"));
        assert!(!s.lock_favorites);
    }

    #[test]
    fn the_state_round_trips_through_k9ss_format_and_keeps_the_other_keys() {
        let favs: Vec<String> = ["payments", "shop", "kube-system", "default"]
            .map(String::from)
            .into();
        let out = updated(K9S_SAMPLE, "kind-demo", "payments", &favs, "helm").unwrap();
        let back = parse(&out, Path::new("c.yaml")).unwrap();
        assert_eq!(back.active_namespace.as_deref(), Some("payments"));
        assert_eq!(back.favorites, favs);
        assert_eq!(back.view.as_deref(), Some("helm"));
        // k9s's other keys stay as they were.
        let v: serde_norway::Value = serde_norway::from_str(&out).unwrap();
        assert_eq!(v["k9s"]["skin"], serde_norway::Value::from("dracula"));
        assert_eq!(
            v["k9s"]["featureGates"]["nodeShell"],
            serde_norway::Value::from(true)
        );
        assert_eq!(
            v["k9s"]["portForwardAddress"],
            serde_norway::Value::from("localhost")
        );
        // And the written text reads back the same again (a fixed point).
        assert_eq!(
            updated(&out, "kind-demo", "payments", &favs, "helm").unwrap(),
            out
        );
    }

    #[test]
    fn locked_favourites_are_kept_and_at_most_nine_are_written() {
        let locked = K9S_SAMPLE.replace("lockFavorites: false", "lockFavorites: true");
        let out = updated(&locked, "kind-demo", "x", &["x".to_string()], "po").unwrap();
        assert_eq!(
            parse(&out, Path::new("c")).unwrap().favorites,
            ["shop", "kube-system", "default"]
        );
        let many: Vec<String> = (0..12).map(|i| format!("ns{i}")).collect();
        let out = updated("", "ctx", "ns0", &many, "po").unwrap();
        let s = parse(&out, Path::new("c")).unwrap();
        assert_eq!(s.favorites.len(), MAX_FAVORITES);
        assert!(out.contains("cluster: ctx"), "{out}");
    }

    #[test]
    fn saving_creates_the_file_atomically_where_k9s_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clusters/kind/kind-demo/config.yaml");
        save(&path, "kind-demo", "shop", &["shop".into()], "po").unwrap();
        let s = parse(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
        assert_eq!(s.favorites, ["shop"]);
        let leftovers = std::fs::read_dir(path.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file left");
    }
}
