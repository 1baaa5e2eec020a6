//! Swap2 (`SWAP2BOARD … DONE`, protocol.md §2.2). The stones come in the order played (black,
//! white, black, …), so with 3 or 5 stones white is to move.
//!
//! * 0 stones: three opening stones (black, white, black) near the centre, chosen among the
//!   direct and indirect three-stone shapes as the most balanced by a search (the side to move
//!   after them should not care which colour it gets), with a seeded pick among the equally
//!   balanced ones and a seeded board symmetry for variety.
//! * 3 stones: a search for white. Clearly worse for white: `SWAP` (we take black). Clearly
//!   better: play white's 4th stone. In between: look for a 4th and 5th stone that keep the
//!   position balanced and hand the choice back (`x,y x,y`); if none is found, the better side.
//! * 5 stones: a search for white; `SWAP` (take black) when white is worse, else white's 6th
//!   stone.

use super::job::{after, balance_pairs, fallback_move, rank, steady_value, Action, Cand, Clock};
use super::level::random_below;
use super::yixin::{moves_text, numbered_moves, say, Reporter};
use crate::game::{Board, Color, Pos};
use crate::search::{score_text, Report, Searcher};

/// Within this evaluation of 0 the position counts as balanced.
pub const BALANCED: i32 = 20;

/// The Swap2 answer for the position of a `SWAP2BOARD` block.
pub fn decide(
    searcher: &mut Searcher,
    board: &Board,
    clock: &mut Clock,
    seed: u64,
    rep: &mut Reporter,
) -> (Action, Option<Report>) {
    match board.stone_count() {
        0 => (opening(searcher, board, clock, seed, rep), None),
        3 => choose(searcher, board, clock, true, rep),
        _ => choose(searcher, board, clock, false, rep),
    }
}

/// Yixin-Board's Swap2 steps (`YXSWAP2STEP1..3`): the same decisions as `SWAP2BOARD`, told in
/// the GUI's words (`MESSAGE SWAP2 …`, coordinates `x y`).
///
/// * Step 1 (empty board): `MOVE1..3`, the three opening stones.
/// * Step 2 (3 stones, the engine is the second player): `SWAP1 YES` takes black, `SWAP1 NO`
///   stays white (the GUI then asks for white's move with `BOARD`), or `MOVE4`, `MOVE5` adds two.
/// * Step 3 (5 stones, the engine is the first player): `SWAP2 YES` keeps black (the opponent's
///   sixth move comes as `TURN`), `SWAP2 NO` takes white (the GUI then sends `BOARD`).
pub fn yixin_step(
    searcher: &mut Searcher,
    board: &Board,
    step: u8,
    clock: &mut Clock,
    seed: u64,
    rep: &mut Reporter,
) -> Action {
    let (action, _) = decide(searcher, board, clock, seed, rep);
    let placed = |stones: Vec<Pos>| Action::Say {
        lines: numbered_moves("SWAP2", board.stone_count() + 1, &stones),
        stones,
        engine: None,
        reply: None,
    };
    let answer = |text: &str, engine: Color, reply: Option<Pos>| Action::Say {
        lines: vec![format!("MESSAGE SWAP2 {text}")],
        stones: Vec::new(),
        engine: Some(engine),
        reply,
    };
    let swap = if step == 2 { "SWAP1" } else { "SWAP2" };
    match action {
        Action::Opening(stones) | Action::Moves(stones) => placed(stones),
        // Either step: the engine takes black.
        Action::Swap => answer(&format!("{swap} YES"), Color::Black, None),
        // White's move is known already; the GUI asks for it at once, on the same turn.
        Action::Move(p) => answer(&format!("{swap} NO"), Color::White, Some(p)),
        _ => answer(&format!("{swap} NO"), Color::White, None),
    }
}

