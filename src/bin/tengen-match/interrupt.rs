//! Ctrl-C (SIGINT): the run stops where it is. No new game starts, the games in progress end at
//! once (their engines are killed) and are not counted, and the summary of the finished games
//! is printed as usual. A second Ctrl-C exits at once.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Exit status of an interrupted run (128 + SIGINT, as shells report it).
pub const EXIT_CODE: i32 = 130;

/// Installs the handler (once, at the start of a run), unless SIGINT is ignored: a run started
/// in the background of a script (`cmd &`) or meant to ignore it keeps ignoring it. A failure
/// only loses the summary on Ctrl-C.
pub fn install() {
    if sigint_ignored() {
        return;
    }
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(EXIT_CODE);
        }
        // No panic if stderr is gone too.
        let _ = writeln!(
            std::io::stderr(),
            "tengen-match: interrupted; the games in progress are not counted (again to quit at once)"
        );
    });
}

/// Whether SIGINT (2) is set to be ignored, from the `SigIgn` mask in /proc/self/status (bit
/// `signal - 1`); false where there is no /proc.
fn sigint_ignored() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let mask = s.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(mask.trim(), 16).ok()
        })
        .is_some_and(|mask| mask & (1 << 1) != 0)
}

/// Whether the run was interrupted.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
