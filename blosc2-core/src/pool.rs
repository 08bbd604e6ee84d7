//! The worker pool a context owns: threads live as long as the context, so no
//! thread is spawned per call. Work is handed out block by block through an
//! atomic counter; each task owns one scratch slot, so nothing is shared
//! mutably between workers.
//!
//! A host may run the workers on threads of its own instead (upstream's
//! `blosc2_set_threads_callback`): see [`set_runner`].

use crate::error::{ErrorKind, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// Runs a pool's workers on threads the host supplies.
pub trait Runner: Send + Sync {
    /// Run `job(w)` for every `w` in `0..njobs`, in any order and possibly
    /// concurrently, and return when they are done. A runner that skips or
    /// repeats jobs, or returns early, costs speed, never correctness: the
    /// work they would have done runs on the caller's thread afterwards.
    fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync));
}

static RUNNER: RwLock<Option<Arc<dyn Runner>>> = RwLock::new(None);

/// Let `runner` run the workers of every pool from now on (None: their own
/// threads again).
pub fn set_runner(runner: Option<Arc<dyn Runner>>) {
    *RUNNER.write().unwrap_or_else(|p| p.into_inner()) = runner;
}

fn runner() -> Option<Arc<dyn Runner>> {
    RUNNER.read().unwrap_or_else(|p| p.into_inner()).clone()
}

pub struct Pool {
    /// Built on first use: with a runner set, no thread is ever started.
    inner: OnceLock<Option<rayon_core::ThreadPool>>,
    nthreads: usize,
    /// Threads do not survive fork(): a child must not wait on its parent's.
    pid: u32,
}

impl Pool {
    fn new(nthreads: usize) -> Pool {
        Pool {
            inner: OnceLock::new(),
            nthreads,
            pid: std::process::id(),
        }
    }

    fn threads(&self) -> Result<&rayon_core::ThreadPool> {
        self.inner
            .get_or_init(|| {
                // the caller is the other one (see `run`)
                rayon_core::ThreadPoolBuilder::new()
                    .num_threads(self.nthreads.saturating_sub(1).max(1))
                    .thread_name(|i| format!("blosc2-worker-{i}"))
                    .build()
                    .ok()
            })
            .as_ref()
            .ok_or(ErrorKind::ThreadCreate)
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
            *slot = Some(Pool::new(nthreads));
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
        let first_err: Mutex<Option<(usize, ErrorKind)>> = Mutex::new(None);
        let fail = |j: usize, e: ErrorKind| {
            failed.store(1, Ordering::Relaxed);
            let mut fe = first_err.lock().unwrap_or_else(|p| p.into_inner());
            if fe.as_ref().is_none_or(|(k, _)| j < *k) {
                *fe = Some((j, e));
            }
        };
        // One worker: take block numbers until none are left.
        let work = |slot: &mut S| {
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
                        fail(j, e);
                        break;
                    }
                }
            }
            collected
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend(local);
        };
        match runner() {
            Some(r) => {
                let slots: Vec<Mutex<&mut S>> = scratch.iter_mut().map(Mutex::new).collect();
                let job = |w: usize| {
                    // a job the host runs twice at once finds its slot taken
                    // and leaves the blocks to the other run
                    let Some(Ok(mut slot)) = slots.get(w).map(|m| m.try_lock()) else {
                        return;
                    };
                    let run = std::panic::AssertUnwindSafe(|| work(&mut slot));
                    if std::panic::catch_unwind(run).is_err() {
                        fail(usize::MAX, ErrorKind::Failure);
                    }
                };
                r.run(slots.len(), &job);
                // Whatever the host left undone (jobs skipped, or still
                // running past its return: their slots are then held) is
                // finished here.
                if next.load(Ordering::Relaxed) < n {
                    if let Some(m) = slots.first() {
                        work(&mut m.lock().unwrap_or_else(|p| p.into_inner()));
                    }
                }
                // a job still running past the host's return holds its slot
                for m in &slots {
                    drop(m.lock().unwrap_or_else(|p| p.into_inner()));
                }
            }
            None => {
                // The calling thread takes blocks too, so only the other
                // workers are woken: the work counter hands whatever they are
                // too late for to the caller, and small jobs need no wake-up
                // at all to finish.
                let Some((own, others)) = scratch.split_first_mut() else {
                    return Err(ErrorKind::Failure);
                };
                if others.is_empty() {
                    work(own);
                } else {
                    let pool = self.threads()?;
                    pool.in_place_scope(|s| {
                        for slot in others.iter_mut() {
                            let work = &work;
                            s.spawn(move |_| work(slot));
                        }
                        work(own);
                    });
                }
            }
        }
        if let Some((_, e)) = first_err.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        let mut v = collected.into_inner().unwrap_or_else(|p| p.into_inner());
        if v.len() != n {
            // blocks lost to a job that panicked
            return Err(ErrorKind::Failure);
        }
        v.sort_unstable_by_key(|(j, _)| *j);
        Ok(v.into_iter().map(|(_, t)| t).collect())
    }
}
