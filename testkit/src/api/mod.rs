//! The served Kubernetes API.

mod router;
mod state;

pub(crate) use router::{
    Deleted, Target, create, create_default_namespaces, delete, handle, json_response,
    object_response,
};
pub(crate) use state::Shared;
