//! How a change reaches a contiguous frame file: the chunks section stays
//! packed, as the reference keeps it (a replaced or deleted chunk's bytes
//! are given back by moving the chunks after it, and the file ends where
//! the frame does), while a change that fails half-way still leaves the
//! previous frame readable.
//!
//! A change is written in two steps. First, everything the frame on disk
//! still uses in the region the new layout is about to overwrite (chunks
//! that move or go away, the old index and trailer) is copied beyond both
//! that region and the old frame's end, with an index pointing at the
//! copies, and the header is pointed there: the file holds the old frame,
//! elsewhere. Then the new layout is written in place and its header last.
//! A failure before that last write leaves a frame with the old content;
//! what the copies took is cut off with the file's end.

use super::{Backing, Entry, Slot, SuperChunk};
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::ChunkHeader;
use crate::error::{ErrorKind, Result};
use crate::frame::header as fh;
use crate::frame::index;
use crate::frame::trailer::{self, TRAILER_MINLEN};
use crate::io::{read_vec, Mode, Stream};

/// Pieces in which spans of a frame file are copied.
const PIECE: usize = 16 << 20;

/// Copy `len` bytes at `from` to `to` (regions that do not overlap) through
/// `buf`.
fn copy_span(s: &mut dyn Stream, from: u64, to: u64, len: u64, buf: &mut Vec<u8>) -> Result<()> {
    let mut done = 0u64;
    while done < len {
        let n = (len - done).min(PIECE as u64) as usize;
        buf.resize(n, 0);
        s.read_exact_at(from + done, &mut buf[..n])?;
        s.write_all_at(to + done, &buf[..n])?;
        done += n as u64;
    }
    Ok(())
}

impl SuperChunk {
    /// The offset in the chunks section of a stored chunk, as a file
    /// position.
    fn file_pos(base: u64, hl: i64, off: i64) -> Result<u64> {
        (base as i64)
            .checked_add(hl)
            .and_then(|v| v.checked_add(off))
            .and_then(|v| u64::try_from(v).ok())
            .ok_or(ErrorKind::FileWrite)
    }

    /// Note that chunk `i` leaves the frame (replaced or deleted): its bytes
    /// are given back at the next flush. A replacement that is itself
    /// stored (`replaced_by_data`) takes the old chunk's place.
    pub(super) fn drop_stored(&mut self, i: usize, replaced_by_data: bool) {
        if let Ok(Entry {
            slot: Slot::Disk(o),
            ..
        }) = self.entries.get(i).as_deref()
        {
            let o = *o;
            self.dropped.push(o);
            if replaced_by_data {
                self.anchor = Some((i, o));
            }
        }
    }

