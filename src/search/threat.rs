//! The VCF solver (victory by continuous fours); the VCT solver is in [`super::vct`].
//!
//! The attacker plays only fours; the defender's reply is forced (a block, or a five of its own,
//! which refutes the line). When the defender's block makes a four, the attacker must block it
//! and goes on only if that block is a four too. Renju-aware: black's fours never land on
//! forbidden points, and a white four whose completion point black may not block wins.
//!
//! Search: a few iterations of increasing length find short wins cheaply, then one depth-first
//! pass at the full length with a table of refuted positions finds long forced lines (the
//! 70–90-four renju problems) without re-searching them for every length.

use crate::eval::classical::{C_FIVE, C_FOUR, C_OPEN_FOUR};
use crate::game::pos::DIRS;
use crate::game::{Board, Color, Pos};
use std::time::Instant;

/// Entries of the table of refuted attacks.
const REFUTED_SIZE: usize = 1 << 20;
/// The same for the solver of the VCF checks inside the VCT search.
const SMALL_REFUTED_SIZE: usize = 1 << 18;
/// Threat limits searched by iterative deepening before the single full-length pass.
const SHALLOW_THREATS: usize = 4;

/// Search state: a node budget, one move list per ply, and a table
/// of positions where the attacker was shown to have no win within some number of threats.
pub struct ThreatSolver {
    nodes_left: u64,
    budget: u64,
    /// Mixed into the table's keys, new for every call: older entries never match.
    salt: u64,
    deadline: Option<Instant>,
    lists: Vec<Vec<(Pos, i32)>>,
    refuted: Vec<(u64, u8)>,
    refuted_size: usize,
    /// The winning line found (attacker and defender moves by ply) and its length.
    line: Vec<Pos>,
    line_len: usize,
    /// Plies from the root to the five (the five included) of the last win found.
    win_plies: usize,
}

impl ThreatSolver {
    /// A solver for wins by fours only.
    pub fn vcf() -> ThreatSolver {
        ThreatSolver {
            nodes_left: 0,
            budget: 0,
            salt: 0,
            deadline: None,
            lists: Vec::new(),
            refuted: Vec::new(),
            refuted_size: REFUTED_SIZE,
            line: Vec::new(),
            line_len: 0,
            win_plies: 0,
        }
    }

    /// Plies to the five of the last win found (its first move and the five included).
    pub fn win_plies(&self) -> usize {
        self.win_plies
    }

    /// Nodes searched by the last call.
    pub fn nodes(&self) -> u64 {
        self.budget - self.nodes_left
    }

    #[inline]
    fn refuted_slot(&self, key: u64) -> usize {
        (key >> 40) as usize & (self.refuted_size - 1)
    }

    /// A VCF solver with a small table, for the checks inside the VCT search.
    pub fn small() -> ThreatSolver {
        ThreatSolver {
            refuted_size: SMALL_REFUTED_SIZE,
            ..Self::vcf()
        }
    }

    /// Memory of a [`ThreatSolver::small`] solver's table.
    pub const SMALL_BYTES: usize = SMALL_REFUTED_SIZE * size_of::<(u64, u8)>();

    /// A VCF of at most `max_threats` fours in one depth-first pass within `budget` nodes: the
    /// whole line (attacker fours and defender blocks, ending with the winning move).
    pub fn solve_line(
        &mut self,
        board: &mut Board,
        max_threats: usize,
        budget: u64,
    ) -> Option<&[Pos]> {
        self.start(max_threats, budget, None);
        self.attack(board, max_threats, 0)?;
        Some(&self.line[..self.line_len])
    }

    /// Starts a session of [`ThreatSolver::solve_line_shared`] calls.
    pub fn new_session(&mut self) {
        self.salt = self
            .salt
            .wrapping_add(0x9E37_79B9_7F4A_7C15)
            .wrapping_mul(0xBF58_476D_1CE4_E5B9)
            | 1;
    }

    /// [`ThreatSolver::solve_line`] within the session begun by the last
    /// [`ThreatSolver::new_session`]: the positions its earlier calls refuted (no win within so
    /// many fours, searched to the end) stay refuted, so a caller asking about many positions
    /// of one game and rule (the VCT search) does not search them again.
    pub fn solve_line_shared(
        &mut self,
        board: &mut Board,
        max_threats: usize,
        budget: u64,
    ) -> Option<&[Pos]> {
        let salt = self.salt;
        self.start(max_threats, budget, None);
        self.salt = salt;
        self.attack(board, max_threats, 0)?;
        Some(&self.line[..self.line_len])
    }

