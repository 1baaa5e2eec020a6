//! The move order's cell values, apart from the evaluation's (see `classical::order_table`).

use super::classical::COMBO_COUNT;

/// Order value of a cell for the colour whose stone there would make the combination numbered
/// `i` (see [`super::classical::combo_patterns`]): 2 x own + opponent's ranks the candidates.
/// These are the evaluation values of the twenty-eighth session's fit (6002cc9), which every
/// pruning and reduction since was measured with; a refit of `COMBO_VALUE` leaves them.
pub const ORDER_VALUE: [i16; COMBO_COUNT] = super::weights::SELF_FIT_COMBO_VALUE;
