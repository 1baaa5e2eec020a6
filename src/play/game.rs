//! The game loop: reads a line, plays the move or runs the command, lets Tengen answer, shows
//! the board; until `quit` or the end of input.

use super::input::{self, notation, Input};
use super::psq::Record;
use super::{ui, Options};
use crate::game::{Board, Cell, Color, Pos, Rule};
use crate::protocol::job::{self, Action, Job, JobInput};
use crate::protocol::level::Level;
use crate::protocol::yixin::Detail;
use crate::search::time::{budget, TimeLimits};
use crate::search::{Report, SearchLimits, Searcher};
use std::io::{self, BufRead, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The search runs on its own thread with the stack the protocol gives it.
const SEARCH_STACK: usize = 64 << 20;
const TT_BYTES: usize = 64 << 20;

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    /// The winner and the stones of the winning line.
    Win(Color, Vec<Pos>),
    Resigned(Color),
    Draw,
}

fn colour_name(c: Color) -> &'static str {
    match c {
        Color::Black => "Black (X)",
        Color::White => "White (O)",
    }
}

fn rule_text(rule: Rule) -> &'static str {
    match rule {
        Rule::Freestyle => "freestyle (five or more wins)",
        Rule::Standard => "standard (exactly five wins)",
        Rule::Renju => "renju (black: exactly five, no double-three, double-four or overline)",
        Rule::Caro {
            overline_wins: false,
        } => "caro (exactly five, not blocked at both ends)",
        Rule::Caro {
            overline_wins: true,
        } => "caro8 (five not blocked at both ends, or six or more)",
    }
}

/// The stones of the winning line through `p` (a stone of `c` just played), or just `p`.
fn winning_line(board: &Board, p: Pos, c: Color) -> Vec<Pos> {
    let kind = board.five_kind(c);
    let at = |x: i64, y: i64| board.pos(x, y).map(|q| board.cell(q));
    for (dx, dy) in [(1i64, 0i64), (0, 1), (1, 1), (1, -1)] {
        let mut line = vec![p];
        let mut blocked = 0;
        for sign in [-1i64, 1] {
            let (mut x, mut y) = (p.x() as i64, p.y() as i64);
            loop {
                x += sign * dx;
                y += sign * dy;
                match at(x, y) {
                    Some(cell) if cell == c.cell() => line.push(Pos::new(x as usize, y as usize)),
                    Some(cell) => {
                        if cell == c.other().cell() {
                            blocked += 1;
                        }
                        break;
                    }
                    None => break,
                }
            }
        }
        if kind.wins(line.len(), blocked) {
            line.sort_by_key(|q| (q.x(), std::cmp::Reverse(q.y())));
            return line;
        }
    }
    vec![p]
}

struct Game<W: Write> {
    opts: Options,
    board: Board,
    /// Milliseconds each move of the history took.
    times: Vec<u64>,
    outcome: Option<Outcome>,
    searcher: Option<Searcher>,
    seed: u64,
    colour: bool,
    out: W,
}

impl<W: Write> Game<W> {
    fn human(&self, c: Color) -> bool {
        self.opts.human_vs_human || (c == Color::Black) != self.opts.engine_first
    }

    fn who(&self, c: Color) -> String {
        if self.opts.human_vs_human {
            colour_name(c).to_string()
        } else if self.human(c) {
            format!("You, {}", colour_name(c))
        } else {
            format!("Tengen, {}", colour_name(c))
        }
    }

    fn name(&self, c: Color) -> String {
        if self.human(c) {
            "human".into()
        } else {
            format!("Tengen level {}", self.opts.level)
        }
    }

    fn say(&mut self, text: &str) -> io::Result<()> {
        writeln!(self.out, "{text}")
    }

    fn show(&mut self) -> io::Result<()> {
        let line = match &self.outcome {
            Some(Outcome::Win(_, l)) => l.clone(),
            _ => Vec::new(),
        };
        let text = ui::render(&self.board, &line, self.colour);
        write!(self.out, "\n{text}")
    }

    fn note(&self, p: Pos) -> String {
        format!("{} ({})", notation(p.x(), p.y(), self.board.height()), p)
    }

