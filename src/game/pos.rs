//! Coordinates on a padded one-dimensional board.
//!
//! Every board, whatever its size, lives in a fixed `STRIDE x STRIDE` array with a frame of
//! `PAD` wall cells, so a scan of up to `PAD` steps from any on-board cell never leaves the array
//! and never has to test for the edge.

/// Largest supported board side.
pub const MAX_SIZE: usize = 32;
/// Smallest supported board side.
pub const MIN_SIZE: usize = 5;
/// Wall cells around the playing area: pattern windows reach 5 cells from their centre.
pub const PAD: usize = 5;
/// Row length of the padded array.
pub const STRIDE: usize = MAX_SIZE + 2 * PAD;
/// Number of cells in the padded array.
pub const CELLS: usize = STRIDE * STRIDE;

/// The four line directions as index steps: horizontal, vertical, diagonal, anti-diagonal.
pub const DIRS: [isize; 4] = [1, STRIDE as isize, STRIDE as isize + 1, STRIDE as isize - 1];

/// A cell index into the padded array.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Pos(pub u16);

impl Pos {
    /// Sentinel for "no move".
    pub const NONE: Pos = Pos(0);

    #[inline]
    pub fn new(x: usize, y: usize) -> Pos {
        Pos(((y + PAD) * STRIDE + x + PAD) as u16)
    }
    #[inline]
    pub fn x(self) -> usize {
        self.0 as usize % STRIDE - PAD
    }
    #[inline]
    pub fn y(self) -> usize {
        self.0 as usize / STRIDE - PAD
    }
    #[inline]
    pub fn idx(self) -> usize {
        self.0 as usize
    }
    #[inline]
    pub fn is_none(self) -> bool {
        self.0 == 0
    }
    /// The cell `k` steps along direction step `d` (the caller keeps within the frame).
    #[inline]
    pub fn step(self, d: isize, k: isize) -> Pos {
        Pos((self.0 as isize + d * k) as u16)
    }
    /// Letter-number notation as renju players write it on a board of height `h` (`h8`).
    pub fn to_notation(self, height: usize) -> String {
        let col = (b'a' + self.x() as u8) as char;
        format!("{}{}", col, height - self.y())
    }
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{}", self.x(), self.y())
    }
}

/// A stone colour. Black moves first.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    #[inline]
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    #[inline]
    pub fn idx(self) -> usize {
        self as usize
    }
    /// The cell value a stone of this colour stores.
    #[inline]
    pub fn cell(self) -> Cell {
        match self {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }
}

/// What a cell of the padded array holds. The numeric values are the 2-bit codes of the line keys.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Cell {
    Empty = 0,
    Black = 1,
    White = 2,
    /// Off the board, or a stone that belongs to nobody (field 3 of `BOARD`).
    Wall = 3,
}

impl Cell {
    #[inline]
    pub fn from_code(c: u8) -> Cell {
        match c & 3 {
            0 => Cell::Empty,
            1 => Cell::Black,
            2 => Cell::White,
            _ => Cell::Wall,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip_on_the_largest_board() {
        for y in 0..MAX_SIZE {
            for x in 0..MAX_SIZE {
                let p = Pos::new(x, y);
                assert_eq!((p.x(), p.y()), (x, y));
                assert!(!p.is_none());
            }
        }
    }

    #[test]
    fn notation_counts_rows_from_the_bottom() {
        assert_eq!(Pos::new(7, 7).to_notation(15), "h8");
        assert_eq!(Pos::new(0, 14).to_notation(15), "a1");
    }
}
