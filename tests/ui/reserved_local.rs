templiqx::include_contract!("ui/contracts/reserved_local.yaml", target = ["structured_output"]);

fn main() {}
