//! Protocol fuzzing for `pbrain-tengen` (`cargo test --release --test fuzz`).
//!
//! * `parser_fuzz` feeds the public, pure `tengen::protocol::command::Parser` arbitrary byte
//!   lines, mutated real commands (random case, blanks, huge and negative numbers, non-UTF-8,
//!   NUL, truncation, partial blocks), exact commands with cosmetic variations (the result must
//!   be exactly the expected command) and block differentials (a block on one line and the same
//!   block split over many lines must give the same commands). Invariants: no panic; at most two
//!   commands per line and then the first one is the abandoned block's error; every command
//!   well-formed (START sizes within 5..32, INFO keys upper-case words, error and UNKNOWN texts
//!   printable on one line, counts and biases clamped); a documented keyword never gets UNKNOWN.
//! * `engine_fuzz` drives the real binary with long random command sequences (single commands,
//!   several commands in one write, INFO / STOP / YXSTOP during a search, blocks abandoned
//!   half-way, commands split over two writes, LF / CRLF / CR line ends) and checks every answer
//!   against a model of the session: the lines the engine reads are fed to a second `Parser`,
//!   and the model applies each command the way the protocol documents it (README, protocol.md)
//!   and predicts the answer. Invariants: no crash (the process exits only after `END` or end
//!   of input, with status 0), no panic on stderr, no hang (every answer within its time limit:
//!   `timeout_turn` plus a tolerance for moves, the tolerance for the rest), only allowed output
//!   lines, every move on the board, on an empty point of the model and, in renju, never a
//!   black foul (`Board::foul` on the model), every OK / ERROR / UNKNOWN as the model predicts
//!   (a TURN on an occupied point is an ERROR, after a TAKEBACK the point is free again, ...),
//!   `YXSHOWFORBID` equal to the model's fouls, the tiny-`max_memory` ERROR before a move, and
//!   nothing written into the engine's working directory.
//!
//! Environment knobs (all optional):
//! * `TENGEN_FUZZ_SEED=n`            base seed (default fixed, so the test is reproducible)
//! * `TENGEN_FUZZ_INPUTS=n`          parser inputs (lines fed)            (default 1 500 000)
//! * `TENGEN_FUZZ_COMMANDS=n`        engine command lines in total        (default 3 000)
//! * `TENGEN_FUZZ_SESSION=n`         command lines per engine process     (default 250)
//! * `TENGEN_FUZZ_JOBS=n`            engine sessions at once              (default 2)
//! * `TENGEN_FUZZ_TURN_MS=lo-hi`     range of `INFO timeout_turn`         (default 20-100)
//! * `TENGEN_FUZZ_TOLERANCE_MS=n`    how late an answer may be            (default 1000)
//! * `TENGEN_FUZZ_ENGINE=path`       another engine binary
//!
//! A failure prints the seed and a command line that repeats the run; a failing engine session
//! also writes its whole I/O log to `target/tmp/fuzz-fail-<seed>.log`. The parser run repeats
//! exactly; an engine session repeats its command generator exactly, but the engine's own moves
//! depend on timing, so a repeat may take another path.

use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command as Process, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use tengen::game::{Board, Color, Pos, Rule};
use tengen::protocol::command::{BlockKind, Command, Parser, Stone};

const DEFAULT_SEED: u64 = 0x7E96_E9F0_2201_AFD5;
const DEFAULT_INPUTS: u64 = 1_500_000;
const DEFAULT_COMMANDS: u64 = 3_000;
const DEFAULT_SESSION: u64 = 250;

// ------------------------------------------------------------------------------------------------
// Seeded randomness: xorshift64*, seeded through splitmix64 (no crates).

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(splitmix(seed) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo) as u64 + 1)) as i64
    }
    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
    /// An index drawn with the given weights.
    fn weighted(&mut self, weights: &[usize]) -> usize {
        let total: usize = weights.iter().sum();
        let mut r = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        weights.len() - 1
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => {
            let v = v.trim().replace('_', "");
            match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => v.parse(),
            }
            .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
        }
        _ => default,
    }
}

fn seed() -> u64 {
    env_u64("TENGEN_FUZZ_SEED", DEFAULT_SEED)
}

/// Bytes shown readably: printable ASCII as is, everything else escaped.
fn escape(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\x{b:02x}");
            }
        }
    }
    s
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let head: String = s.chars().take(max).collect();
        format!("{head}... ({} chars)", s.chars().count())
    }
}

// ------------------------------------------------------------------------------------------------
// Text pieces shared by both fuzzers.

/// Every keyword the parser knows (the documented ones and the Yixin extensions).
const KEYWORDS: &[&str] = &[
    "START",
    "RECTSTART",
    "RESTART",
    "BEGIN",
    "TURN",
    "BOARD",
    "YXBOARD",
    "SWAP2BOARD",
    "INFO",
    "END",
    "ABOUT",
    "TAKEBACK",
    "PLAY",
    "STOP",
    "YXSTOP",
    "YXSHOWFORBID",
    "YXHASHCLEAR",
    "YXSHOWINFO",
    "YXNBEST",
    "YXSEARCHDEFEND",
    "YXBALANCEONE",
    "YXBALANCETWO",
    "YXBLOCK",
    "YXBLOCKUNDO",
    "YXBLOCKRESET",
    "YXBLOCKPATH",
    "YXBLOCKPATHUNDO",
    "YXBLOCKPATHRESET",
    "YXSWAP2STEP1",
    "YXSWAP2STEP2",
    "YXSWAP2STEP3",
    "YXSOOSORVSTEP1",
    "YXSOOSORVSTEP2",
    "YXSOOSORVSTEP3",
    "YXSOOSORVSTEP4",
    "YXSOOSORVSTEP5",
    "YXSOOSORVSTEP6",
    "DONE",
];

/// Keywords of the Gomocup protocol (protocol.md §2): a line starting with one of these is
/// never answered `UNKNOWN`.
const DOCUMENTED: &[&str] = &[
    "START",
    "RECTSTART",
    "RESTART",
    "BEGIN",
    "TURN",
    "BOARD",
    "SWAP2BOARD",
    "INFO",
    "END",
    "ABOUT",
    "TAKEBACK",
    "PLAY",
    "YXBOARD",
    "DONE",
];

const INFO_KEYS: &[&str] = &[
    "timeout_turn",
    "timeout_match",
    "time_left",
    "max_memory",
    "hash_size",
    "max_depth",
    "max_node",
    "rule",
    "folder",
    "game_type",
    "thread_num",
    "show_detail",
    "strength",
    "seed",
    "evaluate",
    "pondering",
    "caution_factor",
    "time_increment",
];

/// Numbers that tend to break parsers.
const NASTY_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "+0",
    "1",
    "-1",
    "4",
    "5",
    "7",
    "15",
    "20",
    "32",
    "33",
    "-5",
    "+7",
    "007",
    "2147483647",
    "-2147483648",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999999",
    "999999999999999999",
    "1000000000000000000",
    "1e3",
    "0x10",
    "3.5",
    "",
    "--1",
    "1-",
    "\u{ff11}\u{ff15}",
    "\u{0660}",
];

fn random_case(rng: &mut Rng, s: &str) -> String {
    s.chars()
        .map(|c| {
            if rng.percent(50) {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect()
}

/// A keyword as managers and GUIs spell it: mostly upper case, sometimes lower, sometimes mixed.
fn keyword_case(rng: &mut Rng, s: &str) -> String {
    match rng.below(10) {
        0..=5 => s.to_string(),
        6..=7 => s.to_ascii_lowercase(),
        _ => random_case(rng, s),
    }
}

/// A run of blanks between tokens (ASCII whitespace only: what the parser splits on).
fn blank(rng: &mut Rng) -> &'static str {
    const BLANKS: [&str; 9] = [" ", " ", " ", " ", "  ", "\t", " \t ", "\x0c", "   "];
    BLANKS[rng.below(BLANKS.len())]
}

fn number(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => rng.pick(NASTY_NUMBERS).to_string(),
        1 => (rng.next() as i64).to_string(),
        2 => {
            let len = 1 + rng.below(30);
            (0..len)
                .map(|_| (b'0' + rng.below(10) as u8) as char)
                .collect()
        }
        _ => rng.range(-3, 40).to_string(),
    }
}

fn garbage_bytes(rng: &mut Rng, max_len: usize) -> Vec<u8> {
    let len = match rng.below(10) {
        0..=5 => rng.below(16),
        6..=8 => rng.below(max_len.min(300) + 1),
        _ => rng.below(max_len + 1),
    };
    let alphabet: &[u8] =
        b"0123456789,,, -+\tDONEdoneBOARDSTURNINFOxy;:=\"'\x00\xff\xfe\xc3\xa9\x80";
    let full = rng.percent(40);
    (0..len)
        .map(|_| {
            if full {
                rng.next() as u8
            } else {
                *rng.pick(alphabet)
            }
        })
        .collect()
}

// ------------------------------------------------------------------------------------------------
// Parser fuzz.

fn point_text(rng: &mut Rng) -> String {
    let (x, y) = (number(rng), number(rng));
    match rng.below(12) {
        0 => x.to_string(),
        1 => format!("{x},{y},{}", number(rng)),
        2 => format!("{x} , {y}"),
        3 => format!("{x},"),
        4 => format!(",{y}"),
        5 => format!("{x},{y},{},{}", number(rng), number(rng)),
        _ => format!("{x},{y}"),
    }
}

fn stone_token(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => format!("{},{}", rng.range(-2, 34), rng.range(-2, 34)),
        1 => point_text(rng),
        _ => format!(
            "{},{},{}",
            rng.range(-1, 33),
            rng.range(-1, 33),
            rng.range(0, 4)
        ),
    }
}

/// A real command, roughly right but with random arguments.
fn structured_line(rng: &mut Rng) -> Vec<u8> {
    let mut s = String::new();
    if rng.percent(10) {
        s.push_str(blank(rng));
    }
    match rng.below(16) {
        0 => {
            s += &keyword_case(rng, "START");
            for _ in 0..rng.below(4) {
                s += blank(rng);
                s += &number(rng);
            }
        }
        1 => {
            s += &keyword_case(rng, "RECTSTART");
            s += blank(rng);
            s += &point_text(rng);
        }
        2..=4 => {
            let k = *rng.pick(&["TURN", "PLAY", "TAKEBACK"]);
            s += &keyword_case(rng, k);
            if rng.percent(90) {
                s += blank(rng);
                s += &point_text(rng);
            }
        }
        5 | 6 => {
            let k = *rng.pick(&["BOARD", "YXBOARD", "SWAP2BOARD"]);
            s += &keyword_case(rng, k);
            for _ in 0..rng.below(12) {
                s += blank(rng);
                s += &stone_token(rng);
            }
            if rng.percent(60) {
                s += blank(rng);
                s += &keyword_case(rng, "DONE");
                if rng.percent(10) {
                    s += " 1,1,1";
                }
            }
        }
        7 | 8 => {
            // A line inside a block (no keyword).
            for i in 0..1 + rng.below(4) {
                if i > 0 {
                    s += blank(rng);
                }
                s += &stone_token(rng);
            }
        }
        9 => s += &keyword_case(rng, "DONE"),
        10 | 11 => {
            s += &keyword_case(rng, "INFO");
            if rng.percent(95) {
                s += blank(rng);
                let k = *rng.pick(INFO_KEYS);
                s += &keyword_case(rng, k);
                if rng.percent(90) {
                    s += blank(rng);
                    s += &number(rng);
                }
            }
        }
        12 => {
            let k = *rng.pick(KEYWORDS);
            s += &keyword_case(rng, k);
        }
        13 => {
            let k = *rng.pick(&["YXNBEST", "YXBALANCEONE", "YXBALANCETWO"]);
            s += &keyword_case(rng, k);
            for _ in 0..rng.below(3) {
                s += blank(rng);
                s += &number(rng);
            }
        }
        14 => {
            // A random word.
            for _ in 0..1 + rng.below(10) {
                s.push((b'a' + rng.below(26) as u8) as char);
            }
        }
        _ => {
            let mut b = s.into_bytes();
            b.extend(garbage_bytes(rng, 64));
            return b;
        }
    }
    if rng.percent(10) {
        s.push_str(blank(rng));
    }
    s.into_bytes()
}

