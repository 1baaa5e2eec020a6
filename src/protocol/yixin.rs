//! Output for analysis GUIs (Yixin-Board, Gomoku Calculator): the `show_detail` modes, the
//! realtime lines and the `INFO` detail lines printed while a search runs, and the output gate
//! that keeps the search thread quiet once `END` has been read.
//!
//! What the GUIs read (protocol.md §9): Yixin-Board takes `MESSAGE REALTIME POS|DONE|BEST|LOST
//! x,y` and `MESSAGE REALTIME REFRESH` (it only looks at the first letter of the kind, so Rapfi's
//! `LOST` and Yixin's `LOSE` read the same; Gomoku Calculator only knows `LOST`), and treats any
//! other non-`MESSAGE` line as a move, so bare `INFO` lines are printed only in the detail modes
//! Gomoku Calculator asks for (2 and 3).

use super::io::emit;
use crate::game::Pos;
use crate::search::{score_text, Observer, Report, WIN_BOUND};
use std::sync::Mutex;
use std::time::Instant;

/// Realtime lines per root move only after this much thinking (no flood in fast iterations).
const REALTIME_MIN_ELAPSED_MS: u128 = 200;
/// Realtime lines only from this iteration depth on.
const REALTIME_MIN_DEPTH: i32 = 2;

/// What `INFO show_detail` asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detail {
    /// `MESSAGE REALTIME …` lines (show_detail 1 and 3).
    pub realtime: bool,
    /// `INFO DEPTH/EVAL/…` blocks (show_detail 2 and 3).
    pub info: bool,
}

impl Detail {
    /// Rapfi's meaning: 0 nothing, 1 realtime, 2 detail lines, 3 both; anything else is 0.
    pub fn from_info(n: i64) -> Detail {
        Detail {
            realtime: n == 1 || n == 3,
            info: n == 2 || n == 3,
        }
    }

    pub fn any(self) -> bool {
        self.realtime || self.info
    }
}

/// `true` while lines may be printed; `END` closes it for good.
static OUTPUT_OPEN: Mutex<bool> = Mutex::new(true);

/// Prints a line from the search thread, unless `END` has been read.
pub fn say(line: &str) {
    let open = OUTPUT_OPEN.lock().unwrap_or_else(|e| e.into_inner());
    if *open {
        emit(line);
    }
}

/// `END`: close the output (a search thread in the middle of a line finishes that line first,
/// then prints nothing more) and exit.
pub fn exit_now() -> ! {
    let mut open = OUTPUT_OPEN.lock().unwrap_or_else(|e| e.into_inner());
    *open = false;
    std::process::exit(0)
}

/// Moves as `x,y x,y …`.
pub fn moves_text(moves: &[Pos]) -> String {
    moves
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Yixin-Board's opening-step lines for stones placed: `MESSAGE <rule> MOVEk x y`, numbered
/// from `first` (the move number of the first stone), coordinates as the GUI reads them.
pub fn numbered_moves(rule: &str, first: usize, stones: &[Pos]) -> Vec<String> {
    stones
        .iter()
        .enumerate()
        .map(|(i, p)| format!("MESSAGE {rule} MOVE{} {} {}", first + i, p.x(), p.y()))
        .collect()
}

/// A win probability for Gomoku Calculator's `INFO WINRATE` (logistic in the evaluation).
pub fn winrate(score: i32) -> f64 {
    if score > WIN_BOUND {
        1.0
    } else if score < -WIN_BOUND {
        0.0
    } else {
        1.0 / (1.0 + (-(score as f64) / 200.0).exp())
    }
}

/// One line of a multi-PV answer: a root move, its score for the side to move, and its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvLine {
    pub mv: Pos,
    pub score: i32,
    pub depth: i32,
    pub pv: Vec<Pos>,
    pub nodes: u64,
}

impl PvLine {
    pub fn from_report(r: &Report) -> PvLine {
        let pv = if r.pv.first() == Some(&r.best) {
            r.pv.clone()
        } else {
            vec![r.best]
        };
        PvLine {
            mv: r.best,
            score: r.score,
            depth: r.depth,
            pv,
            nodes: r.nodes,
        }
    }
}

/// The `INFO` block Gomoku Calculator parses for one principal variation.
#[allow(clippy::too_many_arguments)]
pub fn info_block(
    pv_index: usize,
    num_pv: usize,
    depth: i32,
    nodes: u64,
    total_nodes: u64,
    total_ms: u128,
    score: i32,
    line: &[Pos],
) {
    let ms = total_ms.max(1);
    let speed = (total_nodes as u128).saturating_mul(1000) / ms;
    say(&format!("INFO PV {pv_index}"));
    say(&format!("INFO NUMPV {num_pv}"));
    say(&format!("INFO DEPTH {depth}"));
    say(&format!("INFO SELDEPTH {depth}"));
    say(&format!("INFO NODES {nodes}"));
    say(&format!("INFO TOTALNODES {total_nodes}"));
    say(&format!("INFO TOTALTIME {total_ms}"));
    say(&format!("INFO SPEED {speed}"));
    say(&format!("INFO EVAL {}", score_text(score)));
    say(&format!("INFO WINRATE {:.4}", winrate(score)));
    say(&format!("INFO BESTLINE {}", moves_text(line)));
    say("INFO PV DONE");
}

