//! The super-chunk API of blosc2.h (`blosc2_schunk_*`, metalayers,
//! vlmetalayers, storage defaults).
//!
//! What a `blosc2_schunk*` points to, the [`Handle`](crate::objects::schunk::Handle),
//! is in `objects::schunk`. The C functions are divided by concept into the files
//! of `schunk/`:
//!
//! | File            | What it holds |
//! |-----------------|---------------|
//! | `call.rs`       | how every function reaches the core and syncs the public struct; C strings as paths and names |
//! | `lifecycle.rs`  | creating, opening, copying and freeing super-chunks |
//! | `chunks.rs`     | one chunk at a time: append, insert, update, delete, decompress, get (whole or lazy) |
//! | `slices.rs`     | item ranges read and written |
//! | `chunk_list.rs` | the chunk list as a whole: reordering, special fills |
//! | `frames.rs`     | the super-chunk as a contiguous frame: buffer, file, length, offsets |
//! | `params.rs`     | copies of cparams and dparams; storage and I/O defaults |
//! | `meta.rs`       | metalayers and vlmetalayers |
//! | `sharing.rs`    | a frame shared with other handles: lock, unlock, refresh |
//! | `selections.rs` | items at coordinates; the chunks a slice touches |
//!
//! The order of the `mod` lines below is the order in which build.rs puts
//! these functions into blosc2.h (see its `rust_files`).

mod call;

mod lifecycle;

mod chunks;

mod slices;

mod chunk_list;

mod frames;

mod params;

mod meta;

mod sharing;

mod selections;

mod checksums;

pub use checksums::*;
pub use chunk_list::*;
pub use chunks::*;
pub use frames::*;
pub use lifecycle::*;
pub use meta::*;
pub use params::*;
pub use selections::*;
pub use sharing::*;
pub use slices::*;
