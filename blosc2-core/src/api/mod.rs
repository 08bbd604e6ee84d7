//! The typed Rust API over the engine modules: what [`crate`] re-exports at
//! its root.

pub mod bulk;
pub mod element;
pub mod ndarray;
pub mod params;
mod paths;
pub mod schunk;
pub mod stream;
