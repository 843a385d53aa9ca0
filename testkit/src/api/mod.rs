//! The served Kubernetes API.

mod router;
mod state;
mod target;

pub(crate) use router::{
    Deleted, create, create_default_namespaces, delete, handle, json_response, object_response,
};
pub(crate) use state::Shared;
pub(crate) use target::Target;
