//! The served Kubernetes API.

pub(crate) mod responses;
mod router;
mod state;
mod target;

pub(crate) use router::{Deleted, create, create_default_namespaces, delete, handle};
pub(crate) use state::Shared;
pub(crate) use target::Target;
