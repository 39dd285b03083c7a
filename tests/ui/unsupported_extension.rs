templiqx::include_contract!("ui/contracts/unsupported_extension.yaml", target = ["structured_output"]);

fn main() {}
