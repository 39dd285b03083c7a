templiqx::include_contract!("ui/contracts/property_collision.yaml", target = ["structured_output"]);

fn main() {}
