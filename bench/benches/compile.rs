//! (a) Compile cost per contract through the library path the macro uses:
//! YAML parse, strict DTOs, validation, lowering and code generation.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use templiqx_build::Loader;
use templiqx_build::codegen::{self, Options};
use templiqx_contracts::CapabilityProfile;

fn compile(c: &mut Criterion) {
    let package = templiqx_bench::PACKAGE_DIR;
    let target = CapabilityProfile::parse_list("structured_output");
    let cases = [
        ("greeting", format!("{package}/contracts/greeting.yaml")),
        ("drafting", format!("{package}/contracts/drafting.yaml")),
    ];
    let mut group = c.benchmark_group("compile");
    for (name, path) in cases {
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut loader = Loader::new(package);
                let compiled = loader.compile_file(black_box(std::path::Path::new(&path)), &target);
                let (contract, interaction) = (
                    compiled.contract.as_ref().expect("parsed"),
                    compiled.interaction.as_ref().expect("compiled"),
                );
                let tokens =
                    codegen::generate(contract, interaction, &loader.sources, &Options::default())
                        .expect("generated");
                black_box(tokens)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, compile);
criterion_main!(benches);
