//! The work the search thread does for one command: a move (at full strength or at a playing
//! level), the analysis commands (`YXNBEST`, `YXSEARCHDEFEND`, `YXBALANCEONE/TWO`) and the Swap2
//! decisions. Everything is built on `Searcher::think_with`: multi-PV is a search per line that
//! excludes the moves of the lines before it, one depth at a time for all lines (so `YXSTOP`
//! always has a complete set of lines of some depth to answer with), and balancing is a search
//! of each candidate position, deeper and deeper on fewer and fewer candidates.

use super::level::Level;
use super::yixin::{moves_text, say, Detail, PvLine, Quiet, Reporter};
use super::{soosorv, swap2};
use crate::game::{Board, Color, Pos};
use crate::search::movepick::{generate, MoveList, Situation};
use crate::search::{
    no_move_score, score_text, Observer, Report, SearchLimits, Searcher, WIN, WIN_BOUND,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a command asks the search thread for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// `BEGIN`, `TURN`, `BOARD`: one move.
    Move,
    /// `YXNBEST n`.
    NBest(usize),
    /// `YXSEARCHDEFEND`.
    Defend,
    /// `YXBALANCEONE b` / `YXBALANCETWO b`.
    Balance { two: bool, bias: i32 },
    /// `SWAP2BOARD … DONE` with 0, 3 or 5 stones.
    Swap2,
    /// A step of an opening rule that Yixin-Board runs with its own commands.
    Opening(OpeningStep),
}

/// The opening-rule steps of Yixin-Board (`YXSWAP2STEPk`, `YXSOOSORVSTEPk`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningStep {
    Swap2(u8),
    /// `n`: the number of fifth-move offers (steps 4 and 5).
    Soosorv {
        step: u8,
        n: usize,
    },
}

/// Everything the search thread needs besides the searcher.
pub struct JobInput {
    pub job: Job,
    pub board: Board,
    pub limits: SearchLimits,
    pub detail: Detail,
    pub level: Level,
    pub seed: u64,
    pub stop: Arc<AtomicBool>,
    /// Points the engine must not play (`YXBLOCK`): left out of the root moves while others
    /// remain.
    pub blocked: Vec<Pos>,
    /// Soosorv step 6: the fifth moves black offers, one of which the engine keeps.
    pub offers: Vec<Pos>,
}

/// What the session prints and plays when the job is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// One move for the side to move: printed `x,y` and played.
    Move(Pos),
    /// Stones for alternating colours from the side to move: printed `x,y x,y` and played.
    Moves(Vec<Pos>),
    /// Swap2: take the other colour.
    Swap,
    /// Swap2 with an empty board: the three opening stones (black, white, black).
    Opening(Vec<Pos>),
    /// An opening step's answer to Yixin-Board: `lines` printed as they are, then `stones`
    /// played alternately from the side to move; `engine` is the engine's colour afterwards
    /// (`None`: the opponent chooses).
    Say {
        lines: Vec<String>,
        stones: Vec<Pos>,
        engine: Option<Color>,
        /// The engine's move in the position after `stones`, found on the way: the GUI asks
        /// for it next (with `BOARD`) and counts both on one turn's clock.
        reply: Option<Pos>,
    },
}

pub struct JobOutput {
    pub action: Action,
    /// The search behind a plain move: the session prints its one-line summary before the move.
    pub report: Option<Report>,
    pub elapsed: Duration,
}

