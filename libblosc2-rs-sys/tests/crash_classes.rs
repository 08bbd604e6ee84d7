//! The crash classes upstream C-Blosc2 has had (issue 13, item 4), each
//! called through the C functions with the input that crashed (or would
//! crash) upstream: every call returns upstream's error code, or where
//! upstream crashes, the code we chose (said so at the test).
//!
//! Covered elsewhere, not repeated here: frame, trailer, metalayer and
//! vlmetalayer offsets and lengths (negative, past the frame, near
//! `INT32_MAX`), chunk offsets past the frame, and lazy chunks whose block
//! sizes exceed the frame are in `blosc2-core/tests/frame_malformed.rs`
//! (through the Rust API, every way of opening) and `c-tests/schunk_malformed.c`
//! (through the C API, upstream's codes); typesize 0 when compressing is in
//! `c-tests/null_args.c`; the i64 overflow of b2nd slicing is in
//! `blosc2-core/tests/fuzz_regressions.rs`.

use libblosc2_rs_sys::blosc2_vlcompress_ctx;
use libblosc2_rs_sys::consts::*;
use libblosc2_rs_sys::types::{b2nd_array_t, blosc2_storage};
use libblosc2_rs_sys::{
    b2nd_create_ctx, b2nd_deserialize_meta, b2nd_empty, b2nd_free, b2nd_free_ctx, b2nd_from_cframe,
    b2nd_to_cbuffer,
};
use libblosc2_rs_sys::{blosc1_decompress, blosc2_compress, blosc2_decompress, blosc2_getitem};
use libblosc2_rs_sys::{
    blosc2_compress_ctx, blosc2_create_cctx, blosc2_create_dctx, blosc2_decompress_ctx,
    blosc2_free_ctx, blosc2_get_blosc2_cparams_defaults, blosc2_get_blosc2_dparams_defaults,
    blosc2_getitem_ctx,
};
use std::ffi::c_void;
use std::ptr;

fn init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| libblosc2_rs_sys::blosc2_init());
}

/// A chunk of `data` compressed with `codec`, no filters, one stream per
/// block, one block.
fn one_block_chunk(data: &[u8], codec: u8, typesize: i32) -> Vec<u8> {
    let mut cp = blosc2_get_blosc2_cparams_defaults();
    cp.compcode = codec;
    cp.typesize = typesize;
    cp.filters = [0; 6];
    cp.blocksize = data.len() as i32;
    cp.splitmode = BLOSC_NEVER_SPLIT;
    cp.nthreads = 1;
    let c = blosc2_create_cctx(cp);
    assert!(!c.is_null());
    let mut out = vec![0u8; data.len() + 64];
    // SAFETY: live context; buffers of the given sizes.
    let n = unsafe {
        blosc2_compress_ctx(
            c,
            data.as_ptr().cast(),
            data.len() as i32,
            out.as_mut_ptr().cast(),
            out.len() as i32,
        )
    };
    // SAFETY: made above.
    unsafe { blosc2_free_ctx(c) };
    assert!(n > 0, "compress returned {n}");
    out.truncate(n as usize);
    out
}

fn decompress(chunk: &[u8], destsize: usize) -> (i32, Vec<u8>) {
    let src = chunk.to_vec().into_boxed_slice();
    let mut dest = vec![0xeeu8; destsize];
    // SAFETY: exactly-sized buffers.
    let rc = unsafe {
        blosc2_decompress(
            src.as_ptr().cast(),
            src.len() as i32,
            dest.as_mut_ptr().cast(),
            dest.len() as i32,
        )
    };
    (rc, dest)
}

