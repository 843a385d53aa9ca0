//! Building protobuf messages by hand, for the tests of the decoders.

/// A protobuf message under construction.
#[derive(Default, Clone)]
pub(crate) struct Enc(pub(crate) Vec<u8>);

impl Enc {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn varint_raw(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.0.push((value as u8) | 0x80);
            value >>= 7;
        }
        self.0.push(value as u8);
    }

    pub(crate) fn varint(mut self, number: u32, value: u64) -> Self {
        self.varint_raw(u64::from(number) << 3);
        self.varint_raw(value);
        self
    }

    pub(crate) fn bytes(mut self, number: u32, value: &[u8]) -> Self {
        self.varint_raw(u64::from(number) << 3 | 2);
        self.varint_raw(value.len() as u64);
        self.0.extend_from_slice(value);
        self
    }

    pub(crate) fn str(self, number: u32, value: &str) -> Self {
        self.bytes(number, value.as_bytes())
    }

    pub(crate) fn msg(self, number: u32, value: Enc) -> Self {
        self.bytes(number, &value.0)
    }

    pub(crate) fn entry(self, number: u32, key: &str, value: &str) -> Self {
        self.msg(number, Enc::new().str(1, key).str(2, value))
    }
}

/// `{seconds, nanos}`.
pub(crate) fn time(seconds: u64, nanos: u64) -> Enc {
    Enc::new().varint(1, seconds).varint(2, nanos)
}

/// An ObjectMeta as the server writes it: every non-pointer field, zero or not.
pub(crate) fn meta(name: &str, namespace: &str) -> Enc {
    Enc::new()
        .str(1, name)
        .str(2, "")
        .str(3, namespace)
        .str(4, "")
        .str(5, "uid-1")
        .str(6, "42")
        .varint(7, 0)
        .msg(8, time(1_700_000_000, 0))
        .entry(11, "app", "web")
        .msg(
            17,
            Enc::new()
                .str(1, "kubectl")
                .str(2, "Update")
                .str(3, "v1")
                .msg(4, time(1_700_000_000, 0))
                .str(6, "FieldsV1")
                .msg(7, Enc::new().bytes(1, br#"{"f:data":{".":{}}}"#))
                .str(8, ""),
        )
}

/// `k8s\0` + `runtime.Unknown{typeMeta, raw}`.
pub(crate) fn envelope(api_version: &str, kind: &str, raw: &Enc) -> Vec<u8> {
    let unknown = Enc::new()
        .msg(1, Enc::new().str(1, api_version).str(2, kind))
        .bytes(2, &raw.0)
        .str(3, "")
        .str(4, "");
    [&b"k8s\0"[..], &unknown.0].concat()
}
