#!/usr/bin/env bash
# A match between any two pbrain engines through tengen-match.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/match.sh ENGINE_A ENGINE_B [options] [-- extra tengen-match options]

Plays ENGINE_A against ENGINE_B (paths to pbrain executables, or "wine path/pbrain-x.exe"
style commands in quotes) the way the Gomocup manager drives them: a fresh process per game,
START + INFO, BOARD for each side's first move, TURN afterwards. Each opening is played twice
with colours swapped. Prints a progress line per game and a summary: W-L-D from ENGINE_A's
view, Elo with a 95 % pentanomial interval, faults by kind and move times.

Options:
  --rule R         freestyle | standard | renju | caro      (default freestyle)
  --size N         board size                               (default 15)
  --games N        games                                    (default 100)
  --tc M/T[+I]     seconds per game / per move [+increment] (default 60/1)
  --concurrency N  games at once                            (default: CPUs / 2, at least 1)
  --openings FILE  opening book (offset or move-string lines); default: the shipped book
                   scripts/openings/<rule><size>.txt when there is one, else random openings
  --random-openings  random 2-4 stone openings even when a shipped book exists
  --out DIR        SGF/psq records, logs and summary.json   (default target/match/<time>)
  --seed N         seed                                     (default: time based)
  --build          run cargo build --release --bins first (to get tengen-match)
  -h, --help       this text

Example:
  scripts/match.sh target/release/pbrain-tengen ~/engines/pbrain-other --rule renju --tc 120/5
USAGE
}

if [[ $# -ge 1 && ( "$1" == "-h" || "$1" == "--help" ) ]]; then usage; exit 0; fi
if [[ $# -lt 2 ]]; then usage >&2; exit 2; fi
a="$1" b="$2"; shift 2
rule=freestyle size=15 games=100 tc=60/1 conc="" openings="" out="" seed="" build=0 random=0
extra=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rule) rule="$2"; shift 2 ;;
        --size) size="$2"; shift 2 ;;
        --games) games="$2"; shift 2 ;;
        --tc) tc="$2"; shift 2 ;;
        --concurrency) conc="$2"; shift 2 ;;
        --openings) openings="$2"; shift 2 ;;
        --random-openings) random=1; shift ;;
        --out) out="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --build) build=1; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; extra=("$@"); break ;;
        *) echo "match.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runner="$root/target/release/tengen-match"
# The shipped book for a rule and size (scripts/openings/<rule><size>.txt), or nothing.
default_book() {
    local r
    case "${1,,}" in
        freestyle|gomoku|0|5) r=freestyle ;;
        standard|exact|1|3) r=standard ;;
        renju|2|4|6|7) r=renju ;;
        caro|caro9|9) r=caro ;;
        *) return 0 ;;
    esac
    local f="$root/scripts/openings/$r$2.txt"
    if [[ -f "$f" ]]; then echo "$f"; fi
}
if [[ $build -eq 1 || ! -x "$runner" ]]; then
    (cd "$root" && cargo build --release --bins)
fi
if [[ -z "$conc" ]]; then
    cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
    conc=$(( cpus / 2 )); [[ $conc -lt 1 ]] && conc=1
fi
out="${out:-$root/target/match/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
name_of() { local w=${1%% *}; basename "$w"; }
na=$(name_of "$a") nb=$(name_of "$b")
[[ "$na" == "$nb" ]] && { na="$na-A"; nb="$nb-B"; }
args=(--engine "cmd=$a" "name=$na" --engine "cmd=$b" "name=$nb" --each "tc=$tc"
      --rule "$rule" --size "$size" --games "$games" --concurrency "$conc"
      --records "$out" --json "$out/summary.json")
if [[ -z "$openings" && $random -eq 0 ]]; then openings=$(default_book "$rule" "$size"); fi
[[ -n "$openings" ]] && args+=(--openings "$openings")
[[ -n "$seed" ]] && args+=(--seed "$seed")
echo "records: $out" >&2
echo "openings: ${openings:-random}" >&2
exec "$runner" "${args[@]}" "${extra[@]}"
