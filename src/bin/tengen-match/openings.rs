//! Openings: Gomocup offset lines, move strings, seeded random openings and the 8 symmetries.

use crate::cli::OpeningFormat;
use crate::rng::Rng;
use anyhow::{anyhow, bail, Context, Result};
use std::path::Path;
use tengen::game::{Board, Color, Rule};

/// Stones in move order, black first, as absolute `(x, y)`.
pub type Opening = Vec<(i64, i64)>;

/// Parses a Gomocup offset line (`-7,-8, -6,-9, -3,-9`): pairs of offsets from
/// `floor(size / 2)`.
pub fn parse_offset(line: &str, size: usize) -> Result<Opening> {
    let nums: Vec<i64> = line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.parse::<i64>()
                .with_context(|| format!("bad offset '{t}'"))
        })
        .collect::<Result<_>>()?;
    if nums.len() % 2 != 0 {
        bail!("odd number of offsets");
    }
    let c = (size / 2) as i64;
    Ok(nums.chunks(2).map(|p| (c + p[0], c + p[1])).collect())
}

/// Parses a move string (`h8i9j10`): a letter for the column (`a` = 0) followed by the row
/// number (`1` = 0), as c-gomoku-cli's `pos` openings.
pub fn parse_pos(line: &str) -> Result<Opening> {
    let mut out = Vec::new();
    let b = line.trim().as_bytes();
    let mut i = 0;
    while i < b.len() {
        let ch = b[i].to_ascii_lowercase();
        if ch.is_ascii_whitespace() || ch == b',' {
            i += 1;
            continue;
        }
        if !ch.is_ascii_lowercase() {
            bail!("expected a column letter at '{}'", &line.trim()[i..]);
        }
        let x = (ch - b'a') as i64;
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if start == i {
            bail!("column letter without row number");
        }
        let n: i64 = std::str::from_utf8(&b[start..i]).unwrap().parse()?;
        out.push((x, n - 1));
    }
    Ok(out)
}

/// Checks an opening on the board: on board, distinct, no five, no renju foul by black.
pub fn validate(o: &Opening, size: usize, rule: Rule) -> Result<()> {
    let mut board = Board::new(size, size, rule).map_err(|e| anyhow!("{e}"))?;
    let mut color = Color::Black;
    for &(x, y) in o {
        let p = board
            .pos(x, y)
            .ok_or_else(|| anyhow!("stone {x},{y} is off the {size}x{size} board"))?;
        if !board.is_empty(p) {
            bail!("stone {x},{y} twice");
        }
        if board.is_winning_move(p, color) {
            bail!("stone {x},{y} makes a five");
        }
        if color == Color::Black && board.foul(p).is_some() {
            bail!("stone {x},{y} is a renju foul");
        }
        board.play(p, color);
        color = color.other();
    }
    Ok(())
}

fn detect(line: &str) -> OpeningFormat {
    if line
        .trim_start()
        .as_bytes()
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic())
    {
        OpeningFormat::Pos
    } else {
        OpeningFormat::Offset
    }
}

/// Parses one line; blank lines and `#` comments give `None`.
pub fn parse_line(line: &str, size: usize, fmt: OpeningFormat) -> Result<Option<Opening>> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let fmt = if fmt == OpeningFormat::Auto {
        detect(t)
    } else {
        fmt
    };
    let o = match fmt {
        OpeningFormat::Pos => parse_pos(t)?,
        _ => parse_offset(t, size)?,
    };
    Ok(Some(o))
}

pub fn load(path: &Path, size: usize, rule: Rule, fmt: OpeningFormat) -> Result<Vec<Opening>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading openings {}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let parsed =
            parse_line(line, size, fmt).with_context(|| format!("{}:{}", path.display(), n + 1))?;
        if let Some(o) = parsed {
            validate(&o, size, rule).with_context(|| format!("{}:{}", path.display(), n + 1))?;
            out.push(o);
        }
    }
    if out.is_empty() {
        bail!("no openings in {}", path.display());
    }
    Ok(out)
}

/// One of the 8 symmetries of the square board (0 = identity).
pub fn transform(o: &Opening, sym: u8, size: usize) -> Opening {
    let m = size as i64 - 1;
    o.iter()
        .map(|&(x, y)| {
            let (x, y) = if sym & 4 != 0 { (y, x) } else { (x, y) };
            let x = if sym & 1 != 0 { m - x } else { x };
            let y = if sym & 2 != 0 { m - y } else { y };
            (x, y)
        })
        .collect()
}