/// c-blosc2 #801: a BloscLZ match whose length is a run of ~8.4 MB of 0xFF
/// continuation bytes. Upstream sums the length in an int that wraps, its
/// bounds check then passes and the copy writes past the output (a crash,
/// still open upstream). Ours refuses the block: BLOSC2_ERROR_DATA, our
/// choice, and not a byte is written past the chunk's nbytes.
#[test]
fn blosclz_801_long_match_of_ff_bytes() {
    init();
    const NBYTES: usize = 4096;
    let data: Vec<u8> = (0..NBYTES).map(|i| (i / 64) as u8).collect();
    let good = one_block_chunk(&data, BLOSC_BLOSCLZ as u8, 1);
    let header = &good[..BLOSC_EXTENDED_HEADER_LENGTH as usize];
    assert_eq!(good[2] & 0x02, 0, "the seed chunk must not be memcpyed");

    // one literal, then a long match (ctrl 0xe0: length 9 + the run) at
    // distance 1, then what would follow
    let run = 8_400_000usize;
    let mut stream = vec![0x00, b'A', 0xe0];
    stream.resize(stream.len() + run, 0xff);
    stream.extend_from_slice(&[0x10, 0x00, 0x00, b'B']);

    let mut chunk = header.to_vec();
    chunk.extend_from_slice(&(BLOSC_EXTENDED_HEADER_LENGTH + 4).to_le_bytes()); // bstarts[0]
    chunk.extend_from_slice(&(stream.len() as i32).to_le_bytes());
    chunk.extend_from_slice(&stream);
    let cbytes = chunk.len() as i32;
    chunk[12..16].copy_from_slice(&cbytes.to_le_bytes());

    // room past nbytes: none of it may be written
    let (rc, dest) = decompress(&chunk, NBYTES + 4096);
    assert_eq!(rc, BLOSC2_ERROR_DATA);
    assert!(
        dest[NBYTES..].iter().all(|&b| b == 0xee),
        "wrote past nbytes"
    );

    // the same through a context and getitem
    let d = blosc2_create_dctx(blosc2_get_blosc2_dparams_defaults());
    let mut out = vec![0u8; NBYTES];
    // SAFETY: live context; exact buffers.
    unsafe {
        let rc = blosc2_decompress_ctx(
            d,
            chunk.as_ptr().cast(),
            cbytes,
            out.as_mut_ptr().cast(),
            NBYTES as i32,
        );
        assert_eq!(rc, BLOSC2_ERROR_DATA);
        let rc = blosc2_getitem_ctx(
            d,
            chunk.as_ptr().cast(),
            cbytes,
            100,
            10,
            out.as_mut_ptr().cast(),
            NBYTES as i32,
        );
        assert_eq!(rc, BLOSC2_ERROR_DATA);
        blosc2_free_ctx(d);
    }
}

/// A 16-byte Blosc1 header whose flags (shuffle and bitshuffle both set)
/// claim a 32-byte extended header: upstream refuses it with
/// INVALID_HEADER when the header's cbytes is below 32, and READ_BUFFER
/// when cbytes allows 32 but the buffer is 16 bytes. Nothing past the 16
/// bytes may be read (the buffer is exactly 16 bytes, for ASan).
#[test]
fn blosc1_header_claiming_extended_header() {
    init();
    let mut h = [0u8; 16];
    h[0] = 2; // Blosc1 format version
    h[1] = 1;
    h[2] = 0x01 | 0x04; // DOSHUFFLE | DOBITSHUFFLE: extended header
    h[3] = 1;
    h[4..8].copy_from_slice(&16i32.to_le_bytes());
    h[8..12].copy_from_slice(&16i32.to_le_bytes());
    h[12..16].copy_from_slice(&16i32.to_le_bytes());
    let (rc, _) = decompress(&h, 16);
    assert_eq!(rc, BLOSC2_ERROR_INVALID_HEADER);

    h[12..16].copy_from_slice(&32i32.to_le_bytes());
    let (rc, _) = decompress(&h, 16);
    assert_eq!(rc, BLOSC2_ERROR_READ_BUFFER);

    let src = h.to_vec().into_boxed_slice();
    let mut out = [0u8; 16];
    // SAFETY: exact buffers.
    let rc = unsafe { blosc2_getitem(src.as_ptr().cast(), 16, 0, 1, out.as_mut_ptr().cast(), 16) };
    assert_eq!(rc, BLOSC2_ERROR_READ_BUFFER);
}

