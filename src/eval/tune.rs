//! Texel-style tuning of the classical evaluation.
//!
//! The evaluation is linear in its weights once a position is reduced to counts: for each colour,
//! how many (empty cell, direction) pairs make each [`Pattern`] and how many empty cells have each
//! [`Class`]. With `F_me`, `F_opp` those counts for the side to move and the opponent and `w` the
//! pattern values and class bonuses,
//!
//! ```text
//! eval = t * (w · F_me) - w · F_opp        (t = TEMPO_NUM / 16)
//! ```
//!
//! which is exactly what the board's incremental `score_sum` computes (each cell's score is its
//! `combo_table` entry). The tuner fits `w` and `t` by logistic regression of the game result on
//! `eval / K` (cross-entropy, Adam, full batch): first `K` for the current weights (so the fitted
//! weights keep the evaluation's scale), then the weights with `K` fixed. A second model,
//! [`Model::Separate`], fits independent weights for the side to move and for the opponent — not
//! representable by one score per cell and colour; it measures what such a board change would
//! gain.
//!
//! Patterns `Five` and class `C_FIVE` are not fitted: quiet positions (see
//! [`tune_data::is_quiet`](super::tune_data::is_quiet)) have none.

use super::classical::{self, CLASS_BONUS, CLASS_COUNT, C_FIVE, PATTERN_VALUE, TEMPO_NUM};
use super::tune_data::{self, GameRecord};
use crate::game::pattern::Pattern;
use crate::game::{Board, Color};
use std::collections::HashMap;
use std::path::PathBuf;

/// Fitted patterns: `Two..=OpenFour`.
pub const NPAT: usize = 6;
/// Fitted classes: `C_QUIET..=C_OPEN_FOUR`.
pub const NCLS: usize = 6;
/// Features per colour.
pub const NF: usize = NPAT + NCLS;

/// One training position, seen from the side to move.
#[derive(Clone, Debug)]
pub struct Sample {
    pub own: [f32; NF],
    pub opp: [f32; NF],
    /// The game's score for the side to move: 1, 0.5 or 0 (any probability in tests); when
    /// fitting to search labels, the mix of the label's probability and the game's score.
    pub result: f32,
    /// The search label's score for the side to move, if there is one.
    pub search: Option<i32>,
}

/// The counts of colour `c`: patterns `Two..=OpenFour` over every empty cell and direction, then
/// classes `C_QUIET..=C_OPEN_FOUR` over every empty cell.
pub fn features(b: &Board, c: Color) -> [f32; NF] {
    let mut f = [0f32; NF];
    for p in b.cells_iter() {
        if !b.is_empty(p) {
            continue;
        }
        for d in 0..4 {
            let pat = b.pattern(c, d, p) as usize;
            if (1..=NPAT).contains(&pat) {
                f[pat - 1] += 1.0;
            }
        }
    }
    for k in 1..=NCLS {
        f[NPAT + k - 1] = b.class_count(c, k as u8) as f32;
    }
    f
}

/// The sample of the position `b` with the game score `result` for the side to move.
pub fn sample(b: &Board, result: f64) -> Sample {
    let me = b.side_to_move();
    Sample {
        own: features(b, me),
        opp: features(b, me.other()),
        result: result as f32,
        search: None,
    }
}

/// The evaluation's weights as the engine spells them (real-valued while fitting).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Values of `Two..=OpenFour`.
    pub pattern: [f64; NPAT],
    /// Bonuses of `C_QUIET..=C_OPEN_FOUR`.
    pub class: [f64; NCLS],
    /// Weight of the side to move's sum (`TEMPO_NUM / 16`).
    pub tempo: f64,
}