/// A random opening of `min..=max` stones within 3 points of the centre, black first, with no
/// five, no renju foul, and no four (so the side to move has no immediate win).
pub fn random_opening(rng: &mut Rng, size: usize, rule: Rule, min: usize, max: usize) -> Opening {
    random_opening_within(rng, size, rule, min, max, 3)
}

/// `random_opening` with the stones within `radius` points of the centre (Chebyshev distance).
pub fn random_opening_within(
    rng: &mut Rng,
    size: usize,
    rule: Rule,
    min: usize,
    max: usize,
    radius: i64,
) -> Opening {
    let c = (size / 2) as i64;
    let r = radius.min(c);
    'again: loop {
        let n = rng.range(min as i64, max as i64) as usize;
        let mut board = Board::new(size, size, rule).expect("valid size");
        let mut o = Vec::new();
        let mut color = Color::Black;
        for _ in 0..n {
            let mut tries = 0;
            loop {
                tries += 1;
                if tries > 200 {
                    continue 'again;
                }
                let (x, y) = (rng.range(c - r, c + r), rng.range(c - r, c + r));
                let Some(p) = board.pos(x, y) else { continue };
                if !board.is_empty(p) || board.is_winning_move(p, color) {
                    continue;
                }
                if color == Color::Black && board.foul(p).is_some() {
                    continue;
                }
                board.play(p, color);
                o.push((x, y));
                color = color.other();
                break;
            }
        }
        // No side may already have a winning point.
        if !has_winning_point(&board) {
            return o;
        }
    }
}

/// Whether either side has a point that makes a five (a four on the board).
pub fn has_winning_point(board: &Board) -> bool {
    board.cells_iter().any(|p| {
        board.is_empty(p)
            && (board.is_winning_move(p, Color::Black) || board.is_winning_move(p, Color::White))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_format() {
        let o = parse_offset("-7,-8, -6,-9, -3,-9", 20).unwrap();
        assert_eq!(o, vec![(3, 2), (4, 1), (7, 1)]);
        let o = parse_offset("0,0, 1,1", 15).unwrap();
        assert_eq!(o, vec![(7, 7), (8, 8)]);
        assert!(parse_offset("0,0, 1", 15).is_err());
    }

    #[test]
    fn pos_format() {
        assert_eq!(parse_pos("h8i9j10").unwrap(), vec![(7, 7), (8, 8), (9, 9)]);
        assert_eq!(parse_pos("a1 O15").unwrap(), vec![(0, 0), (14, 14)]);
        assert!(parse_pos("h").is_err());
        assert!(parse_pos("8h").is_err());
    }

    #[test]
    fn auto_detect_and_comments() {
        assert_eq!(parse_line("# hi", 15, OpeningFormat::Auto).unwrap(), None);
        assert_eq!(
            parse_line("h8i9", 15, OpeningFormat::Auto).unwrap(),
            Some(vec![(7, 7), (8, 8)])
        );
        assert_eq!(
            parse_line("0,0, 1,0", 15, OpeningFormat::Auto).unwrap(),
            Some(vec![(7, 7), (8, 7)])
        );
    }

    #[test]
    fn symmetries_are_distinct_and_on_board() {
        let o = vec![(1, 2), (3, 0)];
        let mut seen = std::collections::HashSet::new();
        for s in 0..8 {
            let t = transform(&o, s, 15);
            assert!(t
                .iter()
                .all(|&(x, y)| (0..15).contains(&x) && (0..15).contains(&y)));
            seen.insert(t);
        }
        assert_eq!(seen.len(), 8);
        assert_eq!(transform(&o, 0, 15), o);
    }

    #[test]
    fn validation() {
        let rule = Rule::Freestyle;
        assert!(validate(&vec![(7, 7), (7, 7)], 15, rule).is_err());
        assert!(validate(&vec![(15, 0)], 15, rule).is_err());
        assert!(validate(&vec![(7, 7), (8, 8)], 15, rule).is_ok());
    }

    #[test]
    fn random_openings_are_valid_and_seeded() {
        for rule in [Rule::Freestyle, Rule::Renju, Rule::Standard] {
            for seed in 0..50 {
                let a = random_opening(&mut crate::rng::seeded(seed), 15, rule, 2, 4);
                let b = random_opening(&mut crate::rng::seeded(seed), 15, rule, 2, 4);
                assert_eq!(a, b);
                assert!((2..=4).contains(&a.len()));
                validate(&a, 15, rule).unwrap();
            }
        }
    }
}
