//! The VCT solver (victory by continuous threats: fours and open threes), a depth-first
//! proof-number search (df-pn) with a transposition table.
//!
//! OR nodes (attacker to move): the attacker's fours, its threes and quiet moves that may
//! threaten a VCF; against an open three of the defender only fours and the threes that take
//! away all its open-four points (and, in a second pass when the first refutes the root in
//! time, the quiet moves that block it and may threaten a VCF); a five wins; a defender's four
//! must be blocked (the block is the only child, and the attack must still stand after it).
//! AND nodes (defender to move): against a four the block; against an open three every four of
//! the defender (counter-threats: a defender's VCF is played out through them) and every point
//! that leaves the attacker without an open-four point, which includes the ends and the far
//! points of a split three. A move of the attacker that leaves no legal open-four point (a renju
//! three whose four point is forbidden for black) threatens nothing and refutes the line.
//! Against a VCF threat (the attacker's VCF were the defender to pass) the defences are the
//! moves after which that VCF's line, replayed move by move, no longer wins; only the cells
//! that can spoil the line are tried (see `VctSolver::spoilers`).
//! Renju: black never plays a forbidden point; white may win through them (a block on a
//! forbidden point is no block).

use super::threat::{five_point, ThreatSolver};
use crate::eval::classical::{C_DOUBLE_THREE, C_FIVE, C_FOUR, C_THREE};
use crate::game::pattern::Pattern;
use crate::game::pos::{CELLS, DIRS};
use crate::game::{Board, Color, Pos};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Proof and disproof numbers at or above this are infinite.
const INF: u32 = u32::MAX / 4;
/// Transposition table entries (16 bytes each).
const TABLE_SIZE: usize = 1 << 20;
/// VCF checks inside the search: fours, nodes, cache entries, points kept of a line.
const CHECK_FOURS: usize = 10;
const CHECK_NODES: u64 = 300;
/// Budget of the VCF check that may prove an attacker's node at once.
const OR_CHECK_NODES: u64 = 300;
const VCF_CACHE: usize = 1 << 18;
/// Initial proof numbers of a three and of a quiet attacking move (a four gets 1): a quiet
/// move is tried only when the threes look many times dearer (measured on vct.txt: 4 left
/// vct-quintet-015 unsolved in 15 s, 16-64 solve it in 5-11 s, 24 with the others fastest).
const THREE_PN: u32 = 2;
const QUIET_PN: u32 = 24;
const VCF_LINE: usize = 2 * CHECK_FOURS + 2;
/// Cache of child lists: entries, and the longest list it keeps.
const LIST_CACHE: usize = 1 << 15;
const LIST_MAX: usize = 48;
/// Simulation (see `VctSolver::try_simulation`): entries of the table of failed tries, proven
/// siblings tried, nodes a try may expand.
const SIM_FAILED: usize = 1 << 16;
const SIM_SIBLINGS: u32 = 4;
const SIM_NODES: u32 = 500;
/// [`VctSolver::compact`] tables are this power of two smaller.
const COMPACT_SHRINK: u32 = 2;

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    pn: u32,
    dn: u32,
}

/// The df-pn VCT solver: its table, budget and per-ply child lists.
pub struct VctSolver {
    table: Vec<Entry>,
    nodes: u64,
    budget: u64,
    deadline: Option<Instant>,
    aborted: bool,
    /// The second pass of a call: against the defender's open three, also the quiet blocks
    /// that build (rarely needed, and they widen every such node).
    wide: bool,
    /// Whether a root refuted in time gets that second pass.
    second_pass: bool,
    max_ply: usize,
    /// Children of the node at each ply: move and child key.
    lists: Vec<Vec<(Pos, u64, u32)>>,
    root_win: Pos,
    /// Mixed into every key, new for every call.
    salt: u64,
    /// VCF checks inside the search (made lazily: it holds a VCT solver of its own, unused).
    vcf: Option<Box<ThreatSolver>>,
    /// Cache of VCF checks by position key: found or not, and the line's points.
    vcf_cache: Vec<VcfEntry>,
    /// Child lists by node key: a node is expanded again every time the search comes back to
    /// it, and its list (found with VCF checks and replays) is the same every time.
    list_cache: Vec<ListEntry>,
    /// Candidate moves and their ordering scores while a node is expanded (kept for its
    /// capacity).
    scored: Vec<(Pos, i32)>,
    /// Defender's moves whose simulation failed, by key, with the number of their proven
    /// siblings then (a new proven sibling is worth another try).
    sim_failed: Vec<(u64, u32)>,
    /// Nodes a simulation may still expand.
    sim_left: u32,
    /// Set from outside to abort the search (the protocol's stop).
    stop: Option<Arc<AtomicBool>>,
    /// The tables hold `1 / 2^shrink` of their full sizes.
    shrink: u32,
    /// Nodes expanded, for spacing the reads of the clock.
    expansions: u32,
}

#[derive(Clone, Copy)]
struct ListEntry {
    key: u64,
    len: u8,
    moves: [Pos; LIST_MAX],
    init: [u8; LIST_MAX],
}

impl Default for ListEntry {
    fn default() -> Self {
        ListEntry {
            key: 0,
            len: 0,
            moves: [Pos::NONE; LIST_MAX],
            init: [0; LIST_MAX],
        }
    }
}

#[derive(Clone, Copy)]
struct VcfEntry {
    key: u64,
    found: bool,
    /// Not found, and the check searched every line within its limit of fours (the budget
    /// did not cut it).
    exhaustive: bool,
    len: u8,
    line: [Pos; VCF_LINE],
}

impl Default for VcfEntry {
    fn default() -> Self {
        VcfEntry {
            key: 0,
            found: false,
            exhaustive: false,
            len: 0,
            line: [Pos::NONE; VCF_LINE],
        }
    }
}

impl Default for VctSolver {
    fn default() -> Self {
        Self::new()
    }
}

/// What a node is before its children are searched.
enum Node {
    Proven,
    Disproven,
    Children,
}

impl VctSolver {
    pub fn new() -> VctSolver {
        VctSolver {
            table: Vec::new(),
            nodes: 0,
            budget: 0,
            deadline: None,
            aborted: false,
            wide: false,
            second_pass: true,
            max_ply: 0,
            lists: Vec::new(),
            root_win: Pos::NONE,
            salt: 0,
            vcf: None,
            vcf_cache: Vec::new(),
            list_cache: Vec::new(),
            scored: Vec::new(),
            sim_failed: Vec::new(),
            sim_left: 0,
            stop: None,
            shrink: 0,
            expansions: 0,
        }
    }

    /// A solver with tables a quarter of the full size ([`VctSolver::COMPACT_BYTES`] in all),
    /// for the short root searches of games, which do not fill larger ones.
    pub fn compact() -> VctSolver {
        VctSolver {
            shrink: COMPACT_SHRINK,
            ..VctSolver::new()
        }
    }

