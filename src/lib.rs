//! Tengen: a Gomoku / Renju engine for the Gomocup (pbrain) protocol.
//!
//! `game` holds the rules and the board, `eval` the static evaluation, `search` the alpha-beta
//! search and its time control, `protocol` the pbrain front end; the binaries are thin.
pub mod bench;
pub mod eval;
pub mod game;
pub mod play;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod solve;
