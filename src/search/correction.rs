//! Correction history: how far the search's results have landed from the static evaluation in
//! positions of the same kind, learned during the game and added to the evaluation the pruning
//! decisions read. Two kinds of "the same": the same counts of threat points for both sides
//! (the evaluation scores them the same wherever they stand), and the same last two moves (the
//! local fight they began is what the evaluation misjudges). Used in freestyle only: it lost games
//! in renju and standard.

use crate::eval::classical::{C_DOUBLE_THREE, C_FOUR, C_FOUR_THREE, C_THREE};
use crate::game::pos::CELLS;
use crate::game::Board;

/// Entries per colour of each table (a power of two).
const SIZE: usize = 1 << 14;
/// Entries hold the correction times this.
const GRAIN: i32 = 256;
/// The largest correction, in evaluation units.
const LIMIT: i32 = 128;
/// A search of this depth or more moves an entry by its full weight.
const FULL_DEPTH: i32 = 16;

pub struct Correction {
    signature: Vec<[i32; 2]>,
    continuation: Vec<[i32; 2]>,
}

impl Default for Correction {
    fn default() -> Correction {
        Correction::new()
    }
}

#[inline]
fn mix(x: u64) -> usize {
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & (SIZE - 1)
}

impl Correction {
    pub fn new() -> Correction {
        Correction {
            signature: vec![[0; 2]; SIZE],
            continuation: vec![[0; 2]; SIZE],
        }
    }

    /// The table slots of `board` (the side to move's view).
    #[inline]
    fn slots(board: &Board) -> (usize, usize) {
        let me = board.side_to_move();
        let mut sig = 0u64;
        for c in [me, me.other()] {
            for (class, cap) in [
                (C_THREE, 15),
                (C_DOUBLE_THREE, 3),
                (C_FOUR, 7),
                (C_FOUR_THREE, 3),
            ] {
                sig = sig * (cap + 1) + board.class_count(c, class).min(cap as usize) as u64;
            }
        }
        let h = board.history();
        let last = |i: usize| {
            h.len()
                .checked_sub(i)
                .map_or(CELLS as u64, |j| h[j].0.idx() as u64)
        };
        let cont = last(1) * (CELLS as u64 + 1) + last(2);
        (mix(sig), mix(cont ^ 0x5bd1_e995_0000_0000))
    }

    /// The correction of the static evaluation of `board` for the side to move.
    #[inline]
    pub fn of(&self, board: &Board) -> i32 {
        let c = board.side_to_move().idx();
        let (s, k) = Self::slots(board);
        ((self.signature[s][c] + self.continuation[k][c]) / GRAIN).clamp(-LIMIT, LIMIT)
    }

    /// A search of `depth` found `score` where the corrected static evaluation said `stand`.
    #[inline]
    pub fn update(&mut self, board: &Board, depth: i32, stand: i32, score: i32) {
        let c = board.side_to_move().idx();
        let (s, k) = Self::slots(board);
        let target = (score - stand).clamp(-LIMIT, LIMIT) * GRAIN;
        let w = depth.clamp(1, FULL_DEPTH);
        for v in [&mut self.signature[s][c], &mut self.continuation[k][c]] {
            // A moving average: deeper searches weigh more; each table moves by its share.
            let next = *v + (target / 2 - *v) * w / (4 * FULL_DEPTH);
            *v = next.clamp(-LIMIT * GRAIN, LIMIT * GRAIN);
        }
    }

    #[cfg(test)]
    fn colour_entries(&self, board: &Board, c: crate::game::Color) -> (i32, i32) {
        let (s, k) = Self::slots(board);
        (self.signature[s][c.idx()], self.continuation[k][c.idx()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Rule};

    #[test]
    fn corrections_move_towards_the_search_and_stay_bounded() {
        let b = Board::from_stones(Rule::Freestyle, &[(7, 7), (8, 8)], &[(7, 8)], Color::White);
        let mut c = Correction::new();
        assert_eq!(c.of(&b), 0);
        for _ in 0..1_000 {
            c.update(&b, 20, 0, 50);
        }
        // Each table learns half the error, so together they correct all of it.
        assert!((48..=50).contains(&c.of(&b)), "{}", c.of(&b));
        assert_eq!(c.colour_entries(&b, Color::Black), (0, 0));
        for _ in 0..1_000 {
            c.update(&b, 20, 0, -100_000);
        }
        // An error past the limit counts as the limit.
        assert!((-LIMIT..=-LIMIT + 2).contains(&c.of(&b)), "{}", c.of(&b));
        // Shallow searches move it less than deep ones.
        let (mut shallow, mut deep) = (Correction::new(), Correction::new());
        shallow.update(&b, 2, 0, 100);
        deep.update(&b, 12, 0, 100);
        assert!(
            shallow.colour_entries(&b, Color::White).0 < deep.colour_entries(&b, Color::White).0
        );
    }
}
