//! Constants of `blosc2.h`: the upstream anonymous `enum {}` values and `#define`s.
//!
//! cbindgen turns each integer `pub const` here into an object-like `#define`
//! (see build.rs for why that is the form chosen for enum values too), and
//! build.rs turns each one-line `pub const NAME: &CStr = c"...";` into a string
//! `#define`. `#[cfg(not(blosc_h))]` marks the names upstream wraps in
//! `#ifndef BLOSC_H`, so that Blosc1's `blosc.h` can be included first; the
//! cfg is never set when compiling Rust, so Rust always sees them.
//!
//! Keep integer values as plain literals or expressions of other constants of
//! this crate: cbindgen copies the expression into the header.

use core::ffi::{c_int, CStr};

// ---- Version ----

/// Major version of the C-Blosc2 API implemented.
pub const BLOSC2_VERSION_MAJOR: c_int = 3;
/// Minor version of the C-Blosc2 API implemented.
pub const BLOSC2_VERSION_MINOR: c_int = 3;
/// Release (patch) version of the C-Blosc2 API implemented.
pub const BLOSC2_VERSION_RELEASE: c_int = 5;
/// Full version string.
pub const BLOSC2_VERSION_STRING: &CStr = c"3.3.5";
/// Release date, in the format upstream uses.
pub const BLOSC2_VERSION_DATE: &CStr = c"$Date:: 2026-09-24 #$";

// ---- Chunk format versions (upstream anonymous enum) ----

/// Blosc1 pre-release chunk format.
pub const BLOSC1_VERSION_FORMAT_PRE1: c_int = 1;
/// Blosc1 chunk format.
pub const BLOSC1_VERSION_FORMAT: c_int = 2;
/// Blosc2 alpha chunk format.
pub const BLOSC2_VERSION_FORMAT_ALPHA: c_int = 3;
/// Blosc2 beta1 chunk format.
pub const BLOSC2_VERSION_FORMAT_BETA1: c_int = 4;
/// Blosc2 stable chunk format.
pub const BLOSC2_VERSION_FORMAT_STABLE: c_int = 5;
/// Chunk format with variable-length blocks.
pub const BLOSC2_VERSION_FORMAT_VL_BLOCKS: c_int = 6;
/// Chunk format written by this library.
pub const BLOSC2_VERSION_FORMAT: c_int = BLOSC2_VERSION_FORMAT_VL_BLOCKS;

// ---- Frame format versions ----

/// Frame format of 2.0.0-beta2.
pub const BLOSC2_VERSION_FRAME_FORMAT_BETA2: c_int = 1;
/// Frame format of 2.0.0-rc1.
pub const BLOSC2_VERSION_FRAME_FORMAT_RC1: c_int = 2;
/// Frame format with variable-length blocks.
pub const BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS: c_int = 3;
/// Frame format written by this library.
pub const BLOSC2_VERSION_FRAME_FORMAT: c_int = BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS;

// ---- Header sizes and buffer limits ----

/// Size of a Blosc1 chunk header.
#[cfg(not(blosc_h))]
pub const BLOSC_MIN_HEADER_LENGTH: c_int = 16;
/// Size of a Blosc2 (extended) chunk header.
pub const BLOSC_EXTENDED_HEADER_LENGTH: c_int = 32;
/// Largest overhead compression adds to a buffer.
pub const BLOSC2_MAX_OVERHEAD: c_int = BLOSC_EXTENDED_HEADER_LENGTH;
/// Largest buffer that can be compressed.
pub const BLOSC2_MAX_BUFFERSIZE: c_int = i32::MAX - BLOSC2_MAX_OVERHEAD;
/// Largest item size (Blosc1 limit).
#[cfg(not(blosc_h))]
pub const BLOSC_MAX_TYPESIZE: c_int = 255;
/// Smallest buffer worth compressing.
pub const BLOSC_MIN_BUFFERSIZE: c_int = 32;

// ---- Tuner id ranges ----

/// First id of the tuners defined by the library.
pub const BLOSC2_DEFINED_TUNER_START: c_int = 0;
/// Last id of the tuners defined by the library.
pub const BLOSC2_DEFINED_TUNER_STOP: c_int = 31;
/// First id of the globally registered tuners.
pub const BLOSC2_GLOBAL_REGISTERED_TUNER_START: c_int = 32;
/// Last id of the globally registered tuners.
pub const BLOSC2_GLOBAL_REGISTERED_TUNER_STOP: c_int = 159;
/// Number of globally registered tuners.
pub const BLOSC2_GLOBAL_REGISTERED_TUNERS: c_int = 0;
/// First id of user-registered tuners.
pub const BLOSC2_USER_REGISTERED_TUNER_START: c_int = 160;
/// Last id of user-registered tuners.
pub const BLOSC2_USER_REGISTERED_TUNER_STOP: c_int = 255;

