//! A shell, an editor or a plugin session: the terminal is handed over (the feeds held back by
//! the [`Suspender`]) and taken back; a signal meanwhile (SIGHUP, SIGTERM) ends the dashboard.

use super::*;

/// Suspend the dashboard for `session` (an interactive shell): stop reading terminal events (the
/// session reads the keys), leave the alternate screen with raw mode kept, run it, then take the
/// screen back and clear it so the next frame redraws everything. An editor session (`e`,
/// `ctrl-n`: `editor` given) leaves the screen around each editor run itself and has the
/// dashboard drawn with a note while it talks to the server between runs.
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
    editor: Option<EditorRedraw<'_>>,
) -> std::io::Result<Option<(String, bool)>> {
    suspend.set(true);
    let result = tokio::select! {
        r = suspended_session(tui, events, session, editor) => r.map(Some),
        s = signals.recv() => {
            tracing::info!("{s} during a shell or an editor: exiting");
            Ok(None)
        }
    };
    suspend.set(false);
    result
}

/// Draws the dashboard with a note on the footer.
pub(super) type DrawWithNote<'a> =
    Box<dyn FnMut(&mut terminal::Tui, String) -> std::io::Result<()> + 'a>;

/// An editor session's redraws: the notes its editor sends each time it exits (see
/// [`super::edit::terminal_editor`]), and how to draw the dashboard with one.
pub(super) struct EditorRedraw<'a> {
    pub(super) back: tokio::sync::mpsc::UnboundedReceiver<String>,
    pub(super) draw: DrawWithNote<'a>,
}

/// Run `session` and, each time a note comes on `back`, call `redraw` with it while the
/// session waits (for the server): the dashboard drawn over the editor's exit, with what is
/// being done. Notes that come as the session ends are not drawn (the caller's next frame is).
pub(super) async fn with_redraws<F: std::future::Future<Output = (String, bool)>>(
    session: F,
    back: &mut tokio::sync::mpsc::UnboundedReceiver<String>,
    mut redraw: impl FnMut(String) -> std::io::Result<()>,
) -> std::io::Result<(String, bool)> {
    tokio::pin!(session);
    loop {
        tokio::select! {
            biased;
            r = &mut session => return Ok(r),
            Some(note) = back.recv() => redraw(note)?,
        }
    }
}

async fn suspended_session<F: std::future::Future<Output = (String, bool)>>(
    tui: &mut terminal::Tui,
    events: &mut Option<EventStream>,
    session: F,
    editor: Option<EditorRedraw<'_>>,
) -> std::io::Result<(String, bool)> {
    // Dropping the stream wakes and stops its reader thread, which holds crossterm's global
    // event reader while it waits for input. The frame loop makes a new stream after the
    // session: making it here, before the old one is dropped, waits for that lock, so the
    // dashboard froze until a key came, and that key went to the old reader, lost.
    drop(events.take());
    let result = match editor {
        // An editor session hands the screen over around each editor run itself, and the
        // dashboard is drawn meanwhile (reading the object, the dry run, the save).
        Some(EditorRedraw { mut back, mut draw }) => {
            with_redraws(session, &mut back, |note| {
                // The editor's exit cleared the screen: forget the last frame, draw it all.
                tui.swap_buffers();
                draw(tui, note)
            })
            .await?
        }
        None => {
            super::terminal::capture_mouse(false);
            crossterm::execute!(
                std::io::stdout(),
                crossterm::terminal::LeaveAlternateScreen,
                crossterm::cursor::Show
            )?;
            session.await
        }
    };
    crossterm::execute!(std::io::stdout(), crossterm::terminal::EnterAlternateScreen)?;
    super::terminal::capture_mouse(true);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_dashboard_is_redrawn_with_the_note_while_the_dry_run_after_the_editor_runs() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (server_tx, server_rx) = tokio::sync::oneshot::channel::<()>();
        let drawn = std::cell::RefCell::new(Vec::<String>::new());
        // The session: the editor exits (its note sent), then the dry run waits for the server,
        // which answers only once the dashboard has been drawn.
        let session = async {
            let _ = tx.send("checking the new object (dry run)…".to_string());
            let _ = server_rx.await;
            ("dry run passed".to_string(), false)
        };
        let mut server_tx = Some(server_tx);
        let r = with_redraws(session, &mut rx, |note| {
            drawn.borrow_mut().push(note);
            if let Some(t) = server_tx.take() {
                let _ = t.send(());
            }
            Ok(())
        })
        .await
        .unwrap();
        assert_eq!(r, ("dry run passed".to_string(), false));
        assert_eq!(*drawn.borrow(), ["checking the new object (dry run)…"]);
    }
}
