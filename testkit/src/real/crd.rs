//! Installing a CustomResourceDefinition on a real server and waiting until it is served.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{Error, Result};

use super::RealApiServer;

/// How long a new CRD may take to become Established and reach discovery.
const ESTABLISH_TIMEOUT: Duration = Duration::from_secs(30);

impl RealApiServer {
    /// Creates the CRD (JSON, as `TestApiServer::register_crd` takes it) and returns once it is
    /// `Established` and its resource answers a list, so informers started next find it.
    pub async fn register_crd(&self, crd: &Value) -> Result<()> {
        let client = self.client();
        let name = crd["metadata"]["name"].as_str().ok_or(Error::InvalidCrd)?.to_owned();
        let group = crd["spec"]["group"].as_str().ok_or(Error::InvalidCrd)?.to_owned();
        let plural = crd["spec"]["names"]["plural"].as_str().ok_or(Error::InvalidCrd)?.to_owned();
        let version =
            crd["spec"]["versions"][0]["name"].as_str().ok_or(Error::InvalidCrd)?.to_owned();
        let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        let request = http::Request::post(path)
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(crd.to_string().into_bytes())
            .map_err(|e| Error::Setup(e.to_string()))?;
        client
            .request_text(request)
            .await
            .map_err(|e| Error::Setup(format!("creating CRD {name}: {e}")))?;

        let deadline = Instant::now() + ESTABLISH_TIMEOUT;
        let list_path = format!("/apis/{group}/{version}/{plural}?limit=1");
        loop {
            let get = http::Request::get(format!("{path}/{name}")).body(Vec::new());
            let get = get.map_err(|e| Error::Setup(e.to_string()))?;
            let current: Value =
                client.request(get).await.map_err(|e| Error::Setup(e.to_string()))?;
            let established =
                current["status"]["conditions"].as_array().is_some_and(|conditions| {
                    conditions.iter().any(|c| c["type"] == "Established" && c["status"] == "True")
                });
            if established {
                let list = http::Request::get(list_path.as_str()).body(Vec::new());
                let list = list.map_err(|e| Error::Setup(e.to_string()))?;
                if client.request_text(list).await.is_ok() {
                    return Ok(());
                }
            }
            if Instant::now() > deadline {
                return Err(Error::Setup(format!(
                    "CRD {name} not served within {ESTABLISH_TIMEOUT:?}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
