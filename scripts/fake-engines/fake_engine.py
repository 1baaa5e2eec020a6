#!/usr/bin/env python3
"""A tiny pbrain engine for testing tengen-match.

Usage: fake_engine.py [MODE] [AT]

Plays a random empty point next to the stones (completing its own four when it can). MODE makes
it misbehave at its AT-th move of a game (default 3):
  random    never misbehaves
  timeout   stops answering (sleeps) instead of moving
  crash     exits with status 3 instead of moving
  occupied  answers an occupied point
  offboard  answers a point off the board
  error     answers "ERROR fake failure"
  garbage   answers "hello there"
  noisy     at its AT-th move prints "ERROR fake warning" and "hello there", then moves
  silent    never answers anything, not even ABOUT or START (and ignores END)
  noend     plays normally but hangs on END (must be killed)
  slow      sleeps 300 ms per move (within limits with the default tolerance)
  extra     at its AT-th move prints a second move line right after the first (unsolicited)
  unknown   answers every INFO with "UNKNOWN" (harmless: GomocupJudge skips it; a warning)
  first     always plays the first empty point in row order (a very weak engine)
  script    plays the moves in AT ("x,y;x,y;..."), then random ones
"""
import random
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "random"
ARG = sys.argv[2] if len(sys.argv) > 2 else "3"
SCRIPT = [tuple(int(v) for v in m.split(",")) for m in ARG.split(";")] if MODE == "script" else []
AT = int(ARG) if MODE != "script" else 0

size = 15
board = {}
moves_made = 0
rng = random.Random()


def out(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()


def winning_point(color):
    for (x, y) in empties():
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            for sgn in (1, -1):
                k = 1
                while board.get((x + sgn * k * dx, y + sgn * k * dy)) == color:
                    n += 1
                    k += 1
            if n >= 5:
                return (x, y)
    return None


def empties():
    return [(x, y) for x in range(size) for y in range(size) if (x, y) not in board]


def choose():
    w = winning_point(1)
    if w:
        return w
    w = winning_point(2)
    if w:
        return w
    near = [
        (x, y)
        for (x, y) in empties()
        if any((x + dx, y + dy) in board for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    ]
    pool = near or empties()
    return rng.choice(pool)


def move():
    global moves_made
    moves_made += 1
    if moves_made == AT:
        if MODE == "timeout":
            time.sleep(100000)
        elif MODE == "crash":
            sys.exit(3)
        elif MODE == "occupied" and board:
            x, y = next(iter(board))
            out("%d,%d" % (x, y))
            return
        elif MODE == "offboard":
            out("%d,%d" % (size, size))
            return
        elif MODE == "error":
            out("ERROR fake failure")
            return
        elif MODE == "garbage":
            out("hello there")
            return
        elif MODE == "noisy":
            out("ERROR fake warning")
            out("hello there")
    if MODE == "slow":
        time.sleep(0.3)
    if MODE == "first":
        x, y = min(empties(), key=lambda p: (p[1], p[0]))
    elif MODE == "script" and moves_made <= len(SCRIPT):
        x, y = SCRIPT[moves_made - 1]
    else:
        x, y = choose()
    board[(x, y)] = 1
    out("MESSAGE fake thinking")
    if MODE == "extra" and moves_made == AT:
        # Both lines in one write, so the runner always sees the second one before its next
        # command: a deterministic test, not a race with the scheduler.
        out("%d,%d\n%d,%d" % ((x, y) + tuple(choose())))
    else:
        out("%d,%d" % (x, y))


def main():
    global size, board, moves_made
    lines = iter(sys.stdin.readline, "")
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if MODE == "silent":
            continue
        word = line.split()[0].upper()
        if word == "START":
            size = int(line.split()[1])
            board = {}
            moves_made = 0
            out("OK")
        elif word == "ABOUT":
            out('name="fake-%s", version="1.0", author="tests", country="CZ"' % MODE)
        elif word == "INFO":
            if MODE == "unknown":
                out("UNKNOWN " + line)
        elif word == "BEGIN":
            board = {}
            move()
        elif word == "BOARD":
            board = {}
            for raw2 in lines:
                l2 = raw2.strip()
                if l2.upper() == "DONE":
                    break
                x, y, f = (int(v) for v in l2.split(","))
                board[(x, y)] = 1 if f == 1 else 2
            move()
        elif word == "TURN":
            x, y = (int(v) for v in line.split()[1].split(","))
            board[(x, y)] = 2
            move()
        elif word == "END":
            if MODE == "noend":
                time.sleep(100000)
            return
        else:
            out("UNKNOWN " + line)


if __name__ == "__main__":
    main()
