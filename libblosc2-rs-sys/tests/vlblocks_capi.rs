//! The VL-block C ABI called from Rust: ownership of the returned blocks
//! (malloc()ed, released with free()), outputs untouched on failure, and the
//! reference's return codes on bad arguments and malformed chunks.

use libblosc2_rs_sys::types::blosc2_context;
use libblosc2_rs_sys::{
    blosc2_create_cctx, blosc2_create_dctx, blosc2_decompress_ctx, blosc2_free_ctx,
    blosc2_get_blosc2_cparams_defaults, blosc2_get_blosc2_dparams_defaults,
};
use libblosc2_rs_sys::{
    blosc2_vlchunk_get_nblocks, blosc2_vlcompress_ctx, blosc2_vldecompress_block_ctx,
    blosc2_vldecompress_ctx,
};
use std::ffi::c_void;
use std::ptr;

const INVALID_PARAM: i32 = -12;
const INVALID_HEADER: i32 = -11;
const READ_BUFFER: i32 = -5;

fn blocks() -> Vec<Vec<u8>> {
    [100usize, 2000, 30]
        .iter()
        .enumerate()
        .map(|(i, &n)| (0..n).map(|k| (k % 13 + i) as u8).collect())
        .collect()
}

fn contexts() -> (*mut blosc2_context, *mut blosc2_context) {
    let mut cp = blosc2_get_blosc2_cparams_defaults();
    cp.typesize = 4;
    (
        blosc2_create_cctx(cp),
        blosc2_create_dctx(blosc2_get_blosc2_dparams_defaults()),
    )
}

fn vlcompress(c: *mut blosc2_context, blocks: &[Vec<u8>]) -> Vec<u8> {
    let ptrs: Vec<*const c_void> = blocks.iter().map(|b| b.as_ptr().cast()).collect();
    let sizes: Vec<i32> = blocks.iter().map(|b| b.len() as i32).collect();
    let mut dest = vec![0u8; 4000];
    // SAFETY: every pointer/size pair describes a live buffer.
    let n = unsafe {
        blosc2_vlcompress_ctx(
            c,
            ptrs.as_ptr(),
            sizes.as_ptr(),
            blocks.len() as i32,
            dest.as_mut_ptr().cast(),
            dest.len() as i32,
        )
    };
    assert!(n > 0, "vlcompress returned {n}");
    dest.truncate(n as usize);
    dest
}

#[test]
fn round_trip_and_ownership() {
    let (c, d) = contexts();
    let bl = blocks();
    let chunk = vlcompress(c, &bl);
    let cs = chunk.len() as i32;
    let src = chunk.as_ptr().cast::<c_void>();
    // SAFETY: `chunk` is live for all calls below; outputs are locals.
    unsafe {
        let mut nb = -1;
        assert_eq!(blosc2_vlchunk_get_nblocks(src, cs, &mut nb), 0);
        assert_eq!(nb, 3);

        let mut dests = [ptr::null_mut::<c_void>(); 4];
        let mut sizes = [0i32; 4];
        let got = blosc2_vldecompress_ctx(d, src, cs, dests.as_mut_ptr(), sizes.as_mut_ptr(), 4);
        assert_eq!(got, 3);
        for (i, b) in bl.iter().enumerate() {
            assert_eq!(sizes[i] as usize, b.len());
            let s = std::slice::from_raw_parts(dests[i].cast::<u8>(), b.len());
            assert_eq!(s, &b[..]);
            libc::free(dests[i]);
        }
        assert!(dests[3].is_null(), "only nblocks entries are written");

        for (i, b) in bl.iter().enumerate() {
            let mut one = ptr::null_mut::<u8>();
            let mut n = 0;
            let r = blosc2_vldecompress_block_ctx(d, src, cs, i as i32, &mut one, &mut n);
            assert_eq!(r as usize, b.len());
            assert_eq!(std::slice::from_raw_parts(one, n as usize), &b[..]);
            libc::free(one.cast());
        }

        let flat = bl.concat();
        let mut out = vec![0u8; flat.len()];
        let r = blosc2_decompress_ctx(d, src, cs, out.as_mut_ptr().cast(), out.len() as i32);
        assert_eq!(r as usize, flat.len());
        assert_eq!(out, flat);
        blosc2_free_ctx(c);
        blosc2_free_ctx(d);
    }
}

