//! The built-in demo cluster: a Kubernetes-API-compatible server on loopback.
//!
//! - [`server`]: the axum HTTP server ([`DemoServer`], [`DemoHandle`], [`DemoOptions`]);
//! - [`cluster`]: storage with one global resourceVersion, history/compaction, watch fan-out;
//! - [`resources`]: the served kinds and discovery documents; [`table`]: server-side printing;
//! - [`metrics`]: `metrics.k8s.io` (PodMetrics, NodeMetrics) with usage following the simulation;
//! - [`patch`]: merge / JSON / strategic-merge patches; [`faults`]: fault injection;
//! - [`managed`]: managed fields and server-side apply (conflicts, `force`);
//! - [`logs`]: `pods/{name}/log`, container logs generated from the pod's container instances;
//! - [`proto`]: the little protobuf kubectl's `create namespace|configmap|secret` sends;
//! - [`eviction`]: the Eviction subresource and PodDisruptionBudget status;
//! - [`exec`], [`shell`], [`portforward`]: exec/attach and port-forward over websockets, into a
//!   simulated shell and HTTP page per pod; [`spdy`]: SPDY/3.1 port-forward for kubectl;
//! - [`fleet`]: several demo servers with one kubeconfig (a context per server);
//! - [`churn`]: the loop feeding simulator mutations into the cluster;
//! - [`sim`] and [`objects`]: the deterministic churn simulator and realistic object builders.
//!
//! Never imported by the informer core.
//!
//! # What it answers as kube-apiserver does
//!
//! - **Lists and watches**: pagination with kube-apiserver's list semantics (RV "0",
//!   `NotOlderThan` and RV-without-limit lists answered whole from a cache view, ignoring
//!   `limit`; an RV with a limit and no `resourceVersionMatch`, or `Exact`, read exactly), a watch
//!   cache that restarts at the current revision with the server, bookmarks, `sendInitialEvents`,
//!   410 Gone after compaction, label and field selectors; create/update/patch/delete with
//!   optimistic concurrency; server-side Table printing for kubectl. Server-side apply
//!   (`application/apply-patch+yaml`, `fieldManager`, `force`) with `managedFields` per manager
//!   and 409 `FieldManagerConflict`s, and `dryRun=All` on create/update/patch/apply/delete
//!   (nothing stored, no resourceVersion spent) ([`managed`]). `--no-watch-list` mimics an
//!   etcd without RequestWatchProgress (before 3.4.31/3.5.13): a streaming list gets the 500
//!   ERROR event kube-apiserver sends, so informers fall back to list + watch
//!   (`tests/no_watch_list.rs`).
//! - **Protobuf** for the kinds with a table ([`wire`]): each stored object version is encoded on
//!   its first protobuf request and kept, as the watch cache keeps serializations.
//! - **RBAC** ([`rbac`]): with `--as-namespace-user NS` a user `jane` (token `jane-token`, or
//!   impersonated with `as: jane`) may get/list/watch pods, events and configmaps in `NS` only;
//!   everything else answers kube-apiserver's 403, and SelfSubjectAccessReview /
//!   SelfSubjectRulesReview answer from the same rules, so `kubectl auth can-i` works.
//! - **metrics.k8s.io** ([`metrics`]) as an aggregated API (get and list): usage follows the
//!   simulation (hot pods at their CPU limit, memory climbers OOMKilled at their limit); `kubectl
//!   top` works. `POST /_demo/faults/metrics?mode=serving|absent|unavailable|forbidden` switches it.
//! - **Client writes the simulator follows**: a scale creates or deletes pods; a pod-template
//!   change (`rollout restart`, `set image`, an edit) rolls the workload as its controller does
//!   ([`sim`]'s rollout); a deleted pod of a simulated workload is replaced by its ReplicaSet or
//!   DaemonSet as soon as it is terminating, by its StatefulSet under the same name once it is
//!   gone; a cordon survives the node controller's status updates and the scheduler places no
//!   new pod there. The simulated controllers never overwrite a client's spec they have not
//!   observed (the stored generation is ahead). Workloads a client creates are stored but not run
//!   (no pods; a CronJob is not scheduled). A written CronJob gets kube-apiserver's spec defaults;
//!   other kinds are stored as sent. A strategic-merge patch merges the lists the Kubernetes
//!   types key ([`patch`]), so `kubectl set image` on one container of several keeps the others.
//! - **Streams**: exec/attach and port-forward over websockets (`v5.channel.k8s.io`,
//!   `v4.channel.k8s.io`) into a simulated shell ([`shell`]: `ls`, `cat`, `cd`, `env`, `ps`,
//!   `exit N`... over a file system made from the pod spec) and an HTTP page per declared port;
//!   SPDY/3.1 port-forward ([`spdy`]) tunneled in a websocket (kubectl 1.31+) or on a plain
//!   upgrade; the Eviction subresource with PodDisruptionBudgets ([`eviction`]: 429 while a
//!   budget refuses). `kubectl exec`, `port-forward`, `scale`, `rollout restart`, `cordon`,
//!   `drain` and `delete --force` work against it (`tests/kubectl_compat/`).
//!
//! # Running it alone
//!
//! ```text
//! kinformer demo-server --pods 2000 --churn 50 --kubeconfig-out /tmp/demo.kubeconfig
//! kubectl --kubeconfig /tmp/demo.kubeconfig get pods -A -w
//! curl -X POST http://127.0.0.1:PORT/_demo/faults/drop-watches          # see faults.rs
//! curl -X POST 'http://127.0.0.1:PORT/_demo/faults/send-rate?mbps=58&pb_mbps=70'
//! ```
//!
//! `--clusters N` runs a fleet ([`fleet`]): servers named prod-eu, prod-us, staging, dev... (then
//! `cluster-<n>`), each with its own storage, faults and seed (S, S+1, ...) and port (P, P+1,
//! ...), one kubeconfig with a context each; a member's fault endpoint takes only that member
//! down. `--pod-shape realistic|compact` ([`realistic`]): `realistic` is the default of
//! `demo-server` and `bench`; `compact` stays the shape of the in-process `--demo` dashboard and
//! of the tests' simulator (it seeds 3–4× faster, and the dashboard strips the difference at
//! decode anyway).
pub mod churn;
pub mod cluster;
pub mod error;
pub mod eviction;
pub mod exec;
pub mod faults;
pub mod fleet;
pub mod kubelet;
pub mod logs;
pub mod managed;
pub mod metrics;
pub mod mutation;
pub mod objects;
pub mod openapi;
pub mod patch;
pub mod portforward;
pub mod proto;
pub mod provider_crds;
pub mod rbac;
pub mod realistic;
pub mod resources;
pub mod server;
pub mod shell;
pub mod sim;
pub mod spdy;
pub mod table;
pub mod wire;

pub use cluster::DemoCluster;
pub use error::{DemoError, StatusError};
pub use faults::FaultInjector;
pub use server::{DemoHandle, DemoOptions, DemoServer};
