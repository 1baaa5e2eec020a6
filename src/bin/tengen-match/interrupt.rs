//! Ctrl-C (SIGINT) and SIGTERM: the run stops where it is. No new game starts, the games in
//! progress end at once (their engines are killed) and are not counted, and the summary of the
//! finished games is printed as usual. A second signal exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Exit status of an interrupted run (128 + SIGINT, as shells report it).
pub const EXIT_CODE: i32 = 130;

/// Installs the handler (once, at the start of a run). A failure (a handler already set by
/// someone else) only loses the summary on Ctrl-C.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(EXIT_CODE);
        }
        eprintln!(
            "tengen-match: interrupted; the games in progress are not counted (again to quit at once)"
        );
    });
}

/// Whether the run was interrupted.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
