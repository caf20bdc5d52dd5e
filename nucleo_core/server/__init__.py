"""The HTTP API of a nucleo process (``nucleo serve``; extra ``nucleo-core[server]``).

`create_app` builds the FastAPI application over an `ApiService`: the tools the process has
(seed 004's ``/api/tools`` endpoints), the approvals the guard paused, and the audit record.
Importing this package imports FastAPI; ``import nucleo_core`` never does.
"""

from nucleo_core.server.app import create_app
from nucleo_core.server.errors import ApiError, ServerConfigError
from nucleo_core.server.executions import API_CALLER, ApiCaller
from nucleo_core.server.service import ApiService
from nucleo_core.server.settings import ServerSettings, check_bind, is_loopback
from nucleo_core.server.token import TOKEN_ENVIRONMENT_VARIABLE, ApiToken, load_token

__all__ = [
    "API_CALLER",
    "TOKEN_ENVIRONMENT_VARIABLE",
    "ApiCaller",
    "ApiError",
    "ApiService",
    "ApiToken",
    "ServerConfigError",
    "ServerSettings",
    "check_bind",
    "create_app",
    "is_loopback",
    "load_token",
]