    /// Write the pending changes of a contiguous frame file (see the module
    /// documentation).
    pub(super) fn flush_file(&mut self) -> Result<()> {
        let Backing::File {
            path,
            base,
            header_len: hl,
            data_len: d,
            dead_tail: t,
        } = self.backing.clone()
        else {
            return Err(ErrorKind::Failure);
        };
        // in a batch, chunks that go leave their bytes where they are and
        // nothing moves; the bytes are given back once, at its end
        let deferring = self.batch_depth > 0;
        let (dropped, anchor, gaps) = if deferring {
            (Vec::new(), None, None)
        } else {
            (
                std::mem::take(&mut self.dropped),
                self.anchor.take(),
                self.gaps,
            )
        };
        // A change that only appended entries (the others as the index on
        // disk holds them) encodes only the index's last blocks again and
        // looks only at the new entries, so an append costs the same at
        // any chunk count; anything else reads and encodes all of them.
        let n = self.entries.len();
        if self.appender.is_none() && self.index_appends() {
            // a frame read lazily starts from its index as stored
            // (one that cannot be read is read whole below, failing there)
            self.appender = self.entries.seed_appender().ok().flatten();
        }
        let appender = self.appender.take().filter(|(k, _)| {
            !deferring
                && dropped.is_empty()
                && anchor.is_none()
                && gaps.is_none()
                && self.index_appends()
                && *k <= n
                && self.entries.clean() >= *k
        });
        if appender.is_none() {
            self.entries.vec_mut()?;
        }
        let from = appender.as_ref().map_or(0, |(k, _)| *k);
        let mut stream = self.io.open(&path, Mode::Update)?;
        let s = stream.as_mut();
        let pos = |o: i64| Self::file_pos(base, hl, o);

        // the new layout: chunks before the first change stay; from there
        // on, chunks are packed in their order on disk (a replacement in
        // its predecessor's place), then new chunks, then index and trailer
        let start = dropped
            .iter()
            .copied()
            .chain(gaps.map(|g| g.0))
            .min()
            .unwrap_or(d)
            .min(d);
        let last_change = dropped
            .iter()
            .copied()
            .chain(gaps.map(|g| g.1))
            .max()
            .unwrap_or(-1);
        let mut order: Vec<(i64, usize)> = Vec::new();
        let mut fresh: Vec<usize> = Vec::new();
        for (i, e) in self.entries.iter_from(from).enumerate() {
            let i = i + from;
            match e?.slot {
                Slot::Disk(o) if o >= start => order.push((o, i)),
                Slot::Data(_) => match anchor {
                    Some((a, o)) if a == i => order.push((o, i)),
                    _ => fresh.push(i),
                },
                _ => {}
            }
        }
        order.sort_unstable();
        // (entry, old offset, length, new offset) of chunks that move
        let mut moved: Vec<(usize, i64, i64, i64)> = Vec::new();
        let mut placed: Vec<(usize, i64)> = Vec::new();
        let mut cursor = start;
        // where the chunks that stay as they are begin
        let mut unchanged = d;
        // the length of the chunk stored at frame offset `o`, from its header
        let chunk_len_at = |s: &mut dyn Stream, o: i64| -> Result<i64> {
            let mut hb = [0u8; EXTENDED_HEADER_LENGTH];
            s.read_exact_at(pos(o)?, &mut hb)?;
            Ok(ChunkHeader::read(&hb)?.cbytes as i64)
        };
        // the bytes of the old frame's chunks (those that stay and those
        // that go) from `start` up to `unchanged`: all that step 1 must keep
        // a copy of (freed bytes around them need none)
        let mut live: Option<(i64, i64)> = None;
        for &(o, i) in &order {
            match &self.entries.get(i)?.slot {
                Slot::Data(c) => {
                    placed.push((i, cursor));
                    cursor += c.len() as i64;
                }
                _ => {
                    if o == cursor && o > last_change {
                        // nothing changes from here to the end of the chunks
                        unchanged = o;
                        cursor = d.max(cursor);
                        break;
                    }
                    let len = chunk_len_at(s, o)?;
                    widen(&mut live, o, len)?;
                    if o != cursor {
                        moved.push((i, o, len, cursor));
                    }
                    cursor += len;
                }
            }
        }
        // the chunks this change drops are still the old frame's
        for &o in &dropped {
            if o >= start && o < unchanged {
                let len = chunk_len_at(s, o)?;
                widen(&mut live, o, len)?;
            }
        }
        for &i in &fresh {
            if let Slot::Data(c) = &self.entries.get(i)?.slot {
                placed.push((i, cursor));
                cursor += c.len() as i64;
            }
        }
        let new_d = cursor;
        // the offsets the index is encoded from: all, or those from the
        // appender's last full block on
        let tail_from = appender.as_ref().map_or(0, |(_, a)| a.tail_from());
        let mut offsets = self.stored_offsets(tail_from)?;
        for &(i, _, _, to) in &moved {
            offsets[i - tail_from] = to;
        }
        for &(i, at) in &placed {
            offsets[i - tail_from] = at;
        }
        let mut appender = appender.map(|(_, a)| a);
        let appended = match appender.as_mut() {
            Some(a) => a.encode(n, &offsets)?,
            None => None,
        };
        let p = match appended {
            Some(idx) => self.parts_with_index(idx, new_d)?,
            None => {
                if tail_from > 0 {
                    // (the appender could not tell: encode it all)
                    self.entries.vec_mut()?;
                    offsets = self.stored_offsets(0)?;
                    for &(i, at) in &placed {
                        offsets[i] = at;
                    }
                }
                appender = None;
                self.parts_with(&offsets, false, new_d)?
            }
        };
        if p.header.len() as i64 != hl {
            // metalayers changed size: the whole frame is written anew
            return self.rewrite();
        }
        let new_tail_len = (p.index.len() + p.trailer.len()) as i64;
        let new_end = new_d
            .checked_add(new_tail_len)
            .ok_or(ErrorKind::FileWrite)?;

        // (what a lazily read list of entries still needs of the old index)
        let rebase = self.entries.plan_rebase()?;

        // step 1: what the new layout overwrites of the old frame (its
        // chunks from `start` up to those that stay as they are, with the
        // freed bytes between them but not those before the first or after
        // the last, and its index and trailer), copied out of the way of
        // the new layout and of itself, with the header pointing at the
        // copy. A failed change leaves that frame, whose chunks section
        // ends after the copy, so each failure in a row adds what was live
        // (copying the freed bytes too made each one double the file).
        let (lo, hi) = live.unwrap_or((start, start));
        let scratch = (d + t).max(new_end);
        let shift = scratch - lo;
        let mut buf = Vec::new();
        let span = (hi - lo) as u64;
        // a span this small is kept for step 2 rather than read again
        let kept = span <= (4 * PIECE) as u64;
        if kept {
            buf = read_vec(s, pos(lo)?, span as usize)?;
            s.write_all_at(pos(scratch)?, &buf)?;
        } else {
            copy_span(s, pos(lo)?, pos(scratch)?, span, &mut buf)?;
        }
        let tl = usize::try_from(t).map_err(|_| ErrorKind::FileWrite)?;
        let mut tail = read_vec(s, pos(d)?, tl)?;
        if start < unchanged {
            tail = Self::shifted_index(&tail, start, unchanged, shift)?;
        }
        let tail_at = hi + shift;
        s.write_all_at(pos(tail_at)?, &tail)?;
        // the whole header, metalayers too: it is also what a failed write
        // of the new one is undone with (a metalayer may change in place)
        let mut h = read_vec(
            s,
            base,
            usize::try_from(hl).map_err(|_| ErrorKind::FileWrite)?,
        )?;
        h[fh::pos::CBYTES..fh::pos::CBYTES + 8].copy_from_slice(&tail_at.to_be_bytes());
        fh::set_frame_len(&mut h, hl + tail_at + tail.len() as i64);
        s.write_all_at(base, &h)?;
        self.disk_moved = true;

        // step 2: the new layout, from the copies, then its header; runs of
        // chunks that were and stay next to each other are copied at once
        let mut k = 0;
        while k < moved.len() {
            let (_, from, mut len, to) = moved[k];
            k += 1;
            while k < moved.len() && moved[k].1 == from + len && moved[k].3 == to + len {
                len += moved[k].2;
                k += 1;
            }
            if kept {
                let at = (from - lo) as usize;
                s.write_all_at(pos(to)?, &buf[at..at + len as usize])?;
            } else {
                copy_span(s, pos(from + shift)?, pos(to)?, len as u64, &mut buf)?;
            }
        }
        for &(i, at) in &placed {
            if let Slot::Data(c) = &self.entries.get(i)?.slot {
                s.write_all_at(pos(at)?, c)?;
            }
        }
        // (what the next append starts from, once this is written)
        let ilen = p.index.len();
        let appender = match appender {
            Some(a) => Some(a),
            None if self.index_appends() && !deferring => index::Appender::new(n, &p.index),
            None => None,
        };
        let mut tail = p.index;
        tail.extend_from_slice(&p.trailer);
        s.write_all_at(pos(new_d)?, &tail)?;
        if let Err(e) = s.write_all_at(base, &p.header) {
            // a failed write may still have put some of the new header in
            // place (a short write writes a prefix), making a frame of the
            // change this call reports as failed: put back the one of step
            // 1, whose frame holds the old content (if that fails too, the
            // handle puts it back before its next access to the frame)
            if s.write_all_at(base, &h).is_err() {
                self.torn = Some(super::persist::Torn::new(&path, base, &h, &p.header, None));
            }
            return Err(e);
        }
        self.seen = p.header[..fh::HEADER_MINLEN].to_vec();
        // the frame is complete: what lies beyond is the copies (a failure
        // to cut them only leaves their bytes)
        let _ = s.truncate(pos(new_end)?);
        for &(i, _, _, to) in &moved {
            self.entries.get_mut(i)?.slot = Slot::Disk(to);
        }
        for &(i, at) in &placed {
            self.entries.get_mut(i)?.slot = Slot::Disk(at);
        }
        // what the file holds now is what the next append starts from
        let index_at = hl + new_d;
        self.appender = appender.map(|a| (n, a));
        self.entries.mark_clean();
        if let Some(mut plan) = rebase {
            for &(i, at) in &placed {
                plan.place(i, at);
            }
            let mut src = crate::frame::PartSource {
                at: index_at as u64,
                bytes: &tail[..ilen],
            };
            match index::Lazy::open(&mut src, index_at as u64, ilen as u64, n as u64)? {
                Some(lazy) => {
                    let index_io = self.io.clone();
                    self.entries
                        .rebase(plan, lazy, new_d, || index_io.open(&path, Mode::Read))?;
                }
                // (an index that cannot be read lazily: its entries all
                // in memory)
                None => {
                    let offsets = index::decode(&tail[..ilen], n as i64)?;
                    self.entries = plan.plain(&offsets, self.chunksize)?;
                }
            }
        }
        self.backing = Backing::File {
            path,
            base,
            header_len: hl,
            data_len: new_d,
            dead_tail: new_tail_len,
        };
        if !deferring {
            // freed bytes from `start` on are gone now, those of a failed
            // change or a batch included
            self.cbytes = new_d;
        }
        self.gaps = if deferring {
            let went = std::mem::take(&mut self.dropped);
            let span = went.iter().fold(self.gaps, |g, &o| match g {
                Some((lo, hi)) => Some((lo.min(o), hi.max(o))),
                None => Some((o, o)),
            });
            self.anchor = None;
            span
        } else {
            None
        };
        Ok(())
    }

