//! Resource usage columns from `metrics.k8s.io` (k9s's pod and node metrics columns; `kubectl top`
//! for the units).
//!
//! - [`parse_cpu_nanos`] / [`parse_bytes`]: Kubernetes quantities (`250m`, `1.5Gi`, `12345678n`,
//!   `2`, `1e3`, `128974848`, `129M`) into nanocores and bytes, rounded up as
//!   `resource.Quantity`'s `MilliValue()`/`Value()` round, never a panic on bad input;
//! - [`PodResources`]: a pod's summed requests and limits (k9s: requests of app containers and
//!   restartable init containers, a container without requests defaults to its limits as the API
//!   server defaults it; limits summed over the containers that set them);
//! - [`pod_usage_cells`] / [`node_usage_cells`]: the cells CPU, MEM, %CPU/R, %CPU/L, %MEM/R,
//!   %MEM/L for a pod, and CPU, MEM, %CPU, %MEM of allocatable for a node; a missing request or
//!   limit (or a zero one) is `n/a`, missing metrics are `n/a` in every cell;
//! - [`node_pods_cell`]: PODS, a node's non-terminated pods of its allocatable pods (`12/110`);
//! - [`UsageCell::level`]: the colour band (≥ 80% warn, ≥ 90% critical).
//!
//! Percentages are floored, as k9s's `ToPercentage` floors them; CPU shows in millicores
//! (`toMc`), memory in MiB (`toMi`).

use std::cmp::Ordering;

use serde_json::Value;

/// Why a quantity did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error("empty quantity")]
    Empty,
    #[error("quantity {0:?} is not a number with an optional suffix")]
    Malformed(String),
    #[error("quantity {0:?} is negative")]
    Negative(String),
    #[error("quantity {0:?} is too large")]
    Overflow(String),
}

/// `(base, exponent)`: the suffix's multiplier as `base^exponent`.
fn suffix(s: &str) -> Option<(u32, i32)> {
    Some(match s {
        "" => (10, 0),
        "n" => (10, -9),
        "u" => (10, -6),
        "m" => (10, -3),
        "k" => (10, 3),
        "M" => (10, 6),
        "G" => (10, 9),
        "T" => (10, 12),
        "P" => (10, 15),
        "E" => (10, 18),
        "Ki" => (2, 10),
        "Mi" => (2, 20),
        "Gi" => (2, 30),
        "Ti" => (2, 40),
        "Pi" => (2, 50),
        "Ei" => (2, 60),
        _ => return None,
    })
}

/// The quantity times `10^scale`, rounded up (`scale` 9 for nanocores, 0 for bytes).
fn parse_scaled(q: &str, scale: i32) -> Result<u64, QuantityError> {
    let q = q.trim();
    if q.is_empty() {
        return Err(QuantityError::Empty);
    }
    let bad = || QuantityError::Malformed(q.to_string());
    let over = || QuantityError::Overflow(q.to_string());
    let (sign_neg, body) = match q.as_bytes()[0] {
        b'-' => (true, &q[1..]),
        b'+' => (false, &q[1..]),
        _ => (false, q),
    };
    let num_end = body
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(body.len());
    let (num, suf) = body.split_at(num_end);
    if num.is_empty() || num == "." || num.matches('.').count() > 1 {
        return Err(bad());
    }
    let (base, exp) = match suf.strip_prefix(['e', 'E']).filter(|e| !e.is_empty()) {
        Some(e) => (10, e.parse::<i32>().map_err(|_| bad())?),
        None => suffix(suf).ok_or_else(bad)?,
    };
    let (int_part, frac_part) = num.split_once('.').unwrap_or((num, ""));
    // The digits of both parts as one number; more than 30 significant digits overflow.
    let mut numer: u128 = 0;
    let mut significant = 0usize;
    for d in int_part.bytes().chain(frac_part.bytes()) {
        if numer == 0 && d == b'0' {
            continue;
        }
        significant += 1;
        if significant > 30 {
            return Err(over());
        }
        numer = numer * 10 + u128::from(d - b'0');
    }
    if sign_neg && numer != 0 {
        return Err(QuantityError::Negative(q.to_string()));
    }
    let mut denom: u128 = 1;
    let pow10 = |n: u32| 10u128.checked_pow(n).ok_or_else(over);
    denom = denom
        .checked_mul(pow10(u32::try_from(frac_part.len()).map_err(|_| over())?)?)
        .ok_or_else(over)?;
    let mul10 = |e: i32, numer: &mut u128, denom: &mut u128| -> Result<(), QuantityError> {
        if e >= 0 {
            *numer = numer
                .checked_mul(pow10(e.unsigned_abs())?)
                .ok_or_else(over)?;
        } else {
            *denom = denom
                .checked_mul(pow10(e.unsigned_abs())?)
                .ok_or_else(over)?;
        }
        Ok(())
    };
    if base == 2 {
        numer = numer
            .checked_mul(1u128 << exp.unsigned_abs())
            .ok_or_else(over)?;
    } else {
        mul10(exp, &mut numer, &mut denom)?;
    }
    mul10(scale, &mut numer, &mut denom)?;
    let v = numer.div_ceil(denom);
    u64::try_from(v).map_err(|_| over())
}

