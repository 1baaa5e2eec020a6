#!/usr/bin/env bash
# Limits: peak memory under INFO max_memory (long thinking, every hash size, two threads), a tiny
# max_memory, time_left near zero, and no file written outside INFO folder.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/limits.sh [options]

Drives target/release/pbrain-tengen through the pbrain protocol (CR LF, as GomocupJudge) and
checks the tournament limits, printing one line per check with its figures:

  think      INFO max_memory 367001600 and long thinking (15x15 renju, 20x20 freestyle, several
             moves): peak RSS (VmHWM from /proc/<pid>/status) below max_memory, every move legal
             and within timeout_turn + 1 s.
  hash       INFO hash_size at several sizes up to and beyond the maximum (1 GB) under the same
             max_memory, the table filled by thinking and touched whole by YXHASHCLEAR; and
             INFO thread_num 2: peak RSS below max_memory.
  tiny       INFO max_memory 1048576: an ERROR line at the next move command, and still a legal
             move.
  time_left  INFO time_left 50, 0 and -100 with timeout_turn 5000: a legal move within 300 ms.
  disk       every engine runs in an empty working directory with INFO folder elsewhere; nothing
             may appear in the working directory; with strace, no file is opened for writing,
             created, renamed or removed anywhere (except /dev/null and INFO folder).

Options:
  --quick          shorter thinking (2 s moves, fewer moves): about a minute
  --engine PATH    engine to check                 (default target/release/pbrain-tengen)
  --no-build       do not run cargo build
  --no-strace      skip the strace run
  -h, --help       this text
USAGE
}

quick=0 engine="" build=1 use_strace=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) quick=1; shift ;;
        --engine) engine="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --no-strace) use_strace=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "limits.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
engine="${engine:-target/release/pbrain-tengen}"
if [[ $build -eq 1 && "$engine" == target/release/pbrain-tengen ]]; then
    cargo build --release --bin pbrain-tengen
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tengen-limits.XXXXXX")
cwd="$work/cwd"        # the engine's working directory: must stay empty
folder="$work/folder"  # INFO folder: the only place the engine may write
mkdir -p "$cwd" "$folder" "$work/bin"
# A snapshot of the binary, so a rebuild during the run cannot change it.
cp "$engine" "$work/bin/pbrain-tengen"
bin="$work/bin/pbrain-tengen"

MAXMEM=367001600
TOL_MS=1000
fails=0
report=()

now_ms() { date +%s%3N; }
note() { echo "$*"; report+=("$*"); }
fail() { echo "FAIL: $*"; report+=("FAIL: $*"); fails=$((fails + 1)); }

# ----- the engine process ------------------------------------------------------------------------

eng_pid=""
start_engine() {  # [wrapper command...]
    coproc ENG { cd "$cwd" && exec "$@" "$bin" 2>>"$work/stderr.txt"; }
    eng_pid=$ENG_PID
    declare -gA occ=()
    size_w=0 size_h=0
}

send() { printf '%s\r\n' "$*" >&"${ENG[1]}"; }

# Reads one line into LINE within $1 ms; returns 1 at the deadline or at end of output.
readl() {
    local s
    s=$(awk -v ms="$1" 'BEGIN { if (ms < 1) ms = 1; printf "%.3f", ms / 1000 }')
    if IFS= read -r -t "$s" LINE <&"${ENG[0]}"; then
        LINE=${LINE%$'\r'}
        return 0
    fi
    return 1
}

expect_ok() {
    if ! readl 3000 || [[ "$LINE" != OK ]]; then
        fail "$1: expected OK, got '${LINE:-nothing}'"
    fi
}

# Peak resident set of the engine in kB (VmHWM), read while it runs.
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$eng_pid/status" 2>/dev/null || echo 0; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$eng_pid/status" 2>/dev/null || echo 0; }

