//! Damaged frames and chunks read or refused as C-Blosc2 3.3.5 does.
//!
//! Each case comes from a mutation sweep run against the reference and
//! this library on the same bytes (issue #29, item 5): where 3.3.5 reads
//! a frame whose damage is in bytes the data does not depend on, so do
//! we, and get the original content back; where 3.3.5 refuses a value
//! the format does not define, we refuse it too.

use blosc2_core::chunk::{CParams, Compressor, Decompressor};
use blosc2_core::error::ErrorKind;
use blosc2_core::schunk::{Storage, SuperChunk};
use std::path::PathBuf;

const HEADER_MINLEN: usize = 87;
const POS_FRAME_LEN: usize = 16;
const POS_HEADER_LEN: usize = 11;
const POS_FRAME_TYPE: usize = 26;
const POS_CBYTES: usize = 39;
const POS_FILTERS: usize = 71;

fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

fn be_i64(b: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(b[at..at + 8].try_into().unwrap())
}

fn items(seed: i32) -> Vec<u8> {
    (0..256i32)
        .flat_map(|i| (seed * 1000 + i * (i % 7)).to_le_bytes())
        .collect()
}

/// An empty contiguous super-chunk in memory, items of 4 bytes.
fn in_memory_frame() -> SuperChunk {
    SuperChunk::new(Storage {
        contiguous: true,
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    })
    .unwrap()
}

/// Three chunks, one metalayer and two vlmetalayers, as the sweep's frame.
fn frame() -> Vec<u8> {
    let mut sc = in_memory_frame();
    sc.meta_add("m1", &[1, 2, 3, 4, 5, 6, 7]).unwrap();
    for c in 0..3 {
        sc.append_buffer(&items(c)).unwrap();
    }
    sc.vlmeta_add("vla", b"hello vl", None).unwrap();
    sc.vlmeta_add("vlb", b"second one", None).unwrap();
    sc.to_frame().unwrap()
}

/// Everything a reader gets from a frame: chunks, metalayers, vlmetalayers.
#[derive(Debug, PartialEq)]
struct Content {
    chunks: Vec<Vec<u8>>,
    metas: Vec<(String, Vec<u8>)>,
    vlmetas: Vec<(String, Vec<u8>)>,
}

fn content(sc: &SuperChunk) -> Result<Content, ErrorKind> {
    let mut chunks = Vec::new();
    for i in 0..sc.nchunks() {
        let mut d = vec![0u8; 1 << 16];
        let n = sc.decompress_chunk(i, &mut d)?;
        d.truncate(n);
        chunks.push(d);
    }
    let metas = sc
        .metalayers
        .iter()
        .map(|m| (m.name.clone(), m.content.clone()))
        .collect();
    let mut vlmetas = Vec::new();
    for m in &sc.vlmetalayers {
        vlmetas.push((m.name.clone(), sc.vlmeta_get(&m.name)?));
    }
    Ok(Content {
        chunks,
        metas,
        vlmetas,
    })
}

fn scratch(tag: &str) -> PathBuf {
    let mut p = std::env::temp_dir();
    p.push(format!("b2-like-ref-{}-{tag}.b2frame", std::process::id()));
    p
}

/// Open `f` from a buffer and from a file and read it all.
fn read_both_ways(f: &[u8], tag: &str) -> [Result<Content, ErrorKind>; 2] {
    let buf = SuperChunk::from_buffer(f, true).and_then(|sc| content(&sc));
    let p = scratch(tag);
    std::fs::write(&p, f).unwrap();
    let file =
        SuperChunk::open(&p, 0, blosc2_core::io::default_backend()).and_then(|sc| content(&sc));
    let _ = std::fs::remove_file(&p);
    [buf, file]
}

#[track_caller]
fn reads_original(f: &[u8], tag: &str) {
    let want = content(&SuperChunk::from_buffer(&frame(), true).unwrap()).unwrap();
    for (how, got) in ["buffer", "file"].iter().zip(read_both_ways(f, tag)) {
        assert_eq!(got.as_ref(), Ok(&want), "{tag} ({how})");
    }
}

