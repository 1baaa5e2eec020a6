//! Line patterns: what a stone placed on an empty cell makes in one direction.
//!
//! A cell's neighbourhood in one direction is a 20-bit key: two bits (see [`Cell`]) for each of
//! the cells at offsets -5..-1 and +1..+5. The key determines, for each colour and rule, the
//! pattern the colour makes by playing the cell. Tables are filled lazily (an entry is computed
//! the first time it is read) so start-up costs nothing; the values are pure functions of the key,
//! so the order of filling never changes a result.

use super::pos::{Cell, Color};
use super::rule::{FiveKind, Rule};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// Number of distinct keys.
pub const KEY_SPACE: usize = 1 << 20;

/// The pattern a stone makes in one direction, weakest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum Pattern {
    None = 0,
    /// One more stone makes a (closed) three.
    Two = 1,
    /// One more stone makes an open three.
    OpenTwo = 2,
    /// One more stone makes a four.
    Three = 3,
    /// One more stone makes an open four.
    OpenThree = 4,
    /// One point completes a five.
    Four = 5,
    /// Two or more points complete a five (a straight four, or two fours in one line).
    OpenFour = 6,
    Five = 7,
}

impl Pattern {
    pub const COUNT: usize = 8;
    #[inline]
    pub fn from_code(c: u8) -> Pattern {
        match c & 7 {
            0 => Pattern::None,
            1 => Pattern::Two,
            2 => Pattern::OpenTwo,
            3 => Pattern::Three,
            4 => Pattern::OpenThree,
            5 => Pattern::Four,
            6 => Pattern::OpenFour,
            _ => Pattern::Five,
        }
    }
}

/// Set in a table entry when the stone makes a run of six or more of its colour.
pub const OVERLINE_FLAG: u8 = 8;
/// Set in black's renju table when the stone makes two fours in one line (see
/// [`PatternTable::renju_black`]).
pub const LINE_DOUBLE_FOUR_FLAG: u8 = 16;
const COMPUTED_FLAG: u8 = 0x80;

/// Bit position of the neighbour at `offset` (-5..=5, not 0) inside a key.
#[inline]
pub const fn slot_shift(offset: isize) -> u32 {
    let slot = if offset < 0 { offset + 5 } else { offset + 4 };
    (slot * 2) as u32
}

