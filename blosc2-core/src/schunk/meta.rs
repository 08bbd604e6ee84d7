//! Metalayers (fixed-size, in the frame header) and vlmetalayers
//! (variable-length, compressed, in the trailer): adding, updating,
//! reading and deleting them.
//!
//! Separate from the chunks: they change the frame's header or trailer
//! only, never the chunk data.

use super::SuperChunk;
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::chunk::{CParams, Compressor};
use crate::error::{ErrorKind, Result};
use crate::metalayers::{self, Metalayer, MAX_METALAYERS};

impl SuperChunk {
    /// Add a fixed-size metalayer; returns its index.
    pub fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        metalayers::check_name(name)?;
        if metalayers::find(&self.metalayers, name).is_some()
            || self.metalayers.len() >= MAX_METALAYERS
        {
            return Err(ErrorKind::InvalidParam);
        }
        // the header of a frame cannot grow once chunk data follows it
        // (the reference refuses too)
        if self.is_frame() && self.cbytes > 0 {
            return Err(ErrorKind::InvalidParam);
        }
        self.metalayers.push(Metalayer {
            name: name.into(),
            content: content.to_vec(),
        });
        if let Err(e) = self.flush() {
            self.metalayers.pop();
            return Err(e);
        }
        Ok(self.metalayers.len() - 1)
    }

    /// Overwrite a metalayer's content in place (it cannot grow, as in the
    /// reference: a longer content is silently ignored).
    pub fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        self.transact(|s| s.meta_update_inner(name, content))
    }

    /// Overwrite a metalayer's content in place (it cannot grow, as in the
    /// reference: a longer content is silently ignored).
    fn meta_update_inner(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        metalayers::check_name(name)?;
        let i = metalayers::find(&self.metalayers, name).ok_or(ErrorKind::NotFound)?;
        if content.len() > self.metalayers[i].content.len() {
            return Ok(i);
        }
        self.metalayers[i].content[..content.len()].copy_from_slice(content);
        self.flush()?;
        Ok(i)
    }

    pub fn vlmeta_add(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        self.transact(|s| s.vlmeta_add_inner(name, content, cparams))
    }

    /// Add a variable-length metalayer, compressed with `cparams` (the
    /// reference defaults when None); returns its index.
    fn vlmeta_add_inner(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        metalayers::check_name(name)?;
        if metalayers::find(&self.vlmetalayers, name).is_some()
            || self.vlmetalayers.len() >= MAX_METALAYERS
        {
            return Err(ErrorKind::InvalidParam);
        }
        let c = compress_vlmeta(content, cparams)?;
        self.vlmetalayers.push(Metalayer {
            name: name.into(),
            content: c,
        });
        if let Err(e) = self.flush() {
            self.vlmetalayers.pop();
            return Err(e);
        }
        Ok(self.vlmetalayers.len() - 1)
    }

    pub fn vlmeta_update(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        self.transact(|s| s.vlmeta_update_inner(name, content, cparams))
    }

    fn vlmeta_update_inner(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        metalayers::check_name(name)?;
        let i = metalayers::find(&self.vlmetalayers, name).ok_or(ErrorKind::NotFound)?;
        let c = compress_vlmeta(content, cparams)?;
        let old = std::mem::replace(&mut self.vlmetalayers[i].content, c);
        if let Err(e) = self.flush() {
            self.vlmetalayers[i].content = old;
            return Err(e);
        }
        Ok(i)
    }

    /// Decompressed content of a variable-length metalayer.
    pub fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>> {
        metalayers::check_name(name)?;
        let i = metalayers::find(&self.vlmetalayers, name).ok_or(ErrorKind::NotFound)?;
        crate::frame::trailer::vlmetalayer_content(&self.vlmetalayers[i].content, &self.dparams)
    }

    /// Delete a variable-length metalayer; returns how many are left.
    pub fn vlmeta_delete(&mut self, name: &str) -> Result<usize> {
        self.transact(|s| s.vlmeta_delete_inner(name))
    }

    /// Delete a variable-length metalayer; returns how many are left.
    fn vlmeta_delete_inner(&mut self, name: &str) -> Result<usize> {
        metalayers::check_name(name)?;
        let i = metalayers::find(&self.vlmetalayers, name).ok_or(ErrorKind::NotFound)?;
        self.vlmetalayers.remove(i);
        self.flush()?;
        Ok(self.vlmetalayers.len())
    }
}

fn compress_vlmeta(content: &[u8], cparams: Option<&CParams>) -> Result<Vec<u8>> {
    let p = cparams.cloned().unwrap_or_default();
    let mut c = Compressor::new(p);
    let mut out = vec![0u8; content.len() + EXTENDED_HEADER_LENGTH];
    let n = c.compress(content, &mut out)?;
    out.truncate(n);
    Ok(out)
}
