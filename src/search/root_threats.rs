//! The root threat stages. Before the alpha-beta search, a win by continuous fours (VCF) ends the
//! game without one; it runs on at most a third of the move's time, and when it finds no win the
//! search keeps the rest. After the search, the time an iteration would likely not finish in (it
//! began after 35 % of the move's hard limit) goes to the df-pn VCT solver of `vct.rs` instead:
//! wins by continuous threats (open threes and fours) are often longer than the search sees.
//! On moves with a hard limit of 0.5 s or more, once an iteration scores 400 or more (a clear
//! advantage), a search still running when 30 % of the hard limit is left stops there for the
//! solver, so that it always gets that share.
//! (A VCT stage before the search, on a fifth, a tenth or an eighth of the move, cost 27-56 Elo
//! in earlier sessions' tests: that time came out of iterations that would have finished.)

use super::{vct::VctSolver, Report, Searcher, MAX_VCF_FOURS, VCF_NODES_PER_MS, WIN};
use crate::game::{Board, Pos, Rule};
use std::time::Duration;

/// Longest VCT the root tail search looks for, in attacker threats.
const MAX_VCT_THREATS: usize = 20;
/// The score of a VCT found there: a win within that many threats and the five.
pub(super) const VCT_WIN_SCORE: i32 = WIN - (2 * MAX_VCT_THREATS as i32 + 1);
/// Wins the search proves with fewer attacker moves than this are not put to the solver.
const MIN_SOLVER_CHECK_THREATS: usize = 4;
/// Share of the soft limit, in per cent, the solver has to match a win of the search.
const SOLVER_CHECK_PERCENT: u32 = 20;
/// The most time it has (unlimited thinking in analysis GUIs would otherwise wait long).
const SOLVER_CHECK_MAX: Duration = Duration::from_secs(2);
/// Shortest move time (hard limit) with a root VCT search: its tables take a few milliseconds
/// to allocate on first use.
const MIN_VCT_HARD: Duration = Duration::from_millis(100);

impl Searcher {
    /// The root threat stage of the main thread of a full root search: `Some` report with the
    /// winning move when the side to move wins by continuous fours.
    pub(super) fn root_threats(&mut self, board: &mut Board, excluded: &[Pos]) -> Option<Report> {
        if !excluded.is_empty() || self.is_helper {
            return None;
        }
        let hard_ms = self.limits.hard.as_millis().min(u64::MAX as u128) as u64;
        let budget = hard_ms
            .saturating_mul(VCF_NODES_PER_MS)
            .clamp(2_000, 1_000_000);
        let deadline = self.limits.start.checked_add(self.limits.hard / 3);
        let found = self.vcf.solve(board, MAX_VCF_FOURS, budget, deadline);
        // The stage's nodes count with the search's (bench totals, nodes per second).
        self.nodes += self.vcf.nodes();
        let (m, _) = found?;
        Some(Report {
            best: m,
            // The win's own length, not the limit of the pass that found it.
            score: WIN - self.vcf.win_plies() as i32,
            depth: 0,
            nodes: self.nodes,
            elapsed: self.limits.start.elapsed(),
            pv: vec![m],
        })
    }

    /// Whether this thread's searches of `board` may end with the VCT solver: the main thread
    /// only, and not in caro (the solver does not model its far-end blocks).
    pub(super) fn vct_allowed(&self, board: &Board) -> bool {
        !self.is_helper
            && self.root_vct
            && self.limits.hard >= MIN_VCT_HARD
            && !matches!(board.rule(), Rule::Caro { .. })
    }

    /// A first move of a win by continuous threats, searched until the hard limit.
    pub(super) fn root_vct(&mut self, board: &mut Board) -> Option<Pos> {
        let deadline = self.limits.start.checked_add(self.limits.hard)?;
        self.root_vct_within(board, MAX_VCT_THREATS, deadline)
    }

    /// The search proved a win of `threats` attacker moves (the five included): the first move
    /// of the threat solver's win of no more threats, sought for a fifth of the soft limit (at
    /// most 2 s). Both win; the solver's line is threats only, and that is what tactics
    /// collections list (on `vct.txt` the search's four on 8,12 of vct-quintet-011 gives way
    /// to the listed 10,12, as long). `Some` with the solver's move and its score bound.
    pub(super) fn solver_win_as_short(
        &mut self,
        board: &mut Board,
        threats: usize,
    ) -> Option<Report> {
        if threats < MIN_SOLVER_CHECK_THREATS {
            return None;
        }
        // The win is in hand: a short look, not the rest of the move.
        let share = (self.limits.soft / 100 * SOLVER_CHECK_PERCENT).min(SOLVER_CHECK_MAX);
        let end = self.limits.soft.min(self.limits.start.elapsed() + share);
        let deadline = self.limits.start.checked_add(end)?;
        // `threats` counts the five; the solver's limit does not.
        let limit = threats - 1;
        let m = self.root_vct_within(board, limit, deadline)?;
        Some(Report {
            best: m,
            score: WIN - (2 * limit as i32 + 1),
            depth: 0,
            nodes: self.nodes,
            elapsed: self.limits.start.elapsed(),
            pv: vec![m],
        })
    }