/// Both colours' patterns for one rule, found from a key in two small steps instead of one
/// 2 MB table (which missed the caches on most reads of the board's update).
///
/// What a stone on the centre makes depends, on each side, only on the own stones and empty
/// points before the first other cell (an opponent stone or the edge) and, in caro, on which of
/// the two that cell is: nothing beyond it can join a run through the centre, and a stone added
/// there only repeats the pattern one step weaker (see [`PatternTable::compute`]). So each half of
/// the key (its five cells on one side) maps, per colour, to one of a few dozen classes, and a
/// table of class pairs gives the pattern: about 30 KB per rule, which stays in cache.
pub struct RuleTable {
    colours: [&'static PatternTable; 2],
    /// Per low half of a key (offsets -5..-1): black's class times black's class count in bits
    /// 0..16, white's class times white's class count in bits 16..32.
    left: Box<[u32; HALF_SPACE]>,
    /// Per high half (offsets +1..+5): black's class in bits 0..16, white's in bits 16..32, so
    /// `left + right` holds both colours' indices into their pair tables.
    right: Box<[u32; HALF_SPACE]>,
    /// Per colour, the pattern code of every class pair (left class * count + right class); the
    /// tables are 64 Ki entries long so a 16-bit index needs no bounds check.
    pairs: [&'static PairTable; 2],
}

/// Number of distinct half keys (five cells of two bits).
const HALF_SPACE: usize = 1 << 10;

type PairTable = [u8; 1 << 16];

static RULE_TABLES: [OnceLock<RuleTable>; 5] = [
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
];

/// The class of a half window: its cells nearest first in own-relative codes (0 empty, 1 own,
/// 2 opponent, 3 edge), kept up to the first cell that is neither own nor empty; past that cell
/// every cell reads as edge, and that cell too unless `caro` (where an opponent stone and the
/// edge block a five differently).
fn canonical_half(cells: [u8; 5], caro: bool) -> u16 {
    let mut out = [3u8; 5];
    for (o, &c) in out.iter_mut().zip(cells.iter()) {
        if c <= 1 {
            *o = c;
        } else {
            *o = if caro { c } else { 3 };
            break;
        }
    }
    out.iter().rev().fold(0, |acc, &c| acc << 2 | c as u16)
}

/// The distinct classes of half windows, sorted (as [`canonical_half`] values).
fn half_classes(caro: bool) -> Vec<u16> {
    let mut classes: Vec<u16> = (0..HALF_SPACE)
        .map(|h| canonical_half(std::array::from_fn(|i| (h >> (2 * i)) as u8 & 3), caro))
        .collect();
    classes.sort_unstable();
    classes.dedup();
    classes
}

fn is_caro(kind: FiveKind) -> bool {
    matches!(kind, FiveKind::CaroOverline | FiveKind::CaroExact)
}

/// The pair table of a five rule: the pattern black makes with the left and right half classes
/// (the same for white with colours swapped, as [`PatternTable::compute`] treats both alike).
fn pair_table(kind: FiveKind) -> &'static PairTable {
    static PAIRS: [OnceLock<Box<PairTable>>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    PAIRS[kind.index()].get_or_init(|| build_pair_table(PatternTable::get(kind, Cell::Black)))
}

/// Black's pair table in renju, from [`PatternTable::renju_black`].
fn renju_black_pair_table() -> &'static PairTable {
    static PAIRS: OnceLock<Box<PairTable>> = OnceLock::new();
    PAIRS.get_or_init(|| build_pair_table(PatternTable::renju_black()))
}

fn build_pair_table(black: &'static PatternTable) -> Box<PairTable> {
    let classes = half_classes(is_caro(black.kind));
    let n = classes.len();
    assert!(n * n <= 1 << 16);
    let mut t: Box<PairTable> = vec![0u8; 1 << 16].try_into().expect("64 Ki entries");
    for (i, &l) in classes.iter().enumerate() {
        for (j, &r) in classes.iter().enumerate() {
            let mut key = 0u32;
            for k in 0..5 {
                let off = k as isize + 1;
                key |= ((l >> (2 * k)) as u32 & 3) << slot_shift(-off);
                key |= ((r >> (2 * k)) as u32 & 3) << slot_shift(off);
            }
            t[i * n + j] = black.entry(key) & 7;
        }
    }
    t
}

impl RuleTable {
    pub fn get(rule: Rule) -> &'static RuleTable {
        let index = match rule {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 2,
            Rule::Caro {
                overline_wins: true,
            } => 3,
            Rule::Caro {
                overline_wins: false,
            } => 4,
        };
        RULE_TABLES[index].get_or_init(|| {
            let kinds = [Color::Black, Color::White].map(|c| rule.five_kind(c));
            let classes = kinds.map(|k| half_classes(is_caro(k)));
            // The class of a half (cells nearest first, absolute codes) for each colour.
            let ids = |cells: [u8; 5]| {
                [0, 1].map(|c| {
                    let rel = cells.map(|x| {
                        if c == 1 && (x == 1 || x == 2) {
                            3 - x
                        } else {
                            x
                        }
                    });
                    let canon = canonical_half(rel, is_caro(kinds[c]));
                    classes[c]
                        .binary_search(&canon)
                        .expect("every class is listed") as u32
                })
            };
            let mut left: Box<[u32; HALF_SPACE]> =
                vec![0u32; HALF_SPACE].try_into().expect("1 Ki entries");
            let mut right = left.clone();
            for h in 0..HALF_SPACE as u32 {
                let near_first = |offset_shift: fn(usize) -> u32| {
                    std::array::from_fn(|k| (h >> offset_shift(k)) as u8 & 3)
                };
                let [b, w] = ids(near_first(|k| slot_shift(-(k as isize) - 1)));
                left[h as usize] =
                    (b * classes[0].len() as u32) | ((w * classes[1].len() as u32) << 16);
                let [b, w] = ids(near_first(|k| slot_shift(k as isize + 1) - 10));
                right[h as usize] = b | w << 16;
            }
            let (black, black_pairs) = if rule == Rule::Renju {
                (PatternTable::renju_black(), renju_black_pair_table())
            } else {
                (
                    PatternTable::get(kinds[0], Cell::Black),
                    pair_table(kinds[0]),
                )
            };
            RuleTable {
                colours: [black, PatternTable::get(kinds[1], Cell::White)],
                left,
                right,
                pairs: [black_pairs, pair_table(kinds[1])],
            }
        })
    }

