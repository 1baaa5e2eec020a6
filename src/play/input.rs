//! What the player types: a move (`h8`, or `7,7` as 0-based protocol coordinates) or a command.
//!
//! Columns are lettered `a`..`z` from the left, then `aa`, `ab`, … for columns 27 to 32 (as
//! spreadsheets do); rows are numbered from 1 at the bottom, as renju players write them. The
//! `x,y` form is the protocol's: `x` from the left and `y` from the top, both from 0.

/// One line of input, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A point as 0-based `(x, y)`, `y` from the top (checked against the board by the caller).
    Move(i64, i64),
    Undo,
    Hint,
    New,
    Resign,
    Save(String),
    Load(String),
    Help,
    Quit,
    /// A blank line: show the prompt again.
    Nothing,
}

/// The column's name: `a`..`z`, then `aa`, `ab`, ….
pub fn column_name(x: usize) -> String {
    if x < 26 {
        ((b'a' + x as u8) as char).to_string()
    } else {
        let hi = x / 26 - 1;
        let lo = x % 26;
        format!("{}{}", (b'a' + hi as u8) as char, (b'a' + lo as u8) as char)
    }
}

/// The column named by `letters` (lower case), the inverse of [`column_name`].
fn column_index(letters: &str) -> Option<usize> {
    let b = letters.as_bytes();
    match b.len() {
        1 => Some((b[0] - b'a') as usize),
        2 => Some((b[0] - b'a' + 1) as usize * 26 + (b[1] - b'a') as usize),
        _ => None,
    }
}

/// The point's name on a board `height` rows high: `h8`.
pub fn notation(x: usize, y: usize, height: usize) -> String {
    format!("{}{}", column_name(x), height - y)
}

/// Parses `h8` (column letters, row number from the bottom) on a board of `height` rows.
/// `Ok(None)`: not of that shape at all.
fn parse_letter_number(
    word: &str,
    width: usize,
    height: usize,
) -> Result<Option<(i64, i64)>, String> {
    let letters: String = word
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let digits = &word[letters.len()..];
    if letters.is_empty() || digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Ok(None);
    }
    let letters = letters.to_ascii_lowercase();
    let last_col = column_name(width - 1);
    let off = || format!("{word} is off the board: columns a..{last_col}, rows 1..{height}");
    let x = column_index(&letters).ok_or_else(off)?;
    let row: u64 = digits.parse().map_err(|_| off())?;
    if x >= width || row == 0 || row > height as u64 {
        return Err(off());
    }
    Ok(Some((x as i64, height as i64 - row as i64)))
}

/// Parses `x,y` (0-based, `y` from the top). `Ok(None)`: not of that shape.
fn parse_xy(line: &str, width: usize, height: usize) -> Result<Option<(i64, i64)>, String> {
    let Some((a, b)) = line.split_once(',') else {
        return Ok(None);
    };
    let (a, b) = (a.trim(), b.trim());
    let num = |s: &str| s.parse::<i64>().ok();
    match (num(a), num(b)) {
        (Some(x), Some(y)) => {
            if x < 0 || y < 0 || x >= width as i64 || y >= height as i64 {
                Err(format!(
                    "{x},{y} is off the board: x is 0..{}, y is 0..{} (0,0 is the top left)",
                    width - 1,
                    height - 1
                ))
            } else {
                Ok(Some((x, y)))
            }
        }
        _ => Err(format!(
            "'{}' is not a point: write x,y with two numbers, like 7,7",
            line.trim()
        )),
    }
}