#[track_caller]
fn refused(f: &[u8], tag: &str) {
    for (how, got) in ["buffer", "file"].iter().zip(read_both_ways(f, tag)) {
        assert!(got.is_err(), "{tag} ({how}) must be refused, read {got:?}");
    }
}

fn trailer_off(f: &[u8]) -> usize {
    let n = f.len();
    n - u32::from_be_bytes(f[n - 22..n - 18].try_into().unwrap()) as usize
}

fn index_pos(f: &[u8]) -> usize {
    be_i32(f, POS_HEADER_LEN) as usize + be_i64(f, POS_CBYTES) as usize
}

#[test]
fn the_sweep_frame_reads_back() {
    let f = frame();
    assert_eq!(be_i64(&f, POS_FRAME_LEN) as usize, f.len());
    reads_original(&f, "good");
}

/// The uint16 marker of a metalayer section's index size: 3.3.5 never
/// looks at it (nor at the size), in the header or in the trailer.
#[test]
fn metalayer_section_size_marker_is_not_needed() {
    let f = frame();
    for v in [0x00u8, 0xff, 0xcc] {
        let mut m = f.clone();
        m[HEADER_MINLEN + 1] = v;
        reads_original(&m, &format!("header-section-marker-{v:02x}"));
        let mut m = f.clone();
        let t = trailer_off(&f);
        m[t + 3] = v;
        reads_original(&m, &format!("trailer-section-marker-{v:02x}"));
        let mut m = f.clone();
        m[HEADER_MINLEN..HEADER_MINLEN + 4].fill(v);
        m[t + 2..t + 4].fill(v);
        reads_original(&m, &format!("both-section-headers-{v:02x}"));
    }
}

/// The magic is "b2frame\0": 3.3.5 compares the NUL too.
#[test]
fn magic_nul_is_part_of_the_magic() {
    let mut m = frame();
    assert_eq!(&m[2..10], b"b2frame\0");
    for v in [0x01u8, 0x80, 0xff] {
        m[9] = v;
        refused(&m, &format!("magic-nul-{v:02x}"));
    }
}

/// Frame types other than 0 (contiguous) and 1 (sparse) are reserved or
/// user-defined; 3.3.5 refuses them.
#[test]
fn frame_type_high_nibble_is_refused() {
    for v in [0x80u8, 0x10, 0x40, 0x02] {
        let mut m = frame();
        m[POS_FRAME_TYPE] = v;
        refused(&m, &format!("frame-type-{v:02x}"));
    }
}

/// Filter ids that no filter has (6..=31, 37..=159) cannot be the frame's
/// pipeline; 3.3.5 refuses them at open. User ids (160..) may be
/// registered later, so the frame opens (its chunks carry their own).
#[test]
fn undefined_filter_ids_in_the_header_are_refused() {
    let f = frame();
    for (slot, id) in [(0usize, 5u8), (0, 31), (1, 64), (5, 128), (3, 159)] {
        let mut m = f.clone();
        m[POS_FILTERS + slot] = id;
        refused(&m, &format!("filter-{id}-slot-{slot}"));
    }
    for id in [160u8, 255] {
        let mut m = f.clone();
        m[POS_FILTERS] = id;
        reads_original(&m, &format!("user-filter-{id}"));
    }
}

/// The index holds int64 offsets: an index chunk of another typesize is
/// refused, as 3.3.5 does.
#[test]
fn index_chunk_typesize_other_than_8_is_refused() {
    let f = frame();
    let at = index_pos(&f) + 3;
    assert_eq!(f[at], 8);
    for v in [9u8, 0x88, 0xff, 4] {
        let mut m = f.clone();
        m[at] = v;
        refused(&m, &format!("index-typesize-{v}"));
    }
}

fn memcpyed_chunk() -> Vec<u8> {
    let src: Vec<u8> = (0..400u32).map(|i| (i * 7 + (i >> 3)) as u8).collect();
    let mut c = Compressor::new(CParams {
        typesize: 4,
        clevel: 0,
        ..CParams::default()
    });
    let mut out = vec![0u8; 400 + 64];
    let n = c.compress(&src, &mut out).unwrap();
    out.truncate(n);
    assert_eq!(n, 432, "a memcpyed chunk with the extended header");
    out
}

