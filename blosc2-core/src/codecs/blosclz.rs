//! BloscLZ, the FastLZ-derived codec that Blosc ships as its default.
//!
//! # Stream format
//!
//! A stream is a sequence of byte-aligned tokens, each introduced by a control
//! byte `ctrl`:
//!
//! * `ctrl < 32`: a literal run of `ctrl + 1` bytes (1..=32) that follow verbatim.
//! * `ctrl >= 32`: a back-reference. `ctrl >> 5` (1..=7) is the length code and
//!   `ctrl & 31` the high bits of the distance. Code 7 means "long": extension
//!   bytes follow and are summed while they equal 255. Then comes the low distance
//!   byte. Copy length is `code + 2` (short) or `9 + sum` (long); the distance is
//!   `(high << 8 | low) + 1`. The pair high = 31, low = 255 instead announces a
//!   far match whose distance is a big-endian `u16` that follows, plus 8192.
//!
//! The first token is always a literal run; its control byte carries bit 5 as a
//! format marker, which the decoder masks off.
//!
//! The encoder reproduces the reference implementation (C-Blosc2 3.3.5) byte for
//! byte, including its entropy probe that gives up early on data that would not
//! compress well enough for the requested level. Byte identity matters because
//! chunk sizes must match what the reference produces.

use crate::error::{ErrorKind, Result};

/// Longest literal run one control byte can describe.
const MAX_COPY: usize = 32;
/// Near matches store (distance - 1) in 13 bits, minus one reserved escape value.
const MAX_DISTANCE: usize = 8191;
/// Matches at this distance or beyond are never emitted (16-bit far offset limit).
const MAX_FARDISTANCE: usize = 65535 + MAX_DISTANCE - 1;
/// The reference pulls a match's end back by this much from one past its
/// first mismatch; with the two bytes the length bias adds back, an emitted
/// match stops one byte short of the mismatch.
const IPSHIFT: usize = 4;
/// Below these sizes the reference refuses to compress at all.
const MIN_INPUT: usize = 16;
const MIN_OUTPUT: usize = 66;

/// Minimal compression ratio the entropy probe must predict, per clevel.
const MIN_CRATIO: [f64; 10] = [0.0, 2.0, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0];

/// Compress `input` at `clevel` (1..=9) into `output`.
///
/// Returns the number of bytes written, or 0 when the data is not worth
/// compressing or does not fit: exactly when the reference `blosclz_compress`
/// returns 0 with `maxout = output.len()`. Levels above 9 behave as 9; level 0
/// never compresses.
pub fn compress(clevel: u8, input: &[u8], output: &mut [u8]) -> usize {
    if clevel == 0 || input.len() > i32::MAX as usize {
        return 0;
    }
    let clevel = usize::from(clevel.min(9));
    // Lower levels use smaller hash tables: cheaper to clear, more collisions.
    match clevel {
        1 => compress_level::<{ 1 << 12 }, { (1 << 12) + 8 }, false>(clevel, input, output),
        2 => compress_level::<{ 1 << 13 }, { (1 << 13) + 8 }, false>(clevel, input, output),
        9 => compress_level::<{ 1 << 14 }, { (1 << 14) + 8 }, true>(clevel, input, output),
        _ => compress_level::<{ 1 << 14 }, { (1 << 14) + 8 }, false>(clevel, input, output),
    }
}

/// Multiplicative hash of four bytes into a table of `N` (a power of two) slots.
#[inline(always)]
fn hash<const N: usize>(seq: u32) -> usize {
    (seq.wrapping_mul(2_654_435_761) >> (32 - N.trailing_zeros())) as usize
}

#[inline(always)]
fn read_u32(src: &[u8], pos: usize) -> u32 {
    u32::from_le_bytes(src[pos..pos + 4].try_into().unwrap())
}

#[inline(always)]
fn read_u64(src: &[u8], pos: usize) -> u64 {
    u64::from_le_bytes(src[pos..pos + 8].try_into().unwrap())
}

/// Extends a match whose first bytes at `p` and `r` (`r < p`) are known equal.
///
/// Returns one past the first mismatching position at or after `p`, capped at
/// `bound`: the reference's match scanners all reduce to this value, whatever
/// vector width they use.
#[inline(always)]
fn match_end(src: &[u8], mut p: usize, mut r: usize, bound: usize) -> usize {
    let src = &src[..bound];
    while p + 16 <= src.len() {
        let a = u128::from_le_bytes(src[p..p + 16].try_into().unwrap());
        let b = u128::from_le_bytes(src[r..r + 16].try_into().unwrap());
        let x = a ^ b;
        if x != 0 {
            return p + (x.trailing_zeros() / 8) as usize + 1;
        }
        p += 16;
        r += 16;
    }
    if p + 8 <= src.len() {
        let x = read_u64(src, p) ^ read_u64(src, r);
        if x != 0 {
            return p + (x.trailing_zeros() / 8) as usize + 1;
        }
        p += 8;
        r += 8;
    }
    while p < src.len() {
        if src[p] != src[r] {
            return p + 1;
        }
        p += 1;
        r += 1;
    }
    bound
}

/// How many positions the probe scans between two early-exit checks.
const PROBE_CHECK_EVERY: usize = 512;

