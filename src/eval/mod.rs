//! Position evaluation.
pub mod classical;
pub mod order;
pub mod tune;
pub mod tune_data;
pub mod tune_import;
pub mod tune_label;
pub mod weights;
