//! Frame checksums on a super-chunk (docs/checksums.md): which frames
//! carry them, the digests kept with the entries, reads checked against
//! them, and [`SuperChunk::verify`].
//!
//! Separate from the frame encoding (`frame::checksum`, `frame::cframe`),
//! which only turns the digests handed to it into a table and a seal.

use super::{Slot, SuperChunk};
use crate::error::{ErrorKind, Result};
use crate::frame::checksum::{self, Damage, Table, Verdict};

/// What a super-chunk knows about its frame's checksums.
#[derive(Clone, Debug, Default)]
pub(super) struct Sums {
    /// Writes keep the table and the seal, and every entry has its digest.
    on: bool,
    /// Reads do not check chunks against their digests.
    skip_reads: bool,
    /// The frame's state when it was opened or last written by this handle.
    state: FrameCheck,
    /// A stale frame's table (for `verify`'s information only).
    stale: Option<Table>,
}

/// A frame's checksum state, as [`Schunk::verify`](crate::Schunk::verify) reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrameCheck {
    /// No checksums (a frame written without them, or by another writer's
    /// scheme this library does not know).
    #[default]
    Unverified,
    /// A table without a seal: a writer without checksums changed or
    /// copied the frame after it was sealed. Not corruption.
    Stale,
    /// The seal matches: every chunk is checked against its digest.
    Sealed,
    /// Sealed, and the metalayers' contents differ from what was sealed (an
    /// in-place `blosc2_meta_update` by a writer without checksums).
    MetalayersChanged,
    /// The seal or the header does not match: the frame is damaged there.
    Corrupt(Damage),
}

impl FrameCheck {
    /// Whether chunks are checked against digests the frame sealed.
    pub fn sealed(self) -> bool {
        matches!(self, FrameCheck::Sealed | FrameCheck::MetalayersChanged)
    }
}

/// What [`Schunk::verify`](crate::Schunk::verify) and [`NdArray::verify`](crate::NdArray::verify) found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// What the seal and the header say.
    pub frame: FrameCheck,
    /// Chunks whose stored bytes match their sealed digest (chunks held in
    /// the index, which have none, count as verified in a sealed frame).
    pub verified: u64,
    /// Chunk numbers whose stored bytes do not match their sealed digest
    /// or cannot be read.
    pub corrupt: Vec<u64>,
    /// Chunks of a stale frame.
    pub stale: u64,
    /// Chunks of a frame without checksums, or whose seal is damaged.
    pub unverified: u64,
}

impl VerifyReport {
    /// Nothing damaged was found: no corrupt chunk and no damaged seal or
    /// header.
    pub fn ok(&self) -> bool {
        self.corrupt.is_empty() && !matches!(self.frame, FrameCheck::Corrupt(_))
    }
}

impl SuperChunk {
    /// Take the checksum verdict of the frame this super-chunk was read
    /// from: a sealed frame keeps its checksums (its digests become the
    /// entries'), any other keeps its `_b2sum` vlmetalayer as it is, as a
    /// writer without checksums does.
    pub(super) fn adopt_checksums(&mut self, v: Verdict) {
        self.sums = Sums::default();
        match v {
            Verdict::Unverified => {}
            Verdict::Stale(t) => {
                self.sums.state = FrameCheck::Stale;
                self.sums.stale = Some(t);
            }
            Verdict::Corrupt(d) => {
                crate::trace_warning!(
                    "The frame's checksums do not match ({d:?}): it is damaged; its chunks are read unverified"
                );
                self.sums.state = FrameCheck::Corrupt(d);
            }
            Verdict::Sealed {
                table,
                metalayers_changed,
            } => {
                // (sealed frames' entries are read whole at open)
                if let Ok(v) = self.entries.vec_mut() {
                    for (e, d) in v.iter_mut().zip(table.digests) {
                        e.digest = Some(d);
                    }
                }
                self.vlmetalayers
                    .retain(|m| m.name != checksum::VLMETA_NAME);
                self.sums.on = true;
                self.sums.state = if metalayers_changed {
                    FrameCheck::MetalayersChanged
                } else {
                    FrameCheck::Sealed
                };
            }
        }
    }

    /// Take what another handle read of the frame's checksums, keeping this
    /// handle's choice of checked reads.
    pub(super) fn adopt_sums(&mut self, fresh: Sums) {
        let skip_reads = self.sums.skip_reads;
        self.sums = Sums {
            skip_reads,
            ..fresh
        };
    }

    /// Whether writes keep checksums.
    pub fn checksums(&self) -> bool {
        self.sums.on
    }

