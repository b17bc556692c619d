"""A thirty-third held-out set: what data and ML work prints and keeps.

    python -m tests.secret_corpus.notebooks   # rewrites notebooks_*.jsonl.gz here

What a data scientist pastes into an MCP tool ("why does this notebook fail?"), or what a tool's error quotes when it
reads a notebook, a project's config or a cell's output: Jupyter notebook JSON (``nbformat`` 4, ``indent=1``: cell
``source`` lists, ``stream`` and ``execute_result`` outputs, ``error`` outputs whose ``traceback`` carries IPython's
ANSI colour escapes), the ``%env``/``%set_env`` magics and ``!export``, ``os.environ`` printed as a dict, a REPL's
getter and the value it printed on the next line (IPython ``In``/``Out``, R's ``[1]``, Julia), pandas/polars prints,
``df.to_markdown()`` and ``text/html`` renderings of key/value config rows, Spark confs (``spark.hadoop.fs.s3a.*``,
``fs.azure.account.key.*``, ``spark-defaults.conf``, ``getConf().getAll()``), Databricks (``.databrickscfg``, SDK
clients, widgets), Kaggle's ``kaggle.json``, Hugging Face's token file, ``.netrc`` entries of ML services, MLflow,
W&B, Comet and Neptune configs, R (``Sys.setenv``, ``.Renviron``, ``Sys.getenv()``'s aligned dump, ``dbConnect``,
keyring), Julia (``ENV[..]``, ``Base.EnvDict``, ``Dict`` prints, LibPQ), ipython-sql/JupySQL ``%sql`` connection
strings, dbt ``profiles.yml``, Airflow connections in JSON and in ``connections export`` YAML, Great Expectations
datasources and ``config_variables.yml``, DuckDB ``CREATE SECRET``, Snowflake/Redshift/BigQuery/ibis connector
arguments, papermill parameters (CLI, ``execute_notebook``, the injected-parameters cell), notebook widgets
(ipywidgets ``Password``, the saved widget state, Databricks ``dbutils.widgets``, Panel and Streamlit inputs).
Written from the tools' documented formats before reading the rules.

Benign: the same notebooks and configs with nothing secret: notebook metadata and cell ids, ``image/png`` outputs
(base64 PNG), git commit ids, model and dataset checksums, Hugging Face revisions, MLflow run ids, W&B run ids,
UUIDs, masked values (``********``, ``[REDACTED]``, DuckDB's ``secret=redacted``), placeholders (``<your-token>``,
``hf_xxx``), references (dbt's ``env_var``, ``{{secrets/scope/key}}``, ``dbutils.secrets.get``, ``Sys.getenv``),
random seeds, long numeric arrays and embeddings, tokenizer special tokens (``"pad_token": "[PAD]"``: *token* means
something else in ML), connection settings without a password (external browser, IAM, key files).

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed holding ``FAKE`` where the
format allows; human passwords marked ``Fake``; the W&B and Kaggle keys are plain hex, as the services issue them,
random from the seed). 20 secret formats x 8 and 16 benign categories x 8.
``tests/test_scrub_notebooks.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one

_r = heldout._rng  # the helpers above draw from it: notebooks() seeds it


# --- values ------------------------------------------------------------------------------------------------------


def hx(n: int) -> str:
    return rnd(n, HEX)


def hf() -> str:
    return "hf_FAKE" + rnd(30)


def sk() -> str:
    return "sk-proj-FAKE" + rnd(44, B64URL)


def dapi() -> str:
    return "dapiFAKE" + hx(28)


def aws_secret() -> str:
    return "FAKE" + rnd(36, ALNUM + "/+")


def akid() -> str:
    return "AKIAFAKE" + rnd(12, UPPER_ALNUM)


def storage_key() -> str:
    return base64.b64encode(b"FAKE" + _r.randbytes(60)).decode()


def wandb_key() -> str:
    """W&B issues 40 hex characters (the same shape as a git commit id)."""
    return hx(40)


def kaggle_key() -> str:
    """Kaggle issues 32 hex characters (the same shape as an MD5 digest)."""
    return hx(32)


def opaque() -> str:
    return pick(
        "FAKE" + rnd(36), rnd(20) + "FAKE" + rnd(12), sk(), hf(), "ghp_FAKE" + rnd(32), dapi(),
        "glpat-FAKE" + rnd(16, B64URL), "FAKE" + hx(36),
    )


def secret() -> str:
    """Half human passwords marked fake, half generated tokens."""
    return fpw() if _r.random() < 0.5 else opaque()


def pem_escaped() -> str:
    body = "\\n".join(rnd(64, B64) for _ in range(4))
    return f"-----BEGIN PRIVATE KEY-----\\nMIIEvAIBADANFAKE{body}\\n-----END PRIVATE KEY-----\\n"


def who() -> str:
    return pick("etl", "analyst", "ETL_SVC", "ds_team", "ml-bot", "reporting")


def host() -> str:
    return pick("db.internal", "warehouse.internal", "pg-analytics.example.com", "10.0.4.17", "mysql.lab.example.com")


def ec() -> int:
    return _r.randint(1, 60)


def cell(source: list[str], outputs: list[object] | None = None, kind: str = "code", tags: list[str] | None = None) -> str:
    """One nbformat 4 cell as ``nbformat.write`` puts it in the file (``indent=1``)."""
    obj: dict[str, object] = {"cell_type": kind}
    if kind == "code":
        obj["execution_count"] = ec()
    obj["id"] = hx(8)
    obj["metadata"] = {"tags": tags} if tags else {}
    if kind == "code":
        obj["outputs"] = outputs or []
    obj["source"] = source
    return json.dumps(obj, indent=1)


def stream(text: list[str], name: str = "stdout") -> dict[str, object]:
    return {"name": name, "output_type": "stream", "text": text}


def result(plain: list[str], extra: dict[str, object] | None = None) -> dict[str, object]:
    data: dict[str, object] = {"text/plain": plain}
    data.update(extra or {})
    return {"data": data, "execution_count": ec(), "metadata": {}, "output_type": "execute_result"}


def env_name(kind: str) -> str:
    return {
        "pw": pick("DB_PASSWORD", "PGPASSWORD", "SNOWFLAKE_PASSWORD", "MLFLOW_TRACKING_PASSWORD", "REDSHIFT_PASSWORD"),
        "tok": pick("HF_TOKEN", "OPENAI_API_KEY", "GITHUB_TOKEN", "DATABRICKS_TOKEN", "COMET_API_KEY", "API_TOKEN"),
    }[kind]


def _env_pair(s: str) -> str:
    """A variable name fitting the value's kind."""
    return env_name("pw" if len(s) < 30 and any(c in "!#%^*?@+-_~." for c in s) else "tok")


