//! [`Element`]: the item types the typed API reads and writes.

use bytemuck::Pod;

/// A plain item type that arrays and typed reads can hold: any
/// [`bytemuck::Pod`] type, plus the NumPy dtype string that b2nd arrays
/// record for it.
///
/// Implemented for the integer and floating-point primitives; implement it
/// for your own `#[repr(C)]` `Pod` structs with the dtype NumPy would give
/// them (for example `"[('x', '<f4'), ('y', '<f4')]"`), or `"|V{size}"`.
pub trait Element: Pod {
    /// The NumPy dtype string of this type (`"<f8"` for `f64`).
    const DTYPE: &'static str;
}

macro_rules! element {
    ($($t:ty => $d:literal),* $(,)?) => {
        $(impl Element for $t {
            const DTYPE: &'static str = $d;
        })*
    };
}

element! {
    u8 => "|u1", i8 => "|i1",
    u16 => "<u2", i16 => "<i2",
    u32 => "<u4", i32 => "<i4",
    u64 => "<u8", i64 => "<i8",
    f32 => "<f4", f64 => "<f8",
}

/// A zeroed `Vec<T>` of `n` items.
pub(crate) fn zeroed<T: Pod>(n: usize) -> Vec<T> {
    vec![T::zeroed(); n]
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
    Ok(zeroed(nbytes / size))
}

/// The error of reading items of `T` from storage of `typesize`-byte items
/// (`what`: "a super-chunk", "an array").
pub(crate) fn check_item_size<T>(typesize: usize, what: &str) -> Result<(), crate::Error> {
    let size = std::mem::size_of::<T>();
    if size != typesize {
        return Err(
            crate::Error::new(crate::ErrorKind::InvalidParam).with_detail(format!(
                "{size}-byte items asked of {what} of {typesize}-byte items"
            )),
        );
    }
    Ok(())
}
