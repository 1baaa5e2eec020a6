//! The protocol state machine: board, rule and limits, and the dispatch of every command.
//! Searches run on a worker thread; while one runs, `END`, `STOP`/`YXSTOP` and `INFO` are served
//! at once and every other line waits its turn.

use super::command::{keyword, BlockKind, Command, Parser, Stone};
use super::io::{emit, spawn_reader, Event};
use super::job::{self, Action, Job, JobInput, JobOutput, OpeningStep};
use super::level::Level;
use super::yixin::{self, Detail};
use crate::game::{Board, Color, Pos, Rule};
use crate::search::time::{self, TimeLimits};
use crate::search::tt::TranspositionTable;
use crate::search::vct::VctSolver;
use crate::search::{Report, SearchLimits, Searcher};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MB: u64 = 1 << 20;
/// Transposition table when the manager gives no memory limit.
const DEFAULT_TT_BYTES: u64 = 128 * MB;
/// Smallest table sized from the time control.
const MIN_TT_BYTES: u64 = 8 * MB;
/// Largest table the engine allocates from a memory limit.
const MAX_TT_BYTES: u64 = 1024 * MB;
/// Memory the engine needs besides the table: code, pattern tables, boards, stacks.
const ENGINE_OVERHEAD: u64 = 24 * MB;
/// A larger table than the current one is only made as large as this many bytes per ms of the
/// move's hard limit: committing its pages takes about 1 ms per MB on the development machine
/// with both cores busy, so the commit stays within about a seventh of the move.
const TT_BYTES_PER_MS: u64 = 128 * 1024;
/// Stack of the search thread (virtual memory; only used pages count).
const SEARCH_STACK: usize = 64 << 20;
/// After the end of input, how much longer a pending search may run (within its own limits)
/// before it answers: enough for a sound move when a script pipes its commands in and closes
/// stdin, short enough that an engine whose manager died exits at once.
const EOF_GRACE: Duration = Duration::from_millis(500);

/// What the search thread hands back.
pub struct SearchOutcome {
    searcher: Option<Searcher>,
    output: Option<JobOutput>,
}

pub struct Session {
    board: Option<Board>,
    rule: Rule,
    limits: TimeLimits,
    /// Match time used by our own moves, for `timeout_match` without `time_left`.
    used_ms: u64,
    max_memory: u64,
    /// Points the engine must not play (`YXBLOCK`), kept until `YXBLOCKRESET` or a new game.
    blocked: Vec<Pos>,
    /// Lines blocked by `YXBLOCKPATH`: the position before a line's last move (its hash) and
    /// that move, not to be played there. Kept until `YXBLOCKPATHRESET`: Yixin-Board sends
    /// `START` and the position again before each analysis.
    path_blocks: Vec<(u64, Pos)>,
    /// Soosorv step 6: black's fifth-move offers, for the next job.
    offers: Vec<Pos>,
    /// A move found by a Yixin-Board opening step for the position (its hash) the GUI asks
    /// about next: played at once when that `BOARD` comes, as the GUI's clock runs on.
    prepared: Option<(u64, Pos)>,
    /// The `max_memory` value last reported as too small: the report is made once, at the next
    /// move asked for, not before every move (Piskvork scores any non-move line as an error).
    memory_reported: Option<u64>,
    /// An `INFO rule` this engine cannot meet (not a number, negative, or with bits beyond the
    /// protocol's 1, 2, 4 and 8): reported once as a MESSAGE before the next move, since the
    /// manager does not read replies to INFO.
    rule_note: Option<String>,
    hash_kb: u64,
    /// Search threads asked for by `INFO thread_num` (capped by the machine's cores).
    threads: usize,
    max_depth: i32,
    max_nodes: u64,
    folder: Option<Vec<u8>>,
    searcher: Option<Searcher>,
    stop: Arc<AtomicBool>,
    searching: bool,
    parser: Parser,
    queue: VecDeque<(Vec<u8>, Instant)>,
    tx: Sender<Event<SearchOutcome>>,
    rx: Receiver<Event<SearchOutcome>>,
    /// When the end of input came: searches pending then (or started by commands queued before
    /// it) run on within their limits for at most [`EOF_GRACE`], then answer.
    eof_at: Option<Instant>,
    /// The colour this engine plays, once known (`BEGIN`, `BOARD`, or the first `TURN`):
    /// `TURN` places the other colour.
    engine_colour: Option<Color>,
    /// `INFO show_detail`: realtime and detail lines while searching.
    detail: Detail,
    /// `INFO strength` / `--strength`: the playing level.
    level: Level,
    /// Seed of the playing level's random choices (`INFO seed`; from the clock by default).
    seed: u64,
    /// The job the search thread is running.
    job: Job,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether this command line starts a search when it runs.
fn starts_search(line: &[u8]) -> bool {
    matches!(
        keyword(line).as_str(),
        "BEGIN"
            | "TURN"
            | "BOARD"
            | "SWAP2BOARD"
            | "YXNBEST"
            | "YXSEARCHDEFEND"
            | "YXBALANCEONE"
            | "YXBALANCETWO"
    )
}

impl Session {
    pub fn new() -> Session {
        let (tx, rx) = channel();
        let searcher = Searcher::new(64 * 1024);
        Session {
            board: None,
            rule: Rule::Freestyle,
            limits: TimeLimits::default(),
            used_ms: 0,
            max_memory: 0,
            blocked: Vec::new(),
            path_blocks: Vec::new(),
            offers: Vec::new(),
            prepared: None,
            memory_reported: None,
            rule_note: None,
            hash_kb: 0,
            threads: 1,
            max_depth: i32::MAX,
            max_nodes: u64::MAX,
            folder: None,
            stop: searcher.stop_flag(),
            searcher: Some(searcher),
            searching: false,
            parser: Parser::default(),
            queue: VecDeque::new(),
            tx,
            rx,
            eof_at: None,
            engine_colour: None,
            detail: Detail::default(),
            level: Level::FULL,
            seed: clock_seed(),
            job: Job::Move,
        }
    }

