//! Board property tests on random games of every rule and several sizes (square and
//! rectangular, with and without field-3 stones):
//!
//! * play / undo round trips restore every field the public API shows (hash, side to move,
//!   counts, history, cells, line keys, per-cell patterns, classes, scores, sums, class counts,
//!   wins, fouls) and the incremental state equals a from-scratch recompute;
//! * TAKEBACK (`remove`) of any stone then replaying it, and undoing several moves then replaying
//!   them, give the original position back;
//! * the eight symmetries of a square board (four of a rectangle) map forbidden points, winning
//!   moves of both colours, per-cell classes, scores and pattern multisets and the score sums
//!   (hence the evaluation) onto each other;
//! * rebuilding a position the way `BOARD` does, in another stone order, gives the same hash
//!   and derived state, and switching the rule back and forth changes nothing.

use super::board::Board;
use super::forbid::Foul;
use super::pos::{Cell, Color, Pos};
use super::rule::Rule;
use crate::eval::classical::{self, Class, CLASS_COUNT};

/// xorshift64*: seeded, so a failure names its case and repeats.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
}

fn other(c: Color) -> Color {
    match c {
        Color::Black => Color::White,
        Color::White => Color::Black,
    }
}

/// A random empty point, mostly near the centre or near the stones so lines (and renju fouls)
/// form.
fn random_empty(rng: &mut Rng, b: &Board) -> Option<Pos> {
    let (w, h) = (b.width(), b.height());
    for _ in 0..40 {
        let (x, y) = if rng.percent(70) {
            let r = 4.min(w / 2).min(h / 2).max(1);
            (
                (w / 2 + rng.below(2 * r + 1)).saturating_sub(r).min(w - 1),
                (h / 2 + rng.below(2 * r + 1)).saturating_sub(r).min(h - 1),
            )
        } else {
            (rng.below(w), rng.below(h))
        };
        let p = Pos::new(x, y);
        if b.is_empty(p) {
            return Some(p);
        }
    }
    let empties: Vec<Pos> = b.cells_iter().filter(|&p| b.is_empty(p)).collect();
    (!empties.is_empty()).then(|| empties[rng.below(empties.len())])
}

/// A random position: `stones` alternating moves (sometimes a colour twice in a row, as a
/// `BOARD` in any order may give) and, with `walls`, a few field-3 stones.
fn random_board(
    rng: &mut Rng,
    w: usize,
    h: usize,
    rule: Rule,
    stones: usize,
    walls: bool,
) -> Board {
    let mut b = Board::new(w, h, rule).expect("valid size");
    if walls {
        for _ in 0..1 + rng.below(4) {
            if let Some(p) = random_empty(rng, &b) {
                b.place_wall(p);
            }
        }
    }
    let mut c = Color::Black;
    for _ in 0..stones {
        let Some(p) = random_empty(rng, &b) else {
            break;
        };
        b.play(p, c);
        if !rng.percent(5) {
            c = other(c);
        }
    }
    b
}

/// Everything the public API shows about a board.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot {
    hash: u64,
    side: Color,
    stones: usize,
    empties: usize,
    history: Vec<(Pos, Color)>,
    cells: Vec<Cell>,
    keys: Vec<[u32; 4]>,
    near: Vec<bool>,
    /// Per empty cell and colour: class, score, the four direction patterns, a win.
    cell_info: Vec<[CellInfo; 2]>,
    fouls: Vec<Option<Foul>>,
    score_sum: [i32; 2],
    class_count: [[usize; CLASS_COUNT]; 2],
}

/// What the board says about one empty cell for one colour.
type CellInfo = (Class, i32, [u8; 4], bool);

fn snapshot(b: &mut Board, with_fouls: bool) -> Snapshot {
    let cells: Vec<Pos> = b.cells_iter().collect();
    let colours = [Color::Black, Color::White];
    let info = |b: &Board, p: Pos, c: Color| {
        if b.is_empty(p) {
            (
                b.class(c, p),
                b.cell_score(c, p),
                [0, 1, 2, 3].map(|d| b.pattern(c, d, p) as u8),
                b.is_winning_move(p, c),
            )
        } else {
            (0, 0, [0; 4], false)
        }
    };
    Snapshot {
        hash: b.hash(),
        side: b.side_to_move(),
        stones: b.stone_count(),
        empties: b.empty_count(),
        history: b.history().to_vec(),
        cells: cells.iter().map(|&p| b.cell(p)).collect(),
        keys: cells
            .iter()
            .map(|&p| [0, 1, 2, 3].map(|d| b.key(d, p)))
            .collect(),
        near: cells.iter().map(|&p| b.near(p)).collect(),
        cell_info: cells
            .iter()
            .map(|&p| colours.map(|c| info(b, p, c)))
            .collect(),
        fouls: if with_fouls {
            cells.iter().map(|&p| b.foul(p)).collect()
        } else {
            Vec::new()
        },
        score_sum: colours.map(|c| b.score_sum(c)),
        class_count: colours.map(|c| {
            let mut a = [0; CLASS_COUNT];
            for (k, n) in a.iter_mut().enumerate() {
                *n = b.class_count(c, k as Class);
            }
            a
        }),
    }
}

