//! `#[repr(C)]` structs, opaque handles and callback typedefs of the public headers.
//!
//! One private submodule per generated header (build.rs maps `types/<area>.rs` to the
//! header of that area); everything is re-exported flat here so capi code can
//! `use crate::types::*`. Names are upstream's C names on purpose.

#![allow(non_camel_case_types)]

mod b2nd;
mod blosc2;
mod blosc2rs;
mod codecs_registry;
mod filters_registry;
mod stdio;
mod tuners_registry;

pub use self::b2nd::*;
pub use self::blosc2::*;
pub use self::blosc2rs::*;
pub use self::codecs_registry::*;
pub use self::filters_registry::*;
pub use self::stdio::*;
pub use self::tuners_registry::*;
