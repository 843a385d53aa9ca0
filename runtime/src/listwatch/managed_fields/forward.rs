//! Macros that forward every `deserialize_*` or `visit_*` method of a serde wrapper to
//! the value it wraps, for the wrappers of `managed_fields`.

/// Forwards every `deserialize_*` method of serde's `Deserializer` to the inner
/// deserializer, with the visitor wrapped by `$wrap`.
macro_rules! forward_every_deserialize {
    (@each $wrap:expr; $($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
                let wrap = $wrap;
                let (inner, visitor) = wrap(self, visitor);
                inner.$method($($arg,)* visitor)
            }
        )*
    };
    // Every method but `deserialize_ignored_any`, for a wrapper that handles that one itself.
    (@but_ignored_any $wrap:expr) => {
        forward_every_deserialize! {
            @each $wrap;
            deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(),
            deserialize_i32(), deserialize_i64(), deserialize_i128(), deserialize_u8(),
            deserialize_u16(), deserialize_u32(), deserialize_u64(), deserialize_u128(),
            deserialize_f32(), deserialize_f64(), deserialize_char(), deserialize_str(),
            deserialize_string(), deserialize_bytes(), deserialize_byte_buf(),
            deserialize_option(), deserialize_unit(), deserialize_seq(), deserialize_map(),
            deserialize_identifier(),
            deserialize_unit_struct(name: &'static str),
            deserialize_newtype_struct(name: &'static str),
            deserialize_tuple(len: usize),
            deserialize_tuple_struct(name: &'static str, len: usize),
            deserialize_struct(name: &'static str, fields: &'static [&'static str]),
            deserialize_enum(name: &'static str, variants: &'static [&'static str]),
        }
    };
    ($wrap:expr) => {
        forward_every_deserialize! { @but_ignored_any $wrap }
        forward_every_deserialize! { @each $wrap; deserialize_ignored_any() }
    };
}

/// Forwards `visit_*` methods that take a plain value; `forward_visits!(@plain)` forwards
/// every one of them, `visit_none` and `visit_unit` included, for a wrapper that only
/// changes the visits of maps, sequences and nested deserializers.
macro_rules! forward_visits {
    (@plain) => {
        forward_visits! {
            visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64),
            visit_i128(i128), visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64),
            visit_u128(u128), visit_f32(f32), visit_f64(f64), visit_char(char),
            visit_str(&str), visit_borrowed_str(&'de str), visit_string(String),
            visit_bytes(&[u8]), visit_borrowed_bytes(&'de [u8]), visit_byte_buf(Vec<u8>),
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            self.inner.visit_none()
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            self.inner.visit_unit()
        }
    };
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(
            fn $method<E: de::Error>(self, value: $ty) -> Result<Self::Value, E> {
                self.inner.$method(value)
            }
        )*
    };
}

pub(crate) use {forward_every_deserialize, forward_visits};
