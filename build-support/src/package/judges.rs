//! Judge contracts of model-graded checks (`docs/format.md`, "Model-graded
//! checks"): before a contract is checked, every `judge` check's contract
//! is resolved in the package — compiled for the same target, its files
//! read and tracked like the contract's own — and the result is set on the
//! check ([`JudgeResolution`]), for the compiler to check the check against
//! and for an eval run to render and execute.
//!
//! A judge judged, through the checks of its judges, by the contract naming
//! it is a cycle: the loader keeps the ids of the contracts whose judges it
//! is resolving, and a judge already among them is not compiled again but
//! resolved as [`JudgeResolution::Cycle`], for every contract around the
//! cycle.

use super::Loader;
use crate::compiler::Target;
use crate::dto::{Contract, ExprKind, FileId, JudgeResolution};
use std::collections::BTreeMap;
use std::sync::Arc;

impl Loader {
    /// Resolves the judge of every `judge` check of `contract`, a contract
    /// of the package loaded under `pkg`, compiled for `target`. A contract
    /// compiled without a package keeps its judges unresolved (`None`).
    pub(super) fn resolve_judges(&mut self, pkg: usize, contract: &mut Contract, target: &Target) {
        let mut ids: Vec<String> = Vec::new();
        for eval in &contract.evals {
            for decl in &eval.expect {
                if let ExprKind::Judge { contract: id, .. } = &decl.check.kind
                    && !ids.contains(id)
                {
                    ids.push(id.clone());
                }
            }
        }
        if ids.is_empty() || self.packages[pkg].manifest_file == FileId::MAX {
            return;
        }
        self.judging.push(contract.id.clone());
        let resolved: BTreeMap<String, JudgeResolution> = ids
            .into_iter()
            .map(|id| {
                let r = self.resolve_judge(pkg, &contract.id, &id, target);
                (id, r)
            })
            .collect();
        self.judging.pop();
        for eval in &mut contract.evals {
            for decl in &mut eval.expect {
                if let ExprKind::Judge {
                    contract: id,
                    resolved: slot,
                    ..
                } = &mut decl.check.kind
                {
                    *slot = resolved.get(id).cloned();
                }
            }
        }
    }

    /// The judge `id` of the contract `by`: unlisted, in a cycle with
    /// `by`, or compiled (or not) for `target`.
    fn resolve_judge(
        &mut self,
        pkg: usize,
        by: &str,
        id: &str,
        target: &Target,
    ) -> JudgeResolution {
        let listed = &self.packages[pkg].manifest.contracts;
        if !listed.iter().any(|c| c == id) {
            return JudgeResolution::Unlisted(listed.clone());
        }
        if let Some(at) = self.judging.iter().position(|j| j == id) {
            // `by` is the last of `judging`: the cycle runs from it to `id`
            // and round through the contracts judging since.
            let mut chain = vec![by.to_owned()];
            chain.extend(self.judging[at..].iter().cloned());
            self.judge_cycles.push(chain.clone());
            return JudgeResolution::Cycle(chain);
        }
        let compiled = self.compile_listed_for(pkg, id, target);
        // A cycle found below that runs through `by` and `id`: `by` is in
        // it too, named from `by` round to itself.
        if let Some(cycle) = self
            .judge_cycles
            .iter()
            .find(|c| c.iter().any(|x| x == by) && c.iter().any(|x| x == id))
        {
            let open = &cycle[1..];
            let start = open.iter().position(|x| x == by).unwrap_or_default();
            let mut chain: Vec<String> = open[start..]
                .iter()
                .chain(&open[..start])
                .cloned()
                .collect();
            chain.push(by.to_owned());
            return JudgeResolution::Cycle(chain);
        }
        match compiled.interaction {
            Some(interaction) => JudgeResolution::Compiled(Arc::new(interaction)),
            None => JudgeResolution::Failed {
                file: compiled.file,
                first: compiled
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == templiqx_contracts::diagnostic::Severity::Error)
                    .or(compiled.diagnostics.first())
                    .map_or_else(String::new, |d| {
                        format!("{}: {}", d.code.as_str(), d.message)
                    }),
            },
        }
    }
}
