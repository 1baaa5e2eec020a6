//! Match statistics: Elo from a score, the 95 % interval from pentanomial game-pair counts, and
//! the pentanomial GSPRT log-likelihood ratio.
//!
//! Games are played in pairs (one opening, colours swapped). A pair scores 0, ½, 1, 1½ or 2 for
//! the first engine; `penta[k]` counts pairs that scored `k / 2`. Treating each pair as one
//! sample with per-game mean `k / 4` removes the opening's bias from the variance, which is why
//! the interval is usually narrower than the trinomial (per-game) one.

use crate::cli::SprtParams;

/// z for a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference for an expected score `s` (logistic model).
pub fn elo_from_score(s: f64) -> f64 {
    let s = s.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// An Elo difference for people: `+70.4`, and `+inf` / `-inf` for a score of 1 or 0 (where the
/// logistic model has no finite value; `elo_from_score` clamps it to about 2400).
pub fn fmt_elo(elo: f64) -> String {
    if elo >= 2399.0 {
        "+inf".into()
    } else if elo <= -2399.0 {
        "-inf".into()
    } else {
        // An even score is +0.0, not the -0.0 that -400 log10(1) gives.
        format!("{:+.1}", elo + 0.0)
    }
}

/// Expected score for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    /// Pairs by the first engine's pair score ×2: 0, 1, 2, 3, 4 half-points.
    pub penta: [u32; 5],
}

/// Mean and variance of the per-game score over pentanomial pairs.
pub fn penta_mean_var(penta: &[u32; 5]) -> Option<(f64, f64, f64)> {
    let (n, mean, var) = weighted_mean_var(&penta.map(|c| c as f64));
    (n > 0.0).then_some((n, mean, var))
}