/// The first field that differs, for a readable failure.
fn diff(a: &Snapshot, b: &Snapshot) -> String {
    macro_rules! field {
        ($f:ident) => {
            if a.$f != b.$f {
                return format!("{} differs", stringify!($f));
            }
        };
    }
    field!(hash);
    field!(side);
    field!(stones);
    field!(empties);
    field!(history);
    field!(cells);
    field!(keys);
    field!(near);
    field!(cell_info);
    field!(fouls);
    field!(score_sum);
    field!(class_count);
    "equal".into()
}

fn sizes() -> [(usize, usize); 7] {
    [
        (15, 15),
        (20, 20),
        (5, 5),
        (7, 12),
        (19, 8),
        (32, 32),
        (32, 5),
    ]
}

#[test]
fn play_undo_round_trips_restore_every_field() {
    for (ri, rule) in Rule::ALL.into_iter().enumerate() {
        for (si, (w, h)) in sizes().into_iter().enumerate() {
            let seed = (ri * 100 + si) as u64;
            let mut rng = Rng::new(seed);
            let walls = seed % 2 == 0;
            let mut b = random_board(&mut rng, w, h, rule, 0, walls);
            let steps = (w * h).min(260);
            for step in 0..steps {
                let ctx = || format!("{rule:?} {w}x{h} seed {seed} step {step}");
                let fouls = rule.has_forbidden() && step % 9 == 0;
                let before = snapshot(&mut b, fouls);
                let copy = b.clone();
                // One move there and back, by either colour.
                if let Some(p) = random_empty(&mut rng, &b) {
                    let c = if rng.percent(50) {
                        Color::Black
                    } else {
                        Color::White
                    };
                    b.play(p, c);
                    assert!(
                        b.derived_state_matches(&b.recomputed()),
                        "{} after play",
                        ctx()
                    );
                    assert_eq!(b.undo(), Some((p, c)), "{}", ctx());
                    // Undo makes the colour of the undone stone the side to move: the same side
                    // when it moved in turn; an off-turn stone (a BOARD in any order) changes it.
                    assert_eq!(b.side_to_move(), c, "{}: side after undo", ctx());
                    b.set_side_to_move(before.side);
                    let after = snapshot(&mut b, fouls);
                    assert!(
                        before == after,
                        "{}: play/undo: {}",
                        ctx(),
                        diff(&before, &after)
                    );
                    assert!(
                        b.derived_state_matches(&copy),
                        "{}: play/undo derived state",
                        ctx()
                    );
                }
                // Several moves undone and replayed.
                if step % 5 == 4 && b.stone_count() > 0 {
                    let k = 1 + rng.below(b.stone_count().min(6));
                    let mut undone = Vec::new();
                    for _ in 0..k {
                        undone.push(b.undo().expect("k stones"));
                    }
                    assert!(
                        b.derived_state_matches(&b.recomputed()),
                        "{} after undo",
                        ctx()
                    );
                    let side = undone.last().expect("k >= 1").1;
                    assert_eq!(b.side_to_move(), side, "{}: side after undo", ctx());
                    for &(p, c) in undone.iter().rev() {
                        b.play(p, c);
                    }
                    b.set_side_to_move(before.side);
                    let after = snapshot(&mut b, fouls);
                    assert!(
                        before == after,
                        "{}: undo {k} and replay: {}",
                        ctx(),
                        diff(&before, &after)
                    );
                }
                // TAKEBACK of any stone, then the stone played again: the same position (the
                // history order changes, nothing else).
                if step % 7 == 6 && b.stone_count() > 0 {
                    let (p, c) = b.history()[rng.below(b.stone_count())];
                    b.remove(p).expect("a stone of the history");
                    assert!(b.is_empty(p), "{}: point free after remove", ctx());
                    assert!(
                        b.derived_state_matches(&b.recomputed()),
                        "{} after remove",
                        ctx()
                    );
                    b.play(p, c);
                    b.set_side_to_move(before.side);
                    let mut after = snapshot(&mut b, fouls);
                    let mut want = before.history.clone();
                    want.retain(|&(q, _)| q != p);
                    want.push((p, c));
                    assert_eq!(after.history, want, "{}", ctx());
                    after.history = before.history.clone();
                    assert!(
                        before == after,
                        "{}: remove and replay: {}",
                        ctx(),
                        diff(&before, &after)
                    );
                    assert!(
                        b.derived_state_matches(&copy),
                        "{}: remove/replay derived",
                        ctx()
                    );
                }
                // Grow the game (and sometimes shrink it) for the next step.
                if b.stone_count() > 0 && rng.percent(15) {
                    b.undo();
                } else if let Some(p) = random_empty(&mut rng, &b) {
                    let c = b.side_to_move();
                    b.play(p, c);
                }
            }
            while b.undo().is_some() {}
            // The side to move is the first stone's colour now; a fresh board has black.
            b.set_side_to_move(Color::Black);
            assert!(
                b.derived_state_matches(&b.recomputed()),
                "{rule:?} {w}x{h} emptied"
            );
            let fresh = Board::new(w, h, rule).expect("size");
            if b.cells_iter().all(|p| b.cell(p) != Cell::Wall) {
                assert_eq!(b.hash(), fresh.hash(), "{rule:?} {w}x{h}: empty hash");
                assert!(
                    b.derived_state_matches(&fresh),
                    "{rule:?} {w}x{h}: empty board"
                );
            }
        }
    }
}

