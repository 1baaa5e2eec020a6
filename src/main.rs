//! `pbrain-tengen`: the Gomocup protocol engine by default (`--strength N` for a playing level);
//! `bench` for the fixed-depth benchmark; `play` for a game in the terminal; `tune` for the
//! evaluation tuner.

fn main() {
    // Silent unless RUST_LOG asks for logs: Piskvork hands a brain one pipe for both stdout and
    // stderr, and reads any line on it as the brain's answer.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off"))
        .target(env_logger::Target::Stderr)
        .init();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // `play` has its own options (`--level` rather than `--strength`).
    if args.first().map(String::as_str) == Some("play") {
        std::process::exit(tengen::play::main(&args[1..]));
    }
    // `--strength N` / `--strength=N`: play at that level (0..100) until `INFO strength`.
    let mut strength = None;
    if let Some(i) = args
        .iter()
        .position(|a| a == "--strength" || a.starts_with("--strength="))
    {
        let value = match args[i].strip_prefix("--strength=") {
            Some(v) => Some(v.to_string()),
            None => args.get(i + 1).cloned(),
        };
        match value.as_deref().map(str::parse::<i64>) {
            Some(Ok(n)) if (0..=100).contains(&n) => strength = Some(n),
            _ => {
                eprintln!("--strength needs a number from 0 to 100");
                std::process::exit(2);
            }
        }
        let n = if args[i].contains('=') { 1 } else { 2 };
        args.drain(i..i + n);
    }
    match args.first().map(String::as_str) {
        None => match strength {
            Some(s) => tengen::protocol::session::Session::with_strength(s).run(),
            None => tengen::protocol::session::Session::new().run(),
        },
        Some("bench") => {
            let depth = args
                .get(1)
                .and_then(|d| d.parse().ok())
                .unwrap_or(tengen::bench::DEFAULT_DEPTH);
            tengen::bench::run(depth);
        }
        Some("solve") => {
            let ms = args
                .iter()
                .find_map(|a| a.strip_prefix("--ms="))
                .and_then(|v| v.parse().ok())
                .unwrap_or(1000);
            let files: Vec<String> = args[1..]
                .iter()
                .filter(|a| !a.starts_with("--"))
                .cloned()
                .collect();
            let solver = if args.iter().any(|a| a == "--solvers") {
                tengen::solve::Solver::Threats
            } else {
                tengen::solve::Solver::Engine
            };
            tengen::solve::run(&files, std::time::Duration::from_millis(ms), solver);
        }
        Some("tune") => std::process::exit(tune_main(&args[1..])),
        Some("--help") | Some("-h") | Some("help") => {
            println!("usage: pbrain-tengen            speak the Gomocup (pbrain) protocol on stdin/stdout");
            println!("       pbrain-tengen --strength N   the same at playing level N (0..100, 100 = full)");
            println!(
                "       pbrain-tengen bench [D]  fixed-depth benchmark (default depth {})",
                tengen::bench::DEFAULT_DEPTH
            );
            println!(
                "       pbrain-tengen solve [--ms=N] [--solvers] FILE...  labelled VCF/VCT puzzles"
            );
            println!("       pbrain-tengen play [OPTIONS]  a game in the terminal against Tengen (play --help)");
            println!("       pbrain-tengen tune gen|fit [OPTIONS]  self-play data and evaluation tuning (tune --help)");
        }
        Some(other) => {
            eprintln!("unknown subcommand '{other}'; try --help");
            std::process::exit(2);
        }
    }
}

