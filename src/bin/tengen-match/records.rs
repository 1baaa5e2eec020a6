//! Game records: SGF (with rule, size and per-move times), Piskvork `.psq`, protocol logs.

use crate::cli::Config;
use crate::game::GameResult;
use anyhow::{Context, Result};
use std::path::Path;
use tengen::game::Color;

fn sgf_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

fn sgf_coord(v: i64) -> char {
    // a..z then A..Z, as SGF does for boards larger than 26.
    if v < 26 {
        (b'a' + v as u8) as char
    } else {
        (b'A' + (v - 26) as u8) as char
    }
}

pub fn sgf(cfg: &Config, g: &GameResult) -> String {
    let black = &cfg.engines[g.setup.black].name;
    let white = &cfg.engines[1 - g.setup.black].name;
    let re = match g.winner {
        Some(w) if w == g.setup.black => "B+",
        Some(_) => "W+",
        None => "0",
    };
    let mut s = format!(
        "(;GM[4]FF[4]CA[UTF-8]AP[tengen-match]SZ[{}]RU[{}]PB[{}]PW[{}]RE[{}]GN[game {} pair {}]\
         C[{}]",
        cfg.size,
        cfg.rule.name(),
        sgf_escape(black),
        sgf_escape(white),
        re,
        g.setup.index + 1,
        g.setup.pair + 1,
        sgf_escape(&g.reason.text())
    );
    for m in &g.moves {
        let c = if m.color == Color::Black { 'B' } else { 'W' };
        s.push_str(&format!(";{c}[{}{}]", sgf_coord(m.x), sgf_coord(m.y)));
        match m.engine {
            None => s.push_str("C[opening]"),
            Some(_) => {
                if let Some(left) = m.left_ms {
                    s.push_str(&format!("{c}L[{:.3}]", left as f64 / 1000.0));
                }
                s.push_str(&format!("C[{:.0} ms]", m.ms));
            }
        }
    }
    s.push_str(")\n");
    s
}

/// Piskvork `.psq`: a header, then `x,y,ms` per move with 1-based coordinates, then the names.
pub fn psq(cfg: &Config, g: &GameResult) -> String {
    let mut s = format!("Piskvorky {}x{}, 11:11, 0\n", cfg.size, cfg.size);
    for m in &g.moves {
        s.push_str(&format!("{},{},{:.0}\n", m.x + 1, m.y + 1, m.ms));
    }
    s.push_str(&format!("{}\n", cfg.engines[g.setup.black].name));
    s.push_str(&format!("{}\n", cfg.engines[1 - g.setup.black].name));
    s.push_str("-1\n");
    s
}

pub fn protocol_log(cfg: &Config, g: &GameResult) -> String {
    let mut s = format!(
        "game {} ({} vs {}, black {}): {} {}\n",
        g.setup.index + 1,
        cfg.engines[0].name,
        cfg.engines[1].name,
        cfg.engines[g.setup.black].name,
        g.result_bw(),
        g.reason.text()
    );
    for i in 0..2 {
        s.push_str(&format!(
            "\n== {} (ms since spawn, > to engine, < from engine)\n",
            cfg.engines[i].name
        ));
        for l in &g.transcripts[i] {
            s.push_str(l);
            s.push('\n');
        }
    }
    s.push_str("\nfinal position:\n");
    s.push_str(&g.final_board);
    s
}

pub fn write(cfg: &Config, dir: &Path, g: &GameResult) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let stem = format!("game-{:05}", g.setup.index + 1);
    std::fs::write(dir.join(format!("{stem}.sgf")), sgf(cfg, g))?;
    std::fs::write(dir.join(format!("{stem}.psq")), psq(cfg, g))?;
    if cfg.log_all || g.faulty.is_some() {
        std::fs::write(dir.join(format!("{stem}.log")), protocol_log(cfg, g))?;
    }
    Ok(())
}
