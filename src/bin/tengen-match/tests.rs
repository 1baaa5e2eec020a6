//! Integration tests of `tengen-match` against small fault engines (scripts/fake-engines).
//! Built as the `match_runner` test target (Cargo.toml), not as a module of the binary.
//! Each fault must be detected, named, charged to the right engine, and the runner must finish.
//! The fake engines are Python scripts; without `python3` these tests are skipped.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

const RUNNER: &str = env!("CARGO_BIN_EXE_tengen-match");

fn fake() -> String {
    format!(
        "{}/scripts/fake-engines/fake_engine.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn have_python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("python3 not found: skipping tengen-match integration test");
    }
    ok
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tengen-match-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    json: String,
    wall: Duration,
}

fn run(name: &str, args: &[&str]) -> Run {
    let dir = tmp(name);
    let json = dir.join("summary.json");
    let t0 = Instant::now();
    let out = Command::new(RUNNER)
        .args(args)
        .arg("--json")
        .arg(&json)
        .arg("--records")
        .arg(dir.join("records"))
        .output()
        .expect("run tengen-match");
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        json: std::fs::read_to_string(&json).unwrap_or_default(),
        wall: t0.elapsed(),
    };
    assert_eq!(r.code, 0, "runner failed:\n{}\n{}", r.stdout, r.stderr);
    r
}

/// The number after `"key": ` in the JSON object of engine `engine`.
fn engine_field(json: &str, engine: &str, key: &str) -> i64 {
    let start = json
        .find(&format!("{{\"name\": \"{engine}\""))
        .unwrap_or_else(|| panic!("engine {engine} not in {json}"));
    let obj = &json[start..];
    let obj = &obj[..obj
        .find('}')
        .map(|i| obj[i + 1..].find('}').unwrap() + i + 1)
        .unwrap()];
    field(obj, key)
}