    /// Memory of a compact solver's tables, its VCF checker's included.
    pub const COMPACT_BYTES: usize = ((TABLE_SIZE * size_of::<Entry>()
        + VCF_CACHE * size_of::<VcfEntry>()
        + LIST_CACHE * size_of::<ListEntry>()
        + SIM_FAILED * size_of::<(u64, u32)>())
        >> COMPACT_SHRINK)
        + ThreatSolver::SMALL_BYTES;

    /// The flag that, once set, aborts the search (it is read with the clock, every 32
    /// expansions).
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// Whether a root refuted in time is searched once more with the quiet blocks of the
    /// defender's open three (on by default). Games turn it off: there the rest of the move
    /// is worth more to the alpha-beta search (renju, 0.2 s a move: -8.9 [-26.7, +4.4]).
    pub fn set_second_pass(&mut self, on: bool) {
        self.second_pass = on;
    }

    /// Nodes searched by the last call.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// A first move of a win by continuous threats for the side to move, with at most
    /// `max_threats` attacker moves, searching at most `budget` nodes and until `deadline`.
    pub fn solve(
        &mut self,
        board: &mut Board,
        max_threats: usize,
        budget: u64,
        deadline: Option<Instant>,
    ) -> Option<Pos> {
        if self.table.is_empty() {
            let k = self.shrink;
            self.table = vec![Entry::default(); TABLE_SIZE >> k];
            self.vcf_cache = vec![VcfEntry::default(); VCF_CACHE >> k];
            self.list_cache = vec![ListEntry::default(); LIST_CACHE >> k];
            self.sim_failed = vec![(0, 0); SIM_FAILED >> k];
        }
        // Positions are exact only within one call (rule, board and root change): a new salt in
        // every key retires the older entries without clearing the tables.
        self.new_salt();
        // The VCF checks share their refuted positions within this call.
        if let Some(vcf) = self.vcf.as_mut() {
            vcf.new_session();
        }
        self.nodes = 0;
        self.budget = budget;
        self.deadline = deadline;
        self.aborted = false;
        self.max_ply = 2 * max_threats;
        self.root_win = Pos::NONE;
        if self.lists.len() < self.max_ply + 2 {
            self.lists.resize_with(self.max_ply + 2, Vec::new);
        }
        let key = board.hash() ^ self.salt;
        let (mut pn, dn) = self.mid(board, key, 0, INF - 1, INF - 1);
        if dn == 0 && !self.aborted && self.second_pass {
            // Refuted in time: once more with the rarer attacking moves too (a new salt, since
            // the entries of the first pass hold its move lists and refutations).
            self.new_salt();
            self.wide = true;
            let key = board.hash() ^ self.salt;
            pn = self.mid(board, key, 0, INF - 1, INF - 1).0;
            self.wide = false;
        }
        let key = board.hash() ^ self.salt;
        if pn == 0 && self.root_win.is_none() {
            // Proven without children: a five, or a VCF found by the node's check.
            let me = board.side_to_move();
            self.root_win = match five_point(board, me) {
                Some(p) => p,
                None => {
                    let vcf = self.vcf_check(board, key, me, OR_CHECK_NODES);
                    if vcf.found && vcf.len > 0 {
                        vcf.line[0]
                    } else {
                        Pos::NONE
                    }
                }
            };
        }
        (pn == 0 && !self.root_win.is_none()).then_some(self.root_win)
    }

    fn new_salt(&mut self) {
        self.salt = self
            .salt
            .wrapping_add(0x9E37_79B9_7F4A_7C15)
            .wrapping_mul(0xBF58_476D_1CE4_E5B9)
            | 1;
    }

    #[inline]
    fn child_key(&self, key: u64, p: Pos, c: Color) -> u64 {
        key ^ Board::move_key(p, c)
    }

    #[inline]
    fn lookup(&self, key: u64) -> (u32, u32) {
        self.lookup_or(key, 1)
    }

    /// The numbers of a node, or `init` and 1 when it was never searched.
    #[inline]
    fn lookup_or(&self, key: u64, init: u32) -> (u32, u32) {
        let e = &self.table[key as usize & (self.table.len() - 1)];
        if e.key == key {
            (e.pn, e.dn)
        } else {
            (init, 1)
        }
    }

    #[inline]
    fn store(&mut self, key: u64, pn: u32, dn: u32) {
        let slot = key as usize & (self.table.len() - 1);
        self.table[slot] = Entry { key, pn, dn };
    }

    /// When `opp` threatens five, `me` (to move) must block: `Some(true)` with the block as the
    /// only child in `list`, `Some(false)` when no legal block stops it (two five points, or a
    /// forbidden one), `None` when there is nothing to block.
    fn block_five(
        &self,
        board: &mut Board,
        key: u64,
        me: Color,
        opp: Color,
        list: &mut Vec<(Pos, u64, u32)>,
    ) -> Option<bool> {
        match board.class_count(opp, C_FIVE) {
            0 => None,
            1 => {
                let block = five_point(board, opp).expect("counted");
                if !board.is_legal(block, me) {
                    return Some(false);
                }
                list.push((block, self.child_key(key, block, me), 1));
                Some(true)
            }
            _ => Some(false),
        }
    }

    /// Terminal status or the children of the node, into `lists[ply]`.
    fn expand(&mut self, board: &mut Board, key: u64, ply: usize, or: bool) -> Node {
        let me = board.side_to_move();
        let opp = me.other();
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        // Attacker nodes at the length limit are not cached (the limit refutes them).
        let cacheable = !or || ply < self.max_ply;
        let slot = (key >> 24) as usize & (self.list_cache.len() - 1);
        let node = if cacheable && self.list_cache[slot].key == key {
            let e = &self.list_cache[slot];
            list.extend((0..e.len as usize).map(|i| {
                let p = e.moves[i];
                (p, key ^ Board::move_key(p, me), e.init[i] as u32)
            }));
            Node::Children
        } else {
            let mut scored = std::mem::take(&mut self.scored);
            scored.clear();
            let node = if or {
                self.expand_attack(board, key, ply, me, &mut list, &mut scored)
            } else {
                self.expand_defence(board, key, me, opp, &mut list, &mut scored)
            };
            self.scored = scored;
            if cacheable && matches!(node, Node::Children) && list.len() <= LIST_MAX {
                let e = &mut self.list_cache[slot];
                e.key = key;
                e.len = list.len() as u8;
                for (i, &(p, _, init)) in list.iter().enumerate() {
                    e.moves[i] = p;
                    e.init[i] = init as u8;
                }
            }
            node
        };
        self.lists[ply] = list;
        node
    }

