//! The served Kubernetes API, in layers, each file using only those below it: the state
//! every request shares (`state`), what a request names (`target`), the verbs' rules
//! without HTTP types (`verbs`), their results as HTTP answers (`responses`), and the
//! router on top (`router`).

pub(crate) mod responses;
pub(crate) mod router;
pub(crate) mod state;
pub(crate) mod target;
pub(crate) mod verbs;