    fn banner(&mut self) -> io::Result<()> {
        let o = &self.opts;
        let mut s = format!(
            "Tengen: {} on {}x{}.",
            rule_text(o.rule),
            self.board.width(),
            self.board.height()
        );
        if o.human_vs_human {
            s.push_str(" Two players: X (black) moves first.");
        } else {
            let human = if o.engine_first {
                "O (white)"
            } else {
                "X (black)"
            };
            let think = match o.depth {
                Some(d) => format!("depth {d}"),
                None => format!("{} ms per move", o.time_ms),
            };
            s.push_str(&format!(
                " You play {human} against Tengen at level {}, {think}.",
                o.level
            ));
        }
        s.push_str(" Type help for commands.");
        self.say(&s)
    }

    fn help(&mut self) -> io::Result<()> {
        let h = self.board.height();
        let (w, last) = (
            self.board.width(),
            input::column_name(self.board.width() - 1),
        );
        self.say(&format!(
            "Moves: a letter and a number such as {} (columns a..{last} from the left, rows 1..{h} from \
             the bottom),\n  or x,y in 0-based protocol coordinates such as {},{} (x from the left, y from the top, 0,0 is the top left).",
            notation(w / 2, h / 2, h),
            w / 2,
            h / 2
        ))?;
        self.say(
            "Commands:\n  undo       take back your last move (and Tengen's reply)\n  \
             hint       ask Tengen for a move\n  new        start a new game\n  \
             resign     give up this game\n  save FILE  write the game as a Piskvork .psq record\n  \
             load FILE  read a .psq record and continue from its last move\n  \
             help       this text\n  quit       leave",
        )?;
        self.say("The board: X black, O white, [ ] the last move, ( ) the winning line.")
    }

    fn new_game(&mut self, width: usize, height: usize) {
        self.board = Board::new(width, height, self.opts.rule).expect("size checked");
        self.times.clear();
        self.outcome = None;
        if let Some(s) = self.searcher.as_mut() {
            s.clear_tt();
        }
    }

    /// Plays `p` for the side to move (legal, checked by the caller); records the game's end.
    fn play(&mut self, p: Pos, ms: u64) {
        let c = self.board.side_to_move();
        let wins = self.board.is_winning_move(p, c);
        self.board.play(p, c);
        self.times.push(ms);
        if wins {
            self.outcome = Some(Outcome::Win(c, winning_line(&self.board, p, c)));
        } else if self.board.is_full() {
            self.outcome = Some(Outcome::Draw);
        }
    }

    fn announce(&mut self) -> io::Result<()> {
        let text = match &self.outcome {
            None => return Ok(()),
            Some(Outcome::Win(c, line)) => {
                let points: Vec<String> = line
                    .iter()
                    .map(|p| notation(p.x(), p.y(), self.board.height()))
                    .collect();
                let what = if line.len() > 5 { "line" } else { "five" };
                format!(
                    "{} wins with the {what} {}.",
                    colour_name(*c),
                    points.join(" ")
                )
            }
            Some(Outcome::Resigned(c)) => format!(
                "{} resigns: {} wins.",
                colour_name(*c),
                colour_name(c.other())
            ),
            Some(Outcome::Draw) => "Draw: the board is full.".to_string(),
        };
        self.say(&text)?;
        self.say("Game over. Type new for another game, undo, save FILE, or quit.")
    }

    /// Why the side to move may not play `p`, if it may not.
    fn refusal(&mut self, p: Pos) -> Option<String> {
        let name = notation(p.x(), p.y(), self.board.height());
        match self.board.cell(p) {
            Cell::Empty => {}
            Cell::Black => return Some(format!("{name} is occupied by X; choose an empty point")),
            Cell::White => return Some(format!("{name} is occupied by O; choose an empty point")),
            Cell::Wall => return Some(format!("{name} is not playable")),
        }
        let c = self.board.side_to_move();
        if c == Color::Black && !self.board.is_winning_move(p, c) {
            if let Some(foul) = self.board.foul(p) {
                return Some(format!(
                    "{name} is forbidden for black under renju: {}",
                    foul.name()
                ));
            }
        }
        None
    }

