#!/usr/bin/env bash
# Soak test: many self-play games of Tengen through the pbrain protocol over several rules and
# board sizes; fails if any game ends by a fault (timeout, crash, illegal move, ERROR).
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/soak.sh [options]

Builds release, then plays target/release/pbrain-tengen against itself with tengen-match over
every (rule, size) combination, splitting the games evenly, and prints per-combination and total
fault counts, the slowest reply against its limit, and the wall time. Exits 1 if any game ended
by a fault (or a renju foul, which a correct engine never commits).

Options:
  --games N        games in total                      (default 200)
  --turn-ms MS     time per move in milliseconds       (default 100)
  --match-s S      time per game in seconds            (default 120)
  --concurrency N  games at once                       (default 2)
  --rules "R ..."  rules                               (default "freestyle standard renju caro")
  --sizes "N ..."  board sizes                         (default "15 20")
  --tolerance MS   timeout tolerance                   (default 1000)
  --out DIR        records, logs and JSON summaries    (default target/soak)
  --engine PATH    engine to soak                      (default target/release/pbrain-tengen)
  --seed N         seed                                (default 1)
  --log            keep the protocol log of every game (default: only faulty games)
  --no-build       do not run cargo build
  -h, --help       this text
USAGE
}

games=200 turn_ms=100 match_s=120 conc=2 rules="freestyle standard renju caro" sizes="15 20"
tol=1000 out="" engine="" seed=1 build=1 log=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --games) games="$2"; shift 2 ;;
        --turn-ms) turn_ms="$2"; shift 2 ;;
        --match-s) match_s="$2"; shift 2 ;;
        --concurrency) conc="$2"; shift 2 ;;
        --rules) rules="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --tolerance) tol="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --log) log=--log; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "soak.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${out:-target/soak}"
engine="${engine:-target/release/pbrain-tengen}"
if [[ $build -eq 1 ]]; then
    cargo build --release --bins
fi
mkdir -p "$out/bin"
# Snapshot the binaries so a rebuild during the soak cannot change or remove them mid-run.
cp "$engine" "$out/bin/$(basename "$engine")"
cp target/release/tengen-match "$out/bin/tengen-match"
engine="$out/bin/$(basename "$engine")"
runner="$out/bin/tengen-match"

read -r -a rule_list <<<"$rules"
read -r -a size_list <<<"$sizes"
combos=$(( ${#rule_list[@]} * ${#size_list[@]} ))
base=$(( games / combos ))
extra=$(( games % combos ))
turn_s=$(awk -v ms="$turn_ms" 'BEGIN { printf "%.3f", ms / 1000 }')

# Reads a number field from our own one-line-per-field JSON.
jnum() { grep -o "\"$2\": [-0-9.na-z]*" "$1" | head -n1 | awk '{print $2}'; }

start=$(date +%s.%N)
total_games=0 total_faults=0 total_fouls=0 worst_frac=0 worst_desc="-"
printf '%-10s %4s %6s %8s %7s %6s %6s  %s\n' rule size games "W-L-D" faults fouls wall "slowest reply vs limit"
i=0
for rule in "${rule_list[@]}"; do
    for size in "${size_list[@]}"; do
        n=$base
        if [[ $i -lt $extra ]]; then n=$((n + 1)); fi
        i=$((i + 1))
        [[ $n -eq 0 ]] && continue
        tag="$rule-$size"
        json="$out/$tag.json"
        rm -f "$json"
        set +e
        "$runner" \
            --engine "cmd=$engine" name=A --engine "cmd=$engine" name=B \
            --each "tc=$match_s/$turn_s" --rule "$rule" --size "$size" --games "$n" \
            --concurrency "$conc" --tolerance "$tol" --seed "$seed" \
            --records "$out/$tag" --json "$json" $log >"$out/$tag.txt" 2>"$out/$tag.err"
        rc=$?
        set -e
        if [[ $rc -ne 0 || ! -s "$json" ]]; then
            echo "soak.sh: tengen-match failed for $tag (exit $rc); see $out/$tag.err" >&2
            total_faults=$((total_faults + 1))
            continue
        fi
        g=$(jnum "$json" games)
        f=$(jnum "$json" faults_total)
        fouls=$(grep -o '"fouls": [0-9]*' "$json" | awk '{s += $2} END {print s + 0}')
        w=$(jnum "$json" wins) l=$(jnum "$json" losses) d=$(jnum "$json" draws)
        wall=$(jnum "$json" wall_s)
        # Slowest reply of either engine, relative to its limit.
        slow=$(grep -o '"slowest_fraction": [0-9.]*, "slowest_ms": [0-9.]*, "slowest_limit_ms": [0-9.]*, "slowest_game": [0-9]*' "$json" \
            | awk -F'[:,]' '{ if ($2 + 0 >= best) { best = $2 + 0; line = sprintf("%.0f/%.0f ms = %.0f%% (game %d)", $4, $6, $2 * 100, $8) } }
                            END { printf "%s|%.4f\n", line, best }')
        frac=${slow##*|}
        desc=${slow%|*}
        printf '%-10s %4s %6s %8s %7s %6s %6.0fs  %s\n' "$rule" "$size" "$g" "$w-$l-$d" "$f" "$fouls" "$wall" "$desc"
        total_games=$((total_games + g))
        total_faults=$((total_faults + f))
        total_fouls=$((total_fouls + fouls))
        if awk -v a="$frac" -v b="$worst_frac" 'BEGIN { exit !(a > b) }'; then
            worst_frac=$frac
            worst_desc="$desc in $tag"
        fi
        if [[ $f -gt 0 ]]; then
            grep -h "^FAULT" "$out/$tag.err" | sed 's/^/    /' || true
        fi
    done
done
end=$(date +%s.%N)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
echo "TOTAL: $total_games games, $total_faults faults, $total_fouls renju fouls, slowest reply $worst_desc, wall ${wall}s (turn ${turn_ms} ms, match ${match_s} s, concurrency $conc)"
echo "records and protocol logs of faulty games: $out/"
if [[ $total_faults -gt 0 || $total_fouls -gt 0 ]]; then
    exit 1
fi