    /// Keep checksums from now on (or stop keeping them): the frame is
    /// written anew with its table and seal (or without them). Turning them
    /// on hashes every chunk once.
    pub fn set_checksums(&mut self, on: bool) -> Result<()> {
        if on == self.sums.on {
            return Ok(());
        }
        self.transact(|s| {
            let old_sums = s.sums.clone();
            let old_vl = s.vlmetalayers.clone();
            let entries = s.entries.vec_mut()?;
            let old_digests: Vec<Option<u64>> = entries.iter().map(|e| e.digest).collect();
            let r = s.switch_checksums(on);
            if r.is_err() {
                s.sums = old_sums;
                s.vlmetalayers = old_vl;
                for (e, d) in s.entries.vec_mut()?.iter_mut().zip(old_digests) {
                    e.digest = d;
                }
            }
            r
        })
    }

    fn switch_checksums(&mut self, on: bool) -> Result<()> {
        if on {
            for i in 0..self.entries.len() {
                let d = self.stored_digest(i)?;
                self.entries.get_mut(i)?.digest = Some(d);
            }
            // a stale table is replaced by the one written now
            self.vlmetalayers
                .retain(|m| m.name != checksum::VLMETA_NAME);
            self.sums.on = true;
            self.sums.stale = None;
            self.sums.state = FrameCheck::Sealed;
        } else {
            for e in self.entries.vec_mut()? {
                e.digest = None;
            }
            self.sums = Sums {
                skip_reads: self.sums.skip_reads,
                ..Sums::default()
            };
        }
        self.flush()
    }

    /// Reads check chunks against their digests (the default where the
    /// frame has checksums), or not.
    pub fn set_verified_reads(&mut self, on: bool) {
        self.sums.skip_reads = !on;
    }

    /// The digest for a new entry's stored bytes (`None` when not
    /// keeping checksums).
    pub(super) fn digest_for(&self, stored: &[u8], special: bool) -> Option<u64> {
        self.sums.on.then(|| {
            if special {
                checksum::SPECIAL_DIGEST
            } else {
                checksum::chunk_digest(stored)
            }
        })
    }

    /// Chunk `i`'s digest over what a frame stores of it, read and hashed.
    fn stored_digest(&self, i: usize) -> Result<u64> {
        if let Slot::Special(_) = self.entries.get(i)?.slot {
            return Ok(checksum::SPECIAL_DIGEST);
        }
        Ok(checksum::chunk_digest(&self.stored_bytes(i)?))
    }

    /// The digests a frame write seals, one per entry (None when not
    /// keeping checksums). An entry without one is read and hashed.
    pub(super) fn digests(&self) -> Result<Option<Vec<u64>>> {
        if !self.sums.on {
            return Ok(None);
        }
        let mut v = Vec::with_capacity(self.entries.len());
        for (i, e) in self.entries.iter().enumerate() {
            let e = e?;
            v.push(match (&e.slot, e.digest) {
                (Slot::Special(_), _) => checksum::SPECIAL_DIGEST,
                (_, Some(d)) => d,
                (_, None) => self.stored_digest(i)?,
            });
        }
        Ok(Some(v))
    }

    /// Whether reads check what they read.
    pub(super) fn verifying(&self) -> bool {
        self.sums.on && !self.sums.skip_reads
    }

    /// Check chunk `i`'s stored bytes, just read, against its digest.
    pub(super) fn check_read(&self, i: usize, stored: &[u8]) -> Result<()> {
        if !self.verifying() {
            return Ok(());
        }
        match self.entries.get(i)?.digest {
            Some(d) if d != checksum::chunk_digest(stored) => Err(crate::traced!(
                ErrorKind::Data,
                "Chunk {i} does not match its checksum: its stored bytes are damaged"
            )),
            _ => Ok(()),
        }
    }

    /// Read every chunk and check it: what a frame's checksums say about it
    /// now. A frame written by this handle with checksums on is sealed.
    pub fn verify(&self) -> VerifyReport {
        let mut r = VerifyReport {
            frame: self.sums.state,
            ..Default::default()
        };
        let n = self.entries.len() as u64;
        if !self.sums.on {
            match r.frame {
                FrameCheck::Stale => r.stale = n,
                _ => r.unverified = n,
            }
            return r;
        }
        for i in 0..self.entries.len() {
            let Ok(e) = self.entries.get(i) else {
                r.corrupt.push(i as u64);
                continue;
            };
            let ok = match (&e.slot, e.digest) {
                (Slot::Special(_), _) => true,
                (_, want) => self
                    .stored_bytes(i)
                    .is_ok_and(|c| Some(checksum::chunk_digest(&c)) == want),
            };
            if ok {
                r.verified += 1;
            } else {
                r.corrupt.push(i as u64);
            }
        }
        r
    }

    /// Note that this handle has written its frame (sealed when checksums
    /// are on).
    pub(super) fn wrote_frame(&mut self) {
        if self.sums.on {
            self.sums.state = FrameCheck::Sealed;
        }
    }
}
