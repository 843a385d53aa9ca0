//! An in-memory Kubernetes API server over real HTTP.
