use super::*;
use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

/// A strict stand-in for the server's store: creates must be new, updates and deletes must
/// target an existing object.
#[derive(Default)]
struct Shadow {
    objs: BTreeMap<(&'static str, String), Value>,
}

fn target(m: &Mutation) -> (&'static str, String) {
    match m {
        Mutation::Create { resource, object } | Mutation::Update { resource, object } => {
            let ns = object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str);
            let name = object
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            (
                resource.plural,
                ns.map(|n| key(n, name)).unwrap_or_else(|| name.to_string()),
            )
        }
        Mutation::Delete {
            resource,
            namespace,
            name,
        } => (
            resource.plural,
            namespace
                .as_deref()
                .map(|n| key(n, name))
                .unwrap_or_else(|| name.clone()),
        ),
    }
}

impl Shadow {
    fn apply(&mut self, m: &Mutation) -> Result<(), String> {
        let k = target(m);
        match m {
            Mutation::Create { object, .. } => {
                if self.objs.contains_key(&k) {
                    return Err(format!("create of existing {k:?}"));
                }
                self.objs.insert(k, object.clone());
            }
            Mutation::Update { object, .. } => match self.objs.get_mut(&k) {
                Some(v) => *v = object.clone(),
                None => return Err(format!("update of missing {k:?}")),
            },
            Mutation::Delete { .. } => {
                if self.objs.remove(&k).is_none() {
                    return Err(format!("delete of missing {k:?}"));
                }
            }
        }
        Ok(())
    }
    fn count(&self, plural: &str) -> usize {
        self.objs.keys().filter(|(p, _)| *p == plural).count()
    }
    fn get(&self, plural: &'static str, k: &str) -> Option<&Value> {
        self.objs.get(&(plural, k.to_string()))
    }
}

fn small() -> SimConfig {
    SimConfig {
        pods: 400,
        nodes: 8,
        namespaces: 10,
        seed: 42,
        max_events: 500,
        ..SimConfig::default()
    }
}

fn run(cfg: SimConfig, ticks: usize, per_tick: usize) -> (Vec<Mutation>, Vec<Vec<Mutation>>) {
    let mut sim = Simulator::new(cfg);
    let seed = sim.seed_mutations();
    let batches = (0..ticks).map(|_| sim.tick(per_tick)).collect();
    (seed, batches)
}

fn str_at<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

#[test]
fn same_seed_gives_same_mutations() {
    let a = run(small(), 40, 50);
    let b = run(small(), 40, 50);
    assert_eq!(a, b);
    let c = run(
        SimConfig {
            seed: 43,
            ..small()
        },
        40,
        50,
    );
    assert_ne!(a.0, c.0);
}

#[test]
fn seed_counts_match_config() {
    for (pods, nodes, namespaces) in [(5, 1, 2), (30, 3, 4), (1_000, 12, 12), (2_500, 40, 25)] {
        let mut sim = Simulator::new(SimConfig {
            pods,
            nodes,
            namespaces,
            ..SimConfig::default()
        });
        let mut shadow = Shadow::default();
        for m in sim.seed_mutations() {
            shadow.apply(&m).unwrap();
        }
        assert_eq!(
            shadow.count("pods"),
            pods,
            "pods for {pods}/{nodes}/{namespaces}"
        );
        assert_eq!(shadow.count("nodes"), nodes);
        assert_eq!(shadow.count("namespaces"), namespaces);
        assert_eq!(sim.pod_count(), pods);
        assert_eq!(shadow.count("customresourcedefinitions"), 1);
        assert_eq!(shadow.count("widgets"), sim.config().widgets);
        for ns in ["default", "kube-system"] {
            assert!(shadow.get("namespaces", ns).is_some(), "{ns} missing");
        }
    }
}

#[test]
fn seed_has_every_kind_a_real_cluster_has() {
    let mut sim = Simulator::new(SimConfig::default());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    for plural in [
        "namespaces",
        "nodes",
        "pods",
        "services",
        "configmaps",
        "secrets",
        "serviceaccounts",
        "events",
        "deployments",
        "replicasets",
        "statefulsets",
        "daemonsets",
        "jobs",
        "customresourcedefinitions",
        "widgets",
    ] {
        assert!(shadow.count(plural) > 0, "no {plural} seeded");
    }
    let roles: HashSet<bool> = shadow
        .objs
        .iter()
        .filter(|((p, _), _)| *p == "nodes")
        .map(|(_, v)| {
            v.pointer("/metadata/labels/node-role.kubernetes.io~1control-plane")
                .is_some()
        })
        .collect();
    assert_eq!(roles.len(), 2, "control-plane and worker nodes");
    let crd = shadow.get("customresourcedefinitions", WIDGET_CRD).unwrap();
    assert_eq!(str_at(crd, "/spec/names/kind"), "Widget");
    assert_eq!(str_at(crd, "/spec/scope"), "Namespaced");
    assert!(
        crd.pointer("/spec/versions/0/additionalPrinterColumns/0")
            .is_some()
    );
}

const WIDGET_CRD: &str = objects::WIDGET_CRD_NAME;

fn namespaced(plural: &str) -> bool {
    !matches!(plural, "namespaces" | "nodes" | "customresourcedefinitions")
}

