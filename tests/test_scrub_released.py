"""errscope.scrub on the thirty-fourth held-out set (tests/secret_corpus/released.py): what packaging, publishing and
app signing keep and print (``.npmrc``/``.yarnrc.yml``, ``.pypirc`` and twine/poetry/uv, Cargo and RubyGems
credentials, Bundler and Composer auth, NuGet.Config, Maven ``settings.xml`` and sbt, ``gradle.properties``, Android
``signingConfigs`` and ``key.properties``, jarsigner/keytool/apksigner/bundletool/signtool/osslsigncode/openssl/
security/gpg command lines, keystores in CI variables, fastlane's ``.env`` and ``FASTLANE_SESSION``, notarytool/altool
with app-specific passwords, App Store Connect ``.p8`` keys, Play service accounts, ``firebase login:ci``, Expo and
CodePush, extension stores, Chocolatey/CocoaPods/Hex/Dart/Snapcraft/itch.io, Helm, conda and Gemfury, GoReleaser,
electron-builder, Tauri, JReleaser, the tools' printed new tokens, CI workflows); the same files with nothing secret
(references in each tool's own syntax, masks, placeholders, checksums, key ids and fingerprints, signing identities and
aliases, versions, publish output, public keys and signatures, store ids, settings, docs) as benign.

Measured once before any fix (the set's commit, 65d37ff, after e-mail addresses, which the scrubber redacts as personal
data by design, were taken out of three benign texts): recall 140/160, 5/128 benign texts altered; RE2 alone 135/160,
14/128. Fixed by kind: a stored cookie's value, whatever its name, in a record holding the cookie's attributes
(``HTTP::Cookie`` YAML, Playwright/Puppeteer JSON; ``cookie_record_value``); a call named ``Credentials`` given three
or four strings, the password last (sbt/Ivy; ``credentials_call_last_argument``); a (name, value) pair whose value is
a string literal inside the string (``buildConfigField "String", "API_KEY", "\\"..\\""``), also ending its line;
``-p`` takes a random token (``vsce -p <PAT>``) or an app password (four groups of four lower-case letters: altool).
Look-alikes fixed: a reference in an XML secret element (Maven's ``${env.X}``, MSBuild's ``$(X)``), a key qualified as
public anywhere before ``key`` (Sparkle's ``<key>SUPublicEDKey</key>``). After: 150/160, 1/128; RE2 alone 143/160,
13/128.
"""

from __future__ import annotations

import pytest

from errscope import scrub
from errscope._patterns import REDACTED
from tests import corpus
from tests.secret_corpus import released

# Pinned gaps, each a kind no rule covers without naming one product's format:
# - keystore_blobs_in_ci: ``BUILD_CERTIFICATE_BASE64=<base64>`` (a certificate's name over a blob: a certificate alone
#   is public, and only the blob's inner structure says it is a PKCS#12 holding a private key);
# - expo_codepush: ``resValue "string", "CodePushDeploymentKey", '"<key>"'`` (``DeploymentKey`` names no credential
#   as a word of a key: ``deployment_key`` is as often a name as a secret; the plist and strings.xml forms are caught);
# - package_hosts: ``choco apikey --key <GUID>`` (``--key`` alone is a key file's or a sort key's option, and a GUID
#   is an id everywhere else; ``--api-key <GUID>`` is caught);
# - helm_conda_registries: ``anaconda -t <token>`` (``-t`` is a tag's, a type's or a timeout's option);
# - tools_print_new_tokens: a token alone on the line after a sentence that announces it (``cargo login``'s "paste
#   the token .. below", ``tauri signer generate``'s "Keep it secret!", ``anaconda auth --create``'s bare output).
KNOWN_GAPS = {"keystore_blobs_in_ci", "expo_codepush", "package_hosts", "helm_conda_registries", "tools_print_new_tokens"}
# A detached signature of a file in an updater manifest (Tauri's ``"signature": ..``) is public, but ``signature``
# names a request's HMAC (a replayable proof) as often: the name cannot tell them apart.
KNOWN_FALSE_POSITIVES = {"public_keys_and_signatures"}
# RE2 alone also misses a ``<passphrase>`` element under a ``gpg.passphrase`` server id (Python's naming-line reader),
# CodePush's ``code-push deployment ls`` table (a header-named column), and Gemfury's ``https://<token>:@host`` (a
# userinfo with an empty password: the URL pass's random check).
REGEX_ONLY_GAPS = KNOWN_GAPS | {"maven_settings"}
# RE2 alone cannot apply the Python checks: apksigner's ``env:X``/``file:`` forms, ``YOUR_NPM_TOKEN``, the
# ``SUPublicEDKey`` name, a git remote's ``git@host`` (the e-mail rule), setup-node's ``XXXXX-XXXXX-XXXXX-XXXXX``.
REGEX_ONLY_ALTERED = {"secret_references", "placeholders", "public_keys_and_signatures", "store_ids", "ci_workflow_ordinary"}


def _held_out() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    return corpus.held_out("released_secrets.jsonl.gz"), corpus.held_out("released_benign.jsonl.gz")


