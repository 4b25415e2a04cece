//! Discovery documents cached on disk exactly as kubectl caches them (client-go's
//! `discovery/cached/disk`, with kubectl's `--cache-dir`), so that kinformer and kubectl share one
//! cache: each reads the files the other wrote.
//!
//! Layout (client-go's `CachedDiscoveryClient`, `computeDiscoverCacheDir` of cli-runtime):
//! - root: `--cache-dir`, else `$KUBECACHEDIR`, else `~/.kube/cache`; discovery under
//!   `ROOT/discovery/HOST` where HOST is the server URL without `https://`/`http://` and every
//!   character other than `[A-Za-z0-9_/.()]` made `_` (`127.0.0.1:6443` → `127.0.0.1_6443`);
//! - `servergroups.json`: the `APIGroupList`, the legacy core group (`name: ""`, `v1`) first;
//! - `GROUP/VERSION/serverresources.json` (`v1/serverresources.json` for the core group): each
//!   group version's `APIResourceList`;
//! - a file is fresh for 6 hours after its modification time (kubectl's TTL); files are written
//!   to a temporary name in the same directory (mode 0660, directories 0750) and renamed.
//!
//! Invariants: a missing, stale, unreadable or malformed file is as if absent (the live document
//! is fetched and the file rewritten); a malformed one is logged once, never fatal.
//!
//! Where this differs from client-go, and why: client-go skips writing a group version with no
//! resources; so does this. Invalidation is per call ([`super::Connection::rediscover`] reads no
//! file) instead of client-go's invalidated flag with its set of files "ours": kinformer asks
//! again only when a typed kind is missing, and then wants every document fresh.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{APIGroupList, APIResourceList};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// kubectl's discovery cache TTL (cli-runtime's `ToDiscoveryClient`).
pub const TTL: Duration = Duration::from_secs(6 * 3600);

/// One server's discovery cache directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveryCache {
    dir: PathBuf,
    ttl: Duration,
}

/// kubectl's cache root: `$KUBECACHEDIR`, else `~/.kube/cache` (`--cache-dir` overrides both).
pub fn default_root() -> Option<PathBuf> {
    match std::env::var_os("KUBECACHEDIR") {
        Some(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => dirs::home_dir().map(|h| h.join(".kube").join("cache")),
    }
}

/// The directory name kubectl gives a server (cli-runtime's `computeDiscoverCacheDir`): the URL
/// without its scheme, every character but `[A-Za-z0-9_/.()]` replaced by `_`.
pub fn host_dir_name(server: &str) -> String {
    let schemeless = server
        .replacen("https://", "", 1)
        .replacen("http://", "", 1);
    schemeless
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.' | '(' | ')') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl DiscoveryCache {
    /// The cache of `server` (its kubeconfig URL) under `root` (kubectl's `--cache-dir`).
    pub fn new(root: &Path, server: &str) -> Self {
        Self {
            dir: root.join("discovery").join(host_dir_name(server)),
            ttl: TTL,
        }
    }

    /// The server's directory (`ROOT/discovery/HOST`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn groups_file(&self) -> PathBuf {
        self.dir.join("servergroups.json")
    }

    fn resources_file(&self, group_version: &str) -> PathBuf {
        self.dir.join(group_version).join("serverresources.json")
    }

    /// `servergroups.json` when fresh and well-formed.
    pub fn groups(&self, now: SystemTime) -> Option<APIGroupList> {
        self.read(&self.groups_file(), now)
    }

    /// `GV/serverresources.json` when fresh and well-formed.
    pub fn resources(&self, group_version: &str, now: SystemTime) -> Option<APIResourceList> {
        self.read(&self.resources_file(group_version), now)
    }

    /// Write `servergroups.json` (nothing for an empty list, as client-go).
    pub fn put_groups(&self, groups: &APIGroupList) {
        if !groups.groups.is_empty() {
            self.write(&self.groups_file(), groups);
        }
    }

    /// Write `GV/serverresources.json` (nothing without resources, as client-go).
    pub fn put_resources(&self, list: &APIResourceList) {
        if !list.resources.is_empty() {
            self.write(&self.resources_file(&list.group_version), list);
        }
    }

    fn read<T: DeserializeOwned>(&self, path: &Path, now: SystemTime) -> Option<T> {
        let modified = std::fs::metadata(path).ok()?.modified().ok()?;
        if modified + self.ttl < now {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        match serde_json::from_slice(&bytes) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::warn!(file = %path.display(), error = %e, "ignoring a malformed discovery cache file; asking the server");
                None
            }
        }
    }

    fn write<T: Serialize>(&self, path: &Path, doc: &T) {
        if let Err(e) = write_atomically(path, doc) {
            tracing::warn!(file = %path.display(), error = %e, "cannot write the discovery cache");
        }
    }
}

