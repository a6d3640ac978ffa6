//! Stand-in for Asterinas OSTD in user space. `sync` holds the upstream `guard.rs`, `spin.rs`,
//! `wait.rs`, `mutex.rs` and `rwmutex.rs` unmodified; `task`, `trap` and `mm` are ours and give
//! them what the kernel would: tasks are OS threads, parking is `std::thread::park`, preemption and
//! IRQ guards are per-thread counters (sleeping while one is held is a bug, as in the kernel), and
//! frames are heap memory.
//!
//! The upstream files use `impl !Send`, so the crate needs `negative_impls`; the harness is built
//! with `RUSTC_BOOTSTRAP=1` on a stable toolchain (Asterinas itself pins a nightly).
#![feature(negative_impls)]

extern crate alloc;

pub mod mm;
pub mod observe;
pub mod sync;
pub mod task;
pub mod trap;

pub use mm::Pod;

/// The error type of the stand-in memory API (the kernel's is richer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    NoMemory,
    OutOfBounds,
}

pub type Result<T> = core::result::Result<T, Error>;