/// Runs `input.job` to the end (or until stopped).
pub fn run(searcher: &mut Searcher, input: JobInput) -> JobOutput {
    let JobInput {
        job,
        board,
        limits,
        detail,
        level,
        seed,
        stop,
        blocked,
        offers,
    } = input;
    let start = limits.start;
    let mut clock = Clock::new(&limits, stop);
    let mut rep = Reporter::new(detail, start);
    let (action, report) = match job {
        Job::Move if level.is_full() => {
            let mut r = match block_plan(&board, &blocked) {
                BlockPlan::Forced(p) => Report {
                    best: p,
                    score: 0,
                    depth: 0,
                    nodes: 0,
                    elapsed: start.elapsed(),
                    pv: vec![p],
                },
                // `think`: a five is played at once, and a five that cannot be blocked (the only
                // block a renju foul) is reported as the loss it is.
                BlockPlan::Search(excluded) if detail.any() => {
                    think(searcher, &board, limits, excluded, &mut rep)
                }
                BlockPlan::Search(excluded) => {
                    think(searcher, &board, limits, excluded, &mut Quiet)
                }
            };
            if r.best.is_none() {
                // A lost root has no move worth searching; it still answers a legal one, and
                // keeps the loss as its score.
                r.best = fallback_move(&board);
                r.pv = if r.best.is_none() {
                    Vec::new()
                } else {
                    vec![r.best]
                };
            }
            (Action::Move(r.best), Some(r))
        }
        Job::Move => {
            let (line, report) = level.play(searcher, &board, &mut clock, seed, &mut rep);
            (Action::Move(line.mv), Some(report))
        }
        Job::NBest(n) => (
            nbest(searcher, &board, &mut clock, n, level, seed, &mut rep),
            None,
        ),
        Job::Defend => (defend(searcher, &board, &mut clock, &mut rep), None),
        Job::Balance { two, bias } => (
            balance(searcher, &board, &mut clock, two, bias, &mut rep),
            None,
        ),
        Job::Swap2 => swap2::decide(searcher, &board, &mut clock, seed, &mut rep),
        Job::Opening(OpeningStep::Swap2(step)) => (
            swap2::yixin_step(searcher, &board, step, &mut clock, seed, &mut rep),
            None,
        ),
        Job::Opening(OpeningStep::Soosorv { step, n }) => (
            soosorv::step(
                searcher, &board, step, n, &offers, &mut clock, seed, &mut rep,
            ),
            None,
        ),
    };
    JobOutput {
        action,
        report,
        elapsed: start.elapsed(),
    }
}

/// How a move honours the blocked points (`YXBLOCK`).
enum BlockPlan<'a> {
    /// Search with these root moves left out.
    Search(&'a [Pos]),
    /// Every move the search would consider is blocked: play this free point instead.
    Forced(Pos),
}

/// The search leaves the blocked points out of its root moves; when that leaves none (the
/// search lists one five point, say, or only the blocks of a four), the best free legal
/// unblocked point by a static look is played: a five, else the block of the opponent's five,
/// else the highest cell value for both sides, nearest the centre on ties; when there is none,
/// the block is ignored (the engine must answer with some move).
fn block_plan<'a>(board: &Board, blocked: &'a [Pos]) -> BlockPlan<'a> {
    if blocked.is_empty() {
        return BlockPlan::Search(&[]);
    }
    let (moves, _) = root_moves(board);
    if moves.iter().any(|m| !blocked.contains(m)) {
        return BlockPlan::Search(blocked);
    }
    let mut b = board.clone();
    let me = b.side_to_move();
    let mut free: Vec<Pos> = board
        .cells_iter()
        .filter(|&p| board.is_empty(p) && !blocked.contains(&p))
        .collect();
    let (cx, cy) = (board.width() as i64 - 1, board.height() as i64 - 1);
    let off_centre = |p: &Pos| {
        let (dx, dy) = (2 * p.x() as i64 - cx, 2 * p.y() as i64 - cy);
        dx * dx + dy * dy
    };
    let opp = me.other();
    free.sort_by_key(|p| {
        (
            std::cmp::Reverse((
                board.is_winning_move(*p, me),
                board.is_winning_move(*p, opp),
                board.cell_score(me, *p) + board.cell_score(opp, *p),
            )),
            off_centre(p),
        )
    });
    match free.into_iter().find(|&p| b.is_legal(p, me)) {
        Some(p) => BlockPlan::Forced(p),
        None => BlockPlan::Search(&[]),
    }
}

/// The time and node limits of one command, shared by the searches it runs.
pub struct Clock {
    pub start: Instant,
    pub soft: Duration,
    pub hard: Duration,
    pub max_depth: i32,
    pub max_nodes: u64,
    pub nodes_used: u64,
    stop: Arc<AtomicBool>,
}

impl Clock {
    pub fn new(limits: &SearchLimits, stop: Arc<AtomicBool>) -> Clock {
        Clock {
            start: limits.start,
            soft: limits.soft,
            hard: limits.hard,
            max_depth: limits.max_depth.max(1),
            max_nodes: limits.max_nodes,
            nodes_used: 0,
            stop,
        }
    }

