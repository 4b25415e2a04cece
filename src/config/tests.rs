use std::path::{Path, PathBuf};

use super::*;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config")
}

fn env_at(config_home: &Path) -> ConfigEnv {
    ConfigEnv {
        xdg_config_home: Some(config_home.to_path_buf()),
        xdg_data_home: Some(config_home.join("data")),
        ..Default::default()
    }
}

fn load_at(config_home: &Path) -> UserConfig {
    UserConfig::load(&LoadOptions {
        env: env_at(config_home),
        ..Default::default()
    })
}

#[test]
fn the_fixture_k9s_directory_loads_every_file_without_problems() {
    let cfg = load_at(&fixture());
    assert!(cfg.problems.is_empty(), "{:?}", cfg.problems);
    assert_eq!(cfg.aliases.len(), 4);
    assert_eq!(cfg.hotkeys.len(), 2);
    // plugins.yaml's three and plugins/dive.yaml.
    let mut names: Vec<&str> = cfg.plugins.iter().map(|p| p.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["describe-bg", "dive", "nuke", "where"]);
    let bg = cfg
        .plugins
        .iter()
        .find(|p| p.name == "describe-bg")
        .unwrap();
    assert!(bg.background);
    let nuke = cfg.plugins.iter().find(|p| p.name == "nuke").unwrap();
    assert!(nuke.dangerous && nuke.confirm);
    assert_eq!(cfg.views.len(), 1);
    assert_eq!(cfg.views[0].1.columns[1].name, "APP");
    assert_eq!(cfg.skin.as_ref().map(|s| s.name.as_str()), Some("night"));
    assert_eq!(cfg.settings.history_mib, Some(32));
    assert_eq!(cfg.settings.k9s_refresh_seconds, Some(2));
    let report = cfg.report();
    assert!(report.contains("No problems."), "{report}");
    assert!(report.contains("k9s/aliases.yaml"), "{report}");
}

/// Write `files` (path under the config home → text) and load.
fn load_files(files: &[(&str, &str)]) -> (tempfile::TempDir, UserConfig) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    let cfg = load_at(dir.path());
    (dir, cfg)
}

#[test]
fn a_bad_file_is_named_with_line_and_column_and_skipped_alone() {
    // (file, text, what the problem must say, "line:column")
    let cases: [(&str, &str, &str, &str); 8] = [
        (
            "k9s/aliases.yaml",
            "aliases:\n  pp: v1/pods\n\tbad: v1/x\n",
            "found a tab character",
            ":3:1:",
        ),
        (
            "k9s/hotkeys.yaml",
            "hotKeys:\n  a:\n    shortCut: a\n",
            "missing field `command`",
            ":3:5:",
        ),
        (
            "k9s/plugins.yaml",
            "plugins:\n  p:\n    shortCut: x\n    scopes: pods\n    command: ls\n",
            "invalid type",
            ":4:",
        ),
        (
            "k9s/views.yaml",
            "views:\n  v1/pods:\n    columns:\n      - NAME\n      - X:.a[\n",
            "column X",
            ":5:9:",
        ),
        (
            "k9s/skins/night.yaml",
            "k9s:\n  body:\n    fgColor: blurple\n",
            "blurple",
            ":3:14:",
        ),
        (
            "kinformer/config.toml",
            "history_mib = \"lots\"\n",
            "invalid type",
            ":1:15:",
        ),
        (
            "kinformer/config.toml",
            "refresh_seconds = 2\nmetrics_period = 0\n",
            "metrics_period = 0: expected 1..=3600",
            ":2:1:",
        ),
        (
            "kinformer/config.toml",
            "verify_minutes = 0\n",
            "verify_minutes = 0: expected 1..=1440",
            ":1:1:",
        ),
    ];
    for (file, text, says, at) in cases {
        let mut files = vec![(file, text)];
        // A good file next to the bad one is still read.
        if file != "k9s/aliases.yaml" {
            files.push(("k9s/aliases.yaml", "aliases:\n  pp: v1/pods\n"));
        }
        if file.contains("skins") {
            files.push(("k9s/config.yaml", "k9s:\n  ui:\n    skin: night\n"));
        }
        let (_dir, cfg) = load_files(&files);
        assert_eq!(cfg.problems.len(), 1, "{file}: {:?}", cfg.problems);
        let p = cfg.problems[0].to_string();
        assert!(p.contains(file), "{file}: {p}");
        assert!(p.contains(says), "{file}: {p}");
        assert!(p.contains(at), "{file}: {p} (want {at})");
        let skipped = cfg
            .sources
            .iter()
            .find(|s| s.path.ends_with(file))
            .map(|s| s.state.clone());
        assert_eq!(skipped, Some(SourceState::Skipped), "{file}");
        if file != "k9s/aliases.yaml" {
            assert_eq!(cfg.aliases.len(), 1, "{file}: the good file is read");
        }
        assert!(cfg.report().contains(&p), "{file}: the report lists it");
    }
}

