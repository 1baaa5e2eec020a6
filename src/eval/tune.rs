//! Texel-style tuning of the classical evaluation.
//!
//! The evaluation is linear in its weights once a position is reduced to counts: for each colour,
//! how many empty cells make each combination of four direction patterns (see
//! [`classical::combo_index`]). With `n_me`, `n_opp` those counts for the side to move and the
//! opponent and `v` the combination values,
//!
//! ```text
//! eval = t * (v · n_me) - v · n_opp + w[threat]        (t = TEMPO_NUM / 16)
//! ```
//!
//! which is exactly what the engine computes from the board's incremental `score_sum` (each
//! cell's score is its `combo_table` entry) and the threat index
//! ([`classical::threat_index`]: which threat classes each side has) with its value `w`. The
//! tuner fits `v`, `t` and `w` by logistic regression of the target (the game result, or a mix
//! with a search label) on `eval / K` (cross-entropy, Adam, full batch), starting from and pulled
//! towards a prior (the threat values from zero): the additive model the evaluation used before
//! it had a value per combination (a value per direction pattern plus a bonus per cell class, 13
//! weights fitted the same way), so rare combinations stay near what their parts are worth.
//! `K` is fitted to the prior on the game results, so the fitted values keep the evaluation's
//! scale.
//!
//! `--from-current` starts from and pulls towards the compiled weights instead of the prior (and
//! fits `K` to them), and
//! `--freeze-combos` keeps the combination values fixed and fits the tempo and the threat values
//! only (how the shipped threat values were made); `--freeze-tempo` keeps the tempo.
//!
//! Combinations with a five are not fitted (quiet positions, see
//! [`tune_data::is_quiet`](super::tune_data::is_quiet), have none), nor the one without any
//! pattern (a constant per empty cell).

use super::classical::{self, combo_patterns, WeightSet, COMBO_COUNT, TEMPO_NUM, THREAT_COUNT};
use super::tune_data::{self, GameRecord};
use crate::game::pattern::Pattern;
use crate::game::{Board, Color, Rule};
use std::collections::HashMap;
use std::path::PathBuf;

/// Parameters: the combination values, then the tempo, then the threat values.
pub const NF: usize = COMBO_COUNT;
/// Index of the first threat value.
pub const NT: usize = NF + 1;

/// The prior's tempo (with [`classical::additive_value`], the sixth session's evaluation).
const PRIOR_TEMPO: f64 = 23.0 / 16.0;

/// Whether the value of combination `i` is fitted.
pub fn is_fitted(i: usize) -> bool {
    let pats = combo_patterns(i);
    pats[0] != Pattern::Five && pats[0] != Pattern::None
}

/// One training position, seen from the side to move: per colour, the (combination, number of
/// cells) pairs with a nonzero count.
#[derive(Clone, Debug)]
pub struct Sample {
    pub own: Vec<(u16, f32)>,
    pub opp: Vec<(u16, f32)>,
    /// The game's score for the side to move: 1, 0.5 or 0 (any probability in tests); when
    /// fitting to search labels, the mix of the label's probability and the game's score.
    pub result: f32,
    /// The search label's score for the side to move, if there is one.
    pub search: Option<i32>,
    /// The position's threat index ([`classical::threat_index`]).
    pub threat: u16,
}

/// The combination counts of colour `c` over every empty cell.
pub fn features(b: &Board, c: Color) -> Vec<(u16, f32)> {
    let mut counts = [0u16; COMBO_COUNT];
    for p in b.cells_iter() {
        if b.is_empty(p) {
            let pats = [0, 1, 2, 3].map(|d| b.pattern(c, d, p));
            counts[classical::combo_index(pats)] += 1;
        }
    }
    counts
        .iter()
        .enumerate()
        .filter(|&(_, &n)| n > 0)
        .map(|(i, &n)| (i as u16, n as f32))
        .collect()
}

/// The sample of the position `b` with the game score `result` for the side to move.
pub fn sample(b: &Board, result: f64) -> Sample {
    let me = b.side_to_move();
    Sample {
        own: features(b, me),
        opp: features(b, me.other()),
        result: result as f32,
        search: None,
        threat: classical::threat_index(b) as u16,
    }
}