def fitted(*pairs: tuple[Callable[[], str], Callable[[str], str]]) -> Maker:
    """A secret format whose templates each take their own kind of value (a Kaggle key is hex, a W&B key too)."""

    def make() -> tuple[str, str]:
        value, template = _r.choice(pairs)
        s = value()
        return s, template(s)

    return make


# --- value placements ----------------------------------------------------------------------------------------------


def _pandas_rows(name: str, s: str) -> str:
    rows = [("db_host", host()), ("db_user", who()), (name, s), ("log_level", "info")]
    _r.shuffle(rows)
    w = max(len(k) for k, _ in rows) + 2
    v = max(len(val) for _, val in rows) + 2
    lines = [" " * 2 + "key".rjust(w) + "value".rjust(v)]
    lines += [f"{i:<2}" + k.rjust(w) + val.rjust(v) for i, (k, val) in enumerate(rows)]
    return "\n".join(lines)


def _series(name: str, s: str) -> str:
    rows = [("host", host()), ("user", who()), (name, s), ("port", "5432")]
    w = max(len(k) for k, _ in rows) + 4
    v = max(len(val) for _, val in rows)
    return "\n".join(k.ljust(w) + val.rjust(v) for k, val in rows) + "\ndtype: object"


def _polars(name: str, s: str) -> str:
    rows = [("db_host", host()), (name, s), ("region", "eu-west-1")]
    w, v = max(len(k) for k, _ in rows) + 1, max(len(val) for _, val in rows) + 1
    top = f"┌─{'─' * w}┬─{'─' * v}┐"
    out = [f"shape: ({len(rows)}, 2)", top, f"│ {'key'.ljust(w)}┆ {'value'.ljust(v)}│", f"│ {'---'.ljust(w)}┆ {'---'.ljust(v)}│",
           f"│ {'str'.ljust(w)}┆ {'str'.ljust(v)}│", f"╞═{'═' * w}╪═{'═' * v}╡"]
    out += [f"│ {k.ljust(w)}┆ {val.ljust(v)}│" for k, val in rows]
    out.append(f"└─{'─' * w}┴─{'─' * v}┘")
    return "\n".join(out)


def _markdown(name: str, s: str) -> str:
    rows = [("warehouse", "COMPUTE_WH"), (name, s), ("role", "ANALYST")]
    w, v = max(len(k) for k, _ in rows), max(len(val) for _, val in rows)
    out = [f"|    | {'setting'.ljust(w)} | {'value'.ljust(v)} |", f"|---:|:{'-' * w}-|:{'-' * v}-|"]
    out += [f"|  {i} | {k.ljust(w)} | {val.ljust(v)} |" for i, (k, val) in enumerate(rows)]
    return "\n".join(out)


def _html(name: str, s: str) -> str:
    return ('"text/html": [\n   "<div>\\n",\n   "<table border=\\"1\\" class=\\"dataframe\\">\\n",\n'
            '   "  <thead>\\n",\n   "    <tr style=\\"text-align: right;\\">\\n",\n   "      <th></th>\\n",\n'
            '   "      <th>key</th>\\n",\n   "      <th>value</th>\\n",\n   "    </tr>\\n",\n   "  </thead>\\n",\n'
            '   "  <tbody>\\n",\n   "    <tr>\\n",\n   "      <th>0</th>\\n",\n   "      <td>user</td>\\n",\n'
            f'   "      <td>{who()}</td>\\n",\n   "    </tr>\\n",\n   "    <tr>\\n",\n   "      <th>1</th>\\n",\n'
            f'   "      <td>{name}</td>\\n",\n   "      <td>{s}</td>\\n",\n   "    </tr>\\n",\n'
            '   "  </tbody>\\n",\n   "</table>\\n",\n   "</div>"\n  ]')


def _ansi_kw(kw: str, s: str) -> str:
    """IPython 8's highlighted source line: ``kw="s"`` with Pygments' 256-colour escapes, as JSON holds them."""
    e = "\\u001b"
    return (f"{kw}{e}[38;5;241m={e}[39m{e}[38;5;124m\\\"{e}[39m{e}[38;5;124m{s}{e}[39m{e}[38;5;124m\\\"{e}[39m")


def _ansi_raw(kw: str, s: str) -> str:
    e = "\x1b"
    return f"{e}[0;32m----> 4{e}[0m {kw} {e}[38;5;241m={e}[39m {e}[38;5;124m'{e}[39m{e}[38;5;124m{s}{e}[39m{e}[38;5;124m'{e}[39m"


