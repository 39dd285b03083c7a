//! Virtual time: delays advance an injected virtual clock only, and the
//! mock runtime never sleeps (`docs/mock.md`, "ScriptedRuntime").

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A shared, monotonic millisecond counter that only moves when told to.
///
/// Clones share the same time, so a host injects one clock into a
/// [`ScriptedRuntime`](crate::ScriptedRuntime) and reads the elapsed
/// virtual time from its own handle. Nothing in this crate reads the
/// wall clock or sleeps.
///
/// ```
/// use templiqx_mock::VirtualClock;
///
/// let clock = VirtualClock::new();
/// let handle = clock.clone();
/// clock.advance(1_000_000_000); // instantly
/// assert_eq!(handle.now_ms(), 1_000_000_000);
/// ```
#[derive(Clone, Debug, Default)]
pub struct VirtualClock {
    now_ms: Arc<AtomicU64>,
}

impl VirtualClock {
    /// A clock at 0 ms.
    pub fn new() -> VirtualClock {
        VirtualClock::default()
    }

    /// The current virtual time, in milliseconds since the clock was made.
    pub fn now_ms(&self) -> u64 {
        self.now_ms.load(Ordering::SeqCst)
    }

    /// Moves the clock forward by `ms` milliseconds (saturating at
    /// `u64::MAX`, some 584 million years) and returns the new time.
    pub fn advance(&self, ms: u64) -> u64 {
        let previous = self
            .now_ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
                Some(now.saturating_add(ms))
            })
            // The closure always returns `Some`, so this is the `Ok` value.
            .unwrap_or_else(|now| now);
        previous.saturating_add(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_time_and_advancing_saturates() {
        let clock = VirtualClock::new();
        let other = clock.clone();
        assert_eq!(clock.advance(25), 25);
        assert_eq!(other.now_ms(), 25);
        assert_eq!(other.advance(u64::MAX), u64::MAX);
        assert_eq!(clock.now_ms(), u64::MAX);
    }
}