    /// A session playing at `strength` (0..100, 100 = full strength) until `INFO strength`.
    pub fn with_strength(strength: i64) -> Session {
        let mut s = Session::new();
        s.level = Level::new(strength);
        s
    }

    /// Serves the protocol on stdin/stdout until `END` or the end of input.
    pub fn run(mut self) {
        // A panic's message would go to stderr, which Piskvork reads as the answer: it goes to
        // the (normally silent) log instead; the search's panics are caught and answered.
        std::panic::set_hook(Box::new(|info| log::error!("{info}")));
        spawn_reader(self.tx.clone());
        loop {
            let event = match self.eof_grace_left() {
                None => match self.rx.recv() {
                    Ok(e) => e,
                    Err(_) => break,
                },
                Some(left) => match self.rx.recv_timeout(left) {
                    Ok(e) => e,
                    Err(RecvTimeoutError::Timeout) => {
                        // The grace is over: the search answers now.
                        self.stop.store(true, Ordering::Relaxed);
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => break,
                },
            };
            match event {
                Event::Line(line, at) => {
                    if self.searching {
                        self.line_while_searching(line, at);
                    } else {
                        self.line(&line, at);
                    }
                }
                Event::Eof(at) => {
                    // No more commands: what was asked is answered (a piped script waits for
                    // it, a manager that died does not, hence the bounded grace), then exit.
                    self.eof_at = Some(at);
                }
                Event::SearchDone(outcome) => {
                    self.finish_search(outcome);
                    while !self.searching {
                        match self.queue.pop_front() {
                            Some((line, at)) => self.line(&line, at),
                            None => break,
                        }
                    }
                    self.replay_stops();
                }
            }
            if self.eof_at.is_some() && !self.searching && self.queue.is_empty() {
                break;
            }
        }
    }

    /// While a search runs after the end of input, the time left of its grace (zero once over);
    /// `None` otherwise (wait for events without a timeout).
    fn eof_grace_left(&self) -> Option<Duration> {
        let at = self.eof_at?;
        if !self.searching || self.stop.load(Ordering::Relaxed) {
            return None;
        }
        Some(EOF_GRACE.saturating_sub(at.elapsed()))
    }

    fn line_while_searching(&mut self, line: Vec<u8>, at: Instant) {
        match keyword(&line).as_str() {
            "END" => yixin::exit_now(),
            // A stop behind a queued command that starts a search is meant for that search;
            // behind queries only (YXSHOWFORBID, ABOUT, ...) it is meant for this one.
            "STOP" | "YXSTOP" if self.queued_search() => self.queue.push_back((line, at)),
            "STOP" | "YXSTOP" => self.stop.store(true, Ordering::Relaxed),
            // A setting applies at once, unless commands sent before it still wait: they must
            // see the settings they were sent under (an `INFO rule` behind a queued
            // YXSHOWFORBID, say).
            "INFO" if self.queue.is_empty() => self.line(&line, at),
            _ => self.queue.push_back((line, at)),
        }
    }

    /// Whether a queued line starts a search once it runs.
    fn queued_search(&self) -> bool {
        self.queue.iter().any(|(line, _)| starts_search(line))
    }

    /// A search has just started from the queue: the stops (and settings) queued right behind
    /// its command arrived after that command, so they apply to it now.
    fn replay_stops(&mut self) {
        while self.searching {
            let Some((line, _)) = self.queue.front() else {
                break;
            };
            match keyword(line).as_str() {
                "STOP" | "YXSTOP" => {
                    self.queue.pop_front();
                    self.stop.store(true, Ordering::Relaxed);
                }
                "INFO" => {
                    let (line, at) = self.queue.pop_front().expect("a front line");
                    self.line(&line, at);
                }
                _ => break,
            }
        }
        // A stop queued behind queries (which wait for this search) but before the next
        // search-starting command is meant for this search too.
        if self.searching {
            let next = self.queue.iter().position(|(line, _)| {
                starts_search(line) || matches!(keyword(line).as_str(), "STOP" | "YXSTOP")
            });
            if let Some(i) = next.filter(|&i| !starts_search(&self.queue[i].0)) {
                self.queue.remove(i);
                self.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    fn line(&mut self, line: &[u8], at: Instant) {
        for cmd in self.parser.feed(line) {
            self.execute(cmd, at);
        }
        // Commands after a block's DONE on the same line come after its search, as if they had
        // come on the next line (ahead of any line already queued, which came later).
        if let Some(rest) = self.parser.take_rest() {
            if self.searching {
                self.queue.push_front((rest.into_bytes(), at));
            } else {
                self.line(rest.as_bytes(), at);
            }
        }
    }

    fn execute(&mut self, cmd: Command, at: Instant) {
        match cmd {
            Command::Start { width, height } => match Board::new(width, height, self.rule) {
                Ok(b) => {
                    self.board = Some(b);
                    self.blocked.clear();
                    self.used_ms = 0;
                    self.engine_colour = None;
                    emit("OK");
                }
                Err(e) => emit(&format!("ERROR {e}")),
            },
            Command::Restart => match &self.board {
                Some(b) => {
                    self.board = Board::new(b.width(), b.height(), self.rule).ok();
                    self.blocked.clear();
                    self.used_ms = 0;
                    self.engine_colour = None;
                    emit("OK");
                }
                None => emit("ERROR no game started: send START first"),
            },
            Command::Begin => {
                let Some(board) = self.game_board() else { return };
                if board.stone_count() > 0 {
                    emit("ERROR BEGIN on a board that is not empty");
                    return;
                }
                self.engine_colour = Some(board.side_to_move());
                self.start_job(Job::Move, at);
            }
            Command::Turn { x, y } => {
                let known = self.engine_colour;
                let Some(board) = self.game_board() else { return };
                let engine = known.unwrap_or(board.side_to_move().other());
                let side_before = board.side_to_move();
                match board.try_play(x, y, engine.other()) {
                    Ok(_) if board.is_full() => {
                        // No reply is possible, so the move is refused whole: an ERROR leaves
                        // the position as it was (a TAKEBACK afterwards must not find it).
                        board.undo();
                        board.set_side_to_move(side_before);
                        emit(&format!(
                            "ERROR TURN {x},{y}: this move fills the board, no move is left"
                        ));
                    }
                    Ok(_) => {
                        board.set_side_to_move(engine);
                        self.engine_colour = Some(engine);
                        self.start_job(Job::Move, at);
                    }
                    Err(e) => emit(&format!("ERROR TURN {x},{y}: {e}")),
                }
            }
            Command::Play { x, y } => {
                let known = self.engine_colour;
                let Some(board) = self.game_board() else { return };
                let side = known.unwrap_or(board.side_to_move());
                match board.try_play(x, y, side) {
                    Ok(p) => emit(&p.to_string()),
                    Err(e) => emit(&format!("ERROR PLAY {x},{y}: {e}")),
                }
            }
            Command::Takeback { x, y } => {
                let Some(board) = self.game_board() else { return };
                match board.pos(x, y) {
                    None => emit(&format!("ERROR TAKEBACK {x},{y}: coordinates outside the board")),
                    Some(p) => match board.remove(p) {
                        Ok(()) => {
                            // The next TURN's stone takes the colour whose move it now is: after
                            // an undo the user may have switched sides (Piskvork sends the move
                            // before the undone ones as a TURN), so the old colour is forgotten.
                            self.engine_colour = None;
                            emit("OK")
                        }
                        Err(e) => emit(&format!("ERROR TAKEBACK {x},{y}: {e}")),
                    },
                }
            }
            Command::Block {
                kind: BlockKind::Database { name, query },
                ..
            } => {
                // No database: a query finds nothing (and says nothing), a change is refused.
                if !query {
                    emit(&format!("ERROR {name}: Tengen keeps no position database"));
                }
            }
            Command::Block { kind, stones } => {
                if self.game_board().is_none() {
                    return;
                }
                match kind {
                    BlockKind::Swap2Board => match self.swap2_position(&stones) {
                        Ok(b) => {
                            self.engine_colour = None;
                            self.board = Some(b);
                            self.start_job(Job::Swap2, at);
                        }
                        Err(e) => emit(&format!("ERROR {e}")),
                    },
                    BlockKind::Soosorv { step, n } => match soosorv_position(self.board.as_ref(), &stones, step, self.rule) {
                        Ok((b, offers)) => {
                            self.engine_colour = None;
                            self.board = Some(b);
                            self.offers = offers;
                            // Timed from now: the GUI does not wait on a search still running
                            // when it begins a step, nor count that search on the step's clock.
                            let step = OpeningStep::Soosorv { step, n };
                            self.start_job(Job::Opening(step), Instant::now());
                        }
                        Err(e) => emit(&format!("ERROR YXSOOSORVSTEP{step}: {e}")),
                    },
                    BlockKind::YxBlock | BlockKind::YxBlockUndo => {
                        self.update_blocked(kind == BlockKind::YxBlock, &stones)
                    }
                    BlockKind::YxBlockPath | BlockKind::YxBlockPathUndo => {
                        self.update_path_blocks(kind == BlockKind::YxBlockPath, &stones)
                    }
                    // Answered above, with or without a game.
                    BlockKind::Database { .. } => {}
                    BlockKind::Board | BlockKind::YxBoard => match self.position_from(&stones) {
                        Ok(b) if kind == BlockKind::Board && b.is_full() => {
                            // Refused whole, like any ERROR: the previous position stays.
                            emit("ERROR BOARD: the board is full, no move is left");
                        }
                        Ok(b) => {
                            self.engine_colour = Some(b.side_to_move());
                            let ready = self.prepared.take().filter(|&(hash, p)| {
                                kind == BlockKind::Board
                                    && hash == b.hash()
                                    && b.clone().is_legal(p, b.side_to_move())
                            });
                            self.board = Some(b);
                            match ready {
                                Some((_, p)) => self.play_move(Some(p), None),
                                None if kind == BlockKind::Board => self.start_job(Job::Move, at),
                                None => {}
                            }
                        }
                        Err(e) => emit(&format!("ERROR {e}")),
                    },
                }
            }
            Command::Swap2Step(step) => self.opening_step(OpeningStep::Swap2(step)),
            Command::SoosorvOpening => {
                self.opening_step(OpeningStep::Soosorv { step: 1, n: 0 })
            }
            Command::NBest(n) => self.analyse(Job::NBest(n), at),
            Command::SearchDefend => self.analyse(Job::Defend, at),
            Command::Balance { two, bias } => self.analyse(Job::Balance { two, bias }, at),
            Command::Info { key, value } => self.info(&key, &value),
            Command::End => yixin::exit_now(),
            Command::About => emit(&format!(
                "name=\"Tengen\", version=\"{}\", author=\"Tengen developers\", country=\"International\"",
                env!("CARGO_PKG_VERSION")
            )),
            Command::Stop => {}
            Command::BlockPathReset => self.path_blocks.clear(),
            Command::BlockReset => {
                if self.game_board().is_some() {
                    self.blocked.clear();
                }
            }
            Command::ShowForbid => {
                let Some(board) = self.game_board() else { return };
                let mut line = String::from("FORBID ");
                // Only black has forbidden points, so only black to move gets a list (as Rapfi).
                if board.rule().has_forbidden() && board.side_to_move() == Color::Black {
                    let points: Vec<_> = board.cells_iter().filter(|&p| board.is_empty(p)).collect();
                    for p in points {
                        if board.foul(p).is_some() {
                            line.push_str(&format!("{:02}{:02}", p.x(), p.y()));
                        }
                    }
                }
                line.push('.');
                emit(&line);
            }
            Command::HashClear => {
                if let Some(s) = self.searcher.as_mut() {
                    s.clear_tt();
                }
                emit("MESSAGE Hash table cleared.");
            }
            Command::HashUsage => {
                let (permille, bytes) = self
                    .searcher
                    .as_ref()
                    .map_or((0, 0), |s| (s.tt_usage_permille(), s.tt_bytes()));
                if bytes == 0 {
                    emit("MESSAGE Hash usage 0.0% (no table before the first search)");
                } else {
                    emit(&format!(
                        "MESSAGE Hash usage {}.{}% of {} MB",
                        permille / 10,
                        permille % 10,
                        bytes >> 20
                    ));
                }
            }
            Command::ShowInfo => {
                // Yixin-Board's start-up query: its clock needs a second of each turn left.
                self.limits.whole_second_clock = true;
                emit(&format!("MESSAGE Tengen {}", env!("CARGO_PKG_VERSION")));
                emit(&format!("MESSAGE INFO MAX_THREAD_NUM {}", max_threads()));
                emit(&format!("MESSAGE INFO MAX_HASH_SIZE {}", (MAX_TT_BYTES / 1024).ilog2()));
            }
            Command::Invalid(e) => emit(&format!("ERROR {e}")),
            Command::Unknown(text) => emit(&format!("UNKNOWN command '{text}'")),
        }
    }

    /// The board of the current game with the current rule, or an `ERROR` before `START`.
    fn game_board(&mut self) -> Option<&mut Board> {
        let rule = self.rule;
        match self.board.as_mut() {
            None => {
                emit("ERROR no game started: send START first");
                None
            }
            Some(b) => {
                if b.rule() != rule {
                    *b = b.with_rule(rule);
                }
                Some(b)
            }
        }
    }

    /// `YXSWAP2STEP1..3`, `YXSOOSORVSTEP1`: step 1 starts from an empty board of the game's
    /// size (Yixin-Board sends nothing before it); Swap2 steps 2 and 3 answer for the position
    /// `YXBOARD` set, which must hold the 3 or 5 opening stones.
    fn opening_step(&mut self, step: OpeningStep) {
        let rule = self.rule;
        let Some(board) = self.game_board() else {
            return;
        };
        let needed = match step {
            OpeningStep::Swap2(2) => 3,
            OpeningStep::Swap2(3) => 5,
            _ => {
                match Board::new(board.width(), board.height(), rule) {
                    Ok(b) => *board = b,
                    Err(e) => return emit(&format!("ERROR {e}")),
                }
                0
            }
        };
        if board.stone_count() != needed {
            let OpeningStep::Swap2(k) = step else { return };
            emit(&format!(
                "ERROR YXSWAP2STEP{k} needs a position of {needed} stones (set by YXBOARD), not {}",
                board.stone_count()
            ));
            return;
        }
        self.engine_colour = None;
        // Timed from now (see the Soosorv block): a step queued behind a search keeps its time.
        self.start_job(Job::Opening(step), Instant::now());
    }

    /// `YXNBEST`, `YXSEARCHDEFEND`, `YXBALANCE*` on the current position (set by `YXBOARD`):
    /// the engine answers for the side to move, as if it were its turn.
    fn analyse(&mut self, job: Job, at: Instant) {
        let Some(board) = self.game_board() else {
            return;
        };
        if matches!(job, Job::Balance { two: true, .. }) && board.empty_count() < 2 {
            emit("ERROR YXBALANCETWO needs two empty points");
            return;
        }
        self.engine_colour = Some(board.side_to_move());
        self.start_job(job, at);
    }

    /// The position of a `SWAP2BOARD` block: 0, 3 or 5 stones in the order played (black first,
    /// then alternating), as `x,y` or `x,y,field` (the field is not needed and not checked
    /// beyond being 1 or 2).
    fn swap2_position(&self, stones: &[Stone]) -> Result<Board, String> {
        let old = self.board.as_ref().ok_or("no game started")?;
        if ![0, 3, 5].contains(&stones.len()) {
            return Err(format!(
                "SWAP2BOARD needs 0, 3 or 5 stones, got {}",
                stones.len()
            ));
        }
        let mut b = Board::new(old.width(), old.height(), self.rule).map_err(|e| e.to_string())?;
        for s in stones {
            let p = b
                .pos(s.x, s.y)
                .ok_or_else(|| format!("stone {},{} is outside the board", s.x, s.y))?;
            if !b.is_empty(p) {
                return Err(format!("stone {},{} is given twice", s.x, s.y));
            }
            if let Some(f) = s.field.filter(|f| !(1..=2).contains(f)) {
                return Err(format!(
                    "stone {},{} has field {f}, expected 1 or 2",
                    s.x, s.y
                ));
            }
            let c = b.side_to_move();
            b.play(p, c);
        }
        Ok(b)
    }

    /// Builds the position of a `BOARD`/`YXBOARD` block: field 1 is the side to move, 2 the
    /// opponent, 3 a stone of nobody. Stones are placed in the order given.
    fn position_from(&self, stones: &[Stone]) -> Result<Board, String> {
        let old = self.board.as_ref().ok_or("no game started")?;
        let mut b = Board::new(old.width(), old.height(), self.rule).map_err(|e| e.to_string())?;
        let own = stones.iter().filter(|s| s.field == Some(1)).count();
        let opp = stones.iter().filter(|s| s.field == Some(2)).count();
        // Black moves when the counts are equal; white moves when black has one stone more.
        let own_colour = if opp == own + 1 {
            Color::White
        } else {
            Color::Black
        };
        for s in stones {
            let p = b
                .pos(s.x, s.y)
                .ok_or_else(|| format!("stone {},{} is outside the board", s.x, s.y))?;
            if !b.is_empty(p) {
                return Err(format!("stone {},{} is given twice", s.x, s.y));
            }
            match s.field {
                Some(1) => b.play(p, own_colour),
                Some(2) => b.play(p, own_colour.other()),
                Some(3) => b.place_wall(p),
                Some(f) => {
                    return Err(format!(
                        "stone {},{} has field {f}, expected 1, 2 or 3",
                        s.x, s.y
                    ))
                }
                None => {
                    return Err(format!(
                        "stone {},{} has no field (x,y,field expected)",
                        s.x, s.y
                    ))
                }
            }
        }
        b.set_side_to_move(own_colour);
        Ok(b)
    }

    fn info(&mut self, key: &str, value: &[u8]) {
        let text = String::from_utf8_lossy(value);
        let num = text
            .split_ascii_whitespace()
            .next()
            .and_then(|t| t.parse::<i64>().ok());
        match (key, num) {
            // Negative limits mean none only together: Gomoku Calculator's unlimited thinking
            // sends -1 for both (and a meaningless `time_left 1`); the search then runs until it
            // is stopped. A negative turn limit alone leaves the last one in force.
            ("TIMEOUT_TURN", Some(n)) => {
                self.limits.turn_unlimited = n < 0;
                if n >= 0 {
                    self.limits.turn_ms = Some(n as u64);
                }
            }
            ("TIMEOUT_MATCH", Some(n)) => {
                self.limits.match_ms = n.max(0) as u64;
                self.limits.match_unlimited = n < 0;
            }
            ("TIME_LEFT", Some(n)) => self.limits.time_left_ms = Some(n),
            ("MAX_MEMORY", Some(n)) if n >= 0 => self.max_memory = n as u64,
            ("HASH_SIZE", Some(n)) if n >= 0 => self.hash_kb = n as u64,
            ("MAX_DEPTH", Some(n)) => {
                self.max_depth = if n > 0 { n.min(200) as i32 } else { i32::MAX }
            }
            ("MAX_NODE", Some(n)) => self.max_nodes = if n > 0 { n as u64 } else { u64::MAX },
            ("RULE", Some(n)) => match Rule::from_info(n) {
                Some(r) => {
                    self.rule = r;
                    self.rule_note = (n >= 16).then(|| {
                        format!(
                            "INFO rule {n}: bits {} are unknown; playing {}",
                            n & !15,
                            r.name()
                        )
                    });
                }
                None => self.rule_note = Some(self.rule_not_taken(&text)),
            },
            ("RULE", None) => self.rule_note = Some(self.rule_not_taken(&text)),
            ("FOLDER", _) => self.folder = Some(value.to_vec()),
            ("SHOW_DETAIL", Some(n)) => self.detail = Detail::from_info(n),
            ("STRENGTH", Some(n)) => self.level = Level::new(n),
            ("SEED", Some(n)) => self.seed = n as u64,
            ("THREAD_NUM", Some(n)) => self.threads = (n.max(1) as usize).min(max_threads()),
            // game_type, pondering (none: Gomocup forbids it),
            // caution_factor, time_increment (time_left already counts it) and the other GUI
            // keys need nothing from this engine.
            _ => {}
        }
    }

    fn rule_not_taken(&self, text: &str) -> String {
        format!(
            "INFO rule '{}' is not a rule value; still playing {}",
            text.trim(),
            self.rule.name()
        )
    }

    /// The table size for the next search, and an error to report when the memory limit is too
    /// small. Without `hash_size` the table is sized to what the time per move can fill (about a
    /// million 16-byte entries per second of search), so short games do not pay for touching
    /// memory they never use, and capped by `max_memory`.
    fn tt_bytes(&self) -> (usize, Option<String>) {
        let want = if self.hash_kb > 0 {
            self.hash_kb.saturating_mul(1024).min(MAX_TT_BYTES)
        } else {
            let turn = self.limits.turn_limit_ms();
            let per_move = match self.limits.match_ms {
                0 => turn,
                m => turn.min(m / 10),
            };
            let by_time = per_move
                .saturating_mul(16 * 1024)
                .clamp(MIN_TT_BYTES, MAX_TT_BYTES);
            // With no memory limit at all, stay modest.
            if self.max_memory == 0 {
                by_time.min(DEFAULT_TT_BYTES)
            } else {
                by_time
            }
        };
        if self.max_memory == 0 {
            return (want as usize, None);
        }
        let budget = self.max_memory.saturating_sub(ENGINE_OVERHEAD);
        if budget < MB {
            let msg = format!(
                "max_memory {} is too small: this engine needs about {} bytes; playing with minimal memory",
                self.max_memory,
                ENGINE_OVERHEAD + MB
            );
            return (64 * 1024, Some(msg));
        }
        (want.min(budget) as usize, None)
    }

    /// `YXBLOCK` (`add`) or `YXBLOCKUNDO`: points on the board only, silently, as Rapfi; a point
    /// off the board gets `ERROR` and the block changes nothing.
    fn update_blocked(&mut self, add: bool, stones: &[Stone]) {
        let Some(board) = self.board.as_ref() else {
            return;
        };
        let mut points = Vec::with_capacity(stones.len());
        for s in stones {
            match (s.field, board.pos(s.x, s.y)) {
                (None, Some(p)) => points.push(p),
                _ => {
                    emit(&format!(
                        "ERROR {}: {},{} is not a point of the board",
                        if add { "YXBLOCK" } else { "YXBLOCKUNDO" },
                        s.x,
                        s.y
                    ));
                    return;
                }
            }
        }
        for p in points {
            if add && !self.blocked.contains(&p) {
                self.blocked.push(p);
            } else if !add {
                self.blocked.retain(|&q| q != p);
            }
        }
    }

    /// `YXBLOCKPATH` (`add`) or `YXBLOCKPATHUNDO`: a line of moves from the empty board, black
    /// first, whose last move is blocked in the position before it (only there: the search
    /// leaves it out of the root moves when that position is the one to move in). A line that
    /// is not one of the board's (off the board, a point twice) gets `ERROR` and changes
    /// nothing; before `START` the block is ignored, as `YXBLOCK` is.
    fn update_path_blocks(&mut self, add: bool, stones: &[Stone]) {
        let Some(board) = self.board.as_ref() else {
            return;
        };
        let name = if add {
            "YXBLOCKPATH"
        } else {
            "YXBLOCKPATHUNDO"
        };
        let Some((last, line)) = stones.split_last() else {
            return;
        };
        let mut before = match Board::new(board.width(), board.height(), self.rule) {
            Ok(b) => b,
            Err(e) => return emit(&format!("ERROR {name}: {e}")),
        };
        let free_point = |b: &Board, s: &Stone| match (s.field, b.pos(s.x, s.y)) {
            (None, Some(p)) if b.is_empty(p) => Ok(p),
            _ => Err(format!(
                "ERROR {name}: {},{} is not a free point of the board on this line",
                s.x, s.y
            )),
        };
        let mut colour = Color::Black;
        for s in line {
            match free_point(&before, s) {
                Ok(p) => before.play(p, colour),
                Err(e) => return emit(&e),
            }
            colour = colour.other();
        }
        let entry = match free_point(&before, last) {
            Ok(p) => (before.hash(), p),
            Err(e) => return emit(&e),
        };
        if add && !self.path_blocks.contains(&entry) {
            self.path_blocks.push(entry);
        } else if !add {
            self.path_blocks.retain(|&e| e != entry);
        }
    }

    /// The points the engine must not play on `board`: `YXBLOCK`'s, and the blocked lines'
    /// last moves from this position.
    fn blocked_on(&self, board: &Board) -> Vec<Pos> {
        let mut blocked = self.blocked.clone();
        let here = board.hash();
        for &(_, p) in self.path_blocks.iter().filter(|e| e.0 == here) {
            if !blocked.contains(&p) {
                blocked.push(p);
            }
        }
        blocked
    }

    fn start_job(&mut self, job: Job, at: Instant) {
        self.prepared = None;
        let Some(board) = self.board.as_ref() else {
            return;
        };
        if board.is_full() {
            emit("ERROR the board is full: no move is left");
            return;
        }
        let budget = time::budget(&self.limits, self.used_ms);
        let (wanted, warning) = self.tt_bytes();
        let current = self.searcher.as_ref().map_or(0, Searcher::tt_bytes);
        let tt_bytes = affordable_tt_bytes(wanted, current, budget.hard);
        if let Some(note) = self.rule_note.take() {
            emit(&format!("MESSAGE {note}"));
        }
        if let Some(w) = warning {
            if self.memory_reported != Some(self.max_memory) {
                self.memory_reported = Some(self.max_memory);
                // A MESSAGE, not an ERROR: Piskvork reads an ERROR before the move as the answer
                // and fails the engine; every manager shows or logs a MESSAGE.
                emit(&format!("MESSAGE {w}"));
            }
        }
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(tt_bytes));
        searcher.resize_tt(tt_bytes);
        searcher.set_threads(self.threads);
        searcher.set_root_vct(
            self.max_memory == 0
                || (tt_bytes + VctSolver::COMPACT_BYTES) as u64 + ENGINE_OVERHEAD
                    <= self.max_memory,
        );
        self.stop = searcher.stop_flag();
        // After the end of input's grace nobody waits for a deep answer: move at once.
        let grace_over = self.eof_at.is_some_and(|at| at.elapsed() >= EOF_GRACE);
        self.stop.store(grace_over, Ordering::Relaxed);
        let limits = SearchLimits {
            start: at,
            soft: budget.soft,
            hard: budget.hard,
            max_depth: self.max_depth,
            max_nodes: self.max_nodes,
        };
        let input = JobInput {
            job,
            board: board.clone(),
            limits,
            detail: self.detail,
            level: self.level,
            seed: self.seed ^ board.hash().rotate_left(17) ^ board.stone_count() as u64,
            stop: self.stop.clone(),
            blocked: self.blocked_on(board),
            offers: std::mem::take(&mut self.offers),
        };
        self.job = job;
        let tx = self.tx.clone();
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK)
            .spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                    let output = job::run(&mut searcher, input);
                    (searcher, output)
                }));
                let outcome = match result {
                    Ok((s, o)) => SearchOutcome {
                        searcher: Some(s),
                        output: Some(o),
                    },
                    Err(_) => SearchOutcome {
                        searcher: None,
                        output: None,
                    },
                };
                let _ = tx.send(Event::SearchDone(outcome));
            });
        match spawned {
            Ok(_) => self.searching = true,
            Err(_) => {
                // No thread: answer with a fallback move rather than nothing.
                self.finish_search(SearchOutcome {
                    searcher: None,
                    output: None,
                });
            }
        }
    }

    fn finish_search(&mut self, outcome: SearchOutcome) {
        self.searching = false;
        self.searcher = outcome.searcher;
        let Some(board) = self.board.as_ref() else {
            return;
        };
        let me = board.side_to_move();
        let (action, report) = match outcome.output {
            Some(o) => {
                // Plus the reply's overhead outside the search, which the manager's clock sees too.
                self.used_ms += o.elapsed.as_millis() as u64 + time::MOVE_OVERHEAD_MS;
                (Some(o.action), o.report)
            }
            None => (None, None),
        };
        match action {
            Some(Action::Swap) => {
                // Swap2: we take the colour that is not to move; the opponent moves next.
                self.engine_colour = Some(me.other());
                emit("SWAP");
            }
            Some(Action::Opening(stones)) if stones_fit(board, &stones) => {
                let b = job::after(board, &stones);
                self.board = Some(b);
                // The opponent chooses the colours.
                self.engine_colour = None;
                emit(&yixin::moves_text(&stones));
            }
            Some(Action::Moves(stones)) if stones_fit(board, &stones) => {
                let b = job::after(board, &stones);
                self.board = Some(b);
                // After a Swap2 4th and 5th stone the opponent chooses; after YXBALANCETWO the
                // side to move is the engine's again.
                self.engine_colour = (self.job != Job::Swap2).then_some(me);
                emit(&yixin::moves_text(&stones));
            }
            Some(Action::Say {
                lines,
                stones,
                engine,
                reply,
            }) if stones.is_empty() || stones_fit(board, &stones) => {
                let b = job::after(board, &stones);
                self.prepared = reply.map(|p| (b.hash(), p));
                self.board = Some(b);
                self.engine_colour = engine;
                for line in &lines {
                    emit(line);
                }
            }
            Some(Action::Say { .. }) => emit("ERROR the opening step found no legal answer"),
            Some(Action::Move(p)) => {
                if self.job != Job::Move {
                    self.engine_colour = Some(me);
                }
                self.play_move(Some(p), report.as_ref());
            }
            _ => self.play_move(None, None),
        }
    }

    /// Prints the summary line of `report` and `best` (or, if `best` is not a legal move, a
    /// fallback: see below), and plays it.
    fn play_move(&mut self, best: Option<Pos>, report: Option<&Report>) {
        let Some(board) = self.board.as_mut() else {
            return;
        };
        let me = board.side_to_move();
        let best = match best {
            Some(p) if !p.is_none() && board.is_legal(p, me) => Some(p),
            _ => {
                // Only a debug log: under Piskvork stderr is the same pipe as stdout.
                log::debug!("search gave no move; playing a fallback move");
                Some(job::fallback_move(board)).filter(|p| !p.is_none())
            }
        };
        let Some(best) = best else {
            emit("ERROR no legal move is left");
            return;
        };
        if let Some(r) = report {
            let pv: Vec<String> = if r.pv.first() == Some(&best) {
                r.pv.iter().map(|p| p.to_string()).collect()
            } else {
                vec![best.to_string()]
            };
            emit(&format!(
                "MESSAGE depth {} ev {} n {} n/s {} tm {} pv {}",
                r.depth,
                r.score_text(),
                r.nodes,
                r.nps(),
                r.elapsed.as_millis(),
                pv.join(" ")
            ));
        }
        board.play(best, me);
        emit(&best.to_string());
    }
}