/// getitem ranges past the end, negative, or overflowing `start +
/// nitems`: INVALID_PARAM as upstream's `_blosc_getitem`; a destination
/// too small for the items: WRITE_BUFFER; zero items: 0 at any start.
#[test]
fn getitem_ranges_past_the_end() {
    init();
    let data: Vec<u8> = (0..400u32).map(|i| (i % 251) as u8).collect();
    let chunk = one_block_chunk(&data, BLOSC_LZ4 as u8, 4);
    let mut out = vec![0u8; 400];
    let get = |start: i32, n: i32, out: &mut [u8]| {
        // SAFETY: exact buffers.
        unsafe {
            blosc2_getitem(
                chunk.as_ptr().cast(),
                chunk.len() as i32,
                start,
                n,
                out.as_mut_ptr().cast(),
                out.len() as i32,
            )
        }
    };
    assert_eq!(get(99, 1, &mut out), 4);
    assert_eq!(get(100, 1, &mut out), BLOSC2_ERROR_INVALID_PARAM);
    assert_eq!(get(99, 2, &mut out), BLOSC2_ERROR_INVALID_PARAM);
    assert_eq!(get(-1, 1, &mut out), BLOSC2_ERROR_INVALID_PARAM);
    assert_eq!(get(i32::MAX, 1, &mut out), BLOSC2_ERROR_INVALID_PARAM);
    assert_eq!(get(0, -1, &mut out), BLOSC2_ERROR_INVALID_PARAM);
    assert_eq!(get(50, i32::MAX, &mut out), BLOSC2_ERROR_WRITE_BUFFER);
    assert_eq!(get(0, 101, &mut out), BLOSC2_ERROR_WRITE_BUFFER);
    assert_eq!(get(1000, 0, &mut out), 0);
}

/// A chunk header with typesize 0: INVALID_HEADER, as upstream's
/// `read_chunk_header`. Compressing with a typesize past 255 stores the
/// data as bytes and round-trips; past BLOSC2_MAXTYPESIZE it is refused
/// with INVALID_PARAM.
#[test]
fn typesize_zero_or_past_255() {
    init();
    let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 256) as u8).collect();
    let mut chunk = one_block_chunk(&data, BLOSC_BLOSCLZ as u8, 4);
    chunk[3] = 0;
    let (rc, _) = decompress(&chunk, data.len());
    assert_eq!(rc, BLOSC2_ERROR_INVALID_HEADER);
    // SAFETY: a header's worth of bytes; NULL dest with size 0 is allowed.
    let rc = unsafe { blosc1_decompress(chunk.as_ptr().cast(), ptr::null_mut(), 0) };
    assert_eq!(rc, BLOSC2_ERROR_INVALID_HEADER);

    for ts in [256, 300, 3000] {
        let mut out = vec![0u8; data.len() + 64];
        // SAFETY: exact buffers.
        let n = unsafe {
            blosc2_compress(
                5,
                BLOSC_SHUFFLE,
                ts,
                data.as_ptr().cast(),
                data.len() as i32,
                out.as_mut_ptr().cast(),
                out.len() as i32,
            )
        };
        assert!(n > 0, "typesize {ts}: {n}");
        let (rc, back) = decompress(&out[..n as usize], data.len());
        assert_eq!(rc, data.len() as i32);
        assert_eq!(back, data);
    }
    let mut out = vec![0u8; data.len() + 64];
    // SAFETY: exact buffers.
    let rc = unsafe {
        blosc2_compress(
            5,
            BLOSC_SHUFFLE,
            BLOSC2_MAXTYPESIZE + 1,
            data.as_ptr().cast(),
            data.len() as i32,
            out.as_mut_ptr().cast(),
            out.len() as i32,
        )
    };
    assert_eq!(rc, BLOSC2_ERROR_INVALID_PARAM);
}

