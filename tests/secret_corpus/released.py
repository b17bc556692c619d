"""A thirty-fourth held-out set: what packaging, publishing and app signing keep and print.

    python -m tests.secret_corpus.released   # rewrites released_*.jsonl.gz here

What a release engineer pastes into an MCP tool ("why did the publish step fail?"), or what a tool's error quotes when
it reads a project's or a home directory's release files: the registry credentials of the package managers (npm's
``.npmrc`` with ``_authToken``, ``_auth`` and base64 ``_password``, Yarn's ``.yarnrc.yml`` ``npmAuthToken``,
``.pypirc``, twine/poetry/uv/flit, Cargo's ``credentials.toml`` and ``cargo login``, RubyGems' ``~/.gem/credentials``
and Bundler's ``BUNDLE_<HOST>``, NuGet.Config ``ClearTextPassword`` and ``dotnet nuget push --api-key``, Maven's
``settings.xml`` servers, Gradle's ``gradle.properties`` and ``-P`` options, Composer's ``auth.json`` and
``COMPOSER_AUTH``, Helm repositories, conda channels with ``/t/<token>/``, Hex, CocoaPods trunk, Dart pub,
Chocolatey, Snapcraft), app signing (Android ``signingConfigs`` in Groovy and Kotlin, Flutter's ``key.properties``,
React Native's ``MYAPP_UPLOAD_STORE_PASSWORD``, keystores and ``.p12`` files carried base64 in CI variables,
``jarsigner``/``keytool``/``apksigner``/``bundletool``/``signtool``/``osslsigncode``/``openssl pkcs12``/``security``
and ``gpg`` command lines), Apple's and Google's stores (fastlane's ``.env`` and ``FASTLANE_SESSION`` cookie dump,
``MATCH_PASSWORD``, ``notarytool``/``altool`` with app-specific passwords, App Store Connect ``.p8`` keys in fastlane's
JSON and Ruby, Play Console service-account JSON, ``firebase login:ci``), React Native and Expo (``eas.json``
``env``, CodePush deployment keys in ``Info.plist``, ``strings.xml`` and ``appcenter`` tables), editor-extension and
browser-extension stores (``vsce``, ``ovsx``, JetBrains ``perm:`` tokens, ``web-ext sign``, Chrome Web Store),
release tools (GoReleaser, electron-builder, Tauri's updater key and its password, JReleaser), the tools' own printed
output of a new token, and CI workflows that hard-code one. Written from the tools' documented formats before reading
the rules.

Benign: the same files and outputs with nothing secret: registry settings, ``${{ secrets.X }}`` and the tools' own
reference forms (``env:VAR``/``file:`` of apksigner, ``:env`` of jarsigner, ``@keychain:`` of altool, GoReleaser's
``{{ .Env.X }}``, Maven's ``${env.X}``), masks (``(protected)``, ``***``, setup-node's ``XXXXX-XXXXX-XXXXX-XXXXX``),
placeholders, checksums and integrity strings, GnuPG key ids and fingerprints, certificate fingerprints, code-signing
identities and key aliases, version strings, the tools' publish output, public keys and signatures (Tauri/minisign,
Sparkle, npm provenance), store ids (team ids, issuer ids, key ids, bundle ids, Expo project ids), settings under
credential-sounding names, and docs.

Same row format as ``../shared/corpus``; values are fake (random bodies from a fixed seed holding ``FAKE`` where the
format allows; human passwords marked ``Fake``; app-specific passwords, Azure DevOps PATs and NuGet keys are lower
case and hold ``fake``; Chocolatey keys are GUIDs and Hex and CocoaPods trunk tokens 32 hex, as the services issue
them, random from the seed). 20 secret formats x 8 and 16 benign categories x 8.
``tests/test_scrub_released.py`` scores ``errscope.scrub`` on it; ``score_all.py`` with the others.
"""

from __future__ import annotations

import base64
import string

from tests.secret_corpus import heldout
from tests.secret_corpus.heldout import ALNUM, B64, B64URL, HERE, HEX, LOWER_ALNUM, UPPER_ALNUM, Maker, pick, rnd, uuid
from tests.secret_corpus.infra import fpw, one
from tests.secret_corpus.notebooks import fitted

_r = heldout._rng  # the helpers above draw from it: released() seeds it


# --- values ------------------------------------------------------------------------------------------------------


def hx(n: int) -> str:
    return rnd(n, HEX)


def letters(n: int, alphabet: str = string.ascii_lowercase) -> str:
    """Random letters (``rnd`` insists on a digit)."""
    return "".join(_r.choice(alphabet) for _ in range(n))


def npm() -> str:
    return "npm_FAKE" + rnd(32)


def pypi() -> str:
    return "pypi-AgEIcHlwaS5vcmcCJFAKE" + rnd(70, B64URL)


def cio() -> str:
    return "cioFAKE" + rnd(29)


def rubygems() -> str:
    return "rubygems_FAKE" + hx(44)


def nuget() -> str:
    return "oy2fake" + rnd(39, LOWER_ALNUM)


def ghp() -> str:
    return "ghp_FAKE" + rnd(32)


def glpat() -> str:
    return "glpat-FAKE" + rnd(16, B64URL)


def asp() -> str:
    """An Apple app-specific password: four groups of four lower-case letters."""
    return "fake-" + "-".join(letters(4) for _ in range(3))


def azdo_pat() -> str:
    """An Azure DevOps PAT (what ``vsce`` takes): 52 characters of base32 in lower case."""
    return "fake" + rnd(48, string.ascii_lowercase + "234567")


def guid_key() -> str:
    """Chocolatey's API keys are GUIDs."""
    return uuid()


def opaque() -> str:
    return "FAKE" + rnd(_r.randint(28, 40), ALNUM)


def firebase() -> str:
    return "1//0gFAKE" + rnd(90, B64URL)


def codepush() -> str:
    return "FAKE" + rnd(33, ALNUM + "-_")


