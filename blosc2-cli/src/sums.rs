//! Frame checksums (docs/checksums.md) in words and JSON, for `verify`,
//! `info` and the writers.

use blosc2_core::error::ErrorKind;
use blosc2_core::frame::checksum::{Damage, Verdict};
use blosc2_core::schunk::{FrameCheck, SuperChunk, VerifyReport};
use serde_json::{json, Value};

/// Corrupt chunk numbers listed in a text line; JSON lists them all.
const LIST_MAX: usize = 10;

/// The state's name (as in JSON "state") and, for a corrupt frame, what
/// is damaged (JSON "damage").
pub(crate) fn state(c: FrameCheck) -> (&'static str, Option<&'static str>) {
    match c {
        FrameCheck::Unverified => ("unverified", None),
        FrameCheck::Stale => ("stale", None),
        FrameCheck::Sealed => ("sealed", None),
        FrameCheck::MetalayersChanged => ("metalayers changed", None),
        FrameCheck::Corrupt(d) => ("corrupt", Some(damage(d))),
    }
}

fn damage(d: Damage) -> &'static str {
    match d {
        Damage::Seal => "seal",
        Damage::Header => "header",
        Damage::ChunkCount => "chunk count",
    }
}

/// What the state means, for people (None: "sealed" says it).
fn note(c: FrameCheck) -> Option<&'static str> {
    Some(match c {
        FrameCheck::Sealed => return None,
        FrameCheck::Unverified => "no checksums; nothing checked",
        FrameCheck::Stale => "changed by a writer without checksums; nothing checked",
        FrameCheck::MetalayersChanged => {
            "sealed, but a metalayer was rewritten in place by a writer without checksums; \
             not data corruption"
        }
        FrameCheck::Corrupt(Damage::Seal) => {
            "the chunk index, the checksum table or the trailer is damaged"
        }
        FrameCheck::Corrupt(Damage::Header) => "the frame header's fields are damaged",
        FrameCheck::Corrupt(Damage::ChunkCount) => {
            "the checksum table and the chunk index disagree on the number of chunks"
        }
    })
}

/// `sealed`, `stale (changed by ...)`, `corrupt: seal (the chunk ...)`.
pub(crate) fn describe(c: FrameCheck) -> String {
    let (name, dmg) = state(c);
    let mut s = match dmg {
        Some(d) => format!("{name}: {d}"),
        None => name.to_string(),
    };
    if let Some(n) = note(c) {
        s += &format!(" ({n})");
    }
    s
}

/// The frame state a frame's layout gives, before any chunk is read.
pub(crate) fn from_verdict(v: &Verdict) -> FrameCheck {
    match v {
        Verdict::Unverified => FrameCheck::Unverified,
        Verdict::Stale(_) => FrameCheck::Stale,
        Verdict::Corrupt(d) => FrameCheck::Corrupt(*d),
        Verdict::Sealed {
            metalayers_changed: true,
            ..
        } => FrameCheck::MetalayersChanged,
        Verdict::Sealed { .. } => FrameCheck::Sealed,
    }
}

/// The number of chunks the frame's checksum table describes (None: no
/// table that reads).
pub(crate) fn table_chunks(v: &Verdict) -> Option<usize> {
    match v {
        Verdict::Stale(t) | Verdict::Sealed { table: t, .. } => Some(t.digests.len()),
        _ => None,
    }
}

/// `verify`'s text: `sealed: 3 verified, 1 corrupt (chunk 2)`.
pub(crate) fn report_text(r: &VerifyReport) -> String {
    let mut counts = Vec::new();
    if r.verified > 0 {
        counts.push(format!("{} verified", r.verified));
    }
    if !r.corrupt.is_empty() {
        let mut list: Vec<String> = r
            .corrupt
            .iter()
            .take(LIST_MAX)
            .map(u64::to_string)
            .collect();
        if r.corrupt.len() > LIST_MAX {
            list.push(format!("and {} more", r.corrupt.len() - LIST_MAX));
        }
        let which = if r.corrupt.len() == 1 {
            "chunk"
        } else {
            "chunks"
        };
        counts.push(format!(
            "{} corrupt ({which} {})",
            r.corrupt.len(),
            list.join(", ")
        ));
    }
    if r.stale > 0 {
        counts.push(format!("{} stale", r.stale));
    }
    if r.unverified > 0 {
        counts.push(format!("{} unverified", r.unverified));
    }
    if counts.is_empty() {
        counts.push("0 chunks".into());
    }
    format!("{}: {}", describe(r.frame), counts.join(", "))
}

/// `verify --json`'s "checksums" object.
pub(crate) fn report_json(r: &VerifyReport) -> Value {
    let (name, dmg) = state(r.frame);
    json!({
        "state": name,
        "damage": dmg,
        "verified": r.verified,
        "corrupt": r.corrupt,
        "stale": r.stale,
        "unverified": r.unverified,
    })
}

/// What a failed read of chunk `i` of `sc` says: a frame with checksums
/// fails reads of chunks that do not match their digest with `Data`.
pub(crate) fn read_error(sc: &SuperChunk, i: i64, e: ErrorKind) -> String {
    if sc.checksums() && e == ErrorKind::Data {
        format!(
            "chunk {i}: does not match its checksum: its stored bytes are damaged \
             (b2 verify lists every damaged chunk)"
        )
    } else {
        format!("chunk {i}: {e}")
    }
}
