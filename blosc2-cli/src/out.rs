//! Standard output for reports, and standard error for messages.
//! `println!` and `eprintln!` panic when the reader has gone (`b2 info f |
//! head -2`); stdout's closed pipe becomes a [`Fail`] that `main` turns
//! into an exit without a message (status 141, as for `cat`), and
//! stderr's is ignored.

use std::io::{self, Write};

use crate::Fail;

/// What a failed write to standard output (or to an output file) becomes.
pub(crate) fn write_err(e: io::Error) -> Fail {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Fail::pipe_closed();
    }
    Fail::msg(format!("write error: {e}"))
}

/// Write `text` to standard output and flush it.
pub(crate) fn print(text: &str) -> Result<(), Fail> {
    let mut o = io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|_| o.flush())
        .map_err(write_err)
}

/// `text` and a newline.
pub(crate) fn line(text: &str) -> Result<(), Fail> {
    print(&format!("{text}\n"))
}

/// Bytes (a frame) to standard output.
pub(crate) fn write_bytes(data: &[u8]) -> Result<(), Fail> {
    let mut o = io::stdout().lock();
    o.write_all(data).and_then(|_| o.flush()).map_err(write_err)
}

/// A message line on standard error. Failing to write it is ignored: a
/// closed stderr (`2>&1 | head -1`) must not turn a finished job into a
/// panic, and the exit status still tells the outcome.
pub(crate) fn note(text: &str) {
    let mut e = io::stderr().lock();
    let _ = e.write_all(format!("{text}\n").as_bytes());
}
