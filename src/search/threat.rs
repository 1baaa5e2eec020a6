//! Threat-space solvers: VCF (victory by continuous fours) and VCT (by continuous threats: fours
//! and open threes).
//!
//! The attacker plays only threats; after a four the defender's reply is forced, after an open
//! three the defender may block on any point of the threatened line or counter with a four of its
//! own (the move generator's defence list), and every one of those replies must lose. Renju-aware
//! through the move generators: black's threats never land on forbidden points, and a white four
//! whose completion point black may not block wins.

use super::movepick::{generate, MoveList, Situation};
use crate::eval::classical::{Class, C_DOUBLE_THREE, C_FIVE, C_FOUR, C_OPEN_FOUR, C_THREE};
use crate::game::{Board, Pos};
use std::time::Instant;

/// Entries of the table of refuted attacks.
const REFUTED_SIZE: usize = 1 << 16;

/// Search state: the kind of threats allowed, a node budget, one move list per ply, and a table
/// of positions where the attacker was shown to have no win within some number of threats.
pub struct ThreatSolver {
    threes: bool,
    nodes_left: u64,
    deadline: Option<Instant>,
    lists: Vec<MoveList>,
    refuted: Vec<(u64, u8)>,
}

impl ThreatSolver {
    /// A solver for wins by fours only.
    pub fn vcf() -> ThreatSolver {
        ThreatSolver {
            threes: false,
            nodes_left: 0,
            deadline: None,
            lists: Vec::new(),
            refuted: Vec::new(),
        }
    }

    /// A solver for wins by fours and open threes.
    pub fn vct() -> ThreatSolver {
        ThreatSolver {
            threes: true,
            ..Self::vcf()
        }
    }

    #[inline]
    fn refuted_slot(key: u64) -> usize {
        (key >> 40) as usize & (REFUTED_SIZE - 1)
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
        self.nodes_left = budget;
        self.deadline = deadline;
        // Positions are exact only within one call: the rule or board may change between calls.
        self.refuted.clear();
        self.refuted.resize(REFUTED_SIZE, (0, 0));
        // An attacker ply and a defender ply per threat.
        let plies = 2 * max_threats + 2;
        if self.lists.len() < plies {
            self.lists.resize_with(plies, MoveList::with_capacity);
        }
        if board.class_count(board.side_to_move(), C_FIVE) > 0 {
            return self.attack(board, 0, 0).map(|m| (m, 0));
        }
        // Iterative deepening finds the shortest win first and keeps the tree small.
        for limit in 1..=max_threats {
            match self.attack(board, limit, 0) {
                Some(m) => return Some((m, limit)),
                None if self.nodes_left == 0 => return None,
                None => {}
            }
        }
        None
    }

    /// Whether the attacker may use a move of this class as a threat.
    #[inline]
    fn is_threat(&self, class: Class) -> bool {
        class >= C_FOUR || (self.threes && (C_THREE..=C_DOUBLE_THREE).contains(&class))
    }

    /// The attacker to move: the move that wins within `left` threats.
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
        let key = board.hash();
        let slot = Self::refuted_slot(key);
        if self.refuted[slot].0 == key && self.refuted[slot].1 as usize >= left {
            return None;
        }
        let me = board.side_to_move();
        let opp = me.other();
        let mut list = std::mem::take(&mut self.lists[ply]);
        let situation = generate(board, &mut list);
        let result = match situation {
            Situation::Win => Some(list.get(0)),
            _ if left == 0 => None,
            Situation::BlockFive => {
                // Forced to block: the attack goes on only if the block is itself a threat.
                if board.class_count(opp, C_FIVE) >= 2 || list.len() != 1 {
                    None
                } else {
                    let m = list.get(0);
                    (board.class(me, m) >= C_FOUR || self.is_threat(board.class(me, m)))
                        .then_some(m)
                        .filter(|&m| self.threat_wins(board, m, left, ply))
                }
            }
            _ => {
                // Threats only; against the opponent's open three only fours keep the initiative.
                let threes = self.threes && situation == Situation::Normal;
                let unanswerable = (C_FOUR..=C_OPEN_FOUR).all(|c| board.class_count(opp, c) == 0);
                let mut threats = [(Pos::NONE, 0i32); 64];
                let mut n = 0;
                for m in list.iter() {
                    let class = board.class(me, m);
                    if n < threats.len() && (class >= C_FOUR || (threes && self.is_threat(class))) {
                        threats[n] = (m, class as i32 * 10_000 + board.cell_score(me, m));
                        n += 1;
                    }
                }
                // Strongest threats first; the sort is stable, ties keep board order.
                threats[..n].sort_by_key(|t| std::cmp::Reverse(t.1));
                let mut found = None;
                for &(m, _) in &threats[..n] {
                    if unanswerable && board.class(me, m) == C_OPEN_FOUR {
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
                found
            }
        };
        self.lists[ply] = list;
        if result.is_none() && self.nodes_left > 0 {
            self.refuted[slot] = (key, left as u8);
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

    /// The defender to move after a threat: whether the attacker wins against every reply.
    fn defend(&mut self, board: &mut Board, left: usize, ply: usize) -> bool {
        let me = board.side_to_move();
        let opp = me.other();
        if board.class_count(me, C_FIVE) > 0 {
            return false;
        }
        if board.class_count(opp, C_FIVE) >= 2 {
            return true;
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        let situation = generate(board, &mut list);
        let wins = match situation {
            // No threat to answer: the attacker's move did not force anything.
            Situation::Normal | Situation::Win => false,
            // No legal block (black's block is forbidden), or every reply loses.
            Situation::BlockFive | Situation::Defend => {
                let mut all_lose = true;
                for i in 0..list.len() {
                    let reply = list.get(i);
                    board.play(reply, me);
                    let wins = self.attack(board, left, ply + 1).is_some();
                    board.undo();
                    if !wins {
                        all_lose = false;
                        break;
                    }
                }
                all_lose
            }
        };
        self.lists[ply] = list;
        wins
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Rule};

    fn board(black: &[(i64, i64)], white: &[(i64, i64)]) -> Board {
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

    #[test]
    fn vct_finds_a_double_open_three_that_vcf_cannot() {
        // Two open twos crossing at (7,7): the double three there wins by threats, not by fours.
        let mut b = board(
            &[(5, 7), (6, 7), (7, 5), (7, 6)],
            &[(0, 0), (14, 0), (0, 14), (14, 14)],
        );
        assert_eq!(ThreatSolver::vcf().solve(&mut b, 10, 100_000, None), None);
        assert!(ThreatSolver::vct()
            .solve(&mut b, 6, 200_000, None)
            .is_some());
    }
}
