//! `solve`: runs the search (or, with `--solvers`, the threat solvers alone) on labelled tactical
//! positions (the `vcf*.txt` / `vct*.txt` corpus format) and reports how many it wins with a
//! correct first move within the time limit.

use crate::game::{Board, Color, Pos, Rule};
use crate::search::movepick::{generate, MoveList};
use crate::search::threat::ThreatSolver;
use crate::search::vct::VctSolver;
use crate::search::{Report, SearchLimits, Searcher, MAX_VCF_FOURS, WIN, WIN_BOUND};
use std::time::{Duration, Instant};

/// Longest VCT the threat-solver mode looks for, in attacker moves.
const MAX_VCT_THREATS: usize = 24;

/// One labelled position.
pub struct Puzzle {
    pub id: String,
    pub board: Board,
    /// Winning first moves.
    pub answers: Vec<Pos>,
    /// Whether the list of winning first moves may be incomplete (`answer_set=partial`).
    pub partial: bool,
    /// A win by continuous threats is asked for (`task=vct`), not only by fours.
    pub vct: bool,
}

fn points(list: &str) -> Vec<(i64, i64)> {
    if list == "-" {
        return Vec::new();
    }
    list.split(';')
        .filter_map(|p| {
            let (x, y) = p.split_once(',')?;
            Some((x.parse().ok()?, y.parse().ok()?))
        })
        .collect()
}

/// Parses one case line; `None` for comments and lines without a win answer.
pub fn parse_line(line: &str) -> Option<Puzzle> {
    let line = line.split(" # ").next()?.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let field = |k: &str| {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
    };
    let rule = Rule::from_name(field("rule")?)?;
    let size: usize = field("size")?.parse().ok()?;
    let tomove = if field("tomove")? == "white" {
        Color::White
    } else {
        Color::Black
    };
    let mut board = Board::new(size, size, rule).ok()?;
    let black = points(field("black").unwrap_or("-"));
    let white = points(field("white").unwrap_or("-"));
    // Interleave so that colours alternate where counts allow (renju threat rules do not depend
    // on order, but the history reads naturally).
    for &(x, y) in &black {
        board.try_play(x, y, Color::Black).ok()?;
    }
    for &(x, y) in &white {
        board.try_play(x, y, Color::White).ok()?;
    }
    board.set_side_to_move(tomove);
    let answer = field("answer")?.strip_prefix("win:")?;
    // `win:any`: positions known to be won whose winning first moves were not enumerated (a
    // benchmark of the solvers' speed): any first move the solver proves counts.
    let answers = if answer == "any" {
        board.cells_iter().filter(|&p| board.is_empty(p)).collect()
    } else {
        points(answer)
            .into_iter()
            .filter_map(|(x, y)| board.pos(x, y))
            .collect()
    };
    Some(Puzzle {
        id: field("id")?.to_string(),
        board,
        answers,
        partial: field("answer_set") == Some("partial"),
        vct: field("task") == Some("vct"),
    })
}

/// Who answers a puzzle.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Solver {
    /// The engine's own search, as in a game with that much time per move.
    Engine,
    /// The threat solvers alone: VCF for `task=vcf`, the df-pn VCT for `task=vct`.
    Threats,
}

/// The threat solvers' answer: a first move and whether it was found, with their own clock.
fn threat_answer(
    puzzle: &Puzzle,
    vcf: &mut ThreatSolver,
    vct: &mut VctSolver,
    limit: Duration,
) -> (Pos, bool, Duration) {
    let start = Instant::now();
    let deadline = start.checked_add(limit);
    let mut board = puzzle.board.clone();
    let found = if puzzle.vct {
        vct.solve(&mut board, MAX_VCT_THREATS, u64::MAX, deadline)
    } else {
        vcf.solve(&mut board, MAX_VCF_FOURS, u64::MAX, deadline)
            .map(|(m, _)| m)
    };
    (found.unwrap_or(Pos::NONE), found.is_some(), start.elapsed())
}

/// Whether the engine's move generation leaves a single move in this position (it then answers
/// at once, without searching).
fn only_move(board: &Board) -> bool {
    let mut list = MoveList::with_capacity();
    generate(&mut board.clone(), &mut list);
    list.len() == 1
}

