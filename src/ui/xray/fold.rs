//! Old revisions folded under their Deployment.
//!
//! A Deployment keeps up to `revisionHistoryLimit` (10 by default) ReplicaSets scaled to zero,
//! one per past rollout, for `kubectl rollout undo`. Listed one per line they push the live
//! ReplicaSet and its pods down the screen, so the tree folds those with `spec.replicas` 0 and
//! no pods into one `N old revisions` node, closed unless opened with the tree's toggle key (or
//! `+`). k9s's xray lists every ReplicaSet; this differs on purpose.

use std::sync::Arc;

use serde_json::Value;

use super::{NodeKind, XKind, XNode, revision};
use crate::render::Health;

/// A ReplicaSet scaled to zero with no pods left: an old revision.
fn is_old_revision(n: &XNode) -> bool {
    n.kind == NodeKind::Object(XKind::ReplicaSet)
        && n.children.is_empty()
        && n.object.as_ref().is_some_and(|o| {
            o.data
                .get("spec")
                .and_then(|s| s.get("replicas"))
                .and_then(Value::as_i64)
                == Some(0)
        })
}

/// A Deployment's ReplicaSet nodes (newest first) with its old revisions folded into one
/// node after the live ones. `deploy_key` names the Deployment (the fold's id and key).
pub(super) fn fold_old_revisions(deploy_key: &Arc<str>, children: Vec<XNode>) -> Vec<XNode> {
    let (old, mut live): (Vec<XNode>, Vec<XNode>) = children.into_iter().partition(is_old_revision);
    if old.is_empty() {
        return live;
    }
    let revs: Vec<i64> = old
        .iter()
        .filter_map(|n| n.object.as_deref().map(revision))
        .collect();
    let detail = match (revs.iter().min(), revs.iter().max()) {
        (Some(lo), Some(hi)) if lo == hi => format!("rev {lo}"),
        (Some(lo), Some(hi)) => format!("rev {lo}–{hi}"),
        _ => String::new(),
    };
    let n = old.len();
    live.push(XNode {
        kind: NodeKind::Revisions,
        id: Arc::from(format!("revs/{deploy_key}")),
        name: Arc::from(format!(
            "{n} old {}",
            if n == 1 { "revision" } else { "revisions" }
        )),
        key: deploy_key.clone(),
        health: Health::Completed,
        ready: 0,
        total: 0,
        detail: Arc::from(detail),
        object: None,
        children: old,
    });
    live
}

#[cfg(test)]
mod tests {
    use super::super::tests::{deploy, pod, put, rs, store};
    use super::super::{XFilter, Xray};
    use super::*;
    use crate::ui::table::TextFilter;

    fn names(x: &Xray) -> Vec<String> {
        x.rows()
            .iter()
            .map(|r| format!("{}{}", "  ".repeat(r.depth), r.name))
            .collect()
    }

    /// `web` after three rollouts: revisions 1 and 2 scaled to zero, revision 3 live with a
    /// pod; revision 2 still has a pod terminating (not folded until it is gone).
    fn rolled_out() -> (
        Xray,
        std::collections::HashMap<
            XKind,
            Arc<crate::informer::thread_safe_store::ThreadSafeStore<kube::api::DynamicObject>>,
        >,
    ) {
        let stores: std::collections::HashMap<_, _> =
            [XKind::Deployment, XKind::ReplicaSet, XKind::Pod]
                .into_iter()
                .map(|k| (k, store(k)))
                .collect();
        put(&stores[&XKind::Deployment], &deploy("web", "d1", 1));
        put(
            &stores[&XKind::ReplicaSet],
            &rs("web-1", "r1", "d1", "1", 0),
        );
        put(
            &stores[&XKind::ReplicaSet],
            &rs("web-2", "r2", "d1", "2", 0),
        );
        put(
            &stores[&XKind::ReplicaSet],
            &rs("web-3", "r3", "d1", "3", 1),
        );
        put(&stores[&XKind::Pod], &pod("web-2-old", "r2", true, "n1"));
        put(&stores[&XKind::Pod], &pod("web-3-0", "r3", true, "n1"));
        let mut x = Xray::new(XKind::Deployment, Some("default".into()));
        for (k, s) in &stores {
            x.set_store(*k, s.clone());
        }
        x.flush(true);
        (x, stores)
    }

    #[test]
    fn replicasets_scaled_to_zero_without_pods_fold_into_one_closed_node() {
        let (mut x, stores) = rolled_out();
        // web-2 is scaled to zero but its pod is still there: it stays in the open.
        assert_eq!(
            names(&x),
            [
                "web",
                "  web-3",
                "    web-3-0",
                "  web-2",
                "    web-2-old",
                "  1 old revision"
            ]
        );
        // The pod goes: web-2 joins the fold (a change under the fold's ReplicaSets still
        // marks the root).
        stores[&XKind::Pod].delete("default/web-2-old");
        x.apply(XKind::Pod, [], &[Arc::from("default/web-2-old")]);
        x.flush(true);
        assert_eq!(
            names(&x),
            ["web", "  web-3", "    web-3-0", "  2 old revisions"]
        );
        let fold = x.node("revs/default/web").expect("the fold");
        assert_eq!(fold.kind, NodeKind::Revisions);
        assert_eq!(&*fold.detail, "rev 1–2");
        assert_eq!((fold.ready, fold.total), (0, 0));
        assert_eq!(
            (x.node("deploy/default/web").expect("web").total),
            1,
            "the fold adds no pods"
        );
        // Toggled open: the old ReplicaSets, newest first; the fold has no object of its own.
        x.select(3);
        assert_eq!(x.toggle(), None);
        assert_eq!(
            names(&x)[3..],
            ["  2 old revisions", "    web-2", "    web-1"]
        );
        assert!(x.selected_object().is_none());
        // Scaling an old one up again takes it out of the fold.
        let back = rs("web-1", "r1", "d1", "1", 2);
        put(&stores[&XKind::ReplicaSet], &back);
        x.apply(XKind::ReplicaSet, [back], &[]);
        x.flush(true);
        assert_eq!(
            names(&x),
            [
                "web",
                "  web-3",
                "    web-3-0",
                "  web-1",
                "  1 old revision",
                "    web-2"
            ]
        );
    }

    #[test]
    fn expand_all_opens_the_fold_and_a_filter_finds_an_old_revision_inside_it() {
        let (mut x, stores) = rolled_out();
        stores[&XKind::Pod].delete("default/web-2-old");
        x.apply(XKind::Pod, [], &[Arc::from("default/web-2-old")]);
        x.flush(true);
        x.expand_all(true);
        assert!(names(&x).contains(&"    web-1".to_string()));
        x.expand_all(false);
        x.set_filter(XFilter {
            text: Some(TextFilter::parse("web-1").expect("filter")),
            label: None,
            raw: "web-1".into(),
        });
        assert_eq!(names(&x), ["web", "  2 old revisions", "    web-1"]);
    }
}
