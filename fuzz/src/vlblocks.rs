//! The `vlblocks` target: chunks of variable-length blocks, read from
//! arbitrary bytes (first input byte even) or built from parameters and data
//! the input picks (first byte odd).

use blosc2_core::chunk::header::filter_id;
use blosc2_core::chunk::vlblocks::{self, VlChunk};
use blosc2_core::chunk::{ChunkHeader, DParams, Decompressor};

/// Largest concatenation the decode checks allocate.
const MAX_FLAT: usize = 4 << 20;

pub fn vlblocks(data: &[u8]) {
    match data.split_first() {
        Some((&mode, rest)) if mode & 1 == 0 => decode(rest),
        Some((_, rest)) => roundtrip(rest),
        None => {}
    }
}

/// Every way of reading a VL chunk agrees: the parsed view, each block alone,
/// all blocks, and the whole-chunk decompression.
fn decode(chunk: &[u8]) {
    let parsed = VlChunk::parse(chunk);
    let mut d = Decompressor::new(DParams::default());
    let Ok(vl) = parsed else {
        assert!(vlblocks::decompress_blocks(chunk).is_err());
        assert!(vlblocks::decompress_block(chunk, 0).is_err());
        if let Ok(h) = ChunkHeader::read(chunk) {
            if h.is_vlblocks() && (h.nbytes as usize) < MAX_FLAT {
                let mut out = vec![0u8; h.nbytes as usize];
                assert!(d.decompress(chunk, &mut out).is_err());
            }
        }
        return;
    };
    assert_eq!(vlblocks::nblocks(chunk), Ok(vl.nblocks()));
    let sizes: Vec<usize> = vl.block_sizes().collect();
    assert_eq!(sizes.iter().sum::<usize>(), vl.nbytes());
    assert!(sizes.iter().all(|&n| n > 0));
    if vl.nbytes() > MAX_FLAT {
        // decoding still must not misbehave on the first block
        let _ = vlblocks::decompress_block(chunk, 0);
        return;
    }
    let all = vlblocks::decompress_blocks(chunk);
    let mut flat = vec![0u8; vl.nbytes()];
    let whole = d.decompress(chunk, &mut flat);
    if let Ok(blocks) = &all {
        assert_eq!(blocks.len(), sizes.len());
        assert_eq!(
            whole,
            Ok(vl.nbytes()),
            "blocks decode but the chunk does not"
        );
        assert!(blocks.concat() == flat, "concatenation differs");
    } else {
        assert!(whole.is_err(), "the chunk decodes but its blocks do not");
    }
    for (j, &n) in sizes.iter().enumerate().take(64) {
        if let Ok(b) = vlblocks::decompress_block(chunk, j) {
            assert_eq!(b.len(), n);
            if let Ok(blocks) = &all {
                assert!(b == blocks[j], "block {j} alone differs");
            }
        }
    }
    assert!(vlblocks::decompress_block(chunk, sizes.len()).is_err());
    // getitem is refused on VL chunks, whatever the range
    let mut out = [0u8; 64];
    assert!(d.getitem(chunk, 0, 1, &mut out).is_err());
}

/// Compress blocks cut from the input with input-picked parameters and read
/// them back.
fn roundtrip(input: &[u8]) {
    let (mut params, rest, extra) = crate::roundtrip_params(input);
    // the knobs a VL chunk ignores: one stream per block, blocks as given
    params.blocksize = 0;
    let lossy = params
        .filters
        .iter()
        .any(|&f| f == filter_id::TRUNC_PREC || f == filter_id::INT_TRUNC);
    let nblocks = 1 + (extra & 0x1f) as usize;
    let mut blocks: Vec<&[u8]> = Vec::with_capacity(nblocks);
    let mut left = rest;
    for j in 0..nblocks {
        if left.is_empty() {
            break;
        }
        // sizes from the extra bits, the last block takes what is left
        let want = ((extra.rotate_left(j as u32 * 5) & 0x3ff) as usize).max(1);
        let n = if j + 1 == nblocks {
            left.len()
        } else {
            want.min(left.len())
        };
        let (b, r) = left.split_at(n);
        blocks.push(b);
        left = r;
    }
    if blocks.is_empty() {
        return;
    }
    let total: usize = blocks.iter().map(|b| b.len()).sum();
    let squeeze = extra & 0x8000_0000 != 0;
    // header, a start and a size word per block, the data stored raw, and a
    // dictionary of at most 5% of the data behind its size word
    let dict_room = if params.use_dict { 4 + total / 20 } else { 0 };
    let room = total + 32 + 8 * blocks.len() + dict_room;
    let cap = if squeeze {
        (extra as usize >> 8) % (room + 1)
    } else {
        room
    };
    let mut chunk = vec![0u8; cap];
    let n = match crate::with_compressor(params, |c| c.vlcompress(&blocks, &mut chunk)) {
        Ok(0) => {
            assert!(
                squeeze,
                "{total} bytes in {} blocks did not fit",
                blocks.len()
            );
            return;
        }
        Ok(n) => n,
        Err(_) => return,
    };
    assert!(n <= chunk.len());
    let chunk = &chunk[..n];
    let got = vlblocks::decompress_blocks(chunk).expect("our own VL chunk does not decode");
    assert_eq!(got.len(), blocks.len());
    for (g, b) in got.iter().zip(&blocks) {
        assert_eq!(g.len(), b.len());
        if !lossy {
            assert!(g == b, "a block changed");
        }
    }
    let mut flat = vec![0u8; total];
    let mut d = Decompressor::new(DParams::default());
    assert_eq!(d.decompress(chunk, &mut flat), Ok(total));
    assert!(flat == got.concat(), "whole-chunk decompression differs");
}
