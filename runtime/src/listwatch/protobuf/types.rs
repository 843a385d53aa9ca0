//! The shape of the schema table (`schema.rs`, generated): a message is its fields, a field
//! is its number, its JSON name, its [`Kind`] and its flags.

/// One protobuf message: a Go struct of the built-in API.
#[derive(Debug)]
pub(crate) struct Message {
    /// The Go type, `package path.Name`, for error messages.
    pub(crate) name: &'static str,
    /// The fields, sorted by number.
    pub(crate) fields: &'static [Field],
}

/// One field of a [`Message`].
#[derive(Debug)]
pub(crate) struct Field {
    pub(crate) number: u32,
    /// The key of the field in the object's JSON; empty for an [`Kind::Inline`] field.
    pub(crate) json: &'static str,
    pub(crate) kind: Kind,
    /// [`REPEATED`] and [`OMIT_ZERO`].
    pub(crate) flags: u8,
}

/// A repeated field (a Go slice): its entries come as one sequence.
pub(crate) const REPEATED: u8 = 1;
/// A Go `omitempty` field that is not a pointer: a zero value (0, `false`, `""`, no bytes)
/// is left out, as Go's JSON leaves it out. A pointer field keeps its zero value.
pub(crate) const OMIT_ZERO: u8 = 2;

/// How a field's protobuf value becomes the value its JSON holds.
#[derive(Debug)]
pub(crate) enum Kind {
    /// A signed integer of any width (varint).
    Int,
    /// An unsigned integer of any width (varint). No built-in type of client-go v0.36 has
    /// one (nor a float), but the generator emits them if one comes.
    #[allow(dead_code)]
    Uint,
    /// A `bool` (varint).
    Bool,
    /// A `float64` (`double`, fixed 64 bits).
    #[allow(dead_code)]
    Double,
    /// A `float32` (`float`, fixed 32 bits).
    #[allow(dead_code)]
    Float,
    /// A UTF-8 string.
    String,
    /// `[]byte`: a base64 string in JSON.
    Bytes,
    /// A nested struct.
    Message(&'static Message),
    /// A struct embedded with `json:",inline"`: its fields are the parent's JSON keys.
    Inline(&'static Message),
    /// A `map[string]V`: repeated `{key = 1, value = 2}` entries.
    Map(&'static Kind),
    /// `metav1.Time` (`{seconds = 1, nanos = 2}`): RFC 3339 at seconds precision; zero is null.
    Time,
    /// `metav1.MicroTime`: as [`Kind::Time`], at microseconds precision.
    MicroTime,
    /// `resource.Quantity` (`{string = 1}`): its string.
    Quantity,
    /// `intstr.IntOrString` (`{type = 1, intVal = 2, strVal = 3}`): a number or a string.
    IntOrString,
    /// `metav1.FieldsV1` and `runtime.RawExtension` (`{raw = 1}`): the raw bytes are the
    /// JSON itself; none is null.
    RawJson,
    /// A named `[]string` with its own message (`{repeated string items = 1}`, the
    /// `ExtraValue`s): a bare array in JSON.
    StringList,
}

impl Message {
    /// The field numbered `number`, if the message has one.
    #[inline]
    pub(crate) fn field(&self, number: u32) -> Option<&'static Field> {
        let fields = self.fields;
        // Numbers are mostly 1, 2, 3...: try the field's own index first.
        if let Some(field) = fields.get((number as usize).wrapping_sub(1))
            && field.number == number
        {
            return Some(field);
        }
        fields.binary_search_by_key(&number, |field| field.number).ok().map(|i| &fields[i])
    }
}