/// The dictionary flag says a dictionary section follows the block
/// starts; a memcpyed chunk has none, and 3.3.5 refuses such a chunk
/// (its dictionary size, read from the data, is out of range).
#[test]
fn dictionary_flag_on_a_memcpyed_chunk_is_refused() {
    let mut c = memcpyed_chunk();
    let mut d = vec![0u8; 400];
    assert_eq!(
        Decompressor::new(Default::default()).decompress(&c, &mut d),
        Ok(400)
    );
    c[31] |= 0x01;
    assert_eq!(
        Decompressor::new(Default::default()).decompress(&c, &mut d),
        Err(ErrorKind::CodecDict)
    );
}

/// Special-value codes 5, 6 and 7 (byte 31, bits 4-6) are reserved by the
/// chunk format: refused with `Data` by decompress and `SchunkSpecial` by
/// getitem, as 3.3.5 does, memcpyed or not.
#[test]
fn reserved_special_value_codes_are_refused() {
    let c = memcpyed_chunk();
    let mut d = vec![0u8; 400];
    for code in 5u8..=7 {
        let mut m = c.clone();
        m[31] = (m[31] & 0x8f) | (code << 4);
        assert_eq!(
            Decompressor::new(Default::default()).decompress(&m, &mut d),
            Err(ErrorKind::Data),
            "special code {code}"
        );
        // getitem says SchunkSpecial, as 3.3.5's does, after its range
        // checks (a range past the end is a parameter error first)
        let mut dec = Decompressor::new(Default::default());
        assert_eq!(dec.getitem(&m, 0, 4, &mut d), Err(ErrorKind::SchunkSpecial));
        assert_eq!(dec.getitem(&m, 0, 0, &mut d), Ok(0));
        assert_eq!(
            dec.getitem(&m, 200, 4, &mut d),
            Err(ErrorKind::InvalidParam)
        );
    }
}

/// In a frame, a data chunk, the index chunk or a vlmetalayer chunk with
/// the dictionary flag set on a memcpyed chunk is refused too.
#[test]
fn dictionary_flag_on_memcpyed_chunks_of_a_frame() {
    let f = frame();
    let at = index_pos(&f);
    assert_ne!(f[at + 2] & 0x02, 0, "the index chunk is memcpyed");
    let mut m = f.clone();
    m[at + 31] |= 0x01;
    refused(&m, "index-dict-flag");
}

/// A chunk whose header gives another size than the frame header implies
/// for it: 3.3.5 refuses the frame at open; opened from a file, where the
/// sizes come from the frame header, reading that chunk is an error here
/// (it used to give its bytes, the wrong number of them).
#[test]
fn chunk_nbytes_other_than_the_frame_says_is_an_error() {
    let f = frame();
    let first = be_i32(&f, POS_HEADER_LEN) as usize;
    for nb in [0i32, 1000, 1028] {
        let mut m = f.clone();
        m[first + 4..first + 8].copy_from_slice(&nb.to_le_bytes());
        refused(&m, &format!("chunk0-nbytes-{nb}"));
    }
}

/// A NUL in a metalayer or vlmetalayer name: 3.3.5 keeps names as C
/// strings, so the name ends there and the layer is found by that name.
#[test]
fn a_nul_in_a_metalayer_name_ends_it() {
    let f = frame();
    let t = trailer_off(&f);
    let mut m = f.clone();
    // "vla" at its fixstr in the trailer's name index
    let at = t + m[t..].windows(4).position(|w| w == b"\xa3vla").unwrap() + 1;
    m[at + 1] = 0;
    let [buf, file] = read_both_ways(&m, "vlmeta-name-nul");
    for got in [buf.unwrap(), file.unwrap()] {
        assert_eq!(got.vlmetas[0], ("v".to_string(), b"hello vl".to_vec()));
        assert_eq!(got.vlmetas[1].0, "vlb");
    }
    let mut m = f.clone();
    let at = m.windows(3).position(|w| w == b"\xa2m1").unwrap() + 1;
    m[at + 1] = 0;
    let [buf, file] = read_both_ways(&m, "meta-name-nul");
    for got in [buf.unwrap(), file.unwrap()] {
        assert_eq!(got.metas[0], ("m".to_string(), vec![1, 2, 3, 4, 5, 6, 7]));
    }
}