/// The evaluation's weights as the engine spells them (real-valued while fitting).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Value of each combination (indexed as [`COMBO_VALUE`]).
    pub combo: Vec<f64>,
    /// Weight of the side to move's sum (`TEMPO_NUM / 16`).
    pub tempo: f64,
    /// Value of each threat index (indexed as [`THREAT_VALUE`]).
    pub threat: Vec<f64>,
}

impl Weights {
    /// The weights of one set compiled into `eval::weights` (each rule evaluates with one, see
    /// [`WeightSet`]).
    pub fn compiled(set: WeightSet) -> Weights {
        Weights {
            combo: set.combo_values().iter().map(|&v| v as f64).collect(),
            tempo: TEMPO_NUM as f64 / 16.0,
            threat: set.threat_values().iter().map(|&v| v as f64).collect(),
        }
    }
    /// The additive prior (see the module text).
    pub fn prior() -> Weights {
        let combo = (0..COMBO_COUNT)
            .map(|i| classical::additive_value(combo_patterns(i)) as f64)
            .collect();
        Weights {
            combo,
            tempo: PRIOR_TEMPO,
            threat: vec![0.0; THREAT_COUNT],
        }
    }
    /// The parameter vector: combination values, then the tempo.
    pub fn to_params(&self) -> Vec<f64> {
        let mut v = self.combo.clone();
        v.push(self.tempo);
        v.extend_from_slice(&self.threat);
        v
    }
    pub fn from_params(v: &[f64]) -> Weights {
        Weights {
            combo: v[..NF].to_vec(),
            tempo: v[NF],
            threat: v[NT..NT + THREAT_COUNT].to_vec(),
        }
    }
    /// Rounded as the engine stores them: integers, the tempo in sixteenths.
    pub fn rounded(&self) -> Weights {
        Weights {
            combo: self.combo.iter().map(|v| v.round()).collect(),
            tempo: (self.tempo * 16.0).round() / 16.0,
            threat: self.threat.iter().map(|v| v.round()).collect(),
        }
    }
    /// The constants of `eval::weights` for these (rounded) weights.
    pub fn rust_constants(&self, set: WeightSet) -> String {
        let r = self.rounded();
        let (combo_name, threat_name) = set.constant_names();
        let mut text = format!("pub const {combo_name}: [i16; COMBO_COUNT] = [\n");
        for row in r.combo.chunks(16) {
            let row: Vec<String> = row.iter().map(|v| (*v as i64).to_string()).collect();
            text.push_str(&format!("    {},\n", row.join(", ")));
        }
        text.push_str(&format!(
            "];\npub const TEMPO_NUM: i32 = {};",
            (r.tempo * 16.0).round() as i64
        ));
        text.push_str(&format!(
            "\npub const {threat_name}: [i16; THREAT_COUNT] = [\n"
        ));
        for row in r.threat.chunks(16) {
            let row: Vec<String> = row.iter().map(|v| (*v as i64).to_string()).collect();
            text.push_str(&format!("    {},\n", row.join(", ")));
        }
        text.push_str("];");
        text
    }
}

fn dot(v: &[f64], f: &[(u16, f32)]) -> f64 {
    f.iter().map(|&(i, n)| v[i as usize] * n as f64).sum()
}

/// The model's evaluation of a sample with parameters `th`.
#[inline]
pub fn eval(th: &[f64], s: &Sample) -> f64 {
    th[NF] * dot(&th[..NF], &s.own) - dot(&th[..NF], &s.opp) + th[NT + s.threat as usize]
}

/// Adds `g` times the gradient of [`eval`] with respect to the parameters to `out`.
#[inline]
fn add_grad(th: &[f64], s: &Sample, g: f64, out: &mut [f64]) {
    let t = th[NF];
    for &(i, n) in &s.own {
        out[i as usize] += g * t * n as f64;
    }
    for &(i, n) in &s.opp {
        out[i as usize] -= g * n as f64;
    }
    out[NF] += g * dot(&th[..NF], &s.own);
    out[NT + s.threat as usize] += g;
}

/// `ln(1 + e^z)` without overflow.
fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Mean cross-entropy of the results against `sigmoid(eval / k)`.
pub fn loss(th: &[f64], data: &[Sample], k: f64) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let sum: f64 = data
        .iter()
        .map(|s| {
            let z = eval(th, s) / k;
            softplus(z) - s.result as f64 * z
        })
        .sum();
    sum / data.len() as f64
}

