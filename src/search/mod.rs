//! Iterative-deepening PVS alpha-beta with a transposition table and a four-move threat search
//! (VCF) at the horizon.

pub mod correction;
pub mod history;
pub mod movepick;
pub mod root_threats;
pub mod threat;
pub mod time;
pub mod tt;
pub mod vct;

use crate::eval::classical::{self, C_FIVE, C_FOUR, C_FOUR_THREE, C_OPEN_FOUR, C_THREE};
use crate::game::pattern::Pattern;
use crate::game::{Board, Color, Pos, Rule};
use correction::Correction;
use history::History;
use movepick::{
    generate, generate_fours, generate_fours_near, generate_unordered, MoveList, Situation,
};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tt::{TranspositionTable, BOUND_EXACT, BOUND_LOWER, BOUND_UPPER};

/// Score of a five made at ply 0; a win found `n` plies later scores `WIN - n`.
pub const WIN: i32 = 30_000;
/// Scores beyond this are forced wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
const INF: i32 = WIN + 1;
pub const MAX_PLY: usize = 120;
/// Four-moves the threat search may chain at the horizon.
const VCF_DEPTH: i32 = 8;
/// Longest VCF the root solver looks for, in attacker moves.
pub const MAX_VCF_FOURS: usize = 112;
/// Root VCF node budget per millisecond of the hard time limit.
const VCF_NODES_PER_MS: u64 = 500;
/// Iterations from this depth search a window of this half-width around the last score first.
const ASPIRATION_DEPTH: i32 = 4;
const ASPIRATION_WINDOW: i32 = 60;
/// Null-move pruning from this remaining depth.
const NULL_MIN_DEPTH: i32 = 3;
/// Quiet moves are skipped at this depth and below when the static evaluation is this far
/// (per ply of depth) below alpha.
const FUTILITY_DEPTH: i32 = 2;
const FUTILITY_MARGIN: i32 = 120;
/// Move-count pruning: at this depth and below only the first `LMP_BASE + depth²` moves and the
/// threats among the rest are searched.
const LMP_DEPTH: i32 = 4;
/// Renju and caro prune so up to this depth (at 0.2 s a move, renju about +12 over three runs,
/// 977 games; caro about +18 over three runs, 1200 games); standard 15x15 gained nothing with
/// it, freestyle 20x20 lost.
const LMP_DEPTH_DEEP: i32 = 8;
const LMP_BASE: usize = 4;
/// Against an open three (the list holds only our fours and the points where the opponent
/// would make a four or better) a non-PV node up to this depth skips the moves after the first
/// `DEFEND_LMP_BASE + depth²` once one searched move was not seen to lose: later moves there
/// rarely beat the earlier ones (`bench 10`, depth 1: 409 of 47 K moves from the fourth on beat
/// alpha).
const DEFEND_LMP_DEPTH: i32 = 2;
const DEFEND_LMP_BASE: usize = 2;
/// Late quiet moves are searched one ply shallower (two when very late and deep).
const LMR_DEPTH: i32 = 3;
const LMR_FIRST: usize = 4;
/// In renju a reduced move whose history is below minus this is reduced a ply more (in
/// freestyle, standard and caro it measured +16.5, -24.7 and -13.0, in renju +39.8).
const LMR_BAD_HISTORY: i32 = 2_000;
/// Reverse futility pruning up to this depth, with this margin per ply beyond the first.
const RFP_DEPTH: i32 = 3;
const RFP_MARGIN: i32 = 100;
/// Singular extensions: from this depth, a table move whose stored lower bound (from at most 3
/// plies shallower), less the margin per ply, no other move reaches in a search of half the
/// depth is searched a ply deeper.
const SE_DEPTH: i32 = 6;
/// Standard's singular extensions start a ply earlier: +28.7 [+1.2, +56.6] over 400 games there
/// (fortieth session; the thirty-second session's run +9.6, about +19 over the 800), while in
/// freestyle (+1.7 over 400) and renju (-2.0 over 341) depth 5 was no better.
const SE_DEPTH_STANDARD: i32 = 5;
const SE_MARGIN: i32 = 10;
/// Internal iterative reduction: a node of at least this depth with no table move is searched a
/// ply shallower.
const IIR_DEPTH: i32 = 4;
/// Per ply of depth, how far the static evaluation must exceed beta for the fail-high reduction.
const FAIL_HIGH_MARGIN: i32 = 20;
/// Share of the hard limit after which a finished iteration hands the rest to the VCT solver.
const VCT_TAIL_PERCENT: u128 = 35;
/// Share of the hard limit the VCT solver is sure of on moves of at least `VCT_SHARE_HARD` once
/// an iteration scores at least `VCT_SHARE_SCORE` (a clear advantage, where a win by threats is
/// likely): an iteration still running when only this much is left is stopped for it.
const VCT_MIN_PERCENT: u32 = 30;
const VCT_SHARE_SCORE: i32 = 400;
const VCT_SHARE_HARD: Duration = Duration::from_millis(500);
/// Lazy SMP helpers add up to this much noise to their move-ordering scores.
const HELPER_ORDER_NOISE: i32 = 24;
/// How often (in nodes) the clock and the stop flag are read.
const CHECK_EVERY: u64 = 32;

/// What bounds one search.
#[derive(Clone, Debug)]
pub struct SearchLimits {
    pub start: Instant,
    /// Do not start another iteration after this.
    pub soft: Duration,
    /// Abort the search at this.
    pub hard: Duration,
    pub max_depth: i32,
    pub max_nodes: u64,
}

impl SearchLimits {
    /// A fixed-depth search with no clock (bench, tests).
    pub fn depth(depth: i32) -> SearchLimits {
        SearchLimits {
            start: Instant::now(),
            soft: Duration::MAX,
            hard: Duration::MAX,
            max_depth: depth,
            max_nodes: u64::MAX,
        }
    }
}

/// The result of a search, also reported after each completed iteration.
#[derive(Clone, Debug)]
pub struct Report {
    pub best: Pos,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Pos>,
}

impl Report {
    pub fn nps(&self) -> u64 {
        let us = self.elapsed.as_micros().max(1) as u64;
        self.nodes.saturating_mul(1_000_000) / us
    }

