//! The panic boundary and the small pointer helpers every export goes through.
//!
//! Policy: no panic unwinds into C. Every export's body is `ffi!({ ... })`,
//! which runs it under `catch_unwind`; a panic becomes the value its return
//! type gives ([`PanicValue`]: `BLOSC2_ERROR_FAILURE`, NULL, ...) and, with
//! `BLOSC_TRACE` set, a trace line on stderr naming the export.

use blosc2_core::error::ErrorKind;
pub(crate) use blosc2_core::trace::emit as trace;

macro_rules! trace_error {
    ($($arg:tt)*) => {
        ::blosc2_core::trace_error!($($arg)*)
    };
}
pub(crate) use trace_error;

/// What an export returns when its body panicked, chosen by its return
/// type: the value a C caller of that function already treats as failure.
///
/// | return type | value on panic |
/// |---|---|
/// | `int`, `int16_t`, `int64_t` | `BLOSC2_ERROR_FAILURE` (-1) |
/// | a pointer | `NULL` |
/// | `double` | NaN |
/// | `void` | nothing |
/// | a parameters struct (`blosc2_get_blosc2_*_defaults`) | its defaults |
pub(crate) trait PanicValue {
    /// The value returned in place of the body's.
    fn on_panic() -> Self;
}

macro_rules! failure_code {
    ($($t:ty),*) => {$(
        impl PanicValue for $t {
            fn on_panic() -> Self {
                <$t>::from(ErrorKind::Failure.code())
            }
        }
    )*};
}
failure_code!(i32, i64);

impl PanicValue for i16 {
    fn on_panic() -> Self {
        code_i16(ErrorKind::Failure)
    }
}

/// An error code as an `int16_t` return (`blosc2_set_nthreads`): every code
/// is a small negative number, so the fallback is never taken.
pub(crate) fn code_i16(e: ErrorKind) -> i16 {
    i16::try_from(e.code()).unwrap_or(i16::MIN)
}

/// A header constant as the `uint8_t` field it fills (a codec, filter or
/// backend id). For `const` contexts: a value outside `0..=255` fails the
/// build rather than wrapping.
pub(crate) const fn const_u8(v: i32) -> u8 {
    let [b, 0, 0, 0] = v.to_le_bytes() else {
        panic!("not a uint8_t value");
    };
    b
}

impl<T> PanicValue for *mut T {
    fn on_panic() -> Self {
        std::ptr::null_mut()
    }
}

impl<T> PanicValue for *const T {
    fn on_panic() -> Self {
        std::ptr::null()
    }
}

impl PanicValue for f64 {
    fn on_panic() -> Self {
        f64::NAN
    }
}

impl PanicValue for () {
    fn on_panic() -> Self {}
}

macro_rules! defaults_on_panic {
    ($($t:ty),*) => {$(
        impl PanicValue for $t {
            fn on_panic() -> Self {
                <$t>::default()
            }
        }
    )*};
}
defaults_on_panic!(
    crate::types::blosc2_cparams,
    crate::types::blosc2_dparams,
    crate::types::blosc2_storage,
    crate::types::blosc2_io,
    crate::types::blosc2_stdio_mmap
);

/// Run an export's body; a panic becomes its return type's
/// [`PanicValue`] and, with `BLOSC_TRACE` set, a trace naming the export.
/// `site` is the type name of a function nested in the export (see
/// [`ffi!`]), from which the export's name is taken.
pub(crate) fn enter<T: PanicValue>(site: &'static str, body: impl FnOnce() -> T) -> T {
    let run = || {
        #[cfg(test)]
        tests::maybe_panic();
        body()
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(v) => v,
        Err(_) => {
            trace(
                "error",
                &format!("panic caught in {}", export_name(site)),
                file!(),
                line!(),
            );
            T::on_panic()
        }
    }
}

/// `crate::module::blosc2_x::here` -> `blosc2_x`.
fn export_name(site: &str) -> &str {
    site.strip_suffix("::here")
        .and_then(|s| s.rsplit("::").next())
        .unwrap_or(site)
}

/// The body of every exported function goes through this:
/// `ffi!({ ... })`. Its value is the export's; a panic inside becomes the
/// return type's [`PanicValue`]. A test (`every_export_enters_the_boundary`)
/// fails when an `extern "C"` function's body does not start with it.
macro_rules! ffi {
    ($body:expr $(,)?) => {{
        fn here() {}
        $crate::boundary::enter(::std::any::type_name_of_val(&here), || $body)
    }};
}
pub(crate) use ffi;

