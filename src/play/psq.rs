//! Piskvork `.psq` game records, as the match runner (`tengen-match --records`) writes them:
//!
//! ```text
//! Piskvorky 15x15, 11:11, 0
//! 8,8,1200          one line per move: x,y (1-based, y from the top) and the milliseconds used
//! 9,9,0
//! black player's name
//! white player's name
//! -1
//! ```
//!
//! Reading takes the size from the header and the moves up to the first line that is not
//! `x,y[,ms]`; the rule is not part of the format.

/// A game record: board size and the moves (0-based `x, y`, milliseconds), black first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub width: usize,
    pub height: usize,
    pub moves: Vec<(usize, usize, u64)>,
    pub black: String,
    pub white: String,
}

impl Record {
    /// The `.psq` text.
    pub fn to_psq(&self) -> String {
        let mut s = format!("Piskvorky {}x{}, 11:11, 0\n", self.width, self.height);
        for &(x, y, ms) in &self.moves {
            s.push_str(&format!("{},{},{}\n", x + 1, y + 1, ms));
        }
        s.push_str(&format!("{}\n{}\n-1\n", self.black, self.white));
        s
    }

    /// Reads a `.psq` text; the error says what is wrong in one line.
    pub fn from_psq(text: &str) -> Result<Record, String> {
        let mut lines = text.lines().map(str::trim);
        let header = lines.next().unwrap_or("");
        let size = header
            .strip_prefix("Piskvorky ")
            .and_then(|r| r.split(',').next())
            .ok_or("not a Piskvork .psq file (no 'Piskvorky WxH' header)")?;
        let (w, h) = size
            .trim()
            .split_once('x')
            .ok_or("bad board size in the .psq header")?;
        let (width, height) = match (w.parse::<usize>(), h.parse::<usize>()) {
            (Ok(w), Ok(h)) => (w, h),
            _ => return Err("bad board size in the .psq header".into()),
        };
        let mut moves = Vec::new();
        let mut rest = Vec::new();
        for line in lines.by_ref() {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let nums: Option<Vec<u64>> = fields.iter().map(|f| f.parse::<u64>().ok()).collect();
            match nums {
                Some(n) if (2..=3).contains(&n.len()) && line.contains(',') => {
                    let (x, y) = (n[0], n[1]);
                    if x == 0 || y == 0 || x > width as u64 || y > height as u64 {
                        return Err(format!(
                            "move {} ({line}) is off the {width}x{height} board",
                            moves.len() + 1
                        ));
                    }
                    moves.push((
                        x as usize - 1,
                        y as usize - 1,
                        n.get(2).copied().unwrap_or(0),
                    ));
                }
                _ => {
                    rest.push(line.to_string());
                    break;
                }
            }
        }
        rest.extend(lines.map(str::to_string));
        let name = |i: usize| rest.get(i).cloned().unwrap_or_default();
        Ok(Record {
            width,
            height,
            moves,
            black: name(0),
            white: name(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Record {
        Record {
            width: 15,
            height: 15,
            moves: vec![(7, 7, 0), (8, 8, 1234), (0, 14, 5), (14, 0, 0)],
            black: "human".into(),
            white: "Tengen".into(),
        }
    }

    #[test]
    fn round_trip() {
        let r = sample();
        let text = r.to_psq();
        assert!(text.starts_with("Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,1234\n1,15,5\n15,1,0\n"));
        assert!(text.ends_with("human\nTengen\n-1\n"));
        assert_eq!(Record::from_psq(&text), Ok(r));
    }

    #[test]
    fn rectangular_and_empty_games() {
        let r = Record {
            width: 20,
            height: 12,
            moves: vec![],
            black: "a".into(),
            white: "b".into(),
        };
        assert_eq!(Record::from_psq(&r.to_psq()), Ok(r));
    }

    #[test]
    fn reads_the_match_runner_format_and_crlf() {
        // As src/bin/tengen-match/records.rs writes it (times may be any integer).
        let text = "Piskvorky 15x15, 11:11, 0\r\n8,8,0\r\n9,8,37\r\nengine-a\r\nengine-b\r\n-1\r\n";
        let r = Record::from_psq(text).unwrap();
        assert_eq!(r.moves, vec![(7, 7, 0), (8, 7, 37)]);
        assert_eq!(
            (r.black.as_str(), r.white.as_str()),
            ("engine-a", "engine-b")
        );
        // Two-field moves are accepted too.
        let r = Record::from_psq("Piskvorky 10x10, 11:11, 0\n1,1\n").unwrap();
        assert_eq!(r.moves, vec![(0, 0, 0)]);
    }

    #[test]
    fn bad_files_are_explained() {
        assert!(Record::from_psq("").unwrap_err().contains("header"));
        assert!(Record::from_psq("hello\n1,1,0\n")
            .unwrap_err()
            .contains("header"));
        assert!(Record::from_psq("Piskvorky AxB, 11:11, 0\n")
            .unwrap_err()
            .contains("size"));
        assert!(Record::from_psq("Piskvorky 15x15, 11:11, 0\n16,1,0\n")
            .unwrap_err()
            .contains("off the 15x15 board"));
        assert!(Record::from_psq("Piskvorky 15x15, 11:11, 0\n0,1,0\n").is_err());
    }
}
