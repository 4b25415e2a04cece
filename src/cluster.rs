//! Connecting to a cluster: kubeconfig loading, context selection, server version and discovery.
//!
//! Everything here turns bad input into one clear [`ClusterError`] line (missing or malformed
//! kubeconfig, unknown context, unreachable server, forbidden discovery): never a stack trace.

use std::path::{Path, PathBuf};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::discovery::ApiResource;

pub mod discovery_cache;
pub use discovery_cache::DiscoveryCache;

/// Errors of the cluster-connection layer.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error(
        "kubeconfig {path} not found: pass --kubeconfig FILE with a kubeconfig, or try --demo for a built-in demo cluster"
    )]
    KubeconfigMissing { path: String },
    #[error(
        "no kubeconfig found ({looked}): pass --kubeconfig FILE, set $KUBECONFIG, or try --demo for a built-in demo cluster"
    )]
    NoKubeconfig {
        /// Where we looked, for the message (`~/.kube/config does not exist`, ...).
        looked: String,
    },
    #[error("kubeconfig {path} cannot be used: {message}")]
    KubeconfigInvalid { path: String, message: String },
    #[error("context {context:?} not found in kubeconfig {path} (available: {available})")]
    UnknownContext {
        context: String,
        path: String,
        available: String,
    },
    #[error("kubeconfig {path} has no current-context: pass --context (available: {available})")]
    NoCurrentContext { path: String, available: String },
    #[error("cannot build a client for context {context:?}: {message}")]
    Client { context: String, message: String },
    #[error("cannot reach the API server at {server}: {message}")]
    Unreachable { server: String, message: String },
    #[error("the API server at {server} refused discovery: {message}")]
    Discovery { server: String, message: String },
}

/// What the user asked for on the command line.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
}

/// A loaded kubeconfig context: the client plus what the header shows.
#[derive(Clone)]
pub struct Connection {
    pub client: kube::Client,
    /// Name of the context in use.
    pub context: String,
    /// All context names in the kubeconfig (for `:ctx` completion).
    pub contexts: Vec<String>,
    /// The context's namespace (or `default`).
    pub default_namespace: String,
    /// The server URL.
    pub server: String,
    /// Where the kubeconfig came from (for messages and `:ctx`).
    pub kubeconfig_path: String,
    /// TLS certificate verification is off: only when the kubeconfig's cluster says
    /// `insecure-skip-tls-verify: true` (the header should say so).
    pub insecure_skip_tls_verify: bool,
    /// kubectl's `--cache-dir` (discovery is cached under `ROOT/discovery/HOST`, see
    /// [`discovery_cache`]); `None`: discovery is always asked of the server.
    pub cache_root: Option<PathBuf>,
    kubeconfig: Kubeconfig,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the kubeconfig: it holds tokens and keys.
        f.debug_struct("Connection")
            .field("context", &self.context)
            .field("server", &self.server)
            .field("default_namespace", &self.default_namespace)
            .field("insecure_skip_tls_verify", &self.insecure_skip_tls_verify)
            .finish_non_exhaustive()
    }
}

/// A kubeconfig error as a short clause in plain words (kube's own texts repeat "kubeconfig" and
/// quote paths as Rust debug strings: `failed to read kubeconfig from '"/x/.kube/config"'`).
fn describe_kubeconfig_error(e: &KubeconfigError) -> String {
    match e {
        KubeconfigError::ReadConfig(io, path) => {
            format!("cannot read {}: {}", path.display(), io_text(io))
        }
        // A YAML parse error's Display is a multi-line report quoting the offending lines of the
        // file, which may hold a token or a client key: keep only its first line (what and where).
        KubeconfigError::Parse(inner) => {
            format!("not a valid kubeconfig: {}", first_line(&inner.to_string()))
        }
        KubeconfigError::CurrentContextNotSet => "no current-context is set".to_string(),
        KubeconfigError::LoadContext(name) => format!("context {name:?} is not defined"),
        KubeconfigError::LoadClusterOfContext(name) => {
            format!("its cluster {name:?} is not defined")
        }
        KubeconfigError::MissingClusterUrl => "its cluster has no server URL".to_string(),
        KubeconfigError::ParseClusterUrl(err) => {
            format!("its cluster's server URL is invalid: {err}")
        }
        KubeconfigError::LoadCertificateAuthority(err) => {
            format!(
                "cannot load its certificate-authority: {}",
                describe_load_data_error(err)
            )
        }
        KubeconfigError::LoadClientCertificate(err) => {
            format!(
                "cannot load its client-certificate: {}",
                describe_load_data_error(err)
            )
        }
        KubeconfigError::LoadClientKey(err) => {
            format!(
                "cannot load its client-key: {}",
                describe_load_data_error(err)
            )
        }
        other => first_line(&other.to_string()),
    }
}