/// Byte-level mutations: insert, delete, replace, truncate, duplicate, non-UTF-8, NUL.
fn mutate(rng: &mut Rng, line: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(line.len() + 1);
        match rng.below(8) {
            0 => line.insert(at, rng.next() as u8),
            1 if at < line.len() => {
                line.remove(at);
            }
            2 if at < line.len() => line[at] = rng.next() as u8,
            3 => line.truncate(at),
            4 => {
                const BAD: [&[u8]; 7] = [
                    b"\xff",
                    b"\xc3",
                    b"\xe2\x82",
                    b"\xed\xa0\x80",
                    b"\x00",
                    b"\xef\xbb\xbf",
                    b"\xc2\xa0",
                ];
                let bad = BAD[rng.below(BAD.len())];
                for (i, &b) in bad.iter().enumerate() {
                    line.insert(at + i, b);
                }
            }
            5 => {
                let end = (at + rng.below(8)).min(line.len());
                let piece = line[at..end].to_vec();
                for (i, &b) in piece.iter().enumerate() {
                    line.insert(end + i, b);
                }
            }
            6 => {
                let s = number(rng);
                for (i, b) in s.bytes().enumerate() {
                    line.insert(at + i, b);
                }
            }
            _ => {
                let b = *rng.pick(b", \t-+0123456789");
                line.insert(at, b);
            }
        }
    }
}

