//! The protobuf schema of the built-in kinds kinformer reads, as one table per message: field
//! number → JSON name, wire shape and JSON presence. Both directions go through it (the client's
//! decoder, the demo server's encoder), so a kind is spoken on the wire exactly when its table
//! exists ([`kind`]).
//!
//! Kinds covered: core/v1 Pod, Namespace, ConfigMap, Node, Service, Endpoints, Event, Secret,
//! ServiceAccount, PersistentVolumeClaim, PersistentVolume, ResourceQuota, LimitRange; apps/v1
//! Deployment, ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job, CronJob; networking.k8s.io/v1
//! Ingress, NetworkPolicy; policy/v1 PodDisruptionBudget; autoscaling/v2
//! HorizontalPodAutoscaler; rbac.authorization.k8s.io/v1 Role, RoleBinding, ClusterRole,
//! ClusterRoleBinding; storage.k8s.io/v1 StorageClass; discovery.k8s.io/v1 EndpointSlice;
//! coordination.k8s.io/v1 Lease; scheduling.k8s.io/v1 PriorityClass. Other kinds (and CRDs) go
//! JSON.
//!
//! Transcribed from k8s.io/api `core/v1/generated.proto` (apps/v1 and batch/v1 in
//! [`workloads`], storage and networking in [`storage_network`], policy, RBAC and cluster
//! configuration in [`policy`]) and k8s.io/apimachinery
//! `apis/meta/v1`, `runtime`, `api/resource`, `util/intstr` (`generated.proto`); the JSON side
//! (which scalars JSON keeps at their zero value: pointers and fields without `omitempty`) from
//! the Go types' tags. A field missing here is skipped by the decoder (a newer server) and makes
//! the encoder refuse the object (the demo server then answers JSON).

pub mod pod;
pub mod policy;
pub mod storage_network;
pub mod volumes;
pub mod workloads;

