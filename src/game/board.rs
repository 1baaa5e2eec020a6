//! The board: stones, Zobrist hash, and the incrementally kept line keys, per-cell pattern
//! classes, scores and class counts that the evaluation and the move picker read.

use super::forbid::{self, Foul};
use super::pattern::{slot_shift, Pattern, RuleTable};
use super::pos::{Cell, Color, Pos, CELLS, DIRS, MAX_SIZE, MIN_SIZE, PAD, STRIDE};
use super::rule::{makes_five, FiveKind, Rule};
use crate::eval::classical::{self, Class, CLASS_COUNT, PACKED_COMBOS};
use std::sync::OnceLock;

/// What a stone of one colour on an empty cell makes: its four direction patterns (as
/// [`classical::PackedPatterns`]) in bits 0..12, its class in bits 12..15 and its score (an
/// `i16`) in bits 16..32; 0 on a cell that is not empty.
type CellInfo = u32;
const INFO_PACKED_SHIFT: u32 = 0;
const INFO_CLASS_SHIFT: u32 = 12;
const INFO_SCORE_SHIFT: u32 = 16;
const _: () = assert!(PACKED_COMBOS == 1 << 12 && CLASS_COUNT <= 8);

#[inline(always)]
fn info_score(info: CellInfo) -> i32 {
    info as i32 >> INFO_SCORE_SHIFT
}
#[inline(always)]
fn info_class(info: CellInfo) -> Class {
    (info >> INFO_CLASS_SHIFT) as Class & 7
}
#[inline(always)]
fn info_packed(info: CellInfo) -> u32 {
    (info >> INFO_PACKED_SHIFT) & 0xfff
}

/// The [`CellInfo`] of every packed combination of four direction patterns (class and score
/// from [`classical::combo_table`] of the rule's weight set), and the same for black in renju
/// (double-fours are fouls).
fn info_table(rule: Rule, renju_black: bool) -> &'static [CellInfo; PACKED_COMBOS] {
    static TABLES: [[OnceLock<[CellInfo; PACKED_COMBOS]>; 2]; classical::WeightSet::ALL.len()] =
        [const { [const { OnceLock::new() }; 2] }; classical::WeightSet::ALL.len()];
    let set = classical::WeightSet::of(rule);
    TABLES[set as usize][renju_black as usize].get_or_init(|| {
        let combos = if renju_black {
            classical::renju_black_combo_table()
        } else {
            classical::combo_table(set)
        };
        let mut t = [0; PACKED_COMBOS];
        for (packed, info) in t.iter_mut().enumerate() {
            let (class, score) = combos[packed];
            *info = (score as u16 as u32) << INFO_SCORE_SHIFT
                | (packed as u32) << INFO_PACKED_SHIFT
                | (class as u32) << INFO_CLASS_SHIFT;
        }
        t
    })
}

/// The ten neighbours a key holds: offset along the direction and bit position in the key.
const NEIGHBOURS: [(isize, u32); 10] = {
    let mut t = [(0, 0); 10];
    let mut i = 0;
    while i < 10 {
        let off = if i < 5 {
            i as isize - 5
        } else {
            i as isize - 4
        };
        t[i] = (off, slot_shift(off));
        i += 1;
    }
    t
};

/// How far a key reaches in the padded array (5 steps along the longest direction step), and
/// the window of cells a move's update touches.
const REACH: usize = 5 * (STRIDE + 1);
const WINDOW: usize = 2 * REACH + 1;
const _: () = assert!(PAD * STRIDE + PAD >= REACH);

/// What `undo` restores besides the saved cell infos.
#[derive(Clone, Copy)]
struct PlyUndo {
    saved_from: u32,
    score_sum: [i32; 2],
    class_count: [[u16; CLASS_COUNT]; 2],
    area: StoneArea,
}

/// The smallest rectangle holding every stone: x from `x0` to `x1`, y from `y0` to `y1`
/// (inclusive); `x0 > x1` when there is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StoneArea {
    x0: u8,
    x1: u8,
    y0: u8,
    y1: u8,
}

impl StoneArea {
    const NONE: StoneArea = StoneArea {
        x0: u8::MAX,
        x1: 0,
        y0: u8::MAX,
        y1: 0,
    };

