"""Client side of tests/heldout_cases.md, thirtieth round (J469): a gateway's wording over the provider SDK's, relayed.

An MCP server's tool calls its model through LiteLLM (a library and a gateway in front of the providers); LiteLLM files
the provider SDK's failure under its own class and prefixes the provider's label: "litellm.APIConnectionError:
OpenAIException - Connection error.". The raw stdio peer (``servers/heldout_peer.py``) answers each call ``isError``
with such a text; every tool is a write with no hints, so a repeat would re-run it (``answered`` checks each was sent
once). Foreign texts: LiteLLM's older releases word it so (the installed 1.110 raises ``InternalServerError`` over the
same failure, already read right, J469's note).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from errscope import FailureClass

from tests.client.test_heldout_cases_12 import answered
from tests.client.test_heldout_cases_17 import all_of, no_argument_note

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

LITELLM = {
    "summarise": "litellm.APIConnectionError: OpenAIException - Connection error.",
    "draft_reply": "litellm.APIError: APIError: OpenAIException - Connection error.",
    "classify_ticket": "Error: litellm.APIConnectionError: AnthropicException - Connection error.",
}


async def test_j469_a_gateways_label_over_connection_error(tmp_path: Path, telemetry: Any) -> None:
    """J469 (BerriAI/litellm #10184: "litellm.APIError: APIError: OpenAIException - Connection error." out of a crew's
    run; BerriAI/litellm #3415: the same ``openai.APIConnectionError: Connection error.`` under the proxy). The bare
    "Connection error." was read (J382), but not behind the labels LiteLLM adds: each was ``unknown`` (the mapping-gap
    alert). Labels that only name exception types say nothing more: ``upstream_unavailable``, no argument advice, and
    whether the model call went out stays not known (the OpenAI SDK raises it before and after writing the request)."""
    results = await answered(tmp_path, telemetry, LITELLM)
    all_of(results, FailureClass.UPSTREAM_UNAVAILABLE)
    no_argument_note(results)
    for name, result in results.items():
        assert result.side_effect_possible is None, (name, result)


async def test_j469_guard_a_connection_error_in_a_sentence(tmp_path: Path, telemetry: Any) -> None:
    """J469's guard: "connection error" inside a sentence of the tool's own (a setting whose key names it) is no
    transport failure: it stays ``unknown``."""
    results = await answered(tmp_path, telemetry,
                             {"save_settings": "ValueError - connection error in config key 'retries'"})
    all_of(results, FailureClass.UNKNOWN)