#[test]
fn an_unknown_scope_and_an_unknown_alias_target_are_named_where_written() {
    let (_dir, cfg) = load_files(&[
        (
            "k9s/aliases.yaml",
            "aliases:\n  pp: v1/pods\n  zz: v1/nopes\n",
        ),
        (
            "k9s/plugins.yaml",
            "plugins:\n  p:\n    shortCut: x\n    scopes:\n      - pods\n      - widgets\n    command: ls\n",
        ),
    ]);
    assert!(cfg.problems.is_empty(), "{:?}", cfg.problems);
    let known = |n: &str| matches!(n, "pods" | "po" | "pod");
    let scopes: Vec<String> = plugins::unknown_scopes(&cfg.plugins, &known)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(scopes.len(), 1, "{scopes:?}");
    assert!(
        scopes[0].contains("plugins.yaml:6:9:") && scopes[0].contains("unknown scope \"widgets\""),
        "{scopes:?}"
    );
    let targets: Vec<String> = cfg
        .aliases
        .unknown_targets(&known)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(targets.len(), 1, "{targets:?}");
    assert!(
        targets[0].contains("aliases.yaml:3:3:") && targets[0].contains("nopes"),
        "{targets:?}"
    );
}

#[test]
fn per_context_files_override_the_global_ones() {
    let (dir, _) = load_files(&[
        ("k9s/aliases.yaml", "aliases:\n  pp: v1/pods\n"),
        (
            "data/k9s/clusters/kind-x/ctx-a/aliases.yaml",
            "aliases:\n  pp: apps/v1/deployments\n",
        ),
        (
            "data/k9s/clusters/kind-x/ctx-a/config.yaml",
            "k9s:\n  skin: red\n",
        ),
        ("k9s/skins/red.yaml", "k9s:\n  body:\n    fgColor: red\n"),
    ]);
    let cfg = UserConfig::load(&LoadOptions {
        env: env_at(dir.path()),
        context: Some(("kind-x".into(), "ctx-a".into())),
        ..Default::default()
    });
    assert!(cfg.problems.is_empty(), "{:?}", cfg.problems);
    assert_eq!(
        cfg.aliases.get("pp").map(|a| a.target.as_str()),
        Some("apps/v1/deployments")
    );
    assert_eq!(cfg.skin.map(|s| s.name), Some("red".to_string()));
}

#[test]
fn the_contexts_feature_gate_node_shell_is_read_as_k9s_writes_it_and_is_off_by_default() {
    let ctx = "data/k9s/clusters/kind-x/ctx-a/config.yaml";
    let load = |text: &str| {
        let (dir, _) = load_files(&[(ctx, text)]);
        UserConfig::load(&LoadOptions {
            env: env_at(dir.path()),
            context: Some(("kind-x".into(), "ctx-a".into())),
            ..Default::default()
        })
    };
    let cfg = load("k9s:\n  cluster: kind-x\n  featureGates:\n    nodeShell: true\n");
    assert!(cfg.problems.is_empty(), "{:?}", cfg.problems);
    assert!(cfg.settings.k9s_node_shell);
    let gate = cfg
        .k9s_settings
        .iter()
        .find(|s| s.key == "k9s.featureGates.nodeShell")
        .expect("listed");
    assert!(gate.supported);
    assert!(
        !load("k9s:\n  featureGates:\n    nodeShell: false\n")
            .settings
            .k9s_node_shell
    );
    assert!(
        !load("k9s:\n  view:\n    active: po\n")
            .settings
            .k9s_node_shell
    );
}

#[test]
fn k9s_dir_false_reads_no_k9s_file_and_a_missing_explicit_config_is_a_problem() {
    let (dir, _) = load_files(&[
        ("kinformer/config.toml", "k9s_dir = false\n"),
        ("k9s/aliases.yaml", "aliases:\n  pp: v1/pods\n"),
    ]);
    let cfg = load_at(dir.path());
    assert!(cfg.k9s.is_none());
    assert!(cfg.aliases.is_empty());
    let cfg = UserConfig::load(&LoadOptions {
        config_file: Some(dir.path().join("nope.toml")),
        explicit: true,
        env: env_at(dir.path()),
        ..Default::default()
    });
    assert_eq!(cfg.problems.len(), 1, "{:?}", cfg.problems);
    assert!(cfg.problems[0].message.contains("not found"));
}

#[test]
fn an_unknown_skin_is_one_line_naming_the_missing_file_and_the_built_in_look_is_used() {
    let (dir, cfg) = load_files(&[("k9s/config.yaml", "k9s:\n  ui:\n    skin: nosuch\n")]);
    let problems: Vec<String> = cfg.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [format!(
            "{}: skin \"nosuch\" not found; the built-in look is used",
            dir.path().join("k9s/skins/nosuch.yaml").display()
        )]
    );
    assert!(cfg.skin.is_none());
}

