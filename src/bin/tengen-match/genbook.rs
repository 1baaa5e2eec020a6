//! `tengen-match gen-openings`: builds a balanced opening book with Tengen's own search.
//!
//! Random openings of a few stones near the centre (seeded, no four, no five, no renju foul) are
//! searched at a fixed depth (or for a fixed time) on one thread; an opening is kept when the
//! search value for the side to move is close to a chosen centre, where games between
//! near-equal builds are most often decided by the engines rather than by the colours
//! (`|value - eval-centre| <= max-eval`, no forced win either way). Positions equal
//! under the 8 symmetries of the board are generated once. The book is written in the
//! Gomocup offset format (`dx,dy, dx,dy, ...` from the centre, black first) after a `#` header
//! line that records the command.

use crate::openings::{self, Opening};
use crate::rng::{seeded, Rng};
use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tengen::game::{Board, Color, Rule};
use tengen::search::{SearchLimits, Searcher, MAX_PLY, WIN_BOUND};

pub const USAGE: &str = "\
tengen-match gen-openings: build a balanced opening book with Tengen's own search.

USAGE:
  tengen-match gen-openings [options]

Random openings of --stones stones (black first, alternating) within --radius points of the
centre, with no four, no five and no renju foul, are searched on one thread. The value of an
opening is the mean score of the last two iterations (one odd, one even horizon, so the tempo
swing cancels) for the side to move; it is kept when |value - CENTRE| <= MAX-EVAL and neither
iteration found a forced win. Openings equal under the 8 board symmetries are tried once.
Output: one opening per line in the Gomocup offset format (\"dx,dy, dx,dy, ...\" relative to
the centre, black first) after a '#' header line with the command.

The defaults are those of the shipped books. CENTRE is the value the kept openings centre on. A
match between near-equal builds learns mostly from the colour-swapped pairs that do not split
one game each, and the best centre for that moves with the engine and the depth that value the
openings. The ninth session's books (depth 5, |value - CENTRE| <= 30, CENTRE -30 in renju and
+10 elsewhere) came out near even for that session's engine (renju: white won 43.7 % of 428
games, 69 % of the pairs split; caro 62 % split, 74 % from the first books). For the stronger
engine of sessions 15-20 they told builds apart poorly: 72-88 % of the pairs split in its
400-game runs, and its value at depth 11-12 of a book opening foretold the winning colour
(freestyle 15x15: white's share of the games averaged 8 % over the 20 openings it valued lowest,
-167 or below, and 94 % over the 20 it valued highest, +286 or above). Rebuilt at depth 10 with
|value - CENTRE| <= 40 and played by the twentieth session's LMR-extension build against
d54ad63's at 0.2 s a move, 200 games each: freestyle 15x15 59 % of pairs split at CENTRE 0
(77.5 % over 400 games of the same pair from the old book), white winning 39.6 % of the decisive
games; 70 % split at +40, white 49.0 %; renju at 0, 69 % split, white 54.5 %; standard 15x15 at
0, 69 % split (72.9 % over 354 games from the old book), white 39.7 %; caro at 0, 64 % split
(62-75 % in three older runs of another pair), white 40.8 %. So 0 was chosen for every rule,
from one comparison in freestyle 15x15 (59 against 70 % of 100 pairs, not significant at 95 %);
freestyle 20x20 was not measured. Other stone counts need their own centre: white (to move) won
72-82 % of the first engine's games from 3-stone openings valued -60..-30 at depth 5.

OPTIONS:
  --rule R         freestyle | standard | renju | caro | caro8 [freestyle]
  --size N         board size [15]
  --count N        openings to keep [200]
  --stones A-B     stones per opening [5-5]
  --radius R       stones within R points of the centre (Chebyshev distance) [3]
  --seed N         seed [1]
  --depth D        fixed search depth per opening (reproducible) [10]
  --ms T           search each opening for T milliseconds instead of a fixed depth
  --eval-centre C  the value for the side to move the kept openings centre on [0]
  --max-eval E     keep openings whose |value - C| <= E [40]
  --max-tries N    give up after N distinct candidates [100000]
  --hash-mb N      transposition table size, cleared before each opening [16]
  --out FILE       write the book to FILE (default: stdout)
  --quiet          no progress on stderr
  --verbose        print every searched opening with its scores on stderr
  --help           this text