/// A successful core result as the number upstream returns for it: 0 for
/// `()`, else the count or size itself.
pub(crate) trait CValue<R> {
    /// The value, converted to the export's return type.
    fn c_value(self) -> R;
}

impl CValue<i32> for () {
    fn c_value(self) -> i32 {
        0
    }
}

impl CValue<i64> for () {
    fn c_value(self) -> i64 {
        0
    }
}

/// Byte counts of one chunk, buffer or block: upstream's `int` returns,
/// which the core keeps within `i32` (a chunk's sizes are `int32_t`).
impl CValue<i32> for usize {
    fn c_value(self) -> i32 {
        i32::try_from(self).unwrap_or(i32::MAX)
    }
}

impl CValue<i32> for i32 {
    fn c_value(self) -> i32 {
        self
    }
}

macro_rules! c_value_i64 {
    ($($t:ty),*) => {$(
        impl CValue<i64> for $t {
            fn c_value(self) -> i64 {
                i64::from(self)
            }
        }
    )*};
}
c_value_i64!(i64, i32, u32, i16, u16, u8);

impl CValue<i64> for usize {
    fn c_value(self) -> i64 {
        i64::try_from(self).unwrap_or(i64::MAX)
    }
}

/// The one map from a core result to upstream's return convention: the
/// value ([`CValue`]), or the negative error code, traced at the caller
/// (the export; the core's own trace, when it has one, said why just
/// before). The return type is the export's.
#[track_caller]
pub(crate) fn code<R: From<i32>, T: CValue<R>>(r: blosc2_core::error::Result<T>) -> R {
    match r {
        Ok(v) => v.c_value(),
        Err(e) => R::from(err(e)),
    }
}

/// The value of a `Result`, or a return from the enclosing export with its
/// error code (traced at the call site): `?` for functions that return a C
/// code rather than a `Result`.
macro_rules! or_return {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return ::core::convert::From::from($crate::boundary::err(e)),
        }
    };
}
pub(crate) use or_return;

