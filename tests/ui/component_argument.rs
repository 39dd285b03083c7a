templiqx::include_contract!("ui/contracts/component_argument.yaml", target = ["structured_output"]);

fn main() {}