";

#[derive(Clone, Debug)]
pub struct GenConfig {
    pub rule: Rule,
    pub size: usize,
    pub count: usize,
    pub stones: (usize, usize),
    pub radius: i64,
    pub seed: u64,
    pub depth: i32,
    pub ms: Option<u64>,
    /// The value for the side to move that the kept openings centre on.
    pub centre: i32,
    pub max_eval: i32,
    pub max_tries: usize,
    pub hash_mb: usize,
    pub out: Option<PathBuf>,
    pub quiet: bool,
    pub verbose: bool,
}

impl GenConfig {
    fn defaults() -> GenConfig {
        GenConfig {
            rule: Rule::Freestyle,
            size: 15,
            count: 200,
            stones: (5, 5),
            radius: 3,
            seed: 1,
            depth: 10,
            ms: None,
            centre: DEFAULT_CENTRE,
            max_eval: 40,
            max_tries: 100_000,
            hash_mb: 16,
            out: None,
            quiet: false,
            verbose: false,
        }
    }

    /// The command line that reproduces this book (for the header).
    pub fn command(&self) -> String {
        let mut s = format!(
            "tengen-match gen-openings --rule {} --size {} --count {} --stones {}-{} --radius {} --seed {}",
            self.rule.name(),
            self.size,
            self.count,
            self.stones.0,
            self.stones.1,
            self.radius,
            self.seed
        );
        match self.ms {
            Some(ms) => {
                let _ = write!(s, " --ms {ms}");
            }
            None => {
                let _ = write!(s, " --depth {}", self.depth);
            }
        }
        let _ = write!(
            s,
            " --eval-centre {} --max-eval {} --hash-mb {}",
            self.centre, self.max_eval, self.hash_mb
        );
        s
    }
}

/// The value the shipped books are centred on (depth 10, the twenty-first session's engine;
/// see the usage text for what was measured).
pub const DEFAULT_CENTRE: i32 = 0;