/// A valid command with cosmetic variations, and the command it must parse to.
fn exact_line(rng: &mut Rng) -> (Vec<u8>, Command) {
    let lead = if rng.percent(15) { blank(rng) } else { "" };
    let trail = if rng.percent(15) { blank(rng) } else { "" };
    let comma = |rng: &mut Rng| *rng.pick(&[",", ",", ", ", " ,", " , ", ",\t"]);
    let (body, cmd) = match rng.below(11) {
        0 => {
            let n = rng.range(5, 32) as usize;
            if rng.percent(30) {
                let m = rng.range(5, 32) as usize;
                (
                    format!(
                        "{}{}{n}{}{m}",
                        keyword_case(rng, "START"),
                        blank(rng),
                        blank(rng)
                    ),
                    // Yixin-Board's `START w h`: its points are `row,col`, so x runs to h.
                    Command::Start {
                        width: m,
                        height: n,
                    },
                )
            } else {
                (
                    format!("{}{}{n}", keyword_case(rng, "START"), blank(rng)),
                    Command::Start {
                        width: n,
                        height: n,
                    },
                )
            }
        }
        1 => {
            let (w, h) = (rng.range(5, 32) as usize, rng.range(5, 32) as usize);
            (
                format!(
                    "{}{}{w}{}{h}",
                    keyword_case(rng, "RECTSTART"),
                    blank(rng),
                    // Not " ," or " , ": RECTSTART reads `w,h` or `w, h` only.
                    rng.pick(&[",", ", "])
                ),
                Command::Start {
                    width: w,
                    height: h,
                },
            )
        }
        2 | 3 => {
            let (x, y) = (rng.range(-40, 60), rng.range(-40, 60));
            let which = rng.below(3);
            let kw = ["TURN", "PLAY", "TAKEBACK"][which];
            let cmd = match which {
                0 => Command::Turn { x, y },
                1 => Command::Play { x, y },
                _ => Command::Takeback { x, y },
            };
            (
                format!(
                    "{}{}{x}{}{y}",
                    keyword_case(rng, kw),
                    blank(rng),
                    comma(rng)
                ),
                cmd,
            )
        }
        4 => {
            let (kw, cmd) = rng
                .pick(&[
                    ("BEGIN", Command::Begin),
                    ("END", Command::End),
                    ("ABOUT", Command::About),
                    ("RESTART", Command::Restart),
                    ("STOP", Command::Stop),
                    ("YXSTOP", Command::Stop),
                    ("YXSHOWFORBID", Command::ShowForbid),
                    ("YXHASHCLEAR", Command::HashClear),
                    ("YXSHOWINFO", Command::ShowInfo),
                    ("YXSEARCHDEFEND", Command::SearchDefend),
                ])
                .clone();
            (keyword_case(rng, kw), cmd)
        }
        5 | 6 => {
            let key: String = if rng.percent(70) {
                rng.pick(INFO_KEYS).to_string()
            } else {
                (0..1 + rng.below(12))
                    .map(|_| *rng.pick(b"abcdefghijklmnopqrstuvwxyz_0123456789") as char)
                    .collect()
            };
            let value: String = if rng.percent(10) {
                String::new()
            } else if rng.percent(60) {
                number(rng)
            } else {
                // Words with inner blanks, as in a folder path.
                let n = 1 + rng.below(4);
                (0..n)
                    .map(|_| {
                        (0..1 + rng.below(8))
                            .map(|_| *rng.pick(b"abcXYZ019:/\\._-\"'") as char)
                            .collect::<String>()
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let value = value.trim().to_string();
            let line = if value.is_empty() {
                format!(
                    "{}{}{}",
                    keyword_case(rng, "INFO"),
                    blank(rng),
                    random_case(rng, &key)
                )
            } else {
                format!(
                    "{}{}{}{}{value}",
                    keyword_case(rng, "INFO"),
                    blank(rng),
                    random_case(rng, &key),
                    blank(rng)
                )
            };
            (
                line,
                Command::Info {
                    key: key.to_ascii_uppercase(),
                    value: value.into_bytes(),
                },
            )
        }
        7 | 8 => {
            let which = rng.below(3);
            let (kw, kind) = [
                ("BOARD", BlockKind::Board),
                ("YXBOARD", BlockKind::YxBoard),
                ("SWAP2BOARD", BlockKind::Swap2Board),
            ][which];
            let mut line = keyword_case(rng, kw);
            let mut stones = Vec::new();
            for _ in 0..rng.below(20) {
                let (x, y) = (rng.range(-5, 40), rng.range(-5, 40));
                let field = if rng.percent(80) {
                    Some(rng.range(0, 4))
                } else {
                    None
                };
                line += blank(rng);
                match field {
                    Some(f) => {
                        let _ = write!(line, "{x},{y},{f}");
                    }
                    None => {
                        let _ = write!(line, "{x},{y}");
                    }
                }
                stones.push(Stone { x, y, field });
            }
            line += blank(rng);
            line += &keyword_case(rng, "DONE");
            (line, Command::Block { kind, stones })
        }
        9 => {
            let n = rng.range(-5, 2000);
            (
                format!("{}{}{n}", keyword_case(rng, "YXNBEST"), blank(rng)),
                Command::NBest(n.clamp(1, 1024) as usize),
            )
        }
        _ => {
            let two = rng.percent(50);
            let kw = if two { "YXBALANCETWO" } else { "YXBALANCEONE" };
            if rng.percent(20) {
                (keyword_case(rng, kw), Command::Balance { two, bias: 0 })
            } else {
                let b = rng.range(-30_000, 30_000);
                (
                    format!("{}{}{b}", keyword_case(rng, kw), blank(rng)),
                    Command::Balance {
                        two,
                        bias: b.clamp(-20_000, 20_000) as i32,
                    },
                )
            }
        }
    };
    (format!("{lead}{body}{trail}").into_bytes(), cmd)
}

fn printable_line(s: &str) -> bool {
    !s.chars().any(|c| c.is_control())
}

/// The first blank-separated token, upper-cased (as the parser reads keywords).
fn first_token(line: &[u8]) -> String {
    let start = line
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(line.len());
    let rest = &line[start..];
    let end = rest
        .iter()
        .position(|b| b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    String::from_utf8_lossy(&rest[..end]).to_ascii_uppercase()
}

fn check_command(c: &Command) -> Result<(), String> {
    match c {
        Command::Start { width, height }
            if !(5..=32).contains(width) || !(5..=32).contains(height) =>
        {
            return Err(format!("START size {width}x{height} outside 5..32"));
        }
        Command::Block { stones, .. } if stones.len() > 2 * 32 * 32 => {
            return Err(format!("block of {} stones", stones.len()));
        }
        Command::Info { key, .. }
            if key.is_empty()
                || key.bytes().any(|b| b.is_ascii_whitespace())
                || *key != key.to_ascii_uppercase() =>
        {
            return Err(format!("bad INFO key {key:?}"));
        }
        Command::NBest(n) if !(1..=1024).contains(n) => {
            return Err(format!("YXNBEST count {n} outside 1..1024"));
        }
        Command::Balance { bias, .. } if bias.abs() > 20_000 => {
            return Err(format!("balance bias {bias} outside ±20000"));
        }
        Command::Invalid(s) | Command::Unknown(s) => {
            if !printable_line(s) {
                return Err(format!("ERROR/UNKNOWN text with control characters: {s:?}"));
            }
            if s.chars().count() > 400 {
                return Err(format!(
                    "ERROR/UNKNOWN text of {} characters",
                    s.chars().count()
                ));
            }
            if matches!(c, Command::Invalid(_)) && s.trim().is_empty() {
                return Err("ERROR without a reason".into());
            }
        }
        _ => {}
    }
    Ok(())
}

fn check_output(line: &[u8], was_in_block: bool, cmds: &[Command]) -> Result<(), String> {
    if cmds.len() > 2 {
        return Err(format!("{} commands from one line: {cmds:?}", cmds.len()));
    }
    if cmds.len() == 2 && !(was_in_block && matches!(cmds[0], Command::Invalid(_))) {
        return Err(format!(
            "two commands from one line, the first not an abandoned block: {cmds:?}"
        ));
    }
    for c in cmds {
        check_command(c)?;
    }
    if let Some(Command::Unknown(_)) = cmds.last() {
        let kw = first_token(line);
        if DOCUMENTED.contains(&kw.as_str()) {
            return Err(format!("UNKNOWN for the documented keyword {kw}: {cmds:?}"));
        }
    }
    Ok(())
}

/// One parser, fed line after line; remembers its lines for the failure report.
struct ParserRun {
    parser: Parser,
    fed: Vec<Vec<u8>>,
}

impl ParserRun {
    fn new() -> ParserRun {
        ParserRun {
            parser: Parser::default(),
            fed: Vec::new(),
        }
    }

    fn feed(&mut self, line: &[u8]) -> Result<(bool, Vec<Command>), String> {
        self.fed.push(line.to_vec());
        let was_in_block = self.parser.in_block();
        let parser = &mut self.parser;
        let out = catch_unwind(AssertUnwindSafe(|| parser.feed(line)))
            .map_err(|e| format!("the parser panicked: {}", panic_text(&e)))?;
        check_output(line, was_in_block, &out)?;
        Ok((was_in_block, out))
    }

    fn history(&self) -> String {
        let from = self.fed.len().saturating_sub(20);
        self.fed[from..]
            .iter()
            .map(|l| format!("      \"{}\"\n", shorten(&escape(l), 300)))
            .collect()
    }
}

fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-text panic)".into()
    }
}

/// A block on one line and the same block over several lines must give the same commands.
/// Returns the number of lines fed.
fn block_differential(rng: &mut Rng) -> Result<u64, String> {
    let kw = *rng.pick(&["BOARD", "YXBOARD", "SWAP2BOARD"]);
    let mut tokens = Vec::new();
    for _ in 0..rng.below(40) {
        let t = if rng.percent(85) {
            stone_token(rng)
        } else {
            // Garbage that is no keyword: no letters of one.
            (0..1 + rng.below(6))
                .map(|_| *rng.pick(b"0123456789,-+xa;?") as char)
                .collect()
        };
        tokens.push(t);
    }
    let one = format!(
        "{} {} {}",
        keyword_case(rng, kw),
        tokens.join(" "),
        keyword_case(rng, "DONE")
    );
    let mut a = ParserRun::new();
    let (_, out_a) = a.feed(one.as_bytes())?;
    let mut lines = Vec::new();
    let first_n = rng.below(tokens.len() + 1).min(3);
    let mut first = keyword_case(rng, kw);
    for t in &tokens[..first_n] {
        first += blank(rng);
        first += t;
    }
    lines.push(first);
    let mut i = first_n;
    while i < tokens.len() {
        let n = 1 + rng.below(4);
        let end = (i + n).min(tokens.len());
        let mut l = String::new();
        if rng.percent(20) {
            l += blank(rng);
        }
        l += &tokens[i..end].join(blank(rng));
        lines.push(l);
        i = end;
    }
    if rng.percent(50) && lines.len() > 1 {
        let last = lines.last_mut().expect("lines");
        *last += " ";
        *last += &keyword_case(rng, "DONE");
    } else {
        lines.push(keyword_case(rng, "DONE"));
    }
    let mut b = ParserRun::new();
    let mut out_b = Vec::new();
    for l in &lines {
        out_b.extend(b.feed(l.as_bytes())?.1);
    }
    if out_a != out_b {
        return Err(format!(
            "block on one line and on {} lines differ:\n    one line: {}\n    gives {out_a:?}\n    lines: {lines:?}\n    give {out_b:?}",
            lines.len(),
            one
        ));
    }
    Ok(1 + lines.len() as u64)
}

struct ParserStats {
    inputs: u64,
    random: u64,
    structured: u64,
    exact: u64,
    differential: u64,
    commands: u64,
}

fn parser_fuzz_run(seed: u64, inputs: u64) -> Result<ParserStats, String> {
    let mut rng = Rng::new(seed);
    let mut st = ParserStats {
        inputs: 0,
        random: 0,
        structured: 0,
        exact: 0,
        differential: 0,
        commands: 0,
    };
    while st.inputs < inputs {
        let mut run = ParserRun::new();
        let len = 1 + rng.below(48);
        for _ in 0..len {
            let at = st.inputs;
            let result: Result<(), String> = match rng.below(100) {
                0..=24 => {
                    st.random += 1;
                    st.inputs += 1;
                    let line = garbage_bytes(&mut rng, 4000);
                    run.feed(&line)
                        .map(|(_, out)| st.commands += out.len() as u64)
                }
                25..=74 => {
                    st.structured += 1;
                    st.inputs += 1;
                    let mut line = structured_line(&mut rng);
                    if rng.percent(35) {
                        mutate(&mut rng, &mut line);
                    }
                    run.feed(&line)
                        .map(|(_, out)| st.commands += out.len() as u64)
                }
                75..=96 => {
                    st.exact += 1;
                    st.inputs += 1;
                    let (line, want) = exact_line(&mut rng);
                    run.feed(&line).and_then(|(in_block, out)| {
                        st.commands += out.len() as u64;
                        let ok = if in_block && want == Command::End {
                            // END closes a block silently: it must print nothing.
                            out.len() == 1 && out[0] == want
                        } else if in_block {
                            out.len() == 2
                                && matches!(out[0], Command::Invalid(_))
                                && out[1] == want
                        } else {
                            out.len() == 1 && out[0] == want
                        };
                        if ok {
                            Ok(())
                        } else {
                            Err(format!(
                                "\"{}\" gave {out:?}, expected {want:?}{}",
                                escape(&line),
                                if in_block && want != Command::End {
                                    " after the abandoned block's ERROR"
                                } else {
                                    ""
                                }
                            ))
                        }
                    })
                }
                _ => {
                    st.differential += 1;
                    match block_differential(&mut rng) {
                        Ok(n) => {
                            st.inputs += n;
                            Ok(())
                        }
                        Err(e) => Err(e),
                    }
                }
            };
            if let Err(e) = result {
                return Err(format!(
                    "parser fuzz failure at input #{at} (seed {seed:#x}): {e}\n    lines fed to this parser (last 20):\n{}    repeat: TENGEN_FUZZ_SEED={seed:#x} TENGEN_FUZZ_INPUTS={} cargo test --release --test fuzz parser_fuzz -- --nocapture",
                    run.history(),
                    at + 1
                ));
            }
        }
    }
    Ok(st)
}

#[test]
fn parser_fuzz() {
    let seed = seed();
    let inputs = env_u64("TENGEN_FUZZ_INPUTS", DEFAULT_INPUTS);
    // Two halves on two threads: the second half's seed is derived from the first.
    let t0 = Instant::now();
    let halves: Vec<thread::JoinHandle<Result<ParserStats, String>>> = (0..2u64)
        .map(|i| {
            let s = if i == 0 {
                seed
            } else {
                splitmix(seed ^ 0xA5A5)
            };
            let n = inputs / 2 + (inputs % 2) * (1 - i);
            thread::spawn(move || parser_fuzz_run(s, n))
        })
        .collect();
    let mut total = ParserStats {
        inputs: 0,
        random: 0,
        structured: 0,
        exact: 0,
        differential: 0,
        commands: 0,
    };
    let mut failures = Vec::new();
    for h in halves {
        match h.join().expect("parser fuzz thread") {
            Ok(s) => {
                total.inputs += s.inputs;
                total.random += s.random;
                total.structured += s.structured;
                total.exact += s.exact;
                total.differential += s.differential;
                total.commands += s.commands;
            }
            Err(e) => failures.push(e),
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    if !failures.is_empty() {
        panic!("{}", failures.join("\n\n"));
    }
    println!(
        "parser fuzz: {} inputs ({} random bytes, {} mutated commands, {} exact commands, {} block differentials) -> {} commands in {:.2} s = {:.0} inputs/s, seed {seed:#x}",
        total.inputs,
        total.random,
        total.structured,
        total.exact,
        total.differential,
        total.commands,
        secs,
        total.inputs as f64 / secs
    );
}

// ------------------------------------------------------------------------------------------------
// The engine process.

enum Out {
    Line(String, Instant),
    /// Bytes after the last line end when stdout closed.
    Partial(String),
    Eof,
}

struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Out>,
    stdout_closed: bool,
    stderr: Arc<Mutex<Vec<u8>>>,
    status: Option<ExitStatus>,
    log: VecDeque<String>,
    start: Instant,
}

fn engine_path() -> PathBuf {
    match std::env::var_os("TENGEN_FUZZ_ENGINE") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_pbrain-tengen")),
    }
}

impl Engine {
    fn spawn(cwd: &Path) -> Result<Engine, String> {
        let path = engine_path();
        let mut child = Process::new(&path)
            .current_dir(cwd)
            .env("RUST_BACKTRACE", "1")
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", path.display()))?;
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut err_pipe = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut buf = [0u8; 16384];
            let mut line: Vec<u8> = Vec::new();
            let mut after_cr = false;
            loop {
                let n = match stdout.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let now = Instant::now();
                for &b in &buf[..n] {
                    if b == b'\n' && after_cr {
                        after_cr = false;
                        continue;
                    }
                    after_cr = b == b'\r';
                    if b == b'\n' || b == b'\r' {
                        let s = String::from_utf8_lossy(&line).into_owned();
                        line.clear();
                        if tx.send(Out::Line(s, now)).is_err() {
                            return;
                        }
                    } else {
                        line.push(b);
                    }
                }
            }
            if !line.is_empty() {
                let _ = tx.send(Out::Partial(String::from_utf8_lossy(&line).into_owned()));
            }
            let _ = tx.send(Out::Eof);
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match err_pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut v = sink.lock().unwrap_or_else(|e| e.into_inner());
                        v.extend_from_slice(&buf[..n]);
                        if v.len() > 1 << 20 {
                            let cut = v.len() - (1 << 19);
                            v.drain(..cut);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
        });
        Ok(Engine {
            stdin: child.stdin.take(),
            child,
            rx,
            stdout_closed: false,
            stderr,
            status: None,
            log: VecDeque::new(),
            start: Instant::now(),
        })
    }

    fn note(&mut self, s: String) {
        let ms = self.start.elapsed().as_millis();
        self.log
            .push_back(format!("{ms:>7} ms  {}", shorten(&s, 300)));
        if self.log.len() > 5000 {
            self.log.pop_front();
        }
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.note(format!("> {}", escape(bytes)));
        let Some(w) = self.stdin.as_mut() else {
            return Err("stdin is already closed".into());
        };
        w.write_all(bytes)
            .and_then(|_| w.flush())
            .map_err(|e| format!("writing to the engine failed: {e} (did it exit?)"))
    }

    fn close_stdin(&mut self) {
        self.note("(stdin closed)".into());
        self.stdin = None;
    }

    /// The next output line, `Ok(None)` at the deadline, `Err` when stdout closed.
    fn next(&mut self, deadline: Instant) -> Result<Option<(String, Instant)>, String> {
        if self.stdout_closed {
            return Err(self.closed_text());
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(wait) {
            Ok(Out::Line(s, t)) => {
                self.note(format!("< {s}"));
                Ok(Some((s, t)))
            }
            Ok(Out::Partial(s)) => {
                self.note(format!("< {s}   (no line end, stdout closed)"));
                Err(format!(
                    "output `{s}` without a line end, then stdout closed"
                ))
            }
            Ok(Out::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.stdout_closed = true;
                self.note("(stdout closed)".into());
                Err(self.closed_text())
            }
            Err(RecvTimeoutError::Timeout) => Ok(None),
        }
    }

    /// A line that is already there, without waiting.
    fn try_next(&mut self) -> Result<Option<String>, String> {
        if self.stdout_closed {
            return Err(self.closed_text());
        }
        match self.rx.try_recv() {
            Ok(Out::Line(s, _)) => {
                self.note(format!("< {s}"));
                Ok(Some(s))
            }
            Ok(Out::Partial(s)) => Err(format!("output `{s}` without a line end")),
            Ok(Out::Eof) | Err(TryRecvError::Disconnected) => {
                self.stdout_closed = true;
                self.note("(stdout closed)".into());
                Err(self.closed_text())
            }
            Err(TryRecvError::Empty) => Ok(None),
        }
    }

    fn closed_text(&mut self) -> String {
        let st = self.wait_exit(Instant::now() + Duration::from_millis(500));
        format!(
            "the engine closed its output unasked (crash?), exit status: {}",
            st.map_or("still running".into(), |s| s.to_string())
        )
    }

    fn wait_exit(&mut self, deadline: Instant) -> Option<ExitStatus> {
        loop {
            if let Some(st) = self.status {
                return Some(st);
            }
            if let Ok(Some(st)) = self.child.try_wait() {
                self.status = Some(st);
                self.note(format!("(process exited: {st})"));
                return Some(st);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(1));
        }
    }

    fn stderr_text(&self) -> String {
        let v = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&v).into_owned()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stdin = None;
        if self.status.is_none() {
            // Our own child, by its handle.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// ------------------------------------------------------------------------------------------------
// The model of a session: what the engine's state must be after each command.

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const WALL: u8 = 3;

fn code(c: Color) -> u8 {
    match c {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

fn other(c: Color) -> Color {
    match c {
        Color::Black => Color::White,
        Color::White => Color::Black,
    }
}

/// What kind of search answer a command asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Job {
    Move,
    NBest,
    Defend,
    BalanceOne,
    BalanceTwo,
    Swap2(usize),
}

#[derive(Clone, Debug)]
struct SearchExpect {
    job: Job,
    /// The rule of the board the search runs on.
    rule: Rule,
    /// `timeout_turn` when the command was read.
    turn_ms: u64,
    /// The board was full when the command came: only `ERROR` may answer.
    full: bool,
    /// The tiny-memory `ERROR` must / may come before the move.
    mem_must: bool,
    mem_may: bool,
}

#[derive(Clone, Debug)]
enum Expect {
    Nothing,
    Ok,
    Error,
    Unknown,
    About,
    Forbid(HashSet<(usize, usize)>),
    Echo(usize, usize),
    Message,
    ShowInfo,
    Search(SearchExpect),
    Exit,
}

#[derive(Clone)]
struct Model {
    size: Option<(usize, usize)>,
    cells: Vec<u8>,
    history: Vec<(usize, usize, Color)>,
    side: Color,
    engine: Option<Color>,
    rule: Rule,
    turn_ms: Option<u64>,
    max_memory: u64,
    /// The `max_memory` value the engine has reported as too small (once per value).
    mem_reported: Option<u64>,
    folder: Option<Vec<u8>>,
}

impl Model {
    fn new() -> Model {
        Model {
            size: None,
            cells: Vec::new(),
            history: Vec::new(),
            side: Color::Black,
            engine: None,
            rule: Rule::Freestyle,
            turn_ms: None,
            max_memory: 0,
            mem_reported: None,
            folder: None,
        }
    }

    fn w(&self) -> usize {
        self.size.map_or(0, |s| s.0)
    }
    fn at(&self, x: usize, y: usize) -> u8 {
        self.cells[y * self.w() + x]
    }
    fn set(&mut self, x: usize, y: usize, v: u8) {
        let w = self.w();
        self.cells[y * w + x] = v;
    }
    fn point(&self, x: i64, y: i64) -> Option<(usize, usize)> {
        let (w, h) = self.size?;
        (x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h)
            .then_some((x as usize, y as usize))
    }
    fn empties(&self) -> Vec<(usize, usize)> {
        let w = self.w();
        (0..self.cells.len())
            .filter(|&i| self.cells[i] == EMPTY)
            .map(|i| (i % w, i / w))
            .collect()
    }
    fn is_full(&self) -> bool {
        !self.cells.contains(&EMPTY)
    }

    fn clear(&mut self, w: usize, h: usize) {
        self.size = Some((w, h));
        self.cells = vec![EMPTY; w * h];
        self.history.clear();
        self.side = Color::Black;
        self.engine = None;
    }

    fn play(&mut self, x: usize, y: usize, c: Color) {
        self.set(x, y, code(c));
        self.history.push((x, y, c));
        self.side = other(c);
    }

    /// The library board of the model under `rule` (walls first, then the stones in order).
    fn board(&self, rule: Rule) -> Board {
        let (w, h) = self.size.expect("a started game");
        let mut b = Board::new(w, h, rule).expect("valid size");
        for y in 0..h {
            for x in 0..w {
                if self.at(x, y) == WALL {
                    b.place_wall(Pos::new(x, y));
                }
            }
        }
        for &(x, y, c) in &self.history {
            b.play(Pos::new(x, y), c);
        }
        b
    }

    /// Black's fouls on the empty points under `rule` when black is to move (none outside
    /// renju, none with white to move). The side to move is the model's: a `BOARD` whose
    /// counts do not alternate (10 own stones against 4) gives the move to black even when
    /// its last stone is black's, which a replay of the stones would not.
    fn fouls(&self, rule: Rule) -> HashSet<(usize, usize)> {
        if !rule.has_forbidden() || self.side != Color::Black {
            return HashSet::new();
        }
        let mut b = self.board(rule);
        self.empties()
            .into_iter()
            .filter(|&(x, y)| b.foul(Pos::new(x, y)).is_some())
            .collect()
    }

    /// Whether `c` has any legal point (renju fouls count for black).
    fn has_legal_move(&self, c: Color, rule: Rule) -> bool {
        let empties = self.empties();
        if empties.is_empty() {
            return false;
        }
        if c == Color::White || !rule.has_forbidden() {
            return true;
        }
        let mut b = self.board(rule);
        empties
            .into_iter()
            .any(|(x, y)| b.foul(Pos::new(x, y)).is_none())
    }

    fn search(&mut self, job: Job) -> Expect {
        // The report of a too small max_memory comes once per value, before the next search.
        let mem_must = self.max_memory != 0
            && self.max_memory <= 1 << 20
            && self.mem_reported != Some(self.max_memory);
        let mem_may = self.max_memory != 0
            && self.max_memory < 64 << 20
            && self.mem_reported != Some(self.max_memory);
        if mem_must && !self.is_full() {
            self.mem_reported = Some(self.max_memory);
        }
        Expect::Search(SearchExpect {
            job,
            rule: self.rule,
            turn_ms: self.turn_ms.unwrap_or(5_000),
            full: self.is_full(),
            mem_must,
            mem_may,
        })
    }

    /// Applies a command as the session does, before its answer, and says what must answer it.
    fn apply(&mut self, cmd: &Command) -> Result<Expect, String> {
        let started = self.size.is_some();
        Ok(match cmd {
            Command::Start { width, height } => {
                self.clear(*width, *height);
                Expect::Ok
            }
            Command::Restart => match self.size {
                Some((w, h)) => {
                    self.clear(w, h);
                    Expect::Ok
                }
                None => Expect::Error,
            },
            _ if !started
                && !matches!(
                    cmd,
                    Command::Info { .. }
                        | Command::End
                        | Command::About
                        | Command::Stop
                        | Command::HashClear
                        | Command::ShowInfo
                        | Command::Invalid(_)
                        | Command::Unknown(_)
                ) =>
            {
                Expect::Error
            }
            Command::Begin => {
                if !self.history.is_empty() {
                    Expect::Error
                } else {
                    self.engine = Some(self.side);
                    self.search(Job::Move)
                }
            }
            Command::Turn { x, y } => {
                let engine = self.engine.unwrap_or(other(self.side));
                match self.point(*x, *y) {
                    // The last empty point: no reply is left, so the move is refused whole.
                    Some((x, y)) if self.at(x, y) == EMPTY && self.empties().len() == 1 => {
                        Expect::Error
                    }
                    Some((x, y)) if self.at(x, y) == EMPTY => {
                        self.play(x, y, other(engine));
                        self.side = engine;
                        self.engine = Some(engine);
                        self.search(Job::Move)
                    }
                    _ => Expect::Error,
                }
            }
            Command::Play { x, y } => {
                let side = self.engine.unwrap_or(self.side);
                match self.point(*x, *y) {
                    Some((x, y)) if self.at(x, y) == EMPTY => {
                        self.play(x, y, side);
                        Expect::Echo(x, y)
                    }
                    _ => Expect::Error,
                }
            }
            Command::Takeback { x, y } => {
                let Some((x, y)) = self.point(*x, *y) else {
                    return Ok(Expect::Error);
                };
                let Some(i) = self.history.iter().rposition(|&(a, b, _)| (a, b) == (x, y)) else {
                    return Ok(Expect::Error);
                };
                let (_, _, c) = self.history.remove(i);
                self.set(x, y, EMPTY);
                self.side = if i == self.history.len() {
                    c
                } else {
                    other(self.history.last().expect("later stones").2)
                };
                // The session forgets its colour on TAKEBACK: the next TURN's stone takes the
                // colour whose move it now is (the user may have switched sides).
                self.engine = None;
                Expect::Ok
            }
            Command::Block { kind, stones } => self.block(*kind, stones),
            Command::NBest(_) => {
                self.engine = Some(self.side);
                self.search(Job::NBest)
            }
            Command::SearchDefend => {
                self.engine = Some(self.side);
                self.search(Job::Defend)
            }
            Command::Balance { two, .. } => {
                self.engine = Some(self.side);
                self.search(if *two {
                    Job::BalanceTwo
                } else {
                    Job::BalanceOne
                })
            }
            Command::Info { key, value } => {
                self.info(key, value);
                Expect::Nothing
            }
            Command::End => Expect::Exit,
            Command::About => Expect::About,
            Command::Stop => Expect::Nothing,
            Command::ShowForbid => Expect::Forbid(self.fouls(self.rule)),
            Command::HashClear => Expect::Message,
            Command::ShowInfo => Expect::ShowInfo,
            Command::Invalid(_) => Expect::Error,
            Command::Unknown(_) => Expect::Unknown,
            #[allow(unreachable_patterns)]
            other => return Err(format!("the fuzz model does not know {other:?}")),
        })
    }

    fn block(&mut self, kind: BlockKind, stones: &[Stone]) -> Expect {
        let (w, h) = self.size.expect("started");
        let mut m = self.clone();
        m.clear(w, h);
        if kind == BlockKind::Swap2Board {
            if ![0, 3, 5].contains(&stones.len()) {
                return Expect::Error;
            }
            for s in stones {
                match m.point(s.x, s.y) {
                    Some((x, y)) if m.at(x, y) == EMPTY => {
                        if matches!(s.field, Some(f) if !(1..=2).contains(&f)) {
                            return Expect::Error;
                        }
                        let c = m.side;
                        m.play(x, y, c);
                    }
                    _ => return Expect::Error,
                }
            }
            m.engine = None;
            *self = m;
            return self.search(Job::Swap2(stones.len()));
        }
        let own = stones.iter().filter(|s| s.field == Some(1)).count();
        let opp = stones.iter().filter(|s| s.field == Some(2)).count();
        let own_colour = if opp == own + 1 {
            Color::White
        } else {
            Color::Black
        };
        for s in stones {
            let Some((x, y)) = m.point(s.x, s.y) else {
                return Expect::Error;
            };
            if m.at(x, y) != EMPTY {
                return Expect::Error;
            }
            match s.field {
                Some(1) => m.play(x, y, own_colour),
                Some(2) => m.play(x, y, other(own_colour)),
                Some(3) => m.set(x, y, WALL),
                _ => return Expect::Error,
            }
        }
        m.side = own_colour;
        m.engine = Some(own_colour);
        if kind == BlockKind::Board && m.is_full() {
            // A full position leaves no move: refused whole, the old one stays.
            return Expect::Error;
        }
        *self = m;
        if kind == BlockKind::Board {
            self.search(Job::Move)
        } else {
            Expect::Nothing
        }
    }

    fn info(&mut self, key: &str, value: &[u8]) {
        let text = String::from_utf8_lossy(value);
        let num = text
            .split_ascii_whitespace()
            .next()
            .and_then(|t| t.parse::<i64>().ok());
        match (key, num) {
            ("TIMEOUT_TURN", Some(n)) if n >= 0 => self.turn_ms = Some(n as u64),
            ("MAX_MEMORY", Some(n)) if n >= 0 => self.max_memory = n as u64,
            ("RULE", Some(n)) => {
                if let Some(r) = Rule::from_info(n) {
                    self.rule = r;
                }
            }
            ("FOLDER", _) => self.folder = Some(value.to_vec()),
            _ => {}
        }
    }
}

// ------------------------------------------------------------------------------------------------
// The command generator of an engine session.

struct Gen {
    rng: Rng,
    turn_lo: u64,
    turn_hi: u64,
    cwd: PathBuf,
}

impl Gen {
    fn eol(&mut self) -> &'static [u8] {
        match self.rng.below(10) {
            0..=4 => b"\n",
            5..=8 => b"\r\n",
            _ => b"\r",
        }
    }

    fn turn_ms(&mut self) -> u64 {
        self.turn_lo + self.rng.below((self.turn_hi - self.turn_lo + 1) as usize) as u64
    }

    fn kw(&mut self, s: &str) -> String {
        keyword_case(&mut self.rng, s)
    }

    /// A free point near the stones (or anywhere), if there is one.
    fn free_point(&mut self, m: &Model) -> Option<(usize, usize)> {
        let (w, h) = m.size?;
        if !m.history.is_empty() && self.rng.percent(80) {
            for _ in 0..12 {
                let &(x, y, _) = self.rng.pick(&m.history);
                let nx = x as i64 + self.rng.range(-2, 2);
                let ny = y as i64 + self.rng.range(-2, 2);
                if nx >= 0
                    && ny >= 0
                    && (nx as usize) < w
                    && (ny as usize) < h
                    && m.at(nx as usize, ny as usize) == EMPTY
                {
                    return Some((nx as usize, ny as usize));
                }
            }
        }
        let e = m.empties();
        (!e.is_empty()).then(|| *self.rng.pick(&e))
    }

    fn start_line(&mut self) -> String {
        let n = match self.rng.below(20) {
            0..=5 => 15,
            6..=10 => 20,
            11..=14 => self.rng.range(5, 8),
            _ => self.rng.range(5, 32),
        };
        match self.rng.below(20) {
            0..=13 => format!("{} {n}", self.kw("START")),
            14 => format!("{} {n} {n}", self.kw("START")),
            15 | 16 => {
                let h = self.rng.range(5, 32);
                format!("{} {n},{h}", self.kw("RECTSTART"))
            }
            17 => format!(
                "{} {}",
                self.kw("START"),
                self.rng
                    .pick(&["4", "33", "0", "-15", "1000", "x", "99999999999999999999"])
            ),
            18 => format!(
                "{} {}",
                self.kw("RECTSTART"),
                self.rng.pick(&["4,9", "9", "20,33", "a,b", "15,15,15", ""])
            ),
            _ => self.kw("START"),
        }
    }

    fn info_line(&mut self) -> String {
        let which = self.rng.below(24);
        let turn = self.turn_ms();
        let cwd = self.cwd.clone();
        let r = &mut self.rng;
        let (key, value): (&str, String) = match which {
            0..=3 => (
                "timeout_turn",
                match r.below(12) {
                    0 => "0".into(),
                    1 => "-100".into(),
                    2 => "abc".into(),
                    _ => turn.to_string(),
                },
            ),
            4..=7 => (
                "time_left",
                match r.below(10) {
                    0 => "0".into(),
                    1 => "50".into(),
                    2 => "-100".into(),
                    3 => r.range(-100_000, 300).to_string(),
                    4 => "2147483647".into(),
                    5 => "-9223372036854775808".into(),
                    6 => "9223372036854775807".into(),
                    _ => r.range(1_000, 1_000_000).to_string(),
                },
            ),
            8 | 9 => (
                "max_memory",
                match r.below(10) {
                    0 => "0".into(),
                    1 => "1048576".into(),
                    2 => "1".into(),
                    3 => "25165824".into(),
                    4 => "-1".into(),
                    5 => "9223372036854775807".into(),
                    6 => r.range(0, 1 << 30).to_string(),
                    _ => "367001600".into(),
                },
            ),
            10 => (
                "hash_size",
                match r.below(6) {
                    0 => "0".into(),
                    1 => "-5".into(),
                    _ => r.range(1, 65536).to_string(),
                },
            ),
            11 => (
                "rule",
                r.pick(&[
                    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "12", "16", "-1", "x",
                ])
                .to_string(),
            ),
            12 => (
                "timeout_match",
                match r.below(4) {
                    0 => "0".into(),
                    _ => r.range(1_000, 2_000_000).to_string(),
                },
            ),
            13 => (
                "max_depth",
                r.pick(&["-1", "0", "1", "2", "3", "5", "8", "200", "99999999999"])
                    .to_string(),
            ),
            14 => (
                "max_node",
                r.pick(&["-1", "0", "1", "10", "1000", "50000", "9223372036854775807"])
                    .to_string(),
            ),
            15 => ("game_type", r.range(0, 3).to_string()),
            16 => ("thread_num", r.range(-1, 8).to_string()),
            17 => ("show_detail", r.pick(&["0", "1"]).to_string()),
            18 => ("strength", r.range(-10, 110).to_string()),
            19 => ("seed", number(r)),
            20 => {
                let dir = cwd.join(if r.percent(30) {
                    "my folder"
                } else {
                    "persist"
                });
                ("folder", dir.to_string_lossy().into_owned())
            }
            21 => (
                *r.pick(&[
                    "pondering",
                    "caution_factor",
                    "time_increment",
                    "evaluate",
                    "usedatabase",
                    "vcthread",
                ]),
                number(r),
            ),
            22 => ("x_unknown_key", number(r)),
            _ => ("", String::new()),
        };
        let info = self.kw("INFO");
        let key = random_case(&mut self.rng, key);
        if key.is_empty() {
            info
        } else {
            format!("{info} {key} {value}")
        }
    }

    fn turn_line(&mut self, m: &Model) -> String {
        match self.free_point(m) {
            Some((x, y)) => {
                let comma = *self.rng.pick(&[",", ",", ",", ", "]);
                format!("{} {x}{comma}{y}", self.kw("TURN"))
            }
            None => format!("{} 0,0", self.kw("TURN")),
        }
    }

    fn bad_turn_line(&mut self, m: &Model) -> String {
        let (w, h) = m.size.unwrap_or((15, 15));
        let k = *self.rng.pick(&["TURN", "TURN", "PLAY", "TAKEBACK"]);
        let kw = self.kw(k);
        match self.rng.below(8) {
            0 if !m.history.is_empty() => {
                let &(x, y, _) = self.rng.pick(&m.history);
                format!("{kw} {x},{y}")
            }
            1 => format!("{kw} {w},0"),
            2 => format!("{kw} 0,{h}"),
            3 => format!("{kw} -1,3"),
            4 => format!("{kw} 99999999999999999999,1"),
            5 => format!("{kw} 3"),
            6 => format!("{kw} a,b"),
            _ => format!("{kw} 1,2,3"),
        }
    }

    /// A BOARD / YXBOARD / SWAP2BOARD block: its lines.
    fn block_lines(&mut self, m: &Model, kind: BlockKind) -> Vec<String> {
        let (w, h) = m.size.unwrap_or((15, 15));
        let cells = w * h;
        let mut pts: Vec<(i64, i64)> = Vec::new();
        let mut used = HashSet::new();
        let n = match kind {
            BlockKind::Swap2Board => match self.rng.below(20) {
                0..=5 => 0,
                6..=12 => 3,
                13..=18 => 5,
                _ => self.rng.below(7),
            },
            _ => match self.rng.below(10) {
                0 => 0,
                1..=6 => self.rng.below(16.min(cells - 1)) + 1,
                _ => self.rng.below((cells - 1).min(60)) + 1,
            },
        };
        let (cx, cy) = (w as i64 / 2, h as i64 / 2);
        let mut tries = 0;
        while pts.len() < n && tries < 10_000 {
            tries += 1;
            let (x, y) = if self.rng.percent(60) {
                (cx + self.rng.range(-4, 4), cy + self.rng.range(-4, 4))
            } else {
                (
                    self.rng.range(0, w as i64 - 1),
                    self.rng.range(0, h as i64 - 1),
                )
            };
            if x >= 0 && y >= 0 && x < w as i64 && y < h as i64 && used.insert((x, y)) {
                pts.push((x, y));
            }
        }
        let n = pts.len();
        let mut items: Vec<String> = Vec::new();
        let random_fields = self.rng.percent(15);
        // Play order: black first; the side to move owns field 1.
        let to_move_black = n % 2 == 0;
        for (i, &(x, y)) in pts.iter().enumerate() {
            let black = i % 2 == 0;
            let field = if random_fields {
                1 + self.rng.below(2)
            } else if black == to_move_black {
                1
            } else {
                2
            };
            items.push(match kind {
                BlockKind::Swap2Board if self.rng.percent(75) => format!("{x},{y}"),
                _ => format!("{x},{y},{field}"),
            });
        }
        if kind != BlockKind::Swap2Board && self.rng.percent(10) {
            for _ in 0..1 + self.rng.below(3) {
                let (x, y) = (
                    self.rng.range(0, w as i64 - 1),
                    self.rng.range(0, h as i64 - 1),
                );
                if used.insert((x, y)) {
                    let at = self.rng.below(items.len() + 1);
                    items.insert(at, format!("{x},{y},3"));
                }
            }
        }
        if self.rng.percent(15) && n > 1 {
            // Any order: a shuffle.
            for i in (1..items.len()).rev() {
                let j = self.rng.below(i + 1);
                items.swap(i, j);
            }
        }
        if self.rng.percent(8) {
            let bad = match self.rng.below(7) {
                0 => format!("{w},0,1"),
                1 => format!("0,{h},2"),
                2 => "-1,-1,1".into(),
                3 => items.first().cloned().unwrap_or_else(|| "1,1,9".into()),
                4 => "1,1,0".into(),
                5 => "2,2,4".into(),
                _ => "a,b,c".into(),
            };
            let at = self.rng.below(items.len() + 1);
            items.insert(at, bad);
        }
        let kw = self.kw(match kind {
            BlockKind::Board => "BOARD",
            BlockKind::YxBoard => "YXBOARD",
            BlockKind::Swap2Board => "SWAP2BOARD",
            BlockKind::YxBlock => "YXBLOCK",
            BlockKind::YxBlockUndo => "YXBLOCKUNDO",
            BlockKind::YxBlockPath => "YXBLOCKPATH",
            BlockKind::YxBlockPathUndo => "YXBLOCKPATHUNDO",
            BlockKind::Soosorv { .. } => "YXSOOSORVSTEP2",
            // Not generated: the transcript yixin_database.txt covers them.
            BlockKind::Database { name, .. } => name,
        });
        let done = self.kw("DONE");
        if self.rng.percent(40) {
            let mut l = kw;
            for it in &items {
                l.push(' ');
                l += it;
            }
            l.push(' ');
            l += &done;
            vec![l]
        } else {
            let mut v = vec![kw];
            v.extend(items);
            v.push(done);
            v
        }
    }

    fn takeback_line(&mut self, m: &Model) -> String {
        let kw = self.kw("TAKEBACK");
        let (w, _) = m.size.unwrap_or((15, 15));
        match self.rng.below(20) {
            0..=11 if !m.history.is_empty() => {
                let &(x, y, _) = m.history.last().expect("history");
                format!("{kw} {x},{y}")
            }
            12..=15 if !m.history.is_empty() => {
                let &(x, y, _) = self.rng.pick(&m.history);
                format!("{kw} {x},{y}")
            }
            16 | 17 => match self.free_point(m) {
                Some((x, y)) => format!("{kw} {x},{y}"),
                None => format!("{kw} 0,0"),
            },
            18 => format!("{kw} {w},0"),
            _ => {
                let walls: Vec<usize> =
                    (0..m.cells.len()).filter(|&i| m.cells[i] == WALL).collect();
                match walls.first() {
                    Some(&i) => format!("{kw} {},{}", i % m.w(), i / m.w()),
                    None => format!("{kw} -1,0"),
                }
            }
        }
    }

    fn garbage_line(&mut self) -> Vec<u8> {
        match self.rng.below(5) {
            0 => {
                let mut b = garbage_bytes(&mut self.rng, 200);
                b.retain(|&c| c != b'\n' && c != b'\r');
                // Not a keyword line by chance: a prefix no keyword has.
                let mut v = b"#".to_vec();
                v.extend(b);
                v
            }
            1 => (0..1 + self.rng.below(12))
                .map(|_| b'a' + self.rng.below(26) as u8)
                .chain(std::iter::once(b'q'))
                .collect(),
            2 => self.kw("DONE").into_bytes(),
            3 => {
                let big = 1000 + self.rng.below(40_000);
                let mut v = b"X".to_vec();
                v.extend((0..big).map(|_| b'a' + self.rng.below(26) as u8));
                v
            }
            _ => {
                let k = *self
                    .rng
                    .pick(&["hello", "SUGGEST", "SWAP", "PLAYX", "INFOS"]);
                let mut v = self.kw(k).into_bytes();
                v.extend_from_slice(b" \xff\xfe\x00 7,7");
                v
            }
        }
    }

    /// One command line (without its line end).
    fn line(&mut self, m: &Model) -> Vec<u8> {
        if m.size.is_none() && self.rng.percent(75) {
            return self.start_line().into_bytes();
        }
        let weights = [
            42, // turn
            4,  // bad turn / play / takeback
            6,  // BOARD
            3,  // YXBOARD
            6,  // TAKEBACK
            3,  // BEGIN
            2,  // START
            2,  // RESTART
            12, // INFO
            1,  // ABOUT
            3,  // YXSHOWFORBID
            1,  // YXHASHCLEAR
            1,  // YXSHOWINFO
            2,  // PLAY
            4,  // garbage
            1,  // blank
            2,  // SWAP2BOARD
            3,  // analysis
            1,  // STOP idle
        ];
        match self.rng.weighted(&weights) {
            0 => self.turn_line(m).into_bytes(),
            1 => self.bad_turn_line(m).into_bytes(),
            2 => self
                .block_lines(m, BlockKind::Board)
                .join("\n")
                .into_bytes(),
            3 => self
                .block_lines(m, BlockKind::YxBoard)
                .join("\n")
                .into_bytes(),
            4 => self.takeback_line(m).into_bytes(),
            5 => self.kw("BEGIN").into_bytes(),
            6 => self.start_line().into_bytes(),
            7 => self.kw("RESTART").into_bytes(),
            8 => self.info_line().into_bytes(),
            9 => self.kw("ABOUT").into_bytes(),
            10 => self.kw("YXSHOWFORBID").into_bytes(),
            11 => self.kw("YXHASHCLEAR").into_bytes(),
            12 => self.kw("YXSHOWINFO").into_bytes(),
            13 => match self.free_point(m) {
                Some((x, y)) => format!("{} {x},{y}", self.kw("PLAY")).into_bytes(),
                None => format!("{} 0,0", self.kw("PLAY")).into_bytes(),
            },
            14 => self.garbage_line(),
            15 => blank(&mut self.rng).as_bytes().to_vec(),
            16 => self
                .block_lines(m, BlockKind::Swap2Board)
                .join("\n")
                .into_bytes(),
            17 => match self.rng.below(4) {
                0 => format!("{} {}", self.kw("YXNBEST"), self.rng.range(1, 5)).into_bytes(),
                1 => self.kw("YXSEARCHDEFEND").into_bytes(),
                2 => format!("{} {}", self.kw("YXBALANCEONE"), self.rng.range(-300, 300))
                    .into_bytes(),
                _ => format!("{} {}", self.kw("YXBALANCETWO"), self.rng.range(-300, 300))
                    .into_bytes(),
            },
            _ => {
                let k = *self.rng.pick(&["STOP", "YXSTOP"]);
                self.kw(k).into_bytes()
            }
        }
    }

    /// Joins lines (which may hold `\n` from multi-line blocks) with random line ends.
    fn terminate(&mut self, text: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for part in text.split(|&b| b == b'\n') {
            out.extend_from_slice(part);
            out.extend_from_slice(self.eol());
        }
        out
    }

    /// What to write next: the pieces of one write each, with a pause after each piece.
    fn chunk(&mut self, m: &Model) -> Vec<(Vec<u8>, u64)> {
        match self.rng.below(100) {
            // Several commands in one write. INFO lines go first: an INFO read while a search
            // runs takes effect at once, before the commands queued behind that search, so
            // `TURN; TURN; INFO` would apply the INFO to the second TURN (documented: INFO is
            // served during a search), an order the model does not follow.
            0..=6 => {
                let mut lines: Vec<Vec<u8>> =
                    (0..2 + self.rng.below(2)).map(|_| self.line(m)).collect();
                lines.sort_by_key(|l| !first_token(l).eq("INFO"));
                let mut bytes = Vec::new();
                for l in lines {
                    bytes.extend(self.terminate(&l));
                }
                vec![(bytes, 0)]
            }
            // A move, then INFO / STOP / YXSTOP while it is searched.
            7..=14 if m.size.is_some() => {
                let l = self.turn_line(m);
                let mut bytes = self.terminate(l.as_bytes());
                let mut pieces = Vec::new();
                let split = self.rng.percent(50);
                if split {
                    pieces.push((std::mem::take(&mut bytes), self.rng.below(15) as u64));
                }
                for _ in 0..1 + self.rng.below(2) {
                    let extra = match self.rng.below(4) {
                        0 => {
                            let k = *self.rng.pick(&["STOP", "YXSTOP"]);
                            self.kw(k)
                        }
                        _ => self.info_line(),
                    };
                    bytes.extend(self.terminate(extra.as_bytes()));
                }
                pieces.push((bytes, 0));
                pieces
            }
            // A block abandoned half-way by a command.
            15..=17 if m.size.is_some() => {
                let kind = *self.rng.pick(&[BlockKind::Board, BlockKind::YxBoard]);
                let mut lines = self.block_lines(m, kind);
                if lines.len() == 1 {
                    // A one-line block loses its DONE.
                    let l = lines[0].clone();
                    lines[0] = l.rsplit_once(' ').map_or(l.clone(), |(a, _)| a.to_string());
                } else {
                    lines.pop();
                    let cut = self.rng.below(lines.len()) + 1;
                    lines.truncate(cut);
                }
                let next = self.line(m);
                let mut bytes = self.terminate(lines.join("\n").as_bytes());
                bytes.extend(self.terminate(&next));
                vec![(bytes, 0)]
            }
            // One command split over two writes.
            18..=21 => {
                let l = self.line(m);
                let bytes = self.terminate(&l);
                let at = self.rng.below(bytes.len() + 1);
                vec![
                    (bytes[..at].to_vec(), self.rng.below(12) as u64),
                    (bytes[at..].to_vec(), 0),
                ]
            }
            _ => {
                let l = self.line(m);
                vec![(self.terminate(&l), 0)]
            }
        }
    }
}

/// The lines the engine's reader makes of a byte stream (split at CR and LF, blank lines
/// dropped), each with the offset of its line end.
fn reader_lines(bytes: &[u8]) -> Vec<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' || b == b'\r' {
            let l = &bytes[start..i];
            if l.iter().any(|c| !c.is_ascii_whitespace()) {
                out.push((l.to_vec(), i));
            }
            start = i + 1;
        }
    }
    if bytes[start..].iter().any(|c| !c.is_ascii_whitespace()) {
        out.push((bytes[start..].to_vec(), bytes.len()));
    }
    out
}

