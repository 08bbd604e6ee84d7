//! Standard output for reports. `println!` panics when the reader has
//! gone (`b2 info f | head -2`); these return the closed pipe as a
//! [`Fail`] that `main` turns into a quiet exit.

use std::io::{self, Write};

use crate::Fail;

/// What a failed write to standard output (or to an output file) becomes.
pub fn write_err(e: io::Error) -> Fail {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Fail::pipe_closed();
    }
    Fail::msg(format!("write error: {e}"))
}

/// Write `text` to standard output and flush it.
pub fn print(text: &str) -> Result<(), Fail> {
    let mut o = io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|_| o.flush())
        .map_err(write_err)
}

/// `text` and a newline.
pub fn line(text: &str) -> Result<(), Fail> {
    print(&format!("{text}\n"))
}

/// Bytes (a frame) to standard output.
pub fn write_bytes(data: &[u8]) -> Result<(), Fail> {
    let mut o = io::stdout().lock();
    o.write_all(data).and_then(|_| o.flush()).map_err(write_err)
}