    #[inline]
    fn add(&mut self, p: Pos) {
        let (x, y) = (p.x() as u8, p.y() as u8);
        self.x0 = self.x0.min(x);
        self.x1 = self.x1.max(x);
        self.y0 = self.y0.min(y);
        self.y1 = self.y1.max(y);
    }
}

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
    /// Per empty cell and colour, what a stone of that colour there makes, as a [`CellInfo`]
    /// word: both colours of a cell share one 8-byte slot, so an update touches one cache line.
    info: [[CellInfo; 2]; CELLS],
    score_sum: [i32; 2],
    class_count: [[u16; CLASS_COUNT]; 2],
    table: &'static RuleTable,
    /// Per colour, the cell info of every packed combination.
    infos: [&'static [CellInfo; PACKED_COMBOS]; 2],
    additive: &'static [i16; PACKED_COMBOS],
    order: &'static [i16; PACKED_COMBOS],
    /// The cell infos each move changed (cell index and old value), so `undo` restores them
    /// instead of recomputing; `plies` holds one entry per move of a suffix of `history`.
    saved: Vec<(u16, [CellInfo; 2])>,
    plies: Vec<PlyUndo>,
    hash: u64,
    side_to_move: Color,
    history: Vec<(Pos, Color)>,
    stones: usize,
    walls: usize,
    area: StoneArea,
}