#[test]
fn every_mutation_is_a_well_formed_object() {
    let (seed, batches) = run(small(), 60, 100);
    for m in seed.iter().chain(batches.iter().flatten()) {
        match m {
            Mutation::Create { resource, object } | Mutation::Update { resource, object } => {
                let text = serde_json::to_string(object).unwrap();
                let back: Value = serde_json::from_str(&text).unwrap();
                let gv = if resource.group.is_empty() {
                    resource.version.to_string()
                } else {
                    format!("{}/{}", resource.group, resource.version)
                };
                assert_eq!(str_at(&back, "/apiVersion"), gv, "{text}");
                assert!(!str_at(&back, "/kind").is_empty(), "{text}");
                assert!(!str_at(&back, "/metadata/name").is_empty(), "{text}");
                assert!(!str_at(&back, "/metadata/uid").is_empty(), "{text}");
                assert!(
                    !str_at(&back, "/metadata/creationTimestamp").is_empty(),
                    "{text}"
                );
                assert_eq!(
                    back.pointer("/metadata/namespace").is_some(),
                    namespaced(resource.plural),
                    "{text}"
                );
            }
            Mutation::Delete {
                resource,
                namespace,
                name,
            } => {
                assert!(!name.is_empty());
                assert_eq!(namespace.is_some(), namespaced(resource.plural));
            }
        }
    }
}

#[test]
fn ticks_only_update_or_delete_objects_that_exist() {
    let mut sim = Simulator::new(small());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let mut kinds = HashSet::new();
    for _ in 0..300 {
        let batch = sim.tick(100);
        assert_eq!(batch.len(), 100);
        for m in &batch {
            shadow.apply(m).unwrap();
            kinds.insert((std::mem::discriminant(m), target(m).0));
        }
    }
    // The churn is varied: pods are created, updated and deleted; events come and go.
    for (m, plural) in [
        (
            Mutation::Delete {
                resource: PODS,
                namespace: None,
                name: String::new(),
            },
            "pods",
        ),
        (
            Mutation::Delete {
                resource: EVENTS,
                namespace: None,
                name: String::new(),
            },
            "events",
        ),
    ] {
        assert!(
            kinds.contains(&(std::mem::discriminant(&m), plural)),
            "no delete of {plural}"
        );
    }
    for plural in [
        "pods",
        "replicasets",
        "deployments",
        "nodes",
        "events",
        "widgets",
    ] {
        let upd = Mutation::Update {
            resource: PODS,
            object: Value::Null,
        };
        assert!(
            kinds.contains(&(std::mem::discriminant(&upd), plural)),
            "no update of {plural}"
        );
    }
}

/// Checks every pod's controller reference against the shadow store.
fn assert_pods_owned(shadow: &Shadow) {
    let mut rs_owned = 0;
    for ((plural, k), pod) in &shadow.objs {
        if *plural != "pods" {
            continue;
        }
        let ns = str_at(pod, "/metadata/namespace");
        let refs = pod
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .unwrap();
        let controllers: Vec<&Value> = refs
            .iter()
            .filter(|r| r.get("controller") == Some(&Value::Bool(true)))
            .collect();
        assert_eq!(controllers.len(), 1, "{k}");
        let r = controllers[0];
        let (kind, name, uid) = (str_at(r, "/kind"), str_at(r, "/name"), str_at(r, "/uid"));
        let owner = match kind {
            "ReplicaSet" => shadow.get("replicasets", &key(ns, name)),
            "StatefulSet" => shadow.get("statefulsets", &key(ns, name)),
            "DaemonSet" => shadow.get("daemonsets", &key(ns, name)),
            "Job" => shadow.get("jobs", &key(ns, name)),
            "Node" => shadow.get("nodes", name),
            other => panic!("unexpected owner kind {other}"),
        };
        let owner = owner.unwrap_or_else(|| panic!("{k}: owner {kind} {name} missing"));
        assert_eq!(str_at(owner, "/metadata/uid"), uid, "{k}");
        if kind == "ReplicaSet" {
            rs_owned += 1;
            let hash = str_at(pod, "/metadata/labels/pod-template-hash");
            assert_eq!(
                str_at(owner, "/metadata/labels/pod-template-hash"),
                hash,
                "{k}"
            );
            assert!(
                k.starts_with(&format!("{ns}/{name}-")),
                "{k} not named after {name}"
            );
            let d = str_at(owner, "/metadata/ownerReferences/0/name");
            let duid = str_at(owner, "/metadata/ownerReferences/0/uid");
            assert_eq!(
                str_at(owner, "/metadata/ownerReferences/0/kind"),
                "Deployment"
            );
            let dep = shadow
                .get("deployments", &key(ns, d))
                .unwrap_or_else(|| panic!("{k}: deployment {d} missing"));
            assert_eq!(str_at(dep, "/metadata/uid"), duid);
        }
    }
    assert!(rs_owned > 0);
}

#[test]
fn pods_are_owned_by_replicasets_owned_by_existing_deployments() {
    let mut sim = Simulator::new(small());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    assert_pods_owned(&shadow);
    for round in 0..20 {
        for m in sim.tick(250) {
            shadow.apply(&m).unwrap();
        }
        if round % 5 == 4 {
            assert_pods_owned(&shadow);
        }
    }
    // Every ReplicaSet is owned by an existing Deployment too.
    for ((plural, k), rs) in &shadow.objs {
        if *plural == "replicasets" {
            let ns = str_at(rs, "/metadata/namespace");
            let d = str_at(rs, "/metadata/ownerReferences/0/name");
            assert!(shadow.get("deployments", &key(ns, d)).is_some(), "{k}");
        }
    }
}