/// A frame whose second chunk is a special run of zeros in the index.
fn frame_with_special_zeros() -> Vec<u8> {
    let mut sc = in_memory_frame();
    sc.append_buffer(&items(1)).unwrap();
    let mut z = [0u8; 32];
    let p = CParams {
        typesize: 4,
        ..CParams::default()
    };
    blosc2_core::chunk::special::make_special(
        &p,
        blosc2_core::chunk::Special::Zero,
        1024,
        None,
        &mut z,
    )
    .unwrap();
    sc.append_chunk(&z).unwrap();
    sc.append_buffer(&items(2)).unwrap();
    sc.to_frame().unwrap()
}

/// The byte of a special offset (byte 7, little-endian) with a reserved
/// kind. 3.3.5 tests the kind bits one at a time (zeros first) and reads
/// an offset damaged into all ones as a run of zeros; that is right only
/// when the chunk was one (here, by luck), and gives zeros for a data
/// chunk's offset. Both are refused here, as the format reserves them.
#[test]
fn reserved_special_offsets_are_refused_where_the_reference_guesses() {
    let f = frame_with_special_zeros();
    let sc = SuperChunk::from_buffer(&f, true).unwrap();
    assert_eq!(content(&sc).unwrap().chunks[1], vec![0u8; 1024]);
    let ix = index_pos(&f);
    // the index chunk is memcpyed: offsets follow its 32-byte header
    assert_ne!(f[ix + 2] & 0x02, 0);
    for (chunk, v) in [
        (1usize, 0xffu8),
        (1, 0x83),
        (1, 0x87),
        (1, 0x80),
        (0, 0xff),
        (2, 0x83),
    ] {
        let slot = ix + 32 + 8 * chunk + 7;
        let mut m = f.clone();
        if chunk == 1 {
            assert_eq!(m[slot], 0x81, "the zeros marker");
            m[slot] = v;
        } else {
            m[slot - 7..=slot].copy_from_slice(&[0xff; 8]);
            m[slot] = v;
        }
        refused(&m, &format!("special-{chunk}-{v:x}"));
    }
}

const POS_CHUNKSIZE: usize = 58;

fn with_chunksize(f: &[u8], cs: i32) -> Vec<u8> {
    let mut m = f.to_vec();
    assert_eq!(m[POS_CHUNKSIZE - 1], 0xd2, "the chunksize's int32 marker");
    m[POS_CHUNKSIZE..POS_CHUNKSIZE + 4].copy_from_slice(&cs.to_be_bytes());
    m
}

/// A damaged chunksize in the frame header: 3.3.5 decodes each chunk as
/// its own header says and never compares the two, so it reads the frame
/// whenever the chunk count the header implies still matches the index.
/// So do we, from a buffer and from a file, taking the size the chunks
/// agree on; a chunksize that implies another chunk count is refused.
#[test]
fn a_damaged_chunksize_is_read_through_the_chunks() {
    let f = frame();
    assert_eq!(be_i32(&f, POS_CHUNKSIZE), 1024);
    for cs in [1025, 1152, 1279, 1280, 1535] {
        let m = with_chunksize(&f, cs);
        reads_original(&m, &format!("chunksize-{cs}"));
        let sc = SuperChunk::from_buffer(&m, true).unwrap();
        assert_eq!(sc.chunksize(), 1024, "the chunks' size, not {cs}");
        let mut all = vec![0u8; 3 * 1024];
        sc.get_slice(0, 3 * 256, &mut all).unwrap();
        assert_eq!(&all[1024..2048], &items(1)[..]);
    }
    for cs in [256, 1023, 1536, 4096] {
        refused(&with_chunksize(&f, cs), &format!("chunksize-{cs}"));
    }
}