/// The reference's entropy probe: a dry run of the parser over (at most) the
/// first `N` bytes of `window`, counting output bytes instead of writing them.
/// Returns consumed / produced; blocks predicted to compress poorly are skipped
/// because they would also be slow to decompress.
///
/// Gives up early (returning 0) once the ratio provably stays below
/// `min_ratio`, which is all the caller wants to know then.
fn probe_cratio<const N: usize, const NB: usize>(
    htab: &mut [u32; N],
    window: &[u8],
    min_ratio: f64,
) -> f64 {
    let limit = window.len().min(N);
    if limit <= 12 {
        return 0.0;
    }
    // Scan a fixed-size view (the window itself, or a zero-padded copy of a
    // short one): positions masked with `N - 1` (a no-op, they are below
    // `limit`) are then provably in bounds, which keeps bounds checks out of
    // the per-byte loop.
    let mut padded: [u8; NB];
    let buf: &[u8; NB] = match window.get(..NB) {
        Some(w) => w.try_into().unwrap(),
        None => {
            padded = [0u8; NB];
            padded[..limit].copy_from_slice(&window[..limit]);
            &padded
        }
    };
    let word_at = |pos: usize| {
        let i = pos & (N - 1);
        u64::from_le_bytes(buf[i..i + 8].try_into().unwrap())
    };
    let data = &buf[..limit];
    let ip_bound = limit - 1;
    let ip_limit = limit - 12;
    // Output bytes of all finished tokens. The pending literal run (which
    // starts with the four bytes every stream opens with) is costed lazily:
    // the reference counts a run of n literals as n bytes plus one control
    // byte per started group of 32, dropping the last control byte when a
    // match follows an exact multiple of 32.
    let mut oc: usize = 0;
    let mut lit = 0;
    let mut ip = 0;
    // Unlike the real parse, the probe scans from offset 0 yet books four
    // phantom literals up front; they join the first literal run.
    let mut pending_bias = 4;
    while ip < ip_limit {
        // The reference's running output count never decreases and the scan
        // ends before `limit`, so once `limit / count` is below the bar the
        // verdict is settled. Checked every so often, not per byte.
        let n = ip - lit + pending_bias;
        let count = oc + 1 + n + n / MAX_COPY;
        if (limit as f64) < min_ratio * count as f64 {
            return 0.0;
        }
        let stop = ip_limit.min(ip + PROBE_CHECK_EVERY);
        while ip < stop {
            let anchor = ip;
            let word = word_at(anchor);
            let seq = word as u32;
            let h = hash::<N>(seq);
            let r = htab[h] as usize;
            htab[h] = anchor as u32;
            let dist = anchor.wrapping_sub(r);
            let same = (word ^ word_at(r)).trailing_zeros() as usize / 8;
            // Same test as the real parse, minus its far-match rule.
            if (dist.wrapping_sub(1) >= MAX_FARDISTANCE - 1) | (same < 7) {
                ip = anchor + 1;
                continue;
            }
            let end = if same == 8 {
                match_end(data, anchor + 8, anchor + 8 - dist, ip_bound) - IPSHIFT
            } else {
                anchor + same + 1 - IPSHIFT
            };
            let len = end - anchor;
            let n = anchor - lit + pending_bias;
            pending_bias = 0;
            oc += n + n.div_ceil(MAX_COPY);
            if len >= 7 {
                oc += (len - 7) / 255 + 1;
            }
            oc += if dist - 1 < MAX_DISTANCE { 2 } else { 4 };
            let seq = read_u32(data, end);
            htab[hash::<N>(seq)] = end as u32;
            ip = end + 2;
            lit = ip;
        }
    }
    // The unfinished run still owns its reserved control byte.
    let n = ip - lit + pending_bias;
    oc += 1 + n + n / MAX_COPY;
    ip as f64 / oc as f64
}

/// `N` is the hash table size, `NB` must be `N + 8` (the probe's scratch size).
fn compress_level<const N: usize, const NB: usize, const EXTRA_HASH: bool>(
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
) -> usize {
    let length = input.len();
    let mut htab = [0u32; N];

    // Probe the tail of the buffer; low levels look at less of it.
    let maxlen = match clevel {
        1 => length / 8,
        2 | 3 => length / 4,
        4..=6 => length / 2,
        _ => length,
    };
    let cratio = probe_cratio::<N, NB>(&mut htab, &input[length - maxlen..], MIN_CRATIO[clevel]);
    if cratio < MIN_CRATIO[clevel] {
        return 0;
    }
    if length < MIN_INPUT || output.len() < MIN_OUTPUT {
        return 0;
    }
    htab.fill(0);

    // The parse never depends on the output buffer, and every capacity check
    // the reference performs is implied by its last one (room for the final
    // literal plus a spare byte). So the reference succeeds exactly when the
    // unbounded stream is shorter than `maxout`; we write tokens directly and
    // bail out as soon as one would not fit, then check that final margin.
    let ip_limit = length - 12;
    let mut w = Writer { out: output, op: 0 };
    let mut lit = 0; // start of the pending literal run
    let mut ip = 4; // the first four bytes are always literals
    loop {
        if ip + SEGMENT <= ip_limit {
            // Whole segments of positions come with one bounds check for all
            // their 8-byte loads.
            let base = ip;
            let seg: &[u8; SEGMENT + 8] = input[base..base + SEGMENT + 8].try_into().unwrap();
            let mut k = 0;
            while k < SEGMENT {
                let word = u64::from_le_bytes(seg[k..k + 8].try_into().unwrap());
                match step::<N, EXTRA_HASH>(&mut htab, input, base + k, word, lit, &mut w) {
                    Step::Literal => k += 1,
                    Step::Match(next) => {
                        lit = next;
                        k = next - base;
                    }
                    Step::Full => return 0,
                }
            }
            ip = base + k;
        } else if ip < ip_limit {
            let word = read_u64(input, ip);
            match step::<N, EXTRA_HASH>(&mut htab, input, ip, word, lit, &mut w) {
                Step::Literal => ip += 1,
                Step::Match(next) => {
                    lit = next;
                    ip = next;
                }
                Step::Full => return 0,
            }
        } else {
            break;
        }
    }
    if !w.literals(input, lit, length) {
        return 0;
    }
    let size = w.op;
    if size >= output.len() {
        return 0;
    }
    output[0] |= 1 << 5;
    size
}

/// Positions the parser handles per bounds-checked segment of input.
const SEGMENT: usize = 256;