    /// A clock from now with `ms` hard and half that soft, no other limit (for tests).
    #[cfg(test)]
    pub fn for_tests(ms: u64) -> Clock {
        let limits = SearchLimits {
            start: Instant::now(),
            soft: Duration::from_millis(ms / 2),
            hard: Duration::from_millis(ms),
            max_depth: 64,
            max_nodes: u64::MAX,
        };
        Clock::new(&limits, Arc::new(AtomicBool::new(false)))
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Stopped (`YXSTOP`, end of input), out of time or out of nodes.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
            || self.elapsed() >= self.hard
            || self.nodes_used >= self.max_nodes
    }

    /// Whether another pass expected to take `estimate` should start.
    pub fn may_start(&self, estimate: Duration) -> bool {
        let e = self.elapsed();
        !self.stopped() && e < self.soft && e + estimate <= self.hard
    }

    /// Limits of one search to `depth` that ends at the command's deadline.
    pub fn limits(&self, depth: i32) -> SearchLimits {
        SearchLimits {
            start: self.start,
            soft: self.hard,
            hard: self.hard,
            max_depth: depth.clamp(1, self.max_depth),
            max_nodes: self.max_nodes.saturating_sub(self.nodes_used).max(1),
        }
    }

    /// Limits of a normal iterative-deepening search that may use `share` of what is left, of
    /// the time and of the nodes (a node-limited level must leave the later searches theirs).
    pub fn share(&self, share: f64) -> SearchLimits {
        let e = self.elapsed();
        let soft = self.soft.saturating_sub(e).mul_f64(share);
        let hard = (e + self.hard.saturating_sub(e).mul_f64(share.max(0.5))).min(self.hard);
        let nodes_left = self.max_nodes.saturating_sub(self.nodes_used);
        let nodes = if self.max_nodes == u64::MAX {
            u64::MAX
        } else {
            (nodes_left as f64 * share) as u64
        };
        SearchLimits {
            start: self.start,
            soft: e + soft,
            hard,
            max_depth: self.max_depth,
            max_nodes: nodes.max(1),
        }
    }

    pub fn account(&mut self, r: &Report) {
        self.nodes_used = self.nodes_used.saturating_add(r.nodes);
    }
}

/// A dummy exclusion: `think_with` answers a root with a single move at once with score 0; any
/// exclusion makes it search that move, so its score is real.
pub const SEARCH_ALL: [Pos; 1] = [Pos::NONE];

/// `Searcher::think_with`, except that a root where the side to move has a five is answered
/// with the five (scored as a win in one) and one where it cannot stop the opponent's five (or,
/// renju, its open three) with a loss. (The search itself never plays a five, it scores it
/// before; searching the five as a root move, which an exclusion list forces, would score the
/// position after the game ended.)
pub fn think(
    searcher: &mut Searcher,
    board: &Board,
    limits: SearchLimits,
    excluded: &[Pos],
    observer: &mut dyn Observer,
) -> Report {
    let (moves, situation) = root_moves(board);
    let decided = |best: Pos, score: i32| Report {
        best,
        score,
        depth: 1,
        nodes: 1,
        elapsed: limits.start.elapsed(),
        pv: if best.is_none() {
            Vec::new()
        } else {
            vec![best]
        },
    };
    match situation {
        Situation::Win if !moves.is_empty() => {
            let r = decided(moves[0], WIN - 1);
            observer.iteration(&r);
            r
        }
        Situation::BlockFive | Situation::Defend if moves.is_empty() => {
            decided(Pos::NONE, no_move_score(situation, 0))
        }
        _ => searcher.think_with(board, limits, excluded, observer),
    }
}

/// The moves the search considers at the root of `board`, best-ordered, and the situation.
pub fn root_moves(board: &Board) -> (Vec<Pos>, Situation) {
    let mut b = board.clone();
    let mut list = MoveList::with_capacity();
    let situation = generate(&mut b, &mut list);
    (list.iter().collect(), situation)
}

/// The result of a multi-PV search.
pub struct MultiPv {
    /// The lines of the deepest complete pass, best first.
    pub lines: Vec<PvLine>,
    /// Root moves proven to lose (defend mode).
    pub lost: Vec<Pos>,
    /// How many root moves there were.
    pub candidates: usize,
}

