//! Frame checksums (docs/checksums.md): one digest per chunk in the
//! `_b2sum` vlmetalayer, and a seal over the chunk index and that table in
//! the trailer's fingerprint slot. C-Blosc2 readers skip both places, so a
//! frame with checksums stays one they read and write. A writer that does
//! not know them clears the seal whenever it rewrites the trailer, which is
//! how a frame changed by such a writer ("stale") is told from a damaged
//! one ("corrupt").

use super::trailer::Fingerprint;
use crate::error::{ErrorKind, Result};
use std::ops::Range;
use xxhash_rust::xxh3::{xxh3_64, Xxh3Default};

/// The vlmetalayer holding the table.
pub const VLMETA_NAME: &str = "_b2sum";
/// The table layout this module reads and writes.
pub const TABLE_VERSION: u8 = 1;
/// The chunk digest's name in the table.
pub const ALGORITHM: &str = "xxh3-64";
/// The trailer fingerprint type of the seal. The frame format's own values
/// 0-3 name a width only; this one is outside them, so it cannot collide
/// with whatever upstream later gives 1-3.
pub const SEAL_KIND: u8 = 0x43;

/// The digest of one chunk over its stored bytes `[0, cbytes)`. A chunk
/// held in its index entry (no stored bytes) has [`SPECIAL_DIGEST`].
pub fn chunk_digest(stored: &[u8]) -> u64 {
    xxh3_64(stored)
}

/// The digest recorded for a chunk that has no stored bytes.
pub const SPECIAL_DIGEST: u64 = 0;

/// The two header digests: the header with the metalayers' contents left
/// out, and those contents in the order given. `contents` are where the
/// contents lie in `header` (`metalayers::section_spans`); they must not
/// overlap. Another writer may rewrite a metalayer's content in place
/// (`blosc2_meta_update`) without touching the trailer, and this keeps that
/// apart from damage to the fixed fields.
pub fn header_digests(header: &[u8], contents: &[Range<usize>]) -> Result<[u64; 2]> {
    let mut sorted = contents.to_vec();
    sorted.sort_by_key(|r| r.start);
    let mut fixed = Xxh3Default::new();
    let mut at = 0;
    for r in &sorted {
        if r.start < at || r.start > r.end || r.end > header.len() {
            return Err(ErrorKind::Data);
        }
        fixed.update(&header[at..r.start]);
        at = r.end;
    }
    fixed.update(&header[at..]);
    let mut metas = Xxh3Default::new();
    for r in contents {
        metas.update(&header[r.clone()]);
    }
    Ok([fixed.digest(), metas.digest()])
}

/// The seal: XXH3-128 over the stored index chunk followed by the trailer
/// up to its fingerprint slot (every vlmetalayer, the `_b2sum` table among
/// them, and the trailer's length), little-endian (low 64 bits first).
pub fn seal(index_chunk: &[u8], trailer_head: &[u8]) -> Fingerprint {
    let mut h = Xxh3Default::new();
    h.update(index_chunk);
    h.update(trailer_head);
    Fingerprint {
        kind: SEAL_KIND,
        bytes: h.digest128().to_le_bytes(),
    }
}

/// The content of the `_b2sum` vlmetalayer (before it is stored as a
/// chunk).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    /// One per chunk, in index order ([`chunk_digest`]).
    pub digests: Vec<u64>,
    /// See [`header_digests`].
    pub header: [u64; 2],
}

