//! Training data for the evaluation tuner: fast fixed-depth self-play games over every rule on
//! 15x15 and 20x20 boards, from the shipped opening books and from random openings, written one
//! game a line; and the reading of those games back into quiet positions labelled with the
//! game's result.
//!
//! A game line is `RULE WIDTH HEIGHT RESULT OPENING x,y x,y …`: the rule's name, the board size,
//! `1-0` (black won), `0-1` (white won) or `1/2`, the number of opening stones (set, not
//! searched), then every move in order, black first. Lines starting with `#` are comments.

use super::classical::{C_FIVE, C_FOUR, C_OPEN_FOUR};
use crate::game::{Board, Color, Pos, Rule};
use crate::search::{SearchLimits, Searcher, WIN_BOUND};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The tuner's random numbers: the shared generator with the tuner's own salt.
pub type Rng = crate::rng::Rng;

const SALT: u64 = 0x5DEE_CE66_D1CE_4E5B;

/// The tuner's generator of `seed`.
pub fn seeded(seed: u64) -> Rng {
    Rng::salted(seed, SALT)
}

/// Tests' random games: plays a random legal point near the stones (the centre area on an
/// empty board) for the side to move, unless the drawn point wins at once or is a foul; returns
/// whether a move was played.
#[cfg(test)]
pub fn play_random_near_move(b: &mut Board, rng: &mut Rng) -> bool {
    let me = b.side_to_move();
    let cells: Vec<Pos> = b
        .cells_iter()
        .filter(|&p| b.is_empty(p) && (b.stone_count() == 0 || b.near(p)))
        .collect();
    let p = cells[rng.below(cells.len())];
    if b.is_winning_move(p, me) || !b.is_legal(p, me) {
        return false;
    }
    b.play(p, me);
    true
}

/// The outcome of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    BlackWins,
    WhiteWins,
    Draw,
}

impl Outcome {
    pub fn text(self) -> &'static str {
        match self {
            Outcome::BlackWins => "1-0",
            Outcome::WhiteWins => "0-1",
            Outcome::Draw => "1/2",
        }
    }
    pub fn parse(s: &str) -> Option<Outcome> {
        match s {
            "1-0" => Some(Outcome::BlackWins),
            "0-1" => Some(Outcome::WhiteWins),
            "1/2" => Some(Outcome::Draw),
            _ => None,
        }
    }
    /// The game's score for `c`: 1 won, 0 lost, 0.5 drawn.
    pub fn score_for(self, c: Color) -> f64 {
        match (self, c) {
            (Outcome::Draw, _) => 0.5,
            (Outcome::BlackWins, Color::Black) | (Outcome::WhiteWins, Color::White) => 1.0,
            _ => 0.0,
        }
    }
    fn win_for(c: Color) -> Outcome {
        if c == Color::Black {
            Outcome::BlackWins
        } else {
            Outcome::WhiteWins
        }
    }
}

/// One recorded game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    pub outcome: Outcome,
    /// The first `opening` moves were set, not searched.
    pub opening: usize,
    pub moves: Vec<Pos>,
}

impl GameRecord {
    pub fn to_line(&self) -> String {
        let mut s = format!(
            "{} {} {} {} {}",
            self.rule.name(),
            self.width,
            self.height,
            self.outcome.text(),
            self.opening
        );
        for m in &self.moves {
            s.push_str(&format!(" {},{}", m.x(), m.y()));
        }
        s
    }

    pub fn parse(line: &str) -> Option<GameRecord> {
        let mut it = line.split_whitespace();
        let rule = Rule::from_name(it.next()?)?;
        let width = it.next()?.parse().ok()?;
        let height = it.next()?.parse().ok()?;
        let outcome = Outcome::parse(it.next()?)?;
        let opening = it.next()?.parse().ok()?;
        let mut moves = Vec::new();
        for m in it {
            let (x, y) = m.split_once(',')?;
            moves.push((x.parse().ok()?, y.parse().ok()?));
        }
        GameRecord::from_coords(rule, (width, height), outcome, opening, &moves)
    }

