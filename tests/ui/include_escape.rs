templiqx::include_contract!(package = "ui/packages/include_escape", contract = "main", target = ["structured_output"]);

fn main() {}
