templiqx::include_contract!("ui/contracts/yaml_syntax_error.yaml", target = ["structured_output"]);

fn main() {}
