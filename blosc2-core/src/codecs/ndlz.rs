//! NDLZ (codec id 32): an LZ-style codec for 2-D blocks of bytes that looks
//! for repeats among square cells (4x4 or 8x8, chosen by `compcode_meta`)
//! and among groups of their rows, rather than along the linear stream.
//!
//! The bitstream is C-Blosc2's, byte for byte:
//!
//! ```text
//! u8 ndim (= 2) | i32 LE blockshape[0] | i32 LE blockshape[1] | cells...
//! ```
//!
//! Cells follow in row-major order of the cell grid, each a token byte and
//! its payload. Cells cut by the block's edge are always stored literally
//! (only their valid rows/columns). For a full cell the tokens are:
//!
//! | token | payload | meaning |
//! |---|---|---|
//! | 0 | the cell's bytes, row-major | literal |
//! | 64 | 1 byte | every byte of the cell equals it |
//! | 192 | u16 LE `d` | the cell equals the literal cell stored at `pos - d` (`pos` = this token's position) |
//! | others | u16 offsets + rows | some rows equal rows of an earlier literal cell, the remaining rows follow literally |
//!
//! Back references always point into literal cells of the output so far;
//! the encoder finds them through three hash tables (whole cells, row
//! triples, row pairs) keyed by XXH32 (seed 1) of the candidate bytes, top 12
//! bits. The reference encoder's table updates have a few quirks (e.g.
//! slots remembered from an earlier cell are overwritten); they are mirrored
//! here because any deviation changes the emitted bytes.

use crate::error::{ErrorKind, Result};
use crate::filters::ndcell::geometry_of;
use crate::registry::PluginContext;

/// An upstream-style trace line (shown with `BLOSC_TRACE` set).
macro_rules! trace {
    ($($arg:tt)*) => {
        crate::trace_error!($($arg)*)
    };
}

/// Codec id (`BLOSC_CODEC_NDLZ`).
pub const ID: u8 = 32;
/// Version byte stored in chunk headers for this codec.
pub const VERSION: u8 = 1;

const HASH_LOG: u32 = 12;
const HASH_SIZE: usize = 1 << HASH_LOG;
/// References at this distance or farther are not taken.
const MAX_DISTANCE: usize = 65535;
/// Length of the stream header: ndim and two int32 block dimensions.
const HEADER_LEN: usize = 9;

const TOKEN_LITERAL: u8 = 0;
const TOKEN_SAME_BYTE: u8 = 1 << 6;
const TOKEN_CELL_MATCH: u8 = (1 << 7) | (1 << 6);