#[test]
fn crash_looping_pods_restart_count_only_rises() {
    let mut sim = Simulator::new(SimConfig {
        crash_fraction: 0.1,
        ..small()
    });
    let mut restarts: HashMap<String, u64> = HashMap::new();
    let mut rises = 0;
    let mut backoffs = 0;
    let (seed, ticks) = (
        sim.seed_mutations(),
        (0..200).flat_map(|_| sim.tick(100)).collect::<Vec<_>>(),
    );
    for m in seed.iter().chain(ticks.iter()) {
        if let Mutation::Create { resource, object } | Mutation::Update { resource, object } = m
            && *resource == PODS
        {
            let uid = str_at(object, "/metadata/uid").to_string();
            let n = object
                .pointer("/status/containerStatuses/0/restartCount")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            if str_at(object, "/status/containerStatuses/0/state/waiting/reason")
                == "CrashLoopBackOff"
            {
                backoffs += 1;
                assert!(
                    object
                        .pointer("/status/containerStatuses/0/lastState/terminated/exitCode")
                        .is_some()
                );
            }
            if let Some(prev) = restarts.insert(uid.clone(), n) {
                assert!(n >= prev, "restartCount of {uid} fell from {prev} to {n}");
                if n > prev {
                    rises += 1;
                }
            }
        }
    }
    assert!(rises > 10, "only {rises} restarts observed");
    assert!(
        backoffs > 10,
        "only {backoffs} CrashLoopBackOff states observed"
    );
}

#[test]
fn new_pods_move_from_pending_through_container_creating_to_running() {
    let mut sim = Simulator::new(small());
    sim.seed_mutations();
    let mut seen: HashMap<String, Vec<String>> = HashMap::new();
    for _ in 0..100 {
        for m in sim.tick(100) {
            if let Mutation::Create { resource, object } | Mutation::Update { resource, object } =
                &m
                && *resource == PODS
            {
                let phase = str_at(object, "/status/phase");
                let waiting = str_at(object, "/status/containerStatuses/0/state/waiting/reason");
                let ready =
                    object.pointer("/status/containerStatuses/0/ready") == Some(&Value::Bool(true));
                let label = match (phase, waiting, ready) {
                    ("Pending", "ContainerCreating", _) => "ContainerCreating",
                    ("Pending", _, _) => "Pending",
                    ("Running", _, true) => {
                        assert!(!str_at(object, "/status/podIP").is_empty());
                        assert!(!str_at(object, "/spec/nodeName").is_empty());
                        assert!(!str_at(object, "/status/startTime").is_empty());
                        "Running"
                    }
                    _ => "other",
                };
                seen.entry(str_at(object, "/metadata/uid").to_string())
                    .or_default()
                    .push(label.to_string());
            }
        }
    }
    let full = seen
        .values()
        .filter(|v| {
            v.len() >= 3 && v[0] == "Pending" && v[1] == "ContainerCreating" && v[2] == "Running"
        })
        .count();
    assert!(
        full > 20,
        "only {full} pods went Pending → ContainerCreating → Running"
    );
}

#[test]
fn rollouts_create_a_replicaset_with_a_new_template_hash_and_move_pods() {
    let mut sim = Simulator::new(small());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let mut new_rs = Vec::new();
    for _ in 0..300 {
        for m in sim.tick(100) {
            if let Mutation::Create { resource, object } = &m
                && *resource == REPLICASETS
            {
                new_rs.push(key(
                    str_at(object, "/metadata/namespace"),
                    str_at(object, "/metadata/name"),
                ));
            }
            shadow.apply(&m).unwrap();
        }
    }
    assert!(!new_rs.is_empty(), "no rollout happened");
    let moved = new_rs.iter().any(|k| {
        shadow.get("replicasets", k).is_some_and(|rs| {
            let hash = str_at(rs, "/metadata/labels/pod-template-hash");
            rs.pointer("/spec/replicas")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                > 0
                && shadow.objs.iter().any(|((p, _), pod)| {
                    *p == "pods" && str_at(pod, "/metadata/labels/pod-template-hash") == hash
                })
        })
    });
    assert!(moved, "no new ReplicaSet got pods");
}

#[test]
fn events_describe_what_happened_and_old_ones_are_deleted() {
    let mut sim = Simulator::new(SimConfig {
        max_events: 200,
        ..small()
    });
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let mut reasons = HashSet::new();
    for _ in 0..200 {
        for m in sim.tick(100) {
            shadow.apply(&m).unwrap();
            if let Mutation::Create { resource, object } | Mutation::Update { resource, object } =
                &m
                && *resource == EVENTS
            {
                reasons.insert(str_at(object, "/reason").to_string());
                for f in [
                    "/involvedObject/kind",
                    "/involvedObject/name",
                    "/involvedObject/uid",
                    "/message",
                    "/type",
                    "/firstTimestamp",
                    "/lastTimestamp",
                    "/source/component",
                ] {
                    assert!(!str_at(object, f).is_empty(), "{f} missing in {object}");
                }
                assert!(object.get("count").and_then(Value::as_u64).unwrap_or(0) >= 1);
            }
        }
        assert!(
            shadow.count("events") <= 200 + 60,
            "{} events kept",
            shadow.count("events")
        );
    }
    for r in [
        "Scheduled",
        "Pulled",
        "Created",
        "Started",
        "BackOff",
        "Killing",
        "SuccessfulCreate",
        "SuccessfulDelete",
        "ScalingReplicaSet",
    ] {
        assert!(reasons.contains(r), "no {r} event in {reasons:?}");
    }
}

