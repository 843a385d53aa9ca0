//! The JSON text of the kinds Go marshals by hand: `metav1.Time` and `MicroTime` as
//! RFC 3339 in UTC (`Time` at seconds precision, `MicroTime` at microseconds, as their
//! `MarshalJSON` truncates them), and `[]byte` as standard base64.

use super::{
    error::Result,
    reader::{Scalar, for_each_field},
};

/// Seconds from 0001-01-01 to 1970-01-01: Go's zero `time.Time`, which JSON shows as null.
const GO_ZERO_UNIX: i64 = -62_135_596_800;

/// A formatted time, on the stack.
#[derive(Clone, Copy)]
pub(crate) struct TimeText {
    bytes: [u8; 27],
    len: u8,
}

impl TimeText {
    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII digits and separators are written.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

/// The JSON text of a `Time` (`micro`: a `MicroTime`) message `{seconds = 1, nanos = 2}`;
/// `None` for the zero time (an empty message), which Go's JSON writes as null.
pub(crate) fn time(message: &[u8], micro: bool) -> Result<Option<TimeText>> {
    Ok(instant(message, micro)?.map(|(seconds, nanos)| format(seconds, nanos, micro)))
}

/// The instant of a `Time` (`micro`: a `MicroTime`) message as Go's JSON shows it: seconds
/// since the Unix epoch and the nanoseconds after them, truncated to whole seconds (or to
/// microseconds); `None` for the zero time, an error outside years 0 to 9999 (which RFC
/// 3339 cannot write).
pub(crate) fn instant(message: &[u8], micro: bool) -> Result<Option<(i64, u32)>> {
    if message.is_empty() {
        return Ok(None);
    }
    let (mut seconds, mut nanos) = (0i64, 0i64);
    for_each_field(message, |number, value| {
        match (number, value) {
            (1, Scalar::Number(value)) => seconds = value as i64,
            (2, Scalar::Number(value)) => nanos = i64::from(value as i32),
            _ => {}
        }
        Ok(())
    })?;
    if seconds == GO_ZERO_UNIX && nanos == 0 {
        return Ok(None);
    }
    let total = i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
    let seconds = total.div_euclid(1_000_000_000);
    let nanos = total.rem_euclid(1_000_000_000) as u32;
    if !(YEAR_0_UNIX..YEAR_10000_UNIX).contains(&seconds) {
        return Err(serde::de::Error::custom("a time outside years 0 to 9999"));
    }
    let nanos = if micro { nanos / 1000 * 1000 } else { 0 };
    Ok(Some((seconds as i64, nanos)))
}

/// Seconds from 0000-01-01 and from 10000-01-01 to 1970-01-01.
const YEAR_0_UNIX: i128 = -62_167_219_200;
const YEAR_10000_UNIX: i128 = 253_402_300_800;

/// `seconds` and `nanos` since the Unix epoch (in years 0 to 9999) as
/// `YYYY-MM-DDTHH:MM:SSZ`, or with six fraction digits (`micro`).
fn format(seconds: i64, nanos: u32, micro: bool) -> TimeText {
    let days = i128::from(seconds).div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400) as u32;
    let (year, month, day) = civil_from_days(days);
    let mut text = TimeText { bytes: [0; 27], len: 0 };
    let mut put = |value: u32, digits: u32, after: u8| {
        for i in (0..digits).rev() {
            text.bytes[usize::from(text.len)] = b'0' + (value / 10u32.pow(i) % 10) as u8;
            text.len += 1;
        }
        if after != 0 {
            text.bytes[usize::from(text.len)] = after;
            text.len += 1;
        }
    };
    put(year as u32, 4, b'-');
    put(month, 2, b'-');
    put(day, 2, b'T');
    put(of_day / 3600, 2, b':');
    put(of_day / 60 % 60, 2, b':');
    if micro {
        put(of_day % 60, 2, b'.');
        put(nanos / 1000, 6, b'Z');
    } else {
        put(of_day % 60, 2, b'Z');
    }
    text
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i128) -> (i128, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i128::from(month <= 2);
    (year, month, day)
}

/// `bytes` in standard base64 with padding, as Go's JSON writes a `[]byte`.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time_message(seconds: i64, nanos: i32) -> Vec<u8> {
        let mut out = vec![0x08];
        let mut v = seconds as u64;
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        out.push(0x10);
        let mut v = nanos as i64 as u64;
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        out
    }

    #[test]
    fn times_format_as_go_marshals_them() {
        let at = |seconds, nanos, micro| {
            time(&time_message(seconds, nanos), micro).unwrap().map(|t| t.as_str().to_owned())
        };
        assert_eq!(at(0, 0, false).as_deref(), Some("1970-01-01T00:00:00Z"));
        // 2024-02-29T23:59:59.123456789Z: seconds truncated, micro keeps six digits.
        assert_eq!(at(1_709_251_199, 123_456_789, false).as_deref(), Some("2024-02-29T23:59:59Z"));
        assert_eq!(
            at(1_709_251_199, 123_456_789, true).as_deref(),
            Some("2024-02-29T23:59:59.123456Z")
        );
        assert_eq!(at(-1, 0, false).as_deref(), Some("1969-12-31T23:59:59Z"));
        assert_eq!(at(253_402_300_799, 0, false).as_deref(), Some("9999-12-31T23:59:59Z"));
        assert!(time(&time_message(253_402_300_800, 0), false).is_err());
        assert_eq!(at(-62_167_219_200, 0, false).as_deref(), Some("0000-01-01T00:00:00Z"));
        assert!(time(&time_message(-62_167_219_201, 999_999_999), false).is_err());
        assert_eq!(instant(&time_message(-1, 1_500), true).unwrap(), Some((-1, 1_000)));
        assert_eq!(instant(&time_message(-1, 1_500), false).unwrap(), Some((-1, 0)));
        // The zero time, empty or explicit, is null.
        assert!(time(&[], false).unwrap().is_none());
        assert_eq!(at(GO_ZERO_UNIX, 0, false), None);
        assert!(time(&[0x08], false).is_err(), "truncated");
    }

    #[test]
    fn bytes_are_standard_padded_base64() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(&[0, 1, 2, 0xff, 0xfe]), "AAEC//4=");
    }
}
