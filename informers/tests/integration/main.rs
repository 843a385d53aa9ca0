//! Integration tests of `kube-informers`, in one binary: each module is one area.
//! One binary links the dependencies once, which keeps CI's build time and disk use down.

mod controller_reconcile;
mod for_resource;
mod metrics_endpoint;
mod watchable_discovery;
