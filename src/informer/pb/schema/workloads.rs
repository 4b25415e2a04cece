//! apps/v1 and batch/v1 workload kinds (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
//! CronJob) and core/v1 PersistentVolumeClaim,
//! transcribed from k8s.io/api `apps/v1/generated.proto` and `batch/v1/generated.proto`, with the
//! meta and core/v1 messages they embed (`LabelSelector`, `PodTemplateSpec`,
//! `PersistentVolumeClaim`). JSON presence from the Go types' tags, as in the parent module.

use super::*;

// ------------------------------------------------------------------------------------------
// embedded meta and core/v1 messages
// ------------------------------------------------------------------------------------------

pub static LABEL_SELECTOR_REQUIREMENT: Msg = Msg {
    name: "LabelSelectorRequirement",
    fields: &[s(1, "key").z(), s(2, "operator").z(), s(3, "values").rep()],
};

/// `metav1.LabelSelector`. An empty `matchLabels` has no protobuf form: it does not survive a
/// round trip (kube-apiserver's JSON for such an object has `selector: {}`).
pub static LABEL_SELECTOR: Msg = Msg {
    name: "LabelSelector",
    fields: &[
        ms(1, "matchLabels"),
        m(2, "matchExpressions", &LABEL_SELECTOR_REQUIREMENT).rep(),
    ],
};

pub static POD_TEMPLATE_SPEC: Msg = Msg {
    name: "PodTemplateSpec",
    fields: &[m(1, "metadata", &OBJECT_META), m(2, "spec", &POD_SPEC)],
};

pub static TYPED_LOCAL_OBJECT_REFERENCE: Msg = Msg {
    name: "TypedLocalObjectReference",
    fields: &[s(1, "apiGroup").z(), s(2, "kind").z(), s(3, "name").z()],
};

pub static TYPED_OBJECT_REFERENCE: Msg = Msg {
    name: "TypedObjectReference",
    fields: &[
        s(1, "apiGroup").z(),
        s(2, "kind").z(),
        s(3, "name").z(),
        s(4, "namespace").z(),
    ],
};

pub static VOLUME_RESOURCE_REQUIREMENTS: Msg = Msg {
    name: "VolumeResourceRequirements",
    fields: &[mq(1, "limits"), mq(2, "requests")],
};

pub static PVC_SPEC: Msg = Msg {
    name: "PersistentVolumeClaimSpec",
    fields: &[
        s(1, "accessModes").rep(),
        m(4, "selector", &LABEL_SELECTOR),
        m(2, "resources", &VOLUME_RESOURCE_REQUIREMENTS),
        s(3, "volumeName"),
        s(5, "storageClassName").z(),
        s(6, "volumeMode").z(),
        m(7, "dataSource", &TYPED_LOCAL_OBJECT_REFERENCE),
        m(8, "dataSourceRef", &TYPED_OBJECT_REFERENCE),
        s(9, "volumeAttributesClassName").z(),
    ],
};

pub static PVC_CONDITION: Msg = Msg {
    name: "PersistentVolumeClaimCondition",
    fields: &[
        s(1, "type").z(),
        s(2, "status").z(),
        t(3, "lastProbeTime"),
        t(4, "lastTransitionTime"),
        s(5, "reason"),
        s(6, "message"),
    ],
};

pub static MODIFY_VOLUME_STATUS: Msg = Msg {
    name: "ModifyVolumeStatus",
    fields: &[s(1, "targetVolumeAttributesClassName"), s(2, "status").z()],
};

pub static PVC_STATUS: Msg = Msg {
    name: "PersistentVolumeClaimStatus",
    fields: &[
        s(1, "phase"),
        s(2, "accessModes").rep(),
        mq(3, "capacity"),
        m(4, "conditions", &PVC_CONDITION).rep(),
        mq(5, "allocatedResources"),
        ms(7, "allocatedResourceStatuses"),
        s(8, "currentVolumeAttributesClassName").z(),
        m(9, "modifyVolumeStatus", &MODIFY_VOLUME_STATUS),
    ],
};

/// As a StatefulSet's `volumeClaimTemplates` item, whose JSON carries `apiVersion`/`kind`.
/// (A top-level PersistentVolumeClaim uses the same message: its `apiVersion`/`kind` are the
/// envelope's, and [`crate::informer::pb::decode_object`] does not write `Const` fields.)
pub static PERSISTENT_VOLUME_CLAIM: Msg = Msg {
    name: "PersistentVolumeClaim",
    fields: &[
        F::new(0, "apiVersion", Ty::Const("v1")),
        F::new(0, "kind", Ty::Const("PersistentVolumeClaim")),
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &PVC_SPEC),
        m(3, "status", &PVC_STATUS),
    ],
};

