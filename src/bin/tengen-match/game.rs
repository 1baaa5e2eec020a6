//! One game: start (or restart) the engines, send the position the GomocupJudge way, time and
//! check every reply, and adjudicate with Tengen's own rule code.

use crate::cli::{Config, EngineSpec};
use crate::engine::{end_all, Engine, Fault, FaultKind};
use crate::openings::Opening;
use std::time::{Duration, Instant};
use tengen::game::{Board, Color, Foul};

/// `INFO time_left` when the match time is unlimited.
pub const UNLIMITED: i64 = 2_147_483_647;

#[derive(Clone, Debug)]
pub struct Setup {
    /// Game number, 0-based.
    pub index: usize,
    /// Pair (opening) number, 0-based.
    pub pair: usize,
    pub opening: Opening,
    /// Which engine (0 or 1) plays black.
    pub black: usize,
}

#[derive(Clone, Debug)]
pub enum Reason {
    Five,
    Foul(Foul),
    Fault(Fault),
    FullBoard,
    RenjuDraw,
    DrawAfter(usize),
}

impl Reason {
    pub fn text(&self) -> String {
        match self {
            Reason::Five => "five".into(),
            Reason::Foul(f) => format!("foul ({})", f.name()),
            Reason::Fault(f) => format!("{}: {}", f.kind.name(), f.detail),
            Reason::FullBoard => "draw: board full".into(),
            Reason::RenjuDraw => "draw: 25 empty squares (renju)".into(),
            Reason::DrawAfter(n) => format!("draw: {n} stones (--draw-after)"),
        }
    }