/// Parses the arguments after `gen-openings`. `Ok(None)` means `--help` was printed.
pub fn parse(args: &[String]) -> Result<Option<GenConfig>> {
    let mut cfg = GenConfig::defaults();
    let mut i = 0;
    let next = |i: &mut usize, opt: &str| -> Result<String> {
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| anyhow!("{opt} needs a value"))
    };
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "--help" | "-h" => {
                print!("{USAGE}");
                return Ok(None);
            }
            "--rule" => {
                let v = next(&mut i, a)?;
                cfg.rule = Rule::from_name(&v).ok_or_else(|| anyhow!("unknown rule '{v}'"))?;
            }
            "--size" => cfg.size = next(&mut i, a)?.parse().context("--size")?,
            "--count" => cfg.count = next(&mut i, a)?.parse().context("--count")?,
            "--stones" => {
                let v = next(&mut i, a)?;
                let (lo, hi) = v.split_once('-').unwrap_or((&v, &v));
                cfg.stones = (
                    lo.parse().context("--stones")?,
                    hi.parse().context("--stones")?,
                );
            }
            "--radius" => cfg.radius = next(&mut i, a)?.parse().context("--radius")?,
            "--seed" => cfg.seed = next(&mut i, a)?.parse().context("--seed")?,
            "--depth" => {
                cfg.depth = next(&mut i, a)?.parse().context("--depth")?;
                cfg.ms = None;
            }
            "--ms" => cfg.ms = Some(next(&mut i, a)?.parse().context("--ms")?),
            "--max-eval" => cfg.max_eval = next(&mut i, a)?.parse().context("--max-eval")?,
            "--eval-centre" | "--eval-center" => {
                cfg.centre = next(&mut i, a)?.parse().context("--eval-centre")?
            }
            "--max-tries" => cfg.max_tries = next(&mut i, a)?.parse().context("--max-tries")?,
            "--hash-mb" => cfg.hash_mb = next(&mut i, a)?.parse().context("--hash-mb")?,
            "--out" => cfg.out = Some(PathBuf::from(next(&mut i, a)?)),
            "--quiet" => cfg.quiet = true,
            "--verbose" => cfg.verbose = true,
            _ => bail!("gen-openings: unknown option '{a}' (see gen-openings --help)"),
        }
        i += 1;
    }
    if !(5..=32).contains(&cfg.size) {
        bail!("--size must be 5..32");
    }
    let c = (cfg.size / 2) as i64;
    if cfg.radius < 1 || cfg.radius > c {
        bail!("--radius must be 1..{c} on a {0}x{0} board", cfg.size);
    }
    let area = (2 * cfg.radius + 1).pow(2) as usize;
    if cfg.stones.0 < 1 || cfg.stones.0 > cfg.stones.1 || cfg.stones.1 > area / 2 {
        bail!("--stones A-B needs 1 <= A <= B <= {}", area / 2);
    }
    if cfg.depth < 1
        || cfg.max_eval < 0
        || i64::from(cfg.centre).abs() + i64::from(cfg.max_eval) >= i64::from(WIN_BOUND)
    {
        bail!(
            "--depth must be >= 1, --max-eval >= 0 and |--eval-centre| + --max-eval < {WIN_BOUND}"
        );
    }
    if cfg.count == 0 || cfg.ms == Some(0) || cfg.hash_mb == 0 {
        bail!("--count, --ms and --hash-mb must be positive");
    }
    Ok(Some(cfg))
}

/// The position of an opening under the 8 symmetries, as one canonical key: the smallest of the
/// transformed (sorted black stones, separator, sorted white stones). Move order is not part of
/// the position.
pub fn canonical(o: &Opening, size: usize) -> Vec<(i64, i64)> {
    (0..8u8)
        .map(|s| {
            let t = openings::transform(o, s, size);
            let mut black: Vec<_> = t.iter().step_by(2).copied().collect();
            let mut white: Vec<_> = t.iter().skip(1).step_by(2).copied().collect();
            black.sort_unstable();
            white.sort_unstable();
            black.push((-1, -1));
            black.extend(white);
            black
        })
        .min()
        .expect("8 symmetries")
}