#[test]
fn timestamps_follow_the_configured_start() {
    let cfg = small();
    let start = cfg.start.timestamp();
    let (seed, batches) = run(cfg.clone(), 20, 50);
    let parse = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().timestamp();
    for m in seed.iter().chain(batches.iter().flatten()) {
        if let Mutation::Create { object, .. } | Mutation::Update { object, .. } = m {
            let t = parse(str_at(object, "/metadata/creationTimestamp"));
            assert!(t <= start + 3600, "{object}");
            assert!(t > start - 200 * 86_400, "{object}");
        }
    }
    let later = SimConfig {
        start: cfg.start + chrono::Duration::days(10),
        ..cfg
    };
    let (seed2, _) = run(later, 0, 0);
    let t1 = parse(str_at(
        seed.last()
            .map(|m| match m {
                Mutation::Create { object, .. } => object,
                _ => panic!(),
            })
            .unwrap(),
        "/metadata/creationTimestamp",
    ));
    let t2 = parse(str_at(
        seed2
            .last()
            .map(|m| match m {
                Mutation::Create { object, .. } => object,
                _ => panic!(),
            })
            .unwrap(),
        "/metadata/creationTimestamp",
    ));
    assert_eq!(t2 - t1, 10 * 86_400);
}

#[test]
fn rejected_objects_are_forgotten_and_not_touched_again() {
    let mut sim = Simulator::new(SimConfig { seed: 9, ..small() });
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    // A user deletes some pods, a ReplicaSet and a Deployment behind the simulator's back.
    let victims: Vec<(&'static str, String)> = {
        let pods: Vec<_> = shadow
            .objs
            .keys()
            .filter(|(p, _)| *p == "pods")
            .step_by(7)
            .cloned()
            .collect();
        let rs = shadow
            .objs
            .keys()
            .find(|(p, _)| *p == "replicasets")
            .cloned();
        let dep = shadow
            .objs
            .keys()
            .filter(|(p, _)| *p == "deployments")
            .nth(3)
            .cloned();
        pods.into_iter().chain(rs).chain(dep).collect()
    };
    for v in &victims {
        shadow.objs.remove(v);
    }
    let mut forgotten: HashMap<(&'static str, String), usize> = HashMap::new();
    let mut rejections = 0;
    for round in 0..400 {
        for m in sim.tick(50) {
            let k = target(&m);
            if let Mutation::Create { .. } = &m {
                // A controller may recreate a name (StatefulSet pods do).
                forgotten.remove(&k);
            }
            if let (Mutation::Update { .. }, Some(&r)) = (&m, forgotten.get(&k)) {
                assert!(
                    r == round,
                    "{k:?} updated in tick {round} after its rejection in tick {r}"
                );
            }
            if shadow.apply(&m).is_err() {
                rejections += 1;
                sim.rejected(&m);
                forgotten.entry(k).or_insert(round);
            }
        }
    }
    assert!(rejections > 0);
    assert!(
        rejections < victims.len() * 4 + 50,
        "{rejections} rejections"
    );
    // Deleted pods were replaced by their controllers rather than lost for good.
    assert!(sim.pod_count() >= 380, "{} pods", sim.pod_count());
}

/// User + system CPU seconds of this process (Linux), to report a time that does not depend
/// on how busy the machine is. 0 where /proc is unavailable.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    ticks / 100.0
}

fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("")
        .to_string()
}

#[test]
fn seed_and_churn_are_accepted_by_the_demo_cluster() {
    let cluster = crate::demo::cluster::DemoCluster::new(10_000);
    let mut sim = Simulator::new(small());
    let mut refused = Vec::new();
    let mut bootstrapped = Vec::new();
    for m in sim.seed_iter() {
        let (plural, k) = target(&m);
        if let Err(e) = cluster.apply(m) {
            // The server bootstraps system namespaces and the demo CRD itself, as
            // kube-apiserver creates default/kube-system/kube-public/kube-node-lease.
            if matches!(plural, "namespaces" | "customresourcedefinitions") && e.code == 409 {
                bootstrapped.push(k);
            } else {
                refused.push(format!("{plural} {k}: {e}"));
            }
        }
    }
    assert!(refused.is_empty(), "seed refused: {refused:?}");
    assert_eq!(cluster.len(&PODS), 400);
    for _ in 0..40 {
        for m in sim.tick(100) {
            let desc = format!("{:?}", target(&m));
            if let Err(e) = cluster.apply(m) {
                refused.push(format!("{desc}: {e}"));
            }
        }
    }
    for m in sim.drain_pending() {
        let desc = format!("{:?}", target(&m));
        if let Err(e) = cluster.apply(m) {
            refused.push(format!("{desc}: {e}"));
        }
    }
    assert!(refused.is_empty(), "churn refused: {refused:?}");
    assert_eq!(cluster.len(&PODS), sim.pod_count());
    assert_eq!(cluster.len(&EVENTS), sim.events.len());
}

