#!/usr/bin/env python3
"""Label the tuner's game positions with an external engine's evaluations (pbrain protocol).

This distils a stronger engine's judgement into Tengen's evaluation: the engine is the teacher,
its score of every position is written as a tuner label (`GAME PLY SCORE`, the format of
`pbrain-tengen tune label`), and `tune fit` then fits Tengen's weights to those labels.

The whole recipe (Rapfi as the teacher, two processes on two cores, one output file each):

  pbrain-tengen tune gen --out games.txt --games 4000        # and/or: tune import DIR --out games.txt
  scripts/label_external.py --engine /path/to/pbrain-rapfi --ms 30 --part 0/2 --out labels-0.txt games.txt &
  scripts/label_external.py --engine /path/to/pbrain-rapfi --ms 30 --part 1/2 --out labels-1.txt games.txt &
  wait
  pbrain-tengen tune fit games.txt --labels labels-0.txt --labels labels-1.txt --lambda 0.7 --from-current --freeze-tempo --k 274

Give the same game files in the same order to this script and to `tune fit`: the game index GI
counts the game lines of all files in the order given, exactly as tune_data::read_games does
(blank lines, `#` comments and lines that do not parse, e.g. with a move off the board, are not
counted; games of a rule the engine is not asked to play, caro, are counted but not labelled).

For every game with GI % N == K (--part K/N) and every P from max(OPENING, 1) to len(moves) - 1
(or to the first repeated move, where Tengen's replay stops), the position after P moves is sent
with BOARD, the engine searches it for --ms milliseconds, and the line `GI P SCORE` is appended
to --out: SCORE = round(clamp(eval, -C, C) * scale) for the side to move, C = --clamp, a forced
win/loss (`+M5`, `-M3`, ...) counting as +C/-C.  The eval is the last one the engine printed before
its move, as `MESSAGE ... Eval X ...` (Rapfi's normal message mode) or `MESSAGE ... ev X ...`
(Rapfi's ucilike mode, pbrain-tengen's own `MESSAGE depth D ev E ...`).  An engine that plays
an immediate five without printing an eval gets +C.

--scale converts the engine's eval scale to Tengen's: the tuner reads a label as the win
probability sigmoid(score / 274) (with --k 274), so an engine whose eval means sigmoid(eval / 250),
as Rapfi's classical model220723 does, needs 274 / 250 = 1.096 (the default); use 1 for
pbrain-tengen itself.

The engine runs in its own directory (that of --engine), where it finds its config.  That config
is the user's business: Rapfi, for example, reserves part of every turn for communication
(`turn_time_reserved`, default 30 ms), which must be set to 0 in its config.toml for --ms 30 to
leave it any search time.
"""
import argparse
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time

# Gomocup `INFO rule` ids of the rules an engine is asked to play; keyed by Tengen's rule names.
RULE_IDS = {"freestyle": 0, "standard": 1, "renju": 4}
# Every rule name Tengen's Rule::from_name accepts (case-insensitive), by canonical rule.
RULE_NAMES = {
    "freestyle": "freestyle", "gomoku": "freestyle", "0": "freestyle",
    "standard": "standard", "exact": "standard", "1": "standard",
    "renju": "renju", "4": "renju", "2": "renju",
    "caro": "caro", "caro9": "caro", "9": "caro", "caro8": "caro", "8": "caro",
}
RESULTS = {"1-0", "0-1", "1/2"}
USIZE_RE = re.compile(r"\+?[0-9]+")  # what Rust's usize::from_str accepts
MOVE_RE = re.compile(r"^(\d+),(\d+)$")
# Rapfi normal/brief mode: "... | Eval 361 | ..."; ucilike mode and Tengen: "depth 7 ev 361 n ..."
EVAL_RE = re.compile(r"(?:\bEval|\bev)\s+(\S+)")
MATE = 10**9  # a forced result, before clamping
LOG = "[label_external]"


