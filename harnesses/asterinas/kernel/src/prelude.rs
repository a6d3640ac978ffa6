//! What upstream `kernel/src/prelude.rs` gives `ring_buffer.rs`.

pub use std::sync::Arc;

pub use ostd::{mm::PAGE_SIZE, Pod, Result};