/// What one parser step did at a position.
enum Step {
    /// No usable match: the byte joins the pending literal run.
    Literal,
    /// A match was emitted; parsing resumes (with a new literal run) here.
    Match(usize),
    /// The output buffer is too small.
    Full,
}

/// One position of the reference parse: hash `word` (the 8 bytes at
/// `anchor`), try the candidate the table remembers, and on success emit the
/// pending literals `input[lit..anchor]` and the match.
#[inline(always)]
fn step<const N: usize, const EXTRA_HASH: bool>(
    htab: &mut [u32; N],
    input: &[u8],
    anchor: usize,
    word: u64,
    lit: usize,
    w: &mut Writer,
) -> Step {
    let seq = word as u32;
    let h = hash::<N>(seq);
    let r = htab[h] as usize;
    htab[h] = anchor as u32;
    let dist = anchor.wrapping_sub(r);
    let bdist = dist.wrapping_sub(1);
    // Leading equal bytes of the candidate (8 when the whole word agrees).
    // The table only holds earlier positions, so reading there is in bounds
    // even when the slot is empty or too far away.
    let same = (word ^ read_u64(input, r)).trailing_zeros() as usize / 8;
    // Literal unless the distance is encodable (one unsigned compare also
    // rejects an empty slot) and the match is long enough: with fewer than 8
    // equal bytes the length is `same - 3`, which must reach the reference's
    // minimum of 4. Evaluated without short-circuits so the common literal
    // case costs one branch.
    if (bdist >= MAX_FARDISTANCE - 1) | (same < 7) {
        return Step::Literal;
    }
    let end = if same == 8 {
        match_end(input, anchor + 8, anchor + 8 - dist, input.len() - 1) - IPSHIFT
    } else {
        anchor + same + 1 - IPSHIFT
    };
    let len = end - anchor;
    // Far matches need two more bytes, so short ones are not worth it.
    if len <= 5 && bdist >= MAX_DISTANCE {
        return Step::Literal;
    }
    if !w.literals_and_match(input, lit, anchor, len, bdist) {
        return Step::Full;
    }
    // Seed the table at the match boundary; level 9 also hashes the next
    // position, but (as the reference does) from the already loaded word
    // shifted down, so only three real bytes feed that hash.
    let seq = read_u32(input, end);
    htab[hash::<N>(seq)] = end as u32;
    if EXTRA_HASH {
        htab[hash::<N>(seq >> 8)] = (end + 1) as u32;
    }
    Step::Match(end + 2)
}

/// Token writer; every method returns false when the token does not fit.
struct Writer<'a> {
    out: &'a mut [u8],
    op: usize,
}

impl Writer<'_> {
    /// Emits `lits` as runs of at most `MAX_COPY` bytes. `src` is the whole
    /// input and `lits` = `src[start..end]`; having the whole input lets short
    /// runs use one fixed-size (vectorised) copy that may read past `end`.
    #[inline(always)]
    fn literals(&mut self, src: &[u8], start: usize, end: usize) -> bool {
        let n = end - start;
        if n == 0 {
            return true;
        }
        let op = self.op;
        if n <= MAX_COPY && start + MAX_COPY <= src.len() && op + 1 + MAX_COPY <= self.out.len() {
            self.out[op] = (n - 1) as u8;
            self.out[op + 1..op + 1 + MAX_COPY].copy_from_slice(&src[start..start + MAX_COPY]);
            self.op = op + 1 + n;
            return true;
        }
        let total = n + n.div_ceil(MAX_COPY);
        if op + total > self.out.len() {
            return false;
        }
        let out = &mut self.out[op..op + total];
        let mut o = 0;
        for chunk in src[start..end].chunks(MAX_COPY) {
            out[o] = (chunk.len() - 1) as u8;
            out[o + 1..o + 1 + chunk.len()].copy_from_slice(chunk);
            o += chunk.len() + 1;
        }
        self.op = op + total;
        true
    }

    /// Emits pending literals `src[start..end]` plus a match, with one
    /// capacity check for the common case of a short literal run and a short
    /// near match; other cases go token by token.
    #[inline(always)]
    fn literals_and_match(
        &mut self,
        src: &[u8],
        start: usize,
        end: usize,
        len: usize,
        bdist: usize,
    ) -> bool {
        let n = end - start;
        let op = self.op;
        if n <= MAX_COPY
            && len < 7
            && bdist < MAX_DISTANCE
            && start + MAX_COPY <= src.len()
            && op + MAX_COPY + 3 <= self.out.len()
        {
            let out = &mut self.out[op..op + MAX_COPY + 3];
            // With no literals the control byte and the copy are simply
            // overwritten by the match token.
            out[0] = n.wrapping_sub(1) as u8;
            out[1..1 + MAX_COPY].copy_from_slice(&src[start..start + MAX_COPY]);
            let m = if n == 0 { 0 } else { n + 1 };
            out[m] = ((len << 5) + (bdist >> 8)) as u8;
            out[m + 1] = bdist as u8;
            self.op = op + m + 2;
            return true;
        }
        self.literals(src, start, end) && self.matched(len, bdist)
    }

    /// Emits a match of biased length `len` (the decoder copies `len + 2`
    /// bytes) at biased distance `bdist`.
    #[inline(always)]
    fn matched(&mut self, len: usize, bdist: usize) -> bool {
        let op = self.op;
        if len < 7 {
            if bdist < MAX_DISTANCE {
                let Some(t) = self.out.get_mut(op..op + 2) else {
                    return false;
                };
                t[0] = ((len << 5) + (bdist >> 8)) as u8;
                t[1] = bdist as u8;
                self.op = op + 2;
            } else {
                let far = bdist - MAX_DISTANCE;
                let Some(t) = self.out.get_mut(op..op + 4) else {
                    return false;
                };
                t[0] = ((len << 5) + 31) as u8;
                t[1] = 255;
                t[2] = (far >> 8) as u8;
                t[3] = far as u8;
                self.op = op + 4;
            }
            return true;
        }
        let ext = len - 7;
        let n255 = ext / 255;
        let tail = if bdist < MAX_DISTANCE { 2 } else { 4 };
        let total = 1 + n255 + tail;
        let Some(t) = self.out.get_mut(op..op + total) else {
            return false;
        };
        let (head, rest) = t.split_at_mut(1 + n255);
        if bdist < MAX_DISTANCE {
            head[0] = ((7 << 5) + (bdist >> 8)) as u8;
            rest[0] = (ext % 255) as u8;
            rest[1] = bdist as u8;
        } else {
            let far = bdist - MAX_DISTANCE;
            head[0] = (7 << 5) + 31;
            rest[0] = (ext % 255) as u8;
            rest[1] = 255;
            rest[2] = (far >> 8) as u8;
            rest[3] = far as u8;
        }
        head[1..].fill(255);
        self.op = op + total;
        true
    }
}

