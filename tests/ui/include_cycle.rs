templiqx::include_contract!(package = "ui/packages/include_cycle", contract = "main", target = ["structured_output"]);

fn main() {}
