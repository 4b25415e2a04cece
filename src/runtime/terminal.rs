//! Terminal setup and restoration: raw mode + alternate screen in, cooked mode out — on normal
//! exit, on error, on panic (any thread) and on SIGTERM/SIGINT/SIGHUP (the runtime turns those
//! signals into a normal exit).

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::cursor::Show;
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// The terminal type the dashboard draws on.
pub type Tui = Terminal<CrosstermBackend<Stdout>>;

static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The mouse is captured (k9s's `ui.enableMouse: true`): wheel scrolling reaches the dashboard.
static MOUSE: AtomicBool = AtomicBool::new(false);

/// Capture the mouse again (`true`, after a shell or an editor had the terminal) or let it go
/// (`false`, before); nothing when k9s's `enableMouse` is not set.
pub fn capture_mouse(on: bool) {
    if MOUSE.load(Ordering::SeqCst) {
        let _ = if on {
            execute!(io::stdout(), crossterm::event::EnableMouseCapture)
        } else {
            execute!(io::stdout(), crossterm::event::DisableMouseCapture)
        };
    }
}

/// Put the terminal back in cooked mode on the main screen. Idempotent; safe from a panic hook.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        capture_mouse(false);
        let _ = disable_raw_mode();
        let _ = execute!(io::stdout(), LeaveAlternateScreen, Show);
    }
}

/// Restores the terminal when dropped (also during unwinding).
pub struct TerminalGuard(());

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Enter raw mode and the alternate screen, and install a panic hook that restores the terminal
/// before the panic message is printed and then exits (a panic in any task is fatal for a TUI:
/// the screen could no longer be trusted). `mouse`: capture the mouse (k9s's `enableMouse`).
pub fn setup(mouse: bool) -> io::Result<(Tui, TerminalGuard)> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
        eprintln!("kinformer crashed; the terminal was restored. See the log file for details.");
        std::process::exit(101);
    }));
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let guard = TerminalGuard(());
    execute!(io::stdout(), EnterAlternateScreen)?;
    MOUSE.store(mouse, Ordering::SeqCst);
    capture_mouse(true);
    let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    Ok((terminal, guard))
}
