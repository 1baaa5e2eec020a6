//! The board: stones, Zobrist hash, and the incrementally kept line keys, per-cell pattern
//! classes, scores and class counts that the evaluation and the move picker read.

use super::forbid::{self, Foul};
use super::pattern::{slot_shift, Pattern, RuleTable};
use super::pos::{Cell, Color, Pos, CELLS, DIRS, MAX_SIZE, MIN_SIZE, PAD, STRIDE};
use super::rule::{makes_five, FiveKind, Rule};
use crate::eval::classical::{self, Class, PackedPatterns, CLASS_COUNT, PACKED_COMBOS};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn zobrist_table() -> [[u64; CELLS]; 2] {
    let mut t = [[0u64; CELLS]; 2];
    let mut state = 0x7E9_6E9_u64;
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < CELLS {
            let (s, v) = splitmix(state);
            state = s;
            t[c][i] = v;
            i += 1;
        }
        c += 1;
    }
    t
}

/// Fixed Zobrist keys: the same hash for the same position on every machine and run.
static ZOBRIST: [[u64; CELLS]; 2] = zobrist_table();
const ZOBRIST_WHITE_TO_MOVE: u64 = 0x5A17_C0DE_1234_9876;

/// Board-size and rule errors the protocol reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardError {
    BadSize,
    OffBoard,
    Occupied,
    Empty,
}

impl std::fmt::Display for BoardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BoardError::BadSize => "board size must be 5..32",
            BoardError::OffBoard => "coordinates outside the board",
            BoardError::Occupied => "point is occupied",
            BoardError::Empty => "point is empty",
        })
    }
}

#[derive(Clone)]
pub struct Board {
    width: usize,
    height: usize,
    rule: Rule,
    cells: [u8; CELLS],
    /// Per direction, the 20-bit neighbourhood key of every cell.
    keys: [[u32; CELLS]; 4],
    /// Stones within the 5x5 square around each cell: candidate moves have some.
    near: [u8; CELLS],
    /// Per colour, the four direction patterns of a stone of that colour on each empty cell.
    packed: [[PackedPatterns; CELLS]; 2],
    /// Per colour, the class and score of a stone of that colour on each empty cell.
    class: [[Class; CELLS]; 2],
    score: [[i16; CELLS]; 2],
    score_sum: [i32; 2],
    class_count: [[u16; CLASS_COUNT]; 2],
    table: &'static RuleTable,
    combos: &'static [(Class, i16); PACKED_COMBOS],
    hash: u64,
    side_to_move: Color,
    history: Vec<(Pos, Color)>,
    stones: usize,
    walls: usize,
}

