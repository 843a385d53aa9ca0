//! Fault injection: dropped and truncated watches, injected error statuses and non-Status
//! error bodies, latency, malformed and nameless objects, a deny list, and request counters.
//!
//! Reach it through [`TestApiServer::faults`](crate::TestApiServer::faults); the most used
//! faults also have shortcuts on the server itself.

pub(crate) mod handle;
pub(crate) mod injected;
pub(crate) mod state;
