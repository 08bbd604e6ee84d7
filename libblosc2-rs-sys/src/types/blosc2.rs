//! Structs and callback typedefs declared by `blosc2.h`.
//!
//! Field order, field types and names follow the C header one for one: these
//! structs are read and written by C callers, so any change here is an ABI
//! break (c-tests/layout proves the layout against the reference header).

use core::ffi::{c_char, c_int, c_void};
use core::marker::{PhantomData, PhantomPinned};
use core::ptr;

use crate::boundary::const_u8;
use crate::consts::{
    BLOSC2_IO_FILESYSTEM, BLOSC2_MAX_FILTERS, BLOSC2_MAX_METALAYERS, BLOSC2_MAX_VLMETALAYERS,
    BLOSC_BLOSCLZ, BLOSC_FORWARD_COMPAT_SPLIT, BLOSC_SHUFFLE,
};

/// Opaque compression/decompression context (`struct blosc2_context_s`).
///
/// Zero-sized and never constructed: the capi code hands out pointers to its
/// own context type cast to `*mut blosc2_context`, so C only ever holds an
/// opaque handle. The marker keeps it `!Send`, `!Sync` and `!Unpin`.
#[repr(C)]
pub struct blosc2_context {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// Opaque frame handle (`struct blosc2_frame_s`), see [`blosc2_context`].
#[repr(C)]
pub struct blosc2_frame {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// Codec instrumentation record written in place of the data when `instr_codec` is set.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct blosc2_instr {
    /// Compression ratio of the block.
    pub cratio: f32,
    /// Compression speed of the block.
    pub cspeed: f32,
    /// Filter speed of the block.
    pub filter_speed: f32,
    /// Filter/codec flags of the block.
    pub flags: [u8; 4],
}

/// Thread-pool hook: the library calls it instead of its own threads, with `numjobs` jobs to run.
pub type blosc_threads_callback = Option<
    unsafe extern "C" fn(
        callback_data: *mut c_void,
        dojob: Option<unsafe extern "C" fn(*mut c_void)>,
        numjobs: c_int,
        jobdata_elsize: usize,
        jobdata: *mut c_void,
    ),
>;

/// I/O backend: open `urlpath` with a `fopen`-like `mode`, returning a stream handle.
pub type blosc2_open_cb = Option<
    unsafe extern "C" fn(
        urlpath: *const c_char,
        mode: *const c_char,
        params: *mut c_void,
    ) -> *mut c_void,
>;
/// I/O backend: close a stream, 0 on success.
pub type blosc2_close_cb = Option<unsafe extern "C" fn(stream: *mut c_void) -> c_int>;
/// I/O backend: size in bytes of a stream.
pub type blosc2_size_cb = Option<unsafe extern "C" fn(stream: *mut c_void) -> i64>;
/// I/O backend: write `nitems` items of `size` bytes at `position`, returning items written.
pub type blosc2_write_cb = Option<
    unsafe extern "C" fn(
        ptr: *const c_void,
        size: i64,
        nitems: i64,
        position: i64,
        stream: *mut c_void,
    ) -> i64,
>;
/// I/O backend: read `nitems` items of `size` bytes at `position` into `*ptr` (which it may repoint).
pub type blosc2_read_cb = Option<
    unsafe extern "C" fn(
        ptr: *mut *mut c_void,
        size: i64,
        nitems: i64,
        position: i64,
        stream: *mut c_void,
    ) -> i64,
>;
/// I/O backend: truncate a stream to `size` bytes.
pub type blosc2_truncate_cb = Option<unsafe extern "C" fn(stream: *mut c_void, size: i64) -> c_int>;
/// I/O backend: release the backend's `params`.
pub type blosc2_destroy_cb = Option<unsafe extern "C" fn(params: *mut c_void) -> c_int>;

/// A registered I/O backend: its id, name and callbacks.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_io_cb {
    /// Backend id (see `BLOSC2_IO_*`).
    pub id: u8,
    /// Backend name.
    pub name: *mut c_char,
    /// Whether `read` needs a caller-allocated buffer (false: it may return its own pointer).
    pub is_allocation_necessary: bool,
    /// Open callback.
    pub open: blosc2_open_cb,
    /// Close callback.
    pub close: blosc2_close_cb,
    /// Size callback.
    pub size: blosc2_size_cb,
    /// Write callback.
    pub write: blosc2_write_cb,
    /// Read callback.
    pub read: blosc2_read_cb,
    /// Truncate callback.
    pub truncate: blosc2_truncate_cb,
    /// Destroy callback.
    pub destroy: blosc2_destroy_cb,
}