/// Parses one line typed on a board of `width` x `height`. The error is a one-line explanation.
pub fn parse(line: &str, width: usize, height: usize) -> Result<Input, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(Input::Nothing);
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (line, ""),
    };
    let lower = word.to_ascii_lowercase();
    let no_arg = |input: Input| {
        if rest.is_empty() {
            Ok(input)
        } else {
            Err(format!("{lower} takes no argument"))
        }
    };
    let file = |make: fn(String) -> Input| {
        if rest.is_empty() {
            Err(format!("{lower} needs a file name, like: {lower} game.psq"))
        } else {
            Ok(make(rest.to_string()))
        }
    };
    match lower.as_str() {
        "undo" | "u" | "takeback" => return no_arg(Input::Undo),
        "hint" => return no_arg(Input::Hint),
        "new" => return no_arg(Input::New),
        "resign" => return no_arg(Input::Resign),
        "help" | "?" => return no_arg(Input::Help),
        "quit" | "exit" | "q" => return no_arg(Input::Quit),
        "save" => return file(Input::Save),
        "load" => return file(Input::Load),
        _ => {}
    }
    if let Some((x, y)) = parse_xy(line, width, height)? {
        return Ok(Input::Move(x, y));
    }
    if rest.is_empty() {
        if let Some((x, y)) = parse_letter_number(word, width, height)? {
            return Ok(Input::Move(x, y));
        }
    }
    Err(format!(
        "'{line}' is neither a move (like {} or 7,7) nor a command; type help",
        notation(width / 2, height / 2, height)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letter_number_counts_rows_from_the_bottom() {
        assert_eq!(parse("h8", 15, 15), Ok(Input::Move(7, 7)));
        assert_eq!(parse("a1", 15, 15), Ok(Input::Move(0, 14)));
        assert_eq!(parse("O15", 15, 15), Ok(Input::Move(14, 0)));
        assert_eq!(parse("  j10 ", 15, 15), Ok(Input::Move(9, 5)));
        assert_eq!(parse("a1", 20, 10), Ok(Input::Move(0, 9)));
    }

    #[test]
    fn protocol_coordinates_are_zero_based_from_the_top() {
        assert_eq!(parse("7,7", 15, 15), Ok(Input::Move(7, 7)));
        assert_eq!(parse("0, 14", 15, 15), Ok(Input::Move(0, 14)));
        assert_eq!(parse("14,0", 15, 15), Ok(Input::Move(14, 0)));
    }

    #[test]
    fn off_board_and_garbage_are_explained() {
        for bad in [
            "p8",
            "h16",
            "h0",
            "15,0",
            "0,15",
            "-1,3",
            "zz1",
            "abc5",
            "h99999999999999999999",
        ] {
            let e = parse(bad, 15, 15).unwrap_err();
            assert!(
                e.contains("off the board") || e.contains("neither"),
                "{bad}: {e}"
            );
        }
        assert!(parse("p8", 15, 15).unwrap_err().contains("a..o"));
        assert!(parse("x,y", 15, 15).unwrap_err().contains("not a point"));
        assert!(parse("hello", 15, 15).unwrap_err().contains("type help"));
        assert!(parse("h", 15, 15).is_err());
        assert!(parse("88", 15, 15).is_err());
        assert!(parse("h8 i9", 15, 15).is_err());
        assert!(parse("8h", 15, 15).is_err());
        assert!(parse("h8é", 15, 15).is_err());
        assert!(parse("é", 15, 15).is_err());
    }

    #[test]
    fn commands() {
        assert_eq!(parse("undo", 15, 15), Ok(Input::Undo));
        assert_eq!(parse("HINT", 15, 15), Ok(Input::Hint));
        assert_eq!(parse("new", 15, 15), Ok(Input::New));
        assert_eq!(parse("resign", 15, 15), Ok(Input::Resign));
        assert_eq!(parse("help", 15, 15), Ok(Input::Help));
        assert_eq!(parse("quit", 15, 15), Ok(Input::Quit));
        assert_eq!(parse("", 15, 15), Ok(Input::Nothing));
        assert_eq!(
            parse("save my game.psq", 15, 15),
            Ok(Input::Save("my game.psq".into()))
        );
        assert_eq!(parse("load x.psq", 15, 15), Ok(Input::Load("x.psq".into())));
        assert!(parse("save", 15, 15).unwrap_err().contains("file name"));
        assert!(parse("undo 2", 15, 15).unwrap_err().contains("no argument"));
    }

    #[test]
    fn wide_boards_use_two_letter_columns() {
        assert_eq!(column_name(25), "z");
        assert_eq!(column_name(26), "aa");
        assert_eq!(column_name(31), "af");
        for x in 0..32 {
            let n = notation(x, 0, 32);
            assert_eq!(parse(&n, 32, 32), Ok(Input::Move(x as i64, 0)), "{n}");
        }
        assert_eq!(parse("af32", 32, 32), Ok(Input::Move(31, 0)));
        assert!(parse("ag1", 32, 32).is_err());
        assert!(parse("aa1", 26, 26).is_err());
    }
}