/// Decompress a BloscLZ stream into `output`, returning the bytes produced.
///
/// Accepts exactly what the reference decoder accepts, including its quirk of
/// ignoring a far match that ends the stream (after validating it). Any
/// malformed stream yields [`ErrorKind::Data`]; an empty stream produces nothing.
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize> {
    decode::<false>(input, output, 0)
}

/// Decodes at least the first `want` bytes of a BloscLZ stream into
/// `output` (which has room for the whole stream) and stops soon after, for
/// reads of a few items near the start of a block. A stream that ends
/// before `want` bytes is an error.
pub fn decompress_prefix(input: &[u8], output: &mut [u8], want: usize) -> Result<usize> {
    if want > output.len() {
        return Err(ErrorKind::WriteBuffer);
    }
    match decode::<true>(input, output, want)? {
        n if n >= want => Ok(n),
        _ => Err(ErrorKind::Data),
    }
}

/// The decoder; with `PREFIX` it returns once `want` bytes are final (bytes
/// before `op` are never written again), else it runs to the end. Kept out
/// of line: inlined into the codec dispatch it shares a frame with every
/// other decoder and spills its cursors to the stack.
#[inline(never)]
fn decode<const PREFIX: bool>(input: &[u8], output: &mut [u8], want: usize) -> Result<usize> {
    let Some(&first) = input.first() else {
        return Ok(0);
    };
    let in_len = input.len();
    let out_len = output.len();
    let mut ip = 1;
    let mut op = 0;
    let mut ctrl = usize::from(first & 31);
    'tokens: loop {
        if PREFIX && op >= want {
            return Ok(op);
        }
        // Fast path for literal runs and short matches, the bulk of most
        // streams: with a whole window of input left and room for a 32-byte
        // store, none of the reference's end-of-buffer checks can fire, so
        // only the match distance needs validating.
        if ctrl < 7 << 5 && ip + FAST_WINDOW <= in_len && op + MAX_COPY <= out_len {
            let win: &[u8; FAST_WINDOW] = input[ip..ip + FAST_WINDOW].try_into().unwrap();
            if ctrl < 32 {
                let n = ctrl + 1;
                output[op..op + MAX_COPY].copy_from_slice(&win[..MAX_COPY]);
                op += n;
                ctrl = usize::from(win[n]);
                ip += n + 1;
            } else {
                let high = (ctrl & 31) << 8;
                let low = usize::from(win[0]);
                let (dist, used) = if low == 255 && high == 31 << 8 {
                    let far = usize::from(win[1]) << 8 | usize::from(win[2]);
                    (far + MAX_DISTANCE + 1, 3)
                } else {
                    (high + low + 1, 1)
                };
                if dist > op {
                    return Err(ErrorKind::Data);
                }
                copy_short_match(output, op, dist);
                op += (ctrl >> 5) + 2;
                ctrl = usize::from(win[used]);
                ip += used + 1;
            }
            continue;
        }
        // Long matches with their length, distance and the next control
        // byte inside one window: again no end-of-input checks, and the
        // window keeps the byte reads free of bounds checks. A length run
        // reaching past the window takes the general path below.
        'long: {
            if ctrl < 7 << 5 || ip + FAST_WINDOW > in_len {
                break 'long;
            }
            let win: &[u8; FAST_WINDOW] = input[ip..ip + FAST_WINDOW].try_into().unwrap();
            let mut len = 9;
            let mut k = 0;
            loop {
                // room for this code, the distance (3 bytes at most) and
                // the next control byte
                if k + 5 > FAST_WINDOW {
                    break 'long;
                }
                let code = win[k];
                k += 1;
                len += usize::from(code);
                if code != 255 {
                    break;
                }
            }
            let high = (ctrl & 31) << 8;
            let low = usize::from(win[k]);
            let dist = if low == 255 && high == 31 << 8 {
                let far = usize::from(win[k + 1]) << 8 | usize::from(win[k + 2]);
                k += 3;
                far + MAX_DISTANCE + 1
            } else {
                k += 1;
                high + low + 1
            };
            if op + len > out_len || dist > op {
                return Err(ErrorKind::Data);
            }
            ctrl = usize::from(win[k]);
            ip += k + 1;
            copy_match(output, op, dist, len);
            op += len;
            continue 'tokens;
        }

        if ctrl < 32 {
            let n = ctrl + 1;
            if ip + MAX_COPY <= in_len && op + MAX_COPY <= out_len {
                // Fixed-size copy compiles to a couple of vector moves; the
                // bytes past `n` are overwritten by later tokens.
                output[op..op + MAX_COPY].copy_from_slice(&input[ip..ip + MAX_COPY]);
            } else {
                if ip + n > in_len || op + n > out_len {
                    return Err(ErrorKind::Data);
                }
                output[op..op + n].copy_from_slice(&input[ip..ip + n]);
            }
            op += n;
            ip += n;
            if ip >= in_len {
                break;
            }
            ctrl = usize::from(input[ip]);
            ip += 1;
            continue;
        }

        let mut len = (ctrl >> 5) + 2;
        let high = (ctrl & 31) << 8;
        // The reference requires a byte after each length code, and after
        // the distance byte of a short match: hence the two-byte windows.
        if len == 9 {
            loop {
                let Some(&[code, _]) = input.get(ip..ip + 2) else {
                    return Err(ErrorKind::Data);
                };
                ip += 1;
                len += usize::from(code);
                if code != 255 {
                    break;
                }
            }
        } else if input.get(ip..ip + 2).is_none() {
            return Err(ErrorKind::Data);
        }
        let Some(&low) = input.get(ip) else {
            return Err(ErrorKind::Data);
        };
        ip += 1;
        let dist = if low == 255 && high == 31 << 8 {
            let Some(&[a, b]) = input.get(ip..ip + 2) else {
                return Err(ErrorKind::Data);
            };
            ip += 2;
            (usize::from(a) << 8 | usize::from(b)) + MAX_DISTANCE + 1
        } else {
            high + usize::from(low) + 1
        };
        if op + len > out_len || dist > op {
            return Err(ErrorKind::Data);
        }
        let Some(&next) = input.get(ip) else {
            // The reference stops here without performing the final copy.
            break;
        };
        ctrl = usize::from(next);
        ip += 1;
        copy_match(output, op, dist, len);
        op += len;
    }
    Ok(op)
}

