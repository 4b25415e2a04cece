//! Opening the [containers screen](crate::ui::screens::containers) of a pod, reading the pod
//! again when its row changes, and handing the screen the rows the runtime read.

use crate::ui::action::{Effect, ObjectSummary};
use crate::ui::app::{App, Screen};
use crate::ui::screens::containers::{ContainersView, PodContainers};

impl App {
    /// Enter on a pod: push its containers screen and read them.
    pub(crate) fn open_containers(&mut self, pod: ObjectSummary, fx: &mut Vec<Effect>) {
        let view = ContainersView::new(pod);
        fx.push(view.fetch());
        self.stack.push(Screen::Containers(Box::new(view)));
    }

    /// The pod's containers arrived: to every containers screen of that pod on the stack.
    pub(crate) fn on_pod_containers(
        &mut self,
        namespace: &str,
        pod: &str,
        result: Result<PodContainers, String>,
    ) {
        for s in self.stack.iter_mut() {
            if let Screen::Containers(v) = s
                && v.namespace() == namespace
                && *v.pod.name == *pod
            {
                v.set_rows(result.clone());
            }
        }
    }

    /// The pods table under the screen on top got rows: when the pod's row has a new
    /// resourceVersion, read its containers again (they changed: a restart, a state, a probe).
    pub(crate) fn follow_containers_pod(&mut self, fx: &mut Vec<Effect>) {
        let Some(Screen::Containers(v)) = self.stack.last() else {
            return;
        };
        let Some(table) = self.current_view() else {
            return;
        };
        let Some(entry) = table.table.entry(&v.pod.key) else {
            return;
        };
        let rv = entry.summary.object.metadata.resource_version.clone();
        if rv.as_deref().unwrap_or_default() == v.read_at {
            return;
        }
        let summary = entry.summary.clone();
        if let Some(Screen::Containers(v)) = self.stack.last_mut() {
            v.read_at = rv.unwrap_or_default();
            v.pod = summary;
            fx.push(v.fetch());
        }
    }
}
