//! [`Element`]: the item types the typed API reads and writes.

use bytemuck::Pod;

/// A plain item type that arrays and typed reads can hold: any
/// [`bytemuck::Pod`] type, plus the NumPy dtype string that b2nd arrays
/// record for it.
///
/// Implemented for the integer and floating-point primitives; implement it
/// for your own `#[repr(C)]` `Pod` structs with the dtype NumPy would give
/// them on this host (for example `"[('x', '<f4'), ('y', '<f4')]"` on a
/// little-endian one), or `"|V{size}"`.
pub trait Element: Pod {
    /// The NumPy dtype string of this type in the host's byte order
    /// (`"<f8"` for `f64` on a little-endian host, `">f8"` on a big-endian
    /// one).
    const DTYPE: &'static str;
}

macro_rules! element {
    ($($t:ty => $le:literal, $be:literal);* $(;)?) => {
        $(impl Element for $t {
            const DTYPE: &'static str = if cfg!(target_endian = "big") { $be } else { $le };
        })*
    };
}

// Items are stored as the host holds them (the filters and codecs see the
// caller's memory, as in upstream), so the label names the host's byte
// order: `>f8` on a big-endian host, as NumPy and python-blosc2 would
// record for a native array there. A reader on a host of the other order
// learns from the label that it must swap.
element! {
    u8 => "|u1", "|u1"; i8 => "|i1", "|i1";
    u16 => "<u2", ">u2"; i16 => "<i2", ">i2";
    u32 => "<u4", ">u4"; i32 => "<i4", ">i4";
    u64 => "<u8", ">u8"; i64 => "<i8", ">i8";
    f32 => "<f4", ">f4"; f64 => "<f8", ">f8";
}

/// A zeroed `Vec<T>` of `n` items; a count whose bytes do not fit this
/// host's memory (a 32-bit one, say) is [`crate::ErrorKind::MemoryAlloc`],
/// not an abort.
pub(crate) fn zeroed<T: Pod>(n: usize) -> Result<Vec<T>, crate::Error> {
    Ok(crate::spare::zeroed_items(n)?)
}

/// An item count computed in `i64` as a `usize`, or the error of one this
/// host cannot address (a 32-bit host would otherwise wrap it).
pub(crate) fn item_count(n: i64) -> Result<usize, crate::Error> {
    usize::try_from(n).map_err(|_| {
        crate::Error::new(crate::ErrorKind::MemoryAlloc)
            .with_detail(format!("{n} items do not fit this host's memory"))
    })
}

/// A zeroed buffer of the items of `T` that `nbytes` bytes hold, or the
/// error of a byte count that is no whole number of them (`what` names the
/// bytes: "the chunk", "chunk 3").
pub(crate) fn buffer_for<T: Pod>(nbytes: usize, what: &str) -> Result<Vec<T>, crate::Error> {
    let size = std::mem::size_of::<T>();
    if size == 0 || !nbytes.is_multiple_of(size) {
        return Err(
            crate::Error::new(crate::ErrorKind::InvalidParam).with_detail(format!(
                "{what} holds {nbytes} bytes, not a whole number of {size}-byte items"
            )),
        );
    }
    zeroed(nbytes / size)
}

/// The error of reading items of `T` from storage of `typesize`-byte items
/// (`what`: "a super-chunk", "an array").
pub(crate) fn check_item_size<T>(typesize: usize, what: &str) -> Result<(), crate::Error> {
    let size = std::mem::size_of::<T>();
    if size != typesize {
        return Err(crate::Error::new(crate::ErrorKind::InvalidParam)
            .with_reason(crate::Reason::ItemSize {
                expected: typesize,
                actual: size,
            })
            .with_detail(format!("{} asked of {what}", std::any::type_name::<T>())));
    }
    Ok(())
}
