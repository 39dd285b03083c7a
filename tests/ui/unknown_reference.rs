templiqx::include_contract!("ui/contracts/unknown_reference.yaml", target = ["structured_output"]);

fn main() {}