#[test]
fn refusals_match_the_reference() {
    let (c, d) = contexts();
    let bl = blocks();
    let chunk = vlcompress(c, &bl);
    let cs = chunk.len() as i32;
    let src = chunk.as_ptr().cast::<c_void>();
    let ptrs: Vec<*const c_void> = bl.iter().map(|b| b.as_ptr().cast()).collect();
    let sizes: Vec<i32> = bl.iter().map(|b| b.len() as i32).collect();
    let mut out = vec![0u8; 4000];
    let o = out.as_mut_ptr().cast::<c_void>();
    // SAFETY: all buffers are live locals of the sizes passed.
    unsafe {
        // the wrong kind of context, no blocks, an empty block
        assert_eq!(
            blosc2_vlcompress_ctx(d, ptrs.as_ptr(), sizes.as_ptr(), 3, o, 4000),
            INVALID_PARAM
        );
        assert_eq!(
            blosc2_vlcompress_ctx(c, ptrs.as_ptr(), sizes.as_ptr(), 0, o, 4000),
            INVALID_PARAM
        );
        assert_eq!(
            blosc2_vlcompress_ctx(c, ptr::null(), sizes.as_ptr(), 3, o, 4000),
            INVALID_PARAM
        );
        let zero = [100, 0, 30];
        assert_eq!(
            blosc2_vlcompress_ctx(c, ptrs.as_ptr(), zero.as_ptr(), 3, o, 4000),
            INVALID_PARAM
        );
        assert_eq!(
            blosc2_vlcompress_ctx(c, ptrs.as_ptr(), sizes.as_ptr(), 3, o, 31),
            -35
        );
        assert_eq!(
            blosc2_vlcompress_ctx(c, ptrs.as_ptr(), sizes.as_ptr(), 3, o, 60),
            0
        );

        let mut dests = [ptr::null_mut::<c_void>(); 3];
        let mut dsz = [0i32; 3];
        let (dp, sp) = (dests.as_mut_ptr(), dsz.as_mut_ptr());
        assert_eq!(
            blosc2_vldecompress_ctx(d, src, cs, dp, sp, 2),
            INVALID_PARAM
        );
        assert_eq!(
            blosc2_vldecompress_ctx(c, src, cs, dp, sp, 3),
            INVALID_PARAM
        );
        assert_eq!(
            blosc2_vldecompress_ctx(d, src, cs - 1, dp, sp, 3),
            INVALID_HEADER
        );
        assert!(dests.iter().all(|p| p.is_null()));

        let mut one = ptr::null_mut::<u8>();
        let mut n = -7;
        assert_eq!(
            blosc2_vldecompress_block_ctx(d, src, cs, 3, &mut one, &mut n),
            INVALID_PARAM
        );
        assert_eq!(
            blosc2_vldecompress_block_ctx(d, src, cs, -1, &mut one, &mut n),
            INVALID_PARAM
        );
        assert!(one.is_null() && n == -7, "outputs untouched on failure");
        assert_eq!(
            blosc2_vldecompress_block_ctx(d, src, cs, 0, ptr::null_mut(), &mut n),
            INVALID_PARAM
        );
        assert_eq!(
            blosc2_vlchunk_get_nblocks(ptr::null(), cs, &mut n),
            INVALID_PARAM
        );
        assert_eq!(blosc2_vlchunk_get_nblocks(src, 20, &mut n), READ_BUFFER);

        // cbytes claiming only the header: the block starts are checked
        // against the buffer given, and then fail as header errors
        let mut bad = chunk.clone();
        bad[12..16].copy_from_slice(&32i32.to_le_bytes());
        let b = bad.as_ptr().cast::<c_void>();
        assert_eq!(blosc2_vldecompress_ctx(d, b, cs, dp, sp, 3), INVALID_HEADER);
        assert_eq!(
            blosc2_vldecompress_block_ctx(d, b, cs, 1, &mut one, &mut n),
            INVALID_HEADER
        );
        let mut bad = chunk.clone();
        bad[8..12].copy_from_slice(&1_000_000i32.to_le_bytes());
        let b = bad.as_ptr().cast::<c_void>();
        assert_eq!(blosc2_vldecompress_ctx(d, b, cs, dp, sp, 3), READ_BUFFER);
        blosc2_free_ctx(c);
        blosc2_free_ctx(d);
    }
}
