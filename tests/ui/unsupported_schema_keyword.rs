templiqx::include_contract!("ui/contracts/unsupported_schema_keyword.yaml", target = ["structured_output"]);

fn main() {}