/// A VL-block chunk whose block sizes add up past INT32_MAX (each one
/// alone is positive): INVALID_HEADER, as upstream's VL-block setup.
#[test]
fn vlblock_sizes_past_int32_max() {
    init();
    let mut cp = blosc2_get_blosc2_cparams_defaults();
    cp.typesize = 1;
    cp.nthreads = 1;
    let c = blosc2_create_cctx(cp);
    let blocks: Vec<Vec<u8>> = (0..3).map(|i| vec![i as u8; 200]).collect();
    let ptrs: Vec<*const c_void> = blocks.iter().map(|b| b.as_ptr().cast()).collect();
    let sizes: Vec<i32> = blocks.iter().map(|b| b.len() as i32).collect();
    let mut chunk = vec![0u8; 2000];
    // SAFETY: every pointer/size pair is a live buffer.
    let n = unsafe {
        blosc2_vlcompress_ctx(
            c,
            ptrs.as_ptr(),
            sizes.as_ptr(),
            3,
            chunk.as_mut_ptr().cast(),
            chunk.len() as i32,
        )
    };
    // SAFETY: made above.
    unsafe { blosc2_free_ctx(c) };
    assert!(n > 0);
    chunk.truncate(n as usize);
    // every block starts with its uncompressed size
    let hl = BLOSC_EXTENDED_HEADER_LENGTH as usize;
    for i in 0..3 {
        let at = i32::from_le_bytes(chunk[hl + 4 * i..hl + 4 * i + 4].try_into().unwrap()) as usize;
        chunk[at..at + 4].copy_from_slice(&0x7000_0000i32.to_le_bytes());
    }
    let (rc, _) = decompress(&chunk, 600);
    assert_eq!(rc, BLOSC2_ERROR_INVALID_HEADER);
}

fn storage_with(cparams: &mut libblosc2_rs_sys::types::blosc2_cparams) -> blosc2_storage {
    blosc2_storage {
        contiguous: true,
        urlpath: ptr::null_mut(),
        cparams,
        dparams: ptr::null_mut(),
        io: ptr::null_mut(),
    }
}

