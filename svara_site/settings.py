"""Settings for the Svara room.

Everything comes from environment variables (docs/deploy.md has the table), read and checked by
svara_site/config.py: a malformed one stops start-up with one line naming it. Without any, a
process runs as one machine would (DESIGN.md, Configuration): SQLite in ``var/``, the in-memory
channel layer and state store; but DEBUG is off unless asked for (``make run`` asks), and without
DEBUG a SECRET_KEY must be given. ``PUBLIC_URL`` (the https address players use) is the one switch
for a room behind a TLS proxy: hosts, trusted origins, secure cookies, HSTS and the proxy's headers.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url

from svara_site import config
from svara_site.config import env_bool, env_int, env_list, stop
from svara_site.layers import cache_options, channel_layers, check_redis_url
from svara_site.proxy import proxy_networks

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("SVARA_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _generated_secret_key() -> str:
    """One generated key kept in var/ across restarts: DEBUG only (one machine, make run)."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = config.secret_key(debug=DEBUG, generated=_generated_secret_key)
PUBLIC = config.public_url()
PUBLIC_URL = PUBLIC.origin if PUBLIC else ""
PORT = env_int("PORT", 8000, minimum=1, maximum=65535)
if PUBLIC:
    # The public host, and any the operator adds (say, an internal name the proxy uses).
    ALLOWED_HOSTS = [PUBLIC.host, *env_list("ALLOWED_HOSTS")]
    CSRF_TRUSTED_ORIGINS = [PUBLIC.origin]
    # The proxy terminates TLS: it says so in X-Forwarded-Proto (deploy/nginx overwrites the
    # header, so a client cannot set it).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", True)
else:
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
    CSRF_TRUSTED_ORIGINS = [f"http://{h}:{PORT}" for h in ALLOWED_HOSTS if h != "*"]
# How many proxies stand in front (each appends the address it saw to X-Forwarded-For): the
# player's address is that many entries from the right (svara_site/proxy.py).
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 1 if PUBLIC else 0, maximum=10)
# Where those proxies connect from: the header is believed from these peers only, so a client that
# reaches a serving process directly is its own address whatever it writes (this machine by
# default, where the deploy kit's nginx runs; name the network of a proxy on another machine).
TRUSTED_PROXY_NETWORKS = os.environ.get("TRUSTED_PROXY_NETWORKS", "127.0.0.0/8,::1/128")
try:
    proxy_networks(TRUSTED_PROXY_NETWORKS)
except ValueError as exc:
    stop("TRUSTED_PROXY_NETWORKS", f"must be networks separated by commas ({exc})")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "allauth",
    "allauth.account",
    "accounts",
    "games",
    "svara_site",  # its deployment checks (svara_site/checks.py)
]

MIDDLEWARE = [
    # First: answered before the host check and the https redirect, so a load balancer may poll
    # each process directly, and cheaply.
    "svara_site.health.HealthMiddleware",
    # /metrics, for the loopback (or METRICS_TOKEN) only: svara_site/metrics.py.
    "svara_site.metrics.MetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files with far-future headers for hashed names, compressed (svara_site/staticfiles.py).
    "svara_site.staticfiles.StaticFilesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A session whose user was banned since ends on its next request, with the ban's page.
    "accounts.middleware.BannedSessionMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "svara_site.urls"
ASGI_APPLICATION = "svara_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "games.context_processors.site",
                "accounts.context_processors.reality_check",
            ],
            # The one card template on Django's pages: {% load cards %}{% card face %}.
            "libraries": {"cards": "games.tables.ui.card_tags"},
        },
    },
    {
        # Only the table's regions and its cards, rendered per viewer on every change
        # (games/tables/ui/jinja2.py).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "games.tables.ui.jinja2.environment"},
    },
]

try:
    DATABASES = {
        "default": dj_database_url.parse(
            os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
            # Under Daphne every sync view runs in a thread of its own: a connection kept open
            # (CONN_MAX_AGE > 0) stayed with each thread, and 50 requests exhausted PostgreSQL's
            # 100. PostgreSQL connections come from psycopg's pool instead, below.
            conn_max_age=0,
        )
    }
except ValueError:
    stop("DATABASE_URL", "is not a database URL (postgres://user@host:5432/name or sqlite:///path)")
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock at BEGIN, so two writers queue instead of one failing
    # half-way with "database is locked"; select_for_update is a no-op on SQLite.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"transaction_mode": "IMMEDIATE", "timeout": 20})
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and (
    pool_size := env_int("DB_POOL_SIZE", 8)
):
    # At most DB_POOL_SIZE connections per process, however many threads ask: a burst waits for
    # a free one (up to DB_POOL_TIMEOUT seconds) instead of opening one each.
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": pool_size,
        "timeout": env_int("DB_POOL_TIMEOUT", 10, minimum=1),
    }