    /// Whether `attacker`, were it to move now, wins by fours (within the check's limits);
    /// the cached entry holds the line. `key` is the node's key (the cache salts it by side).
    fn vcf_check(&mut self, board: &mut Board, key: u64, attacker: Color, budget: u64) -> VcfEntry {
        let key = key ^ (0x51AB_3C0D_77E1_9A2F_u64.wrapping_mul(attacker.idx() as u64 + 1));
        let slot = (key >> 20) as usize & (self.vcf_cache.len() - 1);
        if self.vcf_cache[slot].key == key {
            return self.vcf_cache[slot];
        }
        let solver = self
            .vcf
            .get_or_insert_with(|| Box::new(ThreatSolver::small()));
        let side = board.side_to_move();
        board.set_side_to_move(attacker);
        let mut entry = VcfEntry {
            key,
            ..VcfEntry::default()
        };
        if let Some(line) = solver.solve_line_shared(board, CHECK_FOURS, budget) {
            entry.found = true;
            let n = line.len().min(VCF_LINE);
            entry.len = n as u8;
            entry.line[..n].copy_from_slice(&line[..n]);
        } else {
            entry.exhaustive = solver.nodes() < budget;
        }
        self.nodes += solver.nodes() / 4;
        board.set_side_to_move(side);
        self.vcf_cache[slot] = entry;
        entry
    }

    /// Whether the check of `attacker`'s VCF at the node `key` is cached as refuted to the end.
    fn vcf_refuted(&self, key: u64, attacker: Color) -> bool {
        let key = key ^ (0x51AB_3C0D_77E1_9A2F_u64.wrapping_mul(attacker.idx() as u64 + 1));
        let e = &self.vcf_cache[(key >> 20) as usize & (self.vcf_cache.len() - 1)];
        e.key == key && !e.found && e.exhaustive
    }

    /// Whether `me` (to move) has no VCF within the check's limit less one four, known
    /// without a search: the last two moves were `me`'s four and its forced block, and the
    /// check before the four searched every line (the ones through that four too) in vain.
    fn no_vcf_after_four(&self, board: &mut Board, key: u64, me: Color) -> bool {
        let n = board.history().len();
        if n < 2 {
            return false;
        }
        let (block, four) = (board.history()[n - 1], board.history()[n - 2]);
        if four.1 != me || block.1 == me {
            return false;
        }
        let before = key ^ Board::move_key(block.0, block.1) ^ Board::move_key(four.0, me);
        if !self.vcf_refuted(before, me) {
            return false;
        }
        board.undo();
        let forced = board.class(me, block.0) == C_FIVE;
        board.play(block.0, block.1);
        forced
    }

    /// Whether `line` (a VCF line of `attacker`, who is to move: its fours, the defender's
    /// blocks, ending with the winning move) still wins on this board, checked move by move:
    /// each attacker move a legal four (or the block of the defender's only five point that is
    /// a four too), each reply the only block, the end a five, an open four the defender cannot
    /// answer with a five, or a block black may not play. Exact: no search, only the line.
    fn line_wins(board: &mut Board, line: &[Pos], attacker: Color) -> bool {
        // Undoing the replay leaves the side of the last undone move to play: restored below.
        let side = board.side_to_move();
        let defender = attacker.other();
        let mut played = 0;
        let mut wins = false;
        let mut i = 0;
        while i < line.len() {
            // The attacker to move.
            if board.class_count(attacker, C_FIVE) > 0 {
                wins = true;
                break;
            }
            let a = line[i];
            match board.class_count(defender, C_FIVE) {
                0 => {}
                1 if board.is_empty(a) && board.class(defender, a) == C_FIVE => {}
                _ => break,
            }
            if !board.is_empty(a)
                || board.class(attacker, a) < C_FOUR
                || !board.is_legal(a, attacker)
            {
                break;
            }
            board.play(a, attacker);
            played += 1;
            // The defender to move.
            if board.class_count(defender, C_FIVE) > 0 {
                break;
            }
            match board.class_count(attacker, C_FIVE) {
                0 => break,
                1 => {}
                _ => {
                    wins = true;
                    break;
                }
            }
            let block = match line.get(i + 1) {
                Some(&b) if board.is_empty(b) && board.class(attacker, b) == C_FIVE => b,
                Some(_) => break,
                None => match five_point(board, attacker) {
                    Some(b) => b,
                    None => break,
                },
            };
            if !board.is_legal(block, defender) {
                wins = true;
                break;
            }
            if i + 1 >= line.len() {
                break;
            }
            board.play(block, defender);
            played += 1;
            i += 2;
        }
        for _ in 0..played {
            board.undo();
        }
        board.set_side_to_move(side);
        wins
    }

    /// Marks in `mask` the only cells where a defender's stone can spoil `line` (a winning VCF
    /// line of `attacker`, who is to move): the line's points, the points where the defender
    /// would make a four at any of the line's attacker turns (its blocks may then make a
    /// five or a four that must be answered), and, when the line ends with two fives, their
    /// points. A defender's stone elsewhere leaves every four of the line a four with the same
    /// block and the defender without a five. `false` when that argument is incomplete. Under
    /// renju a defender's stone may also spoil the line through forbidden points, which
    /// [`VctSolver::forbidding`] checks: a white stone may make a black attacker's move
    /// forbidden (the indices in `line` of the moves where it might, see
    /// [`VctSolver::two_threes`], go into `forbidden`, bit `i` for `line[i]`), and when the
    /// line ends on a four whose five point black may not block, a black stone may make that
    /// point legal (it goes into `last_block`).
    fn spoilers(
        board: &mut Board,
        line: &[Pos],
        attacker: Color,
        mask: &mut [bool; CELLS],
        forbidden: &mut u128,
        last_block: &mut Pos,
    ) -> bool {
        let side = board.side_to_move();
        let defender = attacker.other();
        let renju = board.rule().has_forbidden();
        let mut played = 0;
        let mut complete = false;
        let mut i = 0;
        while i < line.len() {
            if board.count_at_least(defender, C_FOUR) > 0 {
                for p in board.cells_iter() {
                    if board.is_empty(p) && board.class(defender, p) >= C_FOUR {
                        mask[p.idx()] = true;
                    }
                }
            }
            let a = line[i];
            mask[a.idx()] = true;
            if board.class(attacker, a) == C_FIVE {
                complete = i + 1 == line.len();
                break;
            }
            if renju && attacker == Color::Black && Self::two_threes(board, a) {
                if i >= 128 {
                    break;
                }
                *forbidden |= 1 << i;
            }
            board.play(a, attacker);
            played += 1;
            if i + 1 >= line.len() {
                // An open four (or two fours): its five points.
                if board.class_count(attacker, C_FIVE) >= 2 {
                    for p in board.cells_iter() {
                        if board.is_empty(p) && board.class(attacker, p) == C_FIVE {
                            mask[p.idx()] = true;
                        }
                    }
                    complete = true;
                } else if renju && defender == Color::Black {
                    // A four whose five point black may not block: black's stone elsewhere may
                    // make that point legal (see `VctSolver::forbidding`).
                    if let Some(f) = five_point(board, attacker) {
                        if !board.is_legal(f, defender) {
                            mask[f.idx()] = true;
                            *last_block = f;
                            complete = true;
                        }
                    }
                }
                break;
            }
            let b = line[i + 1];
            mask[b.idx()] = true;
            board.play(b, defender);
            played += 1;
            i += 2;
        }
        for _ in 0..played {
            board.undo();
        }
        board.set_side_to_move(side);
        complete
    }