/// Searches the `n` best root moves (or, with `defend`, every move that does not lose), one
/// depth at a time for all of them, up to `depth_cap`.
pub fn multipv(
    searcher: &mut Searcher,
    board: &Board,
    clock: &mut Clock,
    n: usize,
    defend: bool,
    depth_cap: i32,
    rep: &mut Reporter,
) -> MultiPv {
    let (cands, _) = root_moves(board);
    let target = if defend {
        cands.len()
    } else {
        n.min(cands.len())
    }
    .max(1);
    rep.num_pv = target;
    let mut done: Vec<PvLine> = Vec::new();
    let mut lost: Vec<Pos> = Vec::new();
    let mut last_pass = Duration::ZERO;
    for depth in 1..=depth_cap.clamp(1, clock.max_depth) {
        if depth > 1 && !clock.may_start(last_pass * 3) {
            break;
        }
        let t0 = Instant::now();
        let mut excluded = SEARCH_ALL.to_vec();
        let mut lines: Vec<PvLine> = Vec::new();
        let mut pass_lost = Vec::new();
        let mut aborted = false;
        rep.only_depth = Some(depth);
        for i in 0..target {
            rep.pv_index = i;
            rep.overall_best = lines.first().map(|l| l.mv);
            rep.nodes_before = clock.nodes_used;
            let r = think(searcher, board, clock.limits(depth), &excluded, rep);
            clock.account(&r);
            if r.best.is_none() {
                break;
            }
            let complete = r.depth >= depth || (r.depth > 0 && r.score.abs() > WIN_BOUND);
            let line = PvLine::from_report(&r);
            if !complete {
                // Interrupted: a line of this depth only when nothing better exists.
                if done.is_empty() && lines.is_empty() {
                    lines.push(line);
                }
                aborted = true;
                break;
            }
            if defend && line.score < -WIN_BOUND {
                // The best of the remaining moves loses, so all of them do.
                pass_lost = cands
                    .iter()
                    .copied()
                    .filter(|m| !excluded.contains(m))
                    .collect();
                if lines.is_empty() {
                    lines.push(line);
                }
                break;
            }
            excluded.push(line.mv);
            lines.push(line);
            if clock.stopped() && i + 1 < target {
                aborted = true;
                break;
            }
        }
        if aborted {
            if done.is_empty() {
                done = lines;
            }
            break;
        }
        done = lines;
        lost = pass_lost;
        for &m in &lost {
            rep.lost(m);
        }
        last_pass = t0.elapsed();
        if done.is_empty() || done.iter().all(|l| l.score.abs() > WIN_BOUND) {
            break;
        }
    }
    rep.only_depth = None;
    done.sort_by_key(|l| std::cmp::Reverse(l.score));
    MultiPv {
        lines: done,
        lost,
        candidates: cands.len(),
    }
}

/// Prints the lines of a multi-PV answer: `MESSAGE multipv i depth d ev e n nodes pv moves`.
pub fn print_lines(lines: &[PvLine]) {
    for (i, l) in lines.iter().enumerate() {
        say(&format!(
            "MESSAGE multipv {} depth {} ev {} n {} pv {}",
            i + 1,
            l.depth,
            score_text(l.score),
            l.nodes,
            moves_text(&l.pv)
        ));
    }
}

/// A move without a search, for when the search gave none: every move loses (renju: black's
/// only block of a four, or every defence of an open three, is forbidden), or the search
/// failed (a caught panic, no thread). A five, else the block of the opponent's five, else the
/// legal point near a stone that the move generator scores best, else any legal point, else
/// `Pos::NONE`.
pub fn fallback_move(board: &Board) -> Pos {
    let mut b = board.clone();
    let me = b.side_to_move();
    let points: Vec<Pos> = b.cells_iter().filter(|&p| b.is_empty(p)).collect();
    let legal: Vec<Pos> = points.into_iter().filter(|&p| b.is_legal(p, me)).collect();
    let wins = |c: Color| legal.iter().copied().find(|&p| b.is_winning_move(p, c));
    let score = |p: Pos| b.order_score(me, p) * 2 + b.order_score(me.other(), p);
    wins(me)
        .or_else(|| wins(me.other()))
        // `rev` makes the first of equal bests win, so the choice follows board order.
        .or_else(|| {
            legal
                .iter()
                .copied()
                .filter(|&p| b.near(p))
                .rev()
                .max_by_key(|&p| score(p))
        })
        .or_else(|| legal.first().copied())
        .unwrap_or(Pos::NONE)
}

