//! The classical evaluation: every empty cell is scored, for each colour, by the combination of
//! patterns a stone of that colour would make there (one fitted value per combination of the four
//! directions' patterns); the position's value is the difference of the sums, the side to move's
//! weighted by a tempo factor, plus a fitted value for which threat classes each side has on the
//! board (who must answer whom: the sums alone count an open three's two open-four points at full
//! value even when the side to move is about to block it).

use crate::game::pattern::Pattern;
use std::sync::OnceLock;

pub use super::order::ORDER_VALUE;
pub use super::weights::{
    COMBO_VALUE, RENJU_COMBO_VALUE, RENJU_THREAT_VALUE, SELF_FIT_COMBO_VALUE,
    SELF_FIT_THREAT_VALUE, TEMPO_NUM, THREAT_VALUE,
};
use crate::game::{Board, Color, Rule};

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

/// Which fitted values a rule evaluates with: freestyle and standard the values distilled from
/// Rapfi-classical ([`COMBO_VALUE`], [`THREAT_VALUE`]; +59.5 in freestyle), caro the earlier fit
/// to Tengen's own search ([`SELF_FIT_COMBO_VALUE`]; no caro game was in the distillation's
/// data), renju a set of its own ([`RENJU_COMBO_VALUE`]), so far the same earlier values: the
/// distilled ones scored -5.2 there, and a refit to renju positions alone -35.4.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WeightSet {
    Distilled = 0,
    SelfFit = 1,
    Renju = 2,
}

impl WeightSet {
    pub const ALL: [WeightSet; 3] = [WeightSet::Distilled, WeightSet::SelfFit, WeightSet::Renju];

    pub fn of(rule: Rule) -> WeightSet {
        match rule {
            Rule::Freestyle | Rule::Standard => WeightSet::Distilled,
            Rule::Renju => WeightSet::Renju,
            Rule::Caro { .. } => WeightSet::SelfFit,
        }
    }
    /// The set named on the tuner's command line (`tune fit --weights NAME`).
    pub fn from_name(name: &str) -> Option<WeightSet> {
        match name {
            "distilled" => Some(WeightSet::Distilled),
            "self-fit" => Some(WeightSet::SelfFit),
            "renju" => Some(WeightSet::Renju),
            _ => None,
        }
    }
    /// The names of the set's constants in `eval::weights`.
    pub fn constant_names(self) -> (&'static str, &'static str) {
        match self {
            WeightSet::Distilled => ("COMBO_VALUE", "THREAT_VALUE"),
            WeightSet::SelfFit => ("SELF_FIT_COMBO_VALUE", "SELF_FIT_THREAT_VALUE"),
            WeightSet::Renju => ("RENJU_COMBO_VALUE", "RENJU_THREAT_VALUE"),
        }
    }
    pub fn combo_values(self) -> &'static [i16; COMBO_COUNT] {
        match self {
            WeightSet::Distilled => &COMBO_VALUE,
            WeightSet::SelfFit => &SELF_FIT_COMBO_VALUE,
            WeightSet::Renju => &RENJU_COMBO_VALUE,
        }
    }
    pub fn threat_values(self) -> &'static [i16; THREAT_COUNT] {
        match self {
            WeightSet::Distilled => &THREAT_VALUE,
            WeightSet::SelfFit => &SELF_FIT_THREAT_VALUE,
            WeightSet::Renju => &RENJU_THREAT_VALUE,
        }
    }
}

/// Class and score of a cell from its four direction patterns: the score is the fitted value of
/// the combination (see `eval::tune`) in `set`, whatever the order of the directions.
#[inline]
pub fn cell_value(pats: [Pattern; 4], set: WeightSet) -> (Class, i32) {
    (class_of(pats), set.combo_values()[combo_index(pats)] as i32)
}

/// The class a stone makes with these four direction patterns.
pub fn class_of(pats: [Pattern; 4]) -> Class {
    let mut counts = [0u8; Pattern::COUNT];
    for p in pats {
        counts[p as usize] += 1;
    }
    let fours = counts[Pattern::Four as usize];
    let threes = counts[Pattern::OpenThree as usize];
    if counts[Pattern::Five as usize] > 0 {
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
    }
}

/// Whether a stone with these four direction patterns makes two or more fours and no five: in
/// renju a foul for black (a double-four), whatever else the stone makes.
pub fn is_double_four(pats: [Pattern; 4]) -> bool {
    let fours = pats
        .iter()
        .filter(|&&p| p == Pattern::Four || p == Pattern::OpenFour)
        .count();
    fours >= 2 && !pats.contains(&Pattern::Five)
}

