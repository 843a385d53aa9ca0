//! The state every request handler shares: the resource table, the store, the fault
//! rules and the server's settings. It sits below everything that serves the API.

use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use parking_lot::Mutex;

use crate::faults::state::FaultState;
use crate::resources::Registry;
use crate::store::Store;

/// State shared by every request handler.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) registry: Registry,
    pub(crate) store: Store,
    pub(crate) faults: FaultState,
    pub(crate) bookmark_interval: Duration,
    pub(crate) token: Option<String>,
    pub(crate) addr: Mutex<SocketAddr>,
    /// Next index for seeded object names.
    pub(crate) seed_seq: AtomicU64,
}
