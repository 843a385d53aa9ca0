//! The verbs' rules, one file per verb (`body` and `crd` are what several share). They
//! take a parsed [`Target`](crate::api::target::Target) and the request's query and body,
//! and return what they did or an [`ApiError`](crate::status::ApiError); turning that
//! into an HTTP answer is the router's and the responses' job.

pub(crate) mod body;
pub(crate) mod crd;
pub(crate) mod create;
pub(crate) mod delete;
pub(crate) mod get;
pub(crate) mod list;
pub(crate) mod patch;
pub(crate) mod update;
pub(crate) mod watch;