/// [`Table::encode`] of the digests and header digests given (a frame
/// write encodes its entries' digests without copying them into a table).
pub fn encode_table(digests: &[u64], header: &[u64; 2]) -> Result<Vec<u8>> {
    let n = digests.len();
    let bin = n
        .checked_mul(8)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or(ErrorKind::TwoGbLimit)?;
    let mut out = Vec::with_capacity(48 + bin as usize);
    rmp::encode::write_array_len(&mut out, 5).map_err(|_| ErrorKind::Failure)?;
    rmp::encode::write_pfix(&mut out, TABLE_VERSION).map_err(|_| ErrorKind::Failure)?;
    rmp::encode::write_str(&mut out, ALGORITHM).map_err(|_| ErrorKind::Failure)?;
    rmp::encode::write_uint(&mut out, n as u64).map_err(|_| ErrorKind::Failure)?;
    rmp::encode::write_bin_len(&mut out, bin).map_err(|_| ErrorKind::Failure)?;
    for d in digests {
        out.extend_from_slice(&d.to_le_bytes());
    }
    rmp::encode::write_bin_len(&mut out, 16).map_err(|_| ErrorKind::Failure)?;
    for d in header {
        out.extend_from_slice(&d.to_le_bytes());
    }
    Ok(out)
}

/// What a `_b2sum` content turned out to hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoded {
    Table(Table),
    /// A table version or digest this reader does not know: the frame is
    /// then unverified, never an error.
    Unknown,
}

fn le64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    u64::from_le_bytes(a)
}

impl Table {
    /// The msgpack array `[version, algorithm, n, bin digests, bin header]`.
    pub fn encode(&self) -> Result<Vec<u8>> {
        encode_table(&self.digests, &self.header)
    }

    /// Parse a `_b2sum` content. Malformed bytes are `ErrorKind::Data`; a
    /// version or algorithm other than ours is [`Decoded::Unknown`].
    pub fn decode(content: &[u8]) -> Result<Decoded> {
        let bad = |what: &str| {
            crate::traced!(
                ErrorKind::Data,
                "The {VLMETA_NAME} vlmetalayer is malformed: {what}"
            )
        };
        let mut rd: &[u8] = content;
        let items = rmp::decode::read_array_len(&mut rd).map_err(|_| bad("not an array"))?;
        if items == 0 {
            return Err(bad("an empty array"));
        }
        let version: u64 = rmp::decode::read_int(&mut rd).map_err(|_| bad("no version"))?;
        if version != u64::from(TABLE_VERSION) {
            return Ok(Decoded::Unknown);
        }
        if items != 5 {
            return Err(bad("not 5 elements"));
        }
        let (alg, rest) =
            rmp::decode::read_str_from_slice(rd).map_err(|_| bad("no algorithm name"))?;
        if alg != ALGORITHM {
            return Ok(Decoded::Unknown);
        }
        rd = rest;
        let n: u64 = rmp::decode::read_int(&mut rd).map_err(|_| bad("no chunk count"))?;
        let len = rmp::decode::read_bin_len(&mut rd).map_err(|_| bad("no digests"))? as usize;
        if n.checked_mul(8) != Some(len as u64) {
            return Err(bad("the digests do not match the chunk count"));
        }
        let digests = rd
            .get(..len)
            .ok_or_else(|| bad("the digests are cut short"))?;
        rd = &rd[len..];
        let hlen = rmp::decode::read_bin_len(&mut rd).map_err(|_| bad("no header digests"))?;
        if hlen != 16 || rd.len() != 16 {
            return Err(bad("the header digests are not 16 bytes at the end"));
        }
        Ok(Decoded::Table(Table {
            digests: digests.chunks_exact(8).map(le64).collect(),
            header: [le64(&rd[..8]), le64(&rd[8..])],
        }))
    }
}

/// What a frame's seal says about it, before any chunk is looked at
/// (docs/checksums.md, "Verdicts").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameState {
    /// No table and no seal, another writer's fingerprint, or a table this
    /// reader does not know: nothing to check.
    Unverified,
    /// A table without a seal (or under another writer's fingerprint):
    /// another writer changed or copied the frame after it was sealed. Not
    /// corruption.
    Stale(Table),
    /// A seal that does not match, or one whose table is missing or
    /// unreadable: damaged index, table or trailer, or a torn write.
    Corrupt,
    /// The seal matches: the table is authoritative.
    Sealed(Table),
}

