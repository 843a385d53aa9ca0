use std::io::Write;

use flate2::{Compression, write::GzEncoder};

use super::*;

fn gzip(plain: &[u8]) -> Vec<u8> {
    gzip_at(plain, Compression::fast())
}

fn gzip_at(plain: &[u8], level: Compression) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), level);
    encoder.write_all(plain).unwrap();
    encoder.finish().unwrap()
}

fn headers(encoding: Option<&str>) -> http::HeaderMap {
    let mut headers = http::HeaderMap::new();
    if let Some(encoding) = encoding {
        headers.insert(http::header::CONTENT_ENCODING, encoding.parse().unwrap());
    }
    headers
}

/// A sink that takes each piece out of its buffer as it is appended.
#[derive(Default)]
struct Pieces {
    buffer: Vec<u8>,
    pieces: Vec<Vec<u8>>,
}

impl PlainSink for Pieces {
    fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buffer
    }

    fn appended(&mut self, bytes: usize) -> Result<(), kube::Error> {
        assert_eq!(bytes, self.buffer.len(), "the piece is all that the sink left");
        self.pieces.push(std::mem::take(&mut self.buffer));
        Ok(())
    }
}

/// Feeds `body` in chunks of `chunk` bytes; the plain pieces handed out, in order.
fn inflate(encoding: Option<&str>, body: &[u8], chunk: usize) -> Result<Vec<Vec<u8>>, kube::Error> {
    let mut decoding = BodyDecoding::of(&headers(encoding))?;
    let mut sink = Pieces::default();
    for piece in body.chunks(chunk) {
        decoding.feed(piece, &mut sink)?;
    }
    decoding.finish()?;
    Ok(sink.pieces)
}

fn list_json(items: usize) -> Vec<u8> {
    let items: Vec<String> = (0..items)
        .map(|i| {
            format!(r#"{{"metadata":{{"name":"pod-{i}","labels":{{"app":"web-{}"}}}}}}"#, i % 7)
        })
        .collect();
    format!(r#"{{"kind":"PodList","items":[{}]}}"#, items.join(",")).into_bytes()
}

fn is_invalid_data(err: &kube::Error) -> bool {
    matches!(err, kube::Error::ReadEvents(io) if io.kind() == io::ErrorKind::InvalidData)
}

#[test]
fn a_gzip_body_inflates_to_the_same_bytes_in_any_chunking() {
    let plain = list_json(5_000);
    let body = gzip(&plain);
    assert!(body.len() * 5 < plain.len(), "the test body compresses");
    for chunk in [1, 7, 1_000, OUTPUT_STEP + 1, body.len()] {
        let pieces = inflate(Some("gzip"), &body, chunk).unwrap();
        assert_eq!(pieces.concat(), plain, "chunks of {chunk} bytes");
    }
}

#[test]
fn an_uncompressed_body_passes_through_chunk_by_chunk() {
    let plain = list_json(10);
    for encoding in [None, Some("identity")] {
        let pieces = inflate(encoding, &plain, 100).unwrap();
        assert_eq!(pieces, plain.chunks(100).map(<[u8]>::to_vec).collect::<Vec<_>>());
    }
}

#[test]
fn the_encoding_name_is_case_insensitive_and_members_may_follow_each_other() {
    let (first, second) = (list_json(3), list_json(4));
    let body = [gzip(&first), gzip(&second)].concat();
    let pieces = inflate(Some("GZip"), &body, 50).unwrap();
    assert_eq!(pieces.concat(), [first, second].concat());
}

#[test]
fn one_piece_stays_bounded_however_well_a_chunk_compresses() {
    let plain = vec![b' '; 12 << 20];
    let body = gzip_at(&plain, Compression::best());
    assert!(body.len() < 64 << 10, "{} compressed bytes", body.len());
    let pieces = inflate(Some("gzip"), &body, body.len()).unwrap();
    assert!(pieces.len() > 2, "{} pieces", pieces.len());
    let largest = pieces.iter().map(Vec::len).max().unwrap();
    assert!(largest <= OUTPUT_STEP, "a piece of {largest} bytes");
    assert_eq!(pieces.iter().map(Vec::len).sum::<usize>(), plain.len());
}

#[test]
fn a_cut_or_corrupt_gzip_body_is_a_transport_error() {
    let body = gzip(&list_json(200));
    let cut = inflate(Some("gzip"), &body[..body.len() - 6], 64).unwrap_err();
    assert!(is_invalid_data(&cut), "{cut}");
    let mut corrupt = body.clone();
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 0xff;
    corrupt[middle + 1] ^= 0x5a;
    let err = inflate(Some("gzip"), &corrupt, 64).unwrap_err();
    assert!(is_invalid_data(&err), "{err}");
    let not_gzip = inflate(Some("gzip"), b"{\"kind\":\"PodList\"}", 64).unwrap_err();
    assert!(is_invalid_data(&not_gzip), "{not_gzip}");
    let empty = inflate(Some("gzip"), b"", 64).unwrap_err();
    assert!(is_invalid_data(&empty), "{empty}");
}

#[test]
fn a_wrong_checksum_or_length_in_the_trailer_is_a_transport_error() {
    let plain = list_json(200);
    let body = gzip(&plain);
    // The trailer: CRC-32 of the plain bytes, then their length, 4 bytes each.
    for at in [body.len() - 8, body.len() - 1] {
        let mut wrong = body.clone();
        wrong[at] ^= 0x01;
        let err = inflate(Some("gzip"), &wrong, 64).unwrap_err();
        assert!(is_invalid_data(&err), "byte {at}: {err}");
    }
}

#[test]
fn bytes_after_a_member_that_start_no_member_are_a_transport_error() {
    let mut body = gzip(&list_json(3));
    body.extend_from_slice(b"trailing");
    let err = inflate(Some("gzip"), &body, 5).unwrap_err();
    assert!(is_invalid_data(&err), "{err}");
}

#[test]
fn an_encoding_not_asked_for_is_refused_by_name() {
    let err = BodyDecoding::of(&headers(Some("br"))).err().expect("br is refused");
    assert!(is_invalid_data(&err));
    assert!(err.to_string().contains("\"br\""), "{err}");
}