fn field(json: &str, key: &str) -> i64 {
    let pat = format!("\"{key}\": ");
    let i = json
        .find(&pat)
        .unwrap_or_else(|| panic!("{key} not in {json}"))
        + pat.len();
    let num: String = json[i..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    num.parse().unwrap()
}

/// Two games of a misbehaving engine against the random one, once with each colour.
fn fault_case(mode: &str, kind: &str, extra: &[&str]) {
    if !have_python() {
        return;
    }
    let bad = format!("cmd={} {mode}", fake());
    // An unsolicited line is only recognisable as such when it arrives before the runner asks
    // for the next move: with an instant opponent the two race, and the stray move is then read
    // as the answer to the next TURN. A slow opponent (300 ms a move) removes the race.
    let good = if mode == "extra" {
        format!("cmd={} slow", fake())
    } else {
        format!("cmd={}", fake())
    };
    let mut args = vec![
        "--engine",
        &bad,
        "name=bad",
        "--engine",
        &good,
        "name=good",
        "--each",
        "tc=20/1",
        "--tolerance",
        "1000",
        "--games",
        "2",
        "--seed",
        "5",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let r = run(&format!("{mode}{}", extra.join("").replace('-', "")), &args);
    assert_eq!(
        engine_field(&r.json, "bad", kind),
        2,
        "{}\n{}",
        r.json,
        r.stderr
    );
    assert_eq!(engine_field(&r.json, "bad", "losses"), 2, "{}", r.json);
    assert_eq!(engine_field(&r.json, "good", "wins"), 2, "{}", r.json);
    assert_eq!(field(&r.json, "faults_total"), 2);
    assert!(r.stderr.contains(&format!("bad {kind}")), "{}", r.stderr);
    assert!(r.wall < Duration::from_secs(20), "took {:?}", r.wall);
}

#[test]
fn timeout_is_detected_and_engine_killed() {
    fault_case("timeout", "timeout", &[]);
}

#[test]
fn crash_is_detected() {
    fault_case("crash", "crash", &[]);
}

#[test]
fn garbage_output_is_skipped_and_times_out() {
    // GomocupJudge and c-gomoku-cli skip a line they cannot read and wait on.
    fault_case("garbage", "timeout", &[]);
}

#[test]
fn garbage_output_is_a_crash_when_strict() {
    // Piskvork reads it as the answer and fails it.
    fault_case("garbage", "crash", &["--strict"]);
}

#[test]
fn occupied_point_is_illegal() {
    fault_case("occupied", "illegal", &[]);
}

#[test]
fn off_board_point_is_illegal() {
    fault_case("offboard", "illegal", &[]);
}

#[test]
fn error_reply_is_named_when_strict() {
    fault_case("error", "error", &["--strict"]);
}

#[test]
fn error_reply_alone_times_out() {
    fault_case("error", "timeout", &[]);
}

#[test]
fn silent_engine_times_out_gomocupjudge_style() {
    fault_case("silent", "timeout", &[]);
}

#[test]
fn silent_engine_times_out_on_start_with_wait_ok() {
    fault_case(
        "silent",
        "timeout",
        &["--wait-ok", "--start-timeout", "2500"],
    );
}

#[test]
fn silent_engine_times_out_on_about_with_reuse() {
    fault_case("silent", "timeout", &["--reuse", "--start-timeout", "2500"]);
}

#[test]
fn unsolicited_move_is_a_crash() {
    fault_case("extra", "crash", &[]);
}

/// The arguments of two games of the fake engine in `bad_mode` (named bad) against the random
/// one (named good), 1 s a move, and `extra`.
fn versus(bad_mode: &str, seed: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--engine",
        &format!("cmd={} {bad_mode}", fake()),
        "name=bad",
        "--engine",
        &format!("cmd={}", fake()),
        "name=good",
        "--each",
        "tc=20/1",
        "--games",
        "2",
        "--seed",
        seed,
        "--quiet",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn run_args(name: &str, args: &[String]) -> Run {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(name, &args)
}

#[test]
fn unknown_replies_to_info_are_warnings_only() {
    if !have_python() {
        return;
    }
    let r = run_args("unknown", &versus("unknown", "3", &[]));
    assert_eq!(field(&r.json, "faults_total"), 0, "{}", r.json);
    assert!(engine_field(&r.json, "bad", "warnings") >= 10, "{}", r.json);
    assert_eq!(engine_field(&r.json, "good", "warnings"), 0, "{}", r.json);
    assert!(
        r.stderr.contains("warning game 1: bad: 'UNKNOWN INFO"),
        "{}",
        r.stderr
    );
}

/// An ERROR line and an unreadable one before a good move: warnings, not faults, unless
/// `--strict` (Piskvork), where the ERROR loses.
#[test]
fn noise_before_a_move_is_a_warning_unless_strict() {
    if !have_python() {
        return;
    }
    let r = run_args("noisy", &versus("noisy", "4", &[]));
    assert_eq!(field(&r.json, "faults_total"), 0, "{}", r.json);
    assert_eq!(engine_field(&r.json, "bad", "warnings"), 4, "{}", r.json);
    assert!(
        r.stderr.contains("'ERROR fake warning' instead of a move"),
        "{}",
        r.stderr
    );
    let r = run_args("noisystrict", &versus("noisy", "4", &["--strict"]));
    assert_eq!(engine_field(&r.json, "bad", "error"), 2, "{}", r.json);
}

#[test]
fn unknown_replies_to_info_lose_when_strict() {
    // Piskvork reads the UNKNOWN as the answer to its next command.
    fault_case("unknown", "error", &["--strict"]);
}

#[test]
fn suspended_engines_play_normally_and_faults_still_count() {
    fault_case("timeout", "timeout", &["--suspend"]);
    fault_case("crash", "crash", &["--suspend", "--reuse"]);
}

#[test]
fn engine_ignoring_end_is_killed() {
    if !have_python() {
        return;
    }
    let bad = format!("cmd={} noend", fake());
    let good = format!("cmd={}", fake());
    let r = run(
        "noend",
        &[
            "--engine",
            &bad,
            "name=bad",
            "--engine",
            &good,
            "name=good",
            "--each",
            "tc=20/1",
            "--games",
            "2",
            "--seed",
            "3",
            "--quiet",
        ],
    );
    assert_eq!(field(&r.json, "faults_total"), 0, "{}", r.json);
    assert_eq!(field(&r.json, "games"), 2);
    // END, 1 s grace, kill: about a second per game on top of the play.
    assert!(r.wall < Duration::from_secs(15), "took {:?}", r.wall);
}

/// Six games of `engine` against itself (names a and b, 1 s a move, seed 9), with records and
/// the JSON summary: the runner's output, the summary and the records' directory.
fn six_games_with_records(name: &str, engine: &str) -> (std::process::Output, String, PathBuf) {
    let dir = tmp(name);
    let rec = dir.join("rec");
    let out = Command::new(RUNNER)
        .args(["--engine", engine, "name=a", "--engine", engine, "name=b"])
        .args(["--each", "tc=20/1", "--games", "6", "--concurrency", "2"])
        .args(["--seed", "9", "--records"])
        .arg(&rec)
        .arg("--json")
        .arg(dir.join("s.json"))
        .output()
        .unwrap();
    let json = std::fs::read_to_string(dir.join("s.json")).unwrap_or_default();
    (out, json, rec)
}

#[test]
fn random_match_statistics_and_records() {
    if !have_python() {
        return;
    }
    let (out, json, rec) = six_games_with_records("records-check", &format!("cmd={}", fake()));
    assert!(out.status.success());
    assert_eq!(field(&json, "games"), 6);
    assert_eq!(
        field(&json, "wins") + field(&json, "losses") + field(&json, "draws"),
        6
    );
    let penta_start = json.find("\"pentanomial\": [").unwrap() + 16;
    let penta: i64 = json[penta_start..json[penta_start..].find(']').unwrap() + penta_start]
        .split(',')
        .map(|v| v.trim().parse::<i64>().unwrap())
        .sum();
    assert_eq!(penta, 3);
    // Each engine had black in 3 of the 6 games; the colour tallies add up to the results.
    let colour = |e: &str, k: &str| engine_field(&json, e, k);
    for e in ["a", "b"] {
        let black: i64 = ["black_wins", "black_losses", "black_draws"]
            .iter()
            .map(|k| colour(e, k))
            .sum();
        let white: i64 = ["white_wins", "white_losses", "white_draws"]
            .iter()
            .map(|k| colour(e, k))
            .sum();
        assert_eq!((black, white), (3, 3), "{json}");
        assert_eq!(
            colour(e, "black_wins") + colour(e, "white_wins"),
            engine_field(&json, e, "wins")
        );
        assert_eq!(
            colour(e, "black_draws") + colour(e, "white_draws"),
            engine_field(&json, e, "draws")
        );
    }
    assert_eq!(colour("a", "black_wins"), colour("b", "white_losses"));
    assert_eq!(
        field(&json, "black_wins") + field(&json, "white_wins") + field(&json, "draws"),
        6
    );
    for g in 1..=6 {
        let sgf = std::fs::read_to_string(rec.join(format!("game-{g:05}.sgf"))).unwrap();
        assert!(sgf.starts_with("(;GM[4]FF[4]"), "{sgf}");
        assert!(sgf.contains("SZ[15]") && sgf.contains("RU[freestyle]"));
        let psq = std::fs::read_to_string(rec.join(format!("game-{g:05}.psq"))).unwrap();
        assert!(psq.starts_with("Piskvorky 15x15"));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("95% ["), "{stdout}");
    assert!(stdout.contains("By colour: black won "), "{stdout}");
    assert!(stdout.contains("  a: as black "), "{stdout}");
}

/// Both engines fail at their first move, so whoever moves first after the opening loses: the
/// random openings (2-4 stones, the same for both games of a pair) fix each game's result by
/// colour. Engine a's results as black and as white, counted from the records, must be the
/// summary's, and they differ (3 pairs cannot split evenly between the parities), so swapped
/// colours cannot pass.
#[test]
fn results_by_colour_follow_the_records() {
    if !have_python() {
        return;
    }
    let e = format!("cmd={} crash 1", fake());
    let (out, json, rec) = six_games_with_records("colours", &e);
    let mut from_records = [[0i64; 3]; 2];
    for g in 1..=6 {
        let sgf = std::fs::read_to_string(rec.join(format!("game-{g:05}.sgf"))).unwrap();
        let white = usize::from(sgf.contains("PW[a]"));
        let outcome = if sgf.contains("RE[0]") {
            2
        } else if sgf.contains(["RE[B+", "RE[W+"][white]) {
            0
        } else {
            1
        };
        from_records[white][outcome] += 1;
    }
    assert_ne!(from_records[0], from_records[1], "{json}");
    let summary = |keys: [&str; 3]| keys.map(|k| engine_field(&json, "a", k));
    assert_eq!(
        from_records,
        [
            summary(["black_wins", "black_losses", "black_draws"]),
            summary(["white_wins", "white_losses", "white_draws"])
        ],
        "{json}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        field(&json, "black_wins") + field(&json, "white_wins"),
        6,
        "{json}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("By colour: black won "));
}

#[test]
fn opening_files_in_both_formats() {
    if !have_python() {
        return;
    }
    let dir = tmp("openings");
    let book = dir.join("book.txt");
    std::fs::write(&book, "# a comment\n0,0, 1,0\nh8i9j9\n").unwrap();
    let e = format!("cmd={}", fake());
    let rec = dir.join("rec");
    let out = Command::new(RUNNER)
        .args([
            "--engine",
            &e,
            "name=a",
            "--engine",
            &e,
            "name=b",
            "--each",
            "tc=20/1",
            "--games",
            "4",
            "--order",
            "sequential",
            "--seed",
            "1",
            "--quiet",
            "--openings",
        ])
        .arg(&book)
        .arg("--records")
        .arg(&rec)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sgf = |g: usize| std::fs::read_to_string(rec.join(format!("game-{g:05}.sgf"))).unwrap();
    // Offset line: centre 7,7 and 8,7; both games of the pair use it, colours swapped.
    assert!(
        sgf(1).contains(";B[hh]C[opening];W[ih]C[opening]"),
        "{}",
        sgf(1)
    );
    assert!(sgf(2).contains(";B[hh]C[opening];W[ih]C[opening]"));
    assert!(sgf(1).contains("PB[a]PW[b]") && sgf(2).contains("PB[b]PW[a]"));
    // Move string: h8 = 7,7; i9 = 8,8; j9 = 9,8.
    assert!(
        sgf(3).contains(";B[hh]C[opening];W[ii]C[opening];B[ji]C[opening]"),
        "{}",
        sgf(3)
    );
}

#[test]
fn renju_foul_loses_through_the_protocol() {
    if !have_python() {
        return;
    }
    let dir = tmp("foul-book");
    let book = dir.join("book.txt");
    // Black 5,7 6,7 7,5 7,6 (two open twos meeting at 7,7); white far away. Black to move.
    std::fs::write(
        &book,
        "-2,0, -7,-7, -1,0, -7,-5, 0,-2, -7,-3, 0,-1, -7,-1\n",
    )
    .unwrap();
    let e = format!("cmd={} script 7,7", fake());
    let r = run(
        "foul",
        &[
            "--engine",
            &e,
            "name=a",
            "--engine",
            &e,
            "name=b",
            "--each",
            "tc=20/1",
            "--rule",
            "renju",
            "--games",
            "2",
            "--openings",
            book.to_str().unwrap(),
            "--quiet",
        ],
    );
    assert_eq!(engine_field(&r.json, "a", "fouls"), 1, "{}", r.json);
    assert_eq!(engine_field(&r.json, "b", "fouls"), 1, "{}", r.json);
    assert!(r.json.contains("\"foul-double-three\": 2"), "{}", r.json);
    assert_eq!(field(&r.json, "faults_total"), 0);
}

#[test]
fn sprt_stops_early_and_names_the_decision() {
    if !have_python() {
        return;
    }
    let strong = format!("cmd={}", fake());
    let weak = format!("cmd={} first", fake());
    let r = run(
        "sprt",
        &[
            "--engine",
            &strong,
            "name=strong",
            "--engine",
            &weak,
            "name=weak",
            "--each",
            "tc=20/1",
            "--games",
            "100",
            "--concurrency",
            "2",
            "--seed",
            "2",
            "--quiet",
            "--sprt",
            "elo0=0",
            "elo1=100",
            "alpha=0.05",
            "beta=0.05",
        ],
    );
    assert!(r.json.contains("\"decision\": \"H1\""), "{}", r.json);
    assert!(field(&r.json, "games") < 40, "{}", r.json);
    assert!(r.stdout.contains("H1 accepted"), "{}", r.stdout);
}

#[test]
fn help_and_bad_arguments() {
    let out = Command::new(RUNNER).arg("--help").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--engine"));
    let out = Command::new(RUNNER)
        .args(["--engine", "cmd=x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Ctrl-C (here a SIGINT to the runner alone): the run stops at once, kills the engines of the
/// game in progress, does not count that game, prints the summary of the finished ones and
/// exits with status 130. (Linux: it sends the signal with `kill` and reads /proc.)
#[cfg(target_os = "linux")]
#[test]
fn an_interrupt_stops_the_run_with_a_summary() {
    if !have_python() {
        return;
    }
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = tmp("interrupt");
    let json = dir.join("summary.json");
    // A marker in the engines' command lines, to look for leftover processes.
    let marker = format!("{}", 900_000 + std::process::id() % 99_999);
    let mut child = Command::new(RUNNER)
        .args([
            "--engine",
            &format!("cmd={} random {marker}", fake()),
            "name=a",
            "--engine",
            &format!("cmd={} slow {marker}", fake()),
            "name=b",
            "--each",
            "tc=60/1",
            "--games",
            "500",
            "--concurrency",
            "1",
            "--seed",
            "5",
        ])
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tengen-match");
    // Wait for the first finished game (its progress line); the second is then under way.
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.starts_with("[   1/500]"), "{first}");
    std::thread::sleep(Duration::from_millis(300));
    let t0 = Instant::now();
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let status = child.wait().unwrap();
    let took = t0.elapsed();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(took < Duration::from_secs(3), "exit took {took:?}");
    let line = rest
        .lines()
        .find(|l| l.starts_with("Interrupted after "))
        .unwrap_or_else(|| panic!("no summary line in {rest}"));
    let finished: usize = line["Interrupted after ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..500).contains(&finished), "{line}");
    assert!(line.ends_with("1 in progress not counted"), "{line}");
    assert!(rest.contains("Result for a: "), "{rest}");
    let json = std::fs::read_to_string(&json).unwrap();
    assert!(json.contains("\"interrupted\": true"), "{json}");
    assert_eq!(field(&json, "games"), finished as i64);
    // The killed game's engines are gone.
    std::thread::sleep(Duration::from_millis(200));
    let left: Vec<String> = std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(|e| {
                let e = e.ok()?;
                e.file_name().to_str()?.parse::<u32>().ok()?;
                let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                (cmd.contains("fake_engine.py") && cmd.contains(&marker)).then_some(cmd)
            })
            .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "left running: {left:?}");
}
