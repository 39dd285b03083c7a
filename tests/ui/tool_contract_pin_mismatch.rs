templiqx::include_contract!(package = "ui/packages/tool_contract_pin", contract = "main", target = ["structured_output", "tools"]);

fn main() {}
