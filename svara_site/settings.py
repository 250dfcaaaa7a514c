"""Settings for the Svara room.

Everything comes from environment variables with defaults that work on one machine
(DESIGN.md, Configuration): SQLite in ``var/``, the in-memory channel layer and state
store, a secret key generated into ``var/`` on first run.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url

from svara_site.layers import channel_layers

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("SVARA_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _secret_key() -> str:
    """Use SECRET_KEY when given; otherwise keep one generated key in var/ across restarts."""
    if key := os.environ.get("SECRET_KEY"):
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = _env_bool("DEBUG", True)
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",")
    if h.strip()
]
PORT = int(os.environ.get("PORT", "8000"))
CSRF_TRUSTED_ORIGINS = [f"http://{h}:{PORT}" for h in ALLOWED_HOSTS if h != "*"]

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
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
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
            ],
        },
    },
    {
        # Only the table's regions, rendered per viewer on every change (svara_site/jinja2.py).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "svara_site.jinja2.environment"},
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        # Kept open between requests: every hand start and settlement would otherwise open a
        # new connection (measured by bench/load.py); health checks drop a dead one.
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock at BEGIN, so two writers queue instead of one failing
    # half-way with "database is locked"; select_for_update is a no-op on SQLite.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"transaction_mode": "IMMEDIATE", "timeout": 20})

REDIS_URL = os.environ.get("REDIS_URL", "")
LIVE_STATE_PREFIX = os.environ.get("LIVE_STATE_PREFIX", "svara:live:")
# Serving processes leave the turn clock and the settling of hands to `manage.py
# run_table_clock` (the table worker), so they do no database work while a hand is played. Needs
# the Redis store: a worker cannot see another process's memory.
LIVE_TABLE_WORKER = os.environ.get("LIVE_TABLE_WORKER", "").lower() in ("1", "true", "yes")
if LIVE_TABLE_WORKER and not REDIS_URL:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("LIVE_TABLE_WORKER needs REDIS_URL: the worker shares tables through Redis")
CHANNEL_LAYERS = channel_layers(
    redis_url=REDIS_URL, state_prefix=LIVE_STATE_PREFIX, kind=os.environ.get("CHANNEL_LAYER", "pubsub")
)

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
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip,5/5m/key"}

if os.environ.get("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = os.environ["EMAIL_HOST"]
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = _env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "svara@localhost")

CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

FORMAT_MODULE_PATH = ["svara_site.formats"]  # Bulgarian numbers grouped by thousands
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("bg", "Български")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
