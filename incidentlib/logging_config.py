"""The logging configuration of every process, written once: Django's `LOGGING`
(settings.py) and gunicorn's `logconfig_dict` (gunicorn.conf.py), which is the app's with
gunicorn's own loggers added.

Lines are one JSON object each (incidentlib/observability.py), or text with LOG_FORMAT=text
(the default with DEBUG); the app's lines carry the id of the request they were written
under. gunicorn applies its configuration at its start and again at each HUP, after Django
applied its own in the master: so it sets the root logger as Django does, or the app's lines
after a HUP would lose their request id.
"""


def app_logging(log_format, level):
    """Django's LOGGING: every logger through one handler on stderr, with the request id."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "incidentlib.observability.RequestIdFilter"}},
        "formatters": {
            "json": {"()": "incidentlib.observability.JsonFormatter"},
            "text": {"format": "%(levelname)s %(name)s [%(request_id)s] %(message)s"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": log_format,
                "filters": ["request_id"],
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Each request is logged once by incidentlib.request, with more than this says.
            "django.request": {"level": "ERROR"},
            "django.server": {"level": "WARNING"},
            # django-axes says its version at every start.
            "axes.apps": {"level": "WARNING"},
            # procrastinate lists its built-in tasks, and its periodic ones, at every start.
            "procrastinate.blueprints": {"level": "WARNING"},
            "procrastinate.periodic": {"level": "WARNING"},
        },
    }


def gunicorn_logging(log_format, level, access_log):
    """gunicorn's logconfig_dict: the app's, and gunicorn's own lines (no request id) on a
    handler of their own; its access log only when asked for (`access_log`)."""
    config = app_logging(log_format, level)
    config["formatters"]["server_text"] = {"format": "%(levelname)s %(name)s %(message)s"}
    config["handlers"]["server"] = {
        "class": "logging.StreamHandler",
        "formatter": "json" if log_format == "json" else "server_text",
        "stream": "ext://sys.stderr",
    }
    config["loggers"] |= {
        "gunicorn.error": {"handlers": ["server"], "level": level, "propagate": False},
        # gunicorn logs access whenever a logging configuration is given: with the access
        # log off, its logger has nowhere to write.
        "gunicorn.access": {
            "handlers": ["server"] if access_log else [],
            "level": "INFO" if access_log else "CRITICAL",
            "propagate": False,
        },
    }
    return config
