//! Parsing protocol lines into commands. Keywords are case-insensitive; `BOARD`, `YXBOARD` and
//! `SWAP2BOARD` blocks are collected until `DONE` whether they come on one line or many.

/// One stone of a position block: `x,y,field` (`field` absent in `SWAP2BOARD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stone {
    pub x: i64,
    pub y: i64,
    pub field: Option<i64>,
}

/// Which block a stone list came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// `BOARD`: set the position and move.
    Board,
    /// `YXBOARD`: set the position only.
    YxBoard,
    /// `SWAP2BOARD`: the Swap2 opening stones.
    Swap2Board,
    /// `YXBLOCK`: points the engine must not play (Yixin-Board), `x,y` each.
    YxBlock,
    /// `YXBLOCKUNDO`: points taken off that list.
    YxBlockUndo,
    /// `YXBLOCKPATH`: a line of moves from the empty board (Yixin-Board sends the game's moves,
    /// then the continuation to block); its last move is not to be played from the position
    /// before it.
    YxBlockPath,
    /// `YXBLOCKPATHUNDO`: such a line taken off the list.
    YxBlockPathUndo,
    /// `YXSOOSORVSTEP2` .. `YXSOOSORVSTEP6` (Yixin-Board's Soosorv opening): the moves so far in
    /// the order played, `x,y` each; `n` is the number of fifth-move offers (steps 4 and 5
    /// carry it, 0 elsewhere).
    Soosorv { step: u8, n: usize },
    /// Yixin-Board's position-database commands (`YXQUERYDATABASEALL`, `YXSETBESTMOVEDATABASE`
    /// …): the game's moves, `x,y` each. Tengen keeps no database, so a query (`query`) finds
    /// nothing and answers nothing, and a change is refused.
    Database { name: &'static str, query: bool },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Start {
        width: usize,
        height: usize,
    },
    Restart,
    Begin,
    Turn {
        x: i64,
        y: i64,
    },
    Play {
        x: i64,
        y: i64,
    },
    Takeback {
        x: i64,
        y: i64,
    },
    Block {
        kind: BlockKind,
        stones: Vec<Stone>,
    },
    /// `INFO key value`: the key upper-cased, the value the raw rest of the line.
    Info {
        key: String,
        value: Vec<u8>,
    },
    End,
    About,
    Stop,
    ShowForbid,
    HashClear,
    /// `YXSHOWHASHUSAGE`: how full the transposition table is.
    HashUsage,
    /// `YXBLOCKRESET`: empty the list of points the engine must not play.
    BlockReset,
    /// `YXBLOCKPATHRESET`: empty the list of blocked lines.
    BlockPathReset,
    ShowInfo,
    /// `YXNBEST n`: the `n` best moves, then the best as the reply.
    NBest(usize),
    /// `YXSEARCHDEFEND`: every move that does not lose, then the best as the reply.
    SearchDefend,
    /// `YXBALANCEONE b` / `YXBALANCETWO b`: the move (or pair of moves) after which the
    /// evaluation for the side to move is closest to `bias`.
    Balance {
        two: bool,
        bias: i32,
    },
    /// `YXSWAP2STEP1..3` (Yixin-Board's Swap2 opening): 1 = put the three opening stones on an
    /// empty board, 2 = choose after three stones (swap, stay white, or add two), 3 = choose the
    /// colour after five. Steps 2 and 3 use the position set by `YXBOARD`.
    Swap2Step(u8),
    /// `YXSOOSORVSTEP1`: the three opening stones of a Soosorv opening on an empty board.
    SoosorvOpening,
    /// A known command with bad arguments: answered `ERROR <text>`.
    Invalid(String),
    /// Not a command we know: answered `UNKNOWN <text>`.
    Unknown(String),
}

/// The answer to a path command: hash-table files and databases are not kept.
fn refuse_path(name: &str, path: &str) -> Command {
    let what = if name.starts_with("YXHASH") {
        "Tengen keeps no hash-table files"
    } else {
        NO_DATABASE
    };
    Command::Invalid(format!("{name} '{}': {what}", clip(path.trim())))
}

