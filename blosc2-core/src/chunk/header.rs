//! The chunk header: the 16-byte Blosc1 header and its 32-byte Blosc2 extension
//! (spec: chunk-format.rst, "Header").

use crate::error::{ErrorKind, Result};

/// Length of the Blosc1 header.
pub const MIN_HEADER_LENGTH: usize = 16;
/// Length of the Blosc2 extended header.
pub const EXTENDED_HEADER_LENGTH: usize = 32;
/// Number of slots in the filter pipeline.
pub const MAX_FILTERS: usize = 6;
/// Largest block a chunk may declare.
pub const MAX_BLOCKSIZE: i32 = 536_866_816;
/// Largest buffer that fits in a chunk (nbytes + header stay below 2 GiB).
pub const MAX_BUFFERSIZE: i32 = i32::MAX - EXTENDED_HEADER_LENGTH as i32;
/// Buffers smaller than this are always stored memcpyed.
pub const MIN_BUFFERSIZE: i32 = 32;

/// Chunk format versions (`version` byte).
pub mod version {
    pub const BLOSC1: u8 = 2;
    pub const ALPHA: u8 = 3;
    pub const BETA1: u8 = 4;
    pub const STABLE: u8 = 5;
    pub const VL_BLOCKS: u8 = 6;
    /// Highest version this library reads.
    pub const MAX: u8 = VL_BLOCKS;
}

/// Bits of the `flags` byte.
pub mod flags {
    pub const DOSHUFFLE: u8 = 0x01;
    pub const MEMCPYED: u8 = 0x02;
    pub const DOBITSHUFFLE: u8 = 0x04;
    pub const DODELTA: u8 = 0x08;
    pub const DONT_SPLIT: u8 = 0x10;
}

/// Bits of the `blosc2_flags` byte.
pub mod blosc2_flags {
    pub const USEDICT: u8 = 0x01;
    pub const BIGENDIAN: u8 = 0x02;
    pub const LAZY: u8 = 0x08;
    pub const INSTR_CODEC: u8 = 0x80;
}

/// Bits of the `blosc2_flags2` byte.
pub mod blosc2_flags2 {
    pub const VL_BLOCKS: u8 = 0x01;
}

/// Whether `src` can start a lazy chunk (an extended header with the lazy
/// bit set), from two flag bytes alone: a `false` is final, a `true` still
/// needs [`ChunkHeader::read`].
pub fn may_be_lazy(src: &[u8]) -> bool {
    let ext = flags::DOSHUFFLE | flags::DOBITSHUFFLE;
    src.len() >= EXTENDED_HEADER_LENGTH && src[2] & ext == ext && src[31] & blosc2_flags::LAZY != 0
}

/// Special-value kinds (bits 4-6 of `blosc2_flags`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Special {
    None = 0,
    Zero = 1,
    Nan = 2,
    Value = 3,
    Uninit = 4,
}

impl Special {
    pub fn from_bits(bits: u8) -> Option<Special> {
        Some(match bits {
            0 => Special::None,
            1 => Special::Zero,
            2 => Special::Nan,
            3 => Special::Value,
            4 => Special::Uninit,
            _ => return None,
        })
    }
}

/// Codec format numbers stored in the top three bits of `flags`.
pub mod compformat {
    pub const BLOSCLZ: u8 = 0;
    pub const LZ4: u8 = 1;
    pub const ZLIB: u8 = 3;
    pub const ZSTD: u8 = 4;
    pub const UDCODEC: u8 = 6;
}

/// Filter ids of the pipeline.
pub mod filter_id {
    pub const NOFILTER: u8 = 0;
    pub const SHUFFLE: u8 = 1;
    pub const BITSHUFFLE: u8 = 2;
    pub const DELTA: u8 = 3;
    pub const TRUNC_PREC: u8 = 4;
    pub const LAST_FILTER: u8 = 5;
    /// The pre-3.3.2 BYTEDELTA, kept for files that used it.
    pub const BYTEDELTA_BUGGY: u8 = 34;
    pub const BYTEDELTA: u8 = 35;
    pub const INT_TRUNC: u8 = 36;
}