// ---- Tuner ids ----

/// The built-in simple tuner.
pub const BLOSC_STUNE: c_int = 0;
/// One past the last built-in tuner.
pub const BLOSC_LAST_TUNER: c_int = 1;
/// Last globally registered tuner id.
pub const BLOSC_LAST_REGISTERED_TUNE: c_int =
    BLOSC2_GLOBAL_REGISTERED_TUNER_START + BLOSC2_GLOBAL_REGISTERED_TUNERS - 1;

// ---- Filter id ranges ----

/// First id of the filters defined by the library.
pub const BLOSC2_DEFINED_FILTERS_START: c_int = 0;
/// Last id of the filters defined by the library.
pub const BLOSC2_DEFINED_FILTERS_STOP: c_int = 31;
/// First id of the globally registered filters.
pub const BLOSC2_GLOBAL_REGISTERED_FILTERS_START: c_int = 32;
/// Last id of the globally registered filters.
pub const BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP: c_int = 159;
/// Number of globally registered filters.
pub const BLOSC2_GLOBAL_REGISTERED_FILTERS: c_int = 5;
/// First id of user-registered filters.
pub const BLOSC2_USER_REGISTERED_FILTERS_START: c_int = 160;
/// Last id of user-registered filters.
pub const BLOSC2_USER_REGISTERED_FILTERS_STOP: c_int = 255;
// `usize` because it is an array length.
/// Number of filter slots in a pipeline.
pub const BLOSC2_MAX_FILTERS: usize = 6;
/// Maximum number of user-defined filters.
pub const BLOSC2_MAX_UDFILTERS: c_int = 16;

// ---- Filter ids ----

/// No shuffle.
#[cfg(not(blosc_h))]
pub const BLOSC_NOSHUFFLE: c_int = 0;
/// No filter.
#[cfg(not(blosc_h))]
pub const BLOSC_NOFILTER: c_int = 0;
/// Byte shuffle.
#[cfg(not(blosc_h))]
pub const BLOSC_SHUFFLE: c_int = 1;
/// Bit shuffle.
#[cfg(not(blosc_h))]
pub const BLOSC_BITSHUFFLE: c_int = 2;
/// Delta against the first block.
pub const BLOSC_DELTA: c_int = 3;
/// Truncate floating-point precision.
pub const BLOSC_TRUNC_PREC: c_int = 4;
/// One past the last built-in filter.
pub const BLOSC_LAST_FILTER: c_int = 5;
/// Last globally registered filter id.
pub const BLOSC_LAST_REGISTERED_FILTER: c_int =
    BLOSC2_GLOBAL_REGISTERED_FILTERS_START + BLOSC2_GLOBAL_REGISTERED_FILTERS - 1;

// ---- Chunk header flags (byte 2) ----

/// Byte shuffle was applied.
#[cfg(not(blosc_h))]
pub const BLOSC_DOSHUFFLE: c_int = 0x1;
/// Data is stored uncompressed.
#[cfg(not(blosc_h))]
pub const BLOSC_MEMCPYED: c_int = 0x2;
/// Bit shuffle was applied.
#[cfg(not(blosc_h))]
pub const BLOSC_DOBITSHUFFLE: c_int = 0x4;
/// Delta was applied.
pub const BLOSC_DODELTA: c_int = 0x8;

// ---- Blosc2 header flags (last byte of the extended header) ----

/// Chunk uses a dictionary.
pub const BLOSC2_USEDICT: c_int = 0x1;
/// Chunk data is big-endian.
pub const BLOSC2_BIGENDIAN: c_int = 0x2;
/// Chunk holds codec instrumentation instead of data.
pub const BLOSC2_INSTR_CODEC: c_int = 0x80;

// ---- Blosc2 header flags2 ----

/// Chunk has variable-length blocks.
pub const BLOSC2_VL_BLOCKS: c_int = 0x1;

// ---- Dictionary and block limits ----

