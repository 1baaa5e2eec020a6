#!/usr/bin/env bash
# Proves the Windows build works: runs the .exe files under Wine.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/test-windows.sh [options]

Runs the Windows executables of scripts/build-windows.sh under Wine (Debian's wine / wine64,
installed with apt-get if missing, which the script says first) and checks that they behave like
the Linux build:

  1. protocol: ABOUT, START, INFO, BEGIN, TURN, BOARD (a win to take, a four to block),
     RECTSTART, an unknown command and END, with CR LF line ends, through each .exe;
  2. transcripts: the 53 protocol-tests/ transcripts and the timing tests of tests/protocol.rs
     with TENGEN_PROTOCOL_ENGINE set to the baseline .exe under Wine (--no-transcripts skips);
  3. bench: `pbrain-tengen bench` node counts of the Linux binary, pbrain-tengen.exe and
     pbrain-tengen64-avx2.exe must be identical;
  4. startup: START-to-first-move wall time of each build (median and max of --runs runs):
     BEGIN at timeout_turn 0, BOARD at timeout_turn 100, BEGIN at Gomocup settings
     (timeout_turn 5000, max_memory 367001600) with max_depth 1, and one real 5 s Gomocup move
     with its peak memory;
  5. match: target/release/tengen-match plays the baseline .exe (under Wine) against the Linux
     build for --games games, and the AVX2 .exe against it for --avx2-games games; any fault
     (timeout, crash, illegal move, error) fails the test.

If Wine lacks a DLL that Rust's std imports (bcryptprimitives.dll, missing before Wine 9), a
test-only stub is built into the temporary directory next to copies of the .exe files; it is
never put in a package.

Options:
  --games N        games of the baseline .exe against Linux (default 4)
  --avx2-games N   games of the AVX2 .exe against Linux (default 2)
  --turn-ms MS     time per move in the match (default 1000)
  --match-s S      time per game in the match (default 60)
  --runs N         repetitions of each startup measurement (default 5)
  --no-transcripts skip step 2 (it builds the protocol test with cargo)
  --no-match       skip step 5
  --no-build       use the binaries already in target/release and target/windows
  -h, --help       this text
USAGE
}

games=4 avx2_games=2 turn_ms=1000 match_s=60 runs=5 transcripts=1 match=1 build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --games) games="$2"; shift 2 ;;
        --avx2-games) avx2_games="$2"; shift 2 ;;
        --turn-ms) turn_ms="$2"; shift 2 ;;
        --match-s) match_s="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --no-transcripts) transcripts=0; shift ;;
        --no-match) match=0; shift ;;
        --no-build) build=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "test-windows.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
root=$(pwd)
say() { echo "test-windows.sh: $*"; }
fail=0
failed() { echo "test-windows.sh: FAILED: $*" >&2; fail=1; }