    /// The game with these moves as (x, y), or `None` if one is off the board.
    pub fn from_coords(
        rule: Rule,
        (width, height): (usize, usize),
        outcome: Outcome,
        opening: usize,
        coords: &[(usize, usize)],
    ) -> Option<GameRecord> {
        let moves = coords
            .iter()
            .map(|&(x, y)| (x < width && y < height).then(|| Pos::new(x, y)))
            .collect::<Option<_>>()?;
        Some(GameRecord {
            rule,
            width,
            height,
            outcome,
            opening,
            moves,
        })
    }

    /// Replays the game, calling `f` with the board before each move from the end of the
    /// opening on (and after the last move). Stops early at an illegal or occupied move.
    pub fn replay(&self, mut f: impl FnMut(&mut Board)) {
        let Ok(mut b) = Board::new(self.width, self.height, self.rule) else {
            return;
        };
        for (i, &m) in self.moves.iter().enumerate() {
            if i >= self.opening {
                f(&mut b);
            }
            if !b.is_empty(m) {
                return;
            }
            let c = b.side_to_move();
            b.play(m, c);
        }
        if self.moves.len() >= self.opening {
            f(&mut b);
        }
    }
}

/// Whether the static evaluation is meant to judge this position: no five to make or to block
/// now, and not an open three of the side to move that wins against an opponent without a four
/// (the search's quiescence proves those; the evaluation is never asked).
pub fn is_quiet(b: &Board) -> bool {
    let me = b.side_to_move();
    let opp = me.other();
    if b.class_count(me, C_FIVE) > 0 || b.class_count(opp, C_FIVE) > 0 {
        return false;
    }
    !(b.class_count(me, C_OPEN_FOUR) > 0 && b.count_at_least(opp, C_FOUR) == 0)
}

/// Self-play settings.
#[derive(Clone, Debug)]
pub struct GenOptions {
    pub out: PathBuf,
    /// Stop after this many games…
    pub games: usize,
    /// …or after this much time, whichever comes first.
    pub time: Duration,
    /// Search depth of every move, and a node cap per move.
    pub depth: i32,
    pub nodes: u64,
    pub seed: u64,
    /// Where `<rule><size>.txt` opening books are read (a book of another size of the same rule
    /// is used when there is none of this size).
    pub openings: PathBuf,
    /// Share of games started from a book opening (the rest from 2–4 random stones).
    pub book_share: f64,
    /// Board sizes played, in turn.
    pub sizes: Vec<usize>,
    /// Rules played, in turn.
    pub rules: Vec<Rule>,
    /// Probability of a random near move (instead of the searched one) for each of the first
    /// `noise_plies` moves after the opening: more varied games.
    pub noise: f64,
    pub noise_plies: usize,
    pub hash_mb: usize,
}

impl Default for GenOptions {
    fn default() -> GenOptions {
        GenOptions {
            out: PathBuf::from("tune-games.txt"),
            games: 2000,
            time: Duration::from_secs(20 * 60),
            depth: 3,
            nodes: 20_000,
            seed: 1,
            openings: PathBuf::from("scripts/openings"),
            book_share: 0.5,
            sizes: vec![15, 20],
            rules: vec![
                Rule::Freestyle,
                Rule::Standard,
                Rule::Renju,
                Rule::Caro {
                    overline_wins: false,
                },
            ],
            noise: 0.1,
            noise_plies: 8,
            hash_mb: 16,
        }
    }
}

/// Opening books by rule name: each opening a list of (dx, dy) offsets from the centre.
fn load_book(dir: &Path, rule: Rule, size: usize) -> Vec<Vec<(i64, i64)>> {
    let mut names = vec![format!("{}{}.txt", rule.name(), size)];
    for s in [15, 20] {
        names.push(format!("{}{}.txt", rule.name(), s));
    }
    for name in names {
        let Ok(text) = std::fs::read_to_string(dir.join(&name)) else {
            continue;
        };
        let book: Vec<Vec<(i64, i64)>> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .filter_map(|l| {
                let nums: Vec<i64> = l
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .filter(|t| !t.is_empty())
                    .map(|t| t.parse().ok())
                    .collect::<Option<_>>()?;
                (!nums.is_empty() && nums.len() % 2 == 0)
                    .then(|| nums.chunks(2).map(|p| (p[0], p[1])).collect())
            })
            .collect();
        if !book.is_empty() {
            return book;
        }
    }
    Vec::new()
}

