//! The parts of a Pod's spec and status beyond the common ones in the parent module: scheduling
//! (`affinity`, `topologySpreadConstraints`, `schedulingGates`, `os`), DNS, ephemeral
//! containers, dynamic resource claims, restart rules, the container user, resource health,
//! Windows options and the newer projected volumes. Transcribed from k8s.io/api
//! `core/v1/generated.proto`; JSON presence from the Go types' tags, as in the parent module.

use super::storage_network::{NODE_SELECTOR, NODE_SELECTOR_TERM};
use super::workloads::LABEL_SELECTOR;
use super::*;

pub static AFFINITY: Msg = Msg {
    name: "Affinity",
    fields: &[
        m(1, "nodeAffinity", &NODE_AFFINITY),
        m(2, "podAffinity", &POD_AFFINITY),
        m(3, "podAntiAffinity", &POD_ANTI_AFFINITY),
    ],
};

pub static NODE_AFFINITY: Msg = Msg {
    name: "NodeAffinity",
    fields: &[
        m(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            &NODE_SELECTOR,
        ),
        m(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            &PREFERRED_SCHEDULING_TERM,
        )
        .rep(),
    ],
};

pub static PREFERRED_SCHEDULING_TERM: Msg = Msg {
    name: "PreferredSchedulingTerm",
    fields: &[i(1, "weight").z(), m(2, "preference", &NODE_SELECTOR_TERM)],
};

pub static POD_AFFINITY: Msg = Msg {
    name: "PodAffinity",
    fields: &[
        m(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            &POD_AFFINITY_TERM,
        )
        .rep(),
        m(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            &WEIGHTED_POD_AFFINITY_TERM,
        )
        .rep(),
    ],
};

pub static POD_ANTI_AFFINITY: Msg = Msg {
    name: "PodAntiAffinity",
    fields: &[
        m(
            1,
            "requiredDuringSchedulingIgnoredDuringExecution",
            &POD_AFFINITY_TERM,
        )
        .rep(),
        m(
            2,
            "preferredDuringSchedulingIgnoredDuringExecution",
            &WEIGHTED_POD_AFFINITY_TERM,
        )
        .rep(),
    ],
};

pub static WEIGHTED_POD_AFFINITY_TERM: Msg = Msg {
    name: "WeightedPodAffinityTerm",
    fields: &[
        i(1, "weight").z(),
        m(2, "podAffinityTerm", &POD_AFFINITY_TERM),
    ],
};

pub static POD_AFFINITY_TERM: Msg = Msg {
    name: "PodAffinityTerm",
    fields: &[
        m(1, "labelSelector", &LABEL_SELECTOR),
        s(2, "namespaces").rep(),
        s(3, "topologyKey").z(),
        m(4, "namespaceSelector", &LABEL_SELECTOR),
        s(5, "matchLabelKeys").rep(),
        s(6, "mismatchLabelKeys").rep(),
    ],
};

pub static POD_DNS_CONFIG: Msg = Msg {
    name: "PodDNSConfig",
    fields: &[
        s(1, "nameservers").rep(),
        s(2, "searches").rep(),
        m(3, "options", &POD_DNS_CONFIG_OPTION).rep(),
    ],
};

pub static POD_DNS_CONFIG_OPTION: Msg = Msg {
    name: "PodDNSConfigOption",
    fields: &[s(1, "name"), s(2, "value").z()],
};

pub static TOPOLOGY_SPREAD_CONSTRAINT: Msg = Msg {
    name: "TopologySpreadConstraint",
    fields: &[
        i(1, "maxSkew").z(),
        s(2, "topologyKey").z(),
        s(3, "whenUnsatisfiable").z(),
        m(4, "labelSelector", &LABEL_SELECTOR),
        i(5, "minDomains").z(),
        s(6, "nodeAffinityPolicy").z(),
        s(7, "nodeTaintsPolicy").z(),
        s(8, "matchLabelKeys").rep(),
    ],
};

/// An ephemeral container: `EphemeralContainerCommon` (the fields of `Container`, under the same
/// numbers) inlined, and the container it targets.
pub static EPHEMERAL_CONTAINER: Msg = Msg {
    name: "EphemeralContainer",
    fields: &[
        F::new(1, "", Ty::Inline(&CONTAINER)),
        s(2, "targetContainerName"),
    ],
};