    /// An index and trailer (`tail`) whose chunk offsets in `start..end`
    /// are moved by `shift`.
    fn shifted_index(tail: &[u8], start: i64, end: i64, shift: i64) -> Result<Vec<u8>> {
        // a frame without chunks has no index: its tail is all trailer
        let last = tail
            .len()
            .checked_sub(TRAILER_MINLEN)
            .ok_or(ErrorKind::InvalidHeader)?;
        let tl = trailer::trailer_len(&tail[last..], i64::MAX)?;
        if tl == tail.len() as i64 {
            return Ok(tail.to_vec());
        }
        let ih = ChunkHeader::read(tail)?;
        let ilen = usize::try_from(ih.cbytes).map_err(|_| ErrorKind::InvalidHeader)?;
        if ilen > tail.len() || ih.nbytes < 0 || ih.nbytes % 8 != 0 {
            return Err(ErrorKind::InvalidHeader);
        }
        let mut offs = index::decode(&tail[..ilen], ih.nbytes as i64 / 8)?;
        for o in offs.iter_mut().filter(|o| (start..end).contains(*o)) {
            *o += shift;
        }
        let mut out = index::encode_with(&offs, &index::Style::Modified)?;
        out.extend_from_slice(&tail[ilen..]);
        Ok(out)
    }