/// The wire and JSON shape of one field.
#[derive(Debug, Clone, Copy)]
pub enum Ty {
    /// `string`.
    Str,
    /// `bool`.
    Bool,
    /// `int32`/`int64` (varint, two's complement).
    Int,
    /// `bytes` (`[]byte`: base64 in JSON).
    Bytes,
    /// A nested message (a JSON object).
    Msg(&'static Msg),
    /// An embedded message whose fields JSON inlines into the parent (`json:",inline"`).
    Inline(&'static Msg),
    /// `metav1.Time` (RFC 3339, seconds; the zero time is `null`).
    Time,
    /// `metav1.MicroTime` (RFC 3339 with microseconds).
    MicroTime,
    /// `resource.Quantity` (its canonical string).
    Quantity,
    /// `intstr.IntOrString` (a JSON number or string).
    IntOrString,
    /// `runtime.RawExtension` / `metav1.FieldsV1`: JSON bytes carried as they are.
    Raw,
    /// `map<string, string>`.
    MapStr,
    /// `map<string, bytes>` (base64 values in JSON).
    MapBytes,
    /// `map<string, Quantity>` (`ResourceList`).
    MapQuantity,
    /// `map<string, metav1.Time>` (a PodDisruptionBudget's `disruptedPods`).
    MapTime,
    /// Not on the wire: a JSON-only field with this one value (the `apiVersion`/`kind` an
    /// embedded object's inlined `TypeMeta` has in JSON, which `generated.proto` leaves out).
    /// The encoder accepts only this value; the decoder writes it back.
    Const(&'static str),
}

/// One field of a message.
#[derive(Debug, Clone, Copy)]
pub struct F {
    pub num: u32,
    pub name: &'static str,
    pub ty: Ty,
    /// `repeated` (a JSON array).
    pub rep: bool,
    /// JSON keeps the zero value of this scalar (a pointer, or no `omitempty`); otherwise a zero
    /// on the wire (Go writes every non-pointer scalar) is absent from JSON. On a list: the Go
    /// field has no `omitempty`, so an empty (nil) list is `null` in JSON rather than absent.
    pub zero: bool,
}

impl F {
    const fn new(num: u32, name: &'static str, ty: Ty) -> F {
        F {
            num,
            name,
            ty,
            rep: false,
            zero: false,
        }
    }
    const fn rep(self) -> F {
        F { rep: true, ..self }
    }
    const fn z(self) -> F {
        F { zero: true, ..self }
    }
}

/// A message: its fields.
#[derive(Debug)]
pub struct Msg {
    pub name: &'static str,
    pub fields: &'static [F],
}

/// Messages are statics: one is equal only to itself.
impl PartialEq for Msg {
    fn eq(&self, other: &Msg) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Msg {}

impl Msg {
    /// The field with wire number `num`.
    pub fn by_num(&self, num: u32) -> Option<&F> {
        self.fields
            .iter()
            .find(|f| f.num == num && !matches!(f.ty, Ty::Const(_)))
    }
}

const fn s(n: u32, name: &'static str) -> F {
    F::new(n, name, Ty::Str)
}
const fn b(n: u32, name: &'static str) -> F {
    F::new(n, name, Ty::Bool)
}
const fn i(n: u32, name: &'static str) -> F {
    F::new(n, name, Ty::Int)
}
const fn m(n: u32, name: &'static str, msg: &'static Msg) -> F {
    F::new(n, name, Ty::Msg(msg))
}
const fn t(n: u32, name: &'static str) -> F {
    F::new(n, name, Ty::Time)
}
const fn q(n: u32, name: &'static str) -> F {
    F::new(n, name, Ty::Quantity)
}
const fn ms(n: u32, name: &'static str) -> F {
    F::new(n, name, Ty::MapStr)
}
const fn mq(n: u32, name: &'static str) -> F {
    F::new(n, name, Ty::MapQuantity)
}

// ------------------------------------------------------------------------------------------
// apimachinery
// ------------------------------------------------------------------------------------------

/// `runtime.TypeMeta` (inside `runtime.Unknown`).
pub static TYPE_META: Msg = Msg {
    name: "TypeMeta",
    fields: &[s(1, "apiVersion"), s(2, "kind")],
};

pub static OWNER_REFERENCE: Msg = Msg {
    name: "OwnerReference",
    fields: &[
        s(5, "apiVersion").z(),
        s(1, "kind").z(),
        s(3, "name").z(),
        s(4, "uid").z(),
        b(6, "controller").z(),
        b(7, "blockOwnerDeletion").z(),
    ],
};

pub static MANAGED_FIELDS_ENTRY: Msg = Msg {
    name: "ManagedFieldsEntry",
    fields: &[
        s(1, "manager"),
        s(2, "operation"),
        s(3, "apiVersion"),
        t(4, "time"),
        s(6, "fieldsType"),
        F::new(7, "fieldsV1", Ty::Raw),
        s(8, "subresource"),
    ],
};

pub static OBJECT_META: Msg = Msg {
    name: "ObjectMeta",
    fields: &[
        s(1, "name"),
        s(2, "generateName"),
        s(3, "namespace"),
        s(4, "selfLink"),
        s(5, "uid"),
        s(6, "resourceVersion"),
        i(7, "generation"),
        t(8, "creationTimestamp"),
        t(9, "deletionTimestamp"),
        i(10, "deletionGracePeriodSeconds").z(),
        ms(11, "labels"),
        ms(12, "annotations"),
        m(13, "ownerReferences", &OWNER_REFERENCE).rep(),
        s(14, "finalizers").rep(),
        m(17, "managedFields", &MANAGED_FIELDS_ENTRY).rep(),
    ],
};

pub static LIST_META: Msg = Msg {
    name: "ListMeta",
    fields: &[
        s(1, "selfLink"),
        s(2, "resourceVersion"),
        s(3, "continue"),
        i(4, "remainingItemCount").z(),
    ],
};

pub static STATUS_CAUSE: Msg = Msg {
    name: "StatusCause",
    fields: &[s(1, "reason"), s(2, "message"), s(3, "field")],
};

pub static STATUS_DETAILS: Msg = Msg {
    name: "StatusDetails",
    fields: &[
        s(1, "name"),
        s(2, "group"),
        s(3, "kind"),
        s(6, "uid"),
        m(4, "causes", &STATUS_CAUSE).rep(),
        i(5, "retryAfterSeconds"),
    ],
};

/// `metav1.Status` (error answers and watch ERROR events).
pub static STATUS: Msg = Msg {
    name: "Status",
    fields: &[
        m(1, "metadata", &LIST_META),
        s(2, "status"),
        s(3, "message"),
        s(4, "reason"),
        m(5, "details", &STATUS_DETAILS),
        i(6, "code"),
    ],
};

// ------------------------------------------------------------------------------------------
// core/v1: Pod
// ------------------------------------------------------------------------------------------

pub static LOCAL_OBJECT_REFERENCE: Msg = Msg {
    name: "LocalObjectReference",
    fields: &[s(1, "name")],
};

pub static OBJECT_FIELD_SELECTOR: Msg = Msg {
    name: "ObjectFieldSelector",
    fields: &[s(1, "apiVersion"), s(2, "fieldPath").z()],
};

pub static RESOURCE_FIELD_SELECTOR: Msg = Msg {
    name: "ResourceFieldSelector",
    fields: &[s(1, "containerName"), s(2, "resource").z(), q(3, "divisor")],
};

pub static KEY_SELECTOR: Msg = Msg {
    name: "ConfigMapKeySelector",
    fields: &[
        F::new(1, "", Ty::Inline(&LOCAL_OBJECT_REFERENCE)),
        s(2, "key").z(),
        b(3, "optional").z(),
    ],
};

pub static ENV_VAR_SOURCE: Msg = Msg {
    name: "EnvVarSource",
    fields: &[
        m(1, "fieldRef", &OBJECT_FIELD_SELECTOR),
        m(2, "resourceFieldRef", &RESOURCE_FIELD_SELECTOR),
        m(3, "configMapKeyRef", &KEY_SELECTOR),
        m(4, "secretKeyRef", &KEY_SELECTOR),
        m(5, "fileKeyRef", &pod::FILE_KEY_SELECTOR),
    ],
};

pub static ENV_VAR: Msg = Msg {
    name: "EnvVar",
    fields: &[
        s(1, "name").z(),
        s(2, "value"),
        m(3, "valueFrom", &ENV_VAR_SOURCE),
    ],
};

pub static ENV_SOURCE_REF: Msg = Msg {
    name: "ConfigMapEnvSource",
    fields: &[
        F::new(1, "", Ty::Inline(&LOCAL_OBJECT_REFERENCE)),
        b(2, "optional").z(),
    ],
};

pub static ENV_FROM_SOURCE: Msg = Msg {
    name: "EnvFromSource",
    fields: &[
        s(1, "prefix"),
        m(2, "configMapRef", &ENV_SOURCE_REF),
        m(3, "secretRef", &ENV_SOURCE_REF),
    ],
};

pub static CONTAINER_PORT: Msg = Msg {
    name: "ContainerPort",
    fields: &[
        s(1, "name"),
        i(2, "hostPort"),
        i(3, "containerPort").z(),
        s(4, "protocol"),
        s(5, "hostIP"),
    ],
};

pub static RESOURCE_CLAIM: Msg = Msg {
    name: "ResourceClaim",
    fields: &[s(1, "name").z(), s(2, "request")],
};

pub static RESOURCE_REQUIREMENTS: Msg = Msg {
    name: "ResourceRequirements",
    fields: &[
        mq(1, "limits"),
        mq(2, "requests"),
        m(3, "claims", &RESOURCE_CLAIM).rep(),
    ],
};

pub static VOLUME_MOUNT: Msg = Msg {
    name: "VolumeMount",
    fields: &[
        s(1, "name").z(),
        b(2, "readOnly"),
        s(3, "mountPath").z(),
        s(4, "subPath"),
        s(5, "mountPropagation").z(),
        s(6, "subPathExpr"),
        s(7, "recursiveReadOnly").z(),
    ],
};

pub static EXEC_ACTION: Msg = Msg {
    name: "ExecAction",
    fields: &[s(1, "command").rep()],
};

pub static HTTP_HEADER: Msg = Msg {
    name: "HTTPHeader",
    fields: &[s(1, "name").z(), s(2, "value").z()],
};

pub static HTTP_GET_ACTION: Msg = Msg {
    name: "HTTPGetAction",
    fields: &[
        s(1, "path"),
        F::new(2, "port", Ty::IntOrString).z(),
        s(3, "host"),
        s(4, "scheme"),
        m(5, "httpHeaders", &HTTP_HEADER).rep(),
    ],
};

pub static TCP_SOCKET_ACTION: Msg = Msg {
    name: "TCPSocketAction",
    fields: &[F::new(1, "port", Ty::IntOrString).z(), s(2, "host")],
};

pub static GRPC_ACTION: Msg = Msg {
    name: "GRPCAction",
    fields: &[i(1, "port").z(), s(2, "service").z()],
};

pub static PROBE_HANDLER: Msg = Msg {
    name: "ProbeHandler",
    fields: &[
        m(1, "exec", &EXEC_ACTION),
        m(2, "httpGet", &HTTP_GET_ACTION),
        m(3, "tcpSocket", &TCP_SOCKET_ACTION),
        m(4, "grpc", &GRPC_ACTION),
    ],
};

pub static PROBE: Msg = Msg {
    name: "Probe",
    fields: &[
        F::new(1, "", Ty::Inline(&PROBE_HANDLER)),
        i(2, "initialDelaySeconds"),
        i(3, "timeoutSeconds"),
        i(4, "periodSeconds"),
        i(5, "successThreshold"),
        i(6, "failureThreshold"),
        i(7, "terminationGracePeriodSeconds").z(),
    ],
};

pub static SLEEP_ACTION: Msg = Msg {
    name: "SleepAction",
    fields: &[i(1, "seconds").z()],
};

pub static LIFECYCLE_HANDLER: Msg = Msg {
    name: "LifecycleHandler",
    fields: &[
        m(1, "exec", &EXEC_ACTION),
        m(2, "httpGet", &HTTP_GET_ACTION),
        m(3, "tcpSocket", &TCP_SOCKET_ACTION),
        m(4, "sleep", &SLEEP_ACTION),
    ],
};

pub static LIFECYCLE: Msg = Msg {
    name: "Lifecycle",
    fields: &[
        m(1, "postStart", &LIFECYCLE_HANDLER),
        m(2, "preStop", &LIFECYCLE_HANDLER),
        s(3, "stopSignal").z(),
    ],
};

pub static CAPABILITIES: Msg = Msg {
    name: "Capabilities",
    fields: &[s(1, "add").rep(), s(2, "drop").rep()],
};

pub static SE_LINUX_OPTIONS: Msg = Msg {
    name: "SELinuxOptions",
    fields: &[s(1, "user"), s(2, "role"), s(3, "type"), s(4, "level")],
};

pub static SECCOMP_PROFILE: Msg = Msg {
    name: "SeccompProfile",
    fields: &[s(1, "type").z(), s(2, "localhostProfile").z()],
};

pub static APP_ARMOR_PROFILE: Msg = Msg {
    name: "AppArmorProfile",
    fields: &[s(1, "type").z(), s(2, "localhostProfile").z()],
};

pub static SECURITY_CONTEXT: Msg = Msg {
    name: "SecurityContext",
    fields: &[
        m(1, "capabilities", &CAPABILITIES),
        b(2, "privileged").z(),
        m(3, "seLinuxOptions", &SE_LINUX_OPTIONS),
        i(4, "runAsUser").z(),
        b(5, "runAsNonRoot").z(),
        b(6, "readOnlyRootFilesystem").z(),
        b(7, "allowPrivilegeEscalation").z(),
        i(8, "runAsGroup").z(),
        s(9, "procMount").z(),
        m(10, "windowsOptions", &pod::WINDOWS_SECURITY_CONTEXT_OPTIONS),
        m(11, "seccompProfile", &SECCOMP_PROFILE),
        m(12, "appArmorProfile", &APP_ARMOR_PROFILE),
    ],
};

pub static CONTAINER_RESIZE_POLICY: Msg = Msg {
    name: "ContainerResizePolicy",
    fields: &[s(1, "resourceName").z(), s(2, "restartPolicy").z()],
};

pub static CONTAINER: Msg = Msg {
    name: "Container",
    fields: &[
        s(1, "name").z(),
        s(2, "image"),
        s(3, "command").rep(),
        s(4, "args").rep(),
        s(5, "workingDir"),
        m(6, "ports", &CONTAINER_PORT).rep(),
        m(19, "envFrom", &ENV_FROM_SOURCE).rep(),
        m(7, "env", &ENV_VAR).rep(),
        m(8, "resources", &RESOURCE_REQUIREMENTS),
        m(23, "resizePolicy", &CONTAINER_RESIZE_POLICY).rep(),
        s(24, "restartPolicy").z(),
        m(25, "restartPolicyRules", &pod::CONTAINER_RESTART_RULE).rep(),
        m(9, "volumeMounts", &VOLUME_MOUNT).rep(),
        m(21, "volumeDevices", &pod::VOLUME_DEVICE).rep(),
        m(10, "livenessProbe", &PROBE),
        m(11, "readinessProbe", &PROBE),
        m(22, "startupProbe", &PROBE),
        m(12, "lifecycle", &LIFECYCLE),
        s(13, "terminationMessagePath"),
        s(20, "terminationMessagePolicy"),
        s(14, "imagePullPolicy"),
        m(15, "securityContext", &SECURITY_CONTEXT),
        b(16, "stdin"),
        b(17, "stdinOnce"),
        b(18, "tty"),
    ],
};

pub static KEY_TO_PATH: Msg = Msg {
    name: "KeyToPath",
    fields: &[s(1, "key").z(), s(2, "path").z(), i(3, "mode").z()],
};

pub static CONFIG_MAP_VOLUME_SOURCE: Msg = Msg {
    name: "ConfigMapVolumeSource",
    fields: &[
        F::new(1, "", Ty::Inline(&LOCAL_OBJECT_REFERENCE)),
        m(2, "items", &KEY_TO_PATH).rep(),
        i(3, "defaultMode").z(),
        b(4, "optional").z(),
    ],
};

pub static SECRET_VOLUME_SOURCE: Msg = Msg {
    name: "SecretVolumeSource",
    fields: &[
        s(1, "secretName"),
        m(2, "items", &KEY_TO_PATH).rep(),
        i(3, "defaultMode").z(),
        b(4, "optional").z(),
    ],
};

pub static DOWNWARD_API_VOLUME_FILE: Msg = Msg {
    name: "DownwardAPIVolumeFile",
    fields: &[
        s(1, "path").z(),
        m(2, "fieldRef", &OBJECT_FIELD_SELECTOR),
        m(3, "resourceFieldRef", &RESOURCE_FIELD_SELECTOR),
        i(4, "mode").z(),
    ],
};

pub static DOWNWARD_API_VOLUME_SOURCE: Msg = Msg {
    name: "DownwardAPIVolumeSource",
    fields: &[
        m(1, "items", &DOWNWARD_API_VOLUME_FILE).rep(),
        i(2, "defaultMode").z(),
    ],
};

pub static DOWNWARD_API_PROJECTION: Msg = Msg {
    name: "DownwardAPIProjection",
    fields: &[m(1, "items", &DOWNWARD_API_VOLUME_FILE).rep()],
};

pub static CONFIG_MAP_PROJECTION: Msg = Msg {
    name: "ConfigMapProjection",
    fields: &[
        F::new(1, "", Ty::Inline(&LOCAL_OBJECT_REFERENCE)),
        m(2, "items", &KEY_TO_PATH).rep(),
        b(4, "optional").z(),
    ],
};

pub static SERVICE_ACCOUNT_TOKEN_PROJECTION: Msg = Msg {
    name: "ServiceAccountTokenProjection",
    fields: &[
        s(1, "audience"),
        i(2, "expirationSeconds").z(),
        s(3, "path").z(),
    ],
};

pub static VOLUME_PROJECTION: Msg = Msg {
    name: "VolumeProjection",
    fields: &[
        m(1, "secret", &CONFIG_MAP_PROJECTION),
        m(2, "downwardAPI", &DOWNWARD_API_PROJECTION),
        m(3, "configMap", &CONFIG_MAP_PROJECTION),
        m(4, "serviceAccountToken", &SERVICE_ACCOUNT_TOKEN_PROJECTION),
        m(
            5,
            "clusterTrustBundle",
            &pod::CLUSTER_TRUST_BUNDLE_PROJECTION,
        ),
        m(6, "podCertificate", &pod::POD_CERTIFICATE_PROJECTION),
    ],
};

pub static PROJECTED_VOLUME_SOURCE: Msg = Msg {
    name: "ProjectedVolumeSource",
    fields: &[
        m(1, "sources", &VOLUME_PROJECTION).rep().z(),
        i(2, "defaultMode").z(),
    ],
};

pub static EMPTY_DIR_VOLUME_SOURCE: Msg = Msg {
    name: "EmptyDirVolumeSource",
    fields: &[s(1, "medium"), q(2, "sizeLimit")],
};

pub static HOST_PATH_VOLUME_SOURCE: Msg = Msg {
    name: "HostPathVolumeSource",
    fields: &[s(1, "path").z(), s(2, "type").z()],
};

pub static PVC_VOLUME_SOURCE: Msg = Msg {
    name: "PersistentVolumeClaimVolumeSource",
    fields: &[s(1, "claimName").z(), b(2, "readOnly")],
};

pub static NFS_VOLUME_SOURCE: Msg = Msg {
    name: "NFSVolumeSource",
    fields: &[s(1, "server").z(), s(2, "path").z(), b(3, "readOnly")],
};

pub static CSI_VOLUME_SOURCE: Msg = Msg {
    name: "CSIVolumeSource",
    fields: &[
        s(1, "driver").z(),
        b(2, "readOnly").z(),
        s(3, "fsType").z(),
        ms(4, "volumeAttributes"),
        m(5, "nodePublishSecretRef", &LOCAL_OBJECT_REFERENCE),
    ],
};

pub static VOLUME_SOURCE: Msg = Msg {
    name: "VolumeSource",
    fields: &[
        m(1, "hostPath", &HOST_PATH_VOLUME_SOURCE),
        m(2, "emptyDir", &EMPTY_DIR_VOLUME_SOURCE),
        m(
            3,
            "gcePersistentDisk",
            &volumes::GCE_PERSISTENT_DISK_VOLUME_SOURCE,
        ),
        m(
            4,
            "awsElasticBlockStore",
            &volumes::AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE,
        ),
        m(5, "gitRepo", &volumes::GIT_REPO_VOLUME_SOURCE),
        m(6, "secret", &SECRET_VOLUME_SOURCE),
        m(7, "nfs", &NFS_VOLUME_SOURCE),
        m(8, "iscsi", &volumes::ISCSI_VOLUME_SOURCE),
        m(9, "glusterfs", &volumes::GLUSTERFS_VOLUME_SOURCE),
        m(10, "persistentVolumeClaim", &PVC_VOLUME_SOURCE),
        m(11, "rbd", &volumes::RBD_VOLUME_SOURCE),
        m(12, "flexVolume", &volumes::FLEX_VOLUME_SOURCE),
        m(13, "cinder", &volumes::CINDER_VOLUME_SOURCE),
        m(14, "cephfs", &volumes::CEPH_FS_VOLUME_SOURCE),
        m(15, "flocker", &volumes::FLOCKER_VOLUME_SOURCE),
        m(16, "downwardAPI", &DOWNWARD_API_VOLUME_SOURCE),
        m(17, "fc", &volumes::FC_VOLUME_SOURCE),
        m(18, "azureFile", &volumes::AZURE_FILE_VOLUME_SOURCE),
        m(19, "configMap", &CONFIG_MAP_VOLUME_SOURCE),
        m(
            20,
            "vsphereVolume",
            &volumes::VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE,
        ),
        m(21, "quobyte", &volumes::QUOBYTE_VOLUME_SOURCE),
        m(22, "azureDisk", &volumes::AZURE_DISK_VOLUME_SOURCE),
        m(
            23,
            "photonPersistentDisk",
            &volumes::PHOTON_PERSISTENT_DISK_VOLUME_SOURCE,
        ),
        m(24, "portworxVolume", &volumes::PORTWORX_VOLUME_SOURCE),
        m(25, "scaleIO", &volumes::SCALE_IO_VOLUME_SOURCE),
        m(26, "projected", &PROJECTED_VOLUME_SOURCE),
        m(27, "storageos", &volumes::STORAGE_OS_VOLUME_SOURCE),
        m(28, "csi", &CSI_VOLUME_SOURCE),
        m(29, "ephemeral", &volumes::EPHEMERAL_VOLUME_SOURCE),
        m(30, "image", &volumes::IMAGE_VOLUME_SOURCE),
    ],
};

pub static VOLUME: Msg = Msg {
    name: "Volume",
    fields: &[s(1, "name").z(), F::new(2, "", Ty::Inline(&VOLUME_SOURCE))],
};

pub static TOLERATION: Msg = Msg {
    name: "Toleration",
    fields: &[
        s(1, "key"),
        s(2, "operator"),
        s(3, "value"),
        s(4, "effect"),
        i(5, "tolerationSeconds").z(),
    ],
};

pub static SYSCTL: Msg = Msg {
    name: "Sysctl",
    fields: &[s(1, "name").z(), s(2, "value").z()],
};

pub static POD_SECURITY_CONTEXT: Msg = Msg {
    name: "PodSecurityContext",
    fields: &[
        m(1, "seLinuxOptions", &SE_LINUX_OPTIONS),
        i(2, "runAsUser").z(),
        b(3, "runAsNonRoot").z(),
        i(4, "supplementalGroups").rep(),
        i(5, "fsGroup").z(),
        i(6, "runAsGroup").z(),
        m(7, "sysctls", &SYSCTL).rep(),
        m(8, "windowsOptions", &pod::WINDOWS_SECURITY_CONTEXT_OPTIONS),
        s(9, "fsGroupChangePolicy").z(),
        m(10, "seccompProfile", &SECCOMP_PROFILE),
        m(11, "appArmorProfile", &APP_ARMOR_PROFILE),
        s(12, "supplementalGroupsPolicy").z(),
        s(13, "seLinuxChangePolicy").z(),
    ],
};

pub static HOST_ALIAS: Msg = Msg {
    name: "HostAlias",
    fields: &[s(1, "ip").z(), s(2, "hostnames").rep()],
};

pub static POD_READINESS_GATE: Msg = Msg {
    name: "PodReadinessGate",
    fields: &[s(1, "conditionType").z()],
};

pub static POD_SPEC: Msg = Msg {
    name: "PodSpec",
    fields: &[
        m(1, "volumes", &VOLUME).rep(),
        m(20, "initContainers", &CONTAINER).rep(),
        // No `omitempty`: an empty list is `null` in JSON.
        m(2, "containers", &CONTAINER).rep().z(),
        m(34, "ephemeralContainers", &pod::EPHEMERAL_CONTAINER).rep(),
        s(3, "restartPolicy"),
        i(4, "terminationGracePeriodSeconds").z(),
        i(5, "activeDeadlineSeconds").z(),
        s(6, "dnsPolicy"),
        ms(7, "nodeSelector"),
        s(8, "serviceAccountName"),
        s(9, "serviceAccount"),
        b(21, "automountServiceAccountToken").z(),
        s(10, "nodeName"),
        b(11, "hostNetwork"),
        b(12, "hostPID"),
        b(13, "hostIPC"),
        b(27, "shareProcessNamespace").z(),
        m(14, "securityContext", &POD_SECURITY_CONTEXT),
        m(15, "imagePullSecrets", &LOCAL_OBJECT_REFERENCE).rep(),
        s(16, "hostname"),
        s(17, "subdomain"),
        m(18, "affinity", &pod::AFFINITY),
        s(19, "schedulerName"),
        m(22, "tolerations", &TOLERATION).rep(),
        m(23, "hostAliases", &HOST_ALIAS).rep(),
        s(24, "priorityClassName"),
        i(25, "priority").z(),
        m(26, "dnsConfig", &pod::POD_DNS_CONFIG),
        m(28, "readinessGates", &POD_READINESS_GATE).rep(),
        s(29, "runtimeClassName").z(),
        b(30, "enableServiceLinks").z(),
        s(31, "preemptionPolicy").z(),
        mq(32, "overhead"),
        m(
            33,
            "topologySpreadConstraints",
            &pod::TOPOLOGY_SPREAD_CONSTRAINT,
        )
        .rep(),
        b(35, "setHostnameAsFQDN").z(),
        m(36, "os", &pod::POD_OS),
        b(37, "hostUsers").z(),
        m(38, "schedulingGates", &pod::POD_SCHEDULING_GATE).rep(),
        m(39, "resourceClaims", &pod::POD_RESOURCE_CLAIM).rep(),
        m(40, "resources", &RESOURCE_REQUIREMENTS),
        s(41, "hostnameOverride").z(),
    ],
};

pub static POD_CONDITION: Msg = Msg {
    name: "PodCondition",
    fields: &[
        s(1, "type").z(),
        i(7, "observedGeneration"),
        s(2, "status").z(),
        t(3, "lastProbeTime"),
        t(4, "lastTransitionTime"),
        s(5, "reason"),
        s(6, "message"),
    ],
};

pub static POD_IP: Msg = Msg {
    name: "PodIP",
    fields: &[s(1, "ip").z()],
};

pub static CONTAINER_STATE_WAITING: Msg = Msg {
    name: "ContainerStateWaiting",
    fields: &[s(1, "reason"), s(2, "message")],
};

pub static CONTAINER_STATE_RUNNING: Msg = Msg {
    name: "ContainerStateRunning",
    fields: &[t(1, "startedAt")],
};

pub static CONTAINER_STATE_TERMINATED: Msg = Msg {
    name: "ContainerStateTerminated",
    fields: &[
        i(1, "exitCode").z(),
        i(2, "signal"),
        s(3, "reason"),
        s(4, "message"),
        t(5, "startedAt"),
        t(6, "finishedAt"),
        s(7, "containerID"),
    ],
};

pub static CONTAINER_STATE: Msg = Msg {
    name: "ContainerState",
    fields: &[
        m(1, "waiting", &CONTAINER_STATE_WAITING),
        m(2, "running", &CONTAINER_STATE_RUNNING),
        m(3, "terminated", &CONTAINER_STATE_TERMINATED),
    ],
};

pub static VOLUME_MOUNT_STATUS: Msg = Msg {
    name: "VolumeMountStatus",
    fields: &[
        s(1, "name").z(),
        s(2, "mountPath").z(),
        b(3, "readOnly"),
        s(4, "recursiveReadOnly").z(),
    ],
};

pub static CONTAINER_STATUS: Msg = Msg {
    name: "ContainerStatus",
    fields: &[
        s(1, "name").z(),
        m(2, "state", &CONTAINER_STATE),
        m(3, "lastState", &CONTAINER_STATE),
        b(4, "ready").z(),
        i(5, "restartCount").z(),
        s(6, "image").z(),
        s(7, "imageID").z(),
        s(8, "containerID"),
        b(9, "started").z(),
        mq(10, "allocatedResources"),
        m(11, "resources", &RESOURCE_REQUIREMENTS),
        m(12, "volumeMounts", &VOLUME_MOUNT_STATUS).rep(),
        m(13, "user", &pod::CONTAINER_USER),
        m(14, "allocatedResourcesStatus", &pod::RESOURCE_STATUS).rep(),
        s(15, "stopSignal").z(),
    ],
};

pub static POD_STATUS: Msg = Msg {
    name: "PodStatus",
    fields: &[
        i(17, "observedGeneration"),
        s(1, "phase"),
        m(2, "conditions", &POD_CONDITION).rep(),
        s(3, "message"),
        s(4, "reason"),
        s(11, "nominatedNodeName"),
        s(5, "hostIP"),
        m(16, "hostIPs", &POD_IP).rep(),
        s(6, "podIP"),
        m(12, "podIPs", &POD_IP).rep(),
        t(7, "startTime"),
        m(10, "initContainerStatuses", &CONTAINER_STATUS).rep(),
        m(8, "containerStatuses", &CONTAINER_STATUS).rep(),
        s(9, "qosClass"),
        m(13, "ephemeralContainerStatuses", &CONTAINER_STATUS).rep(),
        s(14, "resize"),
        m(15, "resourceClaimStatuses", &pod::POD_RESOURCE_CLAIM_STATUS).rep(),
        m(
            18,
            "extendedResourceClaimStatus",
            &pod::POD_EXTENDED_RESOURCE_CLAIM_STATUS,
        ),
        mq(19, "allocatedResources"),
        m(20, "resources", &RESOURCE_REQUIREMENTS),
    ],
};

pub static POD: Msg = Msg {
    name: "Pod",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &POD_SPEC),
        m(3, "status", &POD_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// core/v1: small kinds
// ------------------------------------------------------------------------------------------

pub static NAMESPACE_SPEC: Msg = Msg {
    name: "NamespaceSpec",
    fields: &[s(1, "finalizers").rep()],
};

pub static NAMESPACE_CONDITION: Msg = Msg {
    name: "NamespaceCondition",
    fields: &[
        s(1, "type").z(),
        s(2, "status").z(),
        t(4, "lastTransitionTime"),
        s(5, "reason"),
        s(6, "message"),
    ],
};

pub static NAMESPACE_STATUS: Msg = Msg {
    name: "NamespaceStatus",
    fields: &[
        s(1, "phase"),
        m(2, "conditions", &NAMESPACE_CONDITION).rep(),
    ],
};

pub static NAMESPACE: Msg = Msg {
    name: "Namespace",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &NAMESPACE_SPEC),
        m(3, "status", &NAMESPACE_STATUS),
    ],
};

pub static CONFIG_MAP: Msg = Msg {
    name: "ConfigMap",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        b(4, "immutable").z(),
        ms(2, "data"),
        F::new(3, "binaryData", Ty::MapBytes),
    ],
};

// ------------------------------------------------------------------------------------------
// core/v1: Node
// ------------------------------------------------------------------------------------------

pub static TAINT: Msg = Msg {
    name: "Taint",
    fields: &[
        s(1, "key").z(),
        s(2, "value"),
        s(3, "effect").z(),
        t(4, "timeAdded"),
    ],
};

pub static CONFIG_MAP_NODE_CONFIG_SOURCE: Msg = Msg {
    name: "ConfigMapNodeConfigSource",
    fields: &[
        s(1, "namespace").z(),
        s(2, "name").z(),
        s(3, "uid"),
        s(4, "resourceVersion"),
        s(5, "kubeletConfigKey").z(),
    ],
};

pub static NODE_CONFIG_SOURCE: Msg = Msg {
    name: "NodeConfigSource",
    fields: &[m(2, "configMap", &CONFIG_MAP_NODE_CONFIG_SOURCE)],
};

pub static NODE_SPEC: Msg = Msg {
    name: "NodeSpec",
    fields: &[
        s(1, "podCIDR"),
        s(7, "podCIDRs").rep(),
        s(3, "providerID"),
        b(4, "unschedulable"),
        m(5, "taints", &TAINT).rep(),
        m(6, "configSource", &NODE_CONFIG_SOURCE),
        s(2, "externalID"),
    ],
};

pub static NODE_CONDITION: Msg = Msg {
    name: "NodeCondition",
    fields: &[
        s(1, "type").z(),
        s(2, "status").z(),
        t(3, "lastHeartbeatTime"),
        t(4, "lastTransitionTime"),
        s(5, "reason"),
        s(6, "message"),
    ],
};

pub static NODE_ADDRESS: Msg = Msg {
    name: "NodeAddress",
    fields: &[s(1, "type").z(), s(2, "address").z()],
};

pub static DAEMON_ENDPOINT: Msg = Msg {
    name: "DaemonEndpoint",
    fields: &[i(1, "Port").z()],
};

pub static NODE_DAEMON_ENDPOINTS: Msg = Msg {
    name: "NodeDaemonEndpoints",
    fields: &[m(1, "kubeletEndpoint", &DAEMON_ENDPOINT)],
};

pub static NODE_SWAP_STATUS: Msg = Msg {
    name: "NodeSwapStatus",
    fields: &[i(1, "capacity").z()],
};

pub static NODE_SYSTEM_INFO: Msg = Msg {
    name: "NodeSystemInfo",
    fields: &[
        s(1, "machineID").z(),
        s(2, "systemUUID").z(),
        s(3, "bootID").z(),
        s(4, "kernelVersion").z(),
        s(5, "osImage").z(),
        s(6, "containerRuntimeVersion").z(),
        s(7, "kubeletVersion").z(),
        s(8, "kubeProxyVersion").z(),
        s(9, "operatingSystem").z(),
        s(10, "architecture").z(),
        m(11, "swap", &NODE_SWAP_STATUS),
    ],
};

pub static CONTAINER_IMAGE: Msg = Msg {
    name: "ContainerImage",
    // `names` has no `omitempty`.
    fields: &[s(1, "names").rep().z(), i(2, "sizeBytes")],
};

pub static ATTACHED_VOLUME: Msg = Msg {
    name: "AttachedVolume",
    fields: &[s(1, "name").z(), s(2, "devicePath").z()],
};

pub static NODE_CONFIG_STATUS: Msg = Msg {
    name: "NodeConfigStatus",
    fields: &[
        m(1, "assigned", &NODE_CONFIG_SOURCE),
        m(2, "active", &NODE_CONFIG_SOURCE),
        m(3, "lastKnownGood", &NODE_CONFIG_SOURCE),
        s(4, "error"),
    ],
};

pub static NODE_RUNTIME_HANDLER_FEATURES: Msg = Msg {
    name: "NodeRuntimeHandlerFeatures",
    fields: &[
        b(1, "recursiveReadOnlyMounts").z(),
        b(2, "userNamespaces").z(),
    ],
};

pub static NODE_RUNTIME_HANDLER: Msg = Msg {
    name: "NodeRuntimeHandler",
    fields: &[
        s(1, "name").z(),
        m(2, "features", &NODE_RUNTIME_HANDLER_FEATURES),
    ],
};

pub static NODE_FEATURES: Msg = Msg {
    name: "NodeFeatures",
    fields: &[b(1, "supplementalGroupsPolicy").z()],
};

pub static NODE_STATUS: Msg = Msg {
    name: "NodeStatus",
    fields: &[
        mq(1, "capacity"),
        mq(2, "allocatable"),
        s(3, "phase"),
        m(4, "conditions", &NODE_CONDITION).rep(),
        m(5, "addresses", &NODE_ADDRESS).rep(),
        m(6, "daemonEndpoints", &NODE_DAEMON_ENDPOINTS),
        m(7, "nodeInfo", &NODE_SYSTEM_INFO),
        m(8, "images", &CONTAINER_IMAGE).rep(),
        s(9, "volumesInUse").rep(),
        m(10, "volumesAttached", &ATTACHED_VOLUME).rep(),
        m(11, "config", &NODE_CONFIG_STATUS),
        m(12, "runtimeHandlers", &NODE_RUNTIME_HANDLER).rep(),
        m(13, "features", &NODE_FEATURES),
        s(14, "declaredFeatures").rep(),
    ],
};

pub static NODE: Msg = Msg {
    name: "Node",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &NODE_SPEC),
        m(3, "status", &NODE_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// core/v1: Service, Endpoints
// ------------------------------------------------------------------------------------------

pub static SERVICE_PORT: Msg = Msg {
    name: "ServicePort",
    fields: &[
        s(1, "name"),
        s(2, "protocol"),
        s(6, "appProtocol").z(),
        i(3, "port").z(),
        // Not a pointer and a struct: Go's JSON writes it whatever its value.
        F::new(4, "targetPort", Ty::IntOrString).z(),
        i(5, "nodePort"),
    ],
};

pub static CLIENT_IP_CONFIG: Msg = Msg {
    name: "ClientIPConfig",
    fields: &[i(1, "timeoutSeconds").z()],
};

pub static SESSION_AFFINITY_CONFIG: Msg = Msg {
    name: "SessionAffinityConfig",
    fields: &[m(1, "clientIP", &CLIENT_IP_CONFIG)],
};

pub static SERVICE_SPEC: Msg = Msg {
    name: "ServiceSpec",
    fields: &[
        m(1, "ports", &SERVICE_PORT).rep(),
        ms(2, "selector"),
        s(3, "clusterIP"),
        s(18, "clusterIPs").rep(),
        s(4, "type"),
        s(5, "externalIPs").rep(),
        s(7, "sessionAffinity"),
        s(8, "loadBalancerIP"),
        s(9, "loadBalancerSourceRanges").rep(),
        s(10, "externalName"),
        s(11, "externalTrafficPolicy"),
        i(12, "healthCheckNodePort"),
        b(13, "publishNotReadyAddresses"),
        m(14, "sessionAffinityConfig", &SESSION_AFFINITY_CONFIG),
        s(19, "ipFamilies").rep(),
        s(17, "ipFamilyPolicy").z(),
        b(20, "allocateLoadBalancerNodePorts").z(),
        s(21, "loadBalancerClass").z(),
        s(22, "internalTrafficPolicy").z(),
        s(23, "trafficDistribution").z(),
    ],
};

pub static PORT_STATUS: Msg = Msg {
    name: "PortStatus",
    fields: &[i(1, "port").z(), s(2, "protocol").z(), s(3, "error").z()],
};

pub static LOAD_BALANCER_INGRESS: Msg = Msg {
    name: "LoadBalancerIngress",
    fields: &[
        s(1, "ip"),
        s(2, "hostname"),
        s(3, "ipMode").z(),
        m(4, "ports", &PORT_STATUS).rep(),
    ],
};

pub static LOAD_BALANCER_STATUS: Msg = Msg {
    name: "LoadBalancerStatus",
    fields: &[m(1, "ingress", &LOAD_BALANCER_INGRESS).rep()],
};

/// `metav1.Condition`.
pub static CONDITION: Msg = Msg {
    name: "Condition",
    fields: &[
        s(1, "type").z(),
        s(2, "status").z(),
        i(3, "observedGeneration"),
        t(4, "lastTransitionTime"),
        s(5, "reason").z(),
        s(6, "message").z(),
    ],
};

pub static SERVICE_STATUS: Msg = Msg {
    name: "ServiceStatus",
    fields: &[
        m(1, "loadBalancer", &LOAD_BALANCER_STATUS),
        m(2, "conditions", &CONDITION).rep(),
    ],
};

pub static SERVICE: Msg = Msg {
    name: "Service",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &SERVICE_SPEC),
        m(3, "status", &SERVICE_STATUS),
    ],
};

pub static OBJECT_REFERENCE: Msg = Msg {
    name: "ObjectReference",
    fields: &[
        s(1, "kind"),
        s(2, "namespace"),
        s(3, "name"),
        s(4, "uid"),
        s(5, "apiVersion"),
        s(6, "resourceVersion"),
        s(7, "fieldPath"),
    ],
};

pub static ENDPOINT_ADDRESS: Msg = Msg {
    name: "EndpointAddress",
    fields: &[
        s(1, "ip").z(),
        s(3, "hostname"),
        s(4, "nodeName").z(),
        m(2, "targetRef", &OBJECT_REFERENCE),
    ],
};

pub static ENDPOINT_PORT: Msg = Msg {
    name: "EndpointPort",
    fields: &[
        s(1, "name"),
        i(2, "port").z(),
        s(3, "protocol"),
        s(4, "appProtocol").z(),
    ],
};

pub static ENDPOINT_SUBSET: Msg = Msg {
    name: "EndpointSubset",
    fields: &[
        m(1, "addresses", &ENDPOINT_ADDRESS).rep(),
        m(2, "notReadyAddresses", &ENDPOINT_ADDRESS).rep(),
        m(3, "ports", &ENDPOINT_PORT).rep(),
    ],
};

pub static ENDPOINTS: Msg = Msg {
    name: "Endpoints",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "subsets", &ENDPOINT_SUBSET).rep(),
    ],
};