def log(msg):
    print(f"{LOG} {msg}", file=sys.stderr, flush=True)


def parse_value(tok):
    """Engine value text -> int (forced results as +-MATE), or None if it is not a usable value."""
    tok = tok.strip().rstrip("|,")
    if re.fullmatch(r"[+-]?\d+", tok):
        return int(tok)
    m = re.fullmatch(r"([+-])M(\d+|\*)", tok)  # +M3 = win in 3, -M4 = loss in 4
    if m:
        return MATE if m.group(1) == "+" else -MATE
    if tok in ("VAL_INF", "+VAL_INF"):
        return MATE
    if tok == "-VAL_INF":
        return -MATE
    return None  # VAL_NONE or garbage


def parse_usize(tok):
    if not USIZE_RE.fullmatch(tok):
        return None
    v = int(tok)
    return v if v < 2**64 else None


def ascii_lower(s):
    return "".join(c.lower() if c.isascii() else c for c in s)


def parse_game(line):
    """A game line as tune_data::read_games reads it; None when it is not counted."""
    if line.lstrip().startswith("#") or not line.strip():
        return None
    t = line.split()
    if len(t) < 5:
        return None
    rule = RULE_NAMES.get(ascii_lower(t[0]))
    w, h, opening = parse_usize(t[1]), parse_usize(t[2]), parse_usize(t[4])
    if rule is None or w is None or h is None or t[3] not in RESULTS or opening is None:
        return None
    moves = []
    for tok in t[5:]:
        xs, sep, ys = tok.partition(",")
        x, y = parse_usize(xs), parse_usize(ys)
        if not sep or x is None or y is None or not (x < w and y < h):
            return None  # GameRecord::from_coords refuses a move off the board
        moves.append((x, y))
    return {"rule": rule, "w": w, "h": h, "result": t[3], "opening": opening, "moves": moves}


def read_games(files):
    """Yields (GI, game) over all files in order."""
    gi = 0
    for path in files:
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            text = f.read()
        for line in text.split("\n"):  # as Rust's str::lines: "\n" or "\r\n" ends a line
            g = parse_game(line.removesuffix("\r"))
            if g is not None:
                yield gi, g
                gi += 1


def makes_five(stones, move, w, h, rule, black):
    """True if playing `move` for the player owning `stones` makes five (for the no-eval fallback)."""
    x0, y0 = move
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for s in (1, -1):
            x, y = x0 + s * dx, y0 + s * dy
            while 0 <= x < w and 0 <= y < h and (x, y) in stones:
                n += 1
                x, y = x + s * dx, y + s * dy
        exact = rule == "standard" or (rule == "renju" and black)
        if n == 5 or (n > 5 and not exact):
            return True
    return False


class EngineDied(Exception):
    pass


