//! The game rules: what makes a five for each side, and how `INFO rule` values map to rules.

use super::pos::{Color, Pos, DIRS};

/// The rule a game is played under.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Rule {
    /// Five or more in a row wins.
    Freestyle,
    /// Exactly five wins; an overline is neither a win nor a foul.
    Standard,
    /// RIF renju: black needs exactly five and must avoid double-three, double-four and overline;
    /// white wins with five or more.
    Renju,
    /// Caro: a five blocked by opponent stones at both ends does not win. `overline_wins` is
    /// Piskvork's "caro with overlines" (`rule 8`); without it only exactly five wins (`rule 9`).
    Caro { overline_wins: bool },
}

/// How a run of stones is judged to be a winning five.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum FiveKind {
    /// Five or more.
    AtLeast,
    /// Exactly five.
    Exact,
    /// Caro with overlines: six or more, or exactly five not blocked at both ends.
    CaroOverline,
    /// Caro: exactly five not blocked at both ends.
    CaroExact,
}

impl FiveKind {
    /// Whether a run of `len` stones with `blocked_ends` opponent stones just past it wins.
    #[inline]
    pub fn wins(self, len: usize, blocked_ends: usize) -> bool {
        match self {
            FiveKind::AtLeast => len >= 5,
            FiveKind::Exact => len == 5,
            FiveKind::CaroOverline => len >= 6 || (len == 5 && blocked_ends < 2),
            FiveKind::CaroExact => len == 5 && blocked_ends < 2,
        }
    }

    pub const ALL: [FiveKind; 4] = [
        FiveKind::AtLeast,
        FiveKind::Exact,
        FiveKind::CaroOverline,
        FiveKind::CaroExact,
    ];

    pub fn index(self) -> usize {
        self as usize
    }
}

impl Rule {
    /// Every rule the engine plays.
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::Caro {
            overline_wins: true,
        },
        Rule::Caro {
            overline_wins: false,
        },
    ];

    /// Maps the value of `INFO rule` to a rule. The value is the Gomocup bitmask (1 exactly five,
    /// 2 continuous game, 4 renju, 8 caro); bit 2 is not supported and `2` alone means renju, as
    /// in the Yixin protocol. Caro with bit 1 (`9`) is caro with exactly five; `8` lets
    /// overlines win. `5` is freestyle: Gomoku Calculator (with Rapfi) sends it for freestyle
    /// with a swap opening, and no Gomocup manager sends it (`6`, its freestyle-with-swap2,
    /// stays renju: Piskvork sends 6 for renju as a continuous game). Negative values are not
    /// rules.
    pub fn from_info(value: i64) -> Option<Rule> {
        if value < 0 {
            return None;
        }
        Some(if value == 5 {
            Rule::Freestyle
        } else if value & 4 != 0 || value == 2 {
            Rule::Renju
        } else if value & 8 != 0 {
            Rule::Caro {
                overline_wins: value & 1 == 0,
            }
        } else if value & 1 != 0 {
            Rule::Standard
        } else {
            Rule::Freestyle
        })
    }

    /// The value of `INFO rule` that selects this rule.
    pub fn info_value(self) -> i64 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro {
                overline_wins: true,
            } => 8,
            Rule::Caro {
                overline_wins: false,
            } => 9,
        }
    }

    pub fn five_kind(self, color: Color) -> FiveKind {
        match (self, color) {
            (Rule::Freestyle, _) => FiveKind::AtLeast,
            (Rule::Standard, _) => FiveKind::Exact,
            (Rule::Renju, Color::Black) => FiveKind::Exact,
            (Rule::Renju, Color::White) => FiveKind::AtLeast,
            (
                Rule::Caro {
                    overline_wins: true,
                },
                _,
            ) => FiveKind::CaroOverline,
            (
                Rule::Caro {
                    overline_wins: false,
                },
                _,
            ) => FiveKind::CaroExact,
        }
    }

    /// Whether black's fouls apply.
    #[inline]
    pub fn has_forbidden(self) -> bool {
        self == Rule::Renju
    }

    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
            Rule::Caro {
                overline_wins: true,
            } => "caro8",
            Rule::Caro {
                overline_wins: false,
            } => "caro",
        }
    }

    /// Parses a rule name as the tools' command lines spell it.
    pub fn from_name(name: &str) -> Option<Rule> {
        match name.to_ascii_lowercase().as_str() {
            "freestyle" | "gomoku" | "0" => Some(Rule::Freestyle),
            "standard" | "exact" | "1" => Some(Rule::Standard),
            "renju" | "4" | "2" => Some(Rule::Renju),
            "caro" | "caro9" | "9" => Some(Rule::Caro {
                overline_wins: false,
            }),
            "caro8" | "8" => Some(Rule::Caro {
                overline_wins: true,
            }),
            _ => None,
        }
    }
}

