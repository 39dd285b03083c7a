//! Compiles every contract of `../crm3` into `$OUT_DIR/templiqx_contracts.rs`.
//! A contract error fails the build with rustc-style diagnostics.

fn main() {
    let result = templiqx_build::Builder::new()
        .target(["structured_output"])
        .package("../crm3")
        .compile();
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
