//! Policy, access and cluster-configuration kinds: policy/v1 PodDisruptionBudget, autoscaling/v2
//! HorizontalPodAutoscaler, rbac.authorization.k8s.io/v1 Role, RoleBinding, ClusterRole and
//! ClusterRoleBinding, coordination.k8s.io/v1 Lease, core/v1 ResourceQuota and LimitRange,
//! scheduling.k8s.io/v1 PriorityClass. Transcribed from k8s.io/api `policy/v1`,
//! `autoscaling/v2`, `rbac/v1`, `coordination/v1`, `core/v1` and `scheduling/v1`
//! `generated.proto`; JSON presence from the Go types' tags, as in the parent module.

use super::workloads::LABEL_SELECTOR;
use super::*;

/// A `*intstr.IntOrString` (a pointer: JSON keeps a zero).
const fn is(n: u32, name: &'static str) -> F {
    F::new(n, name, Ty::IntOrString).z()
}

// ------------------------------------------------------------------------------------------
// policy/v1: PodDisruptionBudget
// ------------------------------------------------------------------------------------------

pub static PDB_SPEC: Msg = Msg {
    name: "PodDisruptionBudgetSpec",
    fields: &[
        is(1, "minAvailable"),
        m(2, "selector", &LABEL_SELECTOR),
        is(3, "maxUnavailable"),
        s(4, "unhealthyPodEvictionPolicy").z(),
    ],
};

pub static PDB_STATUS: Msg = Msg {
    name: "PodDisruptionBudgetStatus",
    fields: &[
        i(1, "observedGeneration"),
        F::new(2, "disruptedPods", Ty::MapTime),
        i(3, "disruptionsAllowed").z(),
        i(4, "currentHealthy").z(),
        i(5, "desiredHealthy").z(),
        i(6, "expectedPods").z(),
        m(7, "conditions", &CONDITION).rep(),
    ],
};

