#![deny(warnings)]

templiqx::include_contract!("../examples/packages/demo/contracts/greeting.yaml", target = ["structured_output"]);

fn main() {
    let rendered = greeting::render(
        &greeting::Inputs { name: " Ada ".to_owned(), vip: true },
        &greeting::Context { organization: " Analytical Engines ".to_owned() },
    )
    .unwrap();
    assert_eq!(rendered.messages[1].content, "Greet Ada (a valued guest) on behalf of Analytical Engines");
}