/// Plays `offsets` from the centre, black first; false when a stone is off the board, occupied,
/// illegal, or makes a four or five for anyone (not a playable opening).
fn set_opening(b: &mut Board, offsets: &[(i64, i64)]) -> bool {
    let (cx, cy) = ((b.width() / 2) as i64, (b.height() / 2) as i64);
    for &(dx, dy) in offsets {
        let c = b.side_to_move();
        let Some(p) = b.pos(cx + dx, cy + dy) else {
            return false;
        };
        if !b.is_legal(p, c) {
            return false;
        }
        b.play(p, c);
    }
    [Color::Black, Color::White]
        .iter()
        .all(|&c| b.class_count(c, C_FIVE) == 0)
}

fn random_opening(b: &mut Board, rng: &mut Rng) -> bool {
    let n = 2 + rng.below(3);
    let offsets: Vec<(i64, i64)> = (0..n)
        .map(|_| (rng.below(7) as i64 - 3, rng.below(7) as i64 - 3))
        .collect();
    set_opening(b, &offsets)
}

/// A random empty legal cell next to a stone (within the 5x5 square the move generator uses).
fn random_near_move(b: &mut Board, rng: &mut Rng) -> Option<Pos> {
    let me = b.side_to_move();
    let cells: Vec<Pos> = b
        .cells_iter()
        .filter(|&p| b.is_empty(p) && b.near(p))
        .collect();
    for _ in 0..8 {
        if cells.is_empty() {
            return None;
        }
        let p = cells[rng.below(cells.len())];
        if b.is_legal(p, me) {
            return Some(p);
        }
    }
    None
}

/// Plays one self-play game from `b` (the opening already set).
fn play_game(b: &mut Board, searcher: &mut Searcher, opts: &GenOptions, rng: &mut Rng) -> Outcome {
    let opening = b.stone_count();
    searcher.clear_tt();
    loop {
        if b.is_full() {
            return Outcome::Draw;
        }
        let me = b.side_to_move();
        let searched = b.stone_count() - opening;
        let mut m = Pos::NONE;
        if searched < opts.noise_plies
            && rng.unit() < opts.noise
            && b.class_count(me, C_FIVE) == 0
            && b.class_count(me.other(), C_FIVE) == 0
        {
            m = random_near_move(b, rng).unwrap_or(Pos::NONE);
        }
        if m.is_none() {
            let limits = SearchLimits {
                max_nodes: opts.nodes,
                ..SearchLimits::depth(opts.depth)
            };
            let r = searcher.think(b, limits, |_| {});
            // A proven result ends the game: the rest would be forced. (A root with no move
            // worth searching is one: renju black whose every block is a foul.)
            if r.score > WIN_BOUND {
                return Outcome::win_for(me);
            }
            if r.score < -WIN_BOUND {
                return Outcome::win_for(me.other());
            }
            if r.best.is_none() || !b.is_empty(r.best) {
                // No legal move (renju: every point forbidden for black).
                return Outcome::Draw;
            }
            m = r.best;
        }
        if b.is_winning_move(m, me) {
            b.play(m, me);
            return Outcome::win_for(me);
        }
        b.play(m, me);
    }
}

