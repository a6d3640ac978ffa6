//! Observation points for the trace harness, placed in our stand-ins (never in upstream code).
//!
//! - `waited()`: whether the calling thread left `WaitQueue::wait_until`'s fast path since the
//!   last call. Upstream `wait_until` calls `Waiter::new_pair`, hence our `Task::current`, only
//!   after its first condition check failed.
//! - `in_atomic_mode()`: whether the calling thread holds a preemption or IRQ guard, which
//!   upstream `SpinLock::lock`/`try_lock` take through our `trap`/`task` stand-ins before their
//!   compare-and-swap; the spin scenario checks with it that a guard's lifetime covers its events.

use std::cell::Cell;

thread_local! {
    static WAITED: Cell<bool> = const { Cell::new(false) };
}

pub(crate) fn note_slow_path() {
    WAITED.with(|w| w.set(true));
}

/// Whether this thread went to `wait_until`'s slow path since the last call; resets the flag.
pub fn waited() -> bool {
    WAITED.with(|w| w.replace(false))
}

pub use crate::task::in_atomic_mode;