const TUNE_USAGE: &str = "\
usage: pbrain-tengen tune gen [--out FILE] [--games N] [--minutes M] [--depth D] [--nodes N]
                              [--seed S] [--openings DIR] [--book-share P] [--sizes 15,20]
                              [--rules freestyle,standard,renju,caro] [--noise P] [--noise-plies N]
         self-play games for the tuner, appended to FILE (default tune-games.txt); defaults:
         2000 games or 20 minutes, depth 3, 20000 nodes a move, books from scripts/openings
       pbrain-tengen tune fit FILE... [--iters N] [--lr X] [--l2 X] [--k K] [--valid-every N]
                              [--verbose] [--labels FILE]... [--lambda X] [--l2-threat X]
                              [--from-current] [--weights distilled|self-fit|renju]
                              [--freeze-combos] [--freeze-tempo]
         fits K to the additive prior, then a value per pattern combination and the tempo
         (logistic regression, Adam; defaults 3000 iterations, --lr 0.02, --l2 1e-7: the pull
         towards the prior), on the quiet positions of the games (every 10th game held out for
         validation); prints the losses and the constants for src/eval/weights.rs; --labels
         fits to search labels (tune label) of the same files in the same order: the target is
         X (default 0.7) times the label's probability plus 1 - X times the result;
         --from-current starts from the compiled set --weights names (default distilled:
         freestyle's and standard's; renju; self-fit: caro's) and prints its constants
       pbrain-tengen tune label FILE... [--out FILE] [--depth D] [--nodes N] [--part K/N]
         scores every quiet position of the games by a fixed-depth search (default depth 6,
         200000 nodes), appending `GAME PLY SCORE` lines to FILE (default tune-labels.txt);
         --part K/N labels only the games whose index is K modulo N (for parallel runs)
       pbrain-tengen tune import FILE|DIR... [--out FILE] [--min-moves N]
         appends the games of match records (the .sgf files tengen-match writes, searched
         under each DIR) to FILE (default tune-games.txt) as game lines for label and fit,
         each game once, leaving out games under N moves (default 6)";

/// `pbrain-tengen tune gen|fit|label|import …`.
fn tune_main(args: &[String]) -> i32 {
    use tengen::eval::{classical::WeightSet, tune, tune_data, tune_import, tune_label};
    let mut it = args.iter();
    let sub = it.next().map(String::as_str);
    let mut opts: Vec<(String, Option<String>)> = Vec::new();
    let mut files = Vec::new();
    let flags = [
        "--verbose",
        "--help",
        "-h",
        "--from-current",
        "--freeze-combos",
        "--freeze-tempo",
    ];
    while let Some(a) = it.next() {
        if let Some((k, v)) = a.split_once('=').filter(|_| a.starts_with("--")) {
            opts.push((k.to_string(), Some(v.to_string())));
        } else if flags.contains(&a.as_str()) {
            opts.push((a.clone(), None));
        } else if a.starts_with("--") {
            opts.push((a.clone(), it.next().cloned()));
        } else {
            files.push(std::path::PathBuf::from(a));
        }
    }
    if sub.is_none() || opts.iter().any(|(k, _)| k == "--help" || k == "-h") {
        println!("{TUNE_USAGE}");
        return if sub.is_none() { 2 } else { 0 };
    }
    fn num<T: std::str::FromStr>(k: &str, v: &Option<String>) -> Result<T, String> {
        v.as_deref()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{k} needs a number"))
    }
    let result: Result<(), String> = match sub {
        Some("gen") => (|| {
            let mut g = tune_data::GenOptions::default();
            for (k, v) in &opts {
                match k.as_str() {
                    "--out" => g.out = v.clone().ok_or("--out needs a file")?.into(),
                    "--games" => g.games = num(k, v)?,
                    "--minutes" => {
                        g.time = std::time::Duration::from_secs_f64(num::<f64>(k, v)? * 60.0)
                    }
                    "--depth" => g.depth = num(k, v)?,
                    "--nodes" => g.nodes = num(k, v)?,
                    "--seed" => g.seed = num(k, v)?,
                    "--openings" => g.openings = v.clone().ok_or("--openings needs a dir")?.into(),
                    "--book-share" => g.book_share = num(k, v)?,
                    "--noise" => g.noise = num(k, v)?,
                    "--noise-plies" => g.noise_plies = num(k, v)?,
                    "--sizes" => {
                        g.sizes = v
                            .as_deref()
                            .unwrap_or("")
                            .split(',')
                            .map(|s| s.parse().ok().filter(|n| (5..=32).contains(n)))
                            .collect::<Option<_>>()
                            .ok_or("--sizes needs sizes 5..32 like 15,20")?
                    }
                    "--rules" => {
                        g.rules = v
                            .as_deref()
                            .unwrap_or("")
                            .split(',')
                            .map(tengen::game::Rule::from_name)
                            .collect::<Option<_>>()
                            .ok_or("--rules needs rule names like freestyle,renju")?
                    }
                    _ => return Err(format!("unknown option {k} for tune gen")),
                }
            }
            if g.sizes.is_empty() || g.rules.is_empty() {
                return Err("no sizes or rules to play".into());
            }
            tune_data::generate(&g)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })(),
        Some("fit") => (|| {
            let mut t = tune::TuneOptions {
                files: files.clone(),
                fit: tune::FitOptions::default(),
                k: None,
                valid_every: 10,
                labels: Vec::new(),
                lambda: 0.7,
                from_current: false,
                weights: WeightSet::Distilled,
            };
            for (k, v) in &opts {
                match k.as_str() {
                    "--iters" => t.fit.iters = num(k, v)?,
                    "--lr" => t.fit.lr = num(k, v)?,
                    "--l2" => t.fit.l2 = num(k, v)?,
                    "--k" => t.k = Some(num(k, v)?),
                    "--valid-every" => t.valid_every = num(k, v)?,
                    "--verbose" => t.fit.report_every = 250,
                    "--labels" => t
                        .labels
                        .push(v.clone().ok_or("--labels needs a file")?.into()),
                    "--lambda" => t.lambda = num(k, v)?,
                    "--l2-threat" => t.fit.l2_threat = num(k, v)?,
                    "--from-current" => t.from_current = true,
                    "--weights" => {
                        t.weights = v
                            .as_deref()
                            .and_then(WeightSet::from_name)
                            .ok_or("--weights needs distilled, self-fit or renju")?
                    }
                    "--freeze-combos" => t.fit.freeze_combos = true,
                    "--freeze-tempo" => t.fit.freeze_tempo = true,
                    _ => return Err(format!("unknown option {k} for tune fit")),
                }
            }
            if t.files.is_empty() {
                return Err("tune fit needs game files (from tune gen)".into());
            }
            tune::run(&t).map_err(|e| e.to_string())
        })(),
        Some("label") => (|| {
            let mut l = tune_label::LabelOptions {
                files: files.clone(),
                ..tune_label::LabelOptions::default()
            };
            for (k, v) in &opts {
                match k.as_str() {
                    "--out" => l.out = v.clone().ok_or("--out needs a file")?.into(),
                    "--depth" => l.depth = num(k, v)?,
                    "--nodes" => l.nodes = num(k, v)?,
                    "--part" => {
                        let (a, b) = v
                            .as_deref()
                            .and_then(|v| v.split_once('/'))
                            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                            .filter(|&(a, b): &(usize, usize)| a < b)
                            .ok_or("--part needs K/N with K < N")?;
                        (l.part, l.parts) = (a, b);
                    }
                    _ => return Err(format!("unknown option {k} for tune label")),
                }
            }
            if l.files.is_empty() {
                return Err("tune label needs game files (from tune gen)".into());
            }
            tune_label::run(&l)
                .map(|n| eprintln!("{n} positions labelled into {}", l.out.display()))
                .map_err(|e| e.to_string())
        })(),
        Some("import") => (|| {
            let mut out = std::path::PathBuf::from("tune-games.txt");
            let mut min_moves = 6;
            for (k, v) in &opts {
                match k.as_str() {
                    "--out" => out = v.clone().ok_or("--out needs a file")?.into(),
                    "--min-moves" => min_moves = num(k, v)?,
                    _ => return Err(format!("unknown option {k} for tune import")),
                }
            }
            if files.is_empty() {
                return Err("tune import needs .sgf files or directories of them".into());
            }
            tune_import::import(&files, &out, min_moves)
                .map(|(games, read)| {
                    eprintln!(
                        "{games} games from {read} files appended to {}",
                        out.display()
                    )
                })
                .map_err(|e| e.to_string())
        })(),
        Some(other) => Err(format!("unknown tune command '{other}'")),
        None => unreachable!(),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("tune: {e}\n{TUNE_USAGE}");
            2
        }
    }
}
