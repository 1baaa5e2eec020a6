//! Search labels for the tuner: every quiet position of recorded games scored by a fixed-depth
//! search, so the evaluation can be fitted to what a deeper look says rather than only to how
//! the (noisy, often decided-much-later) game ended.
//!
//! A label line is `GAME PLY SCORE`: the game's index over the files read in order (comments
//! and unreadable lines skipped, as `tune_data::read_games` does), the number of moves played
//! before the position, and the search score for the side to move.

use super::tune_data::{self, GameRecord};
use crate::search::{SearchLimits, Searcher};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `pbrain-tengen tune label` settings.
#[derive(Clone, Debug)]
pub struct LabelOptions {
    pub files: Vec<PathBuf>,
    pub out: PathBuf,
    /// Depth of every labelling search, and its node cap.
    pub depth: i32,
    pub nodes: u64,
    /// Label only the games whose index is `part` modulo `parts` (to run several processes).
    pub part: usize,
    pub parts: usize,
}

impl Default for LabelOptions {
    fn default() -> LabelOptions {
        LabelOptions {
            files: Vec::new(),
            out: PathBuf::from("tune-labels.txt"),
            depth: 6,
            nodes: 200_000,
            part: 0,
            parts: 1,
        }
    }
}

/// Labels the quiet positions of the games (appending to `opts.out`); returns how many.
pub fn run(opts: &LabelOptions) -> std::io::Result<usize> {
    let games = tune_data::read_games(&opts.files)?;
    let mut out = std::io::BufWriter::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&opts.out)?,
    );
    let mut searcher = Searcher::new(16 << 20);
    let started = std::time::Instant::now();
    let mut labelled = 0;
    for (gi, g) in games.iter().enumerate() {
        if opts.parts > 1 && gi % opts.parts != opts.part {
            continue;
        }
        // Each game starts from an empty table, so a label does not depend on which other
        // games this process labelled.
        searcher.clear_tt();
        for (ply, score) in label_game(g, &mut searcher, opts) {
            writeln!(out, "{gi} {ply} {score}")?;
            labelled += 1;
        }
        if gi % 100 == 0 {
            out.flush()?;
            log::info!(
                "game {gi}/{}: {labelled} labels in {:.0} s",
                games.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    out.flush()?;
    Ok(labelled)
}

/// (ply, score) of every quiet position of `g`.
fn label_game(g: &GameRecord, searcher: &mut Searcher, opts: &LabelOptions) -> Vec<(usize, i32)> {
    let mut labels = Vec::new();
    g.replay(|b| {
        if !tune_data::is_quiet(b) {
            return;
        }
        let mut limits = SearchLimits::depth(opts.depth);
        limits.max_nodes = opts.nodes;
        let report = searcher.think(b, limits, |_| {});
        labels.push((b.stone_count(), report.score));
    });
    labels
}

/// Reads label files into a map from (game, ply) to score.
pub fn read_labels(files: &[PathBuf]) -> std::io::Result<HashMap<(usize, usize), i32>> {
    let mut labels = HashMap::new();
    for f in files {
        read_into(f, &mut labels)?;
    }
    Ok(labels)
}

fn read_into(f: &Path, labels: &mut HashMap<(usize, usize), i32>) -> std::io::Result<()> {
    for line in std::fs::read_to_string(f)?.lines() {
        let v: Vec<&str> = line.split_whitespace().collect();
        if let [g, p, s] = v[..] {
            if let (Ok(g), Ok(p), Ok(s)) = (g.parse(), p.parse(), s.parse()) {
                labels.insert((g, p), s);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Pos, Rule};

    #[test]
    fn labels_are_search_scores_of_the_quiet_positions_and_read_back() {
        let g = GameRecord {
            rule: Rule::Freestyle,
            width: 15,
            height: 15,
            outcome: tune_data::Outcome::BlackWins,
            opening: 2,
            moves: [(7, 7), (8, 8), (8, 7), (6, 7), (9, 7), (10, 7), (8, 6)]
                .iter()
                .map(|&(x, y)| Pos::new(x, y))
                .collect(),
        };
        let opts = LabelOptions {
            depth: 2,
            ..LabelOptions::default()
        };
        let mut searcher = Searcher::new(1 << 20);
        let labels = label_game(&g, &mut searcher, &opts);
        // Every label is one of the replayed positions (2..=7 stones), in order.
        assert!(!labels.is_empty());
        assert!(labels.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(labels.iter().all(|&(p, _)| (2..=7).contains(&p)));
        let dir = std::env::temp_dir().join(format!("tengen-label-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("labels.txt");
        let text: String = labels.iter().map(|(p, s)| format!("3 {p} {s}\n")).collect();
        std::fs::write(&f, text + "garbage line\n").unwrap();
        let back = read_labels(&[f]).unwrap();
        assert_eq!(back.len(), labels.len());
        for (p, s) in labels {
            assert_eq!(back[&(3, p)], s);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