pub static POD_DISRUPTION_BUDGET: Msg = Msg {
    name: "PodDisruptionBudget",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &PDB_SPEC),
        m(3, "status", &PDB_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// autoscaling/v2: HorizontalPodAutoscaler
// ------------------------------------------------------------------------------------------

pub static CROSS_VERSION_OBJECT_REFERENCE: Msg = Msg {
    name: "CrossVersionObjectReference",
    fields: &[s(1, "kind").z(), s(2, "name").z(), s(3, "apiVersion")],
};

pub static METRIC_IDENTIFIER: Msg = Msg {
    name: "MetricIdentifier",
    fields: &[s(1, "name").z(), m(2, "selector", &LABEL_SELECTOR)],
};

pub static METRIC_TARGET: Msg = Msg {
    name: "MetricTarget",
    fields: &[
        s(1, "type").z(),
        q(2, "value"),
        q(3, "averageValue"),
        i(4, "averageUtilization").z(),
    ],
};

pub static METRIC_VALUE_STATUS: Msg = Msg {
    name: "MetricValueStatus",
    fields: &[
        q(1, "value"),
        q(2, "averageValue"),
        i(3, "averageUtilization").z(),
    ],
};

pub static OBJECT_METRIC_SOURCE: Msg = Msg {
    name: "ObjectMetricSource",
    fields: &[
        m(1, "describedObject", &CROSS_VERSION_OBJECT_REFERENCE),
        m(2, "target", &METRIC_TARGET),
        m(3, "metric", &METRIC_IDENTIFIER),
    ],
};

pub static PODS_METRIC_SOURCE: Msg = Msg {
    name: "PodsMetricSource",
    fields: &[
        m(1, "metric", &METRIC_IDENTIFIER),
        m(2, "target", &METRIC_TARGET),
    ],
};

pub static RESOURCE_METRIC_SOURCE: Msg = Msg {
    name: "ResourceMetricSource",
    fields: &[s(1, "name").z(), m(2, "target", &METRIC_TARGET)],
};

pub static CONTAINER_RESOURCE_METRIC_SOURCE: Msg = Msg {
    name: "ContainerResourceMetricSource",
    fields: &[
        s(1, "name").z(),
        m(2, "target", &METRIC_TARGET),
        s(3, "container").z(),
    ],
};

pub static EXTERNAL_METRIC_SOURCE: Msg = Msg {
    name: "ExternalMetricSource",
    fields: &[
        m(1, "metric", &METRIC_IDENTIFIER),
        m(2, "target", &METRIC_TARGET),
    ],
};

pub static METRIC_SPEC: Msg = Msg {
    name: "MetricSpec",
    fields: &[
        s(1, "type").z(),
        m(2, "object", &OBJECT_METRIC_SOURCE),
        m(3, "pods", &PODS_METRIC_SOURCE),
        m(4, "resource", &RESOURCE_METRIC_SOURCE),
        m(7, "containerResource", &CONTAINER_RESOURCE_METRIC_SOURCE),
        m(5, "external", &EXTERNAL_METRIC_SOURCE),
    ],
};

pub static HPA_SCALING_POLICY: Msg = Msg {
    name: "HPAScalingPolicy",
    fields: &[
        s(1, "type").z(),
        i(2, "value").z(),
        i(3, "periodSeconds").z(),
    ],
};

pub static HPA_SCALING_RULES: Msg = Msg {
    name: "HPAScalingRules",
    fields: &[
        i(3, "stabilizationWindowSeconds").z(),
        s(1, "selectPolicy").z(),
        m(2, "policies", &HPA_SCALING_POLICY).rep(),
        q(4, "tolerance"),
    ],
};

pub static HPA_BEHAVIOR: Msg = Msg {
    name: "HorizontalPodAutoscalerBehavior",
    fields: &[
        m(1, "scaleUp", &HPA_SCALING_RULES),
        m(2, "scaleDown", &HPA_SCALING_RULES),
    ],
};

pub static HPA_SPEC: Msg = Msg {
    name: "HorizontalPodAutoscalerSpec",
    fields: &[
        m(1, "scaleTargetRef", &CROSS_VERSION_OBJECT_REFERENCE),
        i(2, "minReplicas").z(),
        i(3, "maxReplicas").z(),
        m(4, "metrics", &METRIC_SPEC).rep(),
        m(5, "behavior", &HPA_BEHAVIOR),
    ],
};

pub static OBJECT_METRIC_STATUS: Msg = Msg {
    name: "ObjectMetricStatus",
    fields: &[
        m(1, "metric", &METRIC_IDENTIFIER),
        m(2, "current", &METRIC_VALUE_STATUS),
        m(3, "describedObject", &CROSS_VERSION_OBJECT_REFERENCE),
    ],
};

pub static PODS_METRIC_STATUS: Msg = Msg {
    name: "PodsMetricStatus",
    fields: &[
        m(1, "metric", &METRIC_IDENTIFIER),
        m(2, "current", &METRIC_VALUE_STATUS),
    ],
};

pub static RESOURCE_METRIC_STATUS: Msg = Msg {
    name: "ResourceMetricStatus",
    fields: &[s(1, "name").z(), m(2, "current", &METRIC_VALUE_STATUS)],
};

pub static CONTAINER_RESOURCE_METRIC_STATUS: Msg = Msg {
    name: "ContainerResourceMetricStatus",
    fields: &[
        s(1, "name").z(),
        m(2, "current", &METRIC_VALUE_STATUS),
        s(3, "container").z(),
    ],
};

pub static EXTERNAL_METRIC_STATUS: Msg = Msg {
    name: "ExternalMetricStatus",
    fields: &[
        m(1, "metric", &METRIC_IDENTIFIER),
        m(2, "current", &METRIC_VALUE_STATUS),
    ],
};

pub static METRIC_STATUS: Msg = Msg {
    name: "MetricStatus",
    fields: &[
        s(1, "type").z(),
        m(2, "object", &OBJECT_METRIC_STATUS),
        m(3, "pods", &PODS_METRIC_STATUS),
        m(4, "resource", &RESOURCE_METRIC_STATUS),
        m(7, "containerResource", &CONTAINER_RESOURCE_METRIC_STATUS),
        m(5, "external", &EXTERNAL_METRIC_STATUS),
    ],
};

pub static HPA_CONDITION: Msg = Msg {
    name: "HorizontalPodAutoscalerCondition",
    fields: &[
        s(1, "type").z(),
        s(2, "status").z(),
        t(3, "lastTransitionTime"),
        s(4, "reason"),
        s(5, "message"),
    ],
};

pub static HPA_STATUS: Msg = Msg {
    name: "HorizontalPodAutoscalerStatus",
    fields: &[
        i(1, "observedGeneration").z(),
        t(2, "lastScaleTime"),
        i(3, "currentReplicas"),
        i(4, "desiredReplicas").z(),
        m(5, "currentMetrics", &METRIC_STATUS).rep(),
        m(6, "conditions", &HPA_CONDITION).rep(),
    ],
};

pub static HORIZONTAL_POD_AUTOSCALER: Msg = Msg {
    name: "HorizontalPodAutoscaler",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &HPA_SPEC),
        m(3, "status", &HPA_STATUS),
    ],
};

// ------------------------------------------------------------------------------------------
// rbac.authorization.k8s.io/v1
// ------------------------------------------------------------------------------------------

pub static POLICY_RULE: Msg = Msg {
    name: "PolicyRule",
    fields: &[
        s(1, "verbs").rep().z(),
        s(2, "apiGroups").rep(),
        s(3, "resources").rep(),
        s(4, "resourceNames").rep(),
        s(5, "nonResourceURLs").rep(),
    ],
};