/// The eight symmetries of a square board (four of a rectangular one).
pub fn transform(p: Pos, t: u64, w: usize, h: usize) -> Pos {
    let (mut x, mut y) = (p.x(), p.y());
    if t & 4 != 0 && w == h {
        std::mem::swap(&mut x, &mut y);
    }
    if t & 1 != 0 {
        x = w - 1 - x;
    }
    if t & 2 != 0 {
        y = h - 1 - y;
    }
    Pos::new(x, y)
}

/// The three-stone shapes around the centre: black in the centre, white next to it straight
/// (direct) or diagonally (indirect), or one point further, black's second stone within four
/// points of the centre (on one side: the other side is nearly a mirror image). With two black
/// stones against one, the compact shapes favour black by this engine's evaluation; the
/// balanced ones have black's stones further apart.
pub fn opening_shapes(board: &Board) -> Vec<Cand> {
    let (w, h) = (board.width() as i64, board.height() as i64);
    let (cx, cy) = (w / 2, h / 2);
    let at = |x: i64, y: i64| board.pos(x, y);
    let mut out = Vec::new();
    for (ox, oy) in [(0, -1), (1, -1), (0, -2), (2, -2)] {
        for dy in -4..=4i64 {
            for dx in 0..=4i64 {
                if (dx, dy) == (0, 0) || (dx, dy) == (ox, oy) {
                    continue;
                }
                if let (Some(a), Some(b), Some(c)) =
                    (at(cx, cy), at(cx + ox, cy + oy), at(cx + dx, cy + dy))
                {
                    out.push(Cand::new(vec![a, b, c]));
                }
            }
        }
    }
    out
}

fn opening(
    searcher: &mut Searcher,
    board: &Board,
    clock: &mut Clock,
    seed: u64,
    rep: &mut Reporter,
) -> Action {
    let stones = balanced_opening(searcher, board, opening_shapes(board), clock, seed, rep);
    let (w, h) = (board.width(), board.height());
    let t = random_below(seed ^ 0x5A5A, 8);
    Action::Opening(stones.iter().map(|&p| transform(p, t, w, h)).collect())
}

/// Among `shapes` (three stones each, black, white, black on an empty board), a most balanced
/// one by a search, picked by `seed` among the closest few.
pub fn balanced_opening(
    searcher: &mut Searcher,
    board: &Board,
    shapes: Vec<Cand>,
    clock: &mut Clock,
    seed: u64,
    rep: &mut Reporter,
) -> Vec<Pos> {
    rep.root_lines = false;
    let ranked = rank(searcher, board, shapes, 0, clock, 6, rep);
    let (w, h) = (board.width(), board.height());
    match ranked.first() {
        Some(best) => {
            let limit = best.distance(0) + 10;
            let close: Vec<&Cand> = ranked
                .iter()
                .take(4)
                .filter(|c| c.distance(0) <= limit)
                .collect();
            let pick = close[random_below(seed, close.len() as u64) as usize];
            say(&format!(
                "MESSAGE opening depth {} ev {} for black",
                pick.depth,
                score_text(pick.balanced_value()),
            ));
            pick.moves.clone()
        }
        None => {
            // No search finished: a plain indirect opening.
            let c = Pos::new(w / 2, h / 2);
            let b = Pos::new(w / 2 + 1, h / 2 - 1);
            let d = Pos::new(w / 2 + 1, h / 2 + 1);
            vec![c, b, d]
        }
    }
}

