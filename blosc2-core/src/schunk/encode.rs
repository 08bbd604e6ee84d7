//! The super-chunk as frame bytes: its frame header, index and trailer,
//! the whole contiguous frame (`blosc2_schunk_to_buffer`), written to or
//! appended to a file, its length and its chunk offsets.
//!
//! Separate because both the exports and the writes of a frame on disk
//! (see `persist` and `layout`) build frames from these pieces.

use super::{Backing, Slot, SuperChunk, VL_BLOCKS_FLAG};
use crate::error::{ErrorKind, Result};
use crate::frame::header::{self as fh, FrameHeader};
use crate::frame::{cframe, checksum, index};
use crate::io::Mode;
use std::path::Path;

fn io_code(_e: std::io::Error) -> ErrorKind {
    ErrorKind::FileWrite
}

impl SuperChunk {
    pub(super) fn frame_header(&self, sparse: bool, cbytes: i64) -> FrameHeader {
        FrameHeader {
            header_len: 0,
            frame_len: 0,
            general_flags: fh::general_flags(
                self.chunksize == 0,
                self.flags2 & VL_BLOCKS_FLAG != 0,
            ),
            frame_type: if sparse { fh::SPARSE } else { fh::CONTIGUOUS },
            compcode: self.cparams.compcode,
            clevel: self.cparams.clevel,
            splitmode: self.cparams.splitmode as u8,
            nbytes: self.nbytes,
            cbytes,
            typesize: self.cparams.typesize,
            blocksize: self.blocksize,
            chunksize: self.chunksize,
            nthreads_c: self.cparams.nthreads,
            nthreads_d: self.dparams.nthreads,
            has_vlmetalayers: !self.vlmetalayers.is_empty(),
            filters: self.cparams.filters,
            filters_meta: self.cparams.filters_meta,
            compcode_meta: self.cparams.compcode_meta,
            use_dict: self.cparams.use_dict,
        }
    }

    /// Serialize as a contiguous frame (`blosc2_schunk_to_buffer`).
    pub fn to_frame(&self) -> Result<Vec<u8>> {
        let mut data = Vec::new();
        let mut offsets = Vec::with_capacity(self.entries.len());
        // the digests of what this frame stores (a chunk written as a
        // special offset has none)
        let mut sums = self.checksums().then(Vec::new);
        for (i, e) in self.entries.iter().enumerate() {
            let e = e?;
            if let Slot::Special(k) = e.slot {
                offsets.push(index::special_offset(k));
                if let Some(s) = sums.as_mut() {
                    s.push(checksum::SPECIAL_DIGEST);
                }
                continue;
            }
            let c = self.chunk(i as i64)?;
            // whole-chunk special values of a plain super-chunk become
            // special offsets, as the reference writes them (it cannot read
            // them lazily as data); sizes must be fixed for a reader to
            // know theirs
            if self.chunksize > 0 {
                if let Some(k) = self.frame_special(&c, e.nbytes)? {
                    offsets.push(index::special_offset(k));
                    if let Some(s) = sums.as_mut() {
                        s.push(checksum::SPECIAL_DIGEST);
                    }
                    continue;
                }
            }
            if let Some(s) = sums.as_mut() {
                s.push(e.digest.unwrap_or_else(|| checksum::chunk_digest(&c)));
            }
            offsets.push(data.len() as i64);
            data.extend_from_slice(&c);
        }
        let mut h = self.frame_header(false, data.len() as i64);
        // An in-memory frame is handed out as it is. The reference
        // serializes anything else through blosc2_schunk_copy: a new frame
        // whose chunks were appended one by one (so its index has the style
        // appends leave) and whose new contexts record 0 compression and 1
        // decompression threads. Doing the same makes a frame written from
        // a super-chunk and one written again after reopening it identical.
        let style = match self.backing {
            Backing::MemFrame => self.index_style(),
            _ if self.entries.is_empty() => index::Style::Fresh,
            _ => index::Style::Modified,
        };
        if !matches!(self.backing, Backing::MemFrame) {
            h.nthreads_c = 0;
            h.nthreads_d = 1;
        }
        cframe::encode_frame(
            &h,
            &self.metalayers,
            &self.vlmetalayers,
            &offsets,
            &data,
            &style,
            sums.as_deref(),
        )
    }

    /// The length of the caller's frame this super-chunk still is exactly
    /// (made by `from_buffer(copy=false)` and not changed since).
    pub fn pristine_len(&self) -> Option<i64> {
        self.pristine_len
    }

