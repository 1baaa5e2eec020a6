//! The match runner's random numbers: the library's generator with the runner's own salt, so
//! that a seed gives the same openings and order as before the generator was shared.

pub use tengen::rng::Rng;

const SALT: u64 = 0x6A09_E667_F3BC_C908;

/// The generator of a match seed.
pub fn seeded(seed: u64) -> Rng {
    Rng::salted(seed, SALT)
}
