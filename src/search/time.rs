//! Time control: turns the INFO limits into a soft target (do not start another iteration after
//! it) and a hard deadline (abort the search), both measured from when the move was asked for.

use std::time::Duration;

/// Turn limit assumed when the manager never sends `timeout_turn`.
pub const DEFAULT_TURN_MS: u64 = 5_000;
/// `time_left` value meaning "no match limit".
pub const UNLIMITED: i64 = 2_147_483_647;
/// The turn limit of unlimited thinking (negative `timeout_turn` and `timeout_match`): about 35
/// years.
pub const NO_TURN_LIMIT_MS: u64 = 1 << 40;

/// The time one reply costs outside the search, as a manager measures it, in ms.
pub const MOVE_OVERHEAD_MS: u64 = 3;
/// What a GUI clock in whole seconds needs left of the turn (a second and its redraws).
const WHOLE_SECOND_MS: u64 = 1_100;
/// How many replies' overhead the match clock keeps in reserve.
const OVERHEAD_MOVES: u64 = 50;

/// The limits the protocol announced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeLimits {
    /// `timeout_turn` in ms (`None`: never sent).
    pub turn_ms: Option<u64>,
    /// `timeout_match` in ms (0: no limit).
    pub match_ms: u64,
    /// The last `time_left` in ms (`None`: never sent).
    pub time_left_ms: Option<i64>,
    /// A negative `timeout_match` was sent: no match limit, whatever `time_left` says.
    pub match_unlimited: bool,
    /// The last `timeout_turn` was negative. Together with `match_unlimited` it means no limit at
    /// all (Gomoku Calculator's unlimited thinking); alone it is taken as malformed and
    /// `turn_ms` stays, so that a stray value never leaves a game's engine thinking forever.
    pub turn_unlimited: bool,
    /// The manager is an analysis GUI that shows the turn clock in whole seconds and calls a
    /// timeout once it shows zero (Yixin-Board, which sends `YXSHOWINFO` at start-up): a move
    /// must come with a second of the turn still left.
    pub whole_second_clock: bool,
}

impl TimeLimits {
    /// The turn limit in force, in ms.
    pub fn turn_limit_ms(&self) -> u64 {
        if self.turn_unlimited && self.match_unlimited {
            NO_TURN_LIMIT_MS
        } else {
            self.turn_ms.unwrap_or(DEFAULT_TURN_MS)
        }
    }
}

/// The budget of one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub soft: Duration,
    pub hard: Duration,
}

/// Safety margin kept off a turn limit: the process has to be scheduled, print and be read. Two
/// fifths of a short turn: a process that loses the core for one scheduler slice (several ms)
/// near the end of a 50 ms turn must still answer in time.
fn turn_margin(turn: u64) -> u64 {
    (turn / 10).min(300).max((turn * 2 / 5).min(30))
}

