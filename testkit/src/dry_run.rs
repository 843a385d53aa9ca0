//! `dryRun=All`: a write is validated and answered as if committed, but nothing is stored,
//! no resourceVersion is used and no watch sees it.

use std::collections::HashMap;

use crate::status::{ApiError, ApiResult};

/// Reads `dryRun` for `verb`: `All` is a dry run, nothing a real write, anything else the
/// apiserver's 422 (`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value`).
pub(crate) fn from_query(query: &HashMap<String, String>, verb: &str) -> ApiResult<bool> {
    match query.get("dryRun").map(String::as_str) {
        None | Some("") => Ok(false),
        Some("All") => Ok(true),
        Some(other) => {
            let options = match verb {
                "create" => "CreateOptions",
                "update" => "UpdateOptions",
                "patch" => "PatchOptions",
                _ => "DeleteOptions",
            };
            Err(ApiError::new(
                422,
                "Invalid",
                format!(
                    "{options}.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"{other}\"]: supported values: \"All\""
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_all_is_a_dry_run() {
        let q = |v: &str| HashMap::from([("dryRun".to_string(), v.to_string())]);
        assert_eq!(from_query(&HashMap::new(), "create"), Ok(false));
        assert_eq!(from_query(&q("All"), "patch"), Ok(true));
        let err = from_query(&q("Foo"), "create").expect_err("invalid");
        assert_eq!(err.code, 422);
        assert!(err.message.starts_with("CreateOptions.meta.k8s.io"), "{}", err.message);
    }
}
