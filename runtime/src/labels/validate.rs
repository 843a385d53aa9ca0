//! The rules label keys and values follow (apimachinery's `IsQualifiedName` and
//! `IsValidLabelValue`).

const MAX_NAME_LENGTH: usize = 63;
const MAX_DNS_SUBDOMAIN_LENGTH: usize = 253;

/// A label key: a qualified name, `[prefix/]name` (apimachinery's `IsQualifiedName`).
pub(super) fn validate_key(key: &str) -> std::result::Result<(), &'static str> {
    let (prefix, name) = match key.split_once('/') {
        None => (None, key),
        Some((_, name)) if name.contains('/') => {
            return Err("a qualified name has at most one '/', between a DNS subdomain prefix \
                        and a name");
        }
        Some((prefix, name)) => (Some(prefix), name),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            return Err("the prefix before '/' must be non-empty");
        }
        if prefix.len() > MAX_DNS_SUBDOMAIN_LENGTH {
            return Err("the prefix before '/' must be no more than 253 characters");
        }
        if !is_dns1123_subdomain(prefix) {
            return Err("the prefix before '/' must be a lowercase RFC 1123 subdomain: lowercase \
                        alphanumerics, '-' or '.', starting and ending each label with an \
                        alphanumeric");
        }
    }
    if name.is_empty() {
        return Err("the name part must be non-empty");
    }
    if name.len() > MAX_NAME_LENGTH {
        return Err("the name part must be no more than 63 characters");
    }
    if !is_name(name) {
        return Err("the name part must consist of alphanumerics, '-', '_' or '.', and start \
                    and end with an alphanumeric");
    }
    Ok(())
}

/// A label value: empty, or a name of at most 63 characters (apimachinery's
/// `IsValidLabelValue`).
pub(super) fn validate_value(value: &str) -> std::result::Result<(), &'static str> {
    if value.len() > MAX_NAME_LENGTH {
        return Err("a label value must be no more than 63 characters");
    }
    if !value.is_empty() && !is_name(value) {
        return Err("a label value must be empty or consist of alphanumerics, '-', '_' or '.', \
                    and start and end with an alphanumeric");
    }
    Ok(())
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
pub(super) fn is_name(s: &str) -> bool {
    let bytes = s.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
pub(super) fn is_dns1123_subdomain(s: &str) -> bool {
    let is_lower_alphanumeric = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    s.split('.').all(|label| {
        let bytes = label.as_bytes();
        match (bytes.first(), bytes.last()) {
            (Some(first), Some(last)) => {
                is_lower_alphanumeric(first)
                    && is_lower_alphanumeric(last)
                    && bytes.iter().all(|b| is_lower_alphanumeric(b) || *b == b'-')
            }
            _ => false,
        }
    })
}