/// Mean squared error of `sigmoid(eval / k)` against the results (the original Texel measure).
pub fn mse(th: &[f64], data: &[Sample], k: f64) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let sum: f64 = data
        .iter()
        .map(|s| (sigmoid(eval(th, s) / k) - s.result as f64).powi(2))
        .sum();
    sum / data.len() as f64
}

/// The loss and its gradient with respect to the parameters (into `grad`).
pub fn loss_and_grad(th: &[f64], data: &[Sample], k: f64, grad: &mut [f64]) -> f64 {
    grad.iter_mut().for_each(|g| *g = 0.0);
    if data.is_empty() {
        return 0.0;
    }
    let mut sum = 0.0;
    for s in data {
        let z = eval(th, s) / k;
        let r = s.result as f64;
        sum += softplus(z) - r * z;
        add_grad(th, s, (sigmoid(z) - r) / k, grad);
    }
    let n = data.len() as f64;
    grad.iter_mut().for_each(|g| *g /= n);
    sum / n
}

/// The scale `K` that minimises the loss of the parameters `th` (golden-section search on
/// `ln K` over 1..1e6).
pub fn fit_k(th: &[f64], data: &[Sample]) -> f64 {
    let f = |lk: f64| loss(th, data, lk.exp());
    let (mut a, mut b) = (0f64, 1e6f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..60 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    ((a + b) / 2.0).exp()
}

/// Adam settings.
#[derive(Clone, Debug)]
pub struct FitOptions {
    pub iters: usize,
    /// Step in units of each parameter's scale (see [`fit`]); decays linearly to a tenth.
    pub lr: f64,
    /// Pull towards the starting parameters: `l2` times the sum of their squared differences
    /// (in evaluation units) is added to the loss.
    pub l2: f64,
    /// Print the loss every this many iterations (0: never).
    pub report_every: usize,
    /// The pull of the threat values towards their start.
    pub l2_threat: f64,
    /// Fit the tempo and the threat values only.
    pub freeze_combos: bool,
    /// Keep the tempo: the search's pruning margins are tuned to the evaluation's scale, which
    /// the tempo moves most (see the README's thirteenth session).
    pub freeze_tempo: bool,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions {
            iters: 3000,
            lr: 0.02,
            l2: 1e-7,
            report_every: 0,
            l2_threat: 1e-7,
            freeze_combos: false,
            freeze_tempo: false,
        }
    }
}

/// Fits the parameters from `th0` with Adam on the full batch, `k` fixed; the combinations that
/// are not fitted ([`is_fitted`]) keep their values. Each parameter moves in units of
/// `scale[i]` (so a value of 300 and a tempo of 1.4 learn at comparable relative rates).
pub fn fit(th0: &[f64], scale: &[f64], data: &[Sample], k: f64, opts: &FitOptions) -> Vec<f64> {
    let n = th0.len();
    let mut th = th0.to_vec();
    let (mut m, mut v, mut grad) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12f64);
    let free: Vec<bool> = (0..n)
        .map(|i| match i {
            NF => !opts.freeze_tempo,
            i if i > NF => true,
            i => is_fitted(i) && !opts.freeze_combos,
        })
        .collect();
    for it in 1..=opts.iters {
        let l = loss_and_grad(&th, data, k, &mut grad);
        if opts.report_every > 0 && (it == 1 || it % opts.report_every == 0) {
            eprintln!("  iter {it:5}  loss {l:.6}");
        }
        let lr = opts.lr * (1.0 - 0.9 * (it - 1) as f64 / opts.iters.max(1) as f64);
        for i in (0..n).filter(|&i| free[i]) {
            let mut g = grad[i];
            if i < NF {
                g += 2.0 * opts.l2 * (th[i] - th0[i]);
            } else if i >= NT {
                g += 2.0 * opts.l2_threat * (th[i] - th0[i]);
            }
            // The gradient with respect to u = th / scale.
            let g = g * scale[i];
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - b1.powi(it as i32));
            let vh = v[i] / (1.0 - b2.powi(it as i32));
            th[i] -= lr * scale[i] * mh / (vh.sqrt() + eps);
        }
    }
    th
}

/// The default parameter scales: a value moves in units of its size (at least 10), the tempo in
/// units of 1.
pub fn default_scale(th: &[f64]) -> Vec<f64> {
    th.iter()
        .enumerate()
        .map(|(i, &x)| match i {
            NF => 1.0,
            i if i >= NT => 50.0,
            _ => x.abs().max(10.0),
        })
        .collect()
}