# Sends a move command and waits for the move: MESSAGE/DEBUG skipped, ERROR lines kept in
# ERRORS. Sets MOVE and MOVE_MS; checks the move is on the board and on an empty point.
ERRORS=()
move() {  # label command limit_ms
    local label="$1" cmd="$2" limit="$3" t0 left
    ERRORS=()
    MOVE=""
    send "$cmd"
    t0=$(now_ms)
    while :; do
        left=$((t0 + limit + TOL_MS + 5000 - $(now_ms)))
        if [[ $left -le 0 ]] || ! readl "$left"; then
            fail "$label: no move within $((limit + TOL_MS + 5000)) ms after '$cmd'"
            MOVE_MS=$(( $(now_ms) - t0 ))
            return 1
        fi
        case "$LINE" in
            MESSAGE*|DEBUG*) continue ;;
            ERROR*) ERRORS+=("$LINE"); continue ;;
        esac
        break
    done
    MOVE_MS=$(( $(now_ms) - t0 ))
    if ! [[ "$LINE" =~ ^([0-9]+),([0-9]+)$ ]]; then
        fail "$label: '$LINE' is not a move (after '$cmd')"
        return 1
    fi
    local x=${BASH_REMATCH[1]} y=${BASH_REMATCH[2]}
    if (( x >= size_w || y >= size_h )); then
        fail "$label: move $x,$y is off the ${size_w}x${size_h} board"
    elif [[ -n "${occ[$x,$y]:-}" ]]; then
        fail "$label: move $x,$y is on an occupied point"
    fi
    occ[$x,$y]=1
    MOVE="$x,$y"
    if (( MOVE_MS > limit + TOL_MS )); then
        fail "$label: move after $MOVE_MS ms, limit $limit ms + $TOL_MS ms tolerance"
    fi
    return 0
}