impl Board {
    pub fn new(width: usize, height: usize, rule: Rule) -> Result<Board, BoardError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&width) || !(MIN_SIZE..=MAX_SIZE).contains(&height) {
            return Err(BoardError::BadSize);
        }
        let mut b = Board {
            width,
            height,
            rule,
            cells: [Cell::Wall as u8; CELLS],
            keys: [[0; CELLS]; 4],
            near: [0; CELLS],
            packed: [[0; CELLS]; 2],
            class: [[0; CELLS]; 2],
            score: [[0; CELLS]; 2],
            score_sum: [0; 2],
            class_count: [[0; CLASS_COUNT]; 2],
            table: RuleTable::get(rule),
            combos: classical::combo_table(),
            hash: 0,
            side_to_move: Color::Black,
            history: Vec::with_capacity(MAX_SIZE * MAX_SIZE),
            stones: 0,
            walls: 0,
        };
        for y in 0..height {
            for x in 0..width {
                b.cells[Pos::new(x, y).idx()] = Cell::Empty as u8;
            }
        }
        b.recompute_all();
        Ok(b)
    }

    /// Recomputes every derived field from the stones alone.
    fn recompute_all(&mut self) {
        self.keys = [[0; CELLS]; 4];
        self.near = [0; CELLS];
        self.packed = [[0; CELLS]; 2];
        self.class = [[0; CELLS]; 2];
        self.score = [[0; CELLS]; 2];
        self.score_sum = [0; 2];
        self.class_count = [[0; CLASS_COUNT]; 2];
        for p in self.cells_iter() {
            for (di, &d) in DIRS.iter().enumerate() {
                let mut key = 0u32;
                for off in -5isize..=5 {
                    if off != 0 {
                        let c = self.cells[p.step(d, off).idx()] as u32;
                        key |= c << slot_shift(off);
                    }
                }
                self.keys[di][p.idx()] = key;
            }
            if self.cells[p.idx()] == Cell::Black as u8 || self.cells[p.idx()] == Cell::White as u8
            {
                self.add_near(p, 1);
            }
        }
        for p in self.cells_iter() {
            if self.cells[p.idx()] == Cell::Empty as u8 {
                self.set_cell_info(p);
            }
        }
    }

    fn add_near(&mut self, p: Pos, delta: i8) {
        for dy in -2isize..=2 {
            for dx in -2isize..=2 {
                let q = (p.idx() as isize + dy * STRIDE as isize + dx) as usize;
                self.near[q] = self.near[q].wrapping_add(delta as u8);
            }
        }
    }

    /// Computes the patterns of the empty cell `p` from its keys and adds its value.
    #[inline]
    fn set_cell_info(&mut self, p: Pos) {
        let entries = [0, 1, 2, 3].map(|d| self.table.entry(self.keys[d][p.idx()]));
        for c in 0..2 {
            let mut packed = 0;
            for (d, e) in entries.iter().enumerate() {
                packed |= ((e >> (8 * c)) as PackedPatterns & 7) << (3 * d);
            }
            self.packed[c][p.idx()] = packed;
            let (class, score) = self.combos[packed as usize];
            self.class[c][p.idx()] = class;
            self.score[c][p.idx()] = score;
            self.score_sum[c] += score as i32;
            self.class_count[c][class as usize] += 1;
        }
    }

    /// The key of direction `d` of the empty cell `p` changed: update that pattern and, when it
    /// changed, the cell's value.
    #[inline]
    fn refresh_direction(&mut self, p: Pos, d: usize) {
        let entry = self.table.entry(self.keys[d][p.idx()]);
        for c in 0..2 {
            let pattern = (entry >> (8 * c)) as PackedPatterns & 7;
            let old = self.packed[c][p.idx()];
            let new = (old & !(7 << (3 * d))) | (pattern << (3 * d));
            if new == old {
                continue;
            }
            self.packed[c][p.idx()] = new;
            let (old_class, old_score) = self.combos[old as usize];
            let (class, score) = self.combos[new as usize];
            self.class[c][p.idx()] = class;
            self.score[c][p.idx()] = score;
            self.score_sum[c] += score as i32 - old_score as i32;
            self.class_count[c][old_class as usize] -= 1;
            self.class_count[c][class as usize] += 1;
        }
    }

    #[inline]
    fn clear_cell_info(&mut self, p: Pos) {
        for c in 0..2 {
            let class = self.class[c][p.idx()];
            self.score_sum[c] -= self.score[c][p.idx()] as i32;
            self.class_count[c][class as usize] -= 1;
            self.packed[c][p.idx()] = 0;
            self.class[c][p.idx()] = 0;
            self.score[c][p.idx()] = 0;
        }
    }

    /// Writes `value` into the cell and every key that sees it, keeping cell infos current.
    fn put(&mut self, p: Pos, value: Cell) {
        let was_empty = self.cells[p.idx()] == Cell::Empty as u8;
        if was_empty {
            self.clear_cell_info(p);
        }
        self.cells[p.idx()] = value as u8;
        for (di, &d) in DIRS.iter().enumerate() {
            for off in (-5isize..=5).filter(|&o| o != 0) {
                // `p` sits at offset `off` from q = p - off*d.
                let q = p.step(d, -off);
                let shift = slot_shift(off);
                let k = &mut self.keys[di][q.idx()];
                *k = (*k & !(3 << shift)) | ((value as u32) << shift);
                if self.cells[q.idx()] == Cell::Empty as u8 {
                    self.refresh_direction(q, di);
                }
            }
        }
        if value == Cell::Empty {
            self.set_cell_info(p);
        }
    }

    // ----- queries -----

    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }
    #[inline]
    pub fn height(&self) -> usize {
        self.height
    }
    #[inline]
    pub fn rule(&self) -> Rule {
        self.rule
    }
    #[inline]
    pub fn hash(&self) -> u64 {
        if self.side_to_move == Color::White {
            self.hash ^ ZOBRIST_WHITE_TO_MOVE
        } else {
            self.hash
        }
    }
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }
    pub fn set_side_to_move(&mut self, c: Color) {
        self.side_to_move = c;
    }
    #[inline]
    pub fn cell(&self, p: Pos) -> Cell {
        Cell::from_code(self.cells[p.idx()])
    }
    #[inline]
    pub fn cells(&self) -> &[u8; CELLS] {
        &self.cells
    }
    #[inline]
    pub fn is_empty(&self, p: Pos) -> bool {
        self.cells[p.idx()] == Cell::Empty as u8
    }
    /// The on-board position at `(x, y)`, if it is on the board.
    pub fn pos(&self, x: i64, y: i64) -> Option<Pos> {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            Some(Pos::new(x as usize, y as usize))
        } else {
            None
        }
    }
    /// All on-board cells, row by row.
    pub fn cells_iter(&self) -> impl Iterator<Item = Pos> {
        let (w, h) = (self.width, self.height);
        (0..h).flat_map(move |y| (0..w).map(move |x| Pos::new(x, y)))
    }
    #[inline]
    pub fn stone_count(&self) -> usize {
        self.stones
    }
    /// Cells that are neither stones nor walls.
    pub fn empty_count(&self) -> usize {
        self.width * self.height - self.stones - self.walls
    }
    pub fn is_full(&self) -> bool {
        self.empty_count() == 0
    }
    pub fn history(&self) -> &[(Pos, Color)] {
        &self.history
    }
    pub fn last_move(&self) -> Option<Pos> {
        self.history.last().map(|&(p, _)| p)
    }
    #[inline]
    pub fn near(&self, p: Pos) -> bool {
        self.near[p.idx()] > 0
    }
    #[inline]
    pub fn key(&self, dir: usize, p: Pos) -> u32 {
        self.keys[dir][p.idx()]
    }
    /// The class of a stone of `c` on empty cell `p` (forbidden points not considered).
    #[inline]
    pub fn class(&self, c: Color, p: Pos) -> Class {
        self.class[c.idx()][p.idx()]
    }
    #[inline]
    pub fn cell_score(&self, c: Color, p: Pos) -> i32 {
        self.score[c.idx()][p.idx()] as i32
    }
    #[inline]
    pub fn score_sum(&self, c: Color) -> i32 {
        self.score_sum[c.idx()]
    }
    /// How many empty cells have class `class` for colour `c`.
    #[inline]
    pub fn class_count(&self, c: Color, class: Class) -> usize {
        self.class_count[c.idx()][class as usize] as usize
    }
    /// How many empty cells give colour `c` a class of at least `class`.
    #[inline]
    pub fn count_at_least(&self, c: Color, class: Class) -> usize {
        self.class_count[c.idx()][class as usize..]
            .iter()
            .map(|&n| n as usize)
            .sum()
    }
    /// The pattern a stone of `c` on `p` makes in direction `dir`.
    #[inline]
    pub fn pattern(&self, c: Color, dir: usize, p: Pos) -> Pattern {
        self.table.colour(c).pattern(self.keys[dir][p.idx()])
    }
    pub fn five_kind(&self, c: Color) -> FiveKind {
        self.rule.five_kind(c)
    }

    /// Whether a stone of `c` on empty `p` would win at once under the rule.
    pub fn is_winning_move(&self, p: Pos, c: Color) -> bool {
        makes_five(&self.cells, p, c, self.rule.five_kind(c))
    }

    /// The foul black would commit on empty `p` under renju (`None` under other rules).
    pub fn foul(&mut self, p: Pos) -> Option<Foul> {
        if !self.rule.has_forbidden() || !self.is_empty(p) {
            return None;
        }
        forbid::foul(&mut self.cells, p)
    }

    /// A quick exact test whether `c` may play on the empty cell `p`: the full renju check runs
    /// only when black's patterns there could make a foul.
    pub fn is_legal(&mut self, p: Pos, c: Color) -> bool {
        if !self.is_empty(p) {
            return false;
        }
        if c == Color::White || !self.rule.has_forbidden() || !self.may_be_forbidden(p) {
            return true;
        }
        self.foul(p).is_none()
    }

    /// Cheap necessary condition for a black foul on `p` under renju.
    #[inline]
    pub fn may_be_forbidden(&self, p: Pos) -> bool {
        let t = self.table.colour(Color::Black);
        let mut threats = 0;
        for d in 0..4 {
            let e = t.entry(self.keys[d][p.idx()]);
            let pat = Pattern::from_code(e);
            if pat == Pattern::Five {
                return false;
            }
            if e & super::pattern::OVERLINE_FLAG != 0 || pat == Pattern::OpenFour {
                threats += 2;
            } else if pat >= Pattern::OpenThree {
                threats += 1;
            }
        }
        threats >= 2
    }

    // ----- moves -----

    /// Places a stone of `c` on the empty on-board cell `p`.
    pub fn play(&mut self, p: Pos, c: Color) {
        debug_assert!(self.is_empty(p));
        self.put(p, c.cell());
        self.add_near(p, 1);
        self.hash ^= ZOBRIST[c.idx()][p.idx()];
        self.history.push((p, c));
        self.stones += 1;
        self.side_to_move = c.other();
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<(Pos, Color)> {
        let (p, c) = self.history.pop()?;
        self.put(p, Cell::Empty);
        self.add_near(p, -1);
        self.hash ^= ZOBRIST[c.idx()][p.idx()];
        self.stones -= 1;
        self.side_to_move = c;
        Some((p, c))
    }

    /// Checked play for the protocol: the point must be on the board and empty.
    pub fn try_play(&mut self, x: i64, y: i64, c: Color) -> Result<Pos, BoardError> {
        let p = self.pos(x, y).ok_or(BoardError::OffBoard)?;
        if !self.is_empty(p) {
            return Err(BoardError::Occupied);
        }
        self.play(p, c);
        Ok(p)
    }

    /// Removes the stone on `p`, wherever it is in the history (TAKEBACK of an older stone).
    pub fn remove(&mut self, p: Pos) -> Result<(), BoardError> {
        let i = self
            .history
            .iter()
            .rposition(|&(q, _)| q == p)
            .ok_or(BoardError::Empty)?;
        let mut later = Vec::new();
        while self.history.len() > i + 1 {
            later.push(self.undo().expect("history is longer than i"));
        }
        let (_, c) = self.undo().expect("stone i exists");
        for &(q, qc) in later.iter().rev() {
            self.play(q, qc);
        }
        // After taking back a stone of colour c, that colour is the one to move again when the
        // removed stone was the last one; otherwise keep alternation by stone counts.
        self.side_to_move = if later.is_empty() {
            c
        } else {
            self.side_to_move
        };
        Ok(())
    }

    /// The same stones (and move order) under another rule.
    pub fn with_rule(&self, rule: Rule) -> Board {
        let mut b = Board::new(self.width, self.height, rule).expect("same size is valid");
        for p in self.cells_iter() {
            if self.cell(p) == Cell::Wall {
                b.place_wall(p);
            }
        }
        for &(p, c) in &self.history {
            b.play(p, c);
        }
        b.side_to_move = self.side_to_move;
        b
    }

    /// Marks an on-board cell as occupied by nobody (field 3 of `BOARD`).
    pub fn place_wall(&mut self, p: Pos) {
        if self.is_empty(p) {
            self.put(p, Cell::Wall);
            self.walls += 1;
        }
    }

    /// A copy of the derived state recomputed from scratch, for checking the incremental one.
    pub fn recomputed(&self) -> Board {
        let mut b = self.clone();
        b.recompute_all();
        b
    }

    /// Whether every derived field equals a from-scratch recompute.
    pub fn derived_state_matches(&self, other: &Board) -> bool {
        self.cells_iter().all(|p| {
            (0..4).all(|d| self.keys[d][p.idx()] == other.keys[d][p.idx()])
                && self.near[p.idx()] == other.near[p.idx()]
        }) && self.class == other.class
            && self.score == other.score
            && self.score_sum == other.score_sum
            && self.class_count == other.class_count
    }

    /// The board as text: `X` black, `O` white, `#` neutral, `.` empty; the last move bracketed.
    pub fn render(&self) -> String {
        let mut s = String::from("   ");
        for x in 0..self.width {
            s.push_str(&format!("{:>3}", x));
        }
        s.push('\n');
        let last = self.last_move();
        for y in 0..self.height {
            s.push_str(&format!("{:>3}", y));
            for x in 0..self.width {
                let p = Pos::new(x, y);
                let ch = match self.cell(p) {
                    Cell::Empty => '.',
                    Cell::Black => 'X',
                    Cell::White => 'O',
                    Cell::Wall => '#',
                };
                if Some(p) == last {
                    s.push_str(&format!("[{}]", ch));
                } else {
                    s.push_str(&format!(" {} ", ch));
                }
            }
            s.push('\n');
        }
        s
    }
}

