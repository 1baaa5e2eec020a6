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
by a fault (or a renju foul, which a correct engine never commits). Replies are read as strictly
as Piskvork reads them (tengen-match --strict): any line that is not a move, MESSAGE or DEBUG
while a move is awaited is a fault.

Options:
  --games N        games in total                      (default 200)
  --turn-ms MS     time per move in milliseconds       (default 100)
  --match-s S      time per game in seconds            (default 120)
  --concurrency N  games at once                       (default 2)
  --rules "R ..."  rules                               (default "freestyle standard renju caro")
  --sizes "N ..."  board sizes                         (default "15 20")
  --tolerance MS   timeout tolerance                   (default 1000)
  --max-memory B   INFO max_memory of both engines     (default 367001600); the peak RSS of
                   the engine processes (VmHWM, sampled every 0.2 s) is reported against it
  --out DIR        records, logs and JSON summaries    (default target/soak)
  --engine PATH    engine to soak                      (default target/release/pbrain-tengen)
  --seed N         seed                                (default 1)
  --log            keep the protocol log of every game (default: only faulty games)
  --book           use the shipped book scripts/openings/<rule><size>.txt where there is one
                   (default: random 2-4 stone openings, which vary more)
  --no-build       do not run cargo build
  -h, --help       this text
USAGE
}

games=200 turn_ms=100 match_s=120 conc=2 rules="freestyle standard renju caro" sizes="15 20"
tol=1000 out="" engine="" seed=1 build=1 log="" book=0
maxmem=367001600
while [[ $# -gt 0 ]]; do
    case "$1" in
        --games) games="$2"; shift 2 ;;
        --turn-ms) turn_ms="$2"; shift 2 ;;
        --match-s) match_s="$2"; shift 2 ;;
        --concurrency) conc="$2"; shift 2 ;;
        --rules) rules="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --tolerance) tol="$2"; shift 2 ;;
        --max-memory) maxmem="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --log) log=--log; shift ;;
        --book) book=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "soak.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# The shipped book for a rule and size (scripts/openings/<rule><size>.txt), or nothing.
default_book() {
    local r
    case "${1,,}" in
        freestyle|gomoku|0) r=freestyle ;;
        standard|exact|1|3) r=standard ;;
        renju|2|4|5|6|7) r=renju ;;
        caro|caro9|9) r=caro ;;
        *) return 0 ;;
    esac
    local f="$root/scripts/openings/$r$2.txt"
    if [[ -f "$f" ]]; then echo "$f"; fi
}
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

# Peak resident memory (VmHWM, kB) of the engine processes tengen-match (pid $1) runs, sampled
# until it exits; VmHWM only grows, so the last sample of each process is its peak so far.
sample_peak_kb() {
    local peak=0 v pids
    while kill -0 "$1" 2>/dev/null; do
        pids=$(pgrep -P "$1" 2>/dev/null || true)
        if [[ -n "$pids" ]]; then
            v=$(for p in $pids; do cat "/proc/$p/status" 2>/dev/null; done \
                | awk '/^VmHWM:/ { if ($2 > m) m = $2 } END { print m + 0 }')
            if [[ $v -gt $peak ]]; then peak=$v; fi
        fi
        sleep 0.2
    done
    echo "$peak"
}
declare -A kind_total=()
peak_total_kb=0

start=$(date +%s.%N)
total_games=0 total_faults=0 total_fouls=0 worst_frac=0 worst_desc="-"
printf '%-10s %4s %6s %8s %7s %6s %6s %7s  %s\n' rule size games "W-L-D" faults fouls wall "RSS MB" "slowest reply vs limit"
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
        openings=()
        if [[ $book -eq 1 ]]; then
            f=$(default_book "$rule" "$size")
            [[ -n "$f" ]] && openings=(--openings "$f")
        fi
        set +e
        "$runner" \
            --engine "cmd=$engine" name=A --engine "cmd=$engine" name=B \
            --each "tc=$match_s/$turn_s" "memory=$maxmem" --rule "$rule" --size "$size" --games "$n" \
            --concurrency "$conc" --tolerance "$tol" --seed "$seed" --strict \
            --records "$out/$tag" --json "$json" $log "${openings[@]}" >"$out/$tag.txt" 2>"$out/$tag.err" &
        rpid=$!
        peak_kb=$(sample_peak_kb "$rpid")
        wait "$rpid"
        rc=$?
        if [[ $peak_kb -gt $peak_total_kb ]]; then peak_total_kb=$peak_kb; fi
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
        printf '%-10s %4s %6s %8s %7s %6s %6.0fs %7.1f  %s\n' "$rule" "$size" "$g" "$w-$l-$d" "$f" "$fouls" "$wall" \
            "$(awk -v k="$peak_kb" 'BEGIN { print k / 1024 }')" "$desc"
        # Faults by kind, both engines.
        while read -r k v; do
            kind_total[$k]=$(( ${kind_total[$k]:-0} + v ))
        done < <(grep -o '"faults": {[^}]*}' "$json" | grep -o '"[a-z_]*": [0-9]*' \
            | tr -d '":' | awk '$1 != "faults"')
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
kinds=""
for k in $(printf '%s\n' "${!kind_total[@]}" | sort); do kinds+=" $k ${kind_total[$k]},"; done
echo "faults by kind:${kinds%,}"
over_memory=$(( peak_total_kb * 1024 >= maxmem ))
echo "peak RSS of an engine process: $(awk -v k="$peak_total_kb" -v m="$maxmem" 'BEGIN { printf "%.1f MB = %.0f%% of max_memory %d (%.0f MB)", k / 1024, k * 102400 / m, m, m / 1048576 }')$([[ $over_memory -eq 1 ]] && echo ' OVER THE LIMIT')"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "records and protocol logs of faulty games: $out/"
if [[ $total_faults -gt 0 || $total_fouls -gt 0 || $over_memory -eq 1 ]]; then
    exit 1
fi