/// CPU quantity in nanocores (`250m` → 250,000,000; `1` → 1,000,000,000).
pub fn parse_cpu_nanos(q: &str) -> Result<u64, QuantityError> {
    parse_scaled(q, 9)
}

/// Memory quantity in bytes, rounded up (`1.5Gi` → 1,610,612,736).
pub fn parse_bytes(q: &str) -> Result<u64, QuantityError> {
    parse_scaled(q, 0)
}

/// CPU nanocores → millicores rounded up (`MilliValue()`).
pub fn nanos_to_milli(n: u64) -> u64 {
    n.div_ceil(1_000_000)
}

/// A pod's (or node's) summed requests and limits; `None` where nothing sets one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PodResources {
    pub cpu_request_m: Option<u64>,
    pub cpu_limit_m: Option<u64>,
    pub mem_request: Option<u64>,
    pub mem_limit: Option<u64>,
}

fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.saturating_add(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

fn q_at<'a>(c: &'a Value, part: &str, res: &str) -> Option<&'a str> {
    c.get("resources")?.get(part)?.get(res)?.as_str()
}

/// A pod's requests and limits: from a pruned pod's record (see [`crate::informer::cached`];
/// empty: none set), else from its containers.
pub fn pod_resources(data: &Value) -> PodResources {
    if let Some(r) = crate::informer::cached::pod_record(data) {
        return PodResources::decode(r.resources).unwrap_or_default();
    }
    PodResources::of_pod(data)
}

impl PodResources {
    /// `"cpuReqM,cpuLimM,memReq,memLim"`, empty where unset.
    pub fn encode(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::with_capacity(48);
        let fields = [
            self.cpu_request_m,
            self.cpu_limit_m,
            self.mem_request,
            self.mem_limit,
        ];
        for (i, v) in fields.into_iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            if let Some(v) = v {
                // Writing to a String cannot fail.
                let _ = write!(s, "{v}");
            }
        }
        s
    }

    /// The inverse of [`encode`](Self::encode); `None` when malformed.
    pub fn decode(s: &str) -> Option<Self> {
        let mut it = s.split(',').map(|f| {
            if f.is_empty() {
                Ok(None)
            } else {
                f.parse::<u64>().map(Some)
            }
        });
        let mut next = || it.next()?.ok();
        let r = PodResources {
            cpu_request_m: next()?,
            cpu_limit_m: next()?,
            mem_request: next()?,
            mem_limit: next()?,
        };
        Some(r)
    }

    /// Sum of a pod's containers (`data` is the pod JSON): app containers plus restartable init
    /// containers (sidecars run alongside); unparsable quantities count as unset.
    pub fn of_pod(data: &Value) -> Self {
        let spec = data.get("spec");
        let list = |k: &str| {
            spec.and_then(|s| s.get(k))
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
        };
        let sidecars = list("initContainers")
            .iter()
            .filter(|c| c.get("restartPolicy").and_then(Value::as_str) == Some("Always"));
        let mut r = Self::default();
        for c in list("containers").iter().chain(sidecars) {
            let cpu_l = q_at(c, "limits", "cpu").and_then(|q| parse_cpu_nanos(q).ok());
            let mem_l = q_at(c, "limits", "memory").and_then(|q| parse_bytes(q).ok());
            // The API server defaults a missing request to the limit.
            let cpu_r = q_at(c, "requests", "cpu")
                .and_then(|q| parse_cpu_nanos(q).ok())
                .or(cpu_l);
            let mem_r = q_at(c, "requests", "memory")
                .and_then(|q| parse_bytes(q).ok())
                .or(mem_l);
            r.cpu_request_m = add(r.cpu_request_m, cpu_r.map(nanos_to_milli));
            r.cpu_limit_m = add(r.cpu_limit_m, cpu_l.map(nanos_to_milli));
            r.mem_request = add(r.mem_request, mem_r);
            r.mem_limit = add(r.mem_limit, mem_l);
        }
        r
    }
}