/// White to move after 3 (`three`) or 5 stones: swap, move, or (3 stones) put two more.
pub fn choose(
    searcher: &mut Searcher,
    board: &Board,
    clock: &mut Clock,
    three: bool,
    rep: &mut Reporter,
) -> (Action, Option<Report>) {
    let limits = clock.share(if three { 0.5 } else { 1.0 });
    rep.scores.clear();
    let r = searcher.think_with(board, limits, &[], rep);
    clock.account(&r);
    // The mean of the last two depths (see `Cand::balanced_value`).
    let s = match rep.scores.len() {
        n if n >= 2 && rep.scores[n - 1] == r.score => {
            steady_value(r.score, Some(rep.scores[n - 2]))
        }
        _ => r.score,
    };
    let best = if r.best.is_none() {
        fallback_move(board)
    } else {
        r.best
    };
    let decision = |swap: bool| {
        say(&format!(
            "MESSAGE swap2 {} stones: white {} at depth {}: {}",
            board.stone_count(),
            score_text(s),
            r.depth,
            if swap { "swap" } else { "play white" }
        ));
        if swap {
            (Action::Swap, None)
        } else {
            (Action::Move(best), Some(r.clone()))
        }
    };
    if !three || s.abs() > BALANCED {
        return decision(s < 0);
    }
    // Balanced for white: try to give the choice back with two balanced stones.
    rep.root_lines = false;
    let pairs = balance_pairs(board, 12, 8);
    let ranked = rank(searcher, board, pairs, 0, clock, 4, rep);
    match ranked.first() {
        Some(c) if c.distance(0) <= BALANCED as i64 && c.depth > 0 => {
            let b = after(board, &c.moves);
            debug_assert_eq!(b.stone_count(), 5);
            say(&format!(
                "MESSAGE swap2 3 stones: white {} at depth {}; two stones {} leave {} at depth {}",
                score_text(s),
                r.depth,
                moves_text(&c.moves),
                score_text(c.balanced_value()),
                c.depth
            ));
            (Action::Moves(c.moves.clone()), None)
        }
        _ => decision(s < 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rule;
    use crate::protocol::yixin::Detail;
    use std::time::Instant;

    fn clock(ms: u64) -> Clock {
        Clock::for_tests(ms)
    }

    #[test]
    fn shapes_are_distinct_on_board_points() {
        for (w, h) in [(15, 15), (20, 20), (5, 5), (6, 9)] {
            let b = Board::new(w, h, Rule::Freestyle).unwrap();
            let shapes = opening_shapes(&b);
            let full = if w >= 9 && h >= 9 { 4 * 43 } else { 12 };
            assert!(shapes.len() >= full, "{w}x{h}: {}", shapes.len());
            for s in &shapes {
                let mut m = s.moves.clone();
                m.sort();
                m.dedup();
                assert_eq!(m.len(), 3);
            }
            for t in 0..8 {
                let p = transform(Pos::new(0, 1), t, w, h);
                assert!(p.x() < w && p.y() < h);
            }
        }
    }

    #[test]
    fn every_case_answers_with_legal_distinct_empty_points() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            let mut searcher = Searcher::new(1 << 20);
            let mut rep = Reporter::new(Detail::default(), Instant::now());
            let empty = Board::new(15, 15, rule).unwrap();
            let (a, _) = decide(&mut searcher, &empty, &mut clock(300), 1, &mut rep);
            let Action::Opening(stones) = a else {
                panic!("{a:?}")
            };
            assert_eq!(stones.len(), 3);
            let b3 = after(&empty, &stones);
            assert_eq!(b3.stone_count(), 3);
            let (a, _) = decide(&mut searcher, &b3, &mut clock(300), 2, &mut rep);
            match &a {
                Action::Swap => {}
                Action::Move(p) => assert!(b3.is_empty(*p)),
                Action::Moves(v) => {
                    assert_eq!(v.len(), 2);
                    let mut b = b3.clone();
                    for &p in v {
                        let c = b.side_to_move();
                        assert!(b.is_legal(p, c));
                        b.play(p, c);
                    }
                }
                other => panic!("{other:?}"),
            }
            let mut b5 = after(&b3, &[Pos::new(3, 3), Pos::new(11, 11)]);
            let (a, _) = decide(&mut searcher, &b5, &mut clock(300), 3, &mut rep);
            match a {
                Action::Swap => {}
                Action::Move(p) => assert!(b5.is_legal(p, b5.side_to_move())),
                other => panic!("{other:?}"),
            }
        }
    }
}
