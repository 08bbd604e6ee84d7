//! Errors: [`ErrorKind`], one variant per upstream `BLOSC2_ERROR_*` code, so
//! every failure maps to exactly the integer a C caller expects, and
//! [`Error`], the kind plus what the error is about (a path, a parameter,
//! an offset) and the I/O error behind it, for Rust callers.

use std::ffi::CStr;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// What went wrong, as C-Blosc2 classifies it. The discriminant is the
/// upstream `BLOSC2_ERROR_*` code ([`ErrorKind::code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is named after its upstream code; `message` has the text
pub enum ErrorKind {
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

/// The result of the engine modules, whose errors are bare kinds.
#[doc(hidden)]
pub type Result<T> = std::result::Result<T, ErrorKind>;

const ALL: [ErrorKind; 37] = [
    ErrorKind::Failure,
    ErrorKind::Stream,
    ErrorKind::Data,
    ErrorKind::MemoryAlloc,
    ErrorKind::ReadBuffer,
    ErrorKind::WriteBuffer,
    ErrorKind::CodecSupport,
    ErrorKind::CodecParam,
    ErrorKind::CodecDict,
    ErrorKind::VersionSupport,
    ErrorKind::InvalidHeader,
    ErrorKind::InvalidParam,
    ErrorKind::FileRead,
    ErrorKind::FileWrite,
    ErrorKind::FileOpen,
    ErrorKind::NotFound,
    ErrorKind::RunLength,
    ErrorKind::FilterPipeline,
    ErrorKind::ChunkInsert,
    ErrorKind::ChunkAppend,
    ErrorKind::ChunkUpdate,
    ErrorKind::TwoGbLimit,
    ErrorKind::SchunkCopy,
    ErrorKind::FrameType,
    ErrorKind::FileTruncate,
    ErrorKind::ThreadCreate,
    ErrorKind::Postfilter,
    ErrorKind::FrameSpecial,
    ErrorKind::SchunkSpecial,
    ErrorKind::PluginIo,
    ErrorKind::FileRemove,
    ErrorKind::NullPointer,
    ErrorKind::InvalidIndex,
    ErrorKind::MetalayerNotFound,
    ErrorKind::MaxBufsizeExceeded,
    ErrorKind::Tuner,
    ErrorKind::Lock,
];

impl ErrorKind {
    /// The upstream integer code (always negative).
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The error for an upstream code, if it is one.
    pub fn from_code(code: i32) -> Option<ErrorKind> {
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

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

impl std::error::Error for ErrorKind {}

/// What the caller needs to know about an [`Error`] to act on it, as
/// values ([`Error::reason`]); its `Display` is the sentence the error's
/// own text uses.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// A chunk number at or past the number of chunks.
    NoSuchChunk {
        /// The chunk asked for.
        index: u64,
        /// How many chunks there are.
        nchunks: u64,
    },
    /// An item range that runs backwards or past the end (the bounds as
    /// the caller gave them, made half-open).
    OutOfRange {
        /// The first item asked for.
        start: u64,
        /// One past the last item asked for.
        end: u64,
        /// How many items there are.
        len: u64,
    },
    /// A frame shorter than its header says it is.
    Truncated {
        /// The bytes the frame header announces.
        expected: u64,
        /// The bytes there are.
        actual: u64,
    },
    /// Bytes that do not start with a Blosc2 frame header.
    NotAFrame,
    /// A frame without the `b2nd` metalayer, opened as an array.
    NotAnArray,
    /// Items of another size than the container holds.
    ItemSize {
        /// The container's item size in bytes.
        expected: usize,
        /// The size of the items given or asked for.
        actual: usize,
    },
    /// A caller's buffer too small for the result.
    BufferTooSmall {
        /// The bytes the result may need.
        needed: usize,
        /// The bytes the buffer holds.
        len: usize,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        match *self {
            Reason::NoSuchChunk { index, nchunks } => write!(
                f,
                "there is no chunk {index}, the super-chunk has {nchunks} chunk{}",
                plural(nchunks)
            ),
            Reason::OutOfRange { start, end, .. } if start > end => {
                write!(f, "the range {start}..{end} runs backwards")
            }
            Reason::OutOfRange { start, end, len } => write!(
                f,
                "the range {start}..{end} runs past the end, there are {len} item{}",
                plural(len)
            ),
            Reason::Truncated { expected, actual } => write!(
                f,
                "the frame is truncated: its header says {expected} bytes, there are {actual}"
            ),
            Reason::NotAFrame => f.write_str("not a Blosc2 frame (no 'b2frame' header)"),
            Reason::NotAnArray => f.write_str("not a b2nd array (no b2nd metalayer)"),
            Reason::ItemSize { expected, actual } => write!(
                f,
                "{actual}-byte items do not fit a container of {expected}-byte items"
            ),
            Reason::BufferTooSmall { needed, len } => write!(
                f,
                "the output buffer holds {len} bytes, {needed} may be needed"
            ),
        }
    }
}

/// What an [`Error`] is about.
#[derive(Debug)]
struct Context {
    operation: Option<String>,
    reason: Option<Reason>,
    path: Option<PathBuf>,
    parameter: Option<&'static str>,
    offset: Option<u64>,
    detail: Option<String>,
    source: Option<io::Error>,
}

/// An error of the Rust API: its [`ErrorKind`] (the C code), and, when
/// known, the file, the parameter or the offset at fault, a detail message
/// and the I/O error that caused it ([`std::error::Error::source`]).
///
/// ```
/// use blosc2_core::{ErrorKind, Schunk};
///
/// let err = Schunk::open("no/such/file.b2frame").unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::FileOpen);
/// assert_eq!(err.code(), -15);
/// assert!(err.path().is_some());
/// assert!(err.to_string().starts_with("opening a super-chunk: "));
/// assert!(err.to_string().contains("no/such/file.b2frame"));
/// ```
pub struct Error {
    kind: ErrorKind,
    context: Option<Box<Context>>,
}

impl Error {
    /// An error of this kind with no context.
    pub fn new(kind: ErrorKind) -> Error {
        Error {
            kind,
            context: None,
        }
    }