/// A pod's or node's measured usage: CPU in nanocores, memory in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub cpu_n: u64,
    pub mem: u64,
}

impl Usage {
    /// Sum of a `PodMetrics` item's containers; `None` if any usage does not parse.
    pub fn of_pod_metrics(item: &Value) -> Option<Self> {
        let mut u = Usage::default();
        for c in item.get("containers")?.as_array()? {
            u.cpu_n = u
                .cpu_n
                .saturating_add(parse_cpu_nanos(c.pointer("/usage/cpu")?.as_str()?).ok()?);
            u.mem = u
                .mem
                .saturating_add(parse_bytes(c.pointer("/usage/memory")?.as_str()?).ok()?);
        }
        Some(u)
    }

    /// A `NodeMetrics` item's usage.
    pub fn of_node_metrics(item: &Value) -> Option<Self> {
        Some(Usage {
            cpu_n: parse_cpu_nanos(item.pointer("/usage/cpu")?.as_str()?).ok()?,
            mem: parse_bytes(item.pointer("/usage/memory")?.as_str()?).ok()?,
        })
    }
}

/// Colour band of a usage cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Normal,
    /// ≥ 80%.
    Warn,
    /// ≥ 90%.
    Critical,
}

/// One usage cell, sortable numerically (`n/a` sorts first ascending).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageCell {
    /// No metrics, or no request/limit to compare with.
    NotAvailable,
    /// Millicores.
    Milli(u64),
    /// Bytes, shown in MiB.
    Bytes(u64),
    /// A floored percentage.
    Percent(u64),
    /// Pods on a node against its allocatable pods (`12/110`, or `12` without a capacity).
    Pods { used: u64, capacity: Option<u64> },
}

impl UsageCell {
    pub fn display(&self) -> String {
        match self {
            UsageCell::NotAvailable => "n/a".into(),
            UsageCell::Milli(m) => m.to_string(),
            UsageCell::Bytes(b) => (b / (1024 * 1024)).to_string(),
            UsageCell::Percent(p) => p.to_string(),
            UsageCell::Pods {
                used,
                capacity: Some(c),
            } => format!("{used}/{c}"),
            UsageCell::Pods {
                used,
                capacity: None,
            } => used.to_string(),
        }
    }

    pub fn level(&self) -> Level {
        match self {
            UsageCell::Percent(p) if *p >= 90 => Level::Critical,
            UsageCell::Percent(p) if *p >= 80 => Level::Warn,
            UsageCell::Pods {
                used,
                capacity: Some(c),
            } => percent(*used, Some(*c)).level(),
            _ => Level::Normal,
        }
    }

