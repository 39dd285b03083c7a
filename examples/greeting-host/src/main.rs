//! Renders the demo greeting contract from typed values.
//!
//! The contract is compiled while this crate builds: a broken contract is a
//! compiler error pointing into the YAML file.

#![deny(warnings)]

templiqx::include_contract!(
    "../packages/demo/contracts/greeting.yaml",
    target = ["structured_output"]
);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "Ada".to_owned());
    let rendered = greeting::render(
        &greeting::Inputs { name, vip: true },
        &greeting::Context {
            organization: "Analytical Engines".to_owned(),
        },
    )?;
    for message in &rendered.messages {
        println!("{}: {}", message.role.as_str(), message.content);
    }
    println!(
        "contract fingerprint:    {}",
        greeting::CONTRACT_FINGERPRINT
    );
    println!(
        "interaction fingerprint: {}",
        greeting::INTERACTION_FINGERPRINT
    );
    println!(
        "request fingerprint:     {}",
        rendered.request_fingerprint()
    );

    let output = greeting::decode_output(&templiqx::Json::from(serde_json::json!({
        "greeting": "Hello Ada!",
        "tone": "warm"
    })))?;
    assert_eq!(output.tone, Some(greeting::Tone::Warm));
    println!("decoded output: {output:?}");
    Ok(())
}