    fn start(&mut self, max_threats: usize, budget: u64, deadline: Option<Instant>) {
        self.nodes_left = budget;
        self.budget = budget;
        self.deadline = deadline;
        // Positions are exact only within one call: the rule or board may change between calls.
        // A new salt retires the old entries without clearing the table.
        self.salt = self
            .salt
            .wrapping_add(0x9E37_79B9_7F4A_7C15)
            .wrapping_mul(0xBF58_476D_1CE4_E5B9)
            | 1;
        if self.refuted.is_empty() {
            // Zeroed allocation: pages are touched only when an entry is written.
            self.refuted = vec![(0, 0); self.refuted_size];
        }
        // An attacker ply and a defender ply per threat.
        let plies = 2 * max_threats + 2;
        if self.lists.len() < plies {
            self.lists.resize_with(plies, Vec::new);
            self.line.resize(plies, Pos::NONE);
        }
    }

    /// A first move of a forced win for the side to move and the number of attacker threats it
    /// needs before the five, searching at most `max_threats` deep, `budget` nodes and until
    /// `deadline`. `None` when none was found within the limits.
    pub fn solve(
        &mut self,
        board: &mut Board,
        max_threats: usize,
        budget: u64,
        deadline: Option<Instant>,
    ) -> Option<(Pos, usize)> {
        self.start(max_threats, budget, deadline);
        if board.class_count(board.side_to_move(), C_FIVE) > 0 {
            return self.attack(board, 0, 0).map(|m| (m, 0));
        }
        // Short wins first, by iterative deepening (cheap, and a game wants the shortest win);
        // then one depth-first pass at the full length. Within one pass a position is always
        // met with the same number of threats left (each threat adds two stones), so the table
        // of refuted positions is exact there and long forced lines cost little more than their
        // length.
        let shallow = max_threats.min(SHALLOW_THREATS);
        for limit in (1..=shallow).chain((max_threats > shallow).then_some(max_threats)) {
            match self.attack(board, limit, 0) {
                Some(m) => return Some((m, limit)),
                None if self.nodes_left == 0 => return None,
                None => {}
            }
        }
        None
    }

    /// The attacker to move: the move that wins within `left` fours.
    fn attack(&mut self, board: &mut Board, left: usize, ply: usize) -> Option<Pos> {
        if self.nodes_left == 0 {
            return None;
        }
        self.nodes_left -= 1;
        if self.nodes_left % 64 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
            // Out of time: treated like an exhausted budget (nothing is recorded as refuted).
            self.nodes_left = 0;
            return None;
        }
        let me = board.side_to_move();
        let opp = me.other();
        if board.class_count(me, C_FIVE) > 0 {
            let five = board
                .cells_iter()
                .find(|&p| board.is_empty(p) && board.class(me, p) == C_FIVE);
            if let Some(m) = five {
                self.line[ply] = m;
                self.line_len = ply + 1;
                self.win_plies = ply + 1;
            }
            return five;
        }
        if left == 0 {
            return None;
        }
        let key = board.hash() ^ self.salt;
        let slot = self.refuted_slot(key);
        if self.refuted[slot].0 == key && self.refuted[slot].1 as usize >= left {
            return None;
        }
        let result = if board.class_count(opp, C_FIVE) > 0 {
            // Forced to block: the attack goes on only if the block is itself a four.
            if board.class_count(opp, C_FIVE) >= 2 {
                None
            } else {
                five_point(board, opp)
                    .filter(|&m| board.class(me, m) >= C_FOUR && board.is_legal(m, me))
                    .filter(|&m| self.threat_wins(board, m, left, ply))
            }
        } else {
            let mut list = std::mem::take(&mut self.lists[ply]);
            Self::fours(board, &mut list);
            let unanswerable = (C_FOUR..=C_OPEN_FOUR).all(|c| board.class_count(opp, c) == 0);
            let mut found = None;
            for &(m, _) in list.iter() {
                // An open four (or a double four) the opponent cannot answer with a four.
                if unanswerable && board.class(me, m) == C_OPEN_FOUR {
                    self.line_len = ply + 1;
                    // The open four, a reply, the five.
                    self.win_plies = ply + 3;
                    found = Some(m);
                    break;
                }
                if self.threat_wins(board, m, left, ply) {
                    found = Some(m);
                    break;
                }
                if self.nodes_left == 0 {
                    break;
                }
            }
            self.lists[ply] = list;
            found
        };
        match result {
            Some(m) => self.line[ply] = m,
            None if self.nodes_left > 0 => self.refuted[slot] = (key, left as u8),
            None => {}
        }
        result
    }

    /// Plays the attacker's threat `m`; whether every defence loses.
    fn threat_wins(&mut self, board: &mut Board, m: Pos, left: usize, ply: usize) -> bool {
        let me = board.side_to_move();
        board.play(m, me);
        let wins = self.defend(board, left - 1, ply + 1);
        board.undo();
        wins
    }

    /// The side to move's legal fours, best first: fours on a line through one of the last two
    /// moves and near it (a long VCF mostly goes on where it just was), then by class and value.
    fn fours(board: &mut Board, list: &mut Vec<(Pos, i32)>) {
        list.clear();
        let me = board.side_to_move();
        let mut left = board.count_at_least(me, C_FOUR);
        if left == 0 {
            return;
        }
        let history = board.history();
        let mut recent = [Pos::NONE; 2];
        for (r, &(p, _)) in recent.iter_mut().zip(history.iter().rev()) {
            *r = p;
        }
        // A four point has a stone of `me` within two steps on its line, so it lies in the near
        // area (scanned in the board's order); the count of cells of class four or more says
        // when the last one is found.
        let (xs, ys) = board.near_area();
        for p in ys.flat_map(|y| xs.clone().map(move |x| Pos::new(x, y))) {
            if left == 0 {
                break;
            }
            if !board.is_empty(p) {
                continue;
            }
            let class = board.class(me, p);
            if class < C_FOUR {
                continue;
            }
            left -= 1;
            let near = recent.iter().any(|&q| {
                if q.is_none() {
                    return false;
                }
                let (dx, dy) = (p.x().abs_diff(q.x()), p.y().abs_diff(q.y()));
                dx.max(dy) <= 4 && (dx == 0 || dy == 0 || dx == dy)
            });
            let score = near as i32 * 100_000 + class as i32 * 1_000 + board.order_score(me, p);
            list.push((p, score));
        }
        if board.rule().has_forbidden() && me == Color::Black {
            list.retain(|&(p, _)| board.is_legal(p, me));
        }
        // Stable: equal scores keep board order, so results are deterministic.
        list.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
    }

    /// The defender to move after a four: whether the attacker wins against the forced block.
    fn defend(&mut self, board: &mut Board, left: usize, ply: usize) -> bool {
        let me = board.side_to_move();
        let opp = me.other();
        if board.class_count(me, C_FIVE) > 0 {
            return false;
        }
        match board.class_count(opp, C_FIVE) {
            // The attacker's move did not force anything.
            0 => false,
            1 => {
                let block = five_point(board, opp).expect("counted");
                // A block black may not play (a forbidden point) is no block.
                if !board.is_legal(block, me) {
                    self.line_len = ply;
                    self.win_plies = ply + 2;
                    return true;
                }
                board.play(block, me);
                let wins = self.attack(board, left, ply + 1).is_some();
                board.undo();
                if wins {
                    self.line[ply] = block;
                }
                wins
            }
            _ => {
                self.line_len = ply;
                self.win_plies = ply + 2;
                true
            }
        }
    }
}