/// The side that would be to move on a board with these stone counts: black moves when counts
/// are equal.
pub fn side_by_counts(black: usize, white: usize) -> Color {
    if black > white {
        Color::White
    } else {
        Color::Black
    }
}

const _: () = assert!(PAD >= 5);

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn incremental_state_matches_recompute_through_play_and_undo() {
        for rule in [
            Rule::Freestyle,
            Rule::Standard,
            Rule::Renju,
            Rule::Caro {
                overline_wins: false,
            },
        ] {
            let mut seed = 42u64;
            for (w, h) in [(15, 15), (20, 20), (7, 12), (5, 5)] {
                let mut b = Board::new(w, h, rule).unwrap();
                let empty_hash = b.hash();
                let mut c = Color::Black;
                for step in 0..(w * h * 3) {
                    if b.stone_count() > 0 && (lcg(&mut seed) % 4 == 0 || b.is_full()) {
                        b.undo();
                    } else {
                        let empties: Vec<Pos> = b.cells_iter().filter(|&p| b.is_empty(p)).collect();
                        let p = empties[lcg(&mut seed) as usize % empties.len()];
                        b.play(p, c);
                        c = c.other();
                    }
                    if step % 7 == 0 {
                        assert!(
                            b.derived_state_matches(&b.recomputed()),
                            "{rule:?} {w}x{h} step {step}"
                        );
                    }
                }
                while b.undo().is_some() {}
                assert!(b.derived_state_matches(&b.recomputed()));
                assert_eq!(b.hash() ^ empty_hash, 0);
            }
        }
    }

    #[test]
    fn rejects_bad_sizes_and_points() {
        assert!(Board::new(4, 15, Rule::Freestyle).is_err());
        assert!(Board::new(15, 33, Rule::Freestyle).is_err());
        let mut b = Board::new(15, 10, Rule::Freestyle).unwrap();
        assert_eq!(b.try_play(15, 0, Color::Black), Err(BoardError::OffBoard));
        assert_eq!(b.try_play(0, 10, Color::Black), Err(BoardError::OffBoard));
        assert_eq!(b.try_play(-1, 0, Color::Black), Err(BoardError::OffBoard));
        assert!(b.try_play(14, 9, Color::Black).is_ok());
        assert_eq!(b.try_play(14, 9, Color::White), Err(BoardError::Occupied));
    }

    #[test]
    fn remove_an_older_stone_keeps_state_consistent() {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        for (i, (x, y)) in [(7, 7), (8, 8), (7, 8), (9, 9)].iter().enumerate() {
            b.try_play(
                *x,
                *y,
                if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                },
            )
            .unwrap();
        }
        b.remove(Pos::new(8, 8)).unwrap();
        assert!(b.is_empty(Pos::new(8, 8)));
        assert_eq!(b.stone_count(), 3);
        assert!(b.derived_state_matches(&b.recomputed()));
        assert_eq!(b.remove(Pos::new(0, 0)), Err(BoardError::Empty));
    }
}