/// A `*intstr.IntOrString` (a pointer: JSON keeps a zero, `maxSurge: 0`).
const fn is(n: u32, name: &'static str) -> F {
    F::new(n, name, Ty::IntOrString).z()
}

// ------------------------------------------------------------------------------------------
// apps/v1: Deployment
// ------------------------------------------------------------------------------------------

pub static ROLLING_UPDATE_DEPLOYMENT: Msg = Msg {
    name: "RollingUpdateDeployment",
    fields: &[is(1, "maxUnavailable"), is(2, "maxSurge")],
};

pub static DEPLOYMENT_STRATEGY: Msg = Msg {
    name: "DeploymentStrategy",
    fields: &[
        s(1, "type"),
        m(2, "rollingUpdate", &ROLLING_UPDATE_DEPLOYMENT),
    ],
};

pub static DEPLOYMENT_SPEC: Msg = Msg {
    name: "DeploymentSpec",
    fields: &[
        i(1, "replicas").z(),
        m(2, "selector", &LABEL_SELECTOR),
        m(3, "template", &POD_TEMPLATE_SPEC),
        m(4, "strategy", &DEPLOYMENT_STRATEGY),
        i(5, "minReadySeconds"),
        i(6, "revisionHistoryLimit").z(),
        b(7, "paused"),
        i(9, "progressDeadlineSeconds").z(),
    ],
};

pub static DEPLOYMENT_CONDITION: Msg = Msg {
    name: "DeploymentCondition",
    fields: &[
        s(1, "type").z(),
        s(2, "status").z(),
        t(6, "lastUpdateTime"),
        t(7, "lastTransitionTime"),
        s(4, "reason"),
        s(5, "message"),
    ],
};

pub static DEPLOYMENT_STATUS: Msg = Msg {
    name: "DeploymentStatus",
    fields: &[
        i(1, "observedGeneration"),
        i(2, "replicas"),
        i(3, "updatedReplicas"),
        i(7, "readyReplicas"),
        i(4, "availableReplicas"),
        i(5, "unavailableReplicas"),
        i(9, "terminatingReplicas").z(),
        m(6, "conditions", &DEPLOYMENT_CONDITION).rep(),
        i(8, "collisionCount").z(),
    ],
};

