//! Names the generated code uses: kube's default plural and the lister's namespace accessor.

use heck::ToSnakeCase;

/// kube's `CustomResource` pluralizer, which names the URL segment when `plural` is not
/// given: `-es` after s, x, z, ch and sh; `-ies` for a consonant followed by y; `-s`
/// otherwise. Irregular plurals must be spelled out with `plural = "..."`, as in kube.
///
/// Matching kube exactly keeps the accessor in step with the URL kube builds.
pub(crate) fn kube_plural(singular: &str) -> String {
    if ["s", "x", "z", "ch", "sh"].iter().any(|ending| singular.ends_with(ending)) {
        return format!("{singular}es");
    }
    if let Some(stem) = singular.strip_suffix('y')
        && stem.chars().next_back().is_some_and(|c| !matches!(c, 'a' | 'e' | 'i' | 'o' | 'u'))
    {
        return format!("{stem}ies");
    }
    format!("{singular}s")
}

/// The lister's namespace accessor: the plural in snake case, with word breaks taken from
/// the kind so that CRDs read like the built-ins (`NetworkPolicy` + `networkpolicies` ->
/// `network_policies`, `ServiceCIDR` + `servicecidrs` -> `service_cidrs`).
///
/// The plural is the source of the letters; the kind only says where words break, for the
/// stretch where both spell the same letters. An irregular plural such as `feet` for `Foot`
/// stays as written.
pub(crate) fn namespace_accessor(kind: &str, plural: &str) -> String {
    let mut accessor = String::with_capacity(plural.len() + 4);
    let mut rest = plural.chars().peekable();
    let mut word_break = false;
    for c in kind.to_snake_case().chars() {
        if c == '_' {
            word_break = true;
            continue;
        }
        match rest.peek() {
            Some(next) if next.eq_ignore_ascii_case(&c) => {
                if word_break && !accessor.is_empty() {
                    accessor.push('_');
                }
                word_break = false;
                accessor.push(c);
                rest.next();
            }
            _ => break,
        }
    }
    accessor.extend(rest);
    accessor.to_snake_case()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_follows_kube_derive() {
        // kube-derive 5.0.0: custom_resource/mod.rs `to_plural`.
        let cases = [
            ("foo", "foos"),
            ("crontab", "crontabs"),
            ("fox", "foxes"),
            ("bus", "buses"),
            ("quiz", "quizes"),
            ("batch", "batches"),
            ("mesh", "meshes"),
            ("policy", "policies"),
            ("day", "days"),
            ("key", "keys"),
            ("boy", "boys"),
            ("guy", "guys"),
            ("y", "ys"),
            ("leaf", "leafs"),
            ("endpoints", "endpointses"),
        ];
        for (singular, plural) in cases {
            assert_eq!(kube_plural(singular), plural, "singular {singular}");
        }
    }

    #[test]
    fn accessor_breaks_words_where_the_kind_does() {
        let cases = [
            ("Foo", "foos", "foos"),
            ("FooBar", "foobars", "foo_bars"),
            ("CronTab", "crontabs", "cron_tabs"),
            ("NetworkPolicy", "networkpolicies", "network_policies"),
            ("ServiceCIDR", "servicecidrs", "service_cidrs"),
            ("IPPool", "ippools", "ip_pools"),
            ("DNSRecord", "dnsrecords", "dns_records"),
            ("Ipv4Pool", "ipv4pools", "ipv4_pools"),
            ("Box", "boxes", "boxes"),
        ];
        for (kind, plural, accessor) in cases {
            assert_eq!(namespace_accessor(kind, plural), accessor, "kind {kind}, plural {plural}");
        }
    }

    #[test]
    fn accessor_keeps_an_irregular_plural_as_written() {
        assert_eq!(namespace_accessor("Foot", "feet"), "feet");
        assert_eq!(namespace_accessor("FooBar", "foozles"), "foozles");
        // The kind's word break only applies where the plural still spells the kind.
        assert_eq!(namespace_accessor("FooBar", "foos"), "foos");
    }

    #[test]
    fn accessor_turns_dashes_into_underscores() {
        assert_eq!(namespace_accessor("FooBar", "foo-bars"), "foo_bars");
    }
}
