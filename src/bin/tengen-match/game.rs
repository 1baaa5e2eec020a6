//! One game: start (or restart) the engines, send the position the GomocupJudge way, time and
//! check every reply, and adjudicate with Tengen's own rule code.

use crate::cli::{Config, EngineSpec};
use crate::engine::{end_all, Engine, Fault, FaultKind};
use crate::openings::Opening;
use std::time::{Duration, Instant};
use tengen::game::{Board, Color, Foul, Pos};

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
    /// Harmless protocol deviations per engine.
    pub warnings: [Vec<String>; 2],
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

/// What a legal (on-board, empty) move does under the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    /// It makes a winning line (for renju black: an exact five, which is never a foul).
    Win,
    /// A renju foul by black: black loses.
    Foul(Foul),
}

/// Judges a move of `color` on the empty point `p`, before it is played: five first, then the
/// renju foul check for black, as the referees do.
pub fn judge(board: &mut Board, p: Pos, color: Color) -> Verdict {
    if board.is_winning_move(p, color) {
        return Verdict::Win;
    }
    if color == Color::Black {
        if let Some(f) = board.foul(p) {
            return Verdict::Foul(f);
        }
    }
    Verdict::Continue
}

/// Whether the game is drawn before the next move: full board, the renju 25-empty-squares rule
/// (GomocupJudge), or `--draw-after` stones on the board.
pub fn draw(board: &Board, draw_after: Option<usize>) -> Option<Reason> {
    if board.is_full() {
        return Some(Reason::FullBoard);
    }
    if board.rule().has_forbidden() && board.empty_count() <= 25 {
        return Some(Reason::RenjuDraw);
    }
    match draw_after {
        Some(n) if board.stone_count() >= n => Some(Reason::DrawAfter(n)),
        _ => None,
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
    let mut v = Vec::new();
    // No turn limit: no timeout_turn at all (`timeout_turn 0` asks for an instant move).
    if spec.turn_ms > 0 {
        v.push(format!("INFO timeout_turn {}", spec.turn_ms));
    }
    v.extend([
        format!("INFO timeout_match {}", spec.match_ms),
        format!("INFO max_memory {}", spec.max_memory),
        format!("INFO game_type {}", cfg.game_type),
        format!("INFO rule {}", cfg.rule.info_value()),
    ]);
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
        let mut e = Engine::spawn(spec, cfg.crlf, cfg.strict)?;
        if cfg.reuse {
            // c-gomoku-cli asks ABOUT right after spawning.
            e.send(&["ABOUT".to_string()])?;
            e.wait_about(start_timeout)?;
        }
        *slot = Some(e);
    }
    let e = slot.as_mut().unwrap();
    e.set_suspended(false);
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
    if cfg.suspend {
        e.set_suspended(true);
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
        if let Some(r) = draw(&board, cfg.draw_after) {
            break (None, r, None);
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
        if let Err(f) = engine.check_idle() {
            break lose(f);
        }
        engine.set_suspended(false);
        let sent = match engine.send(&cmd) {
            Ok(t) => t,
            Err(f) => break lose(f),
        };
        sides[me].started = true;
        let reply = match engine.wait_move(sent, allowed) {
            Ok(r) => r,
            Err(f) => break lose(f),
        };
        if cfg.suspend {
            engine.set_suspended(true);
        }
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
        let verdict = judge(&mut board, p, color);
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
        match verdict {
            Verdict::Win => break 'game (Some(me), Reason::Five, None),
            Verdict::Foul(f) => break (Some(other), Reason::Foul(f), None),
            Verdict::Continue => {}
        }
        color = color.other();
    };

    // Shut down: END and up to 1 s to exit, then kill (fresh mode); with --reuse keep healthy
    // engines and drop the faulty one.
    let mut transcripts: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut warnings: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for (i, slot) in slots.iter_mut().enumerate() {
        if let Some(e) = slot.as_mut() {
            e.set_suspended(false);
            // The opponent's last move may still be answered by stray output: note it.
            if faulty.is_none() {
                if let Err(f) = e.check_idle() {
                    e.warnings.push(format!("after the game: {}", f.detail));
                }
            }
            transcripts[i] = std::mem::take(&mut e.transcript);
            warnings[i] = std::mem::take(&mut e.warnings);
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
        warnings,
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
        Pos::new(m.x as usize, m.y as usize).to_notation(cfg.size),
        m.x,
        m.y,
        m.ms
    );
    print!("{}", board.render());
    let list: Vec<String> = moves.iter().map(|m| format!("{},{}", m.x, m.y)).collect();
    println!("Moves: {}", list.join(" "));
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen::game::Rule;

    /// A board with black stones `b` and white stones `w` (black's placed first, no win checks).
    fn board(rule: Rule, b: &[(usize, usize)], w: &[(usize, usize)]) -> Board {
        let mut bd = Board::new(15, 15, rule).unwrap();
        for &(x, y) in b {
            bd.play(Pos::new(x, y), Color::Black);
        }
        for &(x, y) in w {
            bd.play(Pos::new(x, y), Color::White);
        }
        bd
    }

    fn j(
        rule: Rule,
        b: &[(usize, usize)],
        w: &[(usize, usize)],
        p: (usize, usize),
        c: Color,
    ) -> Verdict {
        let mut bd = board(rule, b, w);
        judge(&mut bd, Pos::new(p.0, p.1), c)
    }

    const CARO9: Rule = Rule::Caro {
        overline_wins: false,
    };
    const CARO8: Rule = Rule::Caro {
        overline_wins: true,
    };
    // Row 7: stones at x = 3..=6 and 8, so x = 7 makes six in a row.
    const SIX: &[(usize, usize)] = &[(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)];
    const FOUR: &[(usize, usize)] = &[(3, 7), (4, 7), (5, 7), (6, 7)];

    #[test]
    fn five_and_overline_by_rule() {
        use Color::*;
        let far = &[(0, 0), (0, 2), (0, 4), (0, 6), (0, 8)];
        assert_eq!(j(Rule::Freestyle, FOUR, far, (7, 7), Black), Verdict::Win);
        assert_eq!(j(Rule::Freestyle, SIX, far, (7, 7), Black), Verdict::Win);
        assert_eq!(j(Rule::Standard, FOUR, far, (7, 7), Black), Verdict::Win);
        assert_eq!(
            j(Rule::Standard, SIX, far, (7, 7), Black),
            Verdict::Continue
        );
        assert_eq!(
            j(Rule::Standard, far, SIX, (7, 7), White),
            Verdict::Continue
        );
        assert_eq!(j(Rule::Renju, FOUR, far, (7, 7), Black), Verdict::Win);
        assert_eq!(
            j(Rule::Renju, SIX, far, (7, 7), Black),
            Verdict::Foul(Foul::Overline)
        );
        assert_eq!(j(Rule::Renju, far, SIX, (7, 7), White), Verdict::Win);
        assert_eq!(j(Rule::Renju, far, FOUR, (7, 7), White), Verdict::Win);
        assert_eq!(j(CARO9, FOUR, far, (7, 7), Black), Verdict::Win);
        assert_eq!(j(CARO9, SIX, far, (7, 7), Black), Verdict::Continue);
        assert_eq!(j(CARO8, SIX, far, (7, 7), Black), Verdict::Win);
    }

    #[test]
    fn caro_blocked_five() {
        use Color::*;
        // White at x = 2 and x = 8 blocks both ends of black's x = 3..=7.
        let both = &[(2, 7), (8, 7), (0, 0), (0, 2)];
        let one = &[(2, 7), (0, 0), (0, 2), (0, 4)];
        for rule in [CARO9, CARO8] {
            assert_eq!(j(rule, FOUR, both, (7, 7), Black), Verdict::Continue);
            assert_eq!(j(rule, FOUR, one, (7, 7), Black), Verdict::Win);
        }
        // The board edge is not a block: x = 0..=4 with white at x = 5 wins.
        let edge = &[(0, 3), (1, 3), (2, 3), (3, 3)];
        assert_eq!(
            j(
                CARO9,
                edge,
                &[(5, 3), (9, 9), (9, 11), (9, 13)],
                (4, 3),
                Black
            ),
            Verdict::Win
        );
        // Freestyle ignores blocks.
        assert_eq!(j(Rule::Freestyle, FOUR, both, (7, 7), Black), Verdict::Win);
    }

    #[test]
    fn renju_fouls_for_black_only() {
        use Color::*;
        let far = &[(0, 0), (0, 2), (0, 4), (14, 14)];
        // Double three at (7,7): open twos (5,7),(6,7) and (7,5),(7,6).
        let b = &[(5, 7), (6, 7), (7, 5), (7, 6)];
        assert_eq!(
            j(Rule::Renju, b, far, (7, 7), Black),
            Verdict::Foul(Foul::DoubleThree)
        );
        assert_eq!(j(Rule::Freestyle, b, far, (7, 7), Black), Verdict::Continue);
        assert_eq!(j(Rule::Renju, far, b, (7, 7), White), Verdict::Continue);
        // Double four at (7,7): (4,7),(5,7),(6,7) and (7,4),(7,5),(7,6).
        let b = &[(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)];
        assert_eq!(
            j(Rule::Renju, b, far, (7, 7), Black),
            Verdict::Foul(Foul::DoubleFour)
        );
        // A five wins even if the move also makes a four elsewhere.
        let b = &[(3, 7), (4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)];
        assert_eq!(j(Rule::Renju, b, far, (7, 7), Black), Verdict::Win);
    }

    #[test]
    fn draws() {
        let b = Board::new(15, 15, Rule::Freestyle).unwrap();
        assert!(draw(&b, None).is_none());
        let mut b = Board::new(5, 5, Rule::Renju).unwrap();
        assert!(matches!(draw(&b, None), Some(Reason::RenjuDraw)));
        let mut f = Board::new(5, 5, Rule::Freestyle).unwrap();
        assert!(draw(&f, Some(1)).is_none());
        f.play(Pos::new(0, 0), Color::Black);
        assert!(matches!(draw(&f, Some(1)), Some(Reason::DrawAfter(1))));
        for y in 0..5 {
            for x in 0..5 {
                let p = Pos::new(x, y);
                if f.is_empty(p) {
                    f.play(
                        p,
                        if (x + y) % 2 == 0 {
                            Color::Black
                        } else {
                            Color::White
                        },
                    );
                }
                let q = Pos::new(4 - x, 4 - y);
                if b.is_empty(q) {
                    b.play(q, Color::White);
                }
            }
        }
        assert!(matches!(draw(&f, None), Some(Reason::FullBoard)));
        // A 15x15 renju board: 200 stones leave 25 empty squares.
        let mut r = Board::new(15, 15, Rule::Renju).unwrap();
        for p in r.cells_iter().take(199).collect::<Vec<_>>() {
            r.play(p, Color::White);
        }
        assert!(draw(&r, None).is_none());
        let p = r.cells_iter().find(|&p| r.is_empty(p)).unwrap();
        r.play(p, Color::White);
        assert!(matches!(draw(&r, None), Some(Reason::RenjuDraw)));
    }
}