/// A point where `c` completes a five (the only one when it has one): looked for first on the
/// lines through the last move, which made it in the solvers (a side with a five point wins or
/// blocks at once), then on the whole board.
pub(super) fn five_point(board: &Board, c: Color) -> Option<Pos> {
    let is_five = |p: Pos| board.is_empty(p) && board.class(c, p) == C_FIVE;
    if let Some(last) = board.last_move() {
        for &d in &DIRS {
            for k in (-4..=4).filter(|&k| k != 0) {
                let p = last.step(d, k);
                if is_five(p) {
                    return Some(p);
                }
            }
        }
    }
    board.cells_iter().find(|&p| is_five(p))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::game::{Color, Rule};

    /// A freestyle 15x15 board with these stones, black to move (the VCT tests use it too).
    pub(in crate::search) fn board(black: &[(i64, i64)], white: &[(i64, i64)]) -> Board {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        for &(x, y) in black {
            b.try_play(x, y, Color::Black).unwrap();
        }
        for &(x, y) in white {
            b.try_play(x, y, Color::White).unwrap();
        }
        b.set_side_to_move(Color::Black);
        b
    }

    #[test]
    fn vcf_finds_a_four_three_and_not_a_fake_win() {
        // A broken four on row 7 and a three on column 10 meeting at (10,7): four-three.
        let mut b = board(
            &[(6, 7), (7, 7), (9, 7), (10, 5), (10, 6)],
            &[(5, 7), (0, 0), (0, 2), (0, 4), (0, 6)],
        );
        let (m, fours) = ThreatSolver::vcf()
            .solve(&mut b, 10, 100_000, None)
            .expect("a VCF exists");
        assert!(m == Pos::new(8, 7) || m == Pos::new(10, 7), "{m}");
        assert!(fours >= 1);
        // Without the column stones there are only fours that can be blocked.
        let mut b = board(&[(6, 7), (7, 7), (9, 7)], &[(5, 7), (0, 0), (0, 2)]);
        assert_eq!(ThreatSolver::vcf().solve(&mut b, 10, 100_000, None), None);
    }
}