impl Weights {
    /// The weights compiled into `eval::classical`.
    pub fn current() -> Weights {
        Weights {
            pattern: std::array::from_fn(|i| PATTERN_VALUE[i + 1] as f64),
            class: std::array::from_fn(|i| CLASS_BONUS[i + 1] as f64),
            tempo: TEMPO_NUM as f64 / 16.0,
        }
    }
    /// The [`Model::Tied`] parameter vector.
    pub fn to_params(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.pattern.iter().chain(&self.class).copied().collect();
        v.push(self.tempo);
        v
    }
    pub fn from_params(v: &[f64]) -> Weights {
        Weights {
            pattern: std::array::from_fn(|i| v[i]),
            class: std::array::from_fn(|i| v[NPAT + i]),
            tempo: v[NF],
        }
    }
    /// Rounded as the engine stores them: integers, the tempo in sixteenths.
    pub fn rounded(&self) -> Weights {
        Weights {
            pattern: self.pattern.map(f64::round),
            class: self.class.map(f64::round),
            tempo: (self.tempo * 16.0).round() / 16.0,
        }
    }
    /// The constants of `eval::classical` for these (rounded) weights.
    pub fn rust_constants(&self) -> String {
        let r = self.rounded();
        let mut pv = vec![0i64];
        pv.extend(r.pattern.iter().map(|&v| v as i64));
        pv.push(PATTERN_VALUE[Pattern::Five as usize] as i64);
        let mut cb = vec![0i64];
        cb.extend(r.class.iter().map(|&v| v as i64));
        cb.resize(CLASS_COUNT, 0);
        cb[C_FIVE as usize] = CLASS_BONUS[C_FIVE as usize] as i64;
        let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        format!(
            "pub const PATTERN_VALUE: [i32; Pattern::COUNT] = [{}];\n\
             pub const CLASS_BONUS: [i32; CLASS_COUNT] = [{}];\n\
             pub const TEMPO_NUM: i32 = {};",
            list(&pv),
            list(&cb),
            (r.tempo * 16.0).round() as i64
        )
    }
}

/// The parametrised evaluation being fitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// One weight vector `w` and the tempo `t`: `t * w·own - w·opp` (params `w`, then `t`); what
    /// the engine computes.
    Tied,
    /// Independent vectors `a`, `b`: `a·own - b·opp` (params `a`, then `b`).
    Separate,
}

fn dot(w: &[f64], f: &[f32; NF]) -> f64 {
    w.iter().zip(f).map(|(&w, &f)| w * f as f64).sum()
}

impl Model {
    pub fn param_count(self) -> usize {
        match self {
            Model::Tied => NF + 1,
            Model::Separate => 2 * NF,
        }
    }

    #[inline]
    pub fn eval(self, th: &[f64], s: &Sample) -> f64 {
        match self {
            Model::Tied => th[NF] * dot(&th[..NF], &s.own) - dot(&th[..NF], &s.opp),
            Model::Separate => dot(&th[..NF], &s.own) - dot(&th[NF..], &s.opp),
        }
    }

    /// Adds `g` times the gradient of `eval` with respect to the parameters to `out`.
    #[inline]
    fn add_grad(self, th: &[f64], s: &Sample, g: f64, out: &mut [f64]) {
        match self {
            Model::Tied => {
                let t = th[NF];
                for ((o, &own), &opp) in out.iter_mut().zip(&s.own).zip(&s.opp) {
                    *o += g * (t * own as f64 - opp as f64);
                }
                out[NF] += g * dot(&th[..NF], &s.own);
            }
            Model::Separate => {
                let (a, b) = out.split_at_mut(NF);
                for (i, (a, b)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
                    *a += g * s.own[i] as f64;
                    *b -= g * s.opp[i] as f64;
                }
            }
        }
    }

    /// The [`Model::Separate`] parameters equal to the tied ones `th`.
    pub fn untie(th: &[f64]) -> Vec<f64> {
        let t = th[NF];
        th[..NF]
            .iter()
            .map(|&w| w * t)
            .chain(th[..NF].iter().copied())
            .collect()
    }
}