/// Total weight, mean and variance of the per-game score `k / 4` over pair counts `c[k]`
/// (counts may be fractional: the LLR's pseudo-pair).
fn weighted_mean_var(c: &[f64; 5]) -> (f64, f64, f64) {
    let n: f64 = c.iter().sum();
    if n == 0.0 {
        return (0.0, 0.0, 0.0);
    }
    let mean = c
        .iter()
        .enumerate()
        .map(|(k, &c)| c * k as f64 / 4.0)
        .sum::<f64>()
        / n;
    let var = c
        .iter()
        .enumerate()
        .map(|(k, &c)| c * (k as f64 / 4.0 - mean).powi(2))
        .sum::<f64>()
        / n;
    (n, mean, var)
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    pub fn pairs(&self) -> u32 {
        self.penta.iter().sum()
    }

    /// Score of the first engine over all games, 0..1.
    pub fn score(&self) -> Option<f64> {
        let g = self.games();
        (g > 0).then(|| (self.wins as f64 + 0.5 * self.draws as f64) / g as f64)
    }

    pub fn elo(&self) -> Option<f64> {
        self.score().map(elo_from_score)
    }

    /// The 95 % Elo interval around the score of all games, its width from the pentanomial
    /// pairs (`None` with fewer than 2 pairs). Pairs without any spread (all 1-1, say) get the
    /// variance of the LLR's pseudo-pair instead of a zero-width interval; a game whose pair is
    /// not complete counts in the centre only, which stays inside the interval.
    pub fn elo_interval(&self) -> Option<(f64, f64)> {
        let (n, _, mut var) = penta_mean_var(&self.penta)?;
        if n < 2.0 {
            return None;
        }
        if var == 0.0 {
            var = prior_mean_var(&self.penta).1;
        }
        let se = (var / n).sqrt();
        let centre = self.score()?;
        Some((
            elo_from_score(centre - Z95 * se),
            elo_from_score(centre + Z95 * se),
        ))
    }

    /// The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0) under the normal
    /// approximation over pentanomial pairs: `N (s1 - s0) (2 m - s0 - s1) / (2 var)`.
    ///
    /// Mean and variance include one pseudo-pair, split between a 1.5-0.5 and a 0.5-1.5 result.
    /// In gomoku most pairs end 1-1 (each engine wins with the first move), and a run whose first
    /// pairs are all 1-1 has no spread at all: without the prior its variance is (nearly) zero
    /// and a dozen pairs would "prove" H0. The prior's weight fades as pairs accumulate.
    pub fn llr(&self, p: &SprtParams) -> f64 {
        let n: f64 = self.penta.iter().map(|&c| c as f64).sum();
        if n == 0.0 {
            return 0.0;
        }
        let (mean, var) = prior_mean_var(&self.penta);
        let s0 = score_from_elo(p.elo0);
        let s1 = score_from_elo(p.elo1);
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// One compact line: `W-L-D 5-3-2  score 0.600  Elo +70.4 [-30.1, +171.2]`.
    pub fn line(&self) -> String {
        let mut s = format!("W-L-D {}-{}-{}", self.wins, self.losses, self.draws);
        if let Some(sc) = self.score() {
            s.push_str(&format!(
                "  score {:.3}  Elo {}",
                sc,
                fmt_elo(self.elo().unwrap())
            ));
            if let Some((lo, hi)) = self.elo_interval() {
                s.push_str(&format!(" [{}, {}]", fmt_elo(lo), fmt_elo(hi)));
            }
        }
        s
    }
}

/// Per-game mean and variance over the pairs plus one pseudo-pair, split between a 1.5-0.5 and a
/// 0.5-1.5 result (see [`Tally::llr`]).
fn prior_mean_var(penta: &[u32; 5]) -> (f64, f64) {
    let mut c: [f64; 5] = penta.map(|c| c as f64);
    c[1] += 0.5;
    c[3] += 0.5;
    let (_, mean, var) = weighted_mean_var(&c);
    (mean, var)
}

/// The SPRT bounds `(lower, upper)` for `alpha`, `beta`.
pub fn sprt_bounds(p: &SprtParams) -> (f64, f64) {
    (
        (p.beta / (1.0 - p.alpha)).ln(),
        ((1.0 - p.beta) / p.alpha).ln(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn elo_from_scores() {
        assert!(close(elo_from_score(0.5), 0.0, 1e-12));
        // -400 log10(1/3) = 190.849
        assert!(close(elo_from_score(0.75), 190.848_501_887_865, 1e-9));
        assert!(close(elo_from_score(0.25), -190.848_501_887_865, 1e-9));
        // 10 Elo = 0.514387...
        assert!(close(score_from_elo(10.0), 0.514_387_184_166_0, 1e-12));
        assert!(close(elo_from_score(score_from_elo(37.0)), 37.0, 1e-9));
    }

    #[test]
    fn pentanomial_variance_by_hand() {
        // Pairs 1,2,3,2,1: mean (0 + 2*.25 + 3*.5 + 2*.75 + 1) / 9 = 0.5,
        // var (.25 + 2*.0625 + 0 + 2*.0625 + .25) / 9 = 0.75 / 9.
        let (n, m, v) = penta_mean_var(&[1, 2, 3, 2, 1]).unwrap();
        assert_eq!(n, 9.0);
        assert!(close(m, 0.5, 1e-12));
        assert!(close(v, 0.75 / 9.0, 1e-12));
        // Pairs 0,0,4,0,2: mean (4*.5 + 2*1)/6 = 2/3, var (4*(1/6)^2 + 2*(1/3)^2)/6 = 1/18.
        let (_, m, v) = penta_mean_var(&[0, 0, 4, 0, 2]).unwrap();
        assert!(close(m, 2.0 / 3.0, 1e-12));
        assert!(close(v, 1.0 / 18.0, 1e-12));
        assert_eq!(penta_mean_var(&[0; 5]), None);
    }

    #[test]
    fn interval_by_hand() {
        // 9 pairs as above: se = sqrt(0.75/81) = 0.0962250; bounds 0.5 -+ 1.959964*se
        // = 0.311402 / 0.688598 -> Elo -+ 137.857 (symmetric).
        let t = Tally {
            wins: 7,
            losses: 7,
            draws: 4,
            penta: [1, 2, 3, 2, 1],
        };
        let (lo, hi) = t.elo_interval().unwrap();
        assert!(close(lo, -hi, 1e-9));
        assert!(close(hi, elo_from_score(0.688_597_6), 0.01), "hi {hi}");
        assert!(close(hi, 137.857, 0.01), "hi {hi}");
        assert_eq!(t.score(), Some(0.5));
    }

    #[test]
    fn elo_text_for_people() {
        assert_eq!(fmt_elo(elo_from_score(1.0)), "+inf");
        assert_eq!(fmt_elo(elo_from_score(0.0)), "-inf");
        assert_eq!(fmt_elo(70.44), "+70.4");
        assert_eq!(fmt_elo(elo_from_score(0.5)), "+0.0");
    }

    #[test]
    fn interval_holds_its_centre() {
        // 5 games: two pairs split 1-1 and an unfinished pair lost; the pairs alone have no
        // spread.
        let t = Tally {
            wins: 2,
            losses: 3,
            draws: 0,
            penta: [0, 0, 2, 0, 0],
        };
        let (lo, hi) = t.elo_interval().unwrap();
        let elo = t.elo().unwrap();
        assert!(lo < elo && elo < hi, "{lo} {elo} {hi}");
        assert!(hi - lo > 100.0, "{lo} {hi}");
    }

    #[test]
    fn llr_by_hand() {
        // Pairs 0,1,2,1,0 plus the pseudo-pair (half at 1, half at 3): N 4, counts
        // 0,1.5,2,1.5,0, mean 0.5, var 0.1875/5 = 0.0375.
        // elo0 0, elo1 10: s0 .5, s1 .5143872; LLR = 4 * .0143872 * (1 - 1.0143872) / .075
        // = -0.0110395.
        let t = Tally {
            wins: 3,
            losses: 3,
            draws: 2,
            penta: [0, 1, 2, 1, 0],
        };
        let p = SprtParams {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
            min_pairs: 10,
        };
        assert!(close(t.llr(&p), -0.011_039_5, 1e-6), "{}", t.llr(&p));
        // Pairs 0,0,0,10,10: counts 0,.5,0,10.5,10, mean 18/21, var .508929/21 = .0242347;
        // LLR = 20 * .0143872 * (36/21 - 1.0143872) / .0484694 = 4.15502.
        let t = Tally {
            penta: [0, 0, 0, 10, 10],
            ..Default::default()
        };
        assert!(close(t.llr(&p), 4.155_02, 1e-4), "{}", t.llr(&p));
        // Runs without spread: three pairs 2-0 or a dozen 1-1 decide nothing yet; thirty 2-0
        // pairs prove H1, two hundred 1-1 pairs H0.
        let llr_of = |penta: [u32; 5]| {
            Tally {
                penta,
                ..Default::default()
            }
            .llr(&p)
        };
        let (lo, hi) = sprt_bounds(&p);
        assert!((lo..hi).contains(&llr_of([0, 0, 0, 0, 3])));
        assert!((lo..hi).contains(&llr_of([0, 0, 11, 0, 0])));
        assert!(llr_of([0, 0, 0, 0, 30]) > hi);
        assert!(llr_of([0, 0, 200, 0, 0]) < lo);
        let p30 = SprtParams { elo1: 30.0, ..p };
        let twelve_even_pairs = Tally {
            penta: [0, 0, 12, 0, 0],
            ..Default::default()
        };
        assert!(twelve_even_pairs.llr(&p30) > lo);
        let (lo, hi) = sprt_bounds(&p);
        assert!(close(lo, -2.944_438_979, 1e-6));
        assert!(close(hi, 2.944_438_979, 1e-6));
    }
}
