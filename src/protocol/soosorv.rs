//! The Soosorv opening as Yixin-Board runs it (`YXSOOSORVSTEP1..6`, renju). Black puts three
//! stones in the centre (the first on the centre point, the second within one point of it, the
//! third within two); white may swap; white plays the fourth stone and says how many fifth moves
//! black must offer (N); black may swap; black offers N fifth moves, no two alike by a symmetry
//! of the position; white keeps one of them. The answers are `MESSAGE SOOSORV …` lines with
//! coordinates `x y`.
//!
//! * Step 1 (empty board): `MOVE1..3`, a balanced three-stone opening inside the centre area.
//! * Step 2 (3 stones, the engine is white): `SWAP1 YES` takes black when white is worse.
//! * Step 3 (3 stones, the engine is white): `MOVE4 x y N`, white's best fourth stone and the N
//!   that leaves black's N-th best offer closest to even (the opponent may still swap).
//! * Step 4 (4 stones, the engine is black, N given): `SWAP2 YES` takes white when black's
//!   N-th best fifth move is worse for black.
//! * Step 5 (4 stones, the engine is black): `MOVE5 REFRESH`, the N best distinct fifth moves
//!   as `MOVE5 x y`, then `MOVE5 DONE`.
//! * Step 6 (4 stones and black's offers, the engine is white): `MOVE5C x y`, the offer that is
//!   best for white.

use super::job::{after, multipv, rank, root_moves, Action, Cand, Clock};
use super::swap2::{self, transform};
use super::yixin::{moves_text, numbered_moves, say, Reporter};
use crate::game::{Board, Color, Pos};
use crate::search::{score_text, Searcher, WIN};

/// The most offers Yixin-Board asks for; step 3 picks its N in `1..=MAX_N`.
const MAX_N: usize = 8;

#[allow(clippy::too_many_arguments)]
pub fn step(
    searcher: &mut Searcher,
    board: &Board,
    step: u8,
    n: usize,
    offers: &[Pos],
    clock: &mut Clock,
    seed: u64,
    rep: &mut Reporter,
) -> Action {
    match step {
        1 => {
            let stones = opening(searcher, board, clock, seed, rep);
            placed(board, stones, None, Some(Color::Black))
        }
        2 => {
            let swap = matches!(
                swap2::choose(searcher, board, clock, false, rep).0,
                Action::Swap
            );
            let (text, engine) = if swap {
                ("SWAP1 YES", Color::Black)
            } else {
                ("SWAP1 NO", Color::White)
            };
            answer(text, engine)
        }
        3 => fourth_move(searcher, board, clock, rep),
        4 => {
            let values = offer_values(searcher, board, clock, n, rep);
            let value = values.get(n - 1).or(values.last()).map_or(0, |v| v.1);
            say(&format!(
                "MESSAGE soosorv: black's offer {n} is worth {} for black",
                score_text(value)
            ));
            if value < 0 {
                answer("SWAP2 YES", Color::White)
            } else {
                answer("SWAP2 NO", Color::Black)
            }
        }
        5 => {
            let values = offer_values(searcher, board, clock, n, rep);
            let mut lines = vec!["MESSAGE SOOSORV MOVE5 REFRESH".to_string()];
            lines.extend(
                values
                    .iter()
                    .take(n)
                    .map(|(p, _)| format!("MESSAGE SOOSORV MOVE5 {} {}", p.x(), p.y())),
            );
            lines.push("MESSAGE SOOSORV MOVE5 DONE".to_string());
            Action::Say {
                lines,
                stones: Vec::new(),
                engine: Some(Color::Black),
                reply: None,
            }
        }
        _ => keep_offer(searcher, board, offers, clock, rep),
    }
}

fn answer(text: &str, engine: Color) -> Action {
    Action::Say {
        lines: vec![format!("MESSAGE SOOSORV {text}")],
        stones: Vec::new(),
        engine: Some(engine),
        reply: None,
    }
}

/// `MOVEk x y` lines for `stones`, numbered from the board's stone count; `suffix` ends the last.
fn placed(board: &Board, stones: Vec<Pos>, suffix: Option<usize>, engine: Option<Color>) -> Action {
    let mut lines = numbered_moves("SOOSORV", board.stone_count() + 1, &stones);
    if let (Some(n), Some(last)) = (suffix, lines.last_mut()) {
        last.push_str(&format!(" {n}"));
    }
    Action::Say {
        lines,
        stones,
        engine,
        reply: None,
    }
}

