//! [`Encoder`] and [`Decoder`]: a whole contiguous frame written to any
//! [`Write`] and read from any [`Read`], as the zstd and lz4 crates offer
//! for their formats.

use super::params::CParams;
use super::paths::frame_reason;
use super::schunk::{Cursor, Schunk};
use crate::error::{Error, ErrorKind, Reason};
use crate::frame::header::{pos, HEADER_MINLEN};
use std::io::{self, Read, Seek, SeekFrom, Write};

/// Compresses what is written to it into a contiguous frame (a
/// `.b2frame`, which C-Blosc2 and python-blosc2 read), written to `W` by
/// [`Encoder::finish`].
///
/// Bytes are gathered into chunks of the chunk size and each full chunk is
/// compressed and appended at once. **Memory**: the frame's header holds
/// its total length and the index follows the chunks, so nothing can reach
/// `W` before the end: the compressed frame is held in memory until
/// `finish`, which then makes one more copy of it to write (about twice
/// the compressed size at the peak, plus one chunk of input). For data
/// whose compressed size does not fit in memory, write a frame file with
/// [`Schunk::create`] instead, which keeps only the index in memory.
///
/// Dropping an encoder without calling `finish` writes nothing.
///
/// ```
/// use blosc2_core::{CParams, Decoder, Encoder};
/// use std::io::{Read, Write};
///
/// let data: Vec<u8> = (0..100_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
/// let mut enc = Encoder::new(Vec::new(), &CParams::new().with_typesize(4), 64 * 1024)?;
/// enc.write_all(&data)?;
/// let frame: Vec<u8> = enc.finish()?;
/// assert!(frame.len() < data.len() / 10);
///
/// let mut back = Vec::new();
/// Decoder::new(&frame[..])?.read_to_end(&mut back)?;
/// assert_eq!(back, data);
/// # Ok::<(), blosc2_core::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "an Encoder writes nothing until `finish` is called"]
pub struct Encoder<W: Write> {
    out: W,
    sc: Schunk,
    chunk_bytes: usize,
    buf: Vec<u8>,
}

impl<W: Write> Encoder<W> {
    /// An encoder that writes to `out`, compressing with `params` (the item
    /// size is theirs, 1 when they give none) in chunks of `chunk_bytes`
    /// bytes (at least 1; the last chunk may be shorter).
    pub fn new(out: W, params: &CParams, chunk_bytes: usize) -> Result<Encoder<W>, Error> {
        Ok(Encoder {
            out,
            sc: Schunk::new(params)?,
            chunk_bytes: chunk_bytes.max(1),
            buf: Vec::new(),
        })
    }

    /// The super-chunk being built, to add metalayers before `finish`.
    pub fn schunk_mut(&mut self) -> &mut Schunk {
        &mut self.sc
    }

    /// Compresses what is left as a last chunk, writes the frame to the
    /// stream, flushes it and gives it back.
    pub fn finish(mut self) -> Result<W, Error> {
        if !self.buf.is_empty() {
            let tail = std::mem::take(&mut self.buf);
            self.sc.append_bytes(&tail)?;
        }
        let frame = self.sc.to_frame()?;
        let written = self.out.write_all(&frame).and_then(|()| self.out.flush());
        written.map_err(|e| {
            Error::new(ErrorKind::WriteBuffer)
                .with_operation("writing a frame to a stream")
                .with_source(e)
        })?;
        Ok(self.out)
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        super::schunk::write_chunked(&mut self.sc, &mut self.buf, self.chunk_bytes, data)
    }

    /// Does nothing: the frame can only be written whole, by
    /// [`Encoder::finish`].
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Reads one contiguous frame from `R` and gives back its decompressed
/// bytes through [`Read`] (and [`Seek`]).
///
/// **Memory**: [`Decoder::new`] reads the whole frame (exactly as many
/// bytes as its header announces, so the stream can hold more after it)
/// into memory, since a frame's index follows its chunks; while the
/// super-chunk is built from it the compressed frame is held twice.
/// Reading then decompresses one chunk at a time.
#[derive(Debug)]
pub struct Decoder<R: Read> {
    input: R,
    sc: Schunk,
    cursor: Cursor,
}

impl<R: Read> Decoder<R> {
    /// Reads a frame from `input`. A stream that ends early gives an error
    /// with [`Reason::Truncated`], one that holds no frame
    /// [`Reason::NotAFrame`].
    pub fn new(mut input: R) -> Result<Decoder<R>, Error> {
        let op = "reading a frame from a stream";
        let mut frame = Vec::with_capacity(HEADER_MINLEN);
        read_up_to(&mut input, &mut frame, HEADER_MINLEN as u64, op)?;
        let announced = frame_len(&frame);
        let bad = |frame: &[u8]| {
            let e = Error::new(ErrorKind::InvalidHeader).with_operation(op);
            match frame_reason(frame, frame.len() as u64) {
                Some(r) => e.with_reason(r),
                None => e,
            }
        };
        let Some(len) = announced.filter(|_| frame.len() == HEADER_MINLEN) else {
            return Err(bad(&frame));
        };
        if frame_reason(&frame, len).is_some() || len < HEADER_MINLEN as u64 {
            return Err(bad(&frame));
        }
        read_up_to(&mut input, &mut frame, len - HEADER_MINLEN as u64, op)?;
        if (frame.len() as u64) < len {
            return Err(Error::new(ErrorKind::ReadBuffer)
                .with_operation(op)
                .with_reason(Reason::Truncated {
                    expected: len,
                    actual: frame.len() as u64,
                }));
        }
        let sc = Schunk::from_frame(&frame).map_err(|e| e.with_operation(op))?;
        Ok(Decoder {
            input,
            sc,
            cursor: Cursor::default(),
        })
    }

