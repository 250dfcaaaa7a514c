"""The kit's Prometheus alerting rules (deploy/prometheus/svara-alerts.yml) name only metrics the
room exports: a rule on a misspelt or renamed metric never fires, and nothing says so. The names
are checked against ``/metrics`` as a process answers it (parsed by prometheus_client), on Redis,
where the worker's lease is reported too."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

RULES = Path(__file__).resolve().parents[2] / "deploy" / "prometheus" / "svara-alerts.yml"
# PromQL words that are not metric names.
KEYWORDS = frozenset(
    {
        *("by", "without", "on", "ignoring", "group_left", "group_right", "bool"),
        *("and", "or", "unless", "offset", "inf", "nan"),
    }
)
# The night shift: each of these must have a rule.
WATCHED = (
    "svara_worker_lease_held",  # no worker holds the lease
    "svara_worker_lease_age_seconds",  # the worker stalled
    "svara_tables_stuck",
    "svara_tables_quarantined",
    "svara_deadline_lateness_seconds_bucket",  # deadline lateness p99
    "svara_settlement_seconds_bucket",  # settlement p99
    "svara_errors_total",  # the error rate
)


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads: its identifiers, less functions (followed by
    a parenthesis), keywords, grouping labels, label matchers, ranges and strings."""
    assert expr.count("(") == expr.count(")") and expr.count("{") == expr.count("}"), expr
    text = re.sub(r'"[^"]*"', " ", expr)
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", text)
    names = set()
    for match in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", text):
        name, call = match.group(1), match.group(2)
        if not call and name.lower() not in KEYWORDS:
            names.add(name)
    return names


def test_metric_names_are_read_from_promql() -> None:
    expr = 'histogram_quantile(0.99, sum by (le) (rate(a_bucket{job="x"}[5m]))) > 1 and on (i) b / c'
    assert metric_names(expr) == {"a_bucket", "b", "c"}


def exported_names(text: str) -> set[str]:
    """Every series name ``/metrics`` can carry, labelled families with no child yet included."""
    suffixes = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_count", "_sum", "_created")}
    names = set()
    for family in text_string_to_metric_families(text):
        names.update(family.name + suffix for suffix in suffixes.get(family.type, ("",)))
        names.update(sample.name for sample in family.samples)
    return names


def test_every_alert_names_only_metrics_the_room_exports(settings: Any, redis_url: str) -> None:
    settings.REDIS_URL = redis_url  # the lease's metrics are reported on Redis only
    response = Client().get("/metrics")
    assert response.status_code == 200
    exported = exported_names(response.content.decode())
    rules = [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]
    assert rules
    named: set[str] = set()
    for rule in rules:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
        assert rule["labels"]["severity"] in ("warning", "critical"), rule
        assert rule["annotations"]["summary"] and rule["annotations"]["action"], rule
        names = metric_names(rule["expr"])
        assert names, rule
        assert names <= exported, (rule["alert"], sorted(names - exported))
        named |= names
    assert set(WATCHED) <= named, sorted(set(WATCHED) - named)
    assert len({rule["alert"] for rule in rules}) == len(rules)  # each alert's name once