/// Splits `bytes` into its first whitespace-separated token and the rest (leading blanks cut).
fn split_token(bytes: &[u8]) -> (&[u8], &[u8]) {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let bytes = &bytes[start..];
    let end = bytes
        .iter()
        .position(|b| b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let rest = &bytes[end..];
    let rest_start = rest
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    (&bytes[..end], &rest[rest_start..])
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    &bytes[..end]
}

/// The upper-cased keyword of a line (empty for a blank line).
pub fn keyword(line: &[u8]) -> String {
    String::from_utf8_lossy(split_token(line).0).to_ascii_uppercase()
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() || s.len() > 18 {
        return None;
    }
    s.parse().ok()
}

/// The blank-separated tokens of an `x,y` argument joined back into one, when every blank
/// between them touches the comma (`7, 8`, `7 ,8`, `7 , 8`); `None` when a blank separates two
/// parts of a number or a stray token (`1,1 5` is not `1,15`).
fn joined_xy(args: &[&str]) -> Option<String> {
    args.windows(2)
        .all(|w| w[0].ends_with(',') || w[1].starts_with(','))
        .then(|| args.concat())
}

/// `x,y` (also tolerating blanks around the comma).
fn parse_xy(s: &str) -> Option<(i64, i64)> {
    let mut it = s.split(',');
    let x = parse_int(it.next()?)?;
    let y = parse_int(it.next()?)?;
    if it.next().is_some() {
        return None;
    }
    Some((x, y))
}

fn parse_stone(token: &str) -> Option<Stone> {
    let parts: Vec<&str> = token.split(',').collect();
    match parts.as_slice() {
        [x, y] => Some(Stone {
            x: parse_int(x)?,
            y: parse_int(y)?,
            field: None,
        }),
        [x, y, f] => Some(Stone {
            x: parse_int(x)?,
            y: parse_int(y)?,
            field: Some(parse_int(f)?),
        }),
        _ => None,
    }
}

/// Keywords that end an unfinished block: a manager that sends one of these has given up on it.
const COMMAND_WORDS: &[&str] = &[
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
    "YXSHOWHASHUSAGE",
    "YXHASHDUMP",
    "YXHASHLOAD",
    "YXSETDATABASE",
    "YXDBTOPOS",
    "YXDBTOTXT",
    "YXTXTTODB",
    "YXDBCHECK",
    "YXDBFIX",
    "YXQUERYDATABASEALL",
    "YXQUERYDATABASEONE",
    "YXSETBESTMOVEDATABASE",
    "YXCLEARBESTMOVEDATABASE",
    "YXDELETEDATABASEONE",
    "YXDELETEDATABASEALL",
    "YXEDITLABELDATABASE",
    "YXEDITTVDDATABASE",
];

/// Yixin-Board's commands that take a file path, which it sends on the next line.
const PATH_COMMANDS: [&str; 6] = [
    "YXHASHDUMP",
    "YXHASHLOAD",
    "YXSETDATABASE",
    "YXDBTOPOS",
    "YXDBTOTXT",
    "YXTXTTODB",
];

/// Yixin-Board's database commands followed by the game's moves and `DONE`, and whether each
/// only reads the database.
const DATABASE_BLOCKS: [(&str, bool); 8] = [
    ("YXQUERYDATABASEALL", true),
    ("YXQUERYDATABASEONE", true),
    ("YXSETBESTMOVEDATABASE", false),
    ("YXCLEARBESTMOVEDATABASE", false),
    ("YXDELETEDATABASEONE", false),
    ("YXDELETEDATABASEALL", false),
    ("YXEDITLABELDATABASE", false),
    ("YXEDITTVDDATABASE", false),
];

/// Why a database command is refused.
const NO_DATABASE: &str = "Tengen keeps no position database";

/// The most fifth-move offers a Soosorv opening may ask for (Yixin-Board allows 1 to 8; a few
/// more are accepted, as other rule variants use them).
pub const MAX_OFFERS: usize = 16;

/// Stones a block may list: twice the largest board's cells (a longer block is a broken one).
const MAX_BLOCK_STONES: usize = 32 * 32 * 2;

struct OpenBlock {
    kind: BlockKind,
    stones: Vec<Stone>,
    error: Option<String>,
}

/// Turns lines into commands, holding a block open across lines.
#[derive(Default)]
pub struct Parser {
    block: Option<OpenBlock>,
    /// What followed `DONE` on its line: a command of its own (token-reading engines such as
    /// Rapfi read it so too).
    after_done: Option<String>,
    /// A path command whose path is expected on the next line (Yixin-Board sends it so).
    path_for: Option<&'static str>,
}

impl Parser {
    pub fn in_block(&self) -> bool {
        self.block.is_some()
    }

    /// What followed the `DONE` that closed a block on the last line fed: the caller feeds it
    /// as a line of its own once the block's command has run (it may start a search, behind
    /// which the rest must wait).
    pub fn take_rest(&mut self) -> Option<String> {
        self.after_done.take()
    }

    /// Feeds one line; returns the commands it completes (at most two: an abandoned block's error
    /// and the command that interrupted it). A block closed by `DONE` ends the line's commands:
    /// what follows is left for [`Parser::take_rest`].
    pub fn feed(&mut self, line: &[u8]) -> Vec<Command> {
        let mut out = Vec::new();
        if let Some(name) = self.path_for.take() {
            let kw = keyword(line);
            if kw.is_empty() {
                self.path_for = Some(name);
                return out;
            }
            if !COMMAND_WORDS.contains(&kw.as_str()) {
                out.push(refuse_path(name, &String::from_utf8_lossy(trim_end(line))));
                return out;
            }
            // A command instead of the path: the path command had none.
            out.push(Command::Invalid(format!("{name} needs a file path")));
        }
        if self.block.is_some() {
            let kw = keyword(line);
            if kw == "END" {
                // END means exit at once and print nothing, even in the middle of a block.
                self.block = None;
                out.extend(self.feed_command(line));
            } else if COMMAND_WORDS.contains(&kw.as_str()) {
                let name = self.block_name();
                self.block = None;
                out.push(Command::Invalid(format!("{name} block not closed by DONE")));
                out.extend(self.feed_command(line));
            } else {
                out.extend(self.feed_block(line));
            }
            return out;
        }
        out.extend(self.feed_command(line));
        out
    }

    fn block_name(&self) -> &'static str {
        match self.block.as_ref().map(|b| b.kind) {
            Some(BlockKind::YxBoard) => "YXBOARD",
            Some(BlockKind::Swap2Board) => "SWAP2BOARD",
            Some(BlockKind::YxBlock) => "YXBLOCK",
            Some(BlockKind::YxBlockUndo) => "YXBLOCKUNDO",
            Some(BlockKind::YxBlockPath) => "YXBLOCKPATH",
            Some(BlockKind::YxBlockPathUndo) => "YXBLOCKPATHUNDO",
            Some(BlockKind::Soosorv { .. }) => "YXSOOSORVSTEP",
            Some(BlockKind::Database { name, .. }) => name,
            _ => "BOARD",
        }
    }

    /// Consumes the stone tokens of `text` for the open block; closes it at `DONE` (the rest of
    /// the line is kept in `after_done`).
    fn feed_block(&mut self, text: &[u8]) -> Option<Command> {
        let text = String::from_utf8_lossy(text);
        let mut rest = text.as_ref();
        loop {
            let start = rest.trim_start_matches(|c: char| c.is_ascii_whitespace());
            if start.is_empty() {
                break;
            }
            let end = start
                .find(|c: char| c.is_ascii_whitespace())
                .unwrap_or(start.len());
            let token = &start[..end];
            rest = &start[end..];
            let block = self.block.as_mut()?;
            if token.eq_ignore_ascii_case("DONE") {
                let block = self.block.take()?;
                if !rest.trim().is_empty() {
                    self.after_done = Some(rest.trim().to_string());
                }
                return Some(match block.error {
                    Some(e) => Command::Invalid(e),
                    None => Command::Block {
                        kind: block.kind,
                        stones: block.stones,
                    },
                });
            }
            let error = match parse_stone(token) {
                Some(s) if block.stones.len() < MAX_BLOCK_STONES => {
                    block.stones.push(s);
                    None
                }
                Some(_) => Some(format!("more than {MAX_BLOCK_STONES} stones")),
                None => Some(format!("x,y,field or DONE expected, got '{}'", clip(token))),
            };
            if block.error.is_none() {
                block.error = error;
            }
        }
        None
    }

    fn feed_command(&mut self, line: &[u8]) -> Option<Command> {
        let (kw, rest) = split_token(line);
        let kw = String::from_utf8_lossy(kw).to_ascii_uppercase();
        if kw.is_empty() {
            return None;
        }
        let rest_bytes = trim_end(rest);
        let rest = String::from_utf8_lossy(rest_bytes).to_string();
        let args: Vec<&str> = rest.split_ascii_whitespace().collect();
        if let Some(&name) = PATH_COMMANDS.iter().find(|&&c| c == kw) {
            if rest.trim().is_empty() {
                self.path_for = Some(name);
                return None;
            }
            return Some(refuse_path(name, &rest));
        }
        if let Some(&(name, query)) = DATABASE_BLOCKS.iter().find(|&&(c, _)| c == kw) {
            // The rest of the command's line holds its arguments (a label, `wl`), not moves.
            self.block = Some(OpenBlock {
                kind: BlockKind::Database { name, query },
                stones: Vec::new(),
                error: None,
            });
            return None;
        }
        let cmd = match kw.as_str() {
            "START" => parse_start(&args),
            "RECTSTART" => {
                // `w,h` (blanks allowed around the comma, as for TURN) or `w h`.
                let size = if rest.contains(',') {
                    joined_xy(&args).as_deref().and_then(parse_xy)
                } else if let [w, h] = args.as_slice() {
                    parse_int(w).zip(parse_int(h))
                } else {
                    None
                };
                match size {
                    Some((w, h)) => start(w, h),
                    None => Command::Invalid(format!(
                        "RECTSTART needs width,height, got '{}'",
                        clip(&rest)
                    )),
                }
            }
            "RESTART" => Command::Restart,
            "BEGIN" => Command::Begin,
            "TURN" | "PLAY" | "TAKEBACK" => match joined_xy(&args).as_deref().and_then(parse_xy) {
                Some((x, y)) => match kw.as_str() {
                    "TURN" => Command::Turn { x, y },
                    "PLAY" => Command::Play { x, y },
                    _ => Command::Takeback { x, y },
                },
                None => Command::Invalid(format!("{kw} needs x,y, got '{}'", clip(&rest))),
            },
            "BOARD" | "YXBOARD" | "SWAP2BOARD" | "YXBLOCK" | "YXBLOCKUNDO" | "YXBLOCKPATH"
            | "YXBLOCKPATHUNDO" => {
                let kind = match kw.as_str() {
                    "BOARD" => BlockKind::Board,
                    "YXBOARD" => BlockKind::YxBoard,
                    "YXBLOCK" => BlockKind::YxBlock,
                    "YXBLOCKUNDO" => BlockKind::YxBlockUndo,
                    "YXBLOCKPATH" => BlockKind::YxBlockPath,
                    "YXBLOCKPATHUNDO" => BlockKind::YxBlockPathUndo,
                    _ => BlockKind::Swap2Board,
                };
                self.block = Some(OpenBlock {
                    kind,
                    stones: Vec::new(),
                    error: None,
                });
                return self.feed_block(rest_bytes);
            }
            "INFO" => {
                let (key, value) = split_token(rest_bytes);
                if key.is_empty() {
                    // INFO never answers, not even a malformed one: nobody reads it.
                    return None;
                } else {
                    Command::Info {
                        key: String::from_utf8_lossy(key).to_ascii_uppercase(),
                        value: value.to_vec(),
                    }
                }
            }
            "END" => Command::End,
            "ABOUT" => Command::About,
            "STOP" | "YXSTOP" => Command::Stop,
            "YXSHOWFORBID" => Command::ShowForbid,
            "YXHASHCLEAR" => Command::HashClear,
            "YXSHOWHASHUSAGE" => Command::HashUsage,
            "YXDBCHECK" | "YXDBFIX" => Command::Invalid(format!("{kw}: {NO_DATABASE}")),
            "YXBLOCKRESET" => Command::BlockReset,
            "YXBLOCKPATHRESET" => Command::BlockPathReset,
            "YXSHOWINFO" => Command::ShowInfo,
            "YXNBEST" => match args.as_slice() {
                [n] => match parse_int(n) {
                    Some(n) => Command::NBest(n.clamp(1, 32 * 32) as usize),
                    None => Command::Invalid(format!("YXNBEST needs a count, got '{}'", clip(n))),
                },
                _ => Command::Invalid(format!("YXNBEST needs a count, got '{}'", clip(&rest))),
            },
            "YXSEARCHDEFEND" => Command::SearchDefend,
            "YXSWAP2STEP1" => Command::Swap2Step(1),
            "YXSWAP2STEP2" => Command::Swap2Step(2),
            "YXSWAP2STEP3" => Command::Swap2Step(3),
            "YXSOOSORVSTEP1" => Command::SoosorvOpening,
            "YXSOOSORVSTEP2" | "YXSOOSORVSTEP3" | "YXSOOSORVSTEP4" | "YXSOOSORVSTEP5"
            | "YXSOOSORVSTEP6" => {
                let step = kw.as_bytes()[kw.len() - 1] - b'0';
                let (n, moves) = if step == 4 || step == 5 {
                    // The number of fifth-move offers comes first, then the moves block.
                    let (n_text, moves) = split_token(rest_bytes);
                    let n_text = String::from_utf8_lossy(n_text);
                    match parse_int(&n_text) {
                        Some(n) if (1..=MAX_OFFERS as i64).contains(&n) => (n as usize, moves),
                        _ => {
                            // Still read the block to its DONE, so its lines are not taken
                            // for commands; the error is reported when it closes.
                            self.block = Some(OpenBlock {
                                kind: BlockKind::Soosorv { step, n: 1 },
                                stones: Vec::new(),
                                error: Some(format!(
                                    "{kw} needs a number of offers 1..{MAX_OFFERS}, got '{}'",
                                    clip(&n_text)
                                )),
                            });
                            return self.feed_block(moves);
                        }
                    }
                } else {
                    (0, rest_bytes)
                };
                self.block = Some(OpenBlock {
                    kind: BlockKind::Soosorv { step, n },
                    stones: Vec::new(),
                    error: None,
                });
                return self.feed_block(moves);
            }
            "YXBALANCEONE" | "YXBALANCETWO" => {
                let two = kw == "YXBALANCETWO";
                match args.as_slice() {
                    // Yixin-Board always sends the bias; 0 when it is missing.
                    [] => Command::Balance { two, bias: 0 },
                    [b] => match parse_int(b) {
                        Some(b) => Command::Balance {
                            two,
                            bias: b.clamp(-20_000, 20_000) as i32,
                        },
                        None => Command::Invalid(format!("{kw} needs a bias, got '{}'", clip(b))),
                    },
                    _ => Command::Invalid(format!("{kw} needs one bias, got '{}'", clip(&rest))),
                }
            }
            "DONE" => Command::Invalid("DONE without BOARD".into()),
            _ => Command::Unknown(clip(&String::from_utf8_lossy(trim_end(line)))),
        };
        Some(cmd)
    }
}