    /// A search for the side to move; `full` ignores the level (hints).
    fn search(&mut self, full: bool) -> (Pos, Report) {
        let level = if full {
            Level::FULL
        } else {
            Level::new(self.opts.level)
        };
        let start = Instant::now();
        let limits = match self.opts.depth {
            Some(d) => SearchLimits {
                start,
                ..SearchLimits::depth(d)
            },
            None => {
                let b = budget(
                    &TimeLimits {
                        turn_ms: Some(self.opts.time_ms),
                        ..TimeLimits::default()
                    },
                    0,
                );
                SearchLimits {
                    start,
                    soft: b.soft,
                    hard: b.hard,
                    max_depth: i32::MAX,
                    max_nodes: u64::MAX,
                }
            }
        };
        let mut searcher = self
            .searcher
            .take()
            .unwrap_or_else(|| Searcher::new(TT_BYTES));
        searcher.set_threads(self.opts.threads);
        let input = JobInput {
            job: Job::Move,
            board: self.board.clone(),
            limits,
            detail: Detail::default(),
            level,
            seed: self.seed ^ self.board.hash().rotate_left(17) ^ self.board.stone_count() as u64,
            stop: Arc::new(AtomicBool::new(false)),
            blocked: Vec::new(),
            offers: Vec::new(),
        };
        let (searcher, output) = std::thread::scope(|s| {
            std::thread::Builder::new()
                .name("search".into())
                .stack_size(SEARCH_STACK)
                .spawn_scoped(s, move || {
                    let out = job::run(&mut searcher, input);
                    (searcher, out)
                })
                .expect("spawning the search thread")
                .join()
                .expect("the search thread panicked")
        });
        self.searcher = Some(searcher);
        let report = output.report.unwrap_or(Report {
            best: Pos::NONE,
            score: 0,
            depth: 0,
            nodes: 0,
            elapsed: output.elapsed,
            pv: Vec::new(),
        });
        let mv = match output.action {
            Action::Move(p) => p,
            _ => Pos::NONE,
        };
        (mv, report)
    }

    fn summary(report: &Report) -> String {
        format!(
            "depth {}, eval {}, {:.2} s",
            report.depth,
            report.score_text(),
            report.elapsed.as_secs_f64()
        )
    }

    fn legal_for_side(&mut self, p: Pos) -> bool {
        !p.is_none()
            && self.board.pos(p.x() as i64, p.y() as i64).is_some()
            && self.board.is_empty(p)
            && self.refusal(p).is_none()
    }

    fn engine_move(&mut self) -> io::Result<()> {
        let c = self.board.side_to_move();
        self.say(&format!("Tengen, {}, is thinking...", colour_name(c)))?;
        self.out.flush()?;
        let (mv, report) = self.search(false);
        if !self.legal_for_side(mv) {
            self.say(&format!(
                "Tengen has no legal move for {}: the game is drawn.",
                colour_name(c)
            ))?;
            self.outcome = Some(Outcome::Draw);
            return self.announce();
        }
        let ms = report.elapsed.as_millis() as u64;
        self.play(mv, ms);
        let text = format!(
            "Tengen plays {}  ({})",
            self.note(mv),
            Self::summary(&report)
        );
        self.show()?;
        self.say(&text)?;
        self.announce()
    }

    fn hint(&mut self) -> io::Result<()> {
        if self.outcome.is_some() {
            return self.say("The game is over: no hint. Type new, undo or quit.");
        }
        let (mv, report) = self.search(true);
        if mv.is_none() {
            return self.say("No hint: there is no legal move.");
        }
        let text = format!("Hint: {}  ({})", self.note(mv), Self::summary(&report));
        self.say(&text)
    }

    fn undo(&mut self) -> io::Result<()> {
        let any_human = self.board.history().iter().any(|&(_, c)| self.human(c));
        if !any_human {
            return self.say("Nothing to undo.");
        }
        let mut taken = Vec::new();
        while let Some((p, c)) = self.board.undo() {
            self.times.pop();
            taken.push(notation(p.x(), p.y(), self.board.height()));
            if self.human(c) {
                break;
            }
        }
        self.outcome = None;
        self.show()?;
        self.say(&format!("Took back {}.", taken.join(" and ")))
    }