#[allow(clippy::too_many_arguments)]
fn nbest(
    searcher: &mut Searcher,
    board: &Board,
    clock: &mut Clock,
    n: usize,
    level: Level,
    seed: u64,
    rep: &mut Reporter,
) -> Action {
    let (width, depth_cap) = if level.is_full() {
        (n, clock.max_depth)
    } else {
        clock.max_nodes = clock.max_nodes.min(level.nodes());
        (n.max(level.width()), level.depth())
    };
    let mp = multipv(searcher, board, clock, width, false, depth_cap, rep);
    print_lines(&mp.lines[..n.min(mp.lines.len())]);
    let mv = if level.is_full() {
        mp.lines.first().map(|l| l.mv)
    } else {
        level.pick(&mp.lines, seed).map(|i| mp.lines[i].mv)
    };
    Action::Move(mv.unwrap_or_else(|| fallback_move(board)))
}

fn defend(searcher: &mut Searcher, board: &Board, clock: &mut Clock, rep: &mut Reporter) -> Action {
    let max_depth = clock.max_depth;
    let mp = multipv(searcher, board, clock, usize::MAX, true, max_depth, rep);
    let saving: Vec<&PvLine> = mp.lines.iter().filter(|l| l.score >= -WIN_BOUND).collect();
    print_lines(&mp.lines);
    let mut summary = format!(
        "MESSAGE defend {} of {} moves do not lose",
        saving.len(),
        mp.candidates
    );
    if !saving.is_empty() {
        summary.push_str(": ");
        summary.push_str(&moves_text(
            &saving.iter().map(|l| l.mv).collect::<Vec<_>>(),
        ));
    }
    say(&summary);
    if !mp.lost.is_empty() {
        say(&format!("MESSAGE lost {}", moves_text(&mp.lost)));
    }
    Action::Move(
        mp.lines
            .first()
            .map(|l| l.mv)
            .unwrap_or_else(|| fallback_move(board)),
    )
}

/// A candidate of a balancing search: the stones to add and what the search thinks of them.
#[derive(Clone, Debug)]
pub struct Cand {
    pub moves: Vec<Pos>,
    /// The value for the side that was to move before `moves`, at `depth`.
    pub value: i32,
    /// The value one depth shallower.
    pub prev: Option<i32>,
    pub depth: i32,
    pub pv: Vec<Pos>,
}

impl Cand {
    pub fn new(moves: Vec<Pos>) -> Cand {
        Cand {
            moves,
            value: 0,
            prev: None,
            depth: 0,
            pv: Vec::new(),
        }
    }

    /// The value compared: the mean of the last two depths (this engine's evaluations swing
    /// between odd and even depths, the side to move at the horizon gaining a tempo), or the
    /// last one when it is a proven result.
    pub fn balanced_value(&self) -> i32 {
        steady_value(self.value, self.prev)
    }

    pub fn distance(&self, target: i32) -> i64 {
        (self.balanced_value() as i64 - target as i64).abs()
    }
}

/// The mean of a score and the one a depth shallower, unless either is a proven result.
pub fn steady_value(last: i32, prev: Option<i32>) -> i32 {
    match prev {
        Some(p) if last.abs() <= WIN_BOUND && p.abs() <= WIN_BOUND => (last + p) / 2,
        _ => last,
    }
}

/// The position after `moves`, played alternately from the side to move.
pub fn after(board: &Board, moves: &[Pos]) -> Board {
    let mut b = board.clone();
    for &m in moves {
        let c = b.side_to_move();
        b.play(m, c);
    }
    b
}