pub static AGGREGATION_RULE: Msg = Msg {
    name: "AggregationRule",
    fields: &[m(1, "clusterRoleSelectors", &LABEL_SELECTOR).rep()],
};

pub static ROLE_REF: Msg = Msg {
    name: "RoleRef",
    fields: &[s(1, "apiGroup").z(), s(2, "kind").z(), s(3, "name").z()],
};

pub static SUBJECT: Msg = Msg {
    name: "Subject",
    fields: &[
        s(1, "kind").z(),
        s(2, "apiGroup"),
        s(3, "name").z(),
        s(4, "namespace"),
    ],
};

pub static ROLE: Msg = Msg {
    name: "Role",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "rules", &POLICY_RULE).rep().z(),
    ],
};

pub static CLUSTER_ROLE: Msg = Msg {
    name: "ClusterRole",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "rules", &POLICY_RULE).rep().z(),
        m(3, "aggregationRule", &AGGREGATION_RULE),
    ],
};

/// A RoleBinding and a ClusterRoleBinding have the same fields.
pub static ROLE_BINDING: Msg = Msg {
    name: "RoleBinding",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "subjects", &SUBJECT).rep(),
        m(3, "roleRef", &ROLE_REF),
    ],
};

// ------------------------------------------------------------------------------------------
// coordination.k8s.io/v1: Lease
// ------------------------------------------------------------------------------------------

pub static LEASE_SPEC: Msg = Msg {
    name: "LeaseSpec",
    fields: &[
        s(1, "holderIdentity").z(),
        i(2, "leaseDurationSeconds").z(),
        F::new(3, "acquireTime", Ty::MicroTime),
        F::new(4, "renewTime", Ty::MicroTime),
        i(5, "leaseTransitions").z(),
        s(6, "strategy").z(),
        s(7, "preferredHolder").z(),
    ],
};

pub static LEASE: Msg = Msg {
    name: "Lease",
    fields: &[m(1, "metadata", &OBJECT_META), m(2, "spec", &LEASE_SPEC)],
};

// ------------------------------------------------------------------------------------------
// core/v1: ResourceQuota, LimitRange
// ------------------------------------------------------------------------------------------

pub static SCOPED_RESOURCE_SELECTOR_REQUIREMENT: Msg = Msg {
    name: "ScopedResourceSelectorRequirement",
    fields: &[
        s(1, "scopeName").z(),
        s(2, "operator").z(),
        s(3, "values").rep(),
    ],
};

pub static SCOPE_SELECTOR: Msg = Msg {
    name: "ScopeSelector",
    fields: &[m(1, "matchExpressions", &SCOPED_RESOURCE_SELECTOR_REQUIREMENT).rep()],
};

pub static RESOURCE_QUOTA_SPEC: Msg = Msg {
    name: "ResourceQuotaSpec",
    fields: &[
        mq(1, "hard"),
        s(2, "scopes").rep(),
        m(3, "scopeSelector", &SCOPE_SELECTOR),
    ],
};

pub static RESOURCE_QUOTA_STATUS: Msg = Msg {
    name: "ResourceQuotaStatus",
    fields: &[mq(1, "hard"), mq(2, "used")],
};

pub static RESOURCE_QUOTA: Msg = Msg {
    name: "ResourceQuota",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &RESOURCE_QUOTA_SPEC),
        m(3, "status", &RESOURCE_QUOTA_STATUS),
    ],
};

pub static LIMIT_RANGE_ITEM: Msg = Msg {
    name: "LimitRangeItem",
    fields: &[
        s(1, "type").z(),
        mq(2, "max"),
        mq(3, "min"),
        mq(4, "default"),
        mq(5, "defaultRequest"),
        mq(6, "maxLimitRequestRatio"),
    ],
};

pub static LIMIT_RANGE_SPEC: Msg = Msg {
    name: "LimitRangeSpec",
    fields: &[m(1, "limits", &LIMIT_RANGE_ITEM).rep().z()],
};

pub static LIMIT_RANGE: Msg = Msg {
    name: "LimitRange",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        m(2, "spec", &LIMIT_RANGE_SPEC),
    ],
};

// ------------------------------------------------------------------------------------------
// scheduling.k8s.io/v1: PriorityClass
// ------------------------------------------------------------------------------------------

pub static PRIORITY_CLASS: Msg = Msg {
    name: "PriorityClass",
    fields: &[
        m(1, "metadata", &OBJECT_META),
        i(2, "value").z(),
        b(3, "globalDefault"),
        s(4, "description"),
        s(5, "preemptionPolicy").z(),
    ],
};
