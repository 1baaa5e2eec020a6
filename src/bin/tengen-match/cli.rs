//! Command-line parsing for `tengen-match`.

use anyhow::{anyhow, bail, Context, Result};
use std::path::{Path, PathBuf};
use tengen::game::Rule;

pub const USAGE: &str = "\
tengen-match: play Gomocup (pbrain) engines against each other the way GomocupJudge does.

USAGE:
  tengen-match --engine cmd=PATH [OPTS] --engine cmd=PATH [OPTS] [--each OPTS] [options]
  tengen-match gen-openings [options]   build a balanced opening book (gen-openings --help)

ENGINE OPTS (after --engine, or after --each for both engines):
  cmd=PATH [ARGS]     program (quote \"cmd=prog arg\" to pass arguments); a path containing '/'
                      runs with the program's directory as working directory
  name=NAME           display name (default: file name of the program)
  tc=MATCH/TURN[+INC] time control in seconds (tc=T means match T, turn T; 0 = no limit);
                      default 120/5
  nodes=N depth=N     sent as INFO max_node / INFO max_depth
  memory=BYTES        INFO max_memory (default 367001600)
  option.KEY=VAL      sent as INFO KEY VAL
  dir=PATH            working directory override

OPTIONS:
  --rule R            freestyle | standard | renju | caro | caro8 (or the INFO number) [freestyle]
  --size N            board size [15]
  --games N           number of games [2]
  --concurrency N     games played at once [1]
  --openings FILE     opening file: offset lines (\"-1,0, 1,1\") or move strings (\"h8i9j10\")
  --openings-format F auto | offset | pos [auto]
  --order O           random | sequential opening order [random]
  --symmetry          apply one of the 8 board symmetries to each opening pair (random, seeded)
  --random-stones A-B stones of a generated opening when no file is given [2-4]
  --no-repeat         play each opening once instead of twice with colours swapped
  --draw-after N      adjudicate a draw when N stones are on the board
  --tolerance MS      extra time allowed past each limit before a timeout [1000]
  --start-timeout MS  how long to wait for OK / ABOUT answers (--reuse, --wait-ok) [3000]
  --max-wait MS       cap on a reply wait when an engine has no time limit [600000]
  --reuse             keep engine processes across games (START each game, like c-gomoku-cli);
                      default is a fresh process per engine per game (GomocupJudge)
  --wait-ok           wait for OK after START before the first move (default: GomocupJudge
                      style, START and INFOs written back to back, OK accepted later)
  --suspend           stop each engine (SIGSTOP) while it is not on move, as GomocupJudge
                      does, so no engine can think on the opponent's time
  --lf                end lines with LF (default CR LF like GomocupJudge)
  --strict            Piskvork's reading of the replies: an ERROR line or any other line that
                      is not a move, MESSAGE or DEBUG loses the game at once (default: such
                      lines are noted as warnings and skipped, as GomocupJudge and
                      c-gomoku-cli do)
  --game-type N       INFO game_type value [1]
  --seed N            seed for openings and their order [time based; printed]
  --sprt elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [min_pairs=10]
                      stop early when the pentanomial GSPRT decides (not before min_pairs
                      complete game pairs)
  --records DIR       write each game as SGF and Piskvork .psq (and a protocol log on faults)
  --log               write the protocol log of every game into --records DIR
  --json FILE         write the final summary as JSON
  --show              print the board and move list after every move (forces concurrency 1)
  --quiet             no per-game progress lines
  --help              this text

Ctrl-C (SIGINT) stops a run: the games in progress are killed and not counted (a game that
ended normally still counts), the summary of the finished ones is printed (and written to
--json), and the exit status is 130. A second Ctrl-C quits at once. A run whose SIGINT is
ignored (started with `&` by a script) is not stopped by it.
";

#[derive(Clone, Debug)]
pub struct EngineSpec {
    pub name: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    /// Match time in ms; 0 = unlimited.
    pub match_ms: u64,
    /// Turn time in ms; 0 = unlimited (then no INFO timeout_turn is sent: the protocol's
    /// `timeout_turn 0` means "move at once", as c-gomoku-cli knows).
    pub turn_ms: u64,
    pub inc_ms: u64,
    pub max_memory: u64,
    pub nodes: Option<u64>,
    pub depth: Option<u64>,
    pub options: Vec<(String, String)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningFormat {
    Auto,
    Offset,
    Pos,
}

#[derive(Clone, Copy, Debug)]
pub struct SprtParams {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// No decision before this many complete game pairs (the normal approximation needs a
    /// sample; one lost pair has zero variance and would otherwise decide at once).
    pub min_pairs: u32,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub engines: Vec<EngineSpec>,
    pub rule: Rule,
    pub size: usize,
    pub games: usize,
    pub concurrency: usize,
    pub openings: Option<PathBuf>,
    pub openings_format: OpeningFormat,
    pub random_order: bool,
    pub symmetry: bool,
    pub random_stones: (usize, usize),
    pub repeat: bool,
    pub draw_after: Option<usize>,
    pub tolerance_ms: u64,
    pub start_timeout_ms: u64,
    pub max_wait_ms: u64,
    pub reuse: bool,
    pub wait_ok: bool,
    pub suspend: bool,
    pub crlf: bool,
    /// Piskvork's strict reading of replies (see `--strict`).
    pub strict: bool,
    pub game_type: i64,
    pub seed: u64,
    pub sprt: Option<SprtParams>,
    pub records: Option<PathBuf>,
    pub log_all: bool,
    pub json: Option<PathBuf>,
    pub show: bool,
    pub quiet: bool,
}

/// Engine options as written on the command line, before `--each` defaults are merged.
#[derive(Default, Clone)]
struct RawEngine {
    pairs: Vec<(String, String)>,
}

fn parse_ms(s: &str) -> Result<u64> {
    let v: f64 = s
        .trim()
        .parse()
        .with_context(|| format!("bad number of seconds '{s}'"))?;
    if v.is_nan() || v < 0.0 {
        bail!("negative time '{s}'");
    }
    Ok((v * 1000.0).round() as u64)
}

/// `MATCH/TURN[+INC]` in seconds; `T` alone means match T and turn T.
pub fn parse_tc(s: &str) -> Result<(u64, u64, u64)> {
    let (main, inc) = match s.split_once('+') {
        Some((m, i)) => (m, parse_ms(i)?),
        None => (s, 0),
    };
    let (m, t) = match main.split_once('/') {
        Some((m, t)) => (parse_ms(m)?, parse_ms(t)?),
        None => {
            let v = parse_ms(main)?;
            (v, v)
        }
    };
    Ok((m, t, inc))
}

fn resolve_program(prog: &str) -> Result<(PathBuf, PathBuf)> {
    if prog.contains('/') {
        let p = Path::new(prog);
        let abs = std::fs::canonicalize(p).with_context(|| format!("engine program '{prog}'"))?;
        let dir = abs
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        Ok((abs, dir))
    } else {
        // Looked up in PATH; runs in the runner's directory. A name found nowhere stops the
        // run now instead of losing every game as a crash.
        let found = std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(prog).is_file()));
        if !found {
            bail!("engine program '{prog}' not found in PATH");
        }
        Ok((PathBuf::from(prog), std::env::current_dir()?))
    }
}

fn build_engine(raw: &RawEngine, each: &RawEngine) -> Result<EngineSpec> {
    let mut cmd: Option<String> = None;
    let mut name: Option<String> = None;
    let mut tc = (120_000, 5_000, 0);
    let mut max_memory = 367_001_600u64;
    let mut nodes = None;
    let mut depth = None;
    let mut options = Vec::new();
    let mut dir: Option<PathBuf> = None;
    for (k, v) in each.pairs.iter().chain(raw.pairs.iter()) {
        match k.as_str() {
            "cmd" => cmd = Some(v.clone()),
            "name" => name = Some(v.clone()),
            "tc" => tc = parse_tc(v)?,
            "nodes" => nodes = Some(v.parse().context("nodes=")?),
            "depth" => depth = Some(v.parse().context("depth=")?),
            "memory" | "maxmemory" => max_memory = v.parse().context("memory=")?,
            "dir" => dir = Some(PathBuf::from(v)),
            _ if k.starts_with("option.") => {
                options.retain(|(ok, _): &(String, String)| ok != &k[7..]);
                options.push((k[7..].to_string(), v.clone()));
            }
            _ => bail!("unknown engine option '{k}={v}'"),
        }
    }
    let cmd = cmd.ok_or_else(|| anyhow!("--engine needs cmd=PATH"))?;
    let mut words = cmd.split_whitespace();
    let prog = words.next().ok_or_else(|| anyhow!("empty cmd="))?;
    let args: Vec<String> = words.map(str::to_string).collect();
    let (program, mut cwd) = resolve_program(prog)?;
    if let Some(d) = dir {
        cwd = d;
    }
    let name = name.unwrap_or_else(|| {
        Path::new(prog)
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| prog.to_string())
    });
    Ok(EngineSpec {
        name,
        program,
        args,
        cwd,
        match_ms: tc.0,
        turn_ms: tc.1,
        inc_ms: tc.2,
        max_memory,
        nodes,
        depth,
        options,
    })
}