    /// Length of the frame this super-chunk is or would be.
    pub fn frame_len(&self) -> Result<i64> {
        if let Some(n) = self.pristine_len {
            return Ok(n);
        }
        match &self.backing {
            Backing::Chunks => Ok(self.cbytes + self.nchunks() * 8),
            // a frame file still read lazily is as it was opened: its
            // header says how long it is (encoding the index would read
            // all of it)
            Backing::File { base, .. } if self.entries.is_lazy() => {
                let mut hb = vec![0u8; crate::frame::header::HEADER_MINLEN];
                self.with_reader(|s| s.read_exact_at(*base, &mut hb))?;
                Ok(crate::frame::header::FrameHeader::parse(&hb)?.frame_len)
            }
            Backing::File { data_len, .. } => {
                let p = self.parts(false, *data_len)?;
                Ok(p.frame_len(*data_len))
            }
            Backing::Dir { .. } => Ok(self.parts(true, 0)?.frame_len(0)),
            Backing::MemFrame => Ok(self.to_frame()?.len() as i64),
        }
    }

    fn index_style(&self) -> index::Style {
        if self.repeat_index {
            index::Style::Repeat(self.cparams.clone())
        } else {
            index::Style::Modified
        }
    }

    pub(super) fn parts(&self, sparse: bool, data_len: i64) -> Result<cframe::Parts> {
        let offsets: Vec<i64> = self
            .entries
            .iter()
            .map(|e| match e?.slot {
                Slot::Special(k) => Ok(index::special_offset(k)),
                Slot::Disk(o) | Slot::File(o) => Ok(o),
                Slot::Data(_) => Err(ErrorKind::Failure),
            })
            .collect::<Result<_>>()?;
        self.parts_with(&offsets, sparse, data_len)
    }

    /// [`Self::parts`] with the index holding `offsets`.
    pub(super) fn parts_with(
        &self,
        offsets: &[i64],
        sparse: bool,
        data_len: i64,
    ) -> Result<cframe::Parts> {
        let cb = if sparse { self.cbytes } else { data_len };
        let h = self.frame_header(sparse, cb);
        cframe::encode_parts(
            &h,
            &self.metalayers,
            &self.vlmetalayers,
            offsets,
            data_len,
            &self.index_style(),
            self.digests()?.as_deref(),
        )
    }

    /// [`Self::parts`] of a contiguous frame file whose index chunk is
    /// encoded already (no checksums).
    pub(super) fn parts_with_index(&self, idx: Vec<u8>, data_len: i64) -> Result<cframe::Parts> {
        let h = self.frame_header(false, data_len);
        cframe::encode_parts_with_index(
            &h,
            &self.metalayers,
            &self.vlmetalayers,
            idx,
            data_len,
            None,
        )
    }

    /// Whether the index is written as [`index::Appender`] encodes it.
    pub(super) fn index_appends(&self) -> bool {
        matches!(self.index_style(), index::Style::Modified) && !self.checksums()
    }

    /// Write the super-chunk as a contiguous frame file (replacing it).
    pub fn to_file(&self, path: &Path) -> Result<i64> {
        let f = self.to_frame()?;
        std::fs::write(path, &f).map_err(io_code)?;
        Ok(f.len() as i64)
    }

    /// Append the super-chunk as a contiguous frame to `path`; returns the
    /// offset where it starts.
    pub fn append_file(&self, path: &Path) -> Result<i64> {
        let f = self.to_frame()?;
        let mut s = self.io.open(path, Mode::Append)?;
        let at = s.size()?;
        s.write_all_at(at, &f)?;
        Ok(at as i64)
    }

    /// Offsets of the chunks in the frame, as `blosc2_frame_get_offsets`.
    pub fn offsets(&self) -> Result<Vec<i64>> {
        match &self.backing {
            Backing::File { .. } | Backing::Dir { .. } => self
                .entries
                .iter()
                .map(|e| match e?.slot {
                    Slot::Special(k) => Ok(index::special_offset(k)),
                    Slot::Disk(o) | Slot::File(o) => Ok(o),
                    Slot::Data(_) => Err(ErrorKind::Failure),
                })
                .collect(),
            Backing::MemFrame => {
                let mut off = 0i64;
                self.entries
                    .iter()
                    .map(|e| {
                        Ok(match &e?.slot {
                            Slot::Data(d) => {
                                let o = off;
                                off += d.len() as i64;
                                o
                            }
                            Slot::Special(k) => index::special_offset(*k),
                            _ => 0,
                        })
                    })
                    .collect()
            }
            Backing::Chunks => Err(ErrorKind::InvalidParam),
        }
    }
}