    /// Begin a batch of changes (re-entrant): until the matching
    /// [`Self::end_batch`], chunks that are replaced or deleted leave their
    /// bytes in a frame file and nothing moves, so a change that spans many
    /// chunks costs what its chunks do instead of a pass over the file per
    /// chunk; the file is packed once, when the batch ends. Each change is
    /// still atomic.
    pub fn begin_batch(&mut self) {
        self.batch_depth += 1;
    }

    /// End what [`Self::begin_batch`] began, packing the frame file when the
    /// outermost batch ends. The changes are written already: a failure to
    /// pack only leaves the bytes they freed, given back by the next change
    /// of this handle, so it is not reported.
    pub fn end_batch(&mut self) {
        self.batch_depth = self.batch_depth.saturating_sub(1);
        if self.batch_depth == 0 && self.gaps.is_some() {
            let _ = self.transact(|s| s.flush());
        }
    }

    /// The index entries of a frame file: special offsets, chunk offsets,
    /// and 0 for chunks not written yet (placed by the caller).
    fn stored_offsets(&self, from: usize) -> Result<Vec<i64>> {
        self.entries
            .iter_from(from)
            .map(|e| match e?.slot {
                Slot::Special(k) => Ok(index::special_offset(k)),
                Slot::Disk(o) | Slot::File(o) => Ok(o),
                Slot::Data(_) => Ok(0),
            })
            .collect()
    }
}

