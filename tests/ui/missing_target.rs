templiqx::include_contract!("ui/contracts/valid.yaml");

fn main() {}