    pub fn short(&self) -> String {
        match self {
            Reason::Five => "five".into(),
            Reason::Foul(f) => format!("foul-{}", f.name()),
            Reason::Fault(f) => f.kind.name().into(),
            Reason::FullBoard => "full-board".into(),
            Reason::RenjuDraw => "renju-25".into(),
            Reason::DrawAfter(_) => "draw-after".into(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct MoveRec {
    pub x: i64,
    pub y: i64,
    pub color: Color,
    /// The engine that played it; `None` for opening stones.
    pub engine: Option<usize>,
    /// Reply time, ms.
    pub ms: f64,
    /// The limit in force (min of turn limit and match time left), ms; `None` if unlimited.
    pub limit_ms: Option<f64>,
    /// Match time left after the move, ms (`None` if unlimited).
    pub left_ms: Option<i64>,
}

#[derive(Clone, Debug)]
pub struct GameResult {
    pub setup: Setup,
    pub moves: Vec<MoveRec>,
    /// Winning engine, `None` for a draw.
    pub winner: Option<usize>,
    pub reason: Reason,
    /// Engine that committed the fault, if the game ended by one.
    pub faulty: Option<usize>,
    pub transcripts: [Vec<String>; 2],
    pub wall: Duration,
    pub final_board: String,
}

impl GameResult {
    /// Result from engine 0's point of view: 1, 0.5 or 0.
    pub fn score0(&self) -> f64 {
        match self.winner {
            Some(0) => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2` in black/white terms.
    pub fn result_bw(&self) -> &'static str {
        match self.winner {
            Some(w) if w == self.setup.black => "1-0",
            Some(_) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// Per-engine state during one game.
struct Side<'a> {
    spec: &'a EngineSpec,
    /// Match time used, ms.
    used_ms: f64,
    moves_made: u32,
    /// Whether this engine has been given the position in this game (BOARD sent).
    started: bool,
}

impl Side<'_> {
    fn left_ms(&self) -> Option<i64> {
        (self.spec.match_ms > 0).then(|| {
            self.spec.match_ms as i64 + (self.spec.inc_ms as i64 * self.moves_made as i64)
                - self.used_ms.round() as i64
        })
    }
}

fn info_lines(cfg: &Config, spec: &EngineSpec) -> Vec<String> {
    let mut v = vec![
        format!("INFO timeout_turn {}", spec.turn_ms),
        format!("INFO timeout_match {}", spec.match_ms),
        format!("INFO max_memory {}", spec.max_memory),
        format!("INFO game_type {}", cfg.game_type),
        format!("INFO rule {}", cfg.rule.info_value()),
    ];
    if let Some(n) = spec.nodes {
        v.push(format!("INFO max_node {n}"));
    }
    if let Some(d) = spec.depth {
        v.push(format!("INFO max_depth {d}"));
    }
    for (k, val) in &spec.options {
        v.push(format!("INFO {k} {val}"));
    }
    v
}

/// Makes sure `slot` holds a running engine that has been told about a new game.
fn prepare(cfg: &Config, spec: &EngineSpec, slot: &mut Option<Engine>) -> Result<(), Fault> {
    let start_timeout = Duration::from_millis(cfg.start_timeout_ms);
    if let Some(e) = slot.as_mut() {
        if !e.is_alive() {
            *slot = None;
        }
    }
    let fresh = slot.is_none();
    if fresh {
        let mut e = Engine::spawn(spec, cfg.crlf)?;
        if cfg.reuse {
            // c-gomoku-cli asks ABOUT right after spawning.
            e.send(&["ABOUT".to_string()])?;
            e.wait_about(start_timeout)?;
        }
        *slot = Some(e);
    }
    let e = slot.as_mut().unwrap();
    let mut lines = vec![format!("START {}", cfg.size)];
    if cfg.reuse || cfg.wait_ok {
        e.send(&lines)?;
        e.wait_ok(start_timeout)?;
        e.send(&info_lines(cfg, spec))?;
    } else {
        // GomocupJudge: START and the INFOs back to back; OK is accepted later.
        lines.extend(info_lines(cfg, spec));
        e.send(&lines)?;
    }
    Ok(())
}

/// Plays one game. `slots` hold the engines (kept across games with `--reuse`).
pub fn play(cfg: &Config, setup: Setup, slots: &mut [Option<Engine>; 2]) -> GameResult {
    let t0 = Instant::now();
    let mut board = Board::new(cfg.size, cfg.size, cfg.rule).expect("size checked");
    let mut moves: Vec<MoveRec> = Vec::new();
    let mut color = Color::Black;
    for &(x, y) in &setup.opening {
        let p = board.pos(x, y).expect("openings are validated");
        board.play(p, color);
        moves.push(MoveRec {
            x,
            y,
            color,
            engine: None,
            ms: 0.0,
            limit_ms: None,
            left_ms: None,
        });
        color = color.other();
    }
    if cfg.show {
        println!("Opening ({} stones):", moves.len());
        print!("{}", board.render());
    }
    let mut sides = [0, 1].map(|i| Side {
        spec: &cfg.engines[i],
        used_ms: 0.0,
        moves_made: 0,
        started: false,
    });
    if !cfg.reuse {
        slots[0] = None;
        slots[1] = None;
    }
    let tolerance = cfg.tolerance_ms as f64;
    let engine_of = |c: Color| {
        if c == Color::Black {
            setup.black
        } else {
            1 - setup.black
        }
    };

    let (winner, reason, faulty): (Option<usize>, Reason, Option<usize>) = 'game: loop {
        // Draw checks before the next move.
        if board.is_full() {
            break (None, Reason::FullBoard, None);
        }
        if cfg.rule.has_forbidden() && board.empty_count() <= 25 {
            break (None, Reason::RenjuDraw, None);
        }
        if let Some(n) = cfg.draw_after {
            if board.stone_count() >= n {
                break (None, Reason::DrawAfter(n), None);
            }
        }
        let me = engine_of(color);
        let other = 1 - me;
        let lose = |f: Fault| (Some(other), Reason::Fault(f), Some(me));

        if !sides[me].started {
            if let Err(f) = prepare(cfg, sides[me].spec, &mut slots[me]) {
                break lose(f);
            }
        }
        let side = &sides[me];
        let left = side.left_ms();
        let mut cmd = vec![format!("INFO time_left {}", left.unwrap_or(UNLIMITED))];
        if !side.started {
            cmd.push("BOARD".into());
            for m in &moves {
                let field = if m.color == color { 1 } else { 2 };
                cmd.push(format!("{},{},{}", m.x, m.y, field));
            }
            cmd.push("DONE".into());
        } else {
            let last = moves.last().expect("the opponent has moved");
            cmd.push(format!("TURN {},{}", last.x, last.y));
        }
        let limit_ms: Option<f64> = match (side.spec.turn_ms, left) {
            (0, None) => None,
            (t, None) => Some(t as f64),
            (0, Some(l)) => Some(l as f64),
            (t, Some(l)) => Some((t as f64).min(l as f64)),
        };
        let allowed = match limit_ms {
            Some(l) => Duration::from_secs_f64(((l + tolerance) / 1000.0).max(0.0)),
            None => Duration::from_millis(cfg.max_wait_ms),
        };
        let engine = slots[me].as_mut().expect("prepared");
        let sent = match engine.send(&cmd) {
            Ok(t) => t,
            Err(f) => break lose(f),
        };
        sides[me].started = true;
        let reply = match engine.wait_move(sent, allowed) {
            Ok(r) => r,
            Err(f) => break lose(f),
        };
        let ms = reply.elapsed.as_secs_f64() * 1000.0;
        sides[me].used_ms += ms;
        sides[me].moves_made += 1;
        let Some(p) = board.pos(reply.x, reply.y) else {
            break lose(Fault::new(
                FaultKind::Illegal,
                format!("{},{} is off the board", reply.x, reply.y),
            ));
        };
        if !board.is_empty(p) {
            break lose(Fault::new(
                FaultKind::Illegal,
                format!("{},{} is occupied", reply.x, reply.y),
            ));
        }
        let wins = board.is_winning_move(p, color);
        let foul = if !wins && color == Color::Black {
            board.foul(p)
        } else {
            None
        };
        board.play(p, color);
        moves.push(MoveRec {
            x: reply.x,
            y: reply.y,
            color,
            engine: Some(me),
            ms,
            limit_ms,
            left_ms: sides[me].left_ms(),
        });
        if cfg.show {
            show_move(cfg, &board, &moves);
        }
        if wins {
            break 'game (Some(me), Reason::Five, None);
        }
        if let Some(f) = foul {
            break (Some(other), Reason::Foul(f), None);
        }
        color = color.other();
    };

    // Shut down: END and up to 1 s to exit, then kill (fresh mode); with --reuse keep healthy
    // engines and drop the faulty one.
    let mut transcripts: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for (i, slot) in slots.iter_mut().enumerate() {
        if let Some(e) = slot.as_mut() {
            transcripts[i] = std::mem::take(&mut e.transcript);
        }
    }
    if cfg.reuse {
        if let Some(f) = faulty {
            if let Some(e) = slots[f].as_mut() {
                e.kill();
            }
            slots[f] = None;
        }
    } else {
        let mut live: Vec<&mut Engine> = slots.iter_mut().filter_map(|s| s.as_mut()).collect();
        end_all(&mut live, Duration::from_secs(1));
        for (i, slot) in slots.iter_mut().enumerate() {
            if let Some(e) = slot.as_mut() {
                transcripts[i].append(&mut e.transcript);
            }
            *slot = None;
        }
    }
    if cfg.show {
        println!("Result: {}", reason.text());
    }
    GameResult {
        setup,
        moves,
        winner,
        reason,
        faulty,
        transcripts,
        wall: t0.elapsed(),
        final_board: board.render(),
    }
}

fn show_move(cfg: &Config, board: &Board, moves: &[MoveRec]) {
    let m = moves.last().unwrap();
    let who = m
        .engine
        .map(|e| cfg.engines[e].name.as_str())
        .unwrap_or("opening");
    println!(
        "\nMove {}: {} {} ({}) {},{}  {:.0} ms",
        moves.len(),
        if m.color == Color::Black {
            "black"
        } else {
            "white"
        },
        who,
        tengen::game::Pos::new(m.x as usize, m.y as usize).to_notation(cfg.size),
        m.x,
        m.y,
        m.ms
    );
    print!("{}", board.render());
    let list: Vec<String> = moves.iter().map(|m| format!("{},{}", m.x, m.y)).collect();
    println!("Moves: {}", list.join(" "));
}
