//! An MCP server on the official Rust SDK (`rmcp`), on stdio or streamable HTTP, whose tools fail every way,
//! for errscope's ToolClient and proxy tests. The tools mirror tests/foreign/go/gosdk/main.go.
//!
//!     rmcp-failing-server [--transport stdio|http] [--port N] [--no-tools]
//!
//! rmcp checks no arguments against a tool's input schema: `Parameters<T>` deserializes them with serde and
//! answers a failure as an isError result "failed to deserialize parameters: <serde's words>"; an unknown tool is
//! -32602 "tool not found". Rules serde cannot express (a pattern, a bound) are the tool's own checks, answered
//! with `ErrorData::invalid_params` (-32602) as Rust servers do. FAKE_SECRET is not a credential: tests assert it
//! never reaches the model text or telemetry.
use std::time::Duration;

use rmcp::{
    ErrorData, Peer, RoleServer, ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{
        CallToolResult, ContentBlock, ProgressNotificationParam, RequestMetaObject, ServerCapabilities,
        ServerConfig,
    },
    schemars, tool, tool_handler, tool_router,
};
use serde::Deserialize;

const FAKE_SECRET: &str = "sk_live_51FAKEerrscopeTestKey0000000000000000";

type Answer = Result<CallToolResult, ErrorData>;

fn ok(text: impl Into<String>) -> Answer {
    Ok(CallToolResult::success(vec![ContentBlock::text(text.into())]))
}

