#![deny(warnings)]

templiqx::include_contract!("../../shared/corpus/packages/demo/contracts/greeting.yaml", target = ["structured_output"]);

fn main() {
    let rendered = greeting::render(
        &greeting::Inputs { name: "Ryan".to_owned() },
        &greeting::Context { organization: " Blinqx ".to_owned() },
    )
    .unwrap();
    assert_eq!(rendered.messages[1].content, "Hello Ryan for Blinqx");
}