#[test]
fn seeding_150k_pods_is_fast() {
    let cpu0 = cpu_seconds();
    let t = Instant::now();
    let mut sim = Simulator::new(SimConfig {
        pods: 150_000,
        nodes: 1_000,
        namespaces: 40,
        ..SimConfig::default()
    });
    // Consumed as a server would: each object handled, serialized and dropped in turn.
    let (mut pods, mut total, mut bytes) = (0usize, 0usize, 0usize);
    let iter = sim.seed_iter();
    let model = t.elapsed();
    let model_cpu = cpu_seconds() - cpu0;
    for m in iter {
        total += 1;
        if let Mutation::Create { resource, object } = &m
            && *resource == PODS
        {
            pods += 1;
            bytes += serde_json::to_vec(object).map(|v| v.len()).unwrap_or(0);
        }
    }
    let elapsed = t.elapsed();
    let cpu = cpu_seconds() - cpu0;
    println!(
        "seeded 150000 pods ({total} mutations, serialized) in {elapsed:?} wall, \
         {cpu:.2}s process CPU (model: {model:?} wall, {model_cpu:.2}s CPU); \
         {} bytes of JSON per pod; peak {}",
        bytes / 150_000,
        peak_rss()
    );
    assert_eq!(pods, 150_000);
    assert_eq!(sim.pod_count(), 150_000);
    let t = Instant::now();
    let ticks = sim.tick(10_000);
    println!(
        "10000 churn mutations on a 150k-pod cluster in {:?}",
        t.elapsed()
    );
    assert_eq!(ticks.len(), 10_000);
}

#[test]
fn new_pods_avoid_a_cordoned_node() {
    let mut sim = Simulator::new(small());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let worker = sim
        .nodes
        .iter()
        .find(|n| !n.info.control_plane)
        .map(|n| n.info.name.clone())
        .unwrap();
    sim.set_cordoned(&worker, true);
    let mut placed = 0;
    for _ in 0..300 {
        if let Some(i) = sim.pick_worker() {
            placed += 1;
            assert_ne!(sim.nodes[i as usize].info.name, worker);
        }
    }
    assert!(placed > 0);
    sim.set_cordoned(&worker, false);
    let picks: Vec<u32> = (0..300).filter_map(|_| sim.pick_worker()).collect();
    let back = picks
        .iter()
        .any(|i| sim.nodes[*i as usize].info.name == worker);
    assert!(back, "uncordoned, it takes pods again");
}

#[test]
fn a_clients_scale_makes_the_controller_create_then_delete_pods() {
    let mut sim = Simulator::new(small());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let (ns, name, from) = sim
        .workloads
        .iter()
        .find(|w| w.alive && w.kind == WKind::Deployment && w.replicas >= 2)
        .map(|w| (w.ns.to_string(), w.name.to_string(), w.replicas))
        .unwrap();
    let pods_before = shadow.count("pods");
    let up = sim.external_scale(&ns, "Deployment", &name, from + 3);
    let created = up
        .iter()
        .filter(|m| matches!(m, Mutation::Create { resource, .. } if resource.plural == "pods"))
        .count();
    assert_eq!(created, 3);
    for m in &up {
        shadow.apply(m).unwrap();
    }
    assert_eq!(shadow.count("pods"), pods_before + 3);
    let deploy = shadow.get("deployments", &key(&ns, &name)).unwrap();
    assert_eq!(
        deploy.pointer("/spec/replicas"),
        Some(&serde_json::json!(from + 3))
    );
    assert!(
        sim.external_scale(&ns, "Deployment", &name, from + 3)
            .is_empty(),
        "the count the model has already: nothing to do"
    );
    for m in sim.external_scale(&ns, "Deployment", &name, 1) {
        shadow.apply(&m).unwrap();
    }
    assert_eq!(shadow.count("pods"), pods_before + 3 - (from + 2) as usize);
    assert!(
        sim.external_scale(&ns, "Deployment", "no-such", 5)
            .is_empty()
    );
    assert!(sim.external_scale(&ns, "DaemonSet", &name, 5).is_empty());
    assert_pods_owned(&shadow);
}

/// The simulator's pods of one workload in `shadow`: (name, object), matched by owner.
fn pods_owned_by<'a>(shadow: &'a Shadow, ns: &str, owners: &[String]) -> Vec<&'a Value> {
    shadow
        .objs
        .iter()
        .filter(|((p, k), pod)| {
            *p == "pods"
                && k.starts_with(&format!("{ns}/"))
                && owners
                    .iter()
                    .any(|o| str_at(pod, "/metadata/ownerReferences/0/name") == o)
        })
        .map(|(_, v)| v)
        .collect()
}

fn restarted(template: &Value) -> Value {
    let mut t = template.clone();
    if let Some(md) = t.get_mut("metadata").and_then(Value::as_object_mut) {
        md.insert(
            "annotations".into(),
            serde_json::json!({"kubectl.kubernetes.io/restartedAt": "2026-01-01T12:30:00Z"}),
        );
    }
    t
}

fn no_crashes() -> SimConfig {
    SimConfig {
        crash_fraction: 0.0,
        ..small()
    }
}

#[test]
fn surge_and_unavailable_round_as_the_deployment_controller_does() {
    use super::rollout::surge_and_unavailable;
    assert_eq!(surge_and_unavailable(0), (0, 1));
    assert_eq!(surge_and_unavailable(1), (1, 0));
    assert_eq!(surge_and_unavailable(3), (1, 0));
    assert_eq!(surge_and_unavailable(4), (1, 1));
    assert_eq!(surge_and_unavailable(10), (3, 2));
}