/// b2nd geometry products past 32 and 64 bits and ndim past 16. Upstream:
/// a blockshape whose items times the typesize pass INT32_MAX makes
/// `b2nd_create_ctx` return NULL; a chunkshape past 2^31 items or a shape
/// past 2^63 items makes `b2nd_empty` fail with INVALID_PARAM (its
/// overflow checks in the shape update); ndim 17 is NULL from
/// `b2nd_create_ctx` and FAILURE from `b2nd_deserialize_meta`.
#[test]
fn b2nd_products_past_32_and_64_bits_and_ndim_past_16() {
    init();
    let mut cp = blosc2_get_blosc2_cparams_defaults();
    cp.typesize = 8;
    let st = storage_with(&mut cp);
    let mk = |shape: &[i64], cs: &[i32], bs: &[i32]| {
        // SAFETY: arrays of ndim values; a live storage.
        unsafe {
            b2nd_create_ctx(
                &st,
                shape.len() as i8,
                shape.as_ptr(),
                cs.as_ptr(),
                bs.as_ptr(),
                ptr::null(),
                0,
                ptr::null(),
                0,
            )
        }
    };
    // blocks of 2^32 items of 8 bytes
    assert!(mk(
        &[1 << 17, 1 << 17],
        &[1 << 16, 1 << 16],
        &[1 << 16, 1 << 16]
    )
    .is_null());
    let empty = |ctx| {
        let mut a: *mut b2nd_array_t = ptr::null_mut();
        // SAFETY: a live context, a writable out pointer.
        let rc = unsafe { b2nd_empty(ctx, &mut a) };
        if !a.is_null() {
            // SAFETY: made by b2nd_empty.
            unsafe { b2nd_free(a) };
        }
        // SAFETY: made by b2nd_create_ctx.
        unsafe { b2nd_free_ctx(ctx) };
        rc
    };
    // chunks of 2^32 items
    let ctx = mk(&[1 << 16, 1 << 16], &[1 << 16, 1 << 16], &[1, 1]);
    assert!(!ctx.is_null());
    assert_eq!(empty(ctx), BLOSC2_ERROR_INVALID_PARAM);
    // 2^64 items
    let ctx = mk(&[1 << 32, 1 << 32], &[1, 1], &[1, 1]);
    assert!(!ctx.is_null());
    assert_eq!(empty(ctx), BLOSC2_ERROR_INVALID_PARAM);
    // ndim 17
    let shape = [2i64; 17];
    let ones = [1i32; 17];
    assert!(mk(&shape, &ones, &ones).is_null());

    // a metalayer saying ndim 17 (msgpack: array of 7, version 0, ndim)
    let mut m = vec![0x97u8, 0, 17, 0xdc, 0, 17];
    for _ in 0..17 {
        m.push(0xd3);
        m.extend_from_slice(&2i64.to_be_bytes());
    }
    let (mut nd, mut sh, mut cs, mut bs) = (0i8, [0i64; 17], [0i32; 17], [0i32; 17]);
    // SAFETY: a readable metalayer; out arrays of B2ND_MAX_DIM (16) values
    // would do, 17 are given in case a bad ndim were followed.
    let rc = unsafe {
        b2nd_deserialize_meta(
            m.as_ptr(),
            m.len() as i32,
            &mut nd,
            sh.as_mut_ptr(),
            cs.as_mut_ptr(),
            bs.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    assert_eq!(rc, BLOSC2_ERROR_FAILURE);
}

/// The b2nd plugins (NDLZ codec 32, NDCELL filter 32, NDMEAN filter 33, ZFP
/// codecs 33-35) take their block shape from the super-chunk's `b2nd`
/// metalayer. An array whose metalayer names a blockshape its chunks were
/// not made with: frames made by `fuzz/` (`replay seeds-plugins`) and
/// committed as its seeds. Each gives the codes reference 3.3.5 gives
/// (found by running the same calls on it): `b2nd_to_cbuffer` and
/// `blosc2_schunk_decompress_chunk` of each chunk.
///
/// Where we differ, and why:
/// - NDLZ `-bs-chunk` and `-bs-ones`, chunk 0 alone: the reference's
///   decompression fails (BLOSC2_ERROR_DATA); ours gives the chunk's data,
///   the same bytes as the frame with the right metalayer (an NDLZ stream
///   carries its own block shape). Reading the array fails in both.
/// - ZFP `-acc-bs-rev` (the block shape's dimensions swapped): both succeed
///   with values decoded in the swapped shape. A ZFP stream records no
///   shape and the blocks have the same size, so nothing can tell; the
///   result is not memory taken from elsewhere, only a wrong arrangement.
#[test]
fn plugins_with_bad_blockshapes() {
    use libblosc2_rs_sys::blosc2_schunk_decompress_chunk;
    init();
    const F: i32 = BLOSC2_ERROR_FAILURE;
    const D: i32 = BLOSC2_ERROR_DATA;
    // frame, b2nd_to_cbuffer, decompressing chunks 0 and 1 (ours), and
    // chunk 0 on the reference where it differs
    #[rustfmt::skip]
    let cases: &[(&str, i32, [i32; 2], Option<i32>)] = &[
        ("plugin-ndcell", 0, [1536, 1536], None),
        ("plugin-ndcell-bs-chunk", F, [1536, 1536], None),
        ("plugin-ndcell-bs-half", F, [1536, 1536], None),
        ("plugin-ndcell-bs-ones", F, [1536, 1536], None),
        ("plugin-ndcell-bs-rev", F, [1536, 1536], None),
        ("plugin-ndlz4", 0, [1024, 1024], None),
        ("plugin-ndlz4-bs-chunk", F, [1024, 1024], Some(D)),
        ("plugin-ndlz4-bs-half", F, [1024, 1024], None),
        ("plugin-ndlz4-bs-ones", F, [1024, 1024], Some(D)),
        ("plugin-ndlz8", 0, [1024, 1024], None),
        ("plugin-ndlz8-bs-chunk", F, [1024, 1024], Some(D)),
        ("plugin-ndlz8-bs-half", F, [1024, 1024], None),
        ("plugin-ndlz8-bs-ones", F, [1024, 1024], Some(D)),
        ("plugin-ndmean", 0, [1536, 1536], None),
        ("plugin-ndmean-bs-chunk", F, [F, F], None),
        ("plugin-ndmean-bs-half", F, [F, F], None),
        ("plugin-ndmean-bs-ones", F, [F, F], None),
        ("plugin-ndmean-bs-rev", F, [1536, 1536], None),
        ("plugin-zfp-acc", 0, [2048, 2048], None),
        ("plugin-zfp-acc-bs-chunk", F, [D, D], None),
        ("plugin-zfp-acc-bs-half", F, [2048, 2048], None),
        ("plugin-zfp-acc-bs-ones", F, [2048, 2048], None),
        ("plugin-zfp-acc-bs-rev", 0, [2048, 2048], None),
        ("plugin-zfp-prec", 0, [1024, 1024], None),
        ("plugin-zfp-prec-bs-chunk", F, [D, D], None),
        ("plugin-zfp-prec-bs-half", F, [1024, 1024], None),
        ("plugin-zfp-prec-bs-ones", F, [1024, 1024], None),
        ("plugin-zfp-rate", 0, [128, 128], None),
        ("plugin-zfp-rate-bs-chunk", F, [D, D], None),
        ("plugin-zfp-rate-bs-half", F, [128, 128], None),
        ("plugin-zfp-rate-bs-ones", F, [128, 128], None),
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/open_frame");
    let on_disk = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            let e = e.as_ref().unwrap();
            e.file_name().to_string_lossy().starts_with("plugin-")
        })
        .count();
    assert_eq!(on_disk, cases.len(), "a plugin frame without its codes");
    for &(name, want, chunks, _reference) in cases {
        let mut frame = std::fs::read(dir.join(name)).unwrap().into_boxed_slice();
        let mut a: *mut b2nd_array_t = ptr::null_mut();
        // SAFETY: a readable frame, copied; a writable out pointer.
        let rc = unsafe { b2nd_from_cframe(frame.as_mut_ptr(), frame.len() as i64, true, &mut a) };
        assert!(rc >= 0 && !a.is_null(), "{name}: from_cframe {rc}");
        // SAFETY: a live array and its super-chunk.
        let (need, sc) = unsafe { ((*a).nitems * i64::from((*(*a).sc).typesize), (*a).sc) };
        let mut out = vec![0u8; need as usize];
        // SAFETY: a live array; `out.len()` writable bytes.
        let rc = unsafe { b2nd_to_cbuffer(a, out.as_mut_ptr().cast(), out.len() as i64) };
        assert_eq!(rc, want, "{name}: b2nd_to_cbuffer");
        // SAFETY: a live super-chunk.
        let chunksize = unsafe { (*sc).chunksize };
        for (n, &want) in chunks.iter().enumerate() {
            let mut c = vec![0u8; chunksize as usize];
            // SAFETY: a live super-chunk; `chunksize` writable bytes.
            let rc = unsafe {
                blosc2_schunk_decompress_chunk(sc, n as i64, c.as_mut_ptr().cast(), chunksize)
            };
            assert_eq!(rc, want, "{name}: chunk {n}");
        }
        // SAFETY: made above.
        unsafe { b2nd_free(a) };
    }
}