/// XXH32 of `data` (the 32-bit xxHash function).
pub(crate) fn xxh32(data: &[u8], seed: u32) -> u32 {
    const P1: u32 = 0x9E37_79B1;
    const P2: u32 = 0x85EB_CA77;
    const P3: u32 = 0xC2B2_AE3D;
    const P4: u32 = 0x27D4_EB2F;
    const P5: u32 = 0x1656_67B1;
    let lane = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let round = |acc: u32, v: u32| {
        acc.wrapping_add(v.wrapping_mul(P2))
            .rotate_left(13)
            .wrapping_mul(P1)
    };
    let mut rest = data;
    let mut h = if data.len() >= 16 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        while rest.len() >= 16 {
            for (k, acc) in v.iter_mut().enumerate() {
                *acc = round(*acc, lane(&rest[4 * k..]));
            }
            rest = &rest[16..];
        }
        v[0].rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18))
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(data.len() as u32);
    while rest.len() >= 4 {
        h = h
            .wrapping_add(lane(rest).wrapping_mul(P3))
            .rotate_left(17)
            .wrapping_mul(P4);
        rest = &rest[4..];
    }
    for &b in rest {
        h = h
            .wrapping_add((b as u32).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^= h >> 16;
    h
}

fn hash(data: &[u8]) -> usize {
    (xxh32(data, 1) >> (32 - HASH_LOG)) as usize
}

/// Compress one block of `blockshape[0] x blockshape[1]` bytes with cells of
/// `cell` (4 or 8, the codec's meta). Ok(0) means the output would not fit
/// or would not be smaller than the input.
pub fn compress(cell: u8, blockshape: [i32; 2], input: &[u8], output: &mut [u8]) -> Result<usize> {
    if cell != 4 && cell != 8 {
        trace!("NDLZ is not available for this cellsize: {cell}");
        return Err(ErrorKind::Failure);
    }
    let [b0, b1] = blockshape;
    if b0 < 0 || b1 < 0 || input.len() as i64 != b0 as i64 * b1 as i64 {
        trace!("NDLZ: length not equal to blocksize");
        return Err(ErrorKind::Failure);
    }
    if output.len() < HEADER_LEN {
        trace!("NDLZ: output too small");
        return Err(ErrorKind::Failure);
    }
    let cell_size = (cell as i64) * (cell as i64);
    // the reference's minimum room: a header and two bytes per cell
    let overhead = 17 + (b0 as i64 * b1 as i64 / cell_size - 1) * 2;
    if (input.len() as i64) < cell_size || (output.len() as i64) < overhead {
        return Ok(0);
    }
    let mut enc = Encoder::new(input, output, b0 as usize, b1 as usize);
    enc.header(b0, b1);
    let r = if cell == 4 { enc.run4() } else { enc.run8() };
    Ok(r.unwrap_or(0))
}

/// The codec as the chunk pipeline calls it: the block geometry comes from
/// the super-chunk's `b2nd` metalayer (2-D arrays only). A failure is a data
/// error, as upstream reports a plugin's negative result.
pub(crate) fn encode(
    meta: u8,
    input: &[u8],
    output: &mut [u8],
    ctx: &PluginContext,
) -> Result<usize> {
    let g = geometry_of(ctx).map_err(|_| ErrorKind::Data)?;
    if g.blockshape.len() != 2 {
        trace!("This codec only works for ndim = 2");
        return Err(ErrorKind::Data);
    }
    compress(meta, [g.blockshape[0], g.blockshape[1]], input, output).map_err(|_| ErrorKind::Data)
}

/// Where the encoder writes and what it remembers about earlier cells.
struct Encoder<'a> {
    ip: &'a [u8],
    out: &'a mut [u8],
    op: usize,
    b0: usize,
    b1: usize,
    tab_cell: Vec<u32>,
    tab_triple: Vec<u32>,
    tab_pair: Vec<u32>,
}

/// Stops the encoder: the output is full or no smaller than the input.
struct NoFit;

impl<'a> Encoder<'a> {
    fn new(ip: &'a [u8], out: &'a mut [u8], b0: usize, b1: usize) -> Encoder<'a> {
        Encoder {
            ip,
            out,
            op: 0,
            b0,
            b1,
            tab_cell: vec![0; HASH_SIZE],
            tab_triple: vec![0; HASH_SIZE],
            tab_pair: vec![0; HASH_SIZE],
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        self.out[self.op..self.op + bytes.len()].copy_from_slice(bytes);
        self.op += bytes.len();
    }

    fn header(&mut self, b0: i32, b1: i32) {
        self.put(&[2]);
        self.put(&b0.to_le_bytes());
        self.put(&b1.to_le_bytes());
    }

    /// Whether `bytes` equal what the output holds at `pos` (a table entry,
    /// 0 meaning "empty").
    fn same_at(&self, pos: u32, bytes: &[u8]) -> bool {
        pos != 0 && self.out[pos as usize..pos as usize + bytes.len()] == *bytes
    }

    /// Store the cell at grid position (`c0`, `c1`) literally, clipped to
    /// the block: used for the cells on a ragged edge.
    fn edge_cell(&mut self, cell: usize, c0: usize, c1: usize, stop: [usize; 2]) {
        let p0 = if c0 == stop[0] - 1 && !self.b0.is_multiple_of(cell) {
            self.b0 % cell
        } else {
            cell
        };
        let p1 = if c1 == stop[1] - 1 && !self.b1.is_multiple_of(cell) {
            self.b1 % cell
        } else {
            cell
        };
        self.put(&[TOKEN_LITERAL]);
        let orig = c0 * cell * self.b1 + c1 * cell;
        for r in 0..p0 {
            let ind = orig + r * self.b1;
            let ip = self.ip;
            self.put(&ip[ind..ind + p1]);
        }
    }

    fn gather(&self, cell: usize, c0: usize, c1: usize, buf: &mut [u8]) {
        let orig = c0 * cell * self.b1 + c1 * cell;
        for r in 0..cell {
            let ind = orig + r * self.b1;
            buf[r * cell..(r + 1) * cell].copy_from_slice(&self.ip[ind..ind + cell]);
        }
    }