# --- secret formats: each a notebook, a print or a data tool's config, 8 instances -------------------------------

SECRETS: list[tuple[str, str, Maker]] = [
    ("ipynb_cell_source", "json", one(lambda: pick(sk(), hf(), fpw(), wandb_key(), opaque()),
        lambda s: cell(["import os\n", f"os.environ[\"{_env_pair(s)}\"] = \"{s}\"\n", "client = make_client()"]),
        lambda s: cell(["from huggingface_hub import login\n", "\n", f"login(token=\"{s}\")"]),
        lambda s: cell(["import openai\n", f"openai.api_key = '{s}'\n", "openai.models.list()"]),
        lambda s: cell(["import wandb\n", f"wandb.login(key=\"{s}\")\n", "run = wandb.init(project=\"churn\")"]),
        lambda s: cell(["engine = create_engine(\n", f"    f\"postgresql+psycopg2://{who()}:{s}@{host()}:5432/analytics\"\n", ")"]))),
    ("ipynb_env_magics", "json", one(lambda: pick(aws_secret(), hf(), fpw(), sk()),
        lambda s: cell([f"%env AWS_SECRET_ACCESS_KEY={s}\n", "%env AWS_DEFAULT_REGION=eu-west-1"],
                       [stream([f"env: AWS_SECRET_ACCESS_KEY={s}\n", "env: AWS_DEFAULT_REGION=eu-west-1\n"])]),
        lambda s: (lambda n: cell([f"%set_env {n}={s}"], [stream([f"env: {n}={s}\n"])]))(_env_pair(s)),
        lambda s: cell([f"!export {_env_pair(s)}='{s}' && python train.py --epochs 3"]),
        lambda s: f"%env {_env_pair(s)} {s}",
        lambda s: f"In [3]: %env HF_TOKEN={s}\nenv: HF_TOKEN={s}")),
    ("ipynb_environ_output", "json", one(lambda: pick(aws_secret(), hf(), sk(), fpw(), dapi()),
        lambda s: cell(["os.environ"], [result([f"environ{{'PATH': '/opt/conda/bin:/usr/bin', 'HOME': '/root', '{_env_pair(s)}': '{s}', 'JPY_PARENT_PID': '7'}}"])]),
        lambda s: cell(["%env"], [result(["{'CLICOLOR': '1',\n", " 'HOME': '/home/jovyan',\n", f" '{_env_pair(s)}': '{s}',\n", " 'JUPYTER_PORT': '8888'}"])]),
        lambda s: cell(["print(dict(os.environ))"], [stream([f"{{'SHELL': '/bin/bash', '{_env_pair(s)}': '{s}', 'LANG': 'C.UTF-8'}}\n"])]),
        lambda s: "{'KAGGLE_URL_BASE': 'https://www.kaggle.com', " + f"'{_env_pair(s)}': '{s}', 'COLAB_GPU': '1'}}")),
    ("repl_getter_result", "log", one(lambda: pick(aws_secret(), hf(), sk(), fpw(), dapi()),
        lambda s: f"In [7]: os.environ['{_env_pair(s)}']\nOut[7]: '{s}'",
        lambda s: f"In [2]: spark.conf.get(\"spark.hadoop.fs.s3a.secret.key\")\nOut[2]: '{s}'",
        lambda s: f"> Sys.getenv(\"{_env_pair(s)}\")\n[1] \"{s}\"",
        lambda s: f"julia> ENV[\"{_env_pair(s)}\"]\n\"{s}\"",
        lambda s: cell([f"userdata.get('{_env_pair(s)}')"], [result([f"'{s}'"])]))),
    ("dataframe_config_rows", "log", one(lambda: pick(fpw(), opaque()),
        lambda s: _pandas_rows(pick("db_password", "api_token", "secret_key"), s),
        lambda s: _series(pick("password", "token", "api_key"), s),
        lambda s: _polars(pick("db_password", "hf_token", "client_secret"), s),
        lambda s: _markdown(pick("password", "private_key_passphrase", "token"), s),
        lambda s: _html(pick("password", "api_key"), s),
        lambda s: f"[{{'key': 'db_host', 'value': '{host()}'}}, {{'key': 'db_password', 'value': '{s}'}}]")),
    ("spark_conf", "log", one(lambda: pick(aws_secret(), aws_secret(), storage_key(), fpw()),
        lambda s: f"spark = (SparkSession.builder\n    .config(\"spark.hadoop.fs.s3a.access.key\", \"{akid()}\")\n    .config(\"spark.hadoop.fs.s3a.secret.key\", \"{s}\")\n    .getOrCreate())",
        lambda s: f"spark-submit --master yarn --conf spark.hadoop.fs.s3a.secret.key={s} --conf spark.executor.memory=4g etl.py",
        lambda s: f"[('spark.app.name', 'etl'), ('spark.hadoop.fs.s3a.secret.key', '{s}'), ('spark.driver.memory', '4g')]",
        lambda s: f"spark.conf.set(\"fs.azure.account.key.shopdata.dfs.core.windows.net\", \"{s}\")",
        lambda s: f"spark.conf.set(\"fs.azure.account.oauth2.client.secret.shopdata.dfs.core.windows.net\", \"{s}\")",
        lambda s: f"spark.master                     yarn\nspark.hadoop.fs.s3a.secret.key   {s}\nspark.eventLog.enabled           true",
        lambda s: f"spark.hadoop.fs.s3a.secret.key\t{s}\nspark.hadoop.fs.s3a.endpoint\ts3.eu-west-1.amazonaws.com")),
    ("databricks", "log", one(lambda: pick(dapi(), dapi(), fpw()),
        lambda s: f"[DEFAULT]\nhost  = https://adb-{_r.randint(10**15, 10**16)}.7.azuredatabricks.net\ntoken = {s}",
        lambda s: f"w = WorkspaceClient(host=\"https://dbc-{hx(8)}-{hx(4)}.cloud.databricks.com\", token=\"{s}\")",
        lambda s: f"dbutils.widgets.text(\"db_password\", \"{s}\", \"Database password\")",
        lambda s: f"{{\"host\": \"https://adb-{_r.randint(10**15, 10**16)}.7.azuredatabricks.net\", \"token\": \"{s}\", \"cluster_id\": \"0601-{_r.randint(100000, 999999)}-{rnd(8, LOWER_ALNUM)}\"}}",
        lambda s: f"connection = sql.connect(server_hostname=\"dbc-{hx(8)}.cloud.databricks.com\", http_path=\"/sql/1.0/warehouses/{hx(16)}\", access_token=\"{s}\")")),
    ("kaggle_hf_netrc", "log", fitted(
        (kaggle_key, lambda s: f"!cat ~/.kaggle/kaggle.json\n{{\"username\":\"fakeuser{_r.randint(10, 99)}\",\"key\":\"{s}\"}}"),
        (wandb_key, lambda s: f"machine api.wandb.ai\n  login user\n  password {s}"),
        (fpw, lambda s: f"machine urs.earthdata.nasa.gov login fakeuser{_r.randint(10, 99)} password {s}"),
        (hf, lambda s: f"$ cat ~/.cache/huggingface/stored_tokens\n[colab]\nhf_token = {s}"),
        (kaggle_key, lambda s: f"os.environ['KAGGLE_USERNAME'] = 'fakeuser'\nos.environ['KAGGLE_KEY'] = '{s}'"),
        (hf, lambda s: f"!cat ~/.cache/huggingface/token\n{s}"))),
    ("experiment_trackers", "log", one(lambda: pick(wandb_key(), "FAKE" + rnd(21), fpw(), opaque()),
        lambda s: f"%env WANDB_API_KEY={s}",
        lambda s: f"[comet]\napi_key = {s}\nworkspace = fake-team\nproject_name = churn",
        lambda s: f"experiment = Experiment(api_key=\"{s}\", project_name=\"churn\", workspace=\"fake-team\")",
        lambda s: f"os.environ[\"MLFLOW_TRACKING_USERNAME\"] = \"{who()}\"\nos.environ[\"MLFLOW_TRACKING_PASSWORD\"] = \"{s}\"",
        lambda s: f"run = neptune.init_run(project=\"fake-ws/churn\", api_token=\"{s}\")",
        lambda s: f"mlflow.set_tracking_uri(\"https://{who()}:{s}@mlflow.example.com\")")),
    ("r_session", "log", one(lambda: pick(fpw(), "ghp_FAKE" + rnd(32), aws_secret(), sk()),
        lambda s: f"Sys.setenv(\"AWS_SECRET_ACCESS_KEY\" = \"{s}\", \"AWS_DEFAULT_REGION\" = \"eu-west-1\")",
        lambda s: f"# ~/.Renviron\nR_LIBS_USER=~/R/library\nGITHUB_PAT={s}",
        lambda s: f"> Sys.getenv()\nHOME                    /home/rstudio\n{_env_pair(s).ljust(24)}{s}\nLANG                    en_US.UTF-8",
        lambda s: f"con <- DBI::dbConnect(odbc::odbc(), Driver = \"Snowflake\", Server = \"xy12345.snowflakecomputing.com\", UID = \"{who()}\", PWD = \"{s}\")",
        lambda s: f"keyring::key_set_with_value(\"warehouse\", username = \"{who()}\", password = \"{s}\")",
        lambda s: f"options(openai_api_key = \"{s}\")")),
    ("julia_session", "log", one(lambda: pick(fpw(), hf(), aws_secret(), sk()),
        lambda s: f"ENV[\"{_env_pair(s)}\"] = \"{s}\"",
        lambda s: f"julia> ENV\nBase.EnvDict with 31 entries:\n  \"HOME\"                  => \"/home/jovyan\"\n  \"{_env_pair(s)}\" => \"{s}\"\n  \"JULIA_NUM_THREADS\"     => \"4\"",
        lambda s: f"conn = LibPQ.Connection(\"host={host()} dbname=analytics user={who()} password={s}\")",
        lambda s: f"Dict{{String, String}} with 3 entries:\n  \"user\"     => \"{who()}\"\n  \"password\" => \"{s}\"\n  \"host\"     => \"{host()}\"")),
    ("sql_magic", "log", one(fpw,
        lambda s: f"%sql postgresql://{who()}:{s}@{host()}:5432/warehouse",
        lambda s: f"%%sql mysql+pymysql://root:{s}@{host()}/shop\nSELECT count(*) FROM orders;",
        lambda s: f"%sql snowflake://{who()}:{s}@xy12345.eu-central-1/ANALYTICS/PUBLIC?warehouse=COMPUTE_WH",
        lambda s: cell([f"%sql --alias wh mssql+pyodbc://sa:{s}@sql1.internal/dw?driver=ODBC+Driver+18+for+SQL+Server"]),
        lambda s: f"%config SqlMagic.connection_arguments = '{{\"password\": \"{s}\", \"sslmode\": \"require\"}}'")),
    ("dbt_profiles", "yaml", one(lambda: pick(fpw(), fpw(), dapi(), "GOCSPX-FAKE" + rnd(24, B64URL)),
        lambda s: f"analytics:\n  target: dev\n  outputs:\n    dev:\n      type: snowflake\n      account: xy12345.eu-central-1\n      user: {who()}\n      password: {s}\n      role: TRANSFORMER",
        lambda s: f"    prod:\n      type: postgres\n      host: {host()}\n      user: {who()}\n      pass: {s}\n      port: 5432\n      dbname: analytics",
        lambda s: f"      type: snowflake\n      authenticator: jwt\n      private_key_path: /secrets/rsa_key.p8\n      private_key_passphrase: {s}",
        lambda s: f"    dev:\n      type: databricks\n      host: adb-123.7.azuredatabricks.net\n      http_path: /sql/1.0/warehouses/{hx(16)}\n      token: {s}",
        lambda s: f"      type: bigquery\n      method: oauth-secrets\n      client_id: {_r.randint(10**11, 10**12)}-{rnd(32, LOWER_ALNUM)}.apps.googleusercontent.com\n      client_secret: {s}\n      refresh_token: 1//0gFAKE{rnd(40, B64URL)}")),
    ("airflow_json", "json", one(lambda: pick(fpw(), aws_secret(), opaque()),
        lambda s: f"AIRFLOW_CONN_SNOWFLAKE_DEFAULT='{{\"conn_type\": \"snowflake\", \"login\": \"{who()}\", \"password\": \"{s}\", \"extra\": {{\"account\": \"xy12345\", \"warehouse\": \"WH\"}}}}'",
        lambda s: f"[{{\"id\": \"{_r.randint(1, 99)}\", \"conn_id\": \"warehouse\", \"conn_type\": \"postgres\", \"host\": \"{host()}\", \"login\": \"{who()}\", \"password\": \"{s}\", \"port\": 5432, \"is_encrypted\": \"True\"}}]",
        lambda s: f"{{\"conn_type\": \"aws\", \"extra\": {{\"aws_access_key_id\": \"{akid()}\", \"aws_secret_access_key\": \"{s}\", \"region_name\": \"eu-west-1\"}}}}",
        lambda s: f"warehouse:\n  conn_type: postgres\n  host: {host()}\n  login: {who()}\n  password: {s}\n  port: 5432\n  extra: '{{\"sslmode\": \"require\"}}'",
        lambda s: f"Connection(conn_id=\"slack_api\", conn_type=\"slack\", password=\"{s}\")")),
    ("great_expectations", "yaml", one(fpw,
        lambda s: f"datasources:\n  warehouse:\n    class_name: Datasource\n    execution_engine:\n      class_name: SqlAlchemyExecutionEngine\n      connection_string: postgresql+psycopg2://{who()}:{s}@{host()}:5432/wh",
        lambda s: f"# config_variables.yml\nmy_postgres_db_yaml_creds:\n  drivername: postgresql\n  host: {host()}\n  username: {who()}\n  password: {s}\n  database: analytics",
        lambda s: f"datasource = context.data_sources.add_snowflake(name=\"sf\", connection_string=\"snowflake://{who()}:{s}@xy12345/DB/PUBLIC?warehouse=WH&role=GX\")",
        lambda s: f"    credentials: {{drivername: postgresql, host: {host()}, port: 5432, username: {who()}, password: {s}, database: dw}}")),
    ("duckdb_secret", "sql", one(lambda: pick(aws_secret(), hf(), fpw(), storage_key()),
        lambda s: f"CREATE SECRET s3_prod (\n    TYPE S3,\n    KEY_ID '{akid()}',\n    SECRET '{s}',\n    REGION 'eu-west-1'\n);",
        lambda s: f"duckdb.sql(\"CREATE PERSISTENT SECRET (TYPE GCS, KEY_ID 'GOOG1EFAKE{rnd(20, UPPER_ALNUM)}', SECRET '{s}')\")",
        lambda s: f"CREATE SECRET hf_token (TYPE HUGGINGFACE, TOKEN '{s}');",
        lambda s: f"CREATE SECRET pg (TYPE POSTGRES, HOST '{host()}', PORT 5432, DATABASE analytics, USER '{who()}', PASSWORD '{s}');",
        lambda s: f"SET s3_secret_access_key = '{s}';",
        lambda s: f"CREATE SECRET az (TYPE AZURE, CONNECTION_STRING 'DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey={s};EndpointSuffix=core.windows.net');")),
    ("warehouse_connectors", "python", one(lambda: pick(fpw(), fpw(), opaque()),
        lambda s: f"conn = redshift_connector.connect(\n    host='wh.{rnd(12, LOWER_ALNUM)}.eu-west-1.redshift.amazonaws.com',\n    database='dev',\n    port=5439,\n    user='{who()}',\n    password='{s}'\n)",
        lambda s: f"ctx = snowflake.connector.connect(account=\"xy12345\", user=\"{who()}\", private_key_file=\"rsa_key.p8\", private_key_file_pwd=\"{s}\")",
        lambda s: f"url = URL.create(\"redshift+redshift_connector\", username=\"{who()}\", password=\"{s}\", host=\"{host()}\", port=5439, database=\"dev\")",
        lambda s: f"con = ibis.snowflake.connect(user=\"{who()}\", password=\"{s}\", account=\"xy12345\", database=\"ANALYTICS/PUBLIC\")",
        lambda s: f"df = pd.read_sql(\"SELECT 1\", \"mssql+pyodbc://sa:{s}@sql1.internal/dw?driver=ODBC+Driver+18+for+SQL+Server\")",
        lambda s: f"client = bigquery.Client(project=\"shop-analytics\", client_options={{\"api_key\": \"{s}\"}})")),
    ("papermill_parameters", "log", one(lambda: pick(fpw(), opaque()),
        lambda s: f"papermill train.ipynb out/train.ipynb -p api_key {s} -p epochs 3",
        lambda s: f"pm.execute_notebook(\"report.ipynb\", \"out/report.ipynb\", parameters={{\"db_password\": \"{s}\", \"run_date\": \"2026-12-04\"}})",
        lambda s: cell(["# Parameters\n", f"api_token = \"{s}\"\n", "run_date = \"2026-12-04\"\n"], tags=["injected-parameters"]),
        lambda s: f"papermill etl.ipynb - -r db_password '{s}' -p limit 1000 | jq .cells[0]",
        lambda s: f"papermill nb.ipynb out.ipynb -y \"\nhf_token: {s}\nmodel: distilbert-base-uncased\n\"")),
    ("notebook_widgets", "json", one(lambda: pick(fpw(), opaque()),
        lambda s: f"Password(value='{s}', description='Password:', placeholder='Enter password')",
        lambda s: f"\"{uuid().replace('-', '')}\": {{\n     \"model_module\": \"@jupyter-widgets/controls\",\n     \"model_module_version\": \"2.0.0\",\n     \"model_name\": \"PasswordModel\",\n     \"state\": {{\n      \"description\": \"DB password\",\n      \"layout\": \"IPY_MODEL_{hx(32)}\",\n      \"value\": \"{s}\"\n     }}\n    }}",
        lambda s: f"pw = pn.widgets.PasswordInput(name=\"Warehouse password\", value=\"{s}\")",
        lambda s: f"api_key = st.text_input(\"API key\", value=\"{s}\", type=\"password\")",
        lambda s: f"token_box = widgets.Text(value='{s}', description='HF token:')")),
    ("ansi_traceback", "json", one(lambda: pick(sk(), hf(), fpw(), opaque()),
        lambda s: '"traceback": [\n    "\\u001b[0;31m---------------------------------------------------------------------------\\u001b[0m",\n    "\\u001b[0;31mAuthenticationError\\u001b[0m                       Traceback (most recent call last)",\n    "Cell \\u001b[0;32mIn[4], line 3\\u001b[0m\\n\\u001b[1;32m      1\\u001b[0m \\u001b[38;5;28;01mfrom\\u001b[39;00m \\u001b[38;5;21;01mopenai\\u001b[39;00m \\u001b[38;5;28;01mimport\\u001b[39;00m OpenAI\\n\\u001b[0;32m----> 3\\u001b[0m client \\u001b[38;5;241m=\\u001b[39m OpenAI(' + _ansi_kw("api_key", s) + ')\\n"\n   ]',
        lambda s: '"traceback": ["\\u001b[0;32m----> 2\\u001b[0m login(' + _ansi_kw("token", s) + ')\\n"]',
        lambda s: '"traceback": ["\\u001b[0;32m----> 5\\u001b[0m conn \\u001b[38;5;241m=\\u001b[39m psycopg2\\u001b[38;5;241m.\\u001b[39mconnect(host\\u001b[38;5;241m=\\u001b[39m\\u001b[38;5;124m\\"\\u001b[39m\\u001b[38;5;124mdb.internal\\u001b[39m\\u001b[38;5;124m\\"\\u001b[39m, ' + _ansi_kw("password", s) + ')\\n"]',
        lambda s: "[NbClientApp] Executing report.ipynb\nCellExecutionError: An error occurred while executing the following cell:\n" + _ansi_raw("db_password", s) + "\n\x1b[0;31mOperationalError\x1b[0m: connection refused")),
]