/// Widens the byte range `live` to take in `len` bytes at `o`.
fn widen(live: &mut Option<(i64, i64)>, o: i64, len: i64) -> Result<()> {
    let end = o.checked_add(len).ok_or(ErrorKind::FileWrite)?;
    *live = Some(live.map_or((o, end), |(a, b)| (a.min(o), b.max(end))));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{Storage, SuperChunk};
    use crate::chunk::special::make_special;
    use crate::chunk::{CParams, Special};
    use crate::frame::header::FrameHeader;
    use std::path::{Path, PathBuf};

    const NB: usize = 4000;

    /// Chunk data whose compressed size depends on `seed`: from a run of
    /// one value to bytes that do not compress.
    fn data(seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let noisy = (seed % 4) as usize * NB / 4;
        (0..NB)
            .map(|i| {
                if i < noisy {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                } else {
                    (seed as u8).wrapping_add((i / 64) as u8)
                }
            })
            .collect()
    }

    fn new_file(name: &str) -> (PathBuf, SuperChunk) {
        let path = std::env::temp_dir().join(format!("b2rs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let sc = SuperChunk::new(Storage {
            contiguous: true,
            urlpath: Some(path.clone()),
            cparams: CParams {
                typesize: 4,
                ..CParams::default()
            },
            ..Storage::default()
        })
        .unwrap();
        (path, sc)
    }

    fn zeros(sc: &SuperChunk) -> Vec<u8> {
        let mut out = vec![0u8; 64];
        let n = make_special(sc.cparams(), Special::Zero, NB as i32, None, &mut out).unwrap();
        out.truncate(n);
        out
    }

    /// The file holds exactly the frame, and the frame's chunks section
    /// exactly its chunks: what the reference reports as `cbytes` after
    /// opening it is what the chunks take.
    fn assert_packed(sc: &SuperChunk, what: &str) {
        let path = sc.urlpath().unwrap().to_path_buf();
        let bytes = std::fs::read(&path).unwrap();
        let h = FrameHeader::parse(&bytes).unwrap();
        assert_eq!(bytes.len() as i64, h.frame_len, "{what}: file length");
        let stored: i64 = (0..sc.nchunks())
            .map(|i| sc.slot_cbytes(i as usize).unwrap())
            .sum();
        assert_eq!(h.cbytes, stored, "{what}: chunks section");
        assert_eq!(sc.cbytes(), stored, "{what}: cbytes");
    }

    fn assert_reads_back(path: &Path, model: &[Vec<u8>], vl: &[(String, Vec<u8>)], what: &str) {
        let back = SuperChunk::open(path, 0, crate::io::default_backend()).unwrap();
        assert_eq!(back.nchunks() as usize, model.len(), "{what}");
        let mut out = vec![0u8; NB];
        for (i, m) in model.iter().enumerate() {
            back.decompress_chunk(i as i64, &mut out).unwrap();
            assert_eq!(&out, m, "{what}: chunk {i}");
        }
        for (k, v) in vl {
            assert_eq!(&back.vlmeta_get(k).unwrap(), v, "{what}: {k}");
        }
    }

    #[test]
    fn every_change_leaves_the_file_packed() {
        let (path, mut sc) = new_file("packed.b2frame");
        let zeros = zeros(&sc);
        let mut model: Vec<Vec<u8>> = Vec::new();
        let mut vl: Vec<(String, Vec<u8>)> = Vec::new();
        let mut r = 12345u64;
        for step in 0..300u64 {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = (r >> 33) as usize;
            let n = model.len();
            let what = match pick % 10 {
                _ if n < 3 => {
                    sc.append_buffer(&data(step)).unwrap();
                    model.push(data(step));
                    "append"
                }
                0 | 1 => {
                    let i = pick / 10 % n;
                    let c = sc.compress(&data(step)).unwrap();
                    sc.update_chunk(i as i64, &c).unwrap();
                    model[i] = data(step);
                    "update"
                }
                2 => {
                    let i = pick / 10 % n;
                    sc.update_chunk(i as i64, &zeros).unwrap();
                    model[i] = vec![0u8; NB];
                    "update to zeros"
                }
                3 => {
                    let i = pick / 10 % n;
                    sc.delete_chunk(i as i64).unwrap();
                    model.remove(i);
                    "delete"
                }
                4 => {
                    let i = pick / 10 % n;
                    let c = sc.compress(&data(step)).unwrap();
                    sc.insert_chunk(i as i64, &c).unwrap();
                    model.insert(i, data(step));
                    "insert"
                }
                5 => {
                    let order: Vec<i64> = (0..n as i64).rev().collect();
                    sc.reorder(&order).unwrap();
                    model.reverse();
                    "reorder"
                }
                6 => {
                    let name = format!("v{}", pick / 10 % 4);
                    let content = data(step)[..(pick / 40) % 900].to_vec();
                    match vl.iter_mut().find(|(k, _)| *k == name) {
                        Some(slot) => {
                            sc.vlmeta_update(&name, &content, None).unwrap();
                            slot.1 = content;
                        }
                        None => {
                            sc.vlmeta_add(&name, &content, None).unwrap();
                            vl.push((name, content));
                        }
                    }
                    "vlmeta"
                }
                7 if !vl.is_empty() => {
                    let (name, _) = vl.remove(pick / 10 % vl.len());
                    sc.vlmeta_delete(&name).unwrap();
                    "vlmeta delete"
                }
                8 => {
                    // freed bytes wait for the end of the batch
                    sc.begin_batch();
                    for k in 0..4u64 {
                        let i = (pick / 10 + k as usize * 7) % model.len();
                        match k {
                            2 => {
                                sc.update_chunk(i as i64, &zeros).unwrap();
                                model[i] = vec![0u8; NB];
                            }
                            3 if model.len() > 1 => {
                                sc.delete_chunk(i as i64).unwrap();
                                model.remove(i);
                            }
                            _ => {
                                let c = sc.compress(&data(step * 5 + k)).unwrap();
                                sc.update_chunk(i as i64, &c).unwrap();
                                model[i] = data(step * 5 + k);
                            }
                        }
                    }
                    sc.end_batch();
                    "batch"
                }
                _ => {
                    sc.append_buffer(&data(step)).unwrap();
                    model.push(data(step));
                    "append"
                }
            };
            let what = format!("step {step} ({what})");
            assert_packed(&sc, &what);
            if step % 25 == 24 {
                assert_reads_back(&path, &model, &vl, &what);
            }
        }
        let _ = std::fs::remove_file(&path);
    }

    /// A replacement of the same size takes its predecessor's place and
    /// nothing else moves, as in the reference.
    #[test]
    fn a_same_size_replacement_moves_nothing() {
        let (path, mut sc) = new_file("same-size.b2frame");
        // noise compresses to a memcpy'd chunk: every one has one size
        let mut model: Vec<Vec<u8>> = (0..6).map(|n| data(n * 4 + 3)).collect();
        model.iter_mut().for_each(|m| {
            let mut x = m[0] as u64 + 1;
            for b in m.iter_mut() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                *b = (x >> 56) as u8;
            }
        });
        for m in &model {
            sc.append_buffer(m).unwrap();
        }
        let offsets = sc.offsets().unwrap();
        let before = std::fs::read(&path).unwrap();
        let mut fresh = model[4].clone();
        fresh.reverse();
        let c = sc.compress(&fresh).unwrap();
        sc.update_chunk(1, &c).unwrap();
        model[1] = fresh;
        assert_eq!(sc.offsets().unwrap(), offsets);
        let after = std::fs::read(&path).unwrap();
        assert_eq!(after.len(), before.len());
        let (o1, o2) = (offsets[1] as usize, offsets[2] as usize);
        let hl = FrameHeader::parse(&before).unwrap().header_len as usize;
        assert_eq!(after[hl + o2..], before[hl + o2..], "the chunks after it");
        assert_eq!(
            after[hl..hl + o1],
            before[hl..hl + o1],
            "the chunks before it"
        );
        assert_packed(&sc, "same size");
        assert_reads_back(&path, &model, &[], "same size");
        let _ = std::fs::remove_file(&path);
    }

    /// A frame file of `n` chunks, reopened through a backend whose writes
    /// fail when the returned switch says so.
    fn faulty_frame(
        name: &str,
        n: u64,
    ) -> (
        std::path::PathBuf,
        Vec<Vec<u8>>,
        std::sync::Arc<std::sync::Mutex<super::super::tests::Fault>>,
        SuperChunk,
    ) {
        use super::super::tests::{Fault, Faulty};
        use std::sync::{Arc, Mutex};
        let (path, mut sc) = new_file(name);
        let model: Vec<Vec<u8>> = (0..n).map(|n| data(n * 4 + 1)).collect();
        for m in &model {
            sc.append_buffer(m).unwrap();
        }
        drop(sc);
        let fault = Arc::new(Mutex::new(Fault::CallFails { calls: u64::MAX }));
        let io = Arc::new(Faulty {
            fault: fault.clone(),
        });
        let sc = SuperChunk::open(&path, 0, io).unwrap();
        (path, model, fault, sc)
    }

    /// A change that fails once the old frame was moved aside leaves it
    /// there, unpacked; the next change packs it again and counts only the
    /// chunks (found by fuzzing: `cbytes` kept the freed bytes).
    #[test]
    fn the_change_after_a_failed_one_packs_the_file() {
        use super::super::tests::Fault;
        let (path, mut model, fault, mut sc) = faulty_frame("after-failure.b2frame", 6);
        // the old frame's copy and its header are written, the new
        // layout's first write fails
        *fault.lock().unwrap() = Fault::CallFails { calls: 3 };
        assert!(sc.delete_chunk(1).is_err());
        *fault.lock().unwrap() = Fault::CallFails { calls: u64::MAX };
        assert_reads_back(&path, &model, &[], "after the failure");
        sc.vlmeta_add("a", b"after", None).unwrap();
        assert_packed(&sc, "the next change");
        model.truncate(6);
        assert_reads_back(
            &path,
            &model,
            &[("a".into(), b"after".to_vec())],
            "the next change",
        );
        let _ = std::fs::remove_file(&path);
    }

    /// Changes failing in a row (a full disk, retried) each leave the old
    /// frame with a copy of its live chunks past the end; the copy must not
    /// take along the freed bytes of the failures before, or the file
    /// doubles with every attempt (schunk_ops found 21 failed appends
    /// making a 263-byte frame 95 MB).
    #[test]
    fn failed_changes_in_a_row_grow_the_file_by_their_live_chunks_only() {
        use super::super::tests::Fault;
        let (path, model, fault, mut sc) = faulty_frame("failures-in-a-row.b2frame", 3);
        let size = || std::fs::metadata(&path).unwrap().len();
        let live: u64 = (0..3).map(|i| sc.chunk(i).unwrap().len() as u64).sum();
        let before = size();
        let extra = data(99);
        for attempt in 0..20 {
            // the copy and its header are written, the new layout is not
            *fault.lock().unwrap() = Fault::CallFails { calls: 3 };
            assert!(sc.delete_chunk(0).is_err(), "attempt {attempt}");
            *fault.lock().unwrap() = Fault::CallFails { calls: 2 };
            assert!(sc.append_buffer(&extra).is_err(), "attempt {attempt}");
            *fault.lock().unwrap() = Fault::CallFails { calls: u64::MAX };
            assert_reads_back(&path, &model, &[], "after a failure");
        }
        // each failure may add a copy of the live chunks and an index and
        // trailer, nothing that grows with the file
        let bound = before + 40 * (live + 512);
        assert!(
            size() <= bound,
            "{} bytes after 40 failures (bound {bound})",
            size()
        );
        sc.delete_chunk(0).unwrap();
        assert_reads_back(&path, &model[1..], &[], "the change that works");
        assert_packed(&sc, "the change that works");
        let _ = std::fs::remove_file(&path);
    }

    /// Within a batch a frame file only grows (nothing moves); its end
    /// packs it, with every chunk as written.
    #[test]
    fn a_batch_packs_the_file_once_at_its_end() {
        let (path, mut sc) = new_file("batch.b2frame");
        let mut model: Vec<Vec<u8>> = (0..20).map(|n| data(n * 4)).collect();
        for m in &model {
            sc.append_buffer(m).unwrap();
        }
        let size = || std::fs::metadata(&path).unwrap().len();
        sc.begin_batch();
        let mut last = size();
        for (n, m) in model.iter_mut().enumerate() {
            *m = data(n as u64 * 4 + 3);
            let c = sc.compress(m).unwrap();
            sc.update_chunk(n as i64, &c).unwrap();
            let now = size();
            assert!(now > last, "update {n}: {now} after {last}");
            last = now;
        }
        sc.end_batch();
        assert_packed(&sc, "after the batch");
        assert!(size() < last);
        assert_reads_back(&path, &model, &[], "after the batch");
        // a batch that empties the frame
        sc.begin_batch();
        while sc.nchunks() > 0 {
            sc.delete_chunk(0).unwrap();
        }
        sc.end_batch();
        assert_packed(&sc, "emptied");
        assert_reads_back(&path, &[], &[], "emptied");
        let _ = std::fs::remove_file(&path);
    }
}