/// The quiet positions of `games` as samples, split into (train, validation): every game whose
/// index is a multiple of `valid_every` goes to validation (0: none). With `labels` (by game
/// index and ply, see `tune_label`), only the labelled positions are kept, each with its label.
pub fn samples_of(
    games: &[GameRecord],
    valid_every: usize,
    labels: Option<&HashMap<(usize, usize), i32>>,
) -> (Vec<Sample>, Vec<Sample>) {
    let (mut train, mut valid) = (Vec::new(), Vec::new());
    for (i, g) in games.iter().enumerate() {
        let into = if valid_every > 0 && i % valid_every == 0 {
            &mut valid
        } else {
            &mut train
        };
        g.replay(|b| {
            if !tune_data::is_quiet(b) {
                return;
            }
            let search = labels.map(|l| l.get(&(i, b.stone_count())).copied());
            if search == Some(None) {
                return;
            }
            let mut s = sample(b, g.outcome.score_for(b.side_to_move()));
            s.search = search.flatten();
            into.push(s);
        });
    }
    (train, valid)
}

/// Replaces each labelled sample's result by `lambda * sigmoid(label / k) + (1 - lambda) *
/// result`: the search's verdict on the scale of the evaluation, mixed with the game's.
pub fn mix_labels(data: &mut [Sample], k: f64, lambda: f64) {
    for s in data {
        if let Some(score) = s.search {
            let p = sigmoid(score as f64 / k);
            s.result = (lambda * p + (1.0 - lambda) * s.result as f64) as f32;
        }
    }
}

/// `pbrain-tengen tune fit` settings.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    pub files: Vec<PathBuf>,
    pub fit: FitOptions,
    /// A fixed `K` instead of fitting it to the prior.
    pub k: Option<f64>,
    /// Every n-th game is held out for validation.
    pub valid_every: usize,
    /// Search label files (`tune label`) of the same game files, read in the same order.
    pub labels: Vec<PathBuf>,
    /// Share of the label in a labelled sample's target (the rest is the game's result).
    pub lambda: f64,
    /// Start from (and pull towards) the compiled weights instead of the additive prior.
    pub from_current: bool,
    /// Which compiled set `from_current` starts from and the printed constants replace.
    pub weights: WeightSet,
}

fn combo_name(i: usize) -> String {
    let short = |p: Pattern| match p {
        Pattern::None => "-",
        Pattern::Two => "2",
        Pattern::OpenTwo => "o2",
        Pattern::Three => "3",
        Pattern::OpenThree => "o3",
        Pattern::Four => "4",
        Pattern::OpenFour => "o4",
        Pattern::Five => "5",
    };
    combo_patterns(i).map(short).join(" ")
}