fn describe_load_data_error(e: &kube::config::LoadDataError) -> String {
    match e {
        kube::config::LoadDataError::ReadFile(io, path) => {
            format!("cannot read {}: {}", path.display(), io_text(io))
        }
        other => first_line(&other.to_string()),
    }
}

/// `No such file or directory` rather than `No such file or directory (os error 2)`.
fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => first_line(&e.to_string()),
    }
}

fn first_line(text: &str) -> String {
    one_line(text.lines().next().unwrap_or_default())
}

/// Load the kubeconfig (explicit path, else `$KUBECONFIG`, else `~/.kube/config`), as kubectl
/// does: an explicit path must exist; files listed in `$KUBECONFIG` that do not exist are
/// skipped, the others merged (the first to set a value wins); an empty `$KUBECONFIG` counts as
/// unset.
pub fn load_kubeconfig(path: Option<&Path>) -> Result<(Kubeconfig, String), ClusterError> {
    if let Some(p) = path {
        let shown = p.display().to_string();
        if !p.exists() {
            return Err(ClusterError::KubeconfigMissing { path: shown });
        }
        let kc = Kubeconfig::read_from(p).map_err(|e| ClusterError::KubeconfigInvalid {
            path: shown.clone(),
            message: describe_kubeconfig_error(&e),
        })?;
        return Ok((kc, shown));
    }
    let listed: Vec<PathBuf> = std::env::var_os("KUBECONFIG")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default();
    if listed.is_empty() {
        let Some(default) = dirs::home_dir().map(|h| h.join(".kube").join("config")) else {
            return Err(ClusterError::NoKubeconfig {
                looked: "no home directory to find ~/.kube/config in".to_string(),
            });
        };
        let shown = default.display().to_string();
        if !default.exists() {
            return Err(ClusterError::NoKubeconfig {
                looked: format!("{shown} does not exist"),
            });
        }
        let kc = Kubeconfig::read_from(&default).map_err(|e| ClusterError::KubeconfigInvalid {
            path: shown.clone(),
            message: describe_kubeconfig_error(&e),
        })?;
        return Ok((kc, shown));
    }
    let existing: Vec<&PathBuf> = listed.iter().filter(|p| p.exists()).collect();
    if existing.is_empty() {
        let names: Vec<String> = listed.iter().map(|p| p.display().to_string()).collect();
        return Err(ClusterError::NoKubeconfig {
            looked: format!(
                "$KUBECONFIG names {}, which does not exist",
                names.join(", ")
            ),
        });
    }
    let shown = existing
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    let mut merged: Option<Kubeconfig> = None;
    for p in existing {
        let invalid = |e: KubeconfigError| ClusterError::KubeconfigInvalid {
            path: p.display().to_string(),
            message: describe_kubeconfig_error(&e),
        };
        let kc = Kubeconfig::read_from(p).map_err(invalid)?;
        merged = Some(match merged {
            Some(m) => m.merge(kc).map_err(invalid)?,
            None => kc,
        });
    }
    Ok((merged.unwrap_or_default(), shown))
}

/// One kubeconfig context as the `:ctx` table lists it: its name, cluster, user and default
/// namespace (no credential).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContextRow {
    pub name: String,
    pub cluster: String,
    pub user: String,
    pub namespace: Option<String>,
}