/// The position of a `YXSOOSORVSTEPk` block: its moves in the order played (black first), as
/// many as the step needs (3 for steps 2 and 3, 4 for steps 4 and 5); for step 6, the 4 moves
/// and then black's fifth-move offers (returned apart, the position keeps 4 stones).
fn soosorv_position(
    game: Option<&Board>,
    stones: &[Stone],
    step: u8,
    rule: Rule,
) -> Result<(Board, Vec<Pos>), String> {
    let game = game.ok_or("no game started")?;
    let mut b = Board::new(game.width(), game.height(), rule).map_err(|e| e.to_string())?;
    let moves = match step {
        2 | 3 => 3,
        _ => 4,
    };
    let fits = if step == 6 {
        stones.len() > moves
    } else {
        stones.len() == moves
    };
    if !fits {
        return Err(if step == 6 {
            format!(
                "4 moves and at least one offer expected, got {} moves",
                stones.len()
            )
        } else {
            format!("{moves} moves expected, got {}", stones.len())
        });
    }
    let mut offers = Vec::new();
    for (i, s) in stones.iter().enumerate() {
        let p = b
            .pos(s.x, s.y)
            .filter(|&p| b.is_empty(p) && !offers.contains(&p))
            .ok_or_else(|| format!("{},{} is not a free point of the board", s.x, s.y))?;
        if i < moves {
            let c = b.side_to_move();
            b.play(p, c);
        } else {
            offers.push(p);
        }
    }
    Ok((b, offers))
}