#[test]
fn kinformers_config_toml_wins_over_k9s_config_yaml() {
    let skin = "k9s:\n  body:\n    fgColor: red\n";
    let k9s = [
        (
            "k9s/config.yaml",
            "k9s:\n  refreshRate: 5\n  ui:\n    skin: theirs\n",
        ),
        ("k9s/skins/theirs.yaml", skin),
        ("k9s/skins/mine.yaml", skin),
    ];
    let (_d, cfg) = load_files(&k9s);
    assert!(cfg.problems.is_empty(), "{:?}", cfg.problems);
    assert_eq!(cfg.settings.refresh().as_secs(), 5);
    assert_eq!(cfg.skin.as_ref().map(|s| s.name.as_str()), Some("theirs"));

    let mut both = k9s.to_vec();
    both.push((
        "kinformer/config.toml",
        "refresh_seconds = 2\nskin = \"mine\"\n",
    ));
    let (_d, cfg) = load_files(&both);
    assert!(cfg.problems.is_empty(), "{:?}", cfg.problems);
    assert_eq!(cfg.settings.refresh().as_secs(), 2);
    assert_eq!(cfg.skin.as_ref().map(|s| s.name.as_str()), Some("mine"));
}

#[test]
fn k9s_no_exit_on_ctrl_c_is_read_from_config_yaml() {
    let (_dir, cfg) = load_files(&[("k9s/config.yaml", "k9s:\n  noExitOnCtrlC: true\n")]);
    assert!(cfg.settings.k9s_no_exit_on_ctrl_c);
    assert!(
        cfg.k9s_settings
            .iter()
            .any(|s| s.key == "k9s.noExitOnCtrlC" && s.supported)
    );
    let (_dir, cfg) = load_files(&[("k9s/config.yaml", "k9s:\n  readOnly: false\n")]);
    assert!(!cfg.settings.k9s_no_exit_on_ctrl_c, "false unless set");
}

#[test]
fn k9s_logger_ui_and_shell_pod_settings_are_read_as_k9s_writes_them() {
    let (_d, cfg) = load_files(&[(
        "k9s/config.yaml",
        "k9s:\n  refreshRate: 2\n  ui:\n    enableMouse: true\n    headless: true\n    logoless: true\n    crumbsless: true\n    noIcons: true\n  shellPod:\n    image: busybox:1.37\n    namespace: ops\n    limits:\n      cpu: 200m\n      memory: 64Mi\n    labels: {}\n  logger:\n    tail: 50\n    buffer: 1000\n    sinceSeconds: 300\n    textWrap: true\n    showTime: true\n",
    )]);
    assert!(cfg.problems.is_empty(), "{:?}", cfg.problems);
    let s = &cfg.settings;
    assert_eq!(
        s.k9s_logger,
        K9sLogger {
            tail: Some(50),
            buffer: Some(1000),
            since_seconds: Some(300),
            text_wrap: Some(true),
            show_time: Some(true),
        }
    );
    assert_eq!(
        s.k9s_ui,
        K9sUi {
            enable_mouse: Some(true),
            headless: true,
            logoless: true,
            crumbsless: true,
            no_icons: true,
        }
    );
    assert_eq!(s.k9s_shell_pod.image, "busybox:1.37");
    assert_eq!(s.k9s_shell_pod.namespace, "ops");
    assert_eq!(s.k9s_shell_pod.limits["memory"], "64Mi");
    // Used settings are listed as such; what kinformer has nothing for is "not supported".
    let used = |k: &str| {
        cfg.k9s_settings
            .iter()
            .find(|s| s.key == k)
            .map(|s| s.supported)
    };
    assert_eq!(used("k9s.logger.tail"), Some(true));
    assert_eq!(used("k9s.ui.headless"), Some(true));
    assert_eq!(used("k9s.shellPod.image"), Some(true));
    assert_eq!(used("k9s.ui.noIcons"), Some(false));
}

#[test]
fn an_unset_shell_pod_is_k9ss_busybox_in_default() {
    let (_d, cfg) = load_files(&[("k9s/config.yaml", "k9s:\n  shellPod:\n    image: ''\n")]);
    assert_eq!(cfg.settings.k9s_shell_pod, ShellPod::default());
    assert_eq!(cfg.settings.k9s_shell_pod.image, "busybox:1.35.0");
    assert_eq!(cfg.settings.k9s_logger, K9sLogger::default());
    assert!(!cfg.settings.k9s_ui.headless);
}

#[test]
fn history_file_in_config_toml_names_the_dashboards_history_file() {
    let s = super::own::parse_settings(
        "history_file = \"~/.local/state/kinformer/history.db\"\n",
        Path::new("config.toml"),
    )
    .expect("parses");
    assert_eq!(
        s.history_file,
        Some(PathBuf::from("~/.local/state/kinformer/history.db"))
    );
    assert!(
        s.summary()
            .contains("history_file=~/.local/state/kinformer/history.db")
    );
}