/// Largest dictionary.
pub const BLOSC2_MAXDICTSIZE: c_int = 32 * 1024;
/// Smallest dictionary worth using.
pub const BLOSC2_MINUSEFULDICT: c_int = 256;
/// Largest block size.
pub const BLOSC2_MAXBLOCKSIZE: c_int = 536866816;
/// Largest item size.
pub const BLOSC2_MAXTYPESIZE: c_int = BLOSC2_MAXBLOCKSIZE;

// ---- Codec id ranges ----

/// First id of the codecs defined by the library.
pub const BLOSC2_DEFINED_CODECS_START: c_int = 0;
/// Last id of the codecs defined by the library.
pub const BLOSC2_DEFINED_CODECS_STOP: c_int = 31;
/// First id of the globally registered codecs.
pub const BLOSC2_GLOBAL_REGISTERED_CODECS_START: c_int = 32;
/// Last id of the globally registered codecs.
pub const BLOSC2_GLOBAL_REGISTERED_CODECS_STOP: c_int = 159;
/// Number of globally registered codecs.
pub const BLOSC2_GLOBAL_REGISTERED_CODECS: c_int = 5;
/// First id of user-registered codecs.
pub const BLOSC2_USER_REGISTERED_CODECS_START: c_int = 160;
/// Last id of user-registered codecs.
pub const BLOSC2_USER_REGISTERED_CODECS_STOP: c_int = 255;

// ---- Codec ids ----

/// BloscLZ codec.
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ: c_int = 0;
/// LZ4 codec.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4: c_int = 1;
/// LZ4 high-compression codec.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4HC: c_int = 2;
/// Zlib codec.
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB: c_int = 4;
/// Zstandard codec.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD: c_int = 5;
/// One past the last built-in codec.
pub const BLOSC_LAST_CODEC: c_int = 6;
/// Last globally registered codec id.
pub const BLOSC_LAST_REGISTERED_CODEC: c_int =
    BLOSC2_GLOBAL_REGISTERED_CODECS_START + BLOSC2_GLOBAL_REGISTERED_CODECS - 1;

// ---- Codec names ----

/// Name of the BloscLZ codec.
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ_COMPNAME: &CStr = c"blosclz";
/// Name of the LZ4 codec.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4_COMPNAME: &CStr = c"lz4";
/// Name of the LZ4HC codec.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4HC_COMPNAME: &CStr = c"lz4hc";
/// Name of the Zlib codec.
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB_COMPNAME: &CStr = c"zlib";
/// Name of the Zstandard codec.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD_COMPNAME: &CStr = c"zstd";

// ---- Codec library ids ----

/// BloscLZ library id.
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ_LIB: c_int = 0;
/// LZ4 library id (LZ4 and LZ4HC).
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4_LIB: c_int = 1;
/// Zlib library id.
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB_LIB: c_int = 3;
/// Zstandard library id.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD_LIB: c_int = 4;
/// User-defined codec library id.
pub const BLOSC_UDCODEC_LIB: c_int = 6;
/// Super-chunk library id.
pub const BLOSC_SCHUNK_LIB: c_int = 7;

// ---- Codec library names ----

/// BloscLZ library name.
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ_LIBNAME: &CStr = c"BloscLZ";
/// LZ4 library name.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4_LIBNAME: &CStr = c"LZ4";
/// Zlib library name.
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB_LIBNAME: &CStr = c"Zlib";
/// Zstandard library name.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD_LIBNAME: &CStr = c"Zstd";

// ---- Codec format ids (stored in chunk headers) ----

/// BloscLZ format id.
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ_FORMAT: c_int = BLOSC_BLOSCLZ_LIB;
/// LZ4 format id.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4_FORMAT: c_int = BLOSC_LZ4_LIB;
/// LZ4HC format id (same stream format as LZ4).
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4HC_FORMAT: c_int = BLOSC_LZ4_LIB;
/// Zlib format id.
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB_FORMAT: c_int = BLOSC_ZLIB_LIB;
/// Zstandard format id.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD_FORMAT: c_int = BLOSC_ZSTD_LIB;
/// User-defined codec format id.
pub const BLOSC_UDCODEC_FORMAT: c_int = BLOSC_UDCODEC_LIB;

// ---- Codec format versions ----

