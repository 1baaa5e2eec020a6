#!/usr/bin/env python3
"""Cross-check renju forbidden points between two pbrain engines that answer YXSHOWFORBID.

Random renju positions (black to move, no five point for either side; with --black-five only
positions where black has one and white none, where a three whose straight-four point is that five
point is no real three for the referees) are set with YXBOARD; both engines list black's forbidden
points. Mismatches are printed; with --out, positions whose sets agree are written in
the ../shared/positions corpus format (kinds as '?'), as src/game/testdata/
forbidden_sets_random.txt was made (Tengen against a local build of Rapfi-classical).

    scripts/crosscheck_forbid.py target/release/pbrain-tengen /path/to/other-engine \\
        --positions 1500 --size 15 --seed 11 --keep 120 --out cases.txt
"""
import argparse
import random
import subprocess
import sys

DIRS = [(1, 0), (0, 1), (1, 1), (1, -1)]


class Engine:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, lines):
        self.p.stdin.write("\n".join(lines) + "\n")
        self.p.stdin.flush()

    def read_until(self, pred):
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit(f"engine {self.p.args} exited")
            line = line.strip()
            if pred(line):
                return line

    def forbidden(self, moves, size):
        self.send([f"START {size}", "INFO rule 4"])
        self.read_until(lambda l: l == "OK" or l.startswith("ERROR"))
        # Black's and white's stones alternate, black first: black is to move, field 1.
        board = [f"{x},{y},{1 if i % 2 == 0 else 2}" for i, (x, y) in enumerate(moves)]
        self.send(["YXBOARD"] + board + ["DONE", "YXSHOWFORBID"])
        body = self.read_until(lambda l: l.startswith("FORBID"))[len("FORBID "):].rstrip(".")
        return sorted((int(body[i:i + 2]), int(body[i + 2:i + 4]))
                      for i in range(0, len(body), 4))


def run_through(stones, x, y, dx, dy):
    n = 1
    for sign in (1, -1):
        k = 1
        while (x + sign * dx * k, y + sign * dy * k) in stones:
            n += 1
            k += 1
    return n


def has_five_point(stones, others, size, exact):
    for x in range(size):
        for y in range(size):
            if (x, y) in stones or (x, y) in others:
                continue
            for dx, dy in DIRS:
                n = run_through(stones, x, y, dx, dy)
                if n == 5 or (n > 5 and not exact):
                    return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine_a")
    ap.add_argument("engine_b")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--size", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", type=int, default=0, help="agreeing positions to write")
    ap.add_argument("--out")
    ap.add_argument("--black-five", action="store_true",
                    help="only positions where black has a five point (white none)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    a, b = Engine([args.engine_a]), Engine([args.engine_b])
    tested = mismatches = points = 0
    kept = []
    for t in range(args.positions):
        span = rng.choice([5, 7, 9, 11])
        lo = args.size // 2 - span // 2
        n = rng.randint(4, min(30, span * span // 3))
        cells = [(x, y) for x in range(lo, lo + span) for y in range(lo, lo + span)]
        rng.shuffle(cells)
        black, white = set(cells[:n]), set(cells[n:2 * n])
        if (has_five_point(black, white, args.size, True) != args.black_five
                or has_five_point(white, black, args.size, False)):
            continue
        moves = [m for pair in zip(list(black), list(white)) for m in pair]
        fa, fb = a.forbidden(moves, args.size), b.forbidden(moves, args.size)
        tested += 1
        points += len(fb)
        if fa != fb:
            mismatches += 1
            print("MISMATCH a", fa, "b", fb, "moves",
                  ";".join(f"{x},{y}" for x, y in moves), flush=True)
        elif len(kept) < args.keep and (fb or rng.random() < 0.1):
            def stones(s):
                return ";".join(f"{x},{y}" for x, y in sorted(s, key=lambda p: (p[1], p[0])))
            answer = ";".join(f"{x},{y}:?" for x, y in fb) or "none"
            tag = "fx5" if args.black_five else "fx"
            kept.append(f"id={tag}-{args.size}-{args.seed}-{t} rule=renju size={args.size} "
                        f"tomove=black black={stones(black)} white={stones(white)} "
                        f"answer=forbidden_set:{answer} verify=crosscheck "
                        f"src=random-{args.seed}")
    print(f"tested {tested} positions, {points} forbidden points, {mismatches} mismatches")
    if args.out:
        with open(args.out, "w") as f:
            f.write("".join(line + "\n" for line in kept))
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