/// For a match distance `d` in 1..8: the first 8 output bytes are source
/// bytes `PATTERN[d][i]` (that is `i % d`), and afterwards the output can be
/// copied 8 bytes at a time from `PERIOD[d]` (a multiple of `d`, >= 8) back.
const PATTERN: [[u8; 8]; 8] = {
    let mut t = [[0u8; 8]; 8];
    let mut d = 1;
    while d < 8 {
        let mut i = 0;
        while i < 8 {
            t[d][i] = (i % d) as u8;
            i += 1;
        }
        d += 1;
    }
    t
};
const PERIOD: [usize; 8] = [8, 8, 8, 9, 8, 10, 12, 14];
/// For a match distance `d` in 2..16: the smallest multiple of `d` that is
/// at least 16, a safe source offset for 16-byte chunks of a periodic run.
const PERIOD16: [usize; 16] = [
    16, 16, 16, 18, 16, 20, 18, 21, 16, 18, 20, 22, 24, 26, 28, 30,
];

/// Input bytes the decoder's fast path may touch for one token: the longest
/// literal run plus the next control byte.
const FAST_WINDOW: usize = MAX_COPY + 1;

/// Writes the 8 bytes of a short match (its length is 3..=8) at `op`; bytes
/// past the real length are overwritten by later tokens. Caller guarantees
/// `1 <= dist <= op` and `op + 8 <= out.len()`.
#[inline(always)]
fn copy_short_match(out: &mut [u8], op: usize, dist: usize) {
    let src = op - dist;
    if dist >= 8 {
        out.copy_within(src..src + 8, op);
    } else {
        let idx = &PATTERN[dist];
        let mut bytes = [0u8; 8];
        for (b, &i) in bytes.iter_mut().zip(idx) {
            *b = out[src + usize::from(i)];
        }
        out[op..op + 8].copy_from_slice(&bytes);
    }
}

/// LZ77 copy of `len` bytes from `dist` bytes back; overlapping copies repeat
/// the pattern. Caller guarantees `1 <= dist <= op` and `op + len <= out.len()`.
#[inline(always)]
pub(crate) fn copy_match(out: &mut [u8], op: usize, dist: usize, len: usize) {
    let src = op - dist;
    let end = op + len;
    // Away from the end of the buffer, copy whole fixed-size chunks and let
    // the last one overshoot: later tokens overwrite the excess.
    if end + 16 <= out.len() {
        if len >= 64 {
            // Long runs and wide spans: a fill or a few libc copies win.
            // Runs of thousands of bytes with a short period are common in
            // shuffled data; fixed chunks would take a loop turn per 16
            // bytes, while a few growing copies cover them.
            if dist == 1 {
                let b = out[src];
                out[op..end].fill(b);
                return;
            }
            if dist >= 64 || dist >= len {
                copy_doubling(out, op, dist, end);
                return;
            }
            if len >= LONG_MATCH {
                if dist < 16 {
                    let span = first_16_of_period(out, op, dist);
                    copy_doubling(out, op + 16, span, end);
                } else {
                    copy_doubling(out, op, dist, end);
                }
                return;
            }
        }
        if dist >= 16 {
            // Each chunk's source lies entirely before its destination.
            let mut d = op;
            if dist >= 32 && end + 32 <= out.len() {
                while d < end {
                    out.copy_within(d - dist..d - dist + 32, d);
                    d += 32;
                }
                return;
            }
            while d < end {
                out.copy_within(d - dist..d - dist + 16, d);
                d += 16;
            }
        } else if dist == 1 {
            let run = [out[src]; 16];
            let mut d = op;
            while d < end {
                out[d..d + 16].copy_from_slice(&run);
                d += 16;
            }
        } else {
            first_16_of_period(out, op, dist);
            if len <= 16 {
                return;
            }
            // From here the output repeats with a period that is a multiple
            // of `dist` and at least 16, so whole chunks copy from there.
            let period = PERIOD16[dist];
            let mut d = op + 16;
            while d < end {
                out.copy_within(d - period..d - period + 16, d);
                d += 16;
            }
        }
        return;
    }
    copy_match_exact(out, op, dist, len);
}

