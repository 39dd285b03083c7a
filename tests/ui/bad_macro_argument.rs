templiqx::include_contract!("ui/contracts/valid.yaml", target = ["structured_output"], colour = "blue");

fn main() {}
