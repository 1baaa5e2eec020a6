//! The transposition table: 16-byte entries in 64-byte buckets of four, replaced by depth and age.

use crate::game::Pos;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicU8};

pub const BOUND_NONE: u8 = 0;
pub const BOUND_UPPER: u8 = 1;
pub const BOUND_LOWER: u8 = 2;
pub const BOUND_EXACT: u8 = 3;

/// Words in a 4 KiB memory page.
const PAGE_WORDS: usize = 4096 / 8;
/// The most of a new table committed at once (about 90 ms on the development machine).
const PREFAULT_MAX_BYTES: usize = 256 << 20;
/// Entries per bucket; a bucket is 64 bytes, one cache line.
const BUCKET: usize = 4;
/// Each entry is two words: the full key, and the packed data.
const WORDS: usize = 2;
/// Ages wrap in five bits (the sixth of the byte holds the PV flag).
const AGE_MASK: u8 = 31;

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub best: Pos,
    pub score: i32,
    pub depth: i32,
    pub bound: u8,
    /// The position was on a principal variation when stored (or in an earlier search).
    pub pv: bool,
}

/// Packed data word: best (16) | score (16) | unused (16) | depth (8) | age << 3 | pv << 2 | bound (8).
#[inline]
fn pack(best: Pos, score: i32, depth: i32, age: u8, pv: bool, bound: u8) -> u64 {
    let score = score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let depth = depth.clamp(-100, 127) as i8 as u8 as u64;
    best.0 as u64 | score << 16 | depth << 48 | ((age << 3 | (pv as u8) << 2 | bound) as u64) << 56
}

#[inline]
fn data_bound(d: u64) -> u8 {
    (d >> 56) as u8 & 3
}
#[inline]
fn data_age(d: u64) -> u8 {
    (d >> 59) as u8
}
#[inline]
fn data_pv(d: u64) -> bool {
    (d >> 58) & 1 != 0
}
#[inline]
fn data_depth(d: u64) -> i32 {
    (d >> 48) as u8 as i8 as i32
}

/// Shared by all search threads: entries are two relaxed atomic words, the first holding
/// `key ^ data`, so an entry torn by two threads writing at once fails the key check instead of
/// returning another position's data.
pub struct TranspositionTable {
    words: Vec<AtomicU64>,
    /// Index of the first word of bucket 0: the vector has a bucket's worth of slack words so
    /// that every bucket starts on a cache line (the allocator only aligns to 16 bytes, and a
    /// bucket across two lines costs two misses a probe).
    first: usize,
    buckets: usize,
    age: AtomicU8,
}

/// A zeroed vector of atomics from the allocator's zeroed memory (building it with
/// `AtomicU64::new(0)` element by element would be much slower); the caller commits its pages.
fn zeroed_atomics(len: usize) -> Vec<AtomicU64> {
    let mut v = std::mem::ManuallyDrop::new(vec![0u64; len]);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: AtomicU64 has the same size, alignment (on the 64-bit targets this engine is built
    // for; checked below) and bit validity as u64, and the allocation is handed over whole.
    const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());
    unsafe { Vec::from_raw_parts(ptr as *mut AtomicU64, len, cap) }
}

impl TranspositionTable {
    /// A table using at most `bytes` (rounded down to a power-of-two bucket count, at least one).
    pub fn new(bytes: usize) -> TranspositionTable {
        let bucket_bytes = BUCKET * WORDS * 8;
        let n = Self::rounded_bytes(bytes) / bucket_bytes;
        let words = zeroed_atomics(n * BUCKET * WORDS + BUCKET * WORDS - 1);
        // Commit every page now: a page first written during the search costs a fault there,
        // and with several threads each such fault also stops the others (the zero page's
        // mapping is flushed from every core), which made two threads slower than one.
        // Up to a cap, so that an explicit huge table does not eat a short first move.
        for w in words
            .iter()
            .take(PREFAULT_MAX_BYTES / 8)
            .step_by(PAGE_WORDS)
        {
            w.store(0, Relaxed);
        }
        let misalignment = words.as_ptr() as usize % bucket_bytes;
        let first = (bucket_bytes - misalignment) % bucket_bytes / 8;
        TranspositionTable {
            words,
            first,
            buckets: n,
            age: AtomicU8::new(0),
        }
    }

