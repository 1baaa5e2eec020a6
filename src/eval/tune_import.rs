//! Games for the tuner from match records: `pbrain-tengen tune import` turns the SGF files the
//! match runner writes (`tengen-match --out DIR`, with the rule, the result and which moves were
//! the opening) into the tuner's game lines. Match games are played at real time controls, so
//! their positions are the ones the engine meets in play, unlike the short self-play games of
//! `tune gen`.

use super::tune_data::{GameRecord, Outcome};
use crate::game::Rule;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The nodes of a one-variation SGF game: per node, its (identifier, value) properties.
fn sgf_nodes(text: &str) -> Vec<Vec<(String, String)>> {
    let mut nodes: Vec<Vec<(String, String)>> = Vec::new();
    let mut chars = text.chars();
    let mut ident = String::new();
    while let Some(c) = chars.next() {
        match c {
            ';' => {
                nodes.push(Vec::new());
                ident.clear();
            }
            '[' => {
                let mut value = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => value.extend(chars.next()),
                        ']' => break,
                        c => value.push(c),
                    }
                }
                if let Some(node) = nodes.last_mut() {
                    // `AB[..][..]`: a repeated value keeps the identifier.
                    let id = if ident.is_empty() {
                        node.last().map(|(i, _)| i.clone()).unwrap_or_default()
                    } else {
                        std::mem::take(&mut ident)
                    };
                    node.push((id, value));
                }
            }
            c if c.is_ascii_uppercase() => ident.push(c),
            _ => ident.clear(),
        }
    }
    nodes
}

/// A coordinate as the match runner writes it: `a..z`, then `A..Z` on boards over 26.
fn sgf_coord(c: char) -> Option<usize> {
    match c {
        'a'..='z' => Some(c as usize - 'a' as usize),
        'A'..='Z' => Some(c as usize - 'A' as usize + 26),
        _ => None,
    }
}

/// The game of an SGF record written by the match runner, or `None` when it lacks the size, the
/// rule, the result or a readable move, or its moves do not alternate from black.
pub fn from_sgf(text: &str) -> Option<GameRecord> {
    let nodes = sgf_nodes(text);
    let root = nodes.first()?;
    let prop = |id: &str| root.iter().find(|(i, _)| i == id).map(|(_, v)| v.as_str());
    let (width, height) = match prop("SZ")?.split_once(':') {
        Some((w, h)) => (w.parse().ok()?, h.parse().ok()?),
        None => {
            let n = prop("SZ")?.parse().ok()?;
            (n, n)
        }
    };
    let rule = Rule::from_name(prop("RU")?)?;
    let outcome = match prop("RE")? {
        r if r.starts_with("B+") => Outcome::BlackWins,
        r if r.starts_with("W+") => Outcome::WhiteWins,
        "0" | "Draw" | "draw" => Outcome::Draw,
        _ => return None,
    };
    let mut moves = Vec::new();
    let mut opening = 0;
    for node in &nodes[1..] {
        let Some((colour, at)) = node.iter().find(|(i, _)| i == "B" || i == "W") else {
            continue;
        };
        if (colour == "B") != (moves.len() % 2 == 0) {
            return None;
        }
        let mut xy = at.chars().map(sgf_coord);
        moves.push((xy.next()??, xy.next()??));
        if node.iter().any(|(i, v)| i == "C" && v == "opening") {
            opening = moves.len();
        }
    }
    GameRecord::from_coords(rule, (width, height), outcome, opening, &moves)
}

/// Every `.sgf` file under `path` (itself if it is a file), sorted.
fn sgf_files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for e in entries {
            if e.is_dir() || e.extension().is_some_and(|x| x == "sgf") {
                sgf_files(&e, out)?;
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

/// Appends the games of the SGF files under `paths` to `out` as game lines, each game once
/// (a colour-swapped pair that played the same moves counts once); games with fewer than
/// `min_moves` moves are left out. Returns (games written, files read).
pub fn import(paths: &[PathBuf], out: &Path, min_moves: usize) -> std::io::Result<(usize, usize)> {
    let mut files = Vec::new();
    for p in paths {
        sgf_files(p, &mut files)?;
    }
    let mut seen = HashSet::new();
    let mut lines = String::new();
    let mut written = 0;
    for f in &files {
        let Some(game) = from_sgf(&std::fs::read_to_string(f)?) else {
            log::warn!("{}: not a match runner game record, skipped", f.display());
            continue;
        };
        let line = game.to_line();
        if game.moves.len() >= min_moves && seen.insert(line.clone()) {
            lines.push_str(&line);
            lines.push('\n');
            written += 1;
        }
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)?
        .write_all(lines.as_bytes())?;
    Ok((written, files.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str = "(;GM[4]FF[4]CA[UTF-8]AP[tengen-match]SZ[15]RU[renju]PB[a]PW[b \\] c]\
        RE[W+]GN[game 1 pair 1]C[five];B[hh]C[opening];W[ih]C[opening];B[jj]C[opening]\
        ;W[ae]WL[19.828]C[172 ms];B[oo]BL[19.8]C[3 ms])\n";

    #[test]
    fn reads_the_match_runners_records() {
        let g = from_sgf(RECORD).unwrap();
        assert_eq!((g.rule, g.width, g.height), (Rule::Renju, 15, 15));
        assert_eq!(g.outcome, Outcome::WhiteWins);
        assert_eq!(g.opening, 3);
        assert_eq!(g.to_line(), "renju 15 15 0-1 3 7,7 8,7 9,9 0,4 14,14");
        let rect = RECORD
            .replace("SZ[15]", "SZ[20:16]")
            .replace("RE[W+]", "RE[0]");
        let g = from_sgf(&rect).unwrap();
        assert_eq!((g.width, g.height, g.outcome), (20, 16, Outcome::Draw));
    }

    #[test]
    fn records_that_do_not_say_everything_are_refused() {
        assert!(from_sgf(&RECORD.replace("RU[renju]", "")).is_none());
        assert!(from_sgf(&RECORD.replace("RE[W+]", "RE[?]")).is_none());
        assert!(
            from_sgf(&RECORD.replace("B[oo]", "B[zz]")).is_none(),
            "off the board"
        );
        assert!(
            from_sgf(&RECORD.replace("W[ae]", "B[ae]")).is_none(),
            "two black moves"
        );
        assert!(from_sgf("not sgf").is_none());
    }

    #[test]
    fn import_keeps_each_game_once() {
        let dir = std::env::temp_dir().join(format!("tengen-import-{}", std::process::id()));
        let sub = dir.join("run");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("game-1.sgf"), RECORD).unwrap();
        std::fs::write(sub.join("game-2.sgf"), RECORD).unwrap();
        std::fs::write(sub.join("game-3.sgf"), RECORD.replace("B[oo]", "B[on]")).unwrap();
        std::fs::write(sub.join("game-1.psq"), "not read").unwrap();
        let out = dir.join("games.txt");
        let _ = std::fs::remove_file(&out);
        assert_eq!(import(std::slice::from_ref(&dir), &out, 1).unwrap(), (2, 3));
        let games = super::super::tune_data::read_games(std::slice::from_ref(&out)).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(import(&[sub.join("game-1.sgf")], &out, 6).unwrap(), (0, 1));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