impl Board {
    /// A 15x15 test position: these stones (black's first), `to_move` to play.
    #[cfg(test)]
    pub fn from_stones(
        rule: Rule,
        black: &[(i64, i64)],
        white: &[(i64, i64)],
        to_move: Color,
    ) -> Board {
        let mut b = Board::new(15, 15, rule).unwrap();
        for &(x, y) in black {
            b.try_play(x, y, Color::Black).unwrap();
        }
        for &(x, y) in white {
            b.try_play(x, y, Color::White).unwrap();
        }
        b.set_side_to_move(to_move);
        b
    }

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
            info: [[0; 2]; CELLS],
            score_sum: [0; 2],
            class_count: [[0; CLASS_COUNT]; 2],
            table: RuleTable::get(rule),
            infos: [
                info_table(rule, rule.has_forbidden()),
                info_table(rule, false),
            ],
            additive: classical::additive_table(),
            order: classical::order_table(),
            saved: Vec::with_capacity(64 * 32),
            plies: Vec::with_capacity(64),
            hash: 0,
            side_to_move: Color::Black,
            history: Vec::with_capacity(MAX_SIZE * MAX_SIZE),
            stones: 0,
            walls: 0,
            area: StoneArea::NONE,
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
        self.recompute_area();
        self.keys = [[0; CELLS]; 4];
        self.near = [0; CELLS];
        self.info = [[0; 2]; CELLS];
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
                self.set_cell_info(p.idx());
            }
        }
    }

    fn recompute_area(&mut self) {
        self.area = StoneArea::NONE;
        for &(p, _) in &self.history {
            self.area.add(p);
        }
    }

    #[inline]
    fn add_near(&mut self, p: Pos, delta: i8) {
        // The 5x5 square as a window of the array from its first cell (one bounds check).
        const SPAN: usize = 4 * STRIDE + 5;
        let first = p.idx() - 2 * STRIDE - 2;
        let square: &mut [u8; SPAN] = (&mut self.near[first..first + SPAN]).try_into().unwrap();
        for row in square.chunks_mut(STRIDE) {
            for n in &mut row[..5] {
                *n = n.wrapping_add(delta as u8);
            }
        }
    }

    /// Computes the patterns of the empty cell `p` from its keys and adds its value.
    #[inline]
    fn set_cell_info(&mut self, p: usize) {
        let entries = [0, 1, 2, 3].map(|d| self.table.entry(self.keys[d][p]));
        let mut new = [0; 2];
        for (c, info) in new.iter_mut().enumerate() {
            let mut packed = 0;
            for (d, e) in entries.iter().enumerate() {
                packed |= ((e >> (8 * c)) & 7) << (3 * d);
            }
            *info = self.infos[c][packed as usize];
            self.score_sum[c] += info_score(*info);
            self.class_count[c][info_class(*info) as usize] += 1;
        }
        self.info[p] = new;
    }

    /// The key of direction `d` of the empty cell `q` changed: update that pattern and, when it
    /// changed, the cell's value.
    #[inline(always)]
    fn refresh_direction(&mut self, q: usize, d: usize) {
        let entry = self.table.entry(self.keys[d][q]);
        let old = self.info[q];
        let shift = INFO_PACKED_SHIFT + 3 * d as u32;
        let (old_b, old_w) = ((old[0] >> shift) & 7, (old[1] >> shift) & 7);
        let (new_b, new_w) = (entry & 7, (entry >> 8) & 7);
        if old_b == new_b && old_w == new_w {
            return;
        }
        let mask = !(7 << (3 * d));
        let new = [
            self.infos[0][((info_packed(old[0]) & mask) | new_b << (3 * d)) as usize],
            self.infos[1][((info_packed(old[1]) & mask) | new_w << (3 * d)) as usize],
        ];
        for c in 0..2 {
            self.score_sum[c] += info_score(new[c]) - info_score(old[c]);
            self.class_count[c][info_class(old[c]) as usize] -= 1;
            self.class_count[c][info_class(new[c]) as usize] += 1;
        }
        self.info[q] = new;
    }

    #[inline]
    fn clear_cell_info(&mut self, p: usize) {
        for c in 0..2 {
            let info = self.info[p][c];
            self.score_sum[c] -= info_score(info);
            self.class_count[c][info_class(info) as usize] -= 1;
        }
        self.info[p] = [0; 2];
    }

    /// Writes `value` into the cell and every key that sees it, keeping cell infos current.
    /// The general path, for walls and for taking back moves older than a wall; `play` uses
    /// [`Board::put_stone`] and `undo` [`Board::unput`].
    fn put(&mut self, p: Pos, value: Cell) {
        let p = p.idx();
        if self.cells[p] == Cell::Empty as u8 {
            self.clear_cell_info(p);
        }
        self.cells[p] = value as u8;
        for (di, &d) in DIRS.iter().enumerate() {
            for &(off, shift) in NEIGHBOURS.iter() {
                // `p` sits at offset `off` from q = p - off*d.
                let q = (p as isize - off * d) as usize;
                let k = &mut self.keys[di][q];
                *k = (*k & !(3 << shift)) | ((value as u32) << shift);
                if self.cells[q] == Cell::Empty as u8 {
                    self.refresh_direction(q, di);
                }
            }
        }
        if value == Cell::Empty {
            self.set_cell_info(p);
        }
    }

    /// `put` for a move: a stone `value` on the empty on-board cell `p`, saving the old infos of
    /// the cells it changes for `undo`.
    #[inline(always)]
    fn put_stone(&mut self, p: Pos, value: Cell) {
        let p = p.idx();
        self.saved.push((p as u16, self.info[p]));
        self.clear_cell_info(p);
        self.cells[p] = value as u8;
        let v = value as u32;
        self.put_stone_dir::<0>(p, v);
        self.put_stone_dir::<1>(p, v);
        self.put_stone_dir::<2>(p, v);
        self.put_stone_dir::<3>(p, v);
    }

    /// The keys of direction `DI` that see `p` get the stone `v`; the empty cells among them
    /// whose patterns change are updated. The loop runs over windows of the arrays centred on
    /// `p` (one bounds check each), so every neighbour is a constant offset in them.
    #[inline(always)]
    fn put_stone_dir<const DI: usize>(&mut self, p: usize, v: u32) {
        let d = DIRS[DI];
        let range = p - REACH..p + REACH + 1;
        let keys: &mut [u32; WINDOW] = (&mut self.keys[DI][range.clone()]).try_into().unwrap();
        let cells: &[u8; WINDOW] = self.cells[range.clone()].try_into().unwrap();
        let info: &mut [[CellInfo; 2]; WINDOW] = (&mut self.info[range]).try_into().unwrap();
        let table = self.table;
        let infos = self.infos;
        let saved = &mut self.saved;
        let score_sum = &mut self.score_sum;
        let class_count = &mut self.class_count;
        // A macro rather than a closure, which the compiler would not inline.
        macro_rules! step {
            ($off:expr) => {{
                let off: isize = $off;
                let i = (REACH as isize - off * d) as usize;
                let shift = slot_shift(off);
                let key = (keys[i] & !(3 << shift)) | v << shift;
                keys[i] = key;
                // Every neighbour is looked up, and one branch decides whether its patterns
                // changed: a stone or wall there (info 0) counts as unchanged. Fewer branch
                // mispredictions than testing the cell first.
                let empty = 0u32.wrapping_sub((cells[i] == Cell::Empty as u8) as u32);
                let entry = table.entry(key);
                let old = info[i];
                let shift = INFO_PACKED_SHIFT + 3 * DI as u32;
                let (old_b, old_w) = ((old[0] >> shift) & 7, (old[1] >> shift) & 7);
                let (new_b, new_w) = (entry & 7, (entry >> 8) & 7);
                if ((old_b ^ new_b) | (old_w ^ new_w)) & empty != 0 {
                    saved.push(((p + i - REACH) as u16, old));
                    let mask = !(7 << (3 * DI));
                    let new = [
                        infos[0]
                            [(((info_packed(old[0]) & mask) | new_b << (3 * DI)) & 0xfff) as usize],
                        infos[1]
                            [(((info_packed(old[1]) & mask) | new_w << (3 * DI)) & 0xfff) as usize],
                    ];
                    for c in 0..2 {
                        score_sum[c] += info_score(new[c]) - info_score(old[c]);
                        class_count[c][info_class(old[c]) as usize] -= 1;
                        class_count[c][info_class(new[c]) as usize] += 1;
                    }
                    info[i] = new;
                }
            }};
        }
        // Written out so that every offset is a constant.
        step!(-5);
        step!(-4);
        step!(-3);
        step!(-2);
        step!(-1);
        step!(1);
        step!(2);
        step!(3);
        step!(4);
        step!(5);
    }

    /// Takes back the stone on `p` of the move whose saved infos start at `ply.saved_from`.
    #[inline(always)]
    fn unput(&mut self, p: Pos, ply: PlyUndo) {
        let p = p.idx();
        self.cells[p] = Cell::Empty as u8;
        for (di, &d) in DIRS.iter().enumerate() {
            let keys: &mut [u32; WINDOW] = (&mut self.keys[di][p - REACH..p + REACH + 1])
                .try_into()
                .unwrap();
            for &(off, shift) in NEIGHBOURS.iter() {
                keys[(REACH as isize - off * d) as usize] &= !(3 << shift);
            }
        }
        for &(q, info) in self.saved[ply.saved_from as usize..].iter().rev() {
            self.info[q as usize] = info;
        }
        self.saved.truncate(ply.saved_from as usize);
        self.score_sum = ply.score_sum;
        self.class_count = ply.class_count;
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
    /// What playing `c` on `p` XORs into [`Board::hash`] (the stone and the side to move), so a
    /// child's key is known without playing the move.
    #[inline]
    pub fn move_key(p: Pos, c: Color) -> u64 {
        ZOBRIST[c.idx()][p.idx()] ^ ZOBRIST_WHITE_TO_MOVE
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
    /// The cells within two of the rectangle around the stones, row by row (the order of
    /// [`Board::cells_iter`]): every cell [`Board::near`] a stone is among them. As ranges of x
    /// and y; both empty on a board without stones.
    #[inline]
    pub fn near_area(&self) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let a = self.area;
        if a.x0 > a.x1 {
            return (0..0, 0..0);
        }
        let xs = (a.x0 as usize).saturating_sub(2)..(a.x1 as usize + 3).min(self.width);
        let ys = (a.y0 as usize).saturating_sub(2)..(a.y1 as usize + 3).min(self.height);
        (xs, ys)
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
        info_class(self.info[p.idx()][c.idx()])
    }
    /// The cell's value for colour `c` under the fixed additive model
    /// ([`classical::additive_value`]): the threat solvers' move order.
    #[inline]
    pub fn additive_score(&self, c: Color, p: Pos) -> i32 {
        self.additive[info_packed(self.info[p.idx()][c.idx()]) as usize] as i32
    }
    /// The cell's move-order value for colour `c` ([`classical::order_table`]).
    #[inline]
    pub fn order_score(&self, c: Color, p: Pos) -> i32 {
        self.order[info_packed(self.info[p.idx()][c.idx()]) as usize] as i32
    }
    #[inline]
    pub fn cell_score(&self, c: Color, p: Pos) -> i32 {
        info_score(self.info[p.idx()][c.idx()])
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

    /// Whether `c` has an open-four point it may play. Under renju black's can all be fouls
    /// that the cell classes do not show (a straight four that also makes an overline or two
    /// real threes; fours in two lines, or two in one line, have a four's class already).
    pub fn has_legal_open_four(&mut self, c: Color) -> bool {
        if self.class_count(c, classical::C_OPEN_FOUR) == 0 {
            return false;
        }
        if c == Color::White || !self.rule.has_forbidden() {
            return true;
        }
        // A straight four's point touches its stones, so it lies in the near area.
        let (xs, ys) = self.near_area();
        for y in ys {
            for x in xs.clone() {
                let p = Pos::new(x, y);
                if self.is_empty(p)
                    && self.class(c, p) == classical::C_OPEN_FOUR
                    && (!self.straight_four_may_be_foul(p) || self.foul(p).is_none())
                {
                    return true;
                }
            }
        }
        false
    }

    /// Cheap necessary condition for a foul on black's open-four point `p` under renju. The
    /// point's class says it makes one straight four and no other four (see
    /// `classical::renju_black_combo_table`), so it can only be an overline or a double-three,
    /// and a real three shows as an open three in its line.
    fn straight_four_may_be_foul(&self, p: Pos) -> bool {
        let t = self.table.colour(Color::Black);
        let mut threes = 0;
        for d in 0..4 {
            let e = t.entry(self.keys[d][p.idx()]);
            if e & super::pattern::OVERLINE_FLAG != 0 {
                return true;
            }
            threes += (Pattern::from_code(e) == Pattern::OpenThree) as u32;
        }
        threes >= 2
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
            // An overline or two fours in one line is a foul alone; a straight four is one
            // with any other threat.
            if e & (super::pattern::OVERLINE_FLAG | super::pattern::LINE_DOUBLE_FOUR_FLAG) != 0
                || pat == Pattern::OpenFour
            {
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
        self.plies.push(PlyUndo {
            saved_from: self.saved.len() as u32,
            score_sum: self.score_sum,
            class_count: self.class_count,
            area: self.area,
        });
        self.area.add(p);
        self.put_stone(p, c.cell());
        self.add_near(p, 1);
        self.hash ^= ZOBRIST[c.idx()][p.idx()];
        self.history.push((p, c));
        self.stones += 1;
        self.side_to_move = c.other();
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<(Pos, Color)> {
        let (p, c) = self.history.pop()?;
        // `plies` covers the latest moves; older ones (before a wall was placed) are recomputed.
        match self.plies.pop() {
            Some(ply) => {
                self.area = ply.area;
                self.unput(p, ply);
            }
            None => {
                self.put(p, Cell::Empty);
                self.recompute_area();
            }
        }
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
            // The saved infos of earlier moves do not know the wall.
            self.saved.clear();
            self.plies.clear();
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
        }) && self.info == other.info
            && self.score_sum == other.score_sum
            && self.class_count == other.class_count
            && self.area == other.area
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
    fn black_open_four_points_are_fouls_only_where_the_prefilter_says_they_may_be() {
        // Dense random renju positions in the centre: every black open-four point the prefilter
        // passes is legal, `has_legal_open_four` agrees with the full check of every cell, and
        // so does `is_legal` (its fast path reads black's renju line table).
        let mut seed = 19;
        let (mut fouls, mut passed) = (0, 0);
        for _ in 0..1000 {
            let mut b = Board::new(15, 15, Rule::Renju).unwrap();
            // Two black stones for each white one: black's lines cross often.
            for i in 0..42 {
                let c = if i % 3 == 2 {
                    Color::White
                } else {
                    Color::Black
                };
                let p = Pos::new(
                    3 + lcg(&mut seed) as usize % 9,
                    3 + lcg(&mut seed) as usize % 9,
                );
                if b.is_empty(p) && !b.is_winning_move(p, c) {
                    b.play(p, c);
                }
            }
            let mut any_legal = false;
            for p in b.cells_iter() {
                if !b.is_empty(p) {
                    continue;
                }
                // The fast path of `is_legal` misses no foul.
                let legal = b.foul(p).is_none();
                assert_eq!(b.is_legal(p, Color::Black), legal, "{p:?}");
                if b.class(Color::Black, p) != classical::C_OPEN_FOUR {
                    continue;
                }
                let foul = b.foul(p).is_some();
                if foul {
                    fouls += 1;
                    assert!(b.straight_four_may_be_foul(p), "{p:?}");
                } else {
                    passed += !b.straight_four_may_be_foul(p) as usize;
                    any_legal = true;
                }
            }
            assert_eq!(b.has_legal_open_four(Color::Black), any_legal);
        }
        assert!(
            fouls >= 10 && passed >= 100,
            "{fouls} fouls, {passed} passed"
        );
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
    fn undo_across_a_wall_placed_after_moves_recomputes() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            let mut b = Board::new(15, 15, rule).unwrap();
            for (i, (x, y)) in [(7, 7), (8, 8), (7, 8), (9, 9), (6, 9)].iter().enumerate() {
                let c = if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                b.try_play(*x, *y, c).unwrap();
            }
            b.place_wall(Pos::new(8, 7));
            b.play(Pos::new(5, 10), Color::White);
            while b.undo().is_some() {
                assert!(b.derived_state_matches(&b.recomputed()), "{rule:?}");
            }
            assert!(!b.is_empty(Pos::new(8, 7)));
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