/// The run of `own` stones through `p` along direction step `d`, counting `p` as own, and the
/// number of ends blocked by `opp` stones (a wall is not a block).
#[inline]
pub fn run_through(cells: &[u8], p: Pos, d: isize, own: u8, opp: u8) -> (usize, usize) {
    let mut len = 1;
    let mut blocked = 0;
    let mut q = p.idx() as isize + d;
    while cells[q as usize] == own {
        len += 1;
        q += d;
    }
    if cells[q as usize] == opp {
        blocked += 1;
    }
    let mut q = p.idx() as isize - d;
    while cells[q as usize] == own {
        len += 1;
        q -= d;
    }
    if cells[q as usize] == opp {
        blocked += 1;
    }
    (len, blocked)
}

/// Whether a stone of `color` at `p` (already placed, or hypothetical) completes a winning line.
pub fn makes_five(cells: &[u8], p: Pos, color: Color, kind: FiveKind) -> bool {
    let own = color.cell() as u8;
    let opp = color.other().cell() as u8;
    DIRS.iter().any(|&d| {
        let (len, blocked) = run_through(cells, p, d, own, opp);
        kind.wins(len, blocked)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_rule_bitmask_mapping() {
        assert_eq!(Rule::from_info(0), Some(Rule::Freestyle));
        assert_eq!(Rule::from_info(1), Some(Rule::Standard));
        assert_eq!(Rule::from_info(2), Some(Rule::Renju));
        assert_eq!(Rule::from_info(3), Some(Rule::Standard));
        assert_eq!(Rule::from_info(4), Some(Rule::Renju));
        assert_eq!(Rule::from_info(5), Some(Rule::Freestyle));
        assert_eq!(Rule::from_info(6), Some(Rule::Renju));
        assert_eq!(Rule::from_info(7), Some(Rule::Renju));
        assert_eq!(
            Rule::from_info(8),
            Some(Rule::Caro {
                overline_wins: true
            })
        );
        assert_eq!(
            Rule::from_info(9),
            Some(Rule::Caro {
                overline_wins: false
            })
        );
        assert_eq!(Rule::from_info(-1), None);
        for r in Rule::ALL {
            assert_eq!(Rule::from_info(r.info_value()), Some(r));
            assert_eq!(Rule::from_name(r.name()), Some(r));
        }
    }

    #[test]
    fn five_kinds_judge_runs() {
        assert!(FiveKind::AtLeast.wins(6, 2));
        assert!(!FiveKind::Exact.wins(6, 0));
        assert!(FiveKind::Exact.wins(5, 2));
        assert!(!FiveKind::CaroExact.wins(5, 2));
        assert!(FiveKind::CaroExact.wins(5, 1));
        assert!(!FiveKind::CaroExact.wins(6, 0));
        assert!(FiveKind::CaroOverline.wins(6, 2));
        assert!(!FiveKind::CaroOverline.wins(5, 2));
        assert!(!FiveKind::AtLeast.wins(4, 0));
    }
}
