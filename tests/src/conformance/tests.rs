use super::*;

fn add(key: &str, rv: &str) -> Callback {
    Callback {
        factory: "all".into(),
        handler: "h1".into(),
        kind: "add".into(),
        key: key.into(),
        rv: rv.into(),
        initial: Some(true),
        old_rv: None,
        tombstone: None,
    }
}

#[test]
fn parse_reads_callbacks_and_caches_and_ignores_a_torn_line() {
    let text = "{\"factory\":\"all\",\"handler\":\"h1\",\"kind\":\"add\",\"key\":\"a/x\",\"rv\":\"5\",\"initial\":true}\n\
                {\"factory\":\"all\",\"cache\":{\"a/x\":\"5\"}}\n{\"fac";
    let obs = Observation::parse(text).unwrap();
    assert_eq!(obs.callbacks, vec![add("a/x", "5")]);
    assert_eq!(obs.caches["all"]["a/x"], "5");
    assert_eq!(obs.model("all", "h1")["a/x"], "5");
}

#[test]
fn compare_ignores_cross_key_order_and_names_per_key_differences() {
    let go =
        Observation { callbacks: vec![add("a/x", "5"), add("a/y", "6")], ..Default::default() };
    let same =
        Observation { callbacks: vec![add("a/y", "6"), add("a/x", "5")], ..Default::default() };
    assert!(compare(&go, &same).is_empty());
    let other = Observation { callbacks: vec![add("a/x", "5")], ..Default::default() };
    let diffs = compare(&go, &other);
    assert_eq!(diffs.len(), 1);
    assert_eq!(diffs[0].name, CALLBACKS_DIFFER);
    assert_eq!(diffs[0].at, "all/h1 a/y");
}

fn update(key: &str, old: &str, rv: &str) -> Callback {
    Callback {
        kind: "update".into(),
        rv: rv.into(),
        initial: None,
        old_rv: Some(old.into()),
        ..add(key, rv)
    }
}

#[test]
fn compare_names_updates_only_client_go_made_for_unchanged_objects() {
    let ours = Observation {
        callbacks: vec![add("a/x", "5"), update("a/x", "5", "7")],
        ..Default::default()
    };
    let go = Observation {
        callbacks: vec![add("a/x", "5"), update("a/x", "5", "5"), update("a/x", "5", "7")],
        ..Default::default()
    };
    let diffs = compare(&go, &ours);
    assert_eq!(diffs.len(), 1);
    assert_eq!(diffs[0].name, RELIST_UNCHANGED_UPDATE);
    // The other way round (we made one client-go did not) is not that difference.
    assert_eq!(compare(&ours, &go)[0].name, CALLBACKS_DIFFER);
    // Nor is an unchanged update beside a real difference.
    let lost = Observation { callbacks: vec![add("a/x", "5")], ..Default::default() };
    assert_eq!(compare(&go, &lost)[0].name, CALLBACKS_DIFFER);
}

#[test]
fn allowed_differences_reads_the_names_of_one_section() {
    let doc = "# T\n## Other\n- **`not-this`** no\n## Allowed\n- **`one`** text\n  more\n\
               - **`two`** text\n- plain item\n### Sub\n- **`nested`** x\n## Next\n- **`after`**";
    assert_eq!(allowed_differences(doc, "Allowed"), ["one", "two"]);
}
