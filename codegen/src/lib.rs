//! The generator of `kube-informers`' typed informers.
//!
//! A pipeline of small stages, each unit-tested on its own:
//!
//! 1. [`discover`]: find the k8s-openapi sources the workspace locks (`cargo metadata`) and
//!    collect every listable resource of every Kubernetes version module into a [`model::Model`];
//! 2. [`plan`]: drop what cannot be watched ([`watchable`]), decide every name ([`naming`],
//!    client-go's informer-gen namer in snake case) and every version [`gate`];
//! 3. [`emit`]: build each file with `quote`, format it with prettyplease;
//! 4. [`output`]: write the files into `informers/src/generated/`, or check that they are current.
//!
//! [`proto`] generates the runtime's protobuf decoders, one per k8s-openapi struct of the
//! latest Kubernetes version, from the protobuf schema table and those structs.
#![forbid(unsafe_code)]

pub mod discover;
pub mod emit;
pub mod gate;
pub mod in_place;
pub mod model;
pub mod naming;
pub mod output;
pub mod plan;
pub mod proto;
pub mod watchable;