    /// The score as players read it: centipawn-like number, or `+M5` / `-M3` for a forced result
    /// in that many moves of the winner.
    pub fn score_text(&self) -> String {
        score_text(self.score)
    }
}

pub fn score_text(score: i32) -> String {
    if score > WIN_BOUND {
        format!("+M{}", (WIN - score + 1) / 2)
    } else if score < -WIN_BOUND {
        format!("-M{}", (WIN + score + 1) / 2)
    } else {
        score.to_string()
    }
}

/// Most search threads the engine runs.
pub const MAX_THREADS: usize = 64;
/// Stack of a helper search thread.
const HELPER_STACK: usize = 16 << 20;

/// An observer that ignores everything (helper threads).
struct NoObserver;
impl Observer for NoObserver {}

/// Hooks into a running search (realtime GUI output); every method defaults to nothing.
pub trait Observer {
    /// The search starts on root move `m` at `depth`.
    fn root_move_started(&mut self, _depth: i32, _m: Pos) {}
    /// Root move `m` finished at `depth` with `score` (a bound unless it became the best).
    fn root_move_done(&mut self, _depth: i32, _m: Pos, _score: i32) {}
    /// An iteration completed.
    fn iteration(&mut self, _report: &Report) {}
    /// The root VCT solver starts, `elapsed` into the move.
    fn vct_started(&mut self, _elapsed: Duration) {}
}

pub struct Searcher {
    tt: Arc<TranspositionTable>,
    /// Set by the protocol to stop the search now.
    stop: Arc<AtomicBool>,
    /// Set by the main thread when it has its answer: helper threads stop.
    done: Arc<AtomicBool>,
    /// The iteration the main thread is searching: helpers keep ahead of it.
    main_depth: Arc<AtomicI32>,
    /// Search threads (Lazy SMP): this one plus `threads - 1` helpers sharing the table.
    threads: usize,
    helpers: Vec<Searcher>,
    is_helper: bool,
    helper_index: usize,
    limits: SearchLimits,
    nodes: u64,
    aborted: bool,
    pv: Vec<[Pos; MAX_PLY]>,
    pv_len: [usize; MAX_PLY + 1],
    /// One reusable move list per ply.
    lists: Vec<MoveList>,
    /// Whether the move into each ply was a null move (no two in a row).
    null_into: [bool; MAX_PLY + 1],
    /// Per ply, the move a singular-extension check leaves out (`Pos::NONE`: none).
    excluded: [Pos; MAX_PLY + 1],
    history: History,
    correction: Correction,
    vcf: threat::ThreatSolver,
    /// The root VCT solver of the main thread, made on first use (its tables are large).
    vct: Option<Box<vct::VctSolver>>,
    /// Whether the root may search for a VCT (the protocol turns it off when the memory limit
    /// has no room for the solver's tables).
    root_vct: bool,
    /// When the alpha-beta search of this move ends (the hard limit, or earlier to leave the
    /// VCT solver its share).
    search_end: Duration,
}

fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s > WIN_BOUND {
        s + ply as i32
    } else if s < -WIN_BOUND {
        s - ply as i32
    } else {
        s
    }
}

fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s > WIN_BOUND {
        s - ply as i32
    } else if s < -WIN_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// Whether a stored score `s` with `bound` settles a node searched with the window
/// (`alpha`, `beta`).
#[inline]
fn bound_decides(bound: u8, s: i32, alpha: i32, beta: i32) -> bool {
    bound == BOUND_EXACT
        || (bound == BOUND_LOWER && s >= beta)
        || (bound == BOUND_UPPER && s <= alpha)
}

/// The bound a search result `best` is, for a node entered with the window (`alpha_in`, `beta`).
#[inline]
fn bound_of(best: i32, alpha_in: i32, beta: i32) -> u8 {
    if best >= beta {
        BOUND_LOWER
    } else if best > alpha_in {
        BOUND_EXACT
    } else {
        BOUND_UPPER
    }
}

impl Searcher {
    pub fn new(tt_bytes: usize) -> Searcher {
        Searcher {
            tt: Arc::new(TranspositionTable::new(tt_bytes)),
            stop: Arc::new(AtomicBool::new(false)),
            done: Arc::new(AtomicBool::new(false)),
            main_depth: Arc::new(AtomicI32::new(0)),
            threads: 1,
            helpers: Vec::new(),
            is_helper: false,
            helper_index: 0,
            limits: SearchLimits::depth(1),
            nodes: 0,
            aborted: false,
            pv: vec![[Pos::NONE; MAX_PLY]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            lists: (0..=MAX_PLY).map(|_| MoveList::with_capacity()).collect(),
            null_into: [false; MAX_PLY + 1],
            excluded: [Pos::NONE; MAX_PLY + 1],
            history: History::new(),
            correction: Correction::new(),
            vcf: threat::ThreatSolver::vcf(),
            vct: None,
            root_vct: true,
            search_end: Duration::ZERO,
        }
    }

    /// How full the transposition table is, in thousandths.
    pub fn tt_usage_permille(&self) -> usize {
        self.tt.usage_permille()
    }

    pub fn tt_bytes(&self) -> usize {
        self.tt.size_bytes()
    }

    /// Makes the table the size `TranspositionTable::new(bytes)` would have; a table of that
    /// size already is kept with its entries (a request that is not a power of two once made
    /// every move allocate, commit and clear a new table: with Gomocup's `max_memory` and 30 s
    /// turns, about 0.1-0.3 s of every move).
    pub fn resize_tt(&mut self, bytes: usize) {
        if TranspositionTable::rounded_bytes(bytes) != self.tt.size_bytes() {
            // Free the old table (helpers hold it too) before allocating the new one: peak
            // memory stays at one table.
            self.helpers.clear();
            self.tt = Arc::new(TranspositionTable::new(64));
            self.tt = Arc::new(TranspositionTable::new(bytes));
        }
    }

    /// Allows or forbids the root VCT search; forbidding it frees its tables.
    pub fn set_root_vct(&mut self, on: bool) {
        self.root_vct = on;
        if !on {
            self.vct = None;
        }
    }

    /// Uses `n` search threads (at least one). `bench` keeps one: a single thread is
    /// deterministic.
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.clamp(1, MAX_THREADS);
        self.helpers.truncate(self.threads - 1);
    }

