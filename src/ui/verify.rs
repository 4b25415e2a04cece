//! `:verify`: the current view's informer cache compared with a fresh consistent list of the
//! server (see [`crate::informer::consistency`]); the answer is one line when all match, else a
//! table of what differs (the informer lists again).

use crate::informer::consistency::Verification;
use crate::ui::action::{Effect, ViewId};
use crate::ui::app::{App, Screen, TextKind};
use crate::ui::listing::thousands;
use crate::ui::screens::text::TextView;

impl App {
    /// `:verify` on the current table.
    pub(crate) fn verify_command(&mut self, fx: &mut Vec<Effect>) {
        let Some(view) = self.current_view_id() else {
            self.error(":verify compares a table's cache with the server; open a table first");
            return;
        };
        fx.push(Effect::Verify { view });
        self.info("verifying the cache against the server…");
    }

    /// The answer to [`Effect::Verify`].
    pub(crate) fn on_verified(&mut self, view: ViewId, result: Result<Verification, String>) {
        self.dirty = true;
        let v = match result {
            Ok(v) => v,
            Err(e) => {
                self.error(format!("verify failed: {e}"));
                return;
            }
        };
        let label = self
            .views
            .get(&view)
            .map(|v| crate::ui::action::resource_label(&v.resource))
            .unwrap_or_default();
        if v.differences.is_empty() {
            let n = v.matched as u64;
            self.info(format!(
                "{} {} match the server",
                thousands(n),
                if n == 1 { "object" } else { "objects" }
            ));
            return;
        }
        let mut lines = vec![
            format!(
                "{} of {} objects differ from the server (list at RV {}); listed again.",
                thousands(v.differences.len() as u64),
                thousands(v.server_objects.max(v.matched) as u64),
                v.resource_version
            ),
            String::new(),
        ];
        let w = v
            .differences
            .iter()
            .map(|d| d.key.len())
            .max()
            .unwrap_or(3)
            .max(3);
        lines.push(format!(
            "{:<w$}  {:<10}  {:>12}  {:>12}",
            "KEY", "DIFFERENCE", "CACHE RV", "SERVER RV"
        ));
        for d in &v.differences {
            lines.push(format!(
                "{:<w$}  {:<10}  {:>12}  {:>12}",
                d.key,
                d.kind.as_str(),
                d.cached.as_deref().unwrap_or("-"),
                d.server.as_deref().unwrap_or("-"),
            ));
        }
        self.error(format!(
            "{label}: {} objects differ from the server; listed again",
            v.differences.len()
        ));
        let request = self.next_request;
        self.next_request += 1;
        self.stack.push(Screen::Text(TextView {
            kind: TextKind::Describe,
            title: format!("Verify: {label}"),
            request,
            lines: Some(Ok(lines)),
            value: None,
            reveal: false,
            scroll: 0,
            wrap: false,
            search: None,
            hit: None,
        }));
    }
}