/// BloscLZ format version.
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ_VERSION_FORMAT: c_int = 1;
/// LZ4 format version.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4_VERSION_FORMAT: c_int = 1;
/// LZ4HC format version.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4HC_VERSION_FORMAT: c_int = 1;
/// Zlib format version.
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB_VERSION_FORMAT: c_int = 1;
/// Zstandard format version.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD_VERSION_FORMAT: c_int = 1;
/// User-defined codec format version.
pub const BLOSC_UDCODEC_VERSION_FORMAT: c_int = 1;

// ---- Split modes ----

/// Always split blocks into one stream per byte of the item.
#[cfg(not(blosc_h))]
pub const BLOSC_ALWAYS_SPLIT: c_int = 1;
/// Never split blocks.
#[cfg(not(blosc_h))]
pub const BLOSC_NEVER_SPLIT: c_int = 2;
/// Let the library decide.
#[cfg(not(blosc_h))]
pub const BLOSC_AUTO_SPLIT: c_int = 3;
/// Split only where Blosc1 readers would expect it.
#[cfg(not(blosc_h))]
pub const BLOSC_FORWARD_COMPAT_SPLIT: c_int = 4;

// ---- Offsets of fields in the chunk header ----

/// Offset of the format version.
pub const BLOSC2_CHUNK_VERSION: c_int = 0x0;
/// Offset of the codec format version.
pub const BLOSC2_CHUNK_VERSIONLZ: c_int = 0x1;
/// Offset of the flags byte.
pub const BLOSC2_CHUNK_FLAGS: c_int = 0x2;
/// Offset of the item size.
pub const BLOSC2_CHUNK_TYPESIZE: c_int = 0x3;
/// Offset of the uncompressed size.
pub const BLOSC2_CHUNK_NBYTES: c_int = 0x4;
/// Offset of the block size.
pub const BLOSC2_CHUNK_BLOCKSIZE: c_int = 0x8;
/// Offset of the compressed size.
pub const BLOSC2_CHUNK_CBYTES: c_int = 0xc;
/// Offset of the filter ids.
pub const BLOSC2_CHUNK_FILTER_CODES: c_int = 0x10;
/// Offset of the filter metadata.
pub const BLOSC2_CHUNK_FILTER_META: c_int = 0x18;
/// Offset of the flags2 byte.
pub const BLOSC2_CHUNK_BLOSC2_FLAGS2: c_int = 0x1e;
/// Offset of the Blosc2 flags byte.
pub const BLOSC2_CHUNK_BLOSC2_FLAGS: c_int = 0x1F;

// ---- Special chunk kinds ----

/// Not a special chunk.
pub const BLOSC2_NO_SPECIAL: c_int = 0x0;
/// All zeros.
pub const BLOSC2_SPECIAL_ZERO: c_int = 0x1;
/// All NaNs.
pub const BLOSC2_SPECIAL_NAN: c_int = 0x2;
/// One repeated value.
pub const BLOSC2_SPECIAL_VALUE: c_int = 0x3;
/// Uninitialized contents.
pub const BLOSC2_SPECIAL_UNINIT: c_int = 0x4;
/// Highest special kind.
pub const BLOSC2_SPECIAL_LASTID: c_int = 0x4;
/// Mask of the special-kind bits.
pub const BLOSC2_SPECIAL_MASK: c_int = 0x7;

// ---- Error codes ----