class Engine:
    def __init__(self, path, ms):
        self.path = path
        self.ms = ms
        self.proc = None
        self.q = None
        self.cur = None  # (rule, w, h) currently set up in the engine
        self.need_sync = False
        self.restarts = 0

    # --- process handling -------------------------------------------------
    def start(self):
        self.close()
        self.proc = subprocess.Popen(
            [self.path], cwd=os.path.dirname(self.path), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.q = queue.Queue()
        self.need_sync = False
        threading.Thread(target=self._reader, args=(self.proc, self.q), daemon=True).start()
        self.cur = None

    @staticmethod
    def _reader(proc, q):
        for line in proc.stdout:
            q.put(line.rstrip("\r\n"))
        q.put(None)  # EOF

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.write("END\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=2)
            except Exception:
                self.proc.kill()
                try:
                    self.proc.wait(timeout=5)
                except Exception:
                    pass
            self.proc = None

    def restart(self):
        self.restarts += 1
        log(f"restarting the engine (#{self.restarts})")
        self.start()

    def send(self, text):
        if self.proc is None or self.proc.poll() is not None:
            raise EngineDied("engine not running")
        try:
            self.proc.stdin.write(text)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise EngineDied(str(e))

    def readline(self, deadline):
        try:
            line = self.q.get(timeout=max(0.01, deadline - time.time()))
        except queue.Empty:
            raise EngineDied("timeout waiting for engine")
        if line is None:
            raise EngineDied("engine exited")
        return line

    # --- protocol ---------------------------------------------------------
    def sync(self):
        """Some engines (Rapfi) print the move a moment before they stop thinking and silently
        drop any command (other than END/STOP) read meanwhile.  So after every search we ping
        with ABOUT (answered with 'name=...') until it is answered; late duplicates are ignored."""
        if not self.need_sync:
            return
        deadline = time.time() + 30
        while True:
            self.send("ABOUT\n")
            t_retry = min(deadline, time.time() + 0.05)
            try:
                while True:
                    line = self.readline(t_retry)
                    if line.startswith("name="):
                        self.need_sync = False
                        return
            except EngineDied:
                if time.time() >= deadline or self.proc.poll() is not None:
                    raise

    def setup(self, rule, w, h):
        """Returns False if the engine refuses this board (e.g. rectangular)."""
        if self.cur == (rule, w, h):
            return True
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.sync()
        self.cur = None
        self.send(f"START {w}\n" if w == h else f"RECTSTART {w},{h}\n")
        deadline = time.time() + 30
        while True:
            line = self.readline(deadline)
            if line.startswith("OK"):
                break
            if line.startswith("ERROR"):
                log(f"engine refused board {w}x{h}: {line}")
                return False
        self.send(f"INFO rule {RULE_IDS[rule]}\nINFO timeout_turn {self.ms}\n"
                  f"INFO timeout_match 0\nINFO max_memory 134217728\n")
        self.cur = (rule, w, h)
        return True

    def evaluate(self, moves):
        """Eval of the position after `moves` for the side to move. Returns (score, move)."""
        stm_black = len(moves) % 2 == 0
        parts = ["BOARD"]
        for i, (x, y) in enumerate(moves):  # game order; 1 = side to move (the brain), 2 = opponent
            own = (i % 2 == 0) == stm_black
            parts.append(f"{x},{y},{1 if own else 2}")
        parts.append("DONE\n")
        board_cmd = "\n".join(parts)
        self.sync()
        self.send(board_cmd)
        self.need_sync = True
        deadline = time.time() + max(10.0, 50 * self.ms / 1000.0)
        score = None
        resent = 0
        while True:
            line = self.readline(deadline)
            m = MOVE_RE.match(line.strip())
            if m:
                return score, (int(m.group(1)), int(m.group(2)))
            if line.startswith("ERROR Unknown command: DONE"):  # BOARD was dropped: send again
                if resent >= 3:
                    raise EngineDied("BOARD rejected repeatedly")
                resent += 1
                log("BOARD dropped by engine, resending")
                self.need_sync = True
                self.sync()
                self.send(board_cmd)
                self.need_sync = True
                continue
            if line.startswith("MESSAGE"):
                em = EVAL_RE.search(line)
                if em:
                    v = parse_value(em.group(1))
                    if v is not None:
                        score = v
            elif line.startswith("ERROR") and not line.startswith("ERROR Unknown command:"):
                log(f"engine: {line}")


def resolve_engine(path):
    if os.sep not in path:
        found = shutil.which(path)
        if found:
            path = found
    path = os.path.abspath(path)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        sys.exit(f"{LOG} not an executable: {path}")
    return path


def main():
    ap = argparse.ArgumentParser(
        usage="%(prog)s --engine PATH [--ms 30] [--part K/N] [--scale 1.096] [--clamp 6000] "
              "--out FILE GAMES_FILE...",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games", nargs="+", metavar="GAMES_FILE",
                    help="game files (tune gen / tune import lines), in the order tune fit gets them")
    ap.add_argument("--engine", required=True, metavar="PATH", help="the pbrain engine executable")
    ap.add_argument("--out", required=True, metavar="FILE", help="label file (appended to)")
    ap.add_argument("--ms", type=int, default=30, help="search time per position, ms (default 30)")
    ap.add_argument("--part", default="0/1", metavar="K/N",
                    help="label only the games with index %% N == K (default 0/1)")
    ap.add_argument("--scale", type=float, default=1.096,
                    help="multiplies the engine's eval into Tengen's scale (default 1.096 = 274/250)")
    ap.add_argument("--clamp", type=int, default=6000,
                    help="evals are clamped to +-CLAMP before scaling; forced results count as "
                         "+-CLAMP (default 6000)")
    a = ap.parse_args()
    try:
        k, n = (int(v) for v in a.part.split("/"))
    except ValueError:
        ap.error("--part needs K/N")
    if not (n >= 1 and 0 <= k < n):
        ap.error("--part K/N needs 0 <= K < N")
    if a.ms <= 0 or a.clamp <= 0:
        ap.error("--ms and --clamp must be positive")
    for f in a.games:
        if not os.path.isfile(f):
            ap.error(f"no such game file: {f}")

    def label(v):
        return round(max(-a.clamp, min(a.clamp, v)) * a.scale)

    eng = Engine(resolve_engine(a.engine), a.ms)
    eng.start()
    t0 = time.time()
    games_done = labels = fallback = failed = skipped = counted = 0
    with open(a.out, "a") as fout:
        for gi, g in read_games(a.games):
            counted += 1
            if gi % n != k:
                continue
            if g["rule"] not in RULE_IDS:
                log(f"GI {gi}: rule {g['rule']} is not played by the engine, skipped")
                skipped += 1
                continue
            w, h, mv = g["w"], g["h"], g["moves"]
            # Tengen's replay stops at an occupied point: the positions up to there still count.
            last = len(mv) - 1
            seen = set()
            for i, m in enumerate(mv):
                if m in seen:
                    last = min(last, i)
                    log(f"GI {gi}: move {i} repeats a point, labelling only up to P {last}")
                    break
                seen.add(m)
            out = []
            ok_board = True
            for p in range(max(g["opening"], 1), last + 1):
                for attempt in range(2):
                    try:
                        if not eng.setup(g["rule"], w, h):
                            ok_board = False
                            break
                        score, move = eng.evaluate(mv[:p])
                        if score is None:
                            # Engines may print no eval when they win at once (a five without search).
                            stm_black = p % 2 == 0
                            own = {m for i, m in enumerate(mv[:p]) if (i % 2 == 0) == stm_black}
                            if makes_five(own, move, w, h, g["rule"], stm_black):
                                score = MATE
                                fallback += 1
                            else:
                                log(f"GI {gi} P {p}: no eval from engine")
                                failed += 1
                        if score is not None:
                            out.append(f"{gi} {p} {label(score)}\n")
                        break
                    except EngineDied as e:
                        log(f"GI {gi} P {p}: {e}")
                        eng.restart()
                else:
                    failed += 1
                if not ok_board:
                    break
            if not ok_board:
                skipped += 1
                continue
            fout.writelines(out)
            fout.flush()
            labels += len(out)
            games_done += 1
            if games_done % 50 == 0:
                dt = time.time() - t0
                log(f"games {games_done} labels {labels} ({labels / dt:.1f} pos/s) last GI {gi}")
    eng.close()
    dt = time.time() - t0
    log(f"done: games counted {counted} labelled {games_done} skipped {skipped}; labels {labels} "
        f"failed_positions {failed} immediate_win_fallbacks {fallback} restarts {eng.restarts} "
        f"time {dt:.1f}s ({labels / max(dt, 1e-9):.1f} pos/s)")


if __name__ == "__main__":
    main()