    /// Marks the cells within four steps of the points of `line` along the four directions.
    fn near_line(line: &[Pos], near: &mut [bool; CELLS]) {
        for &q in line {
            for &d in &DIRS {
                for k in -4..=4 {
                    near[q.step(d, k).idx()] = true;
                }
            }
        }
    }

    /// Whether black's four on `a` (a move of a VCF line, played as it is) comes with threes
    /// in two other lines: only then can a white stone off the line's spoilers make it
    /// forbidden. Such a stone leaves the four a four (its five point, the line's next block,
    /// is a spoiler) and only takes away from black's shapes elsewhere (no second four, no
    /// overline, no new three), so the move turns forbidden only by a double three, which
    /// needs two lines that are threes already, one of them not a real three now (its four
    /// point forbidden) and made real by the stone.
    fn two_threes(board: &Board, a: Pos) -> bool {
        board.may_be_forbidden(a)
            && (0..4)
                .filter(|&d| board.pattern(Color::Black, d, a) == Pattern::OpenThree)
                .count()
                >= 2
    }

    /// Marks in `out` the cells of `cand` (empty, none of them a point of `line` nor one that
    /// [`VctSolver::spoilers`] marked) where a defender's stone spoils the line through
    /// forbidden points: it makes one of the black attacker's moves `forbidden` (bits by index
    /// in `line`) forbidden when the line, replayed as it is, comes to it, or it makes the
    /// line's `last_block` (a five point black may not block at the end) legal. Off the
    /// spoilers' cells the line's fours and blocks stay the same (a black block that turns
    /// forbidden only wins sooner), so these are the only ways such a stone spoils it.
    fn forbidding(
        board: &mut Board,
        line: &[Pos],
        attacker: Color,
        forbidden: u128,
        last_block: Pos,
        cand: &[bool; CELLS],
        out: &mut [bool; CELLS],
    ) {
        let side = board.side_to_move();
        let defender = attacker.other();
        let mut played = 0;
        let mut i = 0;
        while i < line.len() {
            let a = line[i];
            let more = i < 128 && forbidden >> i != 0;
            if !more && last_block.is_none() {
                break;
            }
            if more && forbidden >> i & 1 != 0 {
                Self::mark_changing_legality(board, defender, (a, attacker), false, cand, out);
            }
            if i + 1 >= line.len() {
                if !last_block.is_none() {
                    board.play(a, attacker);
                    played += 1;
                    let block = (last_block, defender);
                    Self::mark_changing_legality(board, defender, block, true, cand, out);
                }
                break;
            }
            board.play(a, attacker);
            board.play(line[i + 1], defender);
            played += 2;
            i += 2;
        }
        for _ in 0..played {
            board.undo();
        }
        board.set_side_to_move(side);
    }

    /// Marks in `out` the empty, not yet marked cells of `cand` where a `defender` stone leaves
    /// the move `target` (a point and its colour) legal exactly when `legal_after` holds.
    fn mark_changing_legality(
        board: &mut Board,
        defender: Color,
        (point, colour): (Pos, Color),
        legal_after: bool,
        cand: &[bool; CELLS],
        out: &mut [bool; CELLS],
    ) {
        for c in board.cells_iter() {
            if !cand[c.idx()] || out[c.idx()] || !board.is_empty(c) {
                continue;
            }
            board.play(c, defender);
            let legal = board.is_legal(point, colour);
            board.undo();
            if legal == legal_after {
                out[c.idx()] = true;
            }
        }
    }

    /// Whether a stone of `c` on `p` makes a three (a four one move away) or an open two, or
    /// twos in two lines: the quiet moves that may start a VCF threat.
    fn builds(board: &Board, c: Color, p: Pos) -> bool {
        let mut twos = 0;
        for d in 0..4 {
            match board.pattern(c, d, p) {
                Pattern::Three | Pattern::OpenTwo => return true,
                Pattern::Two => twos += 1,
                _ => {}
            }
        }
        twos >= 2
    }

    fn expand_attack(
        &mut self,
        board: &mut Board,
        key: u64,
        ply: usize,
        me: Color,
        list: &mut Vec<(Pos, u64, u32)>,
        scored: &mut Vec<(Pos, i32)>,
    ) -> Node {
        let opp = me.other();
        if board.class_count(me, C_FIVE) > 0 {
            return Node::Proven;
        }
        // The length limit (also on forced blocks: the defender's fours are finite, but a
        // table of lists is not).
        if ply >= self.max_ply {
            return Node::Disproven;
        }
        match self.block_five(board, key, me, opp, list) {
            Some(true) => return Node::Children,
            Some(false) => return Node::Disproven,
            None => {}
        }
        // A VCF here would be one of a four more before it, which the check there did not find
        // (only a line of exactly the check's limit could be missed).
        if !self.no_vcf_after_four(board, key, me)
            && self.vcf_check(board, key, me, OR_CHECK_NODES).found
        {
            return Node::Proven;
        }
        // Against the defender's open three only fours and the threes that take away every
        // open-four point of the defender keep the initiative.
        let counter = board.has_legal_open_four(opp);
        for p in board.cells_iter() {
            if !board.is_empty(p) || !board.near(p) {
                continue;
            }
            let class = board.class(me, p);
            let threat = class >= C_FOUR
                || (C_THREE..=C_DOUBLE_THREE).contains(&class)
                // A quiet move that builds on two lines may threaten a VCF.
                || (!counter && Self::builds(board, me, p))
                // In the second pass: a quiet move on a point where the defender would make a
                // four may block its open three and threaten a VCF at once.
                || (self.wide
                    && counter
                    && board.class(opp, p) >= C_FOUR
                    && Self::builds(board, me, p));
            if threat && board.is_legal(p, me) {
                if counter && class < C_FOUR {
                    board.play(p, me);
                    let stops = !board.has_legal_open_four(opp);
                    board.undo();
                    if !stops {
                        continue;
                    }
                }
                let score = class as i32 * 10_000
                    + board.additive_score(me, p)
                    + board.additive_score(opp, p);
                scored.push((p, score));
            }
        }
        if scored.is_empty() {
            return Node::Disproven;
        }
        scored.sort_by_key(|s| std::cmp::Reverse(s.1));
        // Initial proof numbers: fours are the cheapest to prove, quiet moves the dearest.
        list.extend(scored.iter().map(|&(p, score)| {
            let init = match (score / 10_000) as u8 {
                c if c >= C_FOUR => 1,
                C_THREE | C_DOUBLE_THREE => THREE_PN,
                _ => QUIET_PN,
            };
            (p, self.child_key(key, p, me), init)
        }));
        Node::Children
    }

