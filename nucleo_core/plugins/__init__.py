"""The plugins layer: hook specifications, markers, and the host that loads and calls plugins.

A plugin author imports `hookimpl` (and `Verdict` for admission hooks); the hub builds a
`PluginHost`, which loads entry points only when asked and is the only caller of hooks.
Nothing is loaded on import.
"""

from nucleo_core.plugins._selection import (
    ALLOW_ENVIRONMENT_VARIABLE,
    BLOCK_ENVIRONMENT_VARIABLE,
    DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE,
    ENTRY_POINT_GROUPS,
    PATH_ENVIRONMENT_VARIABLE,
    PluginSelection,
)
from nucleo_core.plugins.contributions import (
    ContributedSource,
    ContributedTool,
    HookVerdict,
    PackTool,
    SkillPackage,
    SkillSource,
)
from nucleo_core.plugins.errors import PluginError
from nucleo_core.plugins.failures import import_failure
from nucleo_core.plugins.host import PluginHost
from nucleo_core.plugins.markers import PROJECT_NAME, hookimpl, hookspec
from nucleo_core.plugins.pack_result import ToolPackResult
from nucleo_core.plugins.record import PluginRecord, PluginStatus
from nucleo_core.plugins.verdict import Verdict

__all__ = [
    "ALLOW_ENVIRONMENT_VARIABLE",
    "BLOCK_ENVIRONMENT_VARIABLE",
    "DISABLE_AUTOLOAD_ENVIRONMENT_VARIABLE",
    "ENTRY_POINT_GROUPS",
    "PATH_ENVIRONMENT_VARIABLE",
    "PROJECT_NAME",
    "ContributedSource",
    "ContributedTool",
    "HookVerdict",
    "PackTool",
    "PluginError",
    "PluginHost",
    "PluginRecord",
    "PluginSelection",
    "PluginStatus",
    "SkillPackage",
    "SkillSource",
    "ToolPackResult",
    "Verdict",
    "hookimpl",
    "hookspec",
    "import_failure",
]