impl Connection {
    /// Load the kubeconfig and build a client for the requested (or current) context.
    /// Does not contact the server; see [`Connection::server_version`].
    pub async fn open(opts: &ConnectOptions) -> Result<Self, ClusterError> {
        let (kubeconfig, path) = load_kubeconfig(opts.kubeconfig.as_deref())?;
        Self::from_kubeconfig(kubeconfig, path, opts.context.clone()).await
    }

    /// Every context of the kubeconfig with its cluster, user and namespace, in kubeconfig
    /// order (the `:ctx` table; no credential is read).
    pub fn context_rows(&self) -> Vec<ContextRow> {
        self.kubeconfig
            .contexts
            .iter()
            .map(|c| {
                let ctx = c.context.as_ref();
                ContextRow {
                    name: c.name.clone(),
                    cluster: ctx.map(|x| x.cluster.clone()).unwrap_or_default(),
                    user: ctx.and_then(|x| x.user.clone()).unwrap_or_default(),
                    namespace: ctx.and_then(|x| x.namespace.clone()),
                }
            })
            .collect()
    }

    /// Build a client for `context` (or the current context) of an already-loaded kubeconfig.
    pub async fn from_kubeconfig(
        kubeconfig: Kubeconfig,
        path: String,
        context: Option<String>,
    ) -> Result<Self, ClusterError> {
        let contexts: Vec<String> = kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
        let available = if contexts.is_empty() {
            "none".to_string()
        } else {
            contexts.join(", ")
        };
        let context = match context.or_else(|| kubeconfig.current_context.clone()) {
            Some(c) if !c.is_empty() => c,
            _ => {
                return Err(ClusterError::NoCurrentContext { path, available });
            }
        };
        if !contexts.iter().any(|c| c == &context) {
            return Err(ClusterError::UnknownContext {
                context,
                path,
                available,
            });
        }
        let options = KubeConfigOptions {
            context: Some(context.clone()),
            ..Default::default()
        };
        let config = kube::Config::from_custom_kubeconfig(kubeconfig.clone(), &options)
            .await
            .map_err(|e| ClusterError::KubeconfigInvalid {
                path: path.clone(),
                message: format!("context {context:?}: {}", describe_kubeconfig_error(&e)),
            })?;
        let server = config.cluster_url.to_string();
        let default_namespace = config.default_namespace.clone();
        let insecure_skip_tls_verify = config.accept_invalid_certs;
        install_tls_provider();
        // kube's built-in retry of 429/503/504 is off: the reflector must see those answers at
        // once (a "too large resource version" 504 calls for a consistent relist).
        let client = crate::informer::list_watch::client_for_informers(config).map_err(|e| {
            ClusterError::Client {
                context: context.clone(),
                message: describe_client_error(&e.to_string()),
            }
        })?;
        Ok(Self {
            client,
            context,
            contexts,
            default_namespace,
            server,
            kubeconfig_path: path,
            insecure_skip_tls_verify,
            cache_root: None,
            kubeconfig,
        })
    }

    /// Switch to another context of the same kubeconfig (`:ctx NAME`).
    pub async fn switch_context(&self, context: &str) -> Result<Self, ClusterError> {
        let mut c = Self::from_kubeconfig(
            self.kubeconfig.clone(),
            self.kubeconfig_path.clone(),
            Some(context.to_string()),
        )
        .await?;
        c.cache_root = self.cache_root.clone();
        Ok(c)
    }

    /// This server's discovery cache, when a cache root is set.
    pub fn discovery_cache(&self) -> Option<DiscoveryCache> {
        self.cache_root
            .as_deref()
            .map(|root| DiscoveryCache::new(root, &self.server))
    }

    /// `GET /version`: proves the server is reachable and gives the header its version.
    pub async fn server_version(&self) -> Result<String, ClusterError> {
        let info =
            self.client
                .apiserver_version()
                .await
                .map_err(|e| ClusterError::Unreachable {
                    server: self.server.clone(),
                    message: one_line(&e.to_string()),
                })?;
        Ok(info.git_version)
    }

