//! The demo's namespace-scoped user: refusals with kube-apiserver's messages, and self-subject reviews.

use super::*;

/// The demo server with a namespace-scoped user `jane` (pods, events, configmaps in `bench`):
/// her client (the kubeconfig's current context) and the unrestricted one.
async fn rbac_demo(test: &str) -> Option<(DemoHandle, Client, Client)> {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!(
            "skipping {test}: needs a namespace-scoped user; the test does not set up RBAC on the cluster KINFORMER_TEST_KUBECONFIG names"
        );
        return None;
    }
    let h = DemoServer::start(DemoOptions {
        namespace_user: Some(kinformer::demo::rbac::NamespaceUser::new("jane", "bench")),
        ..DemoOptions::default()
    })
    .await
    .unwrap();
    let yaml = h.kubeconfig_yaml();
    let jane = client_for(&yaml).await;
    let kc = Kubeconfig::from_yaml(&yaml).unwrap();
    let admin_opts = KubeConfigOptions {
        context: Some("kinformer-demo".into()),
        ..KubeConfigOptions::default()
    };
    let admin = Client::try_from(
        Config::from_custom_kubeconfig(kc, &admin_opts)
            .await
            .unwrap(),
    )
    .unwrap();
    let nss: Api<Namespace> = Api::all(admin.clone());
    nss.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": "bench"}})).unwrap(),
    )
    .await
    .unwrap();
    Some((h, jane, admin))
}

fn status_message(err: &kube::Error) -> Option<(u16, String)> {
    match err {
        kube::Error::Api(s) => Some((s.code, s.message.clone())),
        _ => None,
    }
}

#[tokio::test]
async fn namespace_user_is_refused_outside_its_role_with_kube_apiservers_message() {
    let Some((h, jane, admin)) =
        rbac_demo("namespace_user_is_refused_outside_its_role_with_kube_apiservers_message").await
    else {
        return;
    };
    let in_bench: Api<Pod> = Api::namespaced(jane.clone(), "bench");
    assert!(in_bench.list(&ListParams::default()).await.is_ok());
    let cms: Api<ConfigMap> = Api::namespaced(jane.clone(), "bench");
    assert!(cms.list(&ListParams::default()).await.is_ok());

    let all: Api<Pod> = Api::all(jane.clone());
    let err = all.list(&ListParams::default()).await.unwrap_err();
    assert_eq!(
        status_message(&err),
        Some((
            403,
            "pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" at the cluster scope".into()
        ))
    );
    let deploys: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(jane.clone(), "bench");
    let err = deploys.list(&ListParams::default()).await.unwrap_err();
    assert_eq!(
        status_message(&err),
        Some((
            403,
            "deployments.apps is forbidden: User \"jane\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"bench\"".into()
        ))
    );
    let other: Api<Pod> = Api::namespaced(jane.clone(), "default");
    let err = other.list(&ListParams::default()).await.unwrap_err();
    assert!(
        status_message(&err)
            .is_some_and(|(c, m)| c == 403 && m.ends_with("in the namespace \"default\"")),
        "{err}"
    );
    // Writing in her namespace is not in the Role either; the name is in the message.
    let err = cms
        .delete("nothing", &DeleteParams::default())
        .await
        .unwrap_err();
    assert_eq!(
        status_message(&err),
        Some((
            403,
            "configmaps \"nothing\" is forbidden: User \"jane\" cannot delete resource \"configmaps\" in API group \"\" in the namespace \"bench\"".into()
        ))
    );
    let nss: Api<Namespace> = Api::all(jane.clone());
    assert_eq!(
        status_message(&nss.list(&ListParams::default()).await.unwrap_err()).map(|s| s.0),
        Some(403)
    );
    // Discovery stays open to her; the unrestricted context is unaffected.
    assert!(jane.apiserver_version().await.is_ok());
    assert!(jane.list_api_groups().await.is_ok());
    let admin_pods: Api<Pod> = Api::all(admin);
    assert!(admin_pods.list(&ListParams::default()).await.is_ok());
    h.shutdown().await;
}

async fn can_i(client: &Client, attrs: serde_json::Value) -> serde_json::Value {
    let body = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": attrs}});
    let req = http::Request::post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&body).unwrap())
        .unwrap();
    client.request::<serde_json::Value>(req).await.unwrap()
}

#[tokio::test]
async fn self_subject_reviews_answer_from_the_users_rules() {
    let Some((h, jane, admin)) =
        rbac_demo("self_subject_reviews_answer_from_the_users_rules").await
    else {
        return;
    };
    let yes = can_i(
        &jane,
        json!({"verb": "list", "resource": "pods", "namespace": "bench"}),
    )
    .await;
    assert_eq!(yes["kind"], "SelfSubjectAccessReview");
    assert_eq!(yes["status"]["allowed"], true);
    assert_eq!(
        yes["status"]["reason"],
        "RBAC: allowed by RoleBinding \"jane-reader/bench\" of Role \"jane-reader\" to User \"jane\""
    );
    assert_eq!(yes["spec"]["resourceAttributes"]["namespace"], "bench");
    for attrs in [
        json!({"verb": "list", "resource": "pods"}),
        json!({"verb": "watch", "group": "apps", "resource": "deployments", "namespace": "bench"}),
        json!({"verb": "list", "resource": "namespaces"}),
        json!({"verb": "list", "resource": "pods", "namespace": "default"}),
    ] {
        let no = can_i(&jane, attrs.clone()).await;
        assert_eq!(no["status"]["allowed"], false, "{attrs}");
        let admin_yes = can_i(&admin, attrs.clone()).await;
        assert_eq!(admin_yes["status"]["allowed"], true, "{attrs}");
    }
    // The rules review lists the Role in her namespace and only the review rules elsewhere.
    let rules = |ns: &str| {
        let body = json!({"apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectRulesReview", "spec": {"namespace": ns}});
        http::Request::post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
            .header("content-type", "application/json")
            .body(serde_json::to_vec(&body).unwrap())
            .unwrap()
    };
    let in_bench: serde_json::Value = jane.request(rules("bench")).await.unwrap();
    let granted: Vec<&serde_json::Value> = in_bench["status"]["resourceRules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["resources"].as_array().unwrap().contains(&json!("pods")))
        .collect();
    assert_eq!(granted.len(), 1);
    assert_eq!(granted[0]["verbs"], json!(["get", "list", "watch"]));
    let elsewhere: serde_json::Value = jane.request(rules("default")).await.unwrap();
    assert!(
        !elsewhere["status"]["resourceRules"]
            .to_string()
            .contains("pods")
    );
    // Discovery names the group, as kubectl's RESTMapper needs.
    let groups = jane.list_api_groups().await.unwrap();
    assert!(
        groups
            .groups
            .iter()
            .any(|g| g.name == "authorization.k8s.io")
    );
    h.shutdown().await;
}
