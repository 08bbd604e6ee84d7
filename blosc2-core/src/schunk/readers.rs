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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Dummy;
    impl Stream for Dummy {
        fn size(&mut self) -> Result<u64> {
            Ok(0)
        }
        fn read_exact_at(&mut self, _: u64, _: &mut [u8]) -> Result<()> {
            Ok(())
        }
        fn write_all_at(&mut self, _: u64, _: &[u8]) -> Result<()> {
            Ok(())
        }
        fn truncate(&mut self, _: u64) -> Result<()> {
            Ok(())
        }
    }

    fn idle(r: &Readers) -> usize {
        r.0.lock().unwrap().streams.len()
    }

    #[test]
    fn a_busy_stream_makes_the_next_reader_open_another() {
        let opened = AtomicUsize::new(0);
        let open = || -> Result<Box<dyn Stream>> {
            opened.fetch_add(1, Ordering::Relaxed);
            Ok(Box::new(Dummy))
        };
        let r = Readers::default();
        r.with(open, |_| r.with(open, |_| Ok(()))).unwrap();
        assert_eq!(opened.load(Ordering::Relaxed), 2);
        assert_eq!(idle(&r), 2);
        // kept streams serve the next readers
        r.with(open, |_| r.with(open, |_| Ok(()))).unwrap();
        assert_eq!(opened.load(Ordering::Relaxed), 2);
        // one taken before the file changed is not kept
        r.with(open, |_| r.forget()).unwrap();
        assert_eq!(idle(&r), 0);
        r.keep(Box::new(Dummy)).unwrap();
        r.forget_if(|_| false).unwrap();
        assert_eq!(idle(&r), 1);
        r.forget_if(|_| true).unwrap();
        assert_eq!(idle(&r), 0);
    }

    #[test]
    fn a_failed_open_or_read_is_the_readers_error() {
        let r = Readers::default();
        let e = r.with(|| Err(ErrorKind::FileOpen), |_| Ok(()));
        assert_eq!(e.unwrap_err(), ErrorKind::FileOpen);
        let e: Result<()> = r.with(|| Ok(Box::new(Dummy)), |_| Err(ErrorKind::FileRead));
        assert_eq!(e.unwrap_err(), ErrorKind::FileRead);
        assert_eq!(idle(&r), 1);
    }
}
