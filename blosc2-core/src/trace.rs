//! `BLOSC_TRACE`: upstream's diagnostic lines on stderr.
//!
//! Upstream prints `[error] - message (file:line)` when the environment
//! variable `BLOSC_TRACE` is set. The core prints the same kind of line at
//! the place where an error arises, so the trace names the cause (a file, a
//! parameter, an offset) and not the C boundary that reported it.

use std::sync::OnceLock;

/// Whether `BLOSC_TRACE` was set when the library first looked.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("BLOSC_TRACE").is_some())
}

/// Prints an upstream-style trace line, `[category] - msg (file:line)`,
/// when tracing is on.
pub fn emit(category: &str, msg: &str, file: &str, line: u32) {
    if enabled() {
        eprintln!("[{category}] - {msg} ({file}:{line})");
    }
}

/// Traces an error message built with `format!` arguments, naming the
/// caller's source location. Formats nothing when tracing is off.
#[macro_export]
#[doc(hidden)]
macro_rules! trace_error {
    ($($arg:tt)*) => {
        if $crate::trace::enabled() {
            $crate::trace::emit("error", &format!($($arg)*), file!(), line!())
        }
    };
}

/// Traces a warning, as [`trace_error!`] does an error.
#[macro_export]
#[doc(hidden)]
macro_rules! trace_warning {
    ($($arg:tt)*) => {
        if $crate::trace::enabled() {
            $crate::trace::emit("warning", &format!($($arg)*), file!(), line!())
        }
    };
}

/// Traces an error where it arises and evaluates to its kind:
/// `return Err(traced!(ErrorKind::InvalidHeader, "frame length {n} is negative"))`.
/// The line names the cause and this source location, as upstream's
/// `BLOSC_TRACE_ERROR` does, instead of the C function that reports it.
#[macro_export]
#[doc(hidden)]
macro_rules! traced {
    ($kind:expr, $($arg:tt)*) => {{
        if $crate::trace::enabled() {
            $crate::trace::emit("error", &format!($($arg)*), file!(), line!())
        }
        $kind
    }};
}