/// Solves every puzzle in `files` with `limit` per puzzle; prints a line per failure and a
/// summary per file (and, when the environment has `TENGEN_SOLVE_VERBOSE`, a line per solved
/// puzzle with its time and nodes). Returns (solved, total).
pub fn run(files: &[String], limit: Duration, solver: Solver) -> (usize, usize) {
    let mut searcher = Searcher::new(64 << 20);
    let (mut vcf, mut vct) = (ThreatSolver::vcf(), VctSolver::new());
    let (mut solved_all, mut total_all) = (0, 0);
    for file in files {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{file}: {e}");
                continue;
            }
        };
        let (mut solved, mut total, mut unlisted, mut forced_count) = (0, 0, 0, 0);
        let mut slowest = Duration::ZERO;
        for puzzle in text.lines().filter_map(parse_line) {
            total += 1;
            let report = match solver {
                Solver::Engine => {
                    searcher.clear_tt();
                    let limits = SearchLimits {
                        soft: limit,
                        hard: limit,
                        start: Instant::now(),
                        ..SearchLimits::depth(64)
                    };
                    searcher.think(&puzzle.board, limits, |_| {})
                }
                Solver::Threats => {
                    let (best, won, elapsed) = threat_answer(&puzzle, &mut vcf, &mut vct, limit);
                    Report {
                        best,
                        score: if won { WIN } else { 0 },
                        depth: 0,
                        nodes: if puzzle.vct { vct.nodes() } else { vcf.nodes() },
                        elapsed,
                        pv: Vec::new(),
                    }
                }
            };
            // The engine answers a position with a single sensible move (the block of a four)
            // at once, without a score: that move is the answer when the puzzle lists it.
            let forced = solver == Solver::Engine && only_move(&puzzle.board);
            let listed = puzzle.answers.contains(&report.best);
            let ok = listed && (report.score > WIN_BOUND || forced);
            if ok {
                solved += 1;
                forced_count += forced as usize;
                slowest = slowest.max(report.elapsed);
                if std::env::var_os("TENGEN_SOLVE_VERBOSE").is_some() {
                    println!(
                        "solved {} best {} {} ms {} nodes{}",
                        puzzle.id,
                        report.best,
                        report.elapsed.as_millis(),
                        report.nodes,
                        if forced { " (the only move)" } else { "" }
                    );
                }
            } else {
                // A claimed win with a first move the source does not list: not counted, but
                // told apart (the list may be incomplete).
                let claims_other = report.score > WIN_BOUND && puzzle.partial;
                unlisted += claims_other as usize;
                let best = if report.best.is_none() {
                    "-".to_string()
                } else {
                    report.best.to_string()
                };
                let score = match solver {
                    Solver::Engine => report.score_text(),
                    Solver::Threats if report.score > WIN_BOUND => "win".to_string(),
                    Solver::Threats => "none".to_string(),
                };
                println!(
                    "unsolved {} best {best} score {score} depth {} {} ms{}",
                    puzzle.id,
                    report.depth,
                    report.elapsed.as_millis(),
                    if claims_other {
                        " (claims a win with an unlisted first move; answer set partial)"
                    } else {
                        ""
                    }
                );
            }
        }
        println!(
            "{file}: solved {solved}/{total}{}, slowest solve {} ms{}",
            if forced_count > 0 {
                format!(" ({forced_count} by the only move)")
            } else {
                String::new()
            },
            slowest.as_millis(),
            if unlisted > 0 {
                format!(", {unlisted} more claim a win with an unlisted first move")
            } else {
                String::new()
            }
        );
        solved_all += solved;
        total_all += total;
    }
    println!("solved {solved_all}/{total_all}");
    (solved_all, total_all)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `lines` to a file of its own under the system's temporary directory.
    fn puzzle_file(name: &str, lines: &[&str]) -> String {
        let path = std::env::temp_dir().join(format!("tengen-solve-{}-{name}", std::process::id()));
        std::fs::write(&path, lines.join("\n")).expect("temp file");
        path.to_string_lossy().into_owned()
    }

    #[test]
    fn a_listed_only_move_counts_as_solved_in_engine_mode_alone() {
        // White's four (3..6, 0), blocked on the left: black's only move is 7,0.
        let stones = "black=2,0;10,10;12,12;10,12 white=3,0;4,0;5,0;6,0";
        let right = format!(
            "id=block rule=freestyle size=15 tomove=black {stones} task=vct answer=win:7,0"
        );
        let wrong = format!(
            "id=other rule=freestyle size=15 tomove=black {stones} task=vct answer=win:8,0"
        );
        let file = puzzle_file("only-move", &[&right, &wrong]);
        let limit = Duration::from_millis(200);
        assert_eq!(
            run(std::slice::from_ref(&file), limit, Solver::Engine),
            (1, 2)
        );
        // The threat solvers prove nothing here: no win, so nothing is solved.
        assert_eq!(
            run(std::slice::from_ref(&file), limit, Solver::Threats),
            (0, 2)
        );
        let _ = std::fs::remove_file(file);
    }

    #[test]
    fn win_any_counts_every_proven_first_move_and_nothing_else() {
        // Black's open three wins by fours; the lone stones win nothing.
        let won = "id=won rule=freestyle size=15 tomove=black black=5,7;6,7;7,7 \
                   white=0,0;14,14;0,14 task=vct answer=win:any answer_set=partial";
        let lost = "id=lost rule=freestyle size=15 tomove=black black=7,7 white=8,8;0,0 \
                    task=vct answer=win:any answer_set=partial";
        let puzzle = parse_line(won).expect("parses");
        assert_eq!(puzzle.answers.len(), 15 * 15 - 6);
        assert!(!puzzle.answers.contains(&puzzle.board.pos(5, 7).unwrap()));
        let file = puzzle_file("win-any", &[won, lost]);
        let limit = Duration::from_millis(300);
        assert_eq!(
            run(std::slice::from_ref(&file), limit, Solver::Threats),
            (1, 2)
        );
        let _ = std::fs::remove_file(file);
    }
}