#[test]
fn a_client_restart_rolls_a_new_replicaset_within_surge_and_keeps_the_old_one_at_zero() {
    let mut sim = Simulator::new(no_crashes());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let w = (0..sim.workloads.len())
        .find(|&i| {
            let wl = &sim.workloads[i];
            wl.kind == WKind::Deployment && wl.alive && wl.replicas >= 4 && !wl.rolling
        })
        .expect("a deployment with 4+ replicas");
    let (ns, name, replicas) = {
        let wl = &sim.workloads[w];
        (wl.ns.to_string(), wl.name.to_string(), wl.replicas)
    };
    let dkey = key(&ns, &name);
    let d = shadow.get("deployments", &dkey).unwrap().clone();
    let old_revision: u32 = str_at(
        &d,
        "/metadata/annotations/deployment.kubernetes.io~1revision",
    )
    .parse()
    .unwrap();
    let old_rs = sim.workloads[w].current().unwrap().name.to_string();
    let generation = d.pointer("/metadata/generation").unwrap().as_i64().unwrap() + 1;
    let template = restarted(d.pointer("/spec/template").unwrap());

    let first = sim.external_template(&ns, "Deployment", &name, &template, generation);
    let new_rs = first
        .iter()
        .find_map(|m| match m {
            Mutation::Create { resource, object } if *resource == REPLICASETS => {
                Some(str_at(object, "/metadata/name").to_string())
            }
            _ => None,
        })
        .expect("a new ReplicaSet");
    for m in &first {
        shadow.apply(m).unwrap();
    }
    assert!(
        sim.external_template(&ns, "Deployment", &name, &template, generation)
            .is_empty(),
        "an observed generation (the simulator's own write) changes nothing"
    );
    let rs = shadow.get("replicasets", &key(&ns, &new_rs)).unwrap();
    assert_eq!(
        str_at(
            rs,
            "/metadata/annotations/deployment.kubernetes.io~1revision"
        ),
        (old_revision + 1).to_string()
    );
    let hash = str_at(rs, "/metadata/labels/pod-template-hash").to_string();
    assert_eq!(new_rs, format!("{name}-{hash}"));
    assert_eq!(
        rs.pointer("/spec/template/metadata/annotations"),
        template.pointer("/metadata/annotations")
    );

    let (surge, _) = super::rollout::surge_and_unavailable(replicas);
    let owners = [old_rs.clone(), new_rs.clone()];
    let mut done = false;
    for _ in 0..20_000 {
        for m in sim.tick(1) {
            shadow.apply(&m).unwrap();
        }
        let desired: u64 = owners
            .iter()
            .filter_map(|o| shadow.get("replicasets", &key(&ns, o)))
            .map(|rs| {
                rs.pointer("/spec/replicas")
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
            })
            .sum();
        assert!(
            desired <= u64::from(replicas + surge),
            "{desired} desired pods > {replicas} + maxSurge {surge}"
        );
        if !sim.workloads[w].rolling {
            done = true;
            break;
        }
    }
    assert!(done, "the rollout did not complete");
    let d = shadow.get("deployments", &dkey).unwrap();
    assert_eq!(
        d.pointer("/status/observedGeneration"),
        Some(&serde_json::json!(generation))
    );
    assert_eq!(
        d.pointer("/status/updatedReplicas"),
        Some(&serde_json::json!(replicas)),
        "{d}"
    );
    assert_eq!(
        str_at(d, "/status/conditions/1/reason"),
        "NewReplicaSetAvailable"
    );
    assert_eq!(
        d.pointer("/spec/template"),
        Some(&template),
        "the client's template is kept verbatim"
    );
    let old = shadow
        .get("replicasets", &key(&ns, &old_rs))
        .expect("old RS kept");
    assert_eq!(old.pointer("/spec/replicas"), Some(&serde_json::json!(0)));
    let pods = pods_owned_by(&shadow, &ns, &owners);
    assert_eq!(pods.len(), replicas as usize);
    for p in pods {
        assert_eq!(str_at(p, "/metadata/labels/pod-template-hash"), hash);
        assert_eq!(
            str_at(
                p,
                "/metadata/annotations/kubectl.kubernetes.io~1restartedAt"
            ),
            "2026-01-01T12:30:00Z"
        );
    }
}