    /// Discover every listable and watchable resource the server serves (core group first, then
    /// each group's preferred version), with short names, as `kubectl api-resources` does.
    ///
    /// With a cache root ([`Self::cache_root`]) each document fresh in kubectl's disk cache is
    /// read from there and every other one asked of the server and written there.
    pub async fn discover(&self) -> Result<Vec<ResourceInfo>, ClusterError> {
        self.discover_with(self.discovery_cache().as_ref(), true)
            .await
    }

    /// [`Self::discover`] reading no cached document (kubectl's `Invalidate`): a kind was typed
    /// that the cached documents do not name, so everything is asked of the server again (and
    /// the cache rewritten).
    pub async fn rediscover(&self) -> Result<Vec<ResourceInfo>, ClusterError> {
        self.discover_with(self.discovery_cache().as_ref(), false)
            .await
    }

    /// The kinds (cache or server) and, at the same time, the CRDs' printer columns: with 300
    /// CRDs their list is the longer of the two (a provider's CRD carries a big schema), and it
    /// no longer waits for discovery to end before it starts.
    async fn discover_with(
        &self,
        cache: Option<&DiscoveryCache>,
        read_cache: bool,
    ) -> Result<Vec<ResourceInfo>, ClusterError> {
        let (kinds, crds) =
            futures::join!(self.discover_kinds(cache, read_cache), self.list_crds());
        let mut out = kinds?;
        let serves_crds = out.iter().any(|r| {
            r.api_resource.group == "apiextensions.k8s.io"
                && r.api_resource.plural == "customresourcedefinitions"
        });
        match crds {
            Ok(items) if serves_crds => attach_printer_columns(&mut out, &items),
            Ok(_) => {}
            Err(e) if serves_crds => {
                tracing::warn!(error = %e, "listing CRDs failed; custom resources show NAME AGE")
            }
            Err(_) => {}
        }
        Ok(out)
    }

    async fn discover_kinds(
        &self,
        cache: Option<&DiscoveryCache>,
        read_cache: bool,
    ) -> Result<Vec<ResourceInfo>, ClusterError> {
        let client = &self.client;
        let now = std::time::SystemTime::now();
        let readable = cache.filter(|_| read_cache);
        let disc_err = |e: kube::Error| {
            let msg = one_line(&e.to_string());
            if is_connect_error(&e) {
                ClusterError::Unreachable {
                    server: self.server.clone(),
                    message: msg,
                }
            } else {
                ClusterError::Discovery {
                    server: self.server.clone(),
                    message: msg,
                }
            }
        };
        // The groups: the legacy core group first (as client-go's ServerGroups lists it), then
        // `/apis`'s.
        let groups = match readable.and_then(|c| c.groups(now)) {
            Some(g) => g,
            None => {
                let mut g = client.list_api_groups().await.map_err(disc_err)?;
                g.groups.insert(0, core_group());
                if let Some(c) = cache {
                    c.put_groups(&g);
                }
                g
            }
        };
        // Every group version asked at once (kubectl's discovery does the same), each read from
        // the cache when fresh there, then taken in the groups' order: one round trip for all.
        let asks = groups.groups.iter().filter_map(|group| {
            let version = group
                .preferred_version
                .as_ref()
                .or_else(|| group.versions.first())?;
            Some(async move {
                if let Some(list) = readable.and_then(|c| c.resources(&version.group_version, now))
                {
                    return (group, version, Ok(list));
                }
                let list = if group.name.is_empty() {
                    client.list_core_api_resources(&version.version).await
                } else {
                    client
                        .list_api_group_resources(&version.group_version)
                        .await
                };
                if let (Ok(list), Some(c)) = (&list, cache) {
                    c.put_resources(list);
                }
                (group, version, list)
            })
        });
        let mut out = Vec::new();
        for (group, version, list) in futures::future::join_all(asks).await {
            match list {
                Ok(list) => out.extend(list.resources.iter().filter_map(|r| {
                    ResourceInfo::from_api_resource(&group.name, &version.version, r)
                })),
                // Without the core group nothing works: that is the server refusing discovery.
                Err(e) if group.name.is_empty() => return Err(disc_err(e)),
                // One broken aggregated API (metrics-server down, say) must not hide the rest.
                Err(e) => {
                    tracing::warn!(group = %version.group_version, error = %e, "discovery of group failed; skipping it")
                }
            }
        }
        Ok(out)
    }

