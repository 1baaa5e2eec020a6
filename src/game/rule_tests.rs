//! Rule tests: the labelled renju forbidden-point corpus, hand-written win checks for every rule,
//! and a symmetry property of the forbidden-point logic.

use std::collections::BTreeMap;

use crate::game::{Board, Color, Foul, Pos, Rule};

const FORBIDDEN: &str = include_str!("testdata/forbidden.txt");
const FORBIDDEN_SETS: &str = include_str!("testdata/forbidden_sets.txt");
const FORBIDDEN_SETS_RANDOM: &str = include_str!("testdata/forbidden_sets_random.txt");
const FORBIDDEN_SETS_BLACK_FIVE: &str = include_str!("testdata/forbidden_sets_black_five.txt");

// ---------------------------------------------------------------------------------------------
// Corpus parsing
// ---------------------------------------------------------------------------------------------

/// One case line: its fields in order of appearance (the comment is dropped).
struct Case {
    fields: BTreeMap<String, String>,
}

impl Case {
    fn get(&self, key: &str) -> &str {
        self.fields
            .get(key)
            .unwrap_or_else(|| panic!("case {} has no field `{key}`", self.id()))
    }
    fn id(&self) -> &str {
        self.fields.get("id").map(String::as_str).unwrap_or("?")
    }
    fn size(&self) -> usize {
        self.get("size").parse().expect("size is a number")
    }
    fn points(&self, key: &str) -> Vec<(usize, usize)> {
        parse_points(self.get(key))
    }
}

fn parse_cases(text: &str) -> Vec<Case> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let data = match l.find(" # ") {
                Some(i) => &l[..i],
                None => l,
            };
            let fields = data
                .split(' ')
                .filter(|f| !f.is_empty())
                .map(|f| {
                    let (k, v) = f
                        .split_once('=')
                        .unwrap_or_else(|| panic!("field without `=`: {f} in {l}"));
                    (k.to_string(), v.to_string())
                })
                .collect();
            Case { fields }
        })
        .collect()
}

fn parse_point(s: &str) -> (usize, usize) {
    let (x, y) = s.split_once(',').unwrap_or_else(|| panic!("bad point {s}"));
    (x.parse().expect("x"), y.parse().expect("y"))
}

fn parse_points(s: &str) -> Vec<(usize, usize)> {
    if s == "-" {
        return Vec::new();
    }
    s.split(';').map(parse_point).collect()
}

/// What a label says about a point: a specific kind, or forbidden of an unknown kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Label {
    Kind(Foul),
    Any,
}

impl Label {
    fn matches(self, f: Foul) -> bool {
        match self {
            Label::Kind(k) => k == f,
            Label::Any => true,
        }
    }
}

/// Parses `forbidden_set:none` or `forbidden_set:x,y:K;...`.
fn parse_forbidden_set(answer: &str) -> BTreeMap<(usize, usize), Label> {
    let list = answer
        .strip_prefix("forbidden_set:")
        .unwrap_or_else(|| panic!("bad forbidden_set answer {answer}"));
    let mut set = BTreeMap::new();
    if list == "none" {
        return set;
    }
    for item in list.split(';') {
        let (pt, k) = item
            .rsplit_once(':')
            .unwrap_or_else(|| panic!("bad set item {item}"));
        let label = match k {
            "3" => Label::Kind(Foul::DoubleThree),
            "4" => Label::Kind(Foul::DoubleFour),
            "6" => Label::Kind(Foul::Overline),
            "?" => Label::Any,
            _ => panic!("bad kind {k} in {item}"),
        };
        assert!(
            set.insert(parse_point(pt), label).is_none(),
            "duplicate {item}"
        );
    }
    set
}

/// A renju board of the case's size with its stones.
fn setup(size: usize, black: &[(usize, usize)], white: &[(usize, usize)]) -> Board {
    let mut b = Board::new(size, size, Rule::Renju).expect("board size");
    for &(x, y) in black {
        b.try_play(x as i64, y as i64, Color::Black)
            .unwrap_or_else(|e| panic!("black {x},{y}: {e}"));
    }
    for &(x, y) in white {
        b.try_play(x as i64, y as i64, Color::White)
            .unwrap_or_else(|e| panic!("white {x},{y}: {e}"));
    }
    b
}

