"""Acme's admission policy: no tool joins a palette unless its author declared its risk."""

from nucleo_core import Verdict, hookimpl


@hookimpl
def nucleo_admit_tool(provider):
    """Refuse a tool that declares no risk; have no opinion about the others."""
    if not provider.risk_declared:
        return Verdict.refuse(
            f"{provider.name} does not declare its risk, and Acme admits only tools that do"
        )
    return None
