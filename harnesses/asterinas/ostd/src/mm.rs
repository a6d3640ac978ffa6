//! Frames are heap memory. A `Segment` is a run of zero or more pages shared through raw
//! pointers, like physical frames; `VmReader`/`VmWriter` are cursors over it. Every byte moved
//! is reported to `observe::io_moved` (the ring buffer's observation point).

use core::{marker::PhantomData, ptr};
use std::alloc::{alloc_zeroed, dealloc, Layout};

use crate::{observe, Error, Result};

pub const PAGE_SIZE: usize = 4096;

/// Plain old data: any byte pattern is a valid value.
///
/// # Safety
/// Implementors must have no padding-sensitive invariants and no pointers.
pub unsafe trait Pod: Copy + Sized + 'static {}

macro_rules! pod {
    ($($t:ty),*) => { $(unsafe impl Pod for $t {})* };
}
pod!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

pub struct FrameAllocOptions {
    zeroed: bool,
}

impl FrameAllocOptions {
    pub fn new() -> Self {
        Self { zeroed: true }
    }

    pub fn zeroed(&mut self, zeroed: bool) -> &mut Self {
        self.zeroed = zeroed;
        self
    }

    pub fn alloc_segment(&self, nframes: usize) -> Result<Segment<()>> {
        // Always zeroed: uninitialised bytes would make reading a never-written slot UB in Rust.
        let _ = self.zeroed;
        let len = nframes.max(1) * PAGE_SIZE;
        let layout = Layout::from_size_align(len, PAGE_SIZE).map_err(|_| Error::NoMemory)?;
        let base = unsafe { alloc_zeroed(layout) };
        if base.is_null() {
            return Err(Error::NoMemory);
        }
        Ok(Segment { base, len, layout, _meta: PhantomData })
    }
}

impl Default for FrameAllocOptions {
    fn default() -> Self {
        Self::new()
    }
}

pub struct Segment<M> {
    base: *mut u8,
    len: usize,
    layout: Layout,
    _meta: PhantomData<M>,
}

// Like physical frames, the memory is shared; the users (the SPSC protocol) order their accesses.
unsafe impl<M> Send for Segment<M> {}
unsafe impl<M> Sync for Segment<M> {}

impl<M> Drop for Segment<M> {
    fn drop(&mut self) {
        unsafe { dealloc(self.base, self.layout) }
    }
}

impl<M> Segment<M> {
    pub fn size(&self) -> usize {
        self.len
    }
}

pub trait UntypedMem {
    fn reader(&self) -> VmReader<'_>;
    fn writer(&self) -> VmWriter<'_>;
}

impl<M> UntypedMem for Segment<M> {
    fn reader(&self) -> VmReader<'_> {
        VmReader { cursor: self.base, end: unsafe { self.base.add(self.len) }, _life: PhantomData }
    }

    fn writer(&self) -> VmWriter<'_> {
        VmWriter { cursor: self.base, end: unsafe { self.base.add(self.len) }, _life: PhantomData }
    }
}

pub trait VmIo {
    fn read_slice<T: Pod>(&self, offset: usize, slice: &mut [T]) -> Result<()>;
    fn write_slice<T: Pod>(&self, offset: usize, slice: &[T]) -> Result<()>;
}

impl<M> VmIo for Segment<M> {
    fn read_slice<T: Pod>(&self, offset: usize, slice: &mut [T]) -> Result<()> {
        let bytes = core::mem::size_of_val(slice);
        check_range(offset, bytes, self.len)?;
        unsafe { ptr::copy_nonoverlapping(self.base.add(offset), slice.as_mut_ptr().cast(), bytes) };
        observe::io_moved(bytes);
        Ok(())
    }

    fn write_slice<T: Pod>(&self, offset: usize, slice: &[T]) -> Result<()> {
        let bytes = core::mem::size_of_val(slice);
        check_range(offset, bytes, self.len)?;
        unsafe { ptr::copy_nonoverlapping(slice.as_ptr().cast(), self.base.add(offset), bytes) };
        observe::io_moved(bytes);
        Ok(())
    }
}

fn check_range(offset: usize, bytes: usize, len: usize) -> Result<()> {
    match offset.checked_add(bytes) {
        Some(end) if end <= len => Ok(()),
        _ => Err(Error::OutOfBounds),
    }
}

pub struct VmReader<'a> {
    cursor: *const u8,
    end: *const u8,
    _life: PhantomData<&'a [u8]>,
}

impl VmReader<'_> {
    pub fn remain(&self) -> usize {
        self.end as usize - self.cursor as usize
    }

    pub fn skip(&mut self, nbytes: usize) -> &mut Self {
        assert!(nbytes <= self.remain());
        self.cursor = unsafe { self.cursor.add(nbytes) };
        self
    }

    pub fn limit(&mut self, max: usize) -> &mut Self {
        if max < self.remain() {
            self.end = unsafe { self.cursor.add(max) };
        }
        self
    }

    pub fn read_val<T: Pod>(&mut self) -> Result<T> {
        let bytes = core::mem::size_of::<T>();
        if bytes > self.remain() {
            return Err(Error::OutOfBounds);
        }
        let val = unsafe { ptr::read_unaligned(self.cursor.cast::<T>()) };
        self.cursor = unsafe { self.cursor.add(bytes) };
        observe::io_moved(bytes);
        Ok(val)
    }
}

pub struct VmWriter<'a> {
    cursor: *mut u8,
    end: *mut u8,
    _life: PhantomData<&'a mut [u8]>,
}

impl VmWriter<'_> {
    pub fn avail(&self) -> usize {
        self.end as usize - self.cursor as usize
    }

    pub fn skip(&mut self, nbytes: usize) -> &mut Self {
        assert!(nbytes <= self.avail());
        self.cursor = unsafe { self.cursor.add(nbytes) };
        self
    }

    pub fn limit(&mut self, max: usize) -> &mut Self {
        if max < self.avail() {
            self.end = unsafe { self.cursor.add(max) };
        }
        self
    }

    pub fn write_val<T: Pod>(&mut self, val: &T) -> Result<()> {
        let bytes = core::mem::size_of::<T>();
        if bytes > self.avail() {
            return Err(Error::OutOfBounds);
        }
        unsafe { ptr::write_unaligned(self.cursor.cast::<T>(), *val) };
        self.cursor = unsafe { self.cursor.add(bytes) };
        observe::io_moved(bytes);
        Ok(())
    }
}