/// Every empty point's foul, and every disagreement between `is_legal` and `foul`.
type FoulMap = (BTreeMap<(usize, usize), Foul>, Vec<(usize, usize)>);

fn foul_map(b: &mut Board) -> FoulMap {
    let mut fouls = BTreeMap::new();
    let mut disagree = Vec::new();
    let empties: Vec<Pos> = b.cells_iter().filter(|&p| b.is_empty(p)).collect();
    for p in empties {
        let f = b.foul(p);
        if let Some(f) = f {
            fouls.insert((p.x(), p.y()), f);
        }
        if b.is_legal(p, Color::Black) != f.is_none() {
            disagree.push((p.x(), p.y()));
        }
        assert!(b.is_legal(p, Color::White), "white may play anywhere empty");
    }
    (fouls, disagree)
}

fn fmt_set<V: std::fmt::Debug>(m: &BTreeMap<(usize, usize), V>) -> String {
    let items: Vec<String> = m
        .iter()
        .map(|((x, y), v)| format!("{x},{y}:{v:?}"))
        .collect();
    if items.is_empty() {
        "none".into()
    } else {
        items.join(";")
    }
}

/// Compares a computed foul map with a labelled set; `None` when they agree.
fn compare_sets(
    got: &BTreeMap<(usize, usize), Foul>,
    want: &BTreeMap<(usize, usize), Label>,
) -> Option<String> {
    let mut problems = Vec::new();
    for (pt, label) in want {
        match got.get(pt) {
            None => problems.push(format!("{},{} labelled {label:?} but allowed", pt.0, pt.1)),
            Some(&f) if !label.matches(f) => problems.push(format!(
                "{},{} labelled {label:?} but got {f:?}",
                pt.0, pt.1
            )),
            _ => {}
        }
    }
    for (pt, f) in got {
        if !want.contains_key(pt) {
            problems.push(format!("{},{} unlabelled but got {f:?}", pt.0, pt.1));
        }
    }
    if problems.is_empty() {
        None
    } else {
        Some(format!(
            "{} (got {}, want {})",
            problems.join(", "),
            fmt_set(got),
            fmt_set(want)
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// Corpus tests
// ---------------------------------------------------------------------------------------------

#[test]
fn corpus_forbidden_point_queries() {
    let cases = parse_cases(FORBIDDEN);
    assert!(cases.len() >= 100, "only {} cases parsed", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        assert_eq!(case.get("rule"), "renju", "{}", case.id());
        let mut b = setup(case.size(), &case.points("black"), &case.points("white"));
        let (x, y) = parse_point(case.get("query"));
        let q = Pos::new(x, y);
        assert!(b.is_empty(q), "{}: query point occupied", case.id());
        let answer = case.get("answer");
        let foul = b.foul(q);
        let legal = b.is_legal(q, Color::Black);
        let ok = match answer {
            "allowed" => foul.is_none() && legal,
            _ => {
                let want = match answer.strip_prefix("forbidden:") {
                    Some("double-three") => Label::Kind(Foul::DoubleThree),
                    Some("double-four") => Label::Kind(Foul::DoubleFour),
                    Some("overline") => Label::Kind(Foul::Overline),
                    Some("any") => Label::Any,
                    _ => panic!("{}: unknown answer {answer}", case.id()),
                };
                foul.is_some_and(|f| want.matches(f)) && !legal
            }
        };
        if !ok {
            failures.push(format!(
                "{}: query {x},{y} want {answer}, got foul={foul:?} is_legal={legal}",
                case.id()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} forbidden.txt cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_complete_forbidden_sets() {
    check_forbidden_sets(FORBIDDEN_SETS, "forbidden_sets.txt", 30);
}

/// Random positions whose forbidden points two independent implementations agreed on.
#[test]
fn cross_checked_random_forbidden_sets() {
    check_forbidden_sets(FORBIDDEN_SETS_RANDOM, "forbidden_sets_random.txt", 150);
}

/// The same where black already has a five point: the referees (Piskvork's algorithm, Rapfi) do
/// not count a three whose straight-four point is that five point.
#[test]
fn cross_checked_forbidden_sets_with_a_black_five_point() {
    check_forbidden_sets(
        FORBIDDEN_SETS_BLACK_FIVE,
        "forbidden_sets_black_five.txt",
        80,
    );
}

/// A double three whose one three turns into a straight four only on black's five point is no
/// foul: that three is not real (the referee's rule, checked against Piskvork's algorithm).
#[test]
fn a_three_completed_only_on_a_five_point_is_not_real() {
    // Column 10: black 10,3..5 with white at 10,2. Row 7: 8,7 9,7 and the move 7,7 make a three
    // whose only straight four needs 10,7 (5,7 is white). Column 7: 7,7 7,8 7,9, an open three.
    let shape = |black_extra, white_extra| {
        let mut black = vec![(10, 3), (10, 4), (10, 5), (8, 7), (9, 7), (7, 8), (7, 9)];
        let mut white = vec![(10, 2), (5, 7), (0, 0), (0, 14), (14, 0), (2, 12), (12, 12)];
        black.push(black_extra);
        white.push(white_extra);
        setup(15, &black, &white)
    };
    // Black on 10,6: 10,7 is black's five point, so the row's three is not real.
    let mut b = shape((10, 6), (14, 14));
    assert_eq!(b.foul(at(7, 7)), None);
    assert!(b.is_legal(at(7, 7), Color::Black));
    // White on 10,6 instead: no five point, and the same shape is a double three.
    let mut b = shape((1, 1), (10, 6));
    assert_eq!(b.foul(at(7, 7)), Some(Foul::DoubleThree));
}

/// Every case's complete set of forbidden points (and `is_legal` agreeing with `foul`).
fn check_forbidden_sets(corpus: &str, name: &str, min_cases: usize) {
    let cases = parse_cases(corpus);
    assert!(
        cases.len() >= min_cases,
        "only {} cases parsed",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        assert_eq!(case.get("rule"), "renju", "{}", case.id());
        let mut b = setup(case.size(), &case.points("black"), &case.points("white"));
        let want = parse_forbidden_set(case.get("answer"));
        let (got, disagree) = foul_map(&mut b);
        if let Some(msg) = compare_sets(&got, &want) {
            failures.push(format!("{}: {msg}", case.id()));
        }
        if !disagree.is_empty() {
            failures.push(format!(
                "{}: is_legal disagrees with foul at {:?}",
                case.id(),
                disagree
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems in {} {name} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The 8 symmetries of an `n x n` square.
fn transform(t: usize, n: usize, (x, y): (usize, usize)) -> (usize, usize) {
    let m = n - 1;
    let (x, y) = if t & 4 != 0 { (y, x) } else { (x, y) };
    let x = if t & 1 != 0 { m - x } else { x };
    let y = if t & 2 != 0 { m - y } else { y };
    (x, y)
}

#[test]
fn forbidden_sets_are_invariant_under_board_symmetries() {
    let cases = parse_cases(FORBIDDEN_SETS);
    let mut failures = Vec::new();
    for case in &cases {
        let n = case.size();
        let black = case.points("black");
        let white = case.points("white");
        let want = parse_forbidden_set(case.get("answer"));
        for t in 1..8 {
            let tb: Vec<_> = black.iter().map(|&p| transform(t, n, p)).collect();
            let tw: Vec<_> = white.iter().map(|&p| transform(t, n, p)).collect();
            let twant: BTreeMap<_, _> = want
                .iter()
                .map(|(&p, &l)| (transform(t, n, p), l))
                .collect();
            let mut b = setup(n, &tb, &tw);
            let (got, disagree) = foul_map(&mut b);
            if let Some(msg) = compare_sets(&got, &twant) {
                failures.push(format!("{} symmetry {t}: {msg}", case.id()));
            }
            if !disagree.is_empty() {
                failures.push(format!(
                    "{} symmetry {t}: is_legal disagrees with foul at {:?}",
                    case.id(),
                    disagree
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} symmetry problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Hand-written rule tests
// ---------------------------------------------------------------------------------------------

fn board(w: usize, h: usize, rule: Rule) -> Board {
    Board::new(w, h, rule).unwrap()
}

fn put(b: &mut Board, c: Color, pts: &[(i64, i64)]) {
    for &(x, y) in pts {
        b.try_play(x, y, c).unwrap();
    }
}

fn at(x: usize, y: usize) -> Pos {
    Pos::new(x, y)
}

/// `n` points from `(x, y)` stepping `(dx, dy)`.
fn line(x: i64, y: i64, dx: i64, dy: i64, n: i64) -> Vec<(i64, i64)> {
    (0..n).map(|k| (x + k * dx, y + k * dy)).collect()
}

const CARO: Rule = Rule::Caro {
    overline_wins: false,
};
const CARO8: Rule = Rule::Caro {
    overline_wins: true,
};
const BOTH: [Color; 2] = [Color::Black, Color::White];

#[test]
fn freestyle_five_wins_for_both_colours() {
    for c in BOTH {
        // Horizontal: four stones, the fifth at either end.
        let mut b = board(15, 15, Rule::Freestyle);
        put(&mut b, c, &line(3, 7, 1, 0, 4));
        assert!(b.is_winning_move(at(7, 7), c), "{c:?}");
        assert!(b.is_winning_move(at(2, 7), c), "{c:?}");
        assert!(!b.is_winning_move(at(8, 7), c), "{c:?}");
        assert!(!b.is_winning_move(at(7, 7), c.other()), "{c:?}");
        // Vertical, filling a gap.
        let mut b = board(15, 15, Rule::Freestyle);
        put(&mut b, c, &[(4, 2), (4, 3), (4, 5), (4, 6)]);
        assert!(b.is_winning_move(at(4, 4), c), "{c:?}");
    }
}

#[test]
fn freestyle_overline_wins_for_both_colours() {
    for c in BOTH {
        // Diagonal: XXX.XX -> six.
        let mut b = board(15, 15, Rule::Freestyle);
        put(&mut b, c, &[(2, 2), (3, 3), (4, 4), (6, 6), (7, 7)]);
        assert!(b.is_winning_move(at(5, 5), c), "{c:?}");
        // Anti-diagonal seven.
        let mut b = board(15, 15, Rule::Freestyle);
        put(
            &mut b,
            c,
            &[(10, 1), (9, 2), (8, 3), (6, 5), (5, 6), (4, 7)],
        );
        assert!(b.is_winning_move(at(7, 4), c), "{c:?}");
    }
}

#[test]
fn standard_exact_five_wins_overline_does_not() {
    for c in BOTH {
        let mut b = board(15, 15, Rule::Standard);
        put(&mut b, c, &line(5, 3, 0, 1, 4)); // vertical 5,3..5,6
        assert!(b.is_winning_move(at(5, 7), c), "{c:?} five");
        assert!(b.is_winning_move(at(5, 2), c), "{c:?} five");
        // XXXX.X: the gap makes six.
        put(&mut b, c, &[(5, 8)]);
        assert!(!b.is_winning_move(at(5, 7), c), "{c:?} overline");
        assert!(b.is_winning_move(at(5, 2), c), "{c:?} five at other end");
        // Standard has no fouls.
        assert_eq!(b.foul(at(5, 7)), None);
        assert!(b.is_legal(at(5, 7), c));
    }
}

#[test]
fn renju_black_exact_five_wins() {
    let mut b = board(15, 15, Rule::Renju);
    put(&mut b, Color::Black, &line(3, 3, 1, 1, 4)); // diagonal
    assert!(b.is_winning_move(at(7, 7), Color::Black));
    assert!(b.is_legal(at(7, 7), Color::Black));
    assert_eq!(b.foul(at(7, 7)), None);
}

#[test]
fn renju_black_overline_does_not_win_and_is_a_foul() {
    let mut b = board(15, 15, Rule::Renju);
    put(
        &mut b,
        Color::Black,
        &[(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)],
    );
    let p = at(5, 7);
    assert!(!b.is_winning_move(p, Color::Black));
    assert_eq!(b.foul(p), Some(Foul::Overline));
    assert!(!b.is_legal(p, Color::Black));
    // White may play there.
    assert!(b.is_legal(p, Color::White));
}

#[test]
fn renju_white_overline_wins() {
    let mut b = board(15, 15, Rule::Renju);
    put(
        &mut b,
        Color::White,
        &[(12, 2), (11, 3), (10, 4), (8, 6), (7, 7)],
    );
    let p = at(9, 5);
    assert!(b.is_winning_move(p, Color::White));
    assert!(b.is_legal(p, Color::White));
    // The same shape in black is an overline foul.
    let mut b = board(15, 15, Rule::Renju);
    put(
        &mut b,
        Color::Black,
        &[(12, 2), (11, 3), (10, 4), (8, 6), (7, 7)],
    );
    assert!(!b.is_winning_move(p, Color::Black));
    assert_eq!(b.foul(p), Some(Foul::Overline));
}

#[test]
fn renju_five_takes_priority_over_overline() {
    // At 7,7 black makes a horizontal five and a vertical six.
    let mut b = board(15, 15, Rule::Renju);
    put(&mut b, Color::Black, &[(3, 7), (4, 7), (5, 7), (6, 7)]);
    put(
        &mut b,
        Color::Black,
        &[(7, 4), (7, 5), (7, 6), (7, 8), (7, 9)],
    );
    let p = at(7, 7);
    assert!(b.is_winning_move(p, Color::Black));
    assert_eq!(b.foul(p), None);
    assert!(b.is_legal(p, Color::Black));
}

#[test]
fn renju_five_takes_priority_over_double_four() {
    // At 7,7: horizontal five, plus fours on the vertical and the diagonal.
    let mut b = board(15, 15, Rule::Renju);
    put(&mut b, Color::Black, &[(3, 7), (4, 7), (5, 7), (6, 7)]);
    put(&mut b, Color::Black, &[(7, 4), (7, 5), (7, 6)]);
    put(&mut b, Color::Black, &[(8, 8), (9, 9), (10, 10)]);
    let p = at(7, 7);
    assert!(b.is_winning_move(p, Color::Black));
    assert_eq!(b.foul(p), None);
    assert!(b.is_legal(p, Color::Black));
    // Without the horizontal five the same point is a double-four.
    let mut b = board(15, 15, Rule::Renju);
    put(&mut b, Color::Black, &[(7, 4), (7, 5), (7, 6)]);
    put(&mut b, Color::Black, &[(8, 8), (9, 9), (10, 10)]);
    assert!(!b.is_winning_move(p, Color::Black));
    assert_eq!(b.foul(p), Some(Foul::DoubleFour));
    assert!(!b.is_legal(p, Color::Black));
}

#[test]
fn renju_double_three_and_double_four_in_one_line() {
    // Simple open double-three: horizontal .XX*. and vertical.
    let mut b = board(15, 15, Rule::Renju);
    put(&mut b, Color::Black, &[(5, 7), (6, 7), (7, 5), (7, 6)]);
    assert_eq!(b.foul(at(7, 7)), Some(Foul::DoubleThree));
    assert!(!b.is_legal(at(7, 7), Color::Black));
    // X.X*X.X on one line: two fours in one line.
    let mut b = board(15, 15, Rule::Renju);
    put(&mut b, Color::Black, &[(7, 3), (7, 5), (7, 6), (7, 9)]);
    assert_eq!(b.foul(at(7, 7)), Some(Foul::DoubleFour));
    // A three blocked by white is no three.
    let mut b = board(15, 15, Rule::Renju);
    put(&mut b, Color::Black, &[(5, 7), (6, 7), (7, 5), (7, 6)]);
    put(&mut b, Color::White, &[(4, 7), (8, 7)]);
    assert_eq!(b.foul(at(7, 7)), None);
    assert!(b.is_legal(at(7, 7), Color::Black));
}

#[test]
fn caro_five_blocked_at_both_ends_does_not_win() {
    for c in BOTH {
        let o = c.other();
        // Horizontal O XXXX* O
        let mut b = board(15, 15, CARO);
        put(&mut b, c, &line(3, 7, 1, 0, 4));
        put(&mut b, o, &[(2, 7), (8, 7)]);
        assert!(!b.is_winning_move(at(7, 7), c), "{c:?}");
        // Anti-diagonal, doubly blocked, gap filled in the middle.
        let mut b = board(15, 15, CARO);
        put(&mut b, c, &[(10, 2), (9, 3), (7, 5), (6, 6)]);
        put(&mut b, o, &[(11, 1), (5, 7)]);
        assert!(!b.is_winning_move(at(8, 4), c), "{c:?}");
    }
}

#[test]
fn caro_five_blocked_at_one_end_wins() {
    for c in BOTH {
        let o = c.other();
        let mut b = board(15, 15, CARO);
        put(&mut b, c, &line(6, 2, 0, 1, 4)); // vertical 6,2..6,5
        put(&mut b, o, &[(6, 1)]);
        assert!(b.is_winning_move(at(6, 6), c), "{c:?}");
        // Diagonal, blocked at one end.
        let mut b = board(15, 15, CARO);
        put(&mut b, c, &[(2, 2), (3, 3), (4, 4), (5, 5)]);
        put(&mut b, o, &[(7, 7)]);
        assert!(b.is_winning_move(at(6, 6), c), "{c:?}");
        assert!(b.is_winning_move(at(1, 1), c), "{c:?}");
    }
}

#[test]
fn caro_five_against_the_edge_wins() {
    for c in BOTH {
        let o = c.other();
        // Edge at one end, opponent stone at the other.
        let mut b = board(15, 15, CARO);
        put(&mut b, c, &line(0, 7, 1, 0, 4));
        put(&mut b, o, &[(5, 7)]);
        assert!(b.is_winning_move(at(4, 7), c), "{c:?}");
        // Five filling a whole 5-wide board between both edges.
        let mut b = board(5, 9, CARO);
        put(&mut b, c, &[(0, 4), (1, 4), (3, 4), (4, 4)]);
        assert!(b.is_winning_move(at(2, 4), c), "{c:?}");
        // Corner-to-corner diagonal of a 5x5 board.
        let mut b = board(5, 5, CARO);
        put(&mut b, c, &[(0, 0), (1, 1), (2, 2), (3, 3)]);
        assert!(b.is_winning_move(at(4, 4), c), "{c:?}");
    }
}

#[test]
fn caro_overline_does_not_win() {
    for c in BOTH {
        let mut b = board(15, 15, CARO);
        put(&mut b, c, &[(1, 9), (2, 9), (3, 9), (5, 9), (6, 9)]);
        assert!(!b.is_winning_move(at(4, 9), c), "{c:?}");
        assert_eq!(b.foul(at(4, 9)), None, "no fouls in caro");
    }
}

#[test]
fn caro8_overline_wins_even_blocked_at_both_ends() {
    for c in BOTH {
        let o = c.other();
        let mut b = board(15, 15, CARO8);
        put(&mut b, c, &[(1, 9), (2, 9), (3, 9), (5, 9), (6, 9)]);
        put(&mut b, o, &[(0, 9), (7, 9)]);
        assert!(b.is_winning_move(at(4, 9), c), "{c:?}");
        // Vertical overline, open.
        let mut b = board(15, 15, CARO8);
        put(&mut b, c, &[(9, 3), (9, 4), (9, 5), (9, 6), (9, 7)]);
        put(&mut b, o, &[(9, 1)]);
        assert!(b.is_winning_move(at(9, 8), c), "{c:?}");
    }
}

#[test]
fn caro8_doubly_blocked_exact_five_does_not_win() {
    for c in BOTH {
        let o = c.other();
        let mut b = board(15, 15, CARO8);
        put(&mut b, c, &[(3, 3), (4, 4), (6, 6), (7, 7)]);
        put(&mut b, o, &[(2, 2), (8, 8)]);
        assert!(!b.is_winning_move(at(5, 5), c), "{c:?}");
        // Blocked at one end only: wins.
        let mut b = board(15, 15, CARO8);
        put(&mut b, c, &[(3, 3), (4, 4), (6, 6), (7, 7)]);
        put(&mut b, o, &[(2, 2)]);
        assert!(b.is_winning_move(at(5, 5), c), "{c:?}");
    }
}

#[test]
fn rectangular_board_near_edges() {
    // 20 columns x 8 rows.
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, CARO, CARO8] {
        for c in BOTH {
            // Along the bottom row to the right edge.
            let mut b = board(20, 8, rule);
            put(&mut b, c, &line(16, 7, 1, 0, 4)); // 16..19, row 7
            assert!(b.is_winning_move(at(15, 7), c), "{rule:?} {c:?} bottom row");
            // A column is 8 tall: five from the top edge.
            let mut b = board(20, 8, rule);
            put(&mut b, c, &line(19, 0, 0, 1, 4));
            assert!(
                b.is_winning_move(at(19, 4), c),
                "{rule:?} {c:?} right column"
            );
            // Anti-diagonal from the top-right corner region down to the bottom edge.
            let mut b = board(20, 8, rule);
            put(&mut b, c, &[(19, 3), (18, 4), (17, 5), (16, 6)]);
            assert!(
                b.is_winning_move(at(15, 7), c),
                "{rule:?} {c:?} anti-diagonal"
            );
            // A diagonal four squeezed between the left and bottom edges can never be a five:
            // its completion points (-1,3) and (4,8) are off the board.
            let mut b = board(20, 8, rule);
            put(&mut b, c, &[(0, 4), (1, 5), (2, 6), (3, 7)]);
            assert!(b.pos(4, 8).is_none() && b.pos(-1, 3).is_none());
            let empties: Vec<Pos> = b.cells_iter().filter(|&p| b.is_empty(p)).collect();
            assert!(
                empties.iter().all(|&p| !b.is_winning_move(p, c)),
                "{rule:?} {c:?} edge-bound diagonal four"
            );
            // Six along the bottom edge: wins only where overlines win.
            let mut b = board(20, 8, rule);
            put(&mut b, c, &[(0, 7), (1, 7), (2, 7), (4, 7), (5, 7)]);
            let overline_wins = match rule {
                Rule::Freestyle | CARO8 => true,
                Rule::Renju => c == Color::White,
                _ => false,
            };
            assert_eq!(
                b.is_winning_move(at(3, 7), c),
                overline_wins,
                "{rule:?} {c:?} overline at the bottom edge"
            );
        }
    }
}

/// `is_legal` runs the exact check only behind the cheap `may_be_forbidden` prefilter; on dense
/// random renju positions it must agree with `foul` on every empty point.
#[test]
fn is_legal_agrees_with_foul_on_random_renju_boards() {
    let mut seed = 0x5EED_u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let mut failures = Vec::new();
    let mut fouls_seen = 0;
    for game in 0..400 {
        let mut b = board(15, 15, Rule::Renju);
        // Stones in a 9x9 centre square, mostly black, so fouls are common.
        let stones = 15 + next() % 30;
        for _ in 0..stones {
            let p = at(3 + next() % 9, 3 + next() % 9);
            if b.is_empty(p) {
                let c = if next() % 3 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                b.play(p, c);
            }
        }
        let (fouls, disagree) = foul_map(&mut b);
        fouls_seen += fouls.len();
        if !disagree.is_empty() {
            failures.push(format!("game {game}: {disagree:?}\n{}", b.render()));
        }
    }
    assert!(
        fouls_seen > 400,
        "random boards too tame: {fouls_seen} fouls"
    );
    assert!(
        failures.is_empty(),
        "is_legal disagrees with foul:\n{}",
        failures.join("\n")
    );
}