// ------------------------------------------------------------------------------------------
// core/v1: Event, Secret, ServiceAccount
// ------------------------------------------------------------------------------------------

pub static EVENT_SOURCE: Msg = Msg {
    name: "EventSource",
    fields: &[s(1, "component"), s(2, "host")],
};

pub static EVENT_SERIES: Msg = Msg {
    name: "EventSeries",
    fields: &[i(1, "count"), F::new(2, "lastObservedTime", Ty::MicroTime)],
};

pub static EVENT: Msg = Msg {
    name: "Event",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "involvedObject", &OBJECT_REFERENCE),
        s(3, "reason"),
        s(4, "message"),
        m(5, "source", &EVENT_SOURCE),
        t(6, "firstTimestamp"),
        t(7, "lastTimestamp"),
        i(8, "count"),
        s(9, "type"),
        F::new(10, "eventTime", Ty::MicroTime),
        m(11, "series", &EVENT_SERIES),
        s(12, "action"),
        m(13, "related", &OBJECT_REFERENCE),
        s(14, "reportingComponent").z(),
        s(15, "reportingInstance").z(),
    ],
};

pub static SECRET: Msg = Msg {
    name: "Secret",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        b(5, "immutable").z(),
        F::new(2, "data", Ty::MapBytes),
        ms(4, "stringData"),
        s(3, "type"),
    ],
};