    /// Black's pattern code in bits 0..3, white's in bits 8..11 (as [`PatternTable::entry`],
    /// without the overline flag).
    #[inline(always)]
    pub fn entry(&self, key: u32) -> u32 {
        let s = self.left[key as usize & (HALF_SPACE - 1)]
            + self.right[(key >> 10) as usize & (HALF_SPACE - 1)];
        self.pairs[0][s as usize & 0xffff] as u32 | (self.pairs[1][(s >> 16) as usize] as u32) << 8
    }

    /// The table of one colour.
    #[inline]
    pub fn colour(&self, c: Color) -> &'static PatternTable {
        self.colours[c.idx()]
    }
}

/// One lazily filled table: the patterns of one colour under one five rule.
pub struct PatternTable {
    own: u8,
    opp: u8,
    kind: FiveKind,
    /// Black's table in renju: two fours in one line are a double-four, a foul, and read as
    /// a four (with [`LINE_DOUBLE_FOUR_FLAG`]), here and in the patterns one stone before.
    renju_black: bool,
    entries: Box<[AtomicU8]>,
}

static TABLES: [[OnceLock<PatternTable>; 2]; 4] = [
    [OnceLock::new(), OnceLock::new()],
    [OnceLock::new(), OnceLock::new()],
    [OnceLock::new(), OnceLock::new()],
    [OnceLock::new(), OnceLock::new()],
];

