templiqx::include_contract!("ui/contracts/expect_check_invalid.yaml", target = ["structured_output"]);

fn main() {}