fn failed(text: impl Into<String>) -> Answer {
    Ok(CallToolResult::error(vec![ContentBlock::text(text.into())]))
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Service {
    Ground,
    Express,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct LabelArgs {
    #[schemars(regex(pattern = r"^ORD-\d{4}$"))]
    order_id: String,
    #[schemars(range(max = 30), extend("exclusiveMinimum" = 0))]
    weight_kg: f64,
    #[allow(dead_code)]
    service: Service,
    #[schemars(email)]
    #[allow(dead_code)]
    email: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Address {
    city: String,
    #[schemars(regex(pattern = r"^\d{5}$"))]
    zip: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Item {
    sku: String,
    #[schemars(range(min = 1))]
    qty: u32,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct ShipArgs {
    address: Address,
    items: Vec<Item>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct OrderArgs {
    order_id: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct RepoArgs {
    repo: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct QueryArgs {
    query: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct AmountArgs {
    amount: f64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct InvoiceArgs {
    invoice_id: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct MonthArgs {
    month: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct SleepArgs {
    seconds: f64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct ReportArgs {
    steps: u32,
    delay_ms: u64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct NoArgs {}

#[derive(Deserialize, schemars::JsonSchema)]
struct PathArgs {
    path: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct SymbolArgs {
    symbol: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct AmountText {
    amount: String,
}

// What the quote upstream is supposed to answer.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Quote {
    symbol: String,
    price: f64,
}

#[derive(Clone)]
struct FailingServer {
    #[allow(dead_code)] // read by #[tool_handler]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl FailingServer {
    #[tool(description = "add")]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Answer {
        ok((a + b).to_string())
    }

    // serde checks types and the enum; the pattern and the bound are the tool's own checks, in its own words.
    #[tool(description = "create_label")]
    fn create_label(&self, Parameters(args): Parameters<LabelArgs>) -> Answer {
        let id = args.order_id.as_bytes();
        if !(id.len() == 8 && args.order_id.starts_with("ORD-") && id[4..].iter().all(u8::is_ascii_digit)) {
            let message = format!("invalid order_id {:?}: must match ^ORD-\\d{{4}}$", args.order_id);
            return Err(ErrorData::invalid_params(message, None));
        }
        if !(args.weight_kg > 0.0 && args.weight_kg <= 30.0) {
            let message = format!("invalid weight_kg {}: must be greater than 0 and at most 30", args.weight_kg);
            return Err(ErrorData::invalid_params(message, None));
        }
        ok(format!("label for {}", args.order_id))
    }

    #[tool(description = "ship")]
    fn ship(&self, Parameters(_args): Parameters<ShipArgs>) -> Answer {
        ok("shipping")
    }

    #[tool(description = "find_order")]
    fn find_order(&self, Parameters(args): Parameters<OrderArgs>) -> Answer {
        failed(format!("order {} not found", args.order_id))
    }

    #[tool(description = "delete_repo")]
    fn delete_repo(&self, Parameters(_args): Parameters<RepoArgs>) -> Answer {
        failed("permission denied: the token lacks the admin scope for this repository")
    }

    #[tool(description = "search")]
    fn search(&self, Parameters(_args): Parameters<QueryArgs>) -> Answer {
        failed("rate limited by the search backend: too many requests, retry after 2 seconds")
    }

    #[tool(description = "charge_card")]
    fn charge_card(&self, Parameters(_args): Parameters<AmountArgs>) -> Answer {
        failed(format!(
            "payments API unavailable: error sending request for url (http://127.0.0.1:9/charges): \
             tcp connect error: Connection refused (os error 111); request had Authorization: Bearer {FAKE_SECRET}"
        ))
    }

    // An Err from a tool is a JSON-RPC error: -32603 with the author's message.
    #[tool(description = "refund")]
    fn refund(&self, Parameters(_args): Parameters<AmountArgs>) -> Answer {
        let message = format!("refunds API unavailable: upstream returned 503 (token {FAKE_SECRET})");
        Err(ErrorData::internal_error(message, None))
    }

    // rmcp's own resource-not-found code (-32002), which Rust servers also return from tools.
    #[tool(description = "get_invoice")]
    fn get_invoice(&self, Parameters(args): Parameters<InvoiceArgs>) -> Answer {
        Err(ErrorData::resource_not_found(format!("invoice {} not found", args.invoice_id), None))
    }

    // The text careless Rust tools send: a caught panic's message and the whole backtrace, a key in it.
    #[tool(description = "export_report")]
    fn export_report(&self, Parameters(args): Parameters<MonthArgs>) -> Answer {
        let month = args.month.unwrap_or_default();
        let trace = std::backtrace::Backtrace::force_capture();
        failed(format!(
            "export of {month} failed: thread 'tokio-runtime-worker' panicked at src/main.rs:211:5:\n\
             called `Option::unwrap()` on a `None` value (api_key={FAKE_SECRET})\nstack backtrace:\n{trace}"
        ))
    }

    // rmcp runs each request in its own tokio task and does not catch a panic there: no answer ever comes.
    #[tool(description = "explode")]
    fn explode(&self, Parameters(_args): Parameters<NoArgs>) -> Answer {
        let items: Vec<u32> = Vec::new();
        ok(items[std::hint::black_box(3)].to_string())
    }

    // The failures of Rust's own runtime and libraries, as tools pass them on: std::io's Display ("No such file or
    // directory (os error 2)"), an io::ErrorKind's Debug name, tokio's timeout ("deadline has elapsed"), serde_json
    // failing on an upstream's body (reqwest words it "error decoding response body: ..."), and a caught panic's
    // payload (catch_unwind gives the message alone, without "panicked").
    #[tool(description = "read_report")]
    fn read_report(&self, Parameters(args): Parameters<PathArgs>) -> Answer {
        match std::fs::read_to_string(&args.path) {
            Ok(text) => ok(text),
            Err(e) => failed(format!("failed to read {}: {e}", args.path)),
        }
    }

    #[tool(description = "sync_inventory")]
    fn sync_inventory(&self, Parameters(_args): Parameters<NoArgs>) -> Answer {
        match std::net::TcpStream::connect(("127.0.0.1", 9)) {
            Ok(_) => ok("synced"),
            Err(e) => failed(format!("inventory sync failed: {:?}", e.kind())),
        }
    }

    #[tool(description = "fetch_quote")]
    async fn fetch_quote(&self, Parameters(_args): Parameters<SymbolArgs>) -> Answer {
        let upstream = tokio::time::sleep(Duration::from_secs(5));
        match tokio::time::timeout(Duration::from_millis(20), upstream).await {
            Ok(()) => ok("quoted"),
            Err(elapsed) => failed(format!("quote service: {elapsed}")),
        }
    }

    #[tool(description = "price_feed")]
    fn price_feed(&self, Parameters(_args): Parameters<SymbolArgs>) -> Answer {
        match serde_json::from_str::<Quote>(r#"{"symbol":"ACME","price":null}"#) {
            Ok(quote) => ok(quote.price.to_string()),
            Err(e) => failed(format!("error decoding response body: {e}")),
        }
    }

    #[tool(description = "parse_amount")]
    fn parse_amount(&self, Parameters(args): Parameters<AmountText>) -> Answer {
        let amount = args.amount;
        match std::panic::catch_unwind(move || amount.parse::<i64>().unwrap()) {
            Ok(cents) => ok(cents.to_string()),
            Err(payload) => {
                let message = payload.downcast_ref::<String>().cloned().unwrap_or_default();
                failed(message)
            }
        }
    }

    #[tool(description = "sleep")]
    async fn sleep(&self, Parameters(args): Parameters<SleepArgs>) -> Answer {
        tokio::time::sleep(Duration::from_secs_f64(args.seconds)).await;
        ok("woke up")
    }

    #[tool(description = "slow_report")]
    async fn slow_report(
        &self,
        meta: RequestMetaObject,
        client: Peer<RoleServer>,
        Parameters(args): Parameters<ReportArgs>,
    ) -> Answer {
        for step in 1..=args.steps {
            tokio::time::sleep(Duration::from_millis(args.delay_ms)).await;
            if let Some(token) = meta.get_progress_token() {
                let progress = ProgressNotificationParam::new(token, f64::from(step)).with_total(f64::from(args.steps));
                let _ = client.notify_progress(progress).await;
            }
        }
        ok(format!("report done after {} steps", args.steps))
    }
}

#[tool_handler]
impl ServerHandler for FailingServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

// `--no-tools`: a server without the tools capability (a prompts-only server, say). rmcp's default handlers answer
// tools/list and tools/call with -32601 and the method's name as the message; on streamable HTTP at 2026-07-28 that
// error comes with HTTP 404, the status a client also gets for an expired session.
#[derive(Clone)]
struct NoTools;

impl ServerHandler for NoTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_prompts().build())
    }
}

async fn serve<S: ServerHandler + Clone + Send + Sync + 'static>(
    server: S,
    http_port: Option<u16>,
) -> Result<(), Box<dyn std::error::Error>> {
    let Some(port) = http_port else {
        server.serve(rmcp::transport::stdio()).await?.waiting().await?;
        return Ok(());
    };
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let service: StreamableHttpService<S, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(server.clone()),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening {}", listener.local_addr()?.port());
    axum::serve(listener, router).await?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // rmcp-failing-server [--transport stdio|http] [--port N] [--no-tools]
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let http_port = match flag("--transport").as_deref().unwrap_or("stdio") {
        "stdio" => None,
        _ => Some(flag("--port").as_deref().unwrap_or("0").parse()?),
    };
    if args.iter().any(|a| a == "--no-tools") {
        return serve(NoTools, http_port).await;
    }
    serve(FailingServer { tool_router: FailingServer::tool_router() }, http_port).await
}