impl PatternTable {
    /// The shared table for stones with cell code `own_cell` (Black or White) under `kind`.
    pub fn get(kind: FiveKind, own_cell: Cell) -> &'static PatternTable {
        let colour = if own_cell == Cell::Black { 0 } else { 1 };
        TABLES[kind.index()][colour].get_or_init(|| PatternTable::new(kind, own_cell, false))
    }

    /// Black's table under renju: exact fives, and two fours in one line (`X.X*X.X`) read as
    /// a four. They are a double-four, a foul, so they threaten no open four (and a stone one
    /// move before them makes no open three); as a four they still count towards a double-four
    /// with any other line, which the renju cell classes treat as a foul too (see
    /// `eval::classical::renju_black_combo_table`).
    pub fn renju_black() -> &'static PatternTable {
        static TABLE: OnceLock<PatternTable> = OnceLock::new();
        TABLE.get_or_init(|| PatternTable::new(FiveKind::Exact, Cell::Black, true))
    }

    fn new(kind: FiveKind, own_cell: Cell, renju_black: bool) -> PatternTable {
        PatternTable {
            own: own_cell as u8,
            opp: if own_cell == Cell::Black {
                Cell::White as u8
            } else {
                Cell::Black as u8
            },
            kind,
            renju_black,
            entries: (0..KEY_SPACE).map(|_| AtomicU8::new(0)).collect(),
        }
    }

    /// The entry for `key`: pattern code in the low 3 bits, [`OVERLINE_FLAG`].
    #[inline]
    pub fn entry(&self, key: u32) -> u8 {
        let slot = &self.entries[key as usize & (KEY_SPACE - 1)];
        let v = slot.load(Ordering::Relaxed);
        if v & COMPUTED_FLAG != 0 {
            return v & !COMPUTED_FLAG;
        }
        let v = self.compute(key);
        slot.store(v | COMPUTED_FLAG, Ordering::Relaxed);
        v
    }

    #[inline]
    pub fn pattern(&self, key: u32) -> Pattern {
        Pattern::from_code(self.entry(key))
    }

    /// Computes an entry from the entries of the keys with one more own stone: a point that
    /// completes a five is counted, every other point contributes its pattern one step weaker
    /// (an open four one stone away is an open three, and so on). The recursion adds a stone per
    /// level, so it ends; its results fill the table too.
    fn compute(&self, key: u32) -> u8 {
        let line = decode(key, self.own);
        let mut flags = 0;
        let (a, b) = self.run(&line, 5);
        if b - a + 1 >= 6 {
            flags |= OVERLINE_FLAG;
        }
        if self.centre_five(&line) {
            return flags | Pattern::Five as u8;
        }
        let mut fives = 0;
        let mut points = [0isize; 2];
        let mut best = Pattern::None;
        for off in -4isize..=4 {
            if off == 0 || line[(off + 5) as usize] != Cell::Empty as u8 {
                continue;
            }
            let next = key | (self.own as u32) << slot_shift(off);
            match self.pattern(next) {
                Pattern::Five => {
                    if fives < 2 {
                        points[fives] = off;
                    }
                    fives += 1;
                }
                p => best = best.max(weaker(p)),
            }
        }
        if self.renju_black && fours_in_line(fives, points) >= 2 {
            return flags | LINE_DOUBLE_FOUR_FLAG | Pattern::Four as u8;
        }
        flags
            | match fives {
                0 => best,
                1 => Pattern::Four,
                _ => Pattern::OpenFour,
            } as u8
    }

    /// The bounds [a, b] of the own run through index `i` (the window edge ends a run).
    fn run(&self, line: &[u8; 11], i: usize) -> (usize, usize) {
        let mut a = i;
        while a > 0 && line[a - 1] == self.own {
            a -= 1;
        }
        let mut b = i;
        while b < 10 && line[b + 1] == self.own {
            b += 1;
        }
        (a, b)
    }

    /// Whether the own run through the centre is a winning five.
    fn centre_five(&self, line: &[u8; 11]) -> bool {
        let (a, b) = self.run(line, 5);
        let len = b - a + 1;
        let mut blocked = 0;
        if a > 0 && line[a - 1] == self.opp {
            blocked += 1;
        }
        if b < 10 && line[b + 1] == self.opp {
            blocked += 1;
        }
        self.kind.wins(len, blocked)
    }

    /// The number of empty points that complete a five through the centre stone.
    #[cfg(test)]
    fn five_points(&self, line: &mut [u8; 11]) -> usize {
        let mut n = 0;
        let mut points = [0isize; 2];
        for j in 1..10 {
            if j != 5 && line[j] == Cell::Empty as u8 {
                line[j] = self.own;
                if self.centre_five(line) {
                    if n < 2 {
                        points[n] = j as isize;
                    }
                    n += 1;
                }
                line[j] = Cell::Empty as u8;
            }
        }
        // Black's two fours in one line under renju: a foul, as good as a single four.
        if self.renju_black && fours_in_line(n, points) >= 2 {
            return 1;
        }
        n
    }

    /// Reference for the table: the best pattern the centre stone (placed) makes, found by
    /// trying up to two more own stones directly.
    #[cfg(test)]
    fn classify(&self, line: &mut [u8; 11]) -> Pattern {
        if self.centre_five(line) {
            return Pattern::Five;
        }
        match self.five_points(line) {
            0 => {}
            1 => return Pattern::Four,
            _ => return Pattern::OpenFour,
        }
        let mut best = Pattern::None;
        for j in 1..10 {
            if j == 5 || line[j] != Cell::Empty as u8 {
                continue;
            }
            line[j] = self.own;
            let fives = self.five_points(line);
            let next = if fives >= 2 {
                Pattern::OpenThree
            } else if fives == 1 {
                Pattern::Three
            } else if best < Pattern::OpenTwo {
                // One more stone after this one: is there an open three or a three?
                let mut two = Pattern::None;
                for k in 1..10 {
                    if k == 5 || line[k] != Cell::Empty as u8 {
                        continue;
                    }
                    line[k] = self.own;
                    let f = self.five_points(line);
                    line[k] = Cell::Empty as u8;
                    if f >= 2 {
                        two = Pattern::OpenTwo;
                        break;
                    } else if f == 1 {
                        two = Pattern::Two;
                    }
                }
                two
            } else {
                Pattern::None
            };
            line[j] = Cell::Empty as u8;
            best = best.max(next);
            if best == Pattern::OpenThree {
                break;
            }
        }
        best
    }
}