/// Number of combinations of four direction patterns regardless of order (multisets of 4 of the
/// 8 patterns).
pub const COMBO_COUNT: usize = 330;

/// The patterns of combination `i`, strongest first. Combinations are numbered in lexicographic
/// order of these arrays (the order of [`COMBO_VALUE`]).
pub fn combo_patterns(i: usize) -> [Pattern; 4] {
    static LIST: OnceLock<Vec<[Pattern; 4]>> = OnceLock::new();
    LIST.get_or_init(|| {
        let mut list = Vec::with_capacity(COMBO_COUNT);
        for a in 0..8u8 {
            for b in 0..=a {
                for c in 0..=b {
                    for d in 0..=c {
                        list.push([a, b, c, d].map(Pattern::from_code));
                    }
                }
            }
        }
        list
    })[i]
}

/// The number of the combination of four direction patterns.
#[inline]
pub fn combo_index(pats: [Pattern; 4]) -> usize {
    static INDEX: OnceLock<[u16; PACKED_COMBOS]> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut t = [0u16; PACKED_COMBOS];
        for i in 0..COMBO_COUNT {
            let pats = combo_patterns(i);
            // Every order of the four directions maps to the same combination.
            for perm in PERMUTATIONS {
                t[pack(perm.map(|d| pats[d])) as usize] = i as u16;
            }
        }
        t
    });
    index[pack(pats) as usize] as usize
}

const PERMUTATIONS: [[usize; 4]; 24] = {
    let mut t = [[0; 4]; 24];
    let mut n = 0;
    let mut a = 0;
    while a < 4 {
        let mut b = 0;
        while b < 4 {
            let mut c = 0;
            while c < 4 {
                if a != b && a != c && b != c {
                    let d = 6 - a - b - c;
                    t[n] = [a, b, c, d];
                    n += 1;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    t
};

/// The four patterns packed as the board keeps them (direction `d` at bits `3d..3d+3`).
#[inline]
pub fn pack(pats: [Pattern; 4]) -> PackedPatterns {
    pats.iter()
        .enumerate()
        .fold(0, |acc, (d, &p)| acc | (p as u16) << (3 * d))
}

/// The four patterns of a packed combination (the inverse of [`pack`]).
#[inline]
pub fn unpack(packed: usize) -> [Pattern; 4] {
    [0, 1, 2, 3].map(|d| Pattern::from_code((packed >> (3 * d)) as u8 & 7))
}

/// The static evaluation for the side to move from the two potential sums (the tuner's model,
/// `eval::tune`, mirrors this formula).
#[inline]
pub fn evaluate(own_sum: i32, opp_sum: i32) -> i32 {
    (own_sum * TEMPO_NUM) / 16 - opp_sum
}

/// Which threat classes each side has somewhere on the board, as a number below
/// [`THREAT_COUNT`]: five bits for the side to move (an open-four point, a four-three point, a
/// double-three point, a four point, an open-three point), five for the opponent. Black's
/// double-three points in renju are fouls and count as none.
#[inline]
pub fn threat_index(board: &Board) -> usize {
    let me = board.side_to_move();
    let bits = |c: Color| {
        let has = |class: Class| (board.class_count(c, class) > 0) as usize;
        let double_three = if board.rule().has_forbidden() && c == Color::Black {
            0
        } else {
            has(C_DOUBLE_THREE)
        };
        has(C_OPEN_FOUR)
            | has(C_FOUR_THREE) << 1
            | double_three << 2
            | has(C_FOUR) << 3
            | has(C_THREE) << 4
    };
    bits(me) | bits(me.other()) << 5
}
pub const THREAT_COUNT: usize = 1 << 10;

/// The static evaluation of `board` for the side to move: the two potential sums and the
/// threat term.
#[inline]
pub fn evaluate_board(board: &Board) -> i32 {
    let me = board.side_to_move();
    evaluate(board.score_sum(me), board.score_sum(me.other()))
        + WeightSet::of(board.rule()).threat_values()[threat_index(board)] as i32
}

/// Four direction patterns packed 3 bits each (direction `d` at bits `3d..3d+3`).
pub type PackedPatterns = u16;
pub const PACKED_COMBOS: usize = 1 << 12;

/// Class and score of every packed combination of four direction patterns, so the board turns a
/// changed direction into a new cell value with one lookup.
pub fn combo_table(set: WeightSet) -> &'static [(Class, i16); PACKED_COMBOS] {
    static TABLES: [OnceLock<[(Class, i16); PACKED_COMBOS]>; WeightSet::ALL.len()] =
        [const { OnceLock::new() }; WeightSet::ALL.len()];
    TABLES[set as usize].get_or_init(|| build_combo_table(set, false))
}

/// [`combo_table`] for black in renju: a double-four is a foul there, so it threatens no open
/// four. Its class is a four's (a stone of the opponent there still blocks the lines through
/// it, and the move generators find the blocks of a three among the points where either side
/// makes a four). Its value stays: the fitted values were measured with it, and the shape
/// around it is still black's (a value of 0 played worse: -6 over two 400-game runs).
pub fn renju_black_combo_table() -> &'static [(Class, i16); PACKED_COMBOS] {
    static TABLE: OnceLock<[(Class, i16); PACKED_COMBOS]> = OnceLock::new();
    TABLE.get_or_init(|| build_combo_table(WeightSet::of(Rule::Renju), true))
}

fn build_combo_table(set: WeightSet, double_four_fouls: bool) -> [(Class, i16); PACKED_COMBOS] {
    let mut t = [(C_NONE, 0i16); PACKED_COMBOS];
    for (packed, entry) in t.iter_mut().enumerate() {
        let pats = unpack(packed);
        let (class, score) = cell_value(pats, set);
        *entry = if double_four_fouls && is_double_four(pats) {
            (C_FOUR, score as i16)
        } else {
            (class, score as i16)
        };
    }
    t
}

/// The cell value of the evaluation before it had a value per combination (sixth session): a
/// value per direction pattern (`None..=Five`) plus a bonus per class (`C_NONE..=C_FIVE`),
/// fitted to 1397 self-play games. The tuner starts from it, and the VCT solver orders its moves
/// by it, so that the solver's trees do not move with each refit of [`COMBO_VALUE`].
pub const ADDITIVE_PATTERN: [i32; Pattern::COUNT] = [0, 5, 6, 14, 35, 71, 116, 600];
pub const ADDITIVE_CLASS: [i32; CLASS_COUNT] = [0, -6, 5, -37, 1, 285, 145, 0];

/// The additive value (see [`ADDITIVE_PATTERN`]) of a cell with these direction patterns.
pub fn additive_value(pats: [Pattern; 4]) -> i32 {
    pats.iter()
        .map(|&p| ADDITIVE_PATTERN[p as usize])
        .sum::<i32>()
        + ADDITIVE_CLASS[class_of(pats) as usize]
}

/// [`additive_value`] of every packed combination.
pub fn additive_table() -> &'static [i16; PACKED_COMBOS] {
    static TABLE: OnceLock<[i16; PACKED_COMBOS]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0i16; PACKED_COMBOS];
        for (packed, v) in t.iter_mut().enumerate() {
            let pats = unpack(packed);
            *v = additive_value(pats) as i16;
        }
        t
    })
}