/// Generates self-play games into `opts.out` (appending), printing progress to stderr. Returns
/// the number of games written.
pub fn generate(opts: &GenOptions) -> std::io::Result<usize> {
    let start = Instant::now();
    let mut out = std::io::BufWriter::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&opts.out)?,
    );
    writeln!(
        out,
        "# tengen tune gen: seed {} depth {} nodes {} book share {} noise {}/{} plies",
        opts.seed, opts.depth, opts.nodes, opts.book_share, opts.noise, opts.noise_plies
    )?;
    let mut rng = seeded(opts.seed);
    let mut searcher = Searcher::new(opts.hash_mb << 20);
    let configs: Vec<(Rule, usize)> = opts
        .rules
        .iter()
        .flat_map(|&r| opts.sizes.iter().map(move |&s| (r, s)))
        .collect();
    let books: Vec<Vec<Vec<(i64, i64)>>> = configs
        .iter()
        .map(|&(r, s)| load_book(&opts.openings, r, s))
        .collect();
    let (mut games, mut positions) = (0usize, 0usize);
    let mut tally = [0usize; 3];
    while games < opts.games && start.elapsed() < opts.time {
        let ci = games % configs.len();
        let (rule, size) = configs[ci];
        let mut b = Board::new(size, size, rule).expect("valid size");
        let book = &books[ci];
        let ok = if !book.is_empty() && rng.unit() < opts.book_share {
            set_opening(&mut b, &book[rng.below(book.len())])
        } else {
            random_opening(&mut b, &mut rng)
        };
        if !ok {
            continue;
        }
        let opening = b.stone_count();
        let outcome = play_game(&mut b, &mut searcher, opts, &mut rng);
        let record = GameRecord {
            rule,
            width: size,
            height: size,
            outcome,
            opening,
            moves: b.history().iter().map(|&(p, _)| p).collect(),
        };
        writeln!(out, "{}", record.to_line())?;
        games += 1;
        positions += record.moves.len() - opening;
        tally[outcome as usize] += 1;
        if games % 50 == 0 {
            out.flush()?;
            eprintln!(
                "{games} games ({} black, {} white, {} drawn), {positions} moves, {:.0} s",
                tally[0],
                tally[1],
                tally[2],
                start.elapsed().as_secs_f64()
            );
        }
    }
    out.flush()?;
    eprintln!(
        "done: {games} games ({} black, {} white, {} drawn), {positions} moves, {:.0} s -> {}",
        tally[0],
        tally[1],
        tally[2],
        start.elapsed().as_secs_f64(),
        opts.out.display()
    );
    Ok(games)
}

/// Reads game records from files, skipping comments and unreadable lines.
pub fn read_games(files: &[PathBuf]) -> std::io::Result<Vec<GameRecord>> {
    let mut games = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f)?;
        games.extend(
            text.lines()
                .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
                .filter_map(GameRecord::parse),
        );
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_lines_round_trip() {
        let g = GameRecord {
            rule: Rule::Renju,
            width: 15,
            height: 15,
            outcome: Outcome::WhiteWins,
            opening: 2,
            moves: vec![Pos::new(7, 7), Pos::new(8, 8), Pos::new(9, 9)],
        };
        let back = GameRecord::parse(&g.to_line()).unwrap();
        assert_eq!(back.to_line(), g.to_line());
        assert_eq!(back.moves, g.moves);
        assert!(GameRecord::parse("renju 15 15 2-0 0").is_none());
        assert!(GameRecord::parse("renju 15 15 1-0 0 15,3").is_none());
    }

    #[test]
    fn self_play_writes_replayable_games() {
        let dir = std::env::temp_dir().join(format!("tengen-tune-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("games.txt");
        let _ = std::fs::remove_file(&out);
        let opts = GenOptions {
            out: out.clone(),
            games: 3,
            depth: 1,
            nodes: 500,
            sizes: vec![15],
            rules: vec![Rule::Freestyle, Rule::Renju],
            openings: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/openings"),
            ..GenOptions::default()
        };
        assert_eq!(generate(&opts).unwrap(), 3);
        let games = read_games(&[out]).unwrap();
        assert_eq!(games.len(), 3);
        for g in &games {
            let mut seen = 0;
            g.replay(|_| seen += 1);
            assert_eq!(seen, g.moves.len() - g.opening + 1);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
