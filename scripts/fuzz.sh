#!/usr/bin/env bash
# Large-scale protocol fuzzing: runs the protocol-tests/fuzz.rs harness (the same one the test
# command runs at small scale) with big counts and a fresh seed, and reports the throughput.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/fuzz.sh [options]

Runs `cargo test --release --test fuzz` with large counts: the parser fuzz (arbitrary bytes,
mutated, exact and split-block commands fed to tengen::protocol::command::Parser) and the engine
fuzz (long random command sequences through target/release/pbrain-tengen, every answer checked
against a model of the session). Prints inputs/s, lines/s, the slowest answers and the machine
load; the whole output is kept in target/fuzz/. Exits non-zero on any failure; the failure
message says how to repeat it.

Options:
  --inputs N       parser inputs (lines fed)                    (default 10000000)
  --commands N     engine command lines in total                (default 20000)
  --session N      command lines per engine process             (default 250)
  --jobs N         engine sessions at once                      (default 2)
  --turn-ms LO-HI  range of INFO timeout_turn in the sessions   (default 20-100)
  --tolerance MS   how late an answer may be                    (default 1000)
  --seed N         seed (decimal or 0x hex)                     (default: random, printed)
  --parser-only    only the parser fuzz
  --engine-only    only the engine fuzz
  -h, --help       this text

Environment: TENGEN_FUZZ_ENGINE=/path fuzzes another engine binary.
USAGE
}

inputs=10000000 commands=20000 session=250 jobs=2 turn="20-100" tol=1000 seed="" filter=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --inputs) inputs="$2"; shift 2 ;;
        --commands) commands="$2"; shift 2 ;;
        --session) session="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --turn-ms) turn="$2"; shift 2 ;;
        --tolerance) tol="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --parser-only) filter=parser_fuzz; shift ;;
        --engine-only) filter=engine_fuzz; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "fuzz.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "$seed" ]]; then
    seed=$(printf '0x%016x' "$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')" 2>/dev/null \
        || printf '0x%x' "$RANDOM$RANDOM$RANDOM")
fi
mkdir -p target/fuzz
log="target/fuzz/fuzz-$seed.txt"

case "$filter" in
    parser_fuzz) echo "fuzz.sh: seed $seed, $inputs parser inputs" ;;
    engine_fuzz) echo "fuzz.sh: seed $seed, $commands engine lines ($session per process, $jobs at once, timeout_turn $turn ms)" ;;
    *) echo "fuzz.sh: seed $seed, $inputs parser inputs, $commands engine lines ($session per process, $jobs at once, timeout_turn $turn ms)" ;;
esac
echo "load before: $(uptime)"
start=$(date +%s)
set +e
# One test at a time: the parser fuzz (two threads) must not take the CPU from the engine's clock.
TENGEN_FUZZ_SEED="$seed" TENGEN_FUZZ_INPUTS="$inputs" TENGEN_FUZZ_COMMANDS="$commands" \
TENGEN_FUZZ_SESSION="$session" TENGEN_FUZZ_JOBS="$jobs" TENGEN_FUZZ_TURN_MS="$turn" \
TENGEN_FUZZ_TOLERANCE_MS="$tol" \
    cargo test --release --test fuzz $filter -- --nocapture --test-threads=1 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
end=$(date +%s)
echo "load after: $(uptime)"
echo "fuzz.sh: wall $((end - start)) s, exit $rc; summary:"
grep -oE '(parser|engine) fuzz: .*' "$log" | sed 's/^/  /' || true
echo "output kept in $log"
exit "$rc"