/// `ln(1 + e^z)` without overflow.
fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Mean cross-entropy of the results against `sigmoid(eval / k)`.
pub fn loss(model: Model, th: &[f64], data: &[Sample], k: f64) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let sum: f64 = data
        .iter()
        .map(|s| {
            let z = model.eval(th, s) / k;
            softplus(z) - s.result as f64 * z
        })
        .sum();
    sum / data.len() as f64
}

/// Mean squared error of `sigmoid(eval / k)` against the results (the original Texel measure).
pub fn mse(model: Model, th: &[f64], data: &[Sample], k: f64) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let sum: f64 = data
        .iter()
        .map(|s| (sigmoid(model.eval(th, s) / k) - s.result as f64).powi(2))
        .sum();
    sum / data.len() as f64
}

/// The loss and its gradient with respect to the parameters (into `grad`).
pub fn loss_and_grad(model: Model, th: &[f64], data: &[Sample], k: f64, grad: &mut [f64]) -> f64 {
    grad.iter_mut().for_each(|g| *g = 0.0);
    if data.is_empty() {
        return 0.0;
    }
    let mut sum = 0.0;
    for s in data {
        let z = model.eval(th, s) / k;
        let r = s.result as f64;
        sum += softplus(z) - r * z;
        model.add_grad(th, s, (sigmoid(z) - r) / k, grad);
    }
    let n = data.len() as f64;
    grad.iter_mut().for_each(|g| *g /= n);
    sum / n
}

/// The scale `K` that minimises the loss of the parameters `th` (golden-section search on
/// `ln K` over 1..1e6).
pub fn fit_k(model: Model, th: &[f64], data: &[Sample]) -> f64 {
    let f = |lk: f64| loss(model, th, data, lk.exp());
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
    /// L2 pull towards the starting parameters, in units of their scales.
    pub l2: f64,
    /// Print the loss every this many iterations (0: never).
    pub report_every: usize,
    /// Keep pattern values and class bonuses at zero or above (projected after each step).
    pub nonneg: bool,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions {
            iters: 8000,
            lr: 0.03,
            l2: 1e-4,
            report_every: 0,
            nonneg: false,
        }
    }
}

/// Fits the parameters from `th0` with Adam on the full batch, `k` fixed. Each parameter moves in
/// units of `scale[i]` (so a pattern value of 100 and a tempo of 1.25 learn at comparable
/// relative rates). Returns the fitted parameters.
pub fn fit(
    model: Model,
    th0: &[f64],
    scale: &[f64],
    data: &[Sample],
    k: f64,
    opts: &FitOptions,
) -> Vec<f64> {
    let n = th0.len();
    let mut th = th0.to_vec();
    let (mut m, mut v, mut grad) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12f64);
    for it in 1..=opts.iters {
        let l = loss_and_grad(model, &th, data, k, &mut grad);
        if opts.report_every > 0 && (it == 1 || it % opts.report_every == 0) {
            eprintln!("  iter {it:5}  loss {l:.6}");
        }
        let lr = opts.lr * (1.0 - 0.9 * (it - 1) as f64 / opts.iters.max(1) as f64);
        for i in 0..n {
            // The gradient with respect to u = th / scale.
            let mut g = grad[i] * scale[i];
            g += 2.0 * opts.l2 * (th[i] - th0[i]) / scale[i];
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - b1.powi(it as i32));
            let vh = v[i] / (1.0 - b2.powi(it as i32));
            th[i] -= lr * scale[i] * mh / (vh.sqrt() + eps);
            let is_tempo = model == Model::Tied && i == NF;
            if opts.nonneg && !is_tempo {
                th[i] = th[i].max(0.0);
            }
        }
    }
    th
}

