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
use crate::error::{Error, Result};
use crate::frame::header as fh;
use crate::frame::index;
use crate::io::{read_vec, Mode, Stream};

/// A chunk of the frame on disk that the new layout puts elsewhere (or
/// drops): where it is, its length, and where it goes (None when dropped).
struct Moved {
    from: i64,
    len: i64,
    to: Option<i64>,
    entry: Option<usize>,
}

impl SuperChunk {
    /// The offset in the chunks section of a stored chunk, as a file
    /// position.
    fn file_pos(base: u64, hl: i64, off: i64) -> Result<u64> {
        (base as i64)
            .checked_add(hl)
            .and_then(|v| v.checked_add(off))
            .and_then(|v| u64::try_from(v).ok())
            .ok_or(Error::FileWrite)
    }

    /// Note that chunk `i` leaves the frame (replaced or deleted): its bytes
    /// are given back at the next flush. A replacement that is itself
    /// stored (`replaced_by_data`) takes the old chunk's place.
    pub(super) fn drop_stored(&mut self, i: usize, replaced_by_data: bool) {
        if let Slot::Disk(o) = self.entries[i].slot {
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
            return Err(Error::Failure);
        };
        let dropped = std::mem::take(&mut self.dropped);
        let anchor = self.anchor.take();
        let mut s = self.io.open(&path, Mode::Update)?;
        let s = s.as_mut();
        let len_at = |s: &mut dyn Stream, o: i64| -> Result<i64> {
            let h = read_vec(s, Self::file_pos(base, hl, o)?, EXTENDED_HEADER_LENGTH)?;
            Ok(ChunkHeader::read(&h)?.cbytes as i64)
        };

        // the new layout: chunks before the first change stay; from there
        // on, chunks are packed in their order on disk (a replacement in
        // its predecessor's place), then new chunks, then index and trailer
        let start = dropped.iter().copied().min().unwrap_or(d).min(d);
        let last_change = dropped.iter().copied().max().unwrap_or(-1);
        let mut order: Vec<(i64, usize)> = Vec::new();
        let mut fresh: Vec<usize> = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            match e.slot {
                Slot::Disk(o) if o >= start => order.push((o, i)),
                Slot::Data(_) => match anchor {
                    Some((a, o)) if a == i => order.push((o, i)),
                    _ => fresh.push(i),
                },
                _ => {}
            }
        }
        order.sort_unstable();
        let mut moved: Vec<Moved> = Vec::new();
        let mut placed: Vec<(usize, i64)> = Vec::new();
        let mut cursor = start;
        for &(o, i) in &order {
            match &self.entries[i].slot {
                Slot::Data(c) => {
                    placed.push((i, cursor));
                    cursor += c.len() as i64;
                }
                _ => {
                    if o == cursor && o > last_change {
                        // nothing changes from here to the end of the chunks
                        cursor = d.max(cursor);
                        break;
                    }
                    let len = len_at(s, o)?;
                    if o != cursor {
                        moved.push(Moved {
                            from: o,
                            len,
                            to: Some(cursor),
                            entry: Some(i),
                        });
                    }
                    cursor += len;
                }
            }
        }
        for &i in &fresh {
            if let Slot::Data(c) = &self.entries[i].slot {
                placed.push((i, cursor));
                cursor += c.len() as i64;
            }
        }
        for &o in &dropped {
            let len = len_at(s, o)?;
            moved.push(Moved {
                from: o,
                len,
                to: None,
                entry: None,
            });
        }
        let new_d = cursor;
        let mut offsets = self.stored_offsets()?;
        for m in &moved {
            if let (Some(i), Some(to)) = (m.entry, m.to) {
                offsets[i] = to;
            }
        }
        for &(i, at) in &placed {
            offsets[i] = at;
        }
        let p = self.parts_with(&offsets, false, new_d)?;
        if p.header.len() as i64 != hl {
            // metalayers changed size: the whole frame is written anew
            return self.rewrite();
        }
        let new_tail_len = (p.index.len() + p.trailer.len()) as i64;
        let new_end = new_d.checked_add(new_tail_len).ok_or(Error::FileWrite)?;

