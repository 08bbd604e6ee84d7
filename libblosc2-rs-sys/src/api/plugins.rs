//! `blosc2_register_codec`, `blosc2_register_filter`:
//! C callbacks wrapped as core plugins.

pub(crate) mod loading;
pub(crate) mod tuners;

pub use tuners::blosc2_register_tuner;

use crate::boundary::{code, err, ffi};
use crate::names::global_plugins;
use crate::ptr::c_str_or_empty;
use crate::types::{
    blosc2_codec, blosc2_codec_decoder_cb, blosc2_codec_encoder_cb, blosc2_cparams, blosc2_dparams,
    blosc2_filter, blosc2_filter_backward_cb, blosc2_filter_forward_cb,
};
use blosc2_core::error::ErrorKind;
use blosc2_core::registry::{self, CodecEntry, FilterEntry, PluginContext};
use std::ffi::{c_int, c_void};
use std::sync::{Arc, OnceLock};

/// The `blosc2_schunk*` a plugin is shown (upstream's `cparams->schunk`).
fn plugin_schunk(ctx: &PluginContext) -> *mut c_void {
    ctx.schunk
        .map_or(std::ptr::null_mut(), |s| s.owner as *mut c_void)
}

/// The cparams a plugin callback receives: what upstream's
/// `blosc2_ctx_get_cparams` reports for the running context.
fn plugin_cparams(ctx: &PluginContext) -> blosc2_cparams {
    let cp = ctx.cparams;
    blosc2_cparams {
        compcode: cp.compcode,
        compcode_meta: cp.compcode_meta,
        clevel: cp.clevel,
        use_dict: cp.use_dict as c_int,
        typesize: ctx.typesize,
        nthreads: cp.nthreads,
        blocksize: cp.blocksize,
        splitmode: cp.splitmode as i32,
        schunk: plugin_schunk(ctx),
        filters: cp.filters,
        filters_meta: cp.filters_meta,
        instr_codec: cp.instr_codec,
        ..blosc2_cparams::default()
    }
}

/// The dparams a plugin callback receives (`blosc2_ctx_get_dparams`).
fn plugin_dparams(ctx: &PluginContext) -> blosc2_dparams {
    blosc2_dparams {
        nthreads: ctx.cparams.nthreads,
        typesize: ctx.typesize,
        schunk: plugin_schunk(ctx),
        ..blosc2_dparams::default()
    }
}

fn len_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A plugin's two functions (encoder and decoder, or forward and
/// backward): the registered ones, or the plugin library's in place of
/// missing ones, loaded by name at first use (see `plugins`). A failed load
/// is not retried (upstream retries at every block, running Python each
/// time).
struct Functions<F: Copy, G: Copy> {
    given: Pair<F, G>,
    name: String,
    loaded: OnceLock<Option<Pair<F, G>>>,
}

/// Two nullable C callbacks, as the registration structs hold them.
type Pair<F, G> = (Option<F>, Option<G>);

impl<F: Copy, G: Copy> Functions<F, G> {
    fn new(given: Pair<F, G>, name: String) -> Self {
        Functions {
            given,
            name,
            loaded: OnceLock::new(),
        }
    }

    fn get(&self, load: fn(&str) -> Option<Pair<F, G>>) -> Pair<F, G> {
        if let (Some(_), Some(_)) = self.given {
            return self.given;
        }
        let (f, g) = self
            .loaded
            .get_or_init(|| load(&self.name))
            .unwrap_or((None, None));
        (self.given.0.or(f), self.given.1.or(g))
    }
}

/// A C codec; one registered without its functions is loaded by name at
/// first use.
struct CCodec {
    fns: Functions<CodecEncoder, CodecDecoder>,
}

type CodecEncoder = <blosc2_codec_encoder_cb as FnPtr>::Fn;
type CodecDecoder = <blosc2_codec_decoder_cb as FnPtr>::Fn;
type FilterForward = <blosc2_filter_forward_cb as FnPtr>::Fn;
type FilterBackward = <blosc2_filter_backward_cb as FnPtr>::Fn;

/// The function type inside a nullable C callback type (`Option<fn>`).
trait FnPtr {
    type Fn: Copy;
}
impl<T: Copy> FnPtr for Option<T> {
    type Fn = T;
}

impl CCodec {
    fn new(c: blosc2_codec, name: String) -> CCodec {
        CCodec {
            fns: Functions::new((c.encoder, c.decoder), name),
        }
    }

    fn functions(&self) -> (blosc2_codec_encoder_cb, blosc2_codec_decoder_cb) {
        self.fns.get(crate::api::plugins::loading::load_codec)
    }
}

impl registry::Codec for CCodec {
    fn ready(&self) -> bool {
        let (e, d) = self.functions();
        e.is_some() && d.is_some()
    }

