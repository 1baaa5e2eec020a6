//! Move generation and ordering.
//!
//! The generator answers threats first: a five is played at once; against the opponent's five
//! only the block is legal; against a threat to make an open four only our fours and the points
//! of the threatened lines are considered. Otherwise every empty point near a stone is a
//! candidate, ordered by twice the attack value plus the defence value, ties by board order
//! (the search adds a history bonus to these scores, see `super::history`).

use crate::eval::classical::{C_FIVE, C_FOUR};
use crate::game::pattern::Pattern;
use crate::game::pos::DIRS;
use crate::game::{Board, Cell, Color, Pos, Rule};

/// Room for every cell of the largest board.
pub const MAX_MOVES: usize = 32 * 32;

/// Candidate moves with their ordering scores. The searcher keeps one list per ply and reuses
/// its allocation, so generating moves never allocates in the search.
#[derive(Default)]
pub struct MoveList {
    moves: Vec<(Pos, i32)>,
    /// The first this many moves are in their final order; [`MoveList::pick`] orders the rest
    /// one move at a time (most nodes cut off after a few moves, so sorting all is wasted).
    ordered: usize,
}

impl MoveList {
    pub fn with_capacity() -> MoveList {
        MoveList {
            moves: Vec::with_capacity(MAX_MOVES),
            ordered: 0,
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.moves.len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
    #[inline]
    pub fn get(&self, i: usize) -> Pos {
        self.moves[i].0
    }
    #[inline]
    fn push(&mut self, p: Pos, score: i32) {
        self.moves.push((p, score));
    }
    pub fn clear(&mut self) {
        self.moves.clear();
        self.ordered = 0;
    }
    /// Adds to every unpicked move's score a pseudo-random amount below `range` drawn from
    /// `seed` and the move: Lazy SMP helpers order near-equal moves differently from the main
    /// thread, so that they search other subtrees first.
    pub fn perturb(&mut self, seed: u64, range: i32) {
        for m in &mut self.moves[self.ordered..] {
            let h = (seed ^ m.0 .0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            m.1 += (h >> 40) as i32 % range;
        }
    }
    /// The `i`-th move in order, for `i` counting up from 0 (or from 1 after
    /// [`MoveList::bring_to_front`]): the first highest-scored move not yet picked, so the moves
    /// come out exactly as the stable sort of [`generate`] would give them.
    #[inline]
    pub fn pick(&mut self, i: usize) -> Pos {
        if i >= self.ordered {
            if i < PICKS_BEFORE_SORT {
                let rest = &mut self.moves[i..];
                let mut best = 0;
                for (j, m) in rest.iter().enumerate().skip(1) {
                    if m.1 > rest[best].1 {
                        best = j;
                    }
                }
                rest[..=best].rotate_right(1);
                self.ordered = i + 1;
            } else {
                // A node that got this far usually goes through every move: sort the rest.
                sort_stable(&mut self.moves[i..]);
                self.ordered = self.moves.len();
            }
        }
        self.moves[i].0
    }
    pub fn iter(&self) -> impl Iterator<Item = Pos> + '_ {
        self.moves.iter().map(|m| m.0)
    }
    /// Keeps the moves for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(Pos) -> bool) {
        self.moves.retain(|m| keep(m.0));
    }
    /// Adds `bonus(p)` to the ordering score of every move not yet picked.
    pub fn add_each(&mut self, bonus: impl Fn(Pos) -> i32) {
        for m in &mut self.moves[self.ordered..] {
            m.1 += bonus(m.0);
        }
    }
    /// Moves `p` to the front, if present.
    pub fn bring_to_front(&mut self, p: Pos) {
        if let Some(i) = self.moves.iter().position(|m| m.0 == p) {
            self.moves[..=i].rotate_right(1);
            self.ordered = self.ordered.max(1);
        }
    }
    /// Stable sort by descending score: equal scores keep board order, so results are
    /// deterministic.
    fn sort(&mut self) {
        self.ordered = self.moves.len();
        sort_stable(&mut self.moves);
    }
}

/// Moves picked one at a time (a scan each) before [`MoveList::pick`] sorts the rest.
const PICKS_BEFORE_SORT: usize = 3;

/// Insertion sort by descending score, equal scores in their present order.
fn sort_stable(m: &mut [(Pos, i32)]) {
    for i in 1..m.len() {
        let x = m[i];
        let mut j = i;
        while j > 0 && m[j - 1].1 < x.1 {
            m[j] = m[j - 1];
            j -= 1;
        }
        m[j] = x;
    }
}

/// What kind of node the generator found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Situation {
    /// The side to move has a five: the list holds one winning move.
    Win,
    /// The opponent threatens five: the list holds the legal blocks (maybe none).
    BlockFive,
    /// The opponent threatens an open four: fours and defences only.
    Defend,
    Normal,
}