pub static POD_OS: Msg = Msg {
    name: "PodOS",
    fields: &[s(1, "name").z()],
};

pub static POD_SCHEDULING_GATE: Msg = Msg {
    name: "PodSchedulingGate",
    fields: &[s(1, "name").z()],
};

pub static POD_RESOURCE_CLAIM: Msg = Msg {
    name: "PodResourceClaim",
    fields: &[
        s(1, "name").z(),
        s(3, "resourceClaimName").z(),
        s(4, "resourceClaimTemplateName").z(),
    ],
};

pub static POD_RESOURCE_CLAIM_STATUS: Msg = Msg {
    name: "PodResourceClaimStatus",
    fields: &[s(1, "name").z(), s(2, "resourceClaimName").z()],
};

pub static VOLUME_DEVICE: Msg = Msg {
    name: "VolumeDevice",
    fields: &[s(1, "name").z(), s(2, "devicePath").z()],
};

pub static CONTAINER_RESTART_RULE: Msg = Msg {
    name: "ContainerRestartRule",
    fields: &[
        s(1, "action").z(),
        m(2, "exitCodes", &CONTAINER_RESTART_RULE_ON_EXIT_CODES),
    ],
};

pub static CONTAINER_RESTART_RULE_ON_EXIT_CODES: Msg = Msg {
    name: "ContainerRestartRuleOnExitCodes",
    fields: &[s(1, "operator").z(), i(2, "values").rep()],
};

pub static CONTAINER_USER: Msg = Msg {
    name: "ContainerUser",
    fields: &[m(1, "linux", &LINUX_CONTAINER_USER)],
};

pub static LINUX_CONTAINER_USER: Msg = Msg {
    name: "LinuxContainerUser",
    fields: &[
        i(1, "uid").z(),
        i(2, "gid").z(),
        i(3, "supplementalGroups").rep(),
    ],
};

pub static RESOURCE_STATUS: Msg = Msg {
    name: "ResourceStatus",
    fields: &[s(1, "name").z(), m(2, "resources", &RESOURCE_HEALTH).rep()],
};

pub static RESOURCE_HEALTH: Msg = Msg {
    name: "ResourceHealth",
    fields: &[s(1, "resourceID").z(), s(2, "health")],
};

pub static FILE_KEY_SELECTOR: Msg = Msg {
    name: "FileKeySelector",
    fields: &[
        s(1, "volumeName").z(),
        s(2, "path").z(),
        s(3, "key").z(),
        b(4, "optional").z(),
    ],
};

pub static WINDOWS_SECURITY_CONTEXT_OPTIONS: Msg = Msg {
    name: "WindowsSecurityContextOptions",
    fields: &[
        s(1, "gmsaCredentialSpecName").z(),
        s(2, "gmsaCredentialSpec").z(),
        s(3, "runAsUserName").z(),
        b(4, "hostProcess").z(),
    ],
};

pub static CLUSTER_TRUST_BUNDLE_PROJECTION: Msg = Msg {
    name: "ClusterTrustBundleProjection",
    fields: &[
        s(1, "name").z(),
        s(2, "signerName").z(),
        m(3, "labelSelector", &LABEL_SELECTOR),
        b(5, "optional").z(),
        s(4, "path").z(),
    ],
};

pub static POD_CERTIFICATE_PROJECTION: Msg = Msg {
    name: "PodCertificateProjection",
    fields: &[
        s(1, "signerName").z(),
        s(2, "keyType").z(),
        i(3, "maxExpirationSeconds").z(),
        s(4, "credentialBundlePath"),
        s(5, "keyPath"),
        s(6, "certificateChainPath"),
        ms(7, "userAnnotations"),
    ],
};

pub static POD_EXTENDED_RESOURCE_CLAIM_STATUS: Msg = Msg {
    name: "PodExtendedResourceClaimStatus",
    fields: &[
        m(1, "requestMappings", &CONTAINER_EXTENDED_RESOURCE_REQUEST)
            .rep()
            .z(),
        s(2, "resourceClaimName").z(),
    ],
};

pub static CONTAINER_EXTENDED_RESOURCE_REQUEST: Msg = Msg {
    name: "ContainerExtendedResourceRequest",
    fields: &[
        s(1, "containerName").z(),
        s(2, "resourceName").z(),
        s(3, "requestName").z(),
    ],
};