def b64_of(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def user_pass_b64() -> str:
    return b64_of(f"ci-bot:{_r.choice([ghp(), fpw(), npm()])}".encode())


def minisign_secret() -> str:
    """A Tauri updater private key as ``tauri signer generate`` writes it: the minisign key file, base64."""
    body = b64_of(b"RWRTY0IyFAKE" + _r.randbytes(150))
    return b64_of(b"untrusted comment: rsign encrypted secret key\n" + body.encode() + b"\n")


def minisign_public() -> str:
    body = b64_of(b"RWQ" + _r.randbytes(39))
    return b64_of(f"untrusted comment: minisign public key: {rnd(16, '0123456789ABCDEF')}\n{body}\n".encode())


def pem_lines(head: str, n: int) -> str:
    first = head + "FAKE" + rnd(64 - len(head) - 4, B64)
    return "\n".join([first] + [rnd(64, B64) for _ in range(n - 1)])


def p8_body() -> str:
    """An App Store Connect ``.p8``: a PKCS#8 EC P-256 key (its DER starts the same in every file)."""
    return pem_lines("MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg", 3)


def rsa_body() -> str:
    return pem_lines("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 8)


def jks_b64() -> str:
    """A JKS keystore file in base64 (magic 0xFEEDFEED)."""
    return b64_of(b"\xfe\xed\xfe\xed\x00\x00\x00\x02\x00\x00\x00\x01FAKE" + _r.randbytes(300))


def p12_b64() -> str:
    return "MIIKFAKE" + rnd(400, B64) + "=="


def team() -> str:
    return rnd(10, UPPER_ALNUM)


def host() -> str:
    return pick("nexus.example.com", "artifactory.internal", "repo.example.org", "pkgs.internal.example.net")


def who() -> str:
    return pick("ci-bot", "release", "deployer", "fake-publisher", "jenkins")


def nb() -> str:
    return rnd(1, "123456789") + rnd(2, string.digits)


# --- secret formats: each a release file, command line or a tool's output, 8 instances ------------------------------

SECRETS: list[tuple[str, str, Maker]] = [
    ("npmrc_yarnrc", "config", fitted(
        (npm, lambda s: f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={s}\nsave-exact=true"),
        (ghp, lambda s: f"@fake-org:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={s}"),
        (npm, lambda s: f"npmScopes:\n  fake-org:\n    npmAlwaysAuth: true\n    npmAuthToken: \"{s}\"\n    npmRegistryServer: \"https://registry.npmjs.org\""),
        (npm, lambda s: f"npmRegistries:\n  \"//{host()}/repository/npm/\":\n    npmAuthToken: {s}"),
        (user_pass_b64, lambda s: f"registry=https://{host()}/repository/npm-group/\n_auth={s}\nalways-auth=true"),
        (lambda: b64_of(fpw().encode()), lambda s: f"//{host()}/repository/npm/:username={who()}\n//{host()}/repository/npm/:_password={s}\n//{host()}/repository/npm/:email=ci@example.com"),
        (npm, lambda s: f"$ npm config set //registry.npmjs.org/:_authToken {s}"),
        (npm, lambda s: f"$ yarn config set npmAuthToken {s}\n➤ YN0000: Successfully set npmAuthToken to '{s}'"))),
    ("pypi_upload", "config", fitted(
        (pypi, lambda s: f"[distutils]\nindex-servers =\n    pypi\n    testpypi\n\n[pypi]\nusername = __token__\npassword = {s}"),
        (fpw, lambda s: f"[internal]\nrepository = https://{host()}/repository/pypi-internal/\nusername = {who()}\npassword = {s}"),
        (pypi, lambda s: f"$ twine upload -u __token__ -p {s} dist/*\nUploading distributions to https://upload.pypi.org/legacy/"),
        (pypi, lambda s: f"$ poetry config pypi-token.pypi {s}"),
        (fpw, lambda s: f"poetry config http-basic.internal {who()} '{s}'"),
        (pypi, lambda s: f"uv publish --token {s} --publish-url https://upload.pypi.org/legacy/"),
        (pypi, lambda s: f"export TWINE_USERNAME=__token__\nexport TWINE_PASSWORD={s}\npython -m twine upload --skip-existing dist/*"),
        (pypi, lambda s: f"UV_PUBLISH_TOKEN={s} uv publish"))),
    ("cargo_gem_credentials", "config", fitted(
        (cio, lambda s: f"# ~/.cargo/credentials.toml\n[registry]\ntoken = \"{s}\""),
        (opaque, lambda s: f"[registries.kellnr]\ntoken = \"Bearer {s}\""),
        (cio, lambda s: f"$ cargo login {s}\n       Login token for `crates-io` saved"),
        (cio, lambda s: f"cargo publish --token {s} --allow-dirty"),
        (cio, lambda s: f"CARGO_REGISTRY_TOKEN={s} cargo publish -p fake-crate"),
        (rubygems, lambda s: f"$ cat ~/.gem/credentials\n---\n:rubygems_api_key: {s}"),
        (ghp, lambda s: f"---\n:rubygems_api_key: rubygems_{hx(8)}…(revoked)\n:github: Bearer {s}"),
        (rubygems, lambda s: f"GEM_HOST_API_KEY={s} gem push fake_gem-{nb()[0]}.{nb()[0]}.0.gem"))),
    ("bundler_composer_auth", "config", fitted(
        (lambda: f"{who()}:{fpw()}", lambda s: f"# ~/.bundle/config\n---\nBUNDLE_GEMS__CONTRIBSYS__COM: \"{s}\"\nBUNDLE_JOBS: \"4\""),
        (ghp, lambda s: f"bundle config set --global rubygems.pkg.github.com fake-user:{s}"),
        (fpw, lambda s: f"{{\n    \"http-basic\": {{\n        \"{host()}\": {{\n            \"username\": \"{who()}\",\n            \"password\": \"{s}\"\n        }}\n    }}\n}}"),
        (glpat, lambda s: f"{{\n    \"gitlab-token\": {{\n        \"gitlab.com\": \"{s}\"\n    }}\n}}"),
        (opaque, lambda s: f"{{\"bearer\": {{\"packages.example.com\": \"{s}\"}}}}"),
        (opaque, lambda s: f"composer config --global --auth http-basic.repo.packagist.com token {s}"),
        (ghp, lambda s: f"COMPOSER_AUTH='{{\"github-oauth\": {{\"github.com\": \"{s}\"}}}}' composer install --no-dev"),
        (fpw, lambda s: f"composer config http-basic.{host()} {who()} {s}"))),
    ("nuget_config", "config", fitted(
        (ghp, lambda s: f"<packageSourceCredentials>\n  <github>\n    <add key=\"Username\" value=\"fake-user\" />\n    <add key=\"ClearTextPassword\" value=\"{s}\" />\n  </github>\n</packageSourceCredentials>"),
        (fpw, lambda s: f"<packageSourceCredentials>\n    <Internal_x0020_Feed>\n        <add key=\"Username\" value=\"{who()}\" />\n        <add key=\"ClearTextPassword\" value=\"{s}\" />\n    </Internal_x0020_Feed>\n</packageSourceCredentials>"),
        (nuget, lambda s: f"dotnet nuget push bin/Release/Fake.Lib.1.4.2.nupkg --api-key {s} --source https://api.nuget.org/v3/index.json"),
        (nuget, lambda s: f"nuget setapikey {s} -Source https://www.nuget.org/api/v2/package"),
        (fpw, lambda s: f"dotnet nuget add source https://{host()}/nuget/v3/index.json -n internal -u {who()} -p \"{s}\" --store-password-in-clear-text"),
        (nuget, lambda s: f"Publish-Module -Path ./FakeModule -NuGetApiKey {s} -Repository PSGallery"),
        (ghp, lambda s: f"NUGET_AUTH_TOKEN={s} dotnet restore"),
        (nuget, lambda s: f"<apikeys>\n    <add key=\"https://www.nuget.org/api/v2/package\" value=\"{s}\" />\n</apikeys>"))),
    ("maven_settings", "config", fitted(
        (fpw, lambda s: f"<servers>\n  <server>\n    <id>ossrh</id>\n    <username>{who()}</username>\n    <password>{s}</password>\n  </server>\n</servers>"),
        (fpw, lambda s: f"<server>\n  <id>gpg.passphrase</id>\n  <passphrase>{s}</passphrase>\n</server>"),
        (opaque, lambda s: f"<server>\n  <id>central</id>\n  <configuration>\n    <httpHeaders>\n      <property>\n        <name>Authorization</name>\n        <value>Bearer {s}</value>\n      </property>\n    </httpHeaders>\n  </configuration>\n</server>"),
        (fpw, lambda s: f"mvn -B deploy -Dgpg.passphrase={s} -DskipTests"),
        (fpw, lambda s: f"MAVEN_GPG_PASSPHRASE={s} mvn -P release deploy"),
        (fpw, lambda s: f"<server><id>{host()}</id><username>{who()}</username><password>{s}</password></server>"),
        (opaque, lambda s: f"[ERROR] Failed to execute goal org.apache.maven.plugins:maven-deploy-plugin:3.1.1:deploy: Failed to deploy artifacts: Could not transfer artifact com.example:fake:jar:1.4.2 from/to internal (https://{who()}:{s}@{host()}/repository/releases/): status code: 401"),
        (fpw, lambda s: f"sbt> set credentials += Credentials(\"Sonatype Nexus Repository Manager\", \"s01.oss.sonatype.org\", \"{who()}\", \"{s}\")"))),
    ("gradle_properties", "config", one(lambda: pick(fpw(), fpw(), opaque()),
        lambda s: f"signing.keyId=24875D73\nsigning.password={s}\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg",
        lambda s: f"ossrhUsername={who()}\nossrhPassword={s}",
        lambda s: f"mavenCentralUsername={who()}\nmavenCentralPassword={s}",
        lambda s: f"ORG_GRADLE_PROJECT_signingInMemoryKeyPassword={s}",
        lambda s: f"./gradlew publishToMavenCentral -PsigningInMemoryKeyPassword='{s}' --no-configuration-cache",
        lambda s: f"gradle.publish.key=FAKEkey{nb()}\ngradle.publish.secret={s}",
        lambda s: f"artifactory_user={who()}\nartifactory_password={s}\nartifactory_contextUrl=https://{host()}/artifactory",
        lambda s: f"./gradlew publish -PsonatypeUsername={who()} -PsonatypePassword={s}")),
    ("android_signing_configs", "config", one(fpw,
        lambda s: f"signingConfigs {{\n    release {{\n        storeFile file(\"release.jks\")\n        storePassword \"{s}\"\n        keyAlias \"upload\"\n        keyPassword \"{s}\"\n    }}\n}}",
        lambda s: f"signingConfigs {{\n    create(\"release\") {{\n        storeFile = file(\"../keys/upload.jks\")\n        storePassword = \"{s}\"\n        keyAlias = \"upload\"\n        keyPassword = \"{s}\"\n    }}\n}}",
        lambda s: f"storePassword={s}\nkeyPassword={s}\nkeyAlias=upload\nstoreFile=/home/ci/upload-keystore.jks",
        lambda s: f"MYAPP_UPLOAD_STORE_FILE=my-upload-key.keystore\nMYAPP_UPLOAD_KEY_ALIAS=my-key-alias\nMYAPP_UPLOAD_STORE_PASSWORD={s}\nMYAPP_UPLOAD_KEY_PASSWORD={s}",
        lambda s: f"# local.properties\nsdk.dir=/opt/android-sdk\nRELEASE_STORE_PASSWORD={s}\nRELEASE_KEY_PASSWORD={s}",
        lambda s: f"storePassword System.getenv(\"KEYSTORE_PASSWORD\") ?: \"{s}\"",
        lambda s: f"android.injected.signing.store.file=/tmp/ks.jks\nandroid.injected.signing.store.password={s}\nandroid.injected.signing.key.alias=upload\nandroid.injected.signing.key.password={s}")),
    ("signing_command_lines", "cli", one(fpw,
        lambda s: f"jarsigner -keystore release.jks -storepass {s} -keypass {s} app-release-unsigned.apk upload",
        lambda s: f"keytool -genkeypair -v -keystore upload.jks -alias upload -keyalg RSA -keysize 2048 -validity 10000 -storepass '{s}' -keypass '{s}' -dname \"CN=Fake Corp\"",
        lambda s: f"apksigner sign --ks release.jks --ks-key-alias upload --ks-pass pass:{s} --key-pass pass:{s} --out app-signed.apk app.apk",
        lambda s: f"java -jar bundletool.jar build-apks --bundle=app.aab --output=app.apks --ks=upload.jks --ks-pass=pass:{s} --ks-key-alias=upload --key-pass=pass:{s}",
        lambda s: f"signtool sign /f codesign.pfx /p \"{s}\" /fd SHA256 /tr http://timestamp.digicert.com /td SHA256 FakeSetup.exe",
        lambda s: f"osslsigncode sign -pkcs12 codesign.p12 -pass '{s}' -n \"Fake App\" -in app.exe -out app-signed.exe",
        lambda s: f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{s}",
        lambda s: f"security unlock-keychain -p \"{s}\" build.keychain && security import dist.p12 -k build.keychain -P \"{s}\" -T /usr/bin/codesign",
        lambda s: f"gpg --batch --yes --pinentry-mode loopback --passphrase '{s}' --detach-sign --armor dist/fake-1.4.2.tar.gz")),
    ("keystore_blobs_in_ci", "config", fitted(
        (jks_b64, lambda s: f"ANDROID_KEYSTORE_BASE64={s}"),
        (p12_b64, lambda s: f"export BUILD_CERTIFICATE_BASE64=\"{s}\"\nexport P12_PASSWORD=\"$P12_PASSWORD\""),
        (jks_b64, lambda s: f"echo \"{s}\" | base64 --decode > app/upload.jks"),
        (p12_b64, lambda s: f"CSC_LINK={s}"),
        (fpw, lambda s: f"export CSC_LINK=./certs/mac.p12\nexport CSC_KEY_PASSWORD='{s}'"),
        (fpw, lambda s: f"WIN_CSC_LINK=./certs/win.pfx\nWIN_CSC_KEY_PASSWORD={s}"),
        (fpw, lambda s: f"KEYCHAIN_PASSWORD={s}\nP12_PASSWORD={s}"),
        (fpw, lambda s: f"  env:\n    BUILD_CERTIFICATE_BASE64: ${{{{ secrets.BUILD_CERTIFICATE_BASE64 }}}}\n    P12_PASSWORD: {s}\n    KEYCHAIN_PASSWORD: ${{{{ secrets.KEYCHAIN_PASSWORD }}}}"))),
    ("fastlane_env", "config", fitted(
        (fpw, lambda s: f"# fastlane/.env.default\nMATCH_GIT_URL=git@github.com:fake-org/certificates.git\nMATCH_PASSWORD={s}\nMATCH_TYPE=appstore"),
        (asp, lambda s: f"FASTLANE_USER=dev@example.com\nFASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD={s}"),
        (fpw, lambda s: f"FASTLANE_USER=dev@example.com\nFASTLANE_PASSWORD=\"{s}\""),
        (user_pass_b64, lambda s: f"MATCH_GIT_BASIC_AUTHORIZATION={s}"),
        (fpw, lambda s: f"match(type: \"appstore\", readonly: is_ci, git_url: \"https://github.com/fake-org/certs\", password: \"{s}\")"),
        (lambda: "DAW47V3" + hx(120) + "FAKE" + hx(40) + "SRVX", lambda s: f"export FASTLANE_SESSION='---\\n- !ruby/object:HTTP::Cookie\\n  name: myacinfo\\n  value: {s}\\n  domain: apple.com\\n  for_domain: true\\n  path: \"/\"\\n'"),
        (lambda: "DAW47V3" + hx(120) + "FAKE" + hx(40) + "SRVX", lambda s: f"---\n- !ruby/object:HTTP::Cookie\n  name: myacinfo\n  value: {s}\n  domain: apple.com\n  for_domain: true\n  path: \"/\"\n  secure: true\n  httponly: true"),
        (fpw, lambda s: f"ENV[\"MATCH_PASSWORD\"] = \"{s}\""))),
    ("apple_notary", "cli", fitted(
        (asp, lambda s: f"xcrun notarytool submit Fake.zip --apple-id dev@example.com --password {s} --team-id {team()} --wait"),
        (asp, lambda s: f"xcrun altool --upload-app -t ios -f build/Fake.ipa -u dev@example.com -p {s}"),
        (asp, lambda s: f"xcrun notarytool store-credentials \"AC_PASSWORD\" --apple-id \"dev@example.com\" --team-id \"{team()}\" --password \"{s}\""),
        (asp, lambda s: f"await notarize({{\n  appBundleId: 'com.example.fake',\n  appPath: `${{appOutDir}}/Fake.app`,\n  appleId: 'dev@example.com',\n  appleIdPassword: '{s}',\n  teamId: '{team()}'\n}});"),
        (asp, lambda s: f"APPLE_ID=dev@example.com\nAPPLE_APP_SPECIFIC_PASSWORD={s}\nAPPLE_TEAM_ID={team()}"),
        (asp, lambda s: f"APPLE_PASSWORD={s}"),
        (asp, lambda s: f"xcrun altool --notarize-app --primary-bundle-id com.example.fake --username dev@example.com --password \"{s}\" --file Fake.dmg"),
        (asp, lambda s: f"Running: /usr/bin/xcrun notarytool submit /tmp/Fake.zip --apple-id dev@example.com --password {s} --team-id {team()} --output-format json"))),
    ("store_api_keys", "json", fitted(
        (lambda: p8_body().replace("\n", "\\n"), lambda s: f"{{\n  \"key_id\": \"{team()}\",\n  \"issuer_id\": \"{uuid()}\",\n  \"key\": \"-----BEGIN PRIVATE KEY-----\\n{s}\\n-----END PRIVATE KEY-----\",\n  \"in_house\": false\n}}"),
        (p8_body, lambda s: f"$ cat AuthKey_{team()}.p8\n-----BEGIN PRIVATE KEY-----\n{s}\n-----END PRIVATE KEY-----"),
        (p8_body, lambda s: f"app_store_connect_api_key(\n  key_id: \"{team()}\",\n  issuer_id: \"{uuid()}\",\n  key_content: \"-----BEGIN PRIVATE KEY-----\n{s}\n-----END PRIVATE KEY-----\",\n  duration: 1200\n)"),
        (lambda: rsa_body().replace("\n", "\\n"), lambda s: f"fastlane supply --aab app.aab --track internal --json_key_data '{{\"type\": \"service_account\", \"project_id\": \"fake-play\", \"private_key_id\": \"{hx(40)}\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{s}\\n-----END PRIVATE KEY-----\\n\", \"client_email\": \"play-publisher@fake-play.iam.gserviceaccount.com\"}}'"),
        (firebase, lambda s: f"$ firebase login:ci\n\n✔  Success! Use this token to login on a CI server:\n\n{s}\n\nExample: firebase deploy --token \"$FIREBASE_TOKEN\""),
        (firebase, lambda s: f"firebase appdistribution:distribute app-release.apk --app 1:{nb()}{nb()}{nb()}:android:{hx(16)} --token \"{s}\" --groups qa"),
        (p8_body, lambda s: f"APP_STORE_CONNECT_API_KEY_KEY_ID={team()}\nAPP_STORE_CONNECT_API_KEY_ISSUER_ID={uuid()}\nAPP_STORE_CONNECT_API_KEY_KEY=\"-----BEGIN PRIVATE KEY-----\n{s}\n-----END PRIVATE KEY-----\""),
        (p8_body, lambda s: f"-----BEGIN PRIVATE KEY-----\n{s}\n-----END PRIVATE KEY-----"))),
    ("expo_codepush", "config", fitted(
        (lambda: "sntrys_FAKE" + rnd(60, B64URL), lambda s: f"{{\n  \"build\": {{\n    \"production\": {{\n      \"channel\": \"production\",\n      \"env\": {{\n        \"SENTRY_AUTH_TOKEN\": \"{s}\"\n      }}\n    }}\n  }}\n}}"),
        (lambda: "FAKE" + rnd(36, ALNUM + "_"), lambda s: f"EXPO_TOKEN={s} eas build --platform all --non-interactive"),
        (codepush, lambda s: f"<key>CodePushDeploymentKey</key>\n<string>{s}</string>"),
        (codepush, lambda s: f"<string moduleConfig=\"true\" name=\"CodePushDeploymentKey\">{s}</string>"),
        (codepush, lambda s: f"$ appcenter codepush deployment list -a fake-org/FakeApp-iOS --displayKeys\n┌────────────┬───────────────────────────────────────┐\n│ Name       │ Key                                   │\n├────────────┼───────────────────────────────────────┤\n│ Production │ {s} │\n├────────────┼───────────────────────────────────────┤\n│ Staging    │ {codepush()} │\n└────────────┴───────────────────────────────────────┘"),
        (codepush, lambda s: f"$ code-push deployment ls FakeApp -k\n┌────────────┬───────────────────────────────────────┬─────────────────┐\n│ Name       │ Deployment Key                        │ Update Metadata │\n├────────────┼───────────────────────────────────────┼─────────────────┤\n│ Production │ {s} │ No updates released │\n└────────────┴───────────────────────────────────────┴─────────────────┘"),
        (codepush, lambda s: f"resValue \"string\", \"CodePushDeploymentKey\", '\"{s}\"'"),
        (lambda: "FAKE" + hx(36), lambda s: f"$ appcenter tokens create -d \"ci release\"\nID:          {uuid()}\nAPI Token:   {s}\nDescription: ci release\nCreated at:  Fri Dec 04 2026 10:11:12 GMT+0000"))),
    ("extension_stores", "cli", fitted(
        (azdo_pat, lambda s: f"npx @vscode/vsce publish -p {s}"),
        (azdo_pat, lambda s: f"VSCE_PAT={s} vsce publish --packagePath fake-ext-1.4.2.vsix"),
        (guid_key, lambda s: f"npx ovsx publish fake-ext-1.4.2.vsix -p {s}"),
        (lambda: "perm:FAKE" + rnd(40, B64 + "."), lambda s: f"intellijPlatform {{\n    publishing {{\n        token = \"{s}\"\n    }}\n}}"),
        (lambda: "perm:FAKE" + rnd(40, B64 + "."), lambda s: f"PUBLISH_TOKEN={s} ./gradlew publishPlugin"),
        (lambda: hx(64), lambda s: f"web-ext sign --channel=listed --api-key=user:{nb()}{nb()}:{nb()} --api-secret={s}"),
        (firebase, lambda s: f"chrome-webstore-upload upload --source ext.zip --extension-id {letters(32, 'abcdefghijklmnop')} --client-id {nb()}-{rnd(32, LOWER_ALNUM)}.apps.googleusercontent.com --client-secret GOCSPX-FAKE{rnd(24, B64URL)} --refresh-token {s}"),
        (lambda: "GOCSPX-FAKE" + rnd(24, B64URL), lambda s: f"CLIENT_ID={nb()}-{rnd(32, LOWER_ALNUM)}.apps.googleusercontent.com\nCLIENT_SECRET={s}\nREFRESH_TOKEN=$CWS_REFRESH_TOKEN"))),
    ("package_hosts", "cli", fitted(
        (guid_key, lambda s: f"choco apikey --key {s} --source https://push.chocolatey.org/"),
        (guid_key, lambda s: f"choco push fake.1.4.2.nupkg --source https://push.chocolatey.org/ --api-key={s}"),
        (lambda: hx(32), lambda s: f"machine trunk.cocoapods.org\n  login dev@example.com\n  password {s}"),
        (lambda: hx(32), lambda s: f"HEX_API_KEY={s} mix hex.publish --yes"),
        (lambda: hx(32), lambda s: f"$ mix hex.config\napi_key: {s} (using `~/.hex/hex.config`)\napi_url: https://hex.pm/api (default)"),
        (lambda: "ya29.FAKE" + rnd(100, B64URL), lambda s: f"{{\"accessToken\":\"{s}\",\"refreshToken\":\"1//0gFAKE{rnd(60, B64URL)}\",\"idToken\":null,\"tokenEndpoint\":\"https://accounts.google.com/o/oauth2/token\",\"scopes\":[\"openid\",\"https://www.googleapis.com/auth/userinfo.email\"],\"expiration\":1764844800000}}"),
        (lambda: b64_of(("{\"t\": \"u\", \"v\": \"" + "MDAxFAKE" + rnd(200, B64) + "\"}").encode()), lambda s: f"SNAPCRAFT_STORE_CREDENTIALS={s}"),
        (opaque, lambda s: f"BUTLER_API_KEY={s} butler push build/ fake-studio/fake-game:windows-beta --userversion 1.4.2"))),
    ("helm_conda_registries", "cli", fitted(
        (fpw, lambda s: f"helm repo add internal https://charts.example.com --username {who()} --password '{s}'"),
        (fpw, lambda s: f"helm registry login registry.example.com -u {who()} -p {s}"),
        (fpw, lambda s: f"apiVersion: \"\"\ngenerated: \"0001-01-01T00:00:00Z\"\nrepositories:\n- caFile: \"\"\n  name: internal\n  password: {s}\n  url: https://charts.example.com\n  username: {who()}"),
        (lambda: "fa-" + hx(8) + "-" + hx(4) + "-" + hx(4) + "-" + hx(4) + "-" + hx(12), lambda s: f"channels:\n  - https://conda.anaconda.org/t/{s}/fake-org\n  - conda-forge"),
        (lambda: "fa-" + hx(8) + "-" + hx(4) + "-" + hx(4) + "-" + hx(4) + "-" + hx(12), lambda s: f"conda config --set channel_alias https://conda.anaconda.org/t/{s}"),
        (opaque, lambda s: f"anaconda -t {s} upload --user fake-org dist/conda/noarch/fake-1.4.2-py_0.conda"),
        (opaque, lambda s: f"ANACONDA_API_TOKEN={s} anaconda upload --force build/*.tar.bz2"),
        (opaque, lambda s: f"pip install --index-url https://{s}:@pypi.fury.io/fake-org/ fake-lib"))),
    ("release_tool_configs", "config", fitted(
        (ghp, lambda s: f"brews:\n  - repository:\n      owner: fake-org\n      name: homebrew-tap\n      token: \"{s}\""),
        (ghp, lambda s: f"$ cat ~/.config/goreleaser/github_token\n{s}"),
        (ghp, lambda s: f"GITHUB_TOKEN={s} goreleaser release --clean"),
        (ghp, lambda s: f"publish:\n  - provider: github\n    owner: fake-org\n    repo: fake-desktop\n    token: {s}"),
        (minisign_secret, lambda s: f"TAURI_SIGNING_PRIVATE_KEY={s}\nTAURI_SIGNING_PRIVATE_KEY_PASSWORD=\"\""),
        (fpw, lambda s: f"export TAURI_SIGNING_PRIVATE_KEY=\"$HOME/.tauri/fake.key\"\nexport TAURI_SIGNING_PRIVATE_KEY_PASSWORD=\"{s}\""),
        (fpw, lambda s: f"JRELEASER_GPG_PASSPHRASE={s}\nJRELEASER_GITHUB_TOKEN=${{{{ secrets.GITHUB_TOKEN }}}}"),
        (npm, lambda s: f"{{\n  \"release\": {{\n    \"branches\": [\"main\"]\n  }},\n  \"npmToken\": \"{s}\"\n}}"))),
    ("tools_print_new_tokens", "log", fitted(
        (npm, lambda s: f"$ npm token create --read-only\n┌────────────────┬──────────────────────────────────────┐\n│ token          │ {s} │\n├────────────────┼──────────────────────────────────────┤\n│ readonly       │ true                                 │\n├────────────────┼──────────────────────────────────────┤\n│ created        │ 2026-12-04T10:11:12.345Z             │\n└────────────────┴──────────────────────────────────────┘"),
        (minisign_secret, lambda s: f"$ npm run tauri signer generate -- -w ~/.tauri/fake.key\nPlease enter a password to protect the secret key.\nPassword: \nPassword (one more time): \nDeriving a key from the password in order to encrypt the secret key... done\n\nYour secret key was generated successfully - Keep it secret!\n{s}\n\n\nYour public key was generated successfully:\n{minisign_public()}\n\nAdd the public key in your tauri.conf.json\n---------------------------\n\nEnvironment variables used to sign:\n`TAURI_SIGNING_PRIVATE_KEY`  Path or String of your private key\n`TAURI_SIGNING_PRIVATE_KEY_PASSWORD`  Your private key password (optional)"),
        (ghp, lambda s: f"$ gh auth token\n{s}"),
        (lambda: b64_of(("{\"t\": \"u1\", \"v\": \"" + "MDAxFAKE" + rnd(180, B64) + "\"}").encode()), lambda s: f"$ snapcraft export-login -\nEnter your Ubuntu One e-mail address and password.\nLogin successfully exported and printed below:\n\n{s}\n\nThis exported login is not encrypted. Do not commit it to version control!"),
        (opaque, lambda s: f"$ anaconda auth --create --name ci-upload --scopes 'api:write api:read'\n{s}"),
        (opaque, lambda s: f"$ heroku authorizations:create -d \"release pipeline\"\nCreating OAuth Authorization... done\nClient:      <none>\nID:          {uuid()}\nDescription: release pipeline\nScope:       global\nToken:       {s}\nUpdated at:  Fri Dec 04 2026 10:11:12 GMT+0000"),
        (cio, lambda s: f"$ cargo login\nplease paste the token found on https://crates.io/me below\n{s}\n       Login token for `crates-io` saved"),
        (rubygems, lambda s: f"$ curl -u fake-user https://rubygems.org/api/v1/api_key.yaml\nEnter host password for user 'fake-user':\n---\n:rubygems_api_key: {s}"))),
    ("ci_release_workflows", "yaml", fitted(
        (npm, lambda s: f"      - run: npm publish --access public\n        env:\n          NODE_AUTH_TOKEN: {s}"),
        (pypi, lambda s: f"      - name: Publish to PyPI\n        uses: pypa/gh-action-pypi-publish@release/v1\n        with:\n          user: __token__\n          password: {s}"),
        (npm, lambda s: f"Run npm publish --provenance\n  npm publish --provenance\n  shell: /usr/bin/bash -e {{0}}\n  env:\n    NPM_CONFIG_USERCONFIG: /home/runner/work/_temp/.npmrc\n    NODE_AUTH_TOKEN: {s}"),
        (pypi, lambda s: f"publish:\n  stage: deploy\n  variables:\n    TWINE_USERNAME: __token__\n    TWINE_PASSWORD: {s}\n  script:\n    - twine upload dist/*"),
        (cio, lambda s: f"      - run: cargo publish\n        env:\n          CARGO_REGISTRY_TOKEN: {s}"),
        (fpw, lambda s: f"      - name: Build signed APK\n        run: ./gradlew assembleRelease\n        env:\n          SIGNING_KEY_ALIAS: upload\n          SIGNING_KEY_PASSWORD: {s}\n          SIGNING_STORE_PASSWORD: {s}"),
        (asp, lambda s: f"    environment:\n      FASTLANE_USER: dev@example.com\n      FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD: {s}\n    steps:\n      - run: bundle exec fastlane beta"),
        (nuget, lambda s: f"  - task: DotNetCoreCLI@2\n    inputs:\n      command: custom\n      custom: nuget\n      arguments: push $(Build.ArtifactStagingDirectory)/*.nupkg --source https://api.nuget.org/v3/index.json --api-key {s}"))),
]


# --- benign: the same places with nothing secret, 8 instances each -----------------------------------------------

BENIGN: list[tuple[str, str, object]] = [
    ("npmrc_ordinary", "config", lambda: pick(
        "registry=https://registry.npmjs.org/\nsave-exact=true\nengine-strict=true",
        "@fake-org:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=${NODE_AUTH_TOKEN}",
        "npmScopes:\n  fake-org:\n    npmAlwaysAuth: true\n    npmAuthToken: \"${NPM_TOKEN}\"\n    npmRegistryServer: \"https://registry.npmjs.org\"",
        "$ npm config list\n; \"user\" config from /home/ci/.npmrc\n\n//registry.npmjs.org/:_authToken = (protected)\nregistry = \"https://registry.npmjs.org/\"",
        "always-auth=true\nstrict-ssl=true\nfund=false\naudit-level=high",
        "nodeLinker: node-modules\nyarnPath: .yarn/releases/yarn-4.5.3.cjs\nenableTelemetry: false",
        "$ npm whoami\nfake-publisher",
        "npm error code E401\nnpm error Unable to authenticate, your authentication token seems to be invalid.\nnpm error To correct this please try logging in again with:\nnpm error   npm login")),
    ("checksums", "log", lambda: pick(
        f"{hx(64)}  fake_1.4.2_linux_amd64.tar.gz\n{hx(64)}  fake_1.4.2_darwin_arm64.tar.gz\n{hx(64)}  fake_1.4.2_windows_amd64.zip",
        f"npm notice shasum:        {hx(40)}\nnpm notice integrity:     sha512-{rnd(14, B64)}[...]{rnd(10, B64)}==",
        f"\"integrity\": \"sha512-{b64_of(_r.randbytes(64))}\"",
        f"[[package]]\nname = \"serde\"\nversion = \"1.0.215\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"{hx(64)}\"",
        f"fake_lib/__init__.py,sha256={base64.urlsafe_b64encode(_r.randbytes(32)).decode().rstrip('=')},{_r.randint(100, 9999)}",
        f"$ shasum -a 256 Fake-1.4.2.dmg\n{hx(64)}  Fake-1.4.2.dmg",
        f"\"contentHash\": \"{b64_of(_r.randbytes(64))}\"",
        f"SHA256 ({'Fake-1.4.2-arm64.dmg'}) = {hx(64)}")),
    ("signing_key_ids", "log", lambda: pick(
        f"$ gpg --list-secret-keys --keyid-format=long\nsec   ed25519/{rnd(16, '0123456789ABCDEF')} 2026-01-04 [SC]\n      {rnd(40, '0123456789ABCDEF')}\nuid                 [ultimate] Fake Release (release signing key)\nssb   cv25519/{rnd(16, '0123456789ABCDEF')} 2026-01-04 [E]",
        f"signing.keyId={rnd(8, '0123456789ABCDEF')}\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg",
        "Certificate fingerprints:\n\t SHA1: " + ":".join(rnd(2, "0123456789ABCDEF") for _ in range(20)) + "\n\t SHA256: " + ":".join(rnd(2, "0123456789ABCDEF") for _ in range(32)),
        f"Authority=Developer ID Application: Fake Corp ({team()})\nAuthority=Developer ID Certification Authority\nTeamIdentifier={team()}\nCDHash={hx(40)}",
        f"gpg: Signature made Fri Dec  4 10:11:12 2026 UTC\ngpg:                using EDDSA key {rnd(40, '0123456789ABCDEF')}\ngpg: Good signature from \"Fake Release (release signing key)\" [ultimate]",
        f"MAVEN_GPG_KEY_ID=0x{rnd(16, '0123456789ABCDEF')}",
        f"Signer #1 certificate SHA-256 digest: {hx(64)}\nSigner #1 certificate SHA-1 digest: {hx(40)}",
        f"  keyid: SHA256:{rnd(43, B64URL)}")),
    ("signing_aliases", "config", lambda: pick(
        "signingConfigs {\n    release {\n        storeFile file(keystoreProperties['storeFile'])\n        keyAlias keystoreProperties['keyAlias']\n    }\n}",
        "keyAlias=upload\nstoreFile=/home/ci/upload-keystore.jks",
        "MYAPP_UPLOAD_STORE_FILE=my-upload-key.keystore\nMYAPP_UPLOAD_KEY_ALIAS=my-key-alias",
        "apksigner sign --ks release.jks --ks-key-alias upload --out app-signed.apk app.apk",
        f"CSC_NAME=\"Developer ID Application: Fake Corp ({team()})\"",
        f"code_sign_identity: \"Apple Distribution: Fake Corp ({team()})\"",
        "jarsigner -verify -verbose -certs app-release.apk\n\njar verified.",
        "android.injected.signing.key.alias=upload")),
    ("secret_references", "yaml", lambda: pick(
        "        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}",
        "        with:\n          password: ${{ secrets.PYPI_API_TOKEN }}",
        "      token: \"{{ .Env.HOMEBREW_TAP_GITHUB_TOKEN }}\"",
        "        storePassword System.getenv(\"KEYSTORE_PASSWORD\")\n        keyPassword System.getenv(\"KEY_PASSWORD\")",
        "<password>${env.OSSRH_PASSWORD}</password>",
        "apksigner sign --ks release.jks --ks-pass env:KS_PASS --key-pass file:/run/secrets/key_pass app.apk",
        "jarsigner -keystore release.jks -storepass:env STOREPASS -keypass:file /run/secrets/keypass app.apk upload",
        "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout env:P12_PASSWORD")),
    ("masked_values", "log", lambda: pick(
        "  env:\n    NODE_AUTH_TOKEN: ***",
        "//registry.npmjs.org/:_authToken = (protected)",
        "<add key=\"ClearTextPassword\" value=\"****\" />",
        "TWINE_PASSWORD: '********'",
        "| match_password | ******** |",
        "Using FASTLANE_SESSION: [hidden]",
        "[INFO] Using server 'ossrh' with password: ****",
        "TAURI_SIGNING_PRIVATE_KEY_PASSWORD=***")),
    ("placeholders", "config", lambda: pick(
        "[pypi]\nusername = __token__\npassword = <your PyPI API token>",
        "[registry]\ntoken = \"YOUR_CRATES_IO_TOKEN\"",
        "//registry.npmjs.org/:_authToken=YOUR_NPM_TOKEN",
        "storePassword=<password from previous step>\nkeyPassword=<password from previous step>",
        "---\n:rubygems_api_key: <your api key>",
        "MATCH_PASSWORD=xxxxxxxx",
        "xcrun altool --upload-app -f Fake.ipa -u \"$APPLE_ID\" -p \"@keychain:AC_PASSWORD\"",
        "xcrun notarytool submit Fake.zip --keychain-profile \"AC_PASSWORD\" --wait")),
    ("version_strings", "log", lambda: pick(
        f"+ fake-lib@1.{_r.randint(0, 20)}.{_r.randint(0, 20)}-rc.1+build.20261204",
        "Uploading fake_lib-1.4.2-py3-none-any.whl\n100% ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 12.3/12.3 kB • 00:00 • 25.1 MB/s",
        f"versionCode {_r.randint(10000, 99999)}\nversionName \"1.4.2\"",
        "<key>CFBundleShortVersionString</key>\n<string>1.4.2</string>\n<key>CFBundleVersion</key>\n<string>20261204.1</string>",
        "   Packaged 14 files, 21.9KiB (5.6KiB compressed)\n   Uploading fake-crate v0.3.1 (/home/ci/fake-crate)",
        "Successfully registered gem: fake_gem (2.1.0)",
        "Pushing Fake.Lib.1.4.2.nupkg to 'https://www.nuget.org/api/v2/package'...\n  Created https://www.nuget.org/api/v2/package/ 1342ms\nYour package was pushed.",
        f"{{\"version\": \"1.4.2\", \"notes\": \"Bug fixes\", \"pub_date\": \"2026-12-04T10:11:12Z\"}}")),
    ("publish_output_ordinary", "log", lambda: pick(
        f"npm notice 📦  fake-lib@1.4.2\nnpm notice Tarball Contents\nnpm notice 1.1kB README.md\nnpm notice name:          fake-lib\nnpm notice version:       1.4.2\nnpm notice filename:      fake-lib-1.4.2.tgz\nnpm notice package size:  4.2 kB\nnpm notice total files:   7",
        "View at:\nhttps://pypi.org/project/fake-lib/1.4.2/",
        f"Conducting pre-submission checks for Fake.zip and initiating connection to the Apple notary service...\nSubmission ID received\n  id: {uuid()}\nSuccessfully uploaded file\n  id: {uuid()}\n  path: /tmp/Fake.zip\nWaiting for processing to complete.\nCurrent status: Accepted",
        "  • publishing\n    • scm releases\n      • creating or updating release tag=v1.4.2 repo=fake-org/fake\n      • release updated url=https://github.com/fake-org/fake/releases/tag/v1.4.2",
        "[10:11:12]: Successfully uploaded package to App Store Connect. It might take a few minutes until it's visible online.",
        "✔  Deploy complete!\n\nProject Console: https://console.firebase.google.com/project/fake-app/overview",
        f"Successfully published fake-org.fake-ext v1.4.2.\nYour extension will live at https://marketplace.visualstudio.com/items?itemName=fake-org.fake-ext",
        f"Build details: https://expo.dev/accounts/fake-org/projects/fake-app/builds/{uuid()}")),
    ("keystore_output_ordinary", "log", lambda: pick(
        "Keystore type: PKCS12\nKeystore provider: SUN\n\nYour keystore contains 1 entry\n\nupload, Dec 4, 2026, PrivateKeyEntry,\nCertificate fingerprint (SHA-256): " + ":".join(rnd(2, "0123456789ABCDEF") for _ in range(32)),
        "storeType=pkcs12\nv1SigningEnabled=true\nv2SigningEnabled=true",
        "buildTypes {\n    release {\n        signingConfig signingConfigs.release\n        minifyEnabled true\n    }\n}",
        "Enter keystore password:\nRe-enter new password:\nGenerating 2,048 bit RSA key pair and self-signed certificate (SHA256withRSA) with a validity of 10,000 days\n\tfor: CN=Fake Corp",
        "1 valid identities found\n  1) " + hx(40).upper() + " \"Apple Distribution: Fake Corp (" + team() + ")\"",
        "keychain: \"/Users/runner/Library/Keychains/build.keychain-db\"\nversion: 512\nclass: 0x80001000",
        "Verifies\nVerified using v1 scheme (JAR signing): false\nVerified using v2 scheme (APK Signature Scheme v2): true\nNumber of signers: 1",
        "security: SecKeychainItemImport: The user name or passphrase you entered is not correct.")),
    ("public_keys_and_signatures", "json", lambda: pick(
        f"\"plugins\": {{\n  \"updater\": {{\n    \"pubkey\": \"{minisign_public()}\",\n    \"endpoints\": [\"https://releases.example.com/{{{{target}}}}/{{{{current_version}}}}\"]\n  }}\n}}",
        f"<key>SUPublicEDKey</key>\n<string>{b64_of(_r.randbytes(32))}</string>",
        f"<enclosure url=\"https://releases.example.com/Fake-1.4.2.zip\" sparkle:edSignature=\"{b64_of(_r.randbytes(64))}\" length=\"{_r.randint(10**6, 10**8)}\" type=\"application/octet-stream\"/>",
        f"untrusted comment: signature from tauri secret key\n{b64_of(_r.randbytes(74))}\ntrusted comment: timestamp:1764844272\tfile:Fake_1.4.2_x64-setup.exe\n{b64_of(_r.randbytes(64))}",
        f"{{\"version\": \"1.4.2\", \"platforms\": {{\"darwin-aarch64\": {{\"signature\": \"{b64_of(_r.randbytes(200))}\", \"url\": \"https://releases.example.com/Fake.app.tar.gz\"}}}}}}",
        f"-----BEGIN PGP SIGNATURE-----\n\niHUEABYKAB0WIQ{rnd(60, B64)}\n{rnd(40, B64)}=\n={rnd(4, B64)}\n-----END PGP SIGNATURE-----",
        f"\"signatures\": [{{\"keyid\": \"SHA256:{rnd(43, B64URL)}\", \"sig\": \"MEUCIQ{rnd(90, B64)}=\"}}]",
        f"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{rnd(28, B64)}\n{rnd(60, B64)}==\n-----END PUBLIC KEY-----")),
    ("store_ids", "json", lambda: pick(
        f"{{\n  \"key_id\": \"{team()}\",\n  \"issuer_id\": \"{uuid()}\",\n  \"key_filepath\": \"./AuthKey_{team()}.p8\",\n  \"in_house\": false\n}}",
        f"app_identifier(\"com.example.fake\")\nteam_id(\"{team()}\")\nitc_team_id(\"{_r.randint(10**8, 10**9)}\")",
        f"\"extra\": {{\n  \"eas\": {{\n    \"projectId\": \"{uuid()}\"\n  }}\n}}",
        f"\"sigh_com.example.fake_appstore\": \"{uuid()}\"",
        f"MATCH_GIT_URL=git@github.com:fake-org/certificates.git\nMATCH_TYPE=appstore\nMATCH_APP_IDENTIFIER=com.example.fake",
        f"--app 1:{_r.randint(10**11, 10**12)}:android:{hx(16)}",
        f"\"client_email\": \"play-publisher@fake-play.iam.gserviceaccount.com\",\n\"client_id\": \"{_r.randint(10**20, 10**21)}\",\n\"private_key_id\": \"{hx(40)}\"",
        f"<key>CodePushServerURL</key>\n<string>https://codepush.example.com</string>")),
    ("credential_settings_ordinary", "config", lambda: pick(
        "[registry]\nglobal-credential-providers = [\"cargo:token\", \"cargo:libsecret\"]",
        "<packageSourceCredentials />\n<config>\n  <add key=\"signatureValidationMode\" value=\"require\" />\n</config>",
        "signing.required=true\nuseInMemoryPgpKeys=true\nRELEASE_SIGNING_ENABLED=true",
        "npmAlwaysAuth: true\nnpmPublishAccess: public",
        "dotnet nuget add source https://nuget.example.com/v3/index.json -n internal --store-password-in-clear-text false",
        "[tool.poetry.source]\nname = \"internal\"\nurl = \"https://pypi.example.com/simple/\"\npriority = \"supplemental\"",
        "password_manager: keychain\ntoken_lifetime_days: 30\nrequire_2fa: true",
        "      - uses: pypa/gh-action-pypi-publish@release/v1\n        with:\n          attestations: true\n          skip-existing: true")),
    ("ci_workflow_ordinary", "yaml", lambda: pick(
        "    permissions:\n      id-token: write\n      contents: read\n    steps:\n      - uses: pypa/gh-action-pypi-publish@release/v1",
        "      - uses: actions/setup-node@v4\n        with:\n          node-version: 22\n          registry-url: 'https://registry.npmjs.org'",
        "Run actions/setup-node@v4\n  with:\n    registry-url: https://registry.npmjs.org\n  env:\n    NODE_AUTH_TOKEN: XXXXX-XXXXX-XXXXX-XXXXX",
        "      - run: npm publish --provenance --access public",
        "      - run: bundle exec fastlane beta\n        env:\n          MATCH_READONLY: true\n          FASTLANE_SKIP_UPDATE_CHECK: 1",
        "    - name: Decode keystore\n      run: echo \"$ANDROID_KEYSTORE_BASE64\" | base64 --decode > app/upload.jks",
        "release:\n  stage: release\n  rules:\n    - if: $CI_COMMIT_TAG\n  script:\n    - goreleaser release --clean",
        "      - uses: rust-lang/crates-io-auth-action@v1\n        id: auth\n      - run: cargo publish\n        env:\n          CARGO_REGISTRY_TOKEN: ${{ steps.auth.outputs.token }}")),
    ("manifest_fields", "json", lambda: pick(
        "\"publishConfig\": {\n  \"access\": \"public\",\n  \"registry\": \"https://registry.npmjs.org/\",\n  \"provenance\": true\n}",
        "spec.metadata[\"rubygems_mfa_required\"] = \"true\"\nspec.signing_key = File.expand_path(\"~/.ssh/gem-private_key.pem\") if $0 =~ /gem\\z/",
        "publish_to: none\nversion: 1.4.2+10402",
        "name: fake-app\nbase: core24\ngrade: stable\nconfinement: strict",
        "{\n  \"build\": {\n    \"production\": {\n      \"channel\": \"production\",\n      \"autoIncrement\": true\n    }\n  },\n  \"submit\": {\n    \"production\": {\n      \"ios\": {\n        \"ascAppId\": \"" + str(_r.randint(10**9, 10**10)) + "\"\n      }\n    }\n  }\n}",
        "\"build\": {\n  \"appId\": \"com.example.fake\",\n  \"mac\": {\"hardenedRuntime\": true, \"notarize\": true},\n  \"publish\": [{\"provider\": \"github\", \"releaseType\": \"draft\"}]\n}",
        "[package]\nname = \"fake-crate\"\nversion = \"0.3.1\"\nlicense = \"MIT OR Apache-2.0\"\npublish = [\"kellnr\"]",
        "<PackageId>Fake.Lib</PackageId>\n<PackageVersion>1.4.2</PackageVersion>\n<PackageLicenseExpression>MIT</PackageLicenseExpression>")),
    ("docs_and_prose", "prose", lambda: pick(
        "Set MATCH_PASSWORD to the passphrase used to encrypt the certificates repository.",
        "Generate an app-specific password at appleid.apple.com; it looks like xxxx-xxxx-xxxx-xxxx.",
        "apksigner accepts --ks-pass pass:<password>, env:<name>, file:<path> or stdin.",
        "npm tokens start with npm_ and are shown only once, when you create them.",
        "The token is stored in ~/.cargo/credentials.toml; run `cargo logout` to remove it.",
        "Use `twine upload -u __token__` with an API token scoped to the project.",
        "If the keystore password and the key password differ, set both storePassword and keyPassword.",
        "Chocolatey API keys are GUIDs; rotate yours from your account page if it leaks.")),
]


def released() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    _r.seed(20261205_34)
    return heldout._records(SECRETS, BENIGN, 8, 8)  # type: ignore[arg-type]


def main() -> None:
    secrets, benign_rows = released()
    heldout._write(HERE / "released_secrets.jsonl.gz", secrets)
    heldout._write(HERE / "released_benign.jsonl.gz", benign_rows)
    print(f"released: {len(secrets)} secret lines, {len(benign_rows)} benign lines")


if __name__ == "__main__":
    main()