/// Fills `list` with the moves worth searching for the side to move, best first.
pub fn generate(board: &mut Board, list: &mut MoveList) -> Situation {
    let situation = generate_unordered(board, list);
    list.sort();
    situation
}

/// [`generate`] without the ordering: read the moves with [`MoveList::pick`].
pub fn generate_unordered(board: &mut Board, list: &mut MoveList) -> Situation {
    list.clear();
    let me = board.side_to_move();
    let opp = me.other();
    // Every cell that matters is near a stone; five, four and three points touch one.
    let (xs, ys) = board.near_area();
    let area = || {
        ys.clone()
            .flat_map(|y| xs.clone().map(move |x| Pos::new(x, y)))
    };
    if board.class_count(me, C_FIVE) > 0 {
        if let Some(p) = area().find(|&p| board.is_empty(p) && board.class(me, p) == C_FIVE) {
            list.push(p, 0);
            return Situation::Win;
        }
    }
    if board.class_count(opp, C_FIVE) > 0 {
        for y in ys.clone() {
            for x in xs.clone() {
                let p = Pos::new(x, y);
                if board.is_empty(p) && board.class(opp, p) == C_FIVE && board.is_legal(p, me) {
                    list.push(p, 0);
                }
            }
        }
        if matches!(board.rule(), Rule::Caro { .. }) && board.class_count(opp, C_FIVE) == 1 {
            add_caro_end_blocks(board, list);
        }
        return Situation::BlockFive;
    }
    let defend = board.has_legal_open_four(opp);
    let empty_board = board.stone_count() == 0;
    for y in ys.clone() {
        for x in xs.clone() {
            let p = Pos::new(x, y);
            if !board.is_empty(p) || !(defend || board.near(p)) {
                continue;
            }
            if defend && board.class(me, p) < C_FOUR && board.class(opp, p) < C_FOUR {
                continue;
            }
            // Attack counts double: 1:1 lost to 3:2, and 2:1 scored +12 against it (undecided;
            // kept together with singular extensions, see the README's Strength steps).
            let score = board.order_score(me, p) * 2 + board.order_score(opp, p);
            list.push(p, score);
        }
    }
    if list.is_empty() && !defend {
        // Nothing near a stone (an empty board, or only neutral stones): start at the centre.
        let centre = Pos::new(board.width() / 2, board.height() / 2);
        if board.is_empty(centre) && empty_board {
            list.push(centre, 0);
        } else {
            for p in board.cells_iter() {
                if board.is_empty(p) {
                    list.push(p, 0);
                }
            }
        }
    }
    retain_legal(board, list);
    if defend {
        Situation::Defend
    } else {
        Situation::Normal
    }
}

/// In caro a five blocked at both ends does not win, so a four can also be stopped by a stone
/// just past the far end of the five it threatens. Only the two cells beyond the five's run in
/// each direction where the point makes a five can do that; each is checked by playing it.
fn add_caro_end_blocks(board: &mut Board, list: &mut MoveList) {
    let me = board.side_to_move();
    let opp = me.other();
    let Some(five) = list.iter().next() else {
        return;
    };
    let theirs = opp.cell();
    for (di, &d) in DIRS.iter().enumerate() {
        if board.pattern(opp, di, five) != Pattern::Five {
            continue;
        }
        for step in [-1isize, 1] {
            let mut q = five.step(d, step);
            while board.cell(q) == theirs {
                q = q.step(d, step);
            }
            if board.cell(q) != Cell::Empty || list.iter().any(|m| m == q) {
                continue;
            }
            board.play(q, me);
            let stops = board.class_count(opp, C_FIVE) == 0;
            board.undo();
            if stops && board.is_legal(q, me) {
                list.push(q, 0);
            }
        }
    }
}

fn retain_legal(board: &mut Board, list: &mut MoveList) {
    let me = board.side_to_move();
    if !board.rule().has_forbidden() || me != crate::game::Color::Black {
        return;
    }
    list.moves.retain(|m| board.is_legal(m.0, me));
}

/// The side to move's moves that make a four or better (for the threat search), best first.
pub fn generate_fours(board: &mut Board, list: &mut MoveList) {
    list.clear();
    let me = board.side_to_move();
    if board.count_at_least(me, C_FOUR) == 0 {
        return;
    }
    let (xs, ys) = board.near_area();
    for y in ys {
        for x in xs.clone() {
            push_four(board, me, list, Pos::new(x, y));
        }
    }
    retain_legal(board, list);
    list.sort();
}

