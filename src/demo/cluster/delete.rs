//! Deletion as kube-apiserver and its controllers carry it out: graceful pod deletion (the
//! kubelet's queue), finalizers, foreground/background/orphan propagation through owner
//! references, and namespaces emptied before they go.

use super::*;

impl DemoCluster {
    /// Delete an object as kube-apiserver does; returns the object's state after the request:
    /// its last state (carrying the deletion's resourceVersion) when it was removed, or the
    /// marked object (`deletionTimestamp` set) when a grace period, finalizers or a foreground
    /// deletion keep it. Deleting a namespace deletes everything in it first.
    pub fn delete(
        &self,
        idx: usize,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Arc<Stored>, StatusError> {
        let info = &RESOURCES[idx];
        let t = target(info, name);
        let mut st = self.state.lock();
        let key = make_key(ns, name);
        let current = st.objects[idx]
            .get(&key)
            .cloned()
            .ok_or_else(|| StatusError::not_found(&t))?;
        if opts.precondition_rv.is_some_and(|rv| rv != current.rv)
            || opts
                .precondition_uid
                .as_deref()
                .is_some_and(|u| u != current.uid)
        {
            return Err(StatusError::conflict(&t));
        }
        if idx == RESOURCES_NAMESPACES {
            let bounds = key_bounds(Some(name), None);
            for (r, info) in RESOURCES.iter().enumerate() {
                if !info.namespaced {
                    continue;
                }
                let victims: Vec<Arc<Stored>> = st.objects[r]
                    .range(bounds.clone())
                    .map(|(_, s)| s.clone())
                    .collect();
                for s in victims {
                    // Another victim's cascade may have removed it already.
                    if st.objects[r].get(&s.key).is_some_and(|c| c.uid == s.uid) {
                        self.delete_locked(&mut st, r, s)?;
                    }
                }
            }
            return self.delete_locked(&mut st, idx, current);
        }
        self.delete_object(&mut st, idx, current, opts)
    }

    /// The registry's `Delete` for one object (no preconditions; the lock is held).
    fn delete_object(
        &self,
        st: &mut State,
        idx: usize,
        current: Arc<Stored>,
        opts: &DeleteOptions,
    ) -> Result<Arc<Stored>, StatusError> {
        let v = current.value()?;
        let pod = is_pod(idx);
        // The pod strategy's CheckGracefulDelete: the request's grace, else the pod's; an
        // unscheduled or finished pod has nothing to stop and goes at once. Other kinds: 0.
        let grace = if pod {
            let requested = opts.grace_period_seconds.unwrap_or_else(|| {
                v.pointer("/spec/terminationGracePeriodSeconds")
                    .and_then(Value::as_i64)
                    .unwrap_or(30)
            });
            let unscheduled = v
                .pointer("/spec/nodeName")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty);
            let finished = matches!(
                v.pointer("/status/phase").and_then(Value::as_str),
                Some("Succeeded" | "Failed")
            );
            if unscheduled || finished {
                0
            } else {
                requested.max(0)
            }
        } else {
            0
        };
        let fins = finalizers(&v);
        if v.pointer("/metadata/deletionTimestamp").is_some() {
            // Already being deleted: only a shorter grace period changes anything.
            let current_grace = v
                .pointer("/metadata/deletionGracePeriodSeconds")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            if !pod || grace >= current_grace {
                return Ok(current);
            }
            if grace == 0 && fins.is_empty() {
                return self.delete_locked(st, idx, current);
            }
            return self.mark(st, idx, current, v, grace, None);
        }
        let policy = opts.propagation.unwrap_or(Propagation::Background);
        let has_dependents = st.dependents.contains_key(&current.uid);
        match policy {
            Propagation::Orphan if has_dependents => {
                self.orphan_dependents(st, &current.uid)?;
            }
            Propagation::Foreground if has_dependents => {
                let marked = self.mark(st, idx, current, v, grace, Some("foregroundDeletion"))?;
                st.foreground
                    .insert(marked.uid.clone(), (idx, marked.key.clone()));
                let deps: Vec<(usize, String)> = st
                    .dependents
                    .get(&marked.uid)
                    .map(|d| d.iter().cloned().collect())
                    .unwrap_or_default();
                for (r, key) in deps {
                    if let Some(d) = st.objects[r].get(&key).cloned() {
                        self.delete_object(st, r, d, &DeleteOptions::default())?;
                    }
                }
                // Dependents that went at once may have released the owner already.
                self.release_foreground(st, &marked.uid)?;
                return Ok(st.objects[idx]
                    .get(&marked.key)
                    .filter(|o| o.uid == marked.uid)
                    .cloned()
                    .unwrap_or(marked));
            }
            _ => {}
        }
        if grace > 0 || !fins.is_empty() {
            return self.mark(st, idx, current, v, grace, None);
        }
        self.delete_locked(st, idx, current)
    }

