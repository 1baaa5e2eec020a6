//! Renju forbidden points for black, by the RIF definition.
//!
//! A black move is a foul when it makes no five and makes a double-four, a double-three or an
//! overline. A three counts only when the stone that turns it into a straight four is itself a
//! legal move with the three on the board, so the test recurses; the recursion is bounded
//! because every level adds a stone. As the referees judge it (Piskvork's algorithm, and Rapfi),
//! that stone must not make a five in another line either: a point where black already wins
//! turns no three into a straight four.

use super::pos::{Cell, Pos, DIRS};

/// The kind of a black foul, in the order the referee checks them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Foul {
    DoubleFour,
    DoubleThree,
    Overline,
}

impl Foul {
    pub fn name(self) -> &'static str {
        match self {
            Foul::DoubleFour => "double-four",
            Foul::DoubleThree => "double-three",
            Foul::Overline => "overline",
        }
    }
}

const B: u8 = Cell::Black as u8;
const E: u8 = Cell::Empty as u8;
/// Deeper than any real position needs; bounds the work on artificial boards.
const MAX_DEPTH: u32 = 12;

/// The foul black commits by playing the empty cell `p`, or `None` when the move is legal.
/// `cells` is restored before returning.
pub fn foul(cells: &mut [u8], p: Pos) -> Option<Foul> {
    foul_at_depth(cells, p, 0)
}

fn foul_at_depth(cells: &mut [u8], p: Pos, depth: u32) -> Option<Foul> {
    if cells[p.idx()] != E || depth > MAX_DEPTH {
        return None;
    }
    cells[p.idx()] = B;
    let result = judge(cells, p, depth);
    cells[p.idx()] = E;
    result
}

/// The black run through `p` along `d` as offsets `[a, b]` from `p`.
#[inline]
fn run(cells: &[u8], p: Pos, d: isize) -> (isize, isize) {
    let mut b = 0;
    while cells[p.step(d, b + 1).idx()] == B {
        b += 1;
    }
    let mut a = 0;
    while cells[p.step(d, a - 1).idx()] == B {
        a -= 1;
    }
    (a, b)
}

/// Judges the black stone just placed on `p`.
fn judge(cells: &mut [u8], p: Pos, depth: u32) -> Option<Foul> {
    let mut overline = false;
    for &d in &DIRS {
        let (a, b) = run(cells, p, d);
        match b - a + 1 {
            5 => return None,
            n if n > 5 => overline = true,
            _ => {}
        }
    }
    let mut fours = 0;
    let mut four_dirs = [false; 4];
    for (i, &d) in DIRS.iter().enumerate() {
        let n = fours_in_line(cells, p, d);
        four_dirs[i] = n > 0;
        fours += n;
    }
    if fours >= 2 {
        return Some(Foul::DoubleFour);
    }
    let mut threes = 0;
    for (i, &d) in DIRS.iter().enumerate() {
        if !four_dirs[i] && is_real_three(cells, p, d, depth) {
            threes += 1;
            if threes >= 2 {
                return Some(Foul::DoubleThree);
            }
        }
    }
    if overline {
        return Some(Foul::Overline);
    }
    None
}

/// Number of fours through the black stone on `p` in direction `d`: a straight four counts one,
/// two separate completion points in the line (`X.XXX.X`) count two.
fn fours_in_line(cells: &mut [u8], p: Pos, d: isize) -> usize {
    let mut points = [0isize; 2];
    let mut n = 0;
    for k in -4isize..=4 {
        let q = p.step(d, k);
        if k == 0 || cells[q.idx()] != E {
            continue;
        }
        cells[q.idx()] = B;
        let (a, b) = run(cells, p, d);
        cells[q.idx()] = E;
        if b - a + 1 == 5 {
            if n < 2 {
                points[n] = k;
            }
            n += 1;
        }
    }
    match n {
        0 => 0,
        1 => 1,
        2 if (points[1] - points[0]).abs() == 5 => 1,
        _ => 2,
    }
}

/// Whether the black stone on `p` makes a real three along `d`: some empty point turns the line
/// into a straight four through `p`, and that point is neither forbidden nor a five point.
fn is_real_three(cells: &mut [u8], p: Pos, d: isize, depth: u32) -> bool {
    for k in -3isize..=3 {
        let q = p.step(d, k);
        if k == 0 || cells[q.idx()] != E {
            continue;
        }
        cells[q.idx()] = B;
        let straight = is_straight_four(cells, p, d);
        let five = straight && makes_five(cells, q);
        cells[q.idx()] = E;
        if straight && !five && foul_at_depth(cells, q, depth + 1).is_none() {
            return true;
        }
    }
    false
}

/// Whether the black stone on `q` makes an exact five in some direction.
fn makes_five(cells: &[u8], q: Pos) -> bool {
    DIRS.iter().any(|&d| {
        let (a, b) = run(cells, q, d);
        b - a + 1 == 5
    })
}

/// Whether the black run through `p` along `d` is exactly four long with both completion points
/// empty and each making exactly five.
fn is_straight_four(cells: &[u8], p: Pos, d: isize) -> bool {
    let (a, b) = run(cells, p, d);
    if b - a + 1 != 4 {
        return false;
    }
    let lo = p.step(d, a - 1);
    let hi = p.step(d, b + 1);
    cells[lo.idx()] == E
        && cells[hi.idx()] == E
        && cells[p.step(d, a - 2).idx()] != B
        && cells[p.step(d, b + 2).idx()] != B
}
