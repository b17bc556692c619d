"""One GET per argument ("name=url") with Python's own ``urllib.request``, each failure printed the way a Python MCP
server outside errscope puts it into its tool error: "urllib/<name>" is ``str(e)`` (FastMCP's and the SDK's
"Error executing tool x: {e}"), "urllib_line/<name>" the last line of its traceback
(``traceback.format_exception_only``: "urllib.error.URLError: <urlopen error ...>"). One JSON object on stdout.
argv: timeout_ms name=url ...  The timeout is urlopen's own (``timeout=`` s). urllib raises on a status >= 400 itself
(``HTTPError``: "HTTP Error 404: Not Found").
"""

import json
import sys
import traceback
import urllib.request
from concurrent.futures import ThreadPoolExecutor


def get(url: str, timeout: float) -> BaseException | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
    except Exception as e:  # noqa: BLE001 (every failure is printed)
        return e
    return None


def main() -> None:
    timeout = int(sys.argv[1]) / 1000
    pairs = [arg.split("=", 1) for arg in sys.argv[2:]]
    out: dict[str, str | None] = {}
    with ThreadPoolExecutor(len(pairs)) as pool:
        for (name, _), error in zip(pairs, pool.map(lambda pair: get(pair[1], timeout), pairs)):
            out[f"urllib/{name}"] = None if error is None else str(error)
            out[f"urllib_line/{name}"] = None if error is None else traceback.format_exception_only(error)[-1].strip()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
