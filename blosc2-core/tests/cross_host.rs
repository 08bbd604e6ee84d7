//! The same bytes on every host: frames written here must equal, byte for
//! byte, the frames x86-64 writes from the same input bytes (digests below
//! were taken there), whatever this host's byte order and word size. That
//! holds for every pipeline of bytewise filters; the value filters read
//! items in the host's order (as upstream does), so for them the invariant
//! is on values, checked by `trunc_prec_works_on_values`.
//!
//! `make test-cross` runs these under qemu on s390x (big-endian), i686
//! (32-bit) and aarch64.

use blosc2_core::chunk::CParams;
use blosc2_core::schunk::{Storage, SuperChunk};

const SHUFFLE: u8 = 1;
const BITSHUFFLE: u8 = 2;
const DELTA: u8 = 3;
const TRUNC_PREC: u8 = 4;
const BYTEDELTA: u8 = 35;
const BLOSCLZ: u8 = 0;
const LZ4: u8 = 1;
const ZSTD: u8 = 5;

fn fnv1a(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Input bytes fixed on every host: little-endian int32 items of a noisy
/// ramp (built from bytes, not from this host's view of the values).
fn input(n: usize) -> Vec<u8> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n as u32)
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (i.wrapping_mul(7) ^ (x as u32 & 0xf)).to_le_bytes()
        })
        .collect()
}

fn frame(typesize: i32, codec: u8, filters: [u8; 6], meta: [u8; 6], data: &[u8]) -> Vec<u8> {
    let cparams = CParams {
        typesize,
        compcode: codec,
        clevel: 5,
        filters,
        filters_meta: meta,
        nthreads: 1,
        ..CParams::default()
    };
    let mut sc = SuperChunk::new(Storage {
        contiguous: true,
        cparams,
        ..Storage::default()
    })
    .unwrap();
    sc.meta_add("m", &[1, 2, 3]).unwrap();
    for part in data.chunks(40_000) {
        sc.append_buffer(part).unwrap();
    }
    sc.vlmeta_add("v", b"cross host", None).unwrap();
    sc.to_frame().unwrap()
}

/// What, typesize, codec, filters, filter metas, x86-64's digest.
type Case = (&'static str, i32, u8, [u8; 6], [u8; 6], u64);

#[test]
fn frames_are_the_same_bytes_on_every_host() {
    let data = input(30_000);
    let cases: [Case; 5] = [
        (
            "shuffle lz4",
            4,
            LZ4,
            [0, 0, 0, 0, 0, SHUFFLE],
            [0; 6],
            0x126a_b861_92c4_1745,
        ),
        (
            "bitshuffle zstd",
            4,
            ZSTD,
            [0, 0, 0, 0, 0, BITSHUFFLE],
            [0; 6],
            0xda30_c5fe_1228_e55a,
        ),
        (
            "delta shuffle blosclz",
            4,
            BLOSCLZ,
            [0, 0, 0, 0, DELTA, SHUFFLE],
            [0; 6],
            0x386d_02e5_14e6_0060,
        ),
        // (not zlib: zlib-rs and zlib-ng, both shipped, write different
        // streams for the same input)
        (
            "shuffle bytedelta lz4",
            4,
            LZ4,
            [0, 0, 0, 0, SHUFFLE, BYTEDELTA],
            [0; 6],
            0x8b91_2b8b_ec3e_a0da,
        ),
        (
            "no filter lz4, typesize 8",
            8,
            LZ4,
            [0; 6],
            [0; 6],
            0x3e29_fe3f_24c9_46f9,
        ),
    ];
    let mut got = Vec::new();
    for (what, ts, codec, filters, meta, want) in cases {
        let f = frame(ts, codec, filters, meta, &data);
        let h = fnv1a(&f);
        got.push(format!("{what}: {h:#018x} ({} bytes)", f.len()));
        if h != want {
            got.push(format!("  ^ differs from x86-64's {want:#018x}"));
        }
        // and it reads back to the input
        let sc = SuperChunk::from_buffer(&f, true).unwrap();
        let mut back = Vec::new();
        for n in 0..sc.nchunks() {
            let mut c = vec![0u8; 40_000];
            let k = sc.decompress_chunk(n, &mut c).unwrap();
            back.extend_from_slice(&c[..k]);
        }
        assert!(back == data, "{what}: round trip");
    }
    assert!(
        !got.iter().any(|l| l.contains("differs")),
        "{}",
        got.join("\n")
    );
}

/// TRUNC_PREC keeps sign, exponent and the asked mantissa bits of the
/// host's own floats, through a whole frame.
#[test]
fn trunc_prec_works_on_values() {
    let vals: Vec<f64> = (0..5000).map(|i| (i as f64 * 0.37).sin() * 1e3).collect();
    let data: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let f = frame(
        8,
        ZSTD,
        [0, 0, 0, 0, TRUNC_PREC, SHUFFLE],
        [0, 0, 0, 0, 20, 0],
        &data,
    );
    let sc = SuperChunk::from_buffer(&f, true).unwrap();
    let mut back = vec![0u8; data.len()];
    assert_eq!(sc.decompress_chunk(0, &mut back).unwrap(), data.len());
    for (i, c) in back.chunks_exact(8).enumerate() {
        let got = f64::from_ne_bytes(c.try_into().unwrap());
        let want = f64::from_bits(vals[i].to_bits() & !((1u64 << 32) - 1));
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "item {i}: {got} vs {}",
            vals[i]
        );
        assert!((got - vals[i]).abs() <= vals[i].abs() * 1e-6, "item {i}");
    }
}