/// The same for a b2nd array, whose chunks are the array's chunks
/// whatever the super-chunk header says: a chunksize of 0 (variable-size
/// chunks) or off by one still gives the array back, as with 3.3.5.
#[test]
fn a_damaged_chunksize_in_an_array_frame() {
    use blosc2_core::b2nd::{Array, Params};
    let data: Vec<u8> = (0..24 * 4u32).flat_map(|i| (i * 3).to_le_bytes()).collect();
    let storage = Storage {
        contiguous: true,
        cparams: CParams {
            typesize: 4,
            ..CParams::default()
        },
        ..Storage::default()
    };
    let a = Array::from_cbuffer(storage, &Params::new(&[24, 4], &[8, 4], &[4, 2]), &data).unwrap();
    let f = a.to_cframe().unwrap();
    assert_eq!(be_i32(&f, POS_CHUNKSIZE), 8 * 4 * 4);
    for cs in [0, 129, 160] {
        let m = with_chunksize(&f, cs);
        let p = scratch(&format!("array-chunksize-{cs}"));
        std::fs::write(&p, &m).unwrap();
        let arrays = [Array::from_cframe(&m, true), Array::open(&p)];
        let _ = std::fs::remove_file(&p);
        for (how, a) in ["buffer", "file"].iter().zip(arrays) {
            let a = a.unwrap_or_else(|e| panic!("chunksize {cs} ({how}): {e:?}"));
            let mut out = vec![0u8; data.len()];
            a.to_cbuffer(&mut out)
                .unwrap_or_else(|e| panic!("chunksize {cs} ({how}): {e:?}"));
            assert_eq!(out, data, "chunksize {cs} ({how})");
        }
    }
}

const POS_NBYTES: usize = 30;

/// The frame's nbytes damaged so that only the last chunk's share
/// changes: 3.3.5 decodes that chunk as its own header says (and reports
/// the damaged total); so do we, from a file as from a buffer. A first
/// chunk that disagrees with the chunksize stays an error
/// (chunk_nbytes_other_than_the_frame_says_is_an_error).
#[test]
fn a_damaged_nbytes_leaves_the_last_chunk_its_own_size() {
    let mut sc = in_memory_frame();
    sc.append_buffer(&items(1)).unwrap();
    sc.append_buffer(&items(2)[..320]).unwrap();
    let f = sc.to_frame().unwrap();
    assert_eq!(be_i64(&f, POS_NBYTES), 1024 + 320);
    for nb in [1024 + 64, 1024 + 319, 1024 + 1000, 2048] {
        let mut m = f.clone();
        m[POS_NBYTES..POS_NBYTES + 8].copy_from_slice(&(nb as i64).to_be_bytes());
        let p = scratch(&format!("nbytes-{nb}"));
        std::fs::write(&p, &m).unwrap();
        let sc = SuperChunk::open(&p, 0, blosc2_core::io::default_backend()).unwrap();
        let got = content(&sc);
        let _ = std::fs::remove_file(&p);
        let got = got.unwrap_or_else(|e| panic!("nbytes {nb}: {e:?}"));
        assert_eq!(
            got.chunks,
            vec![items(1), items(2)[..320].to_vec()],
            "nbytes {nb}"
        );
        assert_eq!(
            sc.nbytes(),
            nb as i64,
            "the header's total, as 3.3.5 reports it"
        );
    }
}

/// nbytes damaged to 0: 3.3.5 then looks for the trailer right after the
/// header and refuses the frame; it used to read here as empty, every
/// chunk the index lists lost without an error.
#[test]
fn a_zero_nbytes_with_chunks_is_refused() {
    let f = frame();
    let mut m = f.clone();
    m[POS_NBYTES..POS_NBYTES + 8].copy_from_slice(&0i64.to_be_bytes());
    refused(&m, "nbytes-0");
    // an empty frame has its trailer there and reads
    let sc = SuperChunk::new(Storage {
        contiguous: true,
        ..Storage::default()
    })
    .unwrap();
    let e = sc.to_frame().unwrap();
    let [buf, file] = read_both_ways(&e, "empty");
    assert_eq!(buf.unwrap().chunks.len(), 0);
    assert_eq!(file.unwrap().chunks.len(), 0);
}
