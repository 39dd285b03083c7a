templiqx::include_contract!("ui/contracts/impossible_bounds.yaml", target = ["structured_output"]);

fn main() {}