    /// Every CRD (one list of `apiextensions.k8s.io/v1` `customresourcedefinitions`), for each
    /// custom resource's `additionalPrinterColumns`: discovery does not carry them, and the
    /// server's Table for a custom resource is built from them (kubectl shows those columns).
    /// Without permission to list CRDs the custom resources keep NAME AGE, and the log says why.
    ///
    /// Only the fields the columns need are kept: the rest of a CRD (its schema, most of its
    /// bytes: ~6 KB in the demo's, 100 KB and more in a cloud provider's) is skipped while
    /// parsing, not built into a JSON tree.
    async fn list_crds(&self) -> Result<Vec<kube::api::DynamicObject>, kube::Error> {
        let request = http::Request::get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
            .header(http::header::ACCEPT, "application/json")
            .body(Vec::new())
            .map_err(kube::Error::HttpError)?;
        let list: CrdColumnsList = self.client.request(request).await?;
        Ok(list
            .items
            .into_iter()
            .map(CrdColumns::into_object)
            .collect())
    }
}

/// The legacy core group as client-go's `ServerGroups` puts it first in the group list (and
/// kubectl's `servergroups.json`): name `""`, version `v1`.
fn core_group() -> k8s_openapi::apimachinery::pkg::apis::meta::v1::APIGroup {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{APIGroup, GroupVersionForDiscovery};
    let v1 = GroupVersionForDiscovery {
        group_version: "v1".into(),
        version: "v1".into(),
    };
    APIGroup {
        name: String::new(),
        versions: vec![v1.clone()],
        preferred_version: Some(v1),
        server_address_by_client_cidrs: None,
    }
}

/// A CRD list as [`Connection::list_crds`] reads it: what the printer columns need.
#[derive(serde::Deserialize)]
struct CrdColumnsList {
    #[serde(default)]
    items: Vec<CrdColumns>,
}

#[derive(serde::Deserialize)]
struct CrdColumns {
    #[serde(default)]
    metadata: kube::api::ObjectMeta,
    spec: CrdColumnsSpec,
}

#[derive(serde::Deserialize)]
struct CrdColumnsSpec {
    #[serde(default)]
    group: String,
    names: CrdColumnsNames,
    #[serde(default)]
    versions: Vec<CrdColumnsVersion>,
    /// apiextensions v1beta1's columns for every version.
    #[serde(default, rename = "additionalPrinterColumns")]
    printer_columns: Option<serde_json::Value>,
}

#[derive(serde::Deserialize)]
struct CrdColumnsNames {
    #[serde(default)]
    plural: String,
}

#[derive(serde::Deserialize)]
struct CrdColumnsVersion {
    #[serde(default)]
    name: String,
    #[serde(default, rename = "additionalPrinterColumns")]
    printer_columns: Option<serde_json::Value>,
}

impl CrdColumns {
    /// The CRD as [`attach_printer_columns`] reads one.
    fn into_object(self) -> kube::api::DynamicObject {
        let versions: Vec<serde_json::Value> = self
            .spec
            .versions
            .into_iter()
            .map(|v| {
                let mut o = serde_json::json!({ "name": v.name });
                if let Some(c) = v.printer_columns {
                    o["additionalPrinterColumns"] = c;
                }
                o
            })
            .collect();
        let mut spec = serde_json::json!({
            "group": self.spec.group,
            "names": {"plural": self.spec.names.plural},
            "versions": versions,
        });
        if let Some(c) = self.spec.printer_columns {
            spec["additionalPrinterColumns"] = c;
        }
        kube::api::DynamicObject {
            types: None,
            metadata: self.metadata,
            data: serde_json::json!({ "spec": spec }),
        }
    }
}

