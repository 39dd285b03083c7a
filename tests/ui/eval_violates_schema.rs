templiqx::include_contract!("ui/contracts/eval_violates_schema.yaml", target = ["structured_output"]);

fn main() {}
