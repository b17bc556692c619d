"""A thirty-fifth held-out set: credentials as data pipelines and streaming/ETL tools keep and print them.

    python -m tests.secret_corpus.piped   # rewrites piped_*.jsonl.gz here

What a data engineer pastes into an MCP tool ("why did last night's load fail?"), or what a tool's error quotes when it
reads a pipeline's configuration or its logs: Airflow connections (``AIRFLOW_CONN_*`` URIs with URL-encoded
passwords, their JSON form, ``airflow connections add``, the local-filesystem secrets backend's YAML, the
``connections list`` table) and Airflow's own settings (``fernet_key``, ``secret_key``, ``sql_alchemy_conn``,
``broker_url``, ``AIRFLOW__*`` variables, Helm values, ``backend_kwargs``), dbt ``profiles.yml`` targets and dbt
Cloud's CLI file, Kafka clients (``sasl.jaas.config`` with ``PlainLoginModule``/``ScramLoginModule``/
``OAuthBearerLoginModule``, JAAS files, broker ``user_<name>=`` entries, librdkafka ``sasl.password``, Spring
``application.yml``, Java ``props.put``, the Python, Go, Node and Rust clients), the Kafka tools (``kcat -X``,
``kafka-configs --add-config 'SCRAM-SHA-512=[password=..]'``, ``--consumer-property``, ``confluent api-key store``,
``rpk``), Schema Registry ``basic.auth.user.info`` in every place it is set, Spark and Hadoop confs
(``spark-defaults.conf``, ``--conf``, ``core-site.xml``, ``-D`` options, ``fs.azure.account.key.<account>..``, the
Hive metastore), Spark, Glue and Sqoop JDBC reads and writes, JDBC/ODBC URLs (``password=`` parameters, SQL Server's
``;``-separated form, Oracle's ``user/pw@``, Redshift and Databricks ``PWD=``), Kafka Connect connector JSON
(Debezium, JDBC, S3, Snowflake, MongoDB connectors, ``curl -X PUT .../config``, Debezium Server properties), Flink
(SQL ``WITH`` options, ``flink-conf.yaml``, Flink CDC pipelines, builders, ``-D`` options), Snowflake, Databricks
and BigQuery connector settings, Logstash, Fluentd/Fluent Bit and Vector outputs, Airbyte/Fivetran/Singer/Meltano
JSON and configs, warehouse load SQL (``COPY .. CREDENTIALS``, ``CREATE STAGE``, user mappings, Trino catalogs,
ClickHouse's ``s3()`` with positional keys, replication sources), other orchestrators (Dagster, Prefect, Mage, NiFi,
Luigi, Kestra, Great Expectations, Azure Data Factory's ``SecureString``, Glue connections), and lines as these tools
print them in logs and stack traces (``spark-submit --verbose``, Scala ``Map`` reprs, Kafka Connect and Logstash
errors, Airflow task logs). Written from the tools' documented formats before reading the rules.

Benign: the same files and logs with nothing secret: consumer offsets and lag tables, partition ids, topic names that
hold words like token/secret/password, schema ids and subjects, masks (Kafka's ``[hidden]``, Spark's
``*********(redacted)``, Airflow's ``***``, Fluentd's ``xxxxxx``), references (``env_var``, Kafka's config providers,
``${VAR}``, Airflow templates, Databricks secret scopes), DSNs and JDBC URLs without a password, config keys whose
value is a setting (a mechanism, a provider class, a path), lineage metadata hashes (OpenLineage, dbt manifest
checksums, Delta and Iceberg ids), job and run ids, checksums and ETags, connector status JSON and CDC offsets,
ordinary Spark/Flink log lines, record keys and sync metadata, credential-sounding settings, placeholders, and docs.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed holding ``FAKE`` where the
format allows; human passwords marked ``Fake``; Databricks tokens, Datadog keys and New Relic license keys are hex and
Splunk HEC tokens GUIDs, as the services issue them, random from the seed). 21 secret formats x 8 and 16 benign
categories x 8. ``tests/test_scrub_piped.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

import base64
import json
import string
from urllib.parse import quote

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw
from tests.secret_corpus.notebooks import fitted

_r = heldout._rng  # the helpers above draw from it: piped() seeds it


# --- values ------------------------------------------------------------------------------------------------------


def hx(n: int) -> str:
    return rnd(n, HEX)


def enc(s: str) -> str:
    """A password as it stands in a URI's userinfo (Airflow's docs: URL-encode it)."""
    return quote(s, safe="")


def upw() -> str:
    """A password already URL-encoded, as it sits in a connection URI (the secret is the encoded text)."""
    return enc(fpw())


def simple_pw() -> str:
    """A password without URI or Oracle separators (``/``, ``@``, ``;``)."""
    return pick("Fake", "fake", "FAKE") + rnd(_r.randint(10, 16), ALNUM + "_-")


def akid() -> str:
    return "AKIAFAKE" + rnd(12, UPPER_ALNUM)


def aws_secret() -> str:
    return "FAKE" + rnd(36, ALNUM + "/+")


def cc_key() -> str:
    """A Confluent Cloud API key: 16 upper-case letters and digits."""
    return "FAKE" + rnd(12, UPPER_ALNUM)


def cc_secret() -> str:
    """A Confluent Cloud API secret: 64 characters of base64's alphabet."""
    return "FAKE" + rnd(60, B64)


def fernet() -> str:
    """An Airflow fernet key: 32 bytes, URL-safe base64."""
    return base64.urlsafe_b64encode(b"FAKE\x00" + _r.randbytes(27)).decode()


def azure_key() -> str:
    """An Azure storage account key: 64 bytes, base64 (88 characters)."""
    return "FAKE" + rnd(81, B64) + pick("A", "Q", "g", "w") + "=="


def dapi() -> str:
    return "dapi" + hx(32) + pick("", "", "-2", "-3")


def dd_key() -> str:
    return hx(32)


def nr_license() -> str:
    return hx(36) + "NRAL"


def vault_token() -> str:
    return "hvs.CAESIFAKE" + rnd(80, B64URL)


def xoxb() -> str:
    return f"xoxb-{_r.randint(10**10, 10**11)}-{_r.randint(10**12, 10**13)}-FAKE{rnd(20)}"


def glc() -> str:
    body = json.dumps({"o": str(_r.randint(10**5, 10**6)), "n": "fluent-bit-fake", "k": "FAKE" + rnd(20), "m": {"r": "eu"}},
                      separators=(",", ":"))
    return "glc_" + base64.b64encode(body.encode()).decode().rstrip("=")


def es_api_key() -> str:
    return "FAKE" + rnd(18, B64URL)


def dbt_token() -> str:
    return "dbtu_FAKE" + rnd(44, B64URL)


def refresh_token() -> str:
    return "1//0gFAKE" + rnd(90, B64URL)


def stripe() -> str:
    return "sk_live_FAKE" + rnd(95)


def pem_lines(n: int) -> list[str]:
    first = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQFAKE" + rnd(10, B64)
    return [first] + [rnd(64, B64) for _ in range(n - 1)]


def pem_body() -> str:
    return "\n".join(pem_lines(8))


def pem_one_line() -> str:
    """A private key's body without its armour lines, on one line (Snowflake's connector takes it so)."""
    return "".join(pem_lines(8))


def sas_sig() -> str:
    return enc(base64.b64encode(b"FAKE" + _r.randbytes(28)).decode())


def who() -> str:
    return pick("etl", "loader", "ETL_SVC", "ingest", "dw_writer", "cdc_user")


def db() -> str:
    return pick("db.internal", "pg-warehouse.internal", "10.20.4.17", "mysql-src.example.net", "replica-1.db.example.com")


def bucket() -> str:
    return pick("fake-raw-zone", "fake-datalake", "acme-landing-fake", "events-archive-fake")


def acct() -> str:
    return pick("fakelake", "fakeadlsprod", "acmedatafake", "rawzonefake")


def broker() -> str:
    return pick("pkc-fake12.eu-west-1.aws.confluent.cloud:9092", "kafka-0.kafka.internal:9093", "b-1.fake-msk.abc123.kafka.us-east-1.amazonaws.com:9096",
                "broker.example.net:9094")


def sr_url() -> str:
    return pick("https://psrc-fake34.eu-central-1.aws.confluent.cloud", "https://schema-registry.internal:8081")


def sf_account() -> str:
    return pick("fake-xy12345", "acmefake.eu-west-1", "FAKEORG-ANALYTICS")


def adb_host() -> str:
    return f"adb-{_r.randint(10**15, 10**16)}.{_r.randint(1, 19)}.azuredatabricks.net"


def stamp() -> str:
    return f"2026-12-05 0{_r.randint(0, 3)}:{_r.randint(10, 59)}:{_r.randint(10, 59)},{_r.randint(100, 999)}"


def jaas(module: str, user: str, s: str, q: str = '"') -> str:
    cls = {"plain": "org.apache.kafka.common.security.plain.PlainLoginModule",
           "scram": "org.apache.kafka.common.security.scram.ScramLoginModule"}[module]
    return f"{cls} required username={q}{user}{q} password={q}{s}{q};"


def secret_any() -> str:
    return pick(fpw(), fpw(), "FAKE" + rnd(32))


# --- secret formats: each a pipeline's config, command line or log, 8 instances ------------------------------------

