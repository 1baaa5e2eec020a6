//! The history heuristic: per colour and cell, how often a move there refuted the moves
//! searched before it at a node. Quiet candidates look alike to the pattern scores; the same
//! point tends to refute again in the neighbouring subtrees, so its history breaks their ties.
//! In renju a late quiet move whose history is well below zero is also reduced a ply more.

use crate::game::pos::CELLS;
use crate::game::{Color, Pos};

/// The largest magnitude a value approaches (bonuses shrink as it is neared).
const HISTORY_MAX: i32 = 16_384;
/// A value counts this many times less than a pattern-score unit in the move order.
const ORDER_DIVISOR: i32 = 128;

pub struct History {
    table: Vec<[i32; 2]>,
}

impl Default for History {
    fn default() -> History {
        History::new()
    }
}

impl History {
    pub fn new() -> History {
        History {
            table: vec![[0; 2]; CELLS],
        }
    }

    /// Halves every value: the last move's refutations matter, older ones fade.
    pub fn age(&mut self) {
        for v in self.table.iter_mut().flatten() {
            *v /= 2;
        }
    }

    /// The move-order bonus of `c` playing `p`.
    #[inline]
    pub fn order_bonus(&self, c: Color, p: Pos) -> i32 {
        self.table[p.idx()][c.idx()] / ORDER_DIVISOR
    }

    /// The value of `c` playing `p` (for reductions).
    #[inline]
    pub fn value(&self, c: Color, p: Pos) -> i32 {
        self.table[p.idx()][c.idx()]
    }

    /// `c`'s move `p` refuted its node at `depth` (`good`), or was searched before the one
    /// that did (not `good`).
    #[inline]
    pub fn update(&mut self, c: Color, p: Pos, depth: i32, good: bool) {
        let bonus = (depth * depth).min(400) * 16;
        let bonus = if good { bonus } else { -bonus };
        let v = &mut self.table[p.idx()][c.idx()];
        // Gravity: the nearer the bound, the smaller the step, so values stay within it.
        *v += bonus - *v * bonus.abs() / HISTORY_MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_step_by_depth_squared_stay_bounded_and_age_by_halves() {
        let mut h = History::new();
        let p = Pos::new(7, 7);
        h.update(Color::Black, p, 8, true);
        assert_eq!(h.table[p.idx()], [1024, 0]);
        assert_eq!(h.order_bonus(Color::Black, p), 8);
        assert_eq!(
            (h.value(Color::Black, p), h.value(Color::White, p)),
            (1024, 0)
        );
        h.age();
        assert_eq!(h.table[p.idx()], [512, 0]);
        for _ in 0..10_000 {
            h.update(Color::White, p, 30, true);
        }
        let top = h.table[p.idx()][1];
        assert!((HISTORY_MAX * 9 / 10..=HISTORY_MAX).contains(&top), "{top}");
        for _ in 0..10_000 {
            h.update(Color::White, p, 30, false);
        }
        let bottom = h.table[p.idx()][1];
        assert!(
            (-HISTORY_MAX..=-HISTORY_MAX * 9 / 10).contains(&bottom),
            "{bottom}"
        );
    }
}