    /// The numeric value a sort compares (`None`: n/a).
    pub fn sort_key(&self) -> Option<u64> {
        match self {
            UsageCell::NotAvailable => None,
            UsageCell::Milli(v)
            | UsageCell::Bytes(v)
            | UsageCell::Percent(v)
            | UsageCell::Pods { used: v, .. } => Some(*v),
        }
    }

    pub fn cmp_for_sort(&self, other: &Self) -> Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

/// `used / total` as a floored percentage; `n/a` without a (non-zero) total.
pub fn percent(used: u64, total: Option<u64>) -> UsageCell {
    match total {
        Some(t) if t > 0 => UsageCell::Percent(
            u64::try_from(u128::from(used) * 100 / u128::from(t)).unwrap_or(u64::MAX),
        ),
        _ => UsageCell::NotAvailable,
    }
}

/// The pod metrics column names, in order.
pub const POD_COLUMNS: [&str; 6] = ["CPU", "MEM", "%CPU/R", "%CPU/L", "%MEM/R", "%MEM/L"];

/// CPU, MEM, %CPU/R, %CPU/L, %MEM/R, %MEM/L for a pod.
pub fn pod_usage_cells(res: &PodResources, usage: Option<Usage>) -> [UsageCell; 6] {
    let Some(u) = usage else {
        return [UsageCell::NotAvailable; 6];
    };
    let cpu_m = nanos_to_milli(u.cpu_n);
    [
        UsageCell::Milli(cpu_m),
        UsageCell::Bytes(u.mem),
        percent(cpu_m, res.cpu_request_m),
        percent(cpu_m, res.cpu_limit_m),
        percent(u.mem, res.mem_request),
        percent(u.mem, res.mem_limit),
    ]
}

/// A node's allocatable CPU (millicores), memory (bytes) and pods, from `status.allocatable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Allocatable {
    pub cpu_m: Option<u64>,
    pub mem: Option<u64>,
    pub pods: Option<u64>,
}

impl Allocatable {
    pub fn of_node(data: &Value) -> Self {
        let a = data.pointer("/status/allocatable");
        let q = |k: &str| a.and_then(|a| a.get(k)).and_then(Value::as_str);
        Allocatable {
            cpu_m: q("cpu")
                .and_then(|s| parse_cpu_nanos(s).ok())
                .map(nanos_to_milli),
            mem: q("memory").and_then(|s| parse_bytes(s).ok()),
            pods: q("pods").and_then(|s| parse_bytes(s).ok()),
        }
    }
}

/// The node usage column names, in order: the pods on it (from the pods informer's node index),
/// then the metrics cells of [`node_usage_cells`].
pub const NODE_COLUMNS: [&str; 5] = ["PODS", "CPU", "MEM", "%CPU", "%MEM"];

/// PODS for a node: its non-terminated pods against allocatable pods (`n/a` until counted).
pub fn node_pods_cell(alloc: &Allocatable, used: Option<u64>) -> UsageCell {
    match used {
        Some(used) => UsageCell::Pods {
            used,
            capacity: alloc.pods,
        },
        None => UsageCell::NotAvailable,
    }
}