SECRETS: list[tuple[str, str, Maker]] = [
    ("airflow_connections", "config", fitted(
        (upw, lambda s: f"export AIRFLOW_CONN_WAREHOUSE='postgres://{who()}:{s}@{db()}:5432/warehouse'"),
        (lambda: enc(aws_secret()), lambda s: f"AIRFLOW_CONN_AWS_DEFAULT=aws://{akid()}:{s}@/?region_name=eu-west-1"),
        (fpw, lambda s: f"airflow connections add 'snowflake_default' --conn-type 'snowflake' --conn-login 'ETL_SVC' --conn-password '{s}' --conn-host '{sf_account()}' --conn-schema 'RAW'"),
        (upw, lambda s: f"$ airflow connections add partner_sftp --conn-uri 'sftp://loader:{s}@sftp.partner.example.com:22'\nSuccessfully added `conn_id`=partner_sftp : sftp://loader:******@sftp.partner.example.com:22"),
        (fpw, lambda s: json.dumps({"conn_type": "mysql", "login": who(), "password": s, "host": db(), "port": 3306, "schema": "sales"}).join(("AIRFLOW_CONN_SALES_DB='", "'"))),
        (upw, lambda s: f"extraEnv: |\n  - name: AIRFLOW_CONN_REDSHIFT\n    value: 'redshift://{who()}:{s}@fake-cluster.abc123.eu-west-1.redshift.amazonaws.com:5439/dev'"),
        (fpw, lambda s: f"# connections.yaml (LocalFilesystemBackend)\nwarehouse:\n  conn_type: postgres\n  host: {db()}\n  login: {who()}\n  password: {s}\n  port: 5432\n  schema: warehouse"),
        (xoxb, lambda s: f"conn = Connection(\n    conn_id=\"slack_alerts\",\n    conn_type=\"slack\",\n    password=\"{s}\",\n)\nsession.add(conn)"))),
    ("airflow_settings", "config", fitted(
        (fernet, lambda s: f"AIRFLOW__CORE__FERNET_KEY={s}"),
        (fernet, lambda s: f"[core]\ndags_folder = /opt/airflow/dags\nexecutor = CeleryExecutor\nfernet_key = {s}\nload_examples = False"),
        (lambda: hx(32), lambda s: f"[webserver]\nbase_url = https://airflow.internal\nsecret_key = {s}\nexpose_config = False"),
        (upw, lambda s: f"AIRFLOW__DATABASE__SQL_ALCHEMY_CONN=postgresql+psycopg2://airflow:{s}@airflow-pg:5432/airflow"),
        (upw, lambda s: f"[celery]\nbroker_url = redis://:{s}@airflow-redis:6379/0\nworker_concurrency = 16"),
        (fpw, lambda s: f"AIRFLOW__SMTP__SMTP_USER=alerts@example.com\nAIRFLOW__SMTP__SMTP_PASSWORD={s}\nAIRFLOW__SMTP__SMTP_PORT=587"),
        (lambda: hx(32), lambda s: f"# values.yaml (apache-airflow chart)\nwebserverSecretKey: {s}\nexecutor: KubernetesExecutor"),
        (vault_token, lambda s: f"AIRFLOW__SECRETS__BACKEND=airflow.providers.hashicorp.secrets.vault.VaultBackend\nAIRFLOW__SECRETS__BACKEND_KWARGS='{{\"connections_path\": \"connections\", \"url\": \"https://vault.internal:8200\", \"token\": \"{s}\"}}'"))),
    ("dbt_profiles", "yaml", fitted(
        (fpw, lambda s: f"warehouse:\n  target: prod\n  outputs:\n    prod:\n      type: postgres\n      host: {db()}\n      user: {who()}\n      password: {s}\n      port: 5432\n      dbname: analytics\n      schema: marts\n      threads: 8"),
        (fpw, lambda s: f"snowflake_dw:\n  outputs:\n    prod:\n      type: snowflake\n      account: {sf_account()}\n      user: DBT_SVC\n      password: \"{s}\"\n      role: TRANSFORMER\n      warehouse: TRANSFORMING\n      database: ANALYTICS\n      schema: DBT_PROD"),
        (fpw, lambda s: f"      type: snowflake\n      account: {sf_account()}\n      user: DBT_SVC\n      private_key_path: /secrets/rsa_key.p8\n      private_key_passphrase: \"{s}\""),
        (dapi, lambda s: f"lakehouse:\n  target: dev\n  outputs:\n    dev:\n      type: databricks\n      host: {adb_host()}\n      http_path: /sql/1.0/warehouses/{hx(16)}\n      token: {s}\n      schema: dbt_dev"),
        (lambda: pem_body().replace("\n", "\\n"), lambda s: f"      type: bigquery\n      method: service-account-json\n      project: fake-analytics\n      keyfile_json:\n        type: service_account\n        project_id: fake-analytics\n        private_key_id: {hx(40)}\n        private_key: \"-----BEGIN PRIVATE KEY-----\\n{s}\\n-----END PRIVATE KEY-----\\n\"\n        client_email: dbt-runner@fake-analytics.iam.gserviceaccount.com"),
        (fpw, lambda s: f"      type: redshift\n      host: fake-cluster.abc123.eu-west-1.redshift.amazonaws.com\n      user: dbt\n      password: '{s}'\n      port: 5439\n      dbname: dev"),
        (fpw, lambda s: f"DBT_ENV_SECRET_PG_PASSWORD='{s}' dbt run --target prod --select tag:nightly"),
        (dbt_token, lambda s: f"# ~/.dbt/dbt_cloud.yml\nversion: \"1\"\ncontext:\n  active-project: \"{_r.randint(10**5, 10**6)}\"\nprojects:\n  - project-id: \"{_r.randint(10**5, 10**6)}\"\n    account-host: \"cloud.getdbt.com\"\n    api-key: \"{s}\""))),
    ("kafka_jaas_config", "config", fitted(
        (cc_secret, lambda s: f"bootstrap.servers={broker()}\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config={jaas('plain', cc_key(), s)}"),
        (fpw, lambda s: f"sasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config={jaas('scram', 'etl-producer', s)}"),
        (fpw, lambda s: f"KafkaClient {{\n    org.apache.kafka.common.security.scram.ScramLoginModule required\n    username=\"{who()}\"\n    password=\"{s}\";\n}};"),
        (fpw, lambda s: f"listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n    username=\"admin\" \\\n    password=\"{s}\" \\\n    user_admin=\"{s}\";"),
        (cc_secret, lambda s: f"spring:\n  kafka:\n    bootstrap-servers: {broker()}\n    properties:\n      security.protocol: SASL_SSL\n      sasl.mechanism: PLAIN\n      sasl.jaas.config: {jaas('plain', cc_key(), s, q=chr(39))}"),
        (cc_secret, lambda s: f"props.put(SaslConfigs.SASL_JAAS_CONFIG, \"{jaas('plain', cc_key(), s).replace(chr(34), chr(92) + chr(34))}\");"),
        (lambda: "FAKE" + rnd(40, B64URL), lambda s: f"sasl.mechanism=OAUTHBEARER\nsasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\"etl-client\" clientSecret=\"{s}\" scope=\"kafka\";"),
        (fpw, lambda s: f"KAFKA_SASL_JAAS_CONFIG: '{jaas('scram', 'connect', s)}'"))),
    ("kafka_client_code", "code", fitted(
        (cc_secret, lambda s: f"producer = Producer({{\n    'bootstrap.servers': '{broker()}',\n    'security.protocol': 'SASL_SSL',\n    'sasl.mechanisms': 'PLAIN',\n    'sasl.username': '{cc_key()}',\n    'sasl.password': '{s}',\n}})"),
        (fpw, lambda s: f"consumer = KafkaConsumer('orders', bootstrap_servers='{broker()}', security_protocol='SASL_SSL', sasl_mechanism='SCRAM-SHA-256', sasl_plain_username='{who()}', sasl_plain_password='{s}')"),
        (fpw, lambda s: f"config := sarama.NewConfig()\nconfig.Net.SASL.Enable = true\nconfig.Net.SASL.User = \"{who()}\"\nconfig.Net.SASL.Password = \"{s}\"\nconfig.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512"),
        (cc_secret, lambda s: f"const kafka = new Kafka({{\n  clientId: 'orders-etl',\n  brokers: ['{broker()}'],\n  ssl: true,\n  sasl: {{ mechanism: 'plain', username: '{cc_key()}', password: '{s}' }},\n}})"),
        (cc_secret, lambda s: f"let consumer: StreamConsumer = ClientConfig::new()\n    .set(\"bootstrap.servers\", \"{broker()}\")\n    .set(\"sasl.username\", \"{cc_key()}\")\n    .set(\"sasl.password\", \"{s}\")\n    .create()?;"),
        (cc_secret, lambda s: f"# client.properties (librdkafka)\nbootstrap.servers={broker()}\nsecurity.protocol=SASL_SSL\nsasl.mechanisms=PLAIN\nsasl.username={cc_key()}\nsasl.password={s}"),
        (lambda: "eyJhbGciOiJIUzI1NiJ9." + base64.urlsafe_b64encode(json.dumps({"sub": "etl-fake"}).encode()).decode().rstrip("=") + "." + rnd(43, B64URL),
         lambda s: f"client = pulsar.Client('pulsar+ssl://pulsar.internal:6651', authentication=pulsar.AuthenticationToken('{s}'))"),
        (fpw, lambda s: f"app = faust.App('orders', broker='kafka://{broker()}', broker_credentials=faust.SASLCredentials(username='{who()}', password='{s}', ssl_context=ctx))"))),
    ("kafka_cli_tools", "cli", fitted(
        (cc_secret, lambda s: f"kcat -b {broker()} -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username={cc_key()} -X sasl.password={s} -t orders -C -o -10 -e"),
        (fpw, lambda s: f"kafka-configs.sh --bootstrap-server {broker()} --alter --add-config 'SCRAM-SHA-512=[password={s}]' --entity-type users --entity-name {who()}"),
        (fpw, lambda s: f"kafka-configs --zookeeper zk-0.internal:2181 --alter --add-config 'SCRAM-SHA-256=[iterations=8192,password={s}],SCRAM-SHA-512=[password={s}]' --entity-type users --entity-name alice"),
        (cc_secret, lambda s: f"$ confluent api-key store {cc_key()} {s} --resource lkc-{rnd(6, string.ascii_lowercase + string.digits)}\nStored secret for API key \"{cc_key()}\"."),
        (fpw, lambda s: f"kafka-console-consumer.sh --bootstrap-server {broker()} --topic orders --from-beginning --consumer-property security.protocol=SASL_SSL --consumer-property sasl.mechanism=SCRAM-SHA-512 --consumer-property 'sasl.jaas.config={jaas('scram', who(), s)}'"),
        (fpw, lambda s: f"rpk topic consume orders -X brokers={broker()} -X user={who()} -X pass='{s}' -X sasl.mechanism=SCRAM-SHA-256 -X tls.enabled=true"),
        (fpw, lambda s: f"rpk security user create {who()} -p '{s}' --mechanism SCRAM-SHA-256"),
        (cc_secret, lambda s: f"confluent kafka client-config create python --api-key {cc_key()} --api-secret {s} --sr-apikey {cc_key()} --sr-apisecret {cc_secret()}"))),
    ("schema_registry_auth", "config", fitted(
        (cc_secret, lambda s: f"schema.registry.url={sr_url()}\nbasic.auth.credentials.source=USER_INFO\nbasic.auth.user.info={cc_key()}:{s}"),
        (cc_secret, lambda s: f"value.converter=io.confluent.connect.avro.AvroConverter\nvalue.converter.schema.registry.url={sr_url()}\nvalue.converter.basic.auth.credentials.source=USER_INFO\nvalue.converter.basic.auth.user.info={cc_key()}:{s}"),
        (cc_secret, lambda s: f"      CONNECT_VALUE_CONVERTER_SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO: \"{cc_key()}:{s}\""),
        (cc_secret, lambda s: f"sr_client = SchemaRegistryClient({{'url': '{sr_url()}', 'basic.auth.user.info': '{cc_key()}:{s}'}})"),
        (cc_secret, lambda s: f"$ curl -s -u {cc_key()}:{s} {sr_url()}/subjects/orders-value/versions/latest | jq .id\n100045"),
        (cc_secret, lambda s: f"ksql.schema.registry.url={sr_url()}\nksql.schema.registry.basic.auth.credentials.source=USER_INFO\nksql.schema.registry.basic.auth.user.info={cc_key()}:{s}"),
        (cc_secret, lambda s: f"kafka-avro-console-consumer --bootstrap-server {broker()} --topic orders --property schema.registry.url={sr_url()} --property basic.auth.credentials.source=USER_INFO --property schema.registry.basic.auth.user.info={cc_key()}:{s}"),
        (fpw, lambda s: f"SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO=sr-reader:{s}"))),
    ("spark_hadoop_conf", "config", fitted(
        (aws_secret, lambda s: f"# spark-defaults.conf\nspark.hadoop.fs.s3a.access.key      {akid()}\nspark.hadoop.fs.s3a.secret.key      {s}\nspark.hadoop.fs.s3a.endpoint        s3.eu-west-1.amazonaws.com"),
        (aws_secret, lambda s: f"spark-submit --master yarn --deploy-mode cluster --conf spark.hadoop.fs.s3a.access.key={akid()} --conf spark.hadoop.fs.s3a.secret.key={s} jobs/daily_orders.py --date 2026-12-04"),
        (aws_secret, lambda s: f"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{s}</value>\n</property>"),
        (azure_key, lambda s: f"spark.conf.set(\n    \"fs.azure.account.key.{acct()}.dfs.core.windows.net\",\n    \"{s}\")"),
        (azure_key, lambda s: f"spark.hadoop.fs.azure.account.key.{acct()}.blob.core.windows.net {s}"),
        (aws_secret, lambda s: f"hadoop distcp -Dfs.s3a.access.key={akid()} -Dfs.s3a.secret.key={s} hdfs:///warehouse/orders s3a://{bucket()}/orders"),
        (lambda: "FAKE" + rnd(34, ALNUM + "~._-"), lambda s: f"spark.hadoop.fs.azure.account.auth.type.{acct()}.dfs.core.windows.net OAuth\nspark.hadoop.fs.azure.account.oauth2.client.id.{acct()}.dfs.core.windows.net {uuid()}\nspark.hadoop.fs.azure.account.oauth2.client.secret.{acct()}.dfs.core.windows.net {s}"),
        (fpw, lambda s: f"<property>\n  <name>javax.jdo.option.ConnectionPassword</name>\n  <value>{s}</value>\n  <description>password to use against metastore database</description>\n</property>"))),
    ("spark_jdbc_sources", "code", fitted(
        (fpw, lambda s: f"orders = (spark.read.format(\"jdbc\")\n    .option(\"url\", \"jdbc:postgresql://{db()}:5432/warehouse\")\n    .option(\"dbtable\", \"public.orders\")\n    .option(\"user\", \"{who()}\")\n    .option(\"password\", \"{s}\")\n    .load())"),
        (fpw, lambda s: f"val props = new java.util.Properties()\nprops.setProperty(\"user\", \"{who()}\")\nprops.setProperty(\"password\", \"{s}\")\nval df = spark.read.jdbc(jdbcUrl, \"sales.orders\", props)"),
        (fpw, lambda s: f"df.write.jdbc(url=jdbc_url, table=\"dw.fact_orders\", mode=\"append\", properties={{\"user\": \"{who()}\", \"password\": \"{s}\", \"driver\": \"org.postgresql.Driver\"}})"),
        (fpw, lambda s: f"sqoop import --connect jdbc:mysql://{db()}/sales --username {who()} --password '{s}' --table orders --target-dir /data/raw/orders -m 4"),
        (fpw, lambda s: f"CREATE TEMPORARY VIEW src_orders\nUSING org.apache.spark.sql.jdbc\nOPTIONS (\n  url \"jdbc:postgresql://{db()}:5432/warehouse\",\n  dbtable \"public.orders\",\n  user '{who()}',\n  password '{s}'\n)"),
        (upw, lambda s: f"events = spark.read.format(\"mongodb\").option(\"connection.uri\", \"mongodb://{who()}:{s}@mongo-0.internal:27017/app?authSource=admin\").option(\"collection\", \"events\").load()"),
        (fpw, lambda s: f"datasource = glueContext.create_dynamic_frame.from_options(\n    connection_type=\"postgresql\",\n    connection_options={{\"url\": \"jdbc:postgresql://{db()}:5432/warehouse\", \"user\": \"{who()}\", \"password\": \"{s}\", \"dbtable\": \"orders\"}},\n)"),
        (fpw, lambda s: f"sqoop export --connect 'jdbc:sqlserver://sql.internal:1433;databaseName=dw' --username {who()} --password {s} --table fact_orders --export-dir /warehouse/fact_orders"))),
    ("jdbc_odbc_urls", "config", fitted(
        (upw, lambda s: f"jdbc:postgresql://{db()}:5432/warehouse?user={who()}&password={s}&sslmode=require"),
        (simple_pw, lambda s: f"spring.datasource.url=jdbc:sqlserver://fake-sql.database.windows.net:1433;database=dw;user=etl@fake-sql;password={s};encrypt=true;trustServerCertificate=false;loginTimeout=30;"),
        (upw, lambda s: f"jdbc:mysql://{who()}:{s}@{db()}:3306/sales?useSSL=true&serverTimezone=UTC"),
        (simple_pw, lambda s: f"jdbc.url=jdbc:oracle:thin:{who()}/{s}@//ora-scan.internal:1521/ORCLPDB1"),
        (simple_pw, lambda s: f"jdbc:redshift://fake-cluster.abc123.eu-west-1.redshift.amazonaws.com:5439/dev;UID={who()};PWD={s};ssl=true"),
        (dapi, lambda s: f"jdbc:databricks://{adb_host()}:443/default;transportMode=http;ssl=1;AuthMech=3;httpPath=/sql/1.0/warehouses/{hx(16)};UID=token;PWD={s}"),
        (simple_pw, lambda s: f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:sql.internal,1433;Database=dw;Uid={who()};Pwd={s};Encrypt=yes;TrustServerCertificate=no;"),
        (upw, lambda s: f"url: jdbc:clickhouse://ch.internal:8443/default?user={who()}&password={s}&ssl=true"))),
    ("kafka_connect_json", "json", fitted(
        (fpw, lambda s: json.dumps({"name": "inventory-connector", "config": {"connector.class": "io.debezium.connector.mysql.MySqlConnector", "tasks.max": "1", "database.hostname": db(), "database.port": "3306", "database.user": "debezium", "database.password": s, "database.server.id": "184054", "topic.prefix": "dbserver1", "database.include.list": "inventory", "schema.history.internal.kafka.topic": "schema-changes.inventory"}}, indent=2)),
        (fpw, lambda s: json.dumps({"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "plugin.name": "pgoutput", "database.hostname": db(), "database.user": "cdc_user", "database.password": s, "database.dbname": "app", "slot.name": "debezium_app"})),
        (fpw, lambda s: f"curl -s -X PUT -H 'Content-Type: application/json' http://connect.internal:8083/connectors/pg-sink/config -d '{json.dumps({'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector', 'connection.url': 'jdbc:postgresql://' + db() + ':5432/dw', 'connection.user': who(), 'connection.password': s, 'topics': 'orders', 'insert.mode': 'upsert'})}'"),
        (aws_secret, lambda s: json.dumps({"name": "s3-sink", "config": {"connector.class": "io.confluent.connect.s3.S3SinkConnector", "s3.bucket.name": bucket(), "s3.region": "eu-west-1", "aws.access.key.id": akid(), "aws.secret.access.key": s, "flush.size": "1000"}}, indent=2)),
        (pem_one_line, lambda s: json.dumps({"connector.class": "com.snowflake.kafka.connector.SnowflakeSinkConnector", "snowflake.url.name": sf_account() + ".snowflakecomputing.com:443", "snowflake.user.name": "KAFKA_CONNECTOR", "snowflake.private.key": s, "snowflake.database.name": "RAW", "topics": "orders"}, indent=2)),
        (upw, lambda s: json.dumps({"connector.class": "com.mongodb.kafka.connect.MongoSourceConnector", "connection.uri": f"mongodb+srv://{who()}:{s}@cluster0.fake12.mongodb.net/?retryWrites=true", "database": "app", "collection": "events"})),
        (fpw, lambda s: f"debezium.sink.type=kinesis\ndebezium.source.connector.class=io.debezium.connector.postgresql.PostgresConnector\ndebezium.source.database.hostname={db()}\ndebezium.source.database.user=cdc_user\ndebezium.source.database.password={s}\ndebezium.source.topic.prefix=app"),
        (cc_secret, lambda s: json.dumps({"connector.class": "io.debezium.connector.sqlserver.SqlServerConnector", "schema.history.internal.producer.security.protocol": "SASL_SSL", "schema.history.internal.producer.sasl.jaas.config": jaas("plain", cc_key(), s)}, indent=2)))),
    ("flink_sql_and_conf", "config", fitted(
        (fpw, lambda s: f"CREATE TABLE dim_customers (\n  id BIGINT,\n  name STRING,\n  PRIMARY KEY (id) NOT ENFORCED\n) WITH (\n  'connector' = 'jdbc',\n  'url' = 'jdbc:postgresql://{db()}:5432/dw',\n  'table-name' = 'customers',\n  'username' = '{who()}',\n  'password' = '{s}'\n);"),
        (cc_secret, lambda s: f"  'properties.bootstrap.servers' = '{broker()}',\n  'properties.security.protocol' = 'SASL_SSL',\n  'properties.sasl.mechanism' = 'PLAIN',\n  'properties.sasl.jaas.config' = '{jaas('plain', cc_key(), s)}',"),
        (aws_secret, lambda s: f"# flink-conf.yaml\ns3.access-key: {akid()}\ns3.secret-key: {s}\nstate.checkpoints.dir: s3://{bucket()}/checkpoints"),
        (azure_key, lambda s: f"fs.azure.account.key.{acct()}.blob.core.windows.net: {s}\nstate.backend: rocksdb"),
        (fpw, lambda s: f"source:\n  type: mysql\n  hostname: {db()}\n  port: 3306\n  username: flinkcdc\n  password: \"{s}\"\n  tables: app_db.\\.*\n  server-id: 5400-5404\n\nsink:\n  type: doris\n  fenodes: doris-fe:8030"),
        (fpw, lambda s: f"MySqlSource<String> source = MySqlSource.<String>builder()\n    .hostname(\"{db()}\")\n    .port(3306)\n    .databaseList(\"app_db\")\n    .username(\"flinkcdc\")\n    .password(\"{s}\")\n    .deserializer(new JsonDebeziumDeserializationSchema())\n    .build();"),
        (fpw, lambda s: f"new JdbcConnectionOptions.JdbcConnectionOptionsBuilder()\n    .withUrl(\"jdbc:postgresql://{db()}:5432/dw\")\n    .withDriverName(\"org.postgresql.Driver\")\n    .withUsername(\"{who()}\")\n    .withPassword(\"{s}\")\n    .build()"),
        (aws_secret, lambda s: f"./bin/flink run-application -t kubernetes-application -Dkubernetes.cluster-id=orders-enrich -Ds3.access-key={akid()} -Ds3.secret-key={s} local:///opt/flink/usrlib/orders-enrich.jar"))),
    ("snowflake_connector", "code", fitted(
        (fpw, lambda s: f"conn = snowflake.connector.connect(\n    user=\"ETL_SVC\",\n    password=\"{s}\",\n    account=\"{sf_account()}\",\n    warehouse=\"LOAD_WH\",\n    database=\"RAW\",\n)"),
        (fpw, lambda s: f"# ~/.snowsql/config\n[connections.etl]\naccountname = {sf_account()}\nusername = ETL_SVC\npassword = {s}\nwarehousename = LOAD_WH"),
        (fpw, lambda s: f"# ~/.snowflake/connections.toml\n[default]\naccount = \"{sf_account()}\"\nuser = \"ETL_SVC\"\npassword = \"{s}\"\nrole = \"LOADER\""),
        (fpw, lambda s: f"sfOptions = {{\n  \"sfURL\": \"{sf_account()}.snowflakecomputing.com\",\n  \"sfUser\": \"ETL_SVC\",\n  \"sfPassword\": \"{s}\",\n  \"sfDatabase\": \"RAW\",\n  \"sfWarehouse\": \"LOAD_WH\",\n}}\ndf.write.format(\"snowflake\").options(**sfOptions).option(\"dbtable\", \"ORDERS\").save()"),
        (fpw, lambda s: f"SNOWSQL_PWD='{s}' snowsql -a {sf_account()} -u ETL_SVC -d RAW -q 'select current_version()'"),
        (fpw, lambda s: f"snowflake.private.key.passphrase={s}\nsnowflake.user.name=KAFKA_CONNECTOR"),
        (fpw, lambda s: f"const connection = snowflake.createConnection({{\n  account: '{sf_account()}',\n  username: 'ETL_SVC',\n  password: '{s}',\n  warehouse: 'LOAD_WH',\n}});"),
        (fpw, lambda s: f"cfg := &sf.Config{{\n\tAccount:   \"{sf_account()}\",\n\tUser:      \"ETL_SVC\",\n\tPassword:  \"{s}\",\n\tWarehouse: \"LOAD_WH\",\n}}"))),
    ("databricks_bigquery", "config", fitted(
        (dapi, lambda s: f"DATABRICKS_HOST=https://{adb_host()}\nDATABRICKS_TOKEN={s}"),
        (dapi, lambda s: f"with sql.connect(server_hostname=\"{adb_host()}\",\n                 http_path=\"/sql/1.0/warehouses/{hx(16)}\",\n                 access_token=\"{s}\") as conn:"),
        (dapi, lambda s: f"[DEFAULT]\nhost  = https://{adb_host()}\ntoken = {s}\njobs-api-version = 2.1"),
        (dapi, lambda s: f"engine = create_engine(\"databricks://token:{s}@{adb_host()}?http_path=/sql/1.0/warehouses/{hx(16)}&catalog=main&schema=sales\")"),
        (dapi, lambda s: f"curl -s -X POST -H \"Authorization: Bearer {s}\" https://{adb_host()}/api/2.1/jobs/run-now -d '{{\"job_id\": {_r.randint(10**5, 10**6)}}}'"),
        (lambda: "dose" + hx(32), lambda s: f"DATABRICKS_CLIENT_ID={uuid()}\nDATABRICKS_CLIENT_SECRET={s}"),
        (lambda: pem_body().replace("\n", "\\n"), lambda s: json.dumps({"type": "service_account", "project_id": "fake-analytics", "private_key_id": hx(40), "private_key": "@@"}, indent=2).replace("@@", f"-----BEGIN PRIVATE KEY-----\\n{s}\\n-----END PRIVATE KEY-----\\n")),
        (lambda: base64.b64encode(json.dumps({"type": "service_account", "project_id": "fake-analytics", "private_key_id": "FAKE" + hx(36), "private_key": "-----BEGIN PRIVATE KEY-----\n" + pem_body() + "\n-----END PRIVATE KEY-----\n"}).encode()).decode(),
         lambda s: f"df = (spark.read.format(\"bigquery\")\n      .option(\"credentials\", \"{s}\")\n      .option(\"parentProject\", \"fake-analytics\")\n      .load(\"fake-analytics.sales.orders\"))"))),
    ("logstash_pipelines", "config", fitted(
        (fpw, lambda s: f"output {{\n  elasticsearch {{\n    hosts => [\"https://es01.internal:9200\"]\n    index => \"orders-%{{+YYYY.MM.dd}}\"\n    user => \"logstash_writer\"\n    password => \"{s}\"\n  }}\n}}"),
        (fpw, lambda s: f"input {{\n  jdbc {{\n    jdbc_driver_class => \"org.postgresql.Driver\"\n    jdbc_connection_string => \"jdbc:postgresql://{db()}:5432/app\"\n    jdbc_user => \"logstash\"\n    jdbc_password => \"{s}\"\n    schedule => \"*/5 * * * *\"\n    statement => \"SELECT * FROM orders WHERE updated_at > :sql_last_value\"\n  }}\n}}"),
        (cc_secret, lambda s: f"  kafka {{\n    bootstrap_servers => \"{broker()}\"\n    security_protocol => \"SASL_SSL\"\n    sasl_mechanism => \"PLAIN\"\n    sasl_jaas_config => \"{jaas('plain', cc_key(), s, q=chr(39))}\"\n    topics => [\"app-logs\"]\n  }}"),
        (aws_secret, lambda s: f"  s3 {{\n    access_key_id => \"{akid()}\"\n    secret_access_key => \"{s}\"\n    region => \"eu-west-1\"\n    bucket => \"{bucket()}\"\n    codec => \"json_lines\"\n  }}"),
        (fpw, lambda s: f"  elasticsearch {{\n    cloud_id => \"fake-deployment:ZXUtd2VzdC0xLmF3cy5mb3VuZC5pbyRhYmMxMjMkZGVmNDU2\"\n    cloud_auth => \"elastic:{s}\"\n  }}"),
        (es_api_key, lambda s: f"  elasticsearch {{\n    hosts => [\"https://es01.internal:9200\"]\n    api_key => \"{rnd(20, B64URL)}:{s}\"\n    ssl_enabled => true\n  }}"),
        (fpw, lambda s: f"# logstash.yml\nxpack.monitoring.enabled: true\nxpack.monitoring.elasticsearch.username: logstash_system\nxpack.monitoring.elasticsearch.password: {s}"),
        (lambda: "FAKE" + rnd(36), lambda s: f"  http {{\n    url => \"https://ingest.example.com/v1/events\"\n    http_method => \"post\"\n    headers => {{ \"Authorization\" => \"Bearer {s}\" }}\n  }}"))),
    ("fluentd_fluentbit", "config", fitted(
        (fpw, lambda s: f"<match app.**>\n  @type elasticsearch\n  host es01.internal\n  port 9200\n  scheme https\n  user elastic\n  password {s}\n  logstash_format true\n</match>"),
        (aws_secret, lambda s: f"<match archive.**>\n  @type s3\n  aws_key_id {akid()}\n  aws_sec_key {s}\n  s3_bucket {bucket()}\n  s3_region eu-west-1\n  path logs/\n</match>"),
        (lambda: "FAKE" + rnd(24), lambda s: f"<match **>\n  @type forward\n  transport tls\n  <security>\n    self_hostname edge-01\n    shared_key {s}\n  </security>\n  <server>\n    host aggregator.internal\n    port 24224\n  </server>\n</match>"),
        (fpw, lambda s: f"[OUTPUT]\n    Name         es\n    Match        kube.*\n    Host         es01.internal\n    Port         9200\n    HTTP_User    fluentbit\n    HTTP_Passwd  {s}\n    tls          On"),
        (uuid, lambda s: f"[OUTPUT]\n    Name          splunk\n    Match         *\n    Host          splunk-hec.internal\n    Port          8088\n    Splunk_Token  {s}\n    TLS           On"),
        (dd_key, lambda s: f"[OUTPUT]\n    Name        datadog\n    Match       *\n    Host        http-intake.logs.datadoghq.eu\n    TLS         on\n    apikey      {s}\n    dd_service  orders-etl"),
        (glc, lambda s: f"pipeline:\n  outputs:\n    - name: loki\n      match: '*'\n      host: logs-prod-eu-west-0.grafana.net\n      port: 443\n      tls: on\n      http_user: {_r.randint(10**5, 10**6)}\n      http_passwd: {s}"),
        (cc_secret, lambda s: f"[OUTPUT]\n    Name                        kafka\n    Brokers                     {broker()}\n    Topics                      app-logs\n    rdkafka.security.protocol   SASL_SSL\n    rdkafka.sasl.mechanisms     PLAIN\n    rdkafka.sasl.username       {cc_key()}\n    rdkafka.sasl.password       {s}"))),
    ("vector_config", "config", fitted(
        (fpw, lambda s: f"[sinks.es]\ntype = \"elasticsearch\"\ninputs = [\"parse_logs\"]\nendpoints = [\"https://es01.internal:9200\"]\nauth.strategy = \"basic\"\nauth.user = \"vector\"\nauth.password = \"{s}\""),
        (dd_key, lambda s: f"[sinks.datadog]\ntype = \"datadog_logs\"\ninputs = [\"app\"]\ndefault_api_key = \"{s}\"\nsite = \"datadoghq.eu\""),
        (aws_secret, lambda s: f"[sinks.archive]\ntype = \"aws_s3\"\ninputs = [\"app\"]\nbucket = \"{bucket()}\"\nregion = \"eu-west-1\"\n\n[sinks.archive.auth]\naccess_key_id = \"{akid()}\"\nsecret_access_key = \"{s}\""),
        (fpw, lambda s: f"sinks:\n  kafka_out:\n    type: kafka\n    inputs: [app]\n    bootstrap_servers: {broker()}\n    topic: app-logs\n    sasl:\n      enabled: true\n      mechanism: SCRAM-SHA-512\n      username: vector\n      password: \"{s}\""),
        (uuid, lambda s: f"[sinks.splunk]\ntype = \"splunk_hec_logs\"\ninputs = [\"app\"]\nendpoint = \"https://splunk-hec.internal:8088\"\ndefault_token = \"{s}\""),
        (lambda: "FAKE" + rnd(40, B64URL), lambda s: f"[sinks.webhook]\ntype = \"http\"\ninputs = [\"alerts\"]\nuri = \"https://ingest.example.com/v1/logs\"\nencoding.codec = \"json\"\nauth.strategy = \"bearer\"\nauth.token = \"{s}\""),
        (nr_license, lambda s: f"[sinks.newrelic]\ntype = \"new_relic\"\ninputs = [\"app\"]\naccount_id = \"{_r.randint(10**6, 10**7)}\"\napi = \"logs\"\nlicense_key = \"{s}\""),
        (lambda: "xaat-" + uuid(), lambda s: f"sinks:\n  axiom:\n    type: axiom\n    inputs: [app]\n    dataset: pipeline-logs\n    token: {s}"))),
    ("airbyte_fivetran_singer", "json", fitted(
        (fpw, lambda s: json.dumps({"host": db(), "port": 5432, "database": "app", "schemas": ["public"], "username": "airbyte", "password": s, "ssl_mode": {"mode": "require"}, "replication_method": {"method": "CDC", "replication_slot": "airbyte_slot", "publication": "airbyte_pub"}}, indent=2)),
        (fpw, lambda s: json.dumps({"host": "10.0.8.14", "port": 3306, "database": "sales", "username": "airbyte", "tunnel_method": {"tunnel_method": "SSH_PASSWORD_AUTH", "tunnel_host": "bastion.example.com", "tunnel_port": 22, "tunnel_user": "airbyte", "tunnel_user_password": s}})),
        (refresh_token, lambda s: json.dumps({"sourceType": "google-sheets", "spreadsheet_id": "https://docs.google.com/spreadsheets/d/" + rnd(44, B64URL) + "/edit", "credentials": {"auth_type": "Client", "client_id": f"{_r.randint(10**11, 10**12)}-{rnd(32, string.ascii_lowercase + string.digits)}.apps.googleusercontent.com", "client_secret": "GOCSPX-FAKE" + rnd(24, B64URL), "refresh_token": s}}, indent=2)),
        (fpw, lambda s: f"curl -X POST https://api.fivetran.com/v1/connectors -H 'Content-Type: application/json' -u \"$FIVETRAN_API_KEY:$FIVETRAN_API_SECRET\" -d '{json.dumps({'service': 'postgres_rds', 'group_id': 'decidedly_ambitious', 'config': {'host': db(), 'port': 5432, 'database': 'app', 'user': 'fivetran', 'password': s, 'update_method': 'WAL'}})}'"),
        (aws_secret, lambda s: json.dumps({"service": "s3", "config": {"bucket": bucket(), "prefix": "exports/", "access_key_id": akid(), "secret_key": s, "file_type": "csv"}})),
        (fpw, lambda s: f"$ cat tap-postgres.config.json\n{json.dumps({'host': db(), 'port': 5432, 'user': 'singer', 'password': s, 'dbname': 'app', 'filter_schemas': 'public'}, indent=2)}"),
        (fpw, lambda s: f"$ meltano config tap-postgres set password '{s}'\nTap-postgres setting 'password' was set in `.env`: '(redacted)'"),
        (stripe, lambda s: json.dumps({"name": "Stripe (prod)", "workspaceId": uuid(), "configuration": {"sourceType": "stripe", "account_id": "acct_FAKE" + rnd(12), "client_secret": s, "start_date": "2024-01-01T00:00:00Z"}}, indent=2)))),
    ("warehouse_load_sql", "sql", fitted(
        (aws_secret, lambda s: f"COPY analytics.orders\nFROM 's3://{bucket()}/orders/2026/12/04/'\nCREDENTIALS 'aws_access_key_id={akid()};aws_secret_access_key={s}'\nFORMAT AS PARQUET;"),
        (aws_secret, lambda s: f"COPY sales FROM 's3://{bucket()}/sales/' ACCESS_KEY_ID '{akid()}' SECRET_ACCESS_KEY '{s}' CSV IGNOREHEADER 1 REGION 'eu-west-1';"),
        (aws_secret, lambda s: f"CREATE OR REPLACE STAGE raw.orders_stage\n  URL = 's3://{bucket()}/orders/'\n  CREDENTIALS = (AWS_KEY_ID = '{akid()}' AWS_SECRET_KEY = '{s}')\n  FILE_FORMAT = (TYPE = PARQUET);"),
        (sas_sig, lambda s: f"CREATE STAGE raw.azure_stage\n  URL = 'azure://{acct()}.blob.core.windows.net/landing/'\n  CREDENTIALS = (AZURE_SAS_TOKEN = '?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-31T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={s}');"),
        (fpw, lambda s: f"CREATE USER MAPPING FOR etl SERVER legacy_pg OPTIONS (user 'etl_ro', password '{s}');"),
        (fpw, lambda s: f"# etc/catalog/postgres.properties\nconnector.name=postgresql\nconnection-url=jdbc:postgresql://{db()}:5432/app\nconnection-user=trino\nconnection-password={s}"),
        (aws_secret, lambda s: f"SELECT count() FROM s3('https://{bucket()}.s3.eu-west-1.amazonaws.com/events/*.parquet', '{akid()}', '{s}', 'Parquet');"),
        (fpw, lambda s: f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='{db()}', SOURCE_PORT=3306, SOURCE_USER='repl', SOURCE_PASSWORD='{s}', SOURCE_AUTO_POSITION=1;"))),
    ("orchestrator_configs", "config", fitted(
        (fpw, lambda s: f"run_storage:\n  module: dagster_postgres.run_storage\n  class: PostgresRunStorage\n  config:\n    postgres_db:\n      hostname: {db()}\n      username: dagster\n      password: {s}\n      db_name: dagster"),
        (fpw, lambda s: f"resources:\n  snowflake:\n    config:\n      account: {sf_account()}\n      user: DAGSTER_SVC\n      password: \"{s}\"\n      warehouse: TRANSFORMING"),
        (secret_any, lambda s: f"from prefect.blocks.system import Secret\n\nSecret(value=\"{s}\").save(\"warehouse-password\", overwrite=True)"),
        (fpw, lambda s: f"# io_config.yaml (Mage)\nversion: 0.1.1\ndefault:\n  POSTGRES_CONNECT_TIMEOUT: 10\n  POSTGRES_DBNAME: warehouse\n  POSTGRES_USER: {who()}\n  POSTGRES_PASSWORD: {s}\n  POSTGRES_HOST: {db()}"),
        (lambda: "FAKE" + rnd(20), lambda s: f"# nifi.properties\nnifi.sensitive.props.key={s}\nnifi.sensitive.props.algorithm=NIFI_PBKDF2_AES_GCM_256"),
        (fpw, lambda s: f"[redshift]\nhost=fake-cluster.abc123.eu-west-1.redshift.amazonaws.com\nport=5439\nuser={who()}\npassword={s}\ndatabase=dev"),
        (fpw, lambda s: f"  - id: load_orders\n    type: io.kestra.plugin.jdbc.postgresql.Query\n    url: jdbc:postgresql://{db()}:5432/warehouse\n    username: {who()}\n    password: \"{s}\"\n    sql: SELECT * FROM orders"),
        (fpw, lambda s: json.dumps({"name": "WarehouseSql", "properties": {"type": "AzureSqlDatabase", "typeProperties": {"connectionString": "Data Source=tcp:fake-sql.database.windows.net,1433;Initial Catalog=dw;User ID=adf_loader;", "password": {"type": "SecureString", "value": s}}}}, indent=4)))),
    ("pipeline_logs", "log", fitted(
        (azure_key, lambda s: f"Spark properties used, including those specified through\n --conf and those from the properties file /opt/spark/conf/spark-defaults.conf:\n  (spark.executor.memory,8g)\n  (spark.hadoop.fs.azure.account.key.{acct()}.dfs.core.windows.net,{s})\n  (spark.hadoop.fs.s3a.secret.key,*********(redacted))\n  (spark.sql.shuffle.partitions,400)"),
        (fpw, lambda s: f"Exception in thread \"main\" java.lang.IllegalArgumentException: requirement failed: Option 'dbtable' or 'query' is required.\n\tat scala.Predef$.require(Predef.scala:281)\n\tat org.apache.spark.sql.execution.datasources.jdbc.JDBCOptions.<init>(JDBCOptions.scala:75)\nparameters: CaseInsensitiveMap(Map(url -> jdbc:postgresql://{db()}:5432/warehouse, user -> {who()}, password -> {s}, driver -> org.postgresql.Driver))"),
        (simple_pw, lambda s: f"[{stamp()}] ERROR WorkerSinkTask{{id=dw-sink-0}} Task threw an uncaught and unrecoverable exception (org.apache.kafka.connect.runtime.WorkerTask:212)\norg.apache.kafka.connect.errors.ConnectException: java.sql.SQLException: Cannot create PoolableConnectionFactory (Login failed for user 'etl'.) url: jdbc:sqlserver://sql.internal:1433;databaseName=dw;user=etl;password={s};encrypt=true"),
        (upw, lambda s: f"[2026-12-05T01:02:03,456][WARN ][logstash.outputs.elasticsearch][main] Attempted to resurrect connection to dead ES instance, but got an error {{:url=>\"https://logstash_writer:{s}@es01.internal:9200/\", :exception=>LogStash::Outputs::ElasticSearch::HttpClient::Pool::HostUnreachableError, :message=>\"Elasticsearch Unreachable: [https://logstash_writer:{s}@es01.internal:9200/][Manticore::SocketException] Connection refused\"}}"),
        (fpw, lambda s: f"[2026-12-05, 01:02:03 UTC] {{subprocess.py:93}} INFO - Running command: ['/usr/bin/bash', '-c', 'PGPASSWORD={s} pg_dump -h {db()} -U {who()} warehouse > /tmp/warehouse.sql']"),
        (fpw, lambda s: f"$ airflow connections list -o table\nconn_id        | conn_type | host            | schema    | login | password             | port\n===============+===========+=================+===========+=======+======================+=====\nwarehouse      | postgres  | {db():<15} | warehouse | etl   | {s:<20} | 5432"),
        (upw, lambda s: f"[2026-12-05, 01:02:03 UTC] {{taskinstance.py:2905}} ERROR - Task failed with exception\nTraceback (most recent call last):\n  File \"/opt/airflow/dags/load.py\", line 41, in load\n    engine = create_engine(\"postgresql+psycopg2://{who()}:{s}@{db()}:5432/warehouse\")\nsqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not translate host name to address"),
        (azure_key, lambda s: f"2026-12-05 01:02:03,456 INFO  org.apache.flink.runtime.entrypoint.ClusterEntrypoint [] -  Program Arguments:\n2026-12-05 01:02:03,457 INFO  org.apache.flink.runtime.entrypoint.ClusterEntrypoint [] -     -D\n2026-12-05 01:02:03,457 INFO  org.apache.flink.runtime.entrypoint.ClusterEntrypoint [] -     fs.azure.account.key.{acct()}.blob.core.windows.net={s}"))),
]


# --- benign categories: the same files and logs, nothing secret, 8 instances each -----------------------------------


def offset() -> int:
    return _r.randint(10**4, 10**9)


def topic() -> str:
    return pick("auth.token-revocations", "secrets-manager.rotation.v1", "password-reset-requests", "api-key-usage",
                "user-tokens.v2", "oauth.refresh-token-events", "vault.secret-leases", "credentials-audit")


BENIGN: list[tuple[str, str, object]] = [
    ("offsets_and_partitions", "log", lambda: pick(
        f"[{stamp()}] INFO [Consumer clientId=orders-etl-1, groupId=orders-etl] Setting offset for partition {topic()}-{_r.randint(0, 11)} to the committed offset FetchPosition{{offset={offset()}, offsetEpoch=Optional[{_r.randint(1, 40)}], currentLeader=LeaderAndEpoch{{leader=Optional[kafka-2.internal:9093 (id: 2 rack: euw1-az2)], epoch={_r.randint(1, 40)}}}}}",
        f"GROUP           TOPIC                        PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG   CONSUMER-ID                                          HOST          CLIENT-ID\norders-etl      {topic():<28} {_r.randint(0, 11):<10} {offset():<15} {offset():<15} {_r.randint(0, 900):<5} consumer-orders-etl-1-{uuid()}  /10.0.3.14    consumer-orders-etl-1",
        f"Committed offsets: {{TopicPartition(topic='{topic()}', partition={_r.randint(0, 11)}, offset={offset()}, error=None)}}",
        f"%7|{_r.randint(10**9, 2 * 10**9)}.{_r.randint(100, 999)}|OFFSET|rdkafka#consumer-1| [thrd:main]: Topic {topic()} [{_r.randint(0, 11)}]: stored offset {offset()}, committed offset {offset()}: setting stored offset {offset()} for commit",
        f"Topic: {topic()}\tTopicId: {rnd(22, B64URL)}\tPartitionCount: 12\tReplicationFactor: 3\tConfigs: min.insync.replicas=2,cleanup.policy=delete,retention.ms=604800000",
        f"{{\"topic\": \"{topic()}\", \"partition\": {_r.randint(0, 11)}, \"offset\": {offset()}, \"timestamp\": 1764896523{_r.randint(100, 999)}, \"key\": \"user-{_r.randint(1000, 99999)}\"}}",
        f"rpk group describe orders-etl\nGROUP        orders-etl\nCOORDINATOR  1\nSTATE        Stable\nBALANCER     cooperative-sticky\nMEMBERS      3\nTOTAL-LAG    {_r.randint(0, 9000)}",
        f"Flushing offsets for {topic()}-{_r.randint(0, 11)}: lsn={_r.randint(10**7, 10**9)}, txId={_r.randint(1000, 99999)}, ts_usec=1764896523{_r.randint(100000, 999999)}")),
    ("schema_registry_ids", "json", lambda: pick(
        json.dumps({"subject": f"{topic()}-value", "version": _r.randint(1, 30), "id": _r.randint(100000, 200000), "schemaType": "AVRO", "schema": "{\"type\":\"record\",\"name\":\"TokenRevoked\",\"fields\":[{\"name\":\"token_id\",\"type\":\"string\"}]}"}),
        f"$ curl -s {sr_url()}/subjects\n[\"orders-value\",\"{topic()}-value\",\"{topic()}-key\"]",
        f"io.confluent.kafka.serializers.KafkaAvroDeserializer: Error retrieving Avro value schema for id {_r.randint(100000, 200000)}",
        "basic.auth.credentials.source=USER_INFO\nschema.registry.url=" + sr_url() + "\nauto.register.schemas=false\nuse.latest.version=true",
        f"magic byte 0x00, schema id {_r.randint(100000, 200000)} (0x{rnd(8, '0123456789abcdef')}), payload 412 bytes",
        json.dumps({"id": _r.randint(100000, 200000), "guid": uuid(), "schemaType": "PROTOBUF", "references": [{"name": "common/secret_ref.proto", "subject": "secret-ref", "version": 2}]}),
        "{\"compatibilityLevel\": \"BACKWARD_TRANSITIVE\"}",
        f"{{\"type\": \"record\", \"name\": \"ApiKeyUsage\", \"namespace\": \"com.example.billing\", \"fields\": [{{\"name\": \"api_key_id\", \"type\": \"string\"}}, {{\"name\": \"secret_version\", \"type\": \"int\"}}, {{\"name\": \"password_changed\", \"type\": \"boolean\"}}]}}")),
    ("masked_values", "log", lambda: pick(
        f"[{stamp()}] INFO ProducerConfig values:\n\tacks = -1\n\tbootstrap.servers = [{broker()}]\n\tsasl.jaas.config = [hidden]\n\tsasl.mechanism = PLAIN\n\tssl.key.password = null\n\tssl.keystore.password = null",
        "  (spark.hadoop.fs.s3a.secret.key,*********(redacted))\n  (spark.hadoop.fs.s3a.access.key,*********(redacted))",
        f"[2026-12-05, 01:02:03 UTC] {{base.py:84}} INFO - Using connection ID 'warehouse' for task execution.\n[2026-12-05, 01:02:03 UTC] {{sql.py:470}} INFO - Running statement: COPY INTO raw.orders, conn: postgres://etl:***@{db()}:5432/warehouse",
        "  <match app.**>\n    @type elasticsearch\n    user \"elastic\"\n    password xxxxxx\n  </match>",
        json.dumps({"name": "inventory-connector", "config": {"database.user": "debezium", "database.password": "********", "database.hostname": db()}}),
        json.dumps({"sourceType": "postgres", "username": "airbyte", "password": "**********"}),
        "2026-12-05 01:02:03,456 INFO  org.apache.flink.configuration.GlobalConfiguration [] - Loading configuration property: s3.secret-key, ******",
        "basic.auth.user.info = [hidden]\nschema.registry.url = [" + sr_url() + "]")),
    ("references_and_templates", "config", lambda: pick(
        "      password: \"{{ env_var('DBT_PASSWORD') }}\"\n      token: \"{{ env_var('DBT_ENV_SECRET_DATABRICKS_TOKEN') }}\"",
        "config.providers=file\nconfig.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\ndatabase.password=${file:/opt/connect/secrets.properties:db.password}",
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"${env:KAFKA_API_KEY}\" password=\"${env:KAFKA_API_SECRET}\";",
        "    user => \"logstash_writer\"\n    password => \"${ES_PWD}\"",
        "[sinks.datadog]\ntype = \"datadog_logs\"\ndefault_api_key = \"${DD_API_KEY}\"",
        "bash_command='PGPASSWORD={{ conn.warehouse.password }} psql -h {{ conn.warehouse.host }} -f /sql/load.sql'",
        "spark.hadoop.fs.azure.account.key.fakelake.dfs.core.windows.net {{secrets/etl-scope/adls-key}}",
        "      password: \"{{ .Values.warehouse.passwordSecretRef }}\"\n      secretKeyRef:\n        name: warehouse-credentials\n        key: password")),
    ("dsns_without_passwords", "config", lambda: pick(
        f"AIRFLOW_CONN_WAREHOUSE='postgres://{who()}@{db()}:5432/warehouse?sslmode=verify-full'",
        "jdbc:sqlserver://sql.internal:1433;databaseName=dw;integratedSecurity=true;encrypt=true;trustServerCertificate=false",
        f"jdbc:postgresql://{db()}:5432/warehouse?user={who()}&ssl=true&sslmode=verify-full&sslrootcert=/etc/ssl/rds-ca.pem",
        "AIRFLOW_CONN_AWS_DEFAULT='aws://?region_name=eu-west-1&role_arn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fairflow-etl'",
        "jdbc:oracle:thin:@//ora-scan.internal:1521/ORCLPDB1",
        f"jdbc:snowflake://{sf_account()}.snowflakecomputing.com/?authenticator=externalbrowser&warehouse=LOAD_WH&db=RAW",
        "Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql.internal,1433;Database=dw;Authentication=ActiveDirectoryMsi;Encrypt=yes;",
        f"kafka://{broker()}/orders?security.protocol=SASL_SSL&sasl.mechanism=AWS_MSK_IAM")),
    ("config_keys_and_settings", "config", lambda: pick(
        "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nssl.endpoint.identification.algorithm=https\nsasl.login.refresh.window.factor=0.8",
        "spark.hadoop.fs.s3a.aws.credentials.provider=com.amazonaws.auth.InstanceProfileCredentialsProvider\nspark.hadoop.fs.s3a.server-side-encryption-algorithm=SSE-KMS",
        "spark.redaction.regex=(?i)secret|password|token|access[.]key\nspark.sql.redaction.string.regex=(?i)url",
        "      type: snowflake\n      authenticator: externalbrowser\n      private_key_path: /home/etl/.ssh/rsa_key.p8",
        "fs.azure.account.auth.type=OAuth\nfs.azure.account.oauth.provider.type=org.apache.hadoop.fs.azurebfs.oauth2.MsiTokenProvider",
        "sasl.mechanism=AWS_MSK_IAM\nsasl.jaas.config=software.amazon.msk.auth.iam.IAMLoginModule required;\nsasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler",
        "  password_file: /run/secrets/pg_password\n  token_uri: https://oauth2.googleapis.com/token\n  auth_method: oauth",
        "[sinks.es]\nauth.strategy = \"aws\"\naws.region = \"eu-west-1\"")),
    ("lineage_hashes", "json", lambda: pick(
        json.dumps({"eventType": "COMPLETE", "eventTime": "2026-12-05T01:02:03.456Z", "run": {"runId": uuid()}, "job": {"namespace": "airflow", "name": "load_orders.copy_into"}, "outputs": [{"namespace": "snowflake://" + sf_account(), "name": "RAW.PUBLIC.ORDERS"}]}),
        json.dumps({"unique_id": "model.analytics.fct_orders", "checksum": {"name": "sha256", "checksum": hx(64)}, "config": {"materialized": "incremental"}}),
        json.dumps({"add": {"path": f"part-00000-{uuid()}-c000.snappy.parquet", "size": _r.randint(10**5, 10**8), "modificationTime": 1764896523000, "dataChange": True}}),
        f"snapshot-id: {_r.randint(10**17, 10**18)}\nmanifest-list: s3://{bucket()}/warehouse/orders/metadata/snap-{_r.randint(10**17, 10**18)}-1-{uuid()}.avro",
        f"dag_hash: {hx(32)}\nfileloc: /opt/airflow/dags/load_orders.py",
        json.dumps({"facets": {"sourceCode": {"language": "sql"}, "sql": {"query": "select * from orders"}, "dataQualityMetrics": {"rowCount": _r.randint(1000, 99999)}}, "inputs": [{"name": "public.orders", "facets": {"version": {"datasetVersion": hx(40)}}}]}),
        f"\"compiled_code_checksum\": \"{hx(64)}\",\n\"raw_code_checksum\": \"{hx(64)}\"",
        json.dumps({"commitInfo": {"timestamp": 1764896523000, "operation": "MERGE", "txnId": uuid(), "engineInfo": "Apache-Spark/3.5.3 Delta-Lake/3.2.1"}}))),
    ("job_and_run_ids", "log", lambda: pick(
        f"[2026-12-05, 01:00:03 UTC] {{taskinstance.py:1206}} INFO - Starting attempt 1 of 3\ndag_id=load_orders, task_id=copy_into, run_id=scheduled__2026-12-04T00:00:00+00:00, map_index=-1",
        f"Submitted application application_{_r.randint(10**12, 10**13)}_{_r.randint(1, 9999):04d}",
        f"Job has been submitted with JobID {hx(32)}",
        f"{{\"job_id\": {_r.randint(10**5, 10**6)}, \"run_id\": {_r.randint(10**8, 10**9)}, \"number_in_job\": {_r.randint(10**8, 10**9)}, \"state\": {{\"life_cycle_state\": \"TERMINATED\", \"result_state\": \"SUCCESS\"}}}}",
        f"Sync {_r.randint(1000, 99999)} for connection {uuid()} succeeded: 12,481 records, 4.1 MB",
        f"connector_id: decidedly_ambitious\nsync_id: {uuid()}\nstatus: SUCCESSFUL",
        f"spark.app.id=spark-{hx(32)}\nspark.app.name=daily_orders",
        f"Task dw-sink-{_r.randint(0, 7)} of connector dw-sink (worker connect-1.internal:8083) RUNNING, generation {_r.randint(1, 90)}")),
    ("topic_names", "config", lambda: pick(
        f"kafka-topics.sh --bootstrap-server {broker()} --create --topic {topic()} --partitions 12 --replication-factor 3",
        f"topics => [\"{topic()}\", \"{topic()}\"]",
        f"  - name: {topic()}\n    partitions: 6\n    config:\n      retention.ms: 2592000000",
        f"resource \"confluent_kafka_topic\" \"revocations\" {{\n  topic_name       = \"{topic()}\"\n  partitions_count = 6\n}}",
        f"CREATE TABLE token_events (token_id STRING, issued_at TIMESTAMP(3)) WITH ('connector' = 'kafka', 'topic' = '{topic()}', 'format' = 'avro-confluent');",
        f"[sources.revocations]\ntype = \"kafka\"\ntopics = [\"{topic()}\"]\ngroup_id = \"vector-revocations\"",
        f"Subscribed to topic(s): {topic()}, {topic()}",
        f"transforms.route.topic.regex=(.*)-secret-events\ntransforms.route.topic.replacement=$1-secrets-audit")),
    ("checksums_and_etags", "log", lambda: pick(
        f"ETag: \"{hx(32)}-{_r.randint(2, 90)}\"\nx-amz-checksum-crc32c: {base64.b64encode(_r.randbytes(4)).decode()}",
        f"$ hdfs dfs -checksum /warehouse/orders/part-00000.parquet\n/warehouse/orders/part-00000.parquet\tMD5-of-0MD5-of-512CRC32C\t000002000000000000000000{hx(32)}",
        f"Content-MD5: {base64.b64encode(_r.randbytes(16)).decode()}",
        f"{hx(64)}  orders_20261204.csv.gz",
        f"\"md5\": \"{hx(32)}\", \"size\": {_r.randint(10**5, 10**9)}, \"crc32c\": \"{base64.b64encode(_r.randbytes(4)).decode()}\"",
        f"file_checksum: sha256:{hx(64)}\nrow_count: {_r.randint(1000, 10**6)}",
        f"_fivetran_synced: 2026-12-05T01:02:03.456Z, _fivetran_id: {base64.b64encode(_r.randbytes(20)).decode()}",
        f"Uploaded s3://{bucket()}/exports/orders.parquet (etag {hx(32)}, version {rnd(32, B64URL)})")),
    ("connector_status_json", "json", lambda: pick(
        json.dumps({"name": "inventory-connector", "connector": {"state": "RUNNING", "worker_id": "connect-1.internal:8083"}, "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "connect-1.internal:8083"}], "type": "source"}),
        json.dumps({"file": "mysql-bin.000003", "pos": _r.randint(100, 10**6), "gtids": f"{uuid().upper()}:1-{_r.randint(5, 900)}"}),
        json.dumps({"source": {"version": "2.7.3.Final", "connector": "postgresql", "name": "app", "ts_ms": 1764896523456, "db": "app", "schema": "public", "table": "api_tokens", "txId": _r.randint(1000, 99999), "lsn": _r.randint(10**7, 10**9)}, "op": "u"}),
        json.dumps({"error_code": 409, "message": "Connector dw-sink already exists"}),
        json.dumps({"status": "succeeded", "jobId": _r.randint(1000, 99999), "connectionId": uuid(), "bytesSynced": _r.randint(10**5, 10**8), "rowsSynced": _r.randint(100, 10**6)}),
        json.dumps({"configs": [{"definition": {"name": "database.password", "type": "PASSWORD", "required": True}, "value": {"name": "database.password", "value": "[hidden]", "errors": []}}]}),
        json.dumps({"connector_id": "decidedly_ambitious", "status": {"setup_state": "connected", "sync_state": "scheduled", "update_state": "on_schedule"}, "succeeded_at": "2026-12-05T01:02:03Z"}),
        json.dumps({"offsets": [{"partition": {"server": "app"}, "offset": {"lsn_proc": _r.randint(10**7, 10**9), "lsn_commit": _r.randint(10**7, 10**9), "txId": _r.randint(1000, 99999)}}]}))),
    ("spark_flink_log_lines", "log", lambda: pick(
        f"26/12/05 01:02:03 INFO MemoryStore: Block broadcast_{_r.randint(0, 40)}_piece0 stored as bytes in memory (estimated size 34.2 KiB, free 434.4 MiB)",
        f"26/12/05 01:02:03 INFO DAGScheduler: Submitting {_r.randint(2, 400)} missing tasks from ResultStage {_r.randint(1, 40)} (MapPartitionsRDD[{_r.randint(1, 90)}] at save at NativeMethodAccessorImpl.java:0)",
        f"2026-12-05 01:02:03,456 INFO  org.apache.flink.runtime.checkpoint.CheckpointCoordinator [] - Completed checkpoint {_r.randint(1, 9000)} for job {hx(32)} ({_r.randint(10**4, 10**7)} bytes, checkpointDuration={_r.randint(100, 9000)} ms, finalizationTime=3 ms).",
        f"26/12/05 01:02:03 INFO BlockManagerMasterEndpoint: Registering block manager 10.0.3.{_r.randint(2, 250)}:{_r.randint(30000, 60000)} with 2004.6 MiB RAM, BlockManagerId(1, 10.0.3.{_r.randint(2, 250)}, {_r.randint(30000, 60000)}, None)",
        "26/12/05 01:02:03 WARN SparkConf: The configuration key 'spark.yarn.executor.memoryOverhead' has been deprecated as of Spark 2.3 and may be removed in the future. Please use the new key 'spark.executor.memoryOverhead' instead.",
        f"2026-12-05 01:02:03,456 INFO  org.apache.flink.runtime.executiongraph.ExecutionGraph [] - Source: orders[1] -> Sink: dw[2] (1/4) ({hx(32)}_{hx(32)}_0_0) switched from DEPLOYING to INITIALIZING.",
        f"26/12/05 01:02:03 INFO SecurityManager: SecurityManager: authentication disabled; ui acls disabled; users with view permissions: etl; groups with view permissions: EMPTY",
        f"26/12/05 01:02:03 INFO FileOutputCommitter: Saved output of task 'attempt_{_r.randint(10**13, 10**14)}_0004_m_000003_12' to s3a://{bucket()}/orders/_temporary/0/task_{_r.randint(10**13, 10**14)}_0004_m_000003")),
    ("record_keys_and_metadata", "json", lambda: pick(
        json.dumps({"_airbyte_raw_id": uuid(), "_airbyte_extracted_at": "2026-12-05T01:02:03.456Z", "_airbyte_meta": {"changes": [], "sync_id": _r.randint(1000, 99999)}}),
        json.dumps({"key": {"id": _r.randint(1000, 99999)}, "value": {"before": None, "after": {"id": _r.randint(1000, 99999), "token_hash": hx(64), "expires_at": 1764896523}}, "op": "c"}),
        json.dumps({"_sdc_extracted_at": "2026-12-05T01:02:03Z", "_sdc_batched_at": "2026-12-05T01:02:04Z", "_sdc_sequence": 1764896523000000000, "_sdc_table_version": 1764896400000}),
        f"message key=order-{_r.randint(10**5, 10**6)} partition={_r.randint(0, 11)} (murmur2 {_r.randint(-2**31, 2**31)})",
        json.dumps({"idempotency_key": uuid(), "dedup_key": hx(40), "event_id": uuid()}),
        json.dumps({"__op": "u", "__table": "user_credentials", "__source_ts_ms": 1764896523456, "__deleted": "false", "password_changed_at": 1764896400, "failed_logins": 0}),
        json.dumps({"row_key": base64.b64encode(_r.randbytes(12)).decode(), "secret_version": _r.randint(1, 40), "token_count": _r.randint(1, 4096)}),
        json.dumps({"schema": {"type": "struct", "name": "app.public.api_tokens.Key"}, "payload": {"id": _r.randint(1000, 99999)}}))),
    ("credential_settings_ordinary", "config", lambda: pick(
        "password_rotation_days: 90\ntoken_expiry_seconds: 3600\nsecret_scope: etl-prod",
        "connections.max.idle.ms=540000\nsasl.login.retry.backoff.ms=100\nsasl.oauthbearer.token.endpoint.url=https://login.example.com/oauth2/token",
        "api_key_header: X-API-Key\ntoken_refresh_margin: 300\nrequire_password_change: false",
        "spark.authenticate=true\nspark.authenticate.secret.file=/etc/spark/secret\nspark.network.crypto.enabled=true",
        "ssl.truststore.type=JKS\nssl.truststore.location=/etc/kafka/truststore.jks\nssl.keystore.location=/etc/kafka/keystore.jks",
        "[secrets]\nbackend = airflow.providers.amazon.aws.secrets.secrets_manager.SecretsManagerBackend\nbackend_kwargs = {\"connections_prefix\": \"airflow/connections\", \"variables_prefix\": \"airflow/variables\"}",
        "\"secret_key_ref\": null,\n\"use_password_auth\": true,\n\"token_type\": \"service\"",
        "nifi.sensitive.props.algorithm=NIFI_PBKDF2_AES_GCM_256\nnifi.security.keystoreType=PKCS12")),
    ("placeholders", "config", lambda: pick(
        "      password: <your-password>\n      user: <your-user>",
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"<CLUSTER_API_KEY>\" password=\"<CLUSTER_API_SECRET>\";",
        "basic.auth.user.info={{ SR_API_KEY }}:{{ SR_API_SECRET }}",
        "spark.hadoop.fs.s3a.secret.key=YOUR_SECRET_KEY",
        "DATABRICKS_TOKEN=dapiXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        "\"database.password\": \"REPLACE_ME\"",
        "jdbc:postgresql://db:5432/app?user=USERNAME&password=PASSWORD",
        "fernet_key = <generate with: python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'>")),
    ("docs_and_prose", "prose", lambda: pick(
        "Set basic.auth.user.info to <api-key>:<api-secret> when basic.auth.credentials.source is USER_INFO.",
        "Airflow masks any connection password and any variable whose name contains 'secret', 'password' or 'token' in task logs.",
        "The sasl.jaas.config value must end with a semicolon; the password may also come from a config provider.",
        "URL-encode the password in AIRFLOW_CONN_* URIs: '@' becomes %40 and '/' becomes %2F.",
        "Rotate the storage account key, then update fs.azure.account.key.<account>.dfs.core.windows.net on every cluster.",
        "Spark redacts values whose key matches spark.redaction.regex; keys outside it are printed as-is by spark-submit --verbose.",
        "dbt reads secrets only through env vars prefixed DBT_ENV_SECRET_, which it scrubs from logs.",
        "Kafka Connect returns [hidden] for PASSWORD-type configs on GET /connectors/<name>/config.")),
]


def piped() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261205_35)
    return heldout._records(SECRETS, BENIGN, 8, 8)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = piped()
    heldout._write(HERE / "piped_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "piped_benign.jsonl.gz", benign_rows)
    print(f"piped: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
