//! Stand-in for Asterinas OSTD in user space. `sync` holds the upstream `guard.rs`, `spin.rs`,
//! `wait.rs`, `mutex.rs` and `rwmutex.rs` of the `ostd` crate (crates.io, see build.rs)
//! unmodified; `task` and `trap` are ours and give them what the kernel would: tasks are OS
//! threads, parking is `std::thread::park`, preemption and IRQ guards are per-thread counters
//! (sleeping while one is held is a bug, as in the kernel).
//!
//! The upstream files use `impl !Send`, so the crate needs `negative_impls`; the harness is built
//! with `RUSTC_BOOTSTRAP=1` on a stable toolchain (Asterinas itself pins a nightly).
#![feature(negative_impls)]

extern crate alloc;

pub mod observe;
pub mod sync;
pub mod task;
pub mod trap;

/// The upstream crate the `sync` files were read from, as cargo's registry holds it.
pub const UPSTREAM_VERSION: &str = env!("UPSTREAM_OSTD_VERSION");
/// The Asterinas commit that crate was packaged from (its `.cargo_vcs_info.json`).
pub const UPSTREAM_COMMIT: &str = env!("UPSTREAM_OSTD_COMMIT");
