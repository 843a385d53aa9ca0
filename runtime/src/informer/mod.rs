//! The informer: [`SharedIndexInformer`], the controller loop that drains its DeltaFIFO into
//! the cache and the processor, and its options (client-go's `tools/cache/shared_informer.go`
//! and `controller.go`).
//!
//! An informer wires the layers below it together: a [`Reflector`](crate::reflector::Reflector)
//! lists and watches into a [`DeltaFifo`](crate::fifo::DeltaFifo) through the informer's
//! transform (`fifo_sink`), the [`Controller`] pops batches of deltas and applies each batch
//! to the [`Indexer`](crate::store::Indexer) in one transaction (`deltas`), and the
//! [`SharedProcessor`](crate::processor::SharedProcessor) hands the resulting
//! notifications to every handler.

mod controller;
mod deltas;
mod error;
mod fifo_sink;
mod filtered_informer;
mod inner;
mod options;
mod registration;
mod run;
mod shared_informer;

pub use controller::{AfterBatchFunc, Controller, ControllerConfig, ProcessFailure, ProcessFunc};
pub use error::{InformerError, Result};
pub use filtered_informer::new_filtered_informer;
pub use options::{MINIMUM_RESYNC_PERIOD, Transform};
pub use registration::ResourceEventHandlerRegistration;
pub use shared_informer::SharedIndexInformer;
