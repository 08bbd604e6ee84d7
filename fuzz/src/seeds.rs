//! Seed writers for the targets whose inputs are not plain files of the
//! reference corpora (`replay seeds-sframe`, `replay seeds-plugins`).

use crate::build_container;
use blosc2_core::b2nd::{meta, Array, Params};
/// The b2nd plugin filters (upstream BLOSC_FILTER_NDCELL, _NDMEAN).
const NDCELL: u8 = 32;
const NDMEAN: u8 = 33;
use blosc2_core::chunk::CParams;
use blosc2_core::frame::sframe;
use blosc2_core::schunk::Storage;
use std::io;
use std::path::{Path, PathBuf};

/// Knob bytes appended to every container: they pick the lazy ranges and
/// the slice boxes, and a few non-zero ones start the fuzzer off reading
/// inside the chunks rather than at their first byte.
const KNOBS: [u8; 16] = [
    0x10, 0x00, 0x40, 0x00, 0x03, 0x01, 0x80, 0x00, 0x05, 0x02, 0x07, 0x01, 0x02, 0x03, 0x11, 0x09,
];

/// The files of sparse frame directory `dir` as `sframe` wants them, in
/// chunk-file order with absent numbers marked absent.
pub fn pack_sframe(dir: &Path) -> io::Result<Vec<u8>> {
    let index = std::fs::read(sframe::index_path(dir))?;
    let mut ids = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let name = e?.file_name();
        let name = name.to_string_lossy();
        if let Some(hex) = name.strip_suffix(".chunk") {
            if let Ok(id) = u32::from_str_radix(hex, 16) {
                ids.push(id as usize);
            }
        }
    }
    let n = ids.iter().max().map_or(0, |m| m + 1);
    if n > 254 {
        return Err(io::Error::other("too many chunk files for the container"));
    }
    let mut files = vec![Some(index)];
    for id in 0..n {
        let p = sframe::chunk_path(dir, id as i64);
        files.push(std::fs::read(p).ok());
    }
    Ok(build_container(&files, &KNOBS))
}

/// `replay seeds-sframe OUT DIR...`: one container per sparse directory.
pub fn sframe(out: &Path, dirs: &[String]) -> io::Result<()> {
    std::fs::create_dir_all(out)?;
    for d in dirs {
        let d = Path::new(d);
        let name = d
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match pack_sframe(d) {
            Ok(c) => {
                let p = out.join(format!("ref-{name}"));
                std::fs::write(&p, c)?;
                println!("{}", p.display());
            }
            Err(e) => eprintln!("skipping {}: {e}", d.display()),
        }
    }
    Ok(())
}

/// One plugin configuration: codec, its meta, a filter in slot 0 and its
/// meta, the item size and the array geometry.
struct Plugin {
    name: &'static str,
    compcode: u8,
    compcode_meta: u8,
    filter: u8,
    filter_meta: u8,
    typesize: i32,
    shape: &'static [i64],
    chunkshape: &'static [i32],
    blockshape: &'static [i32],
}

const PLUGINS: &[Plugin] = &[
    Plugin {
        name: "ndlz4",
        compcode: 32,
        compcode_meta: 4,
        filter: 0,
        filter_meta: 0,
        typesize: 1,
        shape: &[32, 48],
        chunkshape: &[32, 24],
        blockshape: &[16, 16],
    },
    Plugin {
        name: "ndlz8",
        compcode: 32,
        compcode_meta: 8,
        filter: 0,
        filter_meta: 0,
        typesize: 1,
        shape: &[32, 48],
        chunkshape: &[32, 24],
        blockshape: &[16, 16],
    },
    Plugin {
        name: "ndcell",
        compcode: 0,
        compcode_meta: 0,
        filter: NDCELL,
        filter_meta: 2,
        typesize: 4,
        shape: &[8, 8, 12],
        chunkshape: &[8, 8, 6],
        blockshape: &[4, 4, 6],
    },
    Plugin {
        name: "ndmean",
        compcode: 1,
        compcode_meta: 0,
        filter: NDMEAN,
        filter_meta: 2,
        typesize: 4,
        shape: &[8, 8, 12],
        chunkshape: &[8, 8, 6],
        blockshape: &[4, 4, 6],
    },
    Plugin {
        name: "zfp-acc",
        compcode: 33,
        compcode_meta: (-3i8) as u8,
        filter: 0,
        filter_meta: 0,
        typesize: 4,
        shape: &[8, 8, 16],
        chunkshape: &[8, 8, 8],
        blockshape: &[4, 8, 8],
    },
    Plugin {
        name: "zfp-prec",
        compcode: 34,
        compcode_meta: 12,
        filter: 0,
        filter_meta: 0,
        typesize: 8,
        shape: &[16, 12],
        chunkshape: &[16, 8],
        blockshape: &[8, 8],
    },
    Plugin {
        name: "zfp-rate",
        compcode: 35,
        compcode_meta: 40,
        filter: 0,
        filter_meta: 0,
        typesize: 4,
        shape: &[64],
        chunkshape: &[32],
        blockshape: &[16],
    },
];