/// Selects an I/O backend (by id) for a storage, with backend-specific `params`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_io {
    /// Backend id (see `BLOSC2_IO_*`).
    pub id: u8,
    /// Backend name.
    pub name: *const c_char,
    /// Backend parameters, passed to its `open`.
    pub params: *mut c_void,
}

impl Default for blosc2_io {
    /// Same values as the C `BLOSC2_IO_DEFAULTS`.
    fn default() -> Self {
        blosc2_io {
            id: const { const_u8(BLOSC2_IO_FILESYSTEM) },
            name: c"filesystem".as_ptr(),
            params: ptr::null_mut(),
        }
    }
}

/// A user tuner: callbacks that choose block sizes and cparams while compressing.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_tuner {
    /// Called once with the tuner config and both contexts.
    pub init: Option<
        unsafe extern "C" fn(
            config: *mut c_void,
            cctx: *mut blosc2_context,
            dctx: *mut blosc2_context,
        ) -> c_int,
    >,
    /// Chooses the next block size.
    pub next_blocksize: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Chooses the next compression parameters.
    pub next_cparams: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Receives the time the last chunk took.
    pub update: Option<unsafe extern "C" fn(context: *mut blosc2_context, ctime: f64) -> c_int>,
    /// Releases the tuner state.
    pub free: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Tuner id.
    pub id: c_int,
    /// Tuner name.
    pub name: *mut c_char,
}

/// What a prefilter receives for one block before it is compressed.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_prefilter_params {
    /// User pointer from `cparams.preparams`.
    pub user_data: *mut c_void,
    /// Source block.
    pub input: *const u8,
    /// Where the filtered block goes.
    pub output: *mut u8,
    /// Bytes to produce.
    pub output_size: i32,
    /// Item size of the output.
    pub output_typesize: i32,
    /// Offset of the block within the chunk.
    pub output_offset: i32,
    /// Chunk number in the super-chunk (-1 outside one).
    pub nchunk: i64,
    /// Block number in the chunk.
    pub nblock: i32,
    /// Thread id.
    pub tid: i32,
    /// Per-thread scratch buffer.
    pub ttmp: *mut u8,
    /// Size of `ttmp`.
    pub ttmp_nbytes: usize,
    /// Compression context.
    pub ctx: *mut blosc2_context,
    /// Set by the prefilter when `output` need not be kept (e.g. it is all zeros).
    pub output_is_disposable: bool,
}

/// What a postfilter receives for one block after it is decompressed.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_postfilter_params {
    /// User pointer from `dparams.postparams`.
    pub user_data: *mut c_void,
    /// Decompressed block.
    pub input: *const u8,
    /// Where the postfiltered block goes.
    pub output: *mut u8,
    /// Bytes in the block.
    pub size: i32,
    /// Item size.
    pub typesize: i32,
    /// Offset of the block within the chunk.
    pub offset: i32,
    /// Chunk number in the super-chunk (-1 outside one).
    pub nchunk: i64,
    /// Block number in the chunk.
    pub nblock: i32,
    /// Thread id.
    pub tid: i32,
    /// Per-thread scratch buffer.
    pub ttmp: *mut u8,
    /// Size of `ttmp`.
    pub ttmp_nbytes: usize,
    /// Decompression context.
    pub ctx: *mut blosc2_context,
}

/// Prefilter callback; returns 0 on success.
pub type blosc2_prefilter_fn =
    Option<unsafe extern "C" fn(params: *mut blosc2_prefilter_params) -> c_int>;
/// Postfilter callback; returns 0 on success.
pub type blosc2_postfilter_fn =
    Option<unsafe extern "C" fn(params: *mut blosc2_postfilter_params) -> c_int>;

/// Compression parameters for a context or a super-chunk.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_cparams {
    /// Codec id (`BLOSC_BLOSCLZ`, `BLOSC_LZ4`, ...).
    pub compcode: u8,
    /// Codec-specific metadata byte.
    pub compcode_meta: u8,
    /// Compression level, 0..=9.
    pub clevel: u8,
    /// Non-zero to build and use a dictionary (ZSTD only).
    pub use_dict: c_int,
    /// Item size in bytes.
    pub typesize: i32,
    /// Number of threads.
    pub nthreads: i16,
    /// Block size (0 = automatic).
    pub blocksize: i32,
    /// Split mode (`BLOSC_*_SPLIT`).
    pub splitmode: i32,
    /// Owning super-chunk, if any.
    pub schunk: *mut c_void,
    /// Filter pipeline, applied in order.
    pub filters: [u8; BLOSC2_MAX_FILTERS],
    /// Metadata byte of each filter.
    pub filters_meta: [u8; BLOSC2_MAX_FILTERS],
    /// Optional prefilter.
    pub prefilter: blosc2_prefilter_fn,
    /// Parameters passed to the prefilter.
    pub preparams: *mut blosc2_prefilter_params,
    /// Tuner parameters.
    pub tuner_params: *mut c_void,
    /// Tuner id (0 = the built-in one).
    pub tuner_id: c_int,
    /// Store codec instrumentation instead of data.
    pub instr_codec: bool,
    /// Codec-specific parameters.
    pub codec_params: *mut c_void,
    /// Filter-specific parameters, one per filter slot.
    pub filter_params: [*mut c_void; BLOSC2_MAX_FILTERS],
}

