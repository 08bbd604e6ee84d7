//! The worker pool a context owns: threads live as long as the context, so no
//! thread is spawned per call. Work is handed out block by block through an
//! atomic counter; each task owns one scratch slot, so nothing is shared
//! mutably between workers.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub struct Pool {
    inner: rayon_core::ThreadPool,
    nthreads: usize,
    /// Threads do not survive fork(): a child must not wait on its parent's.
    pid: u32,
}

impl Pool {
    fn new(nthreads: usize) -> Result<Pool> {
        let inner = rayon_core::ThreadPoolBuilder::new()
            .num_threads(nthreads)
            .thread_name(|i| format!("blosc2-worker-{i}"))
            .build()
            .map_err(|_| Error::ThreadCreate)?;
        Ok(Pool {
            inner,
            nthreads,
            pid: std::process::id(),
        })
    }

    /// The pool in `slot`, (re)built when missing, sized differently, or
    /// inherited through fork().
    pub fn ensure(slot: &mut Option<Pool>, nthreads: usize) -> Result<&Pool> {
        let pid = std::process::id();
        let stale = match slot {
            Some(p) => p.nthreads != nthreads || p.pid != pid,
            None => true,
        };
        if stale {
            if let Some(old) = slot.take() {
                if old.pid != pid {
                    // Its threads do not exist in this process; dropping it
                    // would only message ghosts, so let it go silently.
                    std::mem::forget(old);
                }
            }
            *slot = Some(Pool::new(nthreads)?);
        }
        Ok(slot.as_ref().expect("pool was just set"))
    }

    /// Run `f(j, scratch)` for every j in 0..n across the pool, one scratch
    /// slot per task. Results come back in index order; the first error wins.
    pub fn run<S, T, F>(&self, n: usize, scratch: &mut [S], f: F) -> Result<Vec<T>>
    where
        S: Send,
        T: Send,
        F: Fn(usize, &mut S) -> Result<T> + Sync,
    {
        let next = AtomicUsize::new(0);
        let failed = AtomicUsize::new(0);
        let collected: Mutex<Vec<(usize, T)>> = Mutex::new(Vec::with_capacity(n));
        let first_err: Mutex<Option<(usize, Error)>> = Mutex::new(None);
        self.inner.scope(|s| {
            for slot in scratch.iter_mut() {
                let (next, failed, collected, first_err, f) =
                    (&next, &failed, &collected, &first_err, &f);
                s.spawn(move |_| {
                    let mut local = Vec::new();
                    loop {
                        if failed.load(Ordering::Relaxed) != 0 {
                            break;
                        }
                        let j = next.fetch_add(1, Ordering::Relaxed);
                        if j >= n {
                            break;
                        }
                        match f(j, slot) {
                            Ok(v) => local.push((j, v)),
                            Err(e) => {
                                failed.store(1, Ordering::Relaxed);
                                let mut fe = first_err.lock().unwrap_or_else(|p| p.into_inner());
                                if fe.as_ref().is_none_or(|(k, _)| j < *k) {
                                    *fe = Some((j, e));
                                }
                                break;
                            }
                        }
                    }
                    collected
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .extend(local);
                });
            }
        });
        if let Some((_, e)) = first_err.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        let mut v = collected.into_inner().unwrap_or_else(|p| p.into_inner());
        v.sort_unstable_by_key(|(j, _)| *j);
        Ok(v.into_iter().map(|(_, t)| t).collect())
    }
}
