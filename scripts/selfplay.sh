#!/usr/bin/env bash
# One game (or a few) of Tengen against itself, printing the board after every move.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/selfplay.sh [options] [-- extra tengen-match options]

Builds Tengen in release mode, then plays Tengen against itself through the pbrain protocol
(tengen-match drives both engines exactly as the Gomocup manager does) and prints the board and
the move list after every move.

Options:
  --rule R       freestyle | standard | renju | caro   (default freestyle)
  --size N       board size                            (default 15)
  --turn-ms MS   time per move in milliseconds         (default 1000)
  --match-s S    time per game in seconds              (default 120)
  --games N      number of games                       (default 1)
  --seed N       seed for the random opening           (default: time based)
  --quiet        no board printing, only results
  --no-build     do not run cargo build
  -h, --help     this text

Example:
  scripts/selfplay.sh --rule renju --turn-ms 500
USAGE
}

rule=freestyle size=15 turn_ms=1000 match_s=120 games=1 seed="" show=--show build=1
extra=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rule) rule="$2"; shift 2 ;;
        --size) size="$2"; shift 2 ;;
        --turn-ms) turn_ms="$2"; shift 2 ;;
        --match-s) match_s="$2"; shift 2 ;;
        --games) games="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --quiet) show=""; shift ;;
        --no-build) build=0; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; extra=("$@"); break ;;
        *) echo "selfplay.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ $build -eq 1 ]]; then
    cargo build --release --bins
fi
turn_s=$(awk -v ms="$turn_ms" 'BEGIN { printf "%.3f", ms / 1000 }')
args=(--engine cmd=target/release/pbrain-tengen name=Tengen-A
      --engine cmd=target/release/pbrain-tengen name=Tengen-B
      --each "tc=$match_s/$turn_s"
      --rule "$rule" --size "$size" --games "$games")
[[ -n "$seed" ]] && args+=(--seed "$seed")
[[ -n "$show" ]] && args+=("$show")
exec target/release/tengen-match "${args[@]}" "${extra[@]}"