    fn expand_defence(
        &mut self,
        board: &mut Board,
        key: u64,
        me: Color,
        opp: Color,
        list: &mut Vec<(Pos, u64, u32)>,
        scored: &mut Vec<(Pos, i32)>,
    ) -> Node {
        if board.class_count(me, C_FIVE) > 0 {
            return Node::Disproven;
        }
        match self.block_five(board, key, me, opp, list) {
            Some(true) => return Node::Children,
            Some(false) => return Node::Proven,
            None => {}
        }
        if board.has_legal_open_four(opp) {
            // An open three: the defender's fours, and the points that take away every
            // open-four point (the ends, and the far points where they count).
            for p in board.cells_iter() {
                if !board.is_empty(p) {
                    continue;
                }
                let (mine, theirs) = (board.class(me, p), board.class(opp, p));
                if (mine < C_FOUR && theirs < C_FOUR) || !board.is_legal(p, me) {
                    continue;
                }
                if mine < C_FOUR {
                    board.play(p, me);
                    let stops = !board.has_legal_open_four(opp);
                    board.undo();
                    if !stops {
                        continue;
                    }
                }
                let score = mine as i32 * 10_000
                    + board.additive_score(opp, p)
                    + board.additive_score(me, p);
                scored.push((p, score));
            }
        } else {
            let vcf = self.vcf_check(board, key, opp, CHECK_NODES);
            if !vcf.found {
                // The attacker's last move threatens nothing.
                return Node::Disproven;
            }
            // A VCF threat: a move may stop it by a block on its line, a stone that turns one
            // of its blocks into a four, ..., so the candidates are the moves near the line's
            // points on its lines and the defender's fours; of those only the moves after which
            // the line no longer wins (replayed as it is) are defences to refute, the
            // defender's fours and the points of the line first.
            let line = &vcf.line[..vcf.len as usize];
            debug_assert!(Self::line_wins(&mut board.clone(), line, opp));
            // The cells where a stone may spoil the line (see `spoilers`), else (a line that
            // argument does not cover) the cells within four steps of its points along the
            // four directions.
            let mut zone = [false; CELLS];
            // Cells off the spoilers where the defender's stone makes one of the line's black
            // moves forbidden (they spoil it without a replay).
            let mut forbids = [false; CELLS];
            let mut forbidden = 0;
            let mut last_block = Pos::NONE;
            let complete =
                Self::spoilers(board, line, opp, &mut zone, &mut forbidden, &mut last_block);
            if !complete || forbidden != 0 || !last_block.is_none() {
                let mut near = [false; CELLS];
                Self::near_line(line, &mut near);
                if complete {
                    if !last_block.is_none() {
                        Self::near_line(&[last_block], &mut near);
                    }
                    for (n, &z) in near.iter_mut().zip(zone.iter()) {
                        *n &= !z;
                    }
                    let f = last_block;
                    Self::forbidding(board, line, opp, forbidden, f, &near, &mut forbids);
                } else {
                    zone = near;
                }
            }
            for p in board.cells_iter() {
                if !board.is_empty(p) {
                    continue;
                }
                let mine = board.class(me, p);
                let candidate = zone[p.idx()] || mine >= C_FOUR || forbids[p.idx()];
                if !candidate || !board.is_legal(p, me) {
                    continue;
                }
                // A move after which the attacker's line still wins stops nothing.
                let stops = forbids[p.idx()] || {
                    board.play(p, me);
                    let stops = !Self::line_wins(board, line, opp);
                    board.undo();
                    stops
                };
                if !stops {
                    continue;
                }
                let on_line = line.contains(&p) as i32;
                let score = (mine >= C_FOUR) as i32 * 200_000
                    + on_line * 100_000
                    + board.additive_score(opp, p)
                    + board.additive_score(me, p);
                scored.push((p, score));
            }
        }
        if scored.is_empty() {
            return Node::Proven;
        }
        scored.sort_by_key(|s| std::cmp::Reverse(s.1));
        list.extend(
            scored
                .iter()
                .map(|&(p, _)| (p, self.child_key(key, p, me), 1)),
        );
        Node::Children
    }

    /// Simulation: at a defender's node (`ply`), tries to prove its child `ck` (the move `m`,
    /// not searched yet) by the proof of a proven sibling, i.e. with the same attacker moves,
    /// the defender's stone on `m` instead of the sibling's point. True when that proved it
    /// (the child and the nodes on the way are stored proven). Defences against one threat
    /// are often refuted the same way, and the check costs about the size of that proof.
    fn try_simulation(&mut self, board: &mut Board, ck: u64, m: Pos, ply: usize) -> bool {
        let n = self.lists[ply].len();
        let proven = (0..n)
            .filter(|&i| self.lookup(self.lists[ply][i].1).0 == 0)
            .count() as u32;
        if proven == 0 {
            return false;
        }
        let slot = (ck >> 32) as usize & (self.sim_failed.len() - 1);
        if self.sim_failed[slot] == (ck, proven) {
            return false;
        }
        let me = board.side_to_move();
        let mut tried = 0;
        for i in 0..n {
            let sibling = self.lists[ply][i].1;
            if sibling == ck || self.lookup(sibling).0 != 0 {
                continue;
            }
            tried += 1;
            if tried > SIM_SIBLINGS {
                break;
            }
            self.sim_left = SIM_NODES;
            board.play(m, me);
            let proven = self.simulate(board, ck, ply + 1, ck ^ sibling);
            board.undo();
            if proven {
                return true;
            }
            if self.aborted {
                return false;
            }
        }
        self.sim_failed[slot] = (ck, proven);
        false
    }

