//! The panic boundary and the small pointer helpers every export goes through.
//!
//! Policy: no panic unwinds into C. Each export runs its body under
//! `catch_unwind`; a panic becomes `BLOSC2_ERROR_FAILURE` (or NULL / a neutral
//! value for functions without an error channel) and, with `BLOSC_TRACE` set,
//! a trace line on stderr.

use blosc2_core::error::ErrorKind;
pub use blosc2_core::trace::{emit as trace, enabled as trace_enabled};

macro_rules! trace_error {
    ($($arg:tt)*) => {
        ::blosc2_core::trace_error!($($arg)*)
    };
}
pub(crate) use trace_error;

/// Run `body`, turning a panic into `on_panic`.
pub fn guard<T>(name: &str, on_panic: T, body: impl FnOnce() -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(v) => v,
        Err(_) => {
            trace(
                "error",
                &format!("panic caught in {name}"),
                file!(),
                line!(),
            );
            on_panic
        }
    }
}

/// Map a core result to the C convention: the value, or the negative code.
/// (The trace names the caller, the export that returns the code: the
/// core's own trace, when it has one, said why just before.)
#[track_caller]
pub fn code<T: Into<i64>>(r: blosc2_core::error::Result<T>) -> i64 {
    match r {
        Ok(v) => v.into(),
        Err(e) => err(e) as i64,
    }
}

/// Map a core result holding a byte count to an `int` return.
#[track_caller]
pub fn rc(r: blosc2_core::error::Result<usize>) -> i32 {
    match r {
        Ok(v) => v as i32,
        Err(e) => err(e),
    }
}

/// Trace and return an error code, the trace located at the caller.
#[track_caller]
pub fn err(e: ErrorKind) -> i32 {
    let at = std::panic::Location::caller();
    trace("error", e.message(), at.file(), at.line());
    e.code()
}

/// Wrap an export body: catches panics and returns `BLOSC2_ERROR_FAILURE`.
macro_rules! ffi_int {
    ($name:expr, $body:block) => {
        $crate::boundary::guard(
            $name,
            ::blosc2_core::error::ErrorKind::Failure.code(),
            || $body,
        )
    };
}
pub(crate) use ffi_int;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_error_codes() {
        let rc = ffi_int!("test", {
            let v: Vec<i32> = Vec::new();
            #[allow(clippy::unnecessary_operation)]
            v[3]
        });
        assert_eq!(rc, ErrorKind::Failure.code());
        let p: *mut u8 = guard("test", std::ptr::null_mut(), || panic!("boom"));
        assert!(p.is_null());
    }
}