fn start(w: i64, h: i64) -> Command {
    let ok = |v: i64| {
        (crate::game::pos::MIN_SIZE as i64..=crate::game::pos::MAX_SIZE as i64).contains(&v)
    };
    if ok(w) && ok(h) {
        Command::Start {
            width: w as usize,
            height: h as usize,
        }
    } else {
        Command::Invalid(format!(
            "unsupported board size {w}x{h}, supported sizes are 5..32"
        ))
    }
}

fn parse_start(args: &[&str]) -> Command {
    match args {
        [n] => match parse_int(n) {
            Some(n) => start(n, n),
            None => Command::Invalid(format!("bad START parameter '{}'", clip(n))),
        },
        // Yixin-Board sends `START w h` but writes and reads every point as `row,col`: its
        // first coordinate runs over the h rows, so that is this engine's x.
        [w, h] => match (parse_int(w), parse_int(h)) {
            (Some(w), Some(h)) => match start(h, w) {
                Command::Invalid(_) => Command::Invalid(format!(
                    "unsupported board size {w} {h}, supported sizes are 5..32"
                )),
                ok => ok,
            },
            _ => Command::Invalid("bad START parameters".into()),
        },
        [] => Command::Invalid("START needs a board size".into()),
        _ => Command::Invalid("bad START parameters".into()),
    }
}