/// The 11-cell window of a key with `own` on the centre.
fn decode(key: u32, own: u8) -> [u8; 11] {
    let mut line = [0u8; 11];
    for off in -5isize..=5 {
        if off != 0 {
            line[(off + 5) as usize] = ((key >> slot_shift(off)) & 3) as u8;
        }
    }
    line[5] = own;
    line
}

/// How many fours a stone makes in one line, counted as the renju referee counts them, from
/// the number of its five points and the offsets of the first two: one five point is one four,
/// two five points five apart (the ends of a straight four) are one, and any other two or more
/// are two (`X.X*X.X`: a double-four in one line).
fn fours_in_line(fives: usize, points: [isize; 2]) -> usize {
    match fives {
        0 => 0,
        1 => 1,
        2 if points[1] - points[0] == 5 => 1,
        _ => 2,
    }
}

/// What a pattern one stone away is worth now.
fn weaker(p: Pattern) -> Pattern {
    match p {
        Pattern::OpenFour => Pattern::OpenThree,
        Pattern::Four => Pattern::Three,
        Pattern::OpenThree => Pattern::OpenTwo,
        Pattern::Three => Pattern::Two,
        _ => Pattern::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_agrees_with_direct_classification() {
        let mut seed = 7u64;
        let tables = FiveKind::ALL
            .iter()
            .flat_map(|&kind| [Cell::Black, Cell::White].map(|own| PatternTable::get(kind, own)))
            .chain([PatternTable::renju_black()]);
        for t in tables {
            let (kind, own) = (t.kind, if t.own == 1 { Cell::Black } else { Cell::White });
            for _ in 0..20_000 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Bias towards own stones and empties, as real lines are.
                let mut key = 0u32;
                for off in (-5isize..=5).filter(|&o| o != 0) {
                    let r = (seed >> ((off + 5) as u32 * 3)) & 7;
                    let v = match r {
                        0..=2 => 0,
                        3..=5 => own as u32,
                        6 => 3 - own as u32,
                        _ => 3,
                    };
                    key |= v << slot_shift(off);
                }
                let mut line = decode(key, own as u8);
                let direct = t.classify(&mut line);
                assert_eq!(t.pattern(key), direct, "{kind:?} {own:?} key {key:#x}");
            }
        }
    }

    #[test]
    fn rule_table_agrees_with_colour_tables() {
        for rule in Rule::ALL {
            let t = RuleTable::get(rule);
            let check = |key: u32| {
                let want = (t.colour(Color::Black).entry(key) & 7) as u32
                    | ((t.colour(Color::White).entry(key) & 7) as u32) << 8;
                assert_eq!(t.entry(key), want, "{rule:?} key {key:#x}");
            };
            // Every key: the halves' classes must determine both colours' patterns.
            for key in 0..KEY_SPACE as u32 {
                check(key);
            }
        }
    }

    /// Builds a key from a picture of the 11-cell window: `x` own, `o` opponent, `#` wall,
    /// `.` empty; the centre character (index 5) must be `.` or `*`.
    fn key(pic: &str, own_black: bool) -> u32 {
        assert_eq!(pic.len(), 11);
        let (own, opp) = if own_black { (1u32, 2u32) } else { (2, 1) };
        let mut k = 0;
        for (i, ch) in pic.chars().enumerate() {
            let off = i as isize - 5;
            if off == 0 {
                continue;
            }
            let v = match ch {
                'x' => own,
                'o' => opp,
                '#' => 3,
                _ => 0,
            };
            k |= v << slot_shift(off);
        }
        k
    }

    fn pat(kind: FiveKind, pic: &str) -> Pattern {
        PatternTable::get(kind, Cell::Black).pattern(key(pic, true))
    }

    #[test]
    fn freestyle_patterns() {
        let k = FiveKind::AtLeast;
        assert_eq!(pat(k, "...xx*xx..."), Pattern::Five);
        assert_eq!(pat(k, "..xxx*xx..."), Pattern::Five);
        assert_eq!(pat(k, "....x*xx..."), Pattern::OpenFour);
        assert_eq!(pat(k, "...ox*xx..."), Pattern::Four);
        assert_eq!(pat(k, "..x.x*x.x.."), Pattern::OpenFour);
        assert_eq!(pat(k, ".....*xx..."), Pattern::OpenThree);
        assert_eq!(pat(k, "....o*xx..."), Pattern::Three);
        assert_eq!(pat(k, ".....*x...."), Pattern::OpenTwo);
        assert_eq!(pat(k, "#####*x...."), Pattern::Two);
        assert_eq!(pat(k, "####o*x.o.."), Pattern::None);
    }

    #[test]
    fn exact_five_patterns() {
        let k = FiveKind::Exact;
        assert_eq!(pat(k, "..xxx*xx..."), Pattern::None);
        assert_eq!(pat(k, "...xx*xx..."), Pattern::Five);
        assert_eq!(pat(k, "..x.x*xx..."), Pattern::Four);
        assert_eq!(pat(k, "x...x*xx..."), Pattern::OpenFour);
        let e = PatternTable::get(k, Cell::Black).entry(key("..xxx*xx...", true));
        assert!(e & OVERLINE_FLAG != 0);
    }

    #[test]
    fn renju_black_reads_two_fours_in_one_line_as_a_four() {
        let exact = PatternTable::get(FiveKind::Exact, Cell::Black);
        let renju = PatternTable::renju_black();
        assert!(std::ptr::eq(
            RuleTable::get(Rule::Renju).colour(Color::Black),
            renju
        ));
        // (picture, black's pattern under exact fives, under renju, a double-four in the line)
        let cases = [
            ("..x.x*x.x..", Pattern::OpenFour, Pattern::Four, true),
            (".xxx.*.xxx.", Pattern::OpenFour, Pattern::Four, true),
            ("..xx.*x.xx.", Pattern::OpenFour, Pattern::Four, true),
            ("....x*xx...", Pattern::OpenFour, Pattern::OpenFour, false),
            ("x...x*xx...", Pattern::OpenFour, Pattern::OpenFour, false),
            ("..x.x*x.xx.", Pattern::Four, Pattern::Four, false),
            ("...ox*xx...", Pattern::Four, Pattern::Four, false),
            (".....*xx...", Pattern::OpenThree, Pattern::OpenThree, false),
            // One stone before X.X*X.X (at +1): no open three in renju, the rest are fours.
            (".ox.x*..xo.", Pattern::OpenThree, Pattern::Three, false),
        ];
        for (pic, want_exact, want_renju, double) in cases {
            let k = key(pic, true);
            assert_eq!(exact.pattern(k), want_exact, "{pic}");
            assert_eq!(renju.pattern(k), want_renju, "{pic}");
            assert_eq!(renju.entry(k) & LINE_DOUBLE_FOUR_FLAG != 0, double, "{pic}");
            assert_eq!(exact.entry(k) & LINE_DOUBLE_FOUR_FLAG, 0, "{pic}");
        }
    }

    #[test]
    fn caro_patterns() {
        let k = FiveKind::CaroExact;
        assert_eq!(pat(k, "..oxx*xxo.."), Pattern::None);
        assert_eq!(pat(k, "..#xx*xxo.."), Pattern::Five);
        assert_eq!(pat(k, "...ox*xx.o."), Pattern::None);
        assert_eq!(pat(k, "...ox*xx..."), Pattern::Four);
        assert_eq!(pat(FiveKind::CaroOverline, "..oxx*xxxo."), Pattern::Five);
        assert_eq!(pat(k, "..oxx*xxxo."), Pattern::None);
    }
}