/// The budget for a move, given the limits and the match time this engine has used so far
/// (used only when the manager gives `timeout_match` without `time_left`).
pub fn budget(limits: &TimeLimits, used_ms: u64) -> Budget {
    let turn = limits.turn_limit_ms();
    let (turn_hard, turn_soft) = if turn == 0 {
        // "As fast as possible": a shallow search only.
        (15, 5)
    } else {
        let mut hard = turn - turn_margin(turn);
        if limits.whole_second_clock && turn >= 3 * WHOLE_SECOND_MS {
            hard = hard.min(turn - WHOLE_SECOND_MS);
        }
        (hard, hard * 9 / 10)
    };
    let remaining = match limits.time_left_ms {
        _ if limits.match_unlimited => None,
        Some(t) if t != UNLIMITED => Some(t),
        Some(_) => None,
        None if limits.match_ms > 0 => Some(limits.match_ms as i64 - used_ms as i64),
        None => None,
    };
    let (hard, soft) = match remaining {
        None => (turn_hard, turn_soft),
        Some(left) => {
            let left = left.max(0) as u64;
            // Each reply also costs time the search does not see (reading the command, printing,
            // the manager's own measurement): a fixed allowance for the next moves, on top of the
            // proportional reserve, so that a long game on a short clock never runs it to zero.
            let reserve = (left / 10).min(500) + MOVE_OVERHEAD_MS * OVERHEAD_MOVES;
            let usable = left.saturating_sub(reserve);
            let match_hard = (usable / 7).max(1);
            let match_soft = (usable / 25).max(1);
            (turn_hard.min(match_hard), turn_soft.min(match_soft))
        }
    };
    Budget {
        soft: Duration::from_millis(soft.min(hard)),
        hard: Duration::from_millis(hard.max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(turn: Option<u64>, m: u64, left: Option<i64>) -> (u64, u64) {
        let x = budget(
            &TimeLimits {
                turn_ms: turn,
                match_ms: m,
                time_left_ms: left,
                match_unlimited: false,
                turn_unlimited: false,
                whole_second_clock: false,
            },
            0,
        );
        (x.soft.as_millis() as u64, x.hard.as_millis() as u64)
    }

    #[test]
    fn turn_limits_keep_a_margin() {
        let (s, h) = b(Some(100), 0, None);
        assert!((50..=80).contains(&h) && s < h, "{s} {h}");
        let (_, h) = b(Some(30_000), 0, Some(UNLIMITED));
        assert!((29_000..=29_800).contains(&h));
        let (s, h) = b(Some(50), 0, None);
        assert_eq!((s, h), (27, 30));
        let (_, h) = b(Some(0), 0, None);
        assert!(h <= 20);
        let (_, h) = b(None, 0, None);
        assert!(h < DEFAULT_TURN_MS);
    }

    #[test]
    fn negative_limits_mean_none_only_together() {
        let limits = |turn_ms, turn_unlimited, match_unlimited| TimeLimits {
            turn_ms,
            match_ms: 0,
            time_left_ms: Some(1),
            match_unlimited,
            turn_unlimited,
            whole_second_clock: false,
        };
        // Gomoku Calculator's unlimited thinking: -1 for both limits, then time_left 1.
        let x = budget(&limits(Some(1_000), true, true), 0);
        assert!(x.hard.as_secs() > 365 * 24 * 3600 && x.soft.as_secs() > 365 * 24 * 3600);
        let x = budget(&limits(None, true, true), 0);
        assert!(x.hard.as_secs() > 365 * 24 * 3600);
        // A turn limit with an unlimited match ignores time_left.
        let x = budget(&limits(Some(1_000), false, true), 0);
        assert_eq!(x.hard.as_millis(), 900);
        // A negative turn limit alone leaves the last one (or the default) in force.
        let x = budget(&limits(Some(1_000), true, false), 0);
        assert!(x.hard.as_millis() <= 1);
        let mut l = limits(Some(1_000), true, false);
        l.time_left_ms = None;
        assert_eq!(budget(&l, 0).hard.as_millis(), 900);
        l.turn_ms = None;
        assert!(budget(&l, 0).hard.as_millis() < DEFAULT_TURN_MS as u128);
    }

    #[test]
    fn match_time_caps_the_turn() {
        let (s, h) = b(Some(30_000), 180_000, Some(180_000));
        assert!(h < 30_000 && h > 10_000, "{h}");
        assert!(s < h && s >= 5_000, "{s}");
        let (_, h) = b(Some(5_000), 100_000, Some(1_000));
        assert!(h <= 200);
        let (_, h) = b(Some(5_000), 100_000, Some(-50));
        assert!(h <= 1);
        // Match limit without time_left: own accounting.
        let x = budget(
            &TimeLimits {
                turn_ms: Some(5_000),
                match_ms: 10_000,
                time_left_ms: None,
                ..TimeLimits::default()
            },
            9_900,
        );
        assert!(x.hard.as_millis() <= 20);
    }

    /// Yixin-Board's default 10 s turn: its clock shows 0 and calls a timeout in the last
    /// second, so the move must come before; short turns keep the usual margin.
    #[test]
    fn a_whole_second_gui_clock_keeps_a_second_of_the_turn() {
        let gui = |turn| {
            budget(
                &TimeLimits {
                    turn_ms: Some(turn),
                    whole_second_clock: true,
                    ..TimeLimits::default()
                },
                0,
            )
        };
        assert!(gui(10_000).hard <= Duration::from_millis(8_900));
        assert_eq!(b(Some(10_000), 0, None).1, 9_700);
        assert_eq!(
            gui(1_000).hard.as_millis(),
            b(Some(1_000), 0, None).1 as u128
        );
    }

    /// A long game on a short match clock (a `timeout_match 3000` standard game that fills the
    /// 15x15 board: 112 replies). Each reply overshoots its soft target by half (capped by the
    /// hard limit) and costs 2 ms more outside the search: the clock must last the game.
    #[test]
    fn a_long_game_on_a_short_clock_keeps_time() {
        let mut left: i64 = 3_000;
        for reply in 0..112 {
            let (soft, hard) = b(Some(30_000), 3_000, Some(left));
            left -= (soft * 3 / 2).min(hard) as i64 + 2;
            assert!(left > 0, "the clock ran out at reply {reply}");
        }
    }
}