/// An opening as a Gomocup offset line: `dx,dy, dx,dy, ...` relative to `floor(size / 2)`.
pub fn offset_line(o: &Opening, size: usize) -> String {
    let c = (size / 2) as i64;
    o.iter()
        .map(|&(x, y)| format!("{},{}", x - c, y - c))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A random opening of the configured size and radius (no four, no five, no renju foul).
fn candidate(rng: &mut Rng, cfg: &GenConfig) -> Opening {
    openings::random_opening_within(
        rng,
        cfg.size,
        cfg.rule,
        cfg.stones.0,
        cfg.stones.1,
        cfg.radius,
    )
}

/// The board after the opening's stones, black first.
pub fn board_of(o: &Opening, size: usize, rule: Rule) -> Result<Board> {
    let mut board = Board::new(size, size, rule).map_err(|e| anyhow!("{e}"))?;
    let mut color = Color::Black;
    for &(x, y) in o {
        board
            .try_play(x, y, color)
            .map_err(|e| anyhow!("stone {x},{y}: {e}"))?;
        color = color.other();
    }
    Ok(board)
}

/// What the search says about one opening.
#[derive(Clone, Copy, Debug)]
pub struct Verdict {
    /// Score of the last iteration for the side to move.
    pub score: i32,
    /// Score of the iteration before it (the side to move gets the last move of the horizon at
    /// odd depths only, which swings the score by a tempo).
    pub prev: Option<i32>,
    pub depth: i32,
    pub nodes: u64,
    pub elapsed: Duration,
}

impl Verdict {
    /// Whether either of the last two iterations found a forced result.
    pub fn forced(&self) -> bool {
        self.score.abs() > WIN_BOUND || self.prev.is_some_and(|p| p.abs() > WIN_BOUND)
    }

    /// The value used to judge balance: the mean of the last two iterations (one odd and one
    /// even horizon, so the tempo swing cancels), or the only score of a depth-1 search.
    pub fn value(&self) -> i32 {
        match self.prev {
            Some(p) => (self.score + p) / 2,
            None => self.score,
        }
    }
}

pub fn evaluate(searcher: &mut Searcher, board: &Board, cfg: &GenConfig) -> Verdict {
    searcher.clear_tt();
    let limits = match cfg.ms {
        Some(ms) => SearchLimits {
            start: Instant::now(),
            soft: Duration::from_millis(ms / 2),
            hard: Duration::from_millis(ms),
            max_depth: MAX_PLY as i32,
            max_nodes: u64::MAX,
        },
        None => SearchLimits::depth(cfg.depth),
    };
    let mut scores = Vec::new();
    let r = searcher.think(board, limits, |it| scores.push((it.depth, it.score)));
    let prev = scores
        .iter()
        .rev()
        .find(|&&(d, _)| d < r.depth)
        .map(|&(_, s)| s);
    Verdict {
        score: r.score,
        prev,
        depth: r.depth,
        nodes: r.nodes,
        elapsed: r.elapsed,
    }
}

/// Whether a verdict counts as balanced: a real search (not a forced single reply), no forced
/// result, and a value within `max_eval` of `centre`.
pub fn balanced(v: &Verdict, centre: i32, max_eval: i32) -> bool {
    v.depth >= 1 && !v.forced() && (v.value() - centre).abs() <= max_eval
}

pub fn run(cfg: &GenConfig) -> Result<i32> {
    let t0 = Instant::now();
    let mut rng = seeded(cfg.seed);
    let mut searcher = Searcher::new(cfg.hash_mb << 20);
    let mut seen = HashSet::new();
    let mut kept: Vec<(Opening, i32)> = Vec::new();
    let (mut tried, mut dups, mut forced, mut search_ms) = (0usize, 0usize, 0usize, 0f64);
    let mut nodes = 0u64;
    let mut misses = 0usize;
    let mut hist = [0usize; 8];
    while kept.len() < cfg.count && tried < cfg.max_tries {
        let o = candidate(&mut rng, cfg);
        if !seen.insert(canonical(&o, cfg.size)) {
            dups += 1;
            misses += 1;
            if misses > 100_000 {
                bail!("no new positions after 100000 draws: too few stones or too small a radius");
            }
            continue;
        }
        misses = 0;
        tried += 1;
        let board = board_of(&o, cfg.size, cfg.rule)?;
        let v = evaluate(&mut searcher, &board, cfg);
        search_ms += v.elapsed.as_secs_f64() * 1000.0;
        nodes += v.nodes;
        if v.forced() {
            forced += 1;
        } else {
            // Buckets of max-eval / 2 for |value - centre| (the last collects the rest).
            let off = (v.value() - cfg.centre).unsigned_abs() as usize;
            let b = (off * 2 / (cfg.max_eval.max(1) as usize)).min(7);
            hist[b] += 1;
        }
        let ok = balanced(&v, cfg.centre, cfg.max_eval);
        if cfg.verbose {
            eprintln!(
                "{} {}: value {} depth {} score {} previous {} {} nodes {:.0} ms{}",
                o.len(),
                offset_line(&o, cfg.size),
                v.value(),
                v.depth,
                v.score,
                v.prev.map_or("-".into(), |p| p.to_string()),
                v.nodes,
                v.elapsed.as_secs_f64() * 1000.0,
                if ok { " kept" } else { "" }
            );
        }
        if ok {
            kept.push((o, v.value()));
        }
        if !cfg.quiet && tried % 100 == 0 {
            eprintln!(
                "gen-openings: {tried} tried, {} kept, {forced} forced wins, {:.0} ms per search, {:.0} s",
                kept.len(),
                search_ms / tried as f64,
                t0.elapsed().as_secs_f64()
            );
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    if !cfg.quiet {
        let step = (cfg.max_eval.max(1) as f64) / 2.0;
        let buckets: Vec<String> = hist
            .iter()
            .enumerate()
            .map(|(i, n)| {
                if i < 7 {
                    format!("<={:.0}: {n}", step * (i + 1) as f64)
                } else {
                    format!("more: {n}")
                }
            })
            .collect();
        eprintln!(
            "gen-openings: {} kept of {tried} searched ({dups} symmetric duplicates skipped), {forced} forced wins, {:.0} ms and {} nodes per search, {wall:.0} s",
            kept.len(),
            search_ms / tried.max(1) as f64,
            nodes / tried.max(1) as u64
        );
        eprintln!(
            "gen-openings: |value - centre| histogram: {}",
            buckets.join(", ")
        );
        let mean = kept.iter().map(|(_, s)| *s as f64).sum::<f64>() / kept.len().max(1) as f64;
        eprintln!("gen-openings: mean value of the kept openings for the side to move {mean:+.1}");
    }
    if kept.len() < cfg.count {
        eprintln!(
            "gen-openings: warning: only {} of {} openings found within --max-tries {}",
            kept.len(),
            cfg.count,
            cfg.max_tries
        );
    }
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# {}  (Tengen {}: {} openings kept of {tried} searched)",
        cfg.command(),
        env!("CARGO_PKG_VERSION"),
        kept.len()
    );
    for (o, _) in &kept {
        text.push_str(&offset_line(o, cfg.size));
        text.push('\n');
    }
    match &cfg.out {
        Some(p) => {
            std::fs::write(p, &text).with_context(|| format!("writing {}", p.display()))?;
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
        }
    }
    Ok(if kept.len() < cfg.count { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::OpeningFormat;
    use crate::openings::has_winning_point;
    use std::path::Path;

    #[test]
    fn canonical_is_symmetry_invariant_and_order_free() {
        let o: Opening = vec![(7, 7), (8, 6), (5, 9), (6, 6)];
        let k = canonical(&o, 15);
        for s in 0..8 {
            assert_eq!(canonical(&openings::transform(&o, s, 15), 15), k);
        }
        // The same stones placed in another order are the same position.
        let reordered: Opening = vec![(5, 9), (6, 6), (7, 7), (8, 6)];
        assert_eq!(canonical(&reordered, 15), k);
        // Swapping colours is a different position.
        let swapped: Opening = vec![(8, 6), (7, 7), (6, 6), (5, 9)];
        assert_ne!(canonical(&swapped, 15), k);
    }

    #[test]
    fn offset_lines_round_trip() {
        for size in [15, 20] {
            let o: Opening = vec![(7, 7), (8, 6), (5, 9)];
            let line = offset_line(&o, size);
            assert_eq!(openings::parse_offset(&line, size).unwrap(), o);
        }
        assert_eq!(offset_line(&vec![(7, 7), (8, 6)], 15), "0,0, 1,-1");
    }

    #[test]
    fn generation_is_seeded_and_balanced() {
        let args: Vec<String> =
            "--count 3 --stones 3-5 --depth 2 --eval-centre -20 --max-eval 200 --seed 5 --quiet"
                .split_whitespace()
                .map(String::from)
                .collect();
        let cfg = parse(&args).unwrap().unwrap();
        let make = || {
            let mut rng = seeded(cfg.seed);
            (0..5)
                .map(|_| candidate(&mut rng, &cfg))
                .collect::<Vec<_>>()
        };
        let a = make();
        assert_eq!(a, make());
        let mut searcher = Searcher::new(1 << 20);
        for o in &a {
            assert!((3..=5).contains(&o.len()));
            openings::validate(o, 15, cfg.rule).unwrap();
            let board = board_of(o, 15, cfg.rule).unwrap();
            assert!(!has_winning_point(&board));
            let v = evaluate(&mut searcher, &board, &cfg);
            assert_eq!(v.depth, 2);
            let prev = v.prev.expect("depth 1 score");
            assert_eq!(v.value(), (v.score + prev) / 2);
            assert_eq!(
                balanced(&v, cfg.centre, cfg.max_eval),
                !v.forced() && (v.value() + 20).abs() <= 200
            );
        }
    }

    #[test]
    fn options() {
        let p = |s: &str| {
            parse(
                &s.split_whitespace()
                    .map(String::from)
                    .collect::<Vec<String>>(),
            )
        };
        let c = p("--rule renju --size 20 --stones 4-4 --ms 50")
            .unwrap()
            .unwrap();
        assert_eq!(
            (c.rule, c.size, c.stones, c.ms),
            (Rule::Renju, 20, (4, 4), Some(50))
        );
        assert!(c.command().contains("--ms 50"));
        assert!(p("--stones 5-3").is_err());
        assert!(p("--radius 9").is_err());
        assert!(p("--max-eval 40000").is_err());
        assert!(p("--eval-centre -28990 --max-eval 20").is_err());
        let d = p("").unwrap().unwrap();
        assert_eq!(
            (d.stones, d.depth, d.centre, d.max_eval),
            ((5, 5), 10, 0, 40)
        );
        // One default centre for every rule; an explicit one (either spelling) wins.
        assert_eq!(p("--rule renju").unwrap().unwrap().centre, 0);
        assert_eq!(p("--eval-center -7").unwrap().unwrap().centre, -7);
        let c = p("--eval-centre 5 --rule renju").unwrap().unwrap();
        assert_eq!(c.centre, 5);
        assert!(p("--eval-centre -2147483648").is_err());
        assert!(p("--eval-centre 2000000000 --max-eval 2000000000").is_err());
        assert!(c.command().contains("--eval-centre 5 "));
        assert!(p("--bogus").is_err());
    }

    /// (file, rule, size) of every book shipped in scripts/openings/.
    const BOOKS: [(&str, Rule, usize); 5] = [
        ("freestyle15.txt", Rule::Freestyle, 15),
        ("freestyle20.txt", Rule::Freestyle, 20),
        ("standard15.txt", Rule::Standard, 15),
        ("renju15.txt", Rule::Renju, 15),
        (
            "caro15.txt",
            Rule::Caro {
                overline_wins: false,
            },
            15,
        ),
    ];

    #[test]
    fn shipped_books_are_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/openings");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".txt"))
            .collect();
        names.sort();
        let mut listed: Vec<String> = BOOKS.iter().map(|b| b.0.to_string()).collect();
        listed.sort();
        assert_eq!(
            names,
            listed,
            "every book in {} must be tested",
            dir.display()
        );
        for (file, rule, size) in BOOKS {
            let path = dir.join(file);
            let text = std::fs::read_to_string(&path).unwrap();
            // The books are what the defaults make (the usage text says so).
            let made_by = GenConfig {
                rule,
                size,
                ..GenConfig::defaults()
            }
            .command();
            assert!(
                text.starts_with(&format!("# {made_by}  (")),
                "{file}: header line is not '# {made_by}'"
            );
            // Every line parses as an offset line; load() also checks stones on board, distinct,
            // no five and no renju foul.
            let book = openings::load(&path, size, rule, OpeningFormat::Offset).unwrap();
            assert!(book.len() >= 200, "{file}: {} openings", book.len());
            let mut keys = HashSet::new();
            for (n, o) in book.iter().enumerate() {
                assert!((3..=5).contains(&o.len()), "{file}: opening {}", n + 1);
                let board = board_of(o, size, rule).unwrap();
                assert!(
                    !has_winning_point(&board),
                    "{file}: opening {} has a four",
                    n + 1
                );
                assert!(
                    keys.insert(canonical(o, size)),
                    "{file}: opening {} repeats an earlier one up to symmetry",
                    n + 1
                );
            }
        }
    }
}