pub static DEPLOYMENT: Msg = Msg {
    name: "Deployment",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &DEPLOYMENT_SPEC),
        m(3, "status", &DEPLOYMENT_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// apps/v1: ReplicaSet
// ------------------------------------------------------------------------------------------

pub static REPLICA_SET_SPEC: Msg = Msg {
    name: "ReplicaSetSpec",
    fields: &[
        i(1, "replicas").z(),
        i(4, "minReadySeconds"),
        m(2, "selector", &LABEL_SELECTOR),
        m(3, "template", &POD_TEMPLATE_SPEC),
    ],
};

/// The condition of a ReplicaSet, StatefulSet or DaemonSet (the same five fields).
pub static APPS_CONDITION: Msg = Msg {
    name: "ReplicaSetCondition",
    fields: &[
        s(1, "type").z(),
        s(2, "status").z(),
        t(3, "lastTransitionTime"),
        s(4, "reason"),
        s(5, "message"),
    ],
};

pub static REPLICA_SET_STATUS: Msg = Msg {
    name: "ReplicaSetStatus",
    fields: &[
        i(1, "replicas").z(),
        i(2, "fullyLabeledReplicas"),
        i(4, "readyReplicas"),
        i(5, "availableReplicas"),
        i(7, "terminatingReplicas").z(),
        i(3, "observedGeneration"),
        m(6, "conditions", &APPS_CONDITION).rep(),
    ],
};

pub static REPLICA_SET: Msg = Msg {
    name: "ReplicaSet",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &REPLICA_SET_SPEC),
        m(3, "status", &REPLICA_SET_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// apps/v1: StatefulSet
// ------------------------------------------------------------------------------------------

pub static ROLLING_UPDATE_STATEFUL_SET: Msg = Msg {
    name: "RollingUpdateStatefulSetStrategy",
    fields: &[i(1, "partition").z(), is(2, "maxUnavailable")],
};

pub static STATEFUL_SET_UPDATE_STRATEGY: Msg = Msg {
    name: "StatefulSetUpdateStrategy",
    fields: &[
        s(1, "type"),
        m(2, "rollingUpdate", &ROLLING_UPDATE_STATEFUL_SET),
    ],
};

pub static STATEFUL_SET_PVC_RETENTION: Msg = Msg {
    name: "StatefulSetPersistentVolumeClaimRetentionPolicy",
    fields: &[s(1, "whenDeleted"), s(2, "whenScaled")],
};

pub static STATEFUL_SET_ORDINALS: Msg = Msg {
    name: "StatefulSetOrdinals",
    // `json:"start"`, no `omitempty`: JSON keeps `start: 0`.
    fields: &[i(1, "start").z()],
};

pub static STATEFUL_SET_SPEC: Msg = Msg {
    name: "StatefulSetSpec",
    fields: &[
        i(1, "replicas").z(),
        m(2, "selector", &LABEL_SELECTOR),
        m(3, "template", &POD_TEMPLATE_SPEC),
        m(4, "volumeClaimTemplates", &PERSISTENT_VOLUME_CLAIM).rep(),
        s(5, "serviceName"),
        s(6, "podManagementPolicy"),
        m(7, "updateStrategy", &STATEFUL_SET_UPDATE_STRATEGY),
        i(8, "revisionHistoryLimit").z(),
        i(9, "minReadySeconds"),
        m(
            10,
            "persistentVolumeClaimRetentionPolicy",
            &STATEFUL_SET_PVC_RETENTION,
        ),
        m(11, "ordinals", &STATEFUL_SET_ORDINALS),
    ],
};

pub static STATEFUL_SET_STATUS: Msg = Msg {
    name: "StatefulSetStatus",
    fields: &[
        i(1, "observedGeneration"),
        i(2, "replicas").z(),
        i(3, "readyReplicas"),
        i(4, "currentReplicas"),
        i(5, "updatedReplicas"),
        s(6, "currentRevision"),
        s(7, "updateRevision"),
        i(9, "collisionCount").z(),
        m(10, "conditions", &APPS_CONDITION).rep(),
        i(11, "availableReplicas").z(),
    ],
};

pub static STATEFUL_SET: Msg = Msg {
    name: "StatefulSet",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &STATEFUL_SET_SPEC),
        m(3, "status", &STATEFUL_SET_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// apps/v1: DaemonSet
// ------------------------------------------------------------------------------------------

pub static ROLLING_UPDATE_DAEMON_SET: Msg = Msg {
    name: "RollingUpdateDaemonSet",
    fields: &[is(1, "maxUnavailable"), is(2, "maxSurge")],
};

pub static DAEMON_SET_UPDATE_STRATEGY: Msg = Msg {
    name: "DaemonSetUpdateStrategy",
    fields: &[
        s(1, "type"),
        m(2, "rollingUpdate", &ROLLING_UPDATE_DAEMON_SET),
    ],
};

pub static DAEMON_SET_SPEC: Msg = Msg {
    name: "DaemonSetSpec",
    fields: &[
        m(1, "selector", &LABEL_SELECTOR),
        m(2, "template", &POD_TEMPLATE_SPEC),
        m(3, "updateStrategy", &DAEMON_SET_UPDATE_STRATEGY),
        i(4, "minReadySeconds"),
        i(6, "revisionHistoryLimit").z(),
    ],
};

pub static DAEMON_SET_STATUS: Msg = Msg {
    name: "DaemonSetStatus",
    fields: &[
        i(1, "currentNumberScheduled").z(),
        i(2, "numberMisscheduled").z(),
        i(3, "desiredNumberScheduled").z(),
        i(4, "numberReady").z(),
        i(5, "observedGeneration"),
        i(6, "updatedNumberScheduled"),
        i(7, "numberAvailable"),
        i(8, "numberUnavailable"),
        i(9, "collisionCount").z(),
        m(10, "conditions", &APPS_CONDITION).rep(),
    ],
};

pub static DAEMON_SET: Msg = Msg {
    name: "DaemonSet",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &DAEMON_SET_SPEC),
        m(3, "status", &DAEMON_SET_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// batch/v1: Job
// ------------------------------------------------------------------------------------------

pub static JOB_SPEC: Msg = Msg {
    name: "JobSpec",
    fields: &[
        i(1, "parallelism").z(),
        i(2, "completions").z(),
        i(3, "activeDeadlineSeconds").z(),
        i(7, "backoffLimit").z(),
        i(12, "backoffLimitPerIndex").z(),
        i(13, "maxFailedIndexes").z(),
        m(4, "selector", &LABEL_SELECTOR),
        b(5, "manualSelector").z(),
        m(6, "template", &POD_TEMPLATE_SPEC),
        m(11, "podFailurePolicy", &POD_FAILURE_POLICY),
        m(16, "successPolicy", &SUCCESS_POLICY),
        i(8, "ttlSecondsAfterFinished").z(),
        s(9, "completionMode").z(),
        b(10, "suspend").z(),
        s(14, "podReplacementPolicy").z(),
        s(15, "managedBy").z(),
    ],
};

pub static POD_FAILURE_POLICY: Msg = Msg {
    name: "PodFailurePolicy",
    fields: &[m(1, "rules", &POD_FAILURE_POLICY_RULE).rep().z()],
};

pub static POD_FAILURE_POLICY_RULE: Msg = Msg {
    name: "PodFailurePolicyRule",
    fields: &[
        s(1, "action").z(),
        m(
            2,
            "onExitCodes",
            &POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT,
        ),
        m(
            3,
            "onPodConditions",
            &POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN,
        )
        .rep(),
    ],
};

pub static POD_FAILURE_POLICY_ON_EXIT_CODES_REQUIREMENT: Msg = Msg {
    name: "PodFailurePolicyOnExitCodesRequirement",
    fields: &[
        s(1, "containerName").z(),
        s(2, "operator").z(),
        i(3, "values").rep().z(),
    ],
};

pub static POD_FAILURE_POLICY_ON_POD_CONDITIONS_PATTERN: Msg = Msg {
    name: "PodFailurePolicyOnPodConditionsPattern",
    fields: &[s(1, "type").z(), s(2, "status")],
};

pub static SUCCESS_POLICY: Msg = Msg {
    name: "SuccessPolicy",
    fields: &[m(1, "rules", &SUCCESS_POLICY_RULE).rep().z()],
};

pub static SUCCESS_POLICY_RULE: Msg = Msg {
    name: "SuccessPolicyRule",
    fields: &[s(1, "succeededIndexes").z(), i(2, "succeededCount").z()],
};

pub static JOB_CONDITION: Msg = Msg {
    name: "JobCondition",
    fields: &[
        s(1, "type").z(),
        s(2, "status").z(),
        t(3, "lastProbeTime"),
        t(4, "lastTransitionTime"),
        s(5, "reason"),
        s(6, "message"),
    ],
};

pub static UNCOUNTED_TERMINATED_PODS: Msg = Msg {
    name: "UncountedTerminatedPods",
    fields: &[s(1, "succeeded").rep(), s(2, "failed").rep()],
};

pub static JOB_STATUS: Msg = Msg {
    name: "JobStatus",
    fields: &[
        m(1, "conditions", &JOB_CONDITION).rep(),
        t(2, "startTime"),
        t(3, "completionTime"),
        i(4, "active"),
        i(5, "succeeded"),
        i(6, "failed"),
        i(11, "terminating").z(),
        s(7, "completedIndexes"),
        s(10, "failedIndexes").z(),
        m(8, "uncountedTerminatedPods", &UNCOUNTED_TERMINATED_PODS),
        i(9, "ready").z(),
    ],
};

pub static JOB: Msg = Msg {
    name: "Job",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &JOB_SPEC),
        m(3, "status", &JOB_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// batch/v1: CronJob
// ------------------------------------------------------------------------------------------

pub static JOB_TEMPLATE_SPEC: Msg = Msg {
    name: "JobTemplateSpec",
    fields: &[m(1, "metadata", &OBJECT_META), m(2, "spec", &JOB_SPEC)],
};

pub static CRON_JOB_SPEC: Msg = Msg {
    name: "CronJobSpec",
    fields: &[
        s(1, "schedule").z(),
        s(8, "timeZone").z(),
        i(2, "startingDeadlineSeconds").z(),
        s(3, "concurrencyPolicy"),
        b(4, "suspend").z(),
        m(5, "jobTemplate", &JOB_TEMPLATE_SPEC),
        i(6, "successfulJobsHistoryLimit").z(),
        i(7, "failedJobsHistoryLimit").z(),
    ],
};

pub static CRON_JOB_STATUS: Msg = Msg {
    name: "CronJobStatus",
    fields: &[
        m(1, "active", &OBJECT_REFERENCE).rep(),
        t(4, "lastScheduleTime"),
        t(5, "lastSuccessfulTime"),
    ],
};

pub static CRON_JOB: Msg = Msg {
    name: "CronJob",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &CRON_JOB_SPEC),
        m(3, "status", &CRON_JOB_STATUS),
    ],
};
