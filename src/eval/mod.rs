//! Position evaluation.
pub mod classical;