    fn context_mut(&mut self) -> &mut Context {
        self.context.get_or_insert_with(|| {
            Box::new(Context {
                operation: None,
                reason: None,
                path: None,
                parameter: None,
                offset: None,
                detail: None,
                source: None,
            })
        })
    }

    /// The same error, met while doing this (`"reading chunk 3"`): its
    /// text starts with it. An operation already set is kept, since the
    /// innermost one is the most precise.
    #[must_use]
    pub fn with_operation(mut self, operation: impl Into<String>) -> Error {
        let c = self.context_mut();
        if c.operation.is_none() {
            c.operation = Some(operation.into());
        }
        self
    }

    /// The same error, for this reason.
    #[must_use]
    pub fn with_reason(mut self, reason: Reason) -> Error {
        self.context_mut().reason = Some(reason);
        self
    }

    /// The same error, about this file or directory.
    #[must_use]
    pub fn with_path(mut self, path: impl AsRef<Path>) -> Error {
        self.context_mut().path = Some(path.as_ref().to_path_buf());
        self
    }

    /// The same error, about this parameter (its Rust name).
    #[must_use]
    pub fn with_parameter(mut self, name: &'static str) -> Error {
        self.context_mut().parameter = Some(name);
        self
    }

    /// The same error, at this byte offset (in a frame, a chunk, a file).
    #[must_use]
    pub fn with_offset(mut self, offset: u64) -> Error {
        self.context_mut().offset = Some(offset);
        self
    }

    /// The same error, with a message saying more than the kind does.
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Error {
        self.context_mut().detail = Some(detail.into());
        self
    }

    /// The same error, caused by this I/O error.
    #[must_use]
    pub fn with_source(mut self, source: io::Error) -> Error {
        self.context_mut().source = Some(source);
        self
    }

    /// What went wrong, as C-Blosc2 classifies it.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The upstream `BLOSC2_ERROR_*` code (always negative).
    pub fn code(&self) -> i32 {
        self.kind.code()
    }

    /// What was being done, if known.
    pub fn operation(&self) -> Option<&str> {
        self.context.as_ref()?.operation.as_deref()
    }

    /// Why, as values the caller can act on, if known.
    pub fn reason(&self) -> Option<&Reason> {
        self.context.as_ref()?.reason.as_ref()
    }

    /// The detail message, if any.
    pub fn detail(&self) -> Option<&str> {
        self.context.as_ref()?.detail.as_deref()
    }

    /// The file or directory the error is about, if any.
    pub fn path(&self) -> Option<&Path> {
        self.context.as_ref()?.path.as_deref()
    }

    /// The parameter at fault, if any.
    pub fn parameter(&self) -> Option<&'static str> {
        self.context.as_ref()?.parameter
    }

    /// The byte offset at fault, if any.
    pub fn offset(&self) -> Option<u64> {
        self.context.as_ref()?.offset
    }

