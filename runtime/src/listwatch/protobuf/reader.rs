//! Reading the protobuf wire format: varints, tags, length-delimited values, fixed 32 and
//! 64 bit values, and skipping a field of any wire type. Every read checks its bounds: a
//! truncated message is an error, never a panic.

use super::error::{Error, Result};

/// Wire type 0: a varint.
pub(crate) const VARINT: u8 = 0;
/// Wire type 1: 8 bytes, little-endian.
pub(crate) const FIXED64: u8 = 1;
/// Wire type 2: a varint length, then that many bytes.
pub(crate) const LEN: u8 = 2;
/// Wire type 5: 4 bytes, little-endian.
pub(crate) const FIXED32: u8 = 5;

/// A cursor over one message's bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader<'de> {
    buf: &'de [u8],
    pos: usize,
}

impl<'de> Reader<'de> {
    pub(crate) fn new(buf: &'de [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// Whether every byte is read.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// How far into the bytes the cursor is.
    #[inline]
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// The bytes from `start` to the cursor.
    #[inline]
    pub(crate) fn since(&self, start: usize) -> &'de [u8] {
        &self.buf[start..self.pos]
    }

    /// One varint (at most 10 bytes).
    #[inline]
    pub(crate) fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let Some(&byte) = self.buf.get(self.pos) else {
                return Err(Error::wire("truncated varint"));
            };
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err(Error::wire("varint longer than 10 bytes"))
    }

    /// The next field's number and wire type; `None` at the end.
    #[inline]
    pub(crate) fn tag(&mut self) -> Result<Option<(u32, u8)>> {
        if self.is_empty() {
            return Ok(None);
        }
        let tag = self.varint()?;
        let number = u32::try_from(tag >> 3).map_err(|_| Error::wire("field number too large"))?;
        if number == 0 {
            return Err(Error::wire("field number 0"));
        }
        Ok(Some((number, (tag & 7) as u8)))
    }

    /// The field number of the next tag, without moving; `None` at the end or on a bad tag.
    #[inline]
    pub(crate) fn peek_number(&self) -> Option<u32> {
        let mut ahead = *self;
        ahead.tag().ok().flatten().map(|(number, _)| number)
    }

    /// `n` bytes.
    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'de [u8]> {
        let end = self.pos.checked_add(n).filter(|end| *end <= self.buf.len());
        let Some(end) = end else { return Err(Error::wire("truncated field")) };
        let bytes = &self.buf[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    /// A length-delimited value.
    #[inline]
    pub(crate) fn len_delimited(&mut self) -> Result<&'de [u8]> {
        let len = self.varint()?;
        self.take(usize::try_from(len).map_err(|_| Error::wire("length too large"))?)
    }

    pub(crate) fn fixed64(&mut self) -> Result<u64> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }

    pub(crate) fn fixed32(&mut self) -> Result<u32> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes(bytes.try_into().expect("4 bytes")))
    }

    /// Skips the run of entries of the repeated field `number` that starts here (its first
    /// tag, of `wire` type, is read) and returns how many there are. Go writes a slice's
    /// entries one after another.
    pub(crate) fn skip_run(&mut self, number: u32, wire: u8) -> Result<usize> {
        self.skip(wire)?;
        let mut count = 1;
        while self.peek_number() == Some(number) {
            let (_, wire) = self.tag()?.expect("a tag was peeked");
            self.skip(wire)?;
            count += 1;
        }
        Ok(count)
    }

    /// Skips the value of a field of `wire` type.
    pub(crate) fn skip(&mut self, wire: u8) -> Result<()> {
        match wire {
            VARINT => self.varint().map(drop),
            FIXED64 => self.take(8).map(drop),
            LEN => self.len_delimited().map(drop),
            FIXED32 => self.take(4).map(drop),
            other => Err(Error::wire(format_args!("unsupported wire type {other}"))),
        }
    }
}

/// Reads a whole message as `(number, wire, value)` fields, where the value of a
/// length-delimited field is its bytes and that of a varint or fixed field its number.
/// For the small fixed messages (the envelope, `Time`, map entries).
pub(crate) fn for_each_field<'de>(
    bytes: &'de [u8],
    mut each: impl FnMut(u32, Scalar<'de>) -> Result<()>,
) -> Result<()> {
    let mut reader = Reader::new(bytes);
    while let Some((number, wire)) = reader.tag()? {
        let value = match wire {
            VARINT => Scalar::Number(reader.varint()?),
            FIXED64 => Scalar::Number(reader.fixed64()?),
            FIXED32 => Scalar::Number(u64::from(reader.fixed32()?)),
            LEN => Scalar::Bytes(reader.len_delimited()?),
            other => return Err(Error::wire(format_args!("unsupported wire type {other}"))),
        };
        each(number, value)?;
    }
    Ok(())
}

/// One field value as [`for_each_field`] reads it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Scalar<'de> {
    Number(u64),
    Bytes(&'de [u8]),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_tags_and_lengths_read_and_truncation_is_an_error() {
        // 300 = 0xac 0x02; tag (field 2, LEN) = 0x12.
        let mut reader = Reader::new(&[0xac, 0x02, 0x12, 0x03, b'a', b'b', b'c']);
        assert_eq!(reader.varint().unwrap(), 300);
        assert_eq!(reader.tag().unwrap(), Some((2, LEN)));
        assert_eq!(reader.len_delimited().unwrap(), b"abc");
        assert!(reader.is_empty());
        assert_eq!(reader.tag().unwrap(), None);

        // -1 as a 64-bit varint is ten bytes.
        let mut minus_one = vec![0xff; 9];
        minus_one.push(0x01);
        assert_eq!(Reader::new(&minus_one).varint().unwrap() as i64, -1);

        for truncated in [&[0x80][..], &[0x12, 0x05, b'a'], &[0x09, 1, 2, 3], &[0x15, 1]] {
            let mut reader = Reader::new(truncated);
            let result = reader.tag().and_then(|tag| match tag {
                Some((_, wire)) => reader.skip(wire),
                None => Ok(()),
            });
            assert!(result.is_err(), "{truncated:?}");
        }
        assert!(Reader::new(&[0xff; 11]).varint().is_err());
        // Field number 0 and wire types 3, 4 (groups), 6, 7 are errors.
        assert!(Reader::new(&[0x02]).tag().is_err());
        let mut group = Reader::new(&[0x0b]);
        let (_, wire) = group.tag().unwrap().unwrap();
        assert!(group.skip(wire).is_err());
    }

    #[test]
    fn every_wire_type_skips() {
        let bytes =
            [0x08, 0x96, 0x01, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0x1a, 0x01, b'x', 0x25, 0, 0, 0, 0];
        let mut seen = Vec::new();
        for_each_field(&bytes, |number, value| {
            seen.push((number, matches!(value, Scalar::Bytes(b"x")) as u8));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(1, 0), (2, 0), (3, 1), (4, 0)]);
        let mut reader = Reader::new(&bytes);
        while let Some((_, wire)) = reader.tag().unwrap() {
            reader.skip(wire).unwrap();
        }
        assert!(reader.is_empty());
    }
}
