//! Positions that tests of several modules share.
use super::{Board, Color, Rule};

/// Renju, 15x15. White's three 4..6,7 has black stones at 2,7 and 9,7, so its only defences
/// are 3,7 and 8,7 (its four points) and 7,7 (its open-four point). Black's twos make
/// each of them a double three, and black has no four: black to move has no legal move that
/// stops the open four and is lost. With `three_made` false, white's 6,7 is not yet played and
/// white is to move.
pub fn renju_black_without_defence(three_made: bool) -> Board {
    let black = [
        (2, 7),
        (9, 7),
        (2, 6),
        (1, 5),
        (3, 8),
        (3, 9),
        (5, 5),
        (6, 6),
        (7, 8),
        (7, 9),
        (8, 5),
        (8, 6),
        (9, 8),
        (10, 9),
    ];
    let white = [(4, 7), (5, 7), (6, 7)];
    if three_made {
        Board::from_stones(Rule::Renju, &black, &white, Color::Black)
    } else {
        Board::from_stones(Rule::Renju, &black, &white[..2], Color::White)
    }
}
