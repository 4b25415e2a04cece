//! Workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job) and the pod templates their
//! containers are rendered from, as kube-apiserver returns them.

use super::*;

/// What kind of program an app runs; drives ports, probes and resources of its containers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppFlavor {
    /// An HTTP service with readiness/liveness probes on `/healthz`.
    Http,
    /// A queue consumer / background worker without ports.
    Worker,
    /// A database-like stateful server.
    Database,
    /// A node agent (daemonset), usually hostNetwork.
    Agent,
    /// A control-plane static pod (etcd, kube-apiserver, ...) run by the kubelet from a manifest.
    ControlPlane,
    /// A batch job that runs to completion.
    Batch,
}

/// The pod template of a workload, in a form cheap to render many times.
#[derive(Debug, Clone)]
pub struct PodTemplate {
    pub app: String,
    pub container: String,
    pub image: String,
    pub port: Option<(u16, &'static str)>,
    pub flavor: AppFlavor,
    pub cpu_request: &'static str,
    pub memory_request: &'static str,
    pub memory_limit: &'static str,
    pub cpu_limit: Option<&'static str>,
    pub service_account: String,
    pub host_network: bool,
    pub priority_class: Option<&'static str>,
    /// ConfigMap mounted at `/etc/<app>`, if any.
    pub config_map: Option<String>,
    /// Secret exposed as env, if any.
    pub secret: Option<String>,
    pub env: Vec<(String, String)>,
    /// Labels of the template (selector labels included).
    pub labels: Vec<(String, String)>,
}

impl PodTemplate {
    pub fn label_map(&self) -> Map<String, Value> {
        self.labels
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect()
    }

    /// The selector's matchLabels (app.kubernetes.io/name + instance when present; else
    /// `k8s-app`, as kube-system's add-ons select; else every label). Never empty: the API
    /// server refuses a workload with an empty selector.
    pub fn selector_map(&self) -> Map<String, Value> {
        let pick = |keep: &dyn Fn(&str) -> bool| -> Map<String, Value> {
            self.labels
                .iter()
                .filter(|(k, _)| keep(k))
                .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
                .collect()
        };
        let m = pick(&|k| {
            k == "app.kubernetes.io/name" || k == "app.kubernetes.io/instance" || k == "app"
        });
        if !m.is_empty() {
            return m;
        }
        let m = pick(&|k| k == "k8s-app");
        if !m.is_empty() {
            return m;
        }
        pick(&|_| true)
    }