BENIGN: list[tuple[str, str, object]] = [
    ("ipynb_metadata", "json", lambda: pick(
        json.dumps({"metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
                                 "language_info": {"name": "python", "version": "3.11.9"}}, "nbformat": 4, "nbformat_minor": 5}, indent=1),
        cell(["import pandas as pd\n", "df = pd.read_parquet(\"s3://shop-lake/orders/\")"]),
        cell(["## Load the credentials from the secret store"], kind="markdown"),
        json.dumps({"metadata": {"colab": {"provenance": [], "gpuType": "T4"}, "accelerator": "GPU", "widgets": {"application/vnd.jupyter.widget-state+json": {}}}}, indent=1),
        cell(["%load_ext sql\n", "%config SqlMagic.autopandas = True"]),
        json.dumps({"id": hx(8), "metadata": {"execution": {"iopub.execute_input": "2026-12-04T10:11:12.345Z", "shell.execute_reply": "2026-12-04T10:11:13.001Z"}, "papermill": {"duration": 0.6, "status": "completed"}}}, indent=1))),
    ("image_png_output", "json", lambda: pick(
        json.dumps({"data": {"image/png": base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + _r.randbytes(180)).decode(), "text/plain": ["<Figure size 640x480 with 1 Axes>"]}, "metadata": {}, "output_type": "display_data"}, indent=1),
        "\"image/png\": \"iVBORw0KGgoAAAANSUhEUgAAAoAAAAHgCAYAAAA10dzkAAAAOXRFWHRTb2Z0d2FyZQBNYXRwbG90bGliIHZlcnNpb24zLjguMCwgaHR0cHM6Ly9tYXRwbG90bGliLm9yZy81sbWrAAAACXBIWXMAAA9hAAAPYQGoP6dpAAB" + rnd(120, B64) + "\"",
        "\"image/jpeg\": \"/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/" + rnd(100, B64) + "\"",
        f"<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk{rnd(40, B64)}\" />")),
    ("commit_and_checksums", "log", lambda: pick(
        cell(["!git rev-parse HEAD"], [stream([hx(40) + "\n"])]),
        f"model.safetensors: sha256:{hx(64)}",
        f"{hx(32)}  data/train.parquet",
        f"model = AutoModel.from_pretrained(\"distilbert-base-uncased\", revision=\"{hx(40)}\")",
        f"Downloading (…)model.safetensors: 100%|██████████| 268M/268M [00:04<00:00, 61.2MB/s]\netag: \"{hx(64)}\"",
        f"dvc.lock:\n  outs:\n  - path: data/features.parquet\n    md5: {hx(32)}\n    size: 10485760",
        f"HEAD is now at {hx(7)} Merge pull request #{_r.randint(10, 999)} from shop/feature-store",
        f"\"checksum\": \"md5:{hx(32)}\", \"size_bytes\": {_r.randint(10**6, 10**9)}")),
    ("run_and_dataset_ids", "log", lambda: pick(
        f"mlflow.pyfunc.load_model(\"runs:/{hx(32)}/model\")",
        f"wandb: 🚀 View run fragrant-river-{_r.randint(1, 99)} at: https://wandb.ai/fake-team/churn/runs/{rnd(8, LOWER_ALNUM)}",
        f"Run ID: {hx(32)}\nExperiment ID: {_r.randint(10**14, 10**15)}",
        "ds = load_dataset(\"imdb\", split=\"train[:1%]\")",
        f"kaggle datasets download -d fake-user/retail-orders-{_r.randint(2019, 2025)}",
        f"run = wandb.init(project=\"churn\", id=\"{rnd(8, LOWER_ALNUM)}\", resume=\"allow\")",
        f"COMET INFO: Experiment is live on comet.com https://www.comet.com/fake-team/churn/{hx(32)}",
        f"\"dataset_id\": \"{uuid()}\", \"version\": {_r.randint(1, 40)}")),
    ("masked_values", "log", lambda: pick(
        "env: HF_TOKEN=********",
        "In [4]: dbutils.secrets.get(scope=\"prod\", key=\"db-password\")\nOut[4]: '[REDACTED]'",
        "┌─────────┬─────────┬──────────┬──────────┬─────────┬─────────────────────────────────────────────────────────────────┐\n│  name   │  type   │ provider │ persist… │ storage │                          secret_string                          │\n├─────────┼─────────┼──────────┼──────────┼─────────┼─────────────────────────────────────────────────────────────────┤\n│ s3_prod │ s3      │ config   │ false    │ memory  │ name=s3_prod;type=s3;provider=config;serializable=true;scope=s3://,s3n://,s3a://;region=eu-west-1;secret=redacted;session_token=redacted │\n└─────────┴─────────┴──────────┴──────────┴─────────┴─────────────────────────────────────────────────────────────────┘",
        "      password: ****\n      user: ETL\n      account: xy12345",
        "Connecting to 'postgresql://etl:***@db.internal:5432/warehouse'",
        "spark.hadoop.fs.s3a.secret.key *********(redacted)",
        "{'conn_id': 'warehouse', 'login': 'etl', 'password': '***'}",
        "Token is valid (permission: write).\nYour token has been saved to /root/.cache/huggingface/token\nLogin successful")),
    ("placeholders", "log", lambda: pick(
        "os.environ[\"OPENAI_API_KEY\"] = \"<your-token>\"",
        "{\"username\":\"<kaggle-username>\",\"key\":\"<kaggle-key>\"}",
        "login(token=\"hf_xxx\")",
        "%env WANDB_API_KEY=YOUR_API_KEY",
        "      password: <password>",
        "CREATE SECRET (TYPE S3, KEY_ID 'YOUR_KEY_ID', SECRET 'YOUR_SECRET');",
        "papermill in.ipynb out.ipynb -p api_key \"$API_KEY\"",
        "Sys.setenv(\"GITHUB_PAT\" = \"<your-pat>\")")),
    ("references", "yaml", lambda: pick(
        "      password: \"{{ env_var('DBT_PASSWORD') }}\"",
        "spark.hadoop.fs.s3a.secret.key {{secrets/aws/secret-key}}",
        "password = dbutils.secrets.get(scope=\"prod\", key=\"warehouse-password\")",
        "pw <- Sys.getenv(\"DB_PASSWORD\")",
        "token = ENV[\"HF_TOKEN\"]",
        "connection_string: ${MY_POSTGRES_CONNECTION_STRING}",
        "AIRFLOW_CONN_WAREHOUSE='{\"conn_type\": \"postgres\", \"password\": \"{{ var.value.wh_password }}\"}'",
        "token = userdata.get('HF_TOKEN')")),
    ("seeds_and_numbers", "log", lambda: pick(
        f"np.random.seed({_r.randint(10**8, 10**10)})",
        f"torch.manual_seed({_r.randint(10**8, 10**10)})\nOut[3]: <torch._C.Generator at 0x7f{hx(10)}>",
        f"train_test_split(X, y, test_size=0.2, random_state={_r.randint(0, 10**6)})",
        "array([" + ", ".join(str(_r.randint(10**9, 10**10)) for _ in range(8)) + "])",
        f"seed: {_r.randint(10**9, 2**32)}\nlearning_rate: 3.0e-04\nbatch_size: 64",
        "Int64Index([" + ", ".join(str(_r.randint(10**11, 10**12)) for _ in range(6)) + "], dtype='int64')")),
    ("embeddings", "log", lambda: pick(
        "array([" + ", ".join(f"{_r.uniform(-1, 1):.8f}" for _ in range(10)) + ", ...], dtype=float32)",
        "tensor([[" + ", ".join(f"{_r.uniform(-1, 1):.4f}" for _ in range(8)) + "]], grad_fn=<AddmmBackward0>)",
        "{\"embedding\": [" + ", ".join(f"{_r.uniform(-0.1, 0.1):.9f}" for _ in range(8)) + "], \"index\": 0, \"object\": \"embedding\"}",
        "\"embedding\": \"" + base64.b64encode(_r.randbytes(96)).decode() + "\"")),
    ("dataframe_ordinary", "log", lambda: pick(
        _pandas_rows("password_min_length", "12").replace("db_host", "db_port"),
        _series("max_tokens", "4096"),
        _polars("token_limit", "8192"),
        _markdown("secret_rotation_days", "90"),
        "                             run_id  accuracy\n0  " + hx(32) + "    0.9312\n1  " + hx(32) + "    0.9287",
        "[{'key': 'db_host', 'value': 'db.internal'}, {'key': 'password_policy', 'value': 'strong'}]")),
    ("spark_conf_ordinary", "log", lambda: pick(
        "spark.hadoop.fs.s3a.aws.credentials.provider  com.amazonaws.auth.InstanceProfileCredentialsProvider",
        "[('spark.app.name', 'etl'), ('spark.sql.shuffle.partitions', '200'), ('spark.hadoop.fs.s3a.endpoint', 's3.eu-west-1.amazonaws.com')]",
        "spark.conf.set(\"fs.azure.account.auth.type.shopdata.dfs.core.windows.net\", \"OAuth\")",
        f"spark.conf.set(\"fs.azure.account.oauth2.client.id.shopdata.dfs.core.windows.net\", \"{uuid()}\")",
        "spark-submit --conf spark.hadoop.fs.s3a.secret.key=$AWS_SECRET_ACCESS_KEY etl.py",
        f"spark.databricks.clusterUsageTags.clusterId  0601-{_r.randint(100000, 999999)}-{rnd(8, LOWER_ALNUM)}")),
    ("tokenizer_tokens", "json", lambda: pick(
        '{"bos_token": "<s>", "eos_token": "</s>", "pad_token": "[PAD]", "unk_token": "<unk>", "model_max_length": 512}',
        '"added_tokens": [{"id": 0, "content": "[PAD]", "special": true}, {"id": 100, "content": "[UNK]", "special": true}]',
        f"tokenizer.pad_token_id = {_r.randint(0, 50000)}\ntokenizer.eos_token = \"<|endoftext|>\"",
        '{"token": "\u0120hello", "logprob": -0.0123, "bytes": [32, 104, 101, 108, 108, 111]}',
        f"input_ids: [101, {_r.randint(1000, 30000)}, {_r.randint(1000, 30000)}, {_r.randint(1000, 30000)}, 102]\nattention_mask: [1, 1, 1, 1, 1]",
        '"secret_token_count": 0, "max_new_tokens": 256')),
    ("sql_magic_ordinary", "log", lambda: pick(
        "%sql duckdb:///:memory:",
        f"%sql postgresql://{who()}@{host()}:5432/warehouse",
        "%sql sqlite:///data/chinook.db",
        "%%sql\nSELECT customer_id, sum(total) FROM orders GROUP BY 1 LIMIT 5;",
        "Done.\n5 rows affected.",
        "%sql --connections\n*  duckdb://\n   postgresql://etl@db.internal/warehouse")),
    ("connection_no_secret", "yaml", lambda: pick(
        f"ctx = snowflake.connector.connect(account=\"xy12345\", user=\"{who()}\", authenticator=\"externalbrowser\")",
        f"conn = redshift_connector.connect(iam=True, database='dev', db_user='{who()}', cluster_identifier='wh', profile='analytics')",
        "      type: bigquery\n      method: service-account\n      keyfile: /secrets/bq-sa.json\n      project: shop-analytics",
        "      type: databricks\n      auth_type: oauth\n      client_id: dbt-databricks",
        "[{\"conn_id\": \"warehouse\", \"conn_type\": \"postgres\", \"host\": \"db.internal\", \"login\": \"etl\", \"password\": null}]",
        "client = bigquery.Client.from_service_account_json(\"/secrets/sa.json\")",
        "CREATE SECRET (TYPE S3, PROVIDER credential_chain);")),
    ("uuids_and_cell_ids", "json", lambda: pick(
        f'"id": "{uuid()}"',
        f'"cell_id": "{hx(8)}", "msg_id": "{uuid()}_{_r.randint(100, 9999)}_{_r.randint(1, 99)}"',
        f"Kernel started: {uuid()}, name: python3",
        f'"IPY_MODEL_{hx(32)}"',
        f"[I 2026-12-04 10:11:12.345 ServerApp] Kernel started: {uuid()}",
        f'"session": "{hx(32)}", "username": "jovyan"')),
    ("widgets_ordinary", "json", lambda: pick(
        "Password(value='', description='Password:', placeholder='Enter password')",
        f"\"model_name\": \"PasswordModel\",\n     \"state\": {{\n      \"description\": \"DB password\",\n      \"layout\": \"IPY_MODEL_{hx(32)}\"\n     }}",
        "dbutils.widgets.text(\"run_date\", \"2026-12-04\", \"Run date\")",
        "api_key = st.text_input(\"API key\", type=\"password\")",
        "token_box = widgets.Text(value='', description='HF token:')",
        f"IntSlider(value={_r.randint(1, 100)}, description='Epochs:', max=100)")),
]


def notebooks() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261204_33)
    return heldout._records(SECRETS, BENIGN, 8, 8)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = notebooks()
    heldout._write(HERE / "notebooks_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "notebooks_benign.jsonl.gz", benign_rows)
    print(f"notebooks: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