    /// Look the whole cell up: Some(pos) of an identical earlier literal
    /// cell close enough to reference.
    fn cell_ref(&self, hcell: usize, buf: &[u8], anchor: usize) -> Option<u32> {
        let pos = self.tab_cell[hcell];
        if !self.same_at(pos, buf) {
            return None;
        }
        let d = anchor - pos as usize;
        (d != 0 && d < MAX_DISTANCE).then_some(pos)
    }

    fn cell_end(&self) -> std::result::Result<(), NoFit> {
        if self.op > self.ip.len() {
            return Err(NoFit);
        }
        Ok(())
    }

    fn run4(&mut self) -> std::result::Result<usize, NoFit> {
        const C: usize = 4;
        let stop = [self.b0.div_ceil(C), self.b1.div_ceil(C)];
        let mut hash_triple = [0usize; 2];
        let mut hash_pair = [0usize; 3];
        let mut buf = [0u8; 16];
        for c0 in 0..stop[0] {
            for c1 in 0..stop[1] {
                let mut update_triple = [0u32; 2];
                let mut update_pair = [0u32; 3];
                if self.op + 16 + 1 > self.out.len() {
                    return Err(NoFit);
                }
                let ragged = (!self.b0.is_multiple_of(C) && c0 == stop[0] - 1)
                    || (!self.b1.is_multiple_of(C) && c1 == stop[1] - 1);
                if ragged {
                    self.edge_cell(C, c0, c1, stop);
                    self.cell_end()?;
                    continue;
                }
                self.gather(C, c0, c1, &mut buf);
                let anchor = self.op;
                let hcell = hash(&buf);
                let row = |r: usize| &buf[r * 4..r * 4 + 4];
                if buf.iter().all(|&b| b == buf[0]) {
                    self.put(&[TOKEN_SAME_BYTE, buf[0]]);
                } else if let Some(pos) = self.cell_ref(hcell, &buf, anchor) {
                    let d = (anchor - pos as usize) as u16;
                    self.put(&[TOKEN_CELL_MATCH]);
                    self.put(&d.to_le_bytes());
                } else {
                    let mut matched = false;
                    // two pairs of rows: row 0 with row j, the other two rows together
                    'pairs2: for j in 1..4 {
                        let mut pair = [0u8; 8];
                        pair[..4].copy_from_slice(row(0));
                        pair[4..].copy_from_slice(row(j));
                        let p1 = self.tab_pair[hash(&pair)];
                        if !self.same_at(p1, &pair) {
                            continue;
                        }
                        let d1 = anchor - p1 as usize;
                        if d1 >= MAX_DISTANCE {
                            continue;
                        }
                        let others: Vec<usize> = (1..4).filter(|&k| k != j).collect();
                        let (l, m) = (others[0], others[1]);
                        pair[..4].copy_from_slice(row(l));
                        pair[4..].copy_from_slice(row(m));
                        let p2 = self.tab_pair[hash(&pair)];
                        if !self.same_at(p2, &pair) {
                            continue;
                        }
                        let d2 = anchor + l * 4 - p2 as usize;
                        if d2 != 0 && d2 < MAX_DISTANCE {
                            self.put(&[(1 << 5) | ((j as u8) << 3)]);
                            self.put(&(d1 as u16).to_le_bytes());
                            self.put(&((anchor - p2 as usize) as u16).to_le_bytes());
                            matched = true;
                            break 'pairs2;
                        }
                    }
                    // three rows
                    if !matched {
                        'triples: for i in 0..2 {
                            for j in i + 1..3 {
                                for k in j + 1..4 {
                                    let mut tri = [0u8; 12];
                                    tri[..4].copy_from_slice(row(i));
                                    tri[4..8].copy_from_slice(row(j));
                                    tri[8..].copy_from_slice(row(k));
                                    let h = hash(&tri);
                                    let pos = self.tab_triple[h];
                                    if pos == 0 && j - i == 1 && k - j == 1 {
                                        update_triple[i] = (anchor + 1 + i * 4) as u32;
                                        hash_triple[i] = h;
                                    }
                                    if !self.same_at(pos, &tri) {
                                        continue;
                                    }
                                    let d = anchor + i * 4 - pos as usize;
                                    if d == 0 || d >= MAX_DISTANCE {
                                        continue;
                                    }
                                    let token = if i == 1 {
                                        7 << 5
                                    } else {
                                        (7 << 5) | (((j + k - 2) as u8) << 3)
                                    };
                                    self.put(&[token]);
                                    self.put(&((anchor - pos as usize) as u16).to_le_bytes());
                                    let l = (0..4).find(|&l| l != i && l != j && l != k);
                                    if let Some(l) = l {
                                        let r: [u8; 4] = row(l).try_into().unwrap_or_default();
                                        self.put(&r);
                                    }
                                    matched = true;
                                    break 'triples;
                                }
                            }
                        }
                    }
                    // one pair of rows
                    if !matched {
                        'pairs: for i in 0..3 {
                            for j in i + 1..4 {
                                let mut pair = [0u8; 8];
                                pair[..4].copy_from_slice(row(i));
                                pair[4..].copy_from_slice(row(j));
                                let h = hash(&pair);
                                let pos = self.tab_pair[h];
                                if pos == 0 && j - i == 1 {
                                    update_pair[i] = (anchor + 1 + i * 4) as u32;
                                    hash_pair[i] = h;
                                }
                                if !self.same_at(pos, &pair) {
                                    continue;
                                }
                                let d = anchor + i * 4 - pos as usize;
                                if d == 0 || d >= MAX_DISTANCE {
                                    continue;
                                }
                                let token = if i == 2 {
                                    1 << 7
                                } else {
                                    (1 << 7) | ((i as u8) << 5) | ((j as u8) << 3)
                                };
                                self.put(&[token]);
                                self.put(&((anchor - pos as usize) as u16).to_le_bytes());
                                for k in (0..4).filter(|&k| k != i && k != j) {
                                    let r: [u8; 4] = row(k).try_into().unwrap_or_default();
                                    self.put(&r);
                                }
                                matched = true;
                                break 'pairs;
                            }
                        }
                    }
                    if !matched {
                        self.tab_cell[hcell] = (anchor + 1) as u32;
                        // Only slot 0 is tested, and slots not set for this
                        // cell write their stale hash with a zero: as the
                        // reference does.
                        if update_triple[0] != 0 {
                            for h in 0..2 {
                                self.tab_triple[hash_triple[h]] = update_triple[h];
                            }
                        }
                        if update_pair[0] != 0 {
                            for h in 0..3 {
                                self.tab_pair[hash_pair[h]] = update_pair[h];
                            }
                        }
                        self.put(&[TOKEN_LITERAL]);
                        self.put(&buf);
                    }
                }
                self.cell_end()?;
            }
        }
        Ok(self.op)
    }

    fn run8(&mut self) -> std::result::Result<usize, NoFit> {
        const C: usize = 8;
        let stop = [self.b0.div_ceil(C), self.b1.div_ceil(C)];
        let mut hash_triple = [0usize; 6];
        let mut hash_pair = [0usize; 7];
        let mut buf = [0u8; 64];
        for c0 in 0..stop[0] {
            for c1 in 0..stop[1] {
                let mut update_triple = [0u32; 6];
                let mut update_pair = [0u32; 7];
                if self.op + 64 + 1 > self.out.len() {
                    return Err(NoFit);
                }
                let ragged = (!self.b0.is_multiple_of(C) && c0 == stop[0] - 1)
                    || (!self.b1.is_multiple_of(C) && c1 == stop[1] - 1);
                if ragged {
                    self.edge_cell(C, c0, c1, stop);
                    self.cell_end()?;
                    continue;
                }
                self.gather(C, c0, c1, &mut buf);
                let anchor = self.op;
                let hcell = hash(&buf);
                if buf.iter().all(|&b| b == buf[0]) {
                    self.put(&[TOKEN_SAME_BYTE, buf[0]]);
                } else if let Some(pos) = self.cell_ref(hcell, &buf, anchor) {
                    let d = (anchor - pos as usize) as u16;
                    self.put(&[TOKEN_CELL_MATCH]);
                    self.put(&d.to_le_bytes());
                } else {
                    // runs of three, then two, consecutive rows
                    let mut matched = false;
                    for (nrows, tokbase) in [(3usize, 21u8 << 3), (2, 17 << 3)] {
                        for i in 0..=C - nrows {
                            let start = i * C;
                            let part = &buf[start..start + nrows * C];
                            let h = hash(part);
                            let pos = if nrows == 3 {
                                self.tab_triple[h]
                            } else {
                                self.tab_pair[h]
                            };
                            if pos == 0 {
                                let upd = (anchor + 1 + start) as u32;
                                if nrows == 3 {
                                    update_triple[i] = upd;
                                    hash_triple[i] = h;
                                } else {
                                    update_pair[i] = upd;
                                    hash_pair[i] = h;
                                }
                            }
                            if !self.same_at(pos, part) {
                                continue;
                            }
                            let d = anchor + start - pos as usize;
                            if d == 0 || d >= MAX_DISTANCE {
                                continue;
                            }
                            self.put(&[tokbase | i as u8]);
                            self.put(&((anchor - pos as usize) as u16).to_le_bytes());
                            for l in (0..C).filter(|&l| l < i || l >= i + nrows) {
                                let r: [u8; 8] =
                                    buf[l * C..(l + 1) * C].try_into().unwrap_or_default();
                                self.put(&r);
                            }
                            matched = true;
                            break;
                        }
                        if matched {
                            break;
                        }
                    }
                    if !matched {
                        self.tab_cell[hcell] = (anchor + 1) as u32;
                        if update_triple[0] != 0 {
                            for h in 0..6 {
                                self.tab_triple[hash_triple[h]] = update_triple[h];
                            }
                        }
                        if update_pair[0] != 0 {
                            for h in 0..7 {
                                self.tab_pair[hash_pair[h]] = update_pair[h];
                            }
                        }
                        self.put(&[TOKEN_LITERAL]);
                        self.put(&buf);
                    }
                }
                self.cell_end()?;
            }
        }
        Ok(self.op)
    }
}