    fn container(&self) -> Value {
        let mut c = Map::new();
        c.insert("name".into(), Value::from(self.container.as_str()));
        c.insert("image".into(), Value::from(self.image.as_str()));
        c.insert("imagePullPolicy".into(), Value::from("IfNotPresent"));
        if let Some((port, name)) = self.port {
            let mut p = json!({"containerPort": port, "name": name, "protocol": "TCP"});
            if self.host_network
                && let Some(m) = p.as_object_mut()
            {
                m.insert("hostPort".into(), Value::from(port));
            }
            c.insert("ports".into(), json!([p]));
        }
        let mut env: Vec<Value> = self
            .env
            .iter()
            .map(|(k, v)| json!({"name": k, "value": v}))
            .collect();
        env.push(json!({"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}));
        env.push(json!({"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}}));
        if let Some(secret) = &self.secret {
            env.push(json!({"name": "DATABASE_PASSWORD", "valueFrom": {"secretKeyRef": {"name": secret, "key": "password"}}}));
        }
        c.insert("env".into(), Value::Array(env));
        let mut limits = Map::new();
        limits.insert("memory".into(), Value::from(self.memory_limit));
        if let Some(cpu) = self.cpu_limit {
            limits.insert("cpu".into(), Value::from(cpu));
        }
        c.insert(
            "resources".into(),
            json!({"requests": {"cpu": self.cpu_request, "memory": self.memory_request}, "limits": limits}),
        );
        if let (Some((_, port_name)), AppFlavor::Http | AppFlavor::Database | AppFlavor::Agent) =
            (self.port, self.flavor)
        {
            let probe = if self.flavor == AppFlavor::Database {
                json!({"tcpSocket": {"port": port_name}, "initialDelaySeconds": 10, "periodSeconds": 10,
                       "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3})
            } else {
                json!({"httpGet": {"path": "/healthz", "port": port_name, "scheme": "HTTP"},
                       "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3})
            };
            c.insert("readinessProbe".into(), probe.clone());
            c.insert("livenessProbe".into(), probe);
        }
        let mut mounts = Vec::new();
        if let Some(cm) = &self.config_map {
            mounts.push(
                json!({"name": "config", "mountPath": format!("/etc/{cm}"), "readOnly": true}),
            );
        }
        if self.flavor == AppFlavor::Database {
            mounts.push(json!({"name": "data", "mountPath": "/var/lib/data"}));
        }
        mounts.push(json!({"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}));
        c.insert("volumeMounts".into(), Value::Array(mounts));
        c.insert(
            "terminationMessagePath".into(),
            Value::from("/dev/termination-log"),
        );
        c.insert("terminationMessagePolicy".into(), Value::from("File"));
        if self.flavor != AppFlavor::Agent {
            c.insert(
                "securityContext".into(),
                json!({"allowPrivilegeEscalation": false, "runAsNonRoot": true, "readOnlyRootFilesystem": true,
                       "capabilities": {"drop": ["ALL"]}}),
            );
        } else {
            c.insert("securityContext".into(), json!({"privileged": true}));
        }
        Value::Object(c)
    }

    /// The pod spec of this template (no nodeName, no hostname); `pvc` names the claim mounted
    /// as `data` for stateful pods.
    pub fn pod_spec(&self, pvc: Option<&str>) -> Map<String, Value> {
        let mut s = Map::new();
        s.insert("containers".into(), Value::Array(vec![self.container()]));
        s.insert(
            "dnsPolicy".into(),
            Value::from(if self.host_network {
                "ClusterFirstWithHostNet"
            } else {
                "ClusterFirst"
            }),
        );
        s.insert("enableServiceLinks".into(), Value::from(true));
        if self.host_network {
            s.insert("hostNetwork".into(), Value::from(true));
        }
        s.insert(
            "preemptionPolicy".into(),
            Value::from("PreemptLowerPriority"),
        );
        match self.priority_class {
            Some(pc) => {
                s.insert(
                    "priority".into(),
                    Value::from(if pc == "system-node-critical" {
                        2_000_001_000
                    } else {
                        2_000_000_000
                    }),
                );
                s.insert("priorityClassName".into(), Value::from(pc));
            }
            None => {
                s.insert("priority".into(), Value::from(0));
            }
        }
        s.insert(
            "restartPolicy".into(),
            Value::from(if self.flavor == AppFlavor::Batch {
                "Never"
            } else {
                "Always"
            }),
        );
        s.insert("schedulerName".into(), Value::from("default-scheduler"));
        s.insert("securityContext".into(), if self.flavor == AppFlavor::Agent { json!({}) } else { json!({"fsGroup": 2000, "runAsUser": 1000, "seccompProfile": {"type": "RuntimeDefault"}}) });
        s.insert(
            "serviceAccount".into(),
            Value::from(self.service_account.as_str()),
        );
        s.insert(
            "serviceAccountName".into(),
            Value::from(self.service_account.as_str()),
        );
        s.insert(
            "terminationGracePeriodSeconds".into(),
            Value::from(if self.flavor == AppFlavor::Database {
                60
            } else {
                30
            }),
        );
        let mut tolerations = vec![
            json!({"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300}),
            json!({"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}),
        ];
        if self.flavor == AppFlavor::Agent {
            tolerations = vec![
                json!({"operator": "Exists"}),
                json!({"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"}),
                json!({"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"}),
                json!({"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"}),
                json!({"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"}),
            ];
        }
        s.insert("tolerations".into(), Value::Array(tolerations));
        let mut volumes = Vec::new();
        if let Some(cm) = &self.config_map {
            volumes.push(json!({"name": "config", "configMap": {"name": cm, "defaultMode": 420}}));
        }
        if let Some(pvc) = pvc {
            volumes.push(json!({"name": "data", "persistentVolumeClaim": {"claimName": pvc}}));
        }
        volumes.push(json!({"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        ]}}));
        s.insert("volumes".into(), Value::Array(volumes));
        if self.flavor == AppFlavor::ControlPlane {
            self.control_plane_spec(&mut s);
        }
        s
    }

    /// What kubeadm's static pod manifests look like: no service account, host paths, a
    /// command line, a liveness probe on the component's localhost port.
    fn control_plane_spec(&self, s: &mut Map<String, Value>) {
        s.remove("serviceAccount");
        s.remove("serviceAccountName");
        s.remove("enableServiceLinks");
        s.insert(
            "securityContext".into(),
            json!({"seccompProfile": {"type": "RuntimeDefault"}}),
        );
        s.insert(
            "tolerations".into(),
            json!([{"effect": "NoExecute", "operator": "Exists"}]),
        );
        s.insert(
            "volumes".into(),
            json!([
                {"name": "k8s-certs", "hostPath": {"path": "/etc/kubernetes/pki", "type": "DirectoryOrCreate"}},
                {"name": "etc-ca-certificates", "hostPath": {"path": "/etc/ca-certificates", "type": "DirectoryOrCreate"}},
            ]),
        );
        let (port, scheme, cmd): (u16, &str, Vec<&str>) = match self.container.as_str() {
            "etcd" => (
                2381,
                "HTTP",
                vec![
                    "etcd",
                    "--data-dir=/var/lib/etcd",
                    "--listen-metrics-urls=http://127.0.0.1:2381",
                    "--snapshot-count=10000",
                ],
            ),
            "kube-apiserver" => (
                6443,
                "HTTPS",
                vec![
                    "kube-apiserver",
                    "--authorization-mode=Node,RBAC",
                    "--enable-admission-plugins=NodeRestriction",
                    "--secure-port=6443",
                    "--service-cluster-ip-range=10.96.0.0/12",
                ],
            ),
            "kube-controller-manager" => (
                10257,
                "HTTPS",
                vec![
                    "kube-controller-manager",
                    "--cluster-cidr=10.64.0.0/10",
                    "--leader-elect=true",
                    "--use-service-account-credentials=true",
                ],
            ),
            _ => (
                10259,
                "HTTPS",
                vec![
                    "kube-scheduler",
                    "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
                    "--bind-address=127.0.0.1",
                    "--leader-elect=true",
                ],
            ),
        };
        if let Some(Value::Array(cs)) = s.get_mut("containers")
            && let Some(Value::Object(c)) = cs.first_mut()
        {
            c.remove("env");
            c.remove("securityContext");
            c.remove("readinessProbe");
            c.insert("command".into(), json!(cmd));
            let probe = json!({"httpGet": {"host": "127.0.0.1", "path": if port == 2381 { "/livez" } else { "/healthz" }, "port": port, "scheme": scheme},
                               "initialDelaySeconds": 10, "periodSeconds": 10, "timeoutSeconds": 15, "successThreshold": 1, "failureThreshold": 8});
            c.insert("livenessProbe".into(), probe.clone());
            c.insert("startupProbe".into(), probe);
            c.insert(
                "volumeMounts".into(),
                json!([
                    {"name": "k8s-certs", "mountPath": "/etc/kubernetes/pki", "readOnly": true},
                    {"name": "etc-ca-certificates", "mountPath": "/etc/ca-certificates", "readOnly": true},
                ]),
            );
        }
    }

    pub fn template(&self, extra_labels: &[(&str, &str)]) -> Value {
        let mut l = self.label_map();
        for (k, v) in extra_labels {
            l.insert((*k).to_string(), Value::from(*v));
        }
        let mut md = Map::new();
        md.insert("labels".into(), Value::Object(l));
        let mut t = Map::new();
        t.insert("metadata".into(), Value::Object(md));
        t.insert("spec".into(), Value::Object(self.pod_spec(None)));
        Value::Object(t)
    }

    /// QoS class as the kubelet computes it from requests and limits.
    pub fn qos_class(&self) -> &'static str {
        if self.cpu_limit == Some(self.cpu_request) && self.memory_limit == self.memory_request {
            "Guaranteed"
        } else {
            "Burstable"
        }
    }
}

/// A [`PodTemplate`]'s labels and pod spec rendered once, for many pods.
#[derive(Debug, Clone)]
pub struct RenderedTemplate {
    pub labels: Map<String, Value>,
    pub spec: Map<String, Value>,
}

impl RenderedTemplate {
    pub fn new(t: &PodTemplate) -> Self {
        Self {
            labels: t.label_map(),
            spec: t.pod_spec(None),
        }
    }
}

/// Replica counters of a workload or ReplicaSet status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplicaCounts {
    pub desired: u32,
    pub current: u32,
    pub ready: u32,
    pub updated: u32,
}

pub struct DeploymentView<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
    pub created: i64,
    pub generation: i64,
    pub revision: u32,
    pub template: &'a PodTemplate,
    pub counts: ReplicaCounts,
    /// When the Available / Progressing conditions last changed.
    pub available_since: i64,
    pub progressing_since: i64,
    pub now: i64,
    /// Name of the newest ReplicaSet.
    pub new_rs: &'a str,
}

pub fn deployment(d: &DeploymentView<'_>) -> Value {
    let mut md = meta(Some(d.namespace), d.name, d.uid, d.created);
    md.insert("generation".into(), Value::from(d.generation));
    md.insert("labels".into(), d.template.label_map().into());
    md.insert(
        "annotations".into(),
        json!({"deployment.kubernetes.io/revision": d.revision.to_string()}),
    );
    let c = d.counts;
    let mut o = object("apps/v1", "Deployment", md);
    o.insert(
        "spec".into(),
        json!({
            "replicas": c.desired,
            "selector": {"matchLabels": d.template.selector_map()},
            "template": d.template.template(&[]),
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        }),
    );
    let available = c.ready * 4 >= c.desired * 3;
    let done = c.updated == c.desired && c.current == c.desired;
    let mut status = Map::new();
    status.insert("observedGeneration".into(), Value::from(d.generation));
    if c.current > 0 {
        status.insert("replicas".into(), Value::from(c.current));
    }
    if c.updated > 0 {
        status.insert("updatedReplicas".into(), Value::from(c.updated));
    }
    if c.ready > 0 {
        status.insert("readyReplicas".into(), Value::from(c.ready));
        status.insert("availableReplicas".into(), Value::from(c.ready));
    }
    if c.current > c.ready {
        status.insert(
            "unavailableReplicas".into(),
            Value::from(c.current.max(c.desired) - c.ready),
        );
    }
    status.insert(
        "conditions".into(),
        json!([
            {
                "type": "Available",
                "status": if available { "True" } else { "False" },
                "lastUpdateTime": rfc3339(d.available_since),
                "lastTransitionTime": rfc3339(d.available_since),
                "reason": if available { "MinimumReplicasAvailable" } else { "MinimumReplicasUnavailable" },
                "message": if available { "Deployment has minimum availability." } else { "Deployment does not have minimum availability." },
            },
            {
                "type": "Progressing",
                "status": "True",
                "lastUpdateTime": rfc3339(d.now),
                "lastTransitionTime": rfc3339(d.progressing_since),
                "reason": if done { "NewReplicaSetAvailable" } else { "ReplicaSetUpdated" },
                "message": if done {
                    format!("ReplicaSet \"{}\" has successfully progressed.", d.new_rs)
                } else {
                    format!("ReplicaSet \"{}\" is progressing.", d.new_rs)
                },
            },
        ]),
    );
    o.insert("status".into(), Value::Object(status));
    Value::Object(o)
}

pub struct ReplicaSetView<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
    pub created: i64,
    pub hash: &'a str,
    pub revision: u32,
    pub template: &'a PodTemplate,
    pub deployment: &'a str,
    pub deployment_uid: &'a str,
    pub deployment_replicas: u32,
    pub generation: i64,
    pub counts: ReplicaCounts,
}

pub fn replicaset(r: &ReplicaSetView<'_>) -> Value {
    let mut l = r.template.label_map();
    l.insert("pod-template-hash".into(), Value::from(r.hash));
    let mut sel = r.template.selector_map();
    sel.insert("pod-template-hash".into(), Value::from(r.hash));
    let mut md = meta(Some(r.namespace), r.name, r.uid, r.created);
    md.insert("generation".into(), Value::from(r.generation));
    md.insert("labels".into(), Value::Object(l));
    let max = r.deployment_replicas + (r.deployment_replicas.div_ceil(4));
    md.insert(
        "annotations".into(),
        json!({
            "deployment.kubernetes.io/desired-replicas": r.deployment_replicas.to_string(),
            "deployment.kubernetes.io/max-replicas": max.to_string(),
            "deployment.kubernetes.io/revision": r.revision.to_string(),
        }),
    );
    md.insert(
        "ownerReferences".into(),
        Value::Array(vec![controller_ref(
            "apps/v1",
            "Deployment",
            r.deployment,
            r.deployment_uid,
        )]),
    );
    let mut o = object("apps/v1", "ReplicaSet", md);
    o.insert(
        "spec".into(),
        json!({
            "replicas": r.counts.desired,
            "selector": {"matchLabels": sel},
            "template": r.template.template(&[("pod-template-hash", r.hash)]),
        }),
    );
    let c = r.counts;
    let mut status = Map::new();
    status.insert("replicas".into(), Value::from(c.current));
    if c.current > 0 {
        status.insert("fullyLabeledReplicas".into(), Value::from(c.current));
    }
    if c.ready > 0 {
        status.insert("readyReplicas".into(), Value::from(c.ready));
        status.insert("availableReplicas".into(), Value::from(c.ready));
    }
    status.insert("observedGeneration".into(), Value::from(r.generation));
    o.insert("status".into(), Value::Object(status));
    Value::Object(o)
}

pub struct StatefulSetView<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
    pub created: i64,
    pub generation: i64,
    pub revision_hash: &'a str,
    pub template: &'a PodTemplate,
    pub service: &'a str,
    pub counts: ReplicaCounts,
}

pub fn statefulset(s: &StatefulSetView<'_>) -> Value {
    let mut md = meta(Some(s.namespace), s.name, s.uid, s.created);
    md.insert("generation".into(), Value::from(s.generation));
    md.insert("labels".into(), s.template.label_map().into());
    let rev = format!("{}-{}", s.name, s.revision_hash);
    let mut o = object("apps/v1", "StatefulSet", md);
    o.insert(
        "spec".into(),
        json!({
            "replicas": s.counts.desired,
            "selector": {"matchLabels": s.template.selector_map()},
            "serviceName": s.service,
            "podManagementPolicy": "OrderedReady",
            "template": s.template.template(&[]),
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "revisionHistoryLimit": 10,
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
            "volumeClaimTemplates": [{
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": "data"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}},
                         "storageClassName": "gp3", "volumeMode": "Filesystem"},
                "status": {"phase": "Pending"},
            }],
        }),
    );
    let c = s.counts;
    o.insert(
        "status".into(),
        json!({
            "observedGeneration": s.generation,
            "replicas": c.current,
            "readyReplicas": c.ready,
            "availableReplicas": c.ready,
            "currentReplicas": c.current,
            "updatedReplicas": c.updated,
            "currentRevision": rev,
            "updateRevision": rev,
            "collisionCount": 0,
        }),
    );
    Value::Object(o)
}

pub struct DaemonSetView<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
    pub created: i64,
    pub generation: i64,
    pub template: &'a PodTemplate,
    pub counts: ReplicaCounts,
    /// Nodes the daemonset should run on (its desired count).
    pub control_plane_too: bool,
}

pub fn daemonset(d: &DaemonSetView<'_>) -> Value {
    let mut md = meta(Some(d.namespace), d.name, d.uid, d.created);
    md.insert("generation".into(), Value::from(d.generation));
    md.insert("labels".into(), d.template.label_map().into());
    md.insert(
        "annotations".into(),
        json!({"deprecated.daemonset.template.generation": d.generation.to_string()}),
    );
    let mut tmpl = d.template.template(&[]);
    if let Some(spec) = tmpl.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("nodeSelector".into(), json!({"kubernetes.io/os": "linux"}));
    }
    let mut o = object("apps/v1", "DaemonSet", md);
    o.insert(
        "spec".into(),
        json!({
            "selector": {"matchLabels": d.template.selector_map()},
            "template": tmpl,
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}},
            "revisionHistoryLimit": 10,
        }),
    );
    let c = d.counts;
    o.insert(
        "status".into(),
        json!({
            "currentNumberScheduled": c.current,
            "desiredNumberScheduled": c.desired,
            "numberAvailable": c.ready,
            "numberMisscheduled": 0,
            "numberReady": c.ready,
            "numberUnavailable": c.desired.saturating_sub(c.ready),
            "observedGeneration": d.generation,
            "updatedNumberScheduled": c.updated,
        }),
    );
    if c.desired == c.ready
        && let Some(s) = o.get_mut("status").and_then(Value::as_object_mut)
    {
        s.remove("numberUnavailable");
    }
    let _ = d.control_plane_too;
    Value::Object(o)
}

pub struct JobView<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
    pub created: i64,
    pub template: &'a PodTemplate,
    pub controller_uid: &'a str,
    pub completions: u32,
    pub active: u32,
    pub succeeded: u32,
    pub ready: u32,
    pub start: i64,
    /// Completion time when every completion succeeded.
    pub completed_at: Option<i64>,
}

pub fn job(j: &JobView<'_>) -> Value {
    let mut l = j.template.label_map();
    l.insert(
        "batch.kubernetes.io/controller-uid".into(),
        Value::from(j.controller_uid),
    );
    l.insert("batch.kubernetes.io/job-name".into(), Value::from(j.name));
    l.insert("controller-uid".into(), Value::from(j.controller_uid));
    l.insert("job-name".into(), Value::from(j.name));
    let mut md = meta(Some(j.namespace), j.name, j.uid, j.created);
    md.insert("generation".into(), Value::from(1));
    md.insert("labels".into(), j.template.label_map().into());
    let mut spec = j.template.pod_spec(None);
    spec.insert("restartPolicy".into(), Value::from("Never"));
    let mut o = object("batch/v1", "Job", md);
    o.insert(
        "spec".into(),
        json!({
            "backoffLimit": 6,
            "completionMode": "NonIndexed",
            "completions": j.completions,
            "parallelism": 1,
            "manualSelector": false,
            "podReplacementPolicy": "TerminatingOrFailed",
            "suspend": false,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": j.controller_uid}},
            "template": {"metadata": {"labels": l}, "spec": spec},
        }),
    );
    let mut status = Map::new();
    status.insert("startTime".into(), Value::from(rfc3339(j.start)));
    if j.active > 0 {
        status.insert("active".into(), Value::from(j.active));
    }
    status.insert("ready".into(), Value::from(j.ready));
    status.insert("terminating".into(), Value::from(0));
    if j.succeeded > 0 {
        status.insert("succeeded".into(), Value::from(j.succeeded));
    }
    status.insert("uncountedTerminatedPods".into(), Value::Object(Map::new()));
    if let Some(done) = j.completed_at {
        status.insert("completionTime".into(), Value::from(rfc3339(done)));
        status.insert(
            "conditions".into(),
            json!([
                {"type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached",
                 "message": "Reached expected number of succeeded pods",
                 "lastProbeTime": rfc3339(done), "lastTransitionTime": rfc3339(done)},
                {"type": "Complete", "status": "True", "reason": "CompletionsReached",
                 "message": "Reached expected number of succeeded pods",
                 "lastProbeTime": rfc3339(done), "lastTransitionTime": rfc3339(done)},
            ]),
        );
    }
    o.insert("status".into(), Value::Object(status));
    Value::Object(o)
}
