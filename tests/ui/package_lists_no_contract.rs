templiqx::include_contract!(package = "ui/packages/include_cycle", contract = "absent", target = ["structured_output"]);

fn main() {}