/// Success.
pub const BLOSC2_ERROR_SUCCESS: c_int = 0;
/// Generic failure.
pub const BLOSC2_ERROR_FAILURE: c_int = -1;
/// Bad stream.
pub const BLOSC2_ERROR_STREAM: c_int = -2;
/// Invalid data.
pub const BLOSC2_ERROR_DATA: c_int = -3;
/// Memory allocation failed.
pub const BLOSC2_ERROR_MEMORY_ALLOC: c_int = -4;
/// Not enough space to read.
pub const BLOSC2_ERROR_READ_BUFFER: c_int = -5;
/// Not enough space to write.
pub const BLOSC2_ERROR_WRITE_BUFFER: c_int = -6;
/// Codec not supported.
pub const BLOSC2_ERROR_CODEC_SUPPORT: c_int = -7;
/// Invalid codec parameter.
pub const BLOSC2_ERROR_CODEC_PARAM: c_int = -8;
/// Dictionary error.
pub const BLOSC2_ERROR_CODEC_DICT: c_int = -9;
/// Format version not supported.
pub const BLOSC2_ERROR_VERSION_SUPPORT: c_int = -10;
/// Invalid header.
pub const BLOSC2_ERROR_INVALID_HEADER: c_int = -11;
/// Invalid parameter.
pub const BLOSC2_ERROR_INVALID_PARAM: c_int = -12;
/// File read failed.
pub const BLOSC2_ERROR_FILE_READ: c_int = -13;
/// File write failed.
pub const BLOSC2_ERROR_FILE_WRITE: c_int = -14;
/// File open failed.
pub const BLOSC2_ERROR_FILE_OPEN: c_int = -15;
/// Not found.
pub const BLOSC2_ERROR_NOT_FOUND: c_int = -16;
/// Bad run-length encoding.
pub const BLOSC2_ERROR_RUN_LENGTH: c_int = -17;
/// Filter pipeline error.
pub const BLOSC2_ERROR_FILTER_PIPELINE: c_int = -18;
/// Chunk insert failed.
pub const BLOSC2_ERROR_CHUNK_INSERT: c_int = -19;
/// Chunk append failed.
pub const BLOSC2_ERROR_CHUNK_APPEND: c_int = -20;
/// Chunk update failed.
pub const BLOSC2_ERROR_CHUNK_UPDATE: c_int = -21;
/// Size over 2 GB.
pub const BLOSC2_ERROR_2GB_LIMIT: c_int = -22;
/// Super-chunk copy failed.
pub const BLOSC2_ERROR_SCHUNK_COPY: c_int = -23;
/// Wrong frame type.
pub const BLOSC2_ERROR_FRAME_TYPE: c_int = -24;
/// File truncate failed.
pub const BLOSC2_ERROR_FILE_TRUNCATE: c_int = -25;
/// Thread creation failed.
pub const BLOSC2_ERROR_THREAD_CREATE: c_int = -26;
/// Postfilter failed.
pub const BLOSC2_ERROR_POSTFILTER: c_int = -27;
/// Special frame chunk error.
pub const BLOSC2_ERROR_FRAME_SPECIAL: c_int = -28;
/// Special super-chunk chunk error.
pub const BLOSC2_ERROR_SCHUNK_SPECIAL: c_int = -29;
/// I/O plugin error.
pub const BLOSC2_ERROR_PLUGIN_IO: c_int = -30;
/// File remove failed.
pub const BLOSC2_ERROR_FILE_REMOVE: c_int = -31;
/// NULL pointer.
pub const BLOSC2_ERROR_NULL_POINTER: c_int = -32;
/// Invalid index.
pub const BLOSC2_ERROR_INVALID_INDEX: c_int = -33;
/// Metalayer not found.
pub const BLOSC2_ERROR_METALAYER_NOT_FOUND: c_int = -34;
/// Maximum buffer size exceeded.
pub const BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED: c_int = -35;
/// Tuner error.
pub const BLOSC2_ERROR_TUNER: c_int = -36;
/// Frame lock error.
pub const BLOSC2_ERROR_LOCK: c_int = -37;

// ---- I/O backend ids ----

/// Default filesystem backend.
pub const BLOSC2_IO_FILESYSTEM: c_int = 0;
/// Memory-mapped filesystem backend.
pub const BLOSC2_IO_FILESYSTEM_MMAP: c_int = 1;
/// One past the last backend defined by the library.
pub const BLOSC_IO_LAST_BLOSC_DEFINED: c_int = 2;
/// One past the last globally registered backend.
pub const BLOSC_IO_LAST_REGISTERED: c_int = 32;

// ---- I/O backend id ranges ----

/// Ids below this are defined by the library.
pub const BLOSC2_IO_BLOSC_DEFINED: c_int = 32;
/// Ids below this are globally registered.
pub const BLOSC2_IO_REGISTERED: c_int = 160;
/// Ids below this are user-defined.
pub const BLOSC2_IO_USER_DEFINED: c_int = 256;

// ---- Metalayer limits (#defines upstream) ----

// `usize` because it is an array length.
/// Maximum number of fixed-size metalayers.
pub const BLOSC2_MAX_METALAYERS: usize = 16;
/// Maximum length of a metalayer name.
pub const BLOSC2_METALAYER_NAME_MAXLEN: c_int = 31;
// `usize` because it is an array length.
/// Maximum number of variable-length metalayers.
pub const BLOSC2_MAX_VLMETALAYERS: usize = 8 * 1024;
/// Maximum length of a variable-length metalayer name.
pub const BLOSC2_VLMETALAYERS_NAME_MAXLEN: c_int = BLOSC2_METALAYER_NAME_MAXLEN;
