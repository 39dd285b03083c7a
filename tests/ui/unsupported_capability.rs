templiqx::include_contract!("ui/contracts/unsupported_capability.yaml", target = ["structured_output"]);

fn main() {}
