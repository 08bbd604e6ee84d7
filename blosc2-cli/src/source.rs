//! What a path on the command line holds: a contiguous frame (possibly at
//! an offset in a larger file), a sparse frame directory, or one chunk.

use blosc2_core::chunk::ChunkHeader;
use blosc2_core::schunk::SuperChunk;
use blosc2_core::{Error, ErrorKind};
use std::io::Read;
use std::path::{Path, PathBuf};

/// An opened input.
pub enum Source {
    /// A super-chunk from a frame file or a sparse frame directory.
    Frame {
        sc: Box<SuperChunk>,
        path: PathBuf,
        offset: u64,
        sparse: bool,
    },
    /// A file holding one chunk.
    Chunk { bytes: Vec<u8>, path: PathBuf },
}

/// Whether the file at `path` has a frame's magic at `offset`.
fn has_frame_magic(path: &Path, offset: u64) -> Result<bool, Error> {
    let mut f = std::fs::File::open(path).map_err(|e| {
        Error::new(ErrorKind::FileOpen)
            .with_path(path)
            .with_source(e)
    })?;
    let mut head = [0u8; 9];
    let mut skip = (&mut f).take(offset);
    std::io::copy(&mut skip, &mut std::io::sink()).map_err(|e| {
        Error::new(ErrorKind::FileRead)
            .with_path(path)
            .with_source(e)
    })?;
    match f.read_exact(&mut head) {
        Ok(()) => Ok(&head[2..9] == b"b2frame"),
        Err(_) => Ok(false),
    }
}

/// Opens `path`: a directory is a sparse frame, a file with the frame magic
/// at `offset` a contiguous frame, anything else a single chunk.
pub fn open(path: &Path, offset: u64) -> Result<Source, Error> {
    let meta = std::fs::metadata(path).map_err(|e| {
        Error::new(ErrorKind::FileOpen)
            .with_path(path)
            .with_source(e)
    })?;
    let sparse = meta.is_dir();
    if sparse || has_frame_magic(path, offset)? {
        let sc =
            SuperChunk::open(path, offset, blosc2_core::io::default_backend()).map_err(|k| {
                let e = Error::new(k).with_path(path);
                if offset > 0 {
                    e.with_offset(offset)
                } else {
                    e
                }
            })?;
        return Ok(Source::Frame {
            sc: Box::new(sc),
            path: path.to_path_buf(),
            offset,
            sparse,
        });
    }
    let mut bytes = std::fs::read(path).map_err(|e| {
        Error::new(ErrorKind::FileRead)
            .with_path(path)
            .with_source(e)
    })?;
    let start = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(bytes.len());
    bytes.drain(..start);
    ChunkHeader::read(&bytes).map_err(|k| {
        Error::new(k)
            .with_path(path)
            .with_detail("neither a Blosc2 frame nor a chunk")
    })?;
    Ok(Source::Chunk {
        bytes,
        path: path.to_path_buf(),
    })
}

/// Upstream's codec names.
pub fn codec_name(id: u8) -> String {
    match id {
        0 => "blosclz".into(),
        1 => "lz4".into(),
        2 => "lz4hc".into(),
        4 => "zlib".into(),
        5 => "zstd".into(),
        32 => "ndlz".into(),
        33 => "zfp_acc".into(),
        34 => "zfp_prec".into(),
        35 => "zfp_rate".into(),
        other => format!("codec{other}"),
    }
}

/// Upstream's filter names for the filters of a pipeline (NOFILTER left out).
pub fn filter_names(filters: &[u8], meta: &[u8]) -> Vec<String> {
    filters
        .iter()
        .zip(meta)
        .filter(|(&f, _)| f != 0)
        .map(|(&f, &m)| {
            let name = match f {
                1 => "shuffle".to_string(),
                2 => "bitshuffle".into(),
                3 => "delta".into(),
                4 => "trunc_prec".into(),
                32 => "ndcell".into(),
                33 => "ndmean".into(),
                34 => "bytedelta_old".into(),
                35 => "bytedelta".into(),
                36 => "int_trunc".into(),
                other => format!("filter{other}"),
            };
            if m != 0 {
                format!("{name}({m})")
            } else {
                name
            }
        })
        .collect()
}