/// Loads the games, fits `K` and the weights, and prints the figures and the new constants.
pub fn run(opts: &TuneOptions) -> std::io::Result<()> {
    let games = tune_data::read_games(&opts.files)?;
    let labels = if opts.labels.is_empty() {
        None
    } else {
        Some(super::tune_label::read_labels(&opts.labels)?)
    };
    let (mut train, mut valid) = samples_of(&games, opts.valid_every, labels.as_ref());
    // Validation against the games' results alone, whatever the training targets.
    let valid_games = valid.clone();
    println!(
        "{} games, {} quiet positions for training, {} for validation",
        games.len(),
        train.len(),
        valid.len()
    );
    if train.is_empty() {
        return Ok(());
    }
    let prior = Weights::prior();
    let th0 = prior.to_params();
    let current = Weights::compiled(opts.weights);
    // K is fitted to the weights the fit starts from, so that the fitted values keep their
    // scale (data from other engines' games may read the same values at another K).
    let k = opts.k.unwrap_or_else(|| {
        let from = if opts.from_current {
            current.to_params()
        } else {
            th0.clone()
        };
        fit_k(&from, &train)
    });
    if labels.is_some() {
        // K was fitted on the game results; the labels are read on that scale.
        mix_labels(&mut train, k, opts.lambda);
        mix_labels(&mut valid, k, opts.lambda);
        println!(
            "targets: {} x search label + {} x game result",
            opts.lambda,
            1.0 - opts.lambda
        );
    }
    let report = |name: &str, th: &[f64]| {
        println!(
            "{name:<28} loss train {:.6} valid {:.6} (games {:.6})   mse train {:.6} valid {:.6}   tempo {:.3}",
            loss(th, &train, k),
            loss(th, &valid, k),
            loss(th, &valid_games, k),
            mse(th, &train, k),
            mse(th, &valid, k),
            th[NF]
        );
    };
    let fitted_to = if opts.from_current {
        "the compiled weights"
    } else {
        "the prior"
    };
    println!("K = {k:.1} (fitted to {fitted_to} on the game results)");
    report("prior (additive)", &th0);
    report("compiled weights", &current.to_params());
    let start = if opts.from_current {
        current.to_params()
    } else {
        th0.clone()
    };
    let th = fit(&start, &default_scale(&start), &train, k, &opts.fit);
    report("fitted (real)", &th);
    let rounded = Weights::from_params(&th).rounded();
    report("fitted (integer)", &rounded.to_params());
    let mut cells = vec![0f64; NF];
    for s in &train {
        for &(i, n) in s.own.iter().chain(&s.opp) {
            cells[i as usize] += n as f64;
        }
    }
    let mut order: Vec<usize> = (0..NF).filter(|&i| is_fitted(i)).collect();
    order.sort_by(|&a, &b| cells[b].total_cmp(&cells[a]).then(a.cmp(&b)));
    println!("most frequent combinations: cells, prior, compiled, fitted");
    for &i in order.iter().take(24) {
        println!(
            "  {:<14} {:>9} {:>6.0} {:>6} {:>6.0}",
            combo_name(i),
            cells[i],
            prior.combo[i],
            current.combo[i],
            rounded.combo[i]
        );
    }
    println!(
        "constants for src/eval/weights.rs:\n{}",
        rounded.rust_constants(opts.weights)
    );
    Ok(())
}

/// The engine's evaluation computed from the features with the compiled weights of `rule`
/// (real tempo).
pub fn model_eval_current(s: &Sample, rule: Rule) -> f64 {
    eval(&Weights::compiled(WeightSet::of(rule)).to_params(), s)
}

