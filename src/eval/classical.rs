//! The classical evaluation: every empty cell is scored, for each colour, by the patterns a stone
//! of that colour would make there; the position's value is the difference of the sums.

use crate::game::pattern::Pattern;

/// What a stone on a cell makes when all four directions are combined, weakest first.
pub type Class = u8;
pub const C_NONE: Class = 0;
/// Some two or three: a quiet developing move.
pub const C_QUIET: Class = 1;
/// An open three.
pub const C_THREE: Class = 2;
/// Two open threes.
pub const C_DOUBLE_THREE: Class = 3;
/// A four (forcing: the opponent must answer on one point).
pub const C_FOUR: Class = 4;
/// A four and an open three in another direction.
pub const C_FOUR_THREE: Class = 5;
/// An open four or two fours: wins unless the opponent has a five first.
pub const C_OPEN_FOUR: Class = 6;
pub const C_FIVE: Class = 7;
pub const CLASS_COUNT: usize = 8;

/// Value of a single direction's pattern for the cell's owner (indexed by [`Pattern`]). The
/// values, [`CLASS_BONUS`] and [`TEMPO_NUM`] were fitted by `pbrain-tengen tune fit` (see
/// `eval::tune`) to 1397 self-play games; `Five` and `C_FIVE` are not fitted.
pub const PATTERN_VALUE: [i32; Pattern::COUNT] = [0, 5, 6, 14, 35, 71, 116, 600];

/// Bonus of a cell's class (indexed by [`Class`]) on top of its four pattern values.
pub const CLASS_BONUS: [i32; CLASS_COUNT] = [0, -6, 5, -37, 1, 285, 145, 0];

/// Class and score of a cell from its four direction patterns.
#[inline]
pub fn cell_value(pats: [Pattern; 4]) -> (Class, i32) {
    let mut counts = [0u8; Pattern::COUNT];
    let mut score = 0;
    for p in pats {
        counts[p as usize] += 1;
        score += PATTERN_VALUE[p as usize];
    }
    let fours = counts[Pattern::Four as usize];
    let threes = counts[Pattern::OpenThree as usize];
    let class = if counts[Pattern::Five as usize] > 0 {
        C_FIVE
    } else if counts[Pattern::OpenFour as usize] > 0 || fours >= 2 {
        C_OPEN_FOUR
    } else if fours == 1 && threes > 0 {
        C_FOUR_THREE
    } else if fours == 1 {
        C_FOUR
    } else if threes >= 2 {
        C_DOUBLE_THREE
    } else if threes == 1 {
        C_THREE
    } else if counts[Pattern::None as usize] < 4 {
        C_QUIET
    } else {
        C_NONE
    };
    (class, score + CLASS_BONUS[class as usize])
}

/// Weight of the side to move's own potential relative to the opponent's (in sixteenths):
/// the side to move gets to use its threats first.
pub const TEMPO_NUM: i32 = 23;

/// The static evaluation for the side to move from the two potential sums (the tuner's model,
/// `eval::tune`, mirrors this formula).
#[inline]
pub fn evaluate(own_sum: i32, opp_sum: i32) -> i32 {
    (own_sum * TEMPO_NUM) / 16 - opp_sum
}

/// Four direction patterns packed 3 bits each (direction `d` at bits `3d..3d+3`).
pub type PackedPatterns = u16;
pub const PACKED_COMBOS: usize = 1 << 12;

/// Class and score of every packed combination of four direction patterns, so the board turns a
/// changed direction into a new cell value with one lookup.
pub fn combo_table() -> &'static [(Class, i16); PACKED_COMBOS] {
    static TABLE: std::sync::OnceLock<[(Class, i16); PACKED_COMBOS]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [(C_NONE, 0i16); PACKED_COMBOS];
        for (packed, entry) in t.iter_mut().enumerate() {
            let pats = [0, 1, 2, 3].map(|d| Pattern::from_code((packed >> (3 * d)) as u8 & 7));
            let (class, score) = cell_value(pats);
            *entry = (class, score as i16);
        }
        t
    })
}
