//! `pbrain-tengen`: the Gomocup protocol engine by default (`--strength N` for a playing level);
//! `bench` for the fixed-depth benchmark; `play` for a game in the terminal.

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
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
            tengen::solve::run(&files, std::time::Duration::from_millis(ms));
        }
        Some("--help") | Some("-h") | Some("help") => {
            println!("usage: pbrain-tengen            speak the Gomocup (pbrain) protocol on stdin/stdout");
            println!("       pbrain-tengen --strength N   the same at playing level N (0..100, 100 = full)");
            println!(
                "       pbrain-tengen bench [D]  fixed-depth benchmark (default depth {})",
                tengen::bench::DEFAULT_DEPTH
            );
            println!("       pbrain-tengen play [OPTIONS]  a game in the terminal against Tengen (play --help)");
        }
        Some(other) => {
            eprintln!("unknown subcommand '{other}'; try --help");
            std::process::exit(2);
        }
    }
}
