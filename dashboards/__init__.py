"""Grafana dashboards, alert rules and provisioning for errscope, generated with grafana-foundation-sdk.

``python -m dashboards`` (``make dashboards``) writes everything under ``deploy/``; the outputs are
committed and ``make check-generated`` fails when they drift from this package. One module per
concern: :mod:`dashboards.names` (every queried name, derived from the instrumentation's),
:mod:`dashboards.common` (panel and query factories), :mod:`dashboards.overview`,
:mod:`dashboards.triage`, :mod:`dashboards.alerts` (the one source of the alert rules),
:mod:`dashboards.provisioning` (datasources, dashboard provider), :mod:`dashboards.generate`.
"""