/// Smooth values of the item size (floats for 4 and 8), so the codecs'
/// and filters' interesting paths run.
fn items(n: usize, ts: i32) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * ts as usize);
    for i in 0..n {
        let v = ((i as f64) * 0.05).sin() * 40.0 + (i % 7) as f64;
        match ts {
            1 => out.push((v as i64 & 0x3f) as u8 / 8),
            4 => out.extend_from_slice(&(v as f32).to_le_bytes()),
            _ => out.extend_from_slice(&v.to_le_bytes()),
        }
    }
    out
}

fn cparams(p: &Plugin) -> CParams {
    let mut filters = [0u8; 6];
    let mut filters_meta = [0u8; 6];
    filters[0] = p.filter;
    filters_meta[0] = p.filter_meta;
    CParams {
        compcode: p.compcode,
        compcode_meta: p.compcode_meta,
        clevel: 5,
        typesize: p.typesize,
        filters,
        filters_meta,
        nthreads: 1,
        ..CParams::default()
    }
}

/// Blockshapes the chunks were not made with but which still pass the
/// array's own geometry checks, so the plugin decoders see them: the
/// dimensions reversed (same product), the first halved (blocks
/// smaller than the chunk's), the chunkshape (larger), and ones (too
/// small for ZFP's 4-wide cells).
fn bad_blockshapes(p: &Plugin) -> Vec<(&'static str, Vec<i32>)> {
    let mut rev = p.blockshape.to_vec();
    rev.reverse();
    let mut half = p.blockshape.to_vec();
    half[0] = (half[0] / 2).max(1);
    vec![
        ("rev", rev),
        ("half", half),
        ("chunk", p.chunkshape.to_vec()),
        ("ones", vec![1; p.blockshape.len()]),
    ]
}

/// `frame` with its b2nd metalayer's blockshape replaced (the metalayer
/// keeps its length: int32s are always written 5 bytes wide).
fn with_blockshape(frame: &[u8], m: &meta::Meta, bs: &[i32]) -> Option<Vec<u8>> {
    let old = m.serialize().ok()?;
    let mut m2 = m.clone();
    m2.blockshape = bs.to_vec();
    let new = m2.serialize().ok()?;
    if new.len() != old.len() || new == old {
        return None;
    }
    let at = frame.windows(old.len()).position(|w| w == &old[..])?;
    let mut f = frame.to_vec();
    f[at..at + old.len()].copy_from_slice(&new);
    Some(f)
}

/// `replay seeds-plugins OUT`: `OUT/open_frame/plugin-*` contiguous frames
/// and `OUT/sframe/plugin-*` sparse-frame containers.
pub fn plugins(out: &Path) -> io::Result<()> {
    let cdir = out.join("open_frame");
    let sdir = out.join("sframe");
    std::fs::create_dir_all(&cdir)?;
    std::fs::create_dir_all(&sdir)?;
    let tmp = std::env::temp_dir().join(format!("blosc2-seeds-{}", std::process::id()));
    let err = |e: blosc2_core::error::ErrorKind| io::Error::other(format!("{e:?}"));
    for p in PLUGINS {
        let params = Params::new(p.shape, p.chunkshape, p.blockshape);
        let n: i64 = p.shape.iter().product();
        let data = items(n as usize, p.typesize);
        let storage = Storage {
            contiguous: true,
            cparams: cparams(p),
            ..Storage::default()
        };
        let a = Array::from_cbuffer(storage, &params, &data).map_err(err)?;
        let frame = a.to_cframe().map_err(err)?;
        let m = a.meta();
        let mut frames = vec![(String::new(), frame.clone())];
        for (tag, bs) in bad_blockshapes(p) {
            if let Some(f) = with_blockshape(&frame, &m, &bs) {
                frames.push((format!("-bs-{tag}"), f));
            }
        }
        for (tag, f) in &frames {
            std::fs::write(cdir.join(format!("plugin-{}{tag}", p.name)), f)?;
        }

        // the same array as a sparse frame, packed; bad blockshapes are
        // patched into its index file
        let _ = std::fs::remove_dir_all(&tmp);
        let storage = Storage {
            contiguous: false,
            urlpath: Some(PathBuf::from(&tmp)),
            cparams: cparams(p),
            ..Storage::default()
        };
        drop(Array::from_cbuffer(storage, &params, &data).map_err(err)?);
        let good = pack_sframe(&tmp)?;
        std::fs::write(sdir.join(format!("plugin-{}", p.name)), &good)?;
        let index = std::fs::read(sframe::index_path(&tmp))?;
        for (tag, bs) in bad_blockshapes(p).into_iter().take(2) {
            if let Some(ix) = with_blockshape(&index, &m, &bs) {
                std::fs::write(sframe::index_path(&tmp), ix)?;
                let c = pack_sframe(&tmp)?;
                std::fs::write(sdir.join(format!("plugin-{}-bs-{tag}", p.name)), c)?;
            }
        }
        let _ = std::fs::remove_dir_all(&tmp);
    }
    println!(
        "wrote plugin seeds to {} and {}",
        cdir.display(),
        sdir.display()
    );
    Ok(())
}