/// Adds `p` when it is empty and `me` makes a four or better there, fours ordered by class.
#[inline]
fn push_four(board: &Board, me: Color, list: &mut MoveList, p: Pos) {
    if board.is_empty(p) && board.class(me, p) >= C_FOUR {
        let score = board.class(me, p) as i32 * 1000 + board.order_score(me, p);
        list.push(p, score);
    }
}

/// Like [`generate_fours`], but only the fours close to `centre` (the side's own last move): within
/// two cells of it, or up to four cells along one of its lines. A continued threat sequence almost
/// always grows from the stone just played, and the scan costs 40 cells instead of the board.
pub fn generate_fours_near(board: &mut Board, list: &mut MoveList, centre: Pos) {
    list.clear();
    let me = board.side_to_move();
    if board.count_at_least(me, C_FOUR) == 0 {
        return;
    }
    let row = DIRS[1];
    for dy in -2..=2isize {
        for dx in -2..=2isize {
            if dx != 0 || dy != 0 {
                push_four(board, me, list, centre.step(row, dy).step(1, dx));
            }
        }
    }
    for d in DIRS {
        for k in [-4isize, -3, 3, 4] {
            push_four(board, me, list, centre.step(d, k));
        }
    }
    retain_legal(board, list);
    list.sort();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::classical::C_OPEN_FOUR;
    use crate::game::Color;

    fn board(rule: Rule, black: &[(i64, i64)], white: &[(i64, i64)], to_move: Color) -> Board {
        Board::from_stones(rule, black, white, to_move)
    }

    fn moves(b: &mut Board) -> (Situation, Vec<Pos>) {
        let mut list = MoveList::with_capacity();
        let s = generate(b, &mut list);
        let mut v: Vec<Pos> = list.iter().collect();
        v.sort();
        (s, v)
    }

    #[test]
    fn own_five_is_the_only_move() {
        let mut b = board(
            Rule::Freestyle,
            &[(3, 3), (4, 3), (5, 3), (6, 3)],
            &[(3, 4), (4, 4), (5, 4)],
            Color::Black,
        );
        let (s, v) = moves(&mut b);
        assert_eq!(s, Situation::Win);
        assert!(v == vec![Pos::new(2, 3)] || v == vec![Pos::new(7, 3)]);
    }

    #[test]
    fn a_four_must_be_blocked_and_in_caro_also_past_its_end() {
        // Black four 1..4 on row 7 with a white stone at 0: the five point is 5.
        let black = [(1, 7), (2, 7), (3, 7), (4, 7)];
        let white = [(0, 7), (9, 9), (10, 10)];
        let mut b = board(Rule::Freestyle, &black, &white, Color::White);
        assert_eq!(moves(&mut b), (Situation::BlockFive, vec![Pos::new(5, 7)]));
        // In caro a white stone on 6 leaves black's five at 5 blocked at both ends.
        let mut b = board(
            Rule::Caro {
                overline_wins: false,
            },
            &black,
            &white,
            Color::White,
        );
        assert_eq!(
            moves(&mut b),
            (Situation::BlockFive, vec![Pos::new(5, 7), Pos::new(6, 7)])
        );
    }

    #[test]
    fn an_open_three_restricts_the_defence() {
        let mut b = board(
            Rule::Freestyle,
            &[(6, 7), (7, 7), (8, 7)],
            &[(6, 6), (7, 6)],
            Color::White,
        );
        let (s, v) = moves(&mut b);
        assert_eq!(s, Situation::Defend);
        // The ends of the three are among the defences; a far quiet point is not.
        assert!(v.contains(&Pos::new(5, 7)) && v.contains(&Pos::new(9, 7)));
        assert!(!v.contains(&Pos::new(7, 10)));
    }

    #[test]
    fn a_foul_open_four_point_of_black_needs_no_defence_in_renju() {
        // Black's split three on row 7 (5, 6, _, 8) has one open-four point, 7,7; there black
        // also joins 7,4..7,6 and 7,8..7,9 into six in column 7. Under standard rules that is
        // a straight four (the six does not win, and is allowed); in renju an overline, a foul.
        let black = [
            (5, 7),
            (6, 7),
            (8, 7),
            (7, 4),
            (7, 5),
            (7, 6),
            (7, 8),
            (7, 9),
        ];
        let white = [(0, 0), (14, 14), (0, 14)];
        let at = Pos::new(7, 7);
        let mut standard = board(Rule::Standard, &black, &white, Color::White);
        assert_eq!(standard.class(Color::Black, at), C_OPEN_FOUR);
        assert_eq!(moves(&mut standard).0, Situation::Defend);
        let mut renju = board(Rule::Renju, &black, &white, Color::White);
        assert_eq!(
            renju.class(Color::Black, at),
            C_OPEN_FOUR,
            "the classes miss it"
        );
        assert!(!renju.is_legal(at, Color::Black));
        assert_eq!(moves(&mut renju).0, Situation::Normal);
    }

    #[test]
    fn perturbing_leaves_picked_moves_and_adds_bounded_noise() {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        for (x, y, c) in [
            (7, 7, Color::Black),
            (8, 8, Color::White),
            (6, 8, Color::Black),
        ] {
            b.play(Pos::new(x, y), c);
        }
        let mut list = MoveList::with_capacity();
        generate_unordered(&mut b, &mut list);
        let first = list.pick(0);
        let before = list.moves.clone();
        list.perturb(12345, 24);
        assert_eq!(
            list.moves[0], before[0],
            "a picked move keeps its place and score"
        );
        assert_eq!(list.get(0), first);
        let mut changed = false;
        for (m, o) in list.moves.iter().zip(&before).skip(1) {
            assert_eq!(m.0, o.0);
            assert!((0..24).contains(&(m.1 - o.1)), "{} -> {}", o.1, m.1);
            changed |= m.1 != o.1;
        }
        assert!(changed, "some unpicked score moved");
        // The same seed gives the same order: a helper's search stays reproducible.
        let mut again = MoveList::with_capacity();
        generate_unordered(&mut b, &mut again);
        again.pick(0);
        again.perturb(12345, 24);
        assert_eq!(again.moves, list.moves);
    }

    #[test]
    fn fours_near_a_stone_are_the_board_fours_in_its_neighbourhood() {
        // Black threes in several directions, near and far from the stone at 7,7.
        let black = [
            (7, 7),
            (8, 7),
            (9, 7),
            (7, 8),
            (7, 9),
            (1, 1),
            (2, 2),
            (3, 3),
            (12, 3),
        ];
        let white = [(6, 7), (0, 13), (13, 13), (10, 10), (11, 2), (12, 12)];
        for rule in [Rule::Freestyle, Rule::Renju] {
            let mut b = board(rule, &black, &white, Color::Black);
            let mut all = MoveList::with_capacity();
            generate_fours(&mut b, &mut all);
            let centre = Pos::new(7, 7);
            let mut near = MoveList::with_capacity();
            generate_fours_near(&mut b, &mut near, centre);
            let close = |p: Pos| {
                let (dx, dy) = (p.x() as i64 - 7, p.y() as i64 - 7);
                let on_line = dx == 0 || dy == 0 || dx.abs() == dy.abs();
                dx.abs().max(dy.abs()) <= 2 || (on_line && dx.abs().max(dy.abs()) <= 4)
            };
            let mut want: Vec<Pos> = all.iter().filter(|&p| close(p)).collect();
            let mut got: Vec<Pos> = near.iter().collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{rule:?}");
            // The far diagonal's fours exist on the board but are not near 7,7.
            assert!(all.iter().any(|p| !close(p)));
            assert!(got.contains(&Pos::new(10, 7)) && got.contains(&Pos::new(7, 10)));
        }
    }

    /// Picking the moves one at a time gives exactly the sorted order (ties in board order),
    /// with or without a move brought to the front first.
    #[test]
    fn picked_moves_come_in_the_sorted_order() {
        let mut rng = crate::eval::tune_data::seeded(3);
        for rule in Rule::ALL {
            let mut b = Board::new(15, 15, rule).unwrap();
            for _ in 0..24 {
                if !crate::eval::tune_data::play_random_near_move(&mut b, &mut rng) {
                    continue;
                }
                let mut sorted = MoveList::with_capacity();
                generate(&mut b, &mut sorted);
                let front = sorted
                    .iter()
                    .nth(rng.below(sorted.len().max(1)))
                    .unwrap_or(Pos::NONE);
                for bring in [false, true] {
                    let mut want: Vec<(Pos, i32)> = sorted.moves.clone();
                    let mut list = MoveList::with_capacity();
                    generate_unordered(&mut b, &mut list);
                    if bring {
                        if let Some(i) = want.iter().position(|m| m.0 == front) {
                            want[..=i].rotate_right(1);
                        }
                        list.bring_to_front(front);
                    }
                    let got: Vec<Pos> = (0..list.len()).map(|i| list.pick(i)).collect();
                    let want: Vec<Pos> = want.iter().map(|m| m.0).collect();
                    assert_eq!(got, want, "{rule:?} after {} stones", b.stone_count());
                }
            }
        }
    }
}
