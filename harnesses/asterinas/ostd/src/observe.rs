//! Observation points for the trace harness, placed in our stand-ins (never in upstream code).
//!
//! - `waited()`: whether the calling thread left `WaitQueue::wait_until`'s fast path since the
//!   last call. Upstream `wait_until` calls `Waiter::new_pair`, hence our `Task::current`, only
//!   after its first condition check failed.
//! - `on_io(bytes, hook)`: runs `hook` when the calling thread has moved `bytes` more bytes through
//!   a `Segment` (reader, writer or slice I/O). The ring buffer's push and pop publish their new
//!   index right after their last segment I/O, so the hook runs between the data copy and the
//!   index store.

use std::cell::{Cell, RefCell};

type Hook = Box<dyn FnOnce()>;

thread_local! {
    static WAITED: Cell<bool> = const { Cell::new(false) };
    static IO_WATCH: RefCell<Option<(usize, Hook)>> = const { RefCell::new(None) };
}

pub(crate) fn note_slow_path() {
    WAITED.with(|w| w.set(true));
}

/// Whether this thread went to `wait_until`'s slow path since the last call; resets the flag.
pub fn waited() -> bool {
    WAITED.with(|w| w.replace(false))
}

/// Arms a hook that runs once this thread has moved `bytes` bytes through segment I/O.
pub fn on_io(bytes: usize, hook: impl FnOnce() + 'static) {
    IO_WATCH.with(|w| *w.borrow_mut() = Some((bytes, Box::new(hook))));
}

/// Disarms the hook (the operation failed before any I/O).
pub fn clear_io() -> bool {
    IO_WATCH.with(|w| w.borrow_mut().take().is_some())
}

pub(crate) fn io_moved(bytes: usize) {
    let due = IO_WATCH.with(|w| {
        let mut slot = w.borrow_mut();
        match slot.take() {
            Some((left, hook)) if left <= bytes => Some(hook),
            Some((left, hook)) => {
                *slot = Some((left - bytes, hook));
                None
            }
            None => None,
        }
    });
    if let Some(hook) = due {
        hook();
    }
}
