//! The decoders of the two k8s-openapi structs without `Default` (`codegen`'s `BY_HAND`):
//! each has a required time, which has no value until its field comes. As in k8s-openapi's
//! `Deserialize` impls, a time that is absent or zero (JSON's null) fails as a missing field.

use k8s_openapi::{api::events::v1::EventSeries, apimachinery::pkg::apis::meta::v1::Condition};
use serde::de::Error as _;

use super::{
    fields::{Cx, Direct},
    scalars::{int, micro_time, string, time},
};
use crate::listwatch::protobuf::{
    error::{Error, Result},
    reader::Reader,
    value::is_zero,
};

/// `metav1.Condition`.
impl Direct for Condition {
    fn decode(bytes: &[u8], _: Cx) -> Result<Self> {
        let (mut type_, mut status, mut reason, mut message) = Default::default();
        let (mut observed_generation, mut last_transition_time) = (None, None);
        let mut reader = Reader::new(bytes);
        while let Some((number, wire)) = reader.tag()? {
            match number {
                1 => type_ = string(wire, &mut reader)?,
                2 => status = string(wire, &mut reader)?,
                3 if is_zero(&reader, wire)? => reader.skip(wire)?,
                3 => observed_generation = Some(int(wire, &mut reader)?),
                4 => last_transition_time = time(wire, &mut reader)?,
                5 => reason = string(wire, &mut reader)?,
                6 => message = string(wire, &mut reader)?,
                _ => reader.skip(wire)?,
            }
        }
        let last_transition_time =
            last_transition_time.ok_or_else(|| Error::missing_field("lastTransitionTime"))?;
        Ok(Condition { last_transition_time, message, observed_generation, reason, status, type_ })
    }
}

/// events/v1 `EventSeries`.
impl Direct for EventSeries {
    fn decode(bytes: &[u8], _: Cx) -> Result<Self> {
        let (mut count, mut last_observed_time) = (0, None);
        let mut reader = Reader::new(bytes);
        while let Some((number, wire)) = reader.tag()? {
            match number {
                1 => count = int(wire, &mut reader)?,
                2 => last_observed_time = micro_time(wire, &mut reader)?,
                _ => reader.skip(wire)?,
            }
        }
        let last_observed_time =
            last_observed_time.ok_or_else(|| Error::missing_field("lastObservedTime"))?;
        Ok(EventSeries { count, last_observed_time })
    }
}
