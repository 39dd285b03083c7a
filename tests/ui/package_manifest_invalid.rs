templiqx::include_contract!(package = "ui/packages/broken_manifest", contract = "main", target = ["structured_output"]);

fn main() {}