    /// The I/O error behind this one, if any.
    pub fn io_error(&self) -> Option<&io::Error> {
        self.context.as_ref()?.source.as_ref()
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error::new(kind)
    }
}

impl From<Error> for ErrorKind {
    fn from(e: Error) -> ErrorKind {
        e.kind
    }
}

impl PartialEq<ErrorKind> for Error {
    fn eq(&self, kind: &ErrorKind) -> bool {
        self.kind == *kind
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("kind", &self.kind);
        if let Some(c) = &self.context {
            if let Some(o) = &c.operation {
                d.field("operation", o);
            }
            if let Some(r) = &c.reason {
                d.field("reason", r);
            }
            if let Some(p) = &c.path {
                d.field("path", p);
            }
            if let Some(p) = c.parameter {
                d.field("parameter", &p);
            }
            if let Some(o) = c.offset {
                d.field("offset", &o);
            }
            if let Some(m) = &c.detail {
                d.field("detail", m);
            }
            if let Some(s) = &c.source {
                d.field("source", s);
            }
        }
        d.finish()
    }
}

/// `operation: reason; detail (parameter `p`) in 'path' at offset N:
/// source`, each part when known. Without a reason or a detail, the kind's
/// C message and code stand for them.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.context.as_deref();
        let operation = c.and_then(|c| c.operation.as_deref());
        let reason = c.and_then(|c| c.reason.as_ref());
        let detail = c.and_then(|c| c.detail.as_deref());
        if let Some(o) = operation {
            write!(f, "{o}: ")?;
        }
        match (reason, detail) {
            (Some(r), Some(m)) => write!(f, "{r}; {m}")?,
            (Some(r), None) => write!(f, "{r}")?,
            (None, Some(m)) => f.write_str(m)?,
            (None, None) => write!(f, "{} (C error {})", self.kind.message(), self.kind.code())?,
        }
        if let Some(c) = c {
            if let Some(p) = c.parameter {
                write!(f, " (parameter `{p}`)")?;
            }
            if let Some(p) = &c.path {
                write!(f, " in '{}'", p.display())?;
            }
            if let Some(o) = c.offset {
                write!(f, " at offset {o}")?;
            }
            if let Some(s) = &c.source {
                write!(f, ": {s}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let s = self.context.as_ref()?.source.as_ref()?;
        Some(s)
    }
}

impl From<io::Error> for Error {
    /// Back from a `std::io` adapter: the [`Error`] it carried, or an
    /// [`ErrorKind::Failure`] caused by the I/O error.
    fn from(e: io::Error) -> Error {
        if e.get_ref().is_some_and(|inner| inner.is::<Error>()) {
            if let Some(inner) = e.into_inner() {
                if let Ok(ours) = inner.downcast::<Error>() {
                    return *ours;
                }
            }
            return Error::new(ErrorKind::Failure);
        }
        Error::new(ErrorKind::Failure).with_source(e)
    }
}

impl From<Error> for io::Error {
    /// For `std::io::Read`/`Write` adapters: the I/O error behind it when
    /// there is one, else an `io::Error` carrying this error.
    fn from(e: Error) -> io::Error {
        match e.context {
            Some(c) if c.source.is_some() => c.source.expect("checked"),
            _ => io::Error::other(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for e in ALL {
            assert_eq!(ErrorKind::from_code(e.code()), Some(e));
            assert_ne!(e.message(), "Unknown error");
        }
        assert_eq!(ErrorKind::from_code(-38), None);
        assert_eq!(message_for_code(1), "Unknown error");
        // upstream has no entry for success either
        assert_eq!(message_for_code(0), "Unknown error");
    }

    #[test]
    fn errors_survive_a_trip_through_io() {
        let e = Error::new(ErrorKind::Data).with_offset(42);
        let io: io::Error = e.into();
        let back = Error::from(io);
        assert_eq!(back.kind(), ErrorKind::Data);
        assert_eq!(back.offset(), Some(42));
        let plain = Error::from(io::Error::from(io::ErrorKind::UnexpectedEof));
        assert_eq!(plain.kind(), ErrorKind::Failure);
        assert!(plain.io_error().is_some());
        let shown = Error::new(ErrorKind::InvalidParam)
            .with_parameter("clevel")
            .with_detail("10 is not between 0 and 9")
            .to_string();
        assert_eq!(shown, "10 is not between 0 and 9 (parameter `clevel`)");
    }

    #[test]
    fn display_is_a_sentence_about_the_operation() {
        let e = Error::new(ErrorKind::InvalidParam)
            .with_operation("reading chunk 99")
            .with_reason(Reason::NoSuchChunk {
                index: 99,
                nchunks: 4,
            });
        assert_eq!(
            e.to_string(),
            "reading chunk 99: there is no chunk 99, the super-chunk has 4 chunks"
        );
        assert_eq!(e.code(), -12);
        // the innermost operation stays
        let e = e.with_operation("copying");
        assert_eq!(e.operation(), Some("reading chunk 99"));
        let bare = Error::new(ErrorKind::Data)
            .with_operation("reading a frame")
            .with_path("f.b2frame");
        assert_eq!(
            bare.to_string(),
            "reading a frame: Invalid data (C error -3) in 'f.b2frame'"
        );
        let r = Reason::OutOfRange {
            start: 5,
            end: 3,
            len: 10,
        };
        assert_eq!(r.to_string(), "the range 5..3 runs backwards");
    }
}