    fn root_vct_within(
        &mut self,
        board: &mut Board,
        max_threats: usize,
        deadline: std::time::Instant,
    ) -> Option<Pos> {
        if !self.vct_allowed(board) {
            return None;
        }
        let budget = self.limits.max_nodes.saturating_sub(self.nodes);
        let stop = self.stop.clone();
        let solver = self.vct.get_or_insert_with(|| {
            let mut s = VctSolver::compact();
            s.set_stop(stop);
            s.set_second_pass(false);
            Box::new(s)
        });
        let found = solver.solve(board, max_threats, budget, Some(deadline));
        self.nodes += solver.nodes();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::super::threat::ThreatSolver;
    use super::super::vct::VctSolver;
    use crate::eval::classical::{C_FIVE, C_FOUR};
    use crate::game::{Board, Pos};
    use crate::search::{Report, SearchLimits, Searcher, WIN, WIN_BOUND};
    use std::time::Duration;

    /// Puzzles copied from `../shared/positions` (vcf.txt, vct.txt).
    fn puzzle(id: &str) -> (Board, Vec<Pos>) {
        let p = include_str!("testdata/threats.txt")
            .lines()
            .filter_map(crate::solve::parse_line)
            .find(|p| p.id == id)
            .expect("puzzle in testdata");
        (p.board, p.answers)
    }

    /// Replays a VCF line on its own: every attacker move a legal four, every reply the only
    /// block, and the last move a five.
    fn check_vcf_line(board: &Board, line: &[Pos]) {
        let mut b = board.clone();
        let attacker = b.side_to_move();
        for (i, &m) in line.iter().enumerate() {
            let me = b.side_to_move();
            assert!(b.is_empty(m) && b.is_legal(m, me), "move {i} {m} is legal");
            if me == attacker {
                if b.is_winning_move(m, me) {
                    assert_eq!(i + 1, line.len(), "the five ends the line");
                    return;
                }
                assert!(b.class(me, m) >= C_FOUR, "move {i} {m} is a four");
            } else {
                assert_eq!(
                    b.class(attacker, m),
                    C_FIVE,
                    "reply {i} {m} blocks the five"
                );
            }
            b.play(m, me);
        }
        // Lines may end when the defender cannot block (two fives, or a forbidden block).
        let fives: Vec<Pos> = b
            .cells_iter()
            .filter(|&p| b.is_empty(p) && b.class(attacker, p) == C_FIVE)
            .collect();
        let defender = attacker.other();
        assert!(
            fives.len() >= 2 || fives.iter().all(|&p| !b.is_legal(p, defender)),
            "the line ends in an unstoppable five"
        );
    }

    #[test]
    fn long_renju_vcfs_are_found_in_one_pass_and_replay() {
        for (id, budget) in [
            ("vcf-mintaka-025", 200_000),
            ("vcf-mintaka-026", 200_000),
            ("vcf-quintet-016", 2_000_000),
        ] {
            let (mut b, answers) = puzzle(id);
            let mut s = ThreatSolver::vcf();
            let line = s
                .solve_line(&mut b, 112, budget)
                .unwrap_or_else(|| panic!("{id}: a VCF"))
                .to_vec();
            check_vcf_line(&b, &line);
            if id != "vcf-quintet-016" {
                assert!(answers.contains(&line[0]), "{id}: {}", line[0]);
            }
        }
    }

    #[test]
    fn short_renju_vcts_are_found() {
        for id in [
            "vct-quintet-006",
            "vct-quintet-007",
            "vct-quintet-008",
            "vct-quintet-009",
            "vct-quintet-011",
        ] {
            let (mut b, answers) = puzzle(id);
            let mut s = VctSolver::new();
            let m = s.solve(&mut b, 12, 300_000, None);
            assert!(m.is_some_and(|m| answers.contains(&m)), "{id}: {m:?}");
        }
    }

    #[test]
    fn vct_with_a_quiet_vcf_threat_is_found() {
        // The first move makes no three: it threatens a VCF (a "fukumi" move).
        let (mut b, answers) = puzzle("vct-quintet-010");
        let m = VctSolver::new().solve(&mut b, 16, 3_000_000, None);
        assert!(m.is_some_and(|m| answers.contains(&m)), "{m:?}");
    }

    fn limits(hard: Duration) -> SearchLimits {
        SearchLimits {
            soft: hard,
            hard,
            ..SearchLimits::depth(64)
        }
    }

    #[test]
    fn the_root_vct_finds_a_long_white_renju_win() {
        // A 13-threat VCT that the alpha-beta search does not see within seconds.
        let (mut b, answers) = puzzle("vct-quintet-013");
        let mut s = Searcher::new(1 << 20);
        s.limits = limits(Duration::from_secs(30));
        let m = s.root_vct(&mut b);
        assert!(m.is_some_and(|m| answers.contains(&m)), "{m:?}");
        // Off (no room under the memory limit), and on turns too short for its tables: none.
        s.set_root_vct(false);
        assert_eq!(s.root_vct(&mut b), None);
        s.set_root_vct(true);
        s.limits = limits(Duration::from_millis(50));
        assert_eq!(s.root_vct(&mut b), None);
    }

    #[test]
    fn a_search_still_running_late_leaves_the_vct_solver_its_share() {
        // vct-quintet-015: the alpha-beta search scores black ahead but sees no win in
        // seconds. The solver starts once: right after the first iteration that ends past 35 %
        // of the move, or, when the last iteration scored 400 (a clear lead, where a threat win
        // is likely), the one still running is stopped to leave it 30 % of the move. Which rule
        // fires depends on the tree, so the test checks whichever the iterations called for.
        #[derive(Default)]
        struct Trace {
            iterations: Vec<(Duration, i32)>,
            starts: Vec<Duration>,
        }
        impl crate::search::Observer for Trace {
            fn iteration(&mut self, r: &Report) {
                self.iterations.push((r.elapsed, r.score));
            }
            fn vct_started(&mut self, elapsed: Duration) {
                self.starts.push(elapsed);
            }
        }
        let (b, _) = puzzle("vct-quintet-015");
        let hard = Duration::from_millis(3_000);
        let mut trace = Trace::default();
        let r = Searcher::new(1 << 20).think_with(&b, limits(hard), &[], &mut trace);
        let seen = format!("{r:?} {:?} {:?}", trace.iterations, trace.starts);
        // The test's soft limit is the hard one: an iteration ending there starts nothing.
        let first_late = trace
            .iterations
            .iter()
            .map(|&(t, _)| t)
            .find(|&t| t >= hard / 100 * 35 && t < hard);
        let last_score = trace.iterations.last().map_or(0, |&(_, s)| s);
        if let Some(t) = first_late {
            assert_eq!(trace.starts.len(), 1, "{seen}");
            let start = trace.starts[0];
            assert!(
                start >= t && start - t < Duration::from_millis(50),
                "{seen}"
            );
        } else if last_score >= 400 {
            assert_eq!(trace.starts.len(), 1, "{seen}");
            assert!(hard - trace.starts[0] >= hard / 5, "{seen}");
        } else {
            // Neither rule called for the solver: the search had the whole move.
            assert!(trace.starts.is_empty(), "{seen}");
        }
    }

    #[test]
    fn the_root_vct_stops_at_once_when_told() {
        // vct-quintet-015 takes the solver seconds; the stop flag ends it within milliseconds.
        let (mut b, _) = puzzle("vct-quintet-015");
        let mut s = Searcher::new(1 << 20);
        s.limits = limits(Duration::from_secs(60));
        let stop = s.stop_flag();
        let started = std::time::Instant::now();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let m = s.root_vct(&mut b);
        stopper.join().unwrap();
        let took = started.elapsed();
        assert!(took < Duration::from_millis(1_000), "{took:?} {m:?}");
    }

    #[test]
    fn a_win_the_search_proves_gives_way_to_the_solvers_as_short() {
        // vct-quintet-011: the search soon proves white's four on 8,12 (five threats and the
        // five); the solver's win, as long, starts with the listed 9,11 or 10,12.
        let (b, answers) = puzzle("vct-quintet-011");
        let r = Searcher::new(1 << 20).think(&b, limits(Duration::from_secs(2)), |_| {});
        assert!(r.score > WIN_BOUND && answers.contains(&r.best), "{r:?}");
        assert!(WIN - r.score <= 11, "{}", r.score_text());
    }

    #[test]
    fn the_root_stage_answers_a_vcf_with_a_mate_score() {
        let (b, answers) = puzzle("vcf-mintaka-025");
        let limits = SearchLimits {
            soft: Duration::from_secs(5),
            hard: Duration::from_secs(5),
            ..SearchLimits::depth(64)
        };
        let r = Searcher::new(1 << 20).think(&b, limits, |_| {});
        assert!(r.score > WIN_BOUND && answers.contains(&r.best), "{r:?}");
        // The mate distance is the line's own (the MESSAGE line shows it), not the limit of
        // the solver's pass that found it.
        let line = ThreatSolver::vcf()
            .solve_line(&mut b.clone(), 112, 200_000)
            .expect("a VCF")
            .to_vec();
        let mut end = b.clone();
        for &m in &line[..line.len() - 1] {
            end.play(m, end.side_to_move());
        }
        // A line ends with the five, or with a four the defender cannot stop (a forbidden
        // block): then the reply and the five follow.
        let plies = if end.is_winning_move(line[line.len() - 1], end.side_to_move()) {
            line.len()
        } else {
            line.len() + 2
        };
        assert_eq!(WIN - r.score, plies as i32, "{r:?}");
    }
}
