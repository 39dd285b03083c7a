// A judge's `with` value of the wrong type (`docs/format.md`, "Model-graded
// checks"): TQX_JUDGE_INPUT at the value.
templiqx::include_contract!(package = "ui/packages/judged", contract = "drafting", target = ["structured_output"]);

fn main() {}
