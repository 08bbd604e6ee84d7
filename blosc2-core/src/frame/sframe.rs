//! Sparse frames (spec: sframe-format.rst): a directory with the index file
//! `chunks.b2frame` and one `NNNNNNNN.chunk` file per stored chunk.

use std::path::{Path, PathBuf};

/// Name of the frame (header, index, trailer) file in the directory.
pub const INDEX_FILE: &str = "chunks.b2frame";

pub fn index_path(dir: &Path) -> PathBuf {
    dir.join(INDEX_FILE)
}

/// Chunk files are named by their number in 8 upper-case hex digits.
pub fn chunk_path(dir: &Path, id: i64) -> PathBuf {
    dir.join(format!("{:08X}.chunk", id as u32))
}