/// The move-order value of every packed combination ([`ORDER_VALUE`]): the cell value the move
/// generators rank candidates by, held apart from the evaluation's [`COMBO_VALUE`] so that a
/// refit of the evaluation does not also reorder the search (the thirty-seventh session's refit
/// lost 67 Elo in renju with the order moved, 10 with it held).
pub fn order_table() -> &'static [i16; PACKED_COMBOS] {
    static TABLE: OnceLock<[i16; PACKED_COMBOS]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0i16; PACKED_COMBOS];
        for (packed, v) in t.iter_mut().enumerate() {
            *v = ORDER_VALUE[combo_index(unpack(packed))];
        }
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rule;

    fn board(rule: Rule, black: &[(i64, i64)], white: &[(i64, i64)], to_move: Color) -> Board {
        Board::from_stones(rule, black, white, to_move)
    }

    const OPEN_FOUR_BIT: usize = 1;
    const DOUBLE_THREE_BIT: usize = 4;
    const THREE_BIT: usize = 16;

    #[test]
    fn order_values_follow_the_combination_whatever_the_direction_order() {
        let t = order_table();
        for packed in 0..PACKED_COMBOS {
            let pats = unpack(packed);
            assert_eq!(t[packed], ORDER_VALUE[combo_index(pats)]);
            let turned = [pats[1], pats[2], pats[3], pats[0]];
            assert_eq!(t[pack(turned) as usize], t[packed]);
        }
    }

    #[test]
    fn the_threat_index_reads_each_sides_threats_from_the_side_to_move() {
        // Black's open three: open-four points for black; white has no threat at all.
        let black = [(5, 7), (6, 7), (7, 7)];
        let white = [(0, 0), (14, 14), (0, 14)];
        let b = board(Rule::Freestyle, &black, &white, Color::White);
        let i = threat_index(&b);
        assert_eq!(i & 31, 0, "white has nothing");
        assert_ne!(i >> 5 & OPEN_FOUR_BIT, 0, "black's open three");
        let b = board(Rule::Freestyle, &black, &white, Color::Black);
        assert_eq!(
            threat_index(&b),
            i >> 5,
            "the same threats from black's side"
        );
    }

    #[test]
    fn black_double_three_points_are_no_threat_in_renju() {
        // Two open twos crossing at 7,8: a double three there (a foul for black in renju).
        let black = [(7, 5), (7, 6), (5, 8), (6, 8)];
        let white = [(0, 0), (14, 14), (0, 14), (14, 0)];
        let free = board(Rule::Freestyle, &black, &white, Color::Black);
        let renju = board(Rule::Renju, &black, &white, Color::Black);
        assert_eq!(
            free.class(Color::Black, crate::game::Pos::new(7, 8)),
            C_DOUBLE_THREE
        );
        assert_ne!(threat_index(&free) & DOUBLE_THREE_BIT, 0);
        assert_eq!(threat_index(&renju) & DOUBLE_THREE_BIT, 0);
        // The threes themselves still count.
        assert_ne!(threat_index(&renju) & THREE_BIT, 0);
    }

    #[test]
    fn black_double_four_points_are_no_open_four_threat_in_renju() {
        // Two closed threes crossing at 6,7: two fours there, a double-four for black in renju.
        let black = [(3, 7), (4, 7), (5, 7), (6, 4), (6, 5), (6, 6)];
        let white = [(2, 7), (6, 3)];
        let at = crate::game::Pos::new(6, 7);
        let free = board(Rule::Freestyle, &black, &white, Color::White);
        let renju = board(Rule::Renju, &black, &white, Color::White);
        assert_eq!(free.class(Color::Black, at), C_OPEN_FOUR);
        assert_eq!(free.class_count(Color::Black, C_OPEN_FOUR), 1);
        assert_ne!(threat_index(&free) & (OPEN_FOUR_BIT << 5), 0);
        // In renju black cannot play it: no open-four threat, but still a point on black's
        // lines (white's stone there blocks both fours), with its value.
        assert_eq!(renju.class(Color::Black, at), C_FOUR);
        assert_eq!(renju.class_count(Color::Black, C_OPEN_FOUR), 0);
        assert_eq!(threat_index(&renju) & (OPEN_FOUR_BIT << 5), 0);
        // (The rules evaluate with different weight sets: the value is that of the same
        // combination in renju's set.)
        let renju_value = |c: Color| {
            let pats = [0, 1, 2, 3].map(|d| free.pattern(c, d, at));
            WeightSet::of(Rule::Renju).combo_values()[combo_index(pats)] as i32
        };
        assert_eq!(
            renju.cell_score(Color::Black, at),
            renju_value(Color::Black)
        );
        // White's own view of the point is the same under both rules.
        assert_eq!(renju.class(Color::White, at), free.class(Color::White, at));
        assert_eq!(
            renju.cell_score(Color::White, at),
            renju_value(Color::White)
        );
    }

    #[test]
    fn two_fours_in_one_line_of_black_are_no_open_four_threat_in_renju() {
        // Row 7: X.X*X.X, two fours in one line at 6,7 (five points 4,7 and 8,7), a double-four
        // for black in renju. Row 10: an open three, whose ends are real open-four points.
        let black = [(3, 7), (5, 7), (7, 7), (9, 7), (5, 10), (6, 10), (7, 10)];
        let white = [(0, 0), (14, 14), (0, 14)];
        let at = crate::game::Pos::new(6, 7);
        let standard = board(Rule::Standard, &black, &white, Color::White);
        let renju = board(Rule::Renju, &black, &white, Color::White);
        assert_eq!(standard.class(Color::Black, at), C_OPEN_FOUR);
        assert_eq!(standard.class_count(Color::Black, C_OPEN_FOUR), 3);
        assert_eq!(renju.class(Color::Black, at), C_FOUR);
        assert_eq!(renju.class_count(Color::Black, C_OPEN_FOUR), 2);
        for x in [4, 8] {
            let p = crate::game::Pos::new(x, 10);
            assert_eq!(renju.class(Color::Black, p), C_OPEN_FOUR);
        }
        // White, who may make six, has the same classes under both rules' tables.
        assert_eq!(
            renju.class(Color::White, at),
            standard.class(Color::White, at)
        );
    }
}