/// A decoded chunk header. Integers are host values (the format is little endian).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkHeader {
    pub version: u8,
    pub versionlz: u8,
    pub flags: u8,
    pub typesize: u8,
    pub nbytes: i32,
    pub blocksize: i32,
    pub cbytes: i32,
    pub filters: [u8; MAX_FILTERS],
    pub udcompcode: u8,
    pub compcode_meta: u8,
    pub filters_meta: [u8; MAX_FILTERS],
    pub blosc2_flags2: u8,
    pub blosc2_flags: u8,
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl ChunkHeader {
    /// Read the 16 leading bytes (and the extension, when the buffer holds
    /// one) without validation: what the Blosc1 "sizes" calls expose even
    /// for odd buffers.
    pub fn read_raw(src: &[u8]) -> Result<ChunkHeader> {
        let mut h = Self::read_base(src)?;
        if h.is_extended() && src.len() >= EXTENDED_HEADER_LENGTH {
            h.read_extension(src);
        }
        Ok(h)
    }

    /// The 16 bytes of the Blosc1 header, the extension's fields left zero.
    fn read_base(src: &[u8]) -> Result<ChunkHeader> {
        if src.len() < MIN_HEADER_LENGTH {
            return Err(crate::traced!(
                ErrorKind::ReadBuffer,
                "Chunk of {} bytes is shorter than a chunk header ({MIN_HEADER_LENGTH})",
                src.len()
            ));
        }
        Ok(ChunkHeader {
            version: src[0],
            versionlz: src[1],
            flags: src[2],
            typesize: src[3],
            nbytes: le_i32(src, 4),
            blocksize: le_i32(src, 8),
            cbytes: le_i32(src, 12),
            ..Default::default()
        })
    }

    fn read_extension(&mut self, src: &[u8]) {
        self.filters.copy_from_slice(&src[16..22]);
        self.udcompcode = src[22];
        self.compcode_meta = src[23];
        self.filters_meta.copy_from_slice(&src[24..30]);
        self.blosc2_flags2 = src[30];
        self.blosc2_flags = src[31];
    }

    /// Parse and validate the 16-byte header only (what the `cbuffer_*`
    /// inspection calls use).
    pub fn read_min(src: &[u8]) -> Result<ChunkHeader> {
        let mut h = Self::read_raw(src)?;
        if h.cbytes < MIN_HEADER_LENGTH as i32
            || h.blocksize <= 0
            || h.blocksize > MAX_BLOCKSIZE
            || h.typesize == 0
        {
            return Err(ErrorKind::InvalidHeader);
        }
        if h.nbytes > 0 && h.blocksize > h.nbytes {
            h.blocksize = h.nbytes;
        }
        Ok(h)
    }

    /// Parse and validate a header the way the decoder needs it. Old (Blosc1)
    /// headers get their filter pipeline synthesized from the flag bits.
    pub fn read(src: &[u8]) -> Result<ChunkHeader> {
        let mut h = Self::read_base(src)?;
        if h.cbytes < MIN_HEADER_LENGTH as i32 {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Chunk header claims cbytes {} (offset 12), less than its own length",
                h.cbytes
            ));
        }
        if h.blocksize <= 0 || h.blocksize > MAX_BLOCKSIZE {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Chunk header has blocksize {} (offset 8), not in 1..={MAX_BLOCKSIZE}",
                h.blocksize
            ));
        }
        if h.typesize == 0 {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Chunk header has typesize 0 (offset 3)"
            ));
        }
        if h.nbytes < 0 {
            return Err(crate::traced!(
                ErrorKind::InvalidHeader,
                "Chunk header has negative nbytes {} (offset 4)",
                h.nbytes
            ));
        }
        if h.is_extended() {
            if h.cbytes < EXTENDED_HEADER_LENGTH as i32 {
                return Err(ErrorKind::InvalidHeader);
            }
            if src.len() < EXTENDED_HEADER_LENGTH {
                return Err(ErrorKind::ReadBuffer);
            }
            h.read_extension(src);
            let special = h.special_bits();
            if h.is_vlblocks() && special != 0 {
                return Err(ErrorKind::InvalidHeader);
            }
            if special == Special::Value as u8 {
                // the value's width is whatever follows the header
                let ts = h.cbytes - EXTENDED_HEADER_LENGTH as i32;
                if ts <= 0 || ts > MAX_BLOCKSIZE || ts > h.nbytes || h.nbytes % ts != 0 {
                    return Err(ErrorKind::InvalidHeader);
                }
            } else if special != 0
                && special != Special::Zero as u8
                && h.nbytes % h.typesize as i32 != 0
            {
                return Err(ErrorKind::InvalidHeader);
            }
            if h.version == version::ALPHA {
                // alpha writers left the last slot uninitialized
                h.filters[5] = 0;
                h.filters_meta[5] = 0;
            }
        } else {
            h.filters = filters_from_flags(h.flags);
        }
        if h.version > version::MAX && (h.blosc2_flags2 & !blosc2_flags2::VL_BLOCKS) != 0 {
            return Err(ErrorKind::VersionSupport);
        }
        if h.is_vlblocks() && h.flags & flags::MEMCPYED != 0 {
            return Err(ErrorKind::InvalidHeader);
        }
        if !h.is_vlblocks() && h.nbytes > 0 && h.blocksize > h.nbytes {
            h.blocksize = h.nbytes;
        }
        Ok(h)
    }

    /// Serialize into the first 16 or 32 bytes of `dst`.
    pub fn write(&self, dst: &mut [u8]) {
        dst[0] = self.version;
        dst[1] = self.versionlz;
        dst[2] = self.flags;
        dst[3] = self.typesize;
        dst[4..8].copy_from_slice(&self.nbytes.to_le_bytes());
        dst[8..12].copy_from_slice(&self.blocksize.to_le_bytes());
        dst[12..16].copy_from_slice(&self.cbytes.to_le_bytes());
        if self.is_extended() {
            dst[16..22].copy_from_slice(&self.filters);
            dst[22] = self.udcompcode;
            dst[23] = self.compcode_meta;
            dst[24..30].copy_from_slice(&self.filters_meta);
            dst[30] = self.blosc2_flags2;
            dst[31] = self.blosc2_flags;
        }
    }

    /// Both shuffle bits set is the marker of the extended header.
    pub fn is_extended(&self) -> bool {
        self.flags & (flags::DOSHUFFLE | flags::DOBITSHUFFLE)
            == (flags::DOSHUFFLE | flags::DOBITSHUFFLE)
    }

    pub fn header_len(&self) -> usize {
        if self.is_extended() {
            EXTENDED_HEADER_LENGTH
        } else {
            MIN_HEADER_LENGTH
        }
    }

    pub fn is_memcpyed(&self) -> bool {
        self.flags & flags::MEMCPYED != 0
    }

    pub fn dont_split(&self) -> bool {
        self.flags & flags::DONT_SPLIT != 0
    }

    pub fn compformat(&self) -> u8 {
        self.flags >> 5
    }

    /// Whether decoding any block of this chunk needs its first block
    /// decoded too: DELTA works against it, so a partial read of the chunk
    /// (some of its blocks from a file) must include block 0.
    pub fn blocks_need_the_first(&self) -> bool {
        self.filters.contains(&filter_id::DELTA)
    }

    pub fn is_vlblocks(&self) -> bool {
        self.is_extended() && self.blosc2_flags2 & blosc2_flags2::VL_BLOCKS != 0
    }

    pub fn is_lazy(&self) -> bool {
        self.is_extended() && self.blosc2_flags & blosc2_flags::LAZY != 0
    }

    pub fn uses_dict(&self) -> bool {
        self.is_extended() && self.blosc2_flags & blosc2_flags::USEDICT != 0
    }

    pub fn special_bits(&self) -> u8 {
        if self.is_extended() {
            (self.blosc2_flags >> 4) & 0x7
        } else {
            0
        }
    }

    /// The chunk's codec *format* (`compformat::*`: LZ4 and LZ4HC share
    /// one, and ZLIB and ZSTD are 3 and 4 where their codec ids are 4 and
    /// 5), or the codec id of a user-defined codec.
    pub fn compcode(&self) -> u8 {
        let f = self.compformat();
        if f == compformat::UDCODEC && self.is_extended() {
            self.udcompcode
        } else {
            f
        }
    }

    /// Number of blocks and size of the last one (0 leftover = all full).
    pub fn nblocks(&self) -> (usize, usize) {
        if self.blocksize <= 0 || self.nbytes <= 0 {
            return (0, 0);
        }
        let nbytes = self.nbytes as usize;
        let bs = self.blocksize as usize;
        let leftover = nbytes % bs;
        (nbytes / bs + usize::from(leftover > 0), leftover)
    }
}