/// Decompress one NDLZ stream into `output`, which must hold at least the
/// block it describes. Returns the block's size in bytes.
pub fn decompress(cell: u8, input: &[u8], output: &mut [u8]) -> Result<usize> {
    if cell != 4 && cell != 8 {
        trace!("NDLZ is not available for this cellsize: {cell}");
        return Err(ErrorKind::Failure);
    }
    if input.len() < HEADER_LEN {
        return Ok(0);
    }
    if input[0] != 2 {
        trace!("NDLZ only works for ndim = 2");
        return Err(ErrorKind::Failure);
    }
    let rd32 = |p: usize| i32::from_le_bytes([input[p], input[p + 1], input[p + 2], input[p + 3]]);
    let (b0, b1) = (rd32(1), rd32(5));
    if b0 < 0 || b1 < 0 {
        trace!("NDLZ: negative blockshape");
        return Err(ErrorKind::Failure);
    }
    let (b0, b1) = (b0 as usize, b1 as usize);
    let total = b0
        .checked_mul(b1)
        .filter(|&t| t <= output.len())
        .ok_or(ErrorKind::Failure)?;
    output[..total].fill(0);
    let c = cell as usize;
    let stop = [b0.div_ceil(c), b1.div_ceil(c)];
    let corrupt = || {
        trace!("NDLZ: corrupt stream");
        ErrorKind::Failure
    };
    // bytes `pos..pos+len` of the input, or an error
    let range = |pos: i64, len: usize| -> Result<&[u8]> {
        if pos < 0 || pos as usize > input.len() || input.len() - (pos as usize) < len {
            return Err(corrupt());
        }
        Ok(&input[pos as usize..pos as usize + len])
    };
    let rd16 = |pos: usize| -> Result<u16> {
        let b = range(pos as i64, 2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    };
    let mut ip = HEADER_LEN;
    // Scratch for cells rebuilt from several places; it keeps old rows
    // between cells, as the reference's buffer does for odd tokens.
    let mut local = vec![0u8; c * c];
    let mut same = vec![0u8; c * c];
    let mut ind = 0usize;
    let mut p = [0usize; 2];
    for c0 in 0..stop[0] {
        for c1 in 0..stop[1] {
            p[0] = if c0 == stop[0] - 1 && b0 % c != 0 {
                b0 % c
            } else {
                c
            };
            p[1] = if c1 == stop[1] - 1 && b1 % c != 0 {
                b1 % c
            } else {
                c
            };
            let cur = ip;
            let token = range(cur as i64, 1)?[0];
            ip += 1;
            let src: &[u8] = if token == TOKEN_LITERAL {
                let s = range(ip as i64, p[0] * p[1])?;
                ip += p[0] * p[1];
                s
            } else if token == TOKEN_CELL_MATCH {
                let d = rd16(ip)?;
                ip += 2;
                range(cur as i64 - d as i64, p[0] * p[1])?
            } else if token == TOKEN_SAME_BYTE {
                let v = range(ip as i64, 1)?[0];
                ip += 1;
                same.fill(v);
                &same
            } else if c == 4 {
                ip = decode_rows4(token, cur, ip, &mut local, &range, &rd16)?;
                &local
            } else {
                ip = decode_rows8(token, cur, ip, &mut local, &range, &rd16)?;
                &local
            };
            let orig = c0 * c * b1 + c1 * c;
            for r in 0..p[0] {
                ind = orig + r * b1;
                let dst = output.get_mut(ind..ind + p[1]).ok_or_else(corrupt)?;
                dst.copy_from_slice(&src[r * p[1]..(r + 1) * p[1]]);
            }
        }
    }
    ind += p[1];
    if ind != total {
        trace!("NDLZ: output size is not compatible with embedded blockshape");
        return Err(ErrorKind::Failure);
    }
    Ok(ind)
}

/// Rows of a 4x4 cell taken from earlier literal cells (the row-pair and
/// row-triple tokens). Returns the input position after the payload.
fn decode_rows4<'i>(
    token: u8,
    cur: usize,
    mut ip: usize,
    local: &mut [u8],
    range: &dyn Fn(i64, usize) -> Result<&'i [u8]>,
    rd16: &dyn Fn(usize) -> Result<u16>,
) -> Result<usize> {
    let mut set_row = |r: usize, bytes: &[u8]| local[r * 4..r * 4 + 4].copy_from_slice(bytes);
    if token >= 224 {
        // three rows from one place, the fourth literal
        let off = rd16(ip)?.wrapping_add(3);
        ip += 2;
        let (i, j, k) = match token >> 3 {
            28 => (1, 2, 3),
            29 => (0, 1, 2),
            30 => (0, 1, 3),
            _ => (0, 2, 3),
        };
        let r = range(cur as i64 + 3 - off as i64, 12)?;
        set_row(i, &r[..4]);
        set_row(j, &r[4..8]);
        set_row(k, &r[8..]);
        if let Some(l) = (0..4).find(|&l| l != i && l != j && l != k) {
            set_row(l, range(ip as i64, 4)?);
            ip += 4;
        }
    } else if (128..=191).contains(&token) {
        // two rows from one place, the other two literal
        let off = rd16(ip)?.wrapping_add(3);
        ip += 2;
        let (i, j) = if token == 128 {
            (2, 3)
        } else {
            let t = (token - 128) as usize;
            (t >> 5, (t >> 3) - ((t >> 5) << 2))
        };
        let r = range(cur as i64 + 3 - off as i64, 8)?;
        set_row(i, &r[..4]);
        set_row(j, &r[4..]);
        for k in (0..4).filter(|&k| k != i && k != j) {
            set_row(k, range(ip as i64, 4)?);
            ip += 4;
        }
    } else if (40..=63).contains(&token) {
        // rows 0 and j from one place, the other two from another
        let off1 = rd16(ip)?.wrapping_add(5);
        ip += 2;
        let off2 = rd16(ip)?.wrapping_add(5);
        ip += 2;
        let j = ((token - 32) >> 3) as usize;
        let others: Vec<usize> = (1..4).filter(|&k| k != j).collect();
        let r1 = range(cur as i64 + 5 - off1 as i64, 8)?;
        set_row(0, &r1[..4]);
        set_row(j, &r1[4..]);
        let r2 = range(cur as i64 + 5 - off2 as i64, 8)?;
        set_row(others[0], &r2[..4]);
        set_row(others[1], &r2[4..]);
    } else {
        trace!("NDLZ: invalid token {token}");
        return Err(ErrorKind::Failure);
    }
    Ok(ip)
}

