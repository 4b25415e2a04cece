//! A shell, an editor or a plugin session: the terminal is handed over (the feeds held back by
//! the [`Suspender`]) and taken back; a signal meanwhile (SIGHUP, SIGTERM) ends the dashboard.

use super::*;

/// Suspend the dashboard for `session` (an interactive shell): stop reading terminal events (the
/// session reads the keys), leave the alternate screen with raw mode kept, run it, then take the
/// screen back and clear it so the next frame redraws everything (also the editor of `E`).
/// The feeds hold back meanwhile (`suspend`): nothing queues up for the app while it does not
/// read, and the first frames after show the informers' current state. `None`: a signal came
/// meanwhile (e.g. SIGHUP, the terminal closed under the shell): the session is dropped and
/// the dashboard exits instead of waiting for a shell nobody can type into.
pub(super) async fn shell_session<F: std::future::Future<Output = (String, bool)>>(
    tui: &mut terminal::Tui,
    events: &mut Option<EventStream>,
    suspend: &Suspender,
    signals: &mut ExitSignals,
    session: F,
) -> std::io::Result<Option<(String, bool)>> {
    suspend.set(true);
    let result = tokio::select! {
        r = suspended_session(tui, events, session) => r.map(Some),
        s = signals.recv() => {
            tracing::info!("{s} during a shell or an editor: exiting");
            Ok(None)
        }
    };
    suspend.set(false);
    result
}

async fn suspended_session<F: std::future::Future<Output = (String, bool)>>(
    tui: &mut terminal::Tui,
    events: &mut Option<EventStream>,
    session: F,
) -> std::io::Result<(String, bool)> {
    // Dropping the stream wakes and stops its reader thread, which holds crossterm's global
    // event reader while it waits for input. The frame loop makes a new stream after the
    // session: making it here, before the old one is dropped, waits for that lock, so the
    // dashboard froze until a key came, and that key went to the old reader, lost.
    drop(events.take());
    crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    )?;
    let result = session.await;
    crossterm::execute!(std::io::stdout(), crossterm::terminal::EnterAlternateScreen)?;
    // Clear the screen and forget the last frame (both buffers empty) so the next draw repaints
    // every cell. Not `Terminal::clear`: it reads the cursor position, which fails when the
    // session was quick (an editor saving at once) while the dropped event reader still runs.
    crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
    )?;
    tui.swap_buffers();
    Ok(result)
}

/// The signals that end the dashboard, in the frame loop and during a shell or an editor.
pub(super) struct ExitSignals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl ExitSignals {
    pub(super) fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::SignalKind;
        Ok(Self {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// The next one's name.
    pub(super) async fn recv(&mut self) -> &'static str {
        tokio::select! {
            _ = self.term.recv() => "SIGTERM",
            _ = self.int.recv() => "SIGINT",
            _ = self.hup.recv() => "SIGHUP",
        }
    }
}

fn signal(kind: tokio::signal::unix::SignalKind) -> std::io::Result<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(kind)
}
