//! Where memory comes from: small blocks from mimalloc, large ones from the
//! system allocator.
//!
//! Rendering a package copies YAML trees many times over: millions of small
//! blocks, on which glibc's malloc spent about half of a render merging and
//! splitting its free lists (mimalloc renders the corpus's largest packages
//! in less than half the time). Large blocks stay with the system: glibc
//! grows a big vector in place (`mremap`) where mimalloc copies it, and
//! mimalloc reserves address space ahead, so under an address-space limit
//! (`ulimit -v`, as CI runners and the hostile tests set) the inputs at the
//! edge of the limits would fail. Which allocator owns a block follows from
//! its size alone, which `dealloc` and `realloc` are given.
//!
//! mimalloc is built without transparent huge pages (the `no_thp` feature
//! of libmimalloc-sys, in the workspace's Cargo.toml): where the system
//! gives them on request, each 2 MiB page was zeroed whole on first touch,
//! about 10% of a pre-commit run on one file and 7% of a cold lint of the
//! corpus copied 10 times, measured side by side (docs/performance.md).

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of this size and above come from the system allocator.
const LARGE_FROM_BYTES: usize = 64 * 1024;

pub struct SplitAllocator;

/// mimalloc's `mi_option_purge_delay` (the same in its v2 and v3 headers).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keep freed small blocks' pages: by default mimalloc returns them to the
/// system after 10 ms, and a run that checks package after package then
/// takes page faults (and zeroed pages) for memory it held a moment ago.
/// Peak memory is unchanged; call once, first thing in `main`.
pub fn keep_freed_pages() {
    // SAFETY: setting an option is allowed at any time.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

fn is_large(size: usize) -> bool {
    size >= LARGE_FROM_BYTES
}

// SAFETY: a block is made and released by the same allocator, chosen by its
// size; a `realloc` across the boundary makes a new block in the other one,
// copies the bytes both hold, and releases the old block.
unsafe impl GlobalAlloc for SplitAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            if is_large(layout.size()) {
                System.alloc(layout)
            } else {
                mimalloc::MiMalloc.alloc(layout)
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe {
            if is_large(layout.size()) {
                System.alloc_zeroed(layout)
            } else {
                mimalloc::MiMalloc.alloc_zeroed(layout)
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the block was made by the allocator its size names.
        unsafe {
            if is_large(layout.size()) {
                System.dealloc(ptr, layout)
            } else {
                mimalloc::MiMalloc.dealloc(ptr, layout)
            }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract; the block was made by the
        // allocator its old size names.
        unsafe {
            match (is_large(layout.size()), is_large(new_size)) {
                (true, true) => System.realloc(ptr, layout, new_size),
                (false, false) => mimalloc::MiMalloc.realloc(ptr, layout, new_size),
                _ => {
                    let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                    let moved = self.alloc(new_layout);
                    if !moved.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_keep_their_bytes_across_the_boundary_both_ways() {
        let split = SplitAllocator;
        let small = Layout::from_size_align(100, 8).unwrap();
        // SAFETY: layouts are valid and non-zero; each block is released
        // with the layout it has.
        unsafe {
            let p = split.alloc(small);
            assert!(!p.is_null());
            for i in 0..100 {
                *p.add(i) = i as u8;
            }
            let big = split.realloc(p, small, LARGE_FROM_BYTES * 2);
            assert!(!big.is_null());
            assert!((0..100).all(|i| *big.add(i) == i as u8));
            let large = Layout::from_size_align(LARGE_FROM_BYTES * 2, 8).unwrap();
            let back = split.realloc(big, large, 50);
            assert!((0..50).all(|i| *back.add(i) == i as u8));
            split.dealloc(back, Layout::from_size_align(50, 8).unwrap());
        }
    }
}