    /// The size of the table `new(bytes)` makes: a power-of-two count of buckets, at least one.
    pub fn rounded_bytes(bytes: usize) -> usize {
        let bucket_bytes = BUCKET * WORDS * 8;
        let n = (bytes / bucket_bytes).max(1);
        (1usize << (usize::BITS - 1 - n.leading_zeros())) * bucket_bytes
    }

    pub fn size_bytes(&self) -> usize {
        self.buckets * BUCKET * WORDS * 8
    }

    /// Asks the processor to load the bucket of `key` into the cache, so that a probe soon
    /// after (the child's, once the move is made) does not wait for memory.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.words[self.bucket_start(key)..].as_ptr();
            // SAFETY: a prefetch is only a hint: it never faults and changes no memory, and the
            // pointer is inside the table. Measured with the cache-line buckets: `bench 9` +10 %
            // nodes/s (probes were 13 % of the search's time in perf).
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    p as *const i8,
                )
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// How full the table is, in thousandths: the share of entries that hold a position, over
    /// the first thousand buckets (a sample, as the table fills evenly by key).
    pub fn usage_permille(&self) -> usize {
        let sampled = self.buckets.min(1000);
        let start = self.first;
        let used = self.words[start..start + sampled * BUCKET * WORDS]
            .chunks_exact(WORDS)
            .filter(|e| data_bound(e[1].load(Relaxed)) != BOUND_NONE)
            .count();
        used * 1000 / (sampled * BUCKET)
    }

    pub fn clear(&self) {
        self.words.iter().for_each(|w| w.store(0, Relaxed));
        self.age.store(0, Relaxed);
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        self.age
            .store((self.age.load(Relaxed) + 1) & AGE_MASK, Relaxed);
    }

    #[inline]
    fn bucket_start(&self, key: u64) -> usize {
        self.first + ((key as usize) & (self.buckets - 1)) * BUCKET * WORDS
    }

    pub fn probe(&self, key: u64) -> Option<Hit> {
        let start = self.bucket_start(key);
        let bucket = &self.words[start..start + BUCKET * WORDS];
        bucket
            .chunks_exact(WORDS)
            .find_map(|e| {
                let d = e[1].load(Relaxed);
                (e[0].load(Relaxed) ^ d == key && data_bound(d) != BOUND_NONE).then_some(d)
            })
            .map(|d| Hit {
                best: Pos(d as u16),
                score: (d >> 16) as u16 as i16 as i32,
                depth: data_depth(d),
                bound: data_bound(d),
                pv: data_pv(d),
            })
    }

    pub fn store(&self, key: u64, best: Pos, score: i32, depth: i32, bound: u8, pv: bool) {
        let age = self.age.load(Relaxed);
        let start = self.bucket_start(key);
        let bucket = &self.words[start..start + BUCKET * WORDS];
        // Same position first, else an empty slot, else the entry worth least: shallow and old.
        let mut victim = 0;
        let mut victim_data = 0;
        let mut same = false;
        let mut worst = i32::MAX;
        for (j, e) in bucket.chunks_exact(WORDS).enumerate() {
            let d = e[1].load(Relaxed);
            let k = e[0].load(Relaxed) ^ d;
            if data_bound(d) == BOUND_NONE || k == key {
                victim = j;
                victim_data = d;
                same = k == key && data_bound(d) != BOUND_NONE;
                break;
            }
            let old = ((age as i32 - data_age(d) as i32) & AGE_MASK as i32) * 4;
            let worth = data_depth(d) - old;
            if worth < worst {
                worst = worth;
                victim = j;
                victim_data = d;
            }
        }
        // Keep a deeper exact result for the same position unless this one is exact too.
        if same
            && data_bound(victim_data) == BOUND_EXACT
            && bound != BOUND_EXACT
            && data_depth(victim_data) > depth
        {
            return;
        }
        let best = if best.is_none() && same {
            Pos(victim_data as u16)
        } else {
            best
        };
        let data = pack(best, score, depth, age, pv, bound);
        let e = &bucket[victim * WORDS..victim * WORDS + WORDS];
        e[0].store(key ^ data, Relaxed);
        e[1].store(data, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_entries() {
        let tt = TranspositionTable::new(1 << 16);
        assert_eq!(tt.size_bytes(), 1 << 16);
        tt.store(12345, Pos(77), -10, -3, BOUND_EXACT, true);
        let h = tt.probe(12345).unwrap();
        assert_eq!(
            (h.best, h.score, h.depth, h.bound, h.pv),
            (Pos(77), -10, -3, BOUND_EXACT, true)
        );
        tt.store(999, Pos(3), 7, 9, BOUND_LOWER, false);
        let h = tt.probe(999).unwrap();
        assert_eq!((h.depth, h.bound, h.pv), (9, BOUND_LOWER, false));
        assert!(tt.probe(54321).is_none());
        tt.clear();
        assert!(tt.probe(12345).is_none());
    }

    #[test]
    fn usage_counts_the_entries_that_hold_a_position() {
        // 256 buckets of 4 entries, all sampled.
        let tt = TranspositionTable::new(256 * 64);
        assert_eq!(tt.usage_permille(), 0);
        // Keys 0..256 land in a bucket each: a quarter of the entries.
        for key in 0..256u64 {
            tt.store(key, Pos(1), 0, 1, BOUND_LOWER, false);
        }
        assert_eq!(tt.usage_permille(), 250);
        tt.clear();
        assert_eq!(tt.usage_permille(), 0);
    }

    #[test]
    fn rounded_bytes_is_the_size_new_makes() {
        for bytes in [
            0,
            1,
            63,
            64,
            65,
            1 << 16,
            (1 << 16) + 1,
            3 << 20,
            367_001_600 - (40 << 20),
        ] {
            let rounded = TranspositionTable::rounded_bytes(bytes);
            assert_eq!(
                TranspositionTable::new(bytes).size_bytes(),
                rounded,
                "{bytes}"
            );
            assert!(rounded <= bytes.max(64) && rounded * 2 > bytes, "{bytes}");
        }
    }

    #[test]
    fn buckets_start_on_cache_lines() {
        for bytes in [64, 1 << 16, 3 << 20] {
            let tt = TranspositionTable::new(bytes);
            for key in [0u64, 1, 12345, u64::MAX] {
                let start = tt.bucket_start(key);
                assert_eq!(tt.words[start..].as_ptr() as usize % 64, 0);
                assert!(start + BUCKET * WORDS <= tt.words.len());
            }
        }
    }

    /// The resident kilobytes of the memory mapping that holds `addr` (from /proc/self/smaps).
    #[cfg(target_os = "linux")]
    fn resident_kb_of_mapping(addr: usize) -> Option<usize> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = first.split_once('-') {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    inside = (lo..hi).contains(&addr);
                    continue;
                }
            }
            if inside {
                if let Some(kb) = line.strip_prefix("Rss:") {
                    return kb.trim().trim_end_matches("kB").trim().parse().ok();
                }
            }
        }
        None
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_new_table_is_resident_before_the_search_touches_it() {
        // Committed at creation: pages first written in the search would fault there, and with
        // several threads every such fault stalls the others.
        let tt = TranspositionTable::new(32 << 20);
        let addr = tt.words.as_ptr() as usize + (16 << 20);
        let kb = resident_kb_of_mapping(addr).expect("the table's mapping is listed");
        assert!(kb >= 31 << 10, "only {kb} KB of a 32 MB table resident");
    }

    #[test]
    fn size_rounds_down_to_a_power_of_two() {
        assert_eq!(TranspositionTable::new(100_000).size_bytes(), 65536);
        assert_eq!(TranspositionTable::new(1).size_bytes(), 64);
    }
}
