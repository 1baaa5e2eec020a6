//! `pbrain-tengen play`: a game in the terminal, human against Tengen or human against human.
//!
//! `input` parses what the player types, `ui` draws the board, `psq` reads and writes Piskvork
//! game records, `game` runs the game loop. The options are parsed here.

pub mod game;
pub mod input;
pub mod psq;
pub mod ui;

use crate::game::Rule;
use std::io::IsTerminal;

/// Everything `play` can be told on the command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    /// Tengen plays black and moves first.
    pub engine_first: bool,
    /// Playing level 0..100 (100 = full strength).
    pub level: i64,
    /// Thinking time per engine move.
    pub time_ms: u64,
    /// A fixed search depth instead of the clock (reproducible games).
    pub depth: Option<i32>,
    pub human_vs_human: bool,
    /// Seed of the level's random choices; `None`: from the clock.
    pub seed: Option<u64>,
    pub threads: usize,
    /// ANSI colour; `None`: when stdout is a terminal and `NO_COLOR` is unset.
    pub colour: Option<bool>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            rule: Rule::Freestyle,
            width: 15,
            height: 15,
            engine_first: false,
            level: 100,
            time_ms: 1000,
            depth: None,
            human_vs_human: false,
            seed: None,
            threads: 1,
            colour: None,
        }
    }
}

pub const USAGE: &str = "\
usage: pbrain-tengen play [OPTIONS]     a game in the terminal (type help in the game)
  --rule R           freestyle (default), standard, renju, caro (exactly five, not blocked at
                     both ends) or caro8 (caro where overlines win)
  --size N | WxH     board size, 5..32 (default 15)
  --human-first      you play black and move first (default)
  --engine-first     Tengen plays black and moves first
  --human-vs-human   two people at one keyboard; Tengen only gives hints
  --level N          Tengen's playing level 0..100 (default 100 = full strength)
  --time-ms T        Tengen's thinking time per move in ms (default 1000)
  --depth D          search to a fixed depth instead of using the clock (reproducible)
  --seed S           seed of the level's random choices (default: from the clock)
  --threads N        search threads (default 1)
  --color / --no-color   force ANSI colour on or off (default: on a terminal unless NO_COLOR)
Moves: h8 (column letter, row number from 1 at the bottom; columns after z are aa..af) or
x,y (0-based protocol coordinates, 0,0 = top left). Commands: undo, hint, new, resign,
save FILE, load FILE (Piskvork .psq), help, quit.";

fn number<T: std::str::FromStr>(opt: &str, v: Option<&String>) -> Result<T, String> {
    v.and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{opt} needs a number; see pbrain-tengen play --help"))
}

/// Parses the arguments after `play`. `Ok(None)`: `--help` was asked for.
pub fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    // `--opt=value` is the same as `--opt value`.
    let mut list: Vec<String> = Vec::new();
    for a in args {
        match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => {
                list.push(k.to_string());
                list.push(v.to_string());
            }
            _ => list.push(a.clone()),
        }
    }
    let mut i = 0;
    while i < list.len() {
        let opt = list[i].as_str();
        let val = list.get(i + 1);
        let mut takes_value = true;
        match opt {
            "--help" | "-h" | "help" => return Ok(None),
            "--rule" => {
                o.rule = val
                    .and_then(|v| Rule::from_name(v))
                    .ok_or("--rule is freestyle, standard, renju, caro or caro8")?;
            }
            "--size" => {
                let v = val.ok_or("--size needs N or WxH")?;
                let (w, h) = match v.split_once(['x', 'X']) {
                    Some((w, h)) => (w.parse(), h.parse()),
                    None => (v.parse(), v.parse()),
                };
                match (w, h) {
                    (Ok(w), Ok(h)) if (5..=32).contains(&w) && (5..=32).contains(&h) => {
                        o.width = w;
                        o.height = h;
                    }
                    _ => return Err("--size is a number from 5 to 32, or WxH".into()),
                }
            }
            "--level" | "--strength" => {
                let n: i64 = number(opt, val)?;
                if !(0..=100).contains(&n) {
                    return Err("--level is a number from 0 to 100".into());
                }
                o.level = n;
            }
            "--time-ms" => o.time_ms = number(opt, val)?,
            "--depth" => {
                let d: i32 = number(opt, val)?;
                if !(1..=100).contains(&d) {
                    return Err("--depth is a number from 1 to 100".into());
                }
                o.depth = Some(d);
            }
            "--seed" => o.seed = Some(number(opt, val)?),
            "--threads" => o.threads = number::<usize>(opt, val)?.max(1),
            _ => {
                takes_value = false;
                match opt {
                    "--engine-first" => o.engine_first = true,
                    "--human-first" => o.engine_first = false,
                    "--human-vs-human" => o.human_vs_human = true,
                    "--color" | "--colour" => o.colour = Some(true),
                    "--no-color" | "--no-colour" => o.colour = Some(false),
                    _ => return Err(format!("unknown play option '{opt}'; see --help")),
                }
            }
        }
        i += if takes_value { 2 } else { 1 };
    }
    Ok(Some(o))
}

/// Whether to colour the output: stdout is a terminal and `NO_COLOR` is unset or empty.
pub fn auto_colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The `play` subcommand: returns the process exit code.
pub fn main(args: &[String]) -> i32 {
    let opts = match parse_args(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let echo = !stdin.is_terminal();
    match game::run(&opts, stdin.lock(), stdout.lock(), echo) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("play: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn defaults() {
        let o = parse_args(&[]).unwrap().unwrap();
        assert_eq!(o, Options::default());
        assert_eq!(
            (o.width, o.height, o.rule, o.level, o.time_ms),
            (15, 15, Rule::Freestyle, 100, 1000)
        );
        assert!(!o.engine_first && !o.human_vs_human);
    }

    #[test]
    fn every_option() {
        let o = parse_args(&args(
            "--rule renju --size 19 --engine-first --level 40 --time-ms 50 --seed 7 --depth 3 --threads 2 --no-color",
        ))
        .unwrap()
        .unwrap();
        assert_eq!(o.rule, Rule::Renju);
        assert_eq!((o.width, o.height), (19, 19));
        assert!(o.engine_first);
        assert_eq!(
            (o.level, o.time_ms, o.seed, o.depth, o.threads),
            (40, 50, Some(7), Some(3), 2)
        );
        assert_eq!(o.colour, Some(false));
        let o = parse_args(&args("--size=20x12 --rule=caro --human-vs-human"))
            .unwrap()
            .unwrap();
        assert_eq!((o.width, o.height, o.human_vs_human), (20, 12, true));
        assert_eq!(o.rule, Rule::from_name("caro").unwrap());
        assert_eq!(parse_args(&args("--help")), Ok(None));
    }

    #[test]
    fn bad_options() {
        for bad in [
            "--rule chess",
            "--size 4",
            "--size 33",
            "--size",
            "--level 101",
            "--level x",
            "--time-ms -5",
            "--depth 0",
            "--frobnicate",
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad}");
        }
    }
}