    fn resign(&mut self) -> io::Result<()> {
        if self.outcome.is_some() {
            return self.say("The game is already over. Type new, undo or quit.");
        }
        let c = self.board.side_to_move();
        let loser = if self.human(c) { c } else { c.other() };
        self.outcome = Some(Outcome::Resigned(loser));
        self.announce()
    }

    fn save(&mut self, file: &str) -> io::Result<()> {
        let record = Record {
            width: self.board.width(),
            height: self.board.height(),
            moves: self
                .board
                .history()
                .iter()
                .zip(self.times.iter().chain(std::iter::repeat(&0)))
                .map(|(&(p, _), &ms)| (p.x(), p.y(), ms))
                .collect(),
            black: self.name(Color::Black),
            white: self.name(Color::White),
        };
        match std::fs::write(file, record.to_psq()) {
            Ok(()) => self.say(&format!("Saved {} moves to {file}.", record.moves.len())),
            Err(e) => self.say(&format!("Cannot save {file}: {e}")),
        }
    }

    fn load(&mut self, file: &str) -> io::Result<()> {
        let text = match std::fs::read(file) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => return self.say(&format!("Cannot load {file}: {e}")),
        };
        let record = match Record::from_psq(&text) {
            Ok(r) => r,
            Err(e) => return self.say(&format!("Cannot load {file}: {e}")),
        };
        let (w, h) = (record.width, record.height);
        if Board::new(w, h, self.opts.rule).is_err() {
            return self.say(&format!(
                "Cannot load {file}: a {w}x{h} board is not supported (5..32)"
            ));
        }
        let saved = (self.board.clone(), self.times.clone(), self.outcome.clone());
        self.new_game(w, h);
        for (i, &(x, y, ms)) in record.moves.iter().enumerate() {
            let p = Pos::new(x, y);
            let problem = if self.outcome.is_some() {
                Some("the game was already over".to_string())
            } else {
                self.refusal(p)
            };
            if let Some(why) = problem {
                (self.board, self.times, self.outcome) = saved;
                return self.say(&format!(
                    "Cannot load {file}: move {} ({}): {why}",
                    i + 1,
                    notation(x, y, h)
                ));
            }
            self.play(p, ms);
        }
        self.show()?;
        let to_move = self.board.side_to_move();
        self.say(&format!(
            "Loaded {} moves from {file} ({w}x{h}, {}); {} to move.",
            record.moves.len(),
            self.opts.rule.name(),
            colour_name(to_move)
        ))?;
        self.announce()
    }

    fn human_move(&mut self, x: i64, y: i64, thought: Duration) -> io::Result<()> {
        if self.outcome.is_some() {
            return self.say("The game is over: type new, undo, save FILE or quit.");
        }
        let p = Pos::new(x as usize, y as usize);
        if let Some(why) = self.refusal(p) {
            return self.say(&why);
        }
        let c = self.board.side_to_move();
        self.play(p, thought.as_millis() as u64);
        if self.opts.human_vs_human || self.outcome.is_some() {
            self.show()?;
            self.say(&format!("{} plays {}.", colour_name(c), self.note(p)))?;
            self.announce()?;
        } else {
            self.say(&format!("You play {}.", self.note(p)))?;
        }
        Ok(())
    }

    fn prompt(&mut self) -> io::Result<()> {
        let c = self.board.side_to_move();
        let text = if self.outcome.is_some() {
            "Game over (new, undo, save FILE, quit)> ".to_string()
        } else {
            format!(
                "Move {}: {} to play> ",
                self.board.stone_count() + 1,
                self.who(c)
            )
        };
        write!(self.out, "{text}")?;
        self.out.flush()
    }
}