fn write_atomically<T: Serialize>(path: &Path, doc: &T) -> std::io::Result<()> {
    let Some(dir) = path.parent() else {
        return Ok(());
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o750);
    builder.create(dir)?;
    let bytes = serde_json::to_vec(doc).map_err(std::io::Error::other)?;
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!("{base}.{}{nanos}", std::process::id()));
    std::fs::write(&tmp, &bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o660))?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_directory_is_named_as_kubectl_names_it() {
        assert_eq!(host_dir_name("https://127.0.0.1:6443"), "127.0.0.1_6443");
        assert_eq!(host_dir_name("http://127.0.0.1:37611"), "127.0.0.1_37611");
        assert_eq!(
            host_dir_name("https://api.example.com:443/k8s/clusters/c-1"),
            "api.example.com_443/k8s/clusters/c_1"
        );
        assert_eq!(host_dir_name("https://[::1]:6443"), "___1__6443");
    }

    fn list(gv: &str, plural: &str) -> APIResourceList {
        serde_json::from_value(serde_json::json!({
            "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
            "resources": [{"name": plural, "singularName": "", "namespaced": true, "kind": "K",
                           "verbs": ["list", "watch"]}]}))
        .unwrap()
    }

    #[test]
    fn a_written_file_is_read_back_until_six_hours_after_it_was_written() {
        let root = tempfile::tempdir().unwrap();
        let cache = DiscoveryCache::new(root.path(), "https://10.0.0.1:6443");
        cache.put_resources(&list("apps/v1", "deployments"));
        let file = root
            .path()
            .join("discovery/10.0.0.1_6443/apps/v1/serverresources.json");
        let text = std::fs::read_to_string(&file).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            (doc["kind"].as_str(), doc["apiVersion"].as_str()),
            (Some("APIResourceList"), Some("v1")),
            "{text}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o660);
        }
        let now = SystemTime::now();
        let got = cache.resources("apps/v1", now).unwrap();
        assert_eq!(got.resources[0].name, "deployments");
        assert!(
            cache
                .resources("apps/v1", now + TTL - Duration::from_secs(60))
                .is_some()
        );
        assert!(
            cache
                .resources("apps/v1", now + TTL + Duration::from_secs(60))
                .is_none()
        );
        assert!(cache.resources("batch/v1", now).is_none());
    }

    #[test]
    fn a_malformed_or_empty_cache_file_is_ignored_not_fatal() {
        let root = tempfile::tempdir().unwrap();
        let cache = DiscoveryCache::new(root.path(), "https://10.0.0.1:6443");
        std::fs::create_dir_all(cache.dir().join("v1")).unwrap();
        std::fs::write(cache.dir().join("servergroups.json"), "{not json").unwrap();
        std::fs::write(cache.dir().join("v1/serverresources.json"), "").unwrap();
        let now = SystemTime::now();
        assert!(cache.groups(now).is_none());
        assert!(cache.resources("v1", now).is_none());
        // Rewritten with a good document, it is read again.
        cache.put_resources(&list("v1", "pods"));
        assert_eq!(
            cache.resources("v1", now).unwrap().resources[0].name,
            "pods"
        );
    }
}