/// Keeps echoed input short and printable in one line.
fn clip(s: &str) -> String {
    let s: String = s
        .chars()
        // ASCII only: a manager may read replies in any code page.
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Command {
        let mut p = Parser::default();
        let mut v = p.feed(line.as_bytes());
        assert_eq!(v.len(), 1, "{line}");
        v.pop().unwrap()
    }

    /// Every command the lines complete, in order.
    fn all(lines: &[&str]) -> Vec<Command> {
        let mut p = Parser::default();
        lines.iter().flat_map(|l| p.feed(l.as_bytes())).collect()
    }

    #[test]
    fn path_commands_take_the_next_line_as_their_path() {
        let refused = |v: &[Command], name: &str, path: &str| matches!(v, [Command::Invalid(e)] if e.starts_with(name) && e.contains(path));
        // Yixin-Board's way: the path on a line of its own, blank lines skipped.
        let v = all(&["yxhashdump", "", "C:\\Yixin\\hash.dat"]);
        assert!(refused(&v, "YXHASHDUMP", "hash.dat"), "{v:?}");
        let v = all(&["YXSETDATABASE /tmp/renju.db"]);
        assert!(refused(&v, "YXSETDATABASE", "renju.db"), "{v:?}");
        // A command where the path should be: the path is missing and the command counts.
        let v = all(&["yxdbtopos", "BEGIN"]);
        assert!(
            matches!(&v[..], [Command::Invalid(e), Command::Begin] if e.contains("needs a file path")),
            "{v:?}"
        );
        // The path is consumed once: the line after it is a command again.
        let v = all(&["yxhashload", "x.dat", "7,7"]);
        assert!(
            matches!(&v[..], [Command::Invalid(_), Command::Unknown(_)]),
            "{v:?}"
        );
    }

    #[test]
    fn database_blocks_are_read_to_done() {
        let v = all(&["yxquerydatabaseall", "7,7", "8,8", "done"]);
        assert!(
            matches!(&v[..], [Command::Block { kind: BlockKind::Database { name: "YXQUERYDATABASEALL", query: true }, stones }] if stones.len() == 2),
            "{v:?}"
        );
        // Arguments on the command's line are not moves.
        let v = all(&["yxeditlabeldatabase two words", "7,7", "DONE"]);
        assert!(
            matches!(&v[..], [Command::Block { kind: BlockKind::Database { query: false, .. }, stones }] if stones.len() == 1),
            "{v:?}"
        );
        let v = all(&["yxsetbestmovedatabase", "7,7", "TURN 1,1"]);
        assert!(
            matches!(&v[..], [Command::Invalid(e), Command::Turn { x: 1, y: 1 }] if e.contains("YXSETBESTMOVEDATABASE block")),
            "{v:?}"
        );
        assert_eq!(one("yxshowhashusage"), Command::HashUsage);
    }

    #[test]
    fn parses_start_variants() {
        assert_eq!(
            one("START 15"),
            Command::Start {
                width: 15,
                height: 15
            }
        );
        assert_eq!(
            one("start 20 20"),
            Command::Start {
                width: 20,
                height: 20
            }
        );
        // Yixin-Board's `start w h` with w != h: its points are `row,col`, row < h.
        assert_eq!(
            one("start 15 20"),
            Command::Start {
                width: 20,
                height: 15
            }
        );
        assert_eq!(
            one("RECTSTART 20,15"),
            Command::Start {
                width: 20,
                height: 15
            }
        );
        for spaced in [
            "RECTSTART 20, 15",
            "RECTSTART 20 ,15",
            "RECTSTART 20 , 15",
            "RECTSTART 20 15",
        ] {
            assert_eq!(
                one(spaced),
                Command::Start {
                    width: 20,
                    height: 15
                },
                "{spaced}"
            );
        }
        for bad in [
            "START 4",
            "START 33",
            "START x",
            "START",
            "START 1000",
            "START -5",
            "RECTSTART 4,9",
            "RECTSTART 20,15,7",
            "RECTSTART 20 15 7",
            "RECTSTART 20,15 7",
            "RECTSTART ,20",
        ] {
            assert!(matches!(one(bad), Command::Invalid(_)), "{bad}");
        }
    }

    #[test]
    fn parses_moves_and_info() {
        assert_eq!(one("  turn   7,8  "), Command::Turn { x: 7, y: 8 });
        assert_eq!(one("TURN 7, 8"), Command::Turn { x: 7, y: 8 });
        assert!(matches!(one("TURN a,b"), Command::Invalid(_)));
        assert!(matches!(one("TURN 3"), Command::Invalid(_)));
        assert_eq!(one("TURN 7 , 8"), Command::Turn { x: 7, y: 8 });
        assert_eq!(one("TURN 7 ,8"), Command::Turn { x: 7, y: 8 });
        for bad in ["TURN 1,1 5", "TURN 1 1,5", "PLAY 2,2 3", "TAKEBACK 1,1 5"] {
            assert!(matches!(one(bad), Command::Invalid(_)), "{bad}");
        }
        assert_eq!(
            one("INFO folder C:/my dir/x"),
            Command::Info {
                key: "FOLDER".into(),
                value: b"C:/my dir/x".to_vec()
            }
        );
        assert!(matches!(one("HELLO world"), Command::Unknown(_)));
        // The echo of a line that is not UTF-8 is plain ASCII.
        let mut p = Parser::default();
        let v = p.feed(b"\xff\xfeHI \xe9t\xc3\xa9\tx\n");
        assert_eq!(v, vec![Command::Unknown("??HI ?t??x".into())]);
    }

    #[test]
    fn parses_analysis_commands() {
        assert_eq!(one("yxnbest 3"), Command::NBest(3));
        assert_eq!(one("YXNBEST 0"), Command::NBest(1));
        assert!(matches!(one("YXNBEST"), Command::Invalid(_)));
        assert!(matches!(one("YXNBEST x"), Command::Invalid(_)));
        assert_eq!(one("yxsearchdefend"), Command::SearchDefend);
        assert_eq!(
            one("yxbalanceone 100"),
            Command::Balance {
                two: false,
                bias: 100
            }
        );
        assert_eq!(
            one("YXBALANCETWO -30"),
            Command::Balance {
                two: true,
                bias: -30
            }
        );
        assert_eq!(one("YXBALANCETWO"), Command::Balance { two: true, bias: 0 });
        assert!(matches!(one("YXBALANCEONE a"), Command::Invalid(_)));
        // Yixin-Board's opening steps: Swap2 without arguments, Soosorv with a moves block (the
        // number of offers first for steps 4 and 5), over several lines.
        let v = Parser::default().feed(b"yxswap2step3");
        assert_eq!(v, vec![Command::Swap2Step(3)]);
        assert_eq!(
            Parser::default().feed(b"YXSOOSORVSTEP1"),
            vec![Command::SoosorvOpening]
        );
        let mut p = Parser::default();
        assert!(p.feed(b"yxsoosorvstep5 3").is_empty());
        assert!(p.feed(b"7,7").is_empty());
        let v = p.feed(b"8,8 done");
        assert!(
            matches!(&v[..], [Command::Block { kind: BlockKind::Soosorv { step: 5, n: 3 }, stones }] if stones.len() == 2),
            "{v:?}"
        );
        let mut p = Parser::default();
        assert!(p.feed(b"yxsoosorvstep4 x").is_empty());
        assert!(
            p.feed(b"7,7").is_empty(),
            "the block's lines are not commands"
        );
        assert!(matches!(&p.feed(b"done")[..], [Command::Invalid(_)]));
        let v = Parser::default().feed(b"yxsoosorvstep6 7,7 8,8 9,9 6,6 5,5 done");
        assert!(
            matches!(&v[..], [Command::Block { kind: BlockKind::Soosorv { step: 6, n: 0 }, stones }] if stones.len() == 5)
        );
        // SWAP2BOARD stones with and without a field.
        let v = Parser::default().feed(b"SWAP2BOARD 7,7 8,8,2 7,9 DONE");
        assert!(
            matches!(&v[0], Command::Block { kind: BlockKind::Swap2Board, stones } if stones.len() == 3 && stones[0].field.is_none() && stones[1].field == Some(2))
        );
    }

    #[test]
    fn collects_blocks_on_one_or_many_lines() {
        let mut p = Parser::default();
        assert!(p.feed(b"BOARD").is_empty());
        assert!(p.feed(b"7,7,1").is_empty());
        assert!(p.feed(b"8,8,2").is_empty());
        let v = p.feed(b"DONE");
        assert_eq!(v.len(), 1);
        assert!(
            matches!(&v[0], Command::Block { kind: BlockKind::Board, stones } if stones.len() == 2)
        );
        let v = p.feed(b"yxboard 7,7,1 8,8,2 done");
        assert!(
            matches!(&v[0], Command::Block { kind: BlockKind::YxBoard, stones } if stones.len() == 2)
        );
        // Garbage inside a block is reported once, at DONE.
        assert!(p.feed(b"BOARD").is_empty());
        assert!(p.feed(b"hello").is_empty());
        assert!(matches!(p.feed(b"DONE")[0], Command::Invalid(_)));
        // A command inside a block abandons it, with an error for the block...
        p.feed(b"BOARD");
        let v = p.feed(b"ABOUT");
        assert_eq!(v.len(), 2);
        assert!(matches!(v[0], Command::Invalid(_)));
        assert_eq!(v[1], Command::About);
        // ... except END, which must print nothing.
        p.feed(b"BOARD 7,7,1");
        assert_eq!(p.feed(b"END"), vec![Command::End]);
        // YXBLOCK takes points without a field.
        let v = p.feed(b"yxblock 7,7 8,8 done");
        assert!(
            matches!(&v[0], Command::Block { kind: BlockKind::YxBlock, stones } if stones.len() == 2)
        );
        // What follows DONE on its line is left to be fed as a line of its own.
        let v = p.feed(b"BOARD 7,7,1 8,8,2 DONE  TURN 3,3 ");
        assert!(matches!(&v[..], [Command::Block { stones, .. }] if stones.len() == 2));
        assert_eq!(p.take_rest().as_deref(), Some("TURN 3,3"));
        assert_eq!(p.take_rest(), None);
        p.feed(b"BOARD 1,1,1 DONE");
        assert_eq!(p.take_rest(), None);
        // A block left open there waits for the next line's DONE.
        p.feed(b"BOARD 1,1,1 DONE BOARD 2,2,2");
        let rest = p.take_rest().expect("a rest");
        assert!(p.feed(rest.as_bytes()).is_empty());
        assert!(
            matches!(&p.feed(b"DONE")[..], [Command::Block { stones, .. }] if stones[0].x == 2)
        );
        // Too many stones are named as such.
        let mut long = b"BOARD".to_vec();
        for i in 0..MAX_BLOCK_STONES + 1 {
            long.extend(format!(" {},{},1", i % 32, i / 32 % 32).bytes());
        }
        p.feed(&long);
        assert!(matches!(&p.feed(b"DONE")[0], Command::Invalid(e) if e.contains("more than")));
    }
}