impl Default for blosc2_cparams {
    /// Same values as the C `BLOSC2_CPARAMS_DEFAULTS`.
    fn default() -> Self {
        let mut filters = [0u8; BLOSC2_MAX_FILTERS];
        filters[BLOSC2_MAX_FILTERS - 1] = const { const_u8(BLOSC_SHUFFLE) };
        blosc2_cparams {
            compcode: const { const_u8(BLOSC_BLOSCLZ) },
            compcode_meta: 0,
            clevel: 5,
            use_dict: 0,
            typesize: 8,
            nthreads: 1,
            blocksize: 0,
            splitmode: BLOSC_FORWARD_COMPAT_SPLIT,
            schunk: ptr::null_mut(),
            filters,
            filters_meta: [0; BLOSC2_MAX_FILTERS],
            prefilter: None,
            preparams: ptr::null_mut(),
            tuner_params: ptr::null_mut(),
            tuner_id: 0,
            instr_codec: false,
            codec_params: ptr::null_mut(),
            filter_params: [ptr::null_mut(); BLOSC2_MAX_FILTERS],
        }
    }
}

/// Decompression parameters for a context or a super-chunk.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_dparams {
    /// Number of threads.
    pub nthreads: i16,
    /// Owning super-chunk, if any.
    pub schunk: *mut c_void,
    /// Optional postfilter.
    pub postfilter: blosc2_postfilter_fn,
    /// Parameters passed to the postfilter.
    pub postparams: *mut blosc2_postfilter_params,
    /// Item size used by the postfilter.
    pub typesize: i32,
}

impl Default for blosc2_dparams {
    /// Same values as the C `BLOSC2_DPARAMS_DEFAULTS`.
    fn default() -> Self {
        blosc2_dparams {
            nthreads: 1,
            schunk: ptr::null_mut(),
            postfilter: None,
            postparams: ptr::null_mut(),
            typesize: 8,
        }
    }
}

/// Where and how a super-chunk is stored.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_storage {
    /// Contiguous frame (true) or sparse frame / in-memory chunks (false).
    pub contiguous: bool,
    /// File or directory path; NULL keeps the data in memory.
    pub urlpath: *mut c_char,
    /// Compression parameters (NULL = defaults).
    pub cparams: *mut blosc2_cparams,
    /// Decompression parameters (NULL = defaults).
    pub dparams: *mut blosc2_dparams,
    /// I/O backend (NULL = filesystem).
    pub io: *mut blosc2_io,
}

impl Default for blosc2_storage {
    /// Same values as the C `BLOSC2_STORAGE_DEFAULTS`.
    fn default() -> Self {
        blosc2_storage {
            contiguous: false,
            urlpath: ptr::null_mut(),
            cparams: ptr::null_mut(),
            dparams: ptr::null_mut(),
            io: ptr::null_mut(),
        }
    }
}

/// A named metalayer: fixed-size user metadata stored in a frame header.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_metalayer {
    /// NUL-terminated name.
    pub name: *mut c_char,
    /// Content bytes.
    pub content: *mut u8,
    /// Length of `content`.
    pub content_len: i32,
}

