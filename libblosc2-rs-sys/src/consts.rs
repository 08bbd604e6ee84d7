//! Integer and string constants of the public headers (enum values and `#define`s).
//!
//! One private submodule per generated header (build.rs maps `consts/<area>.rs` to the
//! header of that area), all re-exported flat here.

mod b2nd;
mod blosc2;
mod blosc2rs;
mod codecs_registry;
mod filters_registry;
mod tuners_registry;

pub use self::b2nd::*;
pub use self::blosc2::*;
pub use self::blosc2rs::*;
pub use self::codecs_registry::*;
pub use self::filters_registry::*;
pub use self::tuners_registry::*;