    /// Set `deletionTimestamp` (now + grace) and `deletionGracePeriodSeconds` (and a finalizer),
    /// one MODIFIED event; a pod with a grace period joins the kubelet's timer queue.
    fn mark(
        &self,
        st: &mut State,
        idx: usize,
        current: Arc<Stored>,
        mut v: Value,
        grace: i64,
        finalizer: Option<&str>,
    ) -> Result<Arc<Stored>, StatusError> {
        if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("deletionTimestamp".into(), Value::String(rfc3339_in(grace)));
            meta.insert("deletionGracePeriodSeconds".into(), json!(grace));
            if let Some(f) = finalizer {
                let list = meta.entry("finalizers").or_insert_with(|| json!([]));
                if let Some(list) = list.as_array_mut()
                    && !list.iter().any(|x| x.as_str() == Some(f))
                {
                    list.push(Value::String(f.to_string()));
                }
            }
        }
        let rv = st.rv + 1;
        let (stored, _) = store_value(&RESOURCES[idx], v, rv)?;
        st.rv = rv;
        if is_pod(idx) && grace > 0 {
            let secs = u64::try_from(grace).unwrap_or(0);
            st.kubelet.insert(
                (Instant::now() + Duration::from_secs(secs), rv),
                (idx, stored.key.clone(), stored.uid.clone()),
            );
            self.grace_started.notify_one();
        }
        self.commit(st, idx, EventType::Modified, stored.clone(), Some(current));
        Ok(stored)
    }

    /// The garbage collector's orphaning: remove the ownerReferences naming `uid`.
    fn orphan_dependents(&self, st: &mut State, uid: &str) -> Result<(), StatusError> {
        let deps: Vec<(usize, String)> = st
            .dependents
            .get(uid)
            .map(|d| d.iter().cloned().collect())
            .unwrap_or_default();
        for (r, key) in deps {
            let Some(d) = st.objects[r].get(&key).cloned() else {
                continue;
            };
            let mut v = d.value()?;
            if let Some(refs) = v
                .pointer_mut("/metadata/ownerReferences")
                .and_then(Value::as_array_mut)
            {
                refs.retain(|o| o.get("uid").and_then(Value::as_str) != Some(uid));
                if refs.is_empty()
                    && let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut)
                {
                    m.remove("ownerReferences");
                }
            }
            let rv = st.rv + 1;
            let (stored, _) = store_value(&RESOURCES[r], v, rv)?;
            st.rv = rv;
            self.commit(st, r, EventType::Modified, stored, Some(d));
        }
        Ok(())
    }

    /// A foreground-deleted owner whose dependents are all gone loses its `foregroundDeletion`
    /// finalizer, and is removed if that was the last one.
    fn release_foreground(&self, st: &mut State, uid: &str) -> Result<(), StatusError> {
        if st.dependents.contains_key(uid) {
            return Ok(());
        }
        let Some((idx, key)) = st.foreground.remove(uid) else {
            return Ok(());
        };
        let Some(owner) = st.objects[idx].get(&key).cloned().filter(|o| o.uid == uid) else {
            return Ok(());
        };
        let mut v = owner.value()?;
        if let Some(list) = v
            .pointer_mut("/metadata/finalizers")
            .and_then(Value::as_array_mut)
        {
            list.retain(|f| f.as_str() != Some("foregroundDeletion"));
        }
        let rv = st.rv + 1;
        let remove = finalizers(&v).is_empty() && (!is_pod(idx) || deadline_passed(&v));
        let (stored, _) = store_value(&RESOURCES[idx], v, rv)?;
        st.rv = rv;
        if remove {
            self.remove_locked(st, idx, stored, owner)
        } else {
            self.commit(st, idx, EventType::Modified, stored, Some(owner));
            Ok(())
        }
    }

    /// Remove an object now (its last state at a new resourceVersion).
    fn delete_locked(
        &self,
        st: &mut State,
        idx: usize,
        current: Arc<Stored>,
    ) -> Result<Arc<Stored>, StatusError> {
        let rv = st.rv + 1;
        let bytes = with_rv(&current, rv)?;
        let gone = Arc::new(Stored {
            rv,
            key: current.key.clone(),
            namespace: current.namespace.clone(),
            name: current.name.clone(),
            uid: current.uid.clone(),
            labels: current.labels.clone(),
            owners: current.owners.clone(),
            fields: current.fields.clone(),
            bytes,
            proto: std::sync::OnceLock::new(),
        });
        st.rv = rv;
        self.remove_locked(st, idx, gone.clone(), current)?;
        Ok(gone)
    }

    /// Commit the removal (`gone` carries the new rv), then what the garbage collector does
    /// next: delete the dependents (background; pods through their grace period) and release
    /// foreground-deleted owners whose last dependent this was.
    pub(super) fn remove_locked(
        &self,
        st: &mut State,
        idx: usize,
        gone: Arc<Stored>,
        prev: Arc<Stored>,
    ) -> Result<(), StatusError> {
        self.commit(st, idx, EventType::Deleted, gone.clone(), Some(prev));
        let deps: Vec<(usize, String)> = st
            .dependents
            .get(&gone.uid)
            .map(|d| d.iter().cloned().collect())
            .unwrap_or_default();
        for (r, key) in deps {
            // Only dependents whose owner is really gone: the uid must match.
            if let Some(d) = st.objects[r].get(&key).cloned()
                && d.owners.contains(&gone.uid)
            {
                self.delete_object(st, r, d, &DeleteOptions::default())?;
            }
        }
        if !st.foreground.is_empty() {
            for o in &gone.owners {
                if st.foreground.contains_key(o) {
                    self.release_foreground(st, o)?;
                }
            }
        }
        Ok(())
    }

    /// The simulated kubelet: remove the pods whose grace period has passed (finalizers still
    /// hold a pod until an update empties them). Cheap when nothing is due.
    pub fn reap_terminated(&self, now: Instant) {
        let mut st = self.state.lock();
        while let Some(entry) = st.kubelet.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let (idx, key, uid) = entry.remove();
            let Some(pod) = st.objects[idx].get(&key).cloned() else {
                continue;
            };
            if pod.uid != uid {
                continue;
            }
            let held = pod
                .value()
                .map(|v| {
                    v.pointer("/metadata/deletionTimestamp").is_none() || !finalizers(&v).is_empty()
                })
                .unwrap_or(true);
            if held {
                continue;
            }
            if let Err(e) = self.delete_locked(&mut st, idx, pod) {
                tracing::warn!(error = %e, %key, "kubelet cannot remove a terminated pod");
            }
        }
    }

    /// Resolves when a pod enters its grace period (the kubelet then recomputes its sleep).
    pub async fn grace_started(&self) {
        self.grace_started.notified().await;
    }

    /// The next deadline in the kubelet's queue (for the reaper's sleep).
    pub fn next_grace_deadline(&self) -> Option<Instant> {
        self.state.lock().kubelet.keys().next().map(|(t, _)| *t)
    }
}
