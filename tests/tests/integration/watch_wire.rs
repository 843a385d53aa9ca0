//! The watch event lines a server writes have the shape the in-place route takes
//! (`{"type":"ADDED","object":{…}}`: Go's encoding/json, `type` first, no whitespace), so
//! that a built-in kind's watch events are decoded in place, as its lists are. A server
//! that wrote another shape would still be understood, only more slowly: this test is
//! what notices.

use k8s_openapi::api::core::v1::Pod;
use kube::api::WatchParams;
use kube_informers_testkit::SeedKind;
use kube_informers_tests::on_both_servers;

on_both_servers! {
async fn watch_event_lines_have_the_shape_decoded_in_place(cluster) {
    cluster.seed(SeedKind::Pods, "wire", 3).await.unwrap();
    let client = cluster.client().unwrap();
    // From resource version 0 the server starts with an ADDED event per Pod; after a
    // second it ends the watch, and the body is whole. Bookmarks (which have the same
    // shape, and are not decoded in place) are off.
    let request = kube::core::Request::new("/api/v1/namespaces/wire/pods")
        .watch(&WatchParams::default().timeout(1).disable_bookmarks(), "0")
        .unwrap();
    let body = client.request_text(request).await.unwrap();
    let prefix = r#"{"type":"ADDED","object":"#;
    let mut names = Vec::new();
    for line in body.lines().filter(|line| !line.is_empty()) {
        let object = line
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix('}'))
            .unwrap_or_else(|| panic!("a line not in the server shape: {}", &line[..80.min(line.len())]));
        let pod: Pod = serde_json::from_str(object).expect("the object is the rest of the line");
        names.push(pod.metadata.name.unwrap());
    }
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
}
}
