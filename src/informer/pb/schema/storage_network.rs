//! Storage and networking kinds: core/v1 PersistentVolume, storage.k8s.io/v1 StorageClass,
//! networking.k8s.io/v1 Ingress and NetworkPolicy, discovery.k8s.io/v1 EndpointSlice.
//! Transcribed from k8s.io/api `core/v1`, `storage/v1`, `networking/v1` and `discovery/v1`
//! `generated.proto`; JSON presence from the Go types' tags, as in the parent module. A
//! PersistentVolume has every source of `PersistentVolumeSource` (the in-tree ones in
//! [`super::volumes`]).

use super::volumes::*;
use super::workloads::{LABEL_SELECTOR, TYPED_LOCAL_OBJECT_REFERENCE};
use super::*;

// ------------------------------------------------------------------------------------------
// core/v1: PersistentVolume
// ------------------------------------------------------------------------------------------

pub static SECRET_REFERENCE: Msg = Msg {
    name: "SecretReference",
    fields: &[s(1, "name"), s(2, "namespace")],
};

pub static LOCAL_VOLUME_SOURCE: Msg = Msg {
    name: "LocalVolumeSource",
    fields: &[s(1, "path").z(), s(2, "fsType").z()],
};

pub static CSI_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "CSIPersistentVolumeSource",
    fields: &[
        s(1, "driver").z(),
        s(2, "volumeHandle").z(),
        b(3, "readOnly"),
        s(4, "fsType"),
        ms(5, "volumeAttributes"),
        m(6, "controllerPublishSecretRef", &SECRET_REFERENCE),
        m(7, "nodeStageSecretRef", &SECRET_REFERENCE),
        m(8, "nodePublishSecretRef", &SECRET_REFERENCE),
        m(9, "controllerExpandSecretRef", &SECRET_REFERENCE),
        m(10, "nodeExpandSecretRef", &SECRET_REFERENCE),
    ],
};

pub static PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "PersistentVolumeSource",
    fields: &[
        m(1, "gcePersistentDisk", &GCE_PERSISTENT_DISK_VOLUME_SOURCE),
        m(
            2,
            "awsElasticBlockStore",
            &AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE,
        ),
        m(3, "hostPath", &HOST_PATH_VOLUME_SOURCE),
        m(4, "glusterfs", &GLUSTERFS_PERSISTENT_VOLUME_SOURCE),
        m(5, "nfs", &NFS_VOLUME_SOURCE),
        m(6, "rbd", &RBD_PERSISTENT_VOLUME_SOURCE),
        m(7, "iscsi", &ISCSI_PERSISTENT_VOLUME_SOURCE),
        m(8, "cinder", &CINDER_PERSISTENT_VOLUME_SOURCE),
        m(9, "cephfs", &CEPH_FS_PERSISTENT_VOLUME_SOURCE),
        m(10, "fc", &FC_VOLUME_SOURCE),
        m(11, "flocker", &FLOCKER_VOLUME_SOURCE),
        m(12, "flexVolume", &FLEX_PERSISTENT_VOLUME_SOURCE),
        m(13, "azureFile", &AZURE_FILE_PERSISTENT_VOLUME_SOURCE),
        m(14, "vsphereVolume", &VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE),
        m(15, "quobyte", &QUOBYTE_VOLUME_SOURCE),
        m(16, "azureDisk", &AZURE_DISK_VOLUME_SOURCE),
        m(
            17,
            "photonPersistentDisk",
            &PHOTON_PERSISTENT_DISK_VOLUME_SOURCE,
        ),
        m(18, "portworxVolume", &PORTWORX_VOLUME_SOURCE),
        m(19, "scaleIO", &SCALE_IO_PERSISTENT_VOLUME_SOURCE),
        m(20, "local", &LOCAL_VOLUME_SOURCE),
        m(21, "storageos", &STORAGE_OS_PERSISTENT_VOLUME_SOURCE),
        m(22, "csi", &CSI_PERSISTENT_VOLUME_SOURCE),
    ],
};

pub static NODE_SELECTOR_REQUIREMENT: Msg = Msg {
    name: "NodeSelectorRequirement",
    fields: &[s(1, "key").z(), s(2, "operator").z(), s(3, "values").rep()],
};

pub static NODE_SELECTOR_TERM: Msg = Msg {
    name: "NodeSelectorTerm",
    fields: &[
        m(1, "matchExpressions", &NODE_SELECTOR_REQUIREMENT).rep(),
        m(2, "matchFields", &NODE_SELECTOR_REQUIREMENT).rep(),
    ],
};

pub static NODE_SELECTOR: Msg = Msg {
    name: "NodeSelector",
    fields: &[m(1, "nodeSelectorTerms", &NODE_SELECTOR_TERM).rep().z()],
};

pub static VOLUME_NODE_AFFINITY: Msg = Msg {
    name: "VolumeNodeAffinity",
    fields: &[m(1, "required", &NODE_SELECTOR)],
};

