//! The reader thread (bytes from stdin, split into lines on LF, CR LF or CR) and the writer
//! (the only code that prints protocol lines; one flushed line at a time).

use std::io::{Read, Write};
use std::sync::mpsc::Sender;
use std::time::Instant;

/// Longest line kept; longer lines are cut (the rest is dropped up to the line end).
const MAX_LINE: usize = 1 << 20;

/// Something the session loop waits for.
pub enum Event<R> {
    /// A non-empty input line and when it was read (turn time starts there).
    Line(Vec<u8>, Instant),
    /// stdin closed, and when (the grace after it runs from then, not from when the session
    /// got round to the event: starting a search may first allocate its tables).
    Eof(Instant),
    /// A search finished.
    SearchDone(R),
}

/// Reads stdin on its own thread, sending each non-empty line.
pub fn spawn_reader<R: Send + 'static>(tx: Sender<Event<R>>) {
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut buf = [0u8; 1 << 16];
            let mut line = Vec::new();
            loop {
                let n = match stdin.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                for &b in &buf[..n] {
                    if b == b'\n' || b == b'\r' {
                        if line.iter().any(|c: &u8| !c.is_ascii_whitespace())
                            && tx
                                .send(Event::Line(std::mem::take(&mut line), Instant::now()))
                                .is_err()
                        {
                            return;
                        }
                        line.clear();
                    } else if line.len() < MAX_LINE {
                        line.push(b);
                    }
                }
            }
            if line.iter().any(|c| !c.is_ascii_whitespace()) {
                let _ = tx.send(Event::Line(line, Instant::now()));
            }
            let _ = tx.send(Event::Eof(Instant::now()));
        })
        .expect("spawn the stdin reader");
}

/// Prints one protocol line and flushes it. A closed stdout means the manager is gone: exit.
pub fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
        std::process::exit(0);
    }
}
