//! The VCF solver: a win by continuous fours. The attacker plays only moves that make a four (or
//! the block of the defender's five when that block also makes a four); the defender's reply to a
//! four is forced. Renju-aware through the move generators: black's fours never land on
//! forbidden points, and a white four whose completion point black may not block wins.

use super::movepick::{generate, generate_fours, MoveList, Situation};
use crate::eval::classical::{C_FIVE, C_FOUR, C_OPEN_FOUR};
use crate::game::{Board, Pos};

/// Entries of the table of refuted attacks.
const REFUTED_SIZE: usize = 1 << 16;

/// Search state: a node budget, one move list per ply, and a table of positions where the
/// attacker was shown to have no VCF within some number of fours.
pub struct Vcf {
    nodes_left: u64,
    lists: Vec<MoveList>,
    refuted: Vec<(u64, u8)>,
}

impl Vcf {
    pub fn new() -> Vcf {
        Vcf {
            nodes_left: 0,
            lists: Vec::new(),
            refuted: Vec::new(),
        }
    }

    #[inline]
    fn refuted_slot(key: u64) -> usize {
        (key >> 40) as usize & (REFUTED_SIZE - 1)
    }

    /// A first move of a VCF for the side to move and the number of attacker moves it needs
    /// (the five included), searching at most `max_fours` attacker moves deep and `budget`
    /// nodes. `None` when none was found within the limits.
    pub fn solve(
        &mut self,
        board: &mut Board,
        max_fours: usize,
        budget: u64,
    ) -> Option<(Pos, usize)> {
        self.nodes_left = budget;
        // Positions are exact only within one call: the rule or board may change between calls.
        self.refuted.clear();
        self.refuted.resize(REFUTED_SIZE, (0, 0));
        // An attacker ply and a defender ply per four.
        let plies = 2 * max_fours + 2;
        if self.lists.len() < plies {
            self.lists.resize_with(plies, MoveList::with_capacity);
        }
        // Iterative deepening finds the shortest VCF first and keeps the tree small.
        if board.class_count(board.side_to_move(), C_FIVE) > 0 {
            return self.attack(board, 0, 0).map(|m| (m, 0));
        }
        for limit in 1..=max_fours {
            match self.attack(board, limit, 0) {
                Some(m) => return Some((m, limit)),
                None if self.nodes_left == 0 => return None,
                None => {}
            }
        }
        None
    }

    /// The attacker to move: returns the move that wins by VCF within `fours_left` fours.
    fn attack(&mut self, board: &mut Board, fours_left: usize, ply: usize) -> Option<Pos> {
        if self.nodes_left == 0 {
            return None;
        }
        self.nodes_left -= 1;
        let key = board.hash();
        let slot = Self::refuted_slot(key);
        if self.refuted[slot].0 == key && self.refuted[slot].1 as usize >= fours_left {
            return None;
        }
        let me = board.side_to_move();
        let opp = me.other();
        let mut list = std::mem::take(&mut self.lists[ply]);
        let situation = generate(board, &mut list);
        let result = match situation {
            Situation::Win => Some(list.get(0)),
            Situation::BlockFive => {
                // Forced to block: it continues the VCF only if the block is itself a four.
                if board.class_count(opp, C_FIVE) >= 2 || list.len() != 1 || fours_left == 0 {
                    None
                } else {
                    let m = list.get(0);
                    (board.class(me, m) >= C_FOUR && self.four_wins(board, m, fours_left, ply))
                        .then_some(m)
                }
            }
            _ if fours_left == 0 => None,
            _ => {
                generate_fours(board, &mut list);
                let unanswerable = (C_FOUR..=C_OPEN_FOUR).all(|c| board.class_count(opp, c) == 0);
                let mut found = None;
                for i in 0..list.len() {
                    let m = list.get(i);
                    if unanswerable && board.class(me, m) == C_OPEN_FOUR {
                        found = Some(m);
                        break;
                    }
                    if self.four_wins(board, m, fours_left, ply) {
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
            self.refuted[slot] = (key, fours_left as u8);
        }
        result
    }

    /// Plays the attacker's four `m` and the defender's forced answer; whether the attack wins.
    fn four_wins(&mut self, board: &mut Board, m: Pos, fours_left: usize, ply: usize) -> bool {
        let me = board.side_to_move();
        board.play(m, me);
        let wins = self.defend(board, fours_left - 1, ply + 1);
        board.undo();
        wins
    }

    /// The defender to move after a four: whether the attacker still wins.
    fn defend(&mut self, board: &mut Board, fours_left: usize, ply: usize) -> bool {
        let me = board.side_to_move();
        let opp = me.other();
        if board.class_count(me, C_FIVE) > 0 {
            return false;
        }
        if board.class_count(opp, C_FIVE) >= 2 {
            return true;
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        generate(board, &mut list);
        let block = (!list.is_empty()).then(|| list.get(0));
        self.lists[ply] = list;
        let Some(block) = block else {
            // The only block is forbidden for black.
            return true;
        };
        board.play(block, me);
        let wins = self.attack(board, fours_left, ply + 1).is_some();
        board.undo();
        wins
    }
}

impl Default for Vcf {
    fn default() -> Self {
        Self::new()
    }
}