// ------------------------------------------------------------------------------------------------
// One engine session.

#[derive(Default, Clone)]
struct SessionStats {
    lines_sent: u64,
    commands: u64,
    searches: u64,
    moves: u64,
    errors: u64,
    unknowns: u64,
    oks: u64,
    messages: u64,
    swaps: u64,
    renju_black_moves: u64,
    full_board_errors: u64,
    fallbacks: u64,
    /// Slowest search answer: (ms, timeout_turn ms, what was asked).
    slowest_search: (u64, u64, String),
    /// Slowest answer per job kind: (kind, ms, timeout_turn ms).
    slowest_by_job: Vec<(String, u64, u64)>,
    /// Largest (answer ms - timeout_turn ms).
    worst_overrun: i64,
    /// Slowest non-search answer in ms.
    slowest_other: u64,
    exits: u64,
}

impl SessionStats {
    /// Keeps the slowest answer of each job kind.
    fn note_job(&mut self, kind: &str, ms: u64, turn: u64) {
        match self.slowest_by_job.iter_mut().find(|e| e.0 == kind) {
            Some(e) if ms > e.1 => {
                e.1 = ms;
                e.2 = turn;
            }
            Some(_) => {}
            None => self.slowest_by_job.push((kind.to_string(), ms, turn)),
        }
    }

