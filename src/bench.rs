//! The fixed-depth benchmark: the same positions, depth and table size on every run, so the node
//! count identifies the search's behaviour and nodes/s measures speed.

use crate::game::{Board, Color, Rule};
use crate::search::{SearchLimits, Searcher};
use std::time::{Duration, Instant};

/// Prints a line of the report; a closed stdout (`bench | head -1`) ends the run quietly
/// instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

pub const DEFAULT_DEPTH: i32 = 6;
const BENCH_TT_BYTES: usize = 16 << 20;

/// (rule, size, moves in play order from black) — openings and middle games of each rule.
const POSITIONS: &[(Rule, usize, &str)] = &[
    (Rule::Freestyle, 15, "7,7 8,8 8,6 6,8 9,7 7,9"),
    (
        Rule::Freestyle,
        15,
        "7,7 7,8 8,8 6,6 9,9 10,10 8,7 8,9 6,8 9,6",
    ),
    (Rule::Freestyle, 20, "10,10 11,11 9,11 11,9 10,12 10,9 12,9"),
    (Rule::Standard, 15, "7,7 8,7 7,8 7,6 6,7 8,8 8,6"),
    (Rule::Renju, 15, "7,7 8,6 8,8 6,6 9,9 10,10 7,9 6,9"),
    (Rule::Renju, 15, "7,7 7,6 8,8 6,6 9,7 6,8 6,7 10,8"),
    (
        Rule::Caro {
            overline_wins: false,
        },
        15,
        "7,7 8,8 6,8 8,6 8,7 9,7 6,7",
    ),
    (Rule::Freestyle, 15, "7,7"),
];

pub fn positions() -> Vec<Board> {
    POSITIONS
        .iter()
        .map(|&(rule, size, moves)| {
            let mut b = Board::new(size, size, rule).expect("bench size is valid");
            let mut c = Color::Black;
            for m in moves.split_whitespace() {
                let (x, y) = m.split_once(',').expect("x,y");
                b.try_play(x.parse().unwrap(), y.parse().unwrap(), c)
                    .expect("bench move is legal");
                c = c.other();
            }
            b
        })
        .collect()
}

/// Move+undo pairs per second of the incremental board update, over every empty point of the
/// bench positions (no search, no allocation). Timed in blocks of 20 rounds; the fastest block
/// counts, so a moment without the core on a shared machine does not decide the figure.
pub fn move_undo_rate() -> (u64, f64) {
    const BLOCKS: usize = 12;
    const ROUNDS: usize = 20;
    let mut boards = positions();
    let points: Vec<Vec<_>> = boards
        .iter()
        .map(|b| b.cells_iter().filter(|&p| b.is_empty(p)).collect())
        .collect();
    let mut pairs = 0u64;
    let mut best = 0f64;
    // The first block fills the lazily built pattern tables and the caches; it is not counted.
    for block in 0..=BLOCKS {
        let start = Instant::now();
        let mut block_pairs = 0u64;
        for _ in 0..ROUNDS {
            for (b, pts) in boards.iter_mut().zip(&points) {
                let c = b.side_to_move();
                for &p in pts {
                    b.play(p, c);
                    b.undo();
                }
                block_pairs += pts.len() as u64;
            }
        }
        if block > 0 {
            pairs += block_pairs;
            best = best.max(block_pairs as f64 / start.elapsed().as_secs_f64());
        }
    }
    (pairs, best)
}

/// Total nodes of a fixed-depth search over every bench position.
pub fn run(depth: i32) -> u64 {
    let (pairs, rate) = move_undo_rate();
    say!("move+undo: {pairs} pairs, {:.2} M/s", rate / 1e6);
    // Only the searches are timed: a new table's pages are committed when it is made.
    let mut elapsed = Duration::ZERO;
    let mut total = 0;
    for (i, board) in positions().iter().enumerate() {
        let mut searcher = Searcher::new(BENCH_TT_BYTES);
        let start = Instant::now();
        let report = searcher.think(board, SearchLimits::depth(depth), |_| {});
        elapsed += start.elapsed();
        say!(
            "position {:>2} {:<9} {}x{} best {:<5} score {:<6} nodes {}",
            i + 1,
            board.rule().name(),
            board.width(),
            board.height(),
            report.best.to_string(),
            report.score_text(),
            report.nodes
        );
        total += report.nodes;
    }
    let nps = total as u128 * 1_000_000 / elapsed.as_micros().max(1);
    say!("{total} nodes {nps} nps");
    total
}