/// The three-stone shapes the Soosorv rule allows around the centre.
pub fn opening_shapes(board: &Board) -> Vec<Cand> {
    let (w, h) = (board.width() as i64, board.height() as i64);
    let (cx, cy) = (w / 2, h / 2);
    swap2::opening_shapes(board)
        .into_iter()
        .filter(|c| {
            let near =
                |p: Pos, d: i64| (p.x() as i64 - cx).abs() <= d && (p.y() as i64 - cy).abs() <= d;
            near(c.moves[0], 0) && near(c.moves[1], 1) && near(c.moves[2], 2)
        })
        .collect()
}

fn opening(
    searcher: &mut Searcher,
    board: &Board,
    clock: &mut Clock,
    seed: u64,
    rep: &mut Reporter,
) -> Vec<Pos> {
    let stones = swap2::balanced_opening(searcher, board, opening_shapes(board), clock, seed, rep);
    let (w, h) = (board.width(), board.height());
    // A symmetry for variety, only where it keeps the centre point (odd sides).
    let t = if w % 2 == 1 && h % 2 == 1 {
        crate::protocol::level::random_below(seed ^ 0x5A5A, 8)
    } else {
        0
    };
    stones.iter().map(|&p| transform(p, t, w, h)).collect()
}

/// A symmetry of a position: a turn or reflection of the plane (`t`: bit 4 swaps x and y, bit
/// 1 negates x, bit 2 negates y) followed by a shift, mapping its stones onto themselves with
/// their colours. The centre need not be the board's: two fifth moves alike by the shape of
/// the stones are alike for the rule, wherever the shape stands.
#[derive(Clone, Copy, Debug)]
struct Symmetry {
    t: u8,
    dx: i64,
    dy: i64,
}

impl Symmetry {
    fn linear(t: u8, p: Pos) -> (i64, i64) {
        let (mut x, mut y) = (p.x() as i64, p.y() as i64);
        if t & 4 != 0 {
            std::mem::swap(&mut x, &mut y);
        }
        if t & 1 != 0 {
            x = -x;
        }
        if t & 2 != 0 {
            y = -y;
        }
        (x, y)
    }

    /// The image of `p`, when it is on `board`.
    fn apply(&self, board: &Board, p: Pos) -> Option<Pos> {
        let (x, y) = Self::linear(self.t, p);
        board.pos(x + self.dx, y + self.dy)
    }
}

/// The symmetries (other than the identity) of the position on `board`.
fn symmetries(board: &Board) -> Vec<Symmetry> {
    let stones: Vec<Pos> = board.history().iter().map(|&(p, _)| p).collect();
    if stones.is_empty() {
        return Vec::new();
    }
    let min_of = |v: &[(i64, i64)]| {
        (
            v.iter().map(|q| q.0).min().unwrap_or(0),
            v.iter().map(|q| q.1).min().unwrap_or(0),
        )
    };
    let own: Vec<(i64, i64)> = stones
        .iter()
        .map(|p| (p.x() as i64, p.y() as i64))
        .collect();
    let (mx, my) = min_of(&own);
    (1..8u8)
        .filter_map(|t| {
            let image: Vec<(i64, i64)> = stones.iter().map(|&p| Symmetry::linear(t, p)).collect();
            let (ix, iy) = min_of(&image);
            let s = Symmetry {
                t,
                dx: mx - ix,
                dy: my - iy,
            };
            let keeps = stones.iter().all(|&p| {
                s.apply(board, p)
                    .is_some_and(|q| board.cell(q) == board.cell(p))
            });
            keeps.then_some(s)
        })
        .collect()
}

/// Whether `p` is the image of `q` under one of `syms`.
fn twins(board: &Board, syms: &[Symmetry], p: Pos, q: Pos) -> bool {
    syms.iter().any(|s| s.apply(board, p) == Some(q))
}