/// The default parameter scales: a weight moves in units of its size (at least 10), the tempo in
/// units of 1.
pub fn default_scale(model: Model, th: &[f64]) -> Vec<f64> {
    th.iter()
        .enumerate()
        .map(|(i, &x)| {
            if model == Model::Tied && i == NF {
                1.0
            } else {
                x.abs().max(10.0)
            }
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
    /// A fixed `K` instead of fitting it to the current weights.
    pub k: Option<f64>,
    /// Every n-th game is held out for validation.
    pub valid_every: usize,
    /// Also fit the separate side-to-move / opponent model.
    pub separate: bool,
    /// Search label files (`tune label`) of the same game files, read in the same order.
    pub labels: Vec<PathBuf>,
    /// Share of the label in a labelled sample's target (the rest is the game's result).
    pub lambda: f64,
}

fn weights_line(w: &Weights) -> String {
    let f = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "patterns Two..OpenFour [{}]  classes Quiet..OpenFour [{}]  tempo {:.3} ({:.1}/16)",
        f(&w.pattern),
        f(&w.class),
        w.tempo,
        w.tempo * 16.0
    )
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
    let old = Weights::current();
    let th0 = old.to_params();
    let k = opts.k.unwrap_or_else(|| fit_k(Model::Tied, &th0, &train));
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
    let report = |name: &str, model: Model, th: &[f64]| {
        println!(
            "{name:<28} loss train {:.6} valid {:.6} (games {:.6})   mse train {:.6} valid {:.6}",
            loss(model, th, &train, k),
            loss(model, th, &valid, k),
            loss(model, th, &valid_games, k),
            mse(model, th, &train, k),
            mse(model, th, &valid, k)
        );
    };
    println!("K = {k:.1}");
    report("current weights", Model::Tied, &th0);
    println!("  {}", weights_line(&old));
    let scale = default_scale(Model::Tied, &th0);
    let th = fit(Model::Tied, &th0, &scale, &train, k, &opts.fit);
    let fitted = Weights::from_params(&th);
    report("fitted (real)", Model::Tied, &th);
    println!("  {}", weights_line(&fitted));
    let rounded = fitted.rounded();
    report("fitted (integer)", Model::Tied, &rounded.to_params());
    println!("  {}", weights_line(&rounded));
    if opts.separate {
        let th_s0 = Model::untie(&th);
        let scale_s = default_scale(Model::Separate, &th_s0);
        let th_s = fit(Model::Separate, &th_s0, &scale_s, &train, k, &opts.fit);
        report("separate own/opp (real)", Model::Separate, &th_s);
        let fmt = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.1}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!("  own [{}]", fmt(&th_s[..NF]));
        println!("  opp [{}]", fmt(&th_s[NF..]));
    }
    println!(
        "constants for src/eval/classical.rs:\n{}",
        rounded.rust_constants()
    );
    Ok(())
}

/// The engine's evaluation computed from the features with the compiled weights (real tempo).
pub fn model_eval_current(s: &Sample) -> f64 {
    Model::Tied.eval(&Weights::current().to_params(), s)
}