# A free point near $1 (x,y) for the opponent's TURN.
opponent_point() {
    local x=${1%,*} y=${1#*,} d dx dy nx ny
    for d in 1 2 3 4 5 6 7 8; do
        for dy in $(seq -"$d" "$d"); do
            for dx in $(seq -"$d" "$d"); do
                nx=$((x + dx)) ny=$((y + dy))
                if (( nx >= 0 && ny >= 0 && nx < size_w && ny < size_h )) && [[ -z "${occ[$nx,$ny]:-}" ]]; then
                    occ[$nx,$ny]=1
                    echo "$nx,$ny"
                    return
                fi
            done
        done
    done
}

start_game() {  # w h label
    size_w=$1 size_h=$2
    if [[ $1 == "$2" ]]; then send "START $1"; else send "RECTSTART $1,$2"; fi
    expect_ok "$3"
}

# END: the process must exit within 1 s with status 0.
end_engine() {  # label
    local label="$1" t0 st
    send "END"
    t0=$(now_ms)
    while kill -0 "$eng_pid" 2>/dev/null; do
        if (( $(now_ms) - t0 > 1000 )); then
            fail "$label: no exit within 1 s of END"
            kill "$eng_pid" 2>/dev/null || true
            break
        fi
        sleep 0.01
    done
    set +e
    wait "$eng_pid" 2>/dev/null
    st=$?
    set -e
    if [[ $st -ne 0 ]]; then
        fail "$label: exit status $st after END"
    fi
}

# Plays BEGIN and then TURNs next to the engine's moves: $3 engine moves at limit $2 ms.
play_moves() {  # label limit moves
    local label="$1" limit="$2" n="$3" i p
    local times=()
    move "$label" BEGIN "$limit" || return 1
    times+=("$MOVE_MS")
    for ((i = 1; i < n; i++)); do
        p=$(opponent_point "$MOVE")
        move "$label" "TURN $p" "$limit" || return 1
        times+=("$MOVE_MS")
    done
    MOVE_TIMES="${times[*]}"
}

check_peak() {  # label peak_kb
    local mb
    mb=$(awk -v k="$2" 'BEGIN { printf "%.1f", k / 1024 }')
    if (( $2 * 1024 >= MAXMEM )); then
        fail "$1: peak RSS $mb MB >= max_memory $((MAXMEM >> 20)) MB"
    else
        note "$1: peak RSS $mb MB < max_memory $((MAXMEM >> 20)) MB ($(awk -v k="$2" -v m="$MAXMEM" 'BEGIN { printf "%.0f", k * 102400 / m }')%)"
    fi
}

echo "limits.sh: $bin, work dir $work"
echo "load before: $(uptime)"
t_start=$(now_ms)

# ----- think: long thinking under the Gomocup memory limit ---------------------------------------

if [[ $quick -eq 1 ]]; then
    think_plan=("15 15 4 2000 3" "20 20 0 2000 3")
else
    think_plan=("15 15 4 5000 6" "20 20 0 10000 4")
fi
for plan in "${think_plan[@]}"; do
    read -r w h rule turn n <<<"$plan"
    label="think ${w}x${h} rule $rule timeout_turn $turn"
    start_engine
    send "INFO max_memory $MAXMEM"
    send "INFO timeout_turn $turn"
    send "INFO timeout_match 1000000"
    send "INFO time_left 1000000"
    send "INFO rule $rule"
    send "INFO game_type 3"
    send "INFO folder $folder"
    start_game "$w" "$h" "$label"
    if play_moves "$label" "$turn" "$n"; then
        peak=$(hwm_kb)
        note "$label: $n moves in ms: $MOVE_TIMES"
        check_peak "$label" "$peak"
    fi
    end_engine "$label"
done

# ----- hash: every table size under the same limit, the table touched whole ---------------------

if [[ $quick -eq 1 ]]; then
    hash_sizes="65536 1048576"
    hash_turn=1000
else
    hash_sizes="16384 65536 262144 524288 1048576 2097152 9223372036854775807"
    hash_turn=3000
fi
for kb in $hash_sizes; do
    label="hash_size $kb KB"
    start_engine
    send "INFO max_memory $MAXMEM"
    send "INFO hash_size $kb"
    send "INFO timeout_turn $hash_turn"
    start_game 15 15 "$label"
    if play_moves "$label" "$hash_turn" 3; then
        # YXHASHCLEAR writes every word of the table: all its pages become resident.
        send "YXHASHCLEAR"
        readl 10000 || fail "$label: no answer to YXHASHCLEAR"
        p=$(opponent_point "$MOVE")
        move "$label" "TURN $p" "$hash_turn" || true
        check_peak "$label" "$(hwm_kb)"
    fi
    end_engine "$label"
done

label="thread_num 2, hash_size 1048576 KB"
start_engine
send "INFO max_memory $MAXMEM"
send "INFO thread_num 2"
send "INFO hash_size 1048576"
send "INFO timeout_turn $hash_turn"
start_game 20 20 "$label"
if play_moves "$label" "$hash_turn" 3; then
    send "YXHASHCLEAR"
    readl 10000 || fail "$label: no answer to YXHASHCLEAR"
    check_peak "$label" "$(hwm_kb)"
fi
end_engine "$label"

# ----- tiny: max_memory 1 MB ---------------------------------------------------------------------

label="max_memory 1048576"
start_engine
send "START 15"
size_w=15 size_h=15
expect_ok "$label"
send "INFO max_memory 1048576"
send "INFO timeout_turn 500"
if move "$label" BEGIN 500; then
    if [[ ${#ERRORS[@]} -ge 1 ]]; then
        note "$label: BEGIN got '${ERRORS[0]}', then the legal move $MOVE after $MOVE_MS ms"
    else
        fail "$label: no ERROR line before the move to BEGIN"
    fi
    p=$(opponent_point "$MOVE")
    if move "$label" "TURN $p" 500; then
        note "$label: TURN got ${#ERRORS[@]} ERROR line(s), then the legal move $MOVE after $MOVE_MS ms; peak RSS $(( $(hwm_kb) / 1024 )) MB"
    fi
fi
end_engine "$label"

# ----- time_left near zero -----------------------------------------------------------------------

label="time_left near zero"
start_engine
send "INFO timeout_turn 5000"
send "INFO timeout_match 180000"
send "INFO max_memory $MAXMEM"
start_game 15 15 "$label"
first=1
line_out=""
for tl in 50 0 -100 -2147483648; do
    send "INFO time_left $tl"
    if [[ $first -eq 1 ]]; then
        cmd=BEGIN
        first=0
    else
        cmd="TURN $(opponent_point "$MOVE")"
    fi
    if move "$label" "$cmd" 300; then
        line_out+=" time_left $tl: $MOVE after $MOVE_MS ms;"
        if (( MOVE_MS > 300 )); then
            fail "$label: time_left $tl: move after $MOVE_MS ms"
        fi
    fi
done
note "$label (timeout_turn 5000):$line_out"
end_engine "$label"

# ----- disk: nothing written outside INFO folder -------------------------------------------------

if [[ $use_strace -eq 1 ]] && command -v strace >/dev/null; then
    label="strace"
    trace="$work/strace.txt"
    start_engine strace -f -qq -o "$trace" -e trace=open,openat,openat2,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,truncate,ftruncate,link,linkat,symlink,symlinkat --
    send "INFO max_memory $MAXMEM"
    send "INFO timeout_turn 300"
    send "INFO folder $folder"
    send "INFO rule 4"
    start_game 15 15 "$label"
    play_moves "$label" 2000 5 || true
    send "YXHASHCLEAR"
    readl 5000 || true
    send "ABOUT"
    readl 5000 || true
    end_engine "$label"
    # Writes: creat/mkdir/rename/unlink/link/truncate of anything, or an open for writing or
    # creating, except /dev/null, /dev/tty and INFO folder.
    writes=$(grep -E 'creat\(|mkdir|rename|unlink|truncate|link\(|linkat|symlink|O_WRONLY|O_RDWR|O_CREAT' "$trace" \
        | grep -v -E '"/dev/null"|"/dev/tty"' | grep -v -F "$folder" | grep -v -F 'ERESTART' || true)
    opens=$(grep -c -E 'open' "$trace" || true)
    if [[ -n "$writes" ]]; then
        fail "$label: the engine wrote to disk:"
        echo "$writes" | head -20 | sed 's/^/    /'
    else
        note "$label: $opens file opens traced (15x15 renju, 5 moves, YXHASHCLEAR, ABOUT, END), none for writing, no file created, renamed or removed"
    fi
fi

left=$(find "$cwd" -mindepth 1 | head -20)
if [[ -n "$left" ]]; then
    fail "disk: files appeared in the engine's working directory: $left"
else
    note "disk: the working directory of every engine run is still empty"
fi
in_folder=$(find "$folder" -mindepth 1 | wc -l)
note "disk: $in_folder entries under INFO folder (allowed, none needed)"
if [[ -s "$work/stderr.txt" ]]; then
    if grep -q panicked "$work/stderr.txt"; then
        fail "stderr shows a panic: $(grep -m1 panicked "$work/stderr.txt")"
    fi
    note "stderr (first lines): $(head -c 300 "$work/stderr.txt" | tr '\n' '|')"
fi

t_end=$(now_ms)
echo "load after: $(uptime)"
echo
echo "limits.sh summary ($(( (t_end - t_start) / 1000 )) s, load $(cut -d' ' -f1-3 /proc/loadavg)):"
for r in "${report[@]}"; do echo "  $r"; done
if [[ $fails -gt 0 ]]; then
    echo "limits.sh: $fails check(s) FAILED (work dir kept: $work)"
    exit 1
fi
rm -rf "$work"
echo "limits.sh: all checks passed"