/// A super-chunk: a growable sequence of chunks sharing parameters and metadata.
#[repr(C)]
#[derive(Debug)]
pub struct blosc2_schunk {
    /// Format version.
    pub version: u8,
    /// Codec id.
    pub compcode: u8,
    /// Codec metadata byte.
    pub compcode_meta: u8,
    /// Compression level.
    pub clevel: u8,
    /// Split mode.
    pub splitmode: u8,
    /// Item size.
    pub typesize: i32,
    /// Block size.
    pub blocksize: i32,
    /// Uncompressed size of each chunk (0 until the first one is added).
    pub chunksize: i32,
    /// Second flags byte of the chunk header.
    pub flags2: u8,
    /// Whether chunks use a dictionary.
    pub use_dict: u8,
    /// Filter pipeline.
    pub filters: [u8; BLOSC2_MAX_FILTERS],
    /// Filter metadata bytes.
    pub filters_meta: [u8; BLOSC2_MAX_FILTERS],
    /// Number of chunks.
    pub nchunks: i64,
    /// Chunk currently being worked on.
    pub current_nchunk: i64,
    /// Uncompressed size of the data.
    pub nbytes: i64,
    /// Compressed size of the data.
    pub cbytes: i64,
    /// In-memory chunk pointers (non-frame super-chunks).
    pub data: *mut *mut u8,
    /// Length of `data`.
    pub data_len: usize,
    /// Storage the super-chunk lives in.
    pub storage: *mut blosc2_storage,
    /// Backing frame, if any.
    pub frame: *mut blosc2_frame,
    /// Compression context.
    pub cctx: *mut blosc2_context,
    /// Decompression context.
    pub dctx: *mut blosc2_context,
    /// Fixed-size metalayers.
    pub metalayers: [*mut blosc2_metalayer; BLOSC2_MAX_METALAYERS],
    /// Number of entries used in `metalayers`.
    pub nmetalayers: u16,
    /// Variable-length metalayers.
    pub vlmetalayers: [*mut blosc2_metalayer; BLOSC2_MAX_VLMETALAYERS],
    /// Number of entries used in `vlmetalayers`.
    pub nvlmetalayers: i16,
    /// Tuner parameters.
    pub tuner_params: *mut c_void,
    /// Tuner id.
    pub tuner_id: c_int,
    /// Number of dimensions (b2nd arrays), 0 otherwise.
    pub ndim: i8,
    /// Block shape (b2nd arrays), NULL otherwise.
    pub blockshape: *mut i64,
    /// Whether this is a view that does not own its data.
    pub view: bool,
    /// Bumped on every structural change, so cached views can tell they are stale.
    pub change_tick: i64,
}

/// Codec encoder callback; returns compressed size, 0 if incompressible, negative on error.
pub type blosc2_codec_encoder_cb = Option<
    unsafe extern "C" fn(
        input: *const u8,
        input_len: i32,
        output: *mut u8,
        output_len: i32,
        meta: u8,
        cparams: *mut blosc2_cparams,
        chunk: *const c_void,
    ) -> c_int,
>;
/// Codec decoder callback; returns decompressed size, negative on error.
pub type blosc2_codec_decoder_cb = Option<
    unsafe extern "C" fn(
        input: *const u8,
        input_len: i32,
        output: *mut u8,
        output_len: i32,
        meta: u8,
        dparams: *mut blosc2_dparams,
        chunk: *const c_void,
    ) -> c_int,
>;

/// A user codec as passed to `blosc2_register_codec`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_codec {
    /// Codec id.
    pub compcode: u8,
    /// Codec name.
    pub compname: *mut c_char,
    /// Library id written in chunk headers.
    pub complib: u8,
    /// Codec format version.
    pub version: u8,
    /// Encoder.
    pub encoder: blosc2_codec_encoder_cb,
    /// Decoder.
    pub decoder: blosc2_codec_decoder_cb,
}

/// Filter forward callback: (src, dest, size, meta, cparams, filter id).
pub type blosc2_filter_forward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_cparams, u8) -> c_int>;
/// Filter backward callback: (src, dest, size, meta, dparams, filter id).
pub type blosc2_filter_backward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_dparams, u8) -> c_int>;

/// A user filter as passed to `blosc2_register_filter`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_filter {
    /// Filter id.
    pub id: u8,
    /// Filter name.
    pub name: *mut c_char,
    /// Filter format version.
    pub version: u8,
    /// Forward (compression side) callback.
    pub forward: blosc2_filter_forward_cb,
    /// Backward (decompression side) callback.
    pub backward: blosc2_filter_backward_cb,
}

/// Time stamp used by `blosc_set_timestamp`/`blosc_elapsed_*` (a `struct timespec` on POSIX).
///
/// The C typedef is hand-written in the header template because it depends
/// on the platform headers.
#[cfg(not(windows))]
pub type blosc_timestamp_t = libc::timespec;
/// Time stamp used by `blosc_set_timestamp`/`blosc_elapsed_*`: the header's
/// `LARGE_INTEGER` on Windows, a performance-counter value (8 bytes, passed
/// like an `int64_t`).
#[cfg(windows)]
pub type blosc_timestamp_t = i64;
