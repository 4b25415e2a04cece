//! Issue 38: the header tells the truth after an outage, and a history reset is said.

use super::*;
use kinformer::ui::action::InformerRow;

fn pods_row(stale: bool) -> InformerRow {
    InformerRow {
        stale,
        last_error: stale.then(|| "tcp connect error: Connection refused".to_string()),
        ..informer_row("pods", Some("default"), InformerState::Watching)
    }
}

fn stale_rows(app: &App, v: ViewId) -> usize {
    app.views[&v].table.entries().filter(|e| e.stale).count()
}

#[test]
fn after_an_outage_rows_stay_stale_and_the_header_says_so_until_the_informer_is_current() {
    let (mut app, v) = app_with(config(), three_pods());
    connected(&mut app);
    app.update(Action::InformerStats(vec![pods_row(false)]));
    assert!(screen_text(&app).contains("│ synced"));
    assert_eq!(stale_rows(&app, v), 0);
    app.update(Action::InformerStats(vec![pods_row(true)]));
    let text = screen_text(&app);
    assert!(text.contains("│ stale"), "{text}");
    assert!(!text.contains("│ synced"), "{text}");
    assert_eq!(stale_rows(&app, v), 3, "every row is stale");
    // The watch delivered (or the history check passed): current again, without a relist.
    app.update(Action::InformerStats(vec![pods_row(false)]));
    assert!(screen_text(&app).contains("│ synced"));
    assert_eq!(stale_rows(&app, v), 0);
}

#[test]
fn a_history_reset_is_said_in_the_header_and_the_footer() {
    let (mut app, _) = app_with(config(), three_pods());
    connected(&mut app);
    app.update(Action::InformerStats(vec![pods_row(false)]));
    let line = "history went back (RV 213,522 → 20,589: etcd restored or cluster re-created); listed again";
    app.update(Action::InformerStats(vec![InformerRow {
        history_reset: Some(line.to_string()),
        ..pods_row(false)
    }]));
    let text = screen_text(&app);
    assert!(
        text.contains("history went back (RV 213,522 → 20,589"),
        "{text}"
    );
    assert_eq!(
        app.message.as_ref().map(|(m, _)| m.as_str()),
        Some(format!("pods: {line}").as_str())
    );
}