/// Matches at least this long take [`copy_doubling`]'s few growing copies
/// instead of a loop turn per 16 or 32 bytes (below it the call overhead
/// of the copies costs more than the turns they save).
const LONG_MATCH: usize = 256;

/// Writes the first 16 bytes of a match with period `dist` (2..16) at `op`,
/// and returns the largest multiple of `dist` that lies within the 16 + `dist`
/// periodic bytes now ending at `op + 16`. Caller guarantees
/// `dist <= op` and `op + 16 <= out.len()`.
#[inline(always)]
fn first_16_of_period(out: &mut [u8], op: usize, dist: usize) -> usize {
    copy_short_match(out, op, dist);
    let p8 = if dist >= 8 { dist } else { PERIOD[dist] };
    out.copy_within(op + 8 - p8..op + 16 - p8, op + 8);
    (16 + dist) / dist * dist
}

/// Continues a periodic match from `d` to `end`: the `span` bytes before
/// `d` are a whole number of periods, so they copy without overlap, and
/// after each copy the periodic stretch behind the cursor is twice as long.
fn copy_doubling(out: &mut [u8], mut d: usize, mut span: usize, end: usize) {
    while d < end {
        let n = span.min(end - d);
        out.copy_within(d - span..d - span + n, d);
        d += n;
        span *= 2;
    }
}