/// The engine's integer evaluation of `b` (for checking the features against the board).
pub fn engine_eval(b: &Board) -> i32 {
    classical::evaluate_board(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::classical::COMBO_VALUE;
    use crate::eval::tune_data::seeded;
    use crate::game::{Pos, Rule};

    /// Random sparse counts over the fitted combinations.
    fn random_samples(n: usize, seed: u64) -> Vec<Sample> {
        let fitted: Vec<u16> = (0..NF)
            .filter(|&i| is_fitted(i))
            .map(|i| i as u16)
            .collect();
        let mut rng = seeded(seed);
        (0..n)
            .map(|_| {
                let mut f = || {
                    let mut v: Vec<(u16, f32)> = (0..12)
                        .map(|_| (fitted[rng.below(fitted.len())], 1.0 + rng.below(6) as f32))
                        .collect();
                    v.sort_by_key(|e| e.0);
                    v.dedup_by_key(|e| e.0);
                    v
                };
                let (own, opp) = (f(), f());
                Sample {
                    own,
                    opp,
                    result: 0.0,
                    search: None,
                    threat: rng.below(THREAT_COUNT) as u16,
                }
            })
            .collect()
    }

    #[test]
    fn features_reproduce_the_board_evaluation() {
        let mut rng = seeded(7);
        let mut checked = 0;
        for rule in [
            Rule::Freestyle,
            Rule::Renju,
            Rule::Caro {
                overline_wins: false,
            },
        ] {
            for _ in 0..6 {
                let mut b = Board::new(15, 15, rule).unwrap();
                for _ in 0..40 {
                    if !tune_data::play_random_near_move(&mut b, &mut rng) {
                        continue;
                    }
                    if tune_data::is_quiet(&b) {
                        let s = sample(&b, 0.5);
                        let model = model_eval_current(&s, rule);
                        // The engine rounds own_sum * TEMPO_NUM / 16 towards zero.
                        let diff = model - engine_eval(&b) as f64;
                        assert!(diff.abs() < 1.0, "{model} vs {}", engine_eval(&b));
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn features_read_black_renju_cells_as_the_board_does() {
        // Black's X.X*X.X on row 7 (a double-four in one line, read as a four in renju) and an
        // open three on row 10; white to move, a quiet position for white.
        let black = [(3, 7), (5, 7), (7, 7), (9, 7), (5, 10), (6, 10), (7, 10)];
        let white = [(0, 0), (14, 14), (0, 14)];
        let b = Board::from_stones(Rule::Renju, &black, &white, Color::White);
        let s = sample(&b, 0.5);
        let diff = model_eval_current(&s, Rule::Renju) - engine_eval(&b) as f64;
        assert!(diff.abs() < 1.0, "{diff}");
    }

    #[test]
    fn combinations_ignore_the_order_of_directions() {
        let all = [
            Pattern::None,
            Pattern::Two,
            Pattern::OpenTwo,
            Pattern::Three,
            Pattern::OpenThree,
            Pattern::Four,
            Pattern::OpenFour,
            Pattern::Five,
        ];
        let mut seen = vec![false; COMBO_COUNT];
        for packed in 0..classical::PACKED_COMBOS {
            let pats = [0, 1, 2, 3].map(|d| all[(packed >> (3 * d)) & 7]);
            let i = classical::combo_index(pats);
            let mut sorted = pats;
            sorted.sort_by(|a, b| b.cmp(a));
            assert_eq!(combo_patterns(i), sorted);
            seen[i] = true;
        }
        assert!(seen.iter().all(|&s| s), "every combination is reached");
        assert_eq!(classical::combo_index([Pattern::None; 4]), 0);
        assert!(!is_fitted(0) && !is_fitted(COMBO_COUNT - 1));
    }

    #[test]
    fn the_prior_is_the_additive_model() {
        let prior = Weights::prior();
        let i = classical::combo_index([
            Pattern::Four,
            Pattern::OpenThree,
            Pattern::None,
            Pattern::None,
        ]);
        // Four 71 + open three 35 + four-three bonus 285.
        assert_eq!(prior.combo[i], 391.0);
        let j = classical::combo_index([Pattern::Two, Pattern::None, Pattern::None, Pattern::None]);
        assert_eq!(prior.combo[j], -1.0);
        assert_eq!(prior.tempo, 23.0 / 16.0);
    }

    #[test]
    fn search_labels_select_and_relabel_the_positions() {
        let g = GameRecord {
            rule: Rule::Freestyle,
            width: 15,
            height: 15,
            outcome: tune_data::Outcome::BlackWins,
            opening: 0,
            moves: [(7, 7), (8, 8), (6, 8), (9, 9), (5, 9)]
                .iter()
                .map(|&(x, y)| Pos::new(x, y))
                .collect(),
        };
        let games = vec![g];
        let (all, _) = samples_of(&games, 0, None);
        assert_eq!(all.len(), 6, "every position of this game is quiet");
        let labels: HashMap<(usize, usize), i32> = [((0, 2), 300), ((0, 3), -300)].into();
        let (mut some, _) = samples_of(&games, 0, Some(&labels));
        assert_eq!(some.len(), 2);
        // After 2 stones black is to move and won; after 3 white is to move and lost.
        assert_eq!((some[0].search, some[0].result), (Some(300), 1.0));
        assert_eq!((some[1].search, some[1].result), (Some(-300), 0.0));
        mix_labels(&mut some, 300.0, 0.5);
        let p = sigmoid(1.0) as f32;
        assert!((some[0].result - (0.5 * p + 0.5)).abs() < 1e-6);
        assert!((some[1].result - 0.5 * (1.0 - p)).abs() < 1e-6);
    }

    #[test]
    fn gradient_matches_a_finite_difference() {
        let mut data = random_samples(50, 3);
        for (i, s) in data.iter_mut().enumerate() {
            s.result = [0.0, 0.5, 1.0][i % 3];
        }
        let k = 200.0;
        let mut rng = seeded(11);
        let th: Vec<f64> = (0..NT + THREAT_COUNT)
            .map(|i| {
                if i == NF {
                    1.2
                } else {
                    rng.unit() * 20.0 - 5.0
                }
            })
            .collect();
        let mut grad = vec![0.0; th.len()];
        loss_and_grad(&th, &data, k, &mut grad);
        let used: Vec<usize> = data
            .iter()
            .flat_map(|s| s.own.iter().chain(&s.opp).map(|e| e.0 as usize))
            .chain(data.iter().map(|s| NT + s.threat as usize))
            .chain([NF, 0])
            .collect();
        for &i in &used {
            let h = 1e-4;
            let (mut up, mut down) = (th.clone(), th.clone());
            up[i] += h;
            down[i] -= h;
            let fd = (loss(&up, &data, k) - loss(&down, &data, k)) / (2.0 * h);
            assert!(
                (fd - grad[i]).abs() <= 1e-6 + 1e-4 * fd.abs(),
                "param {i}: analytic {} finite difference {fd}",
                grad[i]
            );
        }
    }

    /// Results drawn as the probabilities a known evaluation gives: the minimum of the loss is
    /// at those weights, and the fit must find them (where the data determine them) and the
    /// scale.
    #[test]
    fn recovers_known_weights_and_scale() {
        let mut rng = seeded(9);
        let prior = Weights::prior().to_params();
        let mut th_true = prior.clone();
        for (i, v) in th_true.iter_mut().enumerate().take(NF) {
            if is_fitted(i) {
                *v += rng.unit() * 40.0 - 20.0;
            }
        }
        th_true[NF] = 1.3;
        let k = 150.0;
        let mut data = random_samples(6000, 5);
        for s in &mut data {
            s.result = sigmoid(eval(&th_true, s) / k) as f32;
        }
        let fitted_k = fit_k(&th_true, &data);
        assert!((fitted_k / k - 1.0).abs() < 0.01, "K {fitted_k}");
        let opts = FitOptions {
            iters: 2000,
            lr: 0.03,
            l2: 0.0,
            ..FitOptions::default()
        };
        let th = fit(&prior, &default_scale(&prior), &data, k, &opts);
        assert!(loss(&th, &data, k) < loss(&prior, &data, k));
        let mut cells = vec![0f64; NF];
        for s in &data {
            for &(i, n) in s.own.iter().chain(&s.opp) {
                cells[i as usize] += n as f64;
            }
        }
        let mut checked = 0;
        for i in 0..NF {
            if !is_fitted(i) {
                assert_eq!(th[i], prior[i], "combination {i} is not fitted");
            } else if cells[i] > 1500.0 {
                assert!(
                    (th[i] - th_true[i]).abs() < 6.0,
                    "combination {i}: fitted {} true {}",
                    th[i],
                    th_true[i]
                );
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked}");
        assert!((th[NF] - 1.3).abs() < 0.03, "tempo {}", th[NF]);
    }

    /// With the tempo frozen, the fit keeps it exactly, and the combinations still move to lower
    /// the loss (data drawn from a different tempo, which the free fit would chase).
    #[test]
    fn a_frozen_tempo_stays_while_the_values_fit() {
        let prior = Weights::prior().to_params();
        let mut th_true = prior.clone();
        th_true[NF] = 1.1;
        let k = 150.0;
        let mut data = random_samples(3000, 11);
        for s in &mut data {
            s.result = sigmoid(eval(&th_true, s) / k) as f32;
        }
        let opts = FitOptions {
            iters: 300,
            lr: 0.03,
            l2: 0.0,
            freeze_tempo: true,
            ..FitOptions::default()
        };
        let th = fit(&prior, &default_scale(&prior), &data, k, &opts);
        assert_eq!(th[NF], prior[NF]);
        assert!(loss(&th, &data, k) < loss(&prior, &data, k));
        let free = fit(
            &prior,
            &default_scale(&prior),
            &data,
            k,
            &FitOptions {
                freeze_tempo: false,
                ..opts
            },
        );
        assert!((free[NF] - prior[NF]).abs() > 0.05, "tempo {}", free[NF]);
    }

    #[test]
    fn rounded_constants_match_the_compiled_ones() {
        let w = Weights::compiled(WeightSet::Distilled);
        let text = w.rust_constants(WeightSet::Distilled);
        assert!(text.starts_with("pub const COMBO_VALUE:"), "{text}");
        // Each set's constants are printed under its own names (`tune fit --weights`).
        let renju = Weights::compiled(WeightSet::Renju).rust_constants(WeightSet::Renju);
        assert!(renju.starts_with("pub const RENJU_COMBO_VALUE:"), "{renju}");
        assert!(renju.contains("pub const RENJU_THREAT_VALUE:"), "{renju}");
        let first: Vec<String> = COMBO_VALUE[..16].iter().map(|v| v.to_string()).collect();
        assert!(
            text.contains(&format!("    {},\n", first.join(", "))),
            "{text}"
        );
        assert!(
            text.contains(&format!("TEMPO_NUM: i32 = {TEMPO_NUM};")),
            "{text}"
        );
        assert_eq!(Weights::from_params(&w.to_params()), w);
    }
}
