//! The C ABI: `extern "C"` functions and `#[repr(C)]` types of upstream's headers.
pub mod consts;
pub mod types;