/// The engine's integer evaluation of `b` (for checking the features against the board).
pub fn engine_eval(b: &Board) -> i32 {
    let me = b.side_to_move();
    classical::evaluate(b.score_sum(me), b.score_sum(me.other()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::tune_data::Rng;
    use crate::game::{Pos, Rule};

    fn random_samples(n: usize, seed: u64) -> Vec<Sample> {
        let mut rng = Rng::new(seed);
        (0..n)
            .map(|_| {
                let mut f =
                    || std::array::from_fn(|_| (rng.below(40) as f32) / (1 + rng.below(4)) as f32);
                let (own, opp) = (f(), f());
                Sample {
                    own,
                    opp,
                    result: 0.0,
                    search: None,
                }
            })
            .collect()
    }

    #[test]
    fn features_reproduce_the_board_evaluation() {
        let mut rng = Rng::new(7);
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
                    let me = b.side_to_move();
                    let cells: Vec<Pos> = b
                        .cells_iter()
                        .filter(|&p| b.is_empty(p) && (b.stone_count() == 0 || b.near(p)))
                        .collect();
                    let p = cells[rng.below(cells.len())];
                    if b.is_winning_move(p, me) || !b.is_legal(p, me) {
                        continue;
                    }
                    b.play(p, me);
                    if tune_data::is_quiet(&b) {
                        let s = sample(&b, 0.5);
                        let model = model_eval_current(&s);
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
        for model in [Model::Tied, Model::Separate] {
            let mut rng = Rng::new(11);
            let th: Vec<f64> = (0..model.param_count())
                .map(|i| {
                    if model == Model::Tied && i == NF {
                        1.2
                    } else {
                        rng.unit() * 20.0 - 5.0
                    }
                })
                .collect();
            let mut grad = vec![0.0; th.len()];
            loss_and_grad(model, &th, &data, k, &mut grad);
            for i in 0..th.len() {
                let h = 1e-4;
                let (mut up, mut down) = (th.clone(), th.clone());
                up[i] += h;
                down[i] -= h;
                let fd = (loss(model, &up, &data, k) - loss(model, &down, &data, k)) / (2.0 * h);
                assert!(
                    (fd - grad[i]).abs() <= 1e-6 + 1e-4 * fd.abs(),
                    "{model:?} param {i}: analytic {} finite difference {fd}",
                    grad[i]
                );
            }
        }
    }

    /// Results drawn as the probabilities a known evaluation gives: the minimum of the loss is
    /// at those weights, and the fit must find them and the scale.
    #[test]
    fn recovers_known_weights_and_scale() {
        let truth = Weights {
            pattern: [3.0, 8.0, 12.0, 40.0, 30.0, 90.0],
            class: [1.0, 20.0, 70.0, 15.0, 110.0, 160.0],
            tempo: 1.4,
        };
        let th_true = truth.to_params();
        let k = 150.0;
        let mut data = random_samples(4000, 5);
        for s in &mut data {
            s.result = sigmoid(Model::Tied.eval(&th_true, s) / k) as f32;
        }
        let fitted_k = fit_k(Model::Tied, &th_true, &data);
        assert!((fitted_k / k - 1.0).abs() < 0.01, "K {fitted_k}");
        let th0 = Weights::current().to_params();
        let opts = FitOptions {
            iters: 2500,
            lr: 0.05,
            l2: 0.0,
            ..FitOptions::default()
        };
        let th = fit(
            Model::Tied,
            &th0,
            &default_scale(Model::Tied, &th0),
            &data,
            k,
            &opts,
        );
        for (i, (&got, &want)) in th.iter().zip(&th_true).enumerate() {
            assert!(
                (got - want).abs() < 0.02 * want.abs().max(10.0),
                "param {i}: fitted {got} true {want}"
            );
        }
        assert!(loss(Model::Tied, &th, &data, k) <= loss(Model::Tied, &th0, &data, k));
        // The separate model contains the tied one: its fit is at least as good.
        let sep0 = Model::untie(&th0);
        let sep = fit(
            Model::Separate,
            &sep0,
            &default_scale(Model::Separate, &sep0),
            &data,
            k,
            &opts,
        );
        let want = Model::untie(&th_true);
        for (i, (&got, &w)) in sep.iter().zip(&want).enumerate() {
            assert!(
                (got - w).abs() < 0.03 * w.abs().max(10.0),
                "separate param {i}: fitted {got} true {w}"
            );
        }
    }

    #[test]
    fn rounded_constants_keep_five_and_format() {
        let w = Weights::current();
        let text = w.rust_constants();
        let pv = PATTERN_VALUE.map(|v| v.to_string()).join(", ");
        let cb = CLASS_BONUS.map(|v| v.to_string()).join(", ");
        assert!(text.contains(&format!("[{pv}]")), "{text}");
        assert!(text.contains(&format!("[{cb}]")), "{text}");
        assert!(
            text.contains(&format!("TEMPO_NUM: i32 = {TEMPO_NUM};")),
            "{text}"
        );
        assert_eq!(Weights::from_params(&w.to_params()), w);
    }
}
