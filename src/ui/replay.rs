//! Replay (`kinformer replay FILE`): the dashboard on a recording, with no cluster.
//!
//! khronoscope counterpart: its VCR controls. The replay's "now" is the end of the recording
//! (the tables are the objects present then); any earlier instant is a past view of the table,
//! the very time travel of the live dashboard (`ui::time_travel`: `:at`, `[`, `]`), fed from
//! the recording loaded into per-object history. On top of it: `space` plays forward at 1×,
//! 10× or 60× (each press the next speed, then pause), `m` marks the instant with a note
//! (`:mark NOTE`), `:marks` lists the marks; every write is refused with "replay: read-only"
//! (the runtime refuses anything that would reach a cluster the same way).
//!
//! Invariants: the instant shown is the current table's past view's, or the end of the
//! recording when it shows the end; playing never moves past the end (it stops there); the
//! end is the replay's present (`:at` counts back from it and cannot go beyond it); choosing
//! an instant (`:at`, `[`, `]`) while playing pauses there, so the next tick does not move
//! the table away from it.

use crate::ui::screens::history::clock;

/// Why writes are refused in a replay (the footer's whole message).
pub const READ_ONLY: &str = crate::ui::operate::REPLAY_READ_ONLY;

/// The speeds `space` cycles through (then pause).
pub const SPEEDS: [u32; 3] = [1, 10, 60];

/// A replay's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    /// The recording's file, as given.
    pub file: String,
    /// The first and last instants recorded.
    pub start_ms: i64,
    pub end_ms: i64,
    /// Playing at this speed (`None`: paused).
    pub speed: Option<u32>,
    /// Marks `(instant, note)`, by instant; the runtime keeps the new ones in the file.
    pub marks: Vec<(i64, String)>,
    /// Marks made in this replay and not yet kept in the file (the runtime takes them).
    pub new_marks: Vec<(i64, String)>,
}

impl Replay {
    /// The banner: `REPLAY 03:12:44 ▶ 10×` (or `❚❚` paused).
    pub fn banner(&self, at_ms: i64) -> String {
        let state = match self.speed {
            Some(s) => format!("▶ {s}×"),
            None => "❚❚".to_string(),
        };
        format!(" REPLAY {} {state} ", clock(at_ms))
    }
}