pub static PERSISTENT_VOLUME_SPEC: Msg = Msg {
    name: "PersistentVolumeSpec",
    fields: &[
        mq(1, "capacity"),
        F::new(2, "", Ty::Inline(&PERSISTENT_VOLUME_SOURCE)),
        s(3, "accessModes").rep(),
        m(4, "claimRef", &OBJECT_REFERENCE),
        s(5, "persistentVolumeReclaimPolicy"),
        s(6, "storageClassName"),
        s(7, "mountOptions").rep(),
        s(8, "volumeMode").z(),
        m(9, "nodeAffinity", &VOLUME_NODE_AFFINITY),
        s(10, "volumeAttributesClassName").z(),
    ],
};

pub static PERSISTENT_VOLUME_STATUS: Msg = Msg {
    name: "PersistentVolumeStatus",
    fields: &[
        s(1, "phase"),
        s(2, "message"),
        s(3, "reason"),
        t(4, "lastPhaseTransitionTime"),
    ],
};

pub static PERSISTENT_VOLUME: Msg = Msg {
    name: "PersistentVolume",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &PERSISTENT_VOLUME_SPEC),
        m(3, "status", &PERSISTENT_VOLUME_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// storage.k8s.io/v1: StorageClass
// ------------------------------------------------------------------------------------------

pub static TOPOLOGY_SELECTOR_LABEL_REQUIREMENT: Msg = Msg {
    name: "TopologySelectorLabelRequirement",
    fields: &[s(1, "key").z(), s(2, "values").rep().z()],
};

pub static TOPOLOGY_SELECTOR_TERM: Msg = Msg {
    name: "TopologySelectorTerm",
    fields: &[m(
        1,
        "matchLabelExpressions",
        &TOPOLOGY_SELECTOR_LABEL_REQUIREMENT,
    )
    .rep()],
};

pub static STORAGE_CLASS: Msg = Msg {
    name: "StorageClass",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        s(2, "provisioner").z(),
        ms(3, "parameters"),
        s(4, "reclaimPolicy").z(),
        s(5, "mountOptions").rep(),
        b(6, "allowVolumeExpansion").z(),
        s(7, "volumeBindingMode").z(),
        m(8, "allowedTopologies", &TOPOLOGY_SELECTOR_TERM).rep(),
    ],
};

// ------------------------------------------------------------------------------------------
// networking.k8s.io/v1: Ingress
// ------------------------------------------------------------------------------------------

pub static SERVICE_BACKEND_PORT: Msg = Msg {
    name: "ServiceBackendPort",
    fields: &[s(1, "name"), i(2, "number")],
};

pub static INGRESS_SERVICE_BACKEND: Msg = Msg {
    name: "IngressServiceBackend",
    fields: &[s(1, "name").z(), m(2, "port", &SERVICE_BACKEND_PORT)],
};

pub static INGRESS_BACKEND: Msg = Msg {
    name: "IngressBackend",
    fields: &[
        m(4, "service", &INGRESS_SERVICE_BACKEND),
        m(3, "resource", &TYPED_LOCAL_OBJECT_REFERENCE),
    ],
};

pub static HTTP_INGRESS_PATH: Msg = Msg {
    name: "HTTPIngressPath",
    fields: &[
        s(1, "path"),
        s(3, "pathType").z(),
        m(2, "backend", &INGRESS_BACKEND),
    ],
};

pub static HTTP_INGRESS_RULE_VALUE: Msg = Msg {
    name: "HTTPIngressRuleValue",
    fields: &[m(1, "paths", &HTTP_INGRESS_PATH).rep().z()],
};

pub static INGRESS_RULE_VALUE: Msg = Msg {
    name: "IngressRuleValue",
    fields: &[m(1, "http", &HTTP_INGRESS_RULE_VALUE)],
};

pub static INGRESS_RULE: Msg = Msg {
    name: "IngressRule",
    fields: &[s(1, "host"), F::new(2, "", Ty::Inline(&INGRESS_RULE_VALUE))],
};

pub static INGRESS_TLS: Msg = Msg {
    name: "IngressTLS",
    fields: &[s(1, "hosts").rep(), s(2, "secretName")],
};

pub static INGRESS_SPEC: Msg = Msg {
    name: "IngressSpec",
    fields: &[
        s(4, "ingressClassName").z(),
        m(1, "defaultBackend", &INGRESS_BACKEND),
        m(2, "tls", &INGRESS_TLS).rep(),
        m(3, "rules", &INGRESS_RULE).rep(),
    ],
};

pub static INGRESS_PORT_STATUS: Msg = Msg {
    name: "IngressPortStatus",
    fields: &[i(1, "port").z(), s(2, "protocol").z(), s(3, "error").z()],
};

pub static INGRESS_LOAD_BALANCER_INGRESS: Msg = Msg {
    name: "IngressLoadBalancerIngress",
    fields: &[
        s(1, "ip"),
        s(2, "hostname"),
        m(4, "ports", &INGRESS_PORT_STATUS).rep(),
    ],
};

