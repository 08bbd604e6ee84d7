//! The read streams of a frame file, shared by the threads reading its
//! chunks.
//!
//! One stream behind one lock made chunk reads from several threads take
//! turns: with 32 KiB chunks read and decoded side by side, the two
//! threads spent their time waking each other on that lock and ran no
//! faster than one. Each reader now takes a stream of its own (opening
//! another when all are busy) and gives it back afterwards, so the lock
//! is held only to take or return one. Upstream opens the file for every
//! read, so a user I/O backend already sees several streams at once.

use crate::error::{ErrorKind, Result};
use crate::io::Stream;
use std::sync::Mutex;

/// Idle streams kept for later reads: as many as were ever busy at once,
/// up to this many file descriptors.
const MAX_IDLE: usize = 8;

#[derive(Default)]
pub(super) struct Readers(Mutex<Idle>);

#[derive(Default)]
struct Idle {
    /// Bumped when the kept streams are forgotten, so a stream taken
    /// before that is not kept when given back.
    generation: u64,
    streams: Vec<Box<dyn Stream>>,
}

impl Readers {
    /// Run `f` on an idle stream, or on a new one from `open`.
    pub(super) fn with<T>(
        &self,
        open: impl FnOnce() -> Result<Box<dyn Stream>>,
        f: impl FnOnce(&mut dyn Stream) -> Result<T>,
    ) -> Result<T> {
        let (taken, generation) = {
            let mut g = self.0.lock().map_err(|_| ErrorKind::Failure)?;
            (g.streams.pop(), g.generation)
        };
        let mut s = match taken {
            Some(s) => s,
            None => open()?,
        };
        let r = f(s.as_mut());
        self.give_back(s, generation);
        r
    }

    /// Keep `s` for later reads (a stream opened elsewhere, or one taken
    /// at `generation`).
    fn give_back(&self, s: Box<dyn Stream>, generation: u64) {
        if let Ok(mut g) = self.0.lock() {
            if g.generation == generation && g.streams.len() < MAX_IDLE {
                g.streams.push(s);
            }
        }
    }

    /// Keep `s`, already open on the file, for the first read.
    pub(super) fn keep(&self, s: Box<dyn Stream>) -> Result<()> {
        let generation = self.0.lock().map_err(|_| ErrorKind::Failure)?.generation;
        self.give_back(s, generation);
        Ok(())
    }

    /// Forget every stream (the file was rewritten or replaced): later
    /// reads open it again.
    pub(super) fn forget(&self) -> Result<()> {
        let mut g = self.0.lock().map_err(|_| ErrorKind::Failure)?;
        g.generation = g.generation.wrapping_add(1);
        g.streams.clear();
        Ok(())
    }

    /// Forget every stream when `stale` says one reads another file than
    /// the path names now.
    pub(super) fn forget_if(&self, mut stale: impl FnMut(&mut dyn Stream) -> bool) -> Result<()> {
        let any = {
            let mut g = self.0.lock().map_err(|_| ErrorKind::Failure)?;
            g.streams.iter_mut().any(|s| stale(s.as_mut()))
        };
        if any {
            self.forget()?;
        }
        Ok(())
    }
}