/// Black's best fifth moves on a 4-stone `board` (black to move), no two alike by a symmetry of
/// the position, with their values for black, best first: at least `want` when there are.
fn offer_values(
    searcher: &mut Searcher,
    board: &Board,
    clock: &mut Clock,
    want: usize,
    rep: &mut Reporter,
) -> Vec<(Pos, i32)> {
    let syms = symmetries(board);
    // Symmetric twins take lines of their own: ask for more than wanted.
    let width = if syms.is_empty() { want } else { want * 2 + 2 };
    let max_depth = clock.max_depth;
    let mp = multipv(searcher, board, clock, width, false, max_depth, rep);
    let mut out: Vec<(Pos, i32)> = Vec::new();
    let add = |p: Pos, score: i32, out: &mut Vec<(Pos, i32)>| {
        if !out
            .iter()
            .any(|&(q, _)| q == p || twins(board, &syms, p, q))
        {
            out.push((p, score));
        }
    };
    for l in &mp.lines {
        add(l.mv, l.score, &mut out);
    }
    if out.len() < want {
        // A search cut short (YXSTOP, a node limit) still owes the rule its number of offers:
        // the rest come in the move generator's order, unsearched.
        let (moves, _) = root_moves(board);
        let mut b = board.clone();
        for p in moves {
            if out.len() >= want {
                break;
            }
            if b.is_legal(p, Color::Black) {
                add(p, 0, &mut out);
            }
        }
    }
    out
}

/// Step 3: white's fourth stone, then the N whose offer leaves black closest to even.
fn fourth_move(
    searcher: &mut Searcher,
    board: &Board,
    clock: &mut Clock,
    rep: &mut Reporter,
) -> Action {
    let limits = clock.share(0.4);
    let r = searcher.think_with(board, limits, &[], rep);
    clock.account(&r);
    let fourth = if r.best.is_none() {
        super::job::fallback_move(board)
    } else {
        r.best
    };
    let b4 = after(board, &[fourth]);
    let values = offer_values(searcher, &b4, clock, MAX_N, rep);
    let n = (1..=MAX_N.min(values.len()))
        .min_by_key(|&k| (values[k - 1].1 as i64).abs())
        .unwrap_or(2);
    say(&format!(
        "MESSAGE soosorv: fourth stone {fourth}, {n} offers (black's offers worth {})",
        values
            .iter()
            .map(|v| score_text(v.1))
            .collect::<Vec<_>>()
            .join(" ")
    ));
    placed(board, vec![fourth], Some(n), Some(Color::White))
}

