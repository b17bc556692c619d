"""One GET per argument ("name=url") with the ``curl`` CLI, each failure printed the way a server that shells out to
curl reports it: "curl/<name>" is curl's own error line on stderr (``-sS``: "curl: (7) Failed to connect to ..."; with
``--fail`` a status >= 400 is exit 22, "The requested URL returned error: 404"), "curl_exit/<name>" Python's
``CalledProcessError`` (``subprocess.run(check=True)``: the command and curl's exit code, without its stderr). One JSON
object on stdout. argv: timeout_ms name=url ...  The timeout is curl's own (``--max-time`` s).
"""

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def get(url: str, seconds: str) -> subprocess.CalledProcessError | None:
    try:
        subprocess.run(["curl", "-sS", "--fail", "--max-time", seconds, "-o", "/dev/null", url],
                       capture_output=True, text=True, check=True, timeout=60)
    except subprocess.CalledProcessError as e:
        return e
    return None


def main() -> None:
    seconds = str(int(sys.argv[1]) / 1000)
    pairs = [arg.split("=", 1) for arg in sys.argv[2:]]
    out: dict[str, str | None] = {}
    with ThreadPoolExecutor(len(pairs)) as pool:
        for (name, _), error in zip(pairs, pool.map(lambda pair: get(pair[1], seconds), pairs)):
            out[f"curl/{name}"] = None if error is None else error.stderr.strip()
            out[f"curl_exit/{name}"] = None if error is None else str(error)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
