templiqx::include_contract!("ui/contracts/expr_kind_not_allowed.yaml", target = ["structured_output"]);

fn main() {}
