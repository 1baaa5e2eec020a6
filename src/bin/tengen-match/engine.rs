//! Driving one engine process: spawn, write commands, read replies on a reader thread so a hung
//! engine never blocks the runner, classify what comes back, and shut it down.

use crate::cli::EngineSpec;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Why an engine lost by fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// Reply later than the limit plus tolerance, or no reply at all.
    Timeout,
    /// Process failed to start, exited, closed its output, or (`--strict`) printed something
    /// unreadable.
    Crash,
    /// Off-board or occupied point.
    Illegal,
    /// (`--strict`) `ERROR` or `UNKNOWN` instead of a move, or while not asked to move.
    Error,
}

impl FaultKind {
    pub const ALL: [FaultKind; 4] = [
        FaultKind::Timeout,
        FaultKind::Crash,
        FaultKind::Illegal,
        FaultKind::Error,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Timeout => "timeout",
            FaultKind::Crash => "crash",
            FaultKind::Illegal => "illegal",
            FaultKind::Error => "error",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

#[derive(Clone, Debug)]
pub struct Fault {
    pub kind: FaultKind,
    pub detail: String,
}

impl Fault {
    pub fn new(kind: FaultKind, detail: impl Into<String>) -> Fault {
        Fault {
            kind,
            detail: detail.into(),
        }
    }
}

enum Event {
    Line(Instant, String),
    Eof(Instant),
}

/// A move the engine answered, with the time it took.
#[derive(Clone, Copy, Debug)]
pub struct Reply {
    pub x: i64,
    pub y: i64,
    pub elapsed: Duration,
}

/// Parses `x,y` exactly: two integers around one comma, surrounding blanks allowed.
pub fn parse_move(s: &str) -> Option<(i64, i64)> {
    let (a, b) = s.split_once(',')?;
    let x = a.trim().parse().ok()?;
    let y = b.trim().parse().ok()?;
    Some((x, y))
}

fn starts_with_word_ci(line: &str, word: &str) -> bool {
    line.len() >= word.len()
        && line[..word.len()].eq_ignore_ascii_case(word)
        && line[word.len()..]
            .chars()
            .next()
            .is_none_or(|c| c.is_whitespace())
}

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Event>,
    spawned: Instant,
    eol: &'static str,
    /// Protocol log: `> cmd` / `< reply` with ms since spawn.
    pub transcript: Vec<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    dead: bool,
    /// Whether an `OK` to START is still expected (accepted once while waiting for a move).
    ok_pending: bool,
    /// Protocol deviations that cost nothing (extra OK, UNKNOWN; ERROR and unreadable lines
    /// unless `strict`).
    pub warnings: Vec<String>,
    suspended: bool,
    /// Piskvork's reading: an ERROR, UNKNOWN or unreadable line loses.
    strict: bool,
    /// What the engine had started when it was told to end, with start times (see `finish`).
    tree_at_end: Vec<(u32, u64)>,
}

/// How often a wait for an engine's line looks whether the run was interrupted.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// Warnings kept per engine and game; an engine that floods its output costs no more memory.
const MAX_WARNINGS: usize = 100;

impl Engine {
    pub fn spawn(spec: &EngineSpec, crlf: bool, strict: bool) -> Result<Engine, Fault> {
        // The engine stays in the runner's process group: a Ctrl-C in the terminal reaches it
        // too. What it starts (a wrapper script's engine) is found through /proc instead.
        let mut child = Command::new(&spec.program)
            .args(&spec.args)
            .current_dir(&spec.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                Fault::new(
                    FaultKind::Crash,
                    format!("cannot start {}: {e}", spec.program.display()),
                )
            })?;
        let spawned = Instant::now();
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        thread::Builder::new()
            .name(format!("{}-out", spec.name))
            .spawn(move || {
                let mut r = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match r.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => {
                            let _ = tx.send(Event::Eof(Instant::now()));
                            return;
                        }
                        Ok(_) => {
                            let now = Instant::now();
                            let s = String::from_utf8_lossy(&buf);
                            let s = s.trim_end_matches(['\n', '\r']).to_string();
                            if tx.send(Event::Line(now, s)).is_err() {
                                return;
                            }
                        }
                    }
                }
            })
            .expect("spawn reader thread");
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr_tail.clone();
        thread::Builder::new()
            .name(format!("{}-err", spec.name))
            .spawn(move || {
                let mut r = BufReader::new(stderr);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match r.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {
                            let s = String::from_utf8_lossy(&buf).trim_end().to_string();
                            let mut t = tail.lock().unwrap();
                            t.push_back(s);
                            if t.len() > 20 {
                                t.pop_front();
                            }
                        }
                    }
                }
            })
            .expect("spawn stderr thread");
        Ok(Engine {
            stdin: child.stdin.take(),
            child,
            rx,
            spawned,
            eol: if crlf { "\r\n" } else { "\n" },
            transcript: Vec::new(),
            stderr_tail,
            dead: false,
            ok_pending: false,
            warnings: Vec::new(),
            suspended: false,
            strict,
            tree_at_end: Vec::new(),
        })
    }

    fn stamp(&self, at: Instant) -> u128 {
        at.saturating_duration_since(self.spawned).as_millis()
    }

    fn log(&mut self, dir: char, at: Instant, text: &str) {
        if self.transcript.len() < 20_000 {
            let t = self.stamp(at);
            self.transcript.push(format!("{t:>8} {dir} {text}"));
        }
    }

    /// The last lines the engine wrote to stderr, joined.
    pub fn stderr_tail(&self) -> String {
        let t = self.stderr_tail.lock().unwrap();
        t.iter().cloned().collect::<Vec<_>>().join(" | ")
    }

    /// Writes the lines and flushes; the instant after the flush is returned.
    pub fn send(&mut self, lines: &[String]) -> Result<Instant, Fault> {
        let mut text = String::new();
        for l in lines {
            text.push_str(l);
            text.push_str(self.eol);
        }
        let now = Instant::now();
        for l in lines {
            self.log('>', now, l);
        }
        if l_is_start(lines) {
            self.ok_pending = true;
        }
        let res = match self.stdin.as_mut() {
            Some(w) => w.write_all(text.as_bytes()).and_then(|_| w.flush()),
            None => Err(std::io::Error::other("stdin closed")),
        };
        match res {
            Ok(()) => Ok(Instant::now()),
            Err(e) => Err(self.crash_fault(format!("write failed: {e}"))),
        }
    }

    fn crash_fault(&mut self, what: String) -> Fault {
        // Give the process a moment to be reaped so the exit status can be reported.
        let mut status = None;
        for _ in 0..20 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        let mut d = what;
        if let Some(s) = status {
            d.push_str(&format!(" ({s})"));
            self.dead = true;
        }
        let tail = self.stderr_tail();
        if !tail.is_empty() {
            d.push_str(&format!("; stderr: {tail}"));
        }
        Fault::new(FaultKind::Crash, d)
    }

    /// Next line before `deadline`: `Ok(Some)` a line, `Ok(None)` timeout, `Err` EOF. An
    /// interrupted run (Ctrl-C) kills the engine within [`INTERRUPT_POLL`] and reads as EOF.
    fn next_line(&mut self, deadline: Instant) -> Result<Option<(Instant, String)>, Instant> {
        loop {
            // Also between lines: an engine that keeps talking is stopped too.
            if crate::interrupt::interrupted() {
                self.kill();
                return Err(Instant::now());
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(wait.min(INTERRUPT_POLL)) {
                Ok(Event::Line(at, s)) => {
                    self.log('<', at, &s);
                    return Ok(Some((at, s)));
                }
                Ok(Event::Eof(at)) => {
                    self.log('<', at, "<EOF>");
                    return Err(at);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if Instant::now() >= deadline {
                        return Ok(None);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return Err(Instant::now()),
            }
        }
    }

    /// Waits for the answer to `ABOUT`: the first line that is not MESSAGE/DEBUG.
    pub fn wait_about(&mut self, timeout: Duration) -> Result<String, Fault> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.next_line(deadline) {
                Ok(Some((_, l))) => {
                    let t = l.trim();
                    if t.is_empty()
                        || starts_with_word_ci(t, "MESSAGE")
                        || starts_with_word_ci(t, "DEBUG")
                    {
                        continue;
                    }
                    return Ok(t.to_string());
                }
                Ok(None) => {
                    return Err(Fault::new(
                        FaultKind::Timeout,
                        format!("no answer to ABOUT within {} ms", timeout.as_millis()),
                    ))
                }
                Err(_) => return Err(self.crash_fault("exited before answering ABOUT".into())),
            }
        }
    }

    /// Waits for `OK` after `START`.
    pub fn wait_ok(&mut self, timeout: Duration) -> Result<(), Fault> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.next_line(deadline) {
                Ok(Some((_, l))) => {
                    let t = l.trim();
                    if t.is_empty()
                        || starts_with_word_ci(t, "MESSAGE")
                        || starts_with_word_ci(t, "DEBUG")
                    {
                        continue;
                    }
                    if t == "OK" {
                        self.ok_pending = false;
                        return Ok(());
                    }
                    if starts_with_word_ci(t, "ERROR") || starts_with_word_ci(t, "UNKNOWN") {
                        return Err(Fault::new(
                            FaultKind::Error,
                            format!("answered START with '{t}'"),
                        ));
                    }
                    return Err(self.crash_fault(format!("answered START with '{t}'")));
                }
                Ok(None) => {
                    return Err(Fault::new(
                        FaultKind::Timeout,
                        format!("no OK to START within {} ms", timeout.as_millis()),
                    ))
                }
                Err(_) => return Err(self.crash_fault("exited before answering START".into())),
            }
        }
    }

    /// Waits for the move asked for at `sent`; a reply later than `allowed` (limit plus
    /// tolerance) is a timeout, and with no reply by then the engine is killed.
    pub fn wait_move(&mut self, sent: Instant, allowed: Duration) -> Result<Reply, Fault> {
        let deadline = sent + allowed;
        loop {
            match self.next_line(deadline) {
                Ok(Some((at, l))) => {
                    let t = l.trim();
                    if t.is_empty()
                        || starts_with_word_ci(t, "MESSAGE")
                        || starts_with_word_ci(t, "DEBUG")
                    {
                        continue;
                    }
                    if self.tolerated(t) {
                        continue;
                    }
                    if starts_with_word_ci(t, "ERROR") || starts_with_word_ci(t, "UNKNOWN") {
                        if self.strict {
                            return Err(Fault::new(FaultKind::Error, format!("answered '{t}'")));
                        }
                        self.warn(format!("'{t}' instead of a move"));
                        continue;
                    }
                    if starts_with_word_ci(t, "SUGGEST") {
                        // Gomocup plays the suggestion: PLAY it and read the echoed move.
                        let mv = t[7..].trim().to_string();
                        if parse_move(&mv).is_none() {
                            return Err(self.crash_fault(format!("unreadable output '{t}'")));
                        }
                        self.send(&[format!("PLAY {mv}")])?;
                        continue;
                    }
                    let Some((x, y)) = parse_move(t) else {
                        if self.strict {
                            return Err(self.crash_fault(format!("unreadable output '{t}'")));
                        }
                        self.warn(format!("unreadable '{t}' skipped"));
                        continue;
                    };
                    let elapsed = at.saturating_duration_since(sent);
                    if elapsed > allowed {
                        return Err(Fault::new(
                            FaultKind::Timeout,
                            format!(
                                "replied after {} ms, allowed {} ms",
                                elapsed.as_millis(),
                                allowed.as_millis()
                            ),
                        ));
                    }
                    return Ok(Reply { x, y, elapsed });
                }
                Ok(None) => {
                    self.kill();
                    return Err(Fault::new(
                        FaultKind::Timeout,
                        format!("no reply within {} ms", allowed.as_millis()),
                    ));
                }
                Err(_) => return Err(self.crash_fault("exited / closed its output".into())),
            }
        }
    }

    /// Lines that are not moves but cost nothing: the `OK` to START, and unless `strict` an
    /// extra `OK` or an `UNKNOWN` (noted as warnings; GomocupJudge skips both silently,
    /// Piskvork reads them as the answer to its next command).
    fn tolerated(&mut self, t: &str) -> bool {
        if t == "OK" && self.ok_pending {
            self.ok_pending = false;
            return true;
        }
        if !self.strict && (t == "OK" || starts_with_word_ci(t, "UNKNOWN")) {
            self.warn(format!("'{t}'"));
            return true;
        }
        false
    }

    fn warn(&mut self, w: String) {
        match self.warnings.len() {
            n if n < MAX_WARNINGS - 1 => self.warnings.push(w),
            n if n == MAX_WARNINGS - 1 => self.warnings.push("more warnings not kept".into()),
            _ => {}
        }
    }

    /// Reads what the engine wrote while it was not asked to move. MESSAGE/DEBUG and the OK to
    /// START are accepted; a move is unsolicited output, which a manager would take as the
    /// answer to its next command; other lines are warnings, or faults when `strict`.
    pub fn check_idle(&mut self) -> Result<(), Fault> {
        loop {
            match self.rx.try_recv() {
                Ok(Event::Line(at, l)) => {
                    self.log('<', at, &l);
                    let t = l.trim();
                    if t.is_empty()
                        || starts_with_word_ci(t, "MESSAGE")
                        || starts_with_word_ci(t, "DEBUG")
                        || self.tolerated(t)
                    {
                        continue;
                    }
                    if starts_with_word_ci(t, "ERROR") || starts_with_word_ci(t, "UNKNOWN") {
                        if self.strict {
                            return Err(Fault::new(
                                FaultKind::Error,
                                format!("'{t}' while not asked to move"),
                            ));
                        }
                        self.warn(format!("'{t}' while not asked to move"));
                        continue;
                    }
                    // A move would be read as the answer to the next command; another line
                    // is skipped by GomocupJudge and c-gomoku-cli, not by Piskvork.
                    if self.strict || parse_move(t).is_some() {
                        return Err(self.crash_fault(format!(
                            "unsolicited output '{t}' while not asked to move"
                        )));
                    }
                    self.warn(format!("unreadable '{t}' while not asked to move, skipped"));
                }
                Ok(Event::Eof(at)) => {
                    self.log('<', at, "<EOF>");
                    return Err(self.crash_fault("exited while waiting for its turn".into()));
                }
                Err(_) => return Ok(()),
            }
        }
    }

    /// Stops (`true`) or continues (`false`) the process with SIGSTOP / SIGCONT, as
    /// GomocupJudge suspends engines while the opponent thinks (no pondering).
    pub fn set_suspended(&mut self, stop: bool) {
        if self.dead || self.suspended == stop {
            return;
        }
        let sig = if stop { "STOP" } else { "CONT" };
        // The whole process tree: a wrapper script's engine stops too. Whether it worked is the
        // engine process's own answer; what it started may come and go meanwhile.
        for pid in descendants(self.child.id()) {
            signal(sig, &[pid]);
        }
        if signal(sig, &[self.child.id()]) {
            self.suspended = stop;
        } else if stop {
            self.warnings
                .push("could not suspend (kill -s STOP failed)".into());
        }
    }

    /// Sends `sig` (a `kill -s` name) to the engine process and everything it started.
    fn signal_tree(&self, sig: &str) {
        let mut pids = descendants(self.child.id());
        pids.push(self.child.id());
        signal(sig, &pids);
    }

    pub fn is_alive(&mut self) -> bool {
        if !self.dead && !matches!(self.child.try_wait(), Ok(None)) {
            // Reaped: its pid may be reused and must not be signalled any more.
            self.dead = true;
        }
        !self.dead
    }

    /// Kills the process and everything it started at once, and reaps it.
    pub fn kill(&mut self) {
        if !self.dead {
            // What a wrapper started, then the child itself for sure.
            self.signal_tree("KILL");
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.dead = true;
        }
        self.stdin = None;
    }

    /// Sends `END` and closes stdin, without waiting.
    pub fn send_end(&mut self) {
        self.set_suspended(false);
        if !self.dead {
            // Once the engine exits, what it started is handed to init and cannot be found
            // from it any more: note it now.
            self.tree_at_end = descendants(self.child.id())
                .into_iter()
                .filter_map(|pid| Some((pid, start_time(pid)?)))
                .collect();
        }
        if !self.dead {
            let _ = self.send(&["END".to_string()]);
        }
        self.stdin = None;
    }

    /// Waits until `deadline` for the process to exit, then kills it. Returns whether it exited
    /// by itself.
    pub fn finish(&mut self, deadline: Instant) -> bool {
        if self.dead {
            return true;
        }
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                self.dead = true;
                // Leftovers of a wrapper script (the same process: same pid and start time).
                let left: Vec<u32> = std::mem::take(&mut self.tree_at_end)
                    .into_iter()
                    .filter(|&(pid, start)| start_time(pid) == Some(start))
                    .map(|(pid, _)| pid)
                    .collect();
                signal("KILL", &left);
                return true;
            }
            if Instant::now() >= deadline {
                self.kill();
                return false;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Sends `sig` (a `kill -s` name) to `pids`; whether every one got it.
fn signal(sig: &str, pids: &[u32]) -> bool {
    if pids.is_empty() {
        return true;
    }
    Command::new("kill")
        .args(["-s", sig, "--"])
        .args(pids.iter().map(u32::to_string))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A process's start time (clock ticks since boot, /proc/PID/stat field 22): with the pid it
/// names one process, whose pid may be reused after it is gone.
fn start_time(pid: u32) -> Option<u64> {
    stat_field(pid, 22)
}

/// Field `n` (1-based, as `man proc` counts; `n` >= 3) of /proc/PID/stat. The line is
/// "pid (comm) state ppid ...", and comm may hold spaces and parentheses, so the fields are
/// counted after the last ')'.
fn stat_field<T: std::str::FromStr>(pid: u32, n: usize) -> Option<T> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(n - 3)?.parse().ok()
}

/// The processes below `root` (children, their children, ...), read from /proc; none where
/// there is no /proc.
fn descendants(root: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    // (pid, parent pid) of every process (the parent is field 4 of its stat).
    let links: Vec<(u32, u32)> = dir
        .filter_map(|e| {
            let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            Some((pid, stat_field(pid, 4)?))
        })
        .collect();
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for &(pid, ppid) in &links {
            if ppid == parent && !found.contains(&pid) {
                found.push(pid);
                frontier.push(pid);
            }
        }
    }
    found
}

fn l_is_start(lines: &[String]) -> bool {
    lines
        .iter()
        .any(|l| l.len() >= 5 && l[..5].eq_ignore_ascii_case("START"))
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Ends several engines in parallel: `END` to each, then up to `grace` for all to exit before
/// they are killed.
pub fn end_all(engines: &mut [&mut Engine], grace: Duration) {
    for e in engines.iter_mut() {
        e.send_end();
    }
    let deadline = Instant::now() + grace;
    for e in engines.iter_mut() {
        e.finish(deadline);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_parsing() {
        assert_eq!(parse_move("7,8"), Some((7, 8)));
        assert_eq!(parse_move(" 7 , 8 "), Some((7, 8)));
        assert_eq!(parse_move("-1,3"), Some((-1, 3)));
        assert_eq!(parse_move("7,8,1"), None);
        assert_eq!(parse_move("OK"), None);
        assert_eq!(parse_move("7 8"), None);
    }

    #[test]
    fn word_prefix() {
        assert!(starts_with_word_ci("message hi", "MESSAGE"));
        assert!(starts_with_word_ci("DEBUG", "DEBUG"));
        assert!(!starts_with_word_ci("MESSAGEX", "MESSAGE"));
    }
}