/// Searches every candidate, one depth at a time, keeping the closest two thirds to `target`
/// after each pass (at least `keep_min`); returns the last complete pass, closest first.
pub fn rank(
    searcher: &mut Searcher,
    board: &Board,
    pool: Vec<Cand>,
    target: i32,
    clock: &mut Clock,
    keep_min: usize,
    rep: &mut Reporter,
) -> Vec<Cand> {
    let mut pool = pool;
    let mut finished: Vec<Cand> = Vec::new();
    let mut last_pass = Duration::ZERO;
    for depth in 1..=clock.max_depth {
        if depth > 1 && !clock.may_start(last_pass * 3) {
            break;
        }
        let t0 = Instant::now();
        let mut evaluated = 0;
        for c in pool.iter_mut() {
            let b = after(board, &c.moves);
            let r = think(searcher, &b, clock.limits(depth), &SEARCH_ALL, &mut Quiet);
            clock.account(&r);
            let complete =
                r.best.is_none() || r.depth >= depth || (r.depth > 0 && r.score.abs() > WIN_BOUND);
            if !complete {
                break;
            }
            let sign = if c.moves.len() % 2 == 0 { 1 } else { -1 };
            c.prev = (c.depth > 0).then_some(c.value);
            c.value = sign * r.score;
            c.depth = depth;
            c.pv = r.pv.clone();
            evaluated += 1;
            if clock.stopped() {
                break;
            }
        }
        if evaluated < pool.len() {
            if finished.is_empty() {
                finished = pool[..evaluated].to_vec();
                finished.sort_by_key(|c| c.distance(target));
            }
            break;
        }
        pool.sort_by_key(|c| c.distance(target));
        finished = pool.clone();
        if let Some(best) = finished.first() {
            let mut line = best.moves.clone();
            line.extend_from_slice(&best.pv);
            rep.line_done(depth, clock.nodes_used, best.balanced_value(), &line);
            rep.refresh(best.moves[0]);
        }
        last_pass = t0.elapsed();
        // The first pass has no mean of two depths yet: its values lean to one side, so it
        // only orders the candidates.
        if depth >= 2 {
            let keep = keep_min.max(pool.len() * 2 / 3);
            pool.truncate(keep);
        }
        if pool.len() <= 1 && depth >= 4 {
            break;
        }
        if pool.iter().all(|c| c.value.abs() > WIN_BOUND) {
            // Every candidate is a proven win or loss: deeper passes change nothing (on a lost
            // position they once ran to a depth in the thousands).
            break;
        }
    }
    finished
}

/// Whether a stone of the side to move on `p` wins at once (then the game would be over).
fn wins_now(board: &Board, p: Pos) -> bool {
    board.is_winning_move(p, board.side_to_move())
}

/// Moves for a balancing search: the searched moves, and in a quiet position also the legal
/// points a little further out (a balancing move is often a modest one). On an empty board one
/// quarter of it (the rest is symmetric).
pub fn balance_moves(board: &Board, limit: usize) -> Vec<Pos> {
    let (mut moves, situation) = root_moves(board);
    let me = board.side_to_move();
    let mut b = board.clone();
    if situation == Situation::Normal {
        let (w, h) = (board.width(), board.height());
        let stones: Vec<Pos> = board.history().iter().map(|&(p, _)| p).collect();
        let near = |p: Pos| {
            if stones.is_empty() {
                p.x() <= w / 2 && p.y() <= h / 2
            } else {
                stones
                    .iter()
                    .any(|s| s.x().abs_diff(p.x()).max(s.y().abs_diff(p.y())) <= 3)
            }
        };
        let extra: Vec<Pos> = b
            .cells_iter()
            .filter(|&p| b.is_empty(p) && !moves.contains(&p) && near(p))
            .collect();
        for p in extra {
            if b.is_legal(p, me) {
                moves.push(p);
            }
        }
    }
    let quiet: Vec<Pos> = moves
        .iter()
        .copied()
        .filter(|&p| !wins_now(board, p))
        .collect();
    let mut out = if quiet.is_empty() { moves } else { quiet };
    out.truncate(limit);
    out
}

/// `n` moves spread evenly over `moves` (strongest first), so strong and weak ones are tried.
fn spread(moves: &[Pos], n: usize) -> Vec<Pos> {
    if moves.len() <= n {
        return moves.to_vec();
    }
    (0..n).map(|i| moves[i * moves.len() / n]).collect()
}