    fn encode(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32 {
        let Some(f) = self.functions().0 else {
            return ErrorKind::CodecSupport.code();
        };
        let mut cp = plugin_cparams(ctx);
        let chunk = ctx.chunk.map_or(std::ptr::null(), |c| c.as_ptr().cast());
        // SAFETY: the buffers are valid for the lengths passed; the callback
        // follows upstream's encoder contract.
        unsafe {
            f(
                input.as_ptr(),
                len_i32(input.len()),
                output.as_mut_ptr(),
                len_i32(output.len()),
                meta,
                &mut cp,
                chunk,
            )
        }
    }

    fn decode(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32 {
        let Some(f) = self.functions().1 else {
            return ErrorKind::CodecSupport.code();
        };
        let mut dp = plugin_dparams(ctx);
        let chunk = ctx.chunk.map_or(std::ptr::null(), |c| c.as_ptr().cast());
        // SAFETY: as in `encode`.
        unsafe {
            f(
                input.as_ptr(),
                len_i32(input.len()),
                output.as_mut_ptr(),
                len_i32(output.len()),
                meta,
                &mut dp,
                chunk,
            )
        }
    }
}

/// A C filter; one registered without its functions is loaded by name at
/// first use, as codecs are.
struct CFilter {
    id: u8,
    fns: Functions<FilterForward, FilterBackward>,
}

impl CFilter {
    fn functions(&self) -> (blosc2_filter_forward_cb, blosc2_filter_backward_cb) {
        self.fns.get(crate::api::plugins::loading::load_filter)
    }
}

impl registry::Filter for CFilter {
    fn forward(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32 {
        let Some(f) = self.functions().0 else {
            return ErrorKind::FilterPipeline.code();
        };
        let mut cp = plugin_cparams(ctx);
        // SAFETY: same-length buffers valid for the call; upstream's contract.
        unsafe {
            f(
                input.as_ptr(),
                output.as_mut_ptr(),
                len_i32(input.len()),
                meta,
                &mut cp,
                self.id,
            )
        }
    }

    fn backward(&self, input: &[u8], output: &mut [u8], meta: u8, ctx: &PluginContext) -> i32 {
        let Some(f) = self.functions().1 else {
            return ErrorKind::FilterPipeline.code();
        };
        let mut dp = plugin_dparams(ctx);
        // SAFETY: as in `forward`.
        unsafe {
            f(
                input.as_ptr(),
                output.as_mut_ptr(),
                len_i32(input.len()),
                meta,
                &mut dp,
                self.id,
            )
        }
    }
}

/// Register the codecs upstream registers at start-up by name only
/// (openhtj2k, grok, openzl, j2k, htj2k), so that chunks made with them
/// load their plugin when first met. Idempotent. Nothing without the
/// `plugins` feature.
pub(crate) fn register_global_plugins() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(register_global_plugins_now);
}

fn register_global_plugins_now() {
    // the others (ndlz, zfp) are built in; without `plugins` none is
    // registered, as upstream built without BUILD_PLUGINS registers none
    let loadable = global_plugins().filter(|p| p.0 >= 36);
    for &(id, name) in loadable {
        let Ok(id) = u8::try_from(id) else {
            continue;
        };
        let name = name.to_string_lossy().into_owned();
        let c = blosc2_codec {
            compcode: id,
            compname: std::ptr::null_mut(),
            complib: id,
            version: 1,
            encoder: None,
            decoder: None,
        };
        let _ = registry::register_global_codec(CodecEntry {
            id,
            name: name.clone(),
            version: 1,
            complib: id,
            imp: Arc::new(CCodec::new(c, name)),
        });
    }
}

/// # Safety
/// `codec` is NULL or points to a valid `blosc2_codec` with a NUL-terminated name.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_codec(codec: *mut blosc2_codec) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref.
        let Some(c) = (unsafe { codec.as_ref() }) else {
            return err(ErrorKind::InvalidParam);
        };
        if c.compcode < registry::USER_REGISTERED_START {
            return err(ErrorKind::CodecParam);
        }
        if c.compname.is_null() {
            return err(ErrorKind::InvalidParam);
        }
        // SAFETY: non-NULL, NUL-terminated per contract.
        let name = unsafe { c_str_or_empty(c.compname) }.to_string();
        let entry = CodecEntry {
            id: c.compcode,
            name: name.clone(),
            version: c.version,
            complib: c.complib,
            imp: Arc::new(CCodec::new(*c, name)),
        };
        code(registry::register_codec(entry))
    })
}

/// # Safety
/// `filter` is NULL or points to a valid `blosc2_filter` with a NUL-terminated name.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_filter(filter: *mut blosc2_filter) -> c_int {
    ffi!({
        // SAFETY: NULL checked by as_ref.
        let Some(f) = (unsafe { filter.as_ref() }) else {
            return err(ErrorKind::InvalidParam);
        };
        if f.id < registry::USER_REGISTERED_START {
            return err(ErrorKind::Failure);
        }
        if f.name.is_null() {
            return err(ErrorKind::InvalidParam);
        }
        // SAFETY: non-NULL, NUL-terminated per contract.
        let name = unsafe { c_str_or_empty(f.name) }.to_string();
        let entry = FilterEntry {
            id: f.id,
            name: name.clone(),
            version: f.version,
            imp: Arc::new(CFilter {
                id: f.id,
                fns: Functions::new((f.forward, f.backward), name),
            }),
        };
        code(registry::register_filter(entry))
    })
}

/// Forget the codecs, filters and tuners users registered (`blosc2_init`
/// after `blosc2_destroy`, as upstream's init empties its tables).
pub(crate) fn forget_user_plugins() {
    registry::forget_user_plugins();
    crate::objects::tuner::forget();
}
