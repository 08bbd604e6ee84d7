//! The C ABI: `extern "C"` functions and `#[repr(C)]` types of upstream's headers.
pub mod consts;
pub mod types;

pub mod b2nd;
pub mod b2nd_shape;
pub mod blosc1;
pub mod boundary;
pub mod chunk;
pub mod context;
pub mod context_object;
pub mod env;
pub mod frame;
pub mod handle;
pub mod io;
pub mod library;
pub mod plugins;
pub mod prefilter;
pub mod ptr;
pub mod reading;
pub mod registry;
pub mod schunk;
pub mod tuners;
pub mod vlblocks;
