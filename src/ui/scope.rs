//! A view's namespace scope: all namespaces (`None`), one (`Some("shop")`) or several
//! (`Some("shop,payments")`, as `-n shop,payments` and `:ns shop,payments` write it).
//!
//! k9s has one namespace or all (its #1679 asks for several; kubetui has them). Several are
//! kept in the same `Option<String>` every view, effect and favourite already carries, written
//! as the comma list the user typed (normalized: trimmed, each once, in the order given):
//! a namespace name is a DNS label, so a comma never belongs to one. What reads a scope asks
//! this module ([`names`], [`several`], [`holds`]) instead of comparing strings.

/// The namespaces of a scope (empty for all namespaces).
pub fn names(scope: Option<&str>) -> Vec<&str> {
    scope
        .map(|s| s.split(',').filter(|n| !n.is_empty()).collect())
        .unwrap_or_default()
}

/// A scope of more than one namespace.
pub fn several(scope: Option<&str>) -> bool {
    scope.is_some_and(|s| s.contains(','))
}

/// Rows of this scope come from more than one namespace: the table shows a NAMESPACE column.
pub fn spans_namespaces(scope: Option<&str>, namespaced: bool) -> bool {
    namespaced && (scope.is_none() || several(scope))
}

/// Whether an object in namespace `ns` belongs to the scope.
pub fn holds(scope: Option<&str>, ns: &str) -> bool {
    match scope {
        None => true,
        Some(s) => s.split(',').any(|n| n == ns),
    }
}

/// Whether the store key `namespace/name` belongs to the scope (cluster-scoped keys, without
/// a `/`, always do).
pub fn holds_key(scope: Option<&str>, key: &str) -> bool {
    match key.split_once('/') {
        Some((ns, _)) => holds(scope, ns),
        None => true,
    }
}

/// A scope as typed (`shop`, `shop, payments`, `shop,shop`): trimmed, each namespace once, in
/// the order given; `None` when nothing is left.
pub fn parse(text: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for n in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    (!out.is_empty()).then(|| out.join(","))
}

/// A scope of these namespaces (`None` when there are none).
pub fn of<S: AsRef<str>>(names: &[S]) -> Option<String> {
    parse(
        &names
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<&str>>()
            .join(","),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_list_becomes_each_namespace_once_in_order() {
        assert_eq!(
            parse(" shop, payments ,shop,,").as_deref(),
            Some("shop,payments")
        );
        assert_eq!(parse(" , "), None);
        assert_eq!(of(&["b", "a"]).as_deref(), Some("b,a"));
    }

    #[test]
    fn a_scope_of_several_namespaces_holds_each_and_spans_a_namespace_column() {
        let s = Some("shop,payments");
        assert_eq!(names(s), ["shop", "payments"]);
        assert!(several(s) && !several(Some("shop")) && !several(None));
        assert!(holds(s, "payments") && !holds(s, "pay") && holds(None, "x"));
        assert!(holds_key(s, "shop/web-1") && !holds_key(s, "kube-system/dns"));
        assert!(holds_key(s, "node-1"));
        assert!(spans_namespaces(s, true) && spans_namespaces(None, true));
        assert!(!spans_namespaces(Some("shop"), true) && !spans_namespaces(s, false));
    }

    #[test]
    fn changes_of_a_scope_of_several_namespaces_are_those_namespaces_changes() {
        let f = crate::ui::action::ChangesFilter {
            resource: None,
            namespace: Some("shop,payments".into()),
            selector: String::new(),
        };
        let labels = Default::default();
        assert!(f.passes(None, "pods", "payments/ledger-0", &labels));
        assert!(f.passes(None, "pods", "shop/cart-0", &labels));
        assert!(!f.passes(None, "pods", "default/web-0", &labels));
        assert!(!f.passes(None, "nodes", "node-1", &labels));
    }
}
