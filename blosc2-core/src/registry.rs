//! Process-wide registries of user codecs and filters (`blosc2_register_codec`,
//! `blosc2_register_filter`). Plugins are trait objects so the C layer can wrap
//! its function pointers and a Rust user can register closures.
//!
//! Nothing here ever loads code because of an id read from a file: an id that is
//! not registered is an error.

use crate::chunk::params::CParams;
use crate::error::{ErrorKind, Result};
use crate::metalayers::Metalayer;
use std::sync::{Arc, RwLock};

/// What a plugin sees of the chunk being processed.
pub struct PluginContext<'a> {
    /// The context's parameters; `blocksize` is the one the chunk uses.
    pub cparams: &'a CParams,
    /// The typesize of the chunk (as stored in its header when decoding).
    pub typesize: i32,
    /// When decoding, the whole chunk (plugins such as ZFP read its header);
    /// when encoding, the whole source buffer, as upstream hands its codecs.
    pub chunk: Option<&'a [u8]>,
    /// The super-chunk the chunk belongs to, if any (upstream's
    /// `cparams->schunk` / `dparams->schunk`).
    pub schunk: Option<&'a SchunkInfo>,
}

/// What plugins may know of a super-chunk: the b2nd plugins read the array
/// geometry from its `b2nd` metalayer, and their decoders its typesize.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchunkInfo {
    pub typesize: i32,
    pub metalayers: Vec<Metalayer>,
    /// Opaque to the core: whatever identifies the super-chunk to the
    /// plugin's own code (the C layer's `blosc2_schunk*`, which C plugins
    /// receive as `cparams->schunk` and read or call back with); 0 = none.
    pub owner: usize,
}

impl SchunkInfo {
    /// Content of the metalayer `name`.
    pub fn meta(&self, name: &str) -> Option<&[u8]> {
        self.metalayers
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.content.as_slice())
    }

    /// Make `slot` describe a super-chunk with these properties, reusing the
    /// current description when nothing changed (contexts keep one across
    /// calls and their super-chunk's metalayers can change in between).
    pub fn refresh(
        slot: &mut Option<Arc<SchunkInfo>>,
        typesize: i32,
        metalayers: &[Metalayer],
        owner: usize,
    ) {
        let same = slot.as_ref().is_some_and(|s| {
            s.typesize == typesize && s.owner == owner && s.metalayers == metalayers
        });
        if !same {
            *slot = Some(Arc::new(SchunkInfo {
                typesize,
                metalayers: metalayers.to_vec(),
                owner,
            }));
        }
    }
}