        // step 1: the old frame, moved out of the way
        let scratch = (d + t).max(new_end);
        let mut copies = self.keep_old_frame(s, base, hl, d, t, &moved, scratch)?;
        self.disk_moved = true;
        copies.sort_unstable();

        // step 2: the new layout, then its header
        for m in &moved {
            if let Some(to) = m.to {
                let from = copies
                    .binary_search_by_key(&m.from, |c| c.0)
                    .map_or(m.from, |k| copies[k].1);
                let len = usize::try_from(m.len).map_err(|_| Error::FileWrite)?;
                let bytes = read_vec(s, Self::file_pos(base, hl, from)?, len)?;
                s.write_all_at(Self::file_pos(base, hl, to)?, &bytes)?;
            }
        }
        for &(i, at) in &placed {
            if let Slot::Data(c) = &self.entries[i].slot {
                s.write_all_at(Self::file_pos(base, hl, at)?, c)?;
            }
        }
        let mut tail = p.index;
        tail.extend_from_slice(&p.trailer);
        s.write_all_at(Self::file_pos(base, hl, new_d)?, &tail)?;
        s.write_all_at(base, &p.header)?;
        self.seen = p.header[..fh::HEADER_MINLEN].to_vec();
        // the frame is complete: what lies beyond is the copies (a failure
        // to cut them only leaves their bytes)
        let _ = s.truncate(Self::file_pos(base, hl, new_end)?);
        for m in &moved {
            if let (Some(i), Some(to)) = (m.entry, m.to) {
                self.entries[i].slot = Slot::Disk(to);
            }
        }
        for &(i, at) in &placed {
            self.entries[i].slot = Slot::Disk(at);
        }
        self.backing = Backing::File {
            path,
            base,
            header_len: hl,
            data_len: new_d,
            dead_tail: new_tail_len,
        };
        Ok(())
    }

    /// Step 1 of a flush: copy the chunks in `moved` and the old index and
    /// trailer (`t` bytes at `d`) to `scratch` onwards, and point the
    /// header there. Returns where each chunk's copy is.
    #[allow(clippy::too_many_arguments)]
    fn keep_old_frame(
        &self,
        s: &mut dyn Stream,
        base: u64,
        hl: i64,
        d: i64,
        t: i64,
        moved: &[Moved],
        scratch: i64,
    ) -> Result<Vec<(i64, i64)>> {
        let mut at = scratch;
        let mut copies = Vec::with_capacity(moved.len());
        for m in moved {
            let len = usize::try_from(m.len).map_err(|_| Error::FileWrite)?;
            let bytes = read_vec(s, Self::file_pos(base, hl, m.from)?, len)?;
            s.write_all_at(Self::file_pos(base, hl, at)?, &bytes)?;
            copies.push((m.from, at));
            at += m.len;
        }
        let tl = usize::try_from(t).map_err(|_| Error::FileWrite)?;
        let mut tail = read_vec(s, Self::file_pos(base, hl, d)?, tl)?;
        if !copies.is_empty() {
            // the old index must name the copies: re-encode it
            let mut sorted = copies.clone();
            sorted.sort_unstable();
            let ih = ChunkHeader::read(&tail)?;
            let ilen = usize::try_from(ih.cbytes).map_err(|_| Error::InvalidHeader)?;
            if ilen > tail.len() || ih.nbytes < 0 || ih.nbytes % 8 != 0 {
                return Err(Error::InvalidHeader);
            }
            let mut offs = index::decode(&tail[..ilen], ih.nbytes as i64 / 8)?;
            for o in offs.iter_mut() {
                if let Ok(k) = sorted.binary_search_by_key(o, |c| c.0) {
                    *o = sorted[k].1;
                }
            }
            let mut fresh = index::encode_with(&offs, &index::Style::Modified)?;
            fresh.extend_from_slice(&tail[ilen..]);
            tail = fresh;
        }
        s.write_all_at(Self::file_pos(base, hl, at)?, &tail)?;
        let mut h = read_vec(s, base, fh::HEADER_MINLEN)?;
        h[fh::pos::CBYTES..fh::pos::CBYTES + 8].copy_from_slice(&at.to_be_bytes());
        fh::set_frame_len(&mut h, hl + at + tail.len() as i64);
        s.write_all_at(base, &h)?;
        Ok(copies)
    }

    /// The index entries of a frame file: special offsets, chunk offsets,
    /// and 0 for chunks not written yet (placed by the caller).
    fn stored_offsets(&self) -> Result<Vec<i64>> {
        self.entries
            .iter()
            .map(|e: &Entry| match e.slot {
                Slot::Special(k) => Ok(index::special_offset(k)),
                Slot::Disk(o) | Slot::File(o) => Ok(o),
                Slot::Data(_) => Ok(0),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Storage, SuperChunk};
    use crate::chunk::special::make_special;
    use crate::chunk::{CParams, Special};
    use crate::frame::header::FrameHeader;

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

    #[test]
    fn every_change_leaves_the_file_packed() {
        let path = std::env::temp_dir().join(format!("b2rs-{}-packed.b2frame", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let cp = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let mut sc = SuperChunk::new(Storage {
            contiguous: true,
            urlpath: Some(path.clone()),
            cparams: cp.clone(),
            ..Storage::default()
        })
        .unwrap();
        let zeros = {
            let mut out = vec![0u8; 64];
            let n = make_special(&cp, Special::Zero, NB as i32, None, &mut out).unwrap();
            out.truncate(n);
            out
        };
        let mut model: Vec<Vec<u8>> = Vec::new();
        let mut vl: Vec<(String, Vec<u8>)> = Vec::new();
        let mut r = 12345u64;
        for step in 0..300u64 {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = (r >> 33) as usize;
            let n = model.len();
            let what = match pick % 9 {
                _ if n < 3 => {
                    sc.append_buffer(&data(step)).unwrap();
                    model.push(data(step));
                    "append"
                }
                0 | 1 => {
                    let i = pick / 9 % n;
                    let c = sc.compress(&data(step)).unwrap();
                    sc.update_chunk(i as i64, &c).unwrap();
                    model[i] = data(step);
                    "update"
                }
                2 => {
                    let i = pick / 9 % n;
                    sc.update_chunk(i as i64, &zeros).unwrap();
                    model[i] = vec![0u8; NB];
                    "update to zeros"
                }
                3 => {
                    let i = pick / 9 % n;
                    sc.delete_chunk(i as i64).unwrap();
                    model.remove(i);
                    "delete"
                }
                4 => {
                    let i = pick / 9 % n;
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
                    let name = format!("v{}", pick / 9 % 4);
                    let content = data(step)[..(pick / 36) % 900].to_vec();
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
                    let (name, _) = vl.remove(pick / 9 % vl.len());
                    sc.vlmeta_delete(&name).unwrap();
                    "vlmeta delete"
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
                let back = SuperChunk::open(&path, 0, crate::io::default_backend()).unwrap();
                assert_eq!(back.nchunks() as usize, model.len(), "{what}");
                let mut out = vec![0u8; NB];
                for (i, m) in model.iter().enumerate() {
                    back.decompress_chunk(i as i64, &mut out).unwrap();
                    assert_eq!(&out, m, "{what}: chunk {i}");
                }
                for (k, v) in &vl {
                    assert_eq!(&back.vlmeta_get(k).unwrap(), v, "{what}: {k}");
                }
                assert_eq!(back.cbytes(), sc.cbytes(), "{what}: cbytes read back");
            }
        }
        let _ = std::fs::remove_file(&path);
    }
}
