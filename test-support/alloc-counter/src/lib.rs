//! A global allocator that counts the bytes allocated on threads that opt
//! in, for tests asserting allocation bounds (the runtime's "checked before
//! the bytes are allocated" budget rule).
//!
//! ```
//! #[global_allocator]
//! static GLOBAL: templiqx_alloc_counter::Counting = templiqx_alloc_counter::Counting;
//!
//! fn main() {
//!     let (value, bytes) = templiqx_alloc_counter::allocated_during(|| vec![0u8; 100]);
//!     assert_eq!(value.len(), 100);
//!     assert!(bytes >= 100);
//! }
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Forwards to [`System`], counting requested bytes (and `realloc` growth)
/// on the current thread while [`allocated_during`] runs.
pub struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn count(bytes: usize) {
    // `try_with`: the thread-local may be gone during thread teardown.
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        ALLOCATED.fetch_add(bytes, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments;
// counting touches only an atomic and a const-initialised thread-local,
// neither of which allocates.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size.saturating_sub(layout.size()));
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Runs `f` and returns its result with the bytes allocated on this thread
/// meanwhile. Only meaningful when [`Counting`] is the global allocator;
/// calls on several threads at once share one counter.
pub fn allocated_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    ALLOCATED.store(0, Ordering::SeqCst);
    COUNTING.with(|c| c.set(true));
    let out = f();
    COUNTING.with(|c| c.set(false));
    (out, ALLOCATED.load(Ordering::SeqCst))
}