    /// A helper thread's searcher: it shares the table and the flags.
    fn helper(&self) -> Searcher {
        let mut h = Searcher::new(64);
        h.tt = self.tt.clone();
        h.stop = self.stop.clone();
        h.done = self.done.clone();
        h.main_depth = self.main_depth.clone();
        h.is_helper = true;
        h
    }

    /// Empties the transposition table and forgets the history of every thread.
    pub fn clear_tt(&mut self) {
        self.tt.clear();
        // What the searches learned goes with the table.
        self.history = History::new();
        self.correction = Correction::new();
        for h in &mut self.helpers {
            h.history = History::new();
            h.correction = Correction::new();
        }
    }

    /// The flag that aborts a running search when set.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Searches `board` for the side to move. `on_iteration` sees each completed iteration.
    pub fn think(
        &mut self,
        board: &Board,
        limits: SearchLimits,
        mut on_iteration: impl FnMut(&Report),
    ) -> Report {
        struct Iterations<F>(F);
        impl<F: FnMut(&Report)> Observer for Iterations<F> {
            fn iteration(&mut self, report: &Report) {
                (self.0)(report)
            }
        }
        self.think_with(board, limits, &[], &mut Iterations(&mut on_iteration))
    }

    /// Searches `board` for the side to move without considering the root moves in `excluded`
    /// (multi-PV searches call this repeatedly), telling `observer` about its progress. With
    /// several threads, helpers search the same position and fill the shared table; the answer
    /// is this thread's, or that of a helper that completed a deeper iteration (not under a
    /// node limit, which each thread has in full, nor over a proven result of this thread).
    pub fn think_with(
        &mut self,
        board: &Board,
        limits: SearchLimits,
        excluded: &[Pos],
        observer: &mut dyn Observer,
    ) -> Report {
        if self.threads <= 1 {
            return self.think_alone(board, limits, excluded, observer);
        }
        while self.helpers.len() < self.threads - 1 {
            let mut h = self.helper();
            h.helper_index = self.helpers.len() + 1;
            self.helpers.push(h);
        }
        self.tt.new_search();
        self.done.store(false, Ordering::Relaxed);
        self.main_depth.store(0, Ordering::Relaxed);
        let mut helpers = std::mem::take(&mut self.helpers);
        let mut spawned_count = 0;
        let (mut report, deepest) = std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for (i, h) in helpers.iter_mut().enumerate() {
                let (board, limits) = (board.clone(), limits.clone());
                let spawned = std::thread::Builder::new()
                    .name(format!("helper-{}", i + 1))
                    .stack_size(HELPER_STACK)
                    .spawn_scoped(scope, move || {
                        h.think_alone(&board, limits, excluded, &mut NoObserver)
                    });
                match spawned {
                    Ok(handle) => handles.push(handle),
                    Err(_) => break,
                }
                spawned_count += 1;
            }
            let report = self.think_alone(board, limits.clone(), excluded, observer);
            self.done.store(true, Ordering::Relaxed);
            let deepest = handles
                .into_iter()
                .filter_map(|h| h.join().ok())
                .max_by_key(|r| r.depth);
            (report, deepest)
        });
        // A helper that completed a deeper iteration than this thread answers instead (unless
        // this thread's answer is a proven result, which a solver may have found).
        if let Some(r) = deepest.filter(|_| limits.max_nodes == u64::MAX) {
            if r.depth > report.depth && report.score.abs() < WIN_BOUND && !r.best.is_none() {
                report.best = r.best;
                report.score = r.score;
                report.depth = r.depth;
                report.pv = r.pv;
            }
        }
        report.nodes += helpers[..spawned_count]
            .iter()
            .map(|h| h.nodes)
            .sum::<u64>();
        self.helpers = helpers;
        report
    }

    /// The search of one thread.
    fn think_alone(
        &mut self,
        board: &Board,
        limits: SearchLimits,
        excluded: &[Pos],
        observer: &mut dyn Observer,
    ) -> Report {
        let mut board = board.clone();
        self.limits = limits;
        self.search_end = self.limits.hard;
        self.nodes = 0;
        self.aborted = false;
        self.history.age();
        if self.threads <= 1 && !self.is_helper {
            self.tt.new_search();
        }
        let mut root = MoveList::with_capacity();
        let situation = generate(&mut board, &mut root);
        let no_move = root.is_empty();
        root.retain(|p| !excluded.contains(&p));
        let mut report = Report {
            best: if root.is_empty() {
                Pos::NONE
            } else {
                root.get(0)
            },
            score: if no_move {
                no_move_score(situation, 0)
            } else {
                0
            },
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: Vec::new(),
        };
        if root.is_empty() {
            return report;
        }
        if let Some(r) = self.root_threats(&mut board, excluded) {
            return r;
        }
        if root.len() <= 1 && excluded.is_empty() {
            // Nothing to choose: answer at once.
            report.elapsed = self.limits.start.elapsed();
            report.pv = report
                .best
                .is_none()
                .then(Vec::new)
                .unwrap_or_else(|| vec![report.best]);
            return report;
        }
        // Deeper than MAX_PLY means nothing; small boards would otherwise iterate forever fast.
        let max_depth = self.limits.max_depth.clamp(1, (MAX_PLY - 20) as i32);
        // Half the helpers start one iteration deeper, so the threads do not all walk the same
        // tree in step.
        let first_depth = if self.is_helper && self.helper_index % 2 == 1 {
            2.min(max_depth)
        } else {
            1
        };
        let mut vct_tried = false;
        let vct_share =
            excluded.is_empty() && self.limits.hard >= VCT_SHARE_HARD && self.vct_allowed(&board);
        // The first iteration always finishes (unless stopped or out of nodes): it takes
        // microseconds to a few milliseconds, and its move is far better than the unsearched
        // first candidate, which a clock already run out (time_left 0, a 1 ms turn) would give.
        let normal_end = self.search_end;
        if !self.is_helper {
            self.search_end = Duration::MAX;
        }
        // Helpers search one or two plies deeper than the main thread: at its depth they would
        // walk the same tree in step with it (they read each other's entries), and the table
        // would gain nothing.
        let ahead = 1 + (self.helper_index as i32 + 1) % 2;
        for depth in first_depth..=max_depth {
            if !self.is_helper {
                self.main_depth.store(depth, Ordering::Relaxed);
            } else if depth < self.main_depth.load(Ordering::Relaxed) + ahead && depth < max_depth {
                continue;
            }
            // Aspiration: a window around the last score, widened on the side that fails.
            let (mut lo, mut hi) = if depth >= ASPIRATION_DEPTH && report.score.abs() < WIN_BOUND {
                (
                    report.score - ASPIRATION_WINDOW,
                    report.score + ASPIRATION_WINDOW,
                )
            } else {
                (-INF, INF)
            };
            let (score, best) = loop {
                let (score, best) =
                    self.search_root(&mut board, &mut root, depth, lo, hi, observer);
                if self.aborted {
                    break (score, best);
                }
                if score <= lo && lo > -INF {
                    lo = -INF;
                } else if score >= hi && hi < INF {
                    if let Some(m) = best {
                        root.bring_to_front(m);
                    }
                    hi = INF;
                } else {
                    break (score, best);
                }
            };
            if depth == first_depth {
                self.search_end = normal_end;
            }
            if self.aborted {
                // A root move proven better than the previous best in this iteration is kept.
                if let Some(m) = best {
                    if m != report.best && depth > 1 {
                        report.best = m;
                        report.pv = self.pv[0][..self.pv_len[0]].to_vec();
                    }
                }
                break;
            }
            report.score = score;
            report.depth = depth;
            if let Some(m) = best {
                report.best = m;
                report.pv = self.pv[0][..self.pv_len[0]].to_vec();
                root.bring_to_front(m);
            }
            report.nodes = self.nodes;
            report.elapsed = self.limits.start.elapsed();
            observer.iteration(&report);
            if vct_share {
                self.search_end = if score >= VCT_SHARE_SCORE {
                    self.limits.hard / 100 * (100 - VCT_MIN_PERCENT)
                } else {
                    self.limits.hard
                };
            }
            if score > WIN_BOUND && excluded.is_empty() {
                // A win the search proved: the solver's win of no more threats, when it finds
                // one, is played instead.
                let threats = ((WIN - score + 1) / 2) as usize;
                if let Some(r) = self.solver_win_as_short(&mut board, threats) {
                    report.best = r.best;
                    report.score = r.score;
                    report.pv = r.pv;
                }
                break;
            }
            if score.abs() > WIN_BOUND || report.elapsed >= self.limits.soft {
                break;
            }
            // The next iteration would likely not finish: its time goes to a search for a win
            // by continuous threats instead, which the alpha-beta search sees only late.
            let tail = self.limits.hard.as_millis() * VCT_TAIL_PERCENT / 100;
            if report.elapsed.as_millis() >= tail
                && excluded.is_empty()
                && !vct_tried
                && self.vct_allowed(&board)
            {
                vct_tried = true;
                if self.vct_into_report(&mut board, &mut report, observer) {
                    break;
                }
            }
        }
        if self.aborted
            && vct_share
            && !vct_tried
            && !self.stop.load(Ordering::Relaxed)
            && self.nodes < self.limits.max_nodes
            && self.limits.start.elapsed() < self.limits.hard
        {
            // The search stopped to leave the solver its share of the move.
            self.vct_into_report(&mut board, &mut report, observer);
        }
        report.nodes = self.nodes;
        report.elapsed = self.limits.start.elapsed();
        report
    }

    /// Runs the root VCT solver for the rest of the move; a win it finds becomes the report's
    /// move (true).
    fn vct_into_report(
        &mut self,
        board: &mut Board,
        report: &mut Report,
        observer: &mut dyn Observer,
    ) -> bool {
        observer.vct_started(self.limits.start.elapsed());
        let Some(m) = self.root_vct(board) else {
            return false;
        };
        report.best = m;
        report.score = root_threats::VCT_WIN_SCORE;
        report.pv = vec![m];
        true
    }

    /// One iteration over the root moves: the first with a full window, the rest with a null
    /// window and a re-search when they beat the best. Returns the best score and move found
    /// (the move may come from an aborted iteration; the score then means nothing).
    fn search_root(
        &mut self,
        board: &mut Board,
        root: &mut MoveList,
        depth: i32,
        lo: i32,
        hi: i32,
        observer: &mut dyn Observer,
    ) -> (i32, Option<Pos>) {
        let me = board.side_to_move();
        let (mut alpha, beta) = (lo, hi);
        let mut best = None;
        self.pv_len[0] = 0;
        for i in 0..root.len() {
            let m = root.get(i);
            observer.root_move_started(depth, m);
            self.nodes += 1;
            board.play(m, me);
            let mut score;
            if i == 0 {
                score = -self.pvs(board, depth - 1, -beta, -alpha, 1, true);
            } else {
                score = -self.pvs(board, depth - 1, -alpha - 1, -alpha, 1, false);
                if score > alpha && !self.aborted {
                    score = -self.pvs(board, depth - 1, -beta, -alpha, 1, true);
                }
            }
            board.undo();
            if self.aborted {
                break;
            }
            observer.root_move_done(depth, m, score);
            if score > alpha {
                alpha = score;
                best = Some(m);
                self.update_pv(0, m);
                if alpha >= beta {
                    break;
                }
            }
        }
        (alpha, best)
    }

    #[inline]
    fn poll(&mut self) -> bool {
        if self.nodes % CHECK_EVERY == 0
            && (self.stop.load(Ordering::Relaxed)
                || (self.is_helper && self.done.load(Ordering::Relaxed))
                || self.nodes >= self.limits.max_nodes
                || self.limits.start.elapsed() >= self.search_end)
        {
            self.aborted = true;
        }
        self.aborted
    }

    #[inline]
    fn evaluate(board: &Board) -> i32 {
        classical::evaluate_board(board)
    }

    fn key(board: &Board) -> u64 {
        // Rule and size salt the key: one table serves games of different rules and sizes.
        let salt = (board.rule().info_value() as u64 + 1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add((board.width() * 64 + board.height()) as u64)
            .wrapping_mul(0xD6E8_FEB8_6659_FD93);
        board.hash() ^ salt
    }

    fn pvs(
        &mut self,
        board: &mut Board,
        mut depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        self.pv_len[ply] = 0;
        self.nodes += 1;
        if self.poll() {
            return 0;
        }
        let me = board.side_to_move();
        if board.class_count(me, C_FIVE) > 0 {
            return WIN - (ply as i32 + 1);
        }
        if board.is_full() {
            return 0;
        }
        if ply >= MAX_PLY - 8 {
            return Self::evaluate(board);
        }
        if depth <= 0 {
            return self.qsearch(board, alpha, beta, ply, VCF_DEPTH);
        }
        let excluded = self.excluded[ply];
        let key = Self::key(board);
        let mut tt_move = Pos::NONE;
        let mut tt_hit = None;
        // On a principal variation now or when the table last saw this position: in renju
        // such nodes are reduced less, the line through them likely to become the PV again.
        let mut tt_pv = pv_node;
        if let Some(h) = self.tt.probe(key).filter(|_| excluded.is_none()) {
            tt_move = h.best;
            tt_pv |= h.pv;
            let s = score_from_tt(h.score, ply);
            if !pv_node && h.depth >= depth && bound_decides(h.bound, s, alpha, beta) {
                return s;
            }
            tt_hit = Some((h, s));
        }
        if depth >= IIR_DEPTH && tt_move.is_none() && excluded.is_none() {
            // Internal iterative reduction: with no table move the order is a guess, so the
            // node is searched a ply shallower (the next iteration finds the table move).
            depth -= 1;
        }
        let opp = me.other();
        // The opponent threatens nothing that a pass would let through at once.
        let calm = board.class_count(opp, C_FIVE) == 0 && board.class_count(opp, C_OPEN_FOUR) == 0;
        // Freestyle only (+22.6 over 400, then H1 at +64.3 after 153); renju -22.4 (H0 after
        // 372) and standard -6.9 over 400 lost by it.
        let corrected = board.rule() == Rule::Freestyle;
        let stand = match (calm, corrected) {
            (false, _) => -INF,
            (true, false) => Self::evaluate(board),
            (true, true) => Self::evaluate(board) + self.correction.of(board),
        };
        if !pv_node
            && calm
            && excluded.is_none()
            && depth <= RFP_DEPTH
            && stand - RFP_MARGIN * (depth - 1) >= beta
            && board.class_count(opp, C_FOUR_THREE) == 0
            && stand.abs() < WIN_BOUND
            && beta.abs() < WIN_BOUND
        {
            // Reverse futility: so far above beta near the horizon that no move will fall
            // below it.
            return stand;
        }
        if !pv_node
            && calm
            && depth >= NULL_MIN_DEPTH
            && excluded.is_none()
            && !self.null_into[ply]
            && stand >= beta
            && beta.abs() < WIN_BOUND
        {
            // Null move: if passing still holds beta, a real move will too.
            let r = 2 + depth / 4;
            board.set_side_to_move(opp);
            self.null_into[ply + 1] = true;
            let score = -self.pvs(board, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
            self.null_into[ply + 1] = false;
            board.set_side_to_move(me);
            if self.aborted {
                return 0;
            }
            if score >= beta {
                return if score > WIN_BOUND { beta } else { score };
            }
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        let situation = self.candidates(board, &mut list, key);
        if list.is_empty() {
            self.lists[ply] = list;
            return no_move_score(situation, ply);
        }
        if situation == Situation::BlockFive && board.class_count(me.other(), C_FIVE) >= 2 {
            // Two five points: one block cannot stop both.
            self.lists[ply] = list;
            return -(WIN - (ply as i32 + 2));
        }
        if !tt_move.is_none() {
            list.bring_to_front(tt_move);
        }
        let extension = (situation == Situation::BlockFive && list.len() == 1) as i32;
        // Singular extension: the table move, when no other move comes near its stored lower
        // bound in a search of half the depth, gets a ply more.
        let mut singular = false;
        if let Some((h, tt_score)) = tt_hit {
            let se_depth = match board.rule() {
                Rule::Standard => SE_DEPTH_STANDARD,
                _ => SE_DEPTH,
            };
            if depth >= se_depth
                && extension == 0
                && situation == Situation::Normal
                && !tt_move.is_none()
                && h.bound != BOUND_UPPER
                && h.depth >= depth - 3
                && tt_score.abs() < WIN_BOUND
                && list.len() > 1
            {
                let singular_beta = tt_score - SE_MARGIN * depth;
                self.lists[ply] = list;
                self.excluded[ply] = tt_move;
                let score = self.pvs(
                    board,
                    (depth - 1) / 2,
                    singular_beta - 1,
                    singular_beta,
                    ply,
                    false,
                );
                self.excluded[ply] = Pos::NONE;
                self.pv_len[ply] = 0;
                list = std::mem::take(&mut self.lists[ply]);
                if self.aborted {
                    self.lists[ply] = list;
                    return 0;
                }
                singular = score < singular_beta;
                if !singular && singular_beta >= beta {
                    // Multi-cut: without the table move another move still reaches beta, and
                    // the table move's own bound does too, so the node fails high.
                    self.lists[ply] = list;
                    return singular_beta;
                }
                // The check searched this node's list (and its cut-offs moved the history): the
                // list again, the table move first.
                self.candidates(board, &mut list, key);
                list.bring_to_front(tt_move);
            }
        }
        // Far above beta with nothing to answer: likely to fail high, so the moves that make no
        // four are searched a ply shallower.
        let likely_high = !pv_node
            && calm
            && situation == Situation::Normal
            && stand >= beta + FAIL_HIGH_MARGIN * depth
            && beta.abs() < WIN_BOUND;
        let alpha_in = alpha;
        let mut best = -INF;
        let mut best_move = Pos::NONE;
        let prunable = situation == Situation::Normal && !pv_node;
        let futile = prunable
            && calm
            && depth <= FUTILITY_DEPTH
            && stand + FUTILITY_MARGIN * depth <= alpha
            && alpha.abs() < WIN_BOUND;
        let lmp_depth = match board.rule() {
            Rule::Renju | Rule::Caro { .. } => LMP_DEPTH_DEEP,
            Rule::Freestyle | Rule::Standard => LMP_DEPTH,
        };
        let move_count_limit = if prunable && depth <= lmp_depth {
            LMP_BASE + (depth * depth) as usize
        } else if !pv_node && situation == Situation::Defend && depth <= DEFEND_LMP_DEPTH {
            DEFEND_LMP_BASE + (depth * depth) as usize
        } else {
            usize::MAX
        };
        for i in 0..list.len() {
            let m = list.pick(i);
            if m == excluded {
                continue;
            }
            let (mine, theirs) = (board.class(me, m), board.class(opp, m));
            // A quiet move neither makes nor stops an open three or better.
            let quiet = mine < C_THREE && theirs < C_THREE;
            // A minor defence makes no open three and takes a point where the opponent would
            // make one open three or one four (no double threat); it is pruned and reduced like
            // a quiet move: most candidates near the horizon are such points. As for quiet
            // moves, a move is skipped only once a sibling was searched and not seen to lose,
            // so a threat the search sees is still answered; one beyond the horizon may be
            // missed.
            let minor_defence = mine < C_THREE && matches!(theirs, C_THREE | C_FOUR);
            let light = quiet || minor_defence;
            // Past the move-count limit every move of a Defend node is skipped, elsewhere only
            // light ones (futility applies at normal nodes only).
            let past_limit = i >= move_count_limit && (light || situation == Situation::Defend);
            if i > 0 && best > -WIN_BOUND && ((light && futile) || past_limit) {
                continue;
            }
            let shallower = (likely_high && mine < C_FOUR) as i32;
            self.tt.prefetch(key ^ Board::move_key(m, me));
            board.play(m, me);
            let d = depth - 1 + extension - shallower + (singular && m == tt_move) as i32;
            let mut score;
            if i == 0 {
                score = -self.pvs(board, d, -beta, -alpha, ply + 1, pv_node);
            } else {
                let mut reduction = if light && depth >= LMR_DEPTH && i >= LMR_FIRST {
                    1 + (i >= 10) as i32 + (depth >= 6 && i >= 20) as i32
                } else if mine == C_FOUR
                    && depth >= LMR_DEPTH
                    && match situation {
                        Situation::Normal => theirs < C_THREE,
                        Situation::Defend => theirs < C_FOUR,
                        _ => false,
                    }
                {
                    // A later plain four that defends nothing (against an open three: blocks
                    // none of its points): it spends a threat, and its forced block is
                    // extended, so unreduced it would cost no depth at all. Few of them raise
                    // alpha (`bench 10`: 3.5 % of fours, 6.6 % of open threes), yet their
                    // subtrees were the largest per move.
                    1
                } else {
                    0
                };
                if reduction > 0
                    && board.rule() == Rule::Renju
                    && situation == Situation::Normal
                    && self.history.value(me, m) < -LMR_BAD_HISTORY
                    && d - reduction > 1
                {
                    // A point that has kept failing elsewhere: a ply more, above the horizon.
                    reduction += 1;
                }
                if reduction > 0 && tt_pv && !pv_node && board.rule() == Rule::Renju {
                    // Renju only: there +39.8, H1 after 368; freestyle 15x15 -2.6 over 400.
                    reduction -= 1;
                }
                score = -self.pvs(board, d - reduction, -alpha - 1, -alpha, ply + 1, false);
                if reduction > 0 && score > alpha && !self.aborted {
                    score = -self.pvs(board, d, -alpha - 1, -alpha, ply + 1, false);
                }
                if score > alpha && score < beta && pv_node && !self.aborted {
                    score = -self.pvs(board, d, -beta, -alpha, ply + 1, true);
                }
            }
            board.undo();
            if self.aborted {
                self.lists[ply] = list;
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, m);
                    if alpha >= beta {
                        if matches!(situation, Situation::Normal | Situation::Defend) {
                            // The moves before the refutation (skipped ones too, and the
                            // one a singular check leaves out) lose credit.
                            for j in 0..i {
                                self.history.update(me, list.get(j), depth, false);
                            }
                            self.history.update(me, m, depth, true);
                        }
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        if excluded.is_none() {
            let bound = bound_of(best, alpha_in, beta);
            if calm
                && corrected
                && best.abs() < WIN_BOUND
                && match bound {
                    BOUND_LOWER => best > stand,
                    BOUND_UPPER => best < stand,
                    _ => true,
                }
            {
                self.correction.update(board, depth, stand, best);
            }
            self.tt
                .store(key, best_move, score_to_tt(best, ply), depth, bound, tt_pv);
        }
        best
    }

    /// The node's candidate moves, with their history bonus (see `history`) unless the list is
    /// a five or the blocks of one. Lazy SMP helpers order near-equal moves differently from
    /// the main thread (reproducibly, from the node's key).
    fn candidates(&self, board: &mut Board, list: &mut MoveList, key: u64) -> Situation {
        let situation = generate_unordered(board, list);
        if matches!(situation, Situation::Normal | Situation::Defend) {
            let me = board.side_to_move();
            list.add_each(|p| self.history.order_bonus(me, p));
        }
        if self.is_helper {
            let seed = (self.helper_index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
            list.perturb(key ^ seed, HELPER_ORDER_NOISE);
        }
        situation
    }

    fn update_pv(&mut self, ply: usize, m: Pos) {
        let child_len = self.pv_len[ply + 1];
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][ply] = m;
        head[ply][ply + 1..ply + 1 + child_len]
            .copy_from_slice(&tail[0][ply + 1..ply + 1 + child_len]);
        self.pv_len[ply] = child_len + 1;
    }

    /// The horizon: forced blocks are played out, then the side to move tries its fours near its
    /// last stone (VCF).
    fn qsearch(
        &mut self,
        board: &mut Board,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        vcf_left: i32,
    ) -> i32 {
        self.pv_len[ply] = 0;
        self.nodes += 1;
        if self.poll() {
            return 0;
        }
        let me = board.side_to_move();
        let opp = me.other();
        if board.class_count(me, C_FIVE) > 0 {
            return WIN - (ply as i32 + 1);
        }
        if board.is_full() {
            return 0;
        }
        if ply >= MAX_PLY - 4 {
            return Self::evaluate(board);
        }
        if board.class_count(opp, C_FIVE) > 0 {
            if board.class_count(opp, C_FIVE) >= 2 {
                return -(WIN - (ply as i32 + 2));
            }
            // The one block (in caro the five point itself, which is always legal there).
            let Some(m) = threat::five_point(board, opp).filter(|&p| board.is_legal(p, me)) else {
                return -(WIN - (ply as i32 + 2));
            };
            board.play(m, me);
            let score = -self.qsearch(board, -beta, -alpha, ply + 1, vcf_left);
            board.undo();
            if score > alpha && !self.aborted {
                self.update_pv(ply, m);
            }
            return score;
        }
        let key = Self::key(board);
        let mut tt_move = Pos::NONE;
        let mut tt_pv = false;
        if let Some(h) = self.tt.probe(key) {
            tt_pv = h.pv;
            let s = score_from_tt(h.score, ply);
            if h.depth >= 0 && bound_decides(h.bound, s, alpha, beta) {
                return s;
            }
            tt_move = h.best;
        }
        let stand = Self::evaluate(board);
        if stand >= beta || vcf_left <= 0 {
            return stand;
        }
        let alpha_in = alpha;
        let mut list = std::mem::take(&mut self.lists[ply]);
        if board.class_count(me, C_OPEN_FOUR) > 0
            && (C_FOUR..=C_OPEN_FOUR).all(|c| board.class_count(opp, c) == 0)
        {
            generate_fours(board, &mut list);
            if list.iter().any(|p| board.class(me, p) == C_OPEN_FOUR) {
                // An open four the opponent cannot answer with a four of its own.
                self.lists[ply] = list;
                return WIN - (ply as i32 + 3);
            }
        }
        // Only fours near the side's own last stone: a threat sequence grows from it.
        let own_last = board.history().iter().rev().take(3).find(|e| e.1 == me);
        match own_last {
            Some(&(centre, _)) => generate_fours_near(board, &mut list, centre),
            None => generate_fours(board, &mut list),
        }
        if vcf_left < VCF_DEPTH {
            // Past the horizon's first four (of either side: the budget is shared) only fours
            // that also build in another line: a plain four rarely leads on to the next one,
            // and deep four chains were a fifth of the tree.
            list.retain(|p| four_builds(board, me, p));
        }
        let searched = !list.is_empty();
        if !tt_move.is_none() {
            list.bring_to_front(tt_move);
        }
        alpha = alpha.max(stand);
        let mut best = stand;
        let mut best_move = Pos::NONE;
        for i in 0..list.len() {
            let m = list.get(i);
            self.tt.prefetch(key ^ Board::move_key(m, me));
            board.play(m, me);
            let score = -self.qsearch(board, -beta, -alpha, ply + 1, vcf_left - 1);
            board.undo();
            if self.aborted {
                self.lists[ply] = list;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = m;
                    self.update_pv(ply, m);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        if searched {
            let bound = bound_of(best, alpha_in, beta);
            self.tt
                .store(key, best_move, score_to_tt(best, ply), 0, bound, tt_pv);
        }
        best
    }
}

/// The score of a node whose side to move has no move worth searching. Against a five point
/// the opponent's five comes next. Against an open three (renju: black's every defence is a
/// foul and black has no four) the opponent's open four comes next, then its five.
pub fn no_move_score(situation: Situation, ply: usize) -> i32 {
    match situation {
        Situation::BlockFive => -(WIN - (ply as i32 + 2)),
        Situation::Defend => -(WIN - (ply as i32 + 4)),
        Situation::Win | Situation::Normal => 0,
    }
}

/// Whether `c`'s four on `p` also makes an open two, a three or an open three in another line,
/// or is an open four or two fours.
fn four_builds(board: &Board, c: Color, p: Pos) -> bool {
    board.class(c, p) >= C_FOUR_THREE
        || (0..4).any(|d| {
            let pattern = board.pattern(c, d, p);
            pattern >= Pattern::OpenTwo && pattern < Pattern::Four
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Rule};

    fn position() -> Board {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        let moves = [(7, 7), (8, 8), (8, 6), (6, 8), (9, 7), (7, 9)];
        for (i, &(x, y)) in moves.iter().enumerate() {
            b.try_play(
                x,
                y,
                if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                },
            )
            .unwrap();
        }
        b
    }

    #[test]
    fn single_thread_search_is_deterministic() {
        let b = position();
        let r1 = Searcher::new(1 << 20).think(&b, SearchLimits::depth(4), |_| {});
        let r2 = Searcher::new(1 << 20).think(&b, SearchLimits::depth(4), |_| {});
        assert_eq!((r1.best, r1.score, r1.nodes), (r2.best, r2.score, r2.nodes));
        assert!(b.is_empty(r1.best));
    }

    #[test]
    fn several_threads_share_the_table_and_answer_legally() {
        let b = position();
        let mut s = Searcher::new(1 << 20);
        s.set_threads(3);
        for _ in 0..3 {
            let r = s.think(&b, SearchLimits::depth(5), |_| {});
            assert!(b.is_empty(r.best));
            assert_eq!(r.depth, 5);
        }
        // A forced win is still found with helpers running.
        let mut w = Board::new(15, 15, Rule::Freestyle).unwrap();
        for (x, y) in [(3, 3), (4, 3), (5, 3), (6, 3)] {
            w.try_play(x, y, Color::Black).unwrap();
        }
        for (x, y) in [(3, 5), (4, 5), (5, 5)] {
            w.try_play(x, y, Color::White).unwrap();
        }
        w.set_side_to_move(Color::Black);
        let r = s.think(&w, SearchLimits::depth(5), |_| {});
        assert!(r.best == Pos::new(2, 3) || r.best == Pos::new(7, 3));
        assert!(r.score > WIN_BOUND);
    }

    /// Which fours the horizon search plays past its first four: those whose stone also
    /// builds in another line, and open fours.
    #[test]
    fn a_four_builds_when_its_stone_makes_an_open_two_or_more_across() {
        let with_black = |black: &[(i64, i64)]| {
            Board::from_stones(Rule::Freestyle, black, &[(2, 3)], Color::Black)
        };
        let p = Pos::new(6, 3);
        let plain = with_black(&[(3, 3), (4, 3), (5, 3)]);
        assert_eq!(plain.class(Color::Black, p), C_FOUR);
        assert!(!four_builds(&plain, Color::Black, p));
        let across = with_black(&[(3, 3), (4, 3), (5, 3), (6, 5)]);
        assert_eq!(across.class(Color::Black, p), C_FOUR);
        assert!(four_builds(&across, Color::Black, p));
        let four_three = with_black(&[(3, 3), (4, 3), (5, 3), (6, 5), (6, 6)]);
        assert_eq!(four_three.class(Color::Black, p), C_FOUR_THREE);
        assert!(four_builds(&four_three, Color::Black, p));
        // Two fours and nothing else: only the class says it builds.
        let two_fours = with_black(&[(3, 3), (4, 3), (5, 3), (6, 0), (6, 1), (6, 2)]);
        assert_eq!(two_fours.class(Color::Black, p), C_OPEN_FOUR);
        assert!(four_builds(&two_fours, Color::Black, p));
    }

    /// Renju, from a game against Rapfi (session 18), white to move. Black's only point that
    /// makes two fours, 10,10, is a double-four: a foul, so no threat white must answer. Taking
    /// it for an open-four threat kept white to blocks, and the search saw a loss where white
    /// wins by a counter-attack (5,7 or 4,7): black had played into it for a mate that was not.
    #[test]
    fn a_foul_double_four_of_black_is_no_threat_to_answer() {
        let moves = "7,10;6,6;8,7;4,6;10,7;7,7;8,9;9,8;8,8;8,6;8,10;8,11;9,10;6,10;7,8;6,7;6,8;\
                     7,6;5,6;9,6;10,6;7,9;10,8;10,5;11,8;11,7;12,8;12,9;5,8;4,8;3,8";
        let mut b = Board::new(15, 15, Rule::Renju).unwrap();
        for (i, m) in moves.split(';').enumerate() {
            let (x, y) = m.trim().split_once(',').unwrap();
            let c = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            b.try_play(x.parse().unwrap(), y.parse().unwrap(), c)
                .unwrap();
        }
        assert_eq!(b.side_to_move(), Color::White);
        assert!(!b.is_legal(Pos::new(10, 10), Color::Black));
        let mut list = MoveList::with_capacity();
        assert_eq!(generate_unordered(&mut b, &mut list), Situation::Normal);
        assert!(list.iter().any(|p| p == Pos::new(5, 7)));
        let r = Searcher::new(1 << 22).think(&b, SearchLimits::depth(6), |_| {});
        assert!(
            r.score > -WIN_BOUND,
            "white is not lost: {}",
            r.score_text()
        );
    }

    /// Renju: every defence of white's open three is black's foul and black has no four
    /// (see the fixture).
    #[test]
    fn black_with_every_defence_of_an_open_three_forbidden_is_lost() {
        let mut b = crate::game::fixtures::renju_black_without_defence(true);
        for (x, y) in [(3, 7), (7, 7), (8, 7)] {
            assert!(b.class(Color::White, Pos::new(x, y)) >= C_FOUR);
            assert!(!b.is_legal(Pos::new(x, y), Color::Black), "{x},{y}");
        }
        assert_eq!(b.count_at_least(Color::Black, C_FOUR), 0);
        let mut list = MoveList::with_capacity();
        assert_eq!(generate_unordered(&mut b, &mut list), Situation::Defend);
        assert!(list.is_empty());
        let r = Searcher::new(1 << 20).think(&b, SearchLimits::depth(3), |_| {});
        assert!(r.best.is_none());
        assert_eq!(r.score, -(WIN - 4), "{}", r.score_text());
        // One move earlier white makes the three, and the search inside the tree sees the win.
        let b = crate::game::fixtures::renju_black_without_defence(false);
        let r = Searcher::new(1 << 20).think(&b, SearchLimits::depth(3), |_| {});
        assert_eq!(r.best, Pos::new(6, 7));
        assert!(r.score > WIN_BOUND, "{}", r.score_text());
    }

    /// With the clock already run out (time_left 0), the first iteration still finishes, and
    /// its move is the depth-1 one, not the generator's first candidate.
    #[test]
    fn an_expired_clock_still_gets_the_first_iteration() {
        let b = position();
        let expired = SearchLimits {
            soft: Duration::ZERO,
            hard: Duration::ZERO,
            ..SearchLimits::depth(64)
        };
        let r = Searcher::new(1 << 20).think(&b, expired, |_| {});
        let d1 = Searcher::new(1 << 20).think(&b, SearchLimits::depth(1), |_| {});
        assert_eq!(r.depth, 1);
        assert_eq!((r.best, r.score), (d1.best, d1.score));
        // A stop still ends it at once.
        let mut s = Searcher::new(1 << 20);
        s.stop_flag().store(true, Ordering::Relaxed);
        let stopped = s.think(&b, SearchLimits::depth(64), |_| {});
        assert_eq!(stopped.depth, 0);
        assert!(b.is_empty(stopped.best));
    }

    #[test]
    fn resizing_to_the_same_rounded_size_keeps_the_table() {
        // Gomocup's max_memory less the overhead: no power of two, a 256 MB table.
        let bytes = 367_001_600 - (24 << 20);
        let mut s = Searcher::new(bytes);
        s.tt.store(42, Pos(7), 11, 5, BOUND_EXACT, false);
        s.resize_tt(bytes);
        assert_eq!(s.tt.probe(42).map(|h| h.score), Some(11));
        // Another size makes a new, empty table.
        s.resize_tt(bytes / 2);
        assert_eq!(s.tt_bytes(), 128 << 20);
        assert!(s.tt.probe(42).is_none());
    }
}
