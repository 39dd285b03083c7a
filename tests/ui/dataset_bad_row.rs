templiqx::include_contract!("ui/contracts/dataset_bad_row.yaml", target = ["structured_output"]);

fn main() {}