REDIS_URL = check_redis_url(os.environ.get("REDIS_URL", "").strip())
LIVE_STATE_PREFIX = os.environ.get("LIVE_STATE_PREFIX", "svara:live:")
# Serving processes leave the turn clock and the settling of hands to `manage.py
# run_table_clock` (the table worker), so they do no database work while a hand is played. Needs
# the Redis store: a worker cannot see another process's memory.
LIVE_TABLE_WORKER = env_bool("LIVE_TABLE_WORKER", False)
# /metrics for a scraper that is not on this machine's loopback: Authorization: Bearer <token>.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "").strip()
# The table worker's /metrics (run_table_clock), on 127.0.0.1; 0: none.
WORKER_METRICS_PORT = env_int("WORKER_METRICS_PORT", 0, maximum=65535)
if LIVE_TABLE_WORKER and not REDIS_URL:
    stop("LIVE_TABLE_WORKER", "needs REDIS_URL: the worker shares tables through Redis")
# Table sockets open at once, per account and per address, in all processes together
# (games/live/socket_counts.py); 0 turns a limit off. One more is closed with 4429.
SOCKETS_PER_USER = env_int("SOCKETS_PER_USER", 12, minimum=0, maximum=10000)
SOCKETS_PER_ADDRESS = env_int("SOCKETS_PER_ADDRESS", 48, minimum=0, maximum=100000)
# Sit-and-go tournaments (games/tournaments): registration and its pages are built, play at a
# tournament table is not yet, so they stay closed to players until it is (issue 33). Tests open them.
TOURNAMENTS_OPEN = env_bool("TOURNAMENTS_OPEN", False)
# Seconds of time bank each player has per sitting at a real table, used when a turn's clock runs
# out (games/live/turn_time.py); 0 turns it off. Taken into a table's document when it is loaded.
LIVE_TIME_BANK_SECONDS = env_int("LIVE_TIME_BANK_SECONDS", 30, minimum=0, maximum=600)
# The fixed pauses of every hand (the deal's 3 s, the result's 4 s; games/live/transitions.py), in
# milliseconds: unset keeps them. Only the load benchmark shortens them, so that its unpaced mode
# measures the servers rather than the waiting.
if os.environ.get("LIVE_START_DELAY_MS", "").strip():
    LIVE_START_DELAY_MS = env_int("LIVE_START_DELAY_MS", 3000, minimum=0, maximum=60000)
if os.environ.get("LIVE_SHOWDOWN_PAUSE_MS", "").strip():
    LIVE_SHOWDOWN_PAUSE_MS = env_int("LIVE_SHOWDOWN_PAUSE_MS", 6000, minimum=0, maximum=60000)
if (layer_kind := os.environ.get("CHANNEL_LAYER", "pubsub")) not in ("pubsub", "core"):
    stop("CHANNEL_LAYER", f"must be pubsub or core, not {layer_kind!r}")
CHANNEL_LAYERS = channel_layers(redis_url=REDIS_URL, state_prefix=LIVE_STATE_PREFIX, kind=layer_kind)

AUTH_USER_MODEL = "accounts.User"
# The accounts app's subclasses of Django's and allauth's backends refuse banned users (at login
# and for existing sessions); its adapter tells a banned user why.
AUTHENTICATION_BACKENDS = [
    "accounts.backends.NotBannedModelBackend",
    "accounts.backends.NotBannedAuthenticationBackend",
]
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
# allauth's form with the 18+ confirmation (responsible play).
ACCOUNT_FORMS = {"signup": "accounts.signup.SignupForm"}
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip,5/5m/key"}

if os.environ.get("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = os.environ["EMAIL_HOST"]
    EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1, maximum=65535)
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "svara@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Who gets an e-mail for every server error: "Ann <ann@example.com>, bob@example.com".
ADMINS = config.admins()

# The room's prefix on every cache key: two rooms on one Redis shared their log-in lockouts.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    | cache_options(REDIS_URL)
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
CACHES["default"]["KEY_PREFIX"] = f"{LIVE_STATE_PREFIX}cache"

FORMAT_MODULE_PATH = ["svara_site.formats"]  # Bulgarian numbers grouped by thousands
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("bg", "Български")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or VAR_DIR / "staticfiles")
if DEBUG:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise looks in it, and warns when it is missing
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Without DEBUG: hashed names (cached for a year), gzip and brotli copies, all made by
    # `manage.py collectstatic`; a process started without them stops (svara_site/staticfiles.py).
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGGING = config.logging_config(
    level=os.environ.get("LOG_LEVEL", "INFO"),
    mail_admins=bool(ADMINS),
    fmt=os.environ.get("LOG_FORMAT", "plain"),
)
# Error reports to Sentry, off unless SENTRY_DSN is set (sentry-sdk's Django integration).
config.init_sentry(os.environ.get("SENTRY_DSN", "").strip(), environment=PUBLIC_URL or "local")