pub static SERVICE_ACCOUNT: Msg = Msg {
    name: "ServiceAccount",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "secrets", &OBJECT_REFERENCE).rep(),
        m(3, "imagePullSecrets", &LOCAL_OBJECT_REFERENCE).rep(),
        b(4, "automountServiceAccountToken").z(),
    ],
};

/// The message of a built-in kind (`apiVersion`, `kind`), when kinformer can speak it on the wire.
pub fn kind(api_version: &str, kind: &str) -> Option<&'static Msg> {
    match (api_version, kind) {
        ("v1", "Pod") => Some(&POD),
        ("v1", "Namespace") => Some(&NAMESPACE),
        ("v1", "ConfigMap") => Some(&CONFIG_MAP),
        ("v1", "Node") => Some(&NODE),
        ("v1", "Service") => Some(&SERVICE),
        ("v1", "Endpoints") => Some(&ENDPOINTS),
        ("v1", "Event") => Some(&EVENT),
        ("v1", "Secret") => Some(&SECRET),
        ("v1", "ServiceAccount") => Some(&SERVICE_ACCOUNT),
        ("apps/v1", "Deployment") => Some(&workloads::DEPLOYMENT),
        ("apps/v1", "ReplicaSet") => Some(&workloads::REPLICA_SET),
        ("apps/v1", "StatefulSet") => Some(&workloads::STATEFUL_SET),
        ("apps/v1", "DaemonSet") => Some(&workloads::DAEMON_SET),
        ("batch/v1", "Job") => Some(&workloads::JOB),
        ("batch/v1", "CronJob") => Some(&workloads::CRON_JOB),
        ("v1", "PersistentVolumeClaim") => Some(&workloads::PERSISTENT_VOLUME_CLAIM),
        ("v1", "PersistentVolume") => Some(&storage_network::PERSISTENT_VOLUME),
        ("networking.k8s.io/v1", "Ingress") => Some(&storage_network::INGRESS),
        ("policy/v1", "PodDisruptionBudget") => Some(&policy::POD_DISRUPTION_BUDGET),
        ("autoscaling/v2", "HorizontalPodAutoscaler") => Some(&policy::HORIZONTAL_POD_AUTOSCALER),
        ("rbac.authorization.k8s.io/v1", "Role") => Some(&policy::ROLE),
        ("rbac.authorization.k8s.io/v1", "ClusterRole") => Some(&policy::CLUSTER_ROLE),
        ("rbac.authorization.k8s.io/v1", "RoleBinding" | "ClusterRoleBinding") => {
            Some(&policy::ROLE_BINDING)
        }
        ("networking.k8s.io/v1", "NetworkPolicy") => Some(&storage_network::NETWORK_POLICY),
        ("storage.k8s.io/v1", "StorageClass") => Some(&storage_network::STORAGE_CLASS),
        ("discovery.k8s.io/v1", "EndpointSlice") => Some(&storage_network::ENDPOINT_SLICE),
        ("coordination.k8s.io/v1", "Lease") => Some(&policy::LEASE),
        ("v1", "ResourceQuota") => Some(&policy::RESOURCE_QUOTA),
        ("v1", "LimitRange") => Some(&policy::LIMIT_RANGE),
        ("scheduling.k8s.io/v1", "PriorityClass") => Some(&policy::PRIORITY_CLASS),
        _ => None,
    }
}
