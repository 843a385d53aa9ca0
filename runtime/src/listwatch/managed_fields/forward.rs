//! Macros that forward every `deserialize_*` or `visit_*` method of a serde wrapper to
//! the value it wraps, for the wrappers of `managed_fields`.

/// Forwards each `deserialize_*` method to the inner deserializer with the visitor
/// wrapped by `$wrap`.
macro_rules! forward_deserializer {
    ($wrap:expr; $($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
                let wrap = $wrap;
                let (inner, visitor) = wrap(self, visitor);
                inner.$method($($arg,)* visitor)
            }
        )*
    };
}

/// Forwards `visit_*` methods that take a plain value.
macro_rules! forward_visits {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(
            fn $method<E: de::Error>(self, value: $ty) -> Result<Self::Value, E> {
                self.inner.$method(value)
            }
        )*
    };
}

pub(super) use {forward_deserializer, forward_visits};