fn parse_sprt(tokens: &[String]) -> Result<SprtParams> {
    let mut p = SprtParams {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
        min_pairs: 10,
    };
    for t in tokens {
        let (k, v) = t
            .split_once('=')
            .ok_or_else(|| anyhow!("--sprt expects key=value, got '{t}'"))?;
        let v: f64 = v.parse().with_context(|| format!("--sprt {k}"))?;
        match k {
            "elo0" => p.elo0 = v,
            "elo1" => p.elo1 = v,
            "alpha" => p.alpha = v,
            "beta" => p.beta = v,
            "min_pairs" => p.min_pairs = v as u32,
            _ => bail!("unknown --sprt key '{k}'"),
        }
    }
    let ok = p.elo1 > p.elo0 && p.alpha > 0.0 && p.alpha < 0.5 && p.beta > 0.0 && p.beta < 0.5;
    if !ok {
        bail!("--sprt needs elo1 > elo0 and 0 < alpha, beta < 0.5");
    }
    Ok(p)
}

/// Parses the arguments (without the program name). `Ok(None)` means `--help` was printed.
pub fn parse(args: &[String]) -> Result<Option<Config>> {
    let mut raws: Vec<RawEngine> = Vec::new();
    let mut each = RawEngine::default();
    let mut cfg = Config {
        engines: Vec::new(),
        rule: Rule::Freestyle,
        size: 15,
        games: 2,
        concurrency: 1,
        openings: None,
        openings_format: OpeningFormat::Auto,
        random_order: true,
        symmetry: false,
        random_stones: (2, 4),
        repeat: true,
        draw_after: None,
        tolerance_ms: 1000,
        start_timeout_ms: 3000,
        max_wait_ms: 600_000,
        reuse: false,
        wait_ok: false,
        suspend: false,
        crlf: true,
        strict: false,
        game_type: 1,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64 % 1_000_000_000)
            .unwrap_or(1),
        sprt: None,
        records: None,
        log_all: false,
        json: None,
        show: false,
        quiet: false,
    };
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
            "--engine" | "--each" => {
                let mut raw = RawEngine::default();
                while i + 1 < args.len() && !args[i + 1].starts_with("--") {
                    i += 1;
                    let tok = &args[i];
                    match tok.split_once('=') {
                        Some((k, v)) => raw.pairs.push((k.to_string(), v.to_string())),
                        None => {
                            // A bare word after cmd= is an argument of the program.
                            match raw.pairs.iter_mut().rev().find(|(k, _)| k == "cmd") {
                                Some((_, v)) => {
                                    v.push(' ');
                                    v.push_str(tok);
                                }
                                None => bail!("engine option '{tok}' is not key=value"),
                            }
                        }
                    }
                }
                if a == "--each" {
                    each.pairs.extend(raw.pairs);
                } else {
                    raws.push(raw);
                }
            }
            "--rule" => {
                let v = next(&mut i, a)?;
                // A name, or any `INFO rule` number as the engine reads it (5 is freestyle).
                cfg.rule = Rule::from_name(&v)
                    .or_else(|| v.parse().ok().and_then(Rule::from_info))
                    .ok_or_else(|| anyhow!("unknown rule '{v}'"))?;
            }
            "--size" => cfg.size = next(&mut i, a)?.parse().context("--size")?,
            "--games" => cfg.games = next(&mut i, a)?.parse().context("--games")?,
            "--concurrency" => {
                cfg.concurrency = next(&mut i, a)?.parse().context("--concurrency")?
            }
            "--openings" => cfg.openings = Some(PathBuf::from(next(&mut i, a)?)),
            "--openings-format" => {
                cfg.openings_format = match next(&mut i, a)?.as_str() {
                    "auto" => OpeningFormat::Auto,
                    "offset" => OpeningFormat::Offset,
                    "pos" | "move" | "string" => OpeningFormat::Pos,
                    v => bail!("unknown openings format '{v}'"),
                }
            }
            "--order" => {
                cfg.random_order = match next(&mut i, a)?.as_str() {
                    "random" => true,
                    "sequential" => false,
                    v => bail!("unknown order '{v}'"),
                }
            }
            "--symmetry" => cfg.symmetry = true,
            "--random-stones" => {
                let v = next(&mut i, a)?;
                let (lo, hi) = v.split_once('-').unwrap_or((&v, &v));
                cfg.random_stones = (
                    lo.parse().context("--random-stones")?,
                    hi.parse().context("--random-stones")?,
                );
                if cfg.random_stones.0 > cfg.random_stones.1 {
                    bail!("--random-stones A-B needs A <= B");
                }
            }
            "--no-repeat" => cfg.repeat = false,
            "--draw-after" => {
                cfg.draw_after = Some(next(&mut i, a)?.parse().with_context(|| a.to_string())?)
            }
            "--tolerance" => {
                cfg.tolerance_ms = next(&mut i, a)?.parse().with_context(|| a.to_string())?
            }
            "--start-timeout" => {
                cfg.start_timeout_ms = next(&mut i, a)?.parse().with_context(|| a.to_string())?
            }
            "--max-wait" => {
                cfg.max_wait_ms = next(&mut i, a)?.parse().with_context(|| a.to_string())?
            }
            "--reuse" => cfg.reuse = true,
            "--wait-ok" => cfg.wait_ok = true,
            "--suspend" => cfg.suspend = true,
            "--lf" => cfg.crlf = false,
            "--strict" => cfg.strict = true,
            "--game-type" => {
                cfg.game_type = next(&mut i, a)?.parse().with_context(|| a.to_string())?
            }
            "--seed" => cfg.seed = next(&mut i, a)?.parse().with_context(|| a.to_string())?,
            "--sprt" => {
                let mut toks = Vec::new();
                while i + 1 < args.len() && !args[i + 1].starts_with("--") {
                    i += 1;
                    toks.push(args[i].clone());
                }
                cfg.sprt = Some(parse_sprt(&toks)?);
            }
            "--records" | "--pgn-ish" => cfg.records = Some(PathBuf::from(next(&mut i, a)?)),
            "--log" => cfg.log_all = true,
            "--json" => cfg.json = Some(PathBuf::from(next(&mut i, a)?)),
            "--show" => cfg.show = true,
            "--quiet" => cfg.quiet = true,
            _ => bail!("unknown option '{a}' (see --help)"),
        }
        i += 1;
    }
    if raws.len() != 2 {
        bail!(
            "exactly two --engine are needed (got {}); see --help",
            raws.len()
        );
    }
    for r in &raws {
        cfg.engines.push(build_engine(r, &each)?);
    }
    if !(5..=32).contains(&cfg.size) {
        bail!("--size must be 5..32");
    }
    // Random openings lie within 3 points of the centre; past two fifths of that area a random
    // position without a four for either side gets too rare to draw.
    let side = 2 * (cfg.size / 2).min(3) + 1;
    let most = side * side * 2 / 5;
    if cfg.openings.is_none() && cfg.random_stones.1 > most {
        bail!(
            "--random-stones: at most {most} stones fit a random opening on {0}x{0}",
            cfg.size
        );
    }
    if let Some(j) = &cfg.json {
        // Fail now, not after the whole match; an existing file is left as it is until then.
        let existed = j.exists();
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(j)
            .with_context(|| format!("cannot write --json {}", j.display()))?;
        if !existed {
            let _ = std::fs::remove_file(j);
        }
    }
    if cfg.concurrency == 0 {
        cfg.concurrency = 1;
    }
    if cfg.show {
        cfg.concurrency = 1;
    }
    if cfg.engines[0].name == cfg.engines[1].name {
        cfg.engines[0].name.push_str("#1");
        cfg.engines[1].name.push_str("#2");
    }
    Ok(Some(cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tc_forms() {
        assert_eq!(parse_tc("120/5").unwrap(), (120_000, 5_000, 0));
        assert_eq!(parse_tc("0/0.1").unwrap(), (0, 100, 0));
        assert_eq!(parse_tc("10").unwrap(), (10_000, 10_000, 0));
        assert_eq!(parse_tc("60/2+0.5").unwrap(), (60_000, 2_000, 500));
        assert!(parse_tc("x/1").is_err());
    }
}
