//! The get verb: one object by name.

use std::sync::Arc;

use crate::api::state::Shared;
use crate::api::target::Target;
use crate::object::StoredObject;
use crate::status::{ApiError, ApiResult};

/// The stored object `name` of the target's resource and namespace (404 if there is none).
pub(crate) fn get(shared: &Shared, target: &Target, name: &str) -> ApiResult<Arc<StoredObject>> {
    let info = &target.info;
    shared
        .store
        .lock()
        .get(&info.group_resource(), &target.key(name))
        .ok_or_else(|| ApiError::not_found(&info.group, &info.plural, name))
}