/// Rows of an 8x8 cell: a run of three (token 168+row) or two (136+row)
/// consecutive rows from one place, the others literal.
fn decode_rows8<'i>(
    token: u8,
    cur: usize,
    mut ip: usize,
    local: &mut [u8],
    range: &dyn Fn(i64, usize) -> Result<&'i [u8]>,
    rd16: &dyn Fn(usize) -> Result<u16>,
) -> Result<usize> {
    let nrows = match token >> 3 {
        21 => 3,
        17 => 2,
        _ => {
            trace!("NDLZ: invalid token {token}");
            return Err(ErrorKind::Failure);
        }
    };
    let row = (token & 7) as usize;
    if row + nrows > 8 {
        trace!("NDLZ: match row out of bounds");
        return Err(ErrorKind::Failure);
    }
    let off = rd16(ip)?;
    ip += 2;
    let r = range(cur as i64 - off as i64, nrows * 8)?;
    local[row * 8..(row + nrows) * 8].copy_from_slice(r);
    for l in (0..8).filter(|&l| l < row || l >= row + nrows) {
        local[l * 8..(l + 1) * 8].copy_from_slice(range(ip as i64, 8)?);
        ip += 8;
    }
    Ok(ip)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh32_known_values() {
        // reference values of the xxHash specification
        assert_eq!(xxh32(b"", 0), 0x02CC_5D05);
        assert_eq!(xxh32(b"a", 0), 0x550D_7456);
        assert_eq!(xxh32(b"abc", 0), 0x32D1_53FF);
        assert_eq!(
            xxh32(b"Nobody inspects the spammish repetition", 0),
            0xE229_3B2F
        );
    }

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    fn sample(b0: usize, b1: usize, kind: u32, seed: &mut u64) -> Vec<u8> {
        let mut v = vec![0u8; b0 * b1];
        for (i, x) in v.iter_mut().enumerate() {
            let (r, c) = (i / b1.max(1), i % b1.max(1));
            *x = match kind {
                0 => ((r / 4 + c / 4) % 3) as u8,
                1 => ((r % 5) * 7 + (c % 3)) as u8,
                2 => (lcg(seed) % 4) as u8,
                3 => (r * 3 + c) as u8,
                _ => lcg(seed) as u8,
            };
        }
        v
    }

    #[test]
    fn roundtrip_shapes() {
        let mut seed = 7u64;
        for cell in [4u8, 8] {
            for (b0, b1) in [
                (16, 16),
                (32, 32),
                (8, 8),
                (13, 7),
                (33, 65),
                (64, 40),
                (4, 100),
                (100, 3),
                (128, 128),
            ] {
                for kind in 0..5 {
                    let input = sample(b0, b1, kind, &mut seed);
                    let mut out = vec![0u8; input.len() * 2 + 64];
                    let n = compress(cell, [b0 as i32, b1 as i32], &input, &mut out).unwrap();
                    if n == 0 {
                        continue;
                    }
                    assert!(n <= input.len());
                    let mut back = vec![0xAAu8; input.len()];
                    let m = decompress(cell, &out[..n], &mut back).unwrap();
                    assert_eq!(m, input.len());
                    assert_eq!(back, input, "cell {cell} shape {b0}x{b1} kind {kind}");
                }
            }
        }
    }

    #[test]
    fn repetitive_blocks_compress() {
        let mut seed = 1u64;
        let input = sample(64, 64, 0, &mut seed);
        for cell in [4u8, 8] {
            let mut out = vec![0u8; input.len()];
            let n = compress(cell, [64, 64], &input, &mut out).unwrap();
            assert!(n > 0 && n < input.len() / 2, "cell {cell}: {n}");
        }
        // rows that repeat with a period of 5 find 4x4 row matches
        let input = sample(64, 64, 1, &mut seed);
        let mut out = vec![0u8; input.len()];
        let n = compress(4, [64, 64], &input, &mut out).unwrap();
        assert!(n > 0 && n < input.len() / 2, "{n}");
    }

    #[test]
    fn corrupt_streams_are_errors() {
        let mut seed = 3u64;
        let input = sample(32, 32, 1, &mut seed);
        let mut out = vec![0u8; 4096];
        let n = compress(4, [32, 32], &input, &mut out).unwrap();
        assert!(n > 0);
        let mut back = vec![0u8; input.len()];
        for cut in [0, 5, 9, n / 2, n - 1] {
            let r = decompress(4, &out[..cut], &mut back);
            assert!(!matches!(r, Ok(x) if x == input.len()), "cut {cut}");
        }
        // every single-byte change either fails or decodes to something,
        // without panicking
        for i in 0..n {
            let mut bad = out[..n].to_vec();
            bad[i] ^= 0x5A;
            let _ = decompress(4, &bad, &mut back);
            let _ = decompress(8, &bad, &mut back);
        }
        assert!(decompress(5, &out[..n], &mut back).is_err());
    }

    #[test]
    fn wrong_length_is_error() {
        let mut out = vec![0u8; 100];
        assert!(compress(4, [4, 4], &[0u8; 15], &mut out).is_err());
        assert!(compress(3, [4, 4], &[0u8; 16], &mut out).is_err());
    }
}