/// Step 6: of black's offers, the one after which black is worst off.
fn keep_offer(
    searcher: &mut Searcher,
    board: &Board,
    offers: &[Pos],
    clock: &mut Clock,
    rep: &mut Reporter,
) -> Action {
    rep.root_lines = false;
    let pool: Vec<Cand> = offers.iter().map(|&p| Cand::new(vec![p])).collect();
    // Closest to a black loss first: the offer worst for black.
    // All offers stay in every pass (at most a few): they are compared as deep as time allows.
    let ranked = rank(searcher, board, pool, -WIN, clock, offers.len(), rep);
    let keep = ranked
        .first()
        .map(|c| c.moves[0])
        .or(offers.first().copied())
        .unwrap_or(Pos::NONE);
    if let Some(c) = ranked.first() {
        say(&format!(
            "MESSAGE soosorv: of {} white keeps {} worth {} for black at depth {}",
            moves_text(offers),
            keep,
            score_text(c.balanced_value()),
            c.depth
        ));
    }
    Action::Say {
        lines: vec![format!("MESSAGE SOOSORV MOVE5C {} {}", keep.x(), keep.y())],
        stones: vec![keep],
        engine: Some(Color::White),
        reply: None,
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

    fn run(board: &Board, k: u8, n: usize, offers: &[Pos]) -> (Vec<String>, Vec<Pos>) {
        let mut searcher = Searcher::new(1 << 20);
        let mut rep = Reporter::new(Detail::default(), Instant::now());
        let a = step(
            &mut searcher,
            board,
            k,
            n,
            offers,
            &mut clock(300),
            7,
            &mut rep,
        );
        let Action::Say { lines, stones, .. } = a else {
            panic!("{a:?}")
        };
        (lines, stones)
    }

    /// The point of a `MESSAGE SOOSORV <word> x y …` line, as the GUI reads it.
    fn point(line: &str, word: &str) -> Pos {
        let rest = line
            .strip_prefix(&format!("MESSAGE SOOSORV {word} "))
            .unwrap_or_else(|| panic!("{line}"));
        let v: Vec<usize> = rest.split(' ').map(|t| t.parse().unwrap()).collect();
        Pos::new(v[0], v[1])
    }

    fn position(moves: &[(usize, usize)]) -> Board {
        let mut b = Board::new(15, 15, Rule::Renju).unwrap();
        for &(x, y) in moves {
            let c = b.side_to_move();
            b.play(Pos::new(x, y), c);
        }
        b
    }

    #[test]
    fn the_opening_keeps_to_the_centre_area() {
        let empty = position(&[]);
        let (lines, stones) = run(&empty, 1, 0, &[]);
        assert_eq!(lines.len(), 3);
        let p: Vec<Pos> = (0..3)
            .map(|i| point(&lines[i], &format!("MOVE{}", i + 1)))
            .collect();
        assert_eq!(p, stones);
        assert_eq!(p[0], Pos::new(7, 7));
        let off = |q: Pos| q.x().abs_diff(7).max(q.y().abs_diff(7));
        assert!(off(p[1]) == 1 && (1..=2).contains(&off(p[2])), "{p:?}");
    }

    #[test]
    fn the_fourth_stone_comes_with_a_number_of_offers() {
        let b = position(&[(7, 7), (8, 8), (8, 6)]);
        let (lines, stones) = run(&b, 3, 0, &[]);
        assert_eq!(lines.len(), 1);
        let p = point(&lines[0], "MOVE4");
        assert_eq!(stones, vec![p]);
        assert!(b.is_empty(p));
        let n: usize = lines[0].rsplit(' ').next().unwrap().parse().unwrap();
        assert!((1..=MAX_N).contains(&n), "{}", lines[0]);
    }

    #[test]
    fn offers_are_distinct_legal_and_not_symmetric_twins() {
        // A position symmetric about the diagonal x = y: many fifth moves have a twin.
        let mut b = position(&[(7, 7), (6, 6), (8, 8), (9, 9)]);
        assert!(!symmetries(&b).is_empty());
        let (lines, stones) = run(&b, 5, 3, &[]);
        assert!(stones.is_empty());
        assert_eq!(
            lines.first().map(String::as_str),
            Some("MESSAGE SOOSORV MOVE5 REFRESH")
        );
        assert_eq!(
            lines.last().map(String::as_str),
            Some("MESSAGE SOOSORV MOVE5 DONE")
        );
        let offers: Vec<Pos> = lines[1..lines.len() - 1]
            .iter()
            .map(|l| point(l, "MOVE5"))
            .collect();
        assert_eq!(offers.len(), 3);
        for (i, &p) in offers.iter().enumerate() {
            assert!(b.is_legal(p, Color::Black), "{p}");
            for &q in &offers[..i] {
                assert_ne!(p, q);
                assert_ne!(transform(p, 4, 15, 15), q, "{p} mirrors {q}");
            }
        }
    }

    #[test]
    fn a_stopped_search_still_offers_n_moves() {
        let b = position(&[(7, 7), (7, 8), (8, 8), (8, 6)]);
        let mut searcher = Searcher::new(1 << 20);
        let mut rep = Reporter::new(Detail::default(), Instant::now());
        let mut stopped = clock(5_000);
        stopped.max_nodes = 1;
        let a = step(&mut searcher, &b, 5, 8, &[], &mut stopped, 7, &mut rep);
        let Action::Say { lines, .. } = a else {
            panic!("{a:?}")
        };
        // REFRESH, eight offers, DONE.
        assert_eq!(lines.len(), 10, "{lines:?}");
    }

    #[test]
    fn symmetries_need_not_be_about_the_board_centre() {
        // A square of four stones centred on (7.5, 7.5): a half turn about that point keeps it.
        let b = position(&[(7, 7), (7, 8), (8, 8), (8, 7)]);
        let syms = symmetries(&b);
        assert!(twins(&b, &syms, Pos::new(9, 9), Pos::new(6, 6)));
        assert!(twins(&b, &syms, Pos::new(7, 9), Pos::new(8, 6)));
        assert!(!twins(&b, &syms, Pos::new(9, 9), Pos::new(9, 6)));
        // Black's pair centred on x = 8, white's on x = 7.5: no symmetry keeps both.
        let lone = position(&[(7, 7), (3, 3), (9, 7), (12, 3)]);
        assert!(symmetries(&lone).is_empty());
    }

    #[test]
    fn white_keeps_the_offer_worst_for_black() {
        // Black 7,7 8,7 against white 7,8 8,8: 9,7 makes an open three, 0,14 is nothing.
        let b = position(&[(7, 7), (7, 8), (8, 7), (8, 8)]);
        let offers = [Pos::new(9, 7), Pos::new(0, 14)];
        let (lines, stones) = run(&b, 6, 0, &offers);
        assert_eq!(lines, vec!["MESSAGE SOOSORV MOVE5C 0 14".to_string()]);
        assert_eq!(stones, vec![Pos::new(0, 14)]);
    }
}