    fn add(&mut self, o: &SessionStats) {
        self.lines_sent += o.lines_sent;
        self.commands += o.commands;
        self.searches += o.searches;
        self.moves += o.moves;
        self.errors += o.errors;
        self.unknowns += o.unknowns;
        self.oks += o.oks;
        self.messages += o.messages;
        self.swaps += o.swaps;
        self.renju_black_moves += o.renju_black_moves;
        self.full_board_errors += o.full_board_errors;
        self.fallbacks += o.fallbacks;
        if o.slowest_search.0 > self.slowest_search.0 {
            self.slowest_search = o.slowest_search.clone();
        }
        for (k, ms, t) in &o.slowest_by_job {
            self.note_job(k, *ms, *t);
        }
        self.worst_overrun = self.worst_overrun.max(o.worst_overrun);
        self.slowest_other = self.slowest_other.max(o.slowest_other);
        self.exits += o.exits;
    }
}

struct Config {
    tolerance_ms: u64,
    turn_lo: u64,
    turn_hi: u64,
}

struct Session<'a> {
    seed: u64,
    gen: Gen,
    engine: Engine,
    model: Model,
    parser: Parser,
    st: SessionStats,
    cfg: &'a Config,
    cwd: PathBuf,
    /// When the last answer came (answers queued behind a search come after it).
    last_answer: Instant,
}