/// `copy_match` without writing past `op + len`.
fn copy_match_exact(out: &mut [u8], op: usize, dist: usize, len: usize) {
    if dist == 1 {
        let b = out[op - 1];
        out[op..op + len].fill(b);
    } else {
        copy_doubling(out, op, dist, op + len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small deterministic generator so tests need no extra dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn roundtrip(clevel: u8, data: &[u8]) -> usize {
        let mut comp = vec![0u8; data.len() + 100];
        let csize = compress(clevel, data, &mut comp);
        if csize == 0 {
            return 0;
        }
        assert!(csize < comp.len());
        let mut back = vec![0u8; data.len()];
        let n = decompress(&comp[..csize], &mut back).expect("valid stream");
        assert_eq!(n, data.len());
        assert_eq!(back, data, "clevel {clevel} len {}", data.len());
        // A tight buffer of exactly csize + 1 must also work, csize must not.
        let mut tight = vec![0u8; csize + 1];
        if tight.len() >= MIN_OUTPUT {
            assert_eq!(compress(clevel, data, &mut tight), csize);
            assert_eq!(&tight[..csize], &comp[..csize]);
        }
        let mut exact = vec![0u8; csize];
        assert_eq!(compress(clevel, data, &mut exact), 0);
        csize
    }

    /// A prefix decode gives exactly the whole decode's first bytes, for
    /// every kind of stream and many cut points.
    #[test]
    fn prefix_decode_matches_whole() {
        let mut rng = Rng(7);
        for kind in 0..7 {
            let data = gen(&mut rng, kind, 70_000);
            let mut comp = vec![0u8; data.len() + 100];
            let csize = compress(5, &data, &mut comp);
            if csize == 0 {
                continue;
            }
            let comp = &comp[..csize];
            for want in [0, 1, 31, 32, 33, 1000, 65_537, 69_999, 70_000] {
                let mut out = vec![0u8; data.len()];
                let n = decompress_prefix(comp, &mut out, want).unwrap();
                assert!(n >= want);
                assert_eq!(out[..want], data[..want], "kind {kind} want {want}");
            }
            let mut out = vec![0u8; data.len()];
            assert!(decompress_prefix(comp, &mut out[..100], 101).is_err());
            // a stream cut short cannot give more than it holds
            let mut out = vec![0u8; data.len()];
            assert!(decompress_prefix(&comp[..csize / 2], &mut out, data.len()).is_err());
        }
    }

    fn gen(rng: &mut Rng, kind: usize, len: usize) -> Vec<u8> {
        match kind {
            0 => vec![0; len],
            1 => (0..len).map(|i| i as u8).collect(),
            2 => (0..len).map(|_| rng.next() as u8).collect(),
            3 => (0..len).map(|_| (rng.below(4) as u8) * 7).collect(),
            4 => (0..len / 4 + 1)
                .flat_map(|i| ((i as u32) * 3).to_le_bytes())
                .take(len)
                .collect(),
            5 => {
                let mut v = vec![0u8; len];
                for _ in 0..len / 50 {
                    let i = rng.below(len.max(1));
                    v[i] = rng.next() as u8;
                }
                v
            }
            _ => {
                // Repeated phrases at assorted distances, including far ones.
                let words: Vec<Vec<u8>> = (0..40)
                    .map(|_| (0..rng.below(12) + 3).map(|_| rng.next() as u8).collect())
                    .collect();
                let mut v = Vec::with_capacity(len);
                while v.len() < len {
                    if rng.below(10) == 0 && v.len() > 10_000 {
                        let start = rng.below(v.len() - 200);
                        let l = rng.below(300).min(len - v.len());
                        let seg: Vec<u8> = v[start..start + l.min(v.len() - start)].to_vec();
                        v.extend_from_slice(&seg);
                    } else {
                        v.extend_from_slice(&words[rng.below(words.len())]);
                    }
                }
                v.truncate(len);
                v
            }
        }
    }

    #[test]
    fn roundtrips() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let sizes = [
            0, 1, 15, 16, 17, 40, 66, 100, 255, 1000, 4096, 9000, 70_000, 150_000,
        ];
        for &len in &sizes {
            for kind in 0..7 {
                let data = gen(&mut rng, kind, len);
                for clevel in 1..=9 {
                    roundtrip(clevel, &data);
                }
            }
        }
    }

    #[test]
    fn compressible_inputs_do_compress() {
        let data = vec![7u8; 10_000];
        for clevel in 1..=9 {
            let c = roundtrip(clevel, &data);
            assert!(c > 0 && c < 200, "clevel {clevel}: {c}");
        }
        let mut rng = Rng(99);
        let noise = gen(&mut rng, 2, 10_000);
        for clevel in 1..=9 {
            assert_eq!(roundtrip(clevel, &noise), 0);
        }
    }

    #[test]
    fn random_sizes_roundtrip() {
        let mut rng = Rng(42);
        for _ in 0..300 {
            let len = rng.below(5000);
            let kind = rng.below(7);
            let data = gen(&mut rng, kind, len);
            roundtrip(1 + rng.below(9) as u8, &data);
        }
    }

    #[test]
    fn decoder_handles_every_token_kind() {
        // literal "abcd", near match (len 3, dist 4), long near match, far match.
        let mut data: Vec<u8> = b"abcd".to_vec();
        let mut stream = vec![3 | 32, b'a', b'b', b'c', b'd'];
        stream.extend_from_slice(&[1 << 5, 3]); // copy 3 from dist 4
        data.extend_from_slice(b"abc");
        stream.extend_from_slice(&[7 << 5, 255, 10, 0]); // 9+265 = 274 bytes, dist 1
        data.extend(std::iter::repeat_n(b'c', 274));
        // Far match: distance 8192 + 0 is out of range here, so pad first.
        let pad: Vec<u8> = (0..9000u32).map(|i| (i * 7 % 251) as u8).collect();
        for chunk in pad.chunks(32) {
            stream.push(chunk.len() as u8 - 1);
            stream.extend_from_slice(chunk);
        }
        data.extend_from_slice(&pad);
        stream.extend_from_slice(&[(2 << 5) | 31, 255, 0, 5]); // 4 bytes, dist 8197
        let s = data.len() - 8197;
        let seg: Vec<u8> = data[s..s + 4].to_vec();
        data.extend_from_slice(&seg);
        stream.extend_from_slice(&[0, b'z']);
        data.push(b'z');
        let mut out = vec![0u8; data.len()];
        assert_eq!(decompress(&stream, &mut out), Ok(data.len()));
        assert_eq!(out, data);
    }

    /// Every copy strategy (fixed chunks, periodic chunks, growing copies,
    /// exact copies near the end) against the byte-at-a-time definition, for
    /// distances around the 8, 16 and 32 boundaries and lengths around the
    /// long-match threshold, with the match ending anywhere from the buffer's
    /// end to well before it. Bytes past the match may be overwritten, but
    /// never past the buffer and never before the match.
    #[test]
    fn copy_match_agrees_with_bytewise_copy() {
        let mut rng = Rng(0x5eed);
        let dists = [
            1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 31, 32, 33, 63, 64, 65, 300,
        ];
        let lens = [
            1, 3, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 255, 256, 257, 1000, 4801,
        ];
        for &dist in &dists {
            for &len in &lens {
                for slack in [0, 1, 15, 16, 17, 40] {
                    let op = dist + rng.below(50);
                    let size = op + len + slack;
                    let mut out: Vec<u8> = (0..size).map(|_| rng.next() as u8).collect();
                    let mut want = out.clone();
                    for i in op..op + len {
                        want[i] = want[i - dist];
                    }
                    copy_match(&mut out, op, dist, len);
                    assert_eq!(
                        out[..op + len],
                        want[..op + len],
                        "dist {dist} len {len} slack {slack}"
                    );
                }
            }
        }
    }

    #[test]
    fn trailing_far_match_is_ignored_like_reference() {
        let pad: Vec<u8> = (0..9000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut stream = Vec::new();
        for chunk in pad.chunks(32) {
            stream.push(chunk.len() as u8 - 1);
            stream.extend_from_slice(chunk);
        }
        stream[0] |= 32;
        let mut out = vec![0u8; 20_000];
        // A valid far match (distance 8192 + 5) ending the stream is checked
        // but not copied: the reference returns 9000 here too.
        let mut s = stream.clone();
        s.extend_from_slice(&[(2 << 5) | 31, 255, 0, 5]);
        assert_eq!(decompress(&s, &mut out), Ok(9000));
        assert_eq!(out[..9000], pad[..]);
        // The same token reaching before the start is still an error.
        let mut s = stream.clone();
        s.extend_from_slice(&[(2 << 5) | 31, 255, 0x30, 5]);
        assert_eq!(decompress(&s, &mut out), Err(ErrorKind::Data));
        // A trailing near match is always an error (needs a following byte).
        let stream = [3 | 32, 1, 2, 3, 4, 1 << 5, 0];
        assert_eq!(decompress(&stream, &mut out), Err(ErrorKind::Data));
    }

    #[test]
    fn malformed_streams_are_rejected() {
        let mut out = vec![0u8; 64];
        let cases: &[&[u8]] = &[
            &[5, 1, 2],                     // literal past end of input
            &[31 | 32],                     // literal with no payload
            &[0, 1, 1 << 5, 5, 0],          // distance 6 before start
            &[0, 1, 7 << 5, 255, 255],      // unterminated long length
            &[0, 1, 7 << 5, 10],            // long length without distance
            &[0, 1, (1 << 5) | 31, 255, 0], // far match missing a byte
            &[0, 1, 7 << 5, 200, 0, 0],     // match beyond output size
        ];
        for c in cases {
            assert_eq!(decompress(c, &mut out), Err(ErrorKind::Data), "{c:?}");
        }
        // Output too small for a literal run.
        let mut small = [0u8; 2];
        assert_eq!(
            decompress(&[3, 1, 2, 3, 4], &mut small),
            Err(ErrorKind::Data)
        );
        assert_eq!(decompress(&[], &mut small), Ok(0));
    }

    #[test]
    fn mutated_streams_never_panic() {
        let mut rng = Rng(7);
        let mut streams = Vec::new();
        for kind in [1, 3, 4, 5, 6] {
            let data = gen(&mut rng, kind, 3000);
            let mut comp = vec![0u8; 4000];
            let n = compress(9, &data, &mut comp);
            if n == 0 {
                continue;
            }
            comp.truncate(n);
            streams.push((comp, data.len()));
        }
        assert!(streams.len() >= 3);
        for _ in 0..20_000 {
            let (base, dlen) = &streams[rng.below(streams.len())];
            let mut s = base.clone();
            for _ in 0..1 + rng.below(4) {
                match rng.below(3) {
                    0 => {
                        let i = rng.below(s.len());
                        s[i] = rng.next() as u8;
                    }
                    1 => s.truncate(rng.below(s.len() + 1)),
                    _ => {
                        let i = rng.below(s.len());
                        s[i] ^= 1 << rng.below(8);
                    }
                }
                if s.is_empty() {
                    break;
                }
            }
            let mut out = vec![0u8; dlen - rng.below(2) * rng.below(*dlen)];
            if let Ok(n) = decompress(&s, &mut out) {
                assert!(n <= out.len());
            }
        }
    }

    /// The token rules and every check of the reference decoder, one byte
    /// at a time with no fast path: what `decompress` must agree with.
    fn model_decode(input: &[u8], out: &mut [u8]) -> Option<usize> {
        let Some(&first) = input.first() else {
            return Some(0);
        };
        let (mut ip, mut op) = (1usize, 0usize);
        let mut ctrl = usize::from(first & 31);
        loop {
            if ctrl >= 32 {
                let mut len = (ctrl >> 5) - 1;
                let ofs = (ctrl & 31) << 8;
                if len == 6 {
                    loop {
                        if ip + 1 >= input.len() {
                            return None;
                        }
                        let code = input[ip];
                        ip += 1;
                        len += usize::from(code);
                        if code != 255 {
                            break;
                        }
                    }
                } else if ip + 1 >= input.len() {
                    return None;
                }
                let code = usize::from(input[ip]);
                ip += 1;
                len += 3;
                let mut dist = ofs + code + 1;
                if code == 255 && ofs == 31 << 8 {
                    if ip + 1 >= input.len() {
                        return None;
                    }
                    dist = (usize::from(input[ip]) << 8 | usize::from(input[ip + 1])) + 8192;
                    ip += 2;
                }
                if op + len > out.len() || dist > op {
                    return None;
                }
                if ip >= input.len() {
                    break;
                }
                ctrl = usize::from(input[ip]);
                ip += 1;
                for i in 0..len {
                    out[op + i] = out[op + i - dist];
                }
                op += len;
            } else {
                let n = ctrl + 1;
                if op + n > out.len() || ip + n > input.len() {
                    return None;
                }
                out[op..op + n].copy_from_slice(&input[ip..ip + n]);
                op += n;
                ip += n;
                if ip >= input.len() {
                    break;
                }
                ctrl = usize::from(input[ip]);
                ip += 1;
            }
        }
        Some(op)
    }

    /// Streams of random tokens (literals, short, long and far matches,
    /// long runs of 255 length bytes, at every distance and buffer edge),
    /// whole, cut and mutated, into exact, short and roomy buffers: the
    /// decoder's fast paths give the model's bytes and verdicts.
    #[test]
    fn decoder_agrees_with_model() {
        let mut rng = Rng(0xb10c);
        for round in 0..6000 {
            let mut s = vec![rng.below(32) as u8];
            let mut produced = 0usize;
            s.extend((0..=usize::from(s[0] & 31)).map(|_| rng.next() as u8));
            produced += usize::from(s[0] & 31) + 1;
            for _ in 0..rng.below(400) {
                match rng.below(5) {
                    1 | 2 => {
                        let code = 1 + rng.below(6);
                        let dist = 1 + rng.below(produced.min(8191));
                        let d = dist - 1;
                        s.extend([(code << 5 | d >> 8) as u8, d as u8]);
                        produced += code + 2;
                    }
                    3 => {
                        let d = rng.below(produced.min(8191));
                        s.push((7 << 5 | d >> 8) as u8);
                        let cap = if rng.below(4) == 0 { 9000 } else { 300 };
                        let mut extra = rng.below(cap);
                        produced += 9 + extra;
                        while extra >= 255 {
                            s.push(255);
                            extra -= 255;
                        }
                        s.extend([extra as u8, d as u8]);
                    }
                    4 if produced > 8192 => {
                        let code = 1 + rng.below(7);
                        s.push((code << 5 | 31) as u8);
                        let len = if code == 7 {
                            let e = rng.below(300);
                            if e >= 255 {
                                s.push(255);
                            }
                            s.push((e % 255) as u8);
                            9 + e
                        } else {
                            code + 2
                        };
                        s.push(255);
                        let far = rng.below((produced - 8192).min(1 << 16));
                        s.extend([(far >> 8) as u8, far as u8]);
                        produced += len;
                    }
                    // 0, and 4 before far distances exist: a literal run
                    _ => {
                        let n = rng.below(32);
                        s.push(n as u8);
                        s.extend((0..=n).map(|_| rng.next() as u8));
                        produced += n + 1;
                    }
                }
            }
            if rng.below(3) == 0 {
                for _ in 0..1 + rng.below(3) {
                    let i = rng.below(s.len());
                    s[i] ^= 1 << rng.below(8);
                }
            }
            if rng.below(4) == 0 {
                s.truncate(1 + rng.below(s.len()));
            }
            let cap = match rng.below(3) {
                0 => produced,
                1 => rng.below(produced + 1),
                _ => produced + rng.below(100),
            };
            let mut want = vec![0xa5u8; cap];
            let mut got = vec![0xa5u8; cap];
            let m = model_decode(&s, &mut want);
            let d = decompress(&s, &mut got).ok();
            assert_eq!(d, m, "round {round}");
            if let Some(n) = m {
                assert_eq!(got[..n], want[..n], "round {round}");
            }
        }
    }
}
