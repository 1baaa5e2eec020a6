//! Playing levels (`INFO strength 0..100`, `--strength N`): 100 is full strength; below it the
//! engine searches a few best moves (multi-PV) to a limited depth and node count, then picks one
//! of those within a margin of the best at random (seeded), better moves more often. It never
//! plays an illegal move, always takes a five and blocks the opponent's (the move generator
//! offers nothing else then), answers an open three or four (the generator offers only the
//! defences and own fours), plays a win it has found, and avoids a move it sees losing when it
//! sees one that does not.

use super::job::{fallback_move, multipv, Clock};
use super::yixin::{PvLine, Reporter};
use crate::game::Board;
use crate::search::{Report, Searcher, WIN_BOUND};

/// A playing strength, 0 (weakest) to 100 (full strength).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level(u8);

/// Parameters at strength 0, 25, 50, 75 and just below 100; values in between are interpolated.
/// Depth of the search, root moves compared, how much worse (in evaluation units) a picked move
/// may be than the best, and the node budget of each compared move.
///
/// Tuned with `tengen-match` (freestyle 15x15, 1 s per move, balanced openings): this engine
/// gains little from an even depth over the odd one below it (the side to move at the horizon
/// gets a tempo), so the steps use odd depths, and 0 to 25 differ only in how random the pick
/// is. The node budgets bound the time a level takes (strength 75 may need about a second).
const DEPTH: [i32; 5] = [1, 1, 3, 5, 7];
const WIDTH: [usize; 5] = [8, 3, 3, 3, 2];
const MARGIN: [i32; 5] = [400, 60, 60, 60, 10];
const NODES: [u64; 5] = [5_000, 5_000, 60_000, 200_000, 1_000_000];

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A random number below `n` from `seed`.
pub fn random_below(seed: u64, n: u64) -> u64 {
    if n == 0 {
        0
    } else {
        splitmix(seed) % n
    }
}

impl Level {
    pub const FULL: Level = Level(100);

    pub fn new(strength: i64) -> Level {
        Level(strength.clamp(0, 100) as u8)
    }

    pub fn strength(self) -> u8 {
        self.0
    }

    pub fn is_full(self) -> bool {
        self.0 >= 100
    }

    fn interpolate(self, table: [f64; 5]) -> f64 {
        let s = self.0.min(99) as f64 / 25.0;
        let i = (s.floor() as usize).min(3);
        let f = s - i as f64;
        table[i] + (table[i + 1] - table[i]) * f
    }

    /// The deepest iteration.
    pub fn depth(self) -> i32 {
        self.interpolate(DEPTH.map(|d| d as f64)).floor() as i32
    }

    /// How many root moves are compared.
    pub fn width(self) -> usize {
        self.interpolate(WIDTH.map(|w| w as f64)).round() as usize
    }

    /// How much worse than the best a picked move may be.
    pub fn margin(self) -> i32 {
        self.interpolate(MARGIN.map(|m| m as f64)).round() as i32
    }

    /// Node budget of the whole move.
    pub fn nodes(self) -> u64 {
        let per_line = self.interpolate(NODES.map(|n| n as f64)) as u64;
        per_line.saturating_mul(self.width() as u64)
    }

    /// The index of the line to play among `lines` (best first), or `None` if there is none.
    pub fn pick(self, lines: &[PvLine], seed: u64) -> Option<usize> {
        let top = lines.first()?.score;
        if self.is_full() || top > WIN_BOUND {
            return Some(0);
        }
        let margin = self.margin();
        let ok: Vec<(usize, u64)> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| top - l.score <= margin && (l.score >= -WIN_BOUND || top < -WIN_BOUND))
            .map(|(i, l)| (i, (margin - (top - l.score) + margin / 3 + 1).max(1) as u64))
            .collect();
        let total: u64 = ok.iter().map(|&(_, w)| w).sum();
        let mut r = random_below(seed, total);
        for &(i, w) in &ok {
            if r < w {
                return Some(i);
            }
            r -= w;
        }
        Some(0)
    }

    /// Chooses a move at this level; returns it and a report for the move's summary line.
    pub fn play(
        self,
        searcher: &mut Searcher,
        board: &Board,
        clock: &mut Clock,
        seed: u64,
        rep: &mut Reporter,
    ) -> (PvLine, Report) {
        clock.max_nodes = clock.max_nodes.min(self.nodes());
        let mp = multipv(
            searcher,
            board,
            clock,
            self.width(),
            false,
            self.depth(),
            rep,
        );
        let line = match self.pick(&mp.lines, seed) {
            Some(i) => mp.lines[i].clone(),
            None => {
                let mv = fallback_move(board);
                PvLine {
                    mv,
                    score: 0,
                    depth: 0,
                    pv: vec![mv],
                    nodes: 0,
                }
            }
        };
        let report = Report {
            best: line.mv,
            score: line.score,
            depth: line.depth,
            nodes: clock.nodes_used,
            elapsed: clock.elapsed(),
            pv: line.pv.clone(),
        };
        (line, report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Pos;

    fn line(x: usize, score: i32) -> PvLine {
        PvLine {
            mv: Pos::new(x, 0),
            score,
            depth: 3,
            pv: vec![Pos::new(x, 0)],
            nodes: 1,
        }
    }

    #[test]
    fn parameters_grow_with_strength() {
        let levels: Vec<Level> = [0, 25, 50, 75, 99].map(Level::new).to_vec();
        assert_eq!(
            levels.iter().map(|l| l.depth()).collect::<Vec<_>>(),
            vec![1, 1, 3, 5, 6]
        );
        for w in levels.windows(2) {
            assert!(w[0].depth() <= w[1].depth());
            assert!(w[0].margin() >= w[1].margin());
            assert!(w[0].width() >= w[1].width());
        }
        assert!(Level::new(150).is_full() && !Level::new(99).is_full());
        assert_eq!(Level::new(-3).strength(), 0);
    }

    #[test]
    fn picks_stay_within_the_margin_and_vary_with_the_seed() {
        let lines = vec![line(0, 100), line(1, 90), line(2, 60), line(3, -500)];
        let l = Level::new(25); // margin 150
        let mut seen = std::collections::HashSet::new();
        for seed in 0..200 {
            let i = l.pick(&lines, seed).unwrap();
            assert!(i < 3, "never the move 600 worse");
            seen.insert(i);
            assert_eq!(
                l.pick(&lines, seed),
                Some(i),
                "seeded: the same seed, the same pick"
            );
        }
        assert_eq!(seen.len(), 3);
        // Strength 90 has a margin of 18: only the two best moves qualify.
        for seed in 0..50 {
            assert!(Level::new(90).pick(&lines, seed).unwrap() < 2);
        }
    }

    #[test]
    fn wins_are_played_and_losses_avoided() {
        let win = vec![line(0, WIN_BOUND + 50), line(1, 100)];
        let lose = vec![line(0, 10), line(1, -WIN_BOUND - 5)];
        for seed in 0..50 {
            assert_eq!(Level::new(0).pick(&win, seed), Some(0));
            assert_eq!(Level::new(0).pick(&lose, seed), Some(0));
        }
        assert_eq!(Level::new(0).pick(&[], 1), None);
    }
}
