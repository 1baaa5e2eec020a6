//! The board as text: column letters above and below, row numbers from 1 at the bottom on both
//! sides, `X` for black and `O` for white, the last move in brackets `[X]` and the stones of a
//! winning line in parentheses `(O)`. Colour (ANSI) is only an addition: without it every mark
//! still reads.

use super::input::column_name;
use crate::game::{Board, Cell, Pos};

const RESET: &str = "\x1b[0m";
const BLACK_STYLE: &str = "\x1b[1;31m";
const WHITE_STYLE: &str = "\x1b[1;36m";
const DIM: &str = "\x1b[2m";

fn column_header(width: usize) -> String {
    let mut s = String::from("    ");
    for x in 0..width {
        s.push_str(&format!("{:^3}", column_name(x)));
    }
    s.trim_end().to_string()
}

/// The board as lines of text. `line` holds the points of a winning line to mark.
pub fn render(board: &Board, line: &[Pos], colour: bool) -> String {
    let (w, h) = (board.width(), board.height());
    let last = board.last_move();
    let header = column_header(w);
    let mut s = String::new();
    s.push_str(&header);
    s.push('\n');
    for y in 0..h {
        let row = h - y;
        s.push_str(&format!("{row:>3} "));
        for x in 0..w {
            let p = Pos::new(x, y);
            let (ch, style) = match board.cell(p) {
                Cell::Empty => ('.', DIM),
                Cell::Black => ('X', BLACK_STYLE),
                Cell::White => ('O', WHITE_STYLE),
                Cell::Wall => ('#', DIM),
            };
            let (open, close) = if Some(p) == last {
                ('[', ']')
            } else if line.contains(&p) {
                ('(', ')')
            } else {
                (' ', ' ')
            };
            s.push(open);
            if colour {
                s.push_str(style);
                s.push(ch);
                s.push_str(RESET);
            } else {
                s.push(ch);
            }
            s.push(close);
        }
        s.push_str(&format!(" {row}\n"));
    }
    s.push_str(&header);
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Rule};

    #[test]
    fn letters_numbers_and_the_last_move() {
        let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
        b.play(Pos::new(7, 7), Color::Black);
        b.play(Pos::new(0, 14), Color::White);
        let text = render(&b, &[], false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 17);
        assert_eq!(lines[0], "     a  b  c  d  e  f  g  h  i  j  k  l  m  n  o");
        assert_eq!(lines[0], lines[16]);
        assert!(lines[1].starts_with(" 15  . "));
        assert!(lines[1].ends_with(" .  15"));
        assert_eq!(
            lines[8],
            "  8  .  .  .  .  .  .  .  X  .  .  .  .  .  .  .  8"
        );
        assert!(lines[15].starts_with("  1 [O] . "), "{}", lines[15]);
        assert!(!text.contains('\x1b'));
        assert!(render(&b, &[], true).contains('\x1b'));
    }

    #[test]
    fn winning_line_and_wide_boards() {
        let mut b = Board::new(32, 6, Rule::Freestyle).unwrap();
        b.play(Pos::new(30, 5), Color::Black);
        b.play(Pos::new(31, 5), Color::White);
        let text = render(&b, &[Pos::new(30, 5)], false);
        assert!(text
            .lines()
            .next()
            .unwrap()
            .ends_with(" z aa ab ac ad ae af"));
        assert!(text.lines().nth(6).unwrap().ends_with("(X)[O] 1"));
    }
}
