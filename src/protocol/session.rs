//! The protocol state machine: board, rule and limits, and the dispatch of every command.
//! Searches run on a worker thread; while one runs, `END`, `STOP`/`YXSTOP` and `INFO` are served
//! at once and every other line waits its turn.

use super::command::{keyword, BlockKind, Command, Parser, Stone};
use super::io::{emit, spawn_reader, Event};
use crate::game::{Board, Color, Rule};
use crate::search::time::{self, TimeLimits};
use crate::search::{Report, SearchLimits, Searcher};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::Instant;

const MB: u64 = 1 << 20;
/// Transposition table when the manager gives no memory limit.
const DEFAULT_TT_BYTES: u64 = 128 * MB;
/// Smallest table sized from the time control.
const MIN_TT_BYTES: u64 = 8 * MB;
/// Largest table the engine allocates from a memory limit.
const MAX_TT_BYTES: u64 = 1024 * MB;
/// Memory the engine needs besides the table: code, pattern tables, boards, stacks.
const ENGINE_OVERHEAD: u64 = 24 * MB;
/// Stack of the search thread (virtual memory; only used pages count).
const SEARCH_STACK: usize = 64 << 20;

/// What the search thread hands back.
pub struct SearchOutcome {
    searcher: Option<Searcher>,
    report: Option<Report>,
}

