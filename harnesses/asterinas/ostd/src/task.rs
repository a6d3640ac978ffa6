//! Tasks are OS threads. `scheduler::park_current` parks the thread (std's park/unpark keeps one
//! wake-up token, so an unpark before the park is not lost); the preemption guard is a per-thread
//! counter that `park_current` checks, since sleeping with preemption disabled is a kernel bug.

use std::{cell::Cell, sync::Arc, thread::Thread};

pub struct Task {
    thread: Thread,
}

/// What `Task::current()` returns upstream: a handle whose `cloned()` gives the `Arc<Task>`.
pub struct CurrentTask(Arc<Task>);

impl CurrentTask {
    pub fn cloned(&self) -> Arc<Task> {
        self.0.clone()
    }
}

thread_local! {
    static CURRENT: Arc<Task> = Arc::new(Task { thread: std::thread::current() });
    static ATOMIC_DEPTH: Cell<usize> = const { Cell::new(0) };
}

impl Task {
    pub fn current() -> Option<CurrentTask> {
        // Only `Waiter::new_pair` calls this: wait_until's first condition check has failed.
        crate::observe::note_slow_path();
        Some(CurrentTask(CURRENT.with(Arc::clone)))
    }
}

pub mod scheduler {
    use super::*;

    pub fn park_current<F: Fn() -> bool>(has_unparked: F) {
        assert_eq!(
            ATOMIC_DEPTH.with(Cell::get),
            0,
            "a task may not sleep in atomic mode (preemption or IRQs disabled)"
        );
        while !has_unparked() {
            std::thread::park();
        }
    }

    pub fn unpark_target(task: Arc<Task>) {
        task.thread.unpark();
    }
}

pub mod atomic_mode {
    /// A guard that keeps the CPU in atomic mode (no sleeping).
    pub trait InAtomicMode {}

    pub trait AsAtomicModeGuard {
        fn as_atomic_mode_guard(&self) -> &dyn InAtomicMode;
    }
}

/// Whether the calling thread holds a preemption or IRQ guard (see `observe`).
pub fn in_atomic_mode() -> bool {
    ATOMIC_DEPTH.with(Cell::get) > 0
}

pub(crate) fn enter_atomic() {
    ATOMIC_DEPTH.with(|d| d.set(d.get() + 1));
}

pub(crate) fn leave_atomic() {
    ATOMIC_DEPTH.with(|d| d.set(d.get() - 1));
}

/// Preemption is "disabled" while at least one guard lives on this thread.
pub struct DisabledPreemptGuard {
    _private: (),
}

impl !Send for DisabledPreemptGuard {}

pub fn disable_preempt() -> DisabledPreemptGuard {
    enter_atomic();
    DisabledPreemptGuard { _private: () }
}

impl Drop for DisabledPreemptGuard {
    fn drop(&mut self) {
        leave_atomic();
    }
}

impl atomic_mode::InAtomicMode for DisabledPreemptGuard {}

impl atomic_mode::AsAtomicModeGuard for DisabledPreemptGuard {
    fn as_atomic_mode_guard(&self) -> &dyn atomic_mode::InAtomicMode {
        self
    }
}

impl crate::sync::GuardTransfer for DisabledPreemptGuard {
    fn transfer_to(&mut self) -> Self {
        disable_preempt()
    }
}
