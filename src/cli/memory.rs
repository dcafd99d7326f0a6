//! The allocator of the `mapcheck` binary: the system's, with a failed allocation turned into a
//! diagnostic and exit status 2 instead of Rust's abort (SIGABRT, status 134), which no list of
//! exit statuses a user reads can mention. Nothing is allocated on that path: the message is
//! formatted on the stack and written straight to standard error. Results are never
//! half-written (every file is renamed into place), so ending there loses only the run.
//!
//! Allocations made by CaDiCaL's C++ code (`--solver cadical`) do not go through here.
use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;

/// `System`, reporting a failed allocation.
pub struct Reporting;

// SAFETY: every call is forwarded unchanged to `System`; a null result ends the process.
unsafe impl GlobalAlloc for Reporting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc(layout), layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc_zeroed(layout), layout.size())
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(System.realloc(ptr, layout, new_size), new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size)
    }
    ptr
}

/// Say that an allocation of `size` bytes failed, and exit with status 2.
fn out_of_memory(size: usize) -> ! {
    let mut message = StackText::default();
    let _ = write!(
        message,
        "error: mapcheck ran out of memory (an allocation of {size} bytes failed); give it a \
         smaller problem (a lower bound, fewer threads or locations, a smaller test) or more memory\n"
    );
    // SAFETY: writes the initialised prefix of a stack buffer to file descriptor 2, then ends
    // the process without running anything that could allocate.
    unsafe {
        libc::write(2, message.bytes.as_ptr().cast(), message.len);
        libc::_exit(2)
    }
}

/// Text formatted into a fixed buffer (cut at its end).
struct StackText {
    bytes: [u8; 512],
    len: usize,
}

impl Default for StackText {
    fn default() -> Self {
        StackText {
            bytes: [0; 512],
            len: 0,
        }
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let room = self.bytes.len() - self.len;
        let n = s.len().min(room);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}