/// Runs games reading lines from `input` and writing to `out` until `quit` or end of input.
/// `echo` repeats each line read after its prompt (input that is not typed on a terminal), so a
/// transcript reads like a session.
pub fn run(opts: &Options, mut input: impl BufRead, out: impl Write, echo: bool) -> io::Result<()> {
    let seed = opts.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let mut g = Game {
        opts: opts.clone(),
        board: Board::new(opts.width, opts.height, opts.rule).expect("size checked"),
        times: Vec::new(),
        outcome: None,
        searcher: None,
        seed,
        colour: opts.colour.unwrap_or_else(super::auto_colour),
        out,
    };
    g.banner()?;
    g.show()?;
    let mut buf = Vec::new();
    loop {
        if g.outcome.is_none() && !g.human(g.board.side_to_move()) {
            g.engine_move()?;
            continue;
        }
        g.prompt()?;
        let asked = Instant::now();
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            g.say("\nEnd of input: bye.")?;
            return g.out.flush();
        }
        let line = String::from_utf8_lossy(&buf);
        if echo {
            g.say(line.trim_end_matches(['\n', '\r']))?;
        }
        let (w, h) = (g.board.width(), g.board.height());
        let parsed = match input::parse(&line, w, h) {
            Ok(p) => p,
            Err(e) => {
                g.say(&e)?;
                continue;
            }
        };
        match parsed {
            Input::Nothing => {}
            Input::Move(x, y) => g.human_move(x, y, asked.elapsed())?,
            Input::Undo => g.undo()?,
            Input::Hint => g.hint()?,
            Input::New => {
                g.new_game(w, h);
                g.say("New game.")?;
                g.show()?;
            }
            Input::Resign => g.resign()?,
            Input::Save(f) => g.save(&f)?,
            Input::Load(f) => g.load(&f)?,
            Input::Help => g.help()?,
            Input::Quit => {
                g.say("Bye.")?;
                return g.out.flush();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(opts: &Options, script: &str) -> String {
        let mut out = Vec::new();
        run(opts, script.as_bytes(), &mut out, true).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn hvh() -> Options {
        Options {
            human_vs_human: true,
            colour: Some(false),
            ..Options::default()
        }
    }

    #[test]
    fn five_is_announced_with_its_line() {
        let out = play(&hvh(), "h8\nh9\ni8\ni9\nj8\nj9\nk8\nk9\nl8\nm8\n");
        assert!(
            out.contains("Black (X) wins with the five h8 i8 j8 k8 l8."),
            "{out}"
        );
        assert!(out.contains("Game over"));
        assert!(out.contains("The game is over"));
        assert!(out.contains("(X)(X)(X)(X)[X]"), "{out}");
        assert!(out.ends_with("End of input: bye.\n"));
    }

    #[test]
    fn winning_line_is_sorted_and_diagonal() {
        let out = play(&hvh(), "a1\na2\nb2\nb3\nc3\nc4\nd4\nd5\ne5\n");
        assert!(out.contains("wins with the five a1 b2 c3 d4 e5."), "{out}");
        let out = play(&hvh(), "e1\na2\nd2\nb3\nc3\nc4\nb4\nd5\na5\n");
        assert!(out.contains("wins with the five a5 b4 c3 d2 e1."), "{out}");
    }

    #[test]
    fn full_board_is_a_draw() {
        // A 5x5 filling with no five in any line.
        let mut script = String::new();
        let order = [
            "a5", "b5", "c5", "a4", "d5", "b4", "e5", "e4", "c4", "a3", "d4", "c3", "b3", "d3",
            "a2", "e3", "c2", "b2", "d2", "a1", "e2", "c1", "b1", "e1", "d1",
        ];
        for m in order {
            script.push_str(m);
            script.push('\n');
        }
        let opts = Options {
            width: 5,
            height: 5,
            ..hvh()
        };
        let out = play(&opts, &script);
        assert!(out.contains("Draw: the board is full."), "{out}");
        assert!(!out.contains("wins with"), "{out}");
    }

    #[test]
    fn engine_answers_and_undo_takes_back_both() {
        let opts = Options {
            depth: Some(2),
            colour: Some(false),
            seed: Some(1),
            ..Options::default()
        };
        let out = play(&opts, "h8\nundo\nundo\nquit\n");
        assert!(out.contains("You play h8 (7,7)."), "{out}");
        assert!(out.contains("Tengen plays "), "{out}");
        assert!(out.contains("Took back "), "{out}");
        assert!(out.contains(" and h8."), "{out}");
        assert!(out.contains("Nothing to undo."), "{out}");
        assert!(out.ends_with("Bye.\n"));
    }
}