# --- Wine ------------------------------------------------------------------------------------
need=()
for pkg in wine wine64; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || need+=("$pkg")
done
if [[ ${#need[@]} -gt 0 ]]; then
    say "installing Debian packages with apt-get: ${need[*]}"
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
command -v python3 >/dev/null || { echo "test-windows.sh: needs python3" >&2; exit 1; }

# --- binaries --------------------------------------------------------------------------------
if [[ $build -eq 1 ]]; then
    cargo build --release --locked --bin pbrain-tengen --bin tengen-match
    scripts/build-windows.sh
fi
linux_bin="$root/target/release/pbrain-tengen"
match_bin="$root/target/release/tengen-match"
for f in "$linux_bin" "$match_bin" target/windows/pbrain-tengen.exe target/windows/pbrain-tengen64-avx2.exe; do
    [[ -f "$f" ]] || { echo "test-windows.sh: $f is missing (run without --no-build)" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/tengen-wine.XXXXXX)
export WINEPREFIX="$tmp/prefix" WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
cleanup() {
    wineserver -k >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# The tests run copies of the exes, so a stub DLL can sit next to them outside target/.
win="$tmp/win"
mkdir -p "$win"
cp target/windows/pbrain-tengen.exe target/windows/pbrain-tengen64-avx2.exe "$win/"
base_exe="$win/pbrain-tengen.exe"
avx2_exe="$win/pbrain-tengen64-avx2.exe"

say "$(wine --version); creating a Wine prefix in $WINEPREFIX"
wineboot -i >/dev/null 2>&1 || true
# A persistent server keeps Wine's system processes (services.exe, ...) running between engine
# starts, as Windows does; without it the first start after an idle spell pays about 1 s for
# starting them again. The warm-up start below pays that once, outside any measurement.
wineserver -k >/dev/null 2>&1 || true
wineserver -p >/dev/null 2>&1 || true
t0=$(date +%s%N)
wine "$base_exe" --help >/dev/null 2>&1 || failed "pbrain-tengen.exe --help does not run under Wine"
say "Wine warm-up start took $(( ($(date +%s%N) - t0) / 1000000 )) ms"

wine_dlls=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows
imports=$(for e in "$base_exe" "$avx2_exe"; do x86_64-w64-mingw32-objdump -p "$e" 2>/dev/null || objdump -p "$e"; done |
    sed -n 's/^\s*DLL Name: //p' | tr 'A-Z' 'a-z' | sort -u)
say "imported DLLs: $(echo $imports)"
for d in $imports; do
    case "$d" in api-ms-win-*|ext-ms-win-*) continue ;; esac   # API sets, resolved by Wine itself
    found=$(find "$wine_dlls" "$WINEPREFIX/drive_c/windows/system32" -maxdepth 1 -iname "$d" 2>/dev/null || true)
    [[ -n "$found" ]] && continue
    if [[ "$d" == bcryptprimitives.dll ]]; then
        say "this Wine has no bcryptprimitives.dll: building a test-only stub (ProcessPrng via RtlGenRandom) in $win"
        cat > "$tmp/bcryptprimitives.c" <<'EOF'
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom, advapi32 */
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
EOF
        x86_64-w64-mingw32-gcc -shared -O2 -o "$win/bcryptprimitives.dll" "$tmp/bcryptprimitives.c" -ladvapi32
    else
        failed "Wine has no $d, which the exe imports"
    fi
done

# --- the Python driver for protocol checks and timing ---------------------------------------
cat > "$tmp/drive.py" <<'PY'
import os, queue, statistics, subprocess, sys, threading, time

class Engine:
    def __init__(self, argv):
        self.t_spawn = time.monotonic()
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, bufsize=0, cwd=os.environ.get("DRIVE_CWD"))
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.log = []

    def _read(self):
        buf = b""
        while True:
            chunk = self.p.stdout.read1(65536) if hasattr(self.p.stdout, "read1") else self.p.stdout.read(1)
            if not chunk:
                self.q.put((None, time.monotonic()))
                return
            buf += chunk
            while True:
                i = buf.find(b"\n")
                if i < 0:
                    break
                line, buf = buf[:i].rstrip(b"\r").decode("utf-8", "replace"), buf[i + 1:]
                self.q.put((line, time.monotonic()))

    def send(self, *lines):
        data = "".join(l + "\r\n" for l in lines).encode()
        self.log.extend("> " + l for l in lines)
        self.p.stdin.write(data)
        self.p.stdin.flush()
        return time.monotonic()

    def reply(self, timeout=10.0):
        """Next line that is not MESSAGE/DEBUG; (line, time) or raises."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise RuntimeError("no reply within %.1f s" % timeout)
            try:
                line, t = self.q.get(timeout=left)
            except queue.Empty:
                raise RuntimeError("no reply within %.1f s" % timeout)
            if line is None:
                raise RuntimeError("engine closed its output")
            self.log.append("< " + line)
            if line.split(" ", 1)[0].upper() in ("MESSAGE", "DEBUG"):
                continue
            return line, t

    def peak_kb(self):
        try:
            with open("/proc/%d/status" % self.p.pid) as f:
                for l in f:
                    if l.startswith("VmHWM:"):
                        return int(l.split()[1])
        except OSError:
            return None

    def close(self, timeout=5.0):
        try:
            self.send("END")
        except OSError:
            pass
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return None

def move(line, w, h, occupied):
    try:
        x, y = (int(v) for v in line.split(","))
    except ValueError:
        raise RuntimeError("not a move: %r" % line)
    if not (0 <= x < w and 0 <= y < h):
        raise RuntimeError("move %s off the %dx%d board" % (line, w, h))
    if (x, y) in occupied:
        raise RuntimeError("move %s on an occupied cell" % line)
    return (x, y)

def protocol(argv):
    e = Engine(argv)
    checks = []
    def check(name, ok, detail=""):
        checks.append(name)
        if not ok:
            raise RuntimeError("%s: %s" % (name, detail))
    try:
        e.send("ABOUT")
        l, _ = e.reply()
        check("ABOUT", l.startswith("name=") and "Tengen" in l, l)
        e.send("START 15")
        l, _ = e.reply()
        check("START 15 -> OK", l == "OK", l)
        e.send("INFO timeout_turn 1000", "INFO timeout_match 100000", "INFO max_memory 367001600",
               "INFO rule 0", "INFO game_type 1", "INFO time_left 100000", "BEGIN")
        occ = set()
        m = move(e.reply()[0], 15, 15, occ); occ.add(m)
        checks.append("BEGIN -> %d,%d" % m)
        opp = next((x, y) for (x, y) in [(0, 0), (1, 1), (14, 14)] if (x, y) not in occ)
        occ.add(opp)
        e.send("INFO time_left 99000", "TURN %d,%d" % opp)
        m = move(e.reply()[0], 15, 15, occ); occ.add(m)
        checks.append("TURN -> %d,%d" % m)
        # Own stones 7,7..7,10 (field 1), open at 7,6 and 7,11: the engine must win.
        e.send("BOARD", "7,7,1", "0,0,2", "7,8,1", "1,0,2", "7,9,1", "2,0,2", "7,10,1", "4,0,2", "DONE")
        l, _ = e.reply()
        check("BOARD: take the win", l in ("7,6", "7,11"), l)
        # The opponent (field 2) has a four 3,3..6,3 with 2,3 open: the engine must block.
        e.send("BOARD 3,3,2 9,9,1 4,3,2 9,10,1 5,3,2 12,12,1 6,3,2 7,3,1 DONE")
        l, _ = e.reply()
        check("BOARD (one line): block the four", l == "2,3", l)
        e.send("RECTSTART 20,15")
        l, _ = e.reply()
        check("RECTSTART 20,15 -> OK", l == "OK", l)
        e.send("BEGIN")
        m = move(e.reply()[0], 20, 15, set())
        checks.append("BEGIN on 20x15 -> %d,%d" % m)
        e.send("START 15", "INFO rule 4")
        l, _ = e.reply()
        check("START 15 (renju) -> OK", l == "OK", l)
        e.send("BOARD", "7,7,1", "8,8,2", "DONE")
        move(e.reply()[0], 15, 15, {(7, 7), (8, 8)})
        checks.append("renju BOARD -> move")
        e.send("FOO bar")
        l, _ = e.reply()
        check("unknown command -> UNKNOWN", l.upper().startswith("UNKNOWN"), l)
        t0 = e.send("END")
        try:
            rc = e.p.wait(5)
        except subprocess.TimeoutExpired:
            rc = None
        check("END -> exit 0", rc == 0, "exit status %r" % rc)
        checks.append("END exit after %.0f ms" % ((time.monotonic() - t0) * 1000))
    except Exception as ex:
        print("  FAIL after %s: %s" % (checks[-1] if checks else "start", ex))
        print("  I/O:\n    " + "\n    ".join(e.log[-30:]))
        e.p.kill()
        return 1
    print("  ok: " + "; ".join(checks))
    return 0

def timing(argv, runs):
    def measure(kind):
        if kind == "spawn+BEGIN t0":
            e = Engine(argv)
            t0 = e.t_spawn
        else:
            e = Engine(argv)
            e.send("ABOUT")
            e.reply(30)
            t0 = None
        if kind in ("spawn+BEGIN t0", "BEGIN t0"):
            t = e.send("START 15", "INFO timeout_turn 0", "BEGIN")
        elif kind == "BOARD t100":
            t = e.send("START 15", "INFO timeout_turn 100", "INFO timeout_match 100000",
                       "INFO time_left 100000", "BOARD", "7,7,2", "8,7,1", "8,8,2", "DONE")
        elif kind == "Gomocup BEGIN d1":
            t = e.send("START 15", "INFO timeout_turn 5000", "INFO timeout_match 120000",
                       "INFO max_memory 367001600", "INFO time_left 120000", "INFO max_depth 1", "BEGIN")
        elif kind == "Gomocup move 5s":
            t = e.send("START 15", "INFO timeout_turn 5000", "INFO timeout_match 120000",
                       "INFO max_memory 367001600", "INFO time_left 120000",
                       "BOARD", "7,7,2", "8,7,1", "8,8,2", "6,6,1", "9,9,2", "DONE")
        # OK, then the move
        l, _ = e.reply(30)
        if l != "OK":
            raise RuntimeError("%s: expected OK, got %r" % (kind, l))
        l, t1 = e.reply(30)
        move(l, 15, 15, set())
        peak = e.peak_kb()
        e.close()
        return (t1 - (t0 if t0 is not None else t)) * 1000, peak
    out = {}
    for kind, n in (("spawn+BEGIN t0", runs), ("BEGIN t0", runs), ("BOARD t100", runs),
                    ("Gomocup BEGIN d1", runs), ("Gomocup move 5s", 1)):
        vals = [measure(kind) for _ in range(n)]
        ms = [v[0] for v in vals]
        peaks = [v[1] for v in vals if v[1] is not None]
        out[kind] = (statistics.median(ms), max(ms), max(peaks) if peaks else None)
    return out

if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "protocol":
        sys.exit(protocol(sys.argv[2:]))
    if mode == "timing":
        runs = int(sys.argv[2])
        label = sys.argv[3]
        res = timing(sys.argv[4:], runs)
        for kind, (med, mx, peak) in res.items():
            pk = " peak %d MB" % (peak // 1024) if peak else ""
            print("  %-22s %-26s median %7.1f ms  max %7.1f ms%s" % (label, kind, med, mx, pk))
        sys.exit(0)
PY

export DRIVE_CWD="$tmp"

# --- 1. protocol -----------------------------------------------------------------------------
say "1. protocol exchanges"
for exe in "$base_exe" "$avx2_exe"; do
    echo " $(basename "$exe") under Wine:"
    python3 "$tmp/drive.py" protocol wine "$exe" || failed "protocol exchange with $(basename "$exe")"
done
echo " Linux pbrain-tengen:"
python3 "$tmp/drive.py" protocol "$linux_bin" || failed "protocol exchange with the Linux binary"

# --- 2. transcripts --------------------------------------------------------------------------
if [[ $transcripts -eq 1 ]]; then
    say "2. protocol-tests transcripts and timing tests through pbrain-tengen.exe under Wine"
    cat > "$tmp/pbrain-tengen-wine" <<EOF
#!/bin/sh
exec wine "$base_exe" "\$@"
EOF
    chmod +x "$tmp/pbrain-tengen-wine"
    if TENGEN_PROTOCOL_ENGINE="$tmp/pbrain-tengen-wine" cargo test --release --locked --test protocol \
        > "$tmp/transcripts.log" 2>&1; then
        grep -E '^test |test result' "$tmp/transcripts.log" | sed 's/^/  /'
    else
        grep -E '^test |test result|FAIL|panicked' "$tmp/transcripts.log" | head -n 60 | sed 's/^/  /'
        failed "protocol tests through the exe (log: rerun without cleanup to see $tmp/transcripts.log)"
        cp "$tmp/transcripts.log" "$root/target/windows/transcripts.log" 2>/dev/null &&
            say "full log copied to target/windows/transcripts.log"
    fi
fi

# --- 3. bench --------------------------------------------------------------------------------
say "3. bench node counts"
bench_nodes() { "$@" bench 2>/dev/null | tr -d '\r' | awk 'NF { last = $0 } END { print last }'; }
lb=$(bench_nodes "$linux_bin")
bb=$(bench_nodes wine "$base_exe")
ab=$(bench_nodes wine "$avx2_exe")
printf '  %-34s %s\n' "Linux pbrain-tengen:" "$lb" "pbrain-tengen.exe (Wine):" "$bb" "pbrain-tengen64-avx2.exe (Wine):" "$ab"
ln=${lb%% *} bn=${bb%% *} an=${ab%% *}
if [[ -n "$ln" && "$ln" == "$bn" && "$ln" == "$an" ]]; then
    echo "  identical: $ln nodes"
else
    failed "bench node counts differ: Linux '$ln', baseline '$bn', AVX2 '$an'"
fi

# --- 4. startup ------------------------------------------------------------------------------
say "4. START-to-first-move wall time ($runs runs; 'spawn+' includes starting the process)"
python3 "$tmp/drive.py" timing "$runs" "Linux" "$linux_bin" || failed "timing of the Linux binary"
python3 "$tmp/drive.py" timing "$runs" "exe (Wine)" wine "$base_exe" || failed "timing of pbrain-tengen.exe"
python3 "$tmp/drive.py" timing "$runs" "avx2 exe (Wine)" wine "$avx2_exe" || failed "timing of pbrain-tengen64-avx2.exe"

# --- 5. match --------------------------------------------------------------------------------
run_match() { # exe name games
    local exe=$1 name=$2 n=$3 json="$tmp/$2.json"
    [[ $n -gt 0 ]] || return 0
    say "5. match: $name (Wine) vs linux, $n games, ${match_s} s/game + $turn_ms ms/move"
    local tc
    tc=$(awk -v m="$match_s" -v t="$turn_ms" 'BEGIN { print m "/" t / 1000 }')
    if ! "$match_bin" --engine "cmd=wine $exe" name="$name" dir="$tmp" \
        --engine "cmd=$linux_bin" name=linux \
        --each tc="$tc" --games "$n" --records "$tmp/records-$name" --json "$json" \
        > "$tmp/$name.match.log" 2>&1; then
        tail -n 20 "$tmp/$name.match.log" | sed 's/^/  /'
        failed "tengen-match $name vs linux exited with an error"
        return 0
    fi
    sed 's/^/  /' "$tmp/$name.match.log" | tail -n 40
    if ! python3 - "$json" "$n" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ok = s["faults_total"] == 0 and s["games"] == int(sys.argv[2])
print("  games %d, %s %d-%d-%d (w-l-d) against linux, faults %d -> %s" % (
    s["games"], s["engines"][0]["name"], s["wins"], s["losses"], s["draws"], s["faults_total"],
    "ok" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
    then
        failed "match $name vs linux: faults or missing games"
        rm -rf "$root/target/windows/records-$name"
        cp -r "$tmp/records-$name" "$root/target/windows/" &&
            say "records and fault logs kept in target/windows/records-$name"
    fi
}
if [[ $match -eq 1 ]]; then
    run_match "$base_exe" exe "$games"
    run_match "$avx2_exe" avx2-exe "$avx2_games"
fi

if [[ $fail -eq 0 ]]; then say "all checks passed"; else say "some checks FAILED"; fi
exit $fail