#[test]
fn a_statefulset_restart_replaces_pods_one_at_a_time_from_the_highest_ordinal() {
    let mut sim = Simulator::new(no_crashes());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let w = (0..sim.workloads.len())
        .find(|&i| {
            let wl = &sim.workloads[i];
            wl.kind == WKind::StatefulSet && wl.alive && wl.replicas >= 2 && !wl.rolling
        })
        .expect("a statefulset with 2+ replicas");
    let (ns, name, replicas) = {
        let wl = &sim.workloads[w];
        (wl.ns.to_string(), wl.name.to_string(), wl.replicas)
    };
    let skey = key(&ns, &name);
    let s = shadow.get("statefulsets", &skey).unwrap().clone();
    let old_revision = str_at(&s, "/status/updateRevision").to_string();
    let generation = s.pointer("/metadata/generation").unwrap().as_i64().unwrap() + 1;
    let template = restarted(s.pointer("/spec/template").unwrap());
    for m in sim.external_template(&ns, "StatefulSet", &name, &template, generation) {
        shadow.apply(&m).unwrap();
    }
    let s = shadow.get("statefulsets", &skey).unwrap();
    let new_revision = str_at(s, "/status/updateRevision").to_string();
    assert_ne!(new_revision, old_revision);
    assert_eq!(str_at(s, "/status/currentRevision"), old_revision);

    let mut replaced = Vec::new();
    for _ in 0..20_000 {
        for m in sim.tick(1) {
            if let Mutation::Delete {
                resource,
                namespace,
                name: pod,
            } = &m
                && *resource == PODS
                && namespace.as_deref() == Some(ns.as_str())
                && pod.starts_with(&format!("{name}-"))
            {
                let not_running = pods_owned_by(&shadow, &ns, std::slice::from_ref(&name))
                    .iter()
                    .filter(|p| str_at(p, "/status/conditions/2/status") != "True")
                    .count();
                assert_eq!(
                    not_running, 0,
                    "a pod was replaced while another was not ready"
                );
                replaced.push(pod.rsplit('-').next().unwrap_or("").to_string());
            }
            shadow.apply(&m).unwrap();
        }
        if !sim.workloads[w].rolling {
            break;
        }
    }
    assert!(!sim.workloads[w].rolling, "the rollout did not complete");
    let expected: Vec<String> = (0..replicas).rev().map(|o| o.to_string()).collect();
    assert_eq!(replaced, expected);
    let s = shadow.get("statefulsets", &skey).unwrap();
    assert_eq!(str_at(s, "/status/currentRevision"), new_revision);
    for p in pods_owned_by(&shadow, &ns, std::slice::from_ref(&name)) {
        assert_eq!(
            str_at(p, "/metadata/labels/controller-revision-hash"),
            new_revision
        );
    }
}

#[test]
fn a_daemonset_restart_replaces_one_node_s_pod_at_a_time() {
    let mut sim = Simulator::new(no_crashes());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let w = (0..sim.workloads.len())
        .find(|&i| {
            let wl = &sim.workloads[i];
            wl.kind == WKind::DaemonSet
                && wl.alive
                && wl.current().is_some_and(|s| s.pods.len() >= 3)
        })
        .expect("a daemonset with 3+ pods");
    let (ns, name) = {
        let wl = &sim.workloads[w];
        (wl.ns.to_string(), wl.name.to_string())
    };
    let before = pods_owned_by(&shadow, &ns, std::slice::from_ref(&name));
    let nodes: HashSet<String> = before
        .iter()
        .map(|p| str_at(p, "/spec/nodeName").to_string())
        .collect();
    let old_hash = str_at(before[0], "/metadata/labels/controller-revision-hash").to_string();
    let dkey = key(&ns, &name);
    let d = shadow.get("daemonsets", &dkey).unwrap().clone();
    let generation = d.pointer("/metadata/generation").unwrap().as_i64().unwrap() + 1;
    let template = restarted(d.pointer("/spec/template").unwrap());
    for m in sim.external_template(&ns, "DaemonSet", &name, &template, generation) {
        shadow.apply(&m).unwrap();
    }
    // Unready pods when an old pod was deleted; told apart from a churn kill (replaced at the
    // old revision) by the revision of the pod created next.
    let mut unready_at_delete: Option<usize> = None;
    let mut checked = 0;
    for _ in 0..20_000 {
        for m in sim.tick(1) {
            match &m {
                Mutation::Delete {
                    resource,
                    namespace,
                    name: pod,
                } if *resource == PODS && namespace.as_deref() == Some(ns.as_str()) => {
                    let ours = shadow.get("pods", &key(&ns, pod)).is_some_and(|p| {
                        str_at(p, "/metadata/ownerReferences/0/name") == name
                            && str_at(p, "/metadata/labels/controller-revision-hash") == old_hash
                    });
                    if ours {
                        let unready = pods_owned_by(&shadow, &ns, std::slice::from_ref(&name))
                            .iter()
                            .filter(|p| str_at(p, "/status/conditions/2/status") != "True")
                            .count();
                        unready_at_delete = Some(unready);
                    }
                }
                Mutation::Create { resource, object }
                    if *resource == PODS
                        && str_at(object, "/metadata/ownerReferences/0/name") == name =>
                {
                    if let Some(unready) = unready_at_delete.take()
                        && str_at(object, "/metadata/labels/controller-revision-hash") != old_hash
                    {
                        assert_eq!(
                            unready, 0,
                            "maxUnavailable 1: a pod was replaced while another was not ready"
                        );
                        checked += 1;
                    }
                }
                _ => {}
            }
            shadow.apply(&m).unwrap();
        }
        if !sim.workloads[w].rolling {
            break;
        }
    }
    assert_eq!(
        checked,
        nodes.len(),
        "every node's pod replaced by the controller"
    );
    assert!(!sim.workloads[w].rolling, "the rollout did not complete");
    let after = pods_owned_by(&shadow, &ns, std::slice::from_ref(&name));
    let after_nodes: HashSet<String> = after
        .iter()
        .map(|p| str_at(p, "/spec/nodeName").to_string())
        .collect();
    assert_eq!(after_nodes, nodes, "one pod per node, on the same nodes");
    for p in &after {
        assert_ne!(
            str_at(p, "/metadata/labels/controller-revision-hash"),
            old_hash
        );
        assert_eq!(
            str_at(
                p,
                "/metadata/annotations/kubectl.kubernetes.io~1restartedAt"
            ),
            "2026-01-01T12:30:00Z"
        );
    }
    let d = shadow.get("daemonsets", &dkey).unwrap();
    assert_eq!(
        d.pointer("/status/updatedNumberScheduled"),
        d.pointer("/status/desiredNumberScheduled")
    );
    assert_eq!(
        d.pointer("/status/observedGeneration"),
        Some(&serde_json::json!(generation))
    );
}

