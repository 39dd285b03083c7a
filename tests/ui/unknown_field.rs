templiqx::include_contract!("ui/contracts/unknown_field.yaml", target = ["structured_output"]);

fn main() {}
