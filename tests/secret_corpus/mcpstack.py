"""A fifth held-out set, by another author: secrets as MCP itself and the AI stack carry them.

    python -m tests.secret_corpus.mcpstack   # rewrites mcpstack_*.jsonl.gz here

Written before reading the scrubber's patterns, from what an MCP server's error or log carries:
host configs (``claude_desktop_config.json``, ``.cursor/mcp.json``, VS Code ``mcp.json`` with
``env``/``headers``/``args`` and ``inputs``), JSON-RPC frames (``params.arguments``,
``structuredContent``, ``_meta``, ``error.data``, resource contents), elicitation answers and
sampling messages, SSE ``data:`` lines, OAuth 2.1 for MCP (token responses and reprs, RFC 7591
registration responses, authorization codes and PKCE verifiers, RFC 8693 token exchange, DPoP),
the MCP Inspector's proxy token, tokens in a remote server's URL path, AI provider keys in their
current shapes and in SDK error texts, vector-DB and agent-platform keys, LiteLLM/LangChain dumps,
Rich traceback locals and agent ``.env`` files. Benign look-alikes from the same world: tool-call,
message, run, thread and request ids, model names, session ids, progress tokens, cursors, JSON
Schemas of password fields, token counts and usage blocks, embeddings, resource URIs, hashes,
masked keys, placeholders, OAuth metadata, PKCE challenges, rate-limit headers.

Same row format as ``../shared/corpus``; values are fake, from a fixed seed; 71 secret formats x 3
and 28 benign categories x 4. ``tests/test_scrub_mcpstack.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, Maker, pick, pw, rnd, ts, uuid

_r = heldout._rng  # the helpers above draw from it: mcpstack() seeds it


def sub(template: str, value: Callable[[], str]) -> Maker:
    """A secret format: ``template`` with ``{s}`` the secret and ``{ts}`` a timestamp (no other
    braces are special, so JSON stays readable)."""

    def make() -> tuple[str, str]:
        secret = value()
        return secret, template.replace("{ts}", ts()).replace("{s}", secret)

    return make


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def jwt(header: dict[str, object], claims: dict[str, object]) -> str:
    return f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}.{rnd(43, B64URL)}"


def dpop_proof() -> str:
    return jwt({"typ": "dpop+jwt", "alg": "ES256", "jwk": {"kty": "EC", "crv": "P-256", "x": rnd(43, B64URL), "y": rnd(43, B64URL)}}, {"jti": uuid(), "htm": "POST", "htu": "https://mcp.example.com/mcp", "iat": 1748772000})


def opaque() -> str:
    return rnd(43, B64URL)


def openai_proj() -> str:
    return "sk-proj-" + rnd(74, B64URL) + "T3BlbkFJ" + rnd(74, B64URL)


def anthropic(kind: str = "api03") -> str:
    return f"sk-ant-{kind}-" + rnd(93, B64URL) + "AA"


def esc(text: str) -> str:
    """``text`` as it stands inside a JSON string."""
    return json.dumps(text)[1:-1]


MCPSTACK_SECRETS: list[tuple[str, str, Maker]] = [
    # MCP host configs: env, headers, args, resolved inputs
    ("claude_desktop_env_vendor_key", "json", sub('{"mcpServers": {"brave-search": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-brave-search"], "env": {"BRAVE_API_KEY": "{s}"}}}}', lambda: "BSA" + rnd(28))),
    ("cursor_mcp_headers_bearer", "json", sub('{"mcpServers": {"linear": {"url": "https://mcp.linear.app/mcp", "headers": {"Authorization": "Bearer {s}"}}}}', lambda: "lin_api_" + rnd(40))),
    ("mcp_headers_vendor_named", "json", sub('{"mcpServers": {"context7": {"url": "https://mcp.context7.com/mcp", "headers": {"CONTEXT7_API_KEY": "{s}"}}}}', lambda: "ctx7sk-" + uuid())),
    ("mcp_args_access_token_flag", "json", sub('{"mcpServers": {"supabase": {"command": "npx", "args": ["-y", "@supabase/mcp-server-supabase@latest", "--read-only", "--access-token", "{s}"]}}}', lambda: "sbp_" + rnd(40, HEX))),
    ("mcp_args_postgres_dsn", "json", sub('{"mcpServers": {"postgres": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://readonly:{s}@db.internal:5432/analytics"]}}}', pw)),
    ("mcp_remote_auth_header_env", "json", sub('{"mcpServers": {"remote": {"command": "npx", "args": ["mcp-remote", "https://mcp.example.com/mcp", "--header", "Authorization:${AUTH_HEADER}"], "env": {"AUTH_HEADER": "Bearer {s}"}}}}', opaque)),
    ("vscode_mcp_env_service_role_jwt", "json", sub('{"inputs": [{"type": "promptString", "id": "sb-key", "description": "Supabase key", "password": true}], "servers": {"supabase": {"type": "stdio", "command": "npx", "args": ["-y", "supabase-mcp"], "env": {"SUPABASE_SERVICE_ROLE": "{s}"}}}}', lambda: jwt({"alg": "HS256", "typ": "JWT"}, {"iss": "supabase", "ref": rnd(20, LOWER_ALNUM), "role": "service_role", "iat": 1748772000, "exp": 2064348000}))),
    ("claude_json_primary_api_key", "json", sub('{"numStartups": 41, "autoUpdates": true, "primaryApiKey": "{s}", "hasCompletedOnboarding": true}', anthropic)),
    ("docker_mcp_secret_set", "log", sub("$ docker mcp secret set brave.api_key={s}\n$ docker mcp gateway run --servers=brave", lambda: "BSA" + rnd(28))),
    ("node_spawn_env_inspect", "exception", sub("Error: spawn uvx ENOENT\n    at ChildProcess._handle.onexit (node:internal/child_process:285:19) {\n  errno: -2,\n  spawnargs: [ 'mcp-server-fetch' ],\n  env: { PATH: '/usr/bin', ANTHROPIC_API_KEY: '{s}', HOME: '/Users/ops' }\n}", anthropic)),
    # JSON-RPC frames: tools/call arguments and results, _meta, error data, resources
    ("tools_call_arguments_api_key", "json", sub('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "web_search", "arguments": {"query": "mcp spec", "apiKey": "{s}"}}}', lambda: rnd(32))),
    ("tools_call_arguments_conn_string", "json", sub('{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "run_query", "arguments": {"connectionString": "Server=tcp:sql.example.net,1433;Database=app;User ID=svc;Password={s};Encrypt=true", "sql": "SELECT 1"}}}', pw)),
    ("tools_result_structured_secret", "json", sub('{"jsonrpc": "2.0", "id": 11, "result": {"content": [{"type": "text", "text": "service account key created"}], "structuredContent": {"keyId": "k-41", "secretKey": "{s}"}, "isError": false}}', lambda: rnd(40, B64))),
    ("tools_result_text_prose_token", "json", sub('{"jsonrpc": "2.0", "id": 12, "result": {"content": [{"type": "text", "text": "Deploy token created. Copy it now, it will not be shown again: {s}"}]}}', lambda: "nfp_" + rnd(36))),
    ("meta_vendor_auth_token", "json", sub('{"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": "sync", "arguments": {}, "_meta": {"progressToken": 5, "com.example/authToken": "{s}"}}}', opaque)),
    ("error_data_request_headers", "json", sub('{"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": "upstream returned 401", "data": {"request": {"method": "GET", "headers": {"authorization": "Bearer {s}", "accept": "application/json"}}}}}', opaque)),
    ("resource_read_env_file", "json", lambda: (lambda s: (s, '{"jsonrpc": "2.0", "id": 21, "result": {"contents": [{"uri": "file:///srv/agent/.env", "mimeType": "text/plain", "text": "' + esc(f"NODE_ENV=production\nSESSION_SECRET={s}\nPORT=3000\n") + '"}]}}'))(rnd(48))),
    ("sse_data_escaped_access_token", "log", sub('event: message\nid: 17\ndata: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\\"access_token\\":\\"{s}\\",\\"expires_in\\":3600}"}]}}', opaque)),
    ("mcp_session_raw_request_bearer", "log", lambda: (lambda s: (s, f"POST /mcp HTTP/1.1\r\nHost: mcp.example.com\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {uuid()}\r\nMcp-Protocol-Version: 2025-06-18\r\nAuthorization: Bearer {s}\r\n\r\n"))(opaque())),
    ("httpx_headers_session_and_bearer", "exception", sub("httpx.HTTPStatusError: 401 for https://mcp.example.com/mcp; request headers: {'mcp-session-id': '3f9c2d7e41a04b5f', 'authorization': 'Bearer {s}', 'content-type': 'application/json'}", opaque)),
    # elicitation answers, sampling messages
    ("elicitation_accept_api_token", "json", sub('{"jsonrpc": "2.0", "id": 30, "result": {"action": "accept", "content": {"username": "ops", "apiToken": "{s}"}}}', lambda: rnd(40))),
    ("elicitation_accept_db_password", "json", sub('{"jsonrpc": "2.0", "id": 31, "result": {"action": "accept", "content": {"host": "db.internal", "dbPassword": "{s}"}}}', pw)),
    ("elicitation_accept_unnamed_provider_key", "json", sub('{"jsonrpc": "2.0", "id": 32, "result": {"action": "accept", "content": {"provider": "openai", "value": "{s}"}}}', openai_proj)),
    ("sampling_message_pasted_key", "json", sub('{"jsonrpc": "2.0", "id": 40, "method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "why does this 401? my groq key is {s}"}}], "maxTokens": 512}}', lambda: "gsk_" + rnd(52))),
    # OAuth 2.1 for MCP
    ("oauth_token_response_access", "json", sub('{"access_token": "{s}", "token_type": "Bearer", "expires_in": 3600, "scope": "mcp:tools"}', opaque)),
    ("oauth_token_repr_refresh", "log", sub("{ts} DEBUG mcp.client.auth: stored OAuthToken(access_token='[hidden]', token_type='Bearer', expires_in=3600, scope='mcp', refresh_token='{s}')", lambda: rnd(64, B64URL))),
    ("dcr_client_secret", "json", sub('{"client_id": "' + "mcp-" + "c7f1a2" + '", "client_secret": "{s}", "client_id_issued_at": 1748772000, "client_secret_expires_at": 0, "redirect_uris": ["http://127.0.0.1:33418/callback"]}', lambda: rnd(48, B64URL))),
    ("dcr_registration_access_token", "json", sub('{"client_id": "s6BhdRkqt3", "registration_client_uri": "https://auth.example.com/register/s6BhdRkqt3", "registration_access_token": "{s}", "token_endpoint_auth_method": "client_secret_basic"}', lambda: rnd(40, B64URL))),
    ("dcr_pydantic_repr_secret", "log", sub("OAuthClientInformationFull(redirect_uris=[AnyUrl('http://localhost:3030/callback')], token_endpoint_auth_method='client_secret_post', client_id='c-91', client_secret='{s}', client_id_issued_at=1748772000)", lambda: rnd(32, HEX))),
    ("auth_code_redirect_url", "url", sub('127.0.0.1 - - [01/Jun/2025:10:00:00 +0000] "GET /callback?code={s}&state=af0ifjsldkj HTTP/1.1" 200 112', lambda: rnd(32, B64URL))),
    ("auth_code_token_request_form", "log", sub("{ts} DEBUG httpx: POST https://auth.example.com/token body=grant_type=authorization_code&code={s}&redirect_uri=http%3A%2F%2Flocalhost%3A3030%2Fcallback&client_id=c-91", lambda: rnd(40, B64URL))),
    ("pkce_verifier_json", "json", sub('{"grant_type": "authorization_code", "code": "[omitted]", "code_verifier": "{s}", "client_id": "c-91"}', lambda: rnd(64, ALNUM + "-._~"))),
    ("token_exchange_subject_token", "log", sub("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token={s}&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token&resource=https%3A%2F%2Fmcp.example.com", opaque)),
    ("token_introspection_token", "log", sub("{ts} WARN introspect: active=false for token={s}&token_type_hint=refresh_token", lambda: rnd(40))),
    ("authorization_dpop_scheme", "header", sub("Authorization: DPoP {s}", opaque)),
    ("dpop_proof_header", "header", sub("DPoP: {s}", dpop_proof)),
    ("inspector_session_token", "log", sub("⚙️ Proxy server listening on localhost:6277\n🔑 Session token: {s}\n   Use this token to authenticate requests or set DANGEROUSLY_OMIT_AUTH=true to disable auth", lambda: rnd(64, HEX))),
    ("inspector_url_proxy_token", "url", sub("🚀 MCP Inspector is up and running at:\n   http://localhost:6274/?MCP_PROXY_AUTH_TOKEN={s}", lambda: rnd(64, HEX))),
    ("remote_mcp_url_path_secret", "url", sub("McpError: MCP error -32000: Connection closed (url=https://mcp.zapier.com/api/mcp/s/{s}/mcp)", lambda: b64url(_r.randbytes(45)))),
    ("smithery_url_api_key_uuid", "url", sub("Error POSTing to endpoint (HTTP 401): https://server.smithery.ai/@acme/weather/mcp?api_key={s}&profile=quiet-otter-x1", uuid)),
    # AI provider keys in SDK error texts and config dumps
    ("openai_sdk_incorrect_key", "exception", sub("openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided: {s}. You can find your API key at https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_api_key'}}", openai_proj)),
    ("openai_svcacct_bare", "log", sub("{ts} INFO agent: using service account key {s} for project proj_" + "Ab12Cd34Ef56Gh78", lambda: "sk-svcacct-" + rnd(64, B64URL) + "T3BlbkFJ" + rnd(64, B64URL))),
    ("openai_admin_key_prose", "exception", sub("openai.PermissionDeniedError: listing /v1/organization/users failed with {s}", lambda: "sk-admin-" + rnd(64, B64URL) + "T3BlbkFJ" + rnd(64, B64URL))),
    ("anthropic_admin_key_prose", "log", sub("{ts} ERROR usage-report: 403 for key {s}", lambda: anthropic("admin01"))),
    ("google_aiza_generate_content_url", "url", sub("google.api_core.exceptions.PermissionDenied: 403 POST https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?key={s}&alt=sse: API key not valid", lambda: "AIza" + rnd(35, B64URL))),
    ("xai_key_litellm_error", "exception", sub("litellm.AuthenticationError: XaiException - Incorrect API key provided: {s}. Obtain an API key from https://console.x.ai.", lambda: "xai-" + rnd(80))),
    ("cohere_positional_traceback", "exception", sub('Traceback (most recent call last):\n  File "/srv/agent/rerank.py", line 12, in <module>\n    co = cohere.ClientV2("{s}")\ncohere.errors.UnauthorizedError: status_code: 401', lambda: rnd(40))),
    ("mistral_node_inspect_env", "log", sub("[mcp-server-mistral] config { model: 'mistral-large-latest', MISTRAL_API_KEY: '{s}', timeout: 30000 }", lambda: rnd(32))),
    ("together_yaml_key", "log", sub("providers:\n  together:\n    base_url: https://api.together.xyz/v1\n    TOGETHER_API_KEY: {s}", lambda: "tgp_v1_" + rnd(43, B64URL))),
    ("fireworks_constructor_kwarg", "exception", sub('  File "/srv/agent/llm.py", line 8, in build\n    client = Fireworks(api_key="{s}")', lambda: "fw_" + rnd(24))),
    ("replicate_token_in_prose", "exception", sub("replicate.exceptions.ReplicateError: ReplicateError Details:\ntitle: Unauthenticated\nstatus: 401\ndetail: You did not pass a valid authentication token ({s})", lambda: "r8_" + rnd(37))),
    ("deepseek_compose_env_list", "log", sub("services:\n  agent:\n    image: acme/agent:1.4\n    environment:\n      - DEEPSEEK_API_KEY={s}\n      - LOG_LEVEL=debug", lambda: "sk-" + rnd(32, HEX))),
    ("openrouter_headers_dict", "exception", sub("openai.APIStatusError: 402 Payment Required; headers={'Authorization': 'Bearer {s}', 'HTTP-Referer': 'https://agent.example.com', 'X-Title': 'agent'}", lambda: "sk-or-v1-" + rnd(64, HEX))),
    ("huggingface_cli_token_flag", "log", sub("+ huggingface-cli login --token {s} --add-to-git-credential", lambda: "hf_" + rnd(34))),
    ("langsmith_key_prose", "log", sub("{ts} WARNING langsmith.client: Failed to batch ingest runs: 403 Forbidden for key {s}", lambda: "lsv2_pt_" + rnd(32, HEX) + "_" + rnd(10, HEX))),
    ("pinecone_constructor", "exception", sub('pinecone.exceptions.UnauthorizedException: (401) Reason: Unauthorized; Pinecone(api_key="{s}", environment="us-east-1")', lambda: "pcsk_" + rnd(5) + "_" + rnd(63))),
    ("weaviate_module_key_header", "exception", sub("weaviate.exceptions.UnexpectedStatusCodeError: Query call with protocol GRPC search failed: 401; additional headers {'X-Cohere-Api-Key': '{s}'}", lambda: rnd(40))),
    ("qdrant_client_repr", "exception", sub("qdrant_client.http.exceptions.UnexpectedResponse: Unexpected Response: 403 (Forbidden) QdrantClient(url='https://7f3a.eu-central-1-0.aws.cloud.qdrant.io:6333', api_key='{s}')", lambda: rnd(54, B64URL))),
    ("azure_openai_api_key_header", "header", sub("api-key: {s}", lambda: rnd(32, HEX))),
    ("helicone_auth_header", "header", sub("Helicone-Auth: Bearer {s}", lambda: "sk-helicone-" + rnd(7, LOWER_ALNUM) + "-" + rnd(7, LOWER_ALNUM) + "-" + rnd(7, LOWER_ALNUM) + "-" + rnd(7, LOWER_ALNUM))),
    ("langfuse_secret_prose", "log", sub("{ts} ERROR langfuse: authentication check failed for pk-lf-" + "0b6f0a55-8d2c-4a1e-9c3b-7e5d2f1a9c44" + " / {s}", lambda: "sk-lf-" + uuid())),
    ("bedrock_bearer_token_env", "log", sub("declare -x AWS_BEARER_TOKEN_BEDROCK=\"{s}\"", lambda: "ABSK" + b64url(_r.randbytes(96)))),
    ("openai_realtime_client_secret_value", "json", sub('{"client_secret": {"value": "{s}", "expires_at": 1748772600}, "session": {"type": "realtime", "model": "gpt-realtime"}}', lambda: "ek_" + rnd(32, HEX))),
    # LiteLLM / LangChain / LlamaIndex dumps, Rich tracebacks, agent .env
    ("litellm_master_key_yaml", "log", sub("general_settings:\n  master_key: {s}\n  database_url: os.environ/DATABASE_URL", lambda: "sk-" + rnd(22, B64URL))),
    ("litellm_received_api_key", "log", lambda: (lambda s: (s, f"LiteLLM Proxy:ERROR: auth_checks.py:512 - Invalid proxy server token passed. Received API Key = {s}, Key Hash (Token) = {rnd(64, HEX)}. Unable to find token in cache or `LiteLLM_VerificationTokenTable`"))("sk-" + rnd(22, B64URL))),
    ("langchain_model_repr_key", "log", sub("ChatAnthropic(model='claude-sonnet-4-5', temperature=0.0, anthropic_api_url='https://api.anthropic.com', anthropic_api_key='{s}', max_tokens=1024)", anthropic)),
    ("rich_traceback_locals", "exception", sub("│ /srv/agent/tools.py:41 in call_tool                                   │\n│ ╭───────────────────── locals ─────────────────────╮                  │\n│ │    name = 'search'                               │                  │\n│ │ llm_key = '{s}' │                  │\n│ ╰──────────────────────────────────────────────────╯                  │", lambda: "gsk_" + rnd(52))),
    ("agent_dotenv_tavily", "log", sub("OPENAI_MODEL=gpt-4o-mini\nTAVILY_API_KEY={s}\nLANGCHAIN_TRACING_V2=true", lambda: "tvly-dev-" + rnd(32))),
    ("agent_dotenv_e2b", "log", sub("# sandbox\nE2B_API_KEY={s}\nE2B_TEMPLATE=base", lambda: "e2b_" + rnd(40, HEX))),
    ("firecrawl_error_bare", "exception", sub("FirecrawlError: Unauthorized: Invalid token {s}", lambda: "fc-" + rnd(32, HEX))),
    ("modal_token_secret_flag", "log", sub("+ modal token set --token-id ak-" + "Xq2Wm9Rt5Yh1Lp7Nc3Vb8K" + " --token-secret {s} --profile ci", lambda: "as-" + rnd(22))),
]

MCPSTACK_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    ("tool_call_ids", "json", lambda: pick(f'{{"type": "tool_use", "id": "toolu_01{rnd(22)}", "name": "get_weather", "input": {{"city": "Oslo"}}}}', f'{{"tool_calls": [{{"id": "call_{rnd(24)}", "type": "function", "function": {{"name": "search", "arguments": "{{\\"q\\": \\"mcp\\"}}"}}}}]}}', f'{{"type": "tool_result", "tool_use_id": "toolu_01{rnd(22)}", "is_error": true}}')),
    ("message_ids", "json", lambda: pick(f'{{"id": "msg_01{rnd(22)}", "type": "message", "role": "assistant", "stop_reason": "tool_use"}}', f'{{"id": "chatcmpl-{rnd(29)}", "object": "chat.completion", "created": {_r.randint(1_700_000_000, 1_760_000_000)}}}', f'{{"id": "resp_{rnd(48, HEX)}", "object": "response", "status": "completed"}}')),
    ("run_thread_asst_ids", "log", lambda: pick(f"openai.NotFoundError: No run found with id 'run_{rnd(24)}' in thread 'thread_{rnd(24)}'", f"assistant asst_{rnd(24)} uses vector store vs_{rnd(24)} and file file-{rnd(22)}", f"batch_{rnd(32, HEX)} status=in_progress")),
    ("request_ids", "header", lambda: pick(f"request-id: req_011C{rnd(20)}", f"x-request-id: req_{rnd(32, HEX)}", f"cf-ray: {rnd(16, HEX)}-FRA", f"anthropic-organization-id: {uuid()}")),
    ("model_names", "log", lambda: pick("model=claude-sonnet-4-5-20250929 max_tokens=8192", "model: gpt-4o-2024-08-06", "model=meta-llama/Llama-3.3-70B-Instruct-Turbo provider=together", "model: accounts/fireworks/models/llama-v3p1-405b-instruct", f"model=ft:gpt-4o-mini-2024-07-18:acme::{rnd(8)}", "model=gemini-2.5-pro-preview-05-06")),
    ("mcp_session_ids", "header", lambda: pick(f"Mcp-Session-Id: {uuid()}", f"mcp-session-id: {rnd(32, HEX)}", f"{ts()} INFO mcp.server.streamable_http: Created new transport with session ID: {rnd(32, HEX)}")),
    ("sse_endpoint_and_ping", "log", lambda: pick(f"event: endpoint\ndata: /messages/?session_id={rnd(32, HEX)}", f": ping - {ts()}", f'id: {_r.randint(1, 999)}\nevent: message\ndata: {{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"{uuid()}","progress":50,"total":100}}}}')),
    ("progress_tokens", "json", lambda: pick(f'{{"_meta": {{"progressToken": "{uuid()}"}}}}', f'{{"_meta": {{"progressToken": {_r.randint(1, 9999)}}}}}', f'{{"method": "notifications/progress", "params": {{"progressToken": "pt-{rnd(12, HEX)}", "progress": 0.4}}}}')),
    ("pagination_cursors", "json", lambda: pick(f'{{"tools": [], "nextCursor": "{base64.b64encode(json.dumps({"offset": _r.randint(10, 999), "v": 1}).encode()).decode()}"}}', f'{{"method": "resources/list", "params": {{"cursor": "{b64url(json.dumps({"page": _r.randint(2, 40)}).encode())}"}}}}', f'{{"nextCursor": "{rnd(24, B64URL)}"}}')),
    ("json_schema_password_fields", "json", lambda: pick('{"inputSchema": {"type": "object", "properties": {"password": {"type": "string", "format": "password", "writeOnly": true}}, "required": ["password"]}}', '{"requestedSchema": {"type": "object", "properties": {"apiKey": {"type": "string", "title": "API key", "description": "Your provider API key", "minLength": 20}}}}', '{"properties": {"token": {"type": "string"}, "secret": {"type": "string", "writeOnly": true}}}')),
    ("vscode_inputs_declaration", "json", lambda: pick('{"inputs": [{"type": "promptString", "id": "github_token", "description": "GitHub Personal Access Token", "password": true}]}', '{"servers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${input:github_token}"}}}}', '{"env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}}')),
    ("token_counts", "log", lambda: pick(f"max_tokens={_r.choice([1024, 4096, 8192])} temperature=0.2", f'{{"prompt_tokens": {_r.randint(10, 99999)}, "completion_tokens": {_r.randint(1, 4096)}, "total_tokens": {_r.randint(100, 99999)}}}', f"tokenizer=cl100k_base max_completion_tokens={_r.randint(100, 9999)}", f"token_count={_r.randint(1, 200000)} context_window=200000", f'"maxTokens": {_r.randint(100, 4096)}')),
    ("usage_blocks", "json", lambda: pick(f'{{"usage": {{"input_tokens": {_r.randint(1, 99999)}, "cache_creation_input_tokens": 0, "cache_read_input_tokens": {_r.randint(1, 9999)}, "output_tokens": {_r.randint(1, 4096)}}}}}', f"gen_ai.usage.input_tokens={_r.randint(1, 99999)} gen_ai.usage.output_tokens={_r.randint(1, 9999)} gen_ai.response.id=chatcmpl-{rnd(29)}")),
    ("embeddings", "json", lambda: pick('{"object": "embedding", "index": 0, "embedding": [' + ", ".join(f"{_r.uniform(-0.05, 0.05):.10f}" for _ in range(6)) + ", ...]}", f'{{"object": "embedding", "embedding": "{base64.b64encode(_r.randbytes(48)).decode()}", "encoding_format": "base64"}}')),
    ("resource_uris", "json", lambda: pick('{"uri": "file:///home/ops/project/src/auth/token_store.py", "mimeType": "text/x-python"}', f'{{"uri": "github://repo/acme/api/contents/docs/secrets.md?ref={rnd(40, HEX)}"}}', '{"uri": "postgres://db.internal/analytics/public/api_keys/schema"}', f'{{"uri": "ui://widget/chart-{rnd(8, HEX)}.html"}}')),
    ("content_hashes", "json", lambda: pick(f'{{"sha256": "{rnd(64, HEX)}", "size": {_r.randint(100, 99999)}}}', f'{{"blob_sha": "{rnd(40, HEX)}", "path": "README.md"}}', f'{{"contentHash": "sha256-{b64url(_r.randbytes(32))}"}}')),
    ("masked_provider_keys", "exception", lambda: pick(f"openai.AuthenticationError: Error code: 401 - Incorrect API key provided: sk-proj-{'*' * 120}{rnd(4)}.", f"api_key=sk-…{rnd(4)}", f"using key sk-ant-api03-...{rnd(4)}", f"GROQ_API_KEY=gsk_****{rnd(4)}", f"key_name: sk-...{rnd(4)}")),
    ("placeholders", "json", lambda: pick('{"env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>"}}', '{"env": {"OPENAI_API_KEY": "${env:OPENAI_API_KEY}"}}', "ANTHROPIC_API_KEY=your-api-key-here", '{"headers": {"Authorization": "Bearer YOUR_API_KEY"}}', "TAVILY_API_KEY=tvly-xxxxxxxxxxxxxxxxxxxxxxxx")),
    ("langchain_secretstr_masked", "log", lambda: pick("ChatOpenAI(model_name='gpt-4o', temperature=0.0, openai_api_key=SecretStr('**********'), openai_api_base=None)", "LiteLLMRouter(model_list=[{'model_name': 'claude', 'litellm_params': {'model': 'anthropic/claude-3-5-sonnet', 'api_key': 'os.environ/ANTHROPIC_API_KEY'}}])", "PineconeVectorStore(index_name='docs', api_key=SecretStr('**********'))")),
    ("oauth_server_metadata", "json", lambda: pick('{"issuer": "https://auth.example.com", "token_endpoint": "https://auth.example.com/token", "registration_endpoint": "https://auth.example.com/register", "code_challenge_methods_supported": ["S256"], "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"]}', '{"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com"], "bearer_methods_supported": ["header"], "dpop_signing_alg_values_supported": ["ES256"]}')),
    ("www_authenticate", "header", lambda: pick('WWW-Authenticate: Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read"', 'WWW-Authenticate: Bearer error="invalid_token", error_description="The access token expired"', 'WWW-Authenticate: DPoP algs="ES256 PS256", error="use_dpop_nonce"')),
    ("pkce_challenge_and_state", "url", lambda: f"https://auth.example.com/authorize?response_type=code&client_id=c-{_r.randint(10, 99)}&redirect_uri=http%3A%2F%2Flocalhost%3A3030%2Fcallback&code_challenge={rnd(43, B64URL)}&code_challenge_method=S256&state={rnd(22, B64URL)}&resource=https%3A%2F%2Fmcp.example.com"),
    ("dcr_public_client", "json", lambda: f'{{"client_id": "{uuid()}", "client_name": "Claude Code", "redirect_uris": ["http://localhost:{_r.randint(30000, 60000)}/callback"], "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"], "client_id_issued_at": {_r.randint(1_700_000_000, 1_760_000_000)}}}'),
    ("token_response_no_secret", "json", lambda: pick('{"token_type": "Bearer", "expires_in": 3600, "scope": "mcp:tools"}', '{"error": "invalid_grant", "error_description": "refresh token expired"}', '{"access_token": "[REDACTED]", "token_type": "DPoP", "expires_in": 300}')),
    ("jsonrpc_errors_benign", "json", lambda: pick("{\"jsonrpc\": \"2.0\", \"id\": 1, \"error\": {\"code\": -32602, \"message\": \"Invalid params: missing required argument 'api_key'\"}}", '{"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Unknown tool: rotate_token"}}', '{"jsonrpc": "2.0", "id": 3, "error": {"code": -32042, "message": "URL elicitation required", "data": {"elicitations": [{"mode": "url", "url": "https://auth.example.com/connect"}]}}}')),
    ("tool_listing", "json", lambda: pick('{"name": "create_api_key", "description": "Create a new API key for the project", "annotations": {"destructiveHint": false}}', '{"name": "get_secret", "title": "Read a secret by name", "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}', '{"name": "rotate_token", "description": "Rotate the deploy token; returns the new token id"}')),
    ("rate_limit_headers", "header", lambda: pick(f"x-ratelimit-remaining-tokens: {_r.randint(0, 99999)}", f"anthropic-ratelimit-output-tokens-reset: 2025-06-01T10:{_r.randint(10, 59)}:00Z", f"x-ratelimit-limit-requests: {_r.randint(50, 10000)}", f"retry-after-ms: {_r.randint(100, 9999)}")),
    ("docker_mcp_secret_listing", "log", lambda: pick("$ docker mcp secret ls\nNAME                           PROVIDER\ngithub.personal_access_token   docker-desktop", "$ docker mcp secret set github.personal_access_token < token.txt", f"docker mcp gateway run --port {_r.randint(8000, 9000)} --transport streaming --secrets=docker-desktop")),
]


def mcpstack() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20251125)  # the MCP spec revision this set was written against
    return heldout._records(MCPSTACK_SECRETS, MCPSTACK_BENIGN, 3, 4)


def main() -> None:
    secrets, benign_rows = mcpstack()
    heldout._write(HERE / "mcpstack_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "mcpstack_benign.jsonl.gz", benign_rows)
    print(f"mcpstack: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
