//! What the tests share: a contract whose two fixtures send one request.

use std::sync::atomic::{AtomicUsize, Ordering};
use templiqx::{AdapterDescriptor, AdapterOutput, AsyncRuntimeAdapter};
use templiqx_build::{CompiledContract, compile_str};
use templiqx_contracts::{CapabilityProfile, Json, RenderedInteraction, RuntimeFailure};

/// Two fixtures with the same inputs (so the same request): `formal`
/// passes when the greeting says "Dear", `casual` when it says "Hi".
pub const TWINS: &str = r#"
api_version: templiqx/v1alpha1
id: twins
version: 0.1.0
inputs:
  name: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.name } }
output_schema:
  type: object
  additionalProperties: false
  required: [greeting]
  properties:
    greeting: { type: string }
evals:
  - id: formal
    inputs: { name: Ada }
    expect:
      - id: formal
        check: { kind: contains, container: { kind: ref, path: output.greeting }, item: { kind: literal, value: "Dear" } }
  - id: casual
    inputs: { name: Ada }
    expect:
      - id: casual
        check: { kind: contains, container: { kind: ref, path: output.greeting }, item: { kind: literal, value: "Hi" } }
"#;

/// The target the tests compile for.
pub fn target() -> CapabilityProfile {
    CapabilityProfile::new(["structured_output"])
}

/// `text` compiled as file `name`, without errors.
pub fn compiled(text: &str, id: &str) -> Vec<CompiledContract> {
    let compiled = compile_str(text, &format!("{id}.yaml"), &target());
    assert!(
        compiled.diagnostics.is_empty(),
        "{:?}",
        compiled.diagnostics
    );
    vec![CompiledContract {
        id: id.into(),
        file: format!("{id}.yaml"),
        contract: compiled.contract,
        interaction: compiled.interaction,
        diagnostics: Vec::new(),
    }]
}

/// A model that always answers `answer`, counting its calls.
pub struct Always {
    descriptor: AdapterDescriptor,
    answer: Json,
    pub calls: AtomicUsize,
}

impl Always {
    pub fn new(answer: serde_json::Value) -> Always {
        Always {
            descriptor: AdapterDescriptor::new("always", target().iter()),
            answer: Json::from(answer),
            calls: AtomicUsize::new(0),
        }
    }

    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl AsyncRuntimeAdapter for Always {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    async fn invoke(
        &self,
        _request: &RenderedInteraction<'_>,
    ) -> Result<AdapterOutput, RuntimeFailure> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(AdapterOutput {
            output: self.answer.clone(),
            usage: None,
        })
    }
}

/// Runs `future` to completion on a current-thread runtime with timers.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}
