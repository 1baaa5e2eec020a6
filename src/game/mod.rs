//! The game: coordinates, rules, board state, line patterns and renju fouls.
pub mod board;
#[cfg(test)]
pub mod fixtures;
pub mod forbid;
pub mod pattern;
pub mod pos;
pub mod rule;

pub use board::{Board, BoardError};
pub use forbid::Foul;
pub use pos::{Cell, Color, Pos};
pub use rule::Rule;

/// The labelled forbidden-point corpus and hand-written win checks for every rule.
#[cfg(test)]
mod rule_tests;
#[cfg(test)]
mod symmetry_tests;