fn is_message(s: &str) -> bool {
    ["MESSAGE", "DEBUG"]
        .iter()
        .any(|p| s == *p || (s.starts_with(p) && s[p.len()..].starts_with(' ')))
}

/// `x,y`: two unsigned integers and nothing else.
fn parse_point(s: &str) -> Option<(usize, usize)> {
    let (a, b) = s.split_once(',')?;
    let ok = |t: &str| !t.is_empty() && t.len() <= 4 && t.bytes().all(|c| c.is_ascii_digit());
    if !ok(a) || !ok(b) {
        return None;
    }
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Every line the engine may ever print (protocol.md §4 and §11b).
fn allowed_line(s: &str) -> bool {
    if s.is_empty() || !printable_line(s) {
        return false;
    }
    s == "OK"
        || s == "SWAP"
        || is_message(s)
        || s == "ERROR"
        || s.starts_with("ERROR ")
        || s == "UNKNOWN"
        || s.starts_with("UNKNOWN ")
        || s.starts_with("FORBID ")
        || s.starts_with("name=")
        || s.split(' ').all(|t| parse_point(t).is_some())
}

impl<'a> Session<'a> {
    fn new(seed: u64, cfg: &'a Config) -> Result<Session<'a>, String> {
        let cwd = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-cwd-{seed:016x}"));
        let _ = std::fs::remove_dir_all(&cwd);
        std::fs::create_dir_all(&cwd).map_err(|e| format!("create {}: {e}", cwd.display()))?;
        let engine = Engine::spawn(&cwd)?;
        Ok(Session {
            seed,
            gen: Gen {
                rng: Rng::new(seed),
                turn_lo: cfg.turn_lo,
                turn_hi: cfg.turn_hi,
                cwd: cwd.clone(),
            },
            engine,
            model: Model::new(),
            parser: Parser::default(),
            st: SessionStats::default(),
            cfg,
            cwd,
            last_answer: Instant::now(),
        })
    }

    /// The next line of an answer, checked against the lines the engine may print at all.
    fn line(&mut self, deadline: Instant, what: &str) -> Result<(String, Instant), String> {
        match self.engine.next(deadline)? {
            None => Err(format!(
                "no answer to {what} within {} ms (hang?)",
                deadline
                    .saturating_duration_since(self.last_answer)
                    .as_millis()
            )),
            Some((s, t)) => {
                if !allowed_line(&s) {
                    return Err(format!("line `{s}` is no protocol output"));
                }
                Ok((s, t))
            }
        }
    }

    /// Lines the engine printed while nothing was asked.
    fn no_unsolicited(&mut self) -> Result<(), String> {
        if let Some(s) = self.engine.try_next()? {
            return Err(format!("unsolicited output `{s}`"));
        }
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.engine.write(bytes)
    }

    fn check_answer(&mut self, exp: Expect, sent: Instant) -> Result<(), String> {
        let base = sent.max(self.last_answer);
        let tol = Duration::from_millis(self.cfg.tolerance_ms);
        let deadline = base + tol;
        let (line, t) = match &exp {
            Expect::Nothing | Expect::Exit => return Ok(()),
            Expect::Search(s) => return self.search_answer(s.clone(), sent),
            _ => self.line(deadline, &format!("{exp:?}"))?,
        };
        self.last_answer = t;
        let ms = t.saturating_duration_since(base).as_millis() as u64;
        self.st.slowest_other = self.st.slowest_other.max(ms);
        let ok = match &exp {
            Expect::Ok => {
                self.st.oks += 1;
                line == "OK"
            }
            Expect::Error => {
                self.st.errors += 1;
                line == "ERROR" || line.starts_with("ERROR ")
            }
            Expect::Unknown => {
                self.st.unknowns += 1;
                line.starts_with("UNKNOWN")
            }
            Expect::About => line.starts_with("name=\"Tengen\""),
            Expect::Echo(x, y) => line == format!("{x},{y}"),
            Expect::Message => line.starts_with("MESSAGE "),
            Expect::ShowInfo => {
                let mut ok = line.starts_with("MESSAGE ");
                for _ in 0..2 {
                    let (l, t) = self.line(deadline, "YXSHOWINFO")?;
                    self.last_answer = t;
                    ok &= l.starts_with("MESSAGE ");
                }
                ok
            }
            Expect::Forbid(want) => {
                let got =
                    parse_forbid(&line).ok_or_else(|| format!("`{line}` is not a FORBID line"))?;
                if &got != want {
                    let mut extra: Vec<_> = got.difference(want).collect();
                    let mut missing: Vec<_> = want.difference(&got).collect();
                    extra.sort();
                    missing.sort();
                    return Err(format!(
                        "YXSHOWFORBID `{line}` differs from the model's fouls under {:?}: extra {extra:?}, missing {missing:?}\n{}",
                        self.model.rule,
                        self.model.board(self.model.rule).render()
                    ));
                }
                true
            }
            _ => unreachable!(),
        };
        if !ok {
            return Err(format!("expected {exp:?}, got `{line}`"));
        }
        Ok(())
    }

    /// The answer to a search command: MESSAGE lines, maybe the tiny-memory ERROR, then the move
    /// (or moves, or SWAP), or an ERROR when no move is possible.
    fn search_answer(&mut self, s: SearchExpect, sent: Instant) -> Result<(), String> {
        self.st.searches += 1;
        let limit = s.turn_ms + self.cfg.tolerance_ms;
        let deadline = sent + Duration::from_millis(limit);
        let me = self.model.side;
        let mut saw_mem = false;
        let what = format!("{:?} (timeout_turn {} ms)", s.job, s.turn_ms);
        loop {
            let (line, t) = self.line(deadline, &what)?;
            self.last_answer = t;
            if is_message(&line) {
                self.st.messages += 1;
                if line.contains("max_memory") && s.mem_may && !s.full {
                    saw_mem = true;
                }
                continue;
            }
            let ms = t.saturating_duration_since(sent).as_millis() as u64;
            if line == "ERROR" || line.starts_with("ERROR ") {
                self.st.errors += 1;
                if s.full {
                    self.st.full_board_errors += 1;
                    return Ok(());
                }
                if !self.model.has_legal_move(me, s.rule) {
                    self.st.full_board_errors += 1;
                    return Ok(());
                }
                // YXBALANCETWO places two stones: one empty point is not enough.
                if s.job == Job::BalanceTwo && self.model.empties().len() < 2 {
                    self.st.full_board_errors += 1;
                    return Ok(());
                }
                return Err(format!(
                    "`{line}` instead of an answer to {what}; the model has legal moves for {me:?}"
                ));
            }
            if s.full {
                return Err(format!("`{line}` on a full board: expected ERROR"));
            }
            if s.mem_must && !saw_mem {
                return Err(format!(
                    "no MESSAGE about max_memory before the move with max_memory {}",
                    self.model.max_memory
                ));
            }
            if ms > self.st.slowest_search.0 {
                self.st.slowest_search = (ms, s.turn_ms, format!("{:?}", s.job));
            }
            let kind = match s.job {
                Job::Swap2(_) => "Swap2".to_string(),
                j => format!("{j:?}"),
            };
            self.st.note_job(&kind, ms, s.turn_ms);
            self.st.worst_overrun = self.st.worst_overrun.max(ms as i64 - s.turn_ms as i64);
            let points: Vec<(usize, usize)> = if line == "SWAP" {
                Vec::new()
            } else {
                line.split(' ')
                    .map(|t| parse_point(t).ok_or(format!("`{line}` is not a move answer")))
                    .collect::<Result<_, _>>()?
            };
            let allowed: &[usize] = match s.job {
                Job::Move | Job::NBest | Job::Defend | Job::BalanceOne => &[1],
                Job::BalanceTwo => &[1, 2],
                Job::Swap2(0) => &[3],
                Job::Swap2(3) => &[0, 1, 2],
                Job::Swap2(_) => &[0, 1],
            };
            if !allowed.contains(&points.len()) {
                return Err(format!(
                    "`{line}` answers {what} with {} points (allowed {allowed:?}, 0 = SWAP)",
                    points.len()
                ));
            }
            for &(x, y) in &points {
                let c = self.model.side;
                if self.model.point(x as i64, y as i64).is_none() {
                    return Err(format!(
                        "move {x},{y} is off the {:?} board",
                        self.model.size
                    ));
                }
                if self.model.at(x, y) != EMPTY {
                    return Err(format!(
                        "move {x},{y} is on an occupied point (model cell {})\n{}",
                        self.model.at(x, y),
                        self.model.board(s.rule).render()
                    ));
                }
                if c == Color::Black && s.rule.has_forbidden() {
                    self.st.renju_black_moves += 1;
                    let mut b = self.model.board(s.rule);
                    if let Some(f) = b.foul(Pos::new(x, y)) {
                        return Err(format!(
                            "black move {x},{y} is a renju foul ({})\n{}",
                            f.name(),
                            b.render()
                        ));
                    }
                }
                self.model.play(x, y, c);
                self.st.moves += 1;
            }
            match (s.job, points.len()) {
                (Job::Swap2(_), 0) => {
                    self.st.swaps += 1;
                    self.model.engine = Some(other(me));
                }
                (Job::Swap2(_), 1) => self.model.engine = Some(me),
                (Job::Swap2(_), _) => self.model.engine = None,
                (Job::Move, _) => {}
                _ => self.model.engine = Some(me),
            }
            return Ok(());
        }
    }

    fn fail(&self, step: usize, msg: &str) -> String {
        let log: Vec<String> = self.engine.log.iter().cloned().collect();
        let from = log.len().saturating_sub(30);
        let mut out = format!(
            "engine fuzz failure in session seed {:#x}, command {step}: {msg}\n    recent I/O:\n",
            self.seed
        );
        for l in &log[from..] {
            let _ = writeln!(out, "      {l}");
        }
        let err = self.engine.stderr_text();
        let tail: Vec<&str> = err.lines().collect();
        let t0 = tail.len().saturating_sub(10);
        if !tail.is_empty() {
            let _ = writeln!(out, "    stderr (tail):");
            for l in &tail[t0..] {
                let _ = writeln!(out, "      {}", shorten(l, 300));
            }
        }
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("fuzz-fail-{:016x}.log", self.seed));
        let mut full = out.clone();
        full.push_str("\n    whole I/O log (last 5000 lines):\n");
        for l in &log {
            let _ = writeln!(full, "      {l}");
        }
        full.push_str("\n    stderr:\n");
        full.push_str(&err);
        if std::fs::write(&path, full).is_ok() {
            let _ = writeln!(out, "    whole log: {}", path.display());
        }
        let _ = writeln!(
            out,
            "    repeat this session: TENGEN_FUZZ_SEED={:#x} TENGEN_FUZZ_COMMANDS={} TENGEN_FUZZ_SESSION={} TENGEN_FUZZ_JOBS=1 cargo test --release --test fuzz engine_fuzz -- --nocapture",
            self.seed,
            self.st.lines_sent + 20,
            self.st.lines_sent + 20
        );
        out
    }

    /// Sends the lines, applies the commands the engine reads from them to the model and checks
    /// every answer. `Ok(true)`: the engine was told to exit.
    fn exchange(&mut self, pieces: &[(Vec<u8>, u64)]) -> Result<bool, String> {
        self.no_unsolicited()?;
        let mut all = Vec::new();
        // When each piece was written: a line's clock starts when its line end arrives.
        let mut written: Vec<(usize, Instant)> = Vec::new();
        for (bytes, pause) in pieces {
            self.write(bytes)?;
            all.extend_from_slice(bytes);
            written.push((all.len(), Instant::now()));
            if *pause > 0 {
                thread::sleep(Duration::from_millis(*pause));
            }
        }
        for (line, end) in reader_lines(&all) {
            let sent = written
                .iter()
                .find(|&&(upto, _)| end < upto)
                .map_or_else(Instant::now, |&(_, t)| t);
            self.st.lines_sent += 1;
            for cmd in self.parser.feed(&line) {
                self.st.commands += 1;
                let exp = self.model.apply(&cmd)?;
                if let Expect::Exit = exp {
                    self.expect_exit(None)?;
                    return Ok(true);
                }
                self.check_answer(exp, sent)?;
            }
        }
        Ok(false)
    }

    /// After `END` (or end of input): the process must exit at once with status 0 and print
    /// nothing more, except the answer to a search that was still running (`pending`).
    fn expect_exit(&mut self, pending: Option<SearchExpect>) -> Result<(), String> {
        let deadline = Instant::now()
            + Duration::from_millis(
                1000 + pending
                    .as_ref()
                    .map_or(0, |s| s.turn_ms + self.cfg.tolerance_ms),
            );
        loop {
            match self.engine.next(deadline) {
                Ok(Some((l, _))) => {
                    if is_message(&l) {
                        continue;
                    }
                    match (&pending, parse_point(&l)) {
                        (Some(_), Some((x, y)))
                            if self.model.point(x as i64, y as i64).is_some()
                                && self.model.at(x, y) == EMPTY =>
                        {
                            continue
                        }
                        _ => return Err(format!("output `{l}` after END / end of input")),
                    }
                }
                Ok(None) => {
                    return Err("the engine did not exit within 1 s of END / end of input".into())
                }
                Err(_) => break,
            }
        }
        match self.engine.wait_exit(deadline + Duration::from_millis(500)) {
            Some(st) if st.success() => {
                self.st.exits += 1;
                Ok(())
            }
            Some(st) => Err(format!("exit status {st} after END / end of input")),
            None => Err("stdout closed but the process did not exit".into()),
        }
    }

    /// Files the engine created in its working directory (anything but `INFO folder` paths).
    fn files_written(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![self.cwd.clone()];
        while let Some(d) = stack.pop() {
            if let Ok(rd) = std::fs::read_dir(&d) {
                for e in rd.flatten() {
                    let p = e.path();
                    out.push(p.display().to_string());
                    if p.is_dir() {
                        stack.push(p);
                    }
                }
            }
        }
        out
    }

    fn run(&mut self, commands: u64) -> Result<(), (usize, String)> {
        // Every session starts with a turn limit, so the clock checks have a limit to check.
        let t = self.gen.turn_ms();
        let rule = *self.gen.rng.pick(&[0, 1, 2, 4, 4, 4, 8, 9]);
        let mut first = format!("INFO timeout_turn {t}\nINFO rule {rule}\n");
        if self.gen.rng.percent(70) {
            first += "INFO max_memory 367001600\n";
        }
        self.exchange(&[(first.into_bytes(), 0)])
            .map_err(|e| (0, e))?;
        let mut step = 1usize;
        while (self.st.lines_sent) < commands {
            let pieces = self.gen.chunk(&self.model);
            match self.exchange(&pieces) {
                Ok(true) => return self.finish(step, true),
                Ok(false) => {}
                Err(e) => return Err((step, e)),
            }
            step += 1;
        }
        self.finish(step, false)
    }

    fn finish(&mut self, step: usize, exited: bool) -> Result<(), (usize, String)> {
        let r = (|| -> Result<(), String> {
            if !exited {
                thread::sleep(Duration::from_millis(60));
                self.no_unsolicited()?;
                let how = self.gen.rng.below(10);
                if how >= 6 && self.parser.in_block() {
                    // Close the block a chunk left open (an abandoned block) first.
                    if self.exchange(&[(b"DONE\n".to_vec(), 0)])? {
                        return Err("DONE made the engine exit".into());
                    }
                }
                if how < 6 || self.model.size.is_none() {
                    // Through the model: END inside an open block first reports the block.
                    let end = format!("{}\n", self.gen.kw("END"));
                    if !self.exchange(&[(end.into_bytes(), 0)])? {
                        return Err("END was not read as END".into());
                    }
                } else if how < 8 {
                    self.engine.close_stdin();
                    self.expect_exit(None)?;
                } else {
                    // A move asked for, then END (exit at once, the move optional) or end of
                    // input (the move must come, then the exit).
                    let turn = self.gen.turn_line(&self.model);
                    let cmds = self.parser.feed(turn.as_bytes());
                    let exp = match cmds.first() {
                        Some(c) => self.model.apply(c)?,
                        None => Expect::Nothing,
                    };
                    if how == 8 {
                        self.write(format!("{turn}\nEND\n").as_bytes())?;
                        let sent = Instant::now();
                        match exp {
                            Expect::Search(s) if !s.full => self.expect_exit(Some(s))?,
                            other => {
                                self.check_answer(other, sent)?;
                                self.expect_exit(None)?;
                            }
                        }
                    } else {
                        self.write(format!("{turn}\n").as_bytes())?;
                        let sent = Instant::now();
                        self.engine.close_stdin();
                        self.check_answer(exp, sent)?;
                        self.expect_exit(None)?;
                    }
                }
            }
            let err = self.engine.stderr_text();
            if let Some(l) = err.lines().find(|l| l.contains("panicked")) {
                return Err(format!("a panic on stderr: {l}"));
            }
            self.st.fallbacks += err.lines().filter(|l| l.contains("falling back")).count() as u64;
            let files: Vec<String> = self
                .files_written()
                .into_iter()
                .filter(|f| !f.contains("/persist") && !f.contains("/my folder"))
                .collect();
            if !files.is_empty() {
                return Err(format!(
                    "the engine wrote to its working directory: {files:?}"
                ));
            }
            Ok(())
        })();
        r.map_err(|e| (step, e))
    }
}

fn parse_forbid(line: &str) -> Option<HashSet<(usize, usize)>> {
    let body = line.strip_prefix("FORBID ")?.strip_suffix('.')?;
    if body.len() % 4 != 0 || !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(
        (0..body.len() / 4)
            .map(|i| {
                let g = &body[4 * i..4 * i + 4];
                (g[..2].parse().unwrap(), g[2..].parse().unwrap())
            })
            .collect(),
    )
}

fn turn_range() -> (u64, u64) {
    match std::env::var("TENGEN_FUZZ_TURN_MS") {
        Ok(v) if !v.trim().is_empty() => {
            let v = v.trim();
            let (a, b) = v.split_once('-').unwrap_or((v, v));
            let lo: u64 = a.trim().parse().expect("TENGEN_FUZZ_TURN_MS=lo-hi");
            let hi: u64 = b.trim().parse().expect("TENGEN_FUZZ_TURN_MS=lo-hi");
            (lo.min(hi), lo.max(hi))
        }
        _ => (20, 100),
    }
}

#[test]
fn engine_fuzz() {
    let base = seed();
    let total = env_u64("TENGEN_FUZZ_COMMANDS", DEFAULT_COMMANDS);
    let per = env_u64("TENGEN_FUZZ_SESSION", DEFAULT_SESSION).max(1);
    let jobs = env_u64("TENGEN_FUZZ_JOBS", 2).max(1) as usize;
    let (turn_lo, turn_hi) = turn_range();
    let cfg = Arc::new(Config {
        tolerance_ms: env_u64("TENGEN_FUZZ_TOLERANCE_MS", 1000),
        turn_lo,
        turn_hi,
    });
    let sessions = total.div_ceil(per) as usize;
    let next = Arc::new(AtomicUsize::new(0));
    let results: Arc<Mutex<Vec<Result<SessionStats, String>>>> = Arc::new(Mutex::new(Vec::new()));
    let t0 = Instant::now();
    let handles: Vec<_> = (0..jobs.min(sessions))
        .map(|_| {
            let (next, results, cfg) = (next.clone(), results.clone(), cfg.clone());
            thread::spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= sessions {
                    break;
                }
                // With one session, the seed is the base seed itself (so a printed session
                // seed repeats that session).
                let s = if sessions == 1 {
                    base
                } else {
                    splitmix(base.wrapping_add(i as u64))
                };
                let n = per.min(total - per * i as u64);
                let r = match Session::new(s, &cfg) {
                    Ok(mut sess) => match sess.run(n) {
                        Ok(()) => {
                            let _ = std::fs::remove_dir_all(&sess.cwd);
                            Ok(sess.st.clone())
                        }
                        Err((step, e)) => Err(sess.fail(step, &e)),
                    },
                    Err(e) => Err(format!("session seed {s:#x}: {e}")),
                };
                let failed = r.is_err();
                results.lock().unwrap_or_else(|e| e.into_inner()).push(r);
                if failed {
                    // Stop giving out sessions: one failure is enough to look at.
                    next.store(sessions, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("session thread");
    }
    let secs = t0.elapsed().as_secs_f64();
    let results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    let mut st = SessionStats::default();
    let mut failures = Vec::new();
    let mut done = 0;
    for r in results {
        match r {
            Ok(s) => {
                st.add(&s);
                done += 1;
            }
            Err(e) => failures.push(e),
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "engine fuzz: {done} sessions, {} lines sent ({} commands), {} searches answered ({} stones checked, {} renju black moves checked, {} SWAP, {} ERROR for a full board / no legal move), {} ERROR, {} UNKNOWN, {} OK, {} MESSAGE lines, {} clean exits, {} search fallbacks logged; slowest search answer {} ms at timeout_turn {} ms ({}) (worst overrun {} ms, tolerance {} ms), slowest other answer {} ms; {:.1} s = {:.0} lines/s; timeout_turn {}-{} ms, {jobs} sessions at once, seed {base:#x}, load {}",
        st.lines_sent,
        st.commands,
        st.searches,
        st.moves,
        st.renju_black_moves,
        st.swaps,
        st.full_board_errors,
        st.errors,
        st.unknowns,
        st.oks,
        st.messages,
        st.exits,
        st.fallbacks,
        st.slowest_search.0,
        st.slowest_search.1,
        st.slowest_search.2,
        st.worst_overrun,
        cfg.tolerance_ms,
        st.slowest_other,
        secs,
        st.lines_sent as f64 / secs,
        cfg.turn_lo,
        cfg.turn_hi,
        load.trim()
    );
    let mut jobs_line = String::from("engine fuzz: slowest answer per job:");
    for (k, ms, t) in &st.slowest_by_job {
        let _ = write!(jobs_line, " {k} {ms} ms (timeout_turn {t});");
    }
    println!("{jobs_line}");
    if !failures.is_empty() {
        panic!("{}", failures.join("\n\n"));
    }
}
