//! `tengen-match`: plays two Gomocup (pbrain) engines against each other the way GomocupJudge
//! drives them, adjudicates with Tengen's rule code, and reports W-L-D, Elo with a pentanomial
//! 95 % interval, faults by kind and move times. See `--help`. `tengen-match gen-openings`
//! builds the opening books (genbook.rs).

mod cli;
mod engine;
mod game;
mod genbook;
mod interrupt;
mod openings;
mod records;
mod rng;
mod stats;

use anyhow::Result;
use cli::Config;
use engine::{Engine, FaultKind};
use game::{GameResult, Reason, Setup};
use openings::Opening;
use rng::seeded;
use stats::Tally;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Per-engine figures over the match.
#[derive(Clone, Debug, Default)]
struct EngineStats {
    moves: u64,
    total_ms: f64,
    max_ms: f64,
    /// Slowest reply relative to its limit: fraction, reply ms, limit ms, game number.
    max_frac: f64,
    max_frac_ms: f64,
    max_frac_limit: f64,
    max_frac_game: usize,
    faults: [u32; 4],
    fouls: u32,
    warnings: u32,
    wins: u32,
    losses: u32,
    draws: u32,
    /// Wins, losses and draws with black and with white.
    as_black: [u32; 3],
    as_white: [u32; 3],
}