pub static INGRESS_LOAD_BALANCER_STATUS: Msg = Msg {
    name: "IngressLoadBalancerStatus",
    fields: &[m(1, "ingress", &INGRESS_LOAD_BALANCER_INGRESS).rep()],
};

pub static INGRESS_STATUS: Msg = Msg {
    name: "IngressStatus",
    fields: &[m(1, "loadBalancer", &INGRESS_LOAD_BALANCER_STATUS)],
};

pub static INGRESS: Msg = Msg {
    name: "Ingress",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &INGRESS_SPEC),
        m(3, "status", &INGRESS_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// networking.k8s.io/v1: NetworkPolicy
// ------------------------------------------------------------------------------------------

pub static IP_BLOCK: Msg = Msg {
    name: "IPBlock",
    fields: &[s(1, "cidr").z(), s(2, "except").rep()],
};

pub static NETWORK_POLICY_PEER: Msg = Msg {
    name: "NetworkPolicyPeer",
    fields: &[
        m(1, "podSelector", &LABEL_SELECTOR),
        m(2, "namespaceSelector", &LABEL_SELECTOR),
        m(3, "ipBlock", &IP_BLOCK),
    ],
};

pub static NETWORK_POLICY_PORT: Msg = Msg {
    name: "NetworkPolicyPort",
    fields: &[
        s(1, "protocol").z(),
        // A pointer: JSON keeps `port: 0`.
        F::new(2, "port", Ty::IntOrString).z(),
        i(3, "endPort").z(),
    ],
};

pub static NETWORK_POLICY_INGRESS_RULE: Msg = Msg {
    name: "NetworkPolicyIngressRule",
    fields: &[
        m(1, "ports", &NETWORK_POLICY_PORT).rep(),
        m(2, "from", &NETWORK_POLICY_PEER).rep(),
    ],
};

pub static NETWORK_POLICY_EGRESS_RULE: Msg = Msg {
    name: "NetworkPolicyEgressRule",
    fields: &[
        m(1, "ports", &NETWORK_POLICY_PORT).rep(),
        m(2, "to", &NETWORK_POLICY_PEER).rep(),
    ],
};

pub static NETWORK_POLICY_SPEC: Msg = Msg {
    name: "NetworkPolicySpec",
    fields: &[
        m(1, "podSelector", &LABEL_SELECTOR),
        m(2, "ingress", &NETWORK_POLICY_INGRESS_RULE).rep(),
        m(3, "egress", &NETWORK_POLICY_EGRESS_RULE).rep(),
        s(4, "policyTypes").rep(),
    ],
};

pub static NETWORK_POLICY: Msg = Msg {
    name: "NetworkPolicy",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &NETWORK_POLICY_SPEC),
    ],
};

// ------------------------------------------------------------------------------------------
// discovery.k8s.io/v1: EndpointSlice
// ------------------------------------------------------------------------------------------

pub static ENDPOINT_CONDITIONS: Msg = Msg {
    name: "EndpointConditions",
    fields: &[
        b(1, "ready").z(),
        b(2, "serving").z(),
        b(3, "terminating").z(),
    ],
};

pub static FOR_ZONE: Msg = Msg {
    name: "ForZone",
    fields: &[s(1, "name").z()],
};

pub static FOR_NODE: Msg = Msg {
    name: "ForNode",
    fields: &[s(1, "name").z()],
};

pub static ENDPOINT_HINTS: Msg = Msg {
    name: "EndpointHints",
    fields: &[
        m(1, "forZones", &FOR_ZONE).rep(),
        m(2, "forNodes", &FOR_NODE).rep(),
    ],
};

pub static ENDPOINT: Msg = Msg {
    name: "Endpoint",
    fields: &[
        s(1, "addresses").rep().z(),
        m(2, "conditions", &ENDPOINT_CONDITIONS),
        s(3, "hostname").z(),
        m(4, "targetRef", &OBJECT_REFERENCE),
        ms(5, "deprecatedTopology"),
        s(6, "nodeName").z(),
        s(7, "zone").z(),
        m(8, "hints", &ENDPOINT_HINTS),
    ],
};

/// discovery/v1 `EndpointPort` (every field a pointer, unlike core/v1's).
pub static ENDPOINT_SLICE_PORT: Msg = Msg {
    name: "EndpointPort",
    fields: &[
        s(1, "name").z(),
        s(2, "protocol").z(),
        i(3, "port").z(),
        s(4, "appProtocol").z(),
    ],
};

pub static ENDPOINT_SLICE: Msg = Msg {
    name: "EndpointSlice",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        s(4, "addressType").z(),
        m(2, "endpoints", &ENDPOINT).rep().z(),
        m(3, "ports", &ENDPOINT_SLICE_PORT).rep().z(),
    ],
};
