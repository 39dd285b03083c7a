templiqx::include_contract!("ui/contracts/for_each_over_string.yaml", target = ["structured_output"]);

fn main() {}