    /// The super-chunk read, for its settings and metalayers.
    pub fn schunk(&self) -> &Schunk {
        &self.sc
    }

    /// The stream, positioned just after the frame.
    pub fn into_inner(self) -> R {
        self.input
    }
}

/// Appends up to `n` bytes of `input` to `buf` (fewer only at its end).
fn read_up_to(input: &mut impl Read, buf: &mut Vec<u8>, n: u64, op: &str) -> Result<(), Error> {
    input.take(n).read_to_end(buf).map_err(|e| {
        Error::new(ErrorKind::ReadBuffer)
            .with_operation(op)
            .with_source(e)
    })?;
    Ok(())
}

/// The frame length a header announces, if it is there and not negative.
fn frame_len(head: &[u8]) -> Option<u64> {
    let b = head.get(pos::FRAME_LEN..pos::FRAME_LEN + 8)?;
    u64::try_from(i64::from_be_bytes(b.try_into().ok()?)).ok()
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.cursor.read(&self.sc, out)
    }
}

impl<R: Read> Seek for Decoder<R> {
    /// Moves in the decompressed bytes (not in the stream, which has been
    /// read already).
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.cursor.seek(&self.sc, to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        (0..300_000u32)
            .flat_map(|i| (i / 3).to_le_bytes())
            .collect()
    }

    #[test]
    fn frames_go_through_any_stream_and_back() {
        let data = sample();
        let params = CParams::new().with_typesize(4);
        let mut enc = Encoder::new(Vec::new(), &params, 100_000).unwrap();
        for piece in data.chunks(7777) {
            enc.write_all(piece).unwrap();
        }
        enc.schunk_mut().set_vlmeta("origin", b"test").unwrap();
        let mut stream = enc.finish().unwrap();
        // the frame is the one a Schunk would write
        let sc = Schunk::from_frame(&stream).unwrap();
        assert_eq!(sc.nchunks(), 12);
        assert_eq!(sc.typesize(), 4);
        assert_eq!(sc.vlmeta("origin").unwrap().as_deref(), Some(&b"test"[..]));
        let one = stream.len();
        // a second frame after the first, to read one after the other
        stream.extend_from_slice(&Schunk::from_frame(&stream).unwrap().to_frame().unwrap());
        stream.extend_from_slice(b"tail");

        let mut dec = Decoder::new(&stream[..]).unwrap();
        assert_eq!(dec.schunk().nbytes(), data.len() as u64);
        let mut back = Vec::new();
        dec.read_to_end(&mut back).unwrap();
        assert_eq!(back, data);
        let rest = dec.into_inner();
        assert_eq!(rest.len(), stream.len() - one);
        let mut dec = Decoder::new(rest).unwrap();
        dec.seek(SeekFrom::End(-8)).unwrap();
        let mut last = [0u8; 8];
        dec.read_exact(&mut last).unwrap();
        assert_eq!(last, data[data.len() - 8..]);
        assert_eq!(dec.into_inner(), b"tail");
    }

    #[test]
    fn short_or_foreign_streams_say_why() {
        let mut enc = Encoder::new(Vec::new(), &CParams::new(), 1000).unwrap();
        enc.write_all(&sample()[..5000]).unwrap();
        let frame = enc.finish().unwrap();
        let len = frame.len() as u64;
        let e = Decoder::new(&frame[..frame.len() - 10]).unwrap_err();
        assert_eq!(
            e.reason(),
            Some(&Reason::Truncated {
                expected: len,
                actual: len - 10
            })
        );
        assert!(e
            .to_string()
            .starts_with("reading a frame from a stream: the frame is truncated"));
        let e = Decoder::new(&frame[..50]).unwrap_err();
        assert_eq!(
            e.reason(),
            Some(&Reason::Truncated {
                expected: len,
                actual: 50
            })
        );
        let e = Decoder::new(
            &b"not a frame at all, just some text long enough to fill a header......"[..],
        )
        .unwrap_err();
        assert_eq!(e.reason(), Some(&Reason::NotAFrame));
        let e = Decoder::new(io::empty()).unwrap_err();
        assert!(
            matches!(e.reason(), Some(Reason::Truncated { actual: 0, .. })),
            "{e}"
        );
    }

    #[test]
    fn an_empty_encoder_writes_an_empty_frame() {
        let frame = Encoder::new(Vec::new(), &CParams::new(), 10)
            .unwrap()
            .finish()
            .unwrap();
        let mut back = Vec::new();
        Decoder::new(&frame[..])
            .unwrap()
            .read_to_end(&mut back)
            .unwrap();
        assert!(back.is_empty());
    }
}