/// Give each discovered custom resource the printer columns its CRD declares for the version
/// discovery serves (the group's preferred one), as the apiextensions-apiserver's table
/// convertor does (a version without any gets Age).
pub fn attach_printer_columns(resources: &mut [ResourceInfo], crds: &[kube::api::DynamicObject]) {
    for crd in crds {
        let spec = crd.data.get("spec");
        let field = |path: &[&str]| {
            let mut v = spec;
            for p in path {
                v = v.and_then(|x| x.get(*p));
            }
            v.and_then(serde_json::Value::as_str).unwrap_or("")
        };
        let (group, plural) = (field(&["group"]), field(&["names", "plural"]));
        if plural.is_empty() {
            continue;
        }
        for r in resources
            .iter_mut()
            .filter(|r| r.api_resource.group == group && r.api_resource.plural == plural)
        {
            r.printer_columns = Some(crate::render::printer_columns_from_crd(
                crd,
                &r.api_resource.version,
            ));
        }
    }
}

/// Install (once per process) rustls' `ring` provider with one change: private keys loaded for
/// client authentication do not report their public key. rustls compares that key with the
/// client certificate's, and to do so parses the certificate with webpki, which refuses X.509 v1
/// certificates (`UnsupportedCertVersion`); kubectl (Go's crypto/tls) sends them, and API servers
/// accept them. Without the public key rustls skips that comparison ("unknown consistency", as
/// for hardware keys) and sends the certificate as it is; a key that does not match the
/// certificate is then refused by the server in the handshake instead of here.
pub fn install_tls_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let provider = rustls::crypto::CryptoProvider {
            key_provider: &KEYS_FOR_ANY_CERT_VERSION,
            ..rustls::crypto::ring::default_provider()
        };
        if provider.install_default().is_err() {
            tracing::debug!("a rustls crypto provider was already installed; X.509 v1 client certificates may be refused");
        }
    });
}

static KEYS_FOR_ANY_CERT_VERSION: KeysForAnyCertVersion = KeysForAnyCertVersion;

#[derive(Debug)]
struct KeysForAnyCertVersion;

impl rustls::crypto::KeyProvider for KeysForAnyCertVersion {
    fn load_private_key(
        &self,
        key_der: rustls::pki_types::PrivateKeyDer<'static>,
    ) -> Result<std::sync::Arc<dyn rustls::sign::SigningKey>, rustls::Error> {
        let key = rustls::crypto::ring::sign::any_supported_type(&key_der)?;
        Ok(std::sync::Arc::new(KeyWithoutSpki(key)))
    }
}

/// A signing key that does not tell its public key (see [`install_tls_provider`]).
#[derive(Debug)]
struct KeyWithoutSpki(std::sync::Arc<dyn rustls::sign::SigningKey>);

impl rustls::sign::SigningKey for KeyWithoutSpki {
    fn choose_scheme(
        &self,
        offered: &[rustls::SignatureScheme],
    ) -> Option<Box<dyn rustls::sign::Signer>> {
        self.0.choose_scheme(offered)
    }
    fn algorithm(&self) -> rustls::SignatureAlgorithm {
        self.0.algorithm()
    }
}

/// The client could not be built: say which part of the kubeconfig is at fault when the TLS stack
/// refused the client certificate or key.
fn describe_client_error(text: &str) -> String {
    if text.contains("invalid private key") || text.contains("identity PEM") {
        let detail = text.rsplit(": ").next().unwrap_or(text);
        format!(
            "the TLS stack refused the user's client-certificate/client-key ({detail}); check that both are PEM and that the key belongs to the certificate"
        )
    } else {
        one_line(text)
    }
}

fn is_connect_error(e: &kube::Error) -> bool {
    !matches!(e, kube::Error::Api(_))
}

/// Collapse an error message to one line.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One resource kind the server serves (a row of `kubectl api-resources`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceInfo {
    pub api_resource: ApiResource,
    pub namespaced: bool,
    pub singular: String,
    pub short_names: Vec<String>,
    pub verbs: Vec<String>,
    /// A custom resource's `additionalPrinterColumns` for the served version (from its CRD).
    pub printer_columns: Option<Vec<crate::render::PrinterColumn>>,
}

