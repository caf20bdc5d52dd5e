"""The guard (layer 5): every tool call's permission, decided from its declared risk.

After the call door's availability, read-only and input checks, `PermissionGuard.decide`
gives each call a `Decision`: ``auto`` (run), ``notify`` (run and tell the notifiers),
``confirm`` (run once approved) or ``deny`` (a correctable refusal). `PermissionPolicy` maps
the tool's declared risk (undeclared counts as ``high``) through its default map, an MCP
server's ``risk_policy`` and the `PermissionRule` overrides; every ``nucleo_permission`` hook
may then tighten it, and a hook that fails denies. The policy is configured in code or in
``[tool.nucleo.guard]`` / ``[guard]`` (`discover_guard_config`).

Importing this package reads no file and loads no plugin.
"""

from nucleo_core.guard.approval_store import (
    ApprovalAlreadyDecided,
    ApprovalError,
    ApprovalExpired,
    ApprovalNotFound,
    ApprovalRecord,
    ApprovalStore,
    MemoryApprovalStore,
    SQLiteApprovalStore,
    default_approvals_path,
)
from nucleo_core.guard.approvals import Approval, ApprovalRequest, Approver
from nucleo_core.guard.config import (
    GUARD_KEYS,
    GuardConfig,
    discover_guard_config,
    guard_config_from_file,
    guard_config_from_mapping,
)
from nucleo_core.guard.errors import GuardConfigError
from nucleo_core.guard.permission import PermissionDecision
from nucleo_core.guard.permission_guard import (
    DEFAULT_HOOK_TIMEOUT,
    PERMISSION_HOOK,
    PermissionGuard,
)
from nucleo_core.guard.policy import (
    DEFAULT_RISK_DECISIONS,
    META_TOOLS,
    PermissionPolicy,
    is_meta_tool,
)
from nucleo_core.guard.rule import RULE_KEYS, PermissionRule
from nucleo_core.plugins.contributions import HookDecision
from nucleo_core.plugins.decision import Decision

__all__ = [
    "DEFAULT_HOOK_TIMEOUT",
    "DEFAULT_RISK_DECISIONS",
    "GUARD_KEYS",
    "META_TOOLS",
    "PERMISSION_HOOK",
    "RULE_KEYS",
    "Approval",
    "ApprovalAlreadyDecided",
    "ApprovalError",
    "ApprovalExpired",
    "ApprovalNotFound",
    "ApprovalRecord",
    "ApprovalRequest",
    "ApprovalStore",
    "Approver",
    "Decision",
    "GuardConfig",
    "GuardConfigError",
    "HookDecision",
    "MemoryApprovalStore",
    "PermissionDecision",
    "PermissionGuard",
    "PermissionPolicy",
    "PermissionRule",
    "SQLiteApprovalStore",
    "default_approvals_path",
    "discover_guard_config",
    "guard_config_from_file",
    "guard_config_from_mapping",
    "is_meta_tool",
]
