//! What every consumer of an inventory does before a scenario executes —
//! the conformance harness ([`run_conformance`](crate::run_conformance)) and
//! the conformance gateway alike: compile the inventory's package once for a
//! target, find each scenario's contract in it, and render the scenario's
//! request (`docs/mock.md`, "Harness report").

use crate::inventory::Inventory;
use crate::load::{Scenario, ScenarioRequest};
use std::collections::BTreeMap;
use std::sync::Arc;
use templiqx::RenderError;
use templiqx_build::Loader;
use templiqx_contracts::{CapabilityProfile, Diagnostics, Interaction, RenderedInteraction};

/// The interactions of an inventory's package, compiled once for one
/// target, by contract id.
#[derive(Debug)]
pub struct CompiledPackage {
    contracts: BTreeMap<String, Result<Arc<Interaction>, Diagnostics>>,
}

/// Why a scenario's contract has no interaction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ContractUnavailable<'a> {
    /// The package manifest lists no contract with this id. An inventory
    /// from [`Inventory::load`] names only listed contracts (an unlisted one
    /// is a load error), so this is reached only when the manifest changed
    /// between the two reads.
    NotListed,
    /// The contract is listed and does not compile for the target: its
    /// diagnostics.
    DoesNotCompile(&'a Diagnostics),
}

impl CompiledPackage {
    /// Compiles every contract of `inventory`'s package for `target`
    /// (through [`Loader::compile_package`], relative to the corpus root);
    /// a contract that does not compile keeps its diagnostics.
    ///
    /// # Errors
    /// The package itself is unusable (its manifest, a path outside the
    /// corpus): `TQX_PACKAGE`, `TQX_IO` and the manifest's parse codes.
    pub fn compile(
        inventory: &Inventory,
        target: &CapabilityProfile,
    ) -> Result<CompiledPackage, Diagnostics> {
        let compiled = Loader::new(&inventory.corpus_root)
            .compile_package(&inventory.package_dir, target)
            .map_err(Diagnostics::from)?;
        let contracts = compiled
            .into_iter()
            .map(|c| {
                let interaction = match c.interaction {
                    Some(i) => Ok(Arc::new(i)),
                    None => Err(Diagnostics::from(c.diagnostics)),
                };
                (c.id, interaction)
            })
            .collect();
        Ok(CompiledPackage { contracts })
    }

    /// The compiled interaction of `contract`.
    ///
    /// # Errors
    /// [`ContractUnavailable`]: the package does not list it, or it does
    /// not compile for the target.
    pub fn interaction(
        &self,
        contract: &str,
    ) -> Result<&Arc<Interaction>, ContractUnavailable<'_>> {
        match self.contracts.get(contract) {
            Some(Ok(interaction)) => Ok(interaction),
            Some(Err(diagnostics)) => Err(ContractUnavailable::DoesNotCompile(diagnostics)),
            None => Err(ContractUnavailable::NotListed),
        }
    }
}

/// Renders `scenario`'s request through `interaction`; a scenario without
/// a request (no `input` file) renders empty inputs and context
/// (`docs/mock.md`, "Manifest fields").
///
/// # Errors
/// As [`templiqx::render()`]: `TQX_VALUE_INVALID` for every request problem,
/// or the first render problem.
pub fn render_request<'i>(
    scenario: &Scenario,
    interaction: &'i Interaction,
) -> Result<RenderedInteraction<'i>, RenderError> {
    let empty = ScenarioRequest::default();
    let request = scenario.request.as_ref().unwrap_or(&empty);
    templiqx::render(interaction, &request.inputs, &request.context)
}