def test_files_are_generated() -> None:
    secrets, benign = released.released()
    assert _held_out() == (secrets, benign)
    assert len(secrets) == 160 and len(benign) == 128


def test_released_score() -> None:
    result = corpus.score(scrub, *_held_out())
    assert {line["format"] for line in result.missed} == KNOWN_GAPS
    assert {line["category"] for line, _ in result.altered} == KNOWN_FALSE_POSITIVES
    assert len(result.missed) == 10 and len(result.altered) == 1  # recall 150/160, FP 1/128


def test_released_regex_only_is_what_the_collector_runs() -> None:
    result = corpus.score(corpus.regex_only, *_held_out())
    assert {line["format"] for line in result.missed} == REGEX_ONLY_GAPS
    assert {line["category"] for line, _ in result.altered} == REGEX_ONLY_ALTERED
    assert len(result.missed) == 17 and len(result.altered) == 13  # 143/160, 13/128


def test_triggers_and_guard_admit_every_match_here() -> None:
    secrets, benign = _held_out()
    corpus.assert_rules_admitted(line["text"] for line in secrets + benign)


@pytest.mark.xfail(strict=True, reason="pinned: a token alone after a sentence announcing it")
def test_announced_token_on_the_next_line_is_a_known_gap() -> None:
    text = "please paste the token found on https://crates.io/me below\ncioq8Wv2LmX9zRt4KpYb7Nc3Hs5q8Wv2"
    assert "q8Wv2LmX9zRt4KpYb7Nc3Hs5" not in scrub(text)


@pytest.mark.xfail(strict=True, reason="pinned: -t is a tag's, a type's or a timeout's option")
def test_short_t_option_token_is_a_known_gap() -> None:
    assert "q8Wv2LmX9zRt4KpYb7Nc3Hs5" not in scrub("anaconda -t q8Wv2LmX9zRt4KpYb7Nc3Hs5q8Wv2 upload pkg.conda")


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # other spellings of the same kinds, written after the rules (none of these lines is in the set)
        ('[{"name": "__Secure-next-auth.session-token", "value": "q8Wv2LmX9zRt4KpYb7Nc3Hs5q8Wv", "domain": "app.example.com", '
         '"path": "/", "httpOnly": true}]', "q8Wv2LmX9zRt4KpYb7Nc3Hs5q8Wv"),
        ("cookies:\n- name: JSESSIONID\n  value: 9F3C2B8E1A4D4C6F9E0B7A5D2C1E8F47\n  path: /app", "9F3C2B8E1A4D4C6F9E0B7A5D2C1E8F47"),
        ("{:name=>\"_gh_sess\", :value=>\"q8Wv2LmX9zRt4KpYb7Nc3Hs5q8Wv\", :domain=>\"github.com\"}", "q8Wv2LmX9zRt4KpYb7Nc3Hs5q8Wv"),
        ('credentials(\"nexus-releases\", \"deployer\", \"Wren#4471gale\")', "Wren#4471gale"),
        ('buildConfigField("String", "MAPS_API_KEY", "\\"q8Wv2LmX9zRt4KpYb7Nc3Hs5\\"")', "q8Wv2LmX9zRt4KpYb7Nc3Hs5"),
        ("resValue \"string\", \"client_secret\", '\"Wren#4471gale\"'", "Wren#4471gale"),
        ('System.setProperty("db.password", "\\"Wren#4471gale\\"")', "Wren#4471gale"),
        ("xcrun altool --validate-app -f App.ipa -u dev -p qwer-tyui-opas-dfgh", "qwer-tyui-opas-dfgh"),
        ("ovsx create-namespace fake -p q8wv2lmx9zrt4kpyb7nc3hs5q8wv2lmx", "q8wv2lmx9zrt4kpyb7nc3hs5q8wv2lmx"),
    ],
)
def test_other_spellings_of_these_kinds(text: str, secret: str) -> None:
    out = scrub(text)
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize(
    "text",
    [
        '[{"name": "theme", "value": "dark-mode", "domain": ".example.com", "path": "/"}]',
        "  name: locale\n  value: en-GB\n  domain: example.com",
        "<password>${env.NEXUS_PASSWORD}</password>",
        "<Password>$(NuGetFeedPassword)</Password>",
        "<key>SUPublicEDKey</key>\n<string>q8Wv2LmX9zRt4KpYb7Nc3Hs5q8Wv2LmX9zRt4KpYb7Nc3Hs5</string>",
        '<string name="public_signing_key">q8Wv2LmX9zRt4KpYb7Nc3Hs5q8Wv2LmX9zRt4KpYb7Nc3Hs5</string>',
        'buildConfigField "String", "API_URL", "\\"https://api.example.com/v2\\""',
        'buildConfigField "String", "API_KEY", "\\"${apiKey}\\""',
        'Credentials("Artifactory Realm", "artifactory.example.com", sys.env("ARTIFACTORY_USER"), sys.env("ARTIFACTORY_PASS"))',
        "mysql -u root -p mydb",
        "xcrun altool --upload-app -f Fake.ipa -p \"@keychain:AC_PASSWORD\"",
    ],
)
def test_look_alikes_of_these_kinds_stay(text: str) -> None:
    assert scrub(text) == text