/// `kubectl delete pod` (or the dashboard's ctrl-d, a drain's eviction) of a ReplicaSet's pod:
/// its controller creates a replacement with the same owner, as kube-controller-manager does;
/// the simulator's own deletions (already forgotten) and unknown pods make nothing.
#[test]
fn a_clients_pod_deletion_makes_its_set_create_a_replacement() {
    let mut sim = Simulator::new(small());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let (ns, victim) = sim
        .workloads
        .iter()
        .find(|w| w.alive && w.kind == WKind::Deployment)
        .and_then(|w| {
            let set = w.current()?;
            Some((w.ns.to_string(), set.pods.first()?.to_string()))
        })
        .unwrap();
    let owner = |v: &Value| v.pointer("/metadata/ownerReferences/0/name").cloned();
    let victim_obj = shadow.get("pods", &key(&ns, &victim)).unwrap();
    let victim_owner = owner(victim_obj);
    let uid = victim_obj
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap()
        .to_string();
    // Another object once named so (a StatefulSet's earlier pod): not this one, nothing made.
    assert!(
        sim.external_pod_deleted(&ns, &victim, "an-older-uid", false)
            .is_empty()
    );
    let pods_before = shadow.count("pods");
    // The client's delete is committed first; the controller answers it.
    shadow
        .apply(&Mutation::Delete {
            resource: PODS,
            namespace: Some(ns.clone()),
            name: victim.clone(),
        })
        .unwrap();
    let answer = sim.external_pod_deleted(&ns, &victim, &uid, false);
    let created: Vec<&Value> = answer
        .iter()
        .filter_map(|m| match m {
            Mutation::Create {
                resource, object, ..
            } if resource.plural == "pods" => Some(object),
            _ => None,
        })
        .collect();
    assert_eq!(created.len(), 1, "{answer:?}");
    assert_eq!(owner(created[0]), victim_owner, "the same ReplicaSet");
    for m in &answer {
        shadow.apply(m).unwrap();
    }
    assert_eq!(shadow.count("pods"), pods_before);
    assert!(
        sim.external_pod_deleted(&ns, &victim, &uid, true)
            .is_empty(),
        "forgotten: a second event makes nothing"
    );
    assert!(
        sim.external_pod_deleted(&ns, "no-such", &uid, true)
            .is_empty()
    );
    assert_pods_owned(&shadow);
}

/// A StatefulSet's pod is replaced under the same name: not while it terminates (the name is
/// still taken), once it is gone.
#[test]
fn a_clients_statefulset_pod_deletion_is_replaced_once_the_pod_is_gone() {
    let mut sim = Simulator::new(small());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let (ns, victim) = sim
        .workloads
        .iter()
        .find(|w| w.alive && w.kind == WKind::StatefulSet)
        .and_then(|w| Some((w.ns.to_string(), w.current()?.pods.first()?.to_string())))
        .unwrap();
    let uid = shadow
        .get("pods", &key(&ns, &victim))
        .and_then(|v| v.pointer("/metadata/uid"))
        .and_then(Value::as_str)
        .unwrap()
        .to_string();
    assert!(
        sim.external_pod_deleted(&ns, &victim, &uid, false)
            .is_empty()
    );
    let answer = sim.external_pod_deleted(&ns, &victim, &uid, true);
    let names: Vec<String> = answer
        .iter()
        .filter_map(|m| match m {
            Mutation::Create {
                resource, object, ..
            } if resource.plural == "pods" => object
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        })
        .collect();
    assert_eq!(names, [victim], "the same ordinal");
}

#[test]
fn kubelets_node_events_name_the_node_by_name_as_uid_the_node_controllers_by_its_uid() {
    let mut sim = Simulator::new(small());
    let mut shadow = Shadow::default();
    for m in sim.seed_mutations() {
        shadow.apply(&m).unwrap();
    }
    let mut seen = HashSet::new();
    for _ in 0..200 {
        let mut out = Vec::new();
        sim.flip_node(&mut out);
        for m in &out {
            shadow.apply(m).unwrap();
            let (Mutation::Create { resource, object } | Mutation::Update { resource, object }) = m
            else {
                continue;
            };
            if *resource != EVENTS || str_at(object, "/involvedObject/kind") != "Node" {
                continue;
            }
            let node = str_at(object, "/involvedObject/name");
            let uid = str_at(object, "/involvedObject/uid");
            let node_uid = shadow
                .get("nodes", node)
                .map(|n| str_at(n, "/metadata/uid").to_string())
                .unwrap_or_default();
            let component = str_at(object, "/source/component");
            match component {
                "kubelet" => assert_eq!(uid, node, "{object}"),
                _ => assert_eq!(uid, node_uid, "{object}"),
            }
            assert_ne!(node_uid, node);
            seen.insert(component.to_string());
        }
    }
    assert!(
        seen.contains("kubelet") && seen.contains("node-controller"),
        "{seen:?}"
    );
}