/// Judge a frame from its fingerprint, its stored index chunk (empty when
/// it has no chunks), its trailer up to the fingerprint slot and the
/// content of its `_b2sum` vlmetalayer, if it has one (`Err` when it
/// cannot be decompressed).
pub fn judge(
    fp: &Fingerprint,
    index_chunk: &[u8],
    trailer_head: &[u8],
    table: Option<Result<Vec<u8>>>,
) -> FrameState {
    let sealed = fp.kind == SEAL_KIND;
    let foreign = fp.kind != 0 && !sealed;
    if foreign && table.is_none() {
        return FrameState::Unverified;
    }
    let Some(content) = table else {
        // a seal whose table was lost is a damaged trailer
        return if sealed {
            FrameState::Corrupt
        } else {
            FrameState::Unverified
        };
    };
    if sealed && seal(index_chunk, trailer_head) != *fp {
        return FrameState::Corrupt;
    }
    let table = match content.and_then(|c| Table::decode(&c)) {
        Ok(Decoded::Table(t)) => t,
        Ok(Decoded::Unknown) => return FrameState::Unverified,
        // a sealed table that does not parse was sealed that way by nobody
        Err(_) if sealed => return FrameState::Corrupt,
        Err(_) => return FrameState::Unverified,
    };
    if sealed {
        FrameState::Sealed(table)
    } else {
        FrameState::Stale(table)
    }
}

/// One chunk's verdict against a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkState {
    Verified,
    Corrupt,
    /// The table has no digest for this chunk (a stale table is shorter or
    /// longer than the index), or the frame is not sealed.
    Unverified,
}

impl Table {
    /// Check chunk `i`, whose stored bytes are `stored` (`None` for a chunk
    /// held in its index entry).
    pub fn check(&self, i: usize, stored: Option<&[u8]>) -> ChunkState {
        let Some(&want) = self.digests.get(i) else {
            return ChunkState::Unverified;
        };
        let got = stored.map_or(SPECIAL_DIGEST, chunk_digest);
        if got == want {
            ChunkState::Verified
        } else {
            ChunkState::Corrupt
        }
    }
}

/// The `_b2sum` vlmetalayer as stored: the table's content as a memcpyed
/// chunk (clevel 0), so that its length depends on the chunk count alone.
/// A writer needs that: the header digests are taken over the final header,
/// which holds the frame's length, which holds the table's.
pub fn table_chunk(content: &[u8]) -> Result<Vec<u8>> {
    let p = crate::chunk::CParams {
        clevel: 0,
        typesize: 1,
        nthreads: 1,
        filters: [0; crate::chunk::header::MAX_FILTERS],
        ..Default::default()
    };
    let mut out = vec![0u8; content.len() + crate::chunk::header::EXTENDED_HEADER_LENGTH];
    let n = crate::chunk::Compressor::new(p).compress(content, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// The header digests of a frame header (see [`header_digests`]): its
/// metalayers' contents are found through the header's own section.
pub fn frame_header_digests(header: &[u8]) -> Result<[u64; 2]> {
    let spans = crate::metalayers::section_spans(
        header,
        super::header::HEADER_MINLEN,
        crate::metalayers::MAX_METALAYERS,
    )?;
    let contents: Vec<Range<usize>> = spans.into_iter().map(|(_, r)| r).collect();
    header_digests(header, &contents)
}

/// What was found damaged in a frame whose seal is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Damage {
    /// The seal does not match the index and the table (or the table is
    /// missing or unreadable): the index, the table or the trailer.
    Seal,
    /// The fixed fields of the header.
    Header,
    /// The table describes another number of chunks than the index holds.
    ChunkCount,
}

/// A whole frame's verdict, before its chunks are read (docs/checksums.md,
/// "Verdicts"): [`judge`], then the header and the chunk count against a
/// sealed table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Unverified,
    Stale(Table),
    Corrupt(Damage),
    /// The table is authoritative for the chunks. `metalayers_changed`: the
    /// metalayers' contents differ from what was sealed (an in-place
    /// `blosc2_meta_update` by a writer without checksums), which is not
    /// corruption of the data.
    Sealed {
        table: Table,
        metalayers_changed: bool,
    },
}