/// The search observer that prints realtime and detail lines as the GUI asked for.
pub struct Reporter {
    pub detail: Detail,
    /// When the command was read: `INFO TOTALTIME` and the realtime delay count from here.
    pub start: Instant,
    /// Index of the principal variation being searched (multi-PV) and how many there are.
    pub pv_index: usize,
    pub num_pv: usize,
    /// Only this iteration depth is reported (multi-PV searches re-run the shallower ones).
    pub only_depth: Option<i32>,
    /// Nodes of the searches that already finished in this command.
    pub nodes_before: u64,
    /// The overall best move so far, shown after `REFRESH` (default: the iteration's best).
    pub overall_best: Option<Pos>,
    /// Per-root-move lines (`POS`, `DONE`, `LOST`, `BEST`) are printed (off in balance searches).
    pub root_lines: bool,
    /// Best score at the current depth, to tell a new best root move.
    depth_best: Option<(i32, i32)>,
    /// The scores of the completed iterations, by depth.
    pub scores: Vec<i32>,
}

impl Reporter {
    pub fn new(detail: Detail, start: Instant) -> Reporter {
        Reporter {
            detail,
            start,
            pv_index: 0,
            num_pv: 1,
            only_depth: None,
            nodes_before: 0,
            overall_best: None,
            root_lines: true,
            depth_best: None,
            scores: Vec::new(),
        }
    }

    fn wanted(&self, depth: i32) -> bool {
        self.only_depth.is_none_or(|d| d == depth)
    }

    fn loop_lines(&self, depth: i32) -> bool {
        self.detail.realtime
            && self.root_lines
            && depth >= REALTIME_MIN_DEPTH
            && self.wanted(depth)
            && self.start.elapsed().as_millis() >= REALTIME_MIN_ELAPSED_MS
    }

    /// `REFRESH` then `BEST`: the GUI clears the searched-move marks and shows the best move.
    pub fn refresh(&self, best: Pos) {
        if self.detail.realtime && !best.is_none() {
            say("MESSAGE REALTIME REFRESH");
            say(&format!("MESSAGE REALTIME BEST {best}"));
        }
    }

    /// `MESSAGE REALTIME LOST x,y` for a move proven to lose.
    pub fn lost(&self, m: Pos) {
        if self.detail.realtime {
            say(&format!("MESSAGE REALTIME LOST {m}"));
        }
    }

    /// The detail block for a finished line (multi-PV and balance searches call it directly).
    pub fn line_done(&self, depth: i32, nodes: u64, score: i32, line: &[Pos]) {
        if self.detail.info && !line.is_empty() {
            info_block(
                self.pv_index,
                self.num_pv,
                depth,
                nodes,
                self.nodes_before + nodes,
                self.start.elapsed().as_millis(),
                score,
                line,
            );
        }
    }
}

impl Observer for Reporter {
    fn root_move_started(&mut self, depth: i32, m: Pos) {
        if self.loop_lines(depth) {
            say(&format!("MESSAGE REALTIME POS {m}"));
        }
    }

    fn root_move_done(&mut self, depth: i32, m: Pos, score: i32) {
        let new_best = match self.depth_best {
            Some((d, s)) if d == depth => score > s,
            _ => true,
        };
        if new_best {
            self.depth_best = Some((depth, score));
        }
        if !self.loop_lines(depth) {
            return;
        }
        say(&format!("MESSAGE REALTIME DONE {m}"));
        if score < -WIN_BOUND {
            say(&format!("MESSAGE REALTIME LOST {m}"));
        } else if new_best {
            say(&format!("MESSAGE REALTIME BEST {m}"));
        }
    }

    fn iteration(&mut self, report: &Report) {
        if report.depth as usize == self.scores.len() + 1 {
            self.scores.push(report.score);
        }
        if !self.wanted(report.depth) {
            return;
        }
        let line = PvLine::from_report(report);
        self.line_done(report.depth, report.nodes, report.score, &line.pv);
        // Many lines (YXSEARCHDEFEND): refresh once per pass, not after every line.
        let lines_ok = self.pv_index == 0 || self.num_pv <= 10;
        if lines_ok && (report.depth >= REALTIME_MIN_DEPTH || self.only_depth.is_some()) {
            self.refresh(self.overall_best.unwrap_or(report.best));
        }
    }
}

/// An observer that sees nothing.
pub struct Quiet;
impl Observer for Quiet {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_detail_values() {
        assert_eq!(Detail::from_info(0), Detail::default());
        assert!(Detail::from_info(1).realtime && !Detail::from_info(1).info);
        assert!(!Detail::from_info(2).realtime && Detail::from_info(2).info);
        assert!(Detail::from_info(3).realtime && Detail::from_info(3).info);
        assert!(!Detail::from_info(7).any());
    }

    #[test]
    fn winrate_is_monotone_and_bounded() {
        assert_eq!(winrate(0), 0.5);
        assert!(winrate(100) > 0.5 && winrate(100) < winrate(400));
        assert_eq!(winrate(WIN_BOUND + 10), 1.0);
        assert_eq!(winrate(-WIN_BOUND - 10), 0.0);
    }
}