/// Pairs (own stone, opponent stone) for a two-stone balance: `first` own stones and for each
/// `second` replies, both spread from the strongest to the weakest candidates (a balanced pair
/// is often a modest stone and a good reply, or the reverse).
pub fn balance_pairs(board: &Board, first: usize, second: usize) -> Vec<Cand> {
    let mut out = Vec::new();
    let mut firsts = balance_moves(board, usize::MAX);
    firsts.retain(|&m| !wins_now(board, m));
    for m1 in spread(&firsts, first) {
        let b = after(board, &[m1]);
        let (mut seconds, _) = root_moves(&b);
        seconds.retain(|&m| !wins_now(&b, m));
        for m2 in spread(&seconds, second) {
            out.push(Cand::new(vec![m1, m2]));
        }
    }
    out
}

fn balance(
    searcher: &mut Searcher,
    board: &Board,
    clock: &mut Clock,
    two: bool,
    bias: i32,
    rep: &mut Reporter,
) -> Action {
    rep.root_lines = false;
    let pool: Vec<Cand> = if two {
        balance_pairs(board, 16, 10)
    } else {
        balance_moves(board, 96)
            .into_iter()
            .map(|m| Cand::new(vec![m]))
            .collect()
    };
    let ranked = rank(searcher, board, pool, bias, clock, 8, rep);
    match ranked.first() {
        Some(best) => {
            let mut line = best.moves.clone();
            line.extend_from_slice(&best.pv);
            say(&format!(
                "MESSAGE balance{} {} depth {} ev {} pv {}",
                if two { "two" } else { "one" },
                bias,
                best.depth,
                score_text(best.balanced_value()),
                moves_text(&line)
            ));
            if two {
                Action::Moves(best.moves.clone())
            } else {
                Action::Move(best.moves[0])
            }
        }
        // No candidate (each one wins at once, or the board is almost full): the fallback.
        None if two => {
            let first = fallback_move(board);
            Action::Moves(vec![first, fallback_move(&after(board, &[first]))])
        }
        None => Action::Move(fallback_move(board)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rule;

    fn board(stones: &[(usize, usize)]) -> Board {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        for (i, &(x, y)) in stones.iter().enumerate() {
            let c = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            b.play(Pos::new(x, y), c);
        }
        b
    }

    fn clock(ms: u64) -> Clock {
        Clock::for_tests(ms)
    }

    #[test]
    fn the_fallback_takes_a_five_then_blocks_one() {
        // Black 6..9 on row 7, white at 5,7: 10,7 is black's five point.
        let black = [(6, 7), (7, 7), (8, 7), (9, 7)];
        let white = [(5, 7), (1, 1), (1, 3), (1, 5)];
        let b = Board::from_stones(Rule::Freestyle, &black, &white, Color::Black);
        assert_eq!(fallback_move(&b), Pos::new(10, 7));
        // White to move blocks it.
        let b = Board::from_stones(Rule::Freestyle, &black, &white, Color::White);
        assert_eq!(fallback_move(&b), Pos::new(10, 7));
        // Nothing to win or block: a point next to a stone, not the corner.
        let b = Board::from_stones(Rule::Freestyle, &[(7, 7)], &[], Color::White);
        let p = fallback_move(&b);
        assert!(p.x().abs_diff(7) <= 2 && p.y().abs_diff(7) <= 2, "{p}");
    }

    /// Renju, black to move and lost: white's three 4..6,7 has only black's double threes as
    /// defences. The fallback plays neither a foul nor a far point, but the point the move
    /// generator likes best, between black's own stones.
    #[test]
    fn the_fallback_of_a_lost_renju_black_is_a_legal_point_near_the_fight() {
        let b = crate::game::fixtures::renju_black_without_defence(true);
        let (moves, situation) = root_moves(&b);
        assert!(moves.is_empty());
        assert_eq!(situation, Situation::Defend);
        let p = fallback_move(&b);
        assert!(b.clone().is_legal(p, Color::Black), "{p}");
        assert!(p.x().abs_diff(6) <= 4 && p.y().abs_diff(7) <= 3, "{p}");
    }

    #[test]
    fn a_single_move_root_is_searched_with_the_dummy_exclusion() {
        // White threatens five at 4,7: black's only move is the block, whose value is not 0.
        let b = board(&[
            (7, 7),
            (0, 7),
            (9, 9),
            (1, 7),
            (9, 11),
            (2, 7),
            (11, 9),
            (3, 7),
        ]);
        assert_eq!(root_moves(&b).0, vec![Pos::new(4, 7)]);
        let mut s = Searcher::new(1 << 20);
        let r = s.think_with(&b, SearchLimits::depth(3), &SEARCH_ALL, &mut Quiet);
        assert_eq!(r.best, Pos::new(4, 7));
        assert!(r.depth >= 1, "the move was searched");
    }

    #[test]
    fn multipv_lines_are_distinct_and_sorted() {
        let b = board(&[(7, 7), (8, 8), (6, 8)]);
        let mut s = Searcher::new(1 << 20);
        let mut c = clock(2_000);
        c.max_depth = 3;
        let mut rep = Reporter::new(Detail::default(), Instant::now());
        let mp = multipv(&mut s, &b, &mut c, 4, false, 3, &mut rep);
        assert_eq!(mp.lines.len(), 4);
        let mut moves: Vec<Pos> = mp.lines.iter().map(|l| l.mv).collect();
        moves.sort();
        moves.dedup();
        assert_eq!(moves.len(), 4);
        assert!(mp.lines.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(mp.lines.iter().all(|l| l.depth == 3 && l.pv[0] == l.mv));
    }

    #[test]
    fn defend_finds_the_blocks_of_an_open_three_threat() {
        // White (to move) faces black's open four threat: black has an open three 5..7,7.
        let b = board(&[(5, 7), (0, 0), (6, 7), (0, 14), (7, 7)]);
        let mut s = Searcher::new(1 << 20);
        let mut c = clock(3_000);
        c.max_depth = 4;
        let mut rep = Reporter::new(Detail::default(), Instant::now());
        let mp = multipv(&mut s, &b, &mut c, usize::MAX, true, 4, &mut rep);
        let saving: Vec<Pos> = mp
            .lines
            .iter()
            .filter(|l| l.score >= -WIN_BOUND)
            .map(|l| l.mv)
            .collect();
        assert!(!saving.is_empty());
        for m in &saving {
            assert!(
                [(4, 7), (8, 7), (3, 7), (9, 7)].contains(&(m.x(), m.y())),
                "{m} does not stop the three"
            );
        }
    }

    #[test]
    fn balance_one_prefers_values_near_the_bias() {
        let b = board(&[(7, 7), (8, 8)]);
        let mut s = Searcher::new(1 << 20);
        let mut c = clock(1_500);
        c.max_depth = 3;
        let mut rep = Reporter::new(Detail::default(), Instant::now());
        let pool: Vec<Cand> = balance_moves(&b, 96)
            .into_iter()
            .map(|m| Cand::new(vec![m]))
            .collect();
        assert!(pool.len() > 20);
        let ranked = rank(&mut s, &b, pool, 0, &mut c, 4, &mut rep);
        assert!(!ranked.is_empty());
        assert!(ranked
            .windows(2)
            .all(|w| w[0].distance(0) <= w[1].distance(0)));
        let pairs = balance_pairs(&b, 5, 4);
        assert_eq!(pairs.len(), 20);
        for p in &pairs {
            assert_ne!(p.moves[0], p.moves[1]);
        }
    }

    #[test]
    fn balancing_a_lost_position_stops_once_every_value_is_proven() {
        // White has two fours of four in a row: every black move loses.
        let mut b = Board::new(15, 15, crate::game::Rule::Freestyle).unwrap();
        for (x, y) in [
            (3, 3),
            (4, 3),
            (5, 3),
            (6, 3),
            (3, 10),
            (4, 10),
            (5, 10),
            (6, 10),
        ] {
            b.try_play(x, y, Color::White).unwrap();
        }
        for (x, y) in [(0, 0), (14, 14), (14, 0), (0, 14)] {
            b.try_play(x, y, Color::Black).unwrap();
        }
        b.set_side_to_move(Color::Black);
        let mut s = Searcher::new(1 << 20);
        let mut c = clock(2_000);
        let mut rep = Reporter::new(Detail::default(), Instant::now());
        let pool: Vec<Cand> = balance_moves(&b, 96)
            .into_iter()
            .map(|m| Cand::new(vec![m]))
            .collect();
        let ranked = rank(&mut s, &b, pool, 0, &mut c, 8, &mut rep);
        assert!(!ranked.is_empty());
        assert!(ranked.iter().all(|c| c.value < -WIN_BOUND));
        assert!(ranked[0].depth <= 2, "depth {}", ranked[0].depth);
    }
}