/// Symmetry `t` of a `w x h` board: bit 4 transposes (square boards only), bit 1 mirrors x,
/// bit 2 mirrors y.
fn transform(t: usize, w: usize, h: usize, p: Pos) -> Pos {
    let (mut x, mut y) = (p.x(), p.y());
    if t & 4 != 0 {
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

/// The same game with every point moved by symmetry `t`.
fn transformed(b: &Board, t: usize) -> Board {
    let (w, h) = (b.width(), b.height());
    let mut tb = Board::new(w, h, b.rule()).expect("same size");
    for p in b.cells_iter() {
        if b.cell(p) == Cell::Wall {
            tb.place_wall(transform(t, w, h, p));
        }
    }
    for &(p, c) in b.history() {
        tb.play(transform(t, w, h, p), c);
    }
    tb.set_side_to_move(b.side_to_move());
    tb
}

fn sorted_patterns(b: &Board, c: Color, p: Pos) -> [u8; 4] {
    let mut v = [0, 1, 2, 3].map(|d| b.pattern(c, d, p) as u8);
    v.sort_unstable();
    v
}

#[test]
fn symmetries_map_fouls_wins_and_evaluation() {
    let mut checked_fouls = 0;
    let mut checked_wins = 0;
    for (ri, rule) in Rule::ALL.into_iter().enumerate() {
        for (si, (w, h)) in [(15, 15), (20, 20), (9, 9), (6, 6), (15, 10), (7, 20)]
            .into_iter()
            .enumerate()
        {
            let symmetries: Vec<usize> = if w == h {
                (1..8).collect()
            } else {
                vec![1, 2, 3]
            };
            for case in 0..10 {
                let seed = (1000 + ri * 100 + si * 10 + case) as u64;
                let mut rng = Rng::new(seed);
                let stones = rng.below((w * h / 3).min(70)) + 4;
                let mut b = random_board(&mut rng, w, h, rule, stones, case % 3 == 0);
                let empties: Vec<Pos> = b.cells_iter().filter(|&p| b.is_empty(p)).collect();
                let fouls: Vec<Option<Foul>> = empties.iter().map(|&p| b.foul(p)).collect();
                for &t in &symmetries {
                    let ctx = format!("{rule:?} {w}x{h} seed {seed} symmetry {t}");
                    let mut tb = transformed(&b, t);
                    assert!(tb.derived_state_matches(&tb.recomputed()), "{ctx}");
                    for c in [Color::Black, Color::White] {
                        assert_eq!(b.score_sum(c), tb.score_sum(c), "{ctx}: score sum of {c:?}");
                        for k in 0..CLASS_COUNT {
                            assert_eq!(
                                b.class_count(c, k as Class),
                                tb.class_count(c, k as Class),
                                "{ctx}: count of class {k} for {c:?}"
                            );
                        }
                    }
                    assert_eq!(b.side_to_move(), tb.side_to_move(), "{ctx}");
                    assert_eq!(
                        classical::evaluate_board(&b),
                        classical::evaluate_board(&tb),
                        "{ctx}: evaluation"
                    );
                    for (i, &p) in empties.iter().enumerate() {
                        let q = transform(t, w, h, p);
                        assert!(tb.is_empty(q), "{ctx}");
                        let tf = tb.foul(q);
                        assert_eq!(fouls[i], tf, "{ctx}: foul at {p} / {q}\n{}", b.render());
                        checked_fouls += fouls[i].is_some() as usize;
                        assert_eq!(
                            b.is_legal(p, Color::Black),
                            tb.is_legal(q, Color::Black),
                            "{ctx}: legality at {p} / {q}"
                        );
                        for c in [Color::Black, Color::White] {
                            let win = b.is_winning_move(p, c);
                            checked_wins += win as usize;
                            assert_eq!(
                                win,
                                tb.is_winning_move(q, c),
                                "{ctx}: win of {c:?} at {p} / {q}"
                            );
                            assert_eq!(
                                b.class(c, p),
                                tb.class(c, q),
                                "{ctx}: class of {c:?} at {p}"
                            );
                            assert_eq!(
                                b.cell_score(c, p),
                                tb.cell_score(c, q),
                                "{ctx}: score of {c:?} at {p}"
                            );
                            assert_eq!(
                                sorted_patterns(&b, c, p),
                                sorted_patterns(&tb, c, q),
                                "{ctx}: patterns of {c:?} at {p}"
                            );
                        }
                    }
                }
            }
        }
    }
    println!(
        "symmetries: {checked_fouls} forbidden points and {checked_wins} winning moves compared"
    );
    // The random positions must exercise what they test.
    assert!(
        checked_fouls > 50,
        "only {checked_fouls} forbidden points met"
    );
    assert!(checked_wins > 50, "only {checked_wins} winning moves met");
}

#[test]
fn board_rebuild_in_another_order_matches() {
    for (ri, rule) in Rule::ALL.into_iter().enumerate() {
        for (si, (w, h)) in sizes().into_iter().enumerate() {
            for case in 0..6 {
                let seed = (5000 + ri * 100 + si * 10 + case) as u64;
                let mut rng = Rng::new(seed);
                let stones = rng.below((w * h * 2 / 3).min(120)) + 1;
                let mut b = random_board(&mut rng, w, h, rule, stones, case % 2 == 1);
                let ctx = format!("{rule:?} {w}x{h} seed {seed}");
                // BOARD: walls and stones in any order, then the side to move set.
                let mut items: Vec<(Pos, Option<Color>)> = b
                    .cells_iter()
                    .filter(|&p| b.cell(p) == Cell::Wall)
                    .map(|p| (p, None))
                    .chain(b.history().iter().map(|&(p, c)| (p, Some(c))))
                    .collect();
                for i in (1..items.len()).rev() {
                    let j = rng.below(i + 1);
                    items.swap(i, j);
                }
                let mut r = Board::new(w, h, rule).expect("size");
                for &(p, c) in &items {
                    match c {
                        Some(c) => r.play(p, c),
                        None => r.place_wall(p),
                    }
                }
                r.set_side_to_move(b.side_to_move());
                assert_eq!(r.hash(), b.hash(), "{ctx}: hash");
                assert!(r.derived_state_matches(&b), "{ctx}: derived state");
                assert!(r.derived_state_matches(&r.recomputed()), "{ctx}: recompute");
                let mut sb = snapshot(&mut b, rule.has_forbidden());
                let sr = snapshot(&mut r, rule.has_forbidden());
                sb.history = sr.history.clone();
                assert!(sb == sr, "{ctx}: {}", diff(&sb, &sr));
                // Another rule and back: nothing changes.
                for other_rule in Rule::ALL {
                    let mut back = b.with_rule(other_rule).with_rule(rule);
                    let sback = snapshot(&mut back, false);
                    let sorig = snapshot(&mut b, false);
                    assert!(
                        sorig == sback,
                        "{ctx} via {other_rule:?}: {}",
                        diff(&sorig, &sback)
                    );
                }
            }
        }
    }
}