pub struct Session {
    board: Option<Board>,
    rule: Rule,
    limits: TimeLimits,
    /// Match time used by our own moves, for `timeout_match` without `time_left`.
    used_ms: u64,
    max_memory: u64,
    hash_kb: u64,
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
    eof: bool,
    /// The colour this engine plays, once known (`BEGIN`, `BOARD`, or the first `TURN`):
    /// `TURN` places the other colour.
    engine_colour: Option<Color>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
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
            hash_kb: 0,
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
            eof: false,
            engine_colour: None,
        }
    }

    /// Serves the protocol on stdin/stdout until `END` or the end of input.
    pub fn run(mut self) {
        spawn_reader(self.tx.clone());
        while let Ok(event) = self.rx.recv() {
            match event {
                Event::Line(line, at) => {
                    if self.searching {
                        self.line_while_searching(line, at);
                    } else {
                        self.line(&line, at);
                    }
                }
                Event::Eof => {
                    // The manager is gone: answer what was asked at once, then exit.
                    self.eof = true;
                    self.stop.store(true, Ordering::Relaxed);
                }
                Event::SearchDone(outcome) => {
                    self.finish_search(outcome);
                    while !self.searching {
                        match self.queue.pop_front() {
                            Some((line, at)) => self.line(&line, at),
                            None => break,
                        }
                    }
                }
            }
            if self.eof && !self.searching && self.queue.is_empty() {
                break;
            }
        }
    }

    fn line_while_searching(&mut self, line: Vec<u8>, at: Instant) {
        match keyword(&line).as_str() {
            "END" => std::process::exit(0),
            "STOP" | "YXSTOP" => self.stop.store(true, Ordering::Relaxed),
            "INFO" => self.line(&line, at),
            _ => self.queue.push_back((line, at)),
        }
    }

    fn line(&mut self, line: &[u8], at: Instant) {
        for cmd in self.parser.feed(line) {
            self.execute(cmd, at);
        }
    }

    fn execute(&mut self, cmd: Command, at: Instant) {
        match cmd {
            Command::Start { width, height } => match Board::new(width, height, self.rule) {
                Ok(b) => {
                    self.board = Some(b);
                    self.used_ms = 0;
                    self.engine_colour = None;
                    emit("OK");
                }
                Err(e) => emit(&format!("ERROR {e}")),
            },
            Command::Restart => match &self.board {
                Some(b) => {
                    self.board = Board::new(b.width(), b.height(), self.rule).ok();
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
                self.start_search(at);
            }
            Command::Turn { x, y } => {
                let known = self.engine_colour;
                let Some(board) = self.game_board() else { return };
                let engine = known.unwrap_or(board.side_to_move().other());
                match board.try_play(x, y, engine.other()) {
                    Ok(_) => {
                        board.set_side_to_move(engine);
                        self.engine_colour = Some(engine);
                        self.start_search(at);
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
                        Ok(()) => emit("OK"),
                        Err(e) => emit(&format!("ERROR TAKEBACK {x},{y}: {e}")),
                    },
                }
            }
            Command::Block { kind, stones } => {
                if self.game_board().is_none() {
                    return;
                }
                match kind {
                    BlockKind::Swap2Board => emit("UNKNOWN SWAP2BOARD is not supported"),
                    BlockKind::Board | BlockKind::YxBoard => match self.position_from(&stones) {
                        Ok(b) => {
                            self.engine_colour = Some(b.side_to_move());
                            self.board = Some(b);
                            if kind == BlockKind::Board {
                                self.start_search(at);
                            }
                        }
                        Err(e) => emit(&format!("ERROR {e}")),
                    },
                }
            }
            Command::Info { key, value } => self.info(&key, &value),
            Command::End => std::process::exit(0),
            Command::About => emit(&format!(
                "name=\"Tengen\", version=\"{}\", author=\"Tengen developers\", country=\"International\"",
                env!("CARGO_PKG_VERSION")
            )),
            Command::Stop => {}
            Command::ShowForbid => {
                let Some(board) = self.game_board() else { return };
                let mut line = String::from("FORBID ");
                if board.rule().has_forbidden() {
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
            }
            Command::ShowInfo => {
                emit("MESSAGE INFO MAX_THREAD_NUM 1");
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
            ("TIMEOUT_TURN", Some(n)) if n >= 0 => self.limits.turn_ms = Some(n as u64),
            ("TIMEOUT_MATCH", Some(n)) if n >= 0 => self.limits.match_ms = n as u64,
            ("TIME_LEFT", Some(n)) => self.limits.time_left_ms = Some(n),
            ("MAX_MEMORY", Some(n)) if n >= 0 => self.max_memory = n as u64,
            ("HASH_SIZE", Some(n)) if n >= 0 => self.hash_kb = n as u64,
            ("MAX_DEPTH", Some(n)) => {
                self.max_depth = if n > 0 { n.min(200) as i32 } else { i32::MAX }
            }
            ("MAX_NODE", Some(n)) => self.max_nodes = if n > 0 { n as u64 } else { u64::MAX },
            ("RULE", Some(n)) => {
                if let Some(r) = Rule::from_info(n) {
                    self.rule = r;
                }
            }
            ("FOLDER", _) => self.folder = Some(value.to_vec()),
            // game_type, thread_num and the GUI keys need nothing from this engine yet.
            _ => {}
        }
    }

    /// The table size for the next search, and an error to report when the memory limit is too
    /// small. Without `hash_size` the table is sized to what the time per move can fill (about a
    /// million 16-byte entries per second of search), so short games do not pay for touching
    /// memory they never use, and capped by `max_memory`.
    fn tt_bytes(&self) -> (usize, Option<String>) {
        let want = if self.hash_kb > 0 {
            self.hash_kb.saturating_mul(1024).min(MAX_TT_BYTES)
        } else {
            let turn = self.limits.turn_ms.unwrap_or(time::DEFAULT_TURN_MS);
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

    fn start_search(&mut self, at: Instant) {
        let Some(board) = self.board.as_ref() else {
            return;
        };
        if board.is_full() {
            emit("ERROR the board is full: no move is left");
            return;
        }
        let (tt_bytes, warning) = self.tt_bytes();
        if let Some(w) = warning {
            emit(&format!("ERROR {w}"));
        }
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(tt_bytes));
        searcher.resize_tt(tt_bytes);
        self.stop = searcher.stop_flag();
        // After end of input nobody waits for a deep answer: move at once.
        self.stop.store(self.eof, Ordering::Relaxed);
        let budget = time::budget(&self.limits, self.used_ms);
        let limits = SearchLimits {
            start: at,
            soft: budget.soft,
            hard: budget.hard,
            max_depth: self.max_depth,
            max_nodes: self.max_nodes,
        };
        let board = board.clone();
        let tx = self.tx.clone();
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK)
            .spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                    let report = searcher.think(&board, limits, |_| {});
                    (searcher, report)
                }));
                let outcome = match result {
                    Ok((s, r)) => SearchOutcome {
                        searcher: Some(s),
                        report: Some(r),
                    },
                    Err(_) => SearchOutcome {
                        searcher: None,
                        report: None,
                    },
                };
                let _ = tx.send(Event::SearchDone(outcome));
            });
        match spawned {
            Ok(_) => self.searching = true,
            Err(_) => {
                // No thread: answer with the first legal point rather than nothing.
                self.finish_search(SearchOutcome {
                    searcher: None,
                    report: None,
                });
            }
        }
    }

    fn finish_search(&mut self, outcome: SearchOutcome) {
        self.searching = false;
        self.searcher = outcome.searcher;
        let Some(board) = self.board.as_mut() else {
            return;
        };
        let me = board.side_to_move();
        let best = match &outcome.report {
            Some(r) if !r.best.is_none() && board.is_empty(r.best) => Some(r.best),
            _ => {
                log::error!("search gave no move; falling back to the first legal point");
                let points: Vec<_> = board.cells_iter().filter(|&p| board.is_empty(p)).collect();
                points.into_iter().find(|&p| board.is_legal(p, me))
            }
        };
        let Some(best) = best else {
            emit("ERROR no legal move is left");
            return;
        };
        if let Some(r) = &outcome.report {
            self.used_ms += r.elapsed.as_millis() as u64;
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