impl EngineStats {
    fn mean_ms(&self) -> f64 {
        if self.moves == 0 {
            0.0
        } else {
            self.total_ms / self.moves as f64
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum SprtDecision {
    H0,
    H1,
}

struct Summary {
    tally: Tally,
    engines: [EngineStats; 2],
    reasons: BTreeMap<String, u32>,
    games: usize,
    /// Pair number -> engine 0's score in the first finished game of the pair.
    partial: HashMap<usize, f64>,
    plies: u64,
    sprt: Option<(f64, Option<SprtDecision>)>,
    /// Whether the run was interrupted (Ctrl-C), and the games then in progress, not counted.
    interrupted: bool,
    dropped: usize,
}

impl Summary {
    fn new() -> Summary {
        Summary {
            tally: Tally::default(),
            engines: Default::default(),
            reasons: BTreeMap::new(),
            games: 0,
            partial: HashMap::new(),
            plies: 0,
            sprt: None,
            interrupted: false,
            dropped: 0,
        }
    }

    /// Games won by black and by white.
    fn colour_wins(&self) -> (u32, u32) {
        let wins = |pick: fn(&EngineStats) -> u32| self.engines.iter().map(pick).sum();
        (wins(|e| e.as_black[0]), wins(|e| e.as_white[0]))
    }

    fn add(&mut self, cfg: &Config, g: &GameResult) {
        self.games += 1;
        self.plies += g.moves.len() as u64;
        let s = g.score0();
        match g.winner {
            Some(0) => {
                self.tally.wins += 1;
                self.engines[0].wins += 1;
                self.engines[1].losses += 1;
            }
            Some(_) => {
                self.tally.losses += 1;
                self.engines[1].wins += 1;
                self.engines[0].losses += 1;
            }
            None => {
                self.tally.draws += 1;
                self.engines[0].draws += 1;
                self.engines[1].draws += 1;
            }
        }
        for (i, e) in self.engines.iter_mut().enumerate() {
            let by_colour = if i == g.setup.black {
                &mut e.as_black
            } else {
                &mut e.as_white
            };
            let outcome = match g.winner {
                Some(w) if w == i => 0,
                Some(_) => 1,
                None => 2,
            };
            by_colour[outcome] += 1;
        }
        match self.partial.remove(&g.setup.pair) {
            Some(first) => self.tally.penta[((first + s) * 2.0).round() as usize] += 1,
            None => {
                self.partial.insert(g.setup.pair, s);
            }
        }
        *self.reasons.entry(g.reason.short()).or_insert(0) += 1;
        if let (Some(f), Reason::Fault(fault)) = (g.faulty, &g.reason) {
            self.engines[f].faults[fault.kind.index()] += 1;
        }
        if let Reason::Foul(_) = g.reason {
            self.engines[g.setup.black].fouls += 1;
        }
        for (i, w) in g.warnings.iter().enumerate() {
            self.engines[i].warnings += w.len() as u32;
        }
        for m in &g.moves {
            if let Some(e) = m.engine {
                let st = &mut self.engines[e];
                st.moves += 1;
                st.total_ms += m.ms;
                st.max_ms = st.max_ms.max(m.ms);
                if let Some(l) = m.limit_ms {
                    // A limit at or below zero (match clock overdrawn) counts as 1 ms.
                    let frac = m.ms / l.max(1.0);
                    if frac > st.max_frac {
                        st.max_frac = frac;
                        st.max_frac_ms = m.ms;
                        st.max_frac_limit = l;
                        st.max_frac_game = g.setup.index + 1;
                    }
                }
            }
        }
        if let Some(p) = &cfg.sprt {
            let llr = self.tally.llr(p);
            let (lo, hi) = stats::sprt_bounds(p);
            let d = if self.tally.pairs() < p.min_pairs {
                None
            } else if llr >= hi {
                Some(SprtDecision::H1)
            } else if llr <= lo {
                Some(SprtDecision::H0)
            } else {
                None
            };
            // A decision stands: games still in flight when it was made are counted, but do
            // not undo it.
            let d = self.sprt.and_then(|(_, prev)| prev).or(d);
            self.sprt = Some((llr, d));
        }
    }

    fn total_faults(&self) -> u32 {
        self.engines
            .iter()
            .map(|e| e.faults.iter().sum::<u32>())
            .sum()
    }
}

fn schedule(cfg: &Config) -> Result<Vec<Setup>> {
    let book: Option<Vec<Opening>> = match &cfg.openings {
        Some(p) => Some(openings::load(p, cfg.size, cfg.rule, cfg.openings_format)?),
        None => None,
    };
    let per_pair = if cfg.repeat { 2 } else { 1 };
    let pairs = cfg.games.div_ceil(per_pair);
    let mut order: Vec<usize> = (0..book.as_ref().map_or(0, Vec::len)).collect();
    if cfg.random_order {
        seeded(cfg.seed).shuffle(&mut order);
    }
    let mut out = Vec::with_capacity(cfg.games);
    for k in 0..pairs {
        let mut rng = seeded(
            cfg.seed
                .wrapping_mul(0x1000_0000_01B3)
                .wrapping_add(k as u64),
        );
        let mut o = match &book {
            Some(b) => b[order[k % order.len()]].clone(),
            None => openings::random_opening(
                &mut rng,
                cfg.size,
                cfg.rule,
                cfg.random_stones.0,
                cfg.random_stones.1,
            ),
        };
        if cfg.symmetry {
            // The rules are invariant under the 8 symmetries of a square board, so the
            // transformed opening is as valid as the original.
            o = openings::transform(&o, rng.below(8) as u8, cfg.size);
        }
        for j in 0..per_pair {
            let index = k * per_pair + j;
            if index >= cfg.games {
                break;
            }
            out.push(Setup {
                index,
                pair: if cfg.repeat { k } else { index / 2 },
                opening: o.clone(),
                black: index % 2,
            });
        }
    }
    Ok(out)
}

fn fmt_opening(o: &Opening) -> String {
    o.iter()
        .map(|(x, y)| format!("{x},{y}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn progress_line(cfg: &Config, g: &GameResult, sum: &Summary) -> String {
    let black = &cfg.engines[g.setup.black].name;
    let white = &cfg.engines[1 - g.setup.black].name;
    let mut s = format!(
        "[{:>4}/{}] {} vs {} {} ({}) {} plies {:.1}s | {}",
        sum.games,
        cfg.games,
        black,
        white,
        g.result_bw(),
        g.reason.short(),
        g.moves.len(),
        g.wall.as_secs_f64(),
        sum.tally.line()
    );
    if let Some((llr, _)) = sum.sprt {
        let (lo, hi) = stats::sprt_bounds(cfg.sprt.as_ref().unwrap());
        let _ = write!(s, " LLR {llr:.2} [{lo:.2}, {hi:.2}]");
    }
    s
}

fn summary_text(cfg: &Config, sum: &Summary, wall: Duration) -> String {
    let mut s = String::new();
    let (a, b) = (&cfg.engines[0].name, &cfg.engines[1].name);
    let _ = writeln!(
        s,
        "\n=== {a} vs {b}: {} {}x{}, {} games, {:.1} s wall ===",
        cfg.rule.name(),
        cfg.size,
        cfg.size,
        sum.games,
        wall.as_secs_f64()
    );
    let t = &sum.tally;
    let _ = writeln!(
        s,
        "Result for {a}: {}-{}-{} (W-L-D)",
        t.wins, t.losses, t.draws
    );
    if let Some(sc) = t.score() {
        let _ = write!(
            s,
            "Score {:.3}  Elo {}",
            sc,
            stats::fmt_elo(t.elo().unwrap())
        );
        match t.elo_interval() {
            Some((lo, hi)) => {
                let _ = writeln!(
                    s,
                    "  95% [{}, {}] (pentanomial, {} pairs)",
                    stats::fmt_elo(lo),
                    stats::fmt_elo(hi),
                    t.pairs()
                );
            }
            None => {
                let _ = writeln!(s, "  (too few pairs for an interval)");
            }
        }
    }
    let _ = writeln!(s, "Pairs (0, 1/2, 1, 3/2, 2 for {a}): {:?}", t.penta);
    if let (Some(p), Some((llr, d))) = (&cfg.sprt, sum.sprt) {
        let (lo, hi) = stats::sprt_bounds(p);
        let verdict = match d {
            Some(SprtDecision::H1) => "H1 accepted (elo1 more likely): passed",
            Some(SprtDecision::H0) => "H0 accepted (elo0 more likely): failed",
            None => "no decision yet",
        };
        let _ = writeln!(
            s,
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {llr:.3} [{lo:.3}, {hi:.3}] {verdict}",
            p.elo0, p.elo1, p.alpha, p.beta
        );
    }
    let reasons: Vec<String> = sum
        .reasons
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let _ = writeln!(s, "Endings: {}", reasons.join(", "));
    let _ = writeln!(
        s,
        "{:<20} {:>5} {:>5} {:>5} {:>7} {:>7} {:>5} {:>5} {:>9} {:>9} {:>8}  slowest vs limit",
        "engine", "W", "L", "D", "timeout", "crash", "ill.", "error", "foul", "mean ms", "max ms"
    );
    for (i, e) in sum.engines.iter().enumerate() {
        let slow = if e.max_frac > 0.0 {
            format!(
                "{:.0}/{:.0} ms = {:.0}% (game {})",
                e.max_frac_ms,
                e.max_frac_limit,
                e.max_frac * 100.0,
                e.max_frac_game
            )
        } else {
            "-".into()
        };
        let _ = writeln!(
            s,
            "{:<20} {:>5} {:>5} {:>5} {:>7} {:>7} {:>5} {:>5} {:>9} {:>9.1} {:>8.0}  {}",
            cfg.engines[i].name,
            e.wins,
            e.losses,
            e.draws,
            e.faults[FaultKind::Timeout.index()],
            e.faults[FaultKind::Crash.index()],
            e.faults[FaultKind::Illegal.index()],
            e.faults[FaultKind::Error.index()],
            e.fouls,
            e.mean_ms(),
            e.max_ms,
            slow
        );
    }
    let (black_wins, white_wins) = sum.colour_wins();
    let _ = writeln!(
        s,
        "By colour: black won {black_wins}, white won {white_wins}, {} drawn",
        sum.tally.draws
    );
    for (i, e) in sum.engines.iter().enumerate() {
        let [bw, bl, bd] = e.as_black;
        let [ww, wl, wd] = e.as_white;
        let _ = writeln!(
            s,
            "  {}: as black {bw}-{bl}-{bd}, as white {ww}-{wl}-{wd} (W-L-D)",
            cfg.engines[i].name
        );
    }
    let _ = writeln!(s, "Total faults: {}", sum.total_faults());
    if sum.interrupted {
        let _ = writeln!(
            s,
            "Interrupted after {} of {} games; {} in progress not counted",
            sum.games, cfg.games, sum.dropped
        );
    }
    for (i, e) in sum.engines.iter().enumerate() {
        if e.warnings > 0 {
            let _ = writeln!(
                s,
                "Protocol warnings for {}: {} (extra OK, UNKNOWN, ERROR or unreadable lines, skipped as GomocupJudge does; see stderr)",
                cfg.engines[i].name, e.warnings
            );
        }
    }
    s
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_num(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3}")
    } else {
        "null".into()
    }
}

fn summary_json(cfg: &Config, sum: &Summary, wall: Duration) -> String {
    let t = &sum.tally;
    let mut s = String::from("{\n");
    let _ = writeln!(s, "  \"rule\": {},", json_str(cfg.rule.name()));
    let _ = writeln!(s, "  \"size\": {},", cfg.size);
    let _ = writeln!(s, "  \"games\": {},", sum.games);
    let _ = writeln!(s, "  \"games_planned\": {},", cfg.games);
    let _ = writeln!(s, "  \"interrupted\": {},", sum.interrupted);
    let _ = writeln!(s, "  \"seed\": {},", cfg.seed);
    let _ = writeln!(s, "  \"wall_s\": {},", json_num(wall.as_secs_f64()));
    let _ = writeln!(s, "  \"plies\": {},", sum.plies);
    let _ = writeln!(
        s,
        "  \"wins\": {}, \"losses\": {}, \"draws\": {},",
        t.wins, t.losses, t.draws
    );
    let _ = writeln!(
        s,
        "  \"score\": {},",
        t.score().map_or("null".into(), json_num)
    );
    let _ = writeln!(s, "  \"elo\": {},", t.elo().map_or("null".into(), json_num));
    match t.elo_interval() {
        Some((lo, hi)) => {
            let _ = writeln!(s, "  \"elo_95\": [{}, {}],", json_num(lo), json_num(hi));
        }
        None => {
            let _ = writeln!(s, "  \"elo_95\": null,");
        }
    }
    let _ = writeln!(s, "  \"pentanomial\": {:?},", t.penta);
    if let (Some(p), Some((llr, d))) = (&cfg.sprt, sum.sprt) {
        let (lo, hi) = stats::sprt_bounds(p);
        let dec = match d {
            Some(SprtDecision::H1) => "\"H1\"",
            Some(SprtDecision::H0) => "\"H0\"",
            None => "null",
        };
        let _ = writeln!(
            s,
            "  \"sprt\": {{\"elo0\": {}, \"elo1\": {}, \"alpha\": {}, \"beta\": {}, \"min_pairs\": {}, \"llr\": {}, \"lower\": {}, \"upper\": {}, \"decision\": {}}},",
            p.elo0,
            p.elo1,
            p.alpha,
            p.beta,
            p.min_pairs,
            json_num(llr), json_num(lo), json_num(hi), dec
        );
    }
    let reasons: Vec<String> = sum
        .reasons
        .iter()
        .map(|(k, v)| format!("{}: {v}", json_str(k)))
        .collect();
    let _ = writeln!(s, "  \"endings\": {{{}}},", reasons.join(", "));
    let (black_wins, white_wins) = sum.colour_wins();
    let _ = writeln!(
        s,
        "  \"black_wins\": {black_wins}, \"white_wins\": {white_wins},"
    );
    let _ = writeln!(s, "  \"faults_total\": {},", sum.total_faults());
    s.push_str("  \"engines\": [\n");
    for (i, e) in sum.engines.iter().enumerate() {
        let faults: Vec<String> = FaultKind::ALL
            .iter()
            .map(|k| format!("\"{}\": {}", k.name(), e.faults[k.index()]))
            .collect();
        let _ = write!(
            s,
            "    {{\"name\": {}, \"wins\": {}, \"losses\": {}, \"draws\": {}, \"faults\": {{{}}}, \"fouls\": {}, \"warnings\": {}, \"moves\": {}, \"mean_ms\": {}, \"max_ms\": {}, \"slowest_fraction\": {}, \"slowest_ms\": {}, \"slowest_limit_ms\": {}, \"slowest_game\": {}, \"black_wins\": {}, \"black_losses\": {}, \"black_draws\": {}, \"white_wins\": {}, \"white_losses\": {}, \"white_draws\": {}}}",
            json_str(&cfg.engines[i].name),
            e.wins,
            e.losses,
            e.draws,
            faults.join(", "),
            e.fouls,
            e.warnings,
            e.moves,
            json_num(e.mean_ms()),
            json_num(e.max_ms),
            json_num(e.max_frac),
            json_num(e.max_frac_ms),
            json_num(e.max_frac_limit),
            e.max_frac_game,
            e.as_black[0],
            e.as_black[1],
            e.as_black[2],
            e.as_white[0],
            e.as_white[1],
            e.as_white[2]
        );
        s.push_str(if i == 0 { ",\n" } else { "\n" });
    }
    s.push_str("  ]\n}\n");
    s
}

fn run(cfg: Config) -> Result<i32> {
    let cfg = Arc::new(cfg);
    let setups = Arc::new(schedule(&cfg)?);
    interrupt::install();
    let t0 = Instant::now();
    eprintln!(
        "tengen-match: {} vs {}, {} {}x{}, {} games, concurrency {}, seed {}, tc {}/{}+{} ms vs {}/{}+{} ms, tolerance {} ms{}",
        cfg.engines[0].name,
        cfg.engines[1].name,
        cfg.rule.name(),
        cfg.size,
        cfg.size,
        cfg.games,
        cfg.concurrency,
        cfg.seed,
        cfg.engines[0].match_ms,
        cfg.engines[0].turn_ms,
        cfg.engines[0].inc_ms,
        cfg.engines[1].match_ms,
        cfg.engines[1].turn_ms,
        cfg.engines[1].inc_ms,
        cfg.tolerance_ms,
        if cfg.reuse { ", reusing processes" } else { "" }
    );
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(usize, GameResult)>();
    let mut workers = Vec::new();
    // Under an SPRT a worker waits until its result is counted before it starts another game,
    // so that a decision stops the run without one game more.
    let mut acks = Vec::new();
    for w in 0..cfg.concurrency.min(setups.len().max(1)) {
        let (ack_tx, ack_rx) = mpsc::channel::<()>();
        acks.push(ack_tx);
        let (cfg, setups, next, stop, tx) = (
            cfg.clone(),
            setups.clone(),
            next.clone(),
            stop.clone(),
            tx.clone(),
        );
        workers.push(
            std::thread::Builder::new()
                .name(format!("worker-{w}"))
                .spawn(move || {
                    let mut slots: [Option<Engine>; 2] = [None, None];
                    loop {
                        if stop.load(Ordering::SeqCst) || interrupt::interrupted() {
                            break;
                        }
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(setup) = setups.get(i) else { break };
                        if cfg.show {
                            println!(
                                "Game {}: black {}, white {}, opening {}",
                                i + 1,
                                cfg.engines[setup.black].name,
                                cfg.engines[1 - setup.black].name,
                                fmt_opening(&setup.opening)
                            );
                        }
                        let r = game::play(&cfg, setup.clone(), &mut slots);
                        if tx.send((w, r)).is_err() {
                            break;
                        }
                        if cfg.sprt.is_some() && ack_rx.recv().is_err() {
                            break;
                        }
                    }
                    // --reuse: END the kept engines at the end of the run.
                    let mut live: Vec<&mut Engine> =
                        slots.iter_mut().filter_map(|s| s.as_mut()).collect();
                    engine::end_all(&mut live, Duration::from_secs(1));
                })?,
        );
    }
    drop(tx);
    let mut sum = Summary::new();
    let mut warned = 0u32;
    for (w, g) in rx {
        if let Reason::Fault(f) = &g.reason {
            // A terminal's Ctrl-C reaches the engines too: one may die of it just before the
            // handler sets the flag. Give the flag a moment before charging a crash.
            if f.kind == FaultKind::Crash && !interrupt::interrupted() {
                std::thread::sleep(Duration::from_millis(100));
            }
            if interrupt::interrupted() {
                // Ended by the interrupt (its engines were killed): not a result. A game that
                // ended normally still counts.
                sum.dropped += 1;
                let _ = acks[w].send(());
                continue;
            }
        }
        sum.add(&cfg, &g);
        if let Some(dir) = &cfg.records {
            if let Err(e) = records::write(&cfg, dir, &g) {
                eprintln!("warning: cannot write record: {e:#}");
            }
        }
        if let (Some(f), Reason::Fault(fault)) = (g.faulty, &g.reason) {
            eprintln!(
                "FAULT game {}: {} {}: {}",
                g.setup.index + 1,
                cfg.engines[f].name,
                fault.kind.name(),
                fault.detail
            );
            let tr = &g.transcripts[f];
            for l in &tr[tr.len().saturating_sub(12)..] {
                eprintln!("    {l}");
            }
        }
        for (i, ws) in g.warnings.iter().enumerate() {
            for w in ws {
                if warned < 20 {
                    eprintln!(
                        "warning game {}: {}: {w}",
                        g.setup.index + 1,
                        cfg.engines[i].name
                    );
                }
                warned += 1;
            }
        }
        if !cfg.quiet {
            let _ = writeln!(std::io::stdout(), "{}", progress_line(&cfg, &g, &sum));
        }
        if let Some((_, Some(_))) = sum.sprt {
            stop.store(true, Ordering::SeqCst);
        }
        let _ = acks[w].send(());
    }
    for w in workers {
        let _ = w.join();
    }
    let wall = t0.elapsed();
    // A signal after the last game (or the SPRT's decision) interrupted nothing.
    let complete = sum.games >= cfg.games || matches!(sum.sprt, Some((_, Some(_))));
    sum.interrupted = interrupt::interrupted() && !complete;
    // The JSON first, and no panic on a closed stdout: a Ctrl-C also ends a `| tee` reading it.
    if let Some(p) = &cfg.json {
        std::fs::write(p, summary_json(&cfg, &sum, wall))?;
    }
    let _ = std::io::stdout().write_all(summary_text(&cfg, &sum, wall).as_bytes());
    Ok(if sum.interrupted {
        interrupt::EXIT_CODE
    } else {
        0
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("gen-openings") {
        let code = match genbook::parse(&args[1..]) {
            Ok(None) => 0,
            Ok(Some(cfg)) => genbook::run(&cfg).unwrap_or_else(|e| {
                eprintln!("tengen-match gen-openings: {e:#}");
                2
            }),
            Err(e) => {
                eprintln!("tengen-match gen-openings: {e:#}");
                2
            }
        };
        std::process::exit(code);
    }
    let code = match cli::parse(&args) {
        Ok(None) => 0,
        Ok(Some(cfg)) => match run(cfg) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("tengen-match: {e:#}");
                2
            }
        },
        Err(e) => {
            eprintln!("tengen-match: {e:#}");
            2
        }
    };
    std::process::exit(code);
}