/// Trace and return an error code, the trace located at the caller.
#[track_caller]
pub(crate) fn err(e: ErrorKind) -> i32 {
    let at = std::panic::Location::caller();
    trace("error", e.message(), at.file(), at.line());
    e.code()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Set by a test: the next export entered on this thread panics.
        static PANIC_NEXT: Cell<bool> = const { Cell::new(false) };
    }

    pub(crate) fn maybe_panic() {
        if PANIC_NEXT.with(|p| p.replace(false)) {
            panic!("a panic forced by a test");
        }
    }

    pub(crate) fn panic_in_next_export() {
        PANIC_NEXT.with(|p| p.set(true));
    }

    #[test]
    fn panics_become_the_return_types_failure_value() {
        let rc: i32 = ffi!({
            let v: Vec<i32> = Vec::new();
            #[allow(clippy::unnecessary_operation)]
            v[3]
        });
        assert_eq!(rc, ErrorKind::Failure.code());
        let p: *mut u8 = ffi!(panic!("boom"));
        assert!(p.is_null());
        let n: i64 = ffi!(panic!("boom"));
        assert_eq!(n, -1);
        let x: f64 = ffi!(panic!("boom"));
        assert!(x.is_nan());
    }

    /// Every `extern "C"` function defined in the crate's sources: (file,
    /// name, what its body starts with).
    fn exports() -> Vec<(String, String, String)> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let mut found = Vec::new();
        for f in files {
            let src = std::fs::read_to_string(&f).unwrap();
            // Every `extern "C" fn` defined here is entered from C: the
            // exports and the callbacks handed to C code alike.
            for (at, _) in src.match_indices("extern \"C\" fn ") {
                let rest = &src[at..];
                let sig = "extern \"C\" ".len();
                if !rest[sig + 3..].starts_with(|c: char| c.is_alphabetic() || c == '_') {
                    continue; // a function pointer type
                }
                let name: String = rest[sig + 3..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                // The body opens at the first `{` outside the parameter list.
                let mut depth = 0i32;
                let open = rest[sig..]
                    .char_indices()
                    .find(|&(_, c)| {
                        match c {
                            '(' | '[' => depth += 1,
                            ')' | ']' => depth -= 1,
                            _ => {}
                        }
                        c == '{' && depth == 0
                    })
                    .map(|(i, _)| sig + i)
                    .unwrap();
                let mut body = rest[open + 1..].trim_start();
                while body.starts_with("//") {
                    body = body[body.find('\n').unwrap()..].trim_start();
                }
                found.push((
                    f.display().to_string(),
                    name,
                    body.chars().take(30).collect(),
                ));
            }
        }
        found
    }

    #[test]
    fn every_export_enters_the_boundary() {
        let all = exports();
        // 164 upstream functions, ours (blosc2rs_*), a few per-system
        // twins and the callbacks
        assert!(all.len() >= 164, "only {} functions found", all.len());
        let outside: Vec<_> = all
            .iter()
            .filter(|(_, _, body)| !body.starts_with("ffi!("))
            .collect();
        assert!(
            outside.is_empty(),
            "extern \"C\" functions whose body is not ffi!(...): {outside:#?}"
        );
    }

    #[test]
    fn a_panicking_export_returns_its_failure_value_and_the_next_call_works() {
        use crate::types::blosc2_cparams;
        use std::ffi::c_void;
        let src = [7u8; 1000];
        let mut chunk = vec![0u8; 1100];
        let cparams = blosc2_cparams {
            typesize: 1,
            ..Default::default()
        };
        let cctx = crate::api::context::blosc2_create_cctx(cparams);
        assert!(!cctx.is_null());
        // SAFETY: the buffers are as long as the sizes say.
        let cbytes = unsafe {
            crate::api::context::blosc2_compress_ctx(
                cctx,
                src.as_ptr().cast(),
                1000,
                chunk.as_mut_ptr().cast(),
                1100,
            )
        };
        assert!(cbytes > 0);
        let (mut n, mut c, mut b) = (0i32, 0i32, 0i32);
        let sizes = |n: &mut i32, c: &mut i32, b: &mut i32| {
            // SAFETY: a chunk written above; three writable ints.
            unsafe {
                crate::api::chunk::blosc2_cbuffer_sizes(chunk.as_ptr().cast::<c_void>(), n, c, b)
            }
        };

        // int
        panic_in_next_export();
        assert_eq!(sizes(&mut n, &mut c, &mut b), ErrorKind::Failure.code());
        assert_eq!(sizes(&mut n, &mut c, &mut b), 0);
        assert_eq!((n, c), (1000, cbytes));
        // a pointer
        panic_in_next_export();
        assert!(crate::api::context::blosc2_create_cctx(cparams).is_null());
        let again = crate::api::context::blosc2_create_cctx(cparams);
        assert!(!again.is_null());
        // void
        panic_in_next_export();
        // SAFETY: a context created above, freed once.
        unsafe { crate::api::context::blosc2_free_ctx(again) };
        // (the panic came before the free: this frees it)
        // SAFETY: `again` is still live (the panicking call freed nothing);
        // freed once, here.
        unsafe { crate::api::context::blosc2_free_ctx(again) };
        // int64_t
        panic_in_next_export();
        // SAFETY: NULL is refused (when the body runs).
        let r = unsafe {
            crate::api::schunk::blosc2_schunk_append_buffer(
                std::ptr::null_mut(),
                std::ptr::null(),
                0,
            )
        };
        assert_eq!(r, -1);
        // a struct returned by value
        panic_in_next_export();
        assert_eq!(
            crate::api::context::blosc2_get_blosc2_cparams_defaults().typesize,
            8
        );
        // SAFETY: created above, freed once.
        unsafe { crate::api::context::blosc2_free_ctx(cctx) };
    }

    #[test]
    fn narrow_codes_and_constants_keep_their_values() {
        assert_eq!(code_i16(ErrorKind::InvalidParam), -12);
        assert_eq!(i16::on_panic(), -1);
        assert_eq!(const { const_u8(0) }, 0);
        assert_eq!(const { const_u8(255) }, 255);
    }

    #[test]
    fn the_export_is_named_from_the_nested_function() {
        fn blosc2_example() -> &'static str {
            fn here() {}
            std::any::type_name_of_val(&here)
        }
        assert_eq!(export_name(blosc2_example()), "blosc2_example");
    }
}
