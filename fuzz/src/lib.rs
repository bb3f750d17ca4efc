//! What the fuzz targets share: the resource oracle.
//!
//! A compile may cost time and memory in proportion to its input, not more: past
//! [`BASE_SECONDS`] plus [`SECONDS_PER_BYTE`] for each input byte of CPU time, or
//! [`BASE_BYTES`] plus [`BYTES_PER_BYTE`] for each input byte of peak heap (above what was held
//! before), the target panics, and libFuzzer keeps the input as a finding. A 379-byte model
//! unrolled into 16.8 million nodes, or a 100-byte Range folded into 671 MB, fails it; the
//! coarser limits libFuzzer itself sets (`scripts/fuzz.sh`: 60 s for one input, 2 GiB) catch only
//! the worst of such inputs, and only on a quiet machine.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// CPU seconds any input may take (the fuzz build is optimized, with debug assertions).
pub const BASE_SECONDS: f64 = 5.0;
/// CPU seconds each input byte adds (64 KiB, libFuzzer's longest input here: 70 s in all).
pub const SECONDS_PER_BYTE: f64 = 0.001;
/// Heap any input may hold at its peak: the default constant-folding budget (64 MiB) and room.
pub const BASE_BYTES: usize = 256 << 20;
/// Heap each input byte adds.
pub const BYTES_PER_BYTE: usize = 4 << 10;

/// The system allocator, counting the bytes held now and the most held since the last reset.
pub struct CountingAllocator;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = HELD.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are updated besides.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = System.realloc(p, layout, new_size);
        if !q.is_null() {
            HELD.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        q
    }
}

/// This process's CPU time (user and system), in seconds.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    s(usage.ru_utime) + s(usage.ru_stime)
}

/// Runs `compile` on an input of `len` bytes; panics (a finding) when it cost more CPU time or
/// peak heap than the input's budget. The target must install [`CountingAllocator`].
pub fn within_budget<T>(len: usize, compile: impl FnOnce() -> T) -> T {
    let held = HELD.load(Ordering::Relaxed);
    PEAK.store(held, Ordering::Relaxed);
    let start = cpu_seconds();
    let out = compile();
    let seconds = cpu_seconds() - start;
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(held);
    let time_budget = BASE_SECONDS + SECONDS_PER_BYTE * len as f64;
    let memory_budget = BASE_BYTES.saturating_add(BYTES_PER_BYTE.saturating_mul(len));
    assert!(
        seconds <= time_budget,
        "resource oracle: {seconds:.1} s of CPU for an input of {len} bytes (budget {time_budget:.1} s)"
    );
    assert!(
        peak <= memory_budget,
        "resource oracle: a peak of {} MiB of heap for an input of {len} bytes (budget {} MiB)",
        peak >> 20,
        memory_budget >> 20
    );
    out
}