/// Whether `stones`, played alternately from the side to move, are all on empty points and
/// legal (renju fouls) — a last check before they are printed.
fn stones_fit(board: &Board, stones: &[Pos]) -> bool {
    let mut b = board.clone();
    for &p in stones {
        let c = b.side_to_move();
        if p.is_none() || !b.is_legal(p, c) {
            return false;
        }
        b.play(p, c);
    }
    !stones.is_empty()
}

/// A seed for the playing level that differs from run to run.
fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ ((std::process::id() as u64) << 32)
}

/// Threads worth running: the machine's cores, at most the search's limit.
fn max_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(crate::search::MAX_THREADS)
}

/// The table size for a move: `wanted`, except that a table larger than the `current` one
/// (0: none yet) grows only as far as the move's hard limit pays for committing it, so that a
/// first move on a nearly empty clock (a restart late in a match) is not lost to allocation; a
/// later move with more time grows it.
fn affordable_tt_bytes(wanted: usize, current: usize, hard: Duration) -> usize {
    if TranspositionTable::rounded_bytes(wanted) <= current {
        return wanted;
    }
    let affordable = (hard.as_millis() as u64).saturating_mul(TT_BYTES_PER_MS);
    wanted.min((affordable as usize).max(current))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = MB as usize;

    #[test]
    fn a_table_of_the_wanted_size_is_kept_whatever_the_clock() {
        // 350 MB less the overhead is no power of two; the table made from it is 256 MB.
        let wanted = (367_001_600 - ENGINE_OVERHEAD) as usize;
        let made = TranspositionTable::rounded_bytes(wanted);
        assert_eq!(made, 256 * MIB);
        for hard in [1, 6, 27_000] {
            let bytes = affordable_tt_bytes(wanted, made, Duration::from_millis(hard));
            assert_eq!(TranspositionTable::rounded_bytes(bytes), made);
        }
    }

    #[test]
    fn a_short_move_grows_the_table_only_as_far_as_it_pays_for() {
        let wanted = 256 * MIB;
        // First move with 6 ms: a small table, not the 256 MB one.
        let first = affordable_tt_bytes(wanted, 0, Duration::from_millis(6));
        assert!(first <= 6 * TT_BYTES_PER_MS as usize, "{first}");
        // A current table is never shrunk for lack of time.
        let current = 8 * MIB;
        assert_eq!(
            affordable_tt_bytes(wanted, current, Duration::from_millis(6)),
            current
        );
        // Enough time: the wanted size.
        assert_eq!(
            affordable_tt_bytes(wanted, current, Duration::from_secs(27)),
            wanted
        );
        // A smaller wanted size (max_memory lowered) shrinks it at once.
        assert_eq!(
            affordable_tt_bytes(MIB, current, Duration::from_millis(6)),
            MIB
        );
    }
}
