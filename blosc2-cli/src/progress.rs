//! A progress bar on stderr for long work, drawn only when stderr is a
//! terminal so that scripts and logs never see it.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A bar over `total` bytes (or chunks when `bytes` is false).
pub(crate) fn bar(total: u64, bytes: bool, enabled: bool, what: &str) -> ProgressBar {
    // small jobs finish before a bar would help
    if !enabled || !std::io::stderr().is_terminal() || (bytes && total < (64 << 20)) {
        return ProgressBar::hidden();
    }
    let template = if bytes {
        "{msg} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})"
    } else {
        "{msg} [{bar:40}] {pos}/{len} chunks ({eta})"
    };
    let pb = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(what.to_string());
    pb
}
