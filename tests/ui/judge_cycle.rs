// A contract judged by a judge whose own check it judges
// (`docs/format.md`, "Model-graded checks"): TQX_JUDGE_CYCLE.
templiqx::include_contract!(package = "ui/packages/judge_cycle", contract = "drafting", target = ["structured_output"]);

fn main() {}