    /// Whether the node `key` (at `ply`) is proven by the proof of the node `key ^ diff` held
    /// in the table: at the attacker's turns a move whose node there is proven, at the
    /// defender's every move (as generated here) with its node there proven. Each node is
    /// expanded as in the search, so a proof found is one of the search's own.
    fn simulate(&mut self, board: &mut Board, key: u64, ply: usize, diff: u64) -> bool {
        if self.lookup(key).0 == 0 {
            return true;
        }
        if self.sim_left == 0 || self.aborted {
            return false;
        }
        self.sim_left -= 1;
        self.nodes += 1;
        if self.out_of_budget() {
            return false;
        }
        let or = ply % 2 == 0;
        match self.expand(board, key, ply, or) {
            Node::Proven => {
                self.store(key, 0, INF);
                return true;
            }
            Node::Disproven => {
                self.store(key, INF, 0);
                return false;
            }
            Node::Children => {}
        }
        let me = board.side_to_move();
        for i in 0..self.lists[ply].len() {
            let (m, ck, _) = self.lists[ply][i];
            if self.lookup(ck).0 == 0 {
                if or {
                    self.store(key, 0, INF);
                    return true;
                }
                continue;
            }
            if self.lookup(ck ^ diff).0 != 0 {
                if or {
                    continue;
                }
                return false;
            }
            board.play(m, me);
            let proven = self.simulate(board, ck, ply + 1, diff);
            board.undo();
            if proven == or {
                // An attacker's move that proves, or a defence that does not.
                if or {
                    self.store(key, 0, INF);
                }
                return or;
            }
        }
        if or {
            return false;
        }
        self.store(key, 0, INF);
        true
    }