impl ResourceInfo {
    /// From a discovery `APIResource`; `None` for subresources and kinds that cannot be listed
    /// and watched (an informer needs both).
    pub fn from_api_resource(group: &str, version: &str, r: &APIResource) -> Option<Self> {
        if r.name.contains('/') {
            return None;
        }
        let verbs = r.verbs.clone();
        if !verbs.iter().any(|v| v == "list") || !verbs.iter().any(|v| v == "watch") {
            return None;
        }
        let api_version = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        Some(Self {
            api_resource: ApiResource {
                group: group.to_string(),
                version: version.to_string(),
                api_version,
                kind: r.kind.clone(),
                plural: r.name.clone(),
            },
            namespaced: r.namespaced,
            singular: if r.singular_name.is_empty() {
                r.kind.to_lowercase()
            } else {
                r.singular_name.clone()
            },
            short_names: r.short_names.clone().unwrap_or_default(),
            verbs,
            printer_columns: None,
        })
    }

    /// `pods`, `deployments.apps`, … as kubectl names it.
    pub fn display_name(&self) -> String {
        if self.api_resource.group.is_empty() {
            self.api_resource.plural.clone()
        } else {
            format!("{}.{}", self.api_resource.plural, self.api_resource.group)
        }
    }

    /// Every name a user may type for this resource in `:` (lower-case).
    pub fn aliases(&self) -> Vec<String> {
        let mut v = vec![
            self.api_resource.plural.to_lowercase(),
            self.singular.to_lowercase(),
            self.api_resource.kind.to_lowercase(),
            self.display_name().to_lowercase(),
        ];
        v.extend(self.short_names.iter().map(|s| s.to_lowercase()));
        v.sort();
        v.dedup();
        v
    }

    /// Whether the verb is allowed (e.g. `delete`).
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }
}

