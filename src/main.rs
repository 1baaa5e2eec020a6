//! `pbrain-tengen`: the Gomocup protocol engine by default; `bench` for the fixed-depth benchmark.

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => tengen::protocol::session::Session::new().run(),
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
            println!(
                "       pbrain-tengen bench [D]  fixed-depth benchmark (default depth {})",
                tengen::bench::DEFAULT_DEPTH
            );
        }
        Some(other) => {
            eprintln!("unknown subcommand '{other}'; try --help");
            std::process::exit(2);
        }
    }
}
