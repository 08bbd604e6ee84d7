//! Error codes: one Rust enum mirroring upstream's `BLOSC2_ERROR_*` table, so
//! every core failure maps to exactly the integer a C caller expects.

use std::ffi::CStr;
use std::fmt;

/// A C-Blosc2 error. The discriminant is the upstream `BLOSC2_ERROR_*` code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Error {
    Failure = -1,
    Stream = -2,
    Data = -3,
    MemoryAlloc = -4,
    ReadBuffer = -5,
    WriteBuffer = -6,
    CodecSupport = -7,
    CodecParam = -8,
    CodecDict = -9,
    VersionSupport = -10,
    InvalidHeader = -11,
    InvalidParam = -12,
    FileRead = -13,
    FileWrite = -14,
    FileOpen = -15,
    NotFound = -16,
    RunLength = -17,
    FilterPipeline = -18,
    ChunkInsert = -19,
    ChunkAppend = -20,
    ChunkUpdate = -21,
    TwoGbLimit = -22,
    SchunkCopy = -23,
    FrameType = -24,
    FileTruncate = -25,
    ThreadCreate = -26,
    Postfilter = -27,
    FrameSpecial = -28,
    SchunkSpecial = -29,
    PluginIo = -30,
    FileRemove = -31,
    NullPointer = -32,
    InvalidIndex = -33,
    MetalayerNotFound = -34,
    MaxBufsizeExceeded = -35,
    Tuner = -36,
    Lock = -37,
}

/// Result alias used throughout the core.
pub type Result<T> = std::result::Result<T, Error>;

const ALL: [Error; 37] = [
    Error::Failure,
    Error::Stream,
    Error::Data,
    Error::MemoryAlloc,
    Error::ReadBuffer,
    Error::WriteBuffer,
    Error::CodecSupport,
    Error::CodecParam,
    Error::CodecDict,
    Error::VersionSupport,
    Error::InvalidHeader,
    Error::InvalidParam,
    Error::FileRead,
    Error::FileWrite,
    Error::FileOpen,
    Error::NotFound,
    Error::RunLength,
    Error::FilterPipeline,
    Error::ChunkInsert,
    Error::ChunkAppend,
    Error::ChunkUpdate,
    Error::TwoGbLimit,
    Error::SchunkCopy,
    Error::FrameType,
    Error::FileTruncate,
    Error::ThreadCreate,
    Error::Postfilter,
    Error::FrameSpecial,
    Error::SchunkSpecial,
    Error::PluginIo,
    Error::FileRemove,
    Error::NullPointer,
    Error::InvalidIndex,
    Error::MetalayerNotFound,
    Error::MaxBufsizeExceeded,
    Error::Tuner,
    Error::Lock,
];

impl Error {
    /// The upstream integer code (always negative).
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The error for an upstream code, if it is one.
    pub fn from_code(code: i32) -> Option<Error> {
        ALL.iter().copied().find(|e| e.code() == code)
    }

    /// Upstream's message for this error (`blosc2_error_string`).
    pub fn message(self) -> &'static str {
        message_for_code(self.code())
    }
}

/// Upstream's `blosc2_error_string` table, including success and unknown codes.
pub fn message_for_code(code: i32) -> &'static str {
    cmessage_for_code(code).to_str().unwrap_or("Unknown error")
}

/// The same table as C strings, for `blosc2_error_string`.
pub fn cmessage_for_code(code: i32) -> &'static CStr {
    match code {
        -1 => c"Generic failure",
        -2 => c"Bad stream",
        -3 => c"Invalid data",
        -4 => c"Memory alloc/realloc failure",
        -5 => c"Not enough space to read",
        -6 => c"Not enough space to write",
        -7 => c"Codec not supported",
        -8 => c"Invalid parameter supplied to codec",
        -9 => c"Codec dictionary error",
        -10 => c"Version not supported",
        -11 => c"Invalid value in header",
        -12 => c"Invalid parameter supplied to function",
        -13 => c"File read failure",
        -14 => c"File write failure",
        -15 => c"File open failure",
        -16 => c"Not found",
        -17 => c"Bad run length encoding",
        -18 => c"Filter pipeline error",
        -19 => c"Chunk insert failure",
        -20 => c"Chunk append failure",
        -21 => c"Chunk update failure",
        -22 => c"Sizes larger than 2gb not supported",
        -23 => c"Super-chunk copy failure",
        -24 => c"Wrong type for frame",
        -25 => c"File truncate failure",
        -26 => c"Thread or thread context creation failure",
        -27 => c"Postfilter failure",
        -28 => c"Special frame failure",
        -29 => c"Special super-chunk failure",
        -30 => c"IO plugin error",
        -31 => c"Remove file failure",
        -32 => c"Pointer is null",
        -33 => c"Invalid index",
        -34 => c"Metalayer has not been found",
        -35 => c"Maximum buffersize exceeded",
        -36 => c"Tuner failure",
        -37 => c"Frame lock failure",
        _ => c"Unknown error",
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for e in ALL {
            assert_eq!(Error::from_code(e.code()), Some(e));
            assert_ne!(e.message(), "Unknown error");
        }
        assert_eq!(Error::from_code(-38), None);
        assert_eq!(message_for_code(1), "Unknown error");
        // upstream has no entry for success either
        assert_eq!(message_for_code(0), "Unknown error");
    }
}