/// CPU, MEM, %CPU, %MEM (of allocatable) for a node.
pub fn node_usage_cells(alloc: &Allocatable, usage: Option<Usage>) -> [UsageCell; 4] {
    let Some(u) = usage else {
        return [UsageCell::NotAvailable; 4];
    };
    let cpu_m = nanos_to_milli(u.cpu_n);
    [
        UsageCell::Milli(cpu_m),
        UsageCell::Bytes(u.mem),
        percent(cpu_m, alloc.cpu_m),
        percent(u.mem, alloc.mem),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cpu_quantities_parse_to_nanocores() {
        assert_eq!(parse_cpu_nanos("250m"), Ok(250_000_000));
        assert_eq!(parse_cpu_nanos("12345678n"), Ok(12_345_678));
        assert_eq!(parse_cpu_nanos("2"), Ok(2_000_000_000));
        assert_eq!(parse_cpu_nanos("0.5"), Ok(500_000_000));
        assert_eq!(parse_cpu_nanos("1500u"), Ok(1_500_000));
        assert_eq!(parse_cpu_nanos("1e3"), Ok(1_000_000_000_000));
        assert_eq!(parse_cpu_nanos("0"), Ok(0));
    }

    #[test]
    fn memory_quantities_parse_to_bytes_rounded_up() {
        assert_eq!(parse_bytes("1.5Gi"), Ok(1_610_612_736));
        assert_eq!(parse_bytes("128974848"), Ok(128_974_848));
        assert_eq!(parse_bytes("129M"), Ok(129_000_000));
        assert_eq!(parse_bytes("123Mi"), Ok(128_974_848));
        assert_eq!(parse_bytes("45678Ki"), Ok(45_678 * 1024));
        assert_eq!(parse_bytes("1m"), Ok(1)); // 0.001 byte rounds up, as Value() does
        assert_eq!(parse_bytes("1E"), Ok(1_000_000_000_000_000_000));
    }

    #[test]
    fn bad_quantities_are_errors_not_panics() {
        for q in [
            "",
            "abc",
            "1.2.3",
            "5Xi",
            "m",
            ".",
            "1e",
            "-1",
            "99999999999999999999Ei",
        ] {
            assert!(parse_bytes(q).is_err(), "{q:?}");
        }
        assert_eq!(parse_bytes("-0"), Ok(0));
    }

    #[test]
    fn leading_zeros_do_not_count_towards_the_thirty_digit_limit() {
        let zeros = "0".repeat(40);
        assert_eq!(parse_bytes(&format!("{zeros}12")), Ok(12));
        assert_eq!(parse_bytes(&format!("{zeros}.5")), Ok(1));
        assert_eq!(parse_cpu_nanos(&format!("0.{}1", "0".repeat(20))), Ok(1));
        assert_eq!(
            parse_bytes(&format!("1{}", "0".repeat(30))),
            Err(QuantityError::Overflow(format!("1{}", "0".repeat(30))))
        );
    }

    #[test]
    fn pod_resources_encode_and_decode_round_trip() {
        for r in [
            PodResources::default(),
            PodResources {
                cpu_request_m: Some(250),
                cpu_limit_m: None,
                mem_request: Some(128 << 20),
                mem_limit: Some(0),
            },
        ] {
            assert_eq!(PodResources::decode(&r.encode()), Some(r));
        }
        assert_eq!(
            PodResources {
                cpu_request_m: Some(1),
                cpu_limit_m: None,
                mem_request: None,
                mem_limit: Some(2),
            }
            .encode(),
            "1,,,2"
        );
    }

    #[test]
    fn percentages_are_floored_and_na_without_request_or_limit() {
        let res = PodResources {
            cpu_request_m: Some(300),
            cpu_limit_m: None,
            mem_request: Some(100 << 20),
            mem_limit: Some(0),
        };
        let cells = pod_usage_cells(
            &res,
            Some(Usage {
                cpu_n: 299_500_000,
                mem: 95 << 20,
            }),
        );
        assert_eq!(
            cells.map(|c| c.display()),
            ["300", "95", "100", "n/a", "95", "n/a"].map(String::from)
        );
        assert_eq!(cells[2].level(), Level::Critical);
        assert_eq!(percent(80, Some(100)).level(), Level::Warn);
        assert_eq!(percent(79, Some(100)).level(), Level::Normal);
        assert_eq!(
            pod_usage_cells(&res, None).map(|c| c.display()),
            ["n/a"; 6].map(String::from)
        );
    }

    #[test]
    fn pod_resources_sum_containers_and_sidecars_and_default_requests_to_limits() {
        let pod = json!({"spec": {
            "initContainers": [
                {"name": "init", "resources": {"requests": {"cpu": "1"}}},
                {"name": "proxy", "restartPolicy": "Always",
                 "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}}
            ],
            "containers": [
                {"name": "app", "resources": {"requests": {"cpu": "250m", "memory": "1.5Gi"},
                                              "limits": {"cpu": "1", "memory": "2Gi"}}},
                {"name": "side", "resources": {"limits": {"cpu": "100m"}}},
                {"name": "bare"}
            ]
        }});
        let r = PodResources::of_pod(&pod);
        assert_eq!(r.cpu_request_m, Some(250 + 100 + 50));
        assert_eq!(r.cpu_limit_m, Some(1100));
        assert_eq!(r.mem_request, Some((1536 + 64) << 20));
        assert_eq!(r.mem_limit, Some(2 << 30));
        assert_eq!(PodResources::of_pod(&json!({})), PodResources::default());
    }

    #[test]
    fn pruned_pods_keep_their_summed_resources() {
        let pod = json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": {"nodeName": "n",
            "containers": [{"name": "app", "image": "x", "env": [{"name": "A", "value": "b"}],
                "resources": {"requests": {"cpu": "250m", "memory": "1.5Gi"}}}]},
            "status": {"phase": "Running"}});
        let obj: kube::api::DynamicObject = serde_json::from_value(pod).expect("pod");
        let full = pod_resources(&obj.data);
        let pruned = crate::render::prune("Pod", obj);
        assert_eq!(pod_resources(&pruned.data), full);
        assert_eq!(full.cpu_request_m, Some(250));
        assert_eq!(full.cpu_limit_m, None);
        assert_eq!(
            crate::informer::cached::pod_record(&pruned.data).map(|r| r.resources),
            Some("250,,1610612736,")
        );
        assert!(pruned.data.get("spec").is_none());
        assert_eq!(PodResources::decode("1,2,x,4"), None);
        assert_eq!(PodResources::decode("1,2,3"), None);
    }

    #[test]
    fn metrics_items_sum_container_usage() {
        let item = json!({"containers": [
            {"name": "a", "usage": {"cpu": "12345678n", "memory": "1024Ki"}},
            {"name": "b", "usage": {"cpu": "250m", "memory": "1Mi"}}
        ]});
        assert_eq!(
            Usage::of_pod_metrics(&item),
            Some(Usage {
                cpu_n: 262_345_678,
                mem: 2 << 20
            })
        );
        assert_eq!(
            Usage::of_pod_metrics(&json!({"containers": [{"usage": {}}]})),
            None
        );
        let node = json!({"usage": {"cpu": "1500m", "memory": "3Gi"}});
        let alloc = Allocatable::of_node(
            &json!({"status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}),
        );
        assert_eq!(alloc.pods, Some(110));
        assert_eq!(
            node_usage_cells(&alloc, Usage::of_node_metrics(&node)).map(|c| c.display()),
            ["1500", "3072", "75", "75"].map(String::from)
        );
    }

    #[test]
    fn node_pods_cell_shows_used_of_allocatable_and_colours_a_full_node() {
        let alloc = Allocatable::of_node(&json!({"status": {"allocatable": {"pods": "110"}}}));
        let cell = node_pods_cell(&alloc, Some(12));
        assert_eq!(cell.display(), "12/110");
        assert_eq!(cell.level(), Level::Normal);
        assert_eq!(cell.sort_key(), Some(12));
        assert_eq!(node_pods_cell(&alloc, Some(100)).level(), Level::Critical);
        assert_eq!(node_pods_cell(&alloc, Some(90)).level(), Level::Warn);
        assert_eq!(node_pods_cell(&alloc, None), UsageCell::NotAvailable);
        let none = Allocatable::of_node(&json!({"status": {}}));
        assert_eq!(node_pods_cell(&none, Some(3)).display(), "3");
        assert_eq!(node_pods_cell(&none, Some(3)).level(), Level::Normal);
    }

    #[test]
    fn usage_cells_sort_numerically_with_na_first() {
        let mut v = [
            UsageCell::Percent(90),
            UsageCell::NotAvailable,
            UsageCell::Percent(9),
        ];
        v.sort_by(UsageCell::cmp_for_sort);
        assert_eq!(
            v,
            [
                UsageCell::NotAvailable,
                UsageCell::Percent(9),
                UsageCell::Percent(90)
            ]
        );
    }
}
