templiqx::include_contract!("ui/contracts/does_not_exist.yaml", target = ["structured_output"]);

fn main() {}
