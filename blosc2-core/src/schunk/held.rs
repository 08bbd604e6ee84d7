//! The chunks of a super-chunk kept in memory without a frame, as they are
//! held. Upstream keeps such chunks in an array of chunk pointers that C
//! code reads directly (`schunk->data[nchunk]`); the C layer builds that
//! array from this view.

use super::{special_kind, Backing, Slot, SuperChunk};
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::special::make_special;
use crate::chunk::{CParams, ChunkHeader, Special};
use crate::error::Result;

/// One chunk of an in-memory super-chunk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HeldChunk<'a> {
    /// The chunk's bytes, at a stable address until the chunk is replaced
    /// or removed.
    Data(&'a [u8]),
    /// A whole-chunk special value of `nbytes` bytes, kept without bytes;
    /// [`SuperChunk::special_bytes`] makes the chunk that stands for it.
    Special { kind: Special, nbytes: i32 },
}

impl SuperChunk {
    /// The chunks, in order, when they are held in memory without a frame
    /// (`contiguous = false`, no urlpath); `None` for frames.
    pub fn held_chunks(&self) -> Option<impl ExactSizeIterator<Item = HeldChunk<'_>> + '_> {
        if !matches!(self.backing, Backing::Chunks) {
            return None;
        }
        // (a chunk list in memory is never read lazily)
        let plain = self.entries.plain().unwrap_or(&[]);
        Some(plain.iter().map(|e| match &e.slot {
            Slot::Data(d) => HeldChunk::Data(d),
            Slot::Special(kind) => HeldChunk::Special {
                kind: *kind,
                nbytes: e.nbytes,
            },
            // a chunks-only super-chunk holds nothing elsewhere; an empty
            // chunk would be refused by every reader, as a NULL would be
            _ => HeldChunk::Data(&[]),
        }))
    }

    /// The special value a frame can record for `chunk` (of `nbytes`) as
    /// a special offset instead of its bytes: zeros, NaNs or uninitialized
    /// values that the frame's own parameters can make again when read. A
    /// chunk made with another typesize may not divide into the frame's
    /// items (a crafted frame, or a chunk of another super-chunk): it stays
    /// data, where the reference writes an offset that neither library can
    /// read back (found by fuzzing `open_frame_at` through `to_frame`).
    pub(super) fn frame_special(&self, chunk: &[u8], nbytes: i32) -> Result<Option<Special>> {
        match special_kind(chunk)? {
            // and the chunk made again must read back: a crafted frame's
            // header may carry a blocksize no chunk header allows
            k @ (Special::Zero | Special::Nan | Special::Uninit) => Ok(self
                .special_bytes(k, nbytes)
                .is_ok_and(|b| ChunkHeader::read(&b).is_ok())
                .then_some(k)),
            _ => Ok(None),
        }
    }

    /// The chunk that stands for a special value of `nbytes` bytes with this
    /// super-chunk's typesize and blocksize.
    pub fn special_bytes(&self, kind: Special, nbytes: i32) -> Result<Vec<u8>> {
        let p = CParams {
            typesize: self.cparams.typesize,
            blocksize: self.blocksize,
            ..CParams::default()
        };
        let mut out = vec![0u8; EXTENDED_HEADER_LENGTH];
        let n = make_special(&p, kind, nbytes, None, &mut out)?;
        out.truncate(n);
        Ok(out)
    }
}