/// Resolve what a user typed (`po`, `pods`, `Pod`, `deploy`, `deployments.apps`, `widgets`) to a
/// resource, as kubectl does: exact alias match, core group preferred over other groups on ties
/// (kubectl's group priority), then the first group in discovery order.
pub fn resolve<'a>(resources: &'a [ResourceInfo], typed: &str) -> Option<&'a ResourceInfo> {
    let typed = typed.trim().to_lowercase();
    if typed.is_empty() {
        return None;
    }
    let mut matches = resources.iter().filter(|r| r.aliases().contains(&typed));
    let first = matches.next()?;
    if first.api_resource.group.is_empty() {
        return Some(first);
    }
    Some(
        std::iter::once(first)
            .chain(matches)
            .find(|r| r.api_resource.group.is_empty())
            .unwrap_or(first),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 11: kubectl accepts a client certificate in X.509 v1 format (no extensions, as
    /// `openssl x509 -req` without an extension file makes it); the fixture is one. rustls' own
    /// key provider refuses it when the client config is built (the test's control: it shows
    /// the fixture is what the issue reported); ours takes it.
    #[test]
    fn x509_v1_client_certificates_are_accepted_as_kubectl_accepts_them() {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let cert_pem = include_bytes!("../tests/fixtures/tls/client-x509-v1.crt");
        let key_pem = include_bytes!("../tests/fixtures/tls/client-x509-v1.key");
        let config = |provider: rustls::crypto::CryptoProvider| {
            let cert = CertificateDer::from_pem_slice(cert_pem).expect("certificate PEM");
            let key = PrivateKeyDer::from_pem_slice(key_pem).expect("key PEM");
            rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(provider))
                .with_safe_default_protocol_versions()
                .expect("protocol versions")
                .with_root_certificates(rustls::RootCertStore::empty())
                .with_client_auth_cert(vec![cert], key)
                .map(|_| ())
        };
        let refused = config(rustls::crypto::ring::default_provider())
            .expect_err("rustls' default key provider refuses a v1 certificate");
        assert!(
            format!("{refused:?}").contains("UnsupportedCertVersion"),
            "{refused:?}"
        );
        config(rustls::crypto::CryptoProvider {
            key_provider: &KEYS_FOR_ANY_CERT_VERSION,
            ..rustls::crypto::ring::default_provider()
        })
        .expect("our key provider accepts the v1 client certificate");
    }

    #[test]
    fn malformed_kubeconfig_error_is_one_line_without_the_file_content() {
        let yaml =
            "apiVersion: v1\nusers:\n- name: u\n  user:\n    token: s3cr3t-token\n  - : : [\n";
        let err = Kubeconfig::from_yaml(yaml).expect_err("malformed YAML");
        // The raw error quotes the file around the error, token included.
        assert!(err.to_string().contains("s3cr3t-token"), "{err}");
        let text = describe_kubeconfig_error(&err);
        assert!(!text.contains('\n'), "one line: {text:?}");
        assert!(!text.contains("s3cr3t-token"), "no file content: {text:?}");
        assert!(text.contains("line"), "says where: {text:?}");
    }

    fn res(group: &str, plural: &str, kind: &str, short: &[&str]) -> ResourceInfo {
        let r = APIResource {
            name: plural.into(),
            kind: kind.into(),
            namespaced: true,
            singular_name: kind.to_lowercase(),
            short_names: Some(short.iter().map(|s| s.to_string()).collect()),
            verbs: vec!["list".into(), "watch".into(), "get".into()],
            ..Default::default()
        };
        ResourceInfo::from_api_resource(group, "v1", &r).expect("listable")
    }

    #[test]
    fn resolve_accepts_plural_singular_short_name_and_kind() {
        let all = vec![
            res("", "pods", "Pod", &["po"]),
            res("apps", "deployments", "Deployment", &["deploy"]),
        ];
        for typed in ["po", "pods", "pod", "Pod", "POD"] {
            assert_eq!(
                resolve(&all, typed).map(|r| r.api_resource.plural.as_str()),
                Some("pods")
            );
        }
        assert_eq!(
            resolve(&all, "deployments.apps").map(|r| r.api_resource.kind.as_str()),
            Some("Deployment")
        );
        assert!(resolve(&all, "nosuchthing").is_none());
    }

    #[test]
    fn resolve_prefers_core_group_on_ambiguous_names() {
        let all = vec![
            res("events.k8s.io", "events", "Event", &["ev"]),
            res("", "events", "Event", &["ev"]),
        ];
        assert_eq!(
            resolve(&all, "ev").map(|r| r.api_resource.group.as_str()),
            Some("")
        );
    }

    #[test]
    fn subresources_and_unwatchable_kinds_are_not_resources() {
        let sub = APIResource {
            name: "pods/log".into(),
            verbs: vec!["get".into()],
            ..Default::default()
        };
        assert!(ResourceInfo::from_api_resource("", "v1", &sub).is_none());
        let nowatch = APIResource {
            name: "bindings".into(),
            verbs: vec!["create".into()],
            ..Default::default()
        };
        assert!(ResourceInfo::from_api_resource("", "v1", &nowatch).is_none());
    }

    #[tokio::test]
    async fn unknown_context_names_the_available_ones() {
        let yaml = r#"
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: one, context: {cluster: c, user: u}}]
current-context: one
"#;
        let kc = Kubeconfig::from_yaml(yaml).expect("valid yaml");
        let err = Connection::from_kubeconfig(kc, "test".into(), Some("two".into()))
            .await
            .expect_err("unknown context");
        let msg = err.to_string();
        assert!(
            msg.contains("\"two\"") && msg.contains("available: one"),
            "{msg}"
        );
    }

    #[test]
    fn missing_kubeconfig_file_is_a_clear_error() {
        let err = load_kubeconfig(Some(Path::new("/nonexistent/kubeconfig"))).expect_err("missing");
        assert_eq!(
            err.to_string(),
            "kubeconfig /nonexistent/kubeconfig not found: pass --kubeconfig FILE with a \
             kubeconfig, or try --demo for a built-in demo cluster"
        );
    }
}