/// A codec: both directions return the number of bytes produced, 0 for "does
/// not fit" (encoder), or a negative error code.
pub trait Codec: Send + Sync {
    fn encode(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32;
    fn decode(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32;
    /// Whether the codec can run now. A plugin registered by name only is
    /// found at first use; one that cannot be found makes the chunk fail
    /// with [`ErrorKind::CodecSupport`], as upstream's does, where a codec
    /// that runs and fails gives a data error.
    fn ready(&self) -> bool {
        true
    }
}

/// A filter: same-size transform; 0 on success, negative on error.
pub trait Filter: Send + Sync {
    fn forward(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32;
    fn backward(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32;
}

/// A registered codec.
#[derive(Clone)]
pub struct CodecEntry {
    pub id: u8,
    pub name: String,
    pub version: u8,
    pub complib: u8,
    pub imp: Arc<dyn Codec>,
}

/// A registered filter.
#[derive(Clone)]
pub struct FilterEntry {
    pub id: u8,
    pub name: String,
    pub version: u8,
    pub imp: Arc<dyn Filter>,
}

static CODECS: RwLock<Vec<CodecEntry>> = RwLock::new(Vec::new());
static FILTERS: RwLock<Vec<FilterEntry>> = RwLock::new(Vec::new());

/// Upstream's limits on how many plugins can be registered.
pub const MAX_USER_CODECS: usize = 128;
pub const MAX_USER_FILTERS: usize = 16;

/// Ids users may take.
pub const USER_REGISTERED_START: u8 = 160;

/// Register a user codec. Ids below 160 are reserved; an id already taken is
/// accepted only if it is the same plugin name (upstream's idempotence).
pub fn register_codec(entry: CodecEntry) -> Result<()> {
    if entry.id < USER_REGISTERED_START {
        return Err(ErrorKind::CodecParam);
    }
    insert_codec(entry)
}

/// Ids upstream reserves for plugins it knows by name (32..160).
pub const GLOBAL_REGISTERED_START: u8 = 32;

/// Register one of the plugins upstream registers at start-up under an id
/// of its own (below 160): the codecs it knows by name and loads when first
/// used (openhtj2k, grok, ...). Same idempotence as [`register_codec`].
pub fn register_global_codec(entry: CodecEntry) -> Result<()> {
    if !(GLOBAL_REGISTERED_START..USER_REGISTERED_START).contains(&entry.id) {
        return Err(ErrorKind::CodecParam);
    }
    insert_codec(entry)
}

/// Add `entry` unless its id is taken (by the same name: Ok). Only user
/// codecs count towards [`MAX_USER_CODECS`].
fn insert_codec(entry: CodecEntry) -> Result<()> {
    let mut codecs = CODECS.write().unwrap_or_else(|e| e.into_inner());
    if let Some(existing) = codecs.iter().find(|c| c.id == entry.id) {
        return if existing.name == entry.name {
            Ok(())
        } else {
            Err(ErrorKind::CodecParam)
        };
    }
    let users = codecs
        .iter()
        .filter(|c| c.id >= USER_REGISTERED_START)
        .count();
    if entry.id >= USER_REGISTERED_START && users >= MAX_USER_CODECS {
        return Err(ErrorKind::CodecSupport);
    }
    codecs.push(entry);
    Ok(())
}

/// Register a user filter (same rules as codecs).
pub fn register_filter(entry: FilterEntry) -> Result<()> {
    if entry.id < USER_REGISTERED_START {
        return Err(ErrorKind::Failure);
    }
    let mut filters = FILTERS.write().unwrap_or_else(|e| e.into_inner());
    if let Some(existing) = filters.iter().find(|f| f.id == entry.id) {
        return if existing.name == entry.name {
            Ok(())
        } else {
            Err(ErrorKind::Failure)
        };
    }
    if filters.len() >= MAX_USER_FILTERS {
        return Err(ErrorKind::CodecSupport);
    }
    filters.push(entry);
    Ok(())
}

/// Forget every user codec and filter (ids from 160), keeping the plugins
/// upstream registers itself: what `blosc2_init` does after
/// `blosc2_destroy`, so that a set-up/tear-down cycle frees the ids.
pub fn forget_user_plugins() {
    let mut codecs = CODECS.write().unwrap_or_else(|e| e.into_inner());
    codecs.retain(|c| c.id < USER_REGISTERED_START);
    let mut filters = FILTERS.write().unwrap_or_else(|e| e.into_inner());
    filters.retain(|f| f.id < USER_REGISTERED_START);
}

pub fn find_codec(id: u8) -> Option<CodecEntry> {
    let codecs = CODECS.read().unwrap_or_else(|e| e.into_inner());
    codecs.iter().find(|c| c.id == id).cloned()
}

pub fn find_codec_by_name(name: &str) -> Option<CodecEntry> {
    let codecs = CODECS.read().unwrap_or_else(|e| e.into_inner());
    codecs.iter().find(|c| c.name == name).cloned()
}

pub fn find_filter(id: u8) -> Option<FilterEntry> {
    let filters = FILTERS.read().unwrap_or_else(|e| e.into_inner());
    filters.iter().find(|f| f.id == id).cloned()
}

/// Names of all registered codecs, in registration order.
pub fn codec_names() -> Vec<String> {
    let codecs = CODECS.read().unwrap_or_else(|e| e.into_inner());
    codecs.iter().map(|c| c.name.clone()).collect()
}

/// One block handed to a prefilter: it writes `output` from `input` (the
/// chunk's source from this block on) before the filters and codec run.
pub struct PrefilterCall<'a> {
    pub input: &'a [u8],
    pub output: &'a mut [u8],
    /// Item size of `output` (the chunk's typesize unless the prefilter says).
    pub output_typesize: i32,
    /// Byte offset of the block in the chunk.
    pub offset: usize,
    pub nblock: usize,
    /// Index of the chunk in its super-chunk, -1 when standalone.
    pub nchunk: i64,
    pub tid: usize,
    /// Per-thread scratch the prefilter may use.
    pub ttmp: &'a mut [u8],
}

/// A user tuner, consulted before each chunk a context compresses (the
/// `next_blocksize` step of upstream's tuners). A negative answer fails the
/// chunk with [`ErrorKind::Tuner`]. The block size stays this library's
/// choice or the one the parameters fix: a tuner written against the public
/// API has no way to set one.
pub trait Tuner: Send + Sync {
    fn next_blocksize(&self) -> i32;
}

/// A user function run on each block before compression.
pub trait Prefilter: Send + Sync {
    /// 0 on success.
    fn call(&self, c: PrefilterCall) -> i32;
    /// The output only feeds a computation and need not be stored: every
    /// stream is then written as a zero run.
    fn output_is_disposable(&self) -> bool {
        false
    }
    /// Item size of the prefilter's output; 0 = the chunk's typesize.
    fn output_typesize(&self) -> i32 {
        0
    }
}

/// One decoded block handed to a postfilter, which writes the final bytes.
pub struct PostfilterCall<'a> {
    pub input: &'a [u8],
    pub output: &'a mut [u8],
    pub typesize: i32,
    pub offset: usize,
    pub nblock: usize,
    pub nchunk: i64,
    pub tid: usize,
    pub ttmp: &'a mut [u8],
}

/// A user function run on each block after decompression.
pub trait Postfilter: Send + Sync {
    /// 0 on success.
    fn call(&self, c: PostfilterCall) -> i32;
}
