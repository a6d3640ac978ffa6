//! `kernel/src/util`: the upstream ring buffer plus the two reader/writer traits it names.

use ostd::mm::{VmReader, VmWriter};

use crate::prelude::*;

/// Reads bytes from a user-space or kernel source into `writer` (the harness never uses it).
pub trait MultiRead {
    fn read(&mut self, writer: &mut VmWriter) -> Result<usize>;
}

/// Writes bytes from `reader` into a user-space or kernel sink (the harness never uses it).
pub trait MultiWrite {
    fn write(&mut self, reader: &mut VmReader) -> Result<usize>;
}

include!(concat!(env!("OUT_DIR"), "/upstream_ring_buffer.rs"));
