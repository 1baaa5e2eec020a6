#!/usr/bin/env bash
# SPRT of a new Tengen build against a baseline: stops as soon as the test decides.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/sprt.sh NEW OLD [options] [-- extra tengen-match options]

NEW and OLD are each either a path to a pbrain engine binary or a git revision of this
repository (e.g. HEAD~1, main, a commit hash), which is built in release mode into
target/sprt/<rev> from a clean export of that revision. NEW is the first engine: the Elo and
the SPRT are from its point of view. The test is the pentanomial GSPRT of H0: elo = ELO0 against
H1: elo = ELO1; "H1 accepted" means the change passed. Replies are read as strictly as
Piskvork reads them (tengen-match --strict): a build that prints a stray line loses by it.

Options:
  --elo0 E         (default 0)
  --elo1 E         (default 10)
  --alpha A        (default 0.05)
  --beta B         (default 0.05)
  --rule R         freestyle | standard | renju | caro   (default freestyle)
  --size N         board size                            (default 15)
  --tc M/T[+I]     seconds per game / per move           (default 20/0.2)
  --max-games N    stop after N games undecided          (default 20000)
  --concurrency N  games at once                         (default: CPUs / 2, at least 1)
  --openings FILE  opening book; default: the shipped book scripts/openings/<rule><size>.txt
                   when there is one, else random openings
  --random-openings  random 2-4 stone openings even when a shipped book exists
  --out DIR        records and summary.json              (default target/sprt/run-<time>)
  --seed N         seed                                  (default: time based)
  -h, --help       this text

Examples:
  scripts/sprt.sh target/release/pbrain-tengen HEAD~1
  scripts/sprt.sh HEAD main --elo0 0 --elo1 5 --tc 60/1 --rule renju
USAGE
}

if [[ $# -ge 1 && ( "$1" == "-h" || "$1" == "--help" ) ]]; then usage; exit 0; fi
if [[ $# -lt 2 ]]; then usage >&2; exit 2; fi
new="$1" old="$2"; shift 2
elo0=0 elo1=10 alpha=0.05 beta=0.05 rule=freestyle size=15 tc=20/0.2 games=20000
conc="" openings="" out="" seed="" random=0
extra=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --elo0) elo0="$2"; shift 2 ;;
        --elo1) elo1="$2"; shift 2 ;;
        --alpha) alpha="$2"; shift 2 ;;
        --beta) beta="$2"; shift 2 ;;
        --rule) rule="$2"; shift 2 ;;
        --size) size="$2"; shift 2 ;;
        --tc) tc="$2"; shift 2 ;;
        --max-games) games="$2"; shift 2 ;;
        --concurrency) conc="$2"; shift 2 ;;
        --openings) openings="$2"; shift 2 ;;
        --random-openings) random=1; shift ;;
        --out) out="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; extra=("$@"); break ;;
        *) echo "sprt.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cargo build --release --bins

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

# Resolves an engine argument to an executable path, building git revisions.
resolve() {
    local spec="$1"
    if [[ -f "$spec" && -x "$spec" ]]; then
        echo "$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")"
        return
    fi
    local rev
    rev=$(git rev-parse --short "$spec^{commit}" 2>/dev/null) || {
        echo "sprt.sh: '$spec' is neither an executable nor a git revision" >&2
        exit 2
    }
    local dir="$root/target/sprt/$rev"
    if [[ ! -x "$dir/bin/pbrain-tengen" ]]; then
        echo "building $spec ($rev) in $dir ..." >&2
        rm -rf "$dir/src"
        mkdir -p "$dir/src" "$dir/bin"
        git archive "$rev" | tar -x -C "$dir/src"
        (cd "$dir/src" && CARGO_TARGET_DIR="$dir/target" cargo build --release --bin pbrain-tengen >&2)
        cp "$dir/target/release/pbrain-tengen" "$dir/bin/pbrain-tengen"
    fi
    echo "$dir/bin/pbrain-tengen"
}

new_bin=$(resolve "$new")
old_bin=$(resolve "$old")
# Snapshot a working-tree binary so a rebuild during the test cannot change it.
snap="$root/target/sprt/snap-$$"
mkdir -p "$snap/new" "$snap/old"
cp "$new_bin" "$snap/new/pbrain-tengen"
cp "$old_bin" "$snap/old/pbrain-tengen"
runner="$snap/tengen-match"
cp target/release/tengen-match "$runner"

if [[ -z "$conc" ]]; then
    cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
    conc=$(( cpus / 2 )); [[ $conc -lt 1 ]] && conc=1
fi
out="${out:-$root/target/sprt/run-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
args=(--engine "cmd=$snap/new/pbrain-tengen" "name=new($new)"
      --engine "cmd=$snap/old/pbrain-tengen" "name=old($old)"
      --each "tc=$tc" --rule "$rule" --size "$size" --games "$games" --concurrency "$conc"
      --sprt "elo0=$elo0" "elo1=$elo1" "alpha=$alpha" "beta=$beta"
      --records "$out" --json "$out/summary.json" --strict)
if [[ -z "$openings" && $random -eq 0 ]]; then openings=$(default_book "$rule" "$size"); fi
[[ -n "$openings" ]] && args+=(--openings "$openings")
[[ -n "$seed" ]] && args+=(--seed "$seed")
echo "records: $out" >&2
echo "openings: ${openings:-random}" >&2
set +e
"$runner" "${args[@]}" "${extra[@]}"
rc=$?
set -e
rm -rf "$snap"
if [[ $rc -ne 0 ]]; then exit "$rc"; fi
# Exit 0 when H1 was accepted, 1 when H0 was, 3 when undecided.
if grep -q '"decision": "H1"' "$out/summary.json"; then exit 0; fi
if grep -q '"decision": "H0"' "$out/summary.json"; then exit 1; fi
exit 3