/// Judge a frame: its fingerprint, stored index chunk, trailer head and
/// `_b2sum` content (as for [`judge`]), header bytes and chunk count.
pub fn verdict(
    fp: &Fingerprint,
    index_chunk: &[u8],
    trailer_head: &[u8],
    table: Option<Result<Vec<u8>>>,
    header: &[u8],
    nchunks: usize,
) -> Verdict {
    match judge(fp, index_chunk, trailer_head, table) {
        FrameState::Unverified => Verdict::Unverified,
        FrameState::Stale(t) => Verdict::Stale(t),
        FrameState::Corrupt => Verdict::Corrupt(Damage::Seal),
        FrameState::Sealed(table) => {
            if table.digests.len() != nchunks {
                return Verdict::Corrupt(Damage::ChunkCount);
            }
            let Ok([fixed, metas]) = frame_header_digests(header) else {
                return Verdict::Corrupt(Damage::Header);
            };
            if fixed != table.header[0] {
                return Verdict::Corrupt(Damage::Header);
            }
            let metalayers_changed = metas != table.header[1];
            Verdict::Sealed {
                table,
                metalayers_changed,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Known answers from the reference C xxHash (through Python's xxhash
    // 3.x), so that the format cannot drift with the crate behind it.
    #[test]
    fn xxh3_known_answers() {
        assert_eq!(chunk_digest(b""), 0x2d06_8005_38d3_94c2);
        let d: Vec<u8> = (0..1280).map(|i| i as u8).collect();
        assert_eq!(chunk_digest(&d), KAT_64_1280);
        assert_eq!(
            Xxh3Default::new().digest128(),
            0x99aa_06d3_0147_98d8_6001_c324_468d_497f
        );
        let s = seal(b"index", b"table");
        assert_eq!(s.kind, SEAL_KIND);
        assert_eq!(u128::from_le_bytes(s.bytes), KAT_128_INDEX_TABLE);
    }
    const KAT_64_1280: u64 = 0x4844_b009_e164_352e;
    const KAT_128_INDEX_TABLE: u128 = 0xf3ae_b210_d641_5bde_8eee_c95b_c205_ed87;

    fn sample() -> Table {
        Table {
            digests: vec![1, 0, u64::MAX, 0x0102_0304_0506_0708],
            header: [11, 22],
        }
    }

    #[test]
    fn table_round_trip() {
        for t in [Table::default(), sample()] {
            let enc = t.encode().unwrap();
            assert_eq!(Table::decode(&enc).unwrap(), Decoded::Table(t.clone()));
            // every truncation and every extra byte is an error, not a panic
            for cut in 0..enc.len() {
                assert!(Table::decode(&enc[..cut]).is_err(), "cut at {cut}");
            }
            let mut long = enc.clone();
            long.push(0);
            assert!(Table::decode(&long).is_err());
        }
        // the digests are little-endian on every host
        let enc = sample().encode().unwrap();
        let at = enc.len() - 16 - 2 - 8;
        assert_eq!(&enc[at..at + 8], &[8, 7, 6, 5, 4, 3, 2, 1]);
    }

    #[test]
    fn unknown_tables_are_not_errors() {
        let mut v2 = Vec::new();
        rmp::encode::write_array_len(&mut v2, 2).unwrap();
        rmp::encode::write_pfix(&mut v2, 2).unwrap();
        rmp::encode::write_str(&mut v2, "whatever").unwrap();
        assert_eq!(Table::decode(&v2).unwrap(), Decoded::Unknown);
        let mut enc = sample().encode().unwrap();
        // "xxh3-64" -> "xxh3-65"
        let p = enc.windows(7).position(|w| w == b"xxh3-64").unwrap();
        enc[p + 6] = b'5';
        assert_eq!(Table::decode(&enc).unwrap(), Decoded::Unknown);
        assert!(Table::decode(&[0x90]).is_err());
        assert!(Table::decode(b"").is_err());
    }

    #[test]
    fn verdicts() {
        let t = sample();
        let content = t.encode().unwrap();
        // the trailer's bytes are opaque here: any do
        let stored = b"stored table chunk".to_vec();
        let index = b"index chunk".to_vec();
        let good = seal(&index, &stored);
        let ok = || Ok(content.clone());
        let j = judge;

        assert_eq!(
            j(&Fingerprint::NONE, &index, &stored, None),
            FrameState::Unverified
        );
        assert_eq!(j(&good, &index, &stored, None), FrameState::Corrupt);
        assert_eq!(
            j(&Fingerprint::NONE, &index, &stored, Some(ok())),
            FrameState::Stale(t.clone())
        );
        assert_eq!(
            j(&good, &index, &stored, Some(ok())),
            FrameState::Sealed(t.clone())
        );
        // a flipped bit in the index, the table or the seal
        assert_eq!(
            j(&good, b"index chunK", &stored, Some(ok())),
            FrameState::Corrupt
        );
        assert_eq!(
            j(&good, &index, b"stored table chunK", Some(ok())),
            FrameState::Corrupt
        );
        let mut bad = good;
        bad.bytes[15] ^= 0x80;
        assert_eq!(j(&bad, &index, &stored, Some(ok())), FrameState::Corrupt);
        // someone else's fingerprint: over our table, another writer has
        // been there since
        let other = Fingerprint {
            kind: 1,
            bytes: [9; 16],
        };
        assert_eq!(
            j(&other, &index, &stored, Some(ok())),
            FrameState::Stale(t.clone())
        );
        assert_eq!(j(&other, &index, &stored, None), FrameState::Unverified);
        // a sealed table that cannot be read
        assert_eq!(
            j(&good, &index, &stored, Some(Err(ErrorKind::Data))),
            FrameState::Corrupt
        );
        assert_eq!(
            j(&good, &index, &stored, Some(Ok(vec![0x90]))),
            FrameState::Corrupt
        );
        // ... and an unsealed one is just not checked
        assert_eq!(
            j(&Fingerprint::NONE, &index, &stored, Some(Ok(vec![0x90]))),
            FrameState::Unverified
        );
    }

    #[test]
    fn chunk_checks() {
        let a = b"chunk a".to_vec();
        let t = Table {
            digests: vec![chunk_digest(&a), SPECIAL_DIGEST],
            header: [0, 0],
        };
        assert_eq!(t.check(0, Some(&a)), ChunkState::Verified);
        assert_eq!(t.check(0, Some(b"chunk b")), ChunkState::Corrupt);
        assert_eq!(t.check(1, None), ChunkState::Verified);
        assert_eq!(t.check(1, Some(&a)), ChunkState::Corrupt);
        assert_eq!(t.check(2, Some(&a)), ChunkState::Unverified);
    }

    #[test]
    fn header_digests_leave_contents_out() {
        let h = b"0123456789abcdefghij".to_vec();
        let spans = [4..8, 12..14];
        let [fixed, metas] = header_digests(&h, &spans).unwrap();
        let mut changed = h.clone();
        changed[5] = b'X';
        changed[13] = b'Y';
        let [f2, m2] = header_digests(&changed, &spans).unwrap();
        assert_eq!(f2, fixed);
        assert_ne!(m2, metas);
        let mut changed = h.clone();
        changed[0] = b'X';
        let [f3, m3] = header_digests(&changed, &spans).unwrap();
        assert_ne!(f3, fixed);
        assert_eq!(m3, metas);
        assert!(header_digests(&h, &[4..8, 6..10]).is_err());
        assert!(header_digests(&h, &[0..2, 10..30]).is_err());
    }
}
