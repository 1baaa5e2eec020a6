//! `pbrain-tengen play` driven through stdin with scripted games: every invalid-input path, the
//! renju fouls, undo, the engine's replies, a win and a draw, and a save/load round trip.
//! (An integration test: Cargo.toml's `[[test]] name = "play"`; not a module of the library.)

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn run(args: &[&str], script: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
        .arg("play")
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting pbrain-tengen");
    child.stdin.take().unwrap().write_all(script).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 output"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs a script that must end cleanly (exit 0, nothing on stderr, no colour codes).
fn play(args: &[&str], script: &str) -> String {
    play_bytes(args, script.as_bytes())
}

fn play_bytes(args: &[&str], script: &[u8]) -> String {
    let (code, out, err) = run(args, script);
    assert_eq!(code, 0, "exit code; stdout:\n{out}\nstderr:\n{err}");
    assert!(err.is_empty(), "stderr: {err}");
    assert!(!out.contains('\x1b'), "colour without a terminal");
    out
}

fn lines(moves: &[&str]) -> String {
    moves.iter().map(|m| format!("{m}\n")).collect()
}

/// The last board printed (the 17 lines of a 15x15 board ending in the column letters).
fn last_board(out: &str) -> String {
    let all: Vec<&str> = out.lines().collect();
    let end = all
        .iter()
        .rposition(|l| l.trim_start().starts_with("a  b  c"))
        .expect("a board");
    let start = all[..end]
        .iter()
        .rposition(|l| l.trim_start().starts_with("a  b  c"))
        .expect("the board's header");
    all[start..=end].join("\n")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

const HVH: &[&str] = &["--human-vs-human"];

#[test]
fn help_and_bad_options() {
    let (code, out, _) = run(&["--help"], b"");
    assert_eq!(code, 0);
    for word in [
        "--rule",
        "--size",
        "--engine-first",
        "--human-first",
        "--level",
        "--time-ms",
        "--seed",
        "--human-vs-human",
        "undo",
        "hint",
        "save FILE",
        "load FILE",
    ] {
        assert!(out.contains(word), "--help lacks {word}:\n{out}");
    }
    for bad in [
        &["--rule", "chess"][..],
        &["--size", "40"],
        &["--level", "200"],
        &["--frobnicate"],
    ] {
        let (code, out, err) = run(bad, b"");
        assert_eq!(code, 2, "{bad:?}");
        assert!(out.is_empty() && !err.is_empty(), "{bad:?}: {err}");
    }
    // The other subcommands still answer.
    let out = Command::new(env!("CARGO_BIN_EXE_pbrain-tengen"))
        .arg("--help")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("bench") && text.contains("play"), "{text}");
}

#[test]
fn board_has_letters_numbers_and_marks_the_last_move() {
    let out = play(HVH, "h8\n");
    assert!(out.contains("freestyle") && out.contains("15x15"), "{out}");
    let board = last_board(&out);
    let rows: Vec<&str> = board.lines().collect();
    assert_eq!(rows.len(), 17);
    assert_eq!(rows[0], "     a  b  c  d  e  f  g  h  i  j  k  l  m  n  o");
    assert!(rows[1].starts_with(" 15  .") && rows[1].ends_with(".  15"));
    assert_eq!(
        rows[8],
        "  8  .  .  .  .  .  .  . [X] .  .  .  .  .  .  .  8"
    );
    assert!(rows[15].starts_with("  1  ."));
    assert!(out.contains("Black (X) plays h8 (7,7)."));
    assert!(out.ends_with("End of input: bye.\n"), "{out}");
}

#[test]
fn every_invalid_input_is_explained_and_prompted_again() {
    let script = lines(&[
        "xyz",          // letters
        "frobnicate 3", // unknown command with an argument
        "p8",           // off the board (letters)
        "h16",          // off the board (row)
        "h0",           // row 0
        "15,3",         // off the board (x,y)
        "3,-1",         // negative
        "a,b",          // not numbers
        "h8",           // fine
        "h8",           // occupied by X
        "7,7",          // the same point as x,y
        "save",         // no file name
        "undo now",     // argument where none is taken
        "",             // blank line: just the prompt
        "\u{e9}\u{e8}", // not ASCII
    ]);
    let mut bytes = script.into_bytes();
    bytes.extend_from_slice(b"\xff\xfeh8\n"); // invalid UTF-8
    bytes.extend_from_slice(b"quit\n");
    let out = play_bytes(HVH, &bytes);
    let expect = [
        "'xyz' is neither a move (like h8 or 7,7) nor a command; type help",
        "'frobnicate 3' is neither a move (like h8 or 7,7) nor a command; type help",
        "p8 is off the board: columns a..o, rows 1..15",
        "h16 is off the board: columns a..o, rows 1..15",
        "h0 is off the board: columns a..o, rows 1..15",
        "15,3 is off the board: x is 0..14, y is 0..14 (0,0 is the top left)",
        "3,-1 is off the board",
        "'a,b' is not a point: write x,y with two numbers, like 7,7",
        "h8 is occupied by X; choose an empty point",
        "save needs a file name, like: save game.psq",
        "undo takes no argument",
    ];
    for e in expect {
        assert!(out.contains(e), "missing '{e}' in:\n{out}");
    }
    assert_eq!(out.matches("h8 is occupied by X").count(), 2, "h8 and 7,7");
    assert!(
        out.contains("'\u{fffd}\u{fffd}h8' is neither a move"),
        "{out}"
    );
    // Every line read got a prompt: 17 lines, the last being quit.
    assert_eq!(out.matches("to play> ").count(), 17, "{out}");
    assert!(out.ends_with("Bye.\n"));
}

#[test]
fn renju_fouls_are_named_and_white_may_play_there() {
    let renju: &[&str] = &["--rule", "renju", "--human-vs-human"];
    let cases = [
        (
            vec!["g8", "a1", "h8", "o1", "i7", "a15", "i6", "o15", "i8"],
            "i8 is forbidden for black under renju: double-three",
        ),
        (
            vec![
                "e8", "a1", "f8", "o1", "g8", "a15", "h9", "o15", "h10", "a13", "h11", "c15", "h8",
            ],
            "h8 is forbidden for black under renju: double-four",
        ),
        (
            vec![
                "c8", "a1", "d8", "o1", "e8", "a15", "g8", "o15", "h8", "a13", "f8",
            ],
            "f8 is forbidden for black under renju: overline",
        ),
    ];
    for (moves, message) in cases {
        let forbidden = *moves.last().unwrap();
        let mut script = lines(&moves);
        // Black plays elsewhere, then white may take the forbidden point.
        script.push_str(&format!("m3\n{forbidden}\n"));
        let out = play(renju, &script);
        assert!(out.contains(message), "missing '{message}':\n{out}");
        assert!(
            out.contains(&format!("White (O) plays {forbidden} ")),
            "white may play {forbidden}:\n{out}"
        );
    }
    // The same double-three is fine under freestyle.
    let out = play(
        HVH,
        &lines(&["g8", "a1", "h8", "o1", "i7", "a15", "i6", "o15", "i8"]),
    );
    assert!(
        !out.contains("forbidden") && out.contains("Black (X) plays i8"),
        "{out}"
    );
}

#[test]
fn a_five_ends_the_game_and_shows_the_line() {
    let script = lines(&[
        "h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8", // black's five
        "m8", "hint", "resign", "undo", "m9", "quit",
    ]);
    let out = play(HVH, &script);
    assert!(
        out.contains("Black (X) wins with the five h8 i8 j8 k8 l8."),
        "{out}"
    );
    assert!(
        out.contains("  8  .  .  .  .  .  .  . (X)(X)(X)(X)[X] .  .  .  8"),
        "{out}"
    );
    assert!(out.contains("Game over. Type new for another game, undo, save FILE, or quit."));
    assert!(out.contains("The game is over: type new, undo, save FILE or quit."));
    assert!(out.contains("The game is over: no hint."));
    assert!(out.contains("The game is already over."));
    // undo in a two-player game takes back one move and the game goes on.
    assert!(out.contains("Took back l8."), "{out}");
    assert!(out.contains("Black (X) plays m9"), "{out}");
}

#[test]
fn a_full_board_is_a_draw() {
    let moves = [
        "a5", "b5", "c5", "a4", "d5", "b4", "e5", "e4", "c4", "a3", "d4", "c3", "b3", "d3", "a2",
        "e3", "c2", "b2", "d2", "a1", "e2", "c1", "b1", "e1", "d1",
    ];
    let out = play(&["--human-vs-human", "--size", "5"], &lines(&moves));
    assert!(out.contains("Draw: the board is full."), "{out}");
    assert!(!out.contains("wins with"));
}

#[test]
fn engine_replies_and_undo_takes_back_both_moves() {
    let args = ["--depth", "2", "--seed", "5"];
    let out = play(
        &args,
        &lines(&["h8", "undo", "undo", "hint", "7,7", "quit"]),
    );
    assert!(out.contains("You play h8 (7,7)."), "{out}");
    assert!(out.contains("Tengen, White (O), is thinking..."), "{out}");
    let reply = out
        .lines()
        .find(|l| l.starts_with("Tengen plays "))
        .expect("a reply");
    assert!(
        reply.contains("depth ") && reply.contains("eval ") && reply.ends_with(" s)"),
        "{reply}"
    );
    let reply_point = reply.split_whitespace().nth(2).unwrap();
    assert!(
        out.contains(&format!("Took back {reply_point} and h8.")),
        "{out}"
    );
    assert!(out.contains("Nothing to undo."), "{out}");
    assert!(out.lines().any(|l| l.starts_with("Hint: ")), "{out}");
    assert_eq!(out.matches("Tengen plays ").count(), 2);
    // After the undo the board was empty: the first move was played again.
    assert_eq!(out.matches("You play h8 (7,7).").count(), 2);
}

#[test]
fn engine_first_and_engine_wins_against_a_weak_script() {
    // Tengen (black) against a human who plays along the bottom edge.
    let edge: Vec<String> = (0..15)
        .map(|x| format!("{}1", (b'a' + x) as char))
        .chain((0..15).map(|x| format!("{}2", (b'a' + x) as char)))
        .collect();
    let script: String = edge.iter().map(|m| format!("{m}\n")).collect();
    let out = play(&["--engine-first", "--depth", "2", "--seed", "1"], &script);
    assert!(out.contains("You play O (white)"), "{out}");
    assert!(out.contains("Black (X) wins with the five"), "{out}");
    assert!(out.contains("Game over"));
}

#[test]
fn same_seed_and_depth_give_the_same_game() {
    let strip = |s: &str| -> String {
        s.lines()
            .map(|l| match l.rfind(", ") {
                Some(i) if l.ends_with(" s)") => l[..i].to_string(),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let args = [
        "--level", "30", "--depth", "3", "--seed", "11", "--rule", "renju",
    ];
    let script = lines(&["h8", "i9", "j10", "g7", "k8"]);
    let a = play(&args, &script);
    let b = play(&args, &script);
    assert_eq!(strip(&a), strip(&b));
    assert!(a.contains("level 30"), "{a}");
}

#[test]
fn save_and_load_round_trip() {
    let file = temp("round.psq");
    let f = file.to_str().unwrap();
    let moves = ["h8", "i9", "j7", "g9", "k6", "a1"];
    let mut script = lines(&moves);
    script.push_str(&format!("save {f}\nquit\n"));
    let saved = play(HVH, &script);
    assert!(saved.contains(&format!("Saved 6 moves to {f}.")), "{saved}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("Piskvorky 15x15, 11:11, 0\n8,8,"),
        "{text}"
    );
    let xy: Vec<String> = text
        .lines()
        .skip(1)
        .take(6)
        .map(|l| l.rsplit_once(',').unwrap().0.to_string())
        .collect();
    assert_eq!(xy, ["8,8", "9,7", "10,9", "7,7", "11,10", "1,15"]);
    assert!(text.ends_with("human\nhuman\n-1\n"), "{text}");

    // Loaded in a new session: the same board, white (O) to move, and the game goes on.
    let copy = temp("copy.psq");
    let c = copy.to_str().unwrap();
    let loaded = play(HVH, &format!("load {f}\nsave {c}\nl5\nquit\n"));
    assert!(
        loaded.contains(&format!(
            "Loaded 6 moves from {f} (15x15, freestyle); Black (X) to move."
        )),
        "{loaded}"
    );
    let before = last_board(&saved);
    let after_load = last_board(loaded.split("Loaded 6 moves").next().unwrap());
    assert_eq!(before, after_load);
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), text);
    assert!(loaded.contains("Black (X) plays l5"), "{loaded}");

    // A finished game loads as finished.
    let won = temp("won.psq");
    let w = won.to_str().unwrap();
    let mut script = lines(&["h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"]);
    script.push_str(&format!("save {w}\nnew\nload {w}\n"));
    let out = play(HVH, &script);
    assert_eq!(
        out.matches("Black (X) wins with the five h8 i8 j8 k8 l8.")
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains("New game."));

    // Loading against the engine: when Tengen is to move it answers at once.
    let out = play(
        &["--depth", "1", "--engine-first"],
        &format!("load {f}\nquit\n"),
    );
    assert!(out.contains("Loaded 6 moves"), "{out}");
    assert_eq!(
        out.matches("Tengen plays ").count(),
        2,
        "one on the empty board, one after load"
    );
}

#[test]
fn bad_files_are_refused_and_the_game_is_kept() {
    let missing = temp("missing.psq");
    let bad = temp("bad.psq");
    std::fs::write(&bad, "hello\n").unwrap();
    let big = temp("big.psq");
    std::fs::write(&big, "Piskvorky 40x40, 11:11, 0\n1,1,0\n").unwrap();
    let twice = temp("twice.psq");
    std::fs::write(&twice, "Piskvorky 15x15, 11:11, 0\n8,8,0\n8,8,0\n").unwrap();
    let foul = temp("foul.psq");
    // Black's double-three at i8 (9,8 one-based), under renju only.
    std::fs::write(
        &foul,
        "Piskvorky 15x15, 11:11, 0\n7,8,0\n1,15,0\n8,8,0\n15,15,0\n9,9,0\n1,1,0\n9,10,0\n15,1,0\n9,8,0\nh\nh\n-1\n",
    )
    .unwrap();
    let dir = std::env::temp_dir();
    let script = format!(
        "h8\nload {}\nload {}\nload {}\nload {}\nload {}\nsave {}\ni9\nquit\n",
        missing.display(),
        bad.display(),
        big.display(),
        twice.display(),
        foul.display(),
        dir.display(),
    );
    let out = play(&["--rule", "renju", "--human-vs-human"], &script);
    for e in [
        format!("Cannot load {}: ", missing.display()),
        format!("Cannot load {}: not a Piskvork .psq file", bad.display()),
        format!(
            "Cannot load {}: a 40x40 board is not supported",
            big.display()
        ),
        format!(
            "Cannot load {}: move 2 (h8): h8 is occupied by X",
            twice.display()
        ),
        format!(
            "Cannot load {}: move 9 (i8): i8 is forbidden for black under renju: double-three",
            foul.display()
        ),
        format!("Cannot save {}: ", dir.display()),
    ] {
        assert!(out.contains(&e), "missing '{e}':\n{out}");
    }
    // The game in progress survived: h8 is still there and white plays i9.
    assert!(out.contains("White (O) plays i9"), "{out}");
    // The same record is fine under freestyle.
    let out = play(HVH, &format!("load {}\n", foul.display()));
    assert!(out.contains("Loaded 9 moves"), "{out}");
}