    /// Whether the search must end now (node budget, deadline or stop flag), noted in
    /// `aborted`. The clock and the flag are read every 32 expansions: one expansion may run VCF
    /// checks and replays, so a count of nodes would space the reads too unevenly.
    fn out_of_budget(&mut self) -> bool {
        self.expansions = self.expansions.wrapping_add(1);
        if self.nodes >= self.budget
            || (self.expansions % 32 == 0
                && (self.deadline.is_some_and(|d| Instant::now() >= d)
                    || self
                        .stop
                        .as_ref()
                        .is_some_and(|s| s.load(Ordering::Relaxed))))
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Multiple-iterative deepening: searches the node until its proof number reaches `thpn`
    /// or its disproof number `thdn`; returns them.
    fn mid(&mut self, board: &mut Board, key: u64, ply: usize, thpn: u32, thdn: u32) -> (u32, u32) {
        self.nodes += 1;
        if self.out_of_budget() {
            return self.lookup(key);
        }
        let or = ply % 2 == 0;
        match self.expand(board, key, ply, or) {
            Node::Proven => {
                self.store(key, 0, INF);
                return (0, INF);
            }
            Node::Disproven => {
                self.store(key, INF, 0);
                return (INF, 0);
            }
            Node::Children => {}
        }
        let me = board.side_to_move();
        let n = self.lists[ply].len();
        loop {
            // The node's numbers from its children, the most proving child and the runner-up.
            let (mut pn, mut dn) = if or { (INF, 0u32) } else { (0u32, INF) };
            let mut best = 0;
            let mut best_num = INF;
            let mut second = INF;
            let (mut best_pn, mut best_dn) = (INF, INF);
            for i in 0..n {
                let (_, ck, init) = self.lists[ply][i];
                let (cpn, cdn) = self.lookup_or(ck, init);
                let (num, other) = if or { (cpn, cdn) } else { (cdn, cpn) };
                if or {
                    pn = pn.min(cpn);
                    dn = dn.saturating_add(cdn).min(INF);
                } else {
                    pn = pn.saturating_add(cpn).min(INF);
                    dn = dn.min(cdn);
                }
                let _ = other;
                if num < best_num {
                    second = best_num;
                    best_num = num;
                    best = i;
                    best_pn = cpn;
                    best_dn = cdn;
                } else if num < second {
                    second = num;
                }
            }
            if pn == 0 && ply == 0 {
                // The proven child (the one with proof number 0) is the win.
                if let Some(&(m, _, _)) = self.lists[0]
                    .iter()
                    .find(|&&(_, ck, _)| self.lookup(ck).0 == 0)
                {
                    self.root_win = m;
                }
            }
            if pn >= thpn || dn >= thdn || pn == 0 || dn == 0 || self.aborted {
                self.store(key, pn, dn);
                return (pn, dn);
            }
            // Thresholds for the chosen child (the 1 + epsilon trick against thrashing, epsilon
            // 1/2: 1/4 and 1 measured worse on vct.txt).
            let grow = |x: u32| x.saturating_add(x / 2).saturating_add(1).min(INF - 1);
            let (cthpn, cthdn) = if or {
                (thpn.min(grow(second)), thdn - dn + best_dn)
            } else {
                (thpn - pn + best_pn, thdn.min(grow(second)))
            };
            let (m, ck, _) = self.lists[ply][best];
            if !or && self.try_simulation(board, ck, m, ply) {
                continue;
            }
            board.play(m, me);
            let (cpn, cdn) = self.mid(board, ck, ply + 1, cthpn, cthdn);
            board.undo();
            self.store(ck, cpn, cdn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::threat::tests::board;
    use super::*;

    /// Labelled positions of the tests: VCF and VCT puzzles of all rules.
    fn puzzles() -> Vec<crate::solve::Puzzle> {
        include_str!("testdata/vct_lines.txt")
            .lines()
            .chain(include_str!("testdata/threats.txt").lines())
            .filter_map(crate::solve::parse_line)
            .collect()
    }

    /// The points where `c` makes a five at once under the board's rule.
    fn five_points(b: &Board, c: Color) -> Vec<Pos> {
        b.cells_iter()
            .filter(|&p| b.is_empty(p) && b.is_winning_move(p, c))
            .collect()
    }

    /// Checks a claimed win by threats move by move under the real rules, trusting nothing of
    /// the solver's own reasoning: at the attacker's turns a five, an open four or a replayed
    /// VCF line ends the line, or the move is one the solver's last proof (its table) holds
    /// proven, or else one a new search names; at the defender's turns every legal move of the
    /// defender is tried, not only the defences the solver generates.
    struct WinChecker {
        /// The solver whose proof is checked (its table is read, never searched again).
        proof: VctSolver,
        /// Searches the positions the proof's table no longer holds.
        vct: VctSolver,
        vcf: ThreatSolver,
        /// Defender turns checked, attacker moves taken from the proof, and from new searches.
        defender_turns: u64,
        from_proof: u64,
        solved: u64,
    }

    impl WinChecker {
        fn new() -> WinChecker {
            WinChecker {
                proof: VctSolver::new(),
                vct: VctSolver::new(),
                vcf: ThreatSolver::vcf(),
                defender_turns: 0,
                from_proof: 0,
                solved: 0,
            }
        }

        /// Whether the position (the defender to move) is proven in the last proof's table.
        fn proven(&self, b: &Board) -> bool {
            self.proof.lookup(b.hash() ^ self.proof.salt).0 == 0
        }

        /// Whether `line` (attacker fours and the defender's forced replies) wins as played:
        /// before every attacker move the defender has no five; every attacker move is legal
        /// and leaves a five point; a single five point is the defender's only move; the line
        /// ends when the defender cannot block (two fives, or a block black may not play).
        fn vcf_line_wins(b: &mut Board, line: &[Pos], att: Color) -> bool {
            let def = att.other();
            let mut played = 0;
            let mut wins = false;
            for &a in line.iter().step_by(2) {
                if !five_points(b, att).is_empty() {
                    wins = true;
                    break;
                }
                if !five_points(b, def).is_empty() || !b.is_empty(a) || !b.is_legal(a, att) {
                    break;
                }
                b.play(a, att);
                played += 1;
                let fives = five_points(b, att);
                if fives.is_empty() {
                    break;
                }
                if fives.len() >= 2 || !b.is_legal(fives[0], def) {
                    wins = true;
                    break;
                }
                b.play(fives[0], def);
                played += 1;
            }
            for _ in 0..played {
                b.undo();
            }
            wins
        }

        /// `att` to move wins within `left` threats named by the solver (forced blocks and the
        /// final VCF lines are not counted).
        fn attacker_wins(&mut self, b: &mut Board, att: Color, left: usize) -> bool {
            let def = att.other();
            if !five_points(b, att).is_empty() {
                return true;
            }
            let def_fives = five_points(b, def);
            if !def_fives.is_empty() {
                // The only move is the block.
                if def_fives.len() > 1 || !b.is_legal(def_fives[0], att) {
                    return false;
                }
                b.play(def_fives[0], att);
                let wins = self.defender_loses(b, att, left);
                b.undo();
                return wins;
            }
            // A move that leaves two five points (the defender has none) wins.
            let cells: Vec<Pos> = b.cells_iter().collect();
            for &p in &cells {
                if b.is_empty(p) && b.class(att, p) >= C_FOUR && b.is_legal(p, att) {
                    b.play(p, att);
                    let fives = five_points(b, att).len();
                    b.undo();
                    if fives >= 2 {
                        return true;
                    }
                }
            }
            if let Some(line) = self.vcf.solve_line(b, 40, 200_000).map(|l| l.to_vec()) {
                if Self::vcf_line_wins(b, &line, att) {
                    return true;
                }
            }
            if left == 0 {
                return false;
            }
            let mut tree_move = None;
            for &p in &cells {
                if b.is_empty(p) && b.is_legal(p, att) {
                    b.play(p, att);
                    let proven = self.proven(b);
                    b.undo();
                    if proven {
                        tree_move = Some(p);
                        break;
                    }
                }
            }
            let m = match tree_move {
                Some(m) => {
                    self.from_proof += 1;
                    m
                }
                None => {
                    self.solved += 1;
                    match self.vct.solve(b, left, 2_000_000, None) {
                        Some(m) => m,
                        None => return false,
                    }
                }
            };
            if !b.is_empty(m) || !b.is_legal(m, att) {
                return false;
            }
            b.play(m, att);
            let wins = self.defender_loses(b, att, left - 1);
            b.undo();
            wins
        }

        /// The defender to move loses whatever legal move it plays.
        fn defender_loses(&mut self, b: &mut Board, att: Color, left: usize) -> bool {
            let def = att.other();
            self.defender_turns += 1;
            if !five_points(b, def).is_empty() {
                return false;
            }
            let cells: Vec<Pos> = b.cells_iter().collect();
            for d in cells {
                if !b.is_empty(d) || !b.is_legal(d, def) {
                    continue;
                }
                b.play(d, def);
                let wins = self.attacker_wins(b, att, left);
                b.undo();
                if !wins {
                    return false;
                }
            }
            true
        }
    }

    #[test]
    fn the_win_checker_rejects_a_win_that_is_not_one() {
        let mut checker = WinChecker::new();
        // The defender has a five: every claim fails.
        let mut b = board(
            &[(7, 7), (8, 7), (9, 7), (10, 7)],
            &[(0, 0), (0, 1), (0, 2), (0, 3)],
        );
        b.set_side_to_move(Color::White);
        assert!(!checker.defender_loses(&mut b, Color::Black, 4));
        // An open three with no threats left: the defender blocks it.
        let mut b = board(&[(7, 7), (8, 7), (9, 7)], &[(0, 0), (0, 14)]);
        b.set_side_to_move(Color::White);
        assert!(!checker.defender_loses(&mut b, Color::Black, 0));
        // An open four wins.
        let mut b = board(&[(7, 7), (8, 7), (9, 7), (10, 7)], &[(0, 0), (0, 14)]);
        b.set_side_to_move(Color::White);
        assert!(checker.defender_loses(&mut b, Color::Black, 0));
    }

    #[test]
    fn the_vct_wins_found_replay_against_every_defence() {
        for (id, moves, threats) in [
            ("vct-quintet-006", 0, 8),
            ("vct-quintet-007", 0, 8),
            ("vct-quintet-008", 0, 8),
            ("vct-quintet-009", 0, 8),
            ("vct-quintet-011", 0, 8),
            ("vct-quintet-010", 0, 16),
            ("vct-quintet-013", 0, 16),
            // The last 17 moves of vct-quintet-015's 35-move line, and all of it.
            ("vct-quintet-015", 18, 12),
            ("vct-quintet-015", 0, 24),
        ] {
            let p = puzzles()
                .into_iter()
                .find(|p| p.id == id)
                .expect("in testdata");
            let mut b = p.board.clone();
            for &m in &pv_015()[..moves] {
                let c = b.side_to_move();
                let m = Pos::new(m.0, m.1);
                assert!(b.is_empty(m) && b.is_legal(m, c), "{id}: {m}");
                b.play(m, c);
            }
            let att = b.side_to_move();
            let mut checker = WinChecker::new();
            let first = checker.proof.solve(&mut b, threats, 4_000_000, None);
            let first = first.unwrap_or_else(|| panic!("{id}: a win"));
            // The first move reported is a proven child of the root.
            b.play(first, att);
            assert!(checker.proven(&b), "{id}: {first}");
            b.undo();
            assert!(checker.attacker_wins(&mut b, att, threats), "{id}");
            assert!(checker.from_proof > 0 && checker.defender_turns > 0, "{id}");
            eprintln!(
                "{id}: {} moves from the proof, {} searched, {} defender turns",
                checker.from_proof, checker.solved, checker.defender_turns
            );
        }
    }

    #[test]
    fn the_second_pass_adds_quiet_blocks_of_an_open_three() {
        // White's open three on row 7; black's 4,7 blocks it (white's 8,7 then makes only a
        // four) and builds an open two on column 4, but makes no three: only the second pass
        // (after a refutation) tries it; 8,7 is a block that builds nothing for black.
        let mut b = board(
            &[(4, 5), (10, 10), (12, 3), (1, 12)],
            &[(5, 7), (6, 7), (7, 7), (13, 13)],
        );
        let mut s = VctSolver::new();
        s.solve(&mut b, 1, 1, None);
        let mut listed = |wide: bool| {
            s.new_salt();
            s.wide = wide;
            let key = b.hash() ^ s.salt;
            let node = s.expand(&mut b, key, 0, true);
            matches!(node, Node::Children).then(|| s.lists[0].iter().map(|l| l.0).collect())
        };
        // Black has no four or three to answer with: the first pass refutes the node at once.
        assert_eq!(listed(false), None);
        let wide: Vec<Pos> = listed(true).expect("the quiet block");
        assert!(wide.contains(&Pos::new(4, 7)), "{wide:?}");
        assert!(!wide.contains(&Pos::new(8, 7)), "{wide:?}");
    }

    /// vct-quintet-015's solution line.
    fn pv_015() -> [(usize, usize); 35] {
        [
            (5, 9),
            (4, 10),
            (4, 8),
            (3, 7),
            (6, 6),
            (7, 5),
            (5, 5),
            (4, 4),
            (7, 11),
            (8, 12),
            (9, 9),
            (8, 8),
            (8, 10),
            (6, 12),
            (3, 9),
            (2, 10),
            (9, 10),
            (7, 10),
            (9, 7),
            (9, 6),
            (8, 6),
            (9, 5),
            (9, 11),
            (9, 8),
            (10, 8),
            (11, 7),
            (12, 10),
            (11, 9),
            (10, 11),
            (8, 11),
            (9, 12),
            (9, 13),
            (10, 10),
            (11, 10),
            (10, 9),
        ]
    }

    #[test]
    fn a_defender_stone_off_the_spoilers_leaves_a_vcf_line_winning() {
        // Along every VCF line found (from each of its attacker turns on), a defender's stone
        // on any legal cell the spoilers leave out must not stop the rest of the line, unless
        // it makes one of the line's black moves forbidden.
        let mut checked = 0;
        let mut forbidding = 0;
        let mut lasts = 0;
        for puzzle in puzzles() {
            let mut b = puzzle.board.clone();
            let attacker = b.side_to_move();
            let defender = attacker.other();
            let Some(line) = ThreatSolver::small()
                .solve_line(&mut b, 40, 500_000)
                .map(|l| l.to_vec())
            else {
                continue;
            };
            for start in (0..line.len()).step_by(2) {
                let rest = &line[start..];
                assert!(
                    VctSolver::line_wins(&mut b, rest, attacker),
                    "{}",
                    puzzle.id
                );
                let mut mask = [false; CELLS];
                let mut forbidden = 0;
                let mut last = Pos::NONE;
                let spoilers = VctSolver::spoilers;
                if spoilers(&mut b, rest, attacker, &mut mask, &mut forbidden, &mut last) {
                    // Off the spoilers a stone spoils the line only by making one of its
                    // black moves forbidden, and then near the line.
                    let mut off = [false; CELLS];
                    for p in b.cells_iter() {
                        off[p.idx()] = b.is_empty(p) && !mask[p.idx()];
                    }
                    let mut forbids = [false; CELLS];
                    let forbid = VctSolver::forbidding;
                    forbid(&mut b, rest, attacker, forbidden, last, &off, &mut forbids);
                    let mut near = [false; CELLS];
                    VctSolver::near_line(rest, &mut near);
                    if !last.is_none() {
                        VctSolver::near_line(&[last], &mut near);
                        lasts += 1;
                    }
                    for p in b.cells_iter() {
                        if !off[p.idx()] || !b.is_legal(p, defender) {
                            continue;
                        }
                        b.play(p, defender);
                        let wins = VctSolver::line_wins(&mut b, rest, attacker);
                        b.undo();
                        assert_eq!(
                            wins,
                            !forbids[p.idx()],
                            "{} from move {start}: {p}",
                            puzzle.id
                        );
                        assert!(
                            wins || near[p.idx()],
                            "{} from move {start}: {p}",
                            puzzle.id
                        );
                        checked += 1;
                        forbidding += !wins as u32;
                    }
                }
                // On to the next attacker turn.
                if start + 1 < line.len() {
                    b.play(line[start], attacker);
                    b.play(line[start + 1], defender);
                }
            }
        }
        assert!(checked > 5_000, "{checked}");
        eprintln!("{checked} cells off the spoilers, {forbidding} spoil, {lasts} forbidden ends");
    }

    #[test]
    fn a_three_that_blocks_the_defenders_open_three_keeps_the_initiative() {
        // vct-quintet-015 after 18 moves of its solution, black's three on (9,7) and white's
        // block in its middle (9,8), which also makes white an open three: black wins only
        // by a counter-three or a four.
        let p = puzzles()
            .into_iter()
            .find(|p| p.id == "vct-quintet-015")
            .expect("in testdata");
        let mut b = p.board.clone();
        for &(x, y) in pv_015()[..19].iter().chain(&[(9, 8)]) {
            let c = b.side_to_move();
            b.play(Pos::new(x, y), c);
        }
        assert!(VctSolver::new().solve(&mut b, 16, 300_000, None).is_some());
        // Two black stones against white's open three: no fours, and no three blocks it.
        let mut b = board(&[(7, 7), (8, 7)], &[(5, 2), (6, 2), (7, 2), (0, 14)]);
        assert_eq!(VctSolver::new().solve(&mut b, 10, 300_000, None), None);
    }

    #[test]
    fn vct_finds_a_double_open_three_that_vcf_cannot() {
        // Two open twos crossing at (7,7): the double three there wins by threats, not by fours.
        let mut b = board(
            &[(5, 7), (6, 7), (7, 5), (7, 6)],
            &[(0, 0), (14, 0), (0, 14), (14, 14)],
        );
        assert_eq!(
            super::super::threat::ThreatSolver::vcf().solve(&mut b, 10, 100_000, None),
            None
        );
        assert!(VctSolver::new().solve(&mut b, 6, 200_000, None).is_some());
        // A VCF at the root (the node is proven by its check, without children) is a win too.
        let mut b = board(
            &[(6, 7), (7, 7), (9, 7), (10, 5), (10, 6)],
            &[(5, 7), (0, 0), (0, 2), (0, 4), (0, 6)],
        );
        let m = VctSolver::new().solve(&mut b, 6, 200_000, None);
        assert!(
            m == Some(Pos::new(8, 7)) || m == Some(Pos::new(10, 7)),
            "{m:?}"
        );
        // A lone stone is no win.
        let mut b = board(&[(7, 7)], &[(0, 0)]);
        assert_eq!(VctSolver::new().solve(&mut b, 6, 200_000, None), None);
    }
}
