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

/// Put the terminal back in cooked mode on the main screen. Idempotent; safe from a panic hook.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
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
/// the screen could no longer be trusted).
pub fn setup() -> io::Result<(Tui, TerminalGuard)> {
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
    let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    Ok((terminal, guard))
}
