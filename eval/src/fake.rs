//! The `fake` provider (`docs/eval.md`, "Which fixtures, how often"): an
//! adapter that answers each eval fixture with its own `fake_output`,
//! offline, through the same port as a real model.

use std::collections::HashMap;
use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter};
use templiqx_build::CompiledContract;
use templiqx_contracts::{Code, Json, RenderedInteraction, RuntimeFailure};

/// An [`AsyncRuntimeAdapter`] that answers the request of each eval
/// fixture with the fixture's `fake_output`: a model that always gives
/// that answer. The port's own `execute` still applies the capability
/// gate, validates the output against `output_schema` and builds the
/// receipt (`docs/runtime.md`, "Adapter port"), so a `fake_output` that
/// does not validate is a `TQX_OUTPUT_SCHEMA` failure, as a model's would
/// be.
///
/// It knows a request by its fingerprint: two fixtures of one contract
/// with the same inputs and context send the same request, which is
/// answered with the `fake_output` of the first of them in the order
/// given. Run it with
/// [`Eval::fake_outputs_only`](crate::Eval::fake_outputs_only), which
/// leaves out the fixtures it has no answer for.
#[derive(Clone, Debug)]
pub struct FakeAdapter {
    descriptor: AdapterDescriptor,
    /// Request fingerprint → the `fake_output` that answers it.
    outputs: HashMap<String, Json>,
}

impl FakeAdapter {
    /// An adapter named `fake` providing `capabilities` (the target
    /// profile the contracts were compiled for, so the capability gate
    /// passes) that knows the `fake_output` of every eval fixture of
    /// `contracts`. A contract that did not compile, or a fixture without
    /// a `fake_output` or whose values do not render, adds nothing.
    pub fn new<'c, C, I, S>(contracts: C, capabilities: I) -> FakeAdapter
    where
        C: IntoIterator<Item = &'c CompiledContract>,
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut outputs = HashMap::new();
        for c in contracts {
            let (Some(contract), Some(interaction)) = (&c.contract, &c.interaction) else {
                continue;
            };
            for eval in &contract.evals {
                let Some(output) = &eval.fake_output else {
                    continue;
                };
                if let Ok(rendered) = templiqx::render(interaction, &eval.inputs, &eval.context) {
                    outputs
                        .entry(rendered.request_fingerprint())
                        .or_insert_with(|| Json::from(output.clone()));
                }
            }
        }
        FakeAdapter {
            descriptor: AdapterDescriptor::new("fake", capabilities),
            outputs,
        }
    }
}

impl AsyncRuntimeAdapter for FakeAdapter {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    /// The `fake_output` of the fixture that renders `request`, or a
    /// `TQX_RUNTIME_PERMANENT` failure (id `fake`) for a request no fixture
    /// with a `fake_output` renders.
    async fn invoke(
        &self,
        request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        match self.outputs.get(&request.request_fingerprint()) {
            Some(output) => Ok(AdapterOutput {
                output: output.clone(),
                usage: None,
            }),
            None => Err(RuntimeFailure::new(
                Code::RuntimePermanent,
                "fake",
                "the fixture has no fake_output",
            )),
        }
    }
}
