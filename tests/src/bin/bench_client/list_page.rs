//! One page of a list, fetched as the informers' reflectors page theirs.

use kube::Client;

/// Items per page.
pub(crate) const PAGE_ITEMS: u32 = 500;

/// The body of the page of `/api/v1/{kind}` that `token` continues (the first page for an
/// empty token), or what failed.
pub(crate) async fn list_page(client: &Client, kind: &str, token: &str) -> Result<String, String> {
    let mut params = kube::api::ListParams::default().limit(PAGE_ITEMS);
    if !token.is_empty() {
        params = params.continue_token(token);
    }
    let request = kube::core::Request::new(format!("/api/v1/{kind}"))
        .list(&params)
        .map_err(|e| format!("request: {e}"))?;
    client.request_text(request).await.map_err(|e| format!("list: {e}"))
}
