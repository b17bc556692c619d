"""A twelfth held-out set: credentials as localized apps write them, under other languages' key names.

    python -m tests.secret_corpus.localized   # rewrites localized_*.jsonl.gz here

Kinds the eleven earlier sets hold least of (``infra`` has keys in 20 languages, ``polyglot`` and
``infra`` a few copulas in prose; listed against their docstrings and format names first): key names in
other languages as real apps spell them, not only the bare word: compounds and qualified names
(``DB_PASSWORT``, ``datenbankPasswort``, ``Benutzerkennwort``, ``mot_de_passe_bdd``, ``motDePasse``,
``mdp``, ``clave_api``, ``contraseña_bd``, ``senha_banco``, ``chave_api``, ``wachtwoord_db``,
``haslo_bazy``, ``пароль_бд``, ``токен_доступа``, ``API密钥``, ``访问令牌``, ``アクセストークン``,
``APIキー``, ``액세스 토큰``, ``API 키``), inflected forms (``пароля``, ``hasła``, ``Passworts``),
secret and token words (``Geheimnis``, ``Zugriffstoken``, ``jeton``, ``clé secrète``, ``clé API``,
``chave secreta``, ``секретный ключ``, ``秘密鍵``), full-width separators and brackets after Latin and
CJK keys (``：``, ``＝``, ``【…】``, ``「…」``, ``（…）``), localized log and error messages that echo
a credential, localized CLI output that prints one (``Ihr neues Passwort lautet: …``), JSON and YAML with
localized keys, localized Java properties, env dumps and connection strings with localized words, and
Turkish, Nordic, Finnish, Czech, Hungarian, Vietnamese, Greek, Arabic, Hebrew and Hindi keys.

Benign: the same languages without a credential, each category saying why: UI strings ("Passwort
vergessen?", "Mot de passe oublié ?", "忘记密码？"), translation files (JSON i18n, gettext ``.po``,
resource bundles with ``{0}`` placeholders), localized placeholders and masks, log and error messages
about password events with no value, password policy settings (lengths, days, booleans), prose and
documentation, token lifetimes, full-width separators around ordinary fields, schema and SQL naming
hash columns, ticket titles and commit subjects, checksums and ids beside those words.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed; human
passwords marked ``Fake``). No benign line holds an e-mail address. 38 secret formats x 4 and
25 benign categories x 4. ``tests/test_scrub_localized.py`` scores ``errscope.scrub`` on it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.secret_corpus import heldout
from tests.secret_corpus.captured import jwt, tok
from tests.secret_corpus.heldout import B64URL, HERE, HEX, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one, sha

_r = heldout._rng  # the helpers above draw from it: localized() seeds it


def randtok() -> str:
    return pick(tok(28, 44), rnd(40, B64URL), rnd(32, HEX), jwt())


def pwtok() -> str:
    return pick(fpw(), randtok())


def user() -> str:
    return pick("admin", "mueller", "dupont", "garcia", "silva", "rossi", "jansen", "kowalski", "ivanov", "wang", "tanaka", "kim")


def ts() -> str:
    return f"2025-{_r.randint(1, 12):02d}-{_r.randint(1, 28):02d} {_r.randint(0, 23):02d}:{_r.randint(0, 59):02d}:{_r.randint(0, 59):02d}"


def host() -> str:
    return pick("db01.intern", "pg.prod.local", "10.0.4.17", "mysql-master", "redis.cache.svc")


L = Callable[[str], str]


def fmt(*templates: L, value: Callable[[], str] = pwtok) -> Maker:
    return one(value, *templates)


# --- secrets ----------------------------------------------------------------------------------

LOCALIZED_SECRETS: list[tuple[str, str, Maker]] = [
    # German -----------------------------------------------------------------------------------
    ("german_env_compound_keys", "log", fmt(
        lambda s: f"DB_PASSWORT={s}",
        lambda s: f"export DATENBANK_KENNWORT='{s}'",
        lambda s: f"SMTP_PASSWORT=\"{s}\"\nSMTP_BENUTZER=noreply",
        lambda s: f"ADMIN_KENNWORT={s}",
    )),
    ("german_camel_yaml_keys", "log", fmt(
        lambda s: f"datenbank:\n  benutzer: app\n  datenbankPasswort: {s}",
        lambda s: f"zugangsPasswort: \"{s}\"",
        lambda s: f"Benutzerkennwort = {s}",
        lambda s: f"mailKennwort: '{s}'",
    )),
    ("german_log_messages", "log", fmt(
        lambda s: f"{ts()} FEHLER Anmeldung fehlgeschlagen für Benutzer {user()} (Passwort: {s})",
        lambda s: f"[WARNUNG] Verbindung zu {host()} abgelehnt, verwendetes Kennwort={s}",
        lambda s: f"{ts()} INFO Konfiguration geladen: benutzer={user()} passwort={s} port=5432",
        lambda s: f"Fehler beim Verbinden: Zugangsdaten ungültig – Passwort „{s}“ abgelehnt",
    )),
    ("german_cli_prints_password", "log", fmt(
        lambda s: f"Benutzer {user()} wurde angelegt.\nIhr neues Passwort lautet: {s}",
        lambda s: f"Das temporäre Kennwort ist: {s}",
        lambda s: f"Neues Passwort für {user()}: {s}",
        lambda s: f"Initialpasswort: {s} (bitte nach der ersten Anmeldung ändern)",
    )),
    ("german_token_secret_words", "log", fmt(
        lambda s: f"ZUGRIFFSTOKEN={s}",
        lambda s: f"zugriffstoken: {s}",
        lambda s: f"API-Schlüssel: {s}",
        lambda s: f"Geheimnis = \"{s}\"",
        value=randtok)),
    # French -----------------------------------------------------------------------------------
    ("french_keys", "log", fmt(
        lambda s: f"mot_de_passe_bdd={s}",
        lambda s: f"motDePasse: \"{s}\"",
        lambda s: f"mdp={s}",
        lambda s: f"MDP_ADMIN='{s}'",
    )),
    ("french_log_messages", "log", fmt(
        lambda s: f"{ts()} ERREUR Échec de connexion pour {user()} : mot de passe « {s} » refusé",
        lambda s: f"[AVERTISSEMENT] connexion à {host()} avec mot de passe={s}",
        lambda s: f"Votre mot de passe temporaire : {s}",
        lambda s: f"{ts()} DEBUG paramètres: utilisateur={user()} mdp={s}",
    )),
    ("french_token_secret_words", "log", fmt(
        lambda s: f"jeton_d_acces={s}",
        lambda s: f"clé API : {s}",
        lambda s: f"Clé secrète = {s}",
        lambda s: f"\"jeton\": \"{s}\"",
        value=randtok)),
    # Spanish, Portuguese, Italian ----------------------------------------------------------------
    ("spanish_keys", "log", fmt(
        lambda s: f"contraseña_bd={s}",
        lambda s: f"CONTRASENA_ADMIN=\"{s}\"",
        lambda s: f"clave: {s}",
        lambda s: f"claveApi = '{s}'",
    )),
    ("spanish_log_messages", "log", fmt(
        lambda s: f"{ts()} ERROR Error de autenticación para {user()}: contraseña={s}",
        lambda s: f"Su nueva contraseña es: {s}",
        lambda s: f"[ADVERTENCIA] conexión rechazada (usuario={user()}, clave={s})",
        lambda s: f"Clave secreta: {s}",
    )),
    ("portuguese_keys", "log", fmt(
        lambda s: f"SENHA_BANCO={s}",
        lambda s: f"senha: \"{s}\"",
        lambda s: f"chave_api={s}",
        lambda s: f"chaveSecreta: {s}",
    )),
    ("portuguese_log_messages", "log", fmt(
        lambda s: f"{ts()} ERRO Falha na autenticação do usuário {user()} com senha={s}",
        lambda s: f"Sua senha temporária é: {s}",
        lambda s: f"Token de acesso: {s}",
        lambda s: f"[AVISO] conexão recusada: usuário={user()} senha={s}",
    )),
    ("italian_keys_and_logs", "log", fmt(
        lambda s: f"PAROLA_D_ORDINE={s}",
        lambda s: f"chiave_api: {s}",
        lambda s: f"{ts()} ERRORE accesso negato per {user()} (password={s})",
        lambda s: f"La tua nuova password è: {s}",
    )),
    # Dutch, Polish, Nordic, others ------------------------------------------------------------
    ("dutch_keys_and_logs", "log", fmt(
        lambda s: f"WACHTWOORD_DB={s}",
        lambda s: f"wachtwoord: \"{s}\"",
        lambda s: f"{ts()} FOUT inloggen mislukt voor {user()}, wachtwoord={s}",
        lambda s: f"Uw nieuwe wachtwoord is: {s}",
    )),
    ("polish_keys_and_logs", "log", fmt(
        lambda s: f"HASLO_BAZY={s}",
        lambda s: f"hasło: {s}",
        lambda s: f"{ts()} BŁĄD logowanie nieudane dla {user()}: hasło={s}",
        lambda s: f"Twoje nowe hasło to: {s}",
    )),
    ("nordic_finnish_keys", "log", fmt(
        lambda s: f"lösenord={s}",
        lambda s: f"PASSORD=\"{s}\"",
        lambda s: f"adgangskode: {s}",
        lambda s: f"salasana = {s}",
    )),
    ("turkish_czech_hungarian_keys", "log", fmt(
        lambda s: f"şifre: {s}",
        lambda s: f"SIFRE={s}",
        lambda s: f"heslo={s}",
        lambda s: f"jelszó: \"{s}\"",
    )),
    # Cyrillic ----------------------------------------------------------------------------------
    ("russian_keys", "log", fmt(
        lambda s: f"пароль: {s}",
        lambda s: f"пароль_бд={s}",
        lambda s: f"Пароль = \"{s}\"",
        lambda s: f"токен_доступа: {s}",
    )),
    ("russian_log_messages", "log", fmt(
        lambda s: f"{ts()} ОШИБКА не удалось подключиться к {host()}: пароль={s}",
        lambda s: f"Ваш новый пароль: {s}",
        lambda s: f"Пароль пользователя {user()}: {s}",
        lambda s: f"[ПРЕДУПРЕЖДЕНИЕ] авторизация: логин={user()} пароль={s}",
    )),
    ("russian_inflected_and_secret_key", "log", fmt(
        lambda s: f"значение пароля: {s}",
        lambda s: f"секретный ключ: {s}",
        lambda s: f"API-ключ: {s}",
        lambda s: f"Токен: {s}",
        value=randtok)),
    ("ukrainian_keys", "log", fmt(
        lambda s: f"пароль_адміна={s}",
        lambda s: f"Ваш пароль: {s}",
        lambda s: f"токен: \"{s}\"",
        lambda s: f"ключ API: {s}",
    )),
    # CJK ---------------------------------------------------------------------------------------
    ("chinese_keys_fullwidth", "log", fmt(
        lambda s: f"密码：{s}",
        lambda s: f"数据库密码＝{s}",
        lambda s: f"令牌: {s}",
        lambda s: f"访问令牌：{s}",
    )),
    ("chinese_json_yaml", "json", fmt(
        lambda s: json.dumps({"用户名": user(), "密码": s}, ensure_ascii=False),
        lambda s: f"数据库:\n  主机: {host()}\n  密码: {s}",
        lambda s: json.dumps({"API密钥": s}, ensure_ascii=False),
        lambda s: f"密钥: \"{s}\"",
    )),
    ("chinese_log_messages", "log", fmt(
        lambda s: f"{ts()} 错误 登录失败，用户 {user()}，密码：{s}",
        lambda s: f"您的临时密码为：{s}",
        lambda s: f"[警告] 连接 {host()} 失败（密码={s}）",
        lambda s: f"新密码：{s}，请尽快修改。",
    )),
    ("japanese_keys_fullwidth", "log", fmt(
        lambda s: f"パスワード：{s}",
        lambda s: f"アクセストークン＝{s}",
        lambda s: f"APIキー: {s}",
        lambda s: f"トークン：{s}",
    )),
    ("japanese_log_brackets", "log", fmt(
        lambda s: f"{ts()} エラー ユーザー {user()} のログインに失敗しました。パスワード「{s}」",
        lambda s: f"初期パスワード【{s}】",
        lambda s: f"仮パスワード：{s}（初回ログイン時に変更してください）",
        lambda s: f"秘密鍵: {s}",
    )),
    ("korean_keys_and_logs", "log", fmt(
        lambda s: f"비밀번호: {s}",
        lambda s: f"액세스 토큰={s}",
        lambda s: f"API 키: {s}",
        lambda s: f"{ts()} 오류 로그인 실패: 사용자={user()} 비밀번호={s}",
    )),
    # full-width separators under Latin keys --------------------------------------------------------
    ("latin_keys_fullwidth_separators", "log", fmt(
        lambda s: f"password：{s}",
        lambda s: f"api_key＝{s}",
        lambda s: f"TOKEN：「{s}」",
        lambda s: f"db_password ＝ {s}",
    )),
    # other scripts -----------------------------------------------------------------------------
    ("greek_arabic_hebrew_hindi", "log", fmt(
        lambda s: f"κωδικός: {s}",
        lambda s: f"كلمة المرور: {s}",
        lambda s: f"סיסמה={s}",
        lambda s: f"पासवर्ड: {s}",
    )),
    ("vietnamese_keys", "log", fmt(
        lambda s: f"mật khẩu: {s}",
        lambda s: f"mat_khau={s}",
        lambda s: f"MAT_KHAU_DB=\"{s}\"",
        lambda s: f"Mật khẩu mới của bạn là: {s}",
    )),
    # structured files with localized keys ------------------------------------------------------
    ("localized_json_objects", "json", fmt(
        lambda s: json.dumps({"benutzer": user(), "passwort": s}, ensure_ascii=False),
        lambda s: json.dumps({"utilisateur": user(), "mot_de_passe": s}, ensure_ascii=False),
        lambda s: json.dumps({"usuario": user(), "contraseña": s}, ensure_ascii=False),
        lambda s: json.dumps({"usuario": user(), "senha": s}),
    )),
    ("localized_java_properties", "log", fmt(
        lambda s: f"datenquelle.passwort={s}",
        lambda s: f"spring.datasource.kennwort={s}",
        lambda s: f"connexion.motdepasse={s}",
        lambda s: f"conexion.contrasena={s}",
    )),
    ("localized_connection_strings", "log", fmt(
        lambda s: f"Server={host()};Benutzer=sa;Passwort={s};",
        lambda s: f"Serveur={host()};Utilisateur=sa;MotDePasse={s}",
        lambda s: f"servidor={host()} usuario=app contraseña={s}",
        lambda s: f"host={host()} usuário=app senha={s} banco=prod",
    )),
    ("localized_env_dump", "log", fmt(
        lambda s: f"LANG=de_DE.UTF-8\nAPP_SPRACHE=de\nDB_KENNWORT={s}\nPATH=/usr/bin",
        lambda s: f"LANG=fr_FR.UTF-8\nMOT_DE_PASSE_SMTP={s}",
        lambda s: f"LANG=es_ES.UTF-8\nCLAVE_SECRETA={s}",
        lambda s: f"LANG=pt_BR.UTF-8\nSENHA_SMTP={s}",
    )),
    ("localized_python_dict_repr", "exception", fmt(
        lambda s: f"KeyError: 'host' in {{'benutzer': '{user()}', 'passwort': '{s}'}}",
        lambda s: f"config = {{'utilisateur': '{user()}', 'mdp': '{s}'}}",
        lambda s: f"ValueError: conexión inválida {{'clave': '{s}', 'puerto': 5432}}",
        lambda s: f"TypeError: {{'пароль': '{s}', 'порт': 5432}}",
    )),
    ("localized_error_message_quotes", "exception", fmt(
        lambda s: f"AuthenticationError: Kennwort '{s}' ist abgelaufen",
        lambda s: f"Erreur : le mot de passe '{s}' ne respecte pas la politique",
        lambda s: f"Error: la contraseña \"{s}\" no es válida",
        lambda s: f"Ошибка: пароль '{s}' не принят сервером",
    )),
    ("cjk_error_message_quotes", "exception", fmt(
        lambda s: f"认证错误：密码“{s}”无效",
        lambda s: f"エラー：パスワード『{s}』は無効です",
        lambda s: f"인증 오류: 비밀번호 '{s}'가 올바르지 않습니다",
        lambda s: f"錯誤：密碼「{s}」已過期",
    )),
    ("localized_table_rows", "log", fmt(
        lambda s: f"| Benutzer | Passwort |\n| {user()} | {s} |",
        lambda s: f"Nom d'utilisateur : {user()}\nMot de passe : {s}",
        lambda s: f"Usuario:    {user()}\nContraseña: {s}",
        lambda s: f"用户名：{user()}\n密码：{s}",
    )),
]


# --- benign -----------------------------------------------------------------------------------

LOCALIZED_BENIGN: list[tuple[str, str, Callable[[], str]]] = [
    # UI strings: a label or question, no value.
    ("german_ui_strings", "log", lambda: pick(
        "Passwort vergessen?", "Passwort zurücksetzen", "Kennwort ändern", "Bitte geben Sie Ihr Passwort ein.",
        "Passwort bestätigen", "Das Passwort muss mindestens 12 Zeichen lang sein.")),
    ("french_spanish_ui_strings", "log", lambda: pick(
        "Mot de passe oublié ?", "Votre mot de passe doit contenir au moins 8 caractères.",
        "¿Olvidaste tu contraseña?", "La contraseña debe tener al menos 12 caracteres.",
        "Esqueceu sua senha?", "Hai dimenticato la password?")),
    ("slavic_ui_strings", "log", lambda: pick(
        "Забыли пароль?", "Пароль должен содержать не менее 8 символов", "Nie pamiętasz hasła?",
        "Wachtwoord vergeten?", "Zapomenuté heslo?", "Введите пароль")),
    ("cjk_ui_strings", "log", lambda: pick(
        "忘记密码？", "パスワードをお忘れですか？", "비밀번호를 잊으셨나요?", "请输入密码", "パスワードを入力してください",
        "비밀번호 변경")),
    # translation files: keys and translations, no secret.
    ("i18n_json", "json", lambda: pick(
        json.dumps({"auth.password.label": "Passwort", "auth.password.hint": "Mindestens {min} Zeichen"}, ensure_ascii=False),
        json.dumps({"login": {"password": "Mot de passe", "forgot": "Mot de passe oublié ?"}}, ensure_ascii=False),
        json.dumps({"password_placeholder": "Introduce tu contraseña"}, ensure_ascii=False),
        json.dumps({"token_expired": "Токен истёк, войдите снова"}, ensure_ascii=False),
        json.dumps({"password": "密码", "token": "令牌"}, ensure_ascii=False))),
    ("gettext_po", "log", lambda: pick(
        'msgid "Password"\nmsgstr "Mot de passe"', 'msgid "Password"\nmsgstr "Passwort"',
        'msgid "Your password has expired."\nmsgstr "Ihr Passwort ist abgelaufen."',
        'msgid "API token"\nmsgstr "Token de API"', 'msgid "Password"\nmsgstr "パスワード"')),
    ("resource_bundles", "log", lambda: pick(
        "login.password=Passwort", "login.password.hint=Mindestens {0} Zeichen",
        "error.password.mismatch=Les mots de passe ne correspondent pas",
        "label.senha=Senha", "password.reset.subject=Restablecer contraseña")),
    # placeholders and masks under localized keys.
    ("localized_placeholders", "log", lambda: pick(
        "passwort: ${DB_PASSWORT}", "senha: <sua-senha>", "mot_de_passe: ${MOT_DE_PASSE}",
        "contraseña: CHANGE_ME", "密码: ${DB_PASSWORD}", "пароль: <ваш_пароль>")),
    ("localized_masks", "log", lambda: pick(
        "Passwort: ********", "mot de passe : [MASQUÉ]", "пароль: ***", "密码：******", "パスワード：●●●●●●●●",
        "senha: [OCULTA]")),
    # events and errors about passwords, no value.
    ("password_event_logs", "log", lambda: pick(
        f"{ts()} INFO Passwort für Benutzer '{user()}' wurde geändert",
        f"{ts()} INFO Le mot de passe de {user()} a expiré le 2025-03-01",
        f"{ts()} 信息 用户 {user()} 的密码已过期", f"{ts()} 情報 パスワードが変更されました（ユーザー: {user()}）",
        f"{ts()} INFO Пароль пользователя {user()} изменён")),
    ("password_error_messages", "exception", lambda: pick(
        f"Fehler: Passwort ist falsch (Versuch {_r.randint(1, 4)} von 5)", "Erreur : mot de passe incorrect",
        "Error: contraseña incorrecta", "Ошибка: неверный пароль", "错误：密码错误", "오류: 비밀번호가 틀렸습니다")),
    ("password_policy_settings", "log", lambda: pick(
        "passwort.min_laenge=12", "mot_de_passe.longueur_min: 12", "密码最小长度: 8",
        f"PASSWORT_ABLAUF_TAGE={_r.choice([30, 60, 90])}", "senha_expira_dias=90", "пароль.мин_длина=10")),
    ("policy_booleans", "log", lambda: pick(
        "passwort_erforderlich: true", "mdp_obligatoire=false", "contraseña_requerida: sí", "需要密码：是",
        "senha_forte: verdadeiro")),
    ("prose_documentation", "log", lambda: pick(
        "Das Passwort wird als bcrypt-Hash gespeichert.", "Le mot de passe est stocké chiffré dans la base.",
        "La contraseña nunca se registra en los logs.", "密码以哈希形式存储，不会明文记录。",
        "パスワードは暗号化して保存されます。", "Пароль хранится в виде хеша.")),
    ("token_lifetimes", "log", lambda: pick(
        "Token-Gültigkeit: 3600 Sekunden", "令牌有效期：7200秒", "トークンの有効期限：2025-12-31",
        "Durée de validité du jeton : 15 minutes", "Срок действия токена: 24 часа")),
    ("fullwidth_ordinary_fields", "log", lambda: pick(
        f"用户名：{user()}", f"主机：{host()}", "端口＝5432", "状态：正常", f"ユーザー名：{user()}",
        "環境：本番")),
    ("localized_env_settings", "log", lambda: pick(
        "LANG=de_DE.UTF-8\nAPP_SPRACHE=de\nZEITZONE=Europe/Berlin", "TOKEN_GUELTIGKEIT=3600",
        "PASSWORT_MIN_LAENGE=12", "LANGUE=fr\nFUSEAU=Europe/Paris", "IDIOMA=es")),
    ("schema_hash_columns", "log", lambda: pick(
        "CREATE TABLE benutzer (id SERIAL, name TEXT, passwort_hash VARCHAR(60));",
        "ALTER TABLE usuarios ADD COLUMN contraseña_hash TEXT;",
        "SELECT id, nom FROM utilisateurs WHERE mot_de_passe_expire = true;",
        "CREATE TABLE 用户 (id INT, 密码哈希 CHAR(60));")),
    ("ticket_titles", "log", lambda: pick(
        f"Bug #{_r.randint(100, 9999)}: Passwort-Reset-Link funktioniert nicht",
        f"[JIRA-{_r.randint(10, 999)}] 修复密码重置", f"Ticket {_r.randint(1000, 9999)} : le jeton expire trop tôt",
        f"Issue #{_r.randint(1, 999)}: パスワード変更画面のレイアウト崩れ")),
    ("commit_subjects_with_shas", "log", lambda: pick(
        f"{rnd(7, HEX)} Passwortprüfung vereinfacht", f"commit {sha(40)}\n\n    Validation du mot de passe corrigée",
        f"{rnd(7, HEX)} 修复令牌刷新逻辑", f"{rnd(7, HEX)} Corrige validação de senha")),
    ("checksums_beside_words", "log", lambda: pick(
        f"SHA256-Prüfsumme: {sha(64)}", f"Somme de contrôle : {sha(64)}", f"校验和：{sha(64)}",
        f"Suma de verificación: {sha(40)}")),
    ("ids_beside_words", "log", lambda: pick(
        f"Benutzer-ID: {uuid()}, Passwort zuletzt geändert: 2025-03-01",
        f"ID de l'utilisateur : {uuid()} (mot de passe réinitialisé)", f"用户ID：{uuid()}，密码已重置",
        f"ID da sessão: {uuid()}")),
    ("vault_references", "log", lambda: pick(
        "Passwort: siehe Tresor (vault:secret/data/db#passwort)", "mot_de_passe: vault:secret/data/smtp",
        "senha: secretKeyRef(db-creds/senha)", "密码: 从环境变量 DB_PASSWORD 读取")),
    ("help_text_commands", "log", lambda: pick(
        "  --passwort DATEI   liest das Passwort aus DATEI", "  -p, --mot-de-passe   demande le mot de passe",
        "用法: login --用户 名字 --密码 <密码>", "  --contraseña  solicita la contraseña de forma interactiva")),
    ("cyrillic_and_other_prose", "log", lambda: pick(
        "Пароль не может быть пустым", "Hasło zostało zmienione pomyślnie", "Wachtwoord is gewijzigd",
        "Şifreniz başarıyla değiştirildi", "Mật khẩu đã được thay đổi")),
]


def localized() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261202_12)
    return heldout._records(LOCALIZED_SECRETS, LOCALIZED_BENIGN, 4, 4)


def main() -> None:
    secrets, benign_rows = localized()
    heldout._write(HERE / "localized_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "localized_benign.jsonl.gz", benign_rows)
    print(f"localized: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