/// The pipeline a Blosc1 header implies through its flag bits.
pub fn filters_from_flags(flags_byte: u8) -> [u8; MAX_FILTERS] {
    let mut f = [0u8; MAX_FILTERS];
    if flags_byte & flags::DOSHUFFLE != 0 {
        f[MAX_FILTERS - 1] = filter_id::SHUFFLE;
    }
    if flags_byte & flags::DOBITSHUFFLE != 0 {
        f[MAX_FILTERS - 1] = filter_id::BITSHUFFLE;
    }
    if flags_byte & flags::DODELTA != 0 {
        f[MAX_FILTERS - 2] = filter_id::DELTA;
    }
    f
}

/// The flag bits that advertise a pipeline to Blosc1 readers.
pub fn flags_from_filters(filters: &[u8; MAX_FILTERS]) -> u8 {
    filters.iter().fold(0, |acc, &f| {
        acc | match f {
            filter_id::SHUFFLE => flags::DOSHUFFLE,
            filter_id::BITSHUFFLE => flags::DOBITSHUFFLE,
            filter_id::DELTA => flags::DODELTA,
            _ => 0,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_extended() {
        let h = ChunkHeader {
            version: 5,
            versionlz: 1,
            flags: 0x07 | (4 << 5),
            typesize: 4,
            nbytes: 1000,
            blocksize: 1000,
            cbytes: 200,
            filters: [0, 0, 0, 0, 3, 1],
            filters_meta: [0, 0, 0, 0, 0, 0],
            ..Default::default()
        };
        let mut buf = [0u8; 32];
        h.write(&mut buf);
        let r = ChunkHeader::read(&buf).unwrap();
        assert_eq!(r, h);
        assert_eq!(r.compcode(), 4);
    }

    #[test]
    fn rejects_bad_headers() {
        assert_eq!(ChunkHeader::read(&[0u8; 10]), Err(ErrorKind::ReadBuffer));
        let mut b = [0u8; 32];
        b[0] = 2;
        b[3] = 4;
        b[8] = 0; // blocksize 0
        b[12] = 100;
        assert_eq!(ChunkHeader::read(&b), Err(ErrorKind::InvalidHeader));
    }

    #[test]
    fn blosc1_flags_give_pipeline() {
        assert_eq!(filters_from_flags(0x09), [0, 0, 0, 0, 3, 1]);
        assert_eq!(flags_from_filters(&[0, 0, 0, 0, 3, 2]), 0x0c);
    }
}
