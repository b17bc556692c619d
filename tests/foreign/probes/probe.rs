// One GET per argument ("name=url") with reqwest, each failure printed the way Rust MCP servers turn it into a tool
// error; one JSON object on stdout: {"<client>/<name>": text}. argv: timeout_ms name=url ...
// "reqwest/" is the error's Display (`e.to_string()`: reqwest prints no source there), "reqwest_alt/" anyhow's
// `{:#}` (the chain on one line, ": "-joined) and "reqwest_debug/" anyhow's `{:?}` (the chain under "Caused by:").
// A status >= 400 is reqwest's own error_for_status() ("HTTP status client error (404 Not Found) for url (...)").
// The timeout is the client's own (ClientBuilder::timeout). TLS is rustls (reqwest 0.13's default backend) with ring as
// its crypto provider: aws-lc-rs, the default provider, is a C build of minutes; rustls words its errors the same.
// Built beside the Rust MCP test server (tests/foreign/rust/Cargo.toml, one target dir) by scripts/build-foreign-rust.sh.
use std::time::Duration;

async fn get(client: reqwest::Client, url: String) -> Result<String, reqwest::Error> {
    client.get(url).send().await?.error_for_status()?.text().await
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    // anyhow's `{:?}` adds a backtrace when RUST_BACKTRACE is set (as it may be where tests run): print what a server
    // run without it prints. Set before any thread starts.
    unsafe { std::env::set_var("RUST_LIB_BACKTRACE", "0") };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ms: u64 = args[0].parse().expect("timeout_ms");
    let client = reqwest::Client::builder().timeout(Duration::from_millis(ms)).build().expect("client");
    let mut calls = tokio::task::JoinSet::new();
    for pair in &args[1..] {
        let (name, url) = pair.split_once('=').expect("name=url");
        let (name, call) = (name.to_owned(), get(client.clone(), url.to_owned()));
        calls.spawn(async move { (name, call.await) });
    }
    let mut out = serde_json::Map::new();
    while let Some(done) = calls.join_next().await {
        let (name, result) = done.expect("join");
        let texts = match result {
            Ok(_) => [serde_json::Value::Null, serde_json::Value::Null, serde_json::Value::Null],
            Err(e) => {
                let display = e.to_string();
                let chained = anyhow::Error::from(e);
                [display.into(), format!("{chained:#}").into(), format!("{chained:?}").into()]
            }
        };
        for (client, text) in ["reqwest", "reqwest_alt", "reqwest_debug"].into_iter().zip(texts) {
            out.insert(format!("{client}/{name}"), text);
        }
    }
    println!("{}", serde_json::Value::Object(out));
}
